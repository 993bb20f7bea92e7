"""The evaluator's scheduler: chunks tile the deals, are sized from the measured cost, and keep every worker busy
until the work runs out, so the workers end within about one deal of each other (evaluation/schedule.py).

The workers here are simulated on a clock: a chunk's time is a deterministic count (a fake slow agent's
decisions), not a measured one, so the tests are exact on any machine."""
import math

import pytest

from agents import Agent
from evaluation.match import Lane, MatchSettings, _Players
from evaluation.schedule import GROWTH, Chunk, ChunkPlanner, InlineRunner, run_chunks
from tarneeb_env import PASS


class Result:
    def __init__(self, seconds):
        self.seconds = seconds


class SimulatedPool:
    """``workers`` workers on a simulated clock; a chunk takes ``cost(chunk)`` seconds. Records which worker ran
    which chunk, when, and how many units were still to hand out at each hand-out."""

    def __init__(self, workers, cost, planner):
        self.workers, self.cost, self.planner = workers, cost, planner
        self.now = 0.0
        self.running = []  # (end, worker, chunk, seconds)
        self.runs = []  # (worker, chunk, start, end)

    def submit(self, chunk):
        busy = {w for _, w, _, _ in self.running}
        worker = min(set(range(self.workers)) - busy)  # a free worker: run_chunks never has more in flight
        seconds = self.cost(chunk)
        self.running.append((self.now + seconds, worker, chunk, seconds))
        self.runs.append((worker, chunk, self.now, self.now + seconds))

    def wait(self):
        self.running.sort(key=lambda r: (r[0], r[1]))
        end, _, chunk, seconds = self.running.pop(0)
        self.now = end
        return chunk, Result(seconds)

    def per_worker(self):
        return {w: sorted((s, e, c) for w2, c, s, e in self.runs if w2 == w) for w in range(self.workers)}


def simulate(lanes, workers, cost):
    planner = ChunkPlanner(lanes, workers)
    pool = SimulatedPool(workers, cost, planner)
    got = []
    run_chunks(planner, pool, lambda chunk, result: got.append(chunk))
    return pool, got


def assert_tiles(chunks, lanes):
    """The chunks cover every unit of every lane exactly once."""
    for lane, (units, cap) in enumerate(lanes):
        mine = sorted((c.start, c.stop) for c in chunks if c.lane == lane)
        assert mine[0][0] == 0 and mine[-1][1] == units
        assert all(a[1] == b[0] for a, b in zip(mine, mine[1:]))
        assert all(0 < stop - start <= cap for start, stop in mine)


def assert_busy_until_the_work_ran_out(pool):
    """No worker waits while chunks are left to hand out: each runs its chunks back to back from the start (a
    worker only goes idle once the planner has nothing left)."""
    per = pool.per_worker()
    for runs in per.values():
        assert runs[0][0] == 0.0
        assert all(a[1] == pytest.approx(b[0]) for a, b in zip(runs, runs[1:]))  # no gap between chunks


class SlowAgent(Agent):
    """A fake slow agent (an expert's cost): every decision it makes costs ``SECONDS`` on the simulated clock,
    counted, not slept. Plays like the tests' cautious agent."""

    name = "slow"
    SECONDS = 0.1

    def __init__(self, seed=None):
        super().__init__(seed)
        self.decisions = 0

    def act(self, observation, view):
        self.decisions += 1
        legal = view.legal_actions
        if view.phase == "bidding":
            return PASS if PASS in legal else min(legal)
        return max(legal, key=lambda c: (c % 13, c))


class Cheap(Agent):
    """Free on the simulated clock; bids the lowest bid it may, so deals are played rather than thrown in."""

    name = "cheap"
    deterministic = True

    def act(self, observation, view):
        legal = view.legal_actions
        bids = [a for a in legal if a != PASS] if view.phase == "bidding" else legal
        return min(bids or legal)


@pytest.mark.parametrize("workers", [2, 3])
def test_a_slow_agents_deals_go_one_at_a_time_and_workers_end_within_a_deal(workers):
    slow, other = SlowAgent(), Cheap()
    players = _Players([slow, other], ["slow", "cheap"], MatchSettings(seed=7), [Lane((0, 1), False, 17, 128)])
    costs = {}

    def cost(chunk):  # play the chunk for real; its time is the slow agent's decisions (the cheap one's are free)
        before = slow.decisions
        players.play(chunk)
        costs[chunk] = (slow.decisions - before) * SlowAgent.SECONDS
        return costs[chunk]

    lanes = [(17, 128)]
    pool, got = simulate(lanes, workers, cost)
    assert_tiles(got, lanes)
    assert all(c.size == 1 for c in got)  # a deal costs seconds, far above the target: one deal per chunk
    assert_busy_until_the_work_ran_out(pool)
    ends = [runs[-1][1] for runs in pool.per_worker().values()]
    longest_deal = max(costs.values())
    assert max(ends) - min(ends) <= longest_deal + 1e-9  # they end within one deal of each other
    assert min(costs.values()) > 1.0  # (the fake agent is as slow as meant: seconds a deal)


def test_varied_deal_costs_keep_every_worker_busy_and_end_within_one_deal():
    cost_of = [2.0 + 6.0 * ((i * 7919) % 10) / 10 for i in range(101)]  # 2 to 7.4 s a deal, deterministic
    lanes = [(101, 128)]
    pool, got = simulate(lanes, 2, lambda c: sum(cost_of[c.start:c.stop]))
    assert_tiles(got, lanes)
    assert_busy_until_the_work_ran_out(pool)
    ends = [runs[-1][1] for runs in pool.per_worker().values()]
    assert max(ends) - min(ends) <= max(cost_of) + 1e-9
    assert max(ends) <= sum(cost_of) / 2 + max(cost_of)  # 2 workers: half the work, plus at most one deal


def test_cheap_agents_keep_full_chunks_and_a_short_tail():
    lanes = [(10_000, 128)]
    pool, got = simulate(lanes, 2, lambda c: 0.001 * c.size + 0.002)  # 1 ms a deal, 2 ms a chunk
    assert_tiles(got, lanes)
    assert_busy_until_the_work_ran_out(pool)
    full = sum(c.size for c in got if c.size == 128)
    assert full >= 0.9 * 10_000  # batched play keeps its large chunks
    ends = [runs[-1][1] for runs in pool.per_worker().values()]
    assert max(ends) - min(ends) < 0.01  # the guided tail: chunks shrink to one deal at the end


def test_one_worker_gets_no_tail_and_a_round_robin_plays_its_lanes_in_order():
    lanes = [(300, 128), (6, 32), (300, 128)]
    planner = ChunkPlanner(lanes, 1)
    runner = InlineRunner(lambda c: Result(0.0005 * c.size))
    got = []
    run_chunks(planner, runner, lambda chunk, result: got.append(chunk))
    assert_tiles(got, lanes)
    assert [c.lane for c in got] == sorted(c.lane for c in got)
    assert [c.size for c in got if c.lane == 0] == [1, 4, 16, 64, 128, 87]  # measured, grown, then full


def test_planner_sizes_from_the_target_the_growth_the_cap_and_the_units_left():
    planner = ChunkPlanner([(1000, 64)], 2, target=1.0)
    first = planner.next()
    assert first == Chunk(0, 0, 1)  # cost unknown: one unit
    planner.finished(first, 0.1)  # 0.1 s a unit: 10 fit the target, and 4x growth allows 4
    assert planner.next().size == GROWTH
    planner.finished(Chunk(0, 1, 5), 0.04)  # 0.01 s a unit: 100 fit, growth allows 16
    assert planner.next().size == 16
    planner.finished(Chunk(0, 5, 21), 0.016)  # 1 ms a unit: the cap of 64
    assert planner.next().size == 64
    planner.finished(Chunk(0, 21, 85), 64 * 0.5)  # suddenly 0.5 s a unit: 2 fit the target
    assert planner.next().size == 2
    sizes = []
    while (c := planner.next()) is not None:
        assert c.size <= math.ceil((planner.left + c.size) / 4)  # at most 1/(2W) of what was left
        sizes.append(c.size)
    assert sizes[-1] == 1 and planner.left == 0
