"""Numba kernels of the batch engine: the phase machine of :mod:`tarneeb_env.game` on struct-of-arrays state.

State of game ``i``: ``state[i, COL]`` (int64 scalars, columns below),
``auction[i, k]`` (auction entries: seat, action, highest bid when it was made),
``plays[i, k]`` (seat, card in play order; the current trick is the last
``nplayed % 4``), ``trick_winners[i, t]`` (the seat that won trick ``t``) and
``dealt[i, s]`` (each seat's dealt cards, sorted, for the hand record). The
rules themselves (legal bids, trick winner, scoring, game winner, rewards,
episode ends) are the functions of :mod:`tarneeb_env.rules_core` that the
Python engine calls too, compiled in here; rule options come as its int vector
``rules_vec``. Shuffles, dealer draws and hand records stay in Python
(each game's numpy generator, called only when a deal ends); everything done
per decision is here. Observations are written from this state for the seat
to act by the encoder of :mod:`tarneeb_env.observation` (compiled in too).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import register_jitable

from . import cards
from . import observation
from . import rules_core
from .cards import BID_BASE, NUM_ACTIONS, NUM_CARDS, PASS, SUIT_SIZE, TRUMP_BASE
from .kernel_cache import drop_stale_cache
from .observation import (
    CLEAR, SET, put_bid, put_contract, put_deal, put_leader, put_pass, put_phase, put_play, put_scores,
    put_seat_tricks, put_team_tricks, put_void,
)
from .rules_core import BIDDING, DONE, GOES_ON, PLAY, TRUMP
from .rules_core import A_NONE, R_AUCTION, R_TARGET, R_TRUMP, T_LAST_CARD

for _rule in rules_core.KERNEL_RULES + observation.ENCODER:  # compiled in here; still plain Python for TarneebGame
    register_jitable(_rule)

MAX_AUCTION = 24  # a team auction holds at most 13 bids, 4 passes and the trump call
ALL_SEATS = 0b1111  # an obs_seats entry (_observe_game's): write the observation whichever seat acts

# ---- columns of state
(PHASE, CURRENT, DEALER, LEADER, TRUMP_SUIT, DECLARER, BID, HIGH_BID, HIGH_BIDDER, PASSED_BITS, NPASSED, EXPOSED,
 AUC_LEN, NPLAYED, GAME_OVER, WINNER, DEALS, HANDS_PLAYED, THROWN_IN, ROTATE) = range(20)
# the first column of each per-seat (4) or per-team (2) block
BIDS0, TEAM_TRICKS0, SEAT_TRICKS0, SCORE0, SEAT_SCORE0, HAND0, DELTA0, SEAT_DELTA0, VOID0 = (
    20, 24, 26, 30, 32, 36, 40, 42, 46)
NUM_COLS = 50



# ----------------------------------------- reading one game (for agents compiled onto the state)
@njit(cache=True)
def phase_of(state, i):
    return state[i, PHASE]


@njit(cache=True)
def seat_to_act(state, i):
    return state[i, CURRENT]


@njit(cache=True)
def hand_of(state, i, seat):
    """The cards (mask) ``seat`` still holds in game ``i``."""
    return state[i, HAND0 + seat]


@njit(cache=True)
def contract_of(state, i):
    """(trump suit, declarer), ``NO_SUIT`` for none (yet)."""
    return state[i, TRUMP_SUIT], state[i, DECLARER]


@njit(cache=True)
def seat_counts(state, i):
    """Per seat: (bids, tricks won this hand, voids as suit bits), each a 4-tuple."""
    return ((state[i, BIDS0], state[i, BIDS0 + 1], state[i, BIDS0 + 2], state[i, BIDS0 + 3]),
            (state[i, SEAT_TRICKS0], state[i, SEAT_TRICKS0 + 1], state[i, SEAT_TRICKS0 + 2],
             state[i, SEAT_TRICKS0 + 3]),
            (state[i, VOID0], state[i, VOID0 + 1], state[i, VOID0 + 2], state[i, VOID0 + 3]))


@njit(cache=True)
def trick_so_far(state, plays, i):
    """The current trick: (cards in it, their seats, their cards), seats and cards padded to three with 0."""
    n = state[i, NPLAYED]
    nt = n % 4
    t0 = n - nt
    seats = (np.int64(plays[i, t0, 0]) if nt > 0 else 0, np.int64(plays[i, t0 + 1, 0]) if nt > 1 else 0,
             np.int64(plays[i, t0 + 2, 0]) if nt > 2 else 0)
    played = (np.int64(plays[i, t0, 1]) if nt > 0 else 0, np.int64(plays[i, t0 + 1, 1]) if nt > 1 else 0,
              np.int64(plays[i, t0 + 2, 1]) if nt > 2 else 0)
    return nt, seats, played


# ------------------------------------------------------------------ legality
@njit(cache=True)
def _led_suit(state, plays, i):
    """The suit led to game ``i``'s current trick, ``NO_SUIT`` before its first card."""
    n = state[i, NPLAYED]
    if n % 4:
        return np.int64(plays[i, n - n % 4, 1]) // SUIT_SIZE
    return np.int64(rules_core.NO_SUIT)


@njit(cache=True)
def legal_sets(state, plays, i, rules_vec):
    """(card bits, bits of the other actions shifted down by BID_BASE) legal for the seat to act in game ``i``."""
    phase = state[i, PHASE]
    if phase == PLAY:
        return rules_core.legal_cards(state[i, HAND0 + state[i, CURRENT]], _led_suit(state, plays, i)), np.int64(0)
    if phase == BIDDING:
        return np.int64(0), rules_core.bid_bits(rules_vec, state[i, HIGH_BID], state[i, HIGH_BIDDER], state[i, NPASSED])
    if phase == TRUMP:
        return np.int64(0), np.int64(rules_core.TRUMP_BITS)
    return np.int64(0), np.int64(0)


@njit(cache=True)
def view_parts(state, auction, plays, games, rules_vec):
    """Everything PlayerViews of ``games`` are built from, in one flat array (one call, one conversion to
    Python): for each game in turn its ``NUM_COLS`` state columns, its legal cards and other actions (as
    legal_sets), then its ``NPLAYED`` plays and ``AUC_LEN`` auction entries as codes ``seat * NUM_ACTIONS +
    action``."""
    size = 0
    for j in range(len(games)):
        size += NUM_COLS + 2 + state[games[j], NPLAYED] + state[games[j], AUC_LEN]
    out = np.empty(size, dtype=np.int64)
    o = 0
    for j in range(len(games)):
        i = games[j]
        out[o : o + NUM_COLS] = state[i]
        o += NUM_COLS
        out[o], out[o + 1] = legal_sets(state, plays, i, rules_vec)
        o += 2
        for m in range(state[i, NPLAYED]):
            out[o] = np.int64(plays[i, m, 0]) * NUM_ACTIONS + plays[i, m, 1]
            o += 1
        for m in range(state[i, AUC_LEN]):
            out[o] = np.int64(auction[i, m, 0]) * NUM_ACTIONS + auction[i, m, 1]
            o += 1
    return out


# _BITS[b, j]: bit j of byte b, to write masks eight actions at a time
_BITS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.int8)
CARD_BYTES = (NUM_CARDS + 7) // 8  # the card bits, rounded up to whole bytes (the bits past 51 are zero)
OTHER_ACTIONS = NUM_ACTIONS - BID_BASE  # pass, bids, trump calls
OTHER_BYTES, OTHER_TAIL = divmod(OTHER_ACTIONS, 8)


@njit(cache=True)
def legal_mask_row(state, plays, i, rules_vec, out):
    """Write game ``i``'s int8[NUM_ACTIONS] action mask into ``out``."""
    cards, others = legal_sets(state, plays, i, rules_vec)
    for k in range(CARD_BYTES):
        b = (cards >> (8 * k)) & 255
        for j in range(8):
            out[8 * k + j] = _BITS[b, j]
    for k in range(OTHER_BYTES):  # the other actions, from BID_BASE, overwrite the zero bits above
        b = (others >> (8 * k)) & 255
        for j in range(8):
            out[BID_BASE + 8 * k + j] = _BITS[b, j]
    b = others >> (8 * OTHER_BYTES)  # the last few actions
    for j in range(OTHER_TAIL):
        out[BID_BASE + 8 * OTHER_BYTES + j] = _BITS[b, j]


@njit(cache=True)
def fill_legal_masks(state, plays, games, rules_vec, out):
    """``out[k]``: game ``games[k]``'s int8[NUM_ACTIONS] action mask."""
    for k in range(games.shape[0]):
        legal_mask_row(state, plays, games[k], rules_vec, out[k])


# -------------------------------------------------------------------- deals
@njit(cache=True)
def start_deal(state, auction, plays, trick_winners, dealt, i, hands, exposed, rules_vec):
    """Open a deal of the given hands (masks) for ``state[i, DEALER]``, as ``TarneebGame.start_deal``."""
    for s in range(4):
        h = hands[s]
        state[i, HAND0 + s] = h
        k = 0
        for c in range(NUM_CARDS):
            if (h >> c) & 1:
                dealt[i, s, k] = c
                k += 1
        state[i, BIDS0 + s] = 0
        state[i, SEAT_TRICKS0 + s] = 0
        state[i, SEAT_DELTA0 + s] = 0
        state[i, VOID0 + s] = 0
    state[i, EXPOSED] = exposed
    state[i, DEALS] += 1
    state[i, AUC_LEN] = 0
    state[i, PASSED_BITS] = 0
    state[i, NPASSED] = 0
    state[i, HIGH_BID] = 0
    state[i, HIGH_BIDDER] = -1
    state[i, DECLARER] = -1
    state[i, BID] = 0
    state[i, TRUMP_SUIT] = -1
    state[i, NPLAYED] = 0
    state[i, TEAM_TRICKS0] = 0
    state[i, TEAM_TRICKS0 + 1] = 0
    state[i, DELTA0] = 0
    state[i, DELTA0 + 1] = 0
    state[i, THROWN_IN] = 0
    state[i, ROTATE] = 0
    state[i, LEADER] = -1
    state[i, TRUMP_SUIT] = rules_core.fixed_trump(rules_vec, exposed)
    if rules_vec[R_AUCTION] == A_NONE:
        _start_play(state, i, rules_core.first_leader(rules_vec, state[i, DEALER], -1))
    else:
        state[i, PHASE] = BIDDING
        state[i, CURRENT] = (state[i, DEALER] + 1) % 4


@njit(cache=True)
def new_game(state, i, dealer, scores, seat_scores):
    """``TarneebGame.new_game``: scores, counters and the dealer of a fresh game."""
    for t in range(2):
        state[i, SCORE0 + t] = scores[t]
    for s in range(4):
        state[i, SEAT_SCORE0 + s] = seat_scores[s]
    state[i, DEALER] = dealer
    state[i, HANDS_PLAYED] = 0
    state[i, DEALS] = 0
    state[i, GAME_OVER] = 0
    state[i, WINNER] = -1


@njit(cache=True)
def deal_from_perms(state, auction, plays, trick_winners, dealt, games, perms, dealers, rules_vec, obs, mask, seat):
    """Start the next deal of each game in ``games`` from its shuffle ``perms[k]``.

    ``dealers[k] >= 0`` starts a new game with that dealer (an episode reset);
    -1 continues the game, the dealer moving on when the last deal says so.
    Cards go round as ``rules_core.deal_hands`` says, as for ``deal_cards``. Writes each game's first decision.
    """
    hands = np.zeros(4, dtype=np.int64)
    zeros = np.zeros(4, dtype=np.int64)
    for k in range(games.shape[0]):
        i = games[k]
        if dealers[k] >= 0:
            new_game(state, i, dealers[k], zeros, zeros)
        elif state[i, ROTATE]:
            state[i, DEALER] = (state[i, DEALER] + 1) % 4
        hands[0], hands[1], hands[2], hands[3] = rules_core.deal_hands(state[i, DEALER], perms[k])
        exposed = perms[k, NUM_CARDS - 1] if rules_vec[R_TRUMP] == T_LAST_CARD else rules_core.NO_SUIT
        start_deal(state, auction, plays, trick_winners, dealt, i, hands, exposed, rules_vec)
        _observe_game(state, auction, plays, i, rules_vec, obs, mask, seat, ALL_SEATS)


# -------------------------------------------------------------------- moves
@njit(cache=True)
def _start_play(state, i, leader):
    state[i, PHASE] = PLAY
    state[i, LEADER] = leader
    state[i, CURRENT] = leader


@njit(cache=True)
def _end_auction(state, i):
    state[i, DECLARER] = state[i, HIGH_BIDDER]
    state[i, BID] = state[i, HIGH_BID]
    state[i, PHASE] = TRUMP
    state[i, CURRENT] = state[i, HIGH_BIDDER]


@njit(cache=True)
def _push_auction(state, auction, i, seat, action):
    k = state[i, AUC_LEN]
    auction[i, k, 0] = seat
    auction[i, k, 1] = action
    auction[i, k, 2] = state[i, HIGH_BID]
    state[i, AUC_LEN] = k + 1


@njit(cache=True)
def _finish_hand(state, i, rules_vec):
    """Score a played hand; returns the game winner (-1 for none yet)."""
    delta, seat_delta, winner = rules_core.score_hand(
        rules_vec, state[i, DECLARER], state[i, BID], state[i, BIDS0 : BIDS0 + 4],
        state[i, TEAM_TRICKS0 : TEAM_TRICKS0 + 2], state[i, SEAT_TRICKS0 : SEAT_TRICKS0 + 4],
    )
    for t in range(2):
        state[i, DELTA0 + t] = delta[t]
        state[i, SCORE0 + t] += delta[t]
    for s in range(4):
        state[i, SEAT_DELTA0 + s] = seat_delta[s]
        state[i, SEAT_SCORE0 + s] += seat_delta[s]
    if winner < 0:
        winner = rules_core.game_winner(rules_vec, state[i, SCORE0 : SCORE0 + 2],
                                        state[i, SEAT_SCORE0 : SEAT_SCORE0 + 4])
    state[i, HANDS_PLAYED] += 1
    return winner


@njit(cache=True)
def _end_deal(state, i, rules_vec, thrown_in, winner, rotate, rewards):
    """Close a deal: rewards and what the episode does next (an outcome code)."""
    state[i, PHASE] = DONE
    state[i, CURRENT] = -1
    state[i, THROWN_IN] = thrown_in
    state[i, ROTATE] = rotate
    if winner >= 0:
        state[i, GAME_OVER] = 1
        state[i, WINNER] = winner
    r = rules_core.team0_reward(rules_vec, state[i, GAME_OVER], state[i, WINNER], state[i, DELTA0],
                                state[i, DELTA0 + 1])
    for s in range(4):
        rewards[i, s] = -r if s & 1 else r
    return rules_core.deal_outcome(rules_vec, state[i, GAME_OVER], thrown_in, state[i, DEALS])


@njit(cache=True)
def _apply(state, auction, plays, trick_winners, i, a, rules_vec, rewards):
    """Apply legal action ``a`` in game ``i``; returns an outcome code."""
    seat = state[i, CURRENT]
    phase = state[i, PHASE]
    if phase == PLAY:
        state[i, HAND0 + seat] &= ~(np.int64(1) << a)
        state[i, VOID0 + seat] = rules_core.voids_after(state[i, VOID0 + seat], a, _led_suit(state, plays, i))
        n = state[i, NPLAYED]
        plays[i, n, 0] = seat
        plays[i, n, 1] = a
        n += 1
        state[i, NPLAYED] = n
        if n % 4:
            state[i, CURRENT] = (seat + 1) % 4
            return GOES_ON
        best_seat = rules_core.trick_winner(plays[i, n - 4, 0], np.int64(plays[i, n - 4, 1]),
                                            np.int64(plays[i, n - 3, 1]), np.int64(plays[i, n - 2, 1]),
                                            np.int64(plays[i, n - 1, 1]), state[i, TRUMP_SUIT])
        trick_winners[i, n // 4 - 1] = best_seat
        state[i, TEAM_TRICKS0 + (best_seat & 1)] += 1
        state[i, SEAT_TRICKS0 + best_seat] += 1
        state[i, LEADER] = best_seat
        if n == NUM_CARDS:
            winner = _finish_hand(state, i, rules_vec)
            return _end_deal(state, i, rules_vec, 0, winner, 1, rewards)
        state[i, CURRENT] = best_seat
        return GOES_ON
    if phase == TRUMP:
        _push_auction(state, auction, i, seat, a)
        state[i, TRUMP_SUIT] = a - TRUMP_BASE
        _start_play(state, i, rules_core.first_leader(rules_vec, state[i, DEALER], state[i, DECLARER]))
        return GOES_ON
    # bidding
    _push_auction(state, auction, i, seat, a)
    if a == PASS:
        state[i, PASSED_BITS] |= 1 << seat
        state[i, NPASSED] += 1
    else:
        b = a - BID_BASE
        state[i, BIDS0 + seat] = b
        if rules_core.bid_is_high(rules_vec):
            state[i, HIGH_BID] = b
            state[i, HIGH_BIDDER] = seat
    total = state[i, BIDS0] + state[i, BIDS0 + 1] + state[i, BIDS0 + 2] + state[i, BIDS0 + 3]
    where, nxt = rules_core.auction_after(rules_vec, seat, state[i, AUC_LEN], state[i, HIGH_BID], state[i, HIGH_BIDDER],
                                          state[i, PASSED_BITS], state[i, NPASSED], total)
    if where == rules_core.CALLING:
        state[i, CURRENT] = nxt
    elif where == rules_core.CONTRACT:
        _end_auction(state, i)
    elif where == rules_core.OPEN_PLAY:
        _start_play(state, i, rules_core.first_leader(rules_vec, state[i, DEALER], -1))
    else:
        return _end_deal(state, i, rules_vec, 1, -1, 1 if where == rules_core.BIDS_TOO_LOW else 0, rewards)
    return GOES_ON


@njit(cache=True)
def is_legal(state, plays, i, a, rules_vec):
    """Whether action ``a`` is legal in game ``i`` now."""
    cards, others = legal_sets(state, plays, i, rules_vec)
    if 0 <= a < NUM_CARDS:
        return ((cards >> a) & 1) == 1
    if BID_BASE <= a < NUM_ACTIONS:
        return ((others >> (a - BID_BASE)) & 1) == 1
    return False


@njit(cache=True)
def step_games(state, auction, plays, trick_winners, actions, rules_vec, rewards, outcome, obs, mask, seat):
    """Apply one action per game; fills ``rewards``, ``outcome`` and, for games whose deal goes on, the next
    decision (``obs``, ``mask``, ``seat``). Returns the number of deals that ended, or ``-1 - i`` when game
    ``i``'s action is illegal, in which case nothing has changed."""
    n = state.shape[0]
    for i in range(n):
        if not is_legal(state, plays, i, actions[i], rules_vec):
            return -1 - i
    ended = 0
    for i in range(n):
        rewards[i, :] = 0.0
        o = _apply(state, auction, plays, trick_winners, i, actions[i], rules_vec, rewards)
        outcome[i] = o
        if o == GOES_ON:
            _observe_game(state, auction, plays, i, rules_vec, obs, mask, seat, ALL_SEATS)
        else:
            ended += 1
    return ended


@njit(cache=True)
def step_some(state, auction, plays, trick_winners, games, actions, rules_vec, rewards, outcome, obs, mask, seat,
              obs_seats):
    """``step_games`` for ``games[k]`` only (action ``actions[k]``), the other games left as they are.

    ``rewards``, ``outcome``, ``obs``, ``mask`` and ``seat`` are indexed by game; only the rows of ``games`` are
    written. A game whose deal goes on gets its next mask and seat, and its observation only where bit ``s`` of
    ``obs_seats[i]`` is set for the seat ``s`` to act (a caller whose agents decide from the state skips the
    rest). Returns the number of deals that ended, or ``-1 - k`` when ``actions[k]`` is illegal (nothing changed).
    """
    for k in range(games.shape[0]):
        if not is_legal(state, plays, games[k], actions[k], rules_vec):
            return -1 - k
    ended = 0
    for k in range(games.shape[0]):
        i = games[k]
        rewards[i, :] = 0.0
        o = _apply(state, auction, plays, trick_winners, i, actions[k], rules_vec, rewards)
        outcome[i] = o
        if o == GOES_ON:
            _observe_game(state, auction, plays, i, rules_vec, obs, mask, seat, obs_seats[i])
        else:
            ended += 1
    return ended


# ------------------------------------------------------------- observations
@njit(cache=True)
def write_obs_row(state, auction, plays, i, o, rules_vec, row):
    """Observer ``o``'s observation of game ``i``, written from its stored state by the encoder of
    :mod:`tarneeb_env.observation`: equal to ``ObservationWriter.buf[o]`` at the same point."""
    row[:] = CLEAR
    target = rules_vec[R_TARGET]
    put_deal(row, o, state[i, HAND0 + o], state[i, DEALER], target, state[i, EXPOSED], state[i, TRUMP_SUIT])
    put_scores(row, o, state[i, SCORE0 : SCORE0 + 2], state[i, SEAT_SCORE0 : SEAT_SCORE0 + 4], target)
    for k in range(state[i, AUC_LEN]):
        seat, action = np.int64(auction[i, k, 0]), np.int64(auction[i, k, 1])
        if action == PASS:
            put_pass(row, o, seat, np.int64(auction[i, k, 2]))
        elif action < TRUMP_BASE:
            put_bid(row, o, seat, action - BID_BASE)
    if state[i, DECLARER] >= 0:
        put_contract(row, o, state[i, DECLARER], state[i, BID])
    n = state[i, NPLAYED]
    trick_start = n - n % 4
    for k in range(n):
        put_play(row, o, np.int64(plays[i, k, 0]), np.int64(plays[i, k, 1]), k >= trick_start)
    put_team_tricks(row, o, state[i, TEAM_TRICKS0 : TEAM_TRICKS0 + 2])
    for s in range(4):
        put_seat_tricks(row, o, s, state[i, SEAT_TRICKS0 + s])
        for u in range(4):
            if (state[i, VOID0 + s] >> u) & 1:
                put_void(row, o, s, u)
    put_phase(row, state[i, PHASE], SET)
    if state[i, LEADER] >= 0:
        put_leader(row, o, state[i, LEADER], SET)


@njit(cache=True)
def _observe_game(state, auction, plays, i, rules_vec, obs, mask, seat, obs_seats):
    """Game ``i``'s seat to act and its mask, and its observation when that seat's bit of ``obs_seats`` is set."""
    o = state[i, CURRENT]
    seat[i] = o
    legal_mask_row(state, plays, i, rules_vec, mask[i])
    if (obs_seats >> o) & 1:
        write_obs_row(state, auction, plays, i, o, rules_vec, obs[i])


@njit(cache=True)
def observe_all(state, auction, plays, rules_vec, obs, mask, seat):
    """Observation, action mask and seat of the seat to act, for every game."""
    for i in range(state.shape[0]):
        _observe_game(state, auction, plays, i, rules_vec, obs, mask, seat, ALL_SEATS)


@njit(cache=True)
def sample_legal(mask, u, out):
    """``out[i]``: the legal action of ``mask[i]`` at uniform position ``u[i]`` in [0, 1)."""
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[i, a]
        k = int(u[i] * count)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


# these kernels compile in rules_core, observation and cards: recompile when one of them has changed
drop_stale_cache(globals(), [rules_core.__file__, observation.__file__, cards.__file__], "batch_kernels")
