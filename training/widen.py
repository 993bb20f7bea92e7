"""Start a wider network from a trained one without losing what it plays (Net2WiderNet, Chen et al. 2016).

A new hidden unit copies a randomly chosen old unit of its layer (incoming weights and bias), and every layer
that reads the layer divides its weights from a copied unit by the number of copies, so the wider network
computes what the old one did. Exact copies would stay equal under training (their gradients are equal), so
the copies' incoming weights get a little noise (``noise`` times the layer's weight scale): the function moves
by about that much, and the copies can diverge.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch


def can_widen(old: Sequence[int], new: Sequence[int]) -> bool:
    """The same number of layers, none narrower, one at least wider."""
    return len(old) == len(new) and all(n >= o for o, n in zip(old, new)) and list(old) != list(new)


def widen_state(state: dict[str, torch.Tensor], old: Sequence[int], new: Sequence[int],
                generator: torch.Generator, noise: float = 0.01) -> dict[str, torch.Tensor]:
    """``state`` (a whole ActorCritic state dict, hidden sizes ``old``) for hidden sizes ``new``."""
    state = dict(state)
    # each tanh MLP and the heads that read its last layer (a privileged critic's value head reads its own trunk)
    if "critic_trunk.0.weight" in state:
        chains = [("trunk", ["policy"]), ("critic_trunk", ["value"])]
    else:
        chains = [("trunk", ["policy", "value"])]
    for trunk, heads in chains:
        for i, (o, n) in enumerate(zip(old, new)):
            w, b = state[f"{trunk}.{2 * i}.weight"], state[f"{trunk}.{2 * i}.bias"]
            if w.shape[0] != o:
                raise ValueError(f"{trunk}.{2 * i}: {w.shape[0]} units, expected {o}")
            pick = torch.cat([torch.arange(o), torch.randint(o, (n - o,), generator=generator)])
            copies = torch.bincount(pick, minlength=o).to(w.dtype)
            w = w[pick].clone()
            w[o:] += noise * w.std() * torch.randn(w[o:].shape, generator=generator, dtype=w.dtype)
            state[f"{trunk}.{2 * i}.weight"], state[f"{trunk}.{2 * i}.bias"] = w, b[pick].clone()
            for r in [f"{trunk}.{2 * (i + 1)}"] if i + 1 < len(old) else heads:
                state[f"{r}.weight"] = state[f"{r}.weight"][:, pick] / copies[pick]
    return state
