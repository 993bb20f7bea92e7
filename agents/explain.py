"""The strong player's advice and its reasons, for one seat's view: the web table's hint and the advisor API.

:func:`explain` answers for the seat whose :class:`~tarneeb_env.PlayerView` it is given, on its turn:

- ``candidates``: every legal action, most likely first, with the shipped network's (``ppo`` for the rules)
  probability; they sum to 1 over the legal actions.
- ``action``, the recommendation. With ``samples=0``: the network's greedy action (what ``ppo`` plays). With
  ``samples=N``: what ``search?samples=N`` seeded with ``seed`` plays (the same layouts, the same rule: a card
  that beats the network's own by more than ``margin`` standard errors; the network's bids and trump calls,
  since ``search`` searches only cards), so the hint is a player whose strength is measured.
- With ``samples > 0``, for each reasonable candidate (the network gives it at least ``search``'s ``min_prob``,
  or it is the network's own): ``mean_points``, the mean *net* points of the deal for the seat's team (its
  score change minus the other team's, what ``search`` maximises), ``make_chance``, the share of layouts in which
  the seat's side reaches its goal (declaring: makes the contract; defending: sets it; individual bidding: the
  seat makes its own bid; no auction: its side takes 7 tricks; a deal thrown in counts for neither), and
  ``mean_tricks`` (the side's tricks; under individual bidding the seat's own). Each layout of the unseen cards
  is dealt as ``search`` deals them (:mod:`agents.layouts`, weighted by how likely the network makes the others'
  past actions) and played to the end of the deal by the network for all four seats.
- ``facts``: what the table knows (:class:`TableFacts`); for a bid in the team auction with ``samples > 0``, the
  seat's side's expected tricks in each strain and its chance of making each legal bid there, from roll-outs
  in which the seat bids the lowest legal bid, the others pass and the seat names that strain.

Cost: :data:`DEFAULT_SAMPLES` layouts answer within about 1 CPU s (docs/advisor.md has the measurements).
The answer depends only on the view, ``samples``, ``seed`` and the network: the observation is rebuilt from
the view (:func:`observation_of`), never from another seat's cards.
"""
from __future__ import annotations

import copy
import functools
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

import numpy as np
import torch

from tarneeb_env import make_rules
from tarneeb_env.cards import (
    BID_BASE, NUM_ACTIONS, NUM_CARDS, NUM_TRICKS, PASS, SUIT_LETTERS, TRUMP_BASE, card_str, cards_of, mask_of,
)
from tarneeb_env.game import TarneebGame
from tarneeb_env.observation import ObservationWriter
from tarneeb_env.rules import RulesSpec
from tarneeb_env.view import PlayerView

from .layouts import sample_layouts
from .search_agent import CHUNK, SearchAgent

DEFAULT_SAMPLES = 64  # layouts per hint (search's default): under 1 CPU s for a bid, about 0.3 for a card
MAX_SAMPLES = 256  # the most an advice may ask for (a server bounds its cost by this)
CONTRACT7 = 7  # tricks a side needs under auction: none


# ----------------------------------------------------------------------------------------------- the answer
@dataclass
class Candidate:
    """One legal action: its language-neutral ``label`` ("QH", "10S", "bid 8", "pass", "trump H"), the network's
    probability, and with samples the roll-outs' mean net points, make/set chance and the side's mean tricks."""

    action: int
    label: str
    prob: float
    mean_points: Optional[float] = None
    make_chance: Optional[float] = None
    mean_tricks: Optional[float] = None


@dataclass
class TableFacts:
    """What the seat knows. ``voids``: seat -> suit letters it has shown out of (failed to follow). ``trumps_out``:
    trumps neither played nor in this hand (None before the trump is known). ``tricks_needed``: tricks the seat's
    side still needs to make (declaring) or set (defending) the contract, under individual bidding the seat its
    own bid, under no auction its side 7 (None during the auction). ``cards_out``: the cards still in the other
    hands (the dealer's exposed card included). ``strain_tricks`` / ``strain_make``: see :func:`explain`."""

    voids: dict[int, list[str]]
    trumps_out: Optional[int]
    tricks_needed: Optional[int]
    cards_out: list[str]
    strain_tricks: Optional[dict[str, float]] = None
    strain_make: Optional[dict[str, dict[int, float]]] = None


@dataclass
class Advice:
    """The recommended ``action``, every legal action as a :class:`Candidate` (most likely first), the facts."""

    action: int
    label: str
    candidates: list[Candidate]
    facts: TableFacts
    samples: int
    seed: int
    network: str = field(default="ppo")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (dict keys as strings, floats rounded to 4 places)."""
        d = asdict(self)
        d["candidates"] = [{k: _round(v) for k, v in c.items()} for c in d["candidates"]]
        facts = d["facts"]
        facts["voids"] = {str(s): v for s, v in facts["voids"].items()}
        if facts["strain_tricks"] is not None:
            facts["strain_tricks"] = {k: _round(v) for k, v in facts["strain_tricks"].items()}
        if facts["strain_make"] is not None:
            facts["strain_make"] = {k: {str(b): _round(p) for b, p in v.items()}
                                    for k, v in facts["strain_make"].items()}
        return d


def _round(x):
    return round(x, 4) if isinstance(x, float) else x


def label(action: int) -> str:
    """``"QH"``, ``"10S"``, ``"pass"``, ``"bid 8"``, ``"trump H"``: the same in every language."""
    if 0 <= action < NUM_CARDS:
        return card_str(action, symbols=False)
    if action == PASS:
        return "pass"
    if BID_BASE < action < TRUMP_BASE:
        return f"bid {action - BID_BASE}"
    if TRUMP_BASE <= action < NUM_ACTIONS:
        return "trump " + SUIT_LETTERS[action - TRUMP_BASE]
    raise ValueError(f"not an action: {action!r} (actions are 0..{NUM_ACTIONS - 1})")


# ------------------------------------------------------------------------------------------------ the facts
def table_facts(view: PlayerView) -> TableFacts:
    """What the table has shown the seat (no roll-outs)."""
    voids = {s: [SUIT_LETTERS[u] for u in range(4) if view.voids[s] >> u & 1] for s in range(4)}
    out_mask = ((1 << NUM_CARDS) - 1) & ~view.played_mask & ~mask_of(view.hand)
    trumps_out = None
    if view.trump is not None:
        trumps_out = sum(1 for c in cards_of(out_mask) if c // 13 == view.trump)
    return TableFacts({s: v for s, v in voids.items() if v}, trumps_out, _tricks_needed(view),
                      [card_str(c, symbols=False) for c in cards_of(out_mask)])


def _tricks_needed(view: PlayerView) -> Optional[int]:
    auction = view.rules.auction
    if auction == "none":
        return max(0, CONTRACT7 - view.tricks_won[view.team])
    if auction == "individual":
        if view.phase == "bidding" or not view.bids[view.seat]:
            return None
        return max(0, view.bids[view.seat] - view.tricks_by_seat[view.seat])
    if view.declarer is None or view.bid is None:
        return None
    taken = view.tricks_won[view.team]
    if view.declarer & 1 == view.team:
        return max(0, view.bid - taken)
    return max(0, NUM_TRICKS - view.bid + 1 - taken)


# ---------------------------------------------------------------------------------------- the observation
def observation_of(view: PlayerView) -> dict[str, np.ndarray]:
    """The env's observation dict for ``view``'s seat, rebuilt by replaying its deal through the rules engine
    with the unseen cards dealt once from a fixed seed: the observation holds nothing of another seat's cards,
    so any layout that agrees with the view gives the same one."""
    layout = sample_layouts(view, view.played_mask, view.voids, 1, np.random.default_rng(0))[0]
    game = replay(view, layout)
    if game.current != view.seat or cards_of(game.legal) != tuple(view.legal_actions):
        raise ValueError("the view does not replay to its own decision: it is not one the engine can reach")
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(view.legal_actions)] = 1
    return {"observation": game.writer.buf[view.seat].copy(), "action_mask": mask}


def replay(view: PlayerView, layout: list[int]) -> TarneebGame:
    """A :class:`TarneebGame` (with its observation writer) replayed to ``view``'s point, the seats holding
    ``layout``'s hands (masks of the cards they still hold) plus the cards they played."""
    deal = [layout[s] for s in range(4)]
    for s, c in view.played:
        deal[s] |= 1 << c
    game = TarneebGame(view.rules, np.random.default_rng(0), writer=ObservationWriter())
    game.new_game(view.dealer, view.scores, view.seat_scores)
    game.start_deal([list(cards_of(h)) for h in deal], view.exposed_card)
    for _, a in (*view.auction, *view.played):
        game.apply(a)
    return game


# ------------------------------------------------------------------------------------------------- advice
@functools.lru_cache(maxsize=16)
def _network(spec: str, rules):
    """The network agent of ``spec`` (a PolicyAgent: its ``actor`` decides every phase)."""
    import agents

    net = agents.load(spec, rules=rules)
    actor = getattr(net, "actor", None)
    if actor is None or not actor.every_phase:
        raise ValueError(f"explain needs a network that plays every phase, got {spec!r}")
    return net


def network_for(rules: RulesSpec, spec: str = "ppo"):
    """The network :func:`explain` asks for ``rules`` (cached); a ValueError that says why when there is none."""
    return _network(spec, make_rules(rules))


@functools.lru_cache(maxsize=16)
def _searcher(spec: str, rules, samples: int) -> SearchAgent:
    return SearchAgent(seed=0, rules=rules, samples=samples, net=spec)


def explain(view: PlayerView, rules: RulesSpec = None, *, samples: int = 0, seed: int = 0,
            network: str = "ppo") -> Advice:
    """The advice for ``view``'s seat, on its turn (see the module docstring). ``rules`` defaults to the view's
    (and must equal them); ``network`` is an agent spec of a network (default: the shipped one for the rules)."""
    rules = view.rules if rules is None else make_rules(rules)
    if rules != view.rules:
        raise ValueError(f"explain: rules {rules.name} differ from the view's ({view.rules.name})")
    if view.to_act != view.seat or not view.legal_actions:
        raise ValueError(f"explain: it is not seat {view.seat}'s turn (to act: {view.to_act})")
    if isinstance(samples, bool) or not isinstance(samples, int) or not 0 <= samples <= MAX_SAMPLES:
        raise ValueError(f"explain: samples must be an int in 0..{MAX_SAMPLES}, got {samples!r}")
    net = _network(network, rules)
    obs = observation_of(view)
    legal = list(view.legal_actions)
    with torch.no_grad():
        logits = net.model.policy_logits(torch.from_numpy(obs["observation"][None]),
                                         torch.from_numpy(obs["action_mask"][None].astype(bool)))
    probs = torch.softmax(logits[0, legal].double(), -1).numpy()  # as search computes them
    own = int(probs.argmax())
    cands = [Candidate(a, label(a), float(p)) for a, p in zip(legal, probs)]
    facts = table_facts(view)
    action = legal[own]
    if samples:
        action = _search(view, rules, samples, seed, network, probs, own, cands, facts)
    order = sorted(range(len(legal)), key=lambda i: (-probs[i], legal[i]))
    return Advice(action, label(action), [cands[i] for i in order], facts, samples, seed, network)


def _search(view, rules, samples, seed, network, probs, own, cands, facts) -> int:
    """Fill the candidates' roll-out numbers (and the strain facts of a team-auction bid); return search's
    action. Calls run in parallel: each seeds a copy of the cached agent (and of its policy, which its seeding
    reseeds), sharing only the network, which is read."""
    search = copy.copy(_searcher(network, rules, samples))
    search.policy = copy.copy(search.policy)
    search.seed(seed)  # as a fresh SearchAgent(seed=seed) stands before its first decision
    picked = [i for i in range(len(probs)) if probs[i] >= search.min_prob or i == own]
    layouts = search._layouts(view)
    actions = [cands[i].action for i in picked]
    points, goal, tricks = [], [], []
    for k in range(0, len(layouts), CHUNK):  # search's chunks: the same batches, so the same greedy roll-outs
        p, g, t = _roll_out(search, view, layouts[k : k + CHUNK], [[a] for a in actions])
        points.append(p), goal.append(g), tricks.append(t)
    points, goal, tricks = np.concatenate(points), np.concatenate(goal), np.concatenate(tricks)
    for j, i in enumerate(picked):
        cands[i].mean_points = float(points[:, j].mean())
        cands[i].make_chance = _chance(goal[:, j])
        cands[i].mean_tricks = float(tricks[:, j].mean())
    if view.phase == "bidding" and rules.auction == "team" and rules.trump == "declarer":
        _strains(search, view, layouts, facts)
    if view.phase != "play" or len(probs) == 1 or len(picked) == 1:
        return cands[own].action
    return actions[search._choose(points, picked.index(own))]


def _chance(goal: np.ndarray) -> Optional[float]:
    played = goal[~np.isnan(goal)]
    return float(played.mean()) if len(played) else None


def _strains(search: SearchAgent, view: PlayerView, layouts, facts: TableFacts) -> None:
    """Per strain, the side's tricks when the seat bids the lowest legal bid, the others pass and it names the
    strain; and from them the chance of making each legal bid there."""
    bids = [a - BID_BASE for a in view.legal_actions if BID_BASE < a < TRUMP_BASE]
    if not bids:
        return
    scripts = [[BID_BASE + bids[0], TRUMP_BASE + s] for s in range(4)]
    tricks = np.concatenate([_roll_out(search, view, layouts[k : k + CHUNK], scripts)[2]
                             for k in range(0, len(layouts), CHUNK)])
    facts.strain_tricks = {SUIT_LETTERS[s]: float(tricks[:, s].mean()) for s in range(4)}
    facts.strain_make = {SUIT_LETTERS[s]: {b: float((tricks[:, s] >= b).mean()) for b in bids} for s in range(4)}


def _roll_out(search: SearchAgent, view: PlayerView, layouts, scripts: list[list[int]]):
    """Each script in each layout, played to the end of the deal: arrays (layouts, scripts) of the net points
    for the seat's team, whether its side reached its goal (NaN: thrown in) and the side's tricks.

    A script is the seat's action, then (a team-auction strain probe) the trump call it makes once the others
    have passed: the other seats pass while a script has an action left; after it, the network plays all
    four seats greedily, as ``search`` plays its roll-outs."""
    n = len(layouts) * len(scripts)
    env, _ = search._replay(view, layouts, copies=len(scripts))
    seat, team = view.seat, view.team
    points = np.zeros(n)
    goal = np.full(n, np.nan)
    tricks = np.zeros(n)
    open_ = np.ones(n, dtype=bool)
    actions = np.array([s[0] for s in scripts] * len(layouts), dtype=np.int64)
    while open_.any():
        obs, mask, to_act, rewards, _, records = env.step(actions)
        for i, rec in records:
            if open_[i]:
                open_[i] = False
                points[i] = rewards[i, seat]
                goal[i], tricks[i] = _outcome(rec, seat, team)
        actions = search._forward(obs, mask).argmax(-1).numpy()
        for j, script in enumerate(scripts):
            if len(script) > 1:
                rows = slice(j, n, len(scripts))
                forced = np.where(to_act[rows] == seat, script[1], PASS)
                legal = mask[rows][np.arange(len(forced)), forced] == 1
                actions[rows] = np.where(open_[rows] & legal, forced, actions[rows])
    return points.reshape(-1, len(scripts)), goal.reshape(-1, len(scripts)), tricks.reshape(-1, len(scripts))


def _outcome(rec, seat: int, team: int) -> tuple[float, float]:
    """(whether the seat's side reached its goal in the deal of ``rec``, a :class:`~tarneeb_env.record.HandRecord`,
    NaN when thrown in; the side's tricks)."""
    if rec.thrown_in:
        return np.nan, 0.0
    if rec.rules["auction"] == "individual":
        return float(rec.seat_made(seat)), float(rec.tricks_by_seat[seat])
    taken = rec.tricks_won[team]
    if rec.declarer is None:  # no auction: each side needs 7 tricks
        return float(taken >= CONTRACT7), float(taken)
    return float(rec.made == (rec.declaring_team == team)), float(taken)


__all__ = ["Advice", "Candidate", "DEFAULT_SAMPLES", "MAX_SAMPLES", "TableFacts", "explain", "label",
           "network_for", "observation_of", "replay", "table_facts"]
