"""Both engines honour every rule option and accept the same arguments and reset options.

``RULE_CASES`` holds, for each field of :class:`Rules`, two rule sets differing in that field only and a
scripted deal whose outcome depends on it; the deal runs through ``raw_env`` and ``BatchEnv`` under both.
Adding a field without a case fails ``test_every_rules_field_has_a_case``.
"""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from tarneeb_env import PASS, PRESETS, IllegalActionError, Rules, raw_env, trump_action
from tarneeb_env.batch import BatchEnv, game_seeds, random_legal_actions
from tarneeb_env.rules_core import BIDDING, DONE, PLAY

from scripted import auction, build_hand, team_winners

AGENTS = [f"player_{i}" for i in range(4)]
SEED = 5
CLASSIC = PRESETS["classic"]
SYRIAN = PRESETS["syrian41"]
_RNG_DEAL = [[int(c) for c in sorted(h)] for h in np.split(np.random.default_rng(3).permutation(52), 4)]


def _made(bid: int, taken: int):
    """Seat 0 (eldest, dealer 3) bids ``bid``, the others pass, diamonds are trump, team 0 takes ``taken``."""
    deal, plays = build_hand(0, team_winners(0, taken, 0), trump=1)
    bidding = auction(bid) if bid == 13 else auction(bid, "p", "p", "p")
    return {"deal": deal, "dealer": 3}, bidding + [trump_action(1)] + plays


def _vary(base: Rules, **change) -> tuple[Rules, Rules]:
    return base, dataclasses.replace(base, **change)


_SEAT1_DECLARES = ({"deal": _RNG_DEAL, "dealer": 3}, auction("p", 7, "p", "p"))
_NON_HEART = next(c for c in _RNG_DEAL[3] if c // 13 != 2)

# field -> (rules a, rules b, reset options, scripted actions; the lowest legal non-pass action after them)
RULE_CASES = {
    "target_score": (*_vary(CLASSIC, target_score=41), {**_made(7, 8)[0], "scores": [25, 0]}, _made(7, 8)[1]),
    "first_lead": (*_vary(CLASSIC, first_lead="eldest"), *_SEAT1_DECLARES),
    "defenders_score": (*_vary(CLASSIC, defenders_score="always"), *_made(7, 8)),
    "kaboot": (*_vary(CLASSIC, kaboot="plain"), *_made(7, 13)),
    "bid13_wins_game": (*_vary(CLASSIC, bid13_wins_game=True), *_made(13, 13)),
    "all_pass": (*_vary(CLASSIC, all_pass="dealer_bids"), {"deal": _RNG_DEAL, "dealer": 3}, [PASS] * 4),
    "min_bid": (*_vary(CLASSIC, min_bid=9), {"deal": _RNG_DEAL, "dealer": 3}, []),
    "auction": (*_vary(SYRIAN, auction="none"), {"deal": _RNG_DEAL, "dealer": 3}, []),
    "trump": (*_vary(SYRIAN, trump="hearts"), {"deal": _RNG_DEAL, "dealer": 3, "exposed_card": _NON_HEART}, []),
    "min_total_bids": (*_vary(SYRIAN, min_total_bids=8), {"deal": _RNG_DEAL, "dealer": 3}, []),
}


def _policy(mask) -> int:
    legal = np.flatnonzero(mask)
    bids = legal[legal != PASS]
    return int(bids[0] if len(bids) else legal[0])


def run_raw(rules, options, script):
    """(records, summed rewards, terminated) of one deal, or ("illegal", message)."""
    e = raw_env(rules=rules, episode="game", max_hands=1)
    e.reset(seed=game_seeds(SEED, 1)[0], options=options)
    records, total = [], np.zeros(4)
    for k in range(200):
        if all(e.terminations.values()) or all(e.truncations.values()):
            return records, total.tolist(), all(e.terminations.values())
        agent = e.agent_selection
        a = script[k] if k < len(script) else _policy(e.observe(agent)["action_mask"])
        try:
            e.step(a)
        except IllegalActionError as err:
            return "illegal", str(err)
        if e.infos[agent].get("hand_record"):
            records.append(e.infos[agent]["hand_record"])
        total += [e.rewards[x] for x in AGENTS]
    raise AssertionError("the deal did not end")


def run_batch(rules, options, script):
    be = BatchEnv(1, rules=rules, episode="game", max_hands=1, seed=SEED)
    _, mask, _ = be.reset(options=[options])
    records, total = [], np.zeros(4)
    for k in range(200):
        a = script[k] if k < len(script) else _policy(mask[0])
        try:
            _, mask, _, rewards, done, recs = be.step([a])
        except IllegalActionError as err:
            return "illegal", str(err).removeprefix("game 0: ")
        records.extend(r.to_dict() for _, r in recs)
        total += rewards[0]
        if done[0]:
            return records, total.tolist(), not be.truncated[0]
    raise AssertionError("the deal did not end")


def test_every_rules_field_has_a_case():
    assert set(RULE_CASES) == {f.name for f in dataclasses.fields(Rules)}
    for name, (a, b, _, _) in RULE_CASES.items():
        differ = {f.name for f in dataclasses.fields(Rules) if getattr(a, f.name) != getattr(b, f.name)}
        assert differ == {name}, f"{name}: the two rule sets differ in {sorted(differ)}"


@pytest.mark.parametrize("field", sorted(RULE_CASES))
def test_each_rules_field_changes_the_outcome_in_both_engines(field):
    a, b, options, script = RULE_CASES[field]
    outcomes = []
    for rules in (a, b):
        raw, batch = run_raw(rules, options, script), run_batch(rules, options, script)
        assert raw == batch, f"{field}={getattr(rules, field)!r}: the engines disagree"
        outcomes.append(raw)
    assert outcomes[0] != outcomes[1], f"{field}: the scripted deal does not depend on it"


# ------------------------------------------------------------- arguments and options
def _outcome(fn):
    """("ok", warning messages) or (exception type, message) of calling ``fn``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return type(e), str(e)
    return "ok", [str(w.message) for w in caught]


@pytest.mark.parametrize("kwargs", [
    {}, {"max_hands": True}, {"max_hands": 0}, {"max_hands": 2.0}, {"max_hands": "3"}, {"max_hands": np.int64(3)},
    {"episode": "match"}, {"reward": "points"}, {"rules": "nope"}, {"rules": {"kaboot": "triple"}},
])
def test_envs_take_the_same_arguments(kwargs):
    assert _outcome(lambda: raw_env(**kwargs)) == _outcome(lambda: BatchEnv(1, **kwargs))


_DEAL = [list(range(13 * s, 13 * s + 13)) for s in range(4)]


@pytest.mark.parametrize("rules", ["classic", "syrian41"])
@pytest.mark.parametrize("options", [
    None, {}, {"dealr": 1}, {"hands": [], "dealer": 1}, {"dealer": 4}, {"dealer": True}, {"dealer": "0"},
    {"dealer": np.int64(2)}, {"scores": [1]}, {"scores": 5}, {"scores": [1.5, 2]}, {"scores": [20, 3]},
    {"seat_scores": [1, 2, 3]}, {"seat_scores": [5, -2, 3, 0]}, {"seat_scores": [5, -2, 3, 0], "scores": [1, 1]},
    {"deal": [[0] * 13] * 4}, {"deal": "x"}, {"deal": _DEAL[:3]}, {"deal": _DEAL, "dealer": 1},
    {"deal": _DEAL, "dealer": 1, "exposed_card": 20}, {"deal": _DEAL, "dealer": 1, "exposed_card": 3},
    {"deal": _DEAL, "dealer": 5},
])
def test_envs_take_the_same_reset_options(rules, options):
    seed = game_seeds(SEED, 1)[0]
    e, be = raw_env(rules=rules, episode="game"), BatchEnv(1, rules=rules, episode="game", seed=SEED)
    raw = _outcome(lambda: e.reset(seed=seed, options=options))
    batch = _outcome(lambda: be.reset(options=[options]))
    assert batch[0] == raw[0]
    if raw[0] == "ok":
        assert batch[1] == [f"options[0]: {m}" for m in raw[1]]
        for seat in range(4):
            assert be.view(0, seat) == e.view(seat)
        np.testing.assert_array_equal(be._observe()[0][0], e.observe(e.agent_selection)["observation"])
    else:
        assert batch[1] == f"options[0]: {raw[1]}"


def test_seat_scores_set_the_team_scores_in_both_engines():
    be = BatchEnv(1, rules="syrian41", seed=0)
    be.reset(options=[{"seat_scores": [5, -2, 3, 0]}])
    assert be.view(0).seat_scores == (5, -2, 3, 0) and be.view(0).scores == (8, -2)


# --------------------------------------------------------------------- the view
def test_view_played_mask_and_voids_follow_the_cards_played():
    """Both engines keep them as cards fall (tests/test_batch.py checks the views equal); here they are
    checked against the history they summarise."""
    be = BatchEnv(4, rules="classic", seed=2)
    _, mask, _ = be.reset()
    rng = np.random.default_rng(0)
    seen_void = 0
    for _ in range(300):
        for i in range(4):
            for seat in range(4):
                v = be.view(i, seat)
                played_mask, voids = 0, [0, 0, 0, 0]
                for k, (s, c) in enumerate(v.played):
                    played_mask |= 1 << c
                    led = v.played[k - k % 4][1] // 13
                    if c // 13 != led:
                        voids[s] |= 1 << led
                assert (v.played_mask, v.voids) == (played_mask, tuple(voids))
                seen_void |= any(voids)
        _, mask, *_ = be.step(random_legal_actions(mask, rng))
    assert seen_void


# ------------------------------------------------------------- the per-deal bookkeeping, transition by transition
TRANSITIONS = ("start of deal", "end of auction", "end of trick", "end of hand")


def _transition(phase_before: int, game, record) -> str | None:
    """Which bookkeeping transition the step into ``game``'s state was (None: an ordinary move)."""
    if record is not None:
        return "end of hand"
    if phase_before == BIDDING and game.phase != BIDDING:
        return "end of auction"
    if game.played and len(game.played) % 4 == 0 and game.phase == PLAY and phase_before == PLAY and not game.trick:
        return "end of trick"
    return None


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_engines_keep_the_same_books_at_every_transition(preset):
    """Both engines write the per-deal bookkeeping separately (docs/env.md says why); right after each
    transition (a deal dealt, the auction closed, a trick taken, a hand scored), every seat's view, the observation
    and mask, and at the end of a hand the record must be the same in both."""
    n, rng = 6, np.random.default_rng(11)
    be = BatchEnv(n, rules=preset, episode="game", max_hands=3, seed=SEED)
    envs = [raw_env(rules=preset, episode="game", max_hands=3) for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=be.game_seeds[i])
    obs, mask, seat = be.reset()
    seen = dict.fromkeys(TRANSITIONS, 0)

    def books_agree(i: int, what: str) -> None:
        e = envs[i]
        assert [be.view(i, s) for s in range(4)] == [e.view(s) for s in range(4)], f"game {i}, {what}: views"
        o = e.observe(e.agent_selection)
        np.testing.assert_array_equal(obs[i], o["observation"], err_msg=f"game {i}, {what}: observation")
        np.testing.assert_array_equal(mask[i], o["action_mask"], err_msg=f"game {i}, {what}: mask")
        seen[what] += 1

    for i in range(n):
        books_agree(i, "start of deal")
    for _ in range(2000):
        actions = random_legal_actions(mask, rng)
        phases = [e.game.phase for e in envs]
        obs, mask, seat, _, done, records = be.step(actions)
        batch_records = dict((i, r.to_dict()) for i, r in records)
        for i, e in enumerate(envs):
            agent = e.agent_selection
            e.step(int(actions[i]))
            record = e.infos[agent].get("hand_record")
            assert batch_records.get(i) == record, f"game {i}: hand records"
            what = _transition(phases[i], e.game, record)
            if done[i]:
                e.reset(seed=None)
                continue  # the batch engine started the next episode from its own generator: compare no more
            if what is not None:
                books_agree(i, what)
            if record is not None and e.game.phase != DONE:
                books_agree(i, "start of deal")
        if done.any():
            break
    no_auction = PRESETS[preset].auction == "none"  # such deals open straight into play
    assert all(k >= n for what, k in seen.items() if not (no_auction and what == "end of auction")), seen
    assert not no_auction or seen["end of auction"] == 0
