"""Build fixed deals whose trick winners are known by construction.

Tricks 1-12 are each played in one suit (suits clubs, diamonds, hearts, spades
in turn, three tricks each), so everybody follows and the highest card wins:
the builder hands that card to the seat that should win. The four aces are
left for trick 13, where the holder of the trump ace wins (whoever leads).
Also :func:`replay`: a fixed deal replayed through ``raw_env`` with given moves.
"""
from __future__ import annotations

from tarneeb_env import PASS, bid_action, raw_env, trump_action


def build_hand(first_leader: int, winners: list[int], trump: int):
    """Return ``(deal, plays)`` where playing ``plays`` in order gives tricks won by ``winners``.

    ``winners[12]`` receives the trump ace; the other aces go to the other seats.
    """
    assert len(winners) == 13
    deal = [[], [], [], []]
    plays = []
    leader = first_leader
    for t in range(12):
        suit = t // 3
        ranks = [4 * (t % 3) + i for i in range(4)]  # four ranks of this suit, ascending
        order = [(leader + i) % 4 for i in range(4)]
        low = iter(ranks[:3])
        for seat in order:
            rank = ranks[3] if seat == winners[t] else next(low)
            card = suit * 13 + rank
            deal[seat].append(card)
            plays.append(card)
        leader = winners[t]
    aces = {s: s * 13 + 12 for s in range(4)}
    holder = {winners[12]: aces.pop(trump)}
    for seat in range(4):
        if seat not in holder:
            holder[seat] = aces.pop(min(aces))
    for seat in range(4):
        deal[seat].append(holder[seat])
    plays.extend(holder[(leader + i) % 4] for i in range(4))
    return deal, plays


def team_winners(first_leader: int, team_tricks: int, team: int) -> list[int]:
    """Winners giving ``team`` exactly ``team_tricks`` tricks (team members alternate)."""
    winners = []
    for t in range(13):
        if t < team_tricks - 1 or (t == 12 and team_tricks > 0):
            winners.append(team + 2 * (t % 2))
        else:
            winners.append((team + 1) % 4)
    return winners


def auction(*actions) -> list[int]:
    """``auction(7, 8, "p", "p", 9, "p")`` -> env actions."""
    return [PASS if a in ("p", "pass") else bid_action(a) for a in actions]


def play_scripted(env, auction_actions, trump=None, plays=()):
    """Step ``env`` (a raw_env already reset) through an auction, a trump call and plays.

    Returns the hand records collected from infos, in order.
    """
    records = []
    actions = list(auction_actions)
    if trump is not None:
        actions.append(trump_action(trump))
    actions.extend(plays)
    for a in actions:
        env.step(a)
        rec = env.infos[env.possible_agents[0]].get("hand_record")
        if rec is not None and (not records or rec is not records[-1]):
            records.append(rec)
    return records


def replay(rules, deal, dealer, exposed, actions):
    """``raw_env`` after ``actions`` from this deal, dealer and exposed card (the leak tests move hidden cards
    between hands and replay the same moves)."""
    e = raw_env(rules=rules)
    e.reset(seed=0, options={"deal": deal, "dealer": dealer, "exposed_card": exposed})
    for a in actions:
        e.step(a)
    return e
