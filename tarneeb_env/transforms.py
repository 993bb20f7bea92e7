"""Transforms of the observation that a network may read it through (numpy only, so no torch to use them).

- :func:`suit_swaps`: the trump-as-hearts relabelling of ``canonical_trump`` networks, as index tables;
- :func:`as_contract7`: a deal without an auction read as one where the eldest hand bid 7 (``view: contract7``);
- :func:`obs_phase`: the phase an observation row is in (the batch engine's ``batch_kernels.phase_of`` reads a
  game's state instead).

They live beside :mod:`tarneeb_env.observation` because they are written in its layout: a layout change
and its transforms are then one change in one place.
"""
from __future__ import annotations

import numpy as np

from .cards import NUM_ACTIONS, NUM_CARDS, TRUMP_BASE, rank_of, suit_of
from .observation import AUCTION_BLOCKS, LAYOUT, OBS_SIZE, OFFSETS, put_bid, put_contract, put_pass
from .privileged import PRIV_SIZE
from .rules_core import DONE, HEARTS, PHASES

PHASE_NAMES = PHASES[:DONE]  # the phases with a decision, which a network can learn
VIEWS = ("plain", "contract7")  # how a network reads a deal: as it is, or a no-auction deal as a 7 contract
CONTRACT7_BID = 7  # the contract a no-auction deal reads as under view: contract7 (both sides need 7 tricks)
_PHASE = OFFSETS["phase"]
_TRUMP = OFFSETS["trump"]
_VOIDS = OFFSETS["voids"]
_DEALER = OFFSETS["dealer"]
_CARD_BLOCKS = ("hand", "played", "trick", "exposed")  # the observation's blocks of 52 card bits


def suit_swaps() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index tables of the trump-as-hearts relabelling, for the observation (5, OBS_SIZE), the actions
    (5, NUM_ACTIONS) and the privileged features (5, PRIV_SIZE): row ``t`` swaps suit ``t`` and hearts,
    row 4 (no trump yet) is the identity. A swap is its own inverse, so one table maps both ways."""
    obs = np.tile(np.arange(OBS_SIZE), (5, 1))
    act = np.tile(np.arange(NUM_ACTIONS), (5, 1))
    priv = np.tile(np.arange(PRIV_SIZE), (5, 1))
    card = np.arange(NUM_CARDS)
    for t in range(4):
        suit = np.array([HEARTS if u == t else t if u == HEARTS else u for u in range(4)])
        swapped = suit[suit_of(card)] * 13 + rank_of(card)
        for name, size in LAYOUT:
            if name in _CARD_BLOCKS:
                for base in range(OFFSETS[name], OFFSETS[name] + size, NUM_CARDS):
                    obs[t, base + card] = base + swapped
        obs[t, _TRUMP + np.arange(4)] = _TRUMP + suit
        for r in range(4):
            obs[t, _VOIDS + 4 * r + np.arange(4)] = _VOIDS + 4 * r + suit
        act[t, card] = swapped
        act[t, TRUMP_BASE + np.arange(4)] = TRUMP_BASE + suit
        for base in range(0, PRIV_SIZE, NUM_CARDS):
            priv[t, base + card] = base + swapped
    return obs, act, priv


def contract7_auctions() -> np.ndarray:
    """float32 (4, auction blocks): what the encoder writes for the 7 contract, by the dealer's seat relative
    to the observer: the eldest hand bid 7, the three others passed over it, the eldest declares 7."""
    rows = np.zeros((4, OBS_SIZE), dtype=np.float32)
    for dealer, row in enumerate(rows):  # seats relative to observer 0
        eldest = (dealer + 1) % 4
        put_bid(row, 0, eldest, CONTRACT7_BID)
        for seat in range(4):
            if seat != eldest:
                put_pass(row, 0, seat, CONTRACT7_BID)
        put_contract(row, 0, eldest, CONTRACT7_BID)
    return rows[:, AUCTION_BLOCKS]


CONTRACT7_AUCTIONS = contract7_auctions()


def as_contract7(obs, auctions=CONTRACT7_AUCTIONS):
    """A copy of no-auction observations (B, OBS_SIZE) as if the eldest hand had bid 7 and the others passed
    over it: their auction blocks (all zero without an auction) replaced by the ones that auction leaves.

    Indexing only, so ``obs`` may be a numpy array or a torch tensor; a tensor needs ``auctions`` as a tensor
    on its device (the network keeps :data:`CONTRACT7_AUCTIONS` as a buffer for that)."""
    obs = obs.copy() if isinstance(obs, np.ndarray) else obs.clone()
    dealer = obs[:, _DEALER : _DEALER + 4].argmax(-1)
    obs[:, AUCTION_BLOCKS] = auctions[dealer]
    return obs


def obs_phase(obs: np.ndarray) -> np.ndarray:
    """Phase index (0 bidding, 1 trump, 2 play, 3 done) of each observation row."""
    return np.argmax(obs[..., _PHASE : _PHASE + 4], axis=-1)
