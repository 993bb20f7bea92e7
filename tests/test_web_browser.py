"""The web table in a real headless Chromium (Debian's ``chromium`` + ``chromium-driver``, driven by Selenium).

A whole hand is played by clicking, the page's score is checked against the
engine's, and a replay is stepped through. Screenshots go to
``runs/test-artifacts/web/`` (``$TARNEEB_ARTIFACTS`` overrides). Without
Chromium the tests skip locally, but fail under CI (``CI=true``), where
``.ci/run`` installs it.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import threading
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
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.expected_conditions import staleness_of  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from evaluation import duplicate_match  # noqa: E402
from playing.web.app import create_app  # noqa: E402
from playing.web.session import ServerConfig  # noqa: E402
from tarneeb_env import make_rules  # noqa: E402
from tarneeb_env.cards import PASS  # noqa: E402

WAIT = 20  # seconds any one page change may take


@pytest.fixture(scope="module")
def server():
    config = ServerConfig(make_rules("classic"), "classic", {"rule": "rule", "random": "random"}, "rule", "rule",
                          0.05, 21, 1)
    app = create_app(config)
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


def click_a_move(browser, buttons) -> None:
    """The lowest bid where bids are offered (so the hand gets played), else the first legal choice."""
    bids = [b for b in buttons if b.get_attribute("data-action") != str(PASS)]
    button = (bids or buttons)[0]
    button.click()
    WebDriverWait(browser, WAIT, 0.02).until(staleness_of(button))  # the page has drawn the server's answer


def session_of(browser, app):
    sid = browser.execute_script("return sessionStorage.getItem('tarneeb-session')")
    return app.state.sessions[sid]


def test_a_hand_played_by_clicking_scores_as_the_engine_says_and_replays(server, browser):
    url, app = server
    browser.get(url)
    phone_shot = table_shot = False
    while True:
        thing = next_thing(browser)
        if thing == "result":
            session = session_of(browser, app)
            if not session.table.records[-1]["thrown_in"]:
                break
            button = find(browser, "#next-deal")[0]
            button.click()
            WebDriverWait(browser, WAIT, 0.02).until(lambda b: not find(b, "#result:not([hidden])"))
            continue
        tricks = len(session_of(browser, app).table.game.trick_winners)
        in_trick = len(session_of(browser, app).table.game.trick) >= 2
        if not table_shot and tricks >= 4 and in_trick and find(browser, "#hand button.card:not([disabled])"):
            find(browser, "#last")[0].click()
            assert find(browser, "#last-trick")[0].text.startswith(f"Trick {tricks}: ")
            find(browser, "#last")[0].click()
            find(browser, "#hint")[0].click()
            hint = WebDriverWait(browser, WAIT).until(lambda b: [h for h in find(b, "#hint-text:not([hidden])") if h.text])
            assert hint[0].text.startswith("The rule player would play ")
            shot(browser, "web_table.png")
            table_shot = True
        if not phone_shot and tricks >= 2 and in_trick:
            browser.set_window_size(400, 900)
            shot(browser, "web_table_phone.png")
            browser.set_window_size(1100, 980)
            phone_shot = True
        click_a_move(browser, thing)
    shot(browser, "web_hand_over.png")
    game = session.table.game
    record = session.table.records[-1]
    assert find(browser, "#score-us")[0].text == str(game.scores[0])
    assert find(browser, "#score-them")[0].text == str(game.scores[1])
    assert f"Us {game.scores[0]} – Them {game.scores[1]}" in find(browser, "#result-score")[0].text
    assert f"Tricks: Us {record['tricks_won'][0]} · Them {record['tricks_won'][1]}" in find(browser, "#result")[0].text
    assert table_shot and phone_shot

    # the replay of that hand, trick by trick, forwards and backwards
    find(browser, "#result #next-deal")[0].click()
    find(browser, "#tab-replay")[0].click()
    rows = WebDriverWait(browser, WAIT).until(lambda b: find(b, "#replay-list tbody tr[data-index]"))
    rows[-1].click()
    WebDriverWait(browser, WAIT).until(lambda b: find(b, ".viewer .rp-hand"))

    def hands_shown():
        return [sorted(int(c) for c in h.get_attribute("data-cards").split(",") if c)
                for h in sorted(find(browser, ".viewer .rp-hand"), key=lambda h: h.get_attribute("data-seat"))]

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
    find(browser, "#replay-upload")[0].send_keys(str(path))
    toast = WebDriverWait(browser, WAIT).until(lambda b: [t for t in find(b, "#toast:not([hidden])") if t.text])
    assert toast[0].text.startswith("refused:") and "score_delta" in toast[0].text


def test_the_duplicate_challenge_shows_the_margin_and_both_plays_side_by_side(server, browser):
    url, app = server
    browser.get(url)
    find(browser, "#tab-challenge")[0].click()
    find(browser, "#dup-start")[0].click()
    WebDriverWait(browser, WAIT).until(lambda b: "Challenge deal 1 of 1" in find(b, "#deal-line")[0].text)
    while (thing := next_thing(browser)) != "result":
        click_a_move(browser, thing)
    dup = session_of(browser, app).duplicate
    assert len(dup["results"]) == 1
    margin = dup["results"][0]["margin"]
    assert f"Your margin: {margin:+d}" in find(browser, "#result")[0].text
    find(browser, "#next-deal")[0].click()  # "See the challenge results"
    total = WebDriverWait(browser, WAIT).until(lambda b: [t for t in find(b, "#dup-total") if t.is_displayed()])
    assert total[0].text == f"{margin:+d}"
    shot(browser, "web_challenge.png")
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
