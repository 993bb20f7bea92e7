"""The advisor API (tarneeb-serve): positions in, the in-process agent's advice out, every refusal a 4xx."""
from __future__ import annotations

import json
import threading

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

import agents  # noqa: E402
from agents import SearchAgent  # noqa: E402
from playing.advisor import server  # noqa: E402
from playing.advisor.position import build_view  # noqa: E402
from playing.records import validate_record  # noqa: E402
from tarneeb_env import TarneebGame, make_rules  # noqa: E402
from tarneeb_env.cards import BID_BASE, PASS, TRUMP_BASE, card_str  # noqa: E402
from tarneeb_env.observation import ObservationWriter  # noqa: E402
from tarneeb_env.view import make_view  # noqa: E402

PRESETS = ["classic", "syrian41", "hearts41", "trump_by_card"]


@pytest.fixture(scope="module")
def client():
    return TestClient(server.create_app(), base_url="http://127.0.0.1")


def recorded_hand(rules: str, seed: int, tmp_path) -> dict:
    """A deal the shipped network plays at all four seats, saved as a hand record and read back (checked)."""
    rules = make_rules(rules)
    net = agents.load("ppo", rules=rules)
    game = TarneebGame(rules, np.random.default_rng(seed), writer=ObservationWriter())
    game.new_game(seed % 4, (5, 9) if rules.auction != "individual" else (0, 0))
    game.start_deal()
    result = None
    while result is None:
        view = make_view(game, game.current)
        result = game.apply(net.act(_obs(game), view))
    path = tmp_path / f"{rules.name}-{seed}.json"
    path.write_text(json.dumps(result.record.to_dict()))
    return validate_record(json.loads(path.read_text()))


def _obs(game) -> dict:
    mask = np.zeros(70, dtype=np.int8)
    mask[game.legal_actions()] = 1
    return {"observation": game.writer.buf[game.current].copy(), "action_mask": mask}


def positions(record: dict, seat: int):
    """Replays ``record``; for each decision of ``seat``: (the position a client sends, the engine's observation
    and view). The position is written from the record alone, as a program at the table would keep it."""
    rules = make_rules(record["rules"])
    game = TarneebGame(rules, np.random.default_rng(0), writer=ObservationWriter())
    before = [s - d for s, d in zip(record["scores"], record["score_delta"])]
    seat_before = [s - d for s, d in zip(record["seat_scores"], record["seat_score_delta"])]
    game.new_game(record["dealer"], before, seat_before)
    game.start_deal(record["deal"], record["exposed_card"])
    moves = [a for _, a in record["auction"]] + [c for _, c in record["plays"]]
    for k, action in enumerate(moves):
        if game.current == seat:
            done = moves[:k]
            calls = [a for a in done if a >= 52 and a < TRUMP_BASE]
            plays = [c for c in done if c < 52]
            position = {
                "rules": rules.name, "seat": seat, "dealer": record["dealer"],
                "hand": [card_str(c, False) for c in record["deal"][seat] if c not in plays],
                "auction": ["pass" if a == PASS else a - BID_BASE for a in calls],
                "tricks": [[card_str(c, False) for c in plays[t : t + 4]] for t in range(0, len(plays), 4)],
                "scores": before, "seat_scores": seat_before,
            }
            if any(a >= TRUMP_BASE for a in done):
                position["trump"] = "CDHS"[record["trump"]]
            if record["exposed_card"] is not None:
                position["exposed_card"] = card_str(record["exposed_card"], False)
            yield position, _obs(game), make_view(game, seat)
        game.apply(action)


@pytest.mark.parametrize("rules", PRESETS)
def test_answers_equal_the_in_process_agent_on_recorded_hands(client, rules, tmp_path):
    net = agents.load("ppo", rules=rules)
    checked = 0
    for seed in (1, 2):
        record = recorded_hand(rules, seed, tmp_path)
        seat = seed % 4
        for position, obs, view in positions(record, seat):
            assert build_view(position) == view  # the client's position is the seat's exact view
            r = client.post("/v1/advice", json=position)
            assert r.status_code == 200, r.json()
            answer = r.json()
            assert answer["action"] == net.act(obs, view)
            assert answer["phase"] == view.phase and answer["seat"] == seat and answer["rules"] == rules
            assert sorted(c["action"] for c in answer["candidates"]) == sorted(view.legal_actions)
            checked += 1
    assert checked >= 14  # a whole deal at least (a deal thrown in has one call of this seat)


def test_search_answers_equal_the_search_agent_on_a_recorded_hand(client, tmp_path):
    record = recorded_hand("classic", 3, tmp_path)
    checked = 0
    for k, (position, obs, view) in enumerate(positions(record, 2)):
        if view.phase != "play" or len(view.legal_actions) < 2 or checked >= 4:
            continue
        answer = client.post("/v1/advice", json={**position, "samples": 4, "seed": k}).json()
        assert answer["action"] == SearchAgent(seed=k, rules="classic", samples=4).act(obs, view)
        assert any(c["mean_points"] is not None for c in answer["candidates"])
        checked += 1
    assert checked == 4


def test_the_openapi_document_describes_the_advice(client):
    doc = client.get("/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    post = doc["paths"]["/v1/advice"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"] == "#/components/schemas/AdviceRequest"
    assert {"200", "400", "413", "422", "429"} <= {str(k) for k in post["responses"]}
    schemas = doc["components"]["schemas"]
    assert set(schemas["AdviceRequest"]["properties"]) == set(server.KEYS) | set(server.OPTION_KEYS)
    assert client.get("/").json()["openapi"] == "/openapi.json"


CLASSIC = {"rules": "classic", "seat": 3, "dealer": 3,
           "hand": ["5H", "4H", "3H", "2H", "10S", "9S", "8S", "7S", "6S", "5S", "4S", "3S"],
           "auction": [7, "pass", "pass", "pass"], "trump": "S", "tricks": [["AC", "2D", "2C", "2S"]]}


@pytest.mark.parametrize("change, status, words", [
    ({}, 200, None),
    ({"hand": CLASSIC["hand"][:-1] + ["AC"]}, 422, "AC is in your hand and in the tricks"),
    ({"hand": CLASSIC["hand"][:-1] + ["5H"]}, 422, "5H is twice in your hand"),
    ({"hand": CLASSIC["hand"][:-1]}, 422, "holds 12, not 11"),
    ({"hand": CLASSIC["hand"] + ["KD"]}, 422, "holds 12, not 13"),
    ({"auction": [8, 7, "pass", "pass"]}, 422, "auction[1]: seat 1 cannot call 7"),
    ({"auction": [7, "pass", "pass", "pass", "pass"]}, 422, "the auction is over after 4 calls"),
    ({"auction": ["pass"] * 4, "trump": None, "tricks": []}, 422, "thrown in"),
    ({"tricks": [["AC", "2D", "2C", "2S"], ["3S", "4D"]], "hand": CLASSIC["hand"][:-1]}, 422,
     "it is seat 1's turn, not seat 3's"),
    ({"tricks": [["AC", "2D", "2C", "2S"], ["3S", "4D", "4C"]], "hand": CLASSIC["hand"][:-1]}, 422,
     "2D in tricks[0] breaks follow-suit: seat 1 did not follow clubs"),  # it still held the 4C it plays later
    ({"tricks": [["AC", "2D", "2C", "2H"]], "hand": ["3C"] + CLASSIC["hand"][:3] + CLASSIC["hand"][4:]}, 422,
     "2H in tricks[0] breaks follow-suit: seat 3 did not follow clubs"),
    ({"tricks": [["AC", "2D", "2C"], ["KD"]]}, 422, "tricks[0] has 3 cards"),
    ({"tricks": [["AC", "2D", "2C", "2S"], ["3C", "3D", "4D", "5D"]], "hand": CLASSIC["hand"][1:]}, 422,
     "no deal agrees with the tricks"),  # all four have shown out of clubs, and nine clubs are unseen
    ({"trump": None}, 422, "cards are played before the auction and the trump call are over"),
    ({"exposed_card": "7H"}, 422, "expose no card"),
    ({"scores": [31, 0]}, 422, "the game is over"),
    ({"hand": "5H 4H"}, 400, "hand: expected a list"),
    ({"hand": ["5X"] + CLASSIC["hand"][1:]}, 400, "'5X' is not a card"),
    ({"auction": ["double"]}, 400, "is not a call"),
    ({"seat": 4}, 400, "seat: expected a seat 0-3"),
    ({"trump": "N"}, 400, "is not a suit"),
    ({"rules": "classic.yaml"}, 400, "unknown preset"),
    ({"rules": {"kaboot": "triple"}}, 400, "rules.kaboot"),
    ({"rules": {"preset": "classic", "kaboot": "double"}}, 422, "no shipped network is trained for these rules"),
    ({"rules": {"preset": "classic", "target_score": 41}}, 200, None),
    ({"samples": 10_000}, 400, "samples: expected an int 0-256"),
    ({"seed": -1}, 400, "seed"),
    ({"colour": "red"}, 400, "unknown key(s) 'colour'"),
])
def test_refusals_say_why(client, change, status, words):
    r = client.post("/v1/advice", json={**CLASSIC, **change})
    assert r.status_code == status, r.json()
    if words:
        assert words in r.json()["error"]


def test_fixed_trump_rules_and_the_exposed_card(client):
    base = {"rules": "trump_by_card", "seat": 0, "dealer": 3, "exposed_card": "7H",
            "hand": ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "AH", "KH", "QH", "JH", "10H", "9H"]}
    r = client.post("/v1/advice", json=base)
    assert r.status_code == 200 and r.json()["facts"]["trumps_out"] == 7  # 13 hearts - 6 held (7H is out: dealer's)
    assert client.post("/v1/advice", json={**base, "trump": "S"}).status_code == 422
    assert client.post("/v1/advice", json={**base, "trump": "H"}).status_code == 200
    no_card = {k: v for k, v in base.items() if k != "exposed_card"}
    assert "give exposed_card" in client.post("/v1/advice", json=no_card).json()["error"]
    mine = client.post("/v1/advice", json={**base, "exposed_card": "AS"})
    assert mine.status_code == 422 and "the dealer's, not in your hand" in mine.json()["error"]
    assert client.post("/v1/advice", json={**base, "auction": [7]}).status_code == 422


def test_malformed_and_oversized_requests(client):
    for body in (b"", b"{", b"[1, 2]", b"\xff\xfe", b"1" * 5000, b"[" * 100_000):
        r = client.post("/v1/advice", content=body)
        assert r.status_code in (400, 413), (body[:10], r.status_code)
        assert "error" in r.json()
    assert client.post("/v1/advice", content=b" " * (server.MAX_BODY_BYTES + 1)).status_code == 413
    assert client.post("/v1/advice", content=b"{}", headers={"content-length": "x"}).status_code == 400
    assert client.get("/v1/advice").status_code == 405
    assert client.get("/nothing").status_code == 404


def test_a_request_beyond_the_concurrent_limit_is_told_to_retry(monkeypatch):
    entered, release = threading.Event(), threading.Event()

    def slow(body, max_samples):
        entered.set()
        release.wait(30)
        return {"ok": True}

    monkeypatch.setattr(server, "advise", slow)
    client = TestClient(server.create_app(max_inflight=1), base_url="http://127.0.0.1")
    first = []
    worker = threading.Thread(target=lambda: first.append(client.post("/v1/advice", json=CLASSIC)))
    worker.start()
    assert entered.wait(30)
    busy = client.post("/v1/advice", json=CLASSIC)
    release.set()
    worker.join(30)
    assert busy.status_code == 429 and busy.headers["retry-after"] == "1"
    assert first[0].status_code == 200


def test_only_local_hosts_are_served():
    client = TestClient(server.create_app(), base_url="http://evil.example")
    assert client.get("/").status_code == 400


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_random_bytes_never_make_a_server_error(client, body):
    r = client.post("/v1/advice", content=body)
    assert r.status_code in (200, 400, 413, 422), r.text


JSON = st.recursive(st.none() | st.booleans() | st.integers(-60, 60) |
                    st.floats(allow_nan=False, allow_infinity=False) |
                    st.sampled_from(["AC", "10S", "pass", "H", "7", "bid 8", "QH", "xx", ""]),
                    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=10)
CARDS = [card_str(c, False) for c in range(52)]
BASES = [CLASSIC,  # classic after the first trick; syrian41 in the auction; trump_by_card and hearts41 in play
         {"rules": "syrian41", "seat": 0, "dealer": 1, "auction": [3, 2], "exposed_card": "8D",
          "hand": ["2C", "4C", "7C", "5D", "7D", "10D", "AD", "5H", "8H", "9H", "4S", "5S", "AS"]},
         {"rules": "trump_by_card", "seat": 0, "dealer": 1, "exposed_card": "8D",
          "hand": ["7C", "5D", "7D", "10D", "AD", "5H", "8H", "9H", "4S", "5S", "AS"],
          "tricks": [["JC", "QC", "4C", "3C"], ["AC", "2C", "6C", "KC"], ["8C"]]},
         {"rules": "hearts41", "seat": 3, "dealer": 1, "auction": [5, 2, 2, 2],
          "hand": ["5C", "8C", "9C", "4D", "AH", "2S", "6S", "8S", "QS"],
          "tricks": [["10H", "3H", "5H", "JH"], ["3D", "2D", "JD", "AD"], ["2C", "6C", "JC", "QC"],
                     ["AC", "4C", "3C", "KC"]]}]


@st.composite
def near_valid(draw):
    """A valid position (one of :data:`BASES`) with a few random edits: a card replaced, dropped or added, a call
    changed, a trick added, a field given any JSON value."""
    position = json.loads(json.dumps(draw(st.sampled_from(BASES))))
    for _ in range(draw(st.integers(1, 3))):
        edit = draw(st.sampled_from(["card", "drop", "add", "call", "trick", "field", "seat"]))
        hand, calls, tricks = position.get("hand"), position.get("auction", []), position.get("tricks", [])
        if edit in ("card", "drop", "add") and isinstance(hand, list) and hand:
            k = draw(st.integers(0, len(hand) - 1))
            if edit == "card":
                hand[k] = draw(st.sampled_from(CARDS))
            elif edit == "drop":
                hand.pop(k)
            else:
                hand.append(draw(st.sampled_from(CARDS)))
        elif edit == "call" and isinstance(calls, list) and calls:  # an empty auction: the edit is skipped
            calls[draw(st.integers(0, len(calls) - 1))] = draw(st.sampled_from(["pass", 7, 8, 13, 6, "9"]))
        elif edit == "trick" and isinstance(tricks, list):
            position["tricks"] = tricks
            tricks.append([draw(st.sampled_from(CARDS)) for _ in range(draw(st.integers(0, 4)))])
        elif edit == "field":
            position[draw(st.sampled_from(sorted(server.KEYS) + ["samples", "seed"]))] = draw(JSON)
        elif edit == "seat":
            position[draw(st.sampled_from(["seat", "dealer"]))] = draw(st.integers(-1, 4))
    return position


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(near_valid())
def test_near_valid_positions_never_make_a_server_error(client, position):
    if isinstance(position.get("samples"), int) and not isinstance(position.get("samples"), bool):
        position["samples"] = min(position["samples"], 2)  # keep the fuzzing fast: the search is tested above
    r = client.post("/v1/advice", json=position)
    assert r.status_code in (200, 400, 422), r.text
    if r.status_code == 200:
        assert r.json()["action"] in [c["action"] for c in r.json()["candidates"]]
    else:
        assert r.json()["error"]


@pytest.mark.parametrize("base", BASES[1:])
def test_the_fuzzing_bases_are_valid_positions(client, base):
    assert client.post("/v1/advice", json=base).status_code == 200


def test_browsers_may_call_it_only_from_the_origins_named_at_start():
    preflight = {"origin": "http://localhost:5173", "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type"}
    closed = TestClient(server.create_app(), base_url="http://127.0.0.1")
    assert "access-control-allow-origin" not in closed.options("/v1/advice", headers=preflight).headers
    opened = TestClient(server.create_app(cors_origins=["http://localhost:5173"]), base_url="http://127.0.0.1")
    assert opened.options("/v1/advice", headers=preflight).headers["access-control-allow-origin"] == \
        "http://localhost:5173"
    answer = opened.post("/v1/advice", json=CLASSIC, headers={"origin": "http://localhost:5173"})
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == "http://localhost:5173"
    other = opened.options("/v1/advice", headers={**preflight, "origin": "http://evil.example"})
    assert "access-control-allow-origin" not in other.headers


@pytest.mark.parametrize("argv, words", [
    (["--port", "70000"], "--port: must be 0..65535"),
    (["--max-samples", "999"], "--max-samples: must be 0..256"),
    (["--workers", "0"], "--workers: must be at least 1"),
    (["--cors", "localhost:5173"], "--cors: an origin is scheme://host[:port]"),
])
def test_serve_refuses_bad_options_in_one_line(argv, words, capsys):
    from playing.advisor.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2 and words in capsys.readouterr().err
