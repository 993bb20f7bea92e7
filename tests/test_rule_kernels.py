"""``rule``'s card play compiled on the batch engine's arrays decides as ``rule`` does on a view."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import Agent, ExpertAgent, RuleAgent
from agents.seating import BatchTables, GameTables, Seating
from tarneeb_env import PRESETS, TarneebGame
from tarneeb_env.batch import BatchEnv, random_legal_actions


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), name=st.sampled_from(sorted(PRESETS)), p_random=st.sampled_from([0.0, 0.3, 1.0]))
def test_compiled_play_equals_the_view_path_in_every_game_at_every_step(seed, name, p_random):
    """Games advanced by a mix of random and ``rule`` actions (positions ``rule`` alone never reaches too):
    at every step, for every game, the compiled path's action is ``explain``'s on that game's view."""
    n = 24
    be = BatchEnv(n, rules=name, seed=seed)
    rng = np.random.default_rng(seed)
    _, mask, _ = be.reset()
    rule = RuleAgent(seed=0)
    games = list(range(n))
    plays = 0
    for _ in range(120):
        compiled = rule.act_batch_env(be, games)
        views = be.views(games)
        assert compiled == [rule.explain(v)[0] for v in views]
        plays += sum(v.phase == "play" for v in views)
        actions = np.where(rng.random(n) < p_random, random_legal_actions(mask, rng), compiled)
        _, mask, _, _, _, _ = be.step(actions)
    assert plays > n * 60  # most decisions were card plays, the path compiled


class OnEnv(Agent):
    """Decides on the batch engine's arrays (here: the first legal action); records what it was given."""

    reads_observation = False

    def __init__(self):
        super().__init__()
        self.calls = []

    def act_batch_env(self, env, games):
        self.calls.append((env, list(games)))
        return [v.legal_actions[0] for v in env.views(games)]

    def act(self, observation, view):
        return view.legal_actions[-1]


def test_seating_hands_the_batch_engine_to_agents_that_decide_on_it_and_only_there():
    be = BatchEnv(3, seed=1)
    obs, mask, seat = be.reset()
    agent = OnEnv()
    seating = Seating([agent], np.zeros((3, 4), dtype=np.int64))
    first = [v.legal_actions[0] for v in be.views([0, 2])]
    assert seating.act([0, 2], seat[[0, 2]].tolist(), BatchTables(be, obs, mask)) == first
    assert len(agent.calls) == 1 and agent.calls[0][0] is be and agent.calls[0][1] == [0, 2]
    game = TarneebGame(PRESETS["classic"], np.random.default_rng(0))
    game.new_game(0, (0, 0))
    game.start_deal()
    assert seating.act([0], [game.current], GameTables([game], [None])) == [game.legal_actions()[-1]]
    assert len(agent.calls) == 1  # other engines ask act()


def test_expert_does_not_inherit_rule_s_compiled_card_play():
    assert ExpertAgent.act_batch_env is None and callable(RuleAgent.act_batch_env)
