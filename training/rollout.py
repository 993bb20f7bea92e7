"""Self-play rollout collection behind a small interface.

The learner hands :meth:`LocalRollout.collect` the current weights, the opponent
pool's entries and one integer seed; it gets back the learned decisions with
their advantages and some statistics. Nothing else crosses the boundary, so a
pool of remote workers (e.g. Ray actors each running a ``LocalRollout``) can
replace it without touching the learner.

Each iteration re-seeds the batch engine and every random choice from that one
seed and starts all games at a fresh deal, so an iteration depends only on
(weights, pool, seed): a resumed run replays exactly. Decisions of a hand that
has not ended when the rollout stops are dropped.

Per game, one team is the learner (drawn per game) and the other team an entry
of the pool: ``current`` (the learner itself; both teams' decisions are then
trained on), a past snapshot, or a built-in agent such as ``rule``. Phases the
policy does not learn are played by ``learn.other`` for every network seat.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import torch

import agents
from agents.model import (
    ActorCritic,
    PolicyAgent,
    log_probs_entropy,
    phase_flags,
    phase_of,
    sample_actions,
)
from tarneeb_env import PASS, Rules
from tarneeb_env.batch import BatchEnv

from .config import Config
from .ppo import gae_per_seat

BIDDING = 0


@dataclass
class PoolEntry:
    """One opponent kind with its sampling weight; ``state_dict`` for snapshots."""

    name: str  # "current", "snapshot:<iteration>" or an agent spec
    weight: float
    state_dict: Optional[dict[str, torch.Tensor]] = None

    @property
    def kind(self) -> str:
        if self.name == "current":
            return "current"
        return "snapshot" if self.name.startswith("snapshot:") else "agent"


class OpponentPool:
    """Sampling weights over ``current``, past snapshots (sharing the ``snapshots`` weight) and agents."""

    def __init__(self, weights: dict[str, float], max_snapshots: int):
        self.weights = dict(weights)
        self.max_snapshots = max_snapshots
        self.snapshots: list[tuple[int, dict[str, torch.Tensor]]] = []

    def add_snapshot(self, iteration: int, state_dict: dict[str, torch.Tensor]) -> None:
        self.snapshots.append((iteration, {k: v.detach().cpu().clone() for k, v in state_dict.items()}))
        del self.snapshots[: -self.max_snapshots]

    def entries(self) -> list[PoolEntry]:
        out = []
        current = self.weights.get("current", 0.0)
        snap_w = self.weights.get("snapshots", 0.0)
        if snap_w > 0 and not self.snapshots:
            current += snap_w  # no snapshot yet: the learner stands in for them
        elif snap_w > 0:
            for it, sd in self.snapshots:
                out.append(PoolEntry(f"snapshot:{it}", snap_w / len(self.snapshots), sd))
        if current > 0:
            out.insert(0, PoolEntry("current", current))
        for name, w in self.weights.items():
            if name not in ("current", "snapshots") and w > 0:
                out.append(PoolEntry(name, w))
        return out

    def state(self) -> dict[str, Any]:
        return {"snapshots": [{"iteration": it, "state_dict": sd} for it, sd in self.snapshots]}

    def load_state(self, state: dict[str, Any]) -> None:
        self.snapshots = [(int(s["iteration"]), dict(s["state_dict"])) for s in state["snapshots"]]


@dataclass
class RolloutResult:
    """Learned decisions of finished hands (numpy) and rollout statistics."""

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    logp: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    stats: dict[str, float] = field(default_factory=dict)


class LocalRollout:
    """Runs ``env.num_games`` games in-process with batched inference for every network seat."""

    def __init__(self, cfg: Config, rules: Rules):
        self.cfg = cfg
        self.rules = rules
        self.env = BatchEnv(num_games=cfg.env.num_games, rules=rules, seed=cfg.env.seed)
        self.model = ActorCritic(cfg.model.hidden).eval()
        self.learned = phase_flags(cfg.learn.phases)
        self._tables: dict[str, list[agents.Agent]] = {}
        self.other = None if self.learned[:3].all() else self._table_agents(cfg.learn.other)
        self._snapshots: dict[str, ActorCritic] = {}

    def _table_agents(self, spec: str) -> list[agents.Agent]:
        """One agent per game, since agents may keep per-deal state (``reset()`` starts a deal).

        A :class:`PolicyAgent` keeps none, so one instance serves every game in one forward pass.
        """
        if spec not in self._tables:
            first = agents.load(spec)
            if isinstance(first, PolicyAgent):
                self._tables[spec] = [first] * self.cfg.env.num_games
            else:
                self._tables[spec] = [first] + [agents.load(spec) for _ in range(self.cfg.env.num_games - 1)]
        return self._tables[spec]

    def _snapshot_model(self, entry: PoolEntry) -> ActorCritic:
        model = self._snapshots.get(entry.name)
        if model is None:
            model = ActorCritic(self.cfg.model.hidden).eval()
            model.load_state_dict(entry.state_dict)
            self._snapshots[entry.name] = model
        return model

    def collect(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> RolloutResult:
        """Play ``env.rollout_steps`` decisions in every game; see the module docstring."""
        t0 = time.perf_counter()
        cfg = self.cfg
        self.model.load_state_dict(weights)
        live = {e.name for e in pool}
        self._snapshots = {k: m for k, m in self._snapshots.items() if k in live}
        seeds = np.random.SeedSequence([seed, 0x5E1F]).generate_state(4)
        rng = np.random.default_rng(seeds[0])
        gen = torch.Generator().manual_seed(int(seeds[1]))
        agent_seed = int(seeds[2])
        tables = [self._table_agents(e.name) if e.kind == "agent" else None for e in pool]
        if self.other is not None:
            tables.append(self.other)
        live_tables = [t for t in tables if t is not None]
        for k, table in enumerate(live_tables):
            for agent, s in zip(table, np.random.SeedSequence([agent_seed, k]).generate_state(len(table))):
                agent.seed(int(s))
                agent.reset()

        N, T = cfg.env.num_games, cfg.env.rollout_steps
        games = np.arange(N)
        probs = np.array([e.weight for e in pool], dtype=np.float64)
        opp = rng.choice(len(pool), size=N, p=probs / probs.sum())
        learner_team = rng.integers(2, size=N)
        # controller[i, team]: index into pool (the learner team plays "current" = index of a current entry)
        controller = np.empty((N, 2), dtype=np.int64)
        controller[games, 1 - learner_team] = opp
        controller[games, learner_team] = -1  # -1: the learner (current policy)
        kinds = [e.kind for e in pool]
        controller[np.isin(controller, [k for k, kind in enumerate(kinds) if kind == "current"])] = -1
        # is_network[c]: controller c is a network (current or snapshot); index -1 (the learner) is the last entry
        is_network = np.array([kind != "agent" for kind in kinds] + [True])

        obs, mask, seat = self.env.reset(seed=int(seeds[3]))
        values = np.zeros((T, N), dtype=np.float32)
        rewards = np.zeros((T, N, 4), dtype=np.float32)
        dones = np.zeros((T, N), dtype=bool)
        seats = np.zeros((T, N), dtype=np.int64)
        in_chain = np.zeros((T, N), dtype=bool)
        kept_obs, kept_mask, kept_act, kept_logp, kept_pos = [], [], [], [], []
        learner_bids = learner_passes = 0
        records: list[tuple[int, dict]] = []
        agent_time = 0.0
        actions = np.zeros(N, dtype=np.int64)
        for t in range(T):
            phase = phase_of(obs)
            learned = self.learned[phase]
            ctrl = controller[games, seat & 1]
            seats[t] = seat
            cur = (ctrl == -1) & learned
            in_chain[t] = cur
            idx = np.flatnonzero(cur)
            if idx.size:
                o = torch.from_numpy(obs[idx])
                m = torch.from_numpy(mask[idx]).bool()
                with torch.inference_mode():
                    logits, v = self.model(o, m)
                    a = sample_actions(logits, gen)
                    logp, _ = log_probs_entropy(logits)
                    lp = logp.gather(1, a[:, None]).squeeze(1)
                actions[idx] = a.numpy()
                values[t, idx] = v.numpy()
                kept_obs.append(obs[idx])
                kept_mask.append(mask[idx])
                kept_act.append(a.numpy())
                kept_logp.append(lp.numpy())
                kept_pos.append(t * N + idx)
            for k, entry in enumerate(pool):
                if kinds[k] != "snapshot":
                    continue
                sidx = np.flatnonzero((ctrl == k) & learned)
                if sidx.size:
                    with torch.inference_mode():
                        logits, _ = self._snapshot_model(entry)(
                            torch.from_numpy(obs[sidx]), torch.from_numpy(mask[sidx]).bool()
                        )
                        actions[sidx] = sample_actions(logits, gen).numpy()
            ta = time.perf_counter()
            for k, entry in enumerate(pool):
                if kinds[k] == "agent":
                    self._agent_act(tables[k], np.flatnonzero(ctrl == k), obs, mask, actions)
            if self.other is not None:
                self._agent_act(self.other, np.flatnonzero(~learned & is_network[ctrl]), obs, mask, actions)
            agent_time += time.perf_counter() - ta
            lb = (phase == BIDDING) & ((seat & 1) == learner_team) & learned  # the policy's own bids
            learner_bids += int(lb.sum())
            learner_passes += int((lb & (actions == PASS)).sum())
            obs, mask, seat, rew, done, recs = self.env.step(actions)
            rewards[t] = rew
            dones[t] = done
            records.extend(recs)
            for i, _ in recs:  # a new deal starts in game i
                for table in live_tables:
                    table[i].reset()

        last_done = np.full(N, -1)
        tt, gg = np.nonzero(dones)
        np.maximum.at(last_done, gg, tt)
        # the value head predicts rewards * reward_scale, so advantages and returns are in those units
        adv = gae_per_seat(values, rewards * cfg.ppo.reward_scale, dones, seats, in_chain,
                           cfg.ppo.gamma, cfg.ppo.gae_lambda)
        if kept_pos:
            pos = np.concatenate(kept_pos)
            keep = (pos // N) <= last_done[pos % N]
            pos = pos[keep]
            obs_b = np.concatenate(kept_obs)[keep]
            mask_b = np.concatenate(kept_mask)[keep].astype(bool)
            act_b = np.concatenate(kept_act)[keep]
            logp_b = np.concatenate(kept_logp)[keep]
        else:
            pos = np.zeros(0, dtype=np.int64)
            obs_b = np.zeros((0, obs.shape[1]), np.float32)
            mask_b = np.zeros((0, mask.shape[1]), bool)
            act_b = np.zeros(0, np.int64)
            logp_b = np.zeros(0, np.float32)
        val_b = values.reshape(-1)[pos]
        adv_b = adv.reshape(-1)[pos]
        stats = self._stats(records, learner_team, learner_bids, learner_passes)
        stats.update(decisions=float(T * N), learned_decisions=float(pos.size),
                     rollout_seconds=time.perf_counter() - t0, agent_seconds=agent_time)
        return RolloutResult(obs_b, mask_b, act_b, logp_b, val_b, adv_b, adv_b + val_b, stats)

    def _agent_act(self, table: list[agents.Agent], idx: np.ndarray, obs, mask, actions) -> None:
        if idx.size == 0:
            return
        observations = [{"observation": obs[i], "action_mask": mask[i]} for i in idx]
        views = [self.env.view(int(i)) for i in idx]
        if isinstance(table[0], PolicyAgent):
            actions[idx] = table[0].act_batch(observations, views)
        else:
            actions[idx] = [table[i].act(o, v) for i, o, v in zip(idx, observations, views)]

    @staticmethod
    def _stats(records, learner_team, bids: int, passes: int) -> dict[str, float]:
        """Hand rewards of the learner team and figures on the contracts it declared."""
        hand_rewards, contract_bids, made = [], [], []
        for i, rec in records:
            if rec["thrown_in"]:
                continue
            lt = learner_team[i]
            d = rec["score_delta"]
            hand_rewards.append(d[lt] - d[1 - lt])
            if rec["declarer"] is not None and rec["declarer"] % 2 == lt:
                team = rec["declarer"] % 2
                contract_bids.append(rec["bid"])
                made.append(rec["tricks_won"][team] >= rec["bid"])
        nan = float("nan")
        return {
            "hands": float(len(hand_rewards)),
            "mean_hand_reward": float(np.mean(hand_rewards)) if hand_rewards else nan,
            "avg_bid": float(np.mean(contract_bids)) if contract_bids else nan,
            "contracts_made": float(np.mean(made)) if made else nan,
            "declared_share": len(contract_bids) / len(hand_rewards) if hand_rewards else nan,
            "pass_rate": passes / bids if bids else nan,
        }
