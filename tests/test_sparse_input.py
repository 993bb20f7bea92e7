"""The sparse input layer computes the dense layer's outputs and gradients (up to float rounding)."""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from agents.model import ActorCritic
from agents.sparse_input import SparseInputLinear
from tarneeb_env import OBS_SIZE


def pair(d_in=OBS_SIZE, d_out=64, seed=0):
    torch.manual_seed(seed)
    sparse = SparseInputLinear(d_in, d_out)
    dense = nn.Linear(d_in, d_out)
    dense.load_state_dict(sparse.state_dict())
    return sparse, dense


def observations(n=300, d=OBS_SIZE, density=0.07, seed=1):
    g = torch.Generator().manual_seed(seed)
    x = (torch.rand(n, d, generator=g) < density).float()
    x[:, :5] *= torch.rand(n, 5, generator=g)  # some fractional inputs, as the score features
    x[0] = 0.0  # a row with no input at all
    return x


def test_forward_and_gradients_equal_the_dense_layer():
    sparse, dense = pair()
    x = observations()
    g = torch.randn(len(x), 64, generator=torch.Generator().manual_seed(2))
    for layer in (sparse, dense):
        (layer(x) * g).sum().backward()
    assert torch.allclose(sparse(x), dense(x), atol=1e-5)
    assert torch.allclose(sparse.weight.grad, dense.weight.grad, atol=1e-4)
    assert torch.allclose(sparse.bias.grad, dense.bias.grad, atol=1e-4)
    assert torch.equal(sparse(x)[0], sparse.bias.detach())  # no input: the bias alone


def test_dense_inputs_and_inputs_that_need_a_gradient_still_give_the_dense_results():
    sparse, dense = pair()
    x = torch.randn(50, OBS_SIZE)
    assert torch.allclose(sparse(x), dense(x), atol=1e-4)
    xs, xd = x.clone().requires_grad_(), x.clone().requires_grad_()
    sparse(xs).sum().backward()
    dense(xd).sum().backward()
    assert torch.allclose(xs.grad, xd.grad, atol=1e-5)


def test_repeated_calls_are_bit_identical_and_the_network_keeps_its_state_dict():
    sparse, _ = pair()
    x = observations()
    assert torch.equal(sparse(x), sparse(x))
    model = ActorCritic([32, 16])
    assert isinstance(model.trunk[0], SparseInputLinear) and type(model.trunk[2]) is nn.Linear
    plain = {k: v.shape for k, v in model.state_dict().items()}
    assert plain["trunk.0.weight"] == (32, OBS_SIZE) and "trunk.0.bias" in plain
    # the same weights through F.linear give the same logits
    mask = torch.ones(len(x), 70, dtype=torch.bool)
    with torch.no_grad():
        logits = model.policy_logits(x, mask)
        h = torch.tanh(model.trunk[2](torch.tanh(F.linear(x, model.trunk[0].weight, model.trunk[0].bias))))
        assert torch.allclose(logits, model.policy(h), atol=1e-5)


def test_a_changed_weight_is_seen_at_once():
    # the transposed copy is kept between calls: an optimizer step, a load or an in-place edit must renew it
    sparse, dense = pair()
    x = observations()
    with torch.no_grad():
        sparse(x)
        sparse.weight.mul_(2.0)
        dense.weight.mul_(2.0)
        assert torch.allclose(sparse(x), dense(x), atol=1e-5)
        sparse.load_state_dict(pair(seed=5)[0].state_dict())
        assert torch.allclose(sparse(x), pair(seed=5)[1](x), atol=1e-5)
    opt = torch.optim.SGD(sparse.parameters(), lr=0.1)
    sparse(x).sum().backward()
    opt.step()
    with torch.no_grad():
        assert torch.allclose(sparse(x), F.linear(x, sparse.weight, sparse.bias), atol=1e-5)
