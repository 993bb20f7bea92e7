"""How a network acts: :class:`NetworkActor` (the trainer's rollouts and the table alike, one sampler) and
:class:`PolicyAgent` (the agent that seats it at a table)."""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence

import numpy as np
import torch

from tarneeb_env.rules_core import DONE
from tarneeb_env.transforms import PHASE_NAMES, obs_phase

from .base import Agent
from .model import ActorCritic


def sample_actions(logits: torch.Tensor, generator: Optional[torch.Generator]) -> torch.Tensor:
    """Gumbel-max sampling from masked logits with a seeded generator."""
    u = torch.rand(logits.shape, generator=generator).clamp_(1e-20, 1.0)
    return torch.argmax(logits - torch.log(-torch.log(u)), dim=-1)


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
        return self.learned[obs_phase(obs)]

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
