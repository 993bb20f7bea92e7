"""Rule options and presets.

The four rule texts the project starts from disagree on details; ``classic`` is
the default reading and every other reading is a field of :class:`Rules`.
Field names and values are plain strings/ints/bools so a ``Rules`` round-trips
through YAML and JSON (``Rules(**d)`` / ``rules.to_dict()``).
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import os
from dataclasses import dataclass
from typing import Any, Mapping, Union

from .rules_core import rule_vector

_CHOICES = {
    "first_lead": ("declarer", "eldest"),
    "defenders_score": ("on_set", "always"),
    "kaboot": ("bonus", "double", "plain"),
    "all_pass": ("redeal", "dealer_bids"),
    "auction": ("team", "individual", "none"),
    "trump": ("declarer", "last_card", "hearts"),
}
_VALID_AUCTION_TRUMP = (
    ("team", "declarer"),
    ("individual", "last_card"),
    ("individual", "hearts"),
    ("none", "last_card"),
    ("none", "hearts"),
)


@dataclass(frozen=True)
class Rules:
    """One complete rule set. Invalid values raise ``ValueError`` naming the field.

    - ``target_score``: a team wins when it has at least this after a hand.
    - ``first_lead``: ``declarer`` leads the first trick, or ``eldest`` (seat after the dealer).
    - ``defenders_score``: ``on_set`` (defenders score their tricks only when the bid fails) or ``always``.
    - ``kaboot`` (all 13 tricks by the bidding team): ``bonus`` 16 (26 on a bid of 13, a failed 13 costs 16),
      ``double`` 26 whatever the bid (a failed 13 costs 13), ``plain`` 13.
    - ``bid13_wins_game``: a made bid of 13 wins the game at once.
    - ``all_pass``: ``redeal`` (same dealer deals again) or ``dealer_bids`` (after three passes the dealer must bid).
    - ``min_bid``: lowest bid of the team auction.
    - ``auction``: ``team`` (classic), ``individual`` (each player bids their own tricks, 2-13) or ``none``.
    - ``trump``: ``declarer`` names it, ``last_card`` (suit of the dealer's last dealt card, shown to all) or ``hearts``.
    - ``min_total_bids``: individual bidding throws the deal in when the four bids total less.
    """

    target_score: int = 31
    first_lead: str = "declarer"
    defenders_score: str = "on_set"
    kaboot: str = "bonus"
    bid13_wins_game: bool = False
    all_pass: str = "redeal"
    min_bid: int = 7
    auction: str = "team"
    trump: str = "declarer"
    min_total_bids: int = 11

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"rules.{name}: {value!r} is not one of {list(allowed)}")
        for name in ("target_score", "min_bid", "min_total_bids"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"rules.{name}: expected an int, got {value!r}")
        if not isinstance(self.bid13_wins_game, bool):
            raise ValueError(f"rules.bid13_wins_game: expected true or false, got {self.bid13_wins_game!r}")
        if self.target_score < 1:
            raise ValueError(f"rules.target_score: must be at least 1, got {self.target_score}")
        if not 1 <= self.min_bid <= 13:
            raise ValueError(f"rules.min_bid: must be in 1..13, got {self.min_bid}")
        if not 0 <= self.min_total_bids <= 52:
            raise ValueError(f"rules.min_total_bids: must be in 0..52, got {self.min_total_bids}")
        if (self.auction, self.trump) not in _VALID_AUCTION_TRUMP:
            valid = ", ".join(f"{a}+{t}" for a, t in _VALID_AUCTION_TRUMP)
            raise ValueError(
                f"rules.auction/trump: {self.auction}+{self.trump} is not valid; valid combinations: {valid}"
            )
        if self.auction != "team" and self.first_lead != "eldest":
            raise ValueError(
                f"rules.first_lead: with auction={self.auction!r} there is no declarer, so first_lead must be 'eldest'"
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @functools.cached_property
    def vector(self) -> tuple[int, ...]:
        """The options as the ints the functions of :mod:`tarneeb_env.rules_core` read, built once."""
        return rule_vector(self)

    @property
    def name(self) -> str:
        """The preset this equals, or ``custom``."""
        for preset, rules in PRESETS.items():
            if rules == self:
                return preset
        return "custom"


PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "syrian41": Rules(auction="individual", trump="last_card", target_score=41, first_lead="eldest"),
    "hearts41": Rules(auction="individual", trump="hearts", target_score=41, first_lead="eldest"),
    "trump_by_card": Rules(auction="none", trump="last_card", target_score=31, first_lead="eldest"),
}

RulesSpec = Union[str, Rules, Mapping[str, Any], None]
_FIELDS = tuple(f.name for f in dataclasses.fields(Rules))


def make_rules(spec: RulesSpec = None) -> Rules:
    """Build a ``Rules`` from a preset name, a YAML file path, a ``Rules`` or a dict.

    A dict may name a base ``preset`` and override any field, e.g.
    ``{"preset": "classic", "target_score": 41}``. Unknown keys are rejected by name.
    """
    if spec is None:
        return PRESETS["classic"]
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, str):
        if spec in PRESETS:
            return PRESETS[spec]
        if spec.endswith((".yaml", ".yml")):
            return _rules_from_yaml(spec)
        close = difflib.get_close_matches(spec, sorted(PRESETS), n=2)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        raise ValueError(f"unknown rules preset {spec!r}{hint}; presets: {sorted(PRESETS)} (or a .yaml file)")
    if isinstance(spec, Mapping):
        fields = dict(spec)
        base = fields.pop("preset", "classic")
        if base not in PRESETS:
            close = difflib.get_close_matches(str(base), sorted(PRESETS), n=2)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise ValueError(f"rules.preset: unknown preset {base!r}{hint}; presets: {sorted(PRESETS)}")
        unknown = sorted(set(fields) - set(_FIELDS))
        if unknown:
            raise ValueError(f"rules: unknown key(s) {unknown}; allowed: ['preset'] + {list(_FIELDS)}")
        return dataclasses.replace(PRESETS[base], **fields)
    raise ValueError(f"rules must be a preset name, a .yaml path, a Rules or a dict, not {type(spec).__name__}")


def _rules_from_yaml(path: str) -> Rules:
    import yaml

    if not os.path.isfile(path):
        raise ValueError(f"rules file not found: {path}")
    with open(path, encoding="utf-8") as f:
        try:
            data = yaml.safe_load(f)
        except yaml.YAMLError as e:
            raise ValueError(f"{path}: not valid YAML: {e}") from None
    if isinstance(data, Mapping) and set(data) == {"rules"}:
        data = data["rules"]
    if isinstance(data, str):
        return make_rules(data)
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: expected a preset name or a mapping of rule fields")
    try:
        return make_rules(data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
