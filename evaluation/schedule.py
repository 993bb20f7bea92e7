"""Handing a match's deals to workers in chunks sized as they are handed out, so the workers end together.

A chunk is a run of deals (or whole games) of one pair that a worker plays in lockstep and reports back. Large
chunks let a deterministic agent decide for many tables in one call (a network's batched forward pass); small
ones let the workers end within a deal of each other, move the progress bar, and lose little to Ctrl-C. So
:class:`ChunkPlanner` sizes each chunk when a worker is free, from the time per unit its lane's last chunk took:

- at most the lane's cap (``batch`` deals, or ``GAMES_PER_BATCH`` games);
- about :data:`TARGET_SECONDS` of play, and at least one unit: ``expert`` or ``search`` matches get one-deal
  chunks, ``rule`` vs ``rule`` full ones;
- at most 4x the lane's last chunk, so a first one-unit chunk measures the cost before sizes grow;
- with W workers, at most 1/(2W) of the units not yet handed out (guided self-scheduling), so the last chunks
  shrink to one unit and every worker ends within about one chunk of the others.

:func:`run_chunks` keeps one chunk per worker in flight and hands out the next as soon as one comes back. The
split changes nothing in the results: the agents' draws are keyed by the deal (:mod:`evaluation.tables`), and the
caller assembles the chunks in deal order.
"""
from __future__ import annotations

import math
import queue
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

TARGET_SECONDS = 1.0  # a chunk's play time to aim for: the bar moves, workers end close, batching stays large
GROWTH = 4  # a lane's next chunk is at most this many times its last


@dataclass(frozen=True)
class Chunk:
    """Units ``start`` to ``stop`` (deals or games) of lane ``lane``."""

    lane: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start


class ChunkPlanner:
    """The chunks of ``lanes`` (``(units, cap)`` each, handed out in order) for ``workers`` workers.

    :meth:`next` sizes the next chunk from what :meth:`finished` was told (see the module docstring)."""

    def __init__(self, lanes: Sequence[tuple[int, int]], workers: int, target: float = TARGET_SECONDS):
        self.units = [n for n, _ in lanes]
        self.caps = [cap for _, cap in lanes]
        self.workers = workers
        self.target = target
        self.left = sum(self.units)  # units not yet handed out
        self._lane = 0
        self._start = 0
        self._last: dict[int, tuple[int, float]] = {}  # lane -> (size, seconds) of its last finished chunk

    def next(self) -> Optional[Chunk]:
        """The next chunk to hand out, or None when every unit has been."""
        while self._lane < len(self.units) and self._start >= self.units[self._lane]:
            self._lane, self._start = self._lane + 1, 0
        if self._lane == len(self.units):
            return None
        lane = self._lane
        size = min(self.caps[lane], self.units[lane] - self._start)
        last = self._last.get(lane)
        if last is None:
            size = 1  # its cost is not known yet
        else:
            done, seconds = last
            size = min(size, GROWTH * done)
            if seconds > 0:
                size = min(size, max(1, int(self.target * done / seconds)))
        if self.workers > 1:
            size = min(size, math.ceil(self.left / (2 * self.workers)))
        chunk = Chunk(lane, self._start, self._start + size)
        self._start += size
        self.left -= size
        return chunk

    def finished(self, chunk: Chunk, seconds: float) -> None:
        """``chunk`` was played in ``seconds``."""
        self._last[chunk.lane] = (chunk.size, seconds)


class InlineRunner:
    """Plays each chunk in this process when it is waited for: the one-worker runner."""

    def __init__(self, play: Callable[[Chunk], Any]):
        self.play = play
        self._queue: deque[Chunk] = deque()

    def submit(self, chunk: Chunk) -> None:
        self._queue.append(chunk)

    def wait(self) -> tuple[Chunk, Any]:
        chunk = self._queue.popleft()
        return chunk, self.play(chunk)


class PoolRunner:
    """Plays chunks on a :class:`multiprocessing.pool.Pool`; :meth:`wait` returns them as they finish, and raises
    a worker's exception."""

    def __init__(self, pool: Any, play: Callable[[Chunk], Any]):
        self.pool = pool
        self.play = play  # a module-level function, pickled by name
        self._done: queue.SimpleQueue = queue.SimpleQueue()

    def submit(self, chunk: Chunk) -> None:
        self.pool.apply_async(self.play, (chunk,), callback=lambda r: self._done.put((chunk, r, None)),
                              error_callback=lambda e: self._done.put((chunk, None, e)))

    def wait(self) -> tuple[Chunk, Any]:
        chunk, result, error = self._done.get()
        if error is not None:
            raise error
        return chunk, result


def run_chunks(planner: ChunkPlanner, runner: Any, on_result: Callable[[Chunk, Any], None]) -> None:
    """Play every chunk ``planner`` hands out on ``runner`` (``submit(chunk)``, ``wait() -> (chunk, result)``
    with ``result.seconds``), one per worker in flight; each result goes to ``on_result`` as it comes back,
    after the freed worker got its next chunk."""
    pending = 0
    for _ in range(planner.workers):
        chunk = planner.next()
        if chunk is None:
            break
        runner.submit(chunk)
        pending += 1
    while pending:
        chunk, result = runner.wait()
        pending -= 1
        planner.finished(chunk, result.seconds)
        following = planner.next()
        if following is not None:
            runner.submit(following)
            pending += 1
        on_result(chunk, result)
