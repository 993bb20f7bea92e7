"""Rollouts in one child process, so they run on the second core while the learner updates.

``rollout.backend: process``: a child started with multiprocessing's ``spawn``
(no forked torch or OpenMP state) runs a :class:`LocalRollout` on one torch
thread. :meth:`ProcessRollout.submit` sends one collection's inputs and returns
at once; :meth:`ProcessRollout.gather` waits for its :class:`Batch`: the same
interface as the Ray backend, which lets the trainer overlap the next
collection with the current update (``rollout.lag: 1``).

What crosses the pipe: the weights as numpy arrays with every submission
(about 1 MB for the 256x256 model), each pool snapshot once (the child keeps
the ones still in the pool), and the batch's row count and statistics back.
The batch rows themselves (about 45 MB for 16k learned decisions) go through a
shared-memory block (:class:`SharedRows`) that the learner copies out in one
pass: pickling them through the pipe cost the learner a few tenths of a second
per iteration. The learner copies before it submits the next collection, so
one block serves every iteration; it is sized for ``num_games x rollout_steps``
rows, which :func:`shared_memory_shortfall` checks /dev/shm can hold before the
child starts. A collection depends only on
(weights, pool, seed), so the child's batch equals a :class:`LocalRollout`'s
in the learner (given the same torch thread count).

Failure: the learner never waits blindly. :meth:`gather` polls the pipe and
checks that the child is alive; a child that died (killed, out of memory) is
restarted and the collection resubmitted, up to ``retries`` times, and then the
iteration fails with an error naming the exit code; an exception inside the
child comes back with its traceback; a collection running past ``timeout``
seconds kills the child and fails. :meth:`close`, the trainer's exit path and
garbage collection stop the child; if the learner itself is killed, the child
exits when it finds the pipe closed (after its current collection) and the
resource tracker frees the shared block, so no process is left behind.

The child is spawned, so a script that drives a :class:`training.Trainer` with
this backend needs the usual ``if __name__ == "__main__":`` guard (``train.py``
has it).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import time
import traceback
import weakref
from multiprocessing import shared_memory
from typing import Any

import numpy as np
import torch

from tarneeb_env import Rules

from .batch import DATA, Batch, schema
from .config import Config
from .rollout import LocalRollout, PoolEntry

POLL_SECONDS = 0.2  # how often a waiting learner checks that the child is alive


class RolloutProcessError(RuntimeError):
    """The rollout process died, timed out or raised; the message says which and how often."""


def _numpy(sd: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {k: v.detach().cpu().numpy() for k, v in sd.items()}


def _tensors(sd: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(v) for k, v in sd.items()}


def _sizes(rows: int, privileged: bool) -> list[int]:
    return [rows * np.dtype(dt).itemsize * int(np.prod(shape)) for dt, shape in schema(privileged).values()]


def shared_memory_shortfall(cfg: Config) -> str | None:
    """Why this machine's shared memory cannot hold a rollout's rows, or None if it can.

    Linux keeps shared memory in /dev/shm, which containers often cap (Docker: 64 MB); writing past the cap
    would kill the rollout process with SIGBUS, so the learner checks first.
    """
    need = sum(_sizes(cfg.env.num_games * cfg.env.rollout_steps, cfg.model.critic == "privileged"))
    if not os.path.isdir("/dev/shm"):
        return None
    st = os.statvfs("/dev/shm")
    free = st.f_bavail * st.f_frsize
    if free >= need:
        return None
    return (f"rollout.backend: process needs {need / 2**20:.0f} MB of shared memory for "
            f"env.num_games x env.rollout_steps rows, and /dev/shm has {free / 2**20:.0f} MB free; enlarge it "
            f"(docker run --shm-size=...) or set rollout.backend: local")


class SharedRows:
    """Up to ``rows`` batch rows in one shared-memory block, field after field (created by the learner)."""

    def __init__(self, rows: int, privileged: bool, name: str | None = None):
        layout = schema(privileged)
        sizes = _sizes(rows, privileged)
        self.shm = shared_memory.SharedMemory(name=name, create=name is None, size=sum(sizes))
        self.arrays, offset = {}, 0
        for (f, (dt, shape)), size in zip(layout.items(), sizes):
            self.arrays[f] = np.ndarray((rows, *shape), dtype=dt, buffer=self.shm.buf, offset=offset)
            offset += size

    def write(self, batch: Batch) -> int:
        n = len(batch)
        for f in batch.fields():
            self.arrays[f][:n] = getattr(batch, f)
        return n

    def read(self, n: int, stats: dict[str, float]) -> Batch:
        """A copy of the first ``n`` rows (the block is overwritten by the next collection)."""
        priv = self.arrays["priv"][:n].copy() if "priv" in self.arrays else None
        return Batch(*(self.arrays[f][:n].copy() for f in DATA), stats=stats, priv=priv)

    def close(self, unlink: bool) -> None:
        self.arrays = {}
        self.shm.close()
        if unlink:
            self.shm.unlink()


def serve(conn, cfg: Config, rules: Rules, shm_name: str) -> None:
    """The child's loop: one ``(seed, weights, pool, new snapshots)`` message in, one result out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle; it stops this process
    torch.set_num_threads(1)
    rows = SharedRows(cfg.env.num_games * cfg.env.rollout_steps, cfg.model.critic == "privileged", shm_name)
    rollout = LocalRollout(cfg, rules)
    snapshots: dict[str, dict[str, torch.Tensor]] = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the learner is gone
            return
        if msg is None:
            return
        seed, weights, entries, new = msg
        snapshots.update({name: _tensors(sd) for name, sd in new.items()})
        snapshots = {name: sd for name, sd in snapshots.items() if name in {n for n, _ in entries}}
        pool = [PoolEntry(name, w, snapshots.get(name)) for name, w in entries]
        try:
            batch = rollout.collect(_tensors(weights), pool, seed)
            reply = ("ok", (rows.write(batch), batch.stats))
        except Exception:  # noqa: BLE001 - sent back whole to the learner, which raises it
            reply = ("error", traceback.format_exc())
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return


def _stop(proc, conn, rows: SharedRows) -> None:
    """Ask the child to exit, make sure it has (terminate, kill), reap it and free the shared block."""
    try:
        conn.send(None)
    except (BrokenPipeError, OSError):
        pass
    conn.close()
    proc.join(timeout=0.5)  # an idle child exits at once; a busy one has nothing worth finishing
    if proc.is_alive():
        proc.terminate()
        proc.join(timeout=5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    rows.close(unlink=True)


class ProcessRollout:
    """A :class:`LocalRollout` in a spawned child process; ``submit``/``gather``/``collect``/``close``."""

    def __init__(self, cfg: Config, rules: Rules, timeout: float = 600.0, retries: int = 1):
        self.cfg, self.rules = cfg, rules
        self.timeout, self.retries = timeout, retries
        self.proc = None
        self.restarts = 0  # children restarted after dying, over the run
        self._conn = None
        self._rows: SharedRows | None = None
        self._sent: set[str] = set()  # snapshots the child holds
        self._finalizer = None

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def _start(self) -> None:
        shortfall = shared_memory_shortfall(self.cfg)
        if shortfall is not None:
            raise RolloutProcessError(shortfall)
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        rows = SharedRows(self.cfg.env.num_games * self.cfg.env.rollout_steps, self.cfg.model.critic == "privileged")
        proc = ctx.Process(target=serve, args=(child, self.cfg, self.rules, rows.shm.name), name="tarneeb-rollout",
                           daemon=True)
        proc.start()
        child.close()
        self.proc, self._conn, self._rows, self._sent = proc, parent, rows, set()
        self._finalizer = weakref.finalize(self, _stop, proc, parent, rows)

    def _send(self, handle: dict[str, Any]) -> None:
        if self.proc is None:
            self._start()
        pool: list[PoolEntry] = handle["pool"]
        new = {e.name: _numpy(e.state_dict) for e in pool if e.kind == "snapshot" and e.name not in self._sent}
        self._conn.send((handle["seed"], handle["weights"], [(e.name, e.weight) for e in pool], new))
        self._sent = {e.name for e in pool if e.kind == "snapshot"}

    def submit(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> dict[str, Any]:
        """Send one collection to the child (started on first use); :meth:`gather` waits for it."""
        handle = {"weights": _numpy(weights), "pool": list(pool), "seed": int(seed), "start": time.perf_counter()}
        self._send(handle)
        return handle

    def gather(self, handle: dict[str, Any]) -> Batch:
        """The batch of ``handle``'s collection; restarts a dead child and resubmits, up to ``retries`` times."""
        attempt = 0
        while True:
            deadline = time.monotonic() + self.timeout
            while not self._conn.poll(POLL_SECONDS):
                if not self.proc.is_alive():
                    break
                if time.monotonic() > deadline:
                    self.close()
                    raise RolloutProcessError(f"rollout process: no result after rollout.timeout = "
                                              f"{self.timeout:g} s; it was stopped")
            try:
                status, payload = self._conn.recv()
            except (EOFError, OSError):  # died: the pipe closed
                self.proc.join(timeout=5)
                code = self.proc.exitcode
                self.close()
                if attempt == self.retries:
                    raise RolloutProcessError(
                        f"rollout process died (exit code {code}) {self.retries + 1} time(s) in one collection; "
                        "see its output above, or set rollout.backend: local to run rollouts in this process"
                    ) from None
                attempt += 1
                self.restarts += 1
                self._send(handle)
                continue
            if status == "error":
                raise RolloutProcessError(f"rollout process raised:\n{payload}")
            return self._rows.read(*payload)

    def collect(self, weights: dict[str, torch.Tensor], pool: list[PoolEntry], seed: int) -> Batch:
        return self.gather(self.submit(weights, pool, seed))

    def close(self) -> None:
        """Stop the child (a later :meth:`submit` starts a new one)."""
        if self._finalizer is not None:
            self._finalizer()
        self.proc = self._conn = self._rows = self._finalizer = None
