"""Numba kernels of the batch engine: the rules of :mod:`tarneeb_env.game` on struct-of-arrays state.

State of game ``i``: ``st[i, COL]`` (int64 scalars, columns below), ``auc[i, k]``
(auction entries: seat, action, highest bid when it was made), ``plays[i, k]``
(seat, card in play order; the current trick is the last ``nplayed % 4``),
``tw[i, t]`` (trick winners) and ``dealt[i, s]`` (each seat's dealt cards,
sorted, for the hand record). Rule options come as the int vector built by
:func:`rule_vector`. Shuffles, dealer draws and hand records stay in Python
(each game's numpy generator, called only when a deal ends); everything done
per decision is here. Observations are written from this state for the seat
to act, in the layout of :mod:`tarneeb_env.observation`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import observation as ob

BIDDING, TRUMP, PLAY, DONE = 0, 1, 2, 3
MAX_AUCTION = 24  # a team auction holds at most 13 bids, 4 passes and the trump call

# ---- columns of st
(PHASE, CURRENT, DEALER, LEADER, TRUMP_SUIT, DECLARER, BID, HIGH_BID, HIGH_BIDDER, PASSED_BITS, NPASSED, EXPOSED,
 AUC_LEN, NPLAYED, GAME_OVER, WINNER, DEALS, HANDS_PLAYED, THROWN_IN, ROTATE) = range(20)
BIDS0, TWON0, TBS0, SCORE0, SSCORE0, HAND0, DELTA0, SDELTA0 = 20, 24, 26, 30, 32, 36, 40, 42
NUM_COLS = 46

# ---- rule vector
(R_TARGET, R_ELDEST_LEADS, R_DEFENDERS_ALWAYS, R_KABOOT, R_BID13_WINS, R_DEALER_BIDS, R_MIN_BID, R_AUCTION, R_TRUMP,
 R_MIN_TOTAL, R_EPISODE_GAME, R_REWARD_WIN, R_MAX_HANDS) = range(13)
KABOOT_MODES = ("bonus", "double", "plain")
AUCTION_MODES = ("team", "individual", "none")
TRUMP_MODES = ("declarer", "last_card", "hearts")
K_BONUS, K_DOUBLE, K_PLAIN = 0, 1, 2
A_TEAM, A_INDIVIDUAL, A_NONE = 0, 1, 2
T_DECLARER, T_LAST_CARD, T_HEARTS = 0, 1, 2

# ---- what apply_actions reports per game
GOES_ON, NEXT_DEAL, TERMINATED, TRUNCATED = 0, 1, 2, 3

SUIT_BITS = np.int64(0x1FFF)
_HAND, _PLAYED, _TRICK, _BIDS = ob.HAND, ob.PLAYED, ob.TRICK, ob.BIDS
_PASSED, _PASS_AT, _DECLARER, _CONTRACT = ob.PASSED, ob.PASS_AT, ob.DECLARER, ob.CONTRACT
_TRUMP, _EXPOSED, _TRICKS_TEAM, _TRICKS_SEAT = ob.TRUMP, ob.EXPOSED, ob.TRICKS_TEAM, ob.TRICKS_SEAT
_SCORES, _SEAT_SCORES, _TARGET, _DEALER, _PHASE, _LEADER = (
    ob.SCORES, ob.SEAT_SCORES, ob.TARGET, ob.DEALER, ob.PHASE, ob.LEADER,
)


def rule_vector(rules, episode: str, reward: str, max_hands: int) -> np.ndarray:
    """The rule options (and episode settings) as the int64 vector the kernels read."""
    return np.array(
        [
            rules.target_score,
            rules.first_lead == "eldest",
            rules.defenders_score == "always",
            KABOOT_MODES.index(rules.kaboot),
            rules.bid13_wins_game,
            rules.all_pass == "dealer_bids",
            rules.min_bid,
            AUCTION_MODES.index(rules.auction),
            TRUMP_MODES.index(rules.trump),
            rules.min_total_bids,
            episode == "game",
            reward == "win",
            max_hands,
        ],
        dtype=np.int64,
    )


# ------------------------------------------------------------------ legality
@njit(cache=True)
def legal_sets(st, plays, i, rv):
    """(card bits, bits of actions 52..69 shifted down by 52) legal for the seat to act in game ``i``."""
    phase = st[i, PHASE]
    if phase == PLAY:
        hand = st[i, HAND0 + st[i, CURRENT]]
        n = st[i, NPLAYED]
        if n % 4:
            led = np.int64(plays[i, n - n % 4, 1]) // 13
            follow = hand & (SUIT_BITS << (13 * led))
            if follow:
                return follow, np.int64(0)
        return hand, np.int64(0)
    if phase == BIDDING:
        if rv[R_AUCTION] == A_INDIVIDUAL:
            return np.int64(0), np.int64(((1 << 12) - 1) << 2)  # bids 2..13
        low = max(rv[R_MIN_BID], st[i, HIGH_BID] + 1)
        bids = np.int64((((1 << (14 - low)) - 1) << low) if low <= 13 else 0)
        if rv[R_DEALER_BIDS] and st[i, HIGH_BIDDER] < 0 and st[i, NPASSED] == 3:
            return np.int64(0), bids
        return np.int64(0), bids | 1
    if phase == TRUMP:
        return np.int64(0), np.int64(0xF << 14)
    return np.int64(0), np.int64(0)


# _BITS[b, j]: bit j of byte b, to write masks eight actions at a time
_BITS = np.array([[(b >> j) & 1 for j in range(8)] for b in range(256)], dtype=np.int8)


@njit(cache=True)
def legal_mask_row(st, plays, i, rv, out):
    """Write game ``i``'s int8[70] action mask into ``out``."""
    cards, others = legal_sets(st, plays, i, rv)
    for k in range(7):  # cards 0..55 (52..55 are zero bits)
        b = (cards >> (8 * k)) & 255
        for j in range(8):
            out[8 * k + j] = _BITS[b, j]
    for k in range(2):  # actions 52..67 overwrite the zero bits above
        b = (others >> (8 * k)) & 255
        for j in range(8):
            out[52 + 8 * k + j] = _BITS[b, j]
    b = (others >> 16) & 3
    out[68] = _BITS[b, 0]
    out[69] = _BITS[b, 1]


# -------------------------------------------------------------------- deals
@njit(cache=True)
def start_deal(st, auc, plays, tw, dealt, i, hands, exposed, rv):
    """Open a deal of the given hands (masks) for ``st[i, DEALER]``, as ``TarneebGame.start_deal``."""
    for s in range(4):
        h = hands[s]
        st[i, HAND0 + s] = h
        k = 0
        for c in range(52):
            if (h >> c) & 1:
                dealt[i, s, k] = c
                k += 1
        st[i, BIDS0 + s] = 0
        st[i, TBS0 + s] = 0
        st[i, SDELTA0 + s] = 0
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
    if rv[R_TRUMP] == T_HEARTS:
        st[i, TRUMP_SUIT] = 2
    elif rv[R_TRUMP] == T_LAST_CARD:
        st[i, TRUMP_SUIT] = exposed // 13
    eldest = (st[i, DEALER] + 1) % 4
    if rv[R_AUCTION] == A_NONE:
        _start_play(st, i, eldest)
    else:
        st[i, PHASE] = BIDDING
        st[i, CURRENT] = eldest


@njit(cache=True)
def new_game(st, i, dealer, score0, score1):
    """``TarneebGame.new_game``: scores, counters and the dealer of a fresh game."""
    st[i, SCORE0] = score0
    st[i, SCORE0 + 1] = score1
    for s in range(4):
        st[i, SSCORE0 + s] = 0
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
    Cards go round one at a time from the dealer's left, as ``deal_cards``. Writes each game's first decision.
    """
    hands = np.zeros(4, dtype=np.int64)
    for k in range(games.shape[0]):
        i = games[k]
        if dealers[k] >= 0:
            new_game(st, i, dealers[k], 0, 0)
        elif st[i, ROTATE]:
            st[i, DEALER] = (st[i, DEALER] + 1) % 4
        dealer = st[i, DEALER]
        hands[:] = 0
        for j in range(52):
            hands[(dealer + 1 + j) % 4] |= np.int64(1) << perms[k, j]
        exposed = perms[k, 51] if rv[R_TRUMP] == T_LAST_CARD else -1
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
def _team_score(rv, bid, taken):
    """(bidding team, defenders) change of a team-auction hand, as ``team_hand_score``."""
    defenders = 13 - taken
    if taken >= bid:
        if taken == 13:
            k = rv[R_KABOOT]
            points = (26 if bid == 13 else 16) if k == K_BONUS else (26 if k == K_DOUBLE else 13)
        else:
            points = taken
        return points, (defenders if rv[R_DEFENDERS_ALWAYS] else 0)
    loss = 16 if (bid == 13 and rv[R_KABOOT] == K_BONUS) else bid
    return -loss, defenders


@njit(cache=True)
def _game_winner(st, i, rv):
    target = rv[R_TARGET]
    q = np.zeros(2, dtype=np.bool_)
    for t in range(2):
        if rv[R_AUCTION] == A_INDIVIDUAL:
            for s in (t, t + 2):
                if st[i, SSCORE0 + s] >= target and st[i, SSCORE0 + (s ^ 2)] >= 0:
                    q[t] = True
        else:
            q[t] = st[i, SCORE0 + t] >= target
    if q[0] and q[1]:
        if st[i, SCORE0] == st[i, SCORE0 + 1]:
            return -1
        return 0 if st[i, SCORE0] > st[i, SCORE0 + 1] else 1
    if q[0]:
        return 0
    if q[1]:
        return 1
    return -1


@njit(cache=True)
def _finish_hand(st, i, rv):
    """Score a played hand; returns the game winner (-1 for none yet)."""
    winner = -1
    auction = rv[R_AUCTION]
    if auction == A_TEAM:
        team = st[i, DECLARER] & 1
        bid = st[i, BID]
        taken = st[i, TWON0 + team]
        bidding, defending = _team_score(rv, bid, taken)
        st[i, DELTA0 + team] = bidding
        st[i, DELTA0 + 1 - team] = defending
        if rv[R_BID13_WINS] and bid == 13 and taken >= 13:
            winner = team
    elif auction == A_INDIVIDUAL:
        for s in range(4):
            b = st[i, BIDS0 + s]
            value = 39 if b == 13 else (2 * b if b >= 7 else b)
            st[i, SDELTA0 + s] = value if st[i, TBS0 + s] >= b else -value
        st[i, DELTA0] = st[i, SDELTA0] + st[i, SDELTA0 + 2]
        st[i, DELTA0 + 1] = st[i, SDELTA0 + 1] + st[i, SDELTA0 + 3]
    else:
        kaboot = 16 if rv[R_KABOOT] == K_BONUS else (26 if rv[R_KABOOT] == K_DOUBLE else 13)
        for t in range(2):
            taken = st[i, TWON0 + t]
            st[i, DELTA0 + t] = (kaboot if taken == 13 else taken) if taken >= 7 else 0
    for t in range(2):
        st[i, SCORE0 + t] += st[i, DELTA0 + t]
    for s in range(4):
        st[i, SSCORE0 + s] += st[i, SDELTA0 + s]
    if winner < 0:
        winner = _game_winner(st, i, rv)
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
    if rv[R_REWARD_WIN]:
        if st[i, GAME_OVER]:
            for s in range(4):
                rewards[i, s] = 1.0 if s % 2 == st[i, WINNER] else -1.0
    else:
        d = st[i, DELTA0] - st[i, DELTA0 + 1]
        for s in range(4):
            rewards[i, s] = d if s % 2 == 0 else -d
    if st[i, GAME_OVER] or (not rv[R_EPISODE_GAME] and not thrown_in):
        return TERMINATED
    if st[i, DEALS] >= rv[R_MAX_HANDS]:
        return TRUNCATED
    return NEXT_DEAL


@njit(cache=True)
def _apply(st, auc, plays, tw, i, a, rv, rewards):
    """Apply legal action ``a`` in game ``i``; returns an outcome code."""
    seat = st[i, CURRENT]
    phase = st[i, PHASE]
    if phase == PLAY:
        st[i, HAND0 + seat] &= ~(np.int64(1) << a)
        n = st[i, NPLAYED]
        plays[i, n, 0] = seat
        plays[i, n, 1] = a
        n += 1
        st[i, NPLAYED] = n
        if n % 4:
            st[i, CURRENT] = (seat + 1) % 4
            return GOES_ON
        trump = st[i, TRUMP_SUIT]
        led = plays[i, n - 4, 1] // 13
        best_seat, best_key = -1, -1
        for k in range(n - 4, n):
            card = plays[i, k, 1]
            suit = card // 13
            if suit == trump:
                key = 100 + card % 13
            elif suit == led:
                key = card % 13
            else:
                continue
            if key > best_key:
                best_seat, best_key = plays[i, k, 0], key
        tw[i, n // 4 - 1] = best_seat
        st[i, TWON0 + (best_seat & 1)] += 1
        st[i, TBS0 + best_seat] += 1
        st[i, LEADER] = best_seat
        if n == 52:
            winner = _finish_hand(st, i, rv)
            return _end_deal(st, i, rv, 0, winner, 1, rewards)
        st[i, CURRENT] = best_seat
        return GOES_ON
    if phase == TRUMP:
        _push_auction(st, auc, i, seat, a)
        st[i, TRUMP_SUIT] = a - 66
        lead = (st[i, DEALER] + 1) % 4 if rv[R_ELDEST_LEADS] else st[i, DECLARER]
        _start_play(st, i, lead)
        return GOES_ON
    # bidding
    _push_auction(st, auc, i, seat, a)
    if rv[R_AUCTION] == A_INDIVIDUAL:
        st[i, BIDS0 + seat] = a - 52
        if st[i, AUC_LEN] < 4:
            st[i, CURRENT] = (seat + 1) % 4
            return GOES_ON
        total = st[i, BIDS0] + st[i, BIDS0 + 1] + st[i, BIDS0 + 2] + st[i, BIDS0 + 3]
        if total < rv[R_MIN_TOTAL]:
            return _end_deal(st, i, rv, 1, -1, 1, rewards)
        _start_play(st, i, (st[i, DEALER] + 1) % 4)
        return GOES_ON
    if a == 52:
        st[i, PASSED_BITS] |= 1 << seat
        st[i, NPASSED] += 1
        if st[i, NPASSED] == 4:
            return _end_deal(st, i, rv, 1, -1, 0, rewards)
        if st[i, NPASSED] == 3 and st[i, HIGH_BIDDER] >= 0:
            _end_auction(st, i)
            return GOES_ON
    else:
        b = a - 52
        st[i, HIGH_BID] = b
        st[i, HIGH_BIDDER] = seat
        st[i, BIDS0 + seat] = b
        if b == 13 or st[i, NPASSED] == 3:
            _end_auction(st, i)
            return GOES_ON
    nxt = (seat + 1) % 4
    while (st[i, PASSED_BITS] >> nxt) & 1:
        nxt = (nxt + 1) % 4
    st[i, CURRENT] = nxt
    return GOES_ON


@njit(cache=True)
def step_games(st, auc, plays, tw, actions, rv, rewards, outcome, obs, mask, seat):
    """Apply one action per game; fills ``rewards``, ``outcome`` and, for games whose deal goes on, the next
    decision (``obs``, ``mask``, ``seat``). Returns the number of deals that ended, or ``-1 - i`` when game
    ``i``'s action is illegal, in which case nothing has changed."""
    n = st.shape[0]
    for i in range(n):
        a = actions[i]
        cards, others = legal_sets(st, plays, i, rv)
        if 0 <= a < 52:
            ok = (cards >> a) & 1
        elif 52 <= a < 70:
            ok = (others >> (a - 52)) & 1
        else:
            ok = 0
        if not ok:
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


# ------------------------------------------------------------- observations
@njit(cache=True)
def write_obs_row(st, auc, plays, i, o, rv, row):
    """Observer ``o``'s observation of game ``i``, equal to ``ObservationWriter.buf[o]``."""
    row[:] = 0.0
    hand = st[i, HAND0 + o]
    for c in range(52):
        row[_HAND + c] = (hand >> c) & 1
    n = st[i, NPLAYED]
    trick_start = n - n % 4
    for k in range(n):
        rel = ((plays[i, k, 0] - o) & 3) * 52 + plays[i, k, 1]
        row[_PLAYED + rel] = 1.0
        if k >= trick_start:
            row[_TRICK + rel] = 1.0
    for k in range(st[i, AUC_LEN]):
        r = (auc[i, k, 0] - o) & 3
        a = auc[i, k, 1]
        if a == 52:
            row[_PASSED + r] = 1.0
            row[_PASS_AT + r * 14 + auc[i, k, 2]] = 1.0
        elif a < 66:
            row[_BIDS + r * 13 + a - 53] = 1.0
    if st[i, DECLARER] >= 0:
        row[_DECLARER + ((st[i, DECLARER] - o) & 3)] = 1.0
        row[_CONTRACT + st[i, BID] - 1] = 1.0
    if st[i, TRUMP_SUIT] >= 0:
        row[_TRUMP + st[i, TRUMP_SUIT]] = 1.0
    if st[i, EXPOSED] >= 0:
        row[_EXPOSED + st[i, EXPOSED]] = 1.0
    team = o & 1
    row[_TRICKS_TEAM] = st[i, TWON0 + team] / 13.0
    row[_TRICKS_TEAM + 1] = st[i, TWON0 + 1 - team] / 13.0
    target = rv[R_TARGET]
    row[_SCORES] = st[i, SCORE0 + team] / target
    row[_SCORES + 1] = st[i, SCORE0 + 1 - team] / target
    for s in range(4):
        r = (s - o) & 3
        row[_TRICKS_SEAT + r] = st[i, TBS0 + s] / 13.0
        row[_SEAT_SCORES + r] = st[i, SSCORE0 + s] / target
    row[_TARGET] = target / 100.0
    row[_DEALER + ((st[i, DEALER] - o) & 3)] = 1.0
    row[_PHASE + st[i, PHASE]] = 1.0
    if st[i, LEADER] >= 0:
        row[_LEADER + ((st[i, LEADER] - o) & 3)] = 1.0


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
