"""Duplicate deals and the named deal sets.

Deal ``i`` of seed ``s`` depends on ``(s, i)`` alone, so a seed names a deal set of any length.

The rule of the named sets: every choice made while developing an agent (links, variants, averaging, which
file ships, hyperparameters) is made on the *selection* seeds; every figure reported for a shipped agent (README,
docs, manifest) is measured on the *held-out* seeds, which no choice has looked at. A figure measured on the deals
it was selected on is biased upwards (the winner's curse); the held-out set is what a reader can trust. The
held-out range lies far from every seed used in configs, tests and docs (0-3, the in-training evaluation's 12345,
training seeds below 100), and ``tests/test_deal_sets.py`` keeps the training configs' seeds out of it.
Seeds in neither set (such as the default 0) are for ad-hoc runs. See docs/deal-sets.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from tarneeb_env.cards import cards_of
from tarneeb_env.game import deal_cards

_DEALS, _GAMES, _AGENT_SEEDS, _BOOTSTRAP = 0, 1, 2, 3  # SeedSequence spawn-key purposes


@dataclass(frozen=True)
class DealSet:
    """A named range of seeds, each naming its own independent deals; ``seeds[0]`` is the set's default."""

    name: str
    seeds: range
    role: str

    def describe(self) -> str:
        return f"{self.name} (seeds {self.seeds[0]}-{self.seeds[-1]}: {self.role})"


SELECTION = DealSet("selection", range(1, 4), "every choice made while training and shipping")
HELDOUT = DealSet("heldout", range(1_000_001, 1_000_101), "reported figures only, never used for a choice")
DEAL_SETS = {s.name: s for s in (SELECTION, HELDOUT)}


def deal_set_of(seed: int) -> Optional[str]:
    """The name of the deal set ``seed`` belongs to, or None for a seed in no named set."""
    return next((s.name for s in DEAL_SETS.values() if seed in s.seeds), None)


def deal_set_seed(name: str, seed: Optional[int] = None) -> int:
    """The seed a run on deal set ``name`` plays: ``seed`` when given (it must lie in the set), else the
    set's first seed. A bad name or a seed outside the set raises ``ValueError``, saying what to give."""
    if name not in DEAL_SETS:
        raise ValueError(f"unknown deal set {name!r}; deal sets: {', '.join(DEAL_SETS)}")
    chosen = DEAL_SETS[name]
    if seed is None:
        return chosen.seeds[0]
    if seed not in chosen.seeds:
        raise ValueError(f"seed {seed} is not in deal set {chosen.describe()}; give a seed in that range, "
                         "or --seed alone")
    return seed


@dataclass(frozen=True)
class DuplicateDeal:
    """One deal of the set: the cards, the dealer, and the seed both tables' games reset with."""

    index: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    exposed_card: int  # the dealer's last card (used when rules.trump == "last_card")
    game_seed: int


def duplicate_deal(seed: int, index: int) -> DuplicateDeal:
    """Deal ``index`` of the deal set named by ``seed`` (independent of everything else)."""
    deal_ss, game_ss = np.random.SeedSequence(seed, spawn_key=(_DEALS, index)).spawn(2)
    dealer = index % 4
    hands, last = deal_cards(np.random.default_rng(deal_ss), dealer)
    return DuplicateDeal(index, dealer, tuple(cards_of(h) for h in hands), last, int(game_ss.generate_state(1)[0]))


def _agent_seed(seed: int, *key: int) -> int:
    """An agent's seed keyed by ``key``: ``(kind, deal or game pair, table, move, role)`` for a decision (see
    :mod:`evaluation.tables`), ``(kind, first deal, role)`` for the start of a chunk."""
    return int(np.random.SeedSequence(seed, spawn_key=(_AGENT_SEEDS, *key)).generate_state(1)[0])
