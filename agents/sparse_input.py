"""The network's input layer, computed from the non-zero inputs only.

About 7% of the observation's 694 inputs are non-zero in a typical decision (13 own cards
at most, the cards played so far, a few auction and trick bits), and the input layer holds
two thirds of a 256x256 network's weights, so on CPU this layer's product and weight gradient
run as loops over the non-zero entries: each row adds the weight columns of its non-zero inputs,
and the gradient adds each row's output gradient into those columns only. On a 2,048-row
minibatch that is about half the time of the dense products; the whole PPO update is about
1.2x faster (``benchmarks/update_speed.py`` prints both updates). The result is the dense layer's
up to float rounding (the sums run in another order); it is deterministic on a given machine.
The module is an ``nn.Linear`` (same parameters, same state dict): it falls back to the dense
product off the CPU, for other dtypes, and when the input itself needs a gradient.
"""
from __future__ import annotations

import numpy as np
import torch
from numba import njit
from torch import nn
from torch.nn import functional as F


@njit(cache=True)
def _nonzero(xb, idx):
    """The indices of the non-zero entries of row ``xb`` into ``idx`` (one longer than the row); returns
    their count. Branch-free: every index is written and the count moves on only past a non-zero, twice as
    fast as a branch on ~5% non-zero inputs, which the predictor misses."""
    n = 0
    for d in range(xb.shape[0]):
        idx[n] = d
        n += xb[d] != 0.0
    return n


@njit(cache=True)
def _forward(x, wt, bias, out):
    """``out[b] = bias + sum over non-zero x[b, d] of x[b, d] * wt[d]``; ``wt`` is the weight transposed.
    Each row is summed in a local buffer (kept in registers and L1), then stored once."""
    hidden = out.shape[1]
    idx = np.empty(x.shape[1] + 1, np.int64)
    acc = np.empty(hidden, np.float32)
    for b in range(x.shape[0]):
        n = _nonzero(x[b], idx)
        for h in range(hidden):
            acc[h] = bias[h]
        for k in range(n):
            d = idx[k]
            v = x[b, d]
            for h in range(hidden):
                acc[h] += v * wt[d, h]
        for h in range(hidden):
            out[b, h] = acc[h]


@njit(cache=True, fastmath=True)
def _weight_grad(x, g, gwt):
    """``gwt = x.T @ g`` over the non-zero entries of ``x`` (the weight's gradient, transposed)."""
    idx = np.empty(x.shape[1] + 1, np.int64)
    gwt[:] = 0.0
    for b in range(x.shape[0]):
        n = _nonzero(x[b], idx)
        for k in range(n):
            d = idx[k]
            v = x[b, d]
            for h in range(g.shape[1]):
                gwt[d, h] += v * g[b, h]


class _SparseLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, wt):
        x = x.contiguous()
        out = torch.empty((x.shape[0], weight.shape[0]), dtype=torch.float32)
        _forward(x.numpy(), wt, bias.detach().numpy(), out.numpy())
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        grad_w = grad_b = None
        if ctx.needs_input_grad[1]:
            gwt = np.empty((x.shape[1], grad_out.shape[1]), dtype=np.float32)
            _weight_grad(x.numpy(), grad_out.contiguous().numpy(), gwt)
            grad_w = torch.from_numpy(np.ascontiguousarray(gwt.T))
        if ctx.needs_input_grad[2]:
            grad_b = grad_out.sum(0)
        return None, grad_w, grad_b, None


class SparseInputLinear(nn.Linear):
    """``nn.Linear`` for mostly-zero inputs that need no gradient themselves (a network's observations)."""

    _transposed: tuple = (None, None)  # (the weight's version and address, its contiguous transpose)

    def _weight_t(self) -> np.ndarray:
        """The weight transposed, copied again only after it has changed (rollouts run many forward
        passes on the same weights; an optimizer step or a load bumps the tensor's version)."""
        key = (self.weight._version, self.weight.data_ptr())
        if self._transposed[0] != key:
            self._transposed = (key, np.ascontiguousarray(self.weight.detach().numpy().T))
        return self._transposed[1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (x.device.type != "cpu" or x.dtype != torch.float32 or self.weight.dtype != torch.float32
                or x.dim() != 2 or x.requires_grad or self.bias is None):
            return F.linear(x, self.weight, self.bias)
        return _SparseLinear.apply(x, self.weight, self.bias, self._weight_t())
