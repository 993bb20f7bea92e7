"""The parts of the advisor's OpenAPI document that no route's docstring holds: its info and its schemas."""
from __future__ import annotations

from agents.explain import MAX_SAMPLES

INFO = {
    "title": "tarneeb-rl advisor",
    "version": "1",
    "description": "The strong player's advice for a Tarneeb position: the shipped network's probabilities over "
                   "the legal actions, its action or search's, and the numbers behind them. docs/advisor.md.",
}

_CARD = {"oneOf": [{"type": "string", "example": "QH"}, {"type": "integer", "minimum": 0, "maximum": 51}],
         "description": "a card: rank (2-10, J, Q, K, A; T for 10) and suit (C, D, H, S or ♣♦♥♠), or its id 0-51"}
_CALL = {"oneOf": [{"type": "string", "example": "pass"}, {"type": "integer", "minimum": 1, "maximum": 13}],
         "description": "\"pass\", or a bid: 8, \"8\" or \"bid 8\""}
_PROB = {"type": "number", "minimum": 0, "maximum": 1}

COMPONENTS = {"schemas": {
    "AdviceRequest": {
        "type": "object",
        "description": "A position as the seat on turn knows it, plus how to search.",
        "required": ["rules", "seat", "dealer", "hand"],
        "additionalProperties": False,
        "properties": {
            "rules": {"oneOf": [{"type": "string", "enum": ["classic", "syrian41", "hearts41", "trump_by_card"]},
                                {"type": "object", "description": "rule fields over a base preset"}]},
            "seat": {"type": "integer", "minimum": 0, "maximum": 3, "description": "the seat advised (on turn)"},
            "dealer": {"type": "integer", "minimum": 0, "maximum": 3},
            "hand": {"type": "array", "items": _CARD, "description": "the cards the seat holds now"},
            "auction": {"type": "array", "items": _CALL,
                        "description": "calls in order from the seat after the dealer"},
            "trump": {"type": "string", "nullable": True, "example": "S",
                      "description": "the suit the declarer named (optional where the rules fix it)"},
            "tricks": {"type": "array", "items": {"type": "array", "items": _CARD, "maxItems": 4},
                       "description": "cards played, trick by trick, each from its leader; only the last unfinished"},
            "exposed_card": {**_CARD, "description": "the dealer's card shown to all (trump: last_card rules)"},
            "scores": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                       "description": "game scores of teams 0 (seats 0, 2) and 1 (seats 1, 3) before this deal"},
            "seat_scores": {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4},
            "samples": {"type": "integer", "minimum": 0, "maximum": MAX_SAMPLES, "default": 0,
                        "description": "layouts of the unseen cards searched (0: the network alone; 64: search's "
                                       "default, about 1 CPU s)"},
            "seed": {"type": "integer", "minimum": 0, "default": 0},
        },
    },
    "Candidate": {
        "type": "object",
        "properties": {
            "action": {"type": "integer", "description": "action id: 0-51 a card, 52 pass, 52+b bid b, 66+s trump s"},
            "label": {"type": "string", "example": "QH"},
            "prob": {**_PROB, "description": "the network's probability"},
            "mean_points": {"type": "number", "nullable": True,
                            "description": "mean net points of the deal for the seat's team (ours minus theirs)"},
            "make_chance": {**_PROB, "nullable": True,
                            "description": "chance the seat's side makes (declaring) or sets (defending) the contract"},
            "mean_tricks": {"type": "number", "nullable": True, "description": "the side's mean tricks"},
        },
    },
    "TableFacts": {
        "type": "object",
        "properties": {
            "voids": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
                      "description": "seat -> suits it has shown out of"},
            "trumps_out": {"type": "integer", "nullable": True},
            "tricks_needed": {"type": "integer", "nullable": True},
            "cards_out": {"type": "array", "items": {"type": "string"}, "description": "cards in the other hands"},
            "strain_tricks": {"type": "object", "nullable": True, "additionalProperties": {"type": "number"}},
            "strain_make": {"type": "object", "nullable": True,
                            "additionalProperties": {"type": "object", "additionalProperties": _PROB}},
        },
    },
    "Advice": {
        "type": "object",
        "properties": {
            "api": {"type": "integer"}, "rules": {"type": "string"}, "seat": {"type": "integer"},
            "phase": {"type": "string", "enum": ["bidding", "trump", "play"]},
            "action": {"type": "integer"}, "label": {"type": "string"},
            "candidates": {"type": "array", "items": {"$ref": "#/components/schemas/Candidate"}},
            "facts": {"$ref": "#/components/schemas/TableFacts"},
            "samples": {"type": "integer"}, "seed": {"type": "integer"}, "network": {"type": "string"},
        },
    },
    "Error": {"type": "object", "properties": {"error": {"type": "string"}}},
}}
