"""``rule``: a strong hand-written Tarneeb player that sees only its :class:`PlayerView`.

It is the baseline every learned agent is measured against, and the ``hint`` of the
terminal game, so it must be both sensible and fast: hands are 52-bit int masks, a suit is
13 bits (bit r = rank r), suit valuations come from tables built once at import, and the
cards played and voids shown are read from the view (the engine keeps them), so the player
holds no state between calls and serves any number of tables at once.

Bidding estimates the tricks the hand takes with each suit as trump (top cards, protected
kings and queens, trump length, short side suits that can ruff), adds the partner's
expected share and bids when the expected score of the contract beats passing. Play keeps
the usual card-play rules; :meth:`RuleAgent.explain` says which one chose the card.
"""
from __future__ import annotations

import math

from tarneeb_env.cards import BID_BASE, FULL_DECK, PASS, TRUMP_BASE, mask_of
from tarneeb_env.game import individual_bid_value, team_hand_score

from .base import Agent

_RANKS = 0x1FFF
_A, _K, _Q, _J = 1 << 12, 1 << 11, 1 << 10, 1 << 9
_POP = tuple(bin(r).count("1") for r in range(1 << 13))

PARTNER_TRICKS = 2.0  # expected contribution of a partner who has said nothing (half a trick less once passed)
TRICKS_SIGMA = 1.6  # spread of the team's tricks around the estimate
INDIVIDUAL_SIGMA = 1.3


def _side_tricks(r: int) -> float:
    """Tricks a non-trump suit holding takes when another suit is trump."""
    n = _POP[r]
    if n == 0:
        return 0.0
    a, k, q = bool(r & _A), bool(r & _K), bool(r & _Q)
    t = 0.0
    if a:
        t += 1.0
    if k:
        t += 1.0 if a else (0.55 if n >= 2 else 0.15)
    if q:
        if a and k:
            t += 0.75 if n >= 3 else 0.0
        elif a or k:
            t += 0.5 if n >= 3 else 0.2
        elif n >= 3:
            t += 0.25
    if n >= 5 and (a or k):
        t += 0.4 * (n - 4)  # a long suit with a top card can be set up once trumps are out
    return min(t, float(n))


def _trump_tricks(r: int) -> float:
    """Tricks the trump suit itself takes: honours that survive, then the length."""
    n = _POP[r]
    a, k, q, j = bool(r & _A), bool(r & _K), bool(r & _Q), bool(r & _J)
    t = 0.0
    if a:
        t += 1.0
    if k:
        t += 1.0 if (a or n >= 3) else (0.6 if n >= 2 else 0.2)
    if q:
        t += 1.0 if (a and k) else (0.6 if n >= 3 else 0.1)
    if j and n >= 4:
        t += 0.4 if (a or k or q) else 0.25
    t += max(0, n - 3)
    return min(t, float(n))


_SIDE = tuple(_side_tricks(r) for r in range(1 << 13))
_TRUMP = tuple(_trump_tricks(r) for r in range(1 << 13))


def suit_holdings(hand: int) -> tuple[int, int, int, int]:
    return (hand & _RANKS, (hand >> 13) & _RANKS, (hand >> 26) & _RANKS, (hand >> 39) & _RANKS)


def hand_tricks(hand: int, trump: int) -> float:
    """Estimated tricks this hand takes with ``trump`` (the partner's share not included)."""
    h = suit_holdings(hand)
    t = 0.0
    short = 0
    for s in range(4):
        if s != trump:
            t += _SIDE[h[s]]
            n = _POP[h[s]]
            if n < 3:
                short += 3 - n
    nt = _POP[h[trump]]
    ruffs = min(short, max(0, nt - 2)) * 0.5  # spare trumps that can ruff a short side suit
    return t + _TRUMP[h[trump]] + ruffs


WIN_BONUS = 10  # what winning the game at once is worth, in points, when choosing a contract


def contract_value(rules, bid: int, taken: int, ours: int) -> float:
    """(ours - theirs) change of declaring ``bid`` and taking ``taken`` tricks, with a bonus when it wins the game."""
    mine, theirs = team_hand_score(rules, bid, taken)
    if mine > 0 and ours + mine >= rules.target_score:
        mine += WIN_BONUS
    return mine - theirs


def high_bid(view) -> tuple[int, int]:
    """(seat, bid) of the highest bid so far in a team auction, (-1, 0) when none."""
    high_seat, high = -1, 0
    for s, a in view.auction:
        if a != PASS and a < TRUMP_BASE:
            high_seat, high = s, a - BID_BASE
    return high_seat, high


def pass_value(view, high_seat: int, high: int) -> float:
    """What passing is worth against bidding: nothing (the deal is redealt or the opponents
    play at their limit) unless the opponents hold a contract that would win them the game."""
    team = view.seat & 1
    if high_seat >= 0 and high_seat & 1 != team and view.scores[1 - team] + high >= view.rules.target_score:
        return -6.0
    return 0.0


def _tail(mean: float, sigma: float, k: float) -> float:
    """P(X >= k) for X ~ Normal(mean, sigma), continuity-corrected to whole tricks."""
    return 0.5 * math.erfc((k - 0.5 - mean) / (sigma * math.sqrt(2.0)))


def _cheapest_master(mine: int, unseen: int) -> int:
    """Lowest of my cards (suit ranks) that beats every unseen card of the suit, or -1."""
    top = unseen.bit_length()  # ranks >= top are above every unseen card
    above = (mine >> top) << top
    return (above & -above).bit_length() - 1 if above else -1


def _low(x: int) -> int:
    return (x & -x).bit_length() - 1


def _side_suits(hand: int, unseen: int, trump: int):
    """(suit, my ranks, unseen ranks) of each non-trump suit I still hold."""
    for s in range(4):
        if s != trump:
            mine = (hand >> (13 * s)) & _RANKS
            if mine:
                yield s, mine, (unseen >> (13 * s)) & _RANKS


def _beats(card: int, best: int, trump: int) -> bool:
    s = card // 13
    if s == best // 13:
        return card > best
    return s == trump


class RuleAgent(Agent):
    """Hand-written bidding and card play. ``explain(view)`` gives the action and a short reason."""

    name = "rule"
    reads_observation = False
    # bidding constants as class attributes, so a variant can be tried as a subclass
    partner_tricks = PARTNER_TRICKS
    sigma = TRICKS_SIGMA

    def act(self, observation, view) -> int:
        return self.explain(view)[0]

    def explain(self, view) -> tuple[int, str]:
        """The action this player takes in ``view`` and why, in a few words."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (to act: {view.to_act}, phase {view.phase})")
        if len(legal) == 1:
            return legal[0], "the only legal action"
        phase = view.phase
        if phase == "play":
            return self._play(view)
        if phase == "bidding":
            return self._bid(view)
        if phase == "trump":
            return self._name_trump(view)
        raise ValueError(f"seat {view.seat} asked to act in phase {phase!r}")

    def _name_trump(self, view) -> tuple[int, str]:
        hand = mask_of(view.hand)
        best = max(range(4), key=lambda s: (hand_tricks(hand, s), s))
        return TRUMP_BASE + best, "the suit in which the hand takes the most tricks"

    # ---------------------------------------------------------------- bidding
    def _bid(self, view) -> tuple[int, str]:
        hand = mask_of(view.hand)
        rules = view.rules
        legal = view.legal_actions
        if rules.auction == "individual":
            mean = hand_tricks(hand, view.trump)
            best, best_ev = 2, -1e9
            for a in legal:
                b = a - BID_BASE
                ev = (2.0 * _tail(mean, INDIVIDUAL_SIGMA, b) - 1.0) * individual_bid_value(b)
                if ev > best_ev:
                    best, best_ev = b, ev
            return BID_BASE + best, "the declaration with the best expected score for this hand alone"
        seat = view.seat
        partner = seat ^ 2
        bids = view.bids
        high_seat, high = high_bid(view)
        if PASS in legal and high_seat == partner:
            return PASS, "partner holds the contract"
        if PASS not in legal:
            return min(legal), "forced to bid"
        mine = max(hand_tricks(hand, s) for s in range(4))
        if bids[partner]:
            partner_part = max(self.partner_tricks, bids[partner] - 4.5)
        elif any(s == partner for s, _ in view.auction):
            partner_part = self.partner_tricks - 0.5
        else:
            partner_part = self.partner_tricks
        b = min(a for a in legal if a != PASS) - BID_BASE
        ev = self._contract_ev(rules, mine + partner_part, b, view.scores[seat & 1], self.sigma)
        if ev > pass_value(view, high_seat, high):
            return BID_BASE + b, "expected score of the lowest bid beats passing"
        return PASS, "too few tricks for the lowest bid"

    @staticmethod
    def _contract_ev(rules, mean: float, b: int, ours: int, sigma: float) -> float:
        """Expected (ours - theirs) score of declaring ``b`` with ``mean`` expected team tricks."""
        ev = 0.0
        for k in range(14):
            p = _tail(mean, sigma, k) - (_tail(mean, sigma, k + 1) if k < 13 else 0.0)
            ev += p * contract_value(rules, b, k, ours)
        return ev

    # ------------------------------------------------------------------- play
    def _play(self, view) -> tuple[int, str]:
        hand = mask_of(view.hand)
        unseen = ~(view.played_mask | hand) & FULL_DECK
        trick = view.trick
        if not trick:
            return self._lead(view, hand, unseen)
        return self._follow(view, hand, unseen, trick)

    def _partner_counts(self, view) -> bool:
        """Whether a trick won by the partner is as good as our own (not so under individual bids)."""
        if view.rules.auction != "individual":
            return True
        me, p = view.seat, view.seat ^ 2
        tbs, bids = view.tricks_by_seat, view.bids
        return tbs[p] < bids[p] or tbs[me] >= bids[me]

    def _follow(self, view, hand, unseen, trick) -> tuple[int, str]:
        seat = view.seat
        trump = view.trump
        void = view.voids
        led = trick[0][1] // 13
        wseat, wcard = trick[0]
        for s, c in trick[1:]:
            if _beats(c, wcard, trump):
                wseat, wcard = s, c
        pos = len(trick)  # 1: second hand, 2: third hand, 3: last
        lho = (seat + 1) & 3
        shift = 13 * led
        follow = (hand >> shift) & _RANKS
        uns_led = (unseen >> shift) & _RANKS
        uns_trump = (unseen >> (13 * trump)) & _RANKS
        if wseat == seat ^ 2 and self._partner_counts(view):
            secure = pos == 3
            if not secure:  # third hand: only the left-hand opponent still plays
                ws = wcard // 13
                if ws == trump:
                    secure = (uns_trump >> (wcard % 13 + 1)) == 0
                else:
                    lho_ruffs = (void[lho] >> led & 1) and uns_trump and not (void[lho] >> trump & 1)
                    secure = (uns_led >> (wcard % 13 + 1)) == 0 and not lho_ruffs
            if not secure and follow and wcard // 13 == led:
                m = _cheapest_master(follow, uns_led)
                if m > wcard % 13 and not (void[lho] >> led & 1):
                    return shift + m, "third hand: make sure of the trick partner may lose"
            if follow:
                return shift + _low(follow), "partner is winning: follow with the lowest card"
            return self._discard(view, hand, unseen, "partner is winning: discard from the weakest suit")
        # an opponent is winning (or partner's trick does not help us)
        if follow:
            if wcard // 13 != led:
                return shift + _low(follow), "the trick is trumped: follow low"
            wr = wcard % 13
            higher = (follow >> (wr + 1)) << (wr + 1)
            if not higher:
                return shift + _low(follow), "cannot beat the winning card: follow low"
            if pos == 3:
                return shift + _low(higher), "win the trick as cheaply as possible"
            m = _cheapest_master(follow, uns_led)
            lho_void = void[lho] >> led & 1 and uns_trump and not (void[lho] >> trump & 1)
            if m > wr and not lho_void:
                return shift + m, "win with the cheapest sure winner"
            if pos == 2:
                top = follow.bit_length() - 1
                # the lowest card equivalent to the top one (the ranks between are played or mine)
                gaps = uns_led & ((1 << top) - 1)
                floor = gaps.bit_length()
                card = _low((follow >> floor) << floor)
                if card > wr:
                    return shift + card, "third hand high"
            return shift + _low(follow), "second hand low"
        trumps = (hand >> (13 * trump)) & _RANKS
        if trumps and led != trump:
            if wcard // 13 == trump:
                over = (trumps >> (wcard % 13 + 1)) << (wcard % 13 + 1)
                if over:
                    return 13 * trump + _low(over), "overruff as cheaply as possible"
                return self._discard(view, hand, unseen, "cannot overruff: discard from the weakest suit")
            return 13 * trump + _low(trumps), "ruff: partner is not winning this trick"
        return self._discard(view, hand, unseen, "cannot win: discard from the weakest suit")

    @staticmethod
    def _discard(view, hand, unseen, reason) -> tuple[int, str]:
        trump = view.trump
        best_key = None
        best = -1
        for s, mine, uns in _side_suits(hand, unseen, trump):
            top = mine.bit_length() - 1
            masters = _POP[mine >> uns.bit_length()] if uns.bit_length() <= top else 0
            above = _POP[uns >> (top + 1)]  # unseen cards that beat my best one
            guard = 1 if (above == 1 and _POP[mine] == 2) or (above == 2 and _POP[mine] == 3) else 0
            key = (masters, guard, -above, _POP[mine])
            if best_key is None or key < best_key:
                best_key, best = key, 13 * s + _low(mine)
        if best < 0:  # only trumps left
            best = 13 * trump + _low((hand >> (13 * trump)) & _RANKS)
        return best, reason

    def _lead(self, view, hand, unseen) -> tuple[int, str]:
        seat = view.seat
        trump = view.trump
        partner = seat ^ 2
        opps = ((seat + 1) & 3, (seat + 3) & 3)
        void = view.voids
        tshift = 13 * trump
        trumps = (hand >> tshift) & _RANKS
        uns_trump = (unseen >> tshift) & _RANKS
        opp_trumps = uns_trump and not all(void[o] >> trump & 1 for o in opps)
        rules = view.rules
        if rules.auction == "team":
            attacking = view.declarer is not None and (view.declarer & 1) == (seat & 1)
        elif rules.auction == "individual":
            b = view.bids
            attacking = b[seat] + b[partner] >= b[opps[0]] + b[opps[1]]
        else:
            attacking = True
        if trumps and opp_trumps:
            m = _cheapest_master(trumps, uns_trump)
            if m >= 0 and attacking:
                return tshift + m, "draw trumps with a top trump"
            if attacking and _POP[trumps] > _POP[uns_trump] and _POP[trumps] >= 4:
                return tshift + _low(trumps), "draw trumps: we hold the length"

        def ruffable(s: int) -> bool:  # an opponent is out of the suit and may still hold a trump
            return bool(opp_trumps) and any((void[o] >> s & 1) and not (void[o] >> trump & 1) for o in opps)

        partner_trumps = uns_trump and not (void[partner] >> trump & 1)
        through = not attacking and view.declarer == opps[0]  # the declarer plays right after us
        best_key = None
        best, best_reason = -1, ""
        for s, mine, uns in _side_suits(hand, unseen, trump):
            m = _cheapest_master(mine, uns)
            risky = ruffable(s)
            if m >= 0 and not risky:
                key, card, reason = (4, _POP[mine]), m, "cash an established winner"
            elif void[partner] >> s & 1 and partner_trumps and not risky:
                key, card, reason = (3, 0), _low(mine), "lead the suit partner can ruff"
            else:
                top = mine.bit_length() - 1
                second = (mine ^ (1 << top)).bit_length() - 1
                # top of a sequence: two honours with no unseen card between them
                seq = second >= 9 and (uns >> (second + 1)) & ((1 << (top - second - 1)) - 1) == 0
                # a king or queen that an unseen card still beats is worth keeping: do not lead away from it
                tenace = top >= 10 and uns >> (top + 1) and not seq
                score = _POP[mine] - (3 if tenace else 0) - (6 if risky else 0)
                reason = "lead low from the longest safe suit"
                if through and top < 9:
                    score += 1
                    reason = "lead through the declarer"
                if seq:
                    key, card, reason = (2, score), top, "top of a sequence"
                else:
                    key, card = (1, score), _low(mine)
            if best_key is None or key > best_key:
                best_key, best, best_reason = key, 13 * s + card, reason
        if best >= 0:
            return best, best_reason
        if trumps:
            m = _cheapest_master(trumps, uns_trump)
            if m >= 0:
                return tshift + m, "only trumps left: lead the top trump"
            return tshift + _low(trumps), "only trumps left: lead low"
        raise AssertionError("a seat on lead holds no card")
