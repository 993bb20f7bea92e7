"""Numba kernels of the batch engine: the phase machine of :mod:`tarneeb_env.game` on struct-of-arrays state.

State of game ``i``: ``st[i, COL]`` (int64 scalars, columns below), ``auc[i, k]``
(auction entries: seat, action, highest bid when it was made), ``plays[i, k]``
(seat, card in play order; the current trick is the last ``nplayed % 4``),
``tw[i, t]`` (trick winners) and ``dealt[i, s]`` (each seat's dealt cards,
sorted, for the hand record). The rules themselves (legal bids, trick winner,
scoring, game winner, rewards, episode ends) are the functions of
:mod:`tarneeb_env.rules_core` that the Python engine calls too, compiled in
here; rule options come as its int vector ``rv``. Shuffles, dealer draws and hand records stay in Python
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
from . import rules_core as rc
from .cards import BID_BASE, NUM_ACTIONS, NUM_CARDS, PASS, SUIT_SIZE, TRUMP_BASE
from .kernel_cache import drop_stale_cache
from .observation import (
    CLEAR, SET, put_bid, put_contract, put_deal, put_leader, put_pass, put_phase, put_play, put_scores,
    put_seat_tricks, put_team_tricks, put_void,
)
from .rules_core import BIDDING, DONE, GOES_ON, NEXT_DEAL, PLAY, TERMINATED, TRUMP, TRUNCATED  # noqa: F401 (outcomes: batch.py)
from .rules_core import A_INDIVIDUAL, A_NONE, R_AUCTION, R_TARGET, R_TRUMP, T_LAST_CARD

for _rule in rc.KERNEL_RULES + observation.ENCODER:  # compiled in here; still plain Python for TarneebGame
    register_jitable(_rule)

MAX_AUCTION = 24  # a team auction holds at most 13 bids, 4 passes and the trump call

# ---- columns of st
(PHASE, CURRENT, DEALER, LEADER, TRUMP_SUIT, DECLARER, BID, HIGH_BID, HIGH_BIDDER, PASSED_BITS, NPASSED, EXPOSED,
 AUC_LEN, NPLAYED, GAME_OVER, WINNER, DEALS, HANDS_PLAYED, THROWN_IN, ROTATE) = range(20)
BIDS0, TWON0, TBS0, SCORE0, SSCORE0, HAND0, DELTA0, SDELTA0, VOID0 = 20, 24, 26, 30, 32, 36, 40, 42, 46
NUM_COLS = 50



# ----------------------------------------- reading one game (for agents compiled onto the state)
@njit(cache=True)
def phase_of(st, i):
    return st[i, PHASE]


@njit(cache=True)
def seat_to_act(st, i):
    return st[i, CURRENT]


@njit(cache=True)
def hand_of(st, i, seat):
    """The cards (mask) ``seat`` still holds in game ``i``."""
    return st[i, HAND0 + seat]


@njit(cache=True)
def contract_of(st, i):
    """(trump suit, declarer), ``NO_SUIT`` for none (yet)."""
    return st[i, TRUMP_SUIT], st[i, DECLARER]


@njit(cache=True)
def seat_counts(st, i):
    """Per seat: (bids, tricks won this hand, voids as suit bits), each a 4-tuple."""
    return ((st[i, BIDS0], st[i, BIDS0 + 1], st[i, BIDS0 + 2], st[i, BIDS0 + 3]),
            (st[i, TBS0], st[i, TBS0 + 1], st[i, TBS0 + 2], st[i, TBS0 + 3]),
            (st[i, VOID0], st[i, VOID0 + 1], st[i, VOID0 + 2], st[i, VOID0 + 3]))


@njit(cache=True)
def trick_so_far(st, plays, i):
    """The current trick: (cards in it, their seats, their cards), seats and cards padded to three with 0."""
    n = st[i, NPLAYED]
    nt = n % 4
    t0 = n - nt
    seats = (np.int64(plays[i, t0, 0]) if nt > 0 else 0, np.int64(plays[i, t0 + 1, 0]) if nt > 1 else 0,
             np.int64(plays[i, t0 + 2, 0]) if nt > 2 else 0)
    played = (np.int64(plays[i, t0, 1]) if nt > 0 else 0, np.int64(plays[i, t0 + 1, 1]) if nt > 1 else 0,
              np.int64(plays[i, t0 + 2, 1]) if nt > 2 else 0)
    return nt, seats, played


# ------------------------------------------------------------------ legality
@njit(cache=True)
def _led_suit(st, plays, i):
    """The suit led to game ``i``'s current trick, ``NO_SUIT`` before its first card."""
    n = st[i, NPLAYED]
    if n % 4:
        return np.int64(plays[i, n - n % 4, 1]) // SUIT_SIZE
    return np.int64(rc.NO_SUIT)


@njit(cache=True)
def legal_sets(st, plays, i, rv):
    """(card bits, bits of the other actions shifted down by BID_BASE) legal for the seat to act in game ``i``."""
    phase = st[i, PHASE]
    if phase == PLAY:
        return rc.legal_cards(st[i, HAND0 + st[i, CURRENT]], _led_suit(st, plays, i)), np.int64(0)
    if phase == BIDDING:
        return np.int64(0), rc.bid_bits(rv, st[i, HIGH_BID], st[i, HIGH_BIDDER], st[i, NPASSED])
    if phase == TRUMP:
        return np.int64(0), np.int64(rc.TRUMP_BITS)
    return np.int64(0), np.int64(0)


@njit(cache=True)
def view_parts(st, auc, plays, games, rv):
    """Everything PlayerViews of ``games`` are built from, in one flat array (one call, one conversion to
    Python): for each game in turn its ``NUM_COLS`` state columns, its legal cards and other actions (as
    legal_sets), then its ``NPLAYED`` plays and ``AUC_LEN`` auction entries as codes ``seat * NUM_ACTIONS +
    action``."""
    size = 0
    for j in range(len(games)):
        size += NUM_COLS + 2 + st[games[j], NPLAYED] + st[games[j], AUC_LEN]
    out = np.empty(size, dtype=np.int64)
    o = 0
    for j in range(len(games)):
        i = games[j]
        out[o : o + NUM_COLS] = st[i]
        o += NUM_COLS
        out[o], out[o + 1] = legal_sets(st, plays, i, rv)
        o += 2
        for m in range(st[i, NPLAYED]):
            out[o] = np.int64(plays[i, m, 0]) * NUM_ACTIONS + plays[i, m, 1]
            o += 1
        for m in range(st[i, AUC_LEN]):
            out[o] = np.int64(auc[i, m, 0]) * NUM_ACTIONS + auc[i, m, 1]
            o += 1
    return out


# _BITS[b, j]: bit j of byte b, to write masks eight actions at a time
_BITS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.int8)
CARD_BYTES = (NUM_CARDS + 7) // 8  # the card bits, rounded up to whole bytes (the bits past 51 are zero)
OTHER_ACTIONS = NUM_ACTIONS - BID_BASE  # pass, bids, trump calls
OTHER_BYTES, OTHER_TAIL = divmod(OTHER_ACTIONS, 8)


@njit(cache=True)
def legal_mask_row(st, plays, i, rv, out):
    """Write game ``i``'s int8[NUM_ACTIONS] action mask into ``out``."""
    cards, others = legal_sets(st, plays, i, rv)
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
def legal_masks(st, plays, games, rv, out):
    """``out[k]``: game ``games[k]``'s int8[NUM_ACTIONS] action mask."""
    for k in range(games.shape[0]):
        legal_mask_row(st, plays, games[k], rv, out[k])


# -------------------------------------------------------------------- deals
@njit(cache=True)
def start_deal(st, auc, plays, tw, dealt, i, hands, exposed, rv):
    """Open a deal of the given hands (masks) for ``st[i, DEALER]``, as ``TarneebGame.start_deal``."""
    for s in range(4):
        h = hands[s]
        st[i, HAND0 + s] = h
        k = 0
        for c in range(NUM_CARDS):
            if (h >> c) & 1:
                dealt[i, s, k] = c
                k += 1
        st[i, BIDS0 + s] = 0
        st[i, TBS0 + s] = 0
        st[i, SDELTA0 + s] = 0
        st[i, VOID0 + s] = 0
    st[i, EXPOSED] = exposed
    st[i, DEALS] += 1
    st[i, AUC_LEN] = 0
    st[i, PASSED_BITS] = 0
    st[i, NPASSED] = 0
    st[i, HIGH_BID] = 0
    st[i, HIGH_BIDDER] = -1
    st[i, DECLARER] = -1
    st[i, BID] = 0
    st[i, TRUMP_SUIT] = -1
    st[i, NPLAYED] = 0
    st[i, TWON0] = 0
    st[i, TWON0 + 1] = 0
    st[i, DELTA0] = 0
    st[i, DELTA0 + 1] = 0
    st[i, THROWN_IN] = 0
    st[i, ROTATE] = 0
    st[i, LEADER] = -1
    st[i, TRUMP_SUIT] = rc.fixed_trump(rv, exposed)
    if rv[R_AUCTION] == A_NONE:
        _start_play(st, i, rc.first_leader(rv, st[i, DEALER], -1))
    else:
        st[i, PHASE] = BIDDING
        st[i, CURRENT] = (st[i, DEALER] + 1) % 4


@njit(cache=True)
def new_game(st, i, dealer, scores, seat_scores):
    """``TarneebGame.new_game``: scores, counters and the dealer of a fresh game."""
    for t in range(2):
        st[i, SCORE0 + t] = scores[t]
    for s in range(4):
        st[i, SSCORE0 + s] = seat_scores[s]
    st[i, DEALER] = dealer
    st[i, HANDS_PLAYED] = 0
    st[i, DEALS] = 0
    st[i, GAME_OVER] = 0
    st[i, WINNER] = -1


@njit(cache=True)
def deal_from_perms(st, auc, plays, tw, dealt, games, perms, dealers, rv, obs, mask, seat):
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
            new_game(st, i, dealers[k], zeros, zeros)
        elif st[i, ROTATE]:
            st[i, DEALER] = (st[i, DEALER] + 1) % 4
        hands[0], hands[1], hands[2], hands[3] = rc.deal_hands(st[i, DEALER], perms[k])
        exposed = perms[k, NUM_CARDS - 1] if rv[R_TRUMP] == T_LAST_CARD else rc.NO_SUIT
        start_deal(st, auc, plays, tw, dealt, i, hands, exposed, rv)
        _observe_game(st, auc, plays, i, rv, obs, mask, seat)


# -------------------------------------------------------------------- moves
@njit(cache=True)
def _start_play(st, i, leader):
    st[i, PHASE] = PLAY
    st[i, LEADER] = leader
    st[i, CURRENT] = leader


@njit(cache=True)
def _end_auction(st, i):
    st[i, DECLARER] = st[i, HIGH_BIDDER]
    st[i, BID] = st[i, HIGH_BID]
    st[i, PHASE] = TRUMP
    st[i, CURRENT] = st[i, HIGH_BIDDER]


@njit(cache=True)
def _push_auction(st, auc, i, seat, action):
    k = st[i, AUC_LEN]
    auc[i, k, 0] = seat
    auc[i, k, 1] = action
    auc[i, k, 2] = st[i, HIGH_BID]
    st[i, AUC_LEN] = k + 1


@njit(cache=True)
def _finish_hand(st, i, rv):
    """Score a played hand; returns the game winner (-1 for none yet)."""
    delta, seat_delta, winner = rc.score_hand(
        rv, st[i, DECLARER], st[i, BID], st[i, BIDS0 : BIDS0 + 4], st[i, TWON0 : TWON0 + 2], st[i, TBS0 : TBS0 + 4]
    )
    for t in range(2):
        st[i, DELTA0 + t] = delta[t]
        st[i, SCORE0 + t] += delta[t]
    for s in range(4):
        st[i, SDELTA0 + s] = seat_delta[s]
        st[i, SSCORE0 + s] += seat_delta[s]
    if winner < 0:
        winner = rc.game_winner(rv, st[i, SCORE0 : SCORE0 + 2], st[i, SSCORE0 : SSCORE0 + 4])
    st[i, HANDS_PLAYED] += 1
    return winner


@njit(cache=True)
def _end_deal(st, i, rv, thrown_in, winner, rotate, rewards):
    """Close a deal: rewards and what the episode does next (an outcome code)."""
    st[i, PHASE] = DONE
    st[i, CURRENT] = -1
    st[i, THROWN_IN] = thrown_in
    st[i, ROTATE] = rotate
    if winner >= 0:
        st[i, GAME_OVER] = 1
        st[i, WINNER] = winner
    r = rc.team0_reward(rv, st[i, GAME_OVER], st[i, WINNER], st[i, DELTA0], st[i, DELTA0 + 1])
    for s in range(4):
        rewards[i, s] = -r if s & 1 else r
    return rc.deal_outcome(rv, st[i, GAME_OVER], thrown_in, st[i, DEALS])


@njit(cache=True)
def _apply(st, auc, plays, tw, i, a, rv, rewards):
    """Apply legal action ``a`` in game ``i``; returns an outcome code."""
    seat = st[i, CURRENT]
    phase = st[i, PHASE]
    if phase == PLAY:
        st[i, HAND0 + seat] &= ~(np.int64(1) << a)
        st[i, VOID0 + seat] = rc.voids_after(st[i, VOID0 + seat], a, _led_suit(st, plays, i))
        n = st[i, NPLAYED]
        plays[i, n, 0] = seat
        plays[i, n, 1] = a
        n += 1
        st[i, NPLAYED] = n
        if n % 4:
            st[i, CURRENT] = (seat + 1) % 4
            return GOES_ON
        best_seat = rc.trick_winner(plays[i, n - 4, 0], np.int64(plays[i, n - 4, 1]), np.int64(plays[i, n - 3, 1]),
                                    np.int64(plays[i, n - 2, 1]), np.int64(plays[i, n - 1, 1]), st[i, TRUMP_SUIT])
        tw[i, n // 4 - 1] = best_seat
        st[i, TWON0 + (best_seat & 1)] += 1
        st[i, TBS0 + best_seat] += 1
        st[i, LEADER] = best_seat
        if n == NUM_CARDS:
            winner = _finish_hand(st, i, rv)
            return _end_deal(st, i, rv, 0, winner, 1, rewards)
        st[i, CURRENT] = best_seat
        return GOES_ON
    if phase == TRUMP:
        _push_auction(st, auc, i, seat, a)
        st[i, TRUMP_SUIT] = a - TRUMP_BASE
        _start_play(st, i, rc.first_leader(rv, st[i, DEALER], st[i, DECLARER]))
        return GOES_ON
    # bidding
    _push_auction(st, auc, i, seat, a)
    if a == PASS:
        st[i, PASSED_BITS] |= 1 << seat
        st[i, NPASSED] += 1
    else:
        b = a - BID_BASE
        st[i, BIDS0 + seat] = b
        if rv[R_AUCTION] != A_INDIVIDUAL:  # individual bids are not raised: no highest
            st[i, HIGH_BID] = b
            st[i, HIGH_BIDDER] = seat
    total = st[i, BIDS0] + st[i, BIDS0 + 1] + st[i, BIDS0 + 2] + st[i, BIDS0 + 3]
    where, nxt = rc.auction_after(rv, seat, st[i, AUC_LEN], st[i, HIGH_BID], st[i, HIGH_BIDDER], st[i, PASSED_BITS],
                                  st[i, NPASSED], total)
    if where == rc.CALLING:
        st[i, CURRENT] = nxt
    elif where == rc.CONTRACT:
        _end_auction(st, i)
    elif where == rc.OPEN_PLAY:
        _start_play(st, i, rc.first_leader(rv, st[i, DEALER], -1))
    else:
        return _end_deal(st, i, rv, 1, -1, 1 if where == rc.BIDS_TOO_LOW else 0, rewards)
    return GOES_ON


@njit(cache=True)
def is_legal(st, plays, i, a, rv):
    """Whether action ``a`` is legal in game ``i`` now."""
    cards, others = legal_sets(st, plays, i, rv)
    if 0 <= a < NUM_CARDS:
        return ((cards >> a) & 1) == 1
    if BID_BASE <= a < NUM_ACTIONS:
        return ((others >> (a - BID_BASE)) & 1) == 1
    return False


@njit(cache=True)
def step_games(st, auc, plays, tw, actions, rv, rewards, outcome, obs, mask, seat):
    """Apply one action per game; fills ``rewards``, ``outcome`` and, for games whose deal goes on, the next
    decision (``obs``, ``mask``, ``seat``). Returns the number of deals that ended, or ``-1 - i`` when game
    ``i``'s action is illegal, in which case nothing has changed."""
    n = st.shape[0]
    for i in range(n):
        if not is_legal(st, plays, i, actions[i], rv):
            return -1 - i
    ended = 0
    for i in range(n):
        rewards[i, :] = 0.0
        o = _apply(st, auc, plays, tw, i, actions[i], rv, rewards)
        outcome[i] = o
        if o == GOES_ON:
            _observe_game(st, auc, plays, i, rv, obs, mask, seat)
        else:
            ended += 1
    return ended


@njit(cache=True)
def step_some(st, auc, plays, tw, games, actions, rv, rewards, outcome, obs, mask, seat, obs_seats):
    """``step_games`` for ``games[k]`` only (action ``actions[k]``), the other games left as they are.

    ``rewards``, ``outcome``, ``obs``, ``mask`` and ``seat`` are indexed by game; only the rows of ``games`` are
    written. A game whose deal goes on gets its next mask and seat, and its observation only where bit ``s`` of
    ``obs_seats[i]`` is set for the seat ``s`` to act (a caller whose agents decide from the state skips the
    rest). Returns the number of deals that ended, or ``-1 - k`` when ``actions[k]`` is illegal (nothing changed).
    """
    for k in range(games.shape[0]):
        if not is_legal(st, plays, games[k], actions[k], rv):
            return -1 - k
    ended = 0
    for k in range(games.shape[0]):
        i = games[k]
        rewards[i, :] = 0.0
        o = _apply(st, auc, plays, tw, i, actions[k], rv, rewards)
        outcome[i] = o
        if o == GOES_ON:
            s = st[i, CURRENT]
            seat[i] = s
            legal_mask_row(st, plays, i, rv, mask[i])
            if (obs_seats[i] >> s) & 1:
                write_obs_row(st, auc, plays, i, s, rv, obs[i])
        else:
            ended += 1
    return ended


# ------------------------------------------------------------- observations
@njit(cache=True)
def write_obs_row(st, auc, plays, i, o, rv, row):
    """Observer ``o``'s observation of game ``i``, written from its stored state by the encoder of
    :mod:`tarneeb_env.observation`: equal to ``ObservationWriter.buf[o]`` at the same point."""
    row[:] = CLEAR
    target = rv[R_TARGET]
    put_deal(row, o, st[i, HAND0 + o], st[i, DEALER], target, st[i, EXPOSED], st[i, TRUMP_SUIT])
    put_scores(row, o, st[i, SCORE0 : SCORE0 + 2], st[i, SSCORE0 : SSCORE0 + 4], target)
    for k in range(st[i, AUC_LEN]):
        seat, action = np.int64(auc[i, k, 0]), np.int64(auc[i, k, 1])
        if action == PASS:
            put_pass(row, o, seat, np.int64(auc[i, k, 2]))
        elif action < TRUMP_BASE:
            put_bid(row, o, seat, action - BID_BASE)
    if st[i, DECLARER] >= 0:
        put_contract(row, o, st[i, DECLARER], st[i, BID])
    n = st[i, NPLAYED]
    trick_start = n - n % 4
    for k in range(n):
        put_play(row, o, np.int64(plays[i, k, 0]), np.int64(plays[i, k, 1]), k >= trick_start)
    put_team_tricks(row, o, st[i, TWON0 : TWON0 + 2])
    for s in range(4):
        put_seat_tricks(row, o, s, st[i, TBS0 + s])
        for u in range(4):
            if (st[i, VOID0 + s] >> u) & 1:
                put_void(row, o, s, u)
    put_phase(row, st[i, PHASE], SET)
    if st[i, LEADER] >= 0:
        put_leader(row, o, st[i, LEADER], SET)


@njit(cache=True)
def _observe_game(st, auc, plays, i, rv, obs, mask, seat):
    o = st[i, CURRENT]
    seat[i] = o
    write_obs_row(st, auc, plays, i, o, rv, obs[i])
    legal_mask_row(st, plays, i, rv, mask[i])


@njit(cache=True)
def observe_all(st, auc, plays, rv, obs, mask, seat):
    """Observation, action mask and seat of the seat to act, for every game."""
    for i in range(st.shape[0]):
        _observe_game(st, auc, plays, i, rv, obs, mask, seat)


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
drop_stale_cache(globals(), [rc.__file__, observation.__file__, cards.__file__], "batch_kernels")
