"""The web table's API through Starlette's test client: whole hands, refusals that change nothing, isolation, secrecy."""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason='the web extra is not installed: pip install -e ".[web]"')
from starlette.testclient import TestClient  # noqa: E402

import evaluation  # noqa: E402
from playing import cli as play  # noqa: E402
from playing.records import RECORD_FORMAT  # noqa: E402
from agents import shipped  # noqa: E402
from agents.base import Agent  # noqa: E402
from playing.web import cli  # noqa: E402
from playing.web.app import create_app  # noqa: E402
from playing.web.levels import LEVEL_SPECS  # noqa: E402
from playing.web.session import ServerConfig  # noqa: E402
from playing.messages import MESSAGES  # noqa: E402
from test_web_i18n import word  # noqa: E402
from tarneeb_env import TarneebGame, make_rules  # noqa: E402
from tarneeb_env.cards import PASS, cards_of, mask_of  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ALLOWED = {"rule": "rule", "random": "random", "blocking": "tests.test_web_api:BlockingAgent"}


HINT_SAMPLES = 4  # layouts per Hint in these tests (the server's default, 64, costs about a CPU second each)


def make_config(rules="classic", deals=2, seed=11, **kw) -> ServerConfig:
    return ServerConfig(make_rules(rules), rules, kw.pop("allowed", ALLOWED), "rule", "rule", 0.0, seed, deals,
                        hint_samples=HINT_SAMPLES)


def client_for(config=None, replay_dir=None) -> TestClient:
    app = create_app(config or make_config(), replay_dir)
    return TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture
def client():
    with client_for() as c:
        yield c


def new_session(client) -> tuple[dict, dict]:
    r = client.post("/api/session")
    assert r.status_code == 200, r.text
    return {"x-session": r.json()["session"]}, r.json()["state"]


def table(client, headers):
    return client.app.state.sessions[headers["x-session"]].table


def human_move(state) -> int:
    """The lowest bid when there is one (so that hands get played), else the first legal action."""
    legal = state["legal"]
    bids = [a for a in legal if a != PASS and a < 66]
    return bids[0] if state["phase"] == "bidding" and bids else legal[0]


def step(client, headers, state) -> dict:
    if state["to_act"] == 0:
        r = client.post("/api/act", headers=headers, json={"action": human_move(state)})
    else:
        r = client.post("/api/advance", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["state"]


def play_deal(client, headers, state, each=None) -> dict:
    """Play until the current deal is over (``each(state)`` sees every state on the way)."""
    while not state["waiting"]:
        if each:
            each(state)
        state = step(client, headers, state)
    return state


def play_a_played_hand(client, headers, state) -> dict:
    """Deal after deal until one is played (not thrown in)."""
    state = play_deal(client, headers, state)
    while state["result"]["thrown_in"]:
        state = play_deal(client, headers, client.post("/api/next", headers=headers).json()["state"])
    return state


def engine_replay(record) -> tuple[int, int]:
    """The score change the engine gives the deal and the moves of a record, computed afresh."""
    game = TarneebGame(make_rules(record["rules"]), np.random.default_rng(0))
    game.new_game(record["dealer"], [s - d for s, d in zip(record["scores"], record["score_delta"])])
    game.start_deal(record["deal"], record["exposed_card"])
    result = None
    for _, action in record["auction"] + record["plays"]:
        result = game.apply(action)
    return result.score_delta


# ------------------------------------------------------------------ whole hands
def test_a_whole_hand_through_the_api_scores_as_the_engine(client):
    headers, state = new_session(client)
    state = play_a_played_hand(client, headers, state)
    entries = client.get("/api/replay/deals?source=game", headers=headers).json()["entries"]
    record = client.get(f"/api/replay/open?source=game&index={len(entries) - 1}", headers=headers).json()["record"]
    assert len(record["plays"]) == 52
    assert tuple(state["result"]["score_delta"]) == engine_replay(record)
    assert state["scores"] == state["result"]["scores"] == table(client, headers).game.scores
    assert state["tricks_won"] == record["tricks_won"] and sum(state["tricks_won"]) == 13


@pytest.mark.parametrize("preset", ["syrian41", "hearts41", "trump_by_card"])
def test_a_hand_of_every_other_preset_scores_as_the_engine(preset):
    with client_for(make_config(rules=preset)) as c:
        headers, state = new_session(c)
        if preset == "trump_by_card":
            assert state["phase"] == "play" and state["exposed_card"] is not None and state["trump"] is not None
        state = play_a_played_hand(c, headers, state)
        n = len(c.get("/api/replay/deals?source=game", headers=headers).json()["entries"])
        record = c.get(f"/api/replay/open?source=game&index={n - 1}", headers=headers).json()["record"]
        assert tuple(state["result"]["score_delta"]) == engine_replay(record)
        assert state["seat_scores"] == table(c, headers).game.seat_scores


def test_a_game_runs_to_the_target_and_then_offers_only_a_new_one():
    with client_for(make_config(rules="classic")) as c:
        headers, state = new_session(c)
        while not state["game_over"]:
            state = play_deal(c, headers, state)
            if not state["game_over"]:
                state = c.post("/api/next", headers=headers).json()["state"]
        game = table(c, headers).game
        assert max(state["scores"]) >= 31 and state["winner"] == game.winner
        records = table(c, headers).records
        assert len(state["sheet"]) == len(records) >= 2  # the score sheet: every hand, totals running to the end
        for row, rec in zip(state["sheet"], records):
            assert [row["delta"], row["scores"], row["tricks"]] == [rec.score_delta, rec.scores, rec.tricks_won]
        assert state["sheet"][-1]["scores"] == state["scores"]
        assert c.post("/api/next", headers=headers).status_code == 409
        fresh = c.post("/api/new", headers=headers, json={}).json()["state"]
        assert fresh["scores"] == [0, 0] and not fresh["waiting"] and fresh["deal_number"] == 1


# ------------------------------------------------------------------ refusals
def bad_requests(state):
    """(method, path, body) requests that must be refused in ``state`` (the person on turn, bidding)."""
    not_held = next(c for c in range(52) if c not in state["hand"])
    illegal_bid = 53  # bid 1: below classic's minimum of 7
    return [
        ("post", "/api/act", {"action": "7"}),
        ("post", "/api/act", {"action": 60.0}),
        ("post", "/api/act", {"action": True}),
        ("post", "/api/act", {"action": None}),
        ("post", "/api/act", {"action": -1}),
        ("post", "/api/act", {"action": 70}),
        ("post", "/api/act", {"action": 10**30}),
        ("post", "/api/act", {"action": illegal_bid}),
        ("post", "/api/act", {"action": not_held}),
        ("post", "/api/act", {"action": state["hand"][0]}),  # a held card, but this is the auction
        ("post", "/api/act", {}),
        ("post", "/api/act", "not json{"),
        ("post", "/api/act", [1, 2]),
        ("post", "/api/advance", None),  # the computer may not move for the person
        ("post", "/api/next", None),  # the deal is not over
        ("post", "/api/new", {"partner": "nobody"}),
        ("post", "/api/new", {"opponents": ["rule"]}),
        ("get", "/api/replay/open?source=game&index=x", None),
        ("get", "/api/replay/open?source=game&index=0", None),
        ("get", "/api/replay/deals?source=elsewhere", None),
    ]


def send(client, headers, method, path, body):
    if method == "get":
        return client.get(path, headers=headers)
    if isinstance(body, str):
        return client.post(path, headers={**headers, "content-type": "application/json"}, content=body)
    return client.post(path, headers=headers, **({} if body is None else {"json": body}))


def test_illegal_malformed_and_out_of_turn_requests_get_4xx_json_and_change_nothing(client):
    headers, state = new_session(client)
    while state["to_act"] != 0:
        state = step(client, headers, state)
    assert state["phase"] == "bidding"
    for method, path, body in bad_requests(state):
        r = send(client, headers, method, path, body)
        assert 400 <= r.status_code < 500, (path, body, r.status_code)
        assert isinstance(r.json()["error"], str) and r.json()["error"], (path, body)
        assert r.json()["key"] in MESSAGES and isinstance(r.json()["params"], dict), (path, body)  # worded by the page
        assert client.get("/api/state", headers=headers).json()["state"] == state, (path, body)
    # the person's move, then the computer's turn: the person may not act
    state = step(client, headers, state)
    while state["to_act"] == 0:
        state = step(client, headers, state)
    for body in ({"action": a} for a in range(70)):
        r = client.post("/api/act", headers=headers, json=body)
        assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert client.get("/api/hint", headers=headers).status_code == 409
    assert client.get("/api/state", headers=headers).json()["state"] == state


def test_an_unknown_session_and_a_foreign_host_are_refused(client):
    r = client.get("/api/state", headers={"x-session": "guess"})
    assert r.status_code == 404 and "reload" in r.json()["error"]
    assert client.get("/api/state").status_code == 404
    assert client.get("/api/config", headers={"host": "evil.example"}).status_code == 400


def test_two_sessions_are_isolated(client):
    a, state_a = new_session(client)
    b, state_b = new_session(client)
    assert a != b
    assert table(client, a) is not table(client, b)
    for _ in range(30):
        state_a = step(client, a, state_a)
    assert client.get("/api/state", headers=b).json()["state"] == state_b
    if state_b["to_act"] != 0:  # b's computer seats move in b only
        client.post("/api/advance", headers=b)
    assert client.get("/api/state", headers=a).json()["state"] == state_a


def test_hidden_cards_are_never_in_a_response(client):
    """Each state must be the same whatever the other seats hold: shuffle their unplayed cards and compare."""
    headers, state = new_session(client)
    rng = np.random.default_rng(5)
    game = table(client, headers).game
    checks = 0

    def same_whatever_the_others_hold(state):
        nonlocal checks
        saved = list(game.hands)
        hidden = [c for s in (1, 2, 3) for c in cards_of(game.hands[s])]
        rng.shuffle(hidden)
        k = 0
        for s in (1, 2, 3):
            n = len(cards_of(saved[s]))
            game.hands[s] = mask_of(hidden[k:k + n])
            k += n
        try:
            assert client.get("/api/state", headers=headers).json()["state"] == state
            if state["to_act"] == 0 and checks < 40:  # the Hint's numbers, too, whatever the others hold
                hint = client.get("/api/hint", headers=headers).json()
                assert hint["action"] in state["legal"]
                game.hands[:] = saved
                assert client.get("/api/hint", headers=headers).json() == hint
        finally:
            game.hands[:] = saved
        checks += 1
        shown = set(state["hand"]) | {c for _, c in state["trick"]} | {state["exposed_card"]}
        assert shown - {None} <= set(cards_of(saved[0])) | {c for _, c in game.played} | {game.exposed_card}

    play_deal(client, headers, state, each=same_whatever_the_others_hold)
    assert checks > 20


# ------------------------------------------------------------------ agents
class BlockingAgent(Agent):
    """Holds its decision until the test lets it go: shows that the server keeps answering meanwhile."""

    entered = threading.Event()
    release = threading.Event()

    def act(self, observation, view):
        BlockingAgent.entered.set()
        assert BlockingAgent.release.wait(20)
        return view.legal_actions[0]


@contextlib.contextmanager
def agent_deciding(c):
    """A session whose computer seat (``BlockingAgent``) is in the middle of a decision: yields its headers while
    the agent waits, then lets it finish."""
    agent = importlib.import_module("tests.test_web_api").BlockingAgent  # the class the server loads, by its spec
    headers, state = new_session(c)
    state = c.post("/api/new", headers=headers, json={"opponents": "blocking", "partner": "blocking"}).json()["state"]
    while state["to_act"] == 0:
        state = step(c, headers, state)
    agent.entered.clear()
    agent.release.clear()
    moving = threading.Thread(target=lambda: c.post("/api/advance", headers=headers))
    moving.start()
    try:
        assert agent.entered.wait(20)
        yield headers
    finally:
        agent.release.set()
        moving.join(20)


def test_a_slow_agent_decides_off_the_event_loop():
    with client_for() as c, agent_deciding(c):
        answered = []
        other = threading.Thread(target=lambda: answered.append(c.get("/api/config").status_code))
        other.start()
        other.join(10)
        assert answered == [200], "the server stopped answering while an agent was deciding"


class IllegalAgent(Agent):
    def act(self, observation, view):
        return 69 if 69 not in view.legal_actions else 0


def test_the_shipped_agent_plays_at_the_web_table_and_a_failing_agent_gets_a_json_error():
    allowed = {"default": str(shipped.SHIPPED_DIR / "default.pt"), "illegal": "tests.test_web_api:IllegalAgent"}
    config = ServerConfig(make_rules("classic"), "classic", allowed, "default", "default", 0.0, 4, 1)
    with client_for(config) as c:
        headers, state = new_session(c)
        state = play_a_played_hand(c, headers, state)
        assert state["scores"] == table(c, headers).game.scores
    with TestClient(create_app(config), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        headers, _ = new_session(c)
        state = c.post("/api/new", headers=headers, json={"opponents": "illegal"}).json()["state"]
        while state["to_act"] not in (1, 3):
            state = step(c, headers, state)
        r = c.post("/api/advance", headers=headers)
        assert r.status_code == 500 and "illegal action" in r.json()["error"]
        assert c.get("/api/state", headers=headers).json()["state"] == state


def test_agents_come_only_from_the_list_fixed_at_start(client, tmp_path):
    marker = tmp_path / "imported"
    evil = tmp_path / "evil.py"
    evil.write_text(f"open({str(marker)!r}, 'w').close()\nclass X:\n    def act(self, o, v): return 0\n")
    headers, state = new_session(client)
    for spec in (f"{evil}:X", "tests.test_web_api:BlockingAgent", "expert"):
        for role in ("partner", "opponents"):
            r = client.post("/api/new", headers=headers, json={role: spec})
            assert r.status_code == 400 and "not one of the players" in r.json()["error"]
    assert not marker.exists()
    assert client.get("/api/state", headers=headers).json()["state"] == state


def test_hint_gives_the_strong_players_choice_and_its_numbers(client):
    headers, state = new_session(client)
    while state["to_act"] != 0:
        state = step(client, headers, state)
    hint = client.get("/api/hint", headers=headers).json()
    assert hint["action"] in state["legal"] and hint["name"] and hint["by"] == "network"
    advice = hint["advice"]
    assert advice["action"] == hint["action"]
    assert sorted(c["action"] for c in advice["candidates"]) == sorted(state["legal"])  # every legal move, priced
    assert abs(sum(c["prob"] for c in advice["candidates"]) - 1) < 1e-3
    assert advice["samples"] == HINT_SAMPLES and "voids" in advice["facts"]
    assert client.get("/api/hint", headers=headers).json() == hint  # seeded: the same position, the same numbers


def test_under_rules_no_network_is_trained_for_the_hint_is_rules_and_the_levels_above_club_are_not_offered(
        unshipped_rules):
    rules = make_rules(unshipped_rules)
    config = ServerConfig(rules, "unshipped.yaml", dict(LEVEL_SPECS), "club", "club", 0.0, 5, 1)
    with client_for(config) as c:
        assert c.get("/api/config").json()["offered"] == {"unshipped.yaml": ["beginner", "casual", "club"]}
        headers, state = new_session(c)
        r = c.post("/api/new", headers=headers, json={"partner": "strong"})
        assert r.status_code == 400 and "not one of the players" in r.json()["error"]
        while state["to_act"] != 0:
            state = step(c, headers, state)
        hint = c.get("/api/hint", headers=headers).json()
        assert hint["by"] == "rule" and hint["reason"] and hint["action"] in state["legal"]
        assert MESSAGES[hint["reason_key"]] == hint["reason"]  # the page words it in the player's language


def test_a_game_starts_under_the_rules_and_target_the_page_chooses_and_nothing_else():
    config = ServerConfig(make_rules("classic"), "classic", {"club": "rule", "strong": "ppo"}, "club", "club",
                          0.0, 3, 1, presets=("classic", "syrian41", "trump_by_card"))
    with client_for(config) as c:
        cfg = c.get("/api/config").json()
        assert [r["label"] for r in cfg["rule_choices"]] == ["classic", "syrian41", "trump_by_card"]
        assert [r["target"] for r in cfg["rule_choices"]] == [31, 41, 31]
        assert cfg["offered"]["syrian41"] == ["club", "strong"] and cfg["levels"][0] == "beginner"
        headers, state = new_session(c)
        for body, words in (({"rules": "hearts41"}, "not one of the rules"), ({"rules": "/etc/passwd"}, "not one of"),
                            ({"rules": "syrian41", "target": 0}, "target"), ({"target": "41"}, "target"),
                            ({"target": True}, "target"), ({"rules": ["classic"]}, "not one of the rules")):
            r = c.post("/api/new", headers=headers, json=body)
            assert r.status_code == 400 and words in r.json()["error"], body
        assert c.get("/api/state", headers=headers).json()["state"] == state  # a refused game changes nothing
        state = c.post("/api/new", headers=headers, json={"rules": "syrian41", "target": 51,
                                                           "partner": "strong"}).json()["state"]
        assert state["rules"]["label"] == "syrian41" and state["rules"]["target"] == 51
        assert state["rules"]["auction"] == "individual" and state["agents"]["partner"] == "strong"
        session = c.app.state.sessions[headers["x-session"]]
        assert session.table.game.rules == dataclasses.replace(make_rules("syrian41"), target_score=51)
        assert session.table.seating.agents[1].rules == make_rules("syrian41")  # seat 2: the syrian41 network
        state = c.post("/api/new", headers=headers, json={}).json()["state"]  # the next game keeps them
        assert state["rules"]["label"] == "syrian41" and state["rules"]["target"] == 41
        state = c.post("/api/duplicate", headers=headers, json={}).json()["state"]
        assert state["rules"]["label"] == "syrian41"


# ------------------------------------------------------------------ duplicate challenge
def test_the_duplicate_challenge_compares_the_person_with_the_computer_on_the_same_deals():
    with client_for(make_config(deals=2)) as c:
        headers, _ = new_session(c)
        state = c.post("/api/duplicate", headers=headers, json={}).json()["state"]
        for k in range(2):
            assert state["duplicate"]["deal"] == k + 1 and len(state["duplicate"]["results"]) == k
            assert state["duplicate"]["seed"] is None  # told only when the set is played
            state = play_deal(c, headers, state)
            assert not state["result"]["thrown_in"]  # the person always bids, so every deal is played
            if k == 0:
                assert c.post("/api/hint", headers=headers).status_code == 405
                state = c.post("/api/next", headers=headers).json()["state"]
        dup = state["duplicate"]
        assert dup["done"] and len(dup["results"]) == 2
        assert c.post("/api/next", headers=headers).status_code == 409
        assert len(c.get("/api/replay/deals?source=game", headers=headers).json()["entries"]) == 4
        for k, result in enumerate(dup["results"]):
            d = evaluation.duplicate_deal(dup["seed"], k)  # the deal set is evaluate.py's, of the seed told at the end
            mine, computer = (c.get(f"/api/replay/open?source=game&index={2 * k + j}", headers=headers).json()["record"]
                              for j in (0, 1))
            assert mine["deal"] == [list(h) for h in d.hands] and mine["dealer"] == computer["dealer"] == d.dealer
            computer_first = c.app.state.sessions[headers["x-session"]].duplicate["pairs"][k][1][0]
            assert computer_first["deal"] == mine["deal"]  # a throw-in there is redealt, as in evaluate.py
            net = [r["score_delta"][0] - r["score_delta"][1] for r in (mine, computer)]
            assert (result["you_net"], result["computer_net"]) == tuple(net)  # throw-ins score 0
            assert result["margin"] == net[0] - net[1]
        assert dup["total"] == sum(r["margin"] for r in dup["results"])


def challenge_hands(c, headers) -> list:
    """The person's hand at the first decision of the challenge's first deal (what the page sees of the deal)."""
    state = c.post("/api/duplicate", headers=headers, json={}).json()["state"]
    return state["hand"]


def test_each_challenge_draws_its_own_deals_and_a_record_is_served_only_once_played():
    with client_for(make_config(deals=1)) as c:
        a, _ = new_session(c)
        b, _ = new_session(c)
        hand_a = challenge_hands(c, a)
        assert challenge_hands(c, b) != hand_a  # another tab: other deals
        assert challenge_hands(c, a) != hand_a  # a new challenge: other deals
        b_state = play_deal(c, b, c.get("/api/state", headers=b).json()["state"])
        assert b_state["duplicate"]["done"] and b_state["duplicate"]["seed"] is not None
        assert c.get("/api/replay/deals?source=game", headers=a).json()["entries"] == []
        assert c.get("/api/replay/open?source=game&index=0", headers=a).status_code == 404


def test_a_named_challenge_deals_the_same_set_to_everyone_and_serves_no_record_before_it_is_played():
    config = dataclasses.replace(make_config(deals=1), challenge_seed=77)
    with client_for(config) as c:
        a, _ = new_session(c)
        b, _ = new_session(c)
        deal = evaluation.duplicate_deal(77, 0)
        for headers in (a, b):
            state = c.post("/api/duplicate", headers=headers, json={}).json()["state"]
            assert state["duplicate"]["named"] and state["duplicate"]["seed"] == 77
            assert set(state["hand"]) == set(deal.hands[0])
        play_deal(c, a, c.get("/api/state", headers=a).json()["state"])
        assert len(c.get("/api/replay/deals?source=game", headers=a).json()["entries"]) == 2
        assert c.get("/api/replay/deals?source=game", headers=b).json()["entries"] == []
        assert c.get("/api/replay/open?source=game&index=0", headers=b).status_code == 404


def test_the_review_puts_each_of_your_decisions_beside_the_hints_and_plays_both_out(client):
    from playing.web.review import review

    headers, state = new_session(client)
    state = play_a_played_hand(client, headers, state)
    n = len(client.get("/api/replay/deals?source=game", headers=headers).json()["entries"])
    record = client.get(f"/api/replay/open?source=game&index={n - 1}", headers=headers).json()["record"]
    decisions = client.get(f"/api/review?index={n - 1}", headers=headers).json()["decisions"]
    mine = [(0, a) for s, a in record["auction"] + record["plays"] if s == 0]
    assert [(0, d["yours"]) for d in decisions] == mine  # every decision of yours, in order
    for d in decisions:
        assert d["hint_name"] and (d["change"] is None) == (d["hint"] == d["yours"])
    assert review(record) == decisions  # the same on every review: the strong player is greedy and seeded
    assert client.get("/api/review?index=99", headers=headers).status_code == 404


# ------------------------------------------------------------------ replays
def a_record(client) -> dict:
    headers, state = new_session(client)
    play_a_played_hand(client, headers, state)
    n = len(client.get("/api/replay/deals?source=game", headers=headers).json()["entries"])
    return client.get(f"/api/replay/open?source=game&index={n - 1}", headers=headers).json()["record"]


def tampered(record: dict) -> list[tuple[str, dict]]:
    swap = json.loads(json.dumps(record))
    swap["plays"][0], swap["plays"][1] = swap["plays"][1], swap["plays"][0]
    score = json.loads(json.dumps(record))
    score["score_delta"][0] += 1
    score["scores"][0] += 1
    short = json.loads(json.dumps(record))
    short["plays"] = short["plays"][:-1]
    card = json.loads(json.dumps(record))
    card["deal"][0][0] = card["deal"][1][0]
    missing = {k: v for k, v in record.items() if k != "deal"}
    return [("out of turn", swap), ("wrong score", score), ("unfinished", short), ("bad deal", card),
            ("missing field", missing)]


def upload(client, headers, name, text):
    return client.post("/api/replay/upload", headers=headers, json={"name": name, "text": text})


def test_uploaded_records_that_do_not_replay_are_refused_with_a_message(client):
    record = a_record(client)
    headers, _ = new_session(client)
    r = upload(client, headers, "good.json", json.dumps(record))
    assert r.status_code == 200 and r.json()["source"] == "upload:good.json"
    opened = client.get("/api/replay/open?source=upload:good.json&index=0", headers=headers)
    assert opened.status_code == 200 and opened.json()["record"] == record
    for why, bad in tampered(record):
        upload(client, headers, "bad.json", json.dumps(bad))
        r = client.get("/api/replay/open?source=upload:bad.json&index=0", headers=headers)
        assert r.status_code == 422 and r.json()["error"].startswith("refused:"), why
    for text in ("not json at all", "", "{\"a\": 1}\n{oops"):
        r = upload(client, headers, "x.jsonl", text)
        assert r.status_code == 422 and r.json()["error"].startswith("refused:")
    assert upload(client, headers, "x.json", None).status_code == 400


def test_a_refused_record_names_its_reason_by_key_for_the_page_to_word(client):
    """The English stays for API users; the key and parameters let a Spanish page say why in Spanish."""
    record = dict(a_record(client), dealer=7)
    headers, _ = new_session(client)
    listed = upload(client, headers, "bad.json", json.dumps(record)).json()["entries"][0]
    why = {"key": "rec.bad_dealer", "params": {"got": "7"}}
    assert listed["refused"] == "refused: dealer: expected a seat 0-3, got 7"
    assert listed["why"] == {"key": "srv.refused", "params": {"why": why}}
    r = client.get("/api/replay/open?source=upload:bad.json&index=0", headers=headers)
    assert r.status_code == 422 and r.json() == {"error": listed["refused"], **listed["why"]}
    assert word(r.json(), "es") == "Rechazado: el repartidor debe ser un asiento del 0 al 3, no 7."
    assert word(r.json(), "de") == "Abgelehnt: der Geber muss ein Platz 0-3 sein, nicht 7."
    r = upload(client, headers, "notes.txt", "not json at all")
    assert r.status_code == 422 and r.json()["params"]["why"]["key"] == "rec.line_not_json"
    assert word(r.json(), "pt") == ("Recusado: notes.txt: a linha 1 não é JSON; esperava-se uma mão salva ou um "
                                    "registro por linha.")


def test_terminal_saves_and_evaluate_jsonl_from_the_replay_dir(tmp_path):
    rules = make_rules("classic")
    match = evaluation.duplicate_match("rule", "random", deals=2, seed=3, rules=rules, records=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "hands.jsonl").write_text("".join(json.dumps(r) + "\n" for r in match.records))
    players = ["You (me)", "Right (rule)", "Partner (rule)", "Left (rule)"]
    save = {"format": RECORD_FORMAT, "version": 1, "deal_number": 4, "seed": 1, "players": players,
            "record": match.records[0]}
    (tmp_path / "saved.json").write_text(json.dumps(save))
    (tmp_path / "notes.txt").write_text("not offered")
    with client_for(replay_dir=str(tmp_path)) as c:
        headers, _ = new_session(c)
        assert c.get("/api/replay/files", headers=headers).json()["files"] == ["saved.json", "sub/hands.jsonl"]
        listing = c.get("/api/replay/deals?source=dir:sub/hands.jsonl", headers=headers).json()["entries"]
        assert len(listing) == len(match.records) >= 4
        assert listing[0]["title"] == "deal 0 · table 0" and listing[0]["contract"]
        for e in listing:
            r = c.get(f"/api/replay/open?source=dir:sub/hands.jsonl&index={e['index']}", headers=headers)
            assert r.status_code == 200
            assert r.json()["players"][0].startswith("You (")
        opened = c.get("/api/replay/open?source=dir:saved.json&index=0", headers=headers).json()
        assert opened["players"] == players and opened["meta"]["deal_number"] == 4


def test_paths_outside_the_replay_dir_are_refused(tmp_path):
    inside = tmp_path / "replays"
    inside.mkdir()
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    (inside / "link.json").symlink_to(secret)
    with client_for(replay_dir=str(inside)) as c:
        headers, _ = new_session(c)
        assert c.get("/api/replay/files", headers=headers).json()["files"] == []
        for name in ("../secret.json", str(secret), "link.json", "..%2Fsecret.json", "/etc/passwd", "", "a%00b.json"):
            r = c.get(f"/api/replay/deals?source=dir:{name}", headers=headers)
            assert r.status_code == 404 and "not a record file" in r.json()["error"], name
    with client_for() as c:
        headers, _ = new_session(c)
        r = c.get("/api/replay/deals?source=dir:x.json", headers=headers)
        assert r.status_code == 404 and "--replay-dir" in r.json()["error"]


# ------------------------------------------------------------------ the command line
def test_default_agents_are_the_shipped_one_for_the_rules_and_rule_otherwise(unshipped_rules, capsys):
    assert cli.default_spec(make_rules("classic"), "classic") == str(shipped.SHIPPED_DIR / "classic.pt")
    for preset in ("syrian41", "hearts41", "trump_by_card"):
        assert cli.default_spec(make_rules(preset), preset) == str(shipped.SHIPPED_DIR / f"{preset}.pt")
    assert capsys.readouterr().out == ""
    assert cli.default_spec(make_rules(unshipped_rules), "unshipped.yaml") == "rule"
    assert capsys.readouterr().out == "No shipped agent is trained for rules unshipped.yaml; playing 'rule' instead.\n"


@pytest.mark.parametrize("args, message", [
    (["--port", "70000"], "--port"),
    (["--delay", "-1"], "--delay"),
    (["--challenge-seed", "-1"], "--challenge-seed"),
    (["--rules", "nonsense"], "unknown rules preset"),
    (["--replay-dir", "/no/such/dir"], "--replay-dir"),
    (["--partner", "nosuch.pt"], "no such checkpoint"),
    (["--save-dir", "x"], "unrecognized arguments"),
])
def test_bad_command_line_says_what_is_wrong(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        play.main(["--web", *args])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_a_busy_port_is_said_in_one_line(capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        with pytest.raises(SystemExit) as e:
            play.main(["--web", "--port", str(taken.getsockname()[1])])
    assert e.value.code == 2
    assert "cannot listen on 127.0.0.1:" in capsys.readouterr().err


def test_play_py_help_lists_the_web_tables_options(capsys):
    with pytest.raises(SystemExit):
        play.main(["--help"])
    text = capsys.readouterr().out
    for option in ("--web", "--port PORT", "--host HOST", "--replay-dir DIR", "--challenge-seed N", "--agents"):
        assert option in text


def test_play_py_web_serves_on_127_0_0_1_and_prints_the_address(unshipped_rules):
    import httpx

    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "play.py", "--web", "--port", "0", "--rules", unshipped_rules, "--seed", "1"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        note = proc.stdout.readline()
        assert note.strip() == "No shipped agent is trained for rules unshipped.yaml; playing 'rule' instead."
        first = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", first)
        assert url, first
        second = proc.stdout.readline()
        assert "partner club · opponents club" in second
        assert proc.stdout.readline().strip() == "players the page may choose: beginner, casual, club"
        r = httpx.get(url.group(0) + "api/config", timeout=10)
        assert r.json()["rules"] == "unshipped.yaml" and r.json()["target"] == 31
        assert "default-src 'self'" in httpx.get(url.group(0), timeout=10).headers["content-security-policy"]
    finally:
        proc.terminate()
        proc.wait(10)


# ------------------------------------------------------------------ bounds on what a request may cost
def responsive(client) -> None:
    """The server still answers ``GET /`` within a second."""
    start = time.perf_counter()
    assert client.get("/").status_code == 200
    assert time.perf_counter() - start < 1.0


def test_a_chunked_body_over_the_limit_is_refused_while_it_streams(client):
    """No Content-Length: the server must stop reading at 32 MiB, not read the whole body first."""
    chunk, sent, messages = b" " * 2**20, [], []

    async def receive():
        sent.append(1)
        return {"type": "http.request", "body": chunk, "more_body": len(sent) < 300}

    async def send(message):
        messages.append(message)

    headers, _ = new_session(client)
    scope = {"type": "http", "method": "POST", "path": "/api/act", "raw_path": b"/api/act", "query_string": b"",
             "headers": [(b"host", b"127.0.0.1"), (b"x-session", headers["x-session"].encode()),
                         (b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")],
             "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "http_version": "1.1"}
    client.portal.call(client.app, scope, receive, send)
    assert messages[0]["status"] == 413 and b"32 MiB" in messages[1]["body"]
    assert len(sent) <= 33, f"read {len(sent)} MiB of a body that is over 32 MiB"
    responsive(client)


@pytest.mark.parametrize("text, words", [
    ('{"action": 1' + "0" * 5000 + "}", "too many digits"),
    ('{"action": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
])
def test_json_python_cannot_build_is_a_400_with_a_message(client, text, words):
    headers, state = new_session(client)
    for path in ("/api/act", "/api/new", "/api/session"):
        r = client.post(path, headers={**headers, "content-type": "application/json"}, content=text)
        assert r.status_code == 400 and words in r.json()["error"], (path, r.text[:200])
    r = upload(client, headers, "x.json", text)
    assert r.status_code == 422 and words in r.json()["error"]
    assert client.get("/api/state", headers=headers).json()["state"] == state
    responsive(client)


def test_uploads_are_capped_per_file_and_for_the_whole_server(client):
    from playing.web.records import MAX_RECORDS

    record = a_record(client)
    a, _ = new_session(client)
    line = json.dumps(record) + "\n"
    r = upload(client, a, "big.jsonl", line * (MAX_RECORDS + 1))
    assert r.status_code == 422 and f"more than {MAX_RECORDS} records" in r.json()["error"]
    budget = client.app.state.uploads
    budget.limit = 3 * len(line)
    assert upload(client, a, "two.jsonl", line * 2).status_code == 200
    b, _ = new_session(client)
    r = upload(client, b, "two.jsonl", line * 2)
    assert r.status_code == 503 and "opened files" in r.json()["error"]
    assert upload(client, b, "one.jsonl", line).status_code == 200 and budget.held == 3 * len(line)
    assert upload(client, a, "two.jsonl", line).status_code == 200  # replaced: its bytes are given back
    assert budget.held == 2 * len(line)
    clock = client.app.state.sessions.clock
    client.app.state.sessions.clock = lambda: clock() + 3600
    client.get("/api/state", headers=a)  # both sessions expire: their uploads are let go
    assert budget.held == 0
    responsive(client)


def test_idle_sessions_expire_and_the_page_is_told_why(client):
    registry = client.app.state.sessions
    now = [0.0]
    registry.clock = lambda: now[0]
    a, _ = new_session(client)
    now[0] += 29 * 60
    assert client.get("/api/state", headers=a).status_code == 200  # touched: its 30 minutes start again
    now[0] += 29 * 60
    assert client.get("/api/state", headers=a).status_code == 200
    now[0] += 31 * 60
    r = client.get("/api/state", headers=a)
    assert r.status_code == 410 and "30 minutes" in r.json()["error"] and "reload" in r.json()["error"]
    assert len(registry) == 0
    responsive(client)


def test_a_full_server_never_drops_a_recent_game_and_refuses_with_a_503(client):
    registry = client.app.state.sessions
    registry.max_sessions = 3
    now = [0.0]
    registry.clock = lambda: now[0]
    first, second, third = (new_session(client)[0] for _ in range(3))
    now[0] += 60
    r = client.post("/api/session")
    assert r.status_code == 503 and "the table is full" in r.json()["error"] and "minutes" in r.json()["error"]
    assert len(registry) == 3
    now[0] += 5 * 60
    client.get("/api/state", headers=first)  # the first is played on; the second is now the longest idle
    newcomer, _ = new_session(client)
    r = client.get("/api/state", headers=second)
    assert r.status_code == 410 and "make room" in r.json()["error"]
    for headers in (first, third, newcomer):
        assert client.get("/api/state", headers=headers).status_code == 200
    responsive(client)


def test_one_decision_in_flight_per_session_the_rest_answered_at_once():
    with client_for() as c:
        with agent_deciding(c) as headers:
            answers = []

            def flood():
                start = time.perf_counter()
                r = c.post("/api/advance", headers=headers)
                answers.append((r.status_code, r.json()["error"], time.perf_counter() - start))

            flooding = [threading.Thread(target=flood) for _ in range(60)]
            for t in flooding:
                t.start()
            for t in flooding:
                t.join(20)
            assert len(answers) == 60 and {(s, e) for s, e, _ in answers} == {(409, MESSAGES["srv.busy"])}
            assert max(t for _, _, t in answers) < 2.0
            responsive(c)
            other, _ = new_session(c)
            assert c.get("/api/state", headers=other).status_code == 200
        assert c.get("/api/state", headers=headers).status_code == 200  # the lock was let go
