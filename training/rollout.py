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

A collection reads top to bottom (:meth:`LocalRollout.collect`): assign the
teams (:func:`assign_teams`), seat the agents (:class:`agents.seating.Seating`,
one agent object for every game, one ``act_batch`` per step), record
``rollout_steps`` steps of every game into preallocated :class:`Storage` (the
networks, learner and snapshots, act through
:class:`agents.policy.NetworkActor`, as a :class:`~agents.policy.PolicyAgent` at a
table does), and finish (:meth:`Storage.finish`, shared with the warm start):
GAE along each seat's chain, returns, and only the learner's decisions of hands
that ended.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

import agents
from agents.model import ActorCritic
from agents.policy import NetworkActor
from agents.seating import LEFT_TO_CALLER, BatchTables, Seating
from tarneeb_env import PASS, Rules
from tarneeb_env.batch import BatchEnv
from tarneeb_env.rules_core import BIDDING
from tarneeb_env.transforms import obs_phase

from .batch import Batch, allocate
from .config import Config
from .ppo import gae_per_seat
from .seeds import per_agent, rollout_seeds


@dataclass
class PoolEntry:
    """One opponent kind with its sampling weight; ``state_dict`` for snapshots."""

    name: str  # "current", "snapshot:<iteration>" or an agent spec
    weight: float
    state_dict: dict[str, torch.Tensor] | None = None

    @property
    def kind(self) -> str:
        if self.name == "current":
            return "current"
        return "snapshot" if self.name.startswith("snapshot:") else "agent"


LEARNER = 0  # player index of the learner; pool entry k is player k + 1


MARGIN_SUM, MARGIN_HANDS = "league_sum/", "league_hands/"  # rollout statistics per pool entry, for the league


@dataclass
class Teams:
    """Who plays each team of each game in one rollout, as player indices (:data:`LEARNER`, or pool entry + 1)."""

    learner_team: np.ndarray  # (N,) 0 or 1
    opponent: np.ndarray  # (N,) the player facing the learner

    def player_at(self, seat: np.ndarray) -> np.ndarray:
        """(N,) the player of ``seat[i]`` in game i."""
        return np.where((seat & 1) == self.learner_team, LEARNER, self.opponent)


def assign_teams(pool: list[PoolEntry], rng: np.random.Generator, num_games: int) -> Teams:
    """Draw each game's opponent entry by weight and the learner's team; a ``current`` opponent is the learner."""
    probs = np.array([e.weight for e in pool], dtype=np.float64)
    entry = rng.choice(len(pool), size=num_games, p=probs / probs.sum())
    learner_team = rng.integers(2, size=num_games)
    player = np.array([LEARNER if e.kind == "current" else k + 1 for k, e in enumerate(pool)])
    return Teams(learner_team, player[entry])


STORED = ("obs", "mask", "actions", "logp", "values")  # the Batch fields a rollout records per decision


class Storage:
    """Preallocated (T, N) arrays of one rollout (the :func:`~training.batch.schema` of a Batch row, ``priv``
    only when the critic is privileged, and what finishing reads), reused by every collection."""

    def __init__(self, T: int, N: int, privileged: bool):
        arrays = allocate((T, N), privileged, STORED)
        self.obs, self.mask, self.actions, self.logp, self.values = (arrays[f] for f in STORED)
        self.priv = arrays.get("priv")
        self.rewards = np.zeros((T, N, 4), dtype=np.float32)
        self.dones = np.zeros((T, N), dtype=bool)
        self.seats = np.zeros((T, N), dtype=np.int64)
        self.learned = np.zeros((T, N), dtype=bool)  # the learner's own decisions: PPO trains on these

    def ended(self) -> np.ndarray:
        """(T, N) bool: the decisions of hands that ended within the rollout (each game's rows up to its last
        deal end); the rest lack their returns."""
        T, N = self.dones.shape
        last_done = np.full(N, -1)
        tt, gg = np.nonzero(self.dones)
        np.maximum.at(last_done, gg, tt)
        return np.arange(T)[:, None] <= last_done[None, :]

    def finish(self, in_chain: np.ndarray, keep: np.ndarray, reward_scale: float, gamma: float, gae_lambda: float,
               stats: dict[str, float]) -> Batch:
        """The :class:`Batch` of the ``keep`` decisions of hands that ended: advantages by GAE along each seat's
        chain of ``in_chain`` decisions (rewards times ``reward_scale``, the value head's units), returns
        advantages plus values. One finishing for the PPO rollout and the warm start, whose zero values make
        advantages and returns its Monte-Carlo returns."""
        adv = gae_per_seat(self.values, self.rewards * reward_scale, self.dones, self.seats, in_chain, gamma,
                           gae_lambda)
        keep = keep & self.ended()
        values, adv = self.values[keep], adv[keep]
        return Batch(self.obs[keep], self.mask[keep], self.actions[keep], self.logp[keep], values, adv,
                     adv + values, stats, priv=None if self.priv is None else self.priv[keep])


class LocalRollout:
    """Runs ``env.num_games`` games in-process with batched inference for every network seat."""

    def __init__(self, cfg: Config, rules: Rules):
        self.cfg = cfg
        self.rules = rules
        self.env = BatchEnv(num_games=cfg.env.num_games, rules=rules, seed=cfg.env.seed)
        self.model = ActorCritic.from_arch(vars(cfg.model)).eval()
        self.actor = NetworkActor(self.model, cfg.learn.phases)
        self._agents: dict[str, agents.Agent] = {}
        self.other = None if self.actor.every_phase else self._agent(cfg.learn.other)
        self._snapshots: dict[str, NetworkActor] = {}
        self.storage = Storage(cfg.env.rollout_steps, cfg.env.num_games, self.model.privileged)

    def _agent(self, spec: str) -> agents.Agent:
        """The agent of ``spec``: one object serves every game, as at the evaluator's tables (agents keep no
        per-table state; the engine's view carries what they would track), seeded once per collection."""
        if spec not in self._agents:
            self._agents[spec] = agents.load(spec, rules=self.rules)  # refuses an agent trained for other rules
        return self._agents[spec]

    def _snapshot(self, entry: PoolEntry) -> NetworkActor:
        """The snapshot's network, deciding the learner's phases (kept while the pool holds it)."""
        actor = self._snapshots.get(entry.name)
        if actor is None:
            model = ActorCritic.from_arch(vars(self.cfg.model))
            model.load_state_dict(entry.state_dict)
            actor = self._snapshots[entry.name] = NetworkActor(model, self.cfg.learn.phases)
        return actor

    def submit(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int):
        """Start a collection (here: remember it; :meth:`gather` plays it), as the other backends do."""
        return weights, pool, seed

    def gather(self, handle) -> Batch:
        return self.collect(*handle)

    def close(self) -> None:
        """Nothing to stop: the games run in this process."""

    def collect(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> Batch:
        """Play ``env.rollout_steps`` decisions in every game; see the module docstring."""
        t0, cpu0 = time.perf_counter(), time.process_time()
        self.model.load_state_dict(weights)
        live = {e.name for e in pool}
        self._snapshots = {k: m for k, m in self._snapshots.items() if k in live}
        seeds = rollout_seeds(seed)
        teams = assign_teams(pool, seeds.teams, self.cfg.env.num_games)
        # players[p]: a network (NetworkActor) or an agent; pool entry k is player k + 1 (a "current" entry is
        # the learner)
        players: list = [self.actor] + [self._snapshot(e) if e.kind == "snapshot" else self._agent(e.name)
                                        if e.kind == "agent" else None for e in pool]
        seating = self._seat_agents(players, teams)
        seating.start(per_agent(seeds.agents, len(seating.agents)))
        names = ["current"] + [e.name for e in pool]  # player p's pool entry, for the league's margins
        stats = self._step_games(players, seating, teams, seeds, names)
        batch = self._finish(stats)
        batch.stats["rollout_seconds"] = time.perf_counter() - t0
        batch.stats["rollout_cpu_seconds"] = time.process_time() - cpu0  # this process's: a worker's, or the learner's
        return batch

    def _seat_agents(self, players: list, teams: Teams) -> Seating:
        """The agents' seats in every game: an agent entry's team, and ``learn.other`` at the network seats for
        the phases not learned; the networks' own decisions are :meth:`_step_games`'s (``LEFT_TO_CALLER``)."""
        is_agent = [p is not None and not isinstance(p, NetworkActor) for p in players]
        seated = [p for p, a in zip(players, is_agent) if a] + ([self.other] if self.other is not None else [])
        index = np.full(len(players), LEFT_TO_CALLER if self.other is None else len(seated) - 1)
        index[np.flatnonzero(is_agent)] = np.arange(sum(is_agent))
        seat_player = np.where((np.arange(4) & 1)[None, :] == teams.learner_team[:, None], LEARNER,
                               teams.opponent[:, None])
        return Seating(seated, index[seat_player])

    def _step_games(self, players: list, seating: Seating, teams: Teams, seeds,
                    names: list[str]) -> dict[str, float]:
        """Step every game ``rollout_steps`` times into :attr:`storage`; returns the hands' statistics.

        Each step the networks decide their rows (:meth:`NetworkActor.decide`): the learner's first, recording
        log-probabilities and values, then each snapshot's in player order, all sampled from the one
        ``seeds.sampling`` generator in that order; the agents, and ``learn.other`` at the network seats, then
        decide the rest through the seating."""
        storage, T = self.storage, self.cfg.env.rollout_steps
        generator = seeds.sampling
        is_network = np.array([isinstance(p, NetworkActor) for p in players])
        engine = BatchTables(self.env)
        bids = passes = 0
        records: list[tuple[int, dict]] = []
        agent_time = 0.0
        obs, mask, seat = self.env.reset(seed=seeds.deals)
        for t in range(T):
            storage.obs[t], storage.mask[t], storage.seats[t] = obs, mask, seat
            engine.update(obs, mask)
            learned = self.actor.decides(obs)
            player = teams.player_at(seat)
            mine = (player == LEARNER) & learned
            storage.learned[t] = mine
            actions = storage.actions[t]
            if storage.priv is not None:
                storage.priv[t] = self.env.privileged()
            idx = np.flatnonzero(mine)
            decision = self.actor.decide(obs[idx], mask[idx], generator,
                                         priv=None if storage.priv is None else storage.priv[t, idx], record=True)
            actions[idx], storage.logp[t, idx], storage.values[t, idx] = decision
            for p in np.flatnonzero(is_network[1:]) + 1:  # snapshots: sampled, not recorded
                sidx = np.flatnonzero((player == p) & learned)
                actions[sidx] = players[p].decide(obs[sidx], mask[sidx], generator).actions
            ta = time.perf_counter()
            aidx = np.flatnonzero(~is_network[player] | ~learned)  # agents' seats, and learn.other's phases
            if aidx.size:
                actions[aidx] = seating.act(aidx.tolist(), seat[aidx].tolist(), engine)
            agent_time += time.perf_counter() - ta
            own_bids = (obs_phase(obs) == BIDDING) & ((seat & 1) == teams.learner_team) & learned
            bids += int(own_bids.sum())
            passes += int((own_bids & (actions == PASS)).sum())
            obs, mask, seat, storage.rewards[t], storage.dones[t], recs = self.env.step(actions)
            records.extend(recs)
        stats = self._stats(records, teams.learner_team, bids, passes)
        stats.update(self._margins(records, teams, names))
        stats["agent_seconds"] = agent_time
        return stats

    def _finish(self, stats: dict[str, float]) -> Batch:
        """GAE along the learner's chains, then its decisions of hands that ended in the rollout."""
        storage, ppo = self.storage, self.cfg.ppo
        stats["decisions"] = float(storage.dones.size)
        batch = storage.finish(storage.learned, storage.learned, ppo.reward_scale, ppo.gamma, ppo.gae_lambda, stats)
        stats["learned_decisions"] = float(len(batch))
        return batch

    @staticmethod
    def _margins(records, teams: Teams, names: list[str]) -> dict[str, float]:
        """The learner's hand margins against each pool entry, for the league: ``league_sum/<entry>`` (points)
        and ``league_hands/<entry>`` (hands); counts, so they add up across workers."""
        out: dict[str, float] = {}
        for i, rec in records:
            if rec.thrown_in:
                continue
            name, lt, d = names[teams.opponent[i]], teams.learner_team[i], rec.score_delta
            out[MARGIN_SUM + name] = out.get(MARGIN_SUM + name, 0.0) + d[lt] - d[1 - lt]
            out[MARGIN_HANDS + name] = out.get(MARGIN_HANDS + name, 0.0) + 1.0
        return out

    @staticmethod
    def _stats(records, learner_team, bids: int, passes: int) -> dict[str, float]:
        """Hand rewards of the learner team and figures on the contracts it declared."""
        hand_rewards, contract_bids, made = [], [], []
        for i, rec in records:
            if rec.thrown_in:
                continue
            lt = learner_team[i]
            d = rec.score_delta
            hand_rewards.append(d[lt] - d[1 - lt])
            if rec.declaring_team == lt:
                contract_bids.append(rec.bid)
                made.append(rec.made)
        nan = float("nan")
        return {
            "hands": float(len(hand_rewards)),
            "mean_hand_reward": float(np.mean(hand_rewards)) if hand_rewards else nan,
            "avg_bid": float(np.mean(contract_bids)) if contract_bids else nan,
            "contracts_made": float(np.mean(made)) if made else nan,
            "declared_share": len(contract_bids) / len(hand_rewards) if hand_rewards else nan,
            "pass_rate": passes / bids if bids else nan,
        }
