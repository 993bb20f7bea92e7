"""The ``search`` agent: legal, seeded, blind to hidden cards, within its time budget, settings from its spec."""
from __future__ import annotations

import numpy as np
import pytest

import agents
from agents import RuleAgent, SearchAgent
from agents.layouts import sample_layouts
from agents.search_agent import CHUNK
from tarneeb_env import raw_env
from tarneeb_env.cards import cards_of
from tarneeb_env.game import IllegalActionError


def play_deal(table, rules: str, seed: int) -> list[int]:
    """Deals at ``table`` (agents by seat) until one is played out; every action, each checked legal."""
    e = raw_env(rules=rules, episode="hand")
    e.reset(seed=seed)
    actions = []
    while not any(e.terminations.values()):
        agent = e.agent_selection
        seat = int(agent[-1])
        view = e.view(seat)
        a = table[seat].act(e.observe(agent), view)
        assert a in view.legal_actions, (rules, seed, view.phase, a, view.legal_actions)
        actions.append(a)
        e.step(a)
    return actions


@pytest.mark.parametrize("rules", ["classic", "syrian41", "trump_by_card"])
def test_search_plays_only_legal_actions(rules):
    search = agents.load("search?samples=2", rules=rules, seed=1)
    rule = RuleAgent(seed=0)
    actions = play_deal([search, rule, search, rule], rules, seed=3)
    assert sum(a < 52 for a in actions) == 52


def test_search_is_deterministic_for_a_seed():
    def run(seed):
        a = agents.load("search?samples=3", seed=seed)
        return play_deal([a, RuleAgent(seed=0), a, RuleAgent(seed=0)], "classic", 7)

    assert run(5) == run(5)


def _replay(deal, dealer, actions):
    e = raw_env(rules="classic")
    e.reset(seed=0, options={"deal": deal, "dealer": dealer})
    for a in actions:
        e.step(a)
    return e


def _positions(seed: int, cards_played: int):
    """A deal played by ``rule`` until ``cards_played`` cards are down and the seat to act has a choice, and the same history with the
    cards the seat to act cannot see moved between the other hands (sizes and shown voids kept)."""
    rng = np.random.default_rng(seed)
    e = raw_env(rules="classic")
    e.reset(seed=seed, options={"dealer": seed % 4})
    deal = [list(cards_of(h)) for h in e.game.deal]
    rule = RuleAgent(seed=0)
    actions = []
    while len(e.game.played) < cards_played or len(e.view(e.game.current).legal_actions) < 2:
        a = rule.act(None, e.view(e.game.current))
        e.step(a)
        actions.append(a)
    seat = e.game.current
    played = {c for _, c in e.game.played}
    others = [s for s in range(4) if s != seat]
    hidden = [c for s in others for c in deal[s] if c not in played]
    for _ in range(1000):
        it = iter(rng.permutation(hidden).tolist())
        moved = [list(h) if s == seat else [c if c in played else next(it) for c in h] for s, h in enumerate(deal)]
        try:
            e2 = _replay(moved, seed % 4, actions)
        except IllegalActionError:  # a card of a suit its seat has shown out of
            continue
        if moved != deal and e2.view(seat) == e.view(seat):
            return seat, e, e2
    raise AssertionError("no other layout of the hidden cards replays the history")


@pytest.mark.parametrize("seed,cards_played", [(1, 9), (2, 22)])
def test_search_never_reads_hidden_cards(seed, cards_played):
    seat, e, e2 = _positions(seed, cards_played)
    assert e.game.hands != e2.game.hands
    agent = f"player_{seat}"
    obs, obs2 = e.observe(agent), e2.observe(agent)
    view, view2 = e.view(seat), e2.view(seat)
    for weighting in ("policy", "uniform"):
        search = agents.load(f"search?samples=4&weighting={weighting}&min_prob=0&margin=0")
        for s in range(3):
            search.seed(s)
            layouts, action = search._layouts(view), search.act(obs, view)
            search.seed(s)
            assert search._layouts(view2) == layouts
            assert search.act(obs2, view2) == action


def test_search_stops_within_its_time_budget():
    """Under a fake clock where each chunk of layouts takes one second, the code starts no chunk that
    would end past the budget, and always plays at least one."""
    seat, e, _ = _positions(1, 9)
    obs, view = e.observe(f"player_{seat}"), e.view(seat)
    now = [0.0]
    for budget, chunks in ((None, 6), (2.5, 2), (4.0, 4), (0.1, 1)):
        search = SearchAgent(seed=0, samples=6 * CHUNK, time=budget, min_prob=0.0, clock=lambda: now[0])
        done = []
        evaluate = search._evaluate

        def timed(view, layouts, legal, evaluate=evaluate, done=done):
            now[0] += 1.0
            done.append(len(layouts))
            return evaluate(view, layouts, legal)

        search._evaluate = timed
        start = now[0]
        search.act(obs, view)
        assert len(done) == chunks and sum(done) == chunks * CHUNK
        assert budget is None or now[0] - start <= max(budget, 1.0)


def test_search_overrules_the_network_only_by_its_margin():
    search = agents.load("search?samples=2")
    assert search._choose(np.array([[0.0, 5.0], [0.0, 5.0], [0.0, 5.0]]), own=0) == 1  # better in every layout
    noisy = np.array([[0.0, 10.0], [0.0, -8.0], [0.0, 1.0]])  # +1 on average, standard error 5.2
    assert search._choose(noisy, own=0) == 0
    search.margin = 0.0
    assert search._choose(noisy, own=0) == 1
    assert search._choose(np.array([[3.0, 3.0], [1.0, 1.0]]), own=1) == 1  # a tie keeps the network's card


def test_policy_weighting_favours_the_true_layout():
    """With the network at every seat, the layout actually dealt explains the others' actions better than
    most layouts that merely agree with the view."""
    search = agents.load("search?samples=4", seed=0)
    net = search.policy
    ranks = []
    for seed in range(4):
        e = raw_env(rules="classic")
        e.reset(seed=seed)
        while len(e.game.played) < 14:
            agent = e.agent_selection
            e.step(net.act(e.observe(agent), e.view(int(agent[-1]))))
        view = e.view(e.game.current)
        true = [h for h in e.game.hands]
        pool = [true] + sample_layouts(view, view.played_mask, view.voids, 31, search.rng)
        logw = search._log_likelihood(view, pool)
        ranks.append(float(np.mean(logw[1:] < logw[0])))
    assert np.mean(ranks) > 0.75, ranks


def test_search_settings_come_from_its_spec():
    a = agents.load("search?samples=8&time=0.5&rollout=dds&weighting=uniform&min_prob=0&margin=2")
    assert (a.samples, a.time, a.rollout, a.weighting, a.min_prob, a.margin) == (8, 0.5, "dds", "uniform", 0.0, 2.0)
    for spec, words in (("search?samplez=3", "no setting 'samplez'"), ("search?samples=x", "must be an int"),
                        ("search?samples", "key=value"), ("rule?x=1", "no settings")):
        with pytest.raises(agents.AgentSpecError, match=words):
            agents.load(spec)
    for spec, words in (("search?samples=0", "samples="), ("search?rollout=mc", "rollout="),
                        ("search?time=-1", "time="), ("search?net=rule", "net="), ("search?min_prob=2", "min_prob="),
                        ("search?margin=-1", "margin=")):
        with pytest.raises(ValueError, match=words):
            agents.load(spec)
