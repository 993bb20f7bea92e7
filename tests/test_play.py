"""play.py: whole games driven through the real program in a pseudo-terminal, plus the input reader and the drawing."""
from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

import agents
from playing import screen as tui
from playing.records import RecordError, validate_record
from tarneeb_env import raw_env
from tarneeb_env.cards import BID_BASE, PASS, RANK_NAMES, SUIT_SYMBOLS, TRUMP_BASE
from tarneeb_env.record import HandRecord

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PROMPT = re.compile(r"(Your play|Your bid|Name trump) \[legal: ([^\]]*)\]: ")
FINAL = re.compile(r"Final score: Us (-?\d+) – Them (-?\d+)\. Winner: (Us|Them)")
ENV = dict(os.environ, COLUMNS="120", LINES="60", TERM="dumb", PYTHONIOENCODING="utf-8", LANG="C.UTF-8")
ASCII_ENV = dict(ENV, LANG="C", LC_ALL="C", PYTHONIOENCODING="ascii")
TYPED_FORMS = (
    lambda rank, suit: rank + "SDHC"["♠♦♥♣".index(suit)],  # QS, 10H
    lambda rank, suit: rank.lower() + suit,  # q♠, 10♥
    lambda rank, suit: ("t" if rank == "10" else rank.lower()) + "shdc"["♠♥♦♣".index(suit)],  # th
)


def spawn(*args: str, env: dict = ENV) -> pexpect.spawn:
    return pexpect.spawn(PYTHON, ["play.py", *args], cwd=str(REPO), env=env, encoding="utf-8",
                         timeout=15, dimensions=(60, 120))


def card_of(token: str) -> int:
    """Card of a shown token like ``10♥``."""
    return "♣♦♥♠".index(token[-1]) * 13 + RANK_NAMES.index(token[:-1])


def shown_hand_in_order(screen: str) -> list[int]:
    """The cards of the last ``Your hand:`` line on screen (``♠ A K 4   ♥ Q 10``), left to right."""
    line = screen[screen.rindex("Your hand:"):].splitlines()[0]
    cards, suit = [], None
    for token in line.split()[2:]:
        if token in SUIT_SYMBOLS:
            suit = SUIT_SYMBOLS.index(token)
        elif token in RANK_NAMES:
            cards.append(suit * 13 + RANK_NAMES.index(token))
    return cards


def shown_hand(screen: str) -> set[int]:
    return set(shown_hand_in_order(screen))


def forced_cards(record: dict) -> list[str]:
    """Seat 0's plays in a record that were its only legal card, as shown (``5♣``)."""
    hand, forced = set(record["deal"][0]), []
    plays = record["plays"]
    for i, (seat, card) in enumerate(plays):
        if seat == 0:
            led = plays[i - i % 4][1] // 13 if i % 4 else None
            follow = {c for c in hand if c // 13 == led}
            if len(follow or hand) == 1:
                forced.append(RANK_NAMES[card % 13] + SUIT_SYMBOLS[card // 13])
            hand.discard(card)
    return forced


def trick_lines(record: dict) -> list[str]:
    """How each trick of a played hand is shown: ``Trick 1: Left 9♠ · You 3♠ · Right K♠ · Partner 2♠  → Right wins``."""
    lines = []
    for i, winner in enumerate(record["trick_winners"]):
        trick = record["plays"][4 * i : 4 * i + 4]
        cards = " · ".join(f"{tui.SEAT_NAMES[s]} {RANK_NAMES[c % 13]}{SUIT_SYMBOLS[c // 13]}" for s, c in trick)
        said = "You win" if winner == 0 else f"{tui.SEAT_NAMES[winner]} wins"
        lines.append(f"Trick {i + 1}: {cards}  → {said}")
    return lines


def type_card(card: int, n: int) -> str:
    return TYPED_FORMS[n % len(TYPED_FORMS)](RANK_NAMES[card % 13], SUIT_SYMBOLS[card // 13])


def play_game(child: pexpect.spawn, tried: dict) -> str:
    """Answer every prompt until the game ends; along the way try bad input once of each kind.

    Bids: 13 the first time (to name trump), then the lowest legal bid, or pass above 9; cards: the first legal one,
    typed in turn as QS, q♠ and th. ``tried`` collects which bad inputs were tried. Returns the transcript.
    """
    transcript, n = [], 0
    while True:
        i = child.expect([PROMPT, FINAL, pexpect.EOF])
        transcript.append(child.before)
        if i != 0:
            transcript.append(child.after if i == 1 else "")
            return "".join(transcript)
        transcript.append(child.after)
        kind, legal = child.match.group(1), child.match.group(2).split()
        if kind == "Your bid":
            if "too_low" not in tried and "7" not in legal[:2] and "pass" in legal:
                child.sendline(str(int(legal[1]) - 1))
                child.expect(r"Too low: the highest bid is (\d+) by (\w+); bid at least (\d+) or pass\.")
                assert int(child.match.group(3)) == int(legal[1])
                tried["too_low"] = True
                continue
            if "not_a_bid" not in tried:
                child.sendline("banana")
                child.expect(r"'banana' is not a bid: type a number of tricks or pass\.")
                tried["not_a_bid"] = True
                continue
            if "13" in legal and "declared" not in tried:  # become declarer once, to name trump
                child.sendline("13")
                tried["declared"] = True
                continue
            numbers = [b for b in legal if b != "pass"]
            child.sendline(numbers[0] if numbers and int(numbers[0]) <= 9 else "pass")
        elif kind == "Name trump":
            if "not_a_suit" not in tried:
                child.sendline("purple")
                child.expect(r"'purple' is not a suit")
                tried["not_a_suit"] = True
                continue
            child.sendline("Hearts")
        else:
            legal_cards = [card_of(t) for t in legal]
            screen = "".join(transcript)
            assert len(legal_cards) > 1  # a single legal card is played without asking
            in_order = shown_hand_in_order(screen)
            assert legal_cards == [c for c in in_order if c in legal_cards]  # prompt and hand in the same order
            hand = set(in_order)
            table = screen[screen.rindex("Tarneeb · "):]
            on_table = re.findall(r"\[ (\S+) \]", table)
            winning = re.search(r"(You are|Right is|Partner is|Left is) winning with (\S+)", table)
            assert (winning is not None) == bool(on_table)
            assert winning is None or winning.group(2) in on_table
            off_suit = sorted(hand - set(legal_cards))
            if off_suit and "follow" not in tried:
                child.sendline(type_card(off_suit[0], n))
                child.expect(r"You must follow suit: (.) was led and you hold (\w+)\.")
                assert child.match.group(1) == SUIT_SYMBOLS[legal_cards[0] // 13]
                tried["follow"] = True
                continue
            if "not_held" not in tried:
                missing = min(set(range(52)) - hand)
                child.sendline(type_card(missing, 0))
                child.expect("You don't hold " + re.escape(RANK_NAMES[missing % 13] + SUIT_SYMBOLS[missing // 13]))
                tried["not_held"] = True
                continue
            if "nonsense" not in tried:
                child.sendline("xyzzy")
                child.expect(r"'xyzzy' is not a card or a command")
                tried["nonsense"] = True
                continue
            child.sendline(type_card(legal_cards[0], n))
            n += 1


@pytest.fixture(scope="module")
def classic_game(tmp_path_factory):
    """A classic game to 15 against rule players (random bidders overbid, so their games can run forever)."""
    save_dir = tmp_path_factory.mktemp("hands")
    child = spawn("--seed", "3", "--delay", "0", "--partner", "rule", "--opponents", "rule",
                  "--target", "15", "--save-dir", str(save_dir))
    tried: dict = {}
    transcript = play_game(child, tried)
    child.expect(pexpect.EOF)
    child.close()
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(save_dir.glob("*.json"))]
    return transcript, child.exitstatus, records, tried, save_dir


def test_a_whole_game_reaches_its_end_with_the_right_winner(classic_game):
    transcript, status, records, tried, _ = classic_game
    assert status == 0
    us, them, winner = FINAL.search(transcript).groups()
    us, them = int(us), int(them)
    assert [us, them] == records[-1]["record"]["scores"]
    assert winner == ("Us" if us > them else "Them")
    assert max(us, them) >= 15
    # every deal was saved and summed up on screen, with the running score
    assert len(records) >= 2
    assert transcript.count("Hand over") == len(records)
    total = [0, 0]
    for saved in records:
        record = saved["record"]
        total = [total[t] + record["score_delta"][t] for t in range(2)]
        assert record["scores"] == total
        assert f"Score: Us {total[0]} – Them {total[1]}" in transcript
        if not record["thrown_in"]:
            declarer = record["declarer"]
            assert f"Contract {record['bid']} by {tui.SEAT_NAMES[declarer]} (" in transcript
            for line in trick_lines(record):
                assert line in transcript
    assert records[0]["players"] == ["You (you)", "Right (rule)", "Partner (rule)", "Left (rule)"]


def test_the_game_shows_your_hand_contract_and_tricks(classic_game):
    transcript, _, records, _, _ = classic_game
    first = records[0]["record"]
    assert shown_hand(transcript[: transcript.index("Your bid")]) == set(first["deal"][0])
    played = next(s["record"] for s in records if not s["record"]["thrown_in"])
    contract = f"Contract: {played['bid']} by {tui.SEAT_NAMES[played['declarer']]}"
    assert contract in transcript
    assert re.search(r"Trick 13: (\w+ \S+ · ){3}\w+ \S+  → (You win|\w+ wins)", transcript)


def test_an_only_legal_card_is_played_for_you_and_said_so(classic_game):
    transcript, _, records, _, _ = classic_game
    expected = [card for saved in records for card in forced_cards(saved["record"])]
    # at least the last card of every played deal; play_game asserts no prompt offered a single card
    assert len(expected) >= sum(not saved["record"]["thrown_in"] for saved in records)
    assert re.findall(r"You play (\S+) \(your only legal card\)\.", transcript) == expected


def test_the_table_marks_and_explains_the_dealer(classic_game):
    transcript, _, records, _, _ = classic_game
    first = records[0]["record"]
    dealer = tui.SEAT_NAMES[first["dealer"]]
    assert f"Deal 1 · dealer: {dealer}" in transcript
    assert re.search(rf"{dealer}( \(rule\))? \[D\]", transcript)
    assert transcript.count("[D] dealer") == transcript.count("Your hand:")  # a legend under every table


def test_bad_input_is_explained_and_asked_again(classic_game):
    _, status, _, tried, _ = classic_game
    # each kind of bad input was met (asserted in play_game) and the game still finished normally
    assert set(tried) == {"too_low", "not_a_bid", "declared", "not_a_suit", "follow", "not_held", "nonsense"}
    assert status == 0


def test_replay_shows_a_saved_hand_trick_by_trick(classic_game):
    *_, records, _, save_dir = classic_game
    path = next(p for p in sorted(save_dir.glob("*.json"))
                if not json.loads(p.read_text(encoding="utf-8"))["record"]["thrown_in"])
    record = json.loads(path.read_text(encoding="utf-8"))["record"]
    out = pexpect.run(f"{PYTHON} play.py --replay {path} --delay 0", cwd=str(REPO), env=ENV, encoding="utf-8",
                      withexitstatus=True)
    text, status = out
    assert status == 0
    for line in trick_lines(record):
        assert line in text
    assert f"Score: Us {record['scores'][0]} – Them {record['scores'][1]}" in text


def test_replay_of_a_file_that_is_no_record_says_why(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"plays": []}', encoding="utf-8")
    text, status = pexpect.run(f"{PYTHON} play.py --replay {bad}", cwd=str(REPO), env=ENV, encoding="utf-8",
                               withexitstatus=True)
    assert status == 2
    assert text == f"{bad}: not a Tarneeb hand record: missing dealer, deal, auction, rules, scores, score_delta, " \
                   "seat_scores, seat_score_delta\r\n"


def played_save(save_dir: Path) -> tuple[Path, dict]:
    """The first saved deal of the classic game that was played out, and its file."""
    for path in sorted(save_dir.glob("*.json")):
        saved = json.loads(path.read_text(encoding="utf-8"))
        if not saved["record"]["thrown_in"]:
            return path, saved
    raise AssertionError("no deal was played out")


def run_replay(path: Path) -> tuple[str, int]:
    return pexpect.run(f"{PYTHON} play.py --replay {path} --delay 0", cwd=str(REPO), env=ENV, encoding="utf-8",
                       withexitstatus=True)


def test_replay_refuses_a_record_with_an_illegal_play(classic_game, tmp_path):
    *_, save_dir = classic_game
    _, saved = played_save(save_dir)
    plays = saved["record"]["plays"]
    # a renege: where a seat followed suit, it plays instead a card of another suit that it held then
    suit = [card // 13 for _, card in plays]
    i, j = next((i, j) for i in range(len(plays)) if i % 4 and suit[i] == suit[i - i % 4]
                for j in range(i + 1, len(plays)) if plays[j][0] == plays[i][0] and suit[j] != suit[i])
    plays[i], plays[j] = [plays[i][0], plays[j][1]], [plays[j][0], plays[i][1]]
    seat, card = plays[i]
    bad = tmp_path / "renege.json"
    bad.write_text(json.dumps(saved), encoding="utf-8")
    text, status = run_replay(bad)
    assert status == 2
    name = RANK_NAMES[card % 13] + "CDHS"[card // 13]
    assert re.fullmatch(rf"{re.escape(str(bad))}: plays\[{i}\] \({name} by seat {seat}\): not a legal move here "
                        r"\(legal: [0-9JQKA]+[CDHS]( [0-9JQKA]+[CDHS])*\)\r\n", text), text


def test_replay_refuses_a_record_whose_score_does_not_follow(classic_game, tmp_path):
    *_, save_dir = classic_game
    _, saved = played_save(save_dir)
    record = saved["record"]
    real = list(record["score_delta"])
    record["score_delta"][0] += 1
    bad = tmp_path / "score.json"
    bad.write_text(json.dumps(saved), encoding="utf-8")
    text, status = run_replay(bad)
    assert status == 2
    assert text == f"{bad}: score_delta: the record says {record['score_delta']}, the replay gives {real}\r\n"


def test_validate_record_names_the_first_thing_that_does_not_follow(classic_game):
    *_, save_dir = classic_game
    _, saved = played_save(save_dir)
    record = saved["record"]
    assert validate_record(copy.deepcopy(record)) == record

    def refused(change) -> str:
        bad = copy.deepcopy(record)
        change(bad)
        with pytest.raises(RecordError) as e:
            validate_record(bad)
        assert isinstance(e.value, ValueError) and "\n" not in str(e.value)
        return str(e.value)

    won = record["tricks_won"]
    assert refused(lambda r: r.update(tricks_won=won[::-1])) == (
        f"tricks_won: the record says {won[::-1]}, the replay gives {won}")
    assert refused(lambda r: r["plays"].pop()) == "plays: the record ends before the deal does (51 cards played)"
    assert refused(lambda r: r["plays"].append([0, 0])) == "plays[52] (2C by seat 0): the deal was already over"
    first = record["plays"][0]
    other = (first[0] + 1) % 4
    assert refused(lambda r: r["plays"][0].__setitem__(0, other)).endswith(
        f"by seat {other}): seat {first[0]} is on turn")
    assert refused(lambda r: r["auction"].pop(0)).startswith("auction[0] (")
    assert refused(lambda r: r["plays"].__setitem__(3, "AS")) == (
        "plays[3]: expected [seat 0-3, action 0-69], got AS")
    assert refused(lambda r: r["rules"].update(auction="x")).startswith("rules.auction: 'x' is not one of")
    assert refused(lambda r: r.update(thrown_in=0)) == "thrown_in: the record says 0, the replay gives False"
    assert refused(lambda r: r["deal"][0].__setitem__(0, r["deal"][1][0])) == (
        "deal: the four hands must together hold all 52 cards")
    assert refused(lambda r: r.pop("dealer")) == "not a Tarneeb hand record: missing dealer"
    with pytest.raises(RecordError, match="expected a JSON object, got list"):
        validate_record([record])


def test_validate_record_needs_the_exposed_card_where_it_names_trump():
    env = raw_env(rules="trump_by_card", episode="hand")
    env.reset(seed=2)
    player = agents.RandomAgent(seed=2)
    record = None
    while record is None:
        agent = env.agent_selection
        env.step(player.act(env.observe(agent), env.unwrapped.view(agent)))
        record = env.infos[agent].get("hand_record")
    assert validate_record(record) == record
    with pytest.raises(RecordError, match=r"^exposed_card: missing; under trump: last_card"):
        validate_record(dict(record, exposed_card=None))


def test_the_docs_name_saved_files_as_save_dir_writes_them(classic_game):
    *_, save_dir = classic_game
    page = (REPO / "docs" / "playing.md").read_text(encoding="utf-8")
    example = re.search(r"--replay DIR/(\S+)", page).group(1)
    shape = re.sub(r"\d+", r"\\d+", re.escape(example))
    names = [p.name for p in save_dir.glob("*.json")]
    assert names and all(re.fullmatch(shape, name) for name in names), (example, names)


def test_an_ascii_terminal_gets_ascii_and_plays_a_whole_game_typed_as_qs(tmp_path):
    saves = tmp_path / "hands"
    child = spawn("--seed", "8", "--delay", "0", "--partner", "rule", "--opponents", "rule", "--target", "5",
                  "--save-dir", str(saves), env=ASCII_ENV)
    child.setecho(False)  # the transcript is then the program's output alone
    transcript, declared = [], False
    child.expect(PROMPT)
    transcript.append(child.before + child.after)
    os.write(child.child_fd, "Q♠\r".encode())  # a UTF-8 terminal's spade, undecodable as ASCII
    child.expect(r"Could not read that input \(not valid in this terminal's encoding\); type e\.g\. QS")
    while True:
        i = child.expect([PROMPT, r"Final score: Us (-?\d+) - Them (-?\d+)\. Winner: (Us|Them)"])
        transcript.append(child.before + child.after)
        if i == 1:
            break
        kind, legal = child.match.group(1), child.match.group(2).split()
        if kind == "Your bid":
            numbers = [b for b in legal if b != "pass"]
            bid = "13" if not declared and "13" in legal else numbers[0] if int(numbers[0]) <= 9 else "pass"
            declared = declared or bid == "13"
            child.sendline(bid if bid in legal else numbers[0])
        elif kind == "Name trump":
            child.sendline("s")
        else:
            assert all(re.fullmatch(r"(10|[2-9JQKA])[CDHS]", card) for card in legal)
            child.sendline(legal[0])  # typed as shown: QS, 10H
    us, them, _ = child.match.groups()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = "".join(transcript)
    assert text.isascii() and "?" not in text  # no glyph fell back to '?'
    assert re.search(r"Trick 1: (\w+ (10|[2-9JQKA])[CDHS] \| ){3}\w+ \S+  -> (You win|\w+ wins)", text)
    assert "Tarneeb | rules classic | target 5 | seed 8" in text and "[D] dealer" in text
    records = [json.loads(p.read_text(encoding="utf-8"))["record"] for p in sorted(saves.glob("*.json"))]
    assert [int(us), int(them)] == records[-1]["scores"]
    assert all(validate_record(r) == r for r in records)


@pytest.mark.parametrize("env", [ENV, ASCII_ENV], ids=["utf-8", "ascii"])
def test_undecodable_input_is_refused_and_asked_again(env):
    child = spawn("--seed", "5", "--delay", "0", "--partner", "random", "--opponents", "random", env=env)
    child.setecho(False)  # the terminal would echo the bytes back
    child.expect(PROMPT)
    os.write(child.child_fd, b"\xff\xfe8\r")
    child.expect(r"Could not read that input \(not valid in this terminal's encoding\)")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"You left the game\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_undecodable_piped_input_is_refused_and_the_next_line_read():
    done = subprocess.run([PYTHON, "play.py", "--seed", "5", "--delay", "0", "--partner", "random",
                           "--opponents", "random"], cwd=REPO, env=ENV, input=b"\xff\nquit\n", capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert b"Could not read that input" in done.stdout and b"You left the game" in done.stdout
    assert b"Traceback" not in done.stderr


def test_commands_and_quit():
    child = spawn("--seed", "5", "--delay", "0", "--partner", "random", "--opponents", "random")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("Play a card: QS")
    child.expect(r"\[D\] marks the dealer; the player on the dealer's right bids first\.")
    child.expect(PROMPT)
    child.sendline("score")
    child.expect(r"Us 0\s+Them 0\s+\(target 31\)")
    child.expect(PROMPT)
    child.sendline("last")
    child.expect("No trick has been completed yet in this deal.")
    child.expect(PROMPT)
    child.sendline("hint")  # the strong player's choice and its numbers (the web table's Hint)
    child.expect(r"Hint: (pass|bid \d+)   \(the strong player: search over 64 layouts\)")
    child.expect(r"\n  (pass|bid \d+) +\d+\.\d%")  # a candidate and the network's probability
    child.expect(r"your side's tricks by trump: C \d+\.\d  D \d+\.\d  H \d+\.\d  S \d+\.\d")
    child.expect(PROMPT)
    child.sendline("QUIT")
    child.expect(r"You left the game\. Score: Us 0 – Them 0\.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("agent", ["random", "search?samples=2"])  # search: a built-in seated with settings
def test_end_of_input_quits_cleanly(agent):
    child = spawn("--seed", "5", "--delay", "0", "--partner", agent, "--opponents", agent)
    child.expect(PROMPT)
    child.sendeof()
    child.expect("You left the game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_no_auction_variant_from_a_yaml_file_goes_straight_to_play_and_shows_the_exposed_card(tmp_path):
    rules = tmp_path / "quick.yaml"
    rules.write_text("preset: trump_by_card\ntarget_score: 1\n", encoding="utf-8")
    saves = tmp_path / "hands"
    child = spawn("--seed", "3", "--delay", "0", "--partner", "random", "--opponents", "random",
                  "--rules", str(rules), "--save-dir", str(saves))
    child.expect(r"Tarneeb · rules quick\.yaml · target 1 · seed 3")
    child.expect(r"The dealer's last card is (\S+): trump is (\S)")
    exposed, trump = child.match.groups()
    assert exposed[-1] == trump
    transcript = play_game(child, {"follow": True, "not_held": True, "nonsense": True})
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Your bid" not in transcript
    (saved,) = [json.loads(p.read_text(encoding="utf-8")) for p in saves.glob("*.json")]
    record = saved["record"]
    assert record["exposed_card"] == card_of(exposed)
    us, them, winner = FINAL.search(transcript).groups()
    assert winner == ("Us" if record["tricks_won"][0] >= 7 else "Them")
    assert [int(us), int(them)] == record["scores"]


def test_individual_bidding_has_no_pass():
    child = spawn("--seed", "4", "--delay", "0", "--partner", "random", "--opponents", "random",
                  "--rules", "syrian41")
    child.expect(PROMPT)
    assert child.match.group(1) == "Your bid"
    assert child.match.group(2).split() == [str(b) for b in range(2, 14)]
    child.sendline("pass")
    child.expect(r"There is no passing in individual bidding: bid 2 to 13 tricks\.")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(r"The lowest bid is 2\.")
    child.expect(PROMPT)
    child.sendline("14")
    child.expect(r"Bids go from 2 to 13 tricks\.")
    child.expect(PROMPT)
    child.sendline("bid 4")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rules", "nosuch"], "unknown rules preset 'nosuch'"),
        (["--partner", "nosuch"], "cannot load agent 'nosuch'"),
        (["--target", "0"], "target_score: must be at least 1"),
        (["--seed", "-1"], "--seed: must be 0 or more"),
    ],
)
def test_bad_command_line_says_what_is_wrong(args, message):
    text, status = pexpect.run(f"{PYTHON} play.py " + " ".join(args), cwd=str(REPO), env=ENV, encoding="utf-8",
                               withexitstatus=True)
    assert status == 2
    assert message in text


# ------------------------------------------------------------------ the input reader, without a terminal
@pytest.fixture
def table():
    """Seat 0 holds 2♣..K♣ and the A♦, seat 1 the A♣ and 2♦..K♦, seat 2 hearts, seat 3 spades; seat 0 bids first."""
    hands = [list(range(12)) + [25], [12] + list(range(13, 25)), list(range(26, 39)), list(range(39, 52))]
    env = raw_env(episode="game")
    env.reset(seed=0, options={"deal": hands, "dealer": 3})
    return env


def test_cards_read_in_every_form():
    queen_spades = 3 * 13 + 10
    ten_hearts = 2 * 13 + 8
    for text in ("QS", "qs", "Q♠", "q ♠", "Q♤", "q of spades", "Q♠\ufe0f", " qS "):
        assert tui.parse_card(text) == queen_spades, text
    for text in ("10h", "10H", "th", "TH", "10♥", "t♡", "10 hearts"):
        assert tui.parse_card(text) == ten_hearts, text
    for text in ("1h", "11s", "QX", "Q", "queen", "", "10"):
        assert tui.parse_card(text) is None, text


def test_bids_trump_and_commands_are_read_against_the_legal_actions(table):
    view = table.view(0)
    assert tui.parse_input("pass", view) == PASS
    assert tui.parse_input("8", view) == BID_BASE + 8
    assert tui.parse_input("bid 13", view) == BID_BASE + 13
    assert tui.parse_input("Hint", view) == "hint"
    assert tui.parse_input("exit", view) == "quit"
    with pytest.raises(tui.InputError, match=r"The lowest bid is 7\."):
        tui.parse_input("6", view)
    with pytest.raises(tui.InputError, match=r"Bids go from 7 to 13"):
        tui.parse_input("14", view)
    with pytest.raises(tui.InputError, match=r"auction is still on"):
        tui.parse_input("QS", view)
    table.step(BID_BASE + 9)  # seat 0 bids 9; seat 1 now
    table.step(PASS)
    table.step(PASS)
    table.step(PASS)  # seat 0 declares
    view = table.view(0)
    assert view.phase == "trump"
    for text, suit in (("spades", 3), ("S", 3), ("♥", 2), ("heart", 2), ("d", 1), ("Clubs", 0)):
        assert tui.parse_input(text, view) == TRUMP_BASE + suit
    with pytest.raises(tui.InputError, match="is not a suit"):
        tui.parse_input("purple", view)


def test_too_low_bid_names_the_highest_bid(table):
    table.step(BID_BASE + 9)  # seat 0
    table.step(BID_BASE + 10)  # seat 1
    table.step(PASS)  # seat 2
    table.step(PASS)  # seat 3
    view = table.view(0)
    with pytest.raises(tui.InputError, match=r"Too low: the highest bid is 10 by Right; bid at least 11 or pass\."):
        tui.parse_input("10", view)


def test_cards_must_be_held_and_follow_suit(table):
    table.step(BID_BASE + 7)
    for _ in range(3):
        table.step(PASS)
    table.step(TRUMP_BASE + 3)  # seat 0 names spades and leads
    view = table.view(0)
    assert view.phase == "play"
    with pytest.raises(tui.InputError, match=r"You don't hold A♣\."):
        tui.parse_input("AC", view)
    with pytest.raises(tui.InputError, match="No bidding now: play a card"):
        tui.parse_input("8", view)
    assert tui.parse_input("2c", view) == 0
    table.step(25)  # seat 0 leads the A♦
    table.step(13)  # seat 1 follows with the 2♦
    table.step(26)  # seat 2 (hearts only) discards
    table.step(39)  # seat 3 (spades) trumps and wins; seat 3 leads next
    table.step(40)  # seat 3 leads 3♠; seat 0 has no spades: any card
    view = table.view(0)
    assert tui.parse_input("Q♣", view) == 10


def test_follow_suit_message_names_the_led_suit():
    hands = [[0, 1, 13] + list(range(26, 36)), list(range(2, 13)) + [14, 15], list(range(16, 26)) + [36, 37, 38],
             list(range(39, 52))]
    env = raw_env(episode="game", rules={"auction": "none", "trump": "hearts", "first_lead": "eldest"})
    env.reset(seed=0, options={"deal": hands, "dealer": 0})
    env.step(2)  # seat 1 (eldest) leads 4♣
    env.step(16)  # seat 2 cannot follow
    env.step(39)  # seat 3 cannot follow
    view = env.view(0)
    with pytest.raises(tui.InputError, match=r"You must follow suit: ♣ was led and you hold clubs\."):
        tui.parse_input("2d", view)
    assert tui.parse_input("3c", view) == 1


def test_hand_is_sorted_by_suit_with_red_hearts_and_diamonds():
    glyphs = tui.Glyphs("utf-8")
    hand = glyphs.hand([0, 12, 13, 26, 38, 51])
    assert hand.plain == "♠ A   ♥ A 2   ♣ A 2   ♦ 2"
    console = Console(force_terminal=True, color_system="standard", width=80)
    with console.capture() as cap:
        console.print(glyphs.card(26), glyphs.card(39))
    out = cap.get()
    assert "\x1b[1;31m2♥" in out  # bold red
    assert "\x1b[1m2♠" in out
    assert tui.Glyphs("ascii").hand([38, 51]).plain == "S A   H A"


def test_default_players_are_the_shipped_agent_for_the_rules_else_rule(tmp_path, monkeypatch, unshipped_rules):
    from agents import shipped
    from playing import table_setup as play
    from tarneeb_env import make_rules

    classic = make_rules("classic")
    assert play.default_agent_spec(classic, "classic") == (str(shipped.SHIPPED_DIR / "classic.pt"), None)
    assert play.default_agent_spec(make_rules("syrian41"), "syrian41") == (str(shipped.SHIPPED_DIR / "syrian41.pt"), None)
    assert play.default_agent_spec(make_rules("trump_by_card"), "trump_by_card") == (
        str(shipped.SHIPPED_DIR / "trump_by_card.pt"), None)
    spec, note = play.default_agent_spec(make_rules(unshipped_rules), "unshipped.yaml")
    assert spec == "rule" and note == "No shipped agent is trained for rules unshipped.yaml; playing 'rule' instead."
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path)
    assert play.default_agent_spec(classic, "classic")[0] == "rule"
    (tmp_path / "default.pt").write_bytes(b"")
    spec, note = play.default_agent_spec(classic, "classic")
    assert spec == "rule" and note.startswith("Cannot load the shipped agent (") and "an empty file" in note


def test_individual_hand_result_lists_each_players_bid_tricks_and_points():
    env = raw_env(rules="syrian41", episode="hand")
    env.reset(seed=7)
    player = agents.RandomAgent(seed=7)
    record = None
    while record is None or record["thrown_in"]:
        agent = env.agent_selection
        env.step(player.act(env.observe(agent), env.unwrapped.view(agent)))
        record = env.infos[agent].get("hand_record", record)
    console = Console(width=100, color_system=None)
    with console.capture() as cap:
        console.print(tui.Screen(tui.Glyphs(), ["you", "a", "b", "c"]).hand_result(HandRecord.from_dict(record)))
    out = cap.get()
    for s in range(4):
        d = record["seat_score_delta"][s]
        assert re.search(rf"{tui.SEAT_NAMES[s]}\s+{record['bids'][s]}\s+{record['tricks_by_seat'][s]}\s+{d:+d}", out)
    assert "Players: " + ", ".join(f"{tui.SEAT_NAMES[s]} {record['seat_scores'][s]}" for s in range(4)) in out


def no_auction_table(dealer: int):
    """Seat 0 holds 2♣ 3♣ 2♦ and 2♥..J♥; hearts are trump and the seat after the dealer leads."""
    hands = [[0, 1, 13] + list(range(26, 36)), list(range(2, 13)) + [14, 15], list(range(16, 26)) + [36, 37, 38],
             list(range(39, 52))]
    env = raw_env(episode="game", rules={"auction": "none", "trump": "hearts", "first_lead": "eldest"})
    env.reset(seed=0, options={"deal": hands, "dealer": dealer})
    return env


def test_legal_moves_are_listed_in_the_order_of_the_hand():
    view = no_auction_table(dealer=3).view(0)  # seat 0 leads: every card is legal
    glyphs = tui.Glyphs()
    assert glyphs.hand(view.hand).plain == "♥ J 10 9 8 7 6 5 4 3 2   ♣ 3 2   ♦ 2"
    assert tui.legal_hint(view, glyphs).plain == "[legal: J♥ 10♥ 9♥ 8♥ 7♥ 6♥ 5♥ 4♥ 3♥ 2♥ 3♣ 2♣ 2♦]"


def test_the_table_shows_who_is_winning_the_trick_in_progress():
    env = no_auction_table(dealer=0)
    screen = tui.Screen(tui.Glyphs(), ["you", "a", "b", "c"])
    console = Console(width=120, color_system=None)

    def centre() -> str:
        with console.capture() as cap:
            console.print(screen.table(env.view(0), "test", 1))
        return cap.get()

    assert "winning" not in centre()  # no card played yet
    env.step(2)  # Right leads 4♣
    env.step(16)  # Partner, void in clubs, discards 5♦: Right still wins
    assert "Right is winning with 4♣" in centre()
    env.step(39)  # Left discards 2♠
    assert "Right is winning with 4♣" in centre()
    env = no_auction_table(dealer=0)
    env.step(2)
    env.step(36)  # Partner trumps with Q♥
    assert "Partner is winning with Q♥" in centre()
    assert "[D] dealer" in centre()


def test_an_ascii_terminal_gets_letters_and_ascii_separators():
    for encoding in ("ascii", "latin-1", "cp1252"):
        glyphs = tui.Glyphs(encoding)
        assert (glyphs.suits, glyphs.dot, glyphs.dash, glyphs.arrow) == ("CDHS", "|", "-", "->"), encoding
    screen = tui.Screen(tui.Glyphs("ascii"), ["you", "a", "b", "c"])
    trick = [(3, 47), (0, 40), (1, 50), (2, 39)]
    assert screen.trick_line(trick, 1).plain == "Left 10S | You 3S | Right KS | Partner 2S  -> Right wins"
    assert screen.score([3, -5]) == "Score: Us 3 - Them -5"
    assert tui.Screen(tui.Glyphs(), ["you", "a", "b", "c"]).score([3, 5]) == "Score: Us 3 – Them 5"


def test_input_messages_use_the_terminals_glyphs_and_refuse_undecodable_text(table):
    table.step(BID_BASE + 7)
    for _ in range(3):
        table.step(PASS)
    table.step(TRUMP_BASE + 3)
    view = table.view(0)
    ascii_glyphs = tui.Glyphs("ascii")
    with pytest.raises(tui.InputError, match=r"^You don't hold AC\.$"):
        tui.parse_input("AC", view, ascii_glyphs)
    with pytest.raises(tui.InputError, match=r"type a card like QS or 10h, or help\.$"):
        tui.parse_input("xyzzy", view, ascii_glyphs)
    assert tui.parse_input("QC", view, ascii_glyphs) == 10
    # what a reader with errors="surrogateescape" makes of the UTF-8 bytes of Q♠ in an ASCII terminal
    typed = "Q♠".encode().decode("ascii", errors="surrogateescape")
    with pytest.raises(tui.InputError, match=r"^Could not read that input \(not valid in this terminal's encoding\)"):
        tui.parse_input(typed, view, ascii_glyphs)


def _hint_in_play(rules_spec: str, label: str) -> str:
    """The terminal game's Hint for seat 0's first card of a deal (the others bid and play at random)."""
    import numpy as np

    from playing.terminal import TerminalGame
    from tarneeb_env import make_rules
    from tarneeb_env.rules_core import PLAY
    from tarneeb_env.view import make_view

    rules = make_rules(rules_spec)
    game = TerminalGame(Console(width=200), rules, label, [None, "random", "random", "random"], seed=7)
    table = agents.table.Table(rules, np.random.default_rng(7), 0, game.seating, hint=game.hint_agent)
    g, rng = table.game, np.random.default_rng(1)
    while not (g.phase == PLAY and g.current == 0):
        view = make_view(g, g.current)
        bids = [a for a in view.legal_actions if a != PASS]
        g.apply(int(PASS if PASS in view.legal_actions and g.current != 0 else rng.choice(bids or view.legal_actions)))
    return game._hint(make_view(g, 0)).plain


def test_the_terminal_hint_is_the_strong_players_with_its_numbers_else_rules_reason(unshipped_rules):
    text = _hint_in_play("classic", "classic")
    lines = text.splitlines()
    assert re.fullmatch(r"Hint: \w{1,2}[SHDC]   \(the strong player: search over 64 layouts\)", lines[0])
    assert re.fullmatch(r"  \w{1,2}[SHDC] +\d+\.\d% +[+-]\d+\.\d points +(make|set) +\d+%", lines[1])
    assert all(re.match(r"  \w{1,2}[SHDC] +\d+\.\d%", line) for line in lines[1:])  # each with its probability
    assert _hint_in_play(unshipped_rules, "unshipped.yaml").startswith("Hint: the rule player would play ")
