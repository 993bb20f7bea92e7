"""Decision rates of peer card-game environments, measured the way ``batch_speed.py`` measures ours.

Each decision: read the observation tensor as numpy, list the legal actions,
pick one uniformly at random and apply it. Chance moves (the deal) are sampled
too but not counted. Importable (``from peers import spades_rate``) by the
other benchmark scripts; open_spiel is optional (``pip install -e '.[bench]'``).
"""
from __future__ import annotations

import random
import time

import numpy as np


def spades_rate(seconds: float, seed: int = 0) -> float | None:
    """OpenSpiel spades' decisions/s, or None (with a one-line note) when open_spiel is not installed."""
    try:
        return openspiel_spades_rate(seconds, seed)
    except ImportError:
        print("OpenSpiel spades: skipped, open_spiel is not installed (pip install -e '.[bench]' to compare)")
        return None


def openspiel_spades_rate(seconds: float, seed: int = 0) -> float:
    """Random-play decisions per second of OpenSpiel's ``spades`` (needs ``open_spiel``)."""
    if seconds <= 0:
        raise ValueError(f"seconds: must be positive, got {seconds!r}")
    import pyspiel

    game = pyspiel.load_game("spades")
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        np.asarray(state.observation_tensor(), dtype=np.float32)
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
        decisions += 1
        if decisions % 256 == 0 and time.perf_counter() >= deadline:
            break
    return decisions / (time.perf_counter() - start)


if __name__ == "__main__":
    print(f"OpenSpiel spades: {openspiel_spades_rate(2.0):,.0f} decisions/s")
