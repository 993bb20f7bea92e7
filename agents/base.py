"""The one interface through which any player sits at the table."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tarneeb_env import PlayerView


class Agent:
    """Base class: subclasses implement :meth:`act` (and may batch with :meth:`act_batch`).

    ``act(observation, view)`` gets the env's observation dict and the seat's
    :class:`PlayerView` and must return one of ``view.legal_actions``.
    ``reset()`` is called at the start of every deal. ``seed`` makes the agent
    deterministic.

    An agent that decides from the view (and the action mask) alone sets
    ``reads_observation = False``: :class:`agents.seating.Seating` then passes
    it ``observation["observation"] = None``, and the evaluator skips the
    observation writer when no agent at the table reads one.

    ``rules`` is the :class:`~tarneeb_env.Rules` the agent was made for (a
    checkpoint's training rules); ``None`` means it plays any rules. Seating it
    under other rules is refused (see :mod:`agents.rules_check`).

    An agent whose choices draw nothing random (they depend on the
    observation and view alone) sets ``deterministic = True``: the evaluator
    then asks it for many tables in one ``act_batch`` call. Any other agent is
    re-seeded before each of its decisions there, from the deal, the table and
    the move, and asked table by table, so its draws do not depend on which
    deals shared a batch (see :mod:`evaluation.tables`).
    """

    name = "agent"
    reads_observation = True
    deterministic = False
    rules = None

    def __init__(self, seed: Optional[int] = None):
        self.seed(seed)

    def seed(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Called at the start of every deal."""

    def act(self, observation: dict[str, Any], view: PlayerView) -> int:
        raise NotImplementedError

    def act_batch(self, observations: Sequence[dict[str, Any]], views: Sequence[PlayerView]) -> list[int]:
        """Decide for many seats at once; neural agents override this to run one forward pass."""
        return [self.act(o, v) for o, v in zip(observations, views)]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"
