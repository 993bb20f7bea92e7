"""The web table in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by Selenium).

A whole hand is played by clicking, the page's score is checked against the
engine's, and a replay is stepped through. Screenshots go to
``runs/test-artifacts/web/`` (``$TARNEEB_ARTIFACTS`` overrides). Without
Chromium the tests skip locally, but fail under CI (``CI=true``), where
``.ci/run`` installs it.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("TARNEEB_ARTIFACTS", REPO / "runs" / "test-artifacts" / "web"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def _missing() -> list[str]:
    missing = [] if CHROMIUM else ["chromium"]
    missing += [] if DRIVER else ["chromedriver (chromium-driver)"]
    for module in ("selenium", "starlette", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            missing.append(f"the {module} package")
    return missing


if _missing():
    why = f"needs {', '.join(_missing())}: apt-get install chromium chromium-driver; pip install -e '.[dev]'"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser test, but it {why}", pytrace=False)
    pytest.skip(why, allow_module_level=True)

import uvicorn  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.expected_conditions import staleness_of  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from evaluation import duplicate_match  # noqa: E402
from playing.web.app import create_app  # noqa: E402
from playing.web.session import ServerConfig  # noqa: E402
from tarneeb_env import make_rules  # noqa: E402
from tarneeb_env.cards import PASS  # noqa: E402

WAIT = 20  # seconds any one page change may take
TARGET = 5  # a game of one played hand, so that games are played to their end
SIZES = ((390, 844), (1280, 900))  # a phone, a laptop
MAX_PHONE_HEADER = 110  # px: the table, not the header, is what a phone shows
MIN_TOUCH = 44  # px: the smallest target a finger hits reliably
FITS = """
const W = window.innerWidth, H = window.innerHeight, out = [];
const sw = document.documentElement.scrollWidth;
if (sw > W) out.push(`scrollWidth ${sw} > innerWidth ${W}`);
for (const b of document.querySelectorAll("button:not([disabled])")) {
  const r = b.getBoundingClientRect();
  if (!r.width && !r.height) continue;  // not shown
  const fixed = b.closest("#result, #toast");
  const name = b.id || b.textContent.trim().slice(0, 20);
  if (r.left < 0 || r.right > W + 0.5 || (fixed && (r.top < 0 || r.bottom > H + 0.5)))
    out.push(`button ${name} at x ${r.left}..${r.right}, y ${r.top}..${r.bottom}`);
  if (W < 600 && (r.width < %d || r.height < %d))
    out.push(`button ${name} is ${r.width}x${r.height}: too small a target`);
}
const felt = document.querySelector("#table").getBoundingClientRect();
for (const seat of document.querySelectorAll("#table .seat")) {
  const r = seat.getBoundingClientRect();
  if (felt.width && (r.left < felt.left || r.right > felt.right + 0.5))
    out.push(`${seat.id} at x ${r.left}..${r.right} spills past the felt (${felt.left}..${felt.right})`);
}
if (W < 600 && document.querySelector("header").offsetHeight > %d)
  out.push(`header ${document.querySelector("header").offsetHeight} px high`);
return out;
""" % (MIN_TOUCH, MIN_TOUCH, MAX_PHONE_HEADER)


LONG_NAME = "league-run-2026-12-06-trump-by-card-link-8-against-rule-10000-deals-seed-1.jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    rules = dataclasses.replace(make_rules("classic"), target_score=TARGET)
    config = ServerConfig(rules, "classic", {"rule": "rule", "random": "random"}, "rule", "rule", 0.01, 21, 1)
    replays = tmp_path_factory.mktemp("replays")
    record = duplicate_match("rule", "random", deals=1, seed=2, records=True).records[0]
    (replays / LONG_NAME).write_text(json.dumps(record) + "\n")  # a long name must not widen a phone's page
    tampered = dict(record, score_delta=[record["score_delta"][0] + 1, record["score_delta"][1]])
    (replays / "tampered.json").write_text(json.dumps(tampered))
    app = create_app(config, str(replays))
    sock = socket.create_server(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    WebDriverWait(None, WAIT, 0.05).until(lambda _: srv.started)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/", app
    srv.should_exit = True
    thread.join(WAIT)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,980",
                "--lang=en-US"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def shot(browser, name: str) -> None:
    browser.save_screenshot(str(ARTIFACTS / name))


def find(browser, css):
    return browser.find_elements(By.CSS_SELECTOR, css)


def next_thing(browser):
    """Wait until the person is on turn (an enabled choice or card) or the hand-over panel shows; return which."""
    def ready(_):
        if find(browser, "#result:not([hidden])"):
            return "result"
        enabled = find(browser, "#choices button:not([disabled]), #hand button.card:not([disabled])")
        return enabled or None

    return WebDriverWait(browser, WAIT, 0.02).until(ready)


def enabled_actions(browser) -> list[int]:
    """The actions of the enabled choices and cards, in page order (one round trip, not one per button)."""
    return browser.execute_script("return [...document.querySelectorAll('#choices button:not([disabled]), "
                                  "#hand button.card:not([disabled])')].map((b) => Number(b.dataset.action))")


def click_a_move(browser, buttons) -> None:
    """The lowest bid where bids are offered (so the hand gets played), else the first legal choice."""
    actions = enabled_actions(browser)
    bids = [k for k, a in enumerate(actions) if a != PASS]
    button = buttons[(bids or [0])[0]]
    button.click()
    WebDriverWait(browser, WAIT, 0.02).until(staleness_of(button))  # the page has drawn the server's answer


def check_layout(browser, where: str) -> None:
    """At a phone's and a laptop's size: nothing wider than the window, every enabled button inside it."""
    try:
        for width, height in SIZES:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            problems = browser.execute_script(FITS)
            assert not problems, f"{where} at {width}x{height}: {problems}"
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def session_of(browser, app):
    sid = browser.execute_script("return sessionStorage.getItem('tarneeb-session')")
    return app.state.sessions[sid]


def check_result_words(browser, record) -> None:
    """The hand-over panel speaks from the person's side: who made or went down, green only when we gained."""
    title = find(browser, "#result-title")[0]
    delta = record["score_delta"]
    expected = "good" if delta[0] > delta[1] else "bad" if delta[0] < delta[1] else ""
    if record["thrown_in"]:
        assert title.text == "Thrown in"
        return
    assert title.get_attribute("class") == expected
    decl = record["declarer"]
    taken = record["tricks_won"][decl % 2]
    who = ["You", "Right", "Partner", "Left"][decl]
    made = f"{who} made {taken} of {record['bid']}"
    assert title.text == (made if taken >= record["bid"] else f"{who} went down: {taken} of {record['bid']}")
    assert find(browser, "#result-outcome")[0].get_attribute("class") == expected


def phase_of(browser, app, thing) -> str:
    if thing == "result":
        return "game over" if session_of(browser, app).table.over else "result"
    return session_of(browser, app).state()["phase"]


def test_a_game_played_by_clicking_to_its_end_scores_as_the_engine_says_and_replays(server, browser):
    url, app = server
    browser.get(url)
    check_layout(browser, "the table at start")
    table_shot = False
    laid_out = set()
    while True:
        thing = next_thing(browser)
        phase = phase_of(browser, app, thing)
        if phase not in laid_out:
            check_layout(browser, f"the table, {phase}")
            laid_out.add(phase)
        if thing == "result":
            session = session_of(browser, app)
            if session.table.over:
                break
            check_result_words(browser, session.table.records[-1])
            button = find(browser, "#next-deal")[0]
            button.click()
            WebDriverWait(browser, WAIT, 0.02).until(lambda b: not find(b, "#result:not([hidden])"))
            continue
        game = session_of(browser, app).table.game
        enabled = enabled_actions(browser)
        assert sorted(enabled) == sorted(int(a) for a in game.legal_actions()), "the page offers other moves"
        tricks = len(game.trick_winners)
        in_trick = len(game.trick) >= 2
        if in_trick:  # motion: only the card played last slides in; those already on the table stay put
            sliding = browser.execute_script("return [...document.querySelectorAll('#centre .card.arrive')]"
                                             ".map((c) => Number(c.dataset.card))")
            assert sliding == [game.trick[-1][1]]
        if not table_shot and tricks >= 4 and in_trick and find(browser, "#hand button.card:not([disabled])"):
            find(browser, "#last")[0].click()
            assert find(browser, "#last-trick")[0].text.startswith(f"Trick {tricks}: ")
            find(browser, "#last")[0].click()
            find(browser, "#hint")[0].click()
            hint = WebDriverWait(browser, WAIT).until(
                lambda b: [h for h in find(b, "#hint-text:not([hidden])") if h.text])
            assert hint[0].text.startswith("The rule player would play ")
            shot(browser, "web_table.png")
            table_shot = True
        click_a_move(browser, thing)
    assert {"bidding", "play", "game over"} <= laid_out and table_shot
    shot(browser, "web_game_over.png")
    game = session.table.game
    record = session.table.records[-1]
    assert max(game.scores) >= TARGET
    assert find(browser, "#score-us")[0].text == str(game.scores[0])
    assert find(browser, "#score-them")[0].text == str(game.scores[1])
    assert f"Us {game.scores[0]} – Them {game.scores[1]}" in find(browser, "#result-score")[0].text
    assert f"Tricks: Us {record['tricks_won'][0]} · Them {record['tricks_won'][1]}" in find(browser, "#result")[0].text
    won = "You and your partner win!" if game.winner == 0 else "Right and Left win"
    assert find(browser, "#result-title")[0].text == won
    rows = browser.execute_script("return [...document.querySelectorAll('#sheet tbody tr')].map("
                                  "(tr) => [...tr.querySelectorAll('b')].map((b) => Number(b.textContent)))")
    assert rows == [r["scores"] for r in session.table.records]  # the score sheet, every hand's running totals

    # game over: the panel's one button starts a new game (nothing to abandon, so no question)
    find(browser, "#result #next-deal")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: session_of(b, app).table.game is not game)
    assert find(browser, "#score-us")[0].text == find(browser, "#score-them")[0].text == "0"
    assert not find(browser, "#result:not([hidden])")

    # the replay of the last hand, trick by trick, forwards and backwards: the records of a finished game stay
    # listed only until the new game has a deal, so replay from a saved copy
    path = ARTIFACTS / "last_hand.json"
    path.write_text(json.dumps(record))
    find(browser, "#tab-replay")[0].click()
    check_layout(browser, "the replay tab")
    find(browser, "#replay-upload")[0].send_keys(str(path))
    WebDriverWait(browser, WAIT).until(lambda b: find(b, ".viewer .rp-hand"))

    def hands_shown():
        shown = browser.execute_script("return [0, 1, 2, 3].map((s) => "
                                       "document.querySelector(`.viewer .rp-hand[data-seat='${s}']`).dataset.cards)")
        return [sorted(int(c) for c in cards.split(",") if c) for cards in shown]

    def hands_after(k):
        gone = {c for _, c in record["plays"][:4 * k]}
        return [sorted(c for c in hand if c not in gone) for hand in record["deal"]]

    assert hands_shown() == hands_after(0)
    for k in range(1, 14):
        find(browser, "#rp-next")[0].click()
        assert find(browser, "#rp-step")[0].text == f"Trick {k} of 13"
        assert hands_shown() == hands_after(k)
        winner = record["trick_winners"][k - 1]
        assert find(browser, f".rp-trick .slot[data-seat='{winner}'] .card.winning")
        if k == 7:
            shot(browser, "web_replay.png")
            check_layout(browser, "a replay")
    assert find(browser, "#rp-next")[0].get_attribute("disabled") is not None
    delta = record["score_delta"]
    assert f"Score change: Us {delta[0]:+d} · Them {delta[1]:+d}" in find(browser, ".viewer .rp-result")[0].text
    for k in (12, 11):
        find(browser, "#rp-prev")[0].click()
        assert hands_shown() == hands_after(k) and find(browser, "#rp-step")[0].text == f"Trick {k} of 13"


def test_an_uploaded_record_that_does_not_replay_is_refused_on_the_page(server, browser, tmp_path):
    url, _ = server
    browser.get(url)
    find(browser, "#tab-replay")[0].click()
    record = duplicate_match("rule", "random", deals=1, seed=2, records=True).records[0]
    bad = dict(record, score_delta=[record["score_delta"][0] + 1, record["score_delta"][1]])
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(bad))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    find(browser, "#replay-upload")[0].send_keys(str(good))
    WebDriverWait(browser, WAIT).until(lambda b: find(b, ".viewer .rp-hand"))
    find(browser, "#replay-upload")[0].send_keys(str(path))
    toast = WebDriverWait(browser, WAIT).until(lambda b: [t for t in find(b, "#toast:not([hidden])") if t.text])
    assert toast[0].text.startswith("refused:") and "score_delta" in toast[0].text
    assert not find(browser, ".viewer") and not find(browser, "#replay-controls:not([hidden])")  # not the good one
    row = find(browser, "#replay-list tbody tr")[0]
    assert "refused" in row.get_attribute("class") and "refused" in row.text  # marked in the list, before opening
    Select(find(browser, "#replay-source")[0]).select_by_value("dir:tampered.json")
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#replay-list tbody tr.refused"))
    Select(find(browser, "#replay-source")[0]).select_by_value(f"dir:{LONG_NAME}")
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#replay-list tbody tr[data-index]:not(.refused)"))
    check_layout(browser, "the replay tab with a long file name")


def test_the_duplicate_challenge_shows_the_margin_and_both_plays_side_by_side(server, browser):
    url, app = server
    browser.get(url)
    find(browser, "#tab-challenge")[0].click()
    check_layout(browser, "the challenge tab")
    if inProgress(browser):
        find(browser, "#dup-start")[0].click()
        browser.switch_to.alert.accept()
    else:
        find(browser, "#dup-start")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: "Challenge deal 1 of 1" in find(b, "#deal-line")[0].text)
    mine_first = session_of(browser, app).duplicate["deals"][0].hands[0]

    # a second tab (its own session) gets other deals, and no record of this tab's
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(url)
    find(browser, "#tab-challenge")[0].click()
    find(browser, "#dup-start")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: "Challenge deal 1 of 1" in find(b, "#deal-line")[0].text)
    assert session_of(browser, app).duplicate["deals"][0].hands[0] != mine_first
    find(browser, "#tab-replay")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: "No finished deals yet." in find(b, "#replay-list tbody")[0].text)
    browser.close()
    browser.switch_to.window(first_tab)
    while (thing := next_thing(browser)) != "result":
        click_a_move(browser, thing)
    dup = session_of(browser, app).duplicate
    assert len(dup["results"]) == 1
    margin = dup["results"][0]["margin"]
    assert f"Your margin: {margin:+d}" in find(browser, "#result")[0].text
    check_result_words(browser, dup["pairs"][0][0][-1])
    check_layout(browser, "a hand's result")
    find(browser, "#review-hand")[0].click()  # the post-hand review: each of your decisions beside the Hint's
    items = WebDriverWait(browser, WAIT).until(lambda b: find(b, "#review:not([hidden]) li"))
    record = dup["pairs"][0][0][-1]
    assert len(items) == sum(1 for seat, _ in record["auction"] + record["plays"] if seat == 0)
    assert find(browser, ".viewer") and all(i.text.startswith(("Bid: you", "Trump: you", "Trick ")) for i in items)
    check_layout(browser, "the post-hand review")
    find(browser, "#tab-table")[0].click()
    find(browser, "#next-deal")[0].click()  # "See the challenge results"
    total = WebDriverWait(browser, WAIT).until(lambda b: [t for t in find(b, "#dup-total") if t.is_displayed()])
    assert total[0].text == f"{margin:+d}"
    result = dup["results"][0]
    cells = find(browser, "#dup-results tbody td")
    for cell, made in ((cells[1], result["you_made"]), (cells[2], result["computer_made"])):
        assert cell.text.splitlines()[-1].startswith("made" if made else "down")
    assert f"deal set {dup['seed']}" in find(browser, "#dup-progress")[0].text  # told now that it is played
    shot(browser, "web_challenge.png")
    check_layout(browser, "the challenge results")
    find(browser, "#tab-table")[0].click()  # no dead end: the table says the challenge is over and offers what next
    assert "challenge is over" in find(browser, "#challenge-over")[0].text
    assert not find(browser, "#result:not([hidden])")
    assert find(browser, "#target-line")[0].text == "deal 1 of 1"
    check_layout(browser, "the table after the challenge")
    find(browser, "#over-results")[0].click()
    find(browser, "#dup-results .compare")[0].click()
    viewers = WebDriverWait(browser, WAIT).until(lambda b: len(find(b, ".viewer")) == 2 and find(b, ".viewer"))
    assert "you" in viewers[0].text.splitlines()[0] and "the computer in your seat" in viewers[1].text.splitlines()[0]
    first = [v.find_element(By.CSS_SELECTOR, ".rp-hand[data-seat='1']").get_attribute("data-cards") for v in viewers]
    mine, computer = dup["pairs"][0]
    if len(computer) == 1:  # no throw-in at the computer's table: the same cards at both
        assert first[0] == first[1]
    for _ in range(4):
        find(browser, "#rp-next")[0].click()
    assert find(browser, "#rp-step")[0].text.startswith("Trick 4 of ")
    shot(browser, "web_compare.png")
    check_layout(browser, "the two plays side by side")


def inProgress(browser) -> bool:
    """Has the person moved in the current game (so that leaving it asks first)?"""
    return bool(find(browser, "#auction-log")[0].text.count("You ")) or len(find(browser, "#hand .card")) < 13


def test_leaving_a_game_asks_first_and_a_lost_game_is_said(server, browser):
    url, app = server
    browser.get(url)
    browser.execute_script("sessionStorage.clear()")  # a fresh game, whatever the tests before left
    browser.get(url)
    # by keyboard: digits bid, C D H S name trump, an arrow picks a card and Enter plays it
    keys = ActionChains(browser)  # keys go to whatever has the focus, as a person's would
    while (thing := next_thing(browser)) != "result":
        game = session_of(browser, app).table.game
        phase = session_of(browser, app).state()["phase"]
        actions = enabled_actions(browser)
        if phase == "play":
            keys.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT, Keys.ARROW_RIGHT).perform()
            card = int(browser.switch_to.active_element.get_attribute("data-action"))
            assert card == actions[1 % len(actions)]
            keys.send_keys(Keys.ENTER).perform()
            WebDriverWait(browser, WAIT).until(lambda b: (0, card) in [tuple(p) for p in game.played])
            break
        bids = [a for a in actions if PASS < a < 66]
        if phase == "bidding":
            action, key = (bids[0], str(bids[0] - PASS)) if bids else (PASS, "p")
        else:
            action = actions[0]
            key = "cdhs"[action - 66]
        moves = len(game.auction)
        drawn = find(browser, "#choices button:not([disabled])")[0]
        keys.send_keys(key).perform()
        WebDriverWait(browser, WAIT).until(lambda b: len(game.auction) > moves)
        assert (0, action) in [tuple(m) for m in game.auction]
        # the page has drawn the server's answer: else the next look could still see this turn's buttons
        WebDriverWait(browser, WAIT, 0.02).until(staleness_of(drawn))
    table = session_of(browser, app).table
    find(browser, "#new-game")[0].click()
    assert "Abandon the game" in browser.switch_to.alert.text
    browser.switch_to.alert.dismiss()
    assert session_of(browser, app).table is table
    find(browser, "#new-game")[0].click()
    browser.switch_to.alert.accept()
    WebDriverWait(browser, WAIT).until(lambda b: session_of(b, app).table is not table)

    registry = app.state.sessions
    lost = browser.execute_script("return sessionStorage.getItem('tarneeb-session')")
    registry.clock = lambda: time.monotonic() + 3600  # every game has now been idle for an hour
    try:
        browser.refresh()
        text = WebDriverWait(browser, WAIT).until(lambda b: [n.text for n in find(b, "#notice:not([hidden])")])[0]
    finally:
        registry.clock = time.monotonic
    assert "Your game was lost: this game was dropped after 30 minutes without a move. A new game has started." in text
    assert browser.execute_script("return sessionStorage.getItem('tarneeb-session')") != lost
    check_layout(browser, "the notice of a lost game")
    find(browser, "#notice-close")[0].click()
    assert not find(browser, "#notice:not([hidden])")

    Select(find(browser, "#speed")[0]).select_by_visible_text("slow")  # the speed is kept across a reload
    browser.refresh()
    slide = "return getComputedStyle(document.getElementById('centre')).getPropertyValue('--slide')"
    WebDriverWait(browser, WAIT).until(lambda b: b.execute_script(slide) == "20ms")  # the server's 0.01 s, twice
    assert Select(find(browser, "#speed")[0]).first_selected_option.text == "slow"
    Select(find(browser, "#speed")[0]).select_by_visible_text("normal")
