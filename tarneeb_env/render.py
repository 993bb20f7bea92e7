"""Plain-text table of a game in progress, for ``render_mode="ansi"``/``"human"``."""
from __future__ import annotations

from .cards import SUIT_SYMBOLS, action_str, card_str, cards_of
from .game import PHASES


def hand_str(mask: int) -> str:
    """Cards of a mask grouped by suit, highest first: ``♠ A K 4  ♥ Q 10``."""
    groups = []
    for suit in (3, 2, 1, 0):
        cards = [c for c in reversed(cards_of(mask)) if c // 13 == suit]
        if cards:
            groups.append(SUIT_SYMBOLS[suit] + " " + " ".join(card_str(c)[:-1] for c in cards))
    return "  ".join(groups) or "-"


def render_text(game) -> str:
    lines = [
        f"Tarneeb ({game.rules.name})  dealer: player_{game.dealer}  phase: {PHASES[game.phase]}  "
        f"score: team 0&2 {game.scores[0]} - team 1&3 {game.scores[1]} (target {game.rules.target_score})",
    ]
    if game.auction:
        lines.append("auction: " + ", ".join(f"p{s} {action_str(a)}" for s, a in game.auction))
    if game.exposed_card is not None:
        lines.append(f"exposed card: {card_str(game.exposed_card)}")
    if game.declarer is not None:
        lines.append(f"contract: {game.bid} by player_{game.declarer}")
    if game.trump is not None:
        lines.append(f"trump: {SUIT_SYMBOLS[game.trump]}")
    if game.phase != 3:
        lines.append(f"tricks: team 0&2 {game.tricks_won[0]} - team 1&3 {game.tricks_won[1]}")
        if game.trick:
            lines.append("trick: " + "  ".join(f"p{s} {card_str(c)}" for s, c in game.trick))
        if game.current >= 0:
            lines.append(f"player_{game.current} to act, holding: {hand_str(game.hands[game.current])}")
    return "\n".join(lines)
