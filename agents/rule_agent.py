"""``rule``: a strong hand-written Tarneeb player that sees only its :class:`PlayerView`.

It is the baseline every learned agent is measured against, and the ``hint`` of the
terminal game, so it must be both sensible and fast: hands are 52-bit int masks, a suit is
13 bits (bit r = rank r), suit valuations come from tables built once at import, and the
cards played and voids shown are read from the view (the engine keeps them), so the player
holds no state between calls and serves any number of tables at once.

Bidding estimates the tricks the hand takes with each suit as trump (top cards, protected
kings and queens, trump length, short side suits that can ruff), adds the partner's
expected share and bids when the expected score of the contract beats passing. Play keeps
the usual card-play rules (:mod:`agents.rule_play`, compiled onto the batch engine's arrays for
rollouts by :meth:`RuleAgent.act_batch_env`); :meth:`RuleAgent.explain` says which one chose the card.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from tarneeb_env.cards import BID_BASE, FULL_DECK, PASS, TRUMP_BASE, mask_of
from tarneeb_env.game import individual_bid_value, team_hand_score
from tarneeb_env.rules_core import AUCTION_MODES

from .base import Agent
from .rule_play import POP as _POP, RANKS as _RANKS, REASONS, play_card

_A, _K, _Q, _J = 1 << 12, 1 << 11, 1 << 10, 1 << 9
_AUCTION = {mode: code for code, mode in enumerate(AUCTION_MODES)}

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


@functools.lru_cache(maxsize=4096)
def _contract_values(rules, bid: int, ours: int) -> tuple[float, ...]:
    """:func:`contract_value` of ``bid`` for 0..13 tricks taken: the same few bids and scores recur in
    every auction, and bidding is most of what ``rule`` spends in a rollout."""
    return tuple(contract_value(rules, bid, k, ours) for k in range(14))


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


class RuleAgent(Agent):
    """Hand-written bidding and card play. ``explain(view)`` gives the action and a short reason."""

    name = "rule"
    reads_observation = False
    deterministic = True  # no draws: a subclass that draws sets it False
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
        values = _contract_values(rules, b, ours)
        tails = [_tail(mean, sigma, k) for k in range(14)]
        tails.append(0.0)
        ev = 0.0
        for k in range(14):
            ev += (tails[k] - tails[k + 1]) * values[k]
        return ev

    # ------------------------------------------------------------------- play
    def _play(self, view) -> tuple[int, str]:
        hand = mask_of(view.hand)
        trick = view.trick
        n = len(trick)
        pad = ((0, 0),) * (3 - n)
        (s0, c0), (s1, c1), (s2, c2) = trick + pad
        card, reason = play_card(hand, ~(view.played_mask | hand) & FULL_DECK, view.seat, view.trump,
                                 -1 if view.declarer is None else view.declarer, _AUCTION[view.rules.auction],
                                 view.bids, view.tricks_by_seat, view.voids, (s0, s1, s2), (c0, c1, c2), n)
        return card, REASONS[reason]

    def act_batch_env(self, env, games) -> list[int]:
        """Actions for the seats to act in ``games`` of a :class:`~tarneeb_env.batch.BatchEnv`: the card play
        compiled on its arrays (:mod:`agents.rule_kernels`), bidding and trump from views, as :meth:`act`."""
        from .rule_kernels import play_actions  # numba: only where a batch engine runs

        state, plays, rules_vec = env.kernel_state()
        out = np.empty(len(games), dtype=np.int64)
        play_actions(state, plays, np.asarray(games, dtype=np.int64), rules_vec, out)
        actions = out.tolist()
        rest = [k for k, a in enumerate(actions) if a < 0]
        if rest:
            for k, view in zip(rest, env.views([games[k] for k in rest])):
                actions[k] = self.explain(view)[0]
        return actions
