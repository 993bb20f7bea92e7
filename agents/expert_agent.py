"""``expert``: perfect-information Monte Carlo with a double-dummy solver (DDS via endplay).

It deals the unseen cards many times in ways that agree with what the seat knows (cards
seen, suits shown void, how many cards each seat still holds, the exposed trump card),
solves every layout double dummy and takes the action with the best mean score under the
rules. It is the strong reference the learned agents aim for; it needs endplay
(``pip install -e ".[expert]"``) only once constructed, so this module imports without it.
"""
from __future__ import annotations

from typing import Optional

from tarneeb_env.cards import BID_BASE, PASS, TRUMP_BASE, mask_of, rank_of
from tarneeb_env.game import individual_bid_value, no_auction_score, team_hand_score

from . import dds
from .layouts import sample_layouts
from .rule_agent import RuleAgent, contract_value, hand_tricks, high_bid, pass_value

AUCTION_POOL = 4  # layouts drawn per layout kept when filtering by the auction (card play)
BID_POOL = 2  # the same for bidding, where every layout drawn is solved
# Bidding solutions kept (one per deal and seat), the oldest dropped first. Far more than the seats whose auctions
# run at once at the evaluator's lockstep tables (4 per deal of a chunk): a solution dropped mid-auction would be
# solved again on other draws, and a match's results would depend on how its deals were split into chunks.
CACHE_SEATS = 4096
SLACK = 1.0  # tricks of leeway when reading strength from a bid or a pass


def _auction_misfit(view, hands: list[int]) -> float:
    """How far the other seats' full hands are from the strength their bids showed (0 = fits).

    Reads bids the way the ``rule`` player makes them: a team-auction bid of b shows about
    b - 3 tricks of its own, a first-round pass with m the lowest bid fewer than m - 2.5; an
    individual declaration of b shows about b tricks.
    """
    rules = view.rules
    me = view.seat
    misfit = 0.0
    if rules.auction == "individual":
        for s in range(4):
            b = view.bids[s]
            if s == me or not b:
                continue
            t = hand_tricks(hands[s], view.trump)
            low = b - SLACK
            high = b + 1.5 + SLACK if b > 2 else 3.5 + SLACK
            misfit += max(0.0, low - t) + max(0.0, t - high)
        return misfit
    high = 0
    spoke = [False] * 4
    for s, a in view.auction:
        if a >= TRUMP_BASE:
            continue
        if s != me:
            t = max(hand_tricks(hands[s], q) for q in range(4))
            if a == PASS:
                if not spoke[s] and not spoke[s ^ 2]:
                    m = max(rules.min_bid, high + 1)
                    misfit += max(0.0, t - (m - 2.5 + SLACK))
            else:
                misfit += max(0.0, (a - BID_BASE - 3.0 - SLACK) - t)
        spoke[s] = True
        if a != PASS:
            high = a - BID_BASE
    return misfit


def deal_utility(view, ours: int) -> float:
    """(ours - theirs) score of the deal when ``view.seat``'s team ends with ``ours`` of 13 tricks."""
    rules = view.rules
    team = view.seat & 1
    if rules.auction == "team":
        if view.declarer & 1 == team:
            mine, theirs = team_hand_score(rules, view.bid, ours)
        else:
            theirs, mine = team_hand_score(rules, view.bid, 13 - ours)
        return mine - theirs
    if rules.auction == "none":
        pts = no_auction_score(rules, (ours, 13 - ours))
        return pts[0] - pts[1]
    return ours  # individual contracts: more tricks for the team


def _check_count(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 200:
        raise ValueError(f"ExpertAgent {name}= must be an int in 1..200 (deals solved per decision), got {value!r}")
    return value


class ExpertAgent(RuleAgent):
    """PIMC + DDS. ``samples``: layouts solved per card played; ``bid_samples``: per deal for bidding.

    It shares ``rule``'s phase dispatch and replaces its three decisions.
    """

    name = "expert"
    act_batch_env = None  # rule's compiled card play is not this agent's
    deterministic = False  # it samples layouts

    def __init__(self, seed: Optional[int] = None, samples: int = 16, bid_samples: int = 8):
        self.samples = _check_count("samples", samples)
        self.bid_samples = _check_count("bid_samples", bid_samples)
        dds.require()
        super().__init__(seed)
        self._contract_cache: dict[tuple, tuple] = {}  # several tables may be played in turn

    def reset(self) -> None:
        super().reset()
        self._contract_cache.clear()

    # --------------------------------------------------------------- sampling
    def _sample_layouts(self, view, played_mask: int, void, n: int) -> list[list[int]]:
        """``n`` layouts of the unseen cards consistent with the view: list of 4 hand masks."""
        return sample_layouts(view, played_mask, void, n, self.rng)

    def _likely_layouts(self, view, played_mask: int, void, n: int) -> list[list[int]]:
        """``n`` layouts that also fit the auction: of ``AUCTION_POOL * n`` consistent layouts, the
        ``n`` whose hands best match what each seat's bids say about its strength."""
        pool = self._sample_layouts(view, played_mask, void, AUCTION_POOL * n)
        if view.rules.auction == "none":
            return pool[:n]
        gone = [0, 0, 0, 0]
        for s, c in view.played:
            gone[s] |= 1 << c
        misfit = [_auction_misfit(view, [h | g for h, g in zip(layout, gone)]) for layout in pool]
        order = sorted(range(len(pool)), key=lambda i: (misfit[i], i))
        return [pool[i] for i in order[:n]]

    # ------------------------------------------------------------------- play
    def _play(self, view) -> tuple[int, str]:
        seat, team = view.seat, view.seat & 1
        layouts = self._likely_layouts(view, view.played_mask, view.voids, self.samples)
        trick = view.trick
        leader = trick[0][0] if trick else seat
        trick_cards = [c for _, c in trick]
        solved = dds.solve_positions([(h, view.trump, leader, trick_cards) for h in layouts])
        value = {a: 0.0 for a in view.legal_actions}
        tricks = {a: 0.0 for a in view.legal_actions}
        for res in solved:
            for a in value:
                ours = view.tricks_won[team] + res[a]
                value[a] += deal_utility(view, ours)
                tricks[a] += res[a]
        best = max(value, key=lambda a: (round(value[a], 9), round(tricks[a], 9), -rank_of(a), -a))
        n = len(solved)
        return best, f"best mean score over {n} double-dummy layouts ({tricks[best] / n:.1f} more tricks for us)"

    # ---------------------------------------------------------------- bidding
    def _contract_tricks(self, view) -> list[list[float]]:
        """Per layout and trump suit, our team's DD tricks when we declare.

        ``BID_POOL * bid_samples`` layouts are solved once per deal; each call keeps the
        ``bid_samples`` that best fit the auction so far."""
        hand = mask_of(view.hand)
        key = (view.seat, hand, view.dealer, view.exposed_card, view.rules)  # one deal seen from one seat
        hit = self._contract_cache.get(key)
        if hit is None:
            if len(self._contract_cache) >= CACHE_SEATS:
                del self._contract_cache[next(iter(self._contract_cache))]  # the oldest
            hit = self._contract_cache[key] = self._solve_contracts(view)
        layouts, table = hit
        misfit = [_auction_misfit(view, h) for h in layouts]
        keep = sorted(range(len(layouts)), key=lambda i: (misfit[i], i))[: self.bid_samples]
        return [table[i] for i in keep]

    def _solve_contracts(self, view) -> tuple[list[list[int]], list[list[float]]]:
        seat, team = view.seat, view.seat & 1
        rules = view.rules
        layouts = self._sample_layouts(view, 0, [0, 0, 0, 0], BID_POOL * self.bid_samples)
        leader = seat if rules.first_lead == "declarer" else (view.dealer + 1) % 4
        suits = range(4) if view.trump is None else (view.trump,)
        table = [[0] * 4 for _ in layouts]
        for s in suits:
            for i, t in enumerate(dds.lead_tricks([(h, s, leader) for h in layouts])):
                table[i][s] = t if leader & 1 == team else 13 - t
        if rules.auction == "individual":  # our share: split the team's tricks by hand strength
            partner = seat ^ 2
            s = view.trump
            for i, h in enumerate(layouts):
                mine, theirs = hand_tricks(h[seat], s), hand_tricks(h[partner], s)
                table[i][s] = table[i][s] * (mine + 0.5) / (mine + theirs + 1.0)
        return layouts, table

    def _bid(self, view) -> tuple[int, str]:
        legal = view.legal_actions
        table = self._contract_tricks(view)
        n = len(table)
        if view.rules.auction == "individual":
            s = view.trump
            best, best_ev = legal[0], -1e9
            for a in legal:
                b = a - BID_BASE
                made = sum(1 for row in table if row[s] + 0.5 >= b)
                ev = (2 * made - n) * individual_bid_value(b) / n
                if ev > best_ev:
                    best, best_ev = a, ev
            return best, f"best expected declaration over {n} double-dummy layouts"
        high_seat, high = high_bid(view)
        if PASS in legal and high_seat == view.seat ^ 2:
            return PASS, "partner holds the contract"
        if PASS not in legal:
            return min(legal), "forced to bid"
        b = min(a for a in legal if a != PASS) - BID_BASE
        ours = view.scores[view.seat & 1]
        ev = max(sum(contract_value(view.rules, b, row[s], ours) for row in table) / n for s in range(4))
        if ev > pass_value(view, high_seat, high):
            return BID_BASE + b, f"bid {b}: expected score {ev:+.1f} over {n} double-dummy layouts"
        return PASS, f"bid {b} would score {ev:+.1f} on average over {n} double-dummy layouts"

    def _name_trump(self, view) -> tuple[int, str]:
        table = self._contract_tricks(view)
        ours = view.scores[view.seat & 1]
        ev = [sum(contract_value(view.rules, view.bid, row[s], ours) for row in table) for s in range(4)]
        best = max(range(4), key=lambda s: (ev[s], s))
        return TRUMP_BASE + best, f"the trump with the best expected score over {len(table)} double-dummy layouts"

