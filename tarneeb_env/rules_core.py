"""The scalar rules of Tarneeb, written once for both engines.

``TarneebGame`` (:mod:`tarneeb_env.game`, plain Python) and the batch kernels
(:mod:`tarneeb_env.batch_kernels`, numba) keep their state differently, one game
of Python ints and lists against struct-of-arrays, but every rule that decides
an outcome lives here: the deal order, the legal bids and cards, where the
auction goes after each call (the next caller, a contract, a throw-in), the
voids a card reveals, the first leader, the trick winner, the three scorings,
the game winner, the rewards and whether an episode ends. The state machines
around them only store what these return.

Why shared functions rather than ``raw_env`` as a one-game view of the numba
state: the Python engine stays a readable phase machine that tools (``play.py``,
the evaluator, the agents' tests) step and inspect as Python values, at its old
speed. These are plain Python functions on ints and tuples, so the Python engine
calls them at Python cost, with no numba start-up or dispatch (numba's first
call in a process takes about a second); :mod:`tarneeb_env.batch_kernels`
registers every one of :data:`KERNEL_RULES` with numba's ``register_jitable``,
so the kernels compile them in and keep their speed. That asks of this module
what numba can compile: ints, tuples and arrays indexed, no Python objects.

Rule options arrive as the ints of :func:`rule_vector` (``rules_vec[R_...]``): a tuple
from Python, an int64 array in the kernels. The episode settings (``R_EPISODE_GAME``
and after) are only in an env's vector (:func:`env_vector`): ``Rules.vector`` stops
before them, so a rule read with the rules alone, such as :func:`deal_outcome`, fails
at once instead of reading a made-up ``max_hands``.
"""
from __future__ import annotations

from .cards import BID_BASE, NUM_CARDS, NUM_SEATS, NUM_TRICKS, SUIT_MASK, SUIT_SIZE, TRUMP_BASE

BIDDING, TRUMP, PLAY, DONE = 0, 1, 2, 3
PHASES = ("bidding", "trump", "play", "done")
HEARTS = 2
NO_SUIT = -1  # no trump (yet), no exposed card, no suit led, no seat
SUIT_BITS = SUIT_MASK[0]  # suit u's cards are SUIT_BITS << (SUIT_SIZE * u): one shift, no tuple, in the kernels

# ---- the rule vector: the rule options, then (an env's vector only) its episode settings
(R_TARGET, R_ELDEST_LEADS, R_DEFENDERS_ALWAYS, R_KABOOT, R_BID13_WINS, R_DEALER_BIDS, R_MIN_BID, R_AUCTION, R_TRUMP,
 R_MIN_TOTAL, R_EPISODE_GAME, R_REWARD_WIN, R_MAX_HANDS) = range(13)
KABOOT_MODES = ("bonus", "double", "plain")
AUCTION_MODES = ("team", "individual", "none")
TRUMP_MODES = ("declarer", "last_card", "hearts")
K_BONUS, K_DOUBLE, K_PLAIN = 0, 1, 2
A_TEAM, A_INDIVIDUAL, A_NONE = 0, 1, 2
T_DECLARER, T_LAST_CARD, T_HEARTS = 0, 1, 2

# ---- where the auction goes after a call (auction_after)
CALLING, CONTRACT, OPEN_PLAY, ALL_PASSED, BIDS_TOO_LOW = range(5)

# ---- what the end of a deal means for the episode
GOES_ON, NEXT_DEAL, TERMINATED, TRUNCATED = 0, 1, 2, 3

TRUMP_BITS = 0xF << (TRUMP_BASE - BID_BASE)  # the four trump calls in the bits of actions BID_BASE..


def rule_vector(rules) -> tuple[int, ...]:
    """The rule options as the ints these functions read (``R_TARGET`` .. ``R_MIN_TOTAL``): a tuple for
    Python callers (plain ints, fast to index), ``np.array(..., np.int64)`` for the kernels."""
    return tuple(
        int(x) for x in [
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
        ]
    )


def env_vector(rules, episode: str, reward: str, max_hands: int) -> tuple[int, ...]:
    """An env's vector: :func:`rule_vector` and its episode settings, which :func:`team0_reward` and
    :func:`deal_outcome` read. No defaults: a made-up ``max_hands`` would truncate every episode."""
    return rules.vector + (int(episode == "game"), int(reward == "win"), int(max_hands))


# -------------------------------------------------------------------- deal
def deal_hands(dealer, perm):
    """The four hands (bit masks) dealt from the shuffle ``perm`` (52 cards, a list or an array): one card at
    a time, starting left of the dealer, so the last card (``perm[51]``) is the dealer's."""
    h0, h1, h2, h3 = 0, 0, 0, 0
    for j in range(NUM_CARDS):
        bit = 1 << perm[j]
        seat = (dealer + 1 + j) % NUM_SEATS
        if seat == 0:
            h0 |= bit
        elif seat == 1:
            h1 |= bit
        elif seat == 2:
            h2 |= bit
        else:
            h3 |= bit
    return h0, h1, h2, h3


# ----------------------------------------------------------------- auction
def bid_bits(rules_vec, high_bid, high_bidder, npassed):
    """The legal auction actions as bits of ``action - BID_BASE`` (bit 0: pass, bit b: bid b).

    Individual bidding: any bid 2..13. Team auction: a bid above the highest and at least ``min_bid``, and
    pass unless ``all_pass: dealer_bids`` forces the last seat to bid after three passes.
    """
    if rules_vec[R_AUCTION] == A_INDIVIDUAL:
        return ((1 << 12) - 1) << 2
    low = max(rules_vec[R_MIN_BID], high_bid + 1)
    bids = (((1 << (NUM_TRICKS + 1 - low)) - 1) << low) if low <= NUM_TRICKS else 0
    if rules_vec[R_DEALER_BIDS] and high_bidder < 0 and npassed == 3:
        return bids
    return bids | 1


def bid_is_high(rules_vec):
    """Whether a bid becomes the highest bid, its bidder the one who would hold the contract: in the team auction.
    Individual bids are not raised over each other: each stands alone, and there is no highest."""
    return rules_vec[R_AUCTION] != A_INDIVIDUAL


def auction_after(rules_vec, seat, ncalls, high_bid, high_bidder, passed_bits, npassed, total_bids):
    """Where the auction goes after ``seat``'s call, read from the state with the call in it:
    ``(CALLING, next seat to call)``, ``(CONTRACT, declarer)``, ``(OPEN_PLAY, NO_SUIT)`` (no declarer: play
    starts), ``(ALL_PASSED, NO_SUIT)`` or ``(BIDS_TOO_LOW, NO_SUIT)`` (thrown in; the dealer moves on only
    after the second).

    Individual bidding: each seat declares once, then play starts unless the bids total less than
    ``min_total_bids``. Team auction: passes are final; four passes throw the deal in; a bid of 13, or a
    third pass behind a bid, wins the contract; else the next seat that has not passed calls.
    """
    if rules_vec[R_AUCTION] == A_INDIVIDUAL:
        if ncalls < NUM_SEATS:
            return CALLING, (seat + 1) % NUM_SEATS
        if total_bids < rules_vec[R_MIN_TOTAL]:
            return BIDS_TOO_LOW, NO_SUIT
        return OPEN_PLAY, NO_SUIT
    if npassed == NUM_SEATS:
        return ALL_PASSED, NO_SUIT
    if high_bidder >= 0 and (npassed == NUM_SEATS - 1 or high_bid == NUM_TRICKS):
        return CONTRACT, high_bidder
    nxt = (seat + 1) % NUM_SEATS
    while (passed_bits >> nxt) & 1:
        nxt = (nxt + 1) % NUM_SEATS
    return CALLING, nxt


def first_leader(rules_vec, dealer, declarer):
    """Who leads the first trick: the declarer, or the seat after the dealer (``first_lead: eldest``, and
    always when there is no declarer)."""
    if declarer < 0 or rules_vec[R_ELDEST_LEADS]:
        return (dealer + 1) % 4
    return declarer


def fixed_trump(rules_vec, exposed):
    """The trump suit the rules fix before any call (hearts, or the exposed card's suit), else ``NO_SUIT``."""
    if rules_vec[R_TRUMP] == T_HEARTS:
        return HEARTS
    if rules_vec[R_TRUMP] == T_LAST_CARD:
        return exposed // 13
    return NO_SUIT


# -------------------------------------------------------------------- play
def legal_cards(hand, led):
    """The cards (bits) ``hand`` may play to a trick led in suit ``led`` (``NO_SUIT``: leading): that suit
    when the hand holds it, else any card."""
    if led != NO_SUIT:
        follow = hand & (SUIT_BITS << (SUIT_SIZE * led))
        if follow:
            return follow
    return hand


def voids_after(voids, card, led):
    """A seat's voids (bit u: known to hold no card of suit u) after it plays ``card`` to a trick led in
    ``led``: failing to follow shows it holds none of the suit led."""
    if led != NO_SUIT and card // SUIT_SIZE != led:
        return voids | (1 << led)
    return voids


def trick_winner(leader, c0, c1, c2, c3, trump):
    """Seat that wins the trick ``leader`` led with ``c0`` (then ``c1``..``c3`` in turn): the highest trump,
    else the highest card of the suit led. ``trump`` is a suit or ``NO_SUIT``."""
    led = c0 // 13
    best, best_key, k = 0, c0 % 13 + (100 if led == trump else 0), 0
    for card in (c1, c2, c3):
        k += 1
        suit = card // 13
        key = 100 + card % 13 if suit == trump else (card % 13 if suit == led else -1)
        if key > best_key:
            best, best_key = k, key
    return (leader + best) % 4


# ----------------------------------------------------------------- scoring
def individual_bid_value(bid):
    """Points a player wins (or loses) on an individual bid: b for 2-6, 2b for 7-12, 39 for 13."""
    if bid == 13:
        return 39
    return 2 * bid if bid >= 7 else bid


def team_score(rules_vec, bid, taken):
    """(bidding team, defenders) score change of a team-auction hand."""
    defenders = NUM_TRICKS - taken
    if taken >= bid:
        if taken == NUM_TRICKS:
            k = rules_vec[R_KABOOT]
            points = (26 if bid == 13 else 16) if k == K_BONUS else (26 if k == K_DOUBLE else 13)
        else:
            points = taken
        return points, (defenders if rules_vec[R_DEFENDERS_ALWAYS] else 0)
    loss = 16 if (bid == 13 and rules_vec[R_KABOOT] == K_BONUS) else bid
    return -loss, defenders


def no_auction_points(rules_vec, taken):
    """A team's score under ``auction: none``: its tricks when it took 7 or more (all 13 per ``kaboot``)."""
    if taken < 7:
        return 0
    if taken < NUM_TRICKS:
        return taken
    k = rules_vec[R_KABOOT]
    return 16 if k == K_BONUS else (26 if k == K_DOUBLE else 13)


def score_hand(rules_vec, declarer, bid, bids, tricks_won, tricks_by_seat):
    """A played hand's ``((team 0, team 1) score change, (seat 0..3) score change, winner)``, where winner
    is the team that wins the game at once by a made bid of 13 (``bid13_wins_game``), else -1.

    ``bids``, ``tricks_won`` and ``tricks_by_seat`` are tuples (from Python) or array rows (the kernels).
    """
    winner = -1
    d0, d1, s0, s1, s2, s3 = 0, 0, 0, 0, 0, 0
    auction = rules_vec[R_AUCTION]
    if auction == A_TEAM:
        team = declarer & 1
        taken = tricks_won[team]
        bidding, defending = team_score(rules_vec, bid, taken)
        d0, d1 = (bidding, defending) if team == 0 else (defending, bidding)
        if rules_vec[R_BID13_WINS] and bid == 13 and taken >= 13:
            winner = team
    elif auction == A_INDIVIDUAL:
        s0 = _individual_delta(bids[0], tricks_by_seat[0])
        s1 = _individual_delta(bids[1], tricks_by_seat[1])
        s2 = _individual_delta(bids[2], tricks_by_seat[2])
        s3 = _individual_delta(bids[3], tricks_by_seat[3])
        d0, d1 = s0 + s2, s1 + s3
    else:
        d0, d1 = no_auction_points(rules_vec, tricks_won[0]), no_auction_points(rules_vec, tricks_won[1])
    return (d0, d1), (s0, s1, s2, s3), winner


def _individual_delta(bid, taken):
    value = individual_bid_value(bid)
    return value if taken >= bid else -value


def game_winner(rules_vec, scores, seat_scores):
    """The team that has won the game, else -1: a team reaches ``target_score`` (under individual bidding,
    one of its players does while the partner is not below zero); when both do, the higher total wins
    and a tie plays on. ``scores`` and ``seat_scores``: tuples or array rows."""
    target = rules_vec[R_TARGET]
    q0, q1 = False, False
    for t in range(2):
        if rules_vec[R_AUCTION] == A_INDIVIDUAL:
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
def team0_reward(rules_vec, game_over, winner, delta0, delta1):
    """Each seat of team 0's reward when a deal ends (team 1's is its negative): the score change of team 0
    minus team 1's, or with ``reward: win`` +1 / -1 once the game is over (0 before)."""
    if rules_vec[R_REWARD_WIN]:
        if not game_over:
            return 0
        return 1 if winner == 0 else -1
    return delta0 - delta1


def deal_outcome(rules_vec, game_over, thrown_in, deals):
    """What the episode does after a deal: ends (game over, or a played hand with ``episode: hand``), is
    truncated (``max_hands`` deals), or goes on with the next deal."""
    if game_over or (not rules_vec[R_EPISODE_GAME] and not thrown_in):
        return TERMINATED
    if deals >= rules_vec[R_MAX_HANDS]:
        return TRUNCATED
    return NEXT_DEAL


# what the kernels compile in (tarneeb_env.batch_kernels registers each with numba)
KERNEL_RULES = (
    deal_hands, bid_bits, bid_is_high, auction_after, first_leader, legal_cards, voids_after, fixed_trump, trick_winner,
    individual_bid_value, team_score, no_auction_points, score_hand, _individual_delta, game_winner, team0_reward,
    deal_outcome,
)
