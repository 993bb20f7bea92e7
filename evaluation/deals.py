"""The duplicate deal set: deal ``i`` of seed ``s`` depends on ``(s, i)`` alone."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarneeb_env.cards import cards_of
from tarneeb_env.game import deal_cards

_DEALS, _GAMES, _AGENT_SEEDS = 0, 1, 2  # SeedSequence spawn-key purposes


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


def _agent_seed(seed: int, kind: int, chunk: int, role: int) -> int:
    return int(np.random.SeedSequence(seed, spawn_key=(_AGENT_SEEDS, kind, chunk, role)).generate_state(1)[0])
