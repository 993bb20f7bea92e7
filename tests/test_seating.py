"""Seating: one act_batch per agent per step, lazy views, observations only for readers, named errors, seeding."""
import numpy as np
import pytest

from agents import Agent, RandomAgent, RuleAgent
from agents.seating import LEFT_TO_CALLER, BatchTables, GameTables, Seating
from tarneeb_env import NUM_ACTIONS, make_rules, raw_env
from tarneeb_env.batch import BatchEnv
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import OBS_SIZE, ObservationWriter


class FakeTables:
    """Table i's mask allows action i only, its observation row is full of i; records what was built."""

    def __init__(self):
        self.views_built, self.rows_built, self.view_calls = [], [], []

    def masks(self, tables):
        m = np.zeros((len(tables), NUM_ACTIONS), np.int8)
        m[np.arange(len(tables)), tables] = 1
        return m

    def observations(self, tables):
        self.rows_built += list(tables)
        return [np.full(3, i, np.float32) for i in tables]

    def views(self, tables):
        self.views_built += list(tables)
        self.view_calls.append(list(tables))
        return [("view", i) for i in tables]

    def batch_env(self):
        return None


class Recorder(Agent):
    """Answers each table with its only legal action; notes every call."""

    def __init__(self, name, reads=True, read_views=True):
        super().__init__()
        self.name, self.reads_observation, self.read_views = name, reads, read_views
        self.calls, self.log = [], []

    def seed(self, seed=None):
        super().seed(seed)
        getattr(self, "log", []).append(("seed", seed))

    def reset(self):
        self.log.append("reset")

    def act_batch(self, observations, views):
        self.calls.append([int(np.flatnonzero(o["action_mask"])[0]) for o in observations])
        self.rows = [o["observation"] for o in observations]
        if self.read_views:
            assert [v for v in views] == [("view", i) for i in self.calls[-1]]
        return self.calls[-1]


def test_one_act_batch_per_distinct_agent_over_all_its_tables():
    a, b = Recorder("a"), Recorder("b")
    # tables 0..3; a at seats 0 and 2 of tables 0, 1 and at every seat of table 3; index 2 is a again
    seating = Seating([a, b, a], [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [2, 2, 2, 2]])
    actions = seating.act([0, 1, 2, 3], [0, 0, 1, 3], FakeTables())
    assert actions == [0, 1, 2, 3]
    assert a.calls == [[0, 3]]  # index 2 is the same object: one group, one call
    assert b.calls == [[1, 2]]


def test_views_and_observations_only_for_agents_that_read_them():
    reader, blind = Recorder("reader"), Recorder("blind", reads=False, read_views=False)
    engine = FakeTables()
    seating = Seating([reader, blind], [[0, 1, 0, 1]] * 4)
    seating.act([0, 1, 2, 3], [0, 1, 1, 2], engine)
    assert engine.views_built == [0, 3] and engine.rows_built == [0, 3]
    assert [r.tolist() for r in reader.rows] == [[0, 0, 0], [3, 3, 3]]
    assert blind.rows == [None, None]
    assert seating.reads_observation and not Seating([blind], [[0] * 4]).reads_observation


def test_views_are_built_once_per_table_however_often_read():
    class Twice(Recorder):
        def act_batch(self, observations, views):
            assert list(views) == list(views) and views[1:2] == [views[1]]
            return super().act_batch(observations, views)

    engine = FakeTables()
    Seating([Twice("t")], [[0] * 4] * 3).act([0, 1, 2], [0, 0, 0], engine)
    assert engine.views_built == [0, 1, 2]


def test_a_group_s_views_are_built_in_one_engine_call_unless_read_one_by_one():
    class Partial(Recorder):
        """Reads table 2's view by index, then a slice, then iterates over all of them."""

        def act_batch(self, observations, views):
            assert views[1] == ("view", 2) and views[2:] == [("view", 3), ("view", 4)]
            assert list(views) == [("view", i) for i in (1, 2, 3, 4)]
            return [int(np.flatnonzero(o["action_mask"])[0]) for o in observations]

    engine = FakeTables()
    Seating([Recorder("r")], [[0] * 4] * 5).act([4, 1, 3], [0, 0, 0], engine)
    assert engine.view_calls == [[4, 1, 3]]  # iteration: one call for the whole group
    engine = FakeTables()
    Seating([Partial("p")], [[0] * 4] * 5).act([1, 2, 3, 4], [0, 0, 0, 0], engine)
    assert engine.view_calls == [[2], [3, 4], [1]]  # each view built once, only those not built yet


def test_agents_with_act_only_are_asked_table_by_table():
    class Lowest:  # duck-typed: no act_batch, seed or reset
        def act(self, observation, view):
            return int(np.flatnonzero(observation["action_mask"])[0])

    seating = Seating([Lowest()], [[0] * 4] * 3)
    seating.start([1])
    assert seating.act([2, 0], [1, 3], FakeTables()) == [2, 0]


def test_wrong_number_of_actions_names_the_agent():
    class Short(Recorder):
        def act_batch(self, observations, views):
            return [0]

    seating = Seating([Short("shorty")], [[0] * 4] * 2, names=["shorty (A)"])
    with pytest.raises(RuntimeError, match=r"agent 'shorty \(A\)': act_batch returned 1 actions for 2 observations"):
        seating.act([0, 1], [0, 0], FakeTables())
    assert seating.name(1, 2) == "shorty (A)"


def test_seats_left_to_the_caller_are_refused():
    seating = Seating([Recorder("a")], [[0, LEFT_TO_CALLER, 0, LEFT_TO_CALLER]])
    assert seating.act([0], [2], FakeTables()) == [0]
    with pytest.raises(ValueError, match="table 0: seat 1 is the caller's"):
        seating.act([0], [1], FakeTables())


def test_bad_construction_says_what_is_wrong():
    with pytest.raises(ValueError, match=r"seat_agent: indices must be -1 or in \[0, 1\)"):
        Seating([Recorder("a")], [[0, 1, 0, 0]])
    with pytest.raises(ValueError, match="names: 2 names for 1 agents"):
        Seating([Recorder("a")], [[0] * 4], names=["a", "b"])
    with pytest.raises(ValueError, match="seeds: 1 seeds for 2 agents"):
        Seating([Recorder("a"), Recorder("b")], [[0] * 4]).start([1])


def test_start_seeds_each_distinct_agent_once_then_resets_and_new_deal_resets_one_table():
    a, b, c = Recorder("a"), Recorder("b"), Recorder("c")
    for agent in (a, b, c):
        agent.log.clear()
    seating = Seating([a, b, a, c], [[0, 1, 0, 1], [2, 3, 2, 3]])
    seating.start([10, 11, 12, 13])
    assert a.log == [("seed", 10), "reset"]  # seeded from its first index only
    assert b.log == [("seed", 11), "reset"] and c.log == [("seed", 13), "reset"]
    seating.new_deal(1)
    assert a.log[-1] == "reset" and len(a.log) == 3 and c.log[-1] == "reset" and len(b.log) == 2


def test_same_seeds_same_play_over_the_batch_engine():
    def play(seed):
        env = BatchEnv(num_games=6, rules="classic")
        table_agents = [RuleAgent() if i % 2 else RandomAgent() for i in range(6)]
        seating = Seating(table_agents, [[i] * 4 for i in range(6)])
        seating.start(list(range(seed, seed + 6)))
        obs, mask, seat = env.reset(seed=seed)
        engine = BatchTables(env, obs, mask)
        played = []
        for _ in range(80):
            actions = np.array(seating.act(np.arange(6), seat, engine))  # numpy indices work as lists do
            played.append(actions)
            obs, mask, seat, _, _, records = env.step(actions)  # raises on an illegal action
            engine.update(obs, mask)
            for i, _ in records:
                seating.new_deal(i)
        return np.stack(played)

    assert np.array_equal(play(3), play(3))
    assert not np.array_equal(play(3), play(4))


@pytest.mark.parametrize("rules", ["classic", "syrian41", "hearts41", "trump_by_card"])
def test_rule_decides_through_the_batch_engine_s_views_as_on_the_aec_env_s(rules):
    """The rollouts' path (card play compiled on the batch engine's arrays, the rest on views built
    together by BatchEnv.views) against the oracle's views: the same action in every one of 2,400
    decisions, several deals per game."""
    n = 16
    be = BatchEnv(n, rules=rules, seed=8)
    envs = [raw_env(rules=rules) for _ in range(n)]
    for e, s in zip(envs, be.game_seeds):
        e.reset(seed=s)
    obs, mask, seat = be.reset()
    engine = BatchTables(be, obs, mask)
    rule = RuleAgent()
    seating = Seating([rule], np.zeros((n, 4), dtype=np.int64))
    deals = 0
    for _ in range(150):
        actions = seating.act(list(range(n)), seat.tolist(), engine)
        assert actions == [rule.act(None, e.unwrapped.view(e.agent_selection)) for e in envs]
        obs, mask, seat, _, _, records = be.step(np.array(actions))
        engine.update(obs, mask)
        deals += len(records)
        for e, a in zip(envs, actions):
            e.step(a)
            if all(e.terminations.values()) or all(e.truncations.values()):
                e.reset()
    assert deals >= 2 * n


def test_game_tables_give_the_seat_to_act_its_observation_mask_and_view():
    rules = make_rules("classic")
    writers = [ObservationWriter(), None]
    games = [TarneebGame(rules, np.random.default_rng(k), w) for k, w in enumerate(writers)]
    for g in games:
        g.new_game(0)
        g.start_deal()
    engine = GameTables(games, writers)

    class Checker(RandomAgent):
        reads_observation = True

        def act_batch(self, observations, views):
            for o, v in zip(observations, views):
                assert o["observation"].shape == (OBS_SIZE,)
                assert list(np.flatnonzero(o["action_mask"])) == list(v.legal_actions)
            return super().act_batch(observations, views)

    seating = Seating([Checker(0), RandomAgent(1)], [[0, 0, 0, 0], [1, 1, 1, 1]])
    for _ in range(30):
        seats = [g.current for g in games]
        for g, a in zip(games, seating.act([0, 1], seats, engine)):
            if g.apply(a) is not None:
                g.start_deal()
