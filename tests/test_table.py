"""The table runner (agents/table.py): the end-of-table rule, the caps, the seated agents' resets and the
end-of-deal news, and that the terminal's table deals and ends as the AEC env it replaced."""
import numpy as np
import pytest

from agents import Agent, RuleAgent
from agents.seating import seated
from agents.table import MAX_DEALS_PER_GAME, MAX_DEALS_PER_PLAYED_GAME, MAX_DEALS_PER_TABLE, Table, table_over
from tarneeb_env import make_rules, raw_env
from tarneeb_env.game import HandResult


class Passer(Agent):
    """The lowest legal action: passes every classic auction (a throw-in every deal); counts its resets and
    the deal ends it hears."""

    name = "passer"
    reads_observation = False

    def __init__(self):
        super().__init__()
        self.resets = 0
        self.heard: list[tuple[int, bool]] = []

    def reset(self) -> None:
        self.resets += 1

    def deal_over(self, seat, record) -> None:
        self.heard.append((seat, record.thrown_in))

    def act(self, observation, view):
        return min(view.legal_actions)


def play(table: Table) -> None:
    """The table to its end, every seat an agent, the next deal started at once."""
    while not table.over:
        if table.waiting:
            table.next_deal()
        table.apply(table.agent_action())


def passers(rules="classic", **kw) -> tuple[Table, Passer]:
    agent = Passer()
    return Table(make_rules(rules), np.random.default_rng(3), 0, seated({s: agent for s in range(4)}), **kw), agent


def result(thrown_in: bool, game_over: bool) -> HandResult:
    return HandResult(record=None, score_delta=(0, 0), thrown_in=thrown_in, game_over=game_over,
                      winner=0 if game_over else None)


@pytest.mark.parametrize("one_deal,thrown_in,game_over,deals,cap,over", [
    (True, True, False, 1, 50, False),  # a duplicate table redeals a throw-in
    (True, False, False, 1, 50, True),  # and ends with its first played hand
    (True, True, False, 50, 50, True),  # or at its cap
    (True, True, False, 49, 50, False),
    (False, False, False, 3, 200, False),  # a played hand short of the target: the game goes on
    (False, False, True, 3, 200, True),  # a team reached the target
    (False, True, False, 199, 200, False),
    (False, True, False, 200, 200, True),  # the cap
])
def test_the_end_of_table_rule(one_deal, thrown_in, game_over, deals, cap, over):
    assert table_over(result(thrown_in, game_over), deals, one_deal, cap) is over


def test_the_caps():
    assert (MAX_DEALS_PER_TABLE, MAX_DEALS_PER_GAME, MAX_DEALS_PER_PLAYED_GAME) == (50, 200, 1000)
    assert passers(one_deal=True)[0].cap == 50  # a duplicate table's default
    assert passers()[0].cap == 1000  # a game's default: a person's game (the evaluator passes its own 200)


def test_a_duplicate_table_of_passers_stops_at_its_cap_scoring_nothing():
    table, agent = passers(one_deal=True)
    play(table)
    assert table.game.deals == len(table.records) == 50
    assert all(r.thrown_in for r in table.records) and table.net == 0 and table.delta == [0, 0]
    assert table.over and table.waiting
    assert len({str(r.deal) for r in table.records}) == 50  # each redeal new cards from the table's generator


def test_a_game_of_passers_stops_at_its_cap_without_a_winner():
    table, _ = passers(cap=7)
    play(table)
    assert table.game.deals == len(table.records) == 7
    assert table.game.winner is None and not table.game.game_over and table.over
    table, _ = passers()
    play(table)
    assert table.game.deals == MAX_DEALS_PER_PLAYED_GAME == 1000


def test_a_game_runs_to_the_target_score_and_keeps_its_score():
    rule = RuleAgent(seed=1)
    table = Table(make_rules("classic"), np.random.default_rng(11), 2, seated({s: rule for s in range(4)}))
    play(table)
    game = table.game
    assert game.game_over and max(game.scores) >= game.rules.target_score
    assert game.scores[game.winner] == max(game.scores)
    assert table.delta == game.scores  # from 0-0, the sum of the deals' score changes
    assert table.net == game.scores[0] - game.scores[1]
    assert len(table.records) == game.deals and table.records[-1].scores == game.scores
    assert table.moves == sum(len(r.auction) + len(r.plays) for r in table.records)


def test_own_agents_and_the_hint_are_reset_every_deal_and_every_seat_hears_each_deal_end():
    hint = Passer()
    table, agent = passers(cap=3, hint=hint)
    play(table)
    assert agent.resets == hint.resets == 3  # one agent object at four seats is reset once a deal
    assert agent.heard == [(s, True) for _ in range(3) for s in range(4)]
    shared, agent = passers(cap=3, own_agents=False)  # the evaluator's: reset by Seating.start only
    play(shared)
    assert agent.resets == 0 and len(agent.heard) == 12


def test_the_next_deal_waits_for_the_end_of_one_and_none_follows_the_last():
    table, _ = passers(cap=2)
    with pytest.raises(RuntimeError, match="still being played"):
        table.next_deal()
    for _ in range(4):  # four passes: a throw-in
        table.apply(table.agent_action())
    assert table.waiting and not table.over and table.game.deals == 1
    table.next_deal()
    assert not table.waiting and table.game.deals == 2
    for _ in range(4):
        table.apply(table.agent_action())
    assert table.over
    with pytest.raises(RuntimeError, match="the table is over"):
        table.next_deal()


@pytest.mark.parametrize("seed", [0, 5])
def test_the_terminal_table_deals_and_ends_as_the_aec_env_did(seed):
    """The terminal game ran on ``raw_env(episode="game", max_hands=1000).reset(seed)``; its table draws the
    dealer and the deals from ``default_rng(seed)`` the same way, so the same moves give the same game."""
    rules = make_rules("syrian41")
    env = raw_env(rules=rules, episode="game", max_hands=MAX_DEALS_PER_PLAYED_GAME)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rule = RuleAgent(seed=seed)
    table = Table(rules, rng, int(rng.integers(4)), seated({s: rule for s in range(4)}))
    records = []
    while not table.over:
        if table.waiting:
            table.next_deal()
        assert env.agent_selection == f"player_{table.game.current}"
        action = int(table.agent_action())
        result = table.apply(action)
        env.step(action)
        if result is not None:
            records.append(env.infos["player_0"]["hand_record"])
            assert records[-1] == result.record.to_dict()
    assert all(env.terminations.values()) and table.game.game_over
    assert env.game.scores == table.game.scores and len(records) == table.game.deals
