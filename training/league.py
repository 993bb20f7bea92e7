"""The fictitious-play league: who the learner plays against, and how it is doing against each.

Members are the learner itself (``current``), frozen snapshots of it (one joins every
``selfplay.snapshot_interval`` iterations; the oldest leaves past ``max_snapshots``) and optional
built-in or checkpoint agents (any other key of ``selfplay.weights``). Each member kind has its weight
in ``selfplay.weights``; the ``snapshots`` weight is shared among the snapshots either uniformly
(``selfplay.sampling: uniform``, classic fictitious play) or toward the snapshots the learner does
worst against (``pfsp``, prioritised fictitious self-play as in AlphaStar): snapshot ``i`` gets
``exp(-margin_i / pfsp_scale)``, where ``margin_i`` is the learner's points per hand against it,
averaged over the hands played with the older iterations' hands decayed (a snapshot not yet met counts
as margin 0). Weighting by hands, rather than an average of iteration means started from the first,
keeps one noisy first iteration from standing for the margin for the next ten.

Kita et al. 2024 (bridge bidding, PPO + fictitious self-play) and the history of this toolkit (a
learner trained against ``rule`` alone learns ``rule``'s weaknesses) are why the default recipe plays
mostly against its own past. The league's state (snapshots and margins) is part of the checkpoint,
so ``--resume`` continues it exactly. :func:`ladder` rates the snapshots against each other (and
``rule``) on a fixed deal set, so a user can see that later members are stronger.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import torch

from .config import SAMPLINGS
from .rollout import MARGIN_HANDS, MARGIN_SUM, PoolEntry

MARGIN_DECAY = 0.9  # the weight of earlier hands falls by this each iteration: ~10 iterations of memory


class League:
    """Sampling weights over ``current``, snapshots and agents, with the learner's margin against each."""

    def __init__(self, weights: dict[str, float], max_snapshots: int, sampling: str = "uniform",
                 pfsp_scale: float = 1.0):
        self.snapshots: list[tuple[int, dict[str, torch.Tensor]]] = []
        self.margins: dict[str, float] = {}  # member name -> the learner's (decayed) points per hand against it
        self.margin_hands: dict[str, float] = {}  # member name -> the decayed count of hands behind its margin
        self.configure(weights, max_snapshots, sampling, pfsp_scale)

    def configure(self, weights: dict[str, float], max_snapshots: int, sampling: str = "uniform",
                  pfsp_scale: float = 1.0) -> None:
        """Set the members' weights and the sampling rule (a training stage may change them); the snapshots
        and margins stay, the oldest snapshots leaving if ``max_snapshots`` shrank."""
        if sampling not in SAMPLINGS:
            raise ValueError(f"sampling: expected one of {', '.join(SAMPLINGS)}, got {sampling!r}")
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.sampling = sampling
        self.pfsp_scale = float(pfsp_scale)
        self._prune()

    # ------------------------------------------------------------------ membership
    def add_snapshot(self, iteration: int, state_dict: dict[str, torch.Tensor]) -> None:
        self.snapshots.append((iteration, {k: v.detach().cpu().clone() for k, v in state_dict.items()}))
        self._prune()

    def _prune(self) -> None:
        for it, _ in self.snapshots[: -self.max_snapshots]:
            self.margins.pop(f"snapshot:{it}", None)
            self.margin_hands.pop(f"snapshot:{it}", None)
        del self.snapshots[: -self.max_snapshots]

    def _snapshot_shares(self) -> list[float]:
        if self.sampling == "uniform":
            return [1.0 / len(self.snapshots)] * len(self.snapshots)
        raw = [math.exp(-self.margins.get(f"snapshot:{it}", 0.0) / self.pfsp_scale) for it, _ in self.snapshots]
        total = sum(raw)
        return [r / total for r in raw]

    def entries(self) -> list[PoolEntry]:
        """The members with their sampling weights (summing to the weights' total)."""
        out = []
        current = self.weights.get("current", 0.0)
        snap_w = self.weights.get("snapshots", 0.0)
        if snap_w > 0 and not self.snapshots:
            current += snap_w  # no snapshot yet: the learner stands in for them
        elif snap_w > 0:
            for (it, sd), share in zip(self.snapshots, self._snapshot_shares()):
                out.append(PoolEntry(f"snapshot:{it}", snap_w * share, sd))
        if current > 0:
            out.insert(0, PoolEntry("current", current))
        for name, w in self.weights.items():
            if name not in ("current", "snapshots") and w > 0:
                out.append(PoolEntry(name, w))
        return out

    # ------------------------------------------------------------------ results
    def record(self, margins: dict[str, tuple[float, int]]) -> None:
        """Fold in one iteration's results: member name -> (sum of the learner's hand margins, hands)."""
        for name, (total, hands) in margins.items():
            if hands <= 0 or name == "current":
                continue
            kept = MARGIN_DECAY * self.margin_hands.get(name, 0.0)
            self.margin_hands[name] = kept + hands
            self.margins[name] = (kept * self.margins.get(name, 0.0) + total) / (kept + hands)

    def record_rollout(self, stats: dict[str, float]) -> None:
        """Fold in a rollout's statistics (its ``league_sum/<entry>`` and ``league_hands/<entry>`` counts)."""
        self.record({k[len(MARGIN_SUM):]: (v, int(stats[MARGIN_HANDS + k[len(MARGIN_SUM):]]))
                     for k, v in stats.items() if k.startswith(MARGIN_SUM)})

    def scalars(self) -> dict[str, float]:
        """TensorBoard scalars, a bounded set however many snapshots come and go: the number of snapshots, the
        sampling probability of ``current``, of the snapshots together and of each named agent, the learner's
        margin against each named agent, and against the snapshots played so far: their mean and the lowest (the
        hardest one). Each snapshot's own figures are in :meth:`table`."""
        entries = self.entries()
        total = sum(e.weight for e in entries)
        out = {"league/snapshots": float(len(self.snapshots))}
        snapshot_weight = 0.0
        for e in entries:
            if e.name.startswith("snapshot:"):
                snapshot_weight += e.weight / total
                continue
            tag = e.name.replace(":", "_")
            out[f"league/weight/{tag}"] = e.weight / total
            if e.name in self.margins:
                out[f"league/margin/{tag}"] = self.margins[e.name]
        if self.snapshots:
            out["league/weight/snapshots"] = snapshot_weight
        met = [self.margins[f"snapshot:{it}"] for it, _ in self.snapshots if f"snapshot:{it}" in self.margins]
        if met:
            out["league/margin/snapshots_mean"] = sum(met) / len(met)
            out["league/margin/snapshots_min"] = min(met)
        return out

    def table(self) -> str:
        """Every member's sampling probability and the learner's margin against it, as a Markdown table
        (TensorBoard's text tab shows it at each evaluation)."""
        entries = self.entries()
        total = sum(e.weight for e in entries)
        rows = ["| member | probability | learner's margin (points per hand) |", "|---|---|---|"]
        for e in entries:
            margin = f"{self.margins[e.name]:+.2f}" if e.name in self.margins else "-"
            rows.append(f"| {e.name} | {e.weight / total:.3f} | {margin} |")
        return "\n".join(rows)

    # ------------------------------------------------------------------ checkpoint
    def state(self) -> dict[str, Any]:
        return {"snapshots": [{"iteration": it, "state_dict": sd} for it, sd in self.snapshots],
                "margins": dict(self.margins), "margin_hands": dict(self.margin_hands)}

    def load_state(self, state: dict[str, Any]) -> None:
        self.snapshots = [(int(s["iteration"]), dict(s["state_dict"])) for s in state["snapshots"]]
        self.margins = {str(k): float(v) for k, v in state.get("margins", {}).items()}
        # a checkpoint from before the hand counts: its margins stand until the next rollout replaces them
        self.margin_hands = {str(k): float(v) for k, v in state.get("margin_hands", {}).items()}


def ladder(snapshots: Sequence[tuple[int, dict[str, torch.Tensor]]], arch: dict[str, Any], rules: Any,
           deals: int, seed: int, others: Sequence[str] = ("rule",), workers: int = 1,
           current: Optional[dict[str, torch.Tensor]] = None, phases: Sequence[str] = ("bidding", "trump", "play"),
           other: str = "rule") -> dict[str, float]:
    """Ratings (points per deal, summing to 0) of the snapshots, ``current`` and ``others`` in a round
    robin on the fixed deal set ``seed``: a rising ladder says the league improves. Networks trained on
    only some ``phases`` play the rest with ``other``, as in training."""
    import agents
    from agents.model import ActorCritic
    from agents.policy import PolicyAgent
    from evaluation import round_robin

    entries: list[Any] = []
    members = list(snapshots) + ([("current", current)] if current is not None else [])
    for it, sd in members:
        model = ActorCritic.from_arch(arch)
        model.load_state_dict(sd)
        agent = PolicyAgent(model, phases, None if len(phases) == 3 else agents.load(other, rules=rules))
        agent.name = f"snapshot_{it}" if it != "current" else "current"
        entries.append(agent)
    entries.extend(others)
    if len(entries) < 2:
        return {}
    return dict(round_robin(entries, deals=deals, seed=seed, rules=rules, workers=workers).ratings)
