"""The actor-critic network shared by all four seats, and how it acts: :class:`NetworkActor` (the trainer's
rollouts and the table alike) and :class:`PolicyAgent` (the agent that seats it at a table).

One MLP trunk reads the 694-float observation; a policy head gives 70 logits and
a value head the expected rest-of-hand reward (scaled by ``reward_scale``). With
``critic="privileged"`` the value comes from a separate MLP that also reads the
other seats' cards (:mod:`tarneeb_env.privileged`), during training only: the
policy's inputs stay the seat's observation, so a table never needs them.
With ``canonical_trump=True`` the network sees every deal with the trump suit
relabelled as hearts (trump and hearts swapped in each card block, the trump and
voids blocks, and the card and trump actions; deals whose trump is not yet known
as they are): what it learns about trumps is learned once instead of once per
suit, and a network trained
where hearts are always trump (``hearts41``) plays where the trump is turned up
(``syrian41``). With ``view="contract7"`` a deal without an auction (``trump_by_card``) reads as one where
the eldest hand (who leads) bid 7 and the others passed, with the trump as dealt: both sides then need 7
tricks, as both do there, so a network trained on the team auction (``classic.pt``) plays such deals from
its first step instead of meeting inputs it never saw. Illegal actions are masked to a large negative logit
(not ``-inf``, so that ``p * log p`` stays 0 in the entropy) before sampling, in the loss and in the entropy:
their probability underflows to exactly zero.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np
import torch
from torch import nn

from tarneeb_env import NUM_ACTIONS, OBS_SIZE, TRUMP_BASE
from tarneeb_env.cards import NUM_CARDS
from tarneeb_env.observation import AUCTION_BLOCKS, LAYOUT, OFFSETS, put_bid, put_contract, put_pass
from tarneeb_env.privileged import PRIV_SIZE
from tarneeb_env.rules_core import DONE, HEARTS, PHASES

from .base import Agent
from .sparse_input import SparseInputLinear

MASKED_LOGIT = -1e9
PHASE_NAMES = PHASES[:DONE]  # the phases with a decision, which the network can learn
CRITICS = ("shared", "privileged")
VIEWS = ("plain", "contract7")
_PHASE = OFFSETS["phase"]
_TRUMP = OFFSETS["trump"]
_VOIDS = OFFSETS["voids"]
_DEALER = OFFSETS["dealer"]
CONTRACT7_BID = 7  # the contract a no-auction deal reads as under view: contract7 (both sides need 7 tricks)
_CARD_BLOCKS = ("hand", "played", "trick", "exposed")  # the observation's blocks of 52 card bits


def suit_swaps() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index tables of the trump-as-hearts relabelling, for the observation (5, OBS_SIZE), the actions
    (5, NUM_ACTIONS) and the privileged features (5, PRIV_SIZE): row ``t`` swaps suit ``t`` and hearts,
    row 4 (no trump yet) is the identity. A swap is its own inverse, so one table maps both ways."""
    obs = np.tile(np.arange(OBS_SIZE), (5, 1))
    act = np.tile(np.arange(NUM_ACTIONS), (5, 1))
    priv = np.tile(np.arange(PRIV_SIZE), (5, 1))
    card = np.arange(NUM_CARDS)
    for t in range(4):
        suit = np.array([HEARTS if u == t else t if u == HEARTS else u for u in range(4)])
        swapped = suit[card // 13] * 13 + card % 13
        for name, size in LAYOUT:
            if name in _CARD_BLOCKS:
                for base in range(OFFSETS[name], OFFSETS[name] + size, NUM_CARDS):
                    obs[t, base + card] = base + swapped
        obs[t, _TRUMP + np.arange(4)] = _TRUMP + suit
        for r in range(4):
            obs[t, _VOIDS + 4 * r + np.arange(4)] = _VOIDS + 4 * r + suit
        act[t, card] = swapped
        act[t, TRUMP_BASE + np.arange(4)] = TRUMP_BASE + suit
        for base in range(0, PRIV_SIZE, NUM_CARDS):
            priv[t, base + card] = base + swapped
    return obs, act, priv


def _mlp(width: int, hidden: Sequence[int]) -> tuple[nn.Sequential, int]:
    """Tanh MLP over an observation; its first layer reads only the non-zero inputs on CPU."""
    layers: list[nn.Module] = []
    for i, h in enumerate(hidden):
        layers += [(SparseInputLinear if i == 0 else nn.Linear)(width, h), nn.Tanh()]
        width = h
    return nn.Sequential(*layers), width


def _init_trunk(trunk: nn.Sequential) -> None:
    for m in trunk:
        if isinstance(m, nn.Linear):
            nn.init.orthogonal_(m.weight, gain=np.sqrt(2))
            nn.init.zeros_(m.bias)


class ActorCritic(nn.Module):
    """MLP trunk (tanh) with a policy head and a value head; the value head on its own trunk over
    observation + hidden hands when ``critic="privileged"``."""

    def __init__(self, hidden: Sequence[int] = (256, 256), obs_size: int = OBS_SIZE, num_actions: int = NUM_ACTIONS,
                 critic: str = "shared", canonical_trump: bool = False, view: str = "plain"):
        super().__init__()
        if critic not in CRITICS:
            raise ValueError(f"critic: expected one of {', '.join(CRITICS)}, got {critic!r}")
        if view not in VIEWS:
            raise ValueError(f"view: expected one of {', '.join(VIEWS)}, got {view!r}")
        self.view = view
        self.hidden = [int(h) for h in hidden]
        self.obs_size = obs_size
        self.num_actions = num_actions
        self.critic = critic
        self.canonical_trump = bool(canonical_trump)
        if self.canonical_trump:  # not persistent: the state dict is the same as a plain network's
            for name, table in zip(("_obs_swap", "_act_swap", "_priv_swap"), suit_swaps()):
                self.register_buffer(name, torch.from_numpy(table), persistent=False)
        self.trunk, width = _mlp(obs_size, self.hidden)
        self.policy = nn.Linear(width, num_actions)
        if critic == "privileged":
            self.critic_trunk, cwidth = _mlp(obs_size + PRIV_SIZE, self.hidden)
        else:
            self.critic_trunk, cwidth = None, width
        self.value = nn.Linear(cwidth, 1)
        # initialised in this order so that a shared-critic net draws the same weights from a seed as before
        _init_trunk(self.trunk)
        nn.init.orthogonal_(self.policy.weight, gain=0.01)
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)
        if self.critic_trunk is not None:
            _init_trunk(self.critic_trunk)

    @property
    def privileged(self) -> bool:
        return self.critic == "privileged"

    def arch(self) -> dict[str, Any]:
        """What is needed to rebuild this network (stored in checkpoints)."""
        return {"hidden": list(self.hidden), "obs_size": self.obs_size, "num_actions": self.num_actions,
                "critic": self.critic, "canonical_trump": self.canonical_trump, "view": self.view}

    @classmethod
    def from_arch(cls, arch: dict[str, Any]) -> "ActorCritic":
        """The network :meth:`arch` describes (fresh weights); keys added later default as they did before."""
        return cls(arch["hidden"], arch.get("obs_size", OBS_SIZE), arch.get("num_actions", NUM_ACTIONS),
                   arch.get("critic", "shared"), arch.get("canonical_trump", False), arch.get("view", "plain"))

    def _relabel(self, obs: torch.Tensor) -> tuple[Optional[torch.Tensor], torch.Tensor]:
        """(each row's swap-table row, the observation as the trunk sees it)."""
        if self.view == "contract7":
            obs = as_contract7(obs)
        if not self.canonical_trump:
            return None, obs
        trump = obs[:, _TRUMP : _TRUMP + 4]
        t = torch.where(trump.sum(-1) > 0, trump.argmax(-1), 4)
        return t, obs.gather(1, self._obs_swap[t])

    def _logits(self, t: Optional[torch.Tensor], x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raw = self.policy(x)
        return masked_logits(raw if t is None else raw.gather(1, self._act_swap[t]), mask)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                priv: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (B, 70) and values (B,). ``mask`` is bool or 0/1 (B, 70); ``priv`` (B, 156) the
        hidden hands, required by a privileged critic."""
        t, obs = self._relabel(obs)
        x = self.trunk(obs)
        logits = self._logits(t, x, mask)
        if self.critic_trunk is None:
            return logits, self.value(x).squeeze(-1)
        if priv is None:
            raise ValueError("a privileged critic needs the hidden hands (priv); at a table use policy_logits()")
        if t is not None:
            priv = priv.gather(1, self._priv_swap[t])
        return logits, self.value(self.critic_trunk(torch.cat([obs, priv], dim=-1))).squeeze(-1)

    def policy_logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked logits from the observation alone: all a table needs, whatever the critic."""
        t, obs = self._relabel(obs)
        return self._logits(t, self.trunk(obs), mask)


def _contract7_auctions() -> torch.Tensor:
    """(4, auction blocks): what the encoder writes for the 7 contract, by the dealer's seat relative to the
    observer: the eldest hand bid 7, the three others passed over it, the eldest declares 7."""
    rows = np.zeros((4, OBS_SIZE), dtype=np.float32)
    for dealer, row in enumerate(rows):  # seats relative to observer 0
        eldest = (dealer + 1) % 4
        put_bid(row, 0, eldest, CONTRACT7_BID)
        for seat in range(4):
            if seat != eldest:
                put_pass(row, 0, seat, CONTRACT7_BID)
        put_contract(row, 0, eldest, CONTRACT7_BID)
    return torch.from_numpy(rows[:, AUCTION_BLOCKS])


_CONTRACT7_AUCTIONS = _contract7_auctions()


def as_contract7(obs: torch.Tensor) -> torch.Tensor:
    """A copy of no-auction observations (B, OBS_SIZE) as if the eldest hand had bid 7 and the others passed
    over it: their auction blocks (all zero without an auction) replaced by the ones that auction leaves."""
    obs = obs.clone()
    dealer = obs[:, _DEALER : _DEALER + 4].argmax(-1)
    obs[:, AUCTION_BLOCKS] = _CONTRACT7_AUCTIONS.to(obs.device)[dealer]
    return obs


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return logits.masked_fill(~mask.bool(), MASKED_LOGIT)


def log_probs_entropy(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities (B, 70) and entropy (B,) of masked logits.

    The probabilities come from ``softmax``, not ``logp.exp()``: the same values, but ``exp`` of the
    masked entries' -1e9 takes a slow path in torch's CPU kernel (about ten times the softmax)."""
    logp = torch.log_softmax(logits, dim=-1)
    entropy = -(torch.softmax(logits, dim=-1) * logp).sum(-1)
    return logp, entropy


def sample_actions(logits: torch.Tensor, generator: Optional[torch.Generator]) -> torch.Tensor:
    """Gumbel-max sampling from masked logits with a seeded generator."""
    u = torch.rand(logits.shape, generator=generator).clamp_(1e-20, 1.0)
    return torch.argmax(logits - torch.log(-torch.log(u)), dim=-1)


def phase_of(obs: np.ndarray) -> np.ndarray:
    """Phase index (0 bidding, 1 trump, 2 play, 3 done) of each observation row."""
    return np.argmax(obs[..., _PHASE : _PHASE + 4], axis=-1)


def phase_flags(phases: Sequence[str]) -> np.ndarray:
    """bool[4]: which phase indices the policy controls."""
    flags = np.zeros(4, dtype=bool)
    for p in phases:
        flags[PHASE_NAMES.index(p)] = True
    return flags


class Decision(NamedTuple):
    """What :meth:`NetworkActor.decide` returns: numpy arrays over the rows it was given."""

    actions: np.ndarray  # (B,) int64
    logp: Optional[np.ndarray]  # (B,) float32 log-probability of each chosen action (``record=True`` only)
    values: Optional[np.ndarray]  # (B,) float32 value estimates (``record=True`` only)


class NetworkActor:
    """A network and the phases it decides: the one way a network acts, at a table (:class:`PolicyAgent`) and
    in the trainer's rollouts (the learner, which also records log-probabilities and values, and the frozen
    snapshots), so both play by the same split and the same sampler.

    :meth:`decides` says which rows are the network's (the phases of ``phases``). The caller asks whoever plays
    the others: :class:`PolicyAgent` its ``other``, the rollout ``learn.other`` through its
    :class:`~agents.seating.Seating`, in the one call per step it makes to the pool's agents (which is why the
    actor does not hold that agent).
    """

    def __init__(self, model: ActorCritic, phases: Sequence[str] = PHASE_NAMES):
        self.model = model.eval()
        self.phases = tuple(phases)
        self.learned = phase_flags(self.phases)

    @property
    def every_phase(self) -> bool:
        """Whether the network decides in every phase (else another agent plays the phases not learned)."""
        return bool(self.learned[:DONE].all())

    def decides(self, obs: np.ndarray) -> np.ndarray:
        """bool (B,): the observation rows whose phase the network decides."""
        return self.learned[phase_of(obs)]

    def decide(self, obs: np.ndarray, mask: np.ndarray, generator: Optional[torch.Generator] = None, *,
               priv: Optional[np.ndarray] = None, record: bool = False) -> Decision:
        """The network's actions for observation rows ``obs`` (B, 694) with legal ``mask`` (B, 70), in one
        forward pass: greedy (argmax) without ``generator``, else sampled by :func:`sample_actions`, which
        draws one (B, 70) block from ``generator``. ``record`` also gives each chosen action's log-probability
        (log-softmax, then the chosen entry) and the values, for PPO: that pass is the full network, so a
        privileged critic needs the hidden hands ``priv`` (B, 156). No rows: no pass, nothing drawn."""
        if not len(obs):
            empty = np.zeros(0, dtype=np.float32) if record else None
            return Decision(np.zeros(0, dtype=np.int64), empty, empty)
        observations, masks = torch.from_numpy(obs), torch.from_numpy(mask).bool()
        with torch.inference_mode():
            if record:
                logits, values = self.model(observations, masks, None if priv is None else torch.from_numpy(priv))
            else:
                logits, values = self.model.policy_logits(observations, masks), None
            actions = logits.argmax(-1) if generator is None else sample_actions(logits, generator)
            if not record:
                return Decision(actions.numpy(), None, None)
            logp = torch.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
        return Decision(actions.numpy(), logp.numpy(), values.numpy())


class PolicyAgent(Agent):
    """A trained network at the table: greedy by default, ``sample=True`` samples.

    Phases the network was not trained on (``phases``) are played by ``other``. ``act_batch`` runs one
    forward pass for all the seats the network decides for, through :class:`NetworkActor` as the trainer's
    rollouts do, with their sampler: a torch generator seeded from the agent's seed (after ``other``'s seed,
    drawn first). Before that sampler PolicyAgent drew from a numpy CDF, so a seed's sampled games differ
    from earlier versions'; greedy play draws nothing and is as before.
    """

    name = "policy"

    def __init__(
        self,
        model: ActorCritic,
        phases: Sequence[str] = PHASE_NAMES,
        other: Optional[Agent] = None,
        sample: bool = False,
        seed: Optional[int] = None,
    ):
        self.actor = NetworkActor(model, phases)
        if other is None and not self.actor.every_phase:
            raise ValueError(f"a policy trained only on {list(self.phases)} needs an agent for the other phases")
        self.other = other
        self.sample = bool(sample)
        super().__init__(seed)

    @property
    def model(self) -> ActorCritic:
        return self.actor.model

    @property
    def deterministic(self) -> bool:
        """Greedy, with an ``other`` that draws nothing (see :class:`~agents.base.Agent`)."""
        return not self.sample and (self.other is None or getattr(self.other, "deterministic", False))

    @property
    def phases(self) -> tuple[str, ...]:
        return self.actor.phases

    @property
    def learned(self) -> np.ndarray:
        """bool[4] per phase index: the phases the network decides."""
        return self.actor.learned

    def seed(self, seed: Optional[int] = None) -> None:
        super().seed(seed)
        if self.other is not None:
            self.other.seed(None if seed is None else int(self.rng.integers(2**31)))
        # drawn after other's seed, which so stays what it was before the sampler's generator
        self.generator = torch.Generator().manual_seed(int(self.rng.integers(2**63)))

    def reset(self) -> None:
        if self.other is not None:
            self.other.reset()

    def act(self, observation: dict[str, Any], view) -> int:
        return self.act_batch([observation], [view])[0]

    def act_batch(self, observations, views) -> list[int]:
        obs = np.stack([np.asarray(o["observation"], dtype=np.float32) for o in observations])
        mask = np.stack([np.asarray(o["action_mask"]) for o in observations]).astype(bool)
        mine = self.actor.decides(obs)
        actions = np.zeros(len(observations), dtype=np.int64)
        idx = np.flatnonzero(mine)
        actions[idx] = self.actor.decide(obs[idx], mask[idx], self.generator if self.sample else None).actions
        rest = np.flatnonzero(~mine)
        if rest.size:
            picked = self.other.act_batch([observations[i] for i in rest], [views[i] for i in rest])
            actions[rest] = picked
        return [int(a) for a in actions]
