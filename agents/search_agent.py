"""``search``: the shipped network, strengthened at play time by searching over the cards it cannot see.

At each card it has a choice of, it deals the unseen cards ``samples`` times in agreement with what the
seat knows (:mod:`agents.layouts`: cards played, suits shown void, hand sizes, the exposed trump card),
plays every candidate card in every layout to the end of the deal and plays the card with the best mean
result, where it beats the network's own card by more than ``margin`` standard errors of the paired
difference (the same layouts for every card); else the network's card. Bids and the trump call are the
network's.

- ``min_prob`` (0.05), ``margin`` (1.0): the candidates are the cards the network gives at least
  ``min_prob`` (its own card always), and the search overrules the network only by ``margin`` standard
  errors. Both guard against the winner's curse: the best of many noisy means is biased upward, and
  with few layouts a card the network rightly rejects wins some samples by chance. 24 duplicate deals
  against the network (classic) with neither guard, 8 layouts: -2.69 [-5.00, -0.37] points per deal.

- ``weighting="policy"`` (default): layouts are drawn in proportion to how likely the network makes the
  other three seats' past actions (each bid, pass, trump call and card it would make there): ``POOL``
  times ``samples`` layouts are dealt, each replayed through the network on the batch engine to sum the
  log-probability of every action the others took, and ``samples`` are kept by sampling without
  replacement in proportion to that likelihood (the Gumbel top-k trick). A floor on each action's
  probability (``LIKELIHOOD_FLOOR``) keeps one move the network would not make (an opponent that is not
  this network) from ruling a layout out. ``weighting="uniform"`` deals ``samples`` layouts that merely
  agree with the view (what ``expert`` starts from), for the comparison.
- ``rollout="policy"`` (default): every (layout, card) pair is one game of the batch engine, played to
  the end by the network for all four seats, greedily, with one batched forward pass per step; the result
  is the deal's score difference for the seat's team. ``rollout="dds"``: each layout is solved double
  dummy (DDS via endplay, as ``expert``), scored as ``expert`` scores it.
- ``samples`` (64): layouts per decision. Chosen on the selection deals (400 of seed 1 against the network):
  8, 16, 32 and 64 layouts gave +0.21, +0.50, +0.56 and +0.93 a deal, at about 0.33 CPU s a searched card for 64.
- ``time`` (seconds, default none): a hard budget per decision. Layouts are evaluated ``CHUNK`` at a
  time and no chunk is started that the time measured so far says would end past the budget (the
  first always runs). With a budget the play depends on the machine's speed; without one it depends
  only on the seed.
- ``net``: the network searched with (default ``ppo``, the shipped agent for the rules in play).
"""
from __future__ import annotations

from time import perf_counter
from typing import Callable, Optional

import numpy as np
import torch

from tarneeb_env.batch import BatchEnv
from tarneeb_env.cards import cards_of
from tarneeb_env.rules import RulesSpec

from . import dds
from .base import Agent
from .expert_agent import deal_utility
from .layouts import sample_layouts
from tarneeb_env.transforms import PHASE_NAMES, obs_phase

from .policy import PolicyAgent

ROLLOUTS = ("policy", "dds")
WEIGHTINGS = ("policy", "uniform")
POOL = 4  # layouts dealt per layout kept when weighting by the network's likelihood
CHUNK = 8  # layouts evaluated between two looks at the clock
LIKELIHOOD_FLOOR = 0.01  # least probability counted for any one past action of another seat
MAX_SAMPLES = 1024
PLAY = PHASE_NAMES.index("play")


def _check(name: str, value, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"search {name}= must be one of {', '.join(allowed)}, got {value!r}")
    return value


class SearchAgent(Agent):
    """The network ``net`` plus a search over layouts of the unseen cards at each card decision."""

    name = "search"

    def __init__(self, seed: Optional[int] = None, rules: RulesSpec = None, samples: int = 64,
                 time: Optional[float] = None, rollout: str = "policy", weighting: str = "policy",
                 net: str = "ppo", min_prob: float = 0.05, margin: float = 1.0,
                 clock: Callable[[], float] = perf_counter):
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"search samples= must be an int in 1..{MAX_SAMPLES} (layouts per decision), "
                             f"got {samples!r}")
        if time is not None and (isinstance(time, bool) or not isinstance(time, (int, float)) or time <= 0):
            raise ValueError(f"search time= must be a positive number of seconds per decision, got {time!r}")
        if isinstance(min_prob, bool) or not isinstance(min_prob, (int, float)) or not 0 <= min_prob <= 1:
            raise ValueError(f"search min_prob= must be a probability in 0..1, got {min_prob!r}")
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or margin < 0:
            raise ValueError(f"search margin= must be a number of standard errors >= 0, got {margin!r}")
        self.samples = samples
        self.min_prob = float(min_prob)
        self.margin = float(margin)
        self.time = None if time is None else float(time)
        self.rollout = _check("rollout", rollout, ROLLOUTS)
        self.weighting = _check("weighting", weighting, WEIGHTINGS)
        if rollout == "dds":
            dds.require()
        import agents

        policy = agents.load(net, rules=rules)
        if not isinstance(policy, PolicyAgent) or not policy.learned[PLAY]:
            raise ValueError(f"search net= must be a checkpoint whose network plays the cards, got {net!r}")
        self.policy = policy
        self.model = policy.model
        self.rules = policy.rules
        self.clock = clock
        super().__init__(seed)

    def seed(self, seed: Optional[int] = None) -> None:
        super().seed(seed)  # the policy is set before Agent.__init__ seeds
        self.policy.seed(None if seed is None else int(self.rng.integers(2**31)))

    def reset(self) -> None:
        self.policy.reset()

    def act(self, observation, view) -> int:
        if view.phase != "play" or len(view.legal_actions) == 1:
            return self.policy.act(observation, view)
        return self._search(observation, view)

    # ----------------------------------------------------------------- search
    def _search(self, observation, view) -> int:
        start = self.clock()
        legal = list(view.legal_actions)
        logits = self._forward(np.asarray(observation["observation"], dtype=np.float32)[None],
                               np.asarray(observation["action_mask"], dtype=bool)[None])[0, legal].double()
        probs = torch.softmax(logits, -1).numpy()
        own = int(probs.argmax())
        candidates = [i for i in range(len(legal)) if probs[i] >= self.min_prob or i == own]
        if len(candidates) == 1:
            return legal[own]
        cards = [legal[i] for i in candidates]
        layouts = self._layouts(view)
        results = []
        for k in range(0, len(layouts), CHUNK):
            if results and self.time is not None:
                spent = self.clock() - start
                if spent + spent / len(results) > self.time:
                    break
            results.append(self._evaluate(view, layouts[k : k + CHUNK], cards))
        return cards[self._choose(np.concatenate(results), candidates.index(own))]

    def _choose(self, results: np.ndarray, own: int) -> int:
        """The card (column of ``results``, one row per layout) with the best mean, if it beats the network's
        own card ``own`` by more than ``margin`` standard errors of the paired difference, else ``own``."""
        diff = results - results[:, own : own + 1]
        mean = diff.mean(axis=0)
        best = int(np.argmax(np.round(mean, 6)))
        n = len(diff)
        se = diff[:, best].std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        return best if mean[best] > self.margin * se else own

    def _layouts(self, view) -> list[list[int]]:
        """The layouts searched: the remaining hands of the four seats (masks)."""
        if self.weighting == "uniform":
            return sample_layouts(view, view.played_mask, view.voids, self.samples, self.rng)
        pool = sample_layouts(view, view.played_mask, view.voids, POOL * self.samples, self.rng)
        keys = self._log_likelihood(view, pool) + self.rng.gumbel(size=len(pool))
        keep = np.argsort(-keys, kind="stable")[: self.samples]
        return [pool[i] for i in keep.tolist()]

    def _evaluate(self, view, layouts: list[list[int]], legal: list[int]) -> np.ndarray:
        """(len(layouts), len(legal)) results of each card in each layout, for the seat's team."""
        if self.rollout == "dds":
            team = view.seat & 1
            trick = view.trick
            leader = trick[0][0] if trick else view.seat
            solved = dds.solve_positions([(h, view.trump, leader, [c for _, c in trick]) for h in layouts])
            return np.array([[deal_utility(view, view.tricks_won[team] + res[a]) for a in legal] for res in solved])
        return self._play_out(view, layouts, legal)

    # ------------------------------------------------------- the batch engine
    def _replay(self, view, layouts: list[list[int]], copies: int = 1, record: bool = False):
        """A batch engine holding each layout ``copies`` times as a whole deal, replayed up to this
        decision; returns it with the steps ``(obs, mask, seat, action)`` of the replay when ``record``."""
        gone = [0, 0, 0, 0]
        for s, c in view.played:
            gone[s] |= 1 << c
        scores, seat_scores = list(view.scores), list(view.seat_scores)
        options = []
        for layout in layouts:
            deal = [cards_of(layout[s] | gone[s]) for s in range(4)]
            option = {"deal": deal, "dealer": view.dealer, "scores": scores, "seat_scores": seat_scores,
                      "exposed_card": view.exposed_card}
            options += [option] * copies
        env = BatchEnv(len(options), rules=view.rules, seed=0)
        obs, mask, seat = env.reset(options=options)
        steps = []
        for s, a in [*view.auction, *view.played]:
            if seat[0] != s:
                raise RuntimeError(f"search: the replay has seat {seat[0]} to act where seat {s} acted")
            if record:
                steps.append((obs, mask, s, a))
            obs, mask, seat, _, _, _ = env.step(np.full(len(options), a, dtype=np.int64))
        return env, steps

    def _forward(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        with torch.no_grad():
            return self.model.policy_logits(torch.from_numpy(obs), torch.from_numpy(mask))

    def _log_likelihood(self, view, pool: list[list[int]]) -> np.ndarray:
        """Per layout, the summed log-probability (floored) of the other seats' past actions under the
        network, in one forward pass over all of them."""
        _, steps = self._replay(view, pool, record=True)
        learned = self.policy.learned
        mine = [(o, m, a) for o, m, s, a in steps if s != view.seat and learned[obs_phase(o[0])]]
        if not mine:
            return np.zeros(len(pool))
        logits = self._forward(np.concatenate([o for o, _, _ in mine]), np.concatenate([m for _, m, _ in mine]))
        actions = torch.tensor(np.repeat([a for _, _, a in mine], len(pool)))
        logp = torch.log_softmax(logits.double(), -1).gather(1, actions[:, None]).squeeze(1)
        logp = logp.clamp(min=np.log(LIKELIHOOD_FLOOR)).numpy()
        return logp.reshape(len(mine), len(pool)).sum(axis=0)

    def _play_out(self, view, layouts: list[list[int]], legal: list[int]) -> np.ndarray:
        """Every card in every layout played to the end of the deal by the network for all seats."""
        n = len(layouts) * len(legal)
        env, _ = self._replay(view, layouts, copies=len(legal))
        value = np.zeros(n)
        open_ = np.ones(n, dtype=bool)
        actions = np.tile(np.asarray(legal, dtype=np.int64), len(layouts))
        while open_.any():
            obs, mask, _, rewards, done, _ = env.step(actions)
            ended = done & open_
            value[ended] = rewards[ended, view.seat]
            open_ &= ~done
            if open_.any():
                actions = self._forward(obs, mask).argmax(-1).numpy()
        return value.reshape(len(layouts), len(legal))
