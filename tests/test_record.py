"""The typed hand record (tarneeb_env.record.HandRecord): what both engines report, read the same everywhere.

``fixtures/hand_records_v1.jsonl`` was written by the code before the record was typed (``raw_env`` infos, one
line per preset, then a contract that went down and a thrown-in deal): its JSON form must stay what it was.
"""
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from playing.records import validate_record
from tarneeb_env import PlayerView, TarneebGame, make_rules
from tarneeb_env.batch import BatchEnv, random_legal_actions
from tarneeb_env.record import FIELDS, HandRecord
from tarneeb_env.view import make_view

LINES = (Path(__file__).parent / "fixtures" / "hand_records_v1.jsonl").read_text(encoding="utf-8").splitlines()
SAVED = [json.loads(line) for line in LINES]
CLASSIC_MADE, SYRIAN, HEARTS, NO_AUCTION, CLASSIC_DOWN, THROWN_IN = range(6)


def test_saved_records_read_back_to_the_same_json():
    for line, data in zip(LINES, SAVED):
        assert list(data) == list(FIELDS)
        assert json.dumps(HandRecord.from_dict(data).to_dict()) == line


def test_saved_records_still_replay():
    for data in SAVED:
        assert validate_record(json.loads(json.dumps(data))) == data


def test_from_dict_leaves_a_saved_lines_other_keys_aside_and_names_a_missing_field():
    line = {"pair": ["a", "b"], "seats": ["a", "b", "a", "b"], **SAVED[0]}
    assert HandRecord.from_dict(line) == HandRecord.from_dict(SAVED[0])
    with pytest.raises(KeyError, match="tricks_won"):
        HandRecord.from_dict({k: v for k, v in SAVED[0].items() if k != "tricks_won"})


@pytest.mark.parametrize("index, team, made", [
    (CLASSIC_MADE, 1, True), (CLASSIC_DOWN, 1, False), (SYRIAN, None, None), (NO_AUCTION, None, None),
    (THROWN_IN, None, None),
])
def test_declaring_team_and_made(index, team, made):
    record = HandRecord.from_dict(SAVED[index])
    assert record.declaring_team == team and record.made is made


def test_seat_made_under_individual_bidding():
    record = HandRecord.from_dict(SAVED[SYRIAN])
    assert record.bids == [3, 4, 2, 2] and record.tricks_by_seat == [5, 4, 2, 2]
    assert [record.seat_made(s) for s in range(4)] == [True, True, True, True]
    short = dataclasses.replace(record, bids=[6, 5, 2, 3])
    assert [short.seat_made(s) for s in range(4)] == [False, False, True, False]


def test_describe():
    lines = [HandRecord.from_dict(SAVED[i]).describe() for i in (CLASSIC_MADE, CLASSIC_DOWN, NO_AUCTION, THROWN_IN)]
    assert lines == [
        "7 by seat 1, trump H: made (11 tricks) · team 0 +0, team 1 +11",
        "13 by seat 1, trump H: down 6 (7 tricks) · team 0 +6, team 1 -16",
        "no auction, trump D: tricks 7-6 · team 0 +7, team 1 +0",
        "thrown in (dealer seat 3)",
    ]


def test_the_record_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        HandRecord.from_dict(SAVED[0]).bid = 9


def test_both_engines_report_a_hand_record():
    game = TarneebGame(make_rules("classic"), np.random.default_rng(0))
    game.new_game(0)
    game.start_deal()
    rng = np.random.default_rng(1)
    result = None
    while result is None:
        result = game.apply(int(rng.choice(game.legal_actions())))
    assert isinstance(result.record, HandRecord) and list(vars(result.record)) == list(FIELDS)
    env = BatchEnv(4, seed=2)
    _, mask, _ = env.reset()
    records = []
    while not records:
        _, mask, _, _, _, records = env.step(random_legal_actions(mask, rng))
    assert all(isinstance(r, HandRecord) and list(vars(r)) == list(FIELDS) for _, r in records)


def test_both_engines_set_every_field_of_a_view():
    names = {f.name for f in dataclasses.fields(PlayerView)}
    game = TarneebGame(make_rules("classic"), np.random.default_rng(0))
    game.new_game(0)
    game.start_deal()
    env = BatchEnv(2, seed=2)
    env.reset()
    for view in (make_view(game, 1), *env.views([0, 1])):
        assert set(vars(view)) == names
