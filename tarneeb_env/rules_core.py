"""The scalar rules of Tarneeb, written once as numba functions that both engines call.

``TarneebGame`` (:mod:`tarneeb_env.game`, plain Python) and the batch kernels
(:mod:`tarneeb_env.batch_kernels`, numba) keep their state differently, one game
of Python ints and lists against struct-of-arrays, but every rule that decides
an outcome lives here: the legal bids, the trick winner, the three scorings, the
game winner, the first leader, the rewards and whether an episode ends. The
state machines around them only move state and call these.

Why shared functions rather than ``raw_env`` as a one-game view of the numba
state: the Python engine stays a readable phase machine that tools (``play.py``,
the evaluator, the agents' tests) step and inspect as Python values, and a call
of an ``@njit`` function from Python with int arguments costs about 0.3 µs,
less than the Python trick winner it replaces, so ``raw_env`` keeps its speed.
The kernels inline these calls, so the batch engine keeps its speed too.

Rule options reach these functions as the int64 vector of :func:`rule_vector`
(``rv[R_...]``), which both engines build once from their :class:`Rules`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .cards import BID_BASE, NUM_TRICKS, TRUMP_BASE

BIDDING, TRUMP, PLAY, DONE = 0, 1, 2, 3
PHASES = ("bidding", "trump", "play", "done")
HEARTS = 2
NO_SUIT = -1  # no trump (yet), no exposed card, no seat

# ---- the rule vector
(R_TARGET, R_ELDEST_LEADS, R_DEFENDERS_ALWAYS, R_KABOOT, R_BID13_WINS, R_DEALER_BIDS, R_MIN_BID, R_AUCTION, R_TRUMP,
 R_MIN_TOTAL, R_EPISODE_GAME, R_REWARD_WIN, R_MAX_HANDS) = range(13)
KABOOT_MODES = ("bonus", "double", "plain")
AUCTION_MODES = ("team", "individual", "none")
TRUMP_MODES = ("declarer", "last_card", "hearts")
K_BONUS, K_DOUBLE, K_PLAIN = 0, 1, 2
A_TEAM, A_INDIVIDUAL, A_NONE = 0, 1, 2
T_DECLARER, T_LAST_CARD, T_HEARTS = 0, 1, 2

# ---- what the end of a deal means for the episode
GOES_ON, NEXT_DEAL, TERMINATED, TRUNCATED = 0, 1, 2, 3

TRUMP_BITS = 0xF << (TRUMP_BASE - BID_BASE)  # the four trump calls in the bits of actions BID_BASE..


def rule_vector(rules, episode: str = "hand", reward: str = "score_diff", max_hands: int = 0) -> np.ndarray:
    """The rule options (and an env's episode settings) as the int64 vector these functions read."""
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


# ----------------------------------------------------------------- auction
@njit(cache=True)
def bid_bits(rv, high_bid, high_bidder, npassed):
    """The legal auction actions as bits of ``action - BID_BASE`` (bit 0: pass, bit b: bid b).

    Individual bidding: any bid 2..13. Team auction: a bid above the highest and at least ``min_bid``, and
    pass unless ``all_pass: dealer_bids`` forces the last seat to bid after three passes.
    """
    if rv[R_AUCTION] == A_INDIVIDUAL:
        return np.int64(((1 << 12) - 1) << 2)
    low = max(rv[R_MIN_BID], high_bid + 1)
    bids = np.int64((((1 << (NUM_TRICKS + 1 - low)) - 1) << low) if low <= NUM_TRICKS else 0)
    if rv[R_DEALER_BIDS] and high_bidder < 0 and npassed == 3:
        return bids
    return bids | 1


@njit(cache=True)
def first_leader(rv, dealer, declarer):
    """Who leads the first trick: the declarer, or the seat after the dealer (``first_lead: eldest``, and
    always when there is no declarer)."""
    if declarer < 0 or rv[R_ELDEST_LEADS]:
        return (dealer + 1) % 4
    return declarer


@njit(cache=True)
def fixed_trump(rv, exposed):
    """The trump suit the rules fix before any call (hearts, or the exposed card's suit), else ``NO_SUIT``."""
    if rv[R_TRUMP] == T_HEARTS:
        return HEARTS
    if rv[R_TRUMP] == T_LAST_CARD:
        return exposed // 13
    return NO_SUIT


# -------------------------------------------------------------------- play
@njit(cache=True)
def trick_winner(leader, c0, c1, c2, c3, trump):
    """Seat that wins the trick ``leader`` led with ``c0`` (then ``c1``..``c3`` in turn): the highest trump,
    else the highest card of the suit led. ``trump`` is a suit or ``NO_SUIT``."""
    led = c0 // 13
    best, best_key = 0, -1
    for k in range(4):
        card = c0 if k == 0 else (c1 if k == 1 else (c2 if k == 2 else c3))
        suit = card // 13
        if suit == trump:
            key = 100 + card % 13
        elif suit == led:
            key = card % 13
        else:
            continue
        if key > best_key:
            best, best_key = k, key
    return (leader + best) % 4


# ----------------------------------------------------------------- scoring
@njit(cache=True)
def individual_bid_value(bid):
    """Points a player wins (or loses) on an individual bid: b for 2-6, 2b for 7-12, 39 for 13."""
    if bid == 13:
        return 39
    return 2 * bid if bid >= 7 else bid


@njit(cache=True)
def team_score(rv, bid, taken):
    """(bidding team, defenders) score change of a team-auction hand."""
    defenders = NUM_TRICKS - taken
    if taken >= bid:
        if taken == NUM_TRICKS:
            k = rv[R_KABOOT]
            points = (26 if bid == 13 else 16) if k == K_BONUS else (26 if k == K_DOUBLE else 13)
        else:
            points = taken
        return points, (defenders if rv[R_DEFENDERS_ALWAYS] else 0)
    loss = 16 if (bid == 13 and rv[R_KABOOT] == K_BONUS) else bid
    return -loss, defenders


@njit(cache=True)
def no_auction_points(rv, taken):
    """A team's score under ``auction: none``: its tricks when it took 7 or more (all 13 per ``kaboot``)."""
    if taken < 7:
        return 0
    if taken < NUM_TRICKS:
        return taken
    k = rv[R_KABOOT]
    return 16 if k == K_BONUS else (26 if k == K_DOUBLE else 13)


@njit(cache=True)
def score_hand(rv, declarer, bid, bids, tricks_won, tricks_by_seat, scores, seat_scores, delta, seat_delta):
    """Score a played hand: write the team (``delta``) and seat (``seat_delta``) score changes, add them to
    ``scores`` and ``seat_scores``, and return the team that has won the game (-1: none yet)."""
    seat_delta[:] = 0
    winner = -1
    auction = rv[R_AUCTION]
    if auction == A_TEAM:
        team = declarer & 1
        taken = tricks_won[team]
        delta[team], delta[1 - team] = team_score(rv, bid, taken)
        if rv[R_BID13_WINS] and bid == 13 and taken >= 13:
            winner = team
    elif auction == A_INDIVIDUAL:
        for s in range(4):
            value = individual_bid_value(bids[s])
            seat_delta[s] = value if tricks_by_seat[s] >= bids[s] else -value
        delta[0] = seat_delta[0] + seat_delta[2]
        delta[1] = seat_delta[1] + seat_delta[3]
    else:
        for t in range(2):
            delta[t] = no_auction_points(rv, tricks_won[t])
    scores += delta
    seat_scores += seat_delta
    return winner if winner >= 0 else game_winner(rv, scores, seat_scores)


@njit(cache=True)
def game_winner(rv, scores, seat_scores):
    """The team that has won the game, else -1: a team reaches ``target_score`` (under individual bidding,
    one of its players does while the partner is not below zero); when both do, the higher total wins
    and a tie plays on."""
    target = rv[R_TARGET]
    q0, q1 = False, False
    for t in range(2):
        if rv[R_AUCTION] == A_INDIVIDUAL:
            q = (seat_scores[t] >= target and seat_scores[t + 2] >= 0) or (
                seat_scores[t + 2] >= target and seat_scores[t] >= 0
            )
        else:
            q = scores[t] >= target
        if t == 0:
            q0 = q
        else:
            q1 = q
    if q0 and q1:
        if scores[0] == scores[1]:
            return -1
        return 0 if scores[0] > scores[1] else 1
    if q0:
        return 0
    if q1:
        return 1
    return -1


# ------------------------------------------------------------------ episode
@njit(cache=True)
def team0_reward(rv, game_over, winner, delta0, delta1):
    """Each seat of team 0's reward when a deal ends (team 1's is its negative): the score change of team 0
    minus team 1's, or with ``reward: win`` +1 / -1 once the game is over (0 before)."""
    if rv[R_REWARD_WIN]:
        if not game_over:
            return 0
        return 1 if winner == 0 else -1
    return delta0 - delta1


@njit(cache=True)
def deal_outcome(rv, game_over, thrown_in, deals):
    """What the episode does after a deal: ends (game over, or a played hand with ``episode: hand``), is
    truncated (``max_hands`` deals), or goes on with the next deal."""
    if game_over or (not rv[R_EPISODE_GAME] and not thrown_in):
        return TERMINATED
    if deals >= rv[R_MAX_HANDS]:
        return TRUNCATED
    return NEXT_DEAL
