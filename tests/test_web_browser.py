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
from selenium.webdriver.support.expected_conditions import alert_is_present, staleness_of  # noqa: E402
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
for (const b of document.querySelectorAll("button:not([disabled]), select, input, summary, #review li")) {
  const r = b.getBoundingClientRect();
  if (!r.width && !r.height) continue;  // not shown
  const fixed = b.closest("#result, #toast, #setup, #hint-text");
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
for (const g of document.querySelectorAll("#hand .suit-group")) {  // a suit that fits on a row is not split
  const tops = new Set([...g.children].map((c) => Math.round(c.getBoundingClientRect().top)));
  const need = [...g.children].reduce((w, c) => w + c.getBoundingClientRect().width + 3, 0);
  if (tops.size > 1 && need <= document.querySelector("#hand").clientWidth)
    out.push(`the ${g.dataset.suit} suit of the hand is split over ${tops.size} rows`);
}
if (W < 600 && document.querySelector("header").offsetHeight > %d)
  out.push(`header ${document.querySelector("header").offsetHeight} px high`);
return out;
""" % (MIN_TOUCH, MIN_TOUCH, MAX_PHONE_HEADER)


LONG_NAME = "league-run-2026-12-06-trump-by-card-link-8-against-rule-10000-deals-seed-1.jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    rules = dataclasses.replace(make_rules("classic"), target_score=TARGET)
    allowed = {"beginner": "random", "casual": "casual", "club": "rule", "strong": "ppo"}  # Master: its cost
    config = ServerConfig(rules, "classic", allowed, "club", "club", 0.01, 21, 1, None, ("classic", "syrian41"),
                          hint_samples=8)
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
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})  # the page follows it
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


def check_hint_in_view(browser) -> None:
    """On a phone (390x844) the open Hint is on screen, whatever the page's scroll, without scrolling."""
    try:
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        top, bottom, height = browser.execute_script(
            "const r = document.querySelector('#hint-text').getBoundingClientRect();"
            "return [r.top, r.bottom, window.innerHeight]")
        assert 0 <= top < bottom <= height + 0.5, (top, bottom, height)
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
            check_result_words(browser, session.table.records[-1].to_dict())
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
            marked = find(browser, "#hand .card.hinted")  # the card the Hint names is marked in the hand
            assert len(marked) == 1 and hint[0].text.startswith("Play ")
            assert marked[0].get_attribute("aria-label") in hint[0].text
            check_hint_in_view(browser)
            shot(browser, "web_table.png")
            find(browser, "#hint-why")[0].click()  # the numbers: every legal card with the network's share
            rows = find(browser, "#hint-why-box tr")
            assert len(rows) == 1 + len(enabled) and "Mean net points for us" in rows[0].text
            assert find(browser, "#hint-why-box tr.chosen")[0].text.split()[0] == marked[0].get_attribute("aria-label")
            shot(browser, "web_hint_why.png")
            find(browser, "#hint-close")[0].click()
            assert not find(browser, "#hand .card.hinted")
            table_shot = True
        click_a_move(browser, thing)
    assert {"bidding", "play", "game over"} <= laid_out and table_shot
    shot(browser, "web_game_over.png")
    game = session.table.game
    record = session.table.records[-1].to_dict()
    assert max(game.scores) >= TARGET
    assert find(browser, "#score-us")[0].text == str(game.scores[0])
    assert find(browser, "#score-them")[0].text == str(game.scores[1])
    assert f"Us {game.scores[0]} – Them {game.scores[1]}" in find(browser, "#result-score")[0].text
    assert f"Tricks: Us {record['tricks_won'][0]} · Them {record['tricks_won'][1]}" in find(browser, "#result")[0].text
    won = "You and your partner win!" if game.winner == 0 else "Right and Left win"
    assert find(browser, "#result-title")[0].text == won
    rows = browser.execute_script("return [...document.querySelectorAll('#sheet tbody tr')].map("
                                  "(tr) => [...tr.querySelectorAll('b')].map((b) => Number(b.textContent)))")
    assert rows == [r.scores for r in session.table.records]  # the score sheet, every hand's running totals
    find(browser, "#result-sheet")[0].click()  # and at game over, from the panel that covers the page
    shown = [r for r in find(browser, "#result-sheet-table tbody tr") if r.is_displayed()]
    assert len(shown) == len(session.table.records)

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
    assert toast[0].text.startswith("Refused:") and "score_delta" in toast[0].text
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
        WebDriverWait(browser, WAIT).until(alert_is_present()).accept()
    else:
        find(browser, "#dup-start")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: "Challenge deal 1 of 1" in find(b, "#deal-line")[0].text)
    mine_first = session_of(browser, app).duplicate["deals"][0].hands[0]

    # a second tab (its own session) gets other deals, and no record of this tab's
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#hand .card"))  # its session's first state has arrived
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
    for cell, made, net in ((cells[1], result["you_made"], result["you_net"]),
                            (cells[2], result["computer_made"], result["computer_net"])):
        assert cell.text.splitlines()[-1].startswith("made" if made else "down")
        word = cell.find_elements(By.CSS_SELECTOR, "span")[-1]  # green when our side gained, whoever declared
        assert word.get_attribute("class") == ("made" if net > 0 else "down" if net < 0 else "")
    assert "evaluate.py" not in browser.find_element(By.TAG_NAME, "body").text  # no command line for a player
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
    find(browser, "#setup-start")[0].click()
    assert "Abandon the game" in WebDriverWait(browser, WAIT).until(alert_is_present()).text
    WebDriverWait(browser, WAIT).until(alert_is_present()).dismiss()
    assert session_of(browser, app).table is table
    assert not find(browser, "#setup:not([hidden])")  # closed: no menu shows a player who is not playing
    assert find(browser, "#players-line")[0].text == "Partner: Club · Opponents: Club"
    find(browser, "#new-game")[0].click()
    find(browser, "#setup-start")[0].click()
    WebDriverWait(browser, WAIT).until(alert_is_present()).accept()
    WebDriverWait(browser, WAIT).until(lambda b: session_of(b, app).table is not table)

    registry = app.state.sessions
    lost = browser.execute_script("return sessionStorage.getItem('tarneeb-session')")
    registry.clock = lambda: time.monotonic() + 3600  # every game has now been idle for an hour
    try:
        browser.refresh()
        text = WebDriverWait(browser, WAIT).until(lambda b: [n.text for n in find(b, "#notice:not([hidden])")])[0]
    finally:
        registry.clock = time.monotonic
    assert "Your game was lost: it was dropped after 30 minutes without a move. A new game has started." in text
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


def test_levels_rules_and_target_are_chosen_for_a_new_game_and_cancel_changes_nothing(server, browser):
    url, app = server
    browser.get(url)
    browser.execute_script("sessionStorage.clear()")
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#now-partner") and find(b, "#seat-0 .name"))
    assert find(browser, "#players-line")[0].text == "Partner: Club · Opponents: Club"
    table = session_of(browser, app).table
    find(browser, "#new-game")[0].click()
    check_layout(browser, "the new-game panel")
    levels = [o.text for o in Select(find(browser, "#pick-opponents")[0]).options]
    assert levels == ["Beginner", "Casual", "Club", "Strong"]  # in players' words, weakest first
    Select(find(browser, "#pick-opponents")[0]).select_by_visible_text("Strong")
    assert find(browser, "#opponents-note")[0].text == \
        "Measured against Club: +2.14 points a deal [+2.03, +2.25] over 10000 deals no one trained on."
    find(browser, "#setup-cancel")[0].click()  # cancelled: the header and the table are as they were
    assert find(browser, "#players-line")[0].text == "Partner: Club · Opponents: Club"
    assert session_of(browser, app).table is table
    find(browser, "#new-game")[0].click()
    assert Select(find(browser, "#pick-opponents")[0]).first_selected_option.text == "Club"  # what is playing
    Select(find(browser, "#pick-rules")[0]).select_by_value("syrian41")
    assert find(browser, "#pick-target")[0].get_attribute("value") == "41"
    find(browser, "#setup-help summary")[0].click()
    assert "each player says how many tricks they alone will take" in find(browser, "#setup-rules-help")[0].text
    target = find(browser, "#pick-target")[0]
    target.clear()
    target.send_keys("51")
    Select(find(browser, "#pick-partner")[0]).select_by_visible_text("Strong")
    Select(find(browser, "#pick-opponents")[0]).select_by_visible_text("Casual")
    find(browser, "#setup-start")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: session_of(b, app).table is not table)
    session = session_of(browser, app)
    assert session.rules_label == "syrian41" and session.table.game.rules.target_score == 51
    assert session.labels == ["you", "casual", "strong", "casual"]
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#players-line")[0].text == "Partner: Strong · Opponents: Casual")
    assert find(browser, "#target")[0].text == "51" and "Syrian 41" in find(browser, "#deal-line")[0].text
    find(browser, "#rules-toggle")[0].click()
    assert "A team wins when one of its players reaches 51 points" in find(browser, "#rules-panel")[0].text
    find(browser, "#rules-toggle")[0].click()
    check_layout(browser, "the table under syrian41")


def words_of(lang: str) -> dict[str, str]:
    return json.loads((REPO / "playing" / "web" / "static" / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def play_a_hand(browser, app, where: str) -> dict:
    """Click the lowest bid / first legal move until the hand is over; lay the page out at each phase; the record
    in its file (dict) form."""
    laid_out = set()
    while (thing := next_thing(browser)) != "result":
        phase = session_of(browser, app).state()["phase"]
        if phase not in laid_out:
            check_layout(browser, f"{where}, {phase}")
            laid_out.add(phase)
        click_a_move(browser, thing)
    check_layout(browser, f"{where}, the result")
    return session_of(browser, app).table.records[-1].to_dict()


@pytest.fixture()
def arabic_browser():
    """A Chromium whose language is Arabic: the page must follow it with no choice made."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=390,844",
                "--lang=ar"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": "ar,en"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


@pytest.mark.slow
def test_a_hand_in_arabic_on_a_phone_reads_right_to_left_and_fits(server, arabic_browser):
    url, app = server
    browser = arabic_browser
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#seat-1 .name"))
    assert browser.execute_script("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
    assert find(browser, "#tab-table")[0].text == "الطاولة" and find(browser, "#seat-1 .name")[0].text.startswith("اليمين")
    assert find(browser, "#lang")[0].get_attribute("value") == "ar"
    shot(browser, "web_arabic_phone.png")
    record = play_a_hand(browser, app, "Arabic")
    title = find(browser, "#result-title")[0].text
    words = words_of("ar")
    over = words["result.we_win"] if session_of(browser, app).table.game.winner == 0 else words["result.they_win"]
    assert title == (words["result.thrown_in"] if record["thrown_in"] else over)  # a game to 5: one hand
    assert words["result.score"] in find(browser, "#result")[0].text
    assert not any(w in find(browser, "#result")[0].text for w in ("Score", "Tricks", "New game", "Us ", "Them "))
    shot(browser, "web_arabic_result.png")


@pytest.mark.slow
def test_the_language_switcher_is_remembered_and_a_hand_plays_in_spanish(server, browser, tmp_path):
    url, app = server
    browser.get(url)
    browser.execute_script("sessionStorage.clear(); localStorage.clear()")
    browser.get(url)
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#seat-1 .name"))
    assert browser.execute_script("return document.documentElement.lang") == "en"  # the browser's language
    Select(find(browser, "#lang")[0]).select_by_value("es")
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#hint")[0].text == "Pista")
    browser.refresh()
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#seat-1 .name") and find(b, "#hint")[0].text == "Pista")
    assert find(browser, "#seat-1 .name")[0].text.startswith("Derecha")
    record = play_a_hand(browser, app, "Spanish")
    title = find(browser, "#result-title")[0].text
    words = words_of("es")
    over = words["result.we_win"] if session_of(browser, app).table.game.winner == 0 else words["result.they_win"]
    assert title == (words["result.thrown_in"] if record["thrown_in"] else over)
    assert find(browser, "#next-deal")[0].text == (words["result.next_deal"] if record["thrown_in"] else "Nueva partida")
    # the server's refusal of an edited record, in Spanish: the reason too, not only its frame
    bad = tmp_path / "editada.json"
    bad.write_text(json.dumps(dict(record, score_delta=[record["score_delta"][0] + 1, record["score_delta"][1]])))
    browser.execute_script("document.getElementById('tab-replay').click()")  # the result panel covers the tabs
    find(browser, "#replay-upload")[0].send_keys(str(bad))
    toast = WebDriverWait(browser, WAIT).until(
        lambda b: [t.text for t in find(b, "#toast:not([hidden])") if t.text.startswith("Rechazado")])[0]
    assert toast.startswith("Rechazado: score_delta: el registro dice ") and ", la reproducción da " in toast
    row = find(browser, "#replay-list tbody tr.refused")[0]
    assert row.get_attribute("title") == toast and row.text.endswith(words["replay.refused"])
    browser.execute_script("document.getElementById('tab-table').click()")
    Select(find(browser, "#lang")[0]).select_by_value("en")  # the other tests read English
    WebDriverWait(browser, WAIT).until(lambda b: find(b, "#hint")[0].text == "Hint")
