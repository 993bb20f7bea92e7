"""Duplicate evaluation: is agent A better than agent B, and by how much?

Every deal is played twice with the same cards and the same dealer: table 0
seats A at 0&2 and B at 1&3, table 1 the other way round. A's net at a table is
A's team score change minus B's over the deal (redeals after a throw-in
included); the deal's margin is the mean of the two tables, so the luck of the
cards cancels and only the difference in play counts.

Reproducibility. Deal ``i`` comes from ``SeedSequence(seed, spawn_key=(0, i))``
alone (dealer ``i % 4``); both tables reset their game generator from the same
derived seed and the engine uses it only for deals, so redeals are identical
too. An agent that is not ``deterministic`` (see ``agents.Agent``) is re-seeded
before each of its decisions from ``(seed, deal, table, move, role)``, so its
draws are keyed by the deal. Results therefore depend on the agents, rules,
seed and deals, never on ``workers``, ``batch`` or how the deals were split
into chunks.

Work. The deals go to the workers in chunks sized as they are handed out
(:mod:`evaluation.schedule`): at most ``batch`` deals, about a second of play,
one deal while the cost is unknown, and smaller towards the end, so that the
workers end within about a deal of each other and the progress bar moves per
chunk. Chunks come back in any order and are assembled in deal order.

Speed. A chunk's tables run in lockstep in one process on the pure engine
(``TarneebGame`` + ``ObservationWriter``; the writer is left out when no agent
of the pair reads observations, see ``Agent.reads_observation``). Each step a
deterministic agent gets one ``act_batch(observations, views)`` call for all
its tables, so a neural agent runs one forward pass per step; any other agent
is asked table by table; views are built only for agents that read them.

``reset()``: one agent object serves all the tables of a chunk at once, so it
cannot be told "a new deal starts" per table. ``reset()`` is called once per
agent at the start of every chunk; agents must derive per-deal knowledge from
the observation or view they are given, and a cache must not change a choice
(``expert`` keeps its bidding solutions for far more seats than a chunk holds).

Deal sets. A seed names a deal set; ``selection`` (seeds 1-3) is for every
choice, ``heldout`` (seeds 1000001-1000100) for reported figures only
(:mod:`evaluation.deals`, docs/deal-sets.md); a result names the set its seed is in.

Statistics. The margin's 95% interval is the normal approximation over the
per-deal margins (mean +- 1.96 sd/sqrt(n)), or with ``ci="bootstrap"`` a seeded
BCa bootstrap for 100-400-deal matches; a match also gives the probability that
A is the stronger (:mod:`evaluation.stats`). ``--games G`` plays G whole games
to the target score in pairs (the two games of a pair get the same deal
sequence, A on the even seats in the first and the odd seats in the second);
A's game win rate has a Wilson 95% interval. With more than two agents every
pair plays the same deals (round robin) and each agent gets a rating: the
least-squares fit of rating[X] - rating[Y] to each pair's mean margin with
ratings summing to zero, in points per deal.

CLI: ``python evaluate.py`` (or ``tarneeb-evaluate``) ``A B [C ...] [--deals N] [--rules PRESET|file.yaml]
[--seed S] [--deal-set selection|heldout] [--ci normal|bootstrap] [--workers W] [--games G]
[--out results.json] [--records hands.jsonl]``.
"""

from agents.table import MAX_DEALS_PER_GAME, MAX_DEALS_PER_TABLE  # the caps of the runner the tables use

from .deals import DEAL_SETS, HELDOUT, SELECTION, DealSet, DuplicateDeal, deal_set_of, deal_set_seed, duplicate_deal
from .match import (
    EvaluationInputError,
    MatchSettings,
    agent_names,
    duplicate_match,
    load_agent,
    one_torch_thread,
    round_robin,
)
from .results import MatchResult, RoundRobinResult
from .stats import (
    CI_METHODS,
    STAT_DOCS,
    AgentStats,
    MarginSummary,
    fit_ratings,
    margin_ci95,
    summarize_margins,
    wilson_ci95,
)
from .tables import DEALS_PER_BATCH, play_lockstep

__all__ = [
    "CI_METHODS", "DEALS_PER_BATCH", "DEAL_SETS", "HELDOUT", "MAX_DEALS_PER_GAME", "MAX_DEALS_PER_TABLE", "SELECTION",
    "STAT_DOCS", "AgentStats", "DealSet", "DuplicateDeal", "EvaluationInputError", "MarginSummary", "MatchResult",
    "MatchSettings", "RoundRobinResult", "agent_names", "deal_set_of", "deal_set_seed", "duplicate_deal",
    "duplicate_match", "fit_ratings", "load_agent", "margin_ci95", "one_torch_thread", "play_lockstep", "round_robin",
    "summarize_margins", "wilson_ci95",
]
