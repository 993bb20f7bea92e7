"""The engine protocol (docs/engine-protocol.md): the host side (``engine:`` specs, agents.engine), the engine side
(``tarneeb-engine``, agents.engine_main), their round trip, and every fault ending the play in one line with no
process left behind.

The engines are started as ``python -m agents.engine_main SPEC`` (what the ``tarneeb-engine`` script runs), so the
tests need no installed script; one test checks that pyproject.toml declares it.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import agents
from agents.engine import EngineAgent, EngineError, HostDeals, parse_engine_spec
from agents.engine_protocol import SeatReplay
from evaluation import duplicate_match, round_robin
from tarneeb_env import PRESETS, make_rules
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.view import make_view

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = shlex.quote(sys.executable)
FAULTY = os.path.join(ROOT, "tests", "fixtures", "engines", "fault_engine.py")
JS = os.path.join(ROOT, "examples", "engines", "random_engine.js")
ROUND_TRIP_DEALS, SLOW_ROUND_TRIP_DEALS = 100, 1000


def engine_spec(spec: str, settings: str = "") -> str:
    """The ``engine:`` spec of ``tarneeb-engine SPEC``, run as a module of this checkout."""
    return f"engine{settings}:{PY} -m agents.engine_main {shlex.quote(spec)}"


def faulty(mode: str, when: str, n: int = 1, timeout: float = 0.0, child: bool = False) -> str:
    """The fault engine's spec; its per-decision limit 0.2 s where it hangs (the limit is what is tested), else 30 s:
    the other faults come at once, however slowly a loaded machine lets a Python engine answer."""
    timeout = timeout or (0.2 if mode == "hang" else 30)
    return f"engine?timeout={timeout}:{PY} {shlex.quote(FAULTY)} {mode} {when} {n}" + (" --child" if child else "")


def _gone(pid: int) -> bool:
    """No such process, or a zombie waiting for its reaper (it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int, limit: float = 10.0) -> bool:
    """Whether ``pid`` is gone within ``limit`` seconds (a killed grandchild is reaped by init, not by us)."""
    deadline = time.monotonic() + limit
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


# ---- the replay: the engine side rebuilds exactly the seat's view and observation -------------------------------

def _play_and_replay(rules, deals: int, seed: int) -> int:
    """Random play over ``deals`` deals of whole games; at every decision each seat's messages so far, replayed
    into a SeatReplay, must give the very view and observation row the in-process seat has. Returns the number
    of decisions checked."""
    rng = np.random.default_rng(seed)
    writer = ObservationWriter()
    game = TarneebGame(rules, rng, writer)
    game.new_game(dealer=int(rng.integers(4)))
    game.start_deal()
    host = HostDeals()
    replays: dict[int, SeatReplay] = {}
    checked = 0
    for _ in range(deals):
        while True:
            seat = game.current
            view = make_view(game, seat)
            d, msgs = host.catch_up(view, set())
            for m in msgs:
                if m["type"] == "deal":
                    replays[m["deal"]] = SeatReplay(rules, m["seat"], m["dealer"], m["hand"], m["exposed_card"],
                                                    m["scores"], m["seat_scores"])
                    assert m["trump"] == replays[m["deal"]].game.trump  # the trump the rules fix, or None
                elif m["type"] == "end":
                    replays.pop(m["deal"])
                else:
                    replays[m["deal"]].apply(m["seat"], m["action"])
            replay = replays[d.id]
            assert replay.view() == view
            assert np.array_equal(replay.observation(), writer.buf[seat])
            assert replay.legal() == view.legal_actions
            checked += 1
            result = game.apply(int(rng.choice(view.legal_actions)))
            if result is not None:
                for s in range(4):
                    for m in host.finish(s, result.record):
                        if m["type"] == "end":
                            replays.pop(m["deal"], None)
                        else:
                            replays[m["deal"]].apply(m["seat"], m["action"])
                break
        if game.game_over:
            game.new_game(dealer=int(rng.integers(4)))
        game.start_deal()
    assert not host.open and not replays  # every deal ended
    return checked


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engine_side_rebuilds_each_seats_view_and_observation_exactly(preset):
    assert _play_and_replay(PRESETS[preset], deals=12, seed=7) >= 12 * 52  # every card, and any auction


def test_a_replay_refuses_a_move_out_of_turn_and_a_card_it_holds():
    from agents.engine_protocol import ProtocolError

    r = SeatReplay(PRESETS["classic"], seat=0, dealer=3, hand=list(range(13)), exposed_card=None)
    with pytest.raises(ProtocolError, match="seat 2 acted, but seat 0 is to act"):
        r.apply(2, 52)


# ---- the round trip: the same agent through the protocol plays the same moves ------------------------------------

@pytest.mark.parametrize("spec, deterministic", [("rule", True), ("ppo", True), ("random", False)])
def test_an_engine_says_whether_it_draws_and_the_host_batches_only_one_that_does_not(spec, deterministic):
    agent = agents.load(engine_spec(spec), rules="classic")
    try:
        assert agent.process.hello["deterministic"] is deterministic
        assert agent.deterministic is deterministic
    finally:
        agent.close()


@pytest.mark.parametrize("spec", ["rule", "ppo"])
def test_an_agent_through_the_protocol_plays_exactly_as_in_process(spec):
    m = duplicate_match(engine_spec(spec), spec, deals=ROUND_TRIP_DEALS, seed=3)
    assert m.deals == ROUND_TRIP_DEALS
    assert np.all(m.margins == 0), m.margins  # every deal, both tables: the same moves


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["rule", "ppo"])
def test_an_agent_through_the_protocol_plays_exactly_as_in_process_over_1000_deals(spec):
    m = duplicate_match(engine_spec(spec), spec, deals=SLOW_ROUND_TRIP_DEALS, seed=0)
    assert m.deals == SLOW_ROUND_TRIP_DEALS
    assert m.margin == 0.0 and np.all(m.margins == 0)


def test_the_round_trip_holds_under_other_rules_with_whole_games_and_worker_processes():
    m = duplicate_match(engine_spec("ppo"), "ppo", deals=8, games=2, rules="syrian41", workers=2, batch=4, seed=5)
    assert m.deals == 8 and np.all(m.margins == 0)
    assert m.games_played == 2


def test_a_seeded_random_engine_is_reproducible_and_its_seeds_come_from_the_agents_seed():
    a = duplicate_match(engine_spec("random"), "rule", deals=6, seed=1)
    b = duplicate_match(engine_spec("random"), "rule", deals=6, seed=1)
    assert np.array_equal(a.margins, b.margins)
    host = HostDeals()
    views = []
    game = TarneebGame(PRESETS["classic"], np.random.default_rng(0))
    game.new_game(0)
    game.start_deal()
    views.append(make_view(game, game.current))
    seeds = set()
    for base in (1, 1, 2):
        host = HostDeals()
        host.base_seed = base
        seeds.add((base, host.catch_up(views[0], set())[1][0]["seed"]))
    assert len(seeds) == 2  # the same agent seed gives the same deal seed; another agent seed another one


def test_the_engine_hears_the_end_of_each_deal_with_its_public_record():
    host = HostDeals()
    game = TarneebGame(PRESETS["classic"], np.random.default_rng(4))
    game.new_game(0)
    game.start_deal()
    rng = np.random.default_rng(0)
    result = None
    while result is None:
        view = make_view(game, game.current)
        host.catch_up(view, set())
        result = game.apply(int(rng.choice(view.legal_actions)))
    ends = [m for s in range(4) for m in host.finish(s, result.record) if m["type"] == "end"]
    assert len(ends) == 4
    record = ends[0]["record"]
    assert ("deal" in record) == (not result.thrown_in)  # the hands only when every card was seen
    assert record["score_delta"] == list(result.score_delta)


# ---- the spec ------------------------------------------------------------------------------------------------------

def test_engine_specs_parse_settings_before_the_command_and_split_it_without_a_shell():
    argv, settings = parse_engine_spec("engine?timeout=2.5&start=9:tarneeb-engine 'search?samples=8' ; rm -rf x")
    assert argv == ["tarneeb-engine", "search?samples=8", ";", "rm", "-rf", "x"]  # ';' is an argument, no shell
    assert settings == {"timeout": 2.5, "start": 9.0}
    assert parse_engine_spec("engine:x")[1]["timeout"] == 60.0


@pytest.mark.parametrize("spec, says", [
    ("engine:", "give the command after the colon"),
    ("engine?speed=3:x", "no setting 'speed'"),
    ("engine?timeout=-1:x", "timeout= must be a number of seconds above 0"),
    ("engine:'unclosed", "cannot split the command"),
    ("engine:/no/such/engine-program", "cannot start '/no/such/engine-program'"),
])
def test_a_bad_engine_spec_is_one_line_that_says_what_is_wrong(spec, says):
    with pytest.raises((agents.AgentSpecError, EngineError)) as e:
        agents.load(spec, rules="classic")
    assert says in str(e.value) and "\n" not in str(e.value)


def test_an_engine_is_refused_for_rules_it_does_not_list():
    with pytest.raises(agents.RulesMismatchError, match="does not play rules syrian41: it plays classic"):
        agents.load(engine_spec(os.path.join(ROOT, "checkpoints", "classic.pt")), rules="syrian41")


def test_tarneeb_engine_is_a_console_script():
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert scripts["tarneeb-engine"] == "agents.engine_main:main"


def test_tarneeb_engine_refuses_a_bad_spec_in_one_line_with_exit_code_2():
    p = subprocess.run([sys.executable, "-m", "agents.engine_main", "nosuchagent"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("tarneeb-engine: error: cannot load agent 'nosuchagent'") and "Traceback" not in p.stderr


def test_tarneeb_engine_announces_its_presets_and_answers_an_act():
    import json

    classic = make_rules("classic")
    lines = [
        {"type": "deal", "deal": 0, "seat": 1, "rules": {"preset": "classic", **classic.to_dict()}, "dealer": 0,
         "hand": list(range(13)), "exposed_card": None, "scores": [0, 0], "seat_scores": [0, 0, 0, 0], "seed": 1},
        {"type": "act", "deal": 0, "seat": 1, "phase": "bidding", "legal": [52, *range(59, 66)], "pending": 0},
        {"type": "quit"},
    ]
    p = subprocess.run([sys.executable, "-m", "agents.engine_main", "rule"], input="".join(
        json.dumps(m) + "\n" for m in lines), capture_output=True, text=True, cwd=ROOT, timeout=120)
    out = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0, p.stderr
    assert out[0]["type"] == "hello" and out[0]["protocol"] == 1
    assert set(out[0]["presets"]) == {*PRESETS, "custom"}
    assert out[1]["type"] == "action" and out[1]["deal"] == 0 and out[1]["action"] in lines[1]["legal"]


# ---- faults: one line naming the engine and what it did; finished deals kept; no process left ---------------------

FAULTS = {
    "garbage": ("answered 'this is not json', which is not a JSON object",),
    "illegal": ("answered action 69 (trump spades)", "which is not legal there; legal: "),
    "stranger": ("deal 1000000000 was not asked about",),
    "error": ("reported an error: 'out of memory'",),
    "exit": ("exited with code 3",),
    "hang": ("no answer within ", "0.2 s"),
}
MESSAGES = ("deal", "bid", "pass", "trump", "play", "act", "end")  # the 3rd of each arrives in the first chunk


@pytest.mark.parametrize("mode", sorted(FAULTS))
@pytest.mark.parametrize("when", MESSAGES)
def test_a_fault_at_any_message_ends_the_match_in_one_line_and_kills_the_engine(mode, when):
    agent = agents.load(faulty(mode, when, n=3, child=True), rules="classic", seed=0)
    pid, child = agent.process.pid, agent.process.hello["child"]
    with pytest.raises(EngineError) as e:
        duplicate_match(agent, "rule", deals=4, batch=2, seed=2)  # two chunks: an 'end' in the first, acts after
    message = str(e.value)
    assert message.startswith(f"engine {agent.spec!r}: "), message
    assert all(part in message for part in FAULTS[mode]), message
    assert message.endswith("it was stopped") and "\n" not in message
    assert agent.process.proc.returncode is not None and _gone(pid)
    assert _wait_gone(child), "the engine's own child process was left running"


@pytest.mark.parametrize("mode, says", [
    ("garbage", "its first line must be a hello message, got 'this is not json'"),
    ("old", "speaks protocol 99; this host speaks protocol 1"),
    ("exit", "exited with code 3 during its hello"),
    ("hang", "no answer within 0.2 s to its hello"),
])
def test_an_engine_that_fails_its_hello_is_refused_in_one_line(mode, says):
    start = 0.2 if mode == "hang" else 60  # the others answer at once, however slowly a loaded machine starts them
    spec = f"engine?start={start}:{PY} {shlex.quote(FAULTY)} {mode} hello"
    with pytest.raises(EngineError, match=says):
        agents.load(spec, rules="classic")


def test_a_fault_after_some_chunks_keeps_the_deals_already_played():
    # a deal message per seat's deal: at least 20 deals x 2 tables x 2 seats = 80 in the match, so the 40th comes
    # after the first deal and before the last; the deals kept are those finished from the first on (chunks are
    # sized by the scheduler as they are handed out, so their number is not fixed)
    rr = round_robin([faulty("exit", "deal", n=40), "rule"], deals=20, batch=4, seed=1)
    assert not rr.complete and "exited with code 3" in rr.fault
    assert 1 <= rr.pairs[0].deals < 20 and len(rr.pairs[0].margins) == rr.pairs[0].deals


def test_a_fault_in_a_worker_process_ends_the_match_in_one_line_too():
    with pytest.raises(EngineError, match=r"^engine 'engine\?timeout=30:.*exited with code 3"):
        round_robin([faulty("exit", "act"), "rule"], deals=4, batch=2, workers=2, seed=1)


def test_evaluate_reports_the_finished_deals_and_the_fault_in_one_line_with_exit_code_2(tmp_path):
    # 256 deals x 2 tables x 2 seats = 1024 deal messages, and those dealt again after a throw-in: with this engine
    # (it passes) the 900th comes before the last deal of seed 0
    spec = faulty("exit", "deal", n=900)
    p = subprocess.run([sys.executable, "evaluate.py", spec, "rule", "--deals", "256", "--out",
                        str(tmp_path / "r.json")], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    errors = [x for x in p.stderr.splitlines() if x.startswith("evaluate.py: error: ")]
    finished = re.search(r"finished before it: (\d+) of 256", errors[0]) if len(errors) == 1 else None
    assert finished and "exited with code 3" in errors[0] and 1 <= int(finished[1]) < 256, p.stderr
    assert finished[1] in p.stdout  # the table over the finished deals


def test_evaluate_refuses_an_engine_that_fails_at_once_in_one_line_with_exit_code_2():
    p = subprocess.run([sys.executable, "evaluate.py", faulty("garbage", "act"), "rule", "--deals", "2"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    errors = [x for x in p.stderr.splitlines() if "error" in x]  # the rest is the progress bar
    assert len(errors) == 1 and errors[0].startswith("evaluate.py: error: engine 'engine?timeout=30:"), p.stderr
    assert "not a JSON object" in errors[0]


def test_closing_an_engine_agent_leaves_no_process():
    agent = agents.load(faulty("garbage", "never", child=True), rules="classic")
    pid, child = agent.process.pid, agent.process.hello["child"]
    agent.close()
    assert _gone(pid) and _wait_gone(child)


def test_an_engine_agent_cannot_be_sent_to_another_process():
    import pickle

    agent = agents.load(faulty("garbage", "never"), rules="classic")
    with pytest.raises(TypeError, match="pass its spec instead"):
        pickle.dumps(agent)
    agent.close()


# ---- the example engine in another language ---------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("node") is None, reason="node (Node.js) is not installed: the example engine is "
                                                          "JavaScript")
@pytest.mark.parametrize("rules", ["classic", "syrian41"])
def test_the_javascript_example_engine_plays_legal_moves(rules):
    m = duplicate_match(f"engine:node {shlex.quote(JS)}", "random", deals=6, rules=rules, seed=0)
    assert m.deals == 6  # every one of its moves was legal, or the match would have stopped


def test_an_engine_agent_is_a_plain_agent():
    assert issubclass(EngineAgent, agents.Agent)


# ---- the tables: play.py and the web table seat engines too ------------------------------------------------------

def test_play_py_seats_engines_and_stops_in_one_line_when_one_fails():
    pexpect = pytest.importorskip("pexpect")
    from test_play import PROMPT, spawn

    child = spawn("--seed", "5", "--delay", "0", "--partner", engine_spec("rule"),
                  "--opponents", faulty("exit", "play", n=2))
    for _ in range(100):  # our moves until the engine fails (its 2nd card: in the first deal's first tricks)
        if child.expect([PROMPT, r"play\.py: error: [^\r\n]*"], timeout=120) == 1:
            break
        kind, legal = child.match.group(1), child.match.group(2).split()
        child.sendline("Hearts" if kind == "Name trump" else "pass" if "pass" in legal else legal[0])
    else:
        pytest.fail("the failing engine was never asked to play")
    line = child.match.group(0)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "exited with code 3" in line and "it was stopped" in line and "Traceback" not in child.before


def test_the_web_table_offers_engines_from_its_start_up_list_only():
    pytest.importorskip("starlette")
    from test_web_api import client_for, make_config, new_session

    engine = faulty("garbage", "never")
    with client_for(make_config(allowed={"rule": "rule", "mine": engine})) as c:
        headers, _ = new_session(c)
        r = c.post("/api/new", headers=headers, json={"partner": "mine", "opponents": "mine"})
        assert r.status_code == 200, r.text
        for chosen in (engine, "engine:sh -c 'touch /tmp/owned'"):  # a page names a key, never a command
            r = c.post("/api/new", headers=headers, json={"partner": chosen})
            assert r.status_code == 400 and "is not one of the players this server offers" in r.text


def test_an_engine_failing_at_the_web_table_gets_its_line_and_a_new_game_starts_it_again():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from test_web_api import make_config, new_session, step

    from playing.web.app import create_app

    config = make_config(allowed={"rule": "rule", "mine": faulty("garbage", "act")})
    with TestClient(create_app(config), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        headers, _ = new_session(c)
        state = c.post("/api/new", headers=headers, json={"partner": "rule", "opponents": "mine"}).json()["state"]
        while state["to_act"] not in (1, 3):
            state = step(c, headers, state)
        r = c.post("/api/advance", headers=headers)
        assert r.status_code == 503, r.text
        error = r.json()["error"]
        assert error.startswith("engine ") and "this is not json" in error and error.endswith(
            "it was stopped: start a new game (a new game starts the engine again)")
        assert c.get("/api/state", headers=headers).json()["state"] == state  # nothing moved
        r = c.post("/api/new", headers=headers, json={"partner": "rule", "opponents": "mine"})
        assert r.status_code == 200, r.text  # a fresh engine process: it plays until its first act again
