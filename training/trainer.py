"""Self-play PPO for Tarneeb, from a behaviour-cloning warm start.

    python train.py --config configs/default.yaml [--set key=value ...] [--run-dir runs/NAME]
    python train.py --resume runs/NAME [--set budget.decisions=...]

One actor-critic plays all four seats (masked categorical policy). :meth:`Trainer.run`
is one loop of steps: while the warm start lasts, a step clones one chunk of
``pretrain.teacher`` decisions (``pretrain.decisions`` teacher-vs-teacher
decisions in all; policy by cross-entropy, value head on the hands' returns);
then a step is one PPO iteration: a rollout of ``env.num_games x
env.rollout_steps`` decisions on the batch engine against an opponent pool,
PPO on the learned decisions, a snapshot into the pool now and then (with
``stages``, the league and the learning rate follow the stage the PPO
decisions so far are in). After
every step: TensorBoard scalars, ``latest.pt`` (and periodic checkpoints), and
an evaluation when due.

Policy lag (``rollout.lag``). With lag 0 an iteration collects with the
current weights, then updates. With lag 1 (the default) the rollout of
iteration k + 1 is submitted, with the weights and pool *before* update k, and
plays while update k runs (in the rollout process, or on Ray workers); so
iteration 0 learns from a rollout of its own weights (exactly as lag 0) and
iteration k >= 1 from a rollout played with the weights and pool that iteration
k - 1 started from, and seeded for iteration k. PPO's ratios use the behaviour
log-probabilities recorded in the rollout, so the update stays on-policy in
the clipped-surrogate sense; ``charts/policy_lag`` logs the lag.

Every chunk and iteration is seeded from ``env.seed`` and its index
(:mod:`training.seeds`), and a checkpoint keeps the inputs of the rollout in
flight, so ``--resume`` continues exactly where an uninterrupted run would be
(on CPU), whichever backend runs the rollouts.
"""
from __future__ import annotations

import glob
import math
import os
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

import agents
from agents.cores import usable_cores
from agents.model import ActorCritic
from agents.policy import phase_flags
from agents.rules_check import RulesMismatchError
from tarneeb_env import OBS_VERSION

from .checkpoints import rng_states, save_checkpoint, set_rng_states
from .config import Config, ConfigError, SelfPlayConfig
from .imitation import TeacherRollout, bc_update
from .league import League, ladder
from .ppo import ppo_update
from .provenance import resumed, run_provenance
from .rollout import LocalRollout, PoolEntry
from .seeds import chunk_seed, iteration_seed, update_generator
from .widen import can_widen, widen_state

# Keys --set may change on --resume: the ones that do not alter what the run computes.
RESUME_MUTABLE = ("budget", "eval", "checkpoint", "device", "threads", "rollout", "stages")  # stages: later ones
WARMSTART_LOGS = "warmstart"  # the warm start's TensorBoard run, inside the run directory


class BudgetWarning(UserWarning):
    """A budget that ends the run before it does what it is for (e.g. inside the warm start)."""


@dataclass
class Inflight:
    """A submitted rollout: what it was given (kept for the checkpoint) and the backend's handle."""

    iteration: int  # the PPO iteration that will learn from it
    behaviour: int  # the iteration whose starting weights play it (its policy lag is iteration - behaviour)
    weights: dict[str, torch.Tensor]
    pool: list[PoolEntry]
    handle: Any = None  # None after a resume, until resubmitted

    def state(self) -> dict[str, Any]:
        return {"iteration": self.iteration, "behaviour": self.behaviour, "weights": self.weights,
                "pool": [{"name": e.name, "weight": e.weight, "state_dict": e.state_dict} for e in self.pool]}

    @classmethod
    def from_state(cls, s: dict[str, Any]) -> Inflight:
        pool = [PoolEntry(e["name"], float(e["weight"]), e["state_dict"]) for e in s["pool"]]
        return cls(int(s["iteration"]), int(s["behaviour"]), dict(s["weights"]), pool)


def require_current_layout(data: dict[str, Any], what: str, path: str) -> None:
    """A run trained on another observation layout is not continued: its optimizer state and snapshots have that
    layout's shapes. Its network still loads (upgraded), so a new run can start from it."""
    if data.get("obs_version") != OBS_VERSION:
        raise ConfigError(f"{what}: the run was trained on observation layout {data.get('obs_version')}, this code's "
                          f"is {OBS_VERSION}, so it cannot be continued; start a new run from its weights "
                          f"(pretrain.init: {path})")


def default_backend(cfg: Config) -> str:
    """``process`` when this process may run on two or more CPUs and shared memory can hold a rollout,
    else ``local``."""
    from .process_rollout import shared_memory_shortfall

    return "process" if usable_cores() >= 2 and shared_memory_shortfall(cfg) is None else "local"


class Trainer:
    """Owns the learner state (model, optimizer, pool, counters, the rollout in flight) and the training loop."""

    def __init__(self, cfg: Config, run_dir: str, resume: dict[str, Any] | None = None, progress: bool = True,
                 config_file: dict[str, Any] | None = None, overrides: list[str] = ()):
        """``config_file`` (:func:`training.provenance.config_source`) and ``overrides`` are recorded in every
        checkpoint's provenance."""
        if resume is not None:  # before anything is built or started
            require_current_layout(resume, f"resume {run_dir}", os.path.join(run_dir, "latest.pt"))
        self.cfg = cfg
        self.run_dir = run_dir
        self.progress = progress
        if cfg.threads > 0:
            torch.set_num_threads(cfg.threads)
        self.device = torch.device(
            ("cuda" if torch.cuda.is_available() else "cpu") if cfg.device == "auto" else cfg.device
        )
        if self.device.type == "cuda" and not torch.cuda.is_available():
            raise ConfigError("device: 'cuda' requested but torch sees no CUDA device (use auto or cpu)")
        self.rules = cfg.make_rules()
        torch.manual_seed(cfg.env.seed)
        np.random.seed(cfg.env.seed)
        self.model = ActorCritic.from_arch(vars(cfg.model)).to(self.device)
        self.counters = {"pretrain_chunks": 0, "pretrain_decisions": 0, "iteration": 0, "decisions": 0,
                         "learned_decisions": 0, "hands": 0, "seconds": 0.0, "cpu_seconds": 0.0}
        self.optimizer = self._new_optimizer()
        sp = cfg.selfplay
        self.pool = League(sp.weights, sp.max_snapshots, sp.sampling, sp.pfsp_scale)
        self.backend = default_backend(cfg) if cfg.rollout.backend == "auto" else cfg.rollout.backend
        self.rollout = self._make_rollout(cfg)
        self.inflight: Inflight | None = None
        self.teacher: TeacherRollout | None = None  # built on the first pretraining chunk
        self.last_eval: dict[str, float] = {}
        self.ladder_table = ""  # the last evaluation's ladder, for TensorBoard's text tab
        if resume is not None:
            self.provenance = resumed(resume.get("provenance"), cfg, os.path.join(run_dir, "latest.pt"),
                                      list(overrides))
            self._restore(resume)
        else:
            self.provenance = run_provenance(cfg, config_file)
            if cfg.pretrain.init:
                self._init_from(cfg.pretrain.init)

    def _init_from(self, path: str) -> None:
        """Start from a trained checkpoint's weights: the policy trunk and head always, the critic when the
        checkpoint's is of the same kind (a fresh privileged critic otherwise learns from the first rollout);
        a wider ``model.hidden`` (as many layers) starts from the network widened (:mod:`training.widen`)."""
        try:
            agent = agents.load(path, rules=self.rules)  # one-line refusal of a bad file or of other rules
        except RulesMismatchError as e:
            raise ConfigError(f"pretrain.init: {e}") from None
        theirs = agent.model.state_dict()
        if can_widen(agent.model.hidden, self.model.hidden):  # a wider run from a trained network
            gen = torch.Generator().manual_seed(self.cfg.env.seed)
            theirs = widen_state(theirs, agent.model.hidden, self.model.hidden, gen)
        theirs = {k: v.to(self.device) for k, v in theirs.items()}
        same_critic = agent.model.critic == self.model.critic
        keep = {k: v for k, v in theirs.items() if same_critic or k.startswith(("trunk.", "policy."))}
        try:
            missing, unexpected = self.model.load_state_dict(keep, strict=False)
        except RuntimeError:  # a tensor of another shape
            missing, unexpected = [], ["(shapes)"]
        if unexpected or (same_critic and missing):
            raise ConfigError(f"pretrain.init: {path} is a {agent.model.arch()} network; this run builds "
                              f"{self.model.arch()} (set model.hidden to match, or wider with as many layers)")

    def _make_rollout(self, cfg: Config):
        """Rollouts in this process, a child process or on Ray actors; same submit/gather interface."""
        if self.backend == "local":
            return LocalRollout(cfg, self.rules)
        if self.backend == "process":
            from .process_rollout import ProcessRollout

            return ProcessRollout(cfg, self.rules, timeout=cfg.rollout.timeout)
        from .ray_rollout import RayRollout

        try:
            return RayRollout(cfg, self.rules, workers=cfg.rollout.workers,
                              address=cfg.rollout.address, timeout=cfg.rollout.timeout)
        except ImportError as e:
            raise ConfigError(str(e)) from None

    def close(self) -> None:
        """Stop the rollout workers; a rollout in flight is dropped and resubmitted if the run goes on."""
        self.rollout.close()
        if self.inflight is not None:
            self.inflight.handle = None

    def _new_optimizer(self) -> torch.optim.Optimizer:
        lr = self.cfg.ppo.lr if self.pretrained() else self.cfg.pretrain.lr
        return torch.optim.Adam(self.model.parameters(), lr=lr, eps=1e-5)

    def pretrained(self) -> bool:
        """Whether the behaviour-cloning warm start is over (or was never asked for)."""
        return self.counters["pretrain_decisions"] >= self.cfg.pretrain.decisions

    # ------------------------------------------------------------ state
    def _restore(self, data: dict[str, Any]) -> None:
        saved_lag = int(data.get("lag", 0))  # runs from before the pipeline: lag 0
        if saved_lag != self.cfg.rollout.lag:
            raise ConfigError(f"rollout.lag: this run was trained with lag {saved_lag}, not {self.cfg.rollout.lag}; "
                              f"resume it with --set rollout.lag={saved_lag}")
        self.model.load_state_dict(data["state_dict"])
        self.optimizer.load_state_dict(data["optimizer"])
        self.pool.load_state(data["pool"])
        self.counters = dict(data["counters"])
        self.last_eval = dict(data.get("last_eval", {}))
        if data.get("inflight") is not None:
            self.inflight = Inflight.from_state(data["inflight"])
        set_rng_states(data["rng"])

    def payload(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "config": self.cfg.to_dict(),
            "learn": {"phases": list(self.cfg.learn.phases), "other": self.cfg.learn.other},
            "model": self.model.arch(),
            "state_dict": {k: v.detach().cpu() for k, v in self.model.state_dict().items()},
            "optimizer": _to_cpu(self.optimizer.state_dict()),
            "pool": self.pool.state(),
            "counters": dict(self.counters),
            "last_eval": dict(self.last_eval),
            "lag": self.cfg.rollout.lag,  # kept apart from the config, which --set may change on --resume
            "inflight": None if self.inflight is None else self.inflight.state(),
            "rng": rng_states(),
            "provenance": self.provenance,
        }

    def save(self) -> str:
        latest = os.path.join(self.run_dir, "latest.pt")
        payload = self.payload()
        save_checkpoint(latest, payload)
        it = self.counters["iteration"]
        if it and it % self.cfg.checkpoint.interval == 0:
            save_checkpoint(os.path.join(self.run_dir, f"iter_{it:06d}.pt"), payload)
            kept = sorted(glob.glob(os.path.join(self.run_dir, "iter_*.pt")))
            for old in kept[: -self.cfg.checkpoint.keep]:
                os.remove(old)
        return latest

    # ------------------------------------------------------------ budget
    def progress_fraction(self) -> float:
        b, c = self.cfg.budget, self.counters
        parts = [0.0]
        if b.decisions is not None:
            parts.append(c["decisions"] / b.decisions)
        if b.iterations is not None:
            parts.append(c["iteration"] / b.iterations)
        return min(1.0, max(parts))

    def done(self, started: float, base_seconds: float) -> bool:
        b, c = self.cfg.budget, self.counters
        if b.decisions is not None and c["decisions"] >= b.decisions:
            return True
        if b.iterations is not None and c["iteration"] >= b.iterations:
            return True
        elapsed = base_seconds + time.perf_counter() - started
        return b.minutes is not None and elapsed >= b.minutes * 60

    def stage(self) -> tuple[int, int]:
        """With ``stages``: the stage the PPO decisions so far are in, and the decisions before it (past the last
        stage's end, the last one goes on)."""
        start, decisions, stages = 0, self.counters["decisions"], self.cfg.stages
        for k, st in enumerate(stages):
            if decisions < start + st.decisions or k == len(stages) - 1:
                return k, start
            start += st.decisions
        raise ValueError("stage(): the config has no stages")

    def selfplay(self) -> SelfPlayConfig:
        """The league's settings now: the stage's, or the config's ``selfplay``."""
        return self.cfg.stages[self.stage()[0]].selfplay if self.cfg.stages else self.cfg.selfplay

    def learning_rate(self) -> float:
        """``ppo.lr`` (or the stage's), decayed linearly to 2% over the budget (or the stage) if so scheduled."""
        ppo = self.cfg.ppo
        if self.cfg.stages:
            k, start = self.stage()
            st = self.cfg.stages[k]
            lr, done = st.lr or ppo.lr, (self.counters["decisions"] - start) / st.decisions
        else:
            lr, done = ppo.lr, self.progress_fraction()
        return lr * max(1.0 - done, 0.02) if ppo.lr_schedule == "linear" else lr

    # ------------------------------------------------------------ steps
    def pretrain_chunk(self) -> dict[str, float]:
        """Clone one chunk of teacher decisions; after the last one PPO starts with a fresh optimizer."""
        cfg, p, c = self.cfg, self.cfg.pretrain, self.counters
        if self.teacher is None:
            self.teacher = TeacherRollout(p.teacher, self.rules, cfg.env.num_games, p.steps, cfg.ppo.reward_scale,
                                          cfg.ppo.gamma, phase_flags(cfg.learn.phases), self.model.privileged)
        seed = chunk_seed(cfg.env.seed, c["pretrain_chunks"])
        t0 = time.perf_counter()
        data = self.teacher.collect(seed).to(self.device)
        t1 = time.perf_counter()
        stats = bc_update(self.model, self.optimizer, data, epochs=p.epochs, minibatch_size=p.minibatch_size,
                          vf_coef=p.vf_coef, max_grad_norm=cfg.ppo.max_grad_norm, generator=update_generator(seed))
        t2 = time.perf_counter()
        c["pretrain_chunks"] += 1
        c["pretrain_decisions"] += cfg.env.num_games * p.steps
        if self.pretrained():
            self.optimizer = self._new_optimizer()
        out = {f"pretrain/{k}": v for k, v in stats.items()}
        out["pretrain/loss"] = stats["policy_loss"] + p.vf_coef * stats["value_loss"]
        out["pretrain/teacher_SPS"] = cfg.env.num_games * p.steps / (t1 - t0)
        out["pretrain/update_seconds"] = t2 - t1
        return out

    def _submit(self, iteration: int) -> Inflight:
        """Start the rollout of ``iteration`` with the current weights and pool."""
        weights = {k: v.detach().cpu().clone() for k, v in self.model.state_dict().items()}
        sp = self.selfplay()
        self.pool.configure(sp.weights, sp.max_snapshots, sp.sampling, sp.pfsp_scale)
        job = Inflight(iteration, self.counters["iteration"], weights, self.pool.entries())
        return self._resubmit(job)

    def _resubmit(self, job: Inflight) -> Inflight:
        job.handle = self.rollout.submit(job.weights, job.pool, iteration_seed(self.cfg.env.seed, job.iteration))
        return job

    def iteration(self) -> dict[str, float]:
        """Gather this iteration's rollout, submit the next one (lag 1), update; returns the logged scalars."""
        cfg, c = self.cfg, self.counters
        it = c["iteration"]
        t0 = time.perf_counter()
        job = self.inflight if self.inflight is not None else self._submit(it)
        if job.handle is None:  # submitted before a resume (or a close)
            self._resubmit(job)
        batch = self.rollout.gather(job.handle)
        t1 = time.perf_counter()
        self.inflight = self._submit(it + 1) if cfg.rollout.lag else None  # plays during this update
        lr, stage = self.learning_rate(), self.stage()[0] if cfg.stages else None
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        data = batch.to(self.device)
        stats: dict[str, float] = {}
        if len(data):
            stats = ppo_update(
                self.model, self.optimizer, data, epochs=cfg.ppo.epochs, minibatch_size=cfg.ppo.minibatch_size,
                clip=cfg.ppo.clip, ent_coef=cfg.ppo.ent_coef, vf_coef=cfg.ppo.vf_coef,
                max_grad_norm=cfg.ppo.max_grad_norm, target_kl=cfg.ppo.target_kl,
                generator=update_generator(iteration_seed(cfg.env.seed, it)),
            )
        t2 = time.perf_counter()
        s = batch.stats
        c["iteration"] = it + 1
        c["decisions"] += int(s["decisions"])
        c["learned_decisions"] += int(s["learned_decisions"])
        c["hands"] += int(s["hands"])
        self.pool.record_rollout(s)
        if (it + 1) % self.selfplay().snapshot_interval == 0:
            self.pool.add_snapshot(it + 1, self.model.state_dict())
        out = {f"losses/{k}": v for k, v in stats.items() if k != "minibatches"}
        out.update({
            "charts/SPS": s["decisions"] / (t2 - t0),  # run() replaces it with the figure including the save
            "charts/rollout_SPS": s["decisions"] / max(s["rollout_seconds"], 1e-9),
            "charts/rollout_seconds": s["rollout_seconds"],
            # the rollout workers' CPU seconds when they are other processes (the learner's own are counted in run())
            "charts/worker_cpu_seconds": s["rollout_cpu_seconds"] if self.backend != "local" else 0.0,
            "charts/update_seconds": t2 - t1,
            "charts/learner_wait_seconds": t1 - t0,
            "charts/policy_lag": float(it - job.behaviour),
            "charts/agent_seconds": s["agent_seconds"],
            "charts/learning_rate": lr,
            "charts/learned_decisions": s["learned_decisions"],
            "charts/mean_hand_reward": s["mean_hand_reward"],
            "charts/pool_size": float(len(self.pool.entries())),
            "bidding/avg_bid": s["avg_bid"],
            "bidding/pass_rate": s["pass_rate"],
            "bidding/contracts_made": s["contracts_made"],
            "bidding/declared_share": s["declared_share"],
        })
        if stage is not None:
            out["charts/stage"] = float(stage)
        out.update(self.pool.scalars())
        return out

    def evaluate(self, checkpoint_path: str) -> dict[str, float]:
        """Duplicate matches of the saved policy against each ``eval.opponents`` entry."""
        from evaluation import duplicate_match

        e = self.cfg.eval
        out = {}
        for opponent in e.opponents:
            m = duplicate_match(checkpoint_path, opponent, deals=e.deals, seed=e.seed, rules=self.rules,
                                workers=e.workers)
            key = f"eval/margin_vs_{_tag(opponent)}"
            out[key] = m.margin
            if m.ci95 is not None:
                out[key + "_ci_lo"], out[key + "_ci_hi"] = float(m.ci95[0]), float(m.ci95[1])
        if e.ladder_deals and self.pool.snapshots:
            current = {k: v.detach().cpu() for k, v in self.model.state_dict().items()}
            ratings = ladder(self.pool.snapshots, self.model.arch(), self.rules, e.ladder_deals, e.seed,
                             e.opponents, e.workers, current, self.cfg.learn.phases, self.cfg.learn.other)
            out.update(ladder_scalars(ratings))
            self.ladder_table = ladder_table(ratings)
        return out

    # ------------------------------------------------------------ loop
    def finished(self) -> str | None:
        """The budget key (``budget.decisions`` ...) a run already stopped on, or None while it has budget left."""
        b, c = self.cfg.budget, self.counters
        if b.decisions is not None and c["decisions"] >= b.decisions:
            return "budget.decisions"
        if b.iterations is not None and c["iteration"] >= b.iterations:
            return "budget.iterations"
        if b.minutes is not None and c["seconds"] >= b.minutes * 60:
            return "budget.minutes"
        return None

    def extend_hint(self, key: str) -> str:
        """A ``--set`` that gives a finished run as much again of the budget it stopped on."""
        b, c = self.cfg.budget, self.counters
        value = {"budget.decisions": 2 * b.decisions if b.decisions else None,
                 "budget.iterations": 2 * b.iterations if b.iterations else None,
                 "budget.minutes": round(2 * c["seconds"] / 60 + 0.5) if b.minutes else None}[key]
        return f"--set {key}={value}"

    def position(self) -> str:
        """Where the run stands, in words: the warm start's teacher decisions or the PPO iterations and decisions."""
        c, p = self.counters, self.cfg.pretrain
        used = f"{c['seconds'] / 60:.1f} min used"
        if not self.pretrained():
            return f"in the warm start, {c['pretrain_decisions']:,} of {p.decisions:,} teacher decisions cloned ({used})"
        return f"after PPO iteration {c['iteration']}, {c['decisions']:,} PPO decisions ({used})"

    def _warn_if_warm_start_outlasts(self, chunk_seconds: float) -> None:
        """Early in the warm start: a minutes budget that ends before the first PPO iteration is said once,
        with the warm start's time at the rate just measured and what to change."""
        b, p, c = self.cfg.budget, self.cfg.pretrain, self.counters
        if b.minutes is None or self.pretrained():
            return
        rate = self.cfg.env.num_games * p.steps / max(chunk_seconds, 1e-9)
        left = (p.decisions - c["pretrain_decisions"]) / rate
        if left < b.minutes * 60 - c["seconds"]:
            return
        warnings.warn(
            f"the warm start (pretrain.decisions={p.decisions:,}) takes about {p.decisions / rate / 60:.1f} min here "
            f"({rate:,.0f} teacher decisions/s), longer than budget.minutes={b.minutes:g}: the run will end before "
            f"its first PPO iteration; raise budget.minutes or lower pretrain.decisions (configs/quick.yaml clones "
            f"about a quarter of a million)", BudgetWarning, stacklevel=2)

    def _bar_total(self, warm: bool, since: tuple[float, int]) -> tuple[float, str]:
        """The progress bar's total in the phase's decisions, as the budget that will stop it first projects it at
        the rate of this session (``since``: the phase's start time and count), and that budget's name."""
        b, c, p = self.cfg.budget, self.counters, self.cfg.pretrain
        done = c["pretrain_decisions"] if warm else c["decisions"]
        elapsed = time.perf_counter() - since[0]
        rate = (done - since[1]) / elapsed if elapsed > 0 else 0.0
        ends = [(p.decisions, "pretrain.decisions")] if warm else []
        if not warm and b.decisions is not None:
            ends.append((b.decisions, "budget.decisions"))
        if not warm and b.iterations is not None:
            per_iteration = self.cfg.env.num_games * self.cfg.env.rollout_steps
            ends.append((done + (b.iterations - c["iteration"]) * per_iteration, "budget.iterations"))
        if b.minutes is not None and rate > 0:
            ends.append((done + rate * max(b.minutes * 60 - c["seconds"], 0.0), "budget.minutes"))
        return min(ends) if ends else (float(done), "")

    def run(self) -> dict[str, Any]:
        """Warm-start chunks, then PPO iterations, until the budget is spent; the rollout workers stop at the end.

        The warm start and PPO each have a progress bar of their own, in their own decisions (teacher decisions,
        then PPO decisions), whose total and ETA follow the budget that will stop the phase first. TensorBoard's
        step is the PPO decisions; the warm start's ``pretrain/*`` scalars are a run of their own
        (``RUN_DIR/warmstart``), stepped by teacher decisions."""
        from torch.utils.tensorboard import SummaryWriter
        from tqdm import tqdm

        cfg, c = self.cfg, self.counters
        writer = SummaryWriter(self.run_dir)
        warm_writer = None
        started, base = time.perf_counter(), float(c["seconds"])
        cpu_mark = time.process_time()  # the learner's CPU time; c["cpu_seconds"] adds the rollout workers'
        bar, bar_phase, since, checked_warm_time = None, None, (started, 0), False
        try:
            while not self.done(started, base):
                t0, before = time.perf_counter(), c["decisions"]
                warm = not self.pretrained()
                if bar_phase is not warm:  # a new phase: its own bar and rate
                    if bar is not None:
                        bar.close()
                    bar, bar_phase = None, warm
                    since = (t0, c["pretrain_decisions"] if warm else c["decisions"])
                scalars = self.pretrain_chunk() if warm else self.iteration()
                c["seconds"] = base + time.perf_counter() - started
                now = time.process_time()
                worker_cpu = scalars.get("charts/worker_cpu_seconds", 0.0)
                c["cpu_seconds"] = c.get("cpu_seconds", 0.0) + now - cpu_mark + worker_cpu  # older runs lack it
                cpu_mark = now
                if not warm:
                    scalars["charts/cpu_seconds"] = c["cpu_seconds"]  # the run's processes' CPU seconds so far
                step_seconds = time.perf_counter() - t0
                path = self.save()
                if not warm:
                    scalars["charts/SPS"] = (c["decisions"] - before) / (time.perf_counter() - t0)
                it = c["iteration"]
                evaluated = {}
                if cfg.eval.interval and self.pretrained() and (
                        warm or it % cfg.eval.interval == 0 or self.done(started, base)):
                    te = time.perf_counter()  # after the last chunk: the warm start's strength, at PPO step 0
                    evaluated = self.last_eval = self.evaluate(path)
                    evaluated = {**evaluated, "charts/eval_seconds": time.perf_counter() - te}
                    save_checkpoint(path, self.payload())  # latest.pt also carries its eval
                if warm and warm_writer is None:
                    warm_writer = SummaryWriter(os.path.join(self.run_dir, WARMSTART_LOGS))
                for w, tags, step in ((warm_writer if warm else writer, scalars,
                                       c["pretrain_decisions"] if warm else c["decisions"]),
                                      (writer, evaluated, c["decisions"])):
                    for k, v in tags.items():
                        if not math.isnan(v):  # e.g. no contract declared this iteration
                            w.add_scalar(k, v, step)
                if evaluated and not warm:  # each member's figures as text, not one tag per snapshot
                    writer.add_text("league/members", self.pool.table(), c["decisions"])
                    if self.ladder_table:
                        writer.add_text("league/ladder", self.ladder_table, c["decisions"])
                for w in (writer, warm_writer):
                    if w is not None:
                        w.flush()
                if warm:
                    postfix = {"acc": f"{scalars['pretrain/accuracy']:.3f}"}
                else:
                    postfix = {"it": it, "hand_r": f"{scalars['charts/mean_hand_reward']:.2f}"}
                if "eval/margin_vs_rule" in self.last_eval:
                    postfix["vs_rule"] = f"{self.last_eval['eval/margin_vs_rule']:+.2f}"
                done_now = c["pretrain_decisions"] if warm else c["decisions"]
                total, stop = self._bar_total(warm, since)
                if bar is None:
                    desc = f"warm start ({cfg.pretrain.teacher})" if warm else "PPO"
                    bar = tqdm(total=total, initial=since[1], unit="dec", unit_scale=True, desc=desc,
                               disable=not self.progress, dynamic_ncols=True)
                    # the phase's time and rate count its first step (tqdm's clock is its own)
                    if not bar.disable:
                        bar.start_t = bar.last_print_t = bar._time() - (time.perf_counter() - since[0])
                bar.total = max(total, done_now)
                bar.set_postfix({**postfix, "to": stop} if stop else postfix, refresh=False)
                bar.update(done_now - bar.n)
                if warm and not checked_warm_time and (c["pretrain_chunks"] >= 2 or self.done(started, base)):
                    checked_warm_time = True  # the second chunk's time: the first one's includes start-up costs
                    self._warn_if_warm_start_outlasts(step_seconds)
        finally:
            if bar is not None:
                bar.close()
            for w in (writer, warm_writer):
                if w is not None:
                    w.close()
            self.close()
        return {"counters": dict(self.counters), "last_eval": dict(self.last_eval),
                "warm_start_left": max(cfg.pretrain.decisions - c["pretrain_decisions"], 0)}


def ladder_scalars(ratings: dict[str, float]) -> dict[str, float]:
    """The ladder in a bounded set of scalars: the learner's rating, the best and the newest snapshot's, and each
    evaluation opponent's (the ``snapshot_<iteration>`` members are in :func:`ladder_table`)."""
    snaps = {name: r for name, r in ratings.items() if name.startswith("snapshot_")}
    out = {f"league/rating/{_tag(name)}": r for name, r in ratings.items() if name not in snaps}
    if snaps:
        out["league/rating/best_snapshot"] = max(snaps.values())
        out["league/rating/newest_snapshot"] = snaps[max(snaps, key=lambda n: int(n.split("_")[1]))]
    return out


def ladder_table(ratings: dict[str, float]) -> str:
    rows = ["| member | rating (points per deal) |", "|---|---|"]
    rows += [f"| {name} | {r:+.2f} |" for name, r in sorted(ratings.items(), key=lambda kv: -kv[1])]
    return "\n".join(rows)


def _tag(spec: str) -> str:
    base = os.path.splitext(os.path.basename(spec.split(":")[-1]))[0]
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in base)


def _to_cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_to_cpu(v) for v in obj]
    return obj
