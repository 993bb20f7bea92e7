"""What both envs accept: their constructor arguments and ``reset`` options, checked by one piece of code
so ``raw_env`` and ``BatchEnv`` take the same values with the same errors and warnings."""
from __future__ import annotations

import warnings
from typing import Any, NamedTuple, Optional

import numpy as np

from .deal import is_seat, validate_deal

OPTION_KEYS = ("deal", "dealer", "scores", "seat_scores", "exposed_card")
EPISODES = ("hand", "game")
REWARDS = ("score_diff", "win")


def check_env_args(episode: str, reward: str, max_hands: int) -> None:
    if episode not in EPISODES:
        raise ValueError(f"episode: {episode!r} is not one of {list(EPISODES)}")
    if reward not in REWARDS:
        raise ValueError(f"reward: {reward!r} is not one of {list(REWARDS)}")
    if not isinstance(max_hands, (int, np.integer)) or isinstance(max_hands, bool) or max_hands < 1:
        raise ValueError(f"max_hands: must be a positive int, got {max_hands!r}")


class ResetOptions(NamedTuple):
    """One game's checked reset options; ``deal`` (four card lists) and ``exposed_card`` may be None."""

    dealer: int
    scores: tuple[int, int]
    seat_scores: tuple[int, int, int, int]
    deal: Optional[list]
    exposed_card: Optional[int]

    @property
    def plain(self) -> bool:
        """A random deal from zero scores: what an auto-reset does."""
        return self.deal is None and self.scores == (0, 0) and self.seat_scores == (0, 0, 0, 0)


def reset_options(options: Optional[dict[str, Any]], rng: np.random.Generator, where: str = "") -> ResetOptions:
    """Check one game's reset options, drawing the dealer from ``rng`` when none is given.

    Unknown keys are ignored with a warning, not an error: PettingZoo's ``api_test`` passes an arbitrary
    option. ``seat_scores`` (individual bidding) also sets the team scores unless ``scores`` is given.
    ``where`` prefixes every message (``BatchEnv`` names the game).
    """
    if not options:  # the common case, an auto-reset: only the dealer to draw
        return ResetOptions(int(rng.integers(4)), (0, 0), (0, 0, 0, 0), None, None)
    options = dict(options)
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        warnings.warn(f"{where}reset options: ignoring unknown key(s) {unknown}; known: {list(OPTION_KEYS)}",
                      stacklevel=3)
    try:
        dealer = options.get("dealer")
        if dealer is None:
            dealer = int(rng.integers(4))
        scores = _ints(options.get("scores", (0, 0)), 2, "scores", "[a, b]")
        seat_scores = _ints(options.get("seat_scores", (0, 0, 0, 0)), 4, "seat_scores", "four ints")
        if "seat_scores" in options and "scores" not in options:
            scores = (seat_scores[0] + seat_scores[2], seat_scores[1] + seat_scores[3])
        if not is_seat(dealer):
            raise ValueError(f"options['dealer'] must be a seat 0..3, got {dealer!r}")
        deal, exposed = options.get("deal"), options.get("exposed_card")
        if deal is not None:
            validate_deal(deal, dealer, exposed)
    except ValueError as e:
        raise ValueError(f"{where}{e}") from None
    return ResetOptions(int(dealer), scores, seat_scores, deal, exposed)


def _ints(value, n: int, name: str, shape: str) -> tuple:
    ok = isinstance(value, (list, tuple, np.ndarray)) and len(value) == n
    ok = ok and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in value)
    if not ok:
        raise ValueError(f"options[{name!r}] must be {shape}, got {value!r}")
    return tuple(int(x) for x in value)
