"""Counting strategies: versioned TOML files, validated on load into a frozen :class:`Strategy`.

A strategy says how each bet is played while shoes are dealt through to the
cut card (the simulation is :func:`baccarat_sim.analysis.counting.count_simulation`):

``play = "count"``
    A linear count: tags per rank (``[counts.NAME] tags = {...}``, or derived
    from the bet's effects of removal with ``derive = {bet = ..., level = ...}``);
    bet when the true count (running count per 52 unseen cards) is at least
    ``true_count`` (``"auto"``: the derived tags' break-even true count), or
    when the running count is at least ``running_count``.
``play = "perfect"``
    Bet when the exact EV for the unseen cards is positive (or above
    ``min_edge``): the upper bound of what any count can do.
``play = "always"``
    Flat betting every round (a control: it must reproduce the house edge).

File format (shipped strategies in ``baccarat_sim/strategies/``)::

    schema_version = 1
    id = "lucky6-level1"
    name = "Lucky 6: level-1 count"
    source = "where the count was published"
    cut_cards = [52, [100, 110]]        # extra cut-card positions, cards from the end
    count_turned_card = true            # the card turned to set the burn is counted (default)

    [counts.level1]
    tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }   # point values 0-9 or ranks A..K; others 0

    [[bets]]
    id = "lucky_six_12_23"              # a bet of the rule set, or "*" for every other bet
    play = "count"                      # count | perfect | always
    count = "level1"
    true_count = 7                      # or running_count = 10
    exact_edge = true                   # also record the exact edge of every bet placed
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
from importlib import resources
from pathlib import Path

from ..errors import InvalidStrategy
from .cards import N_RANKS, RANK_NAMES, RANK_POINTS
from .toml import Checker, excerpt, read_toml, read_toml_file

__all__ = [
    "PLAYS",
    "SCHEMA_VERSION",
    "BetPlay",
    "CountSystem",
    "Strategy",
    "available_strategies",
    "load_strategy",
    "parse_strategy",
]

SCHEMA_VERSION = 1
PLAYS = ("count", "perfect", "always")
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
#: Largest magnitude of a tag, threshold or edge in a strategy file.
MAX_SETTING = 10**6


@dataclasses.dataclass(frozen=True)
class CountSystem:
    """A linear count: a tag per rank, given or derived from a bet's effects of removal.

    Attributes
    ----------
    name : str
    tags : tuple of 13 float or None
        Tag of Ace..King (None when derived).
    derive : tuple (bet id, level, by) or None
        Derive balanced integer tags with :func:`baccarat_sim.analysis.eor.derive_tags`.
    """

    name: str
    tags: tuple[float, ...] | None = None
    derive: tuple[str, int, str | None] | None = None


@dataclasses.dataclass(frozen=True)
class BetPlay:
    """How one bet is played."""

    bet: str
    play: str
    count: str | None = None
    true_count: float | str | None = None
    running_count: float | None = None
    min_edge: float = 0.0
    exact_edge: bool = True


@dataclasses.dataclass(frozen=True)
class Strategy:
    """A validated strategy (immutable). Build it with :func:`load_strategy`."""

    id: str
    name: str
    source: str
    description: str
    counts: tuple[CountSystem, ...]
    bets: tuple[BetPlay, ...]
    cut_cards: tuple[tuple[int, int], ...]
    path: str
    sha256: str
    count_turned_card: bool = True


def _strategies_dir():
    return resources.files("baccarat_sim") / "strategies"


def available_strategies() -> list[str]:
    """Names of the shipped strategies."""
    return sorted(p.name[: -len(".toml")] for p in _strategies_dir().iterdir() if p.name.endswith(".toml"))


def load_strategy(name_or_path: str | Path) -> Strategy:
    """Load and validate a shipped strategy by name, or a strategy file by path.

    Raises
    ------
    InvalidStrategy
        With one line naming the file, the key at fault and what is allowed
        (``param`` ``"strategy"`` for a name that is not shipped).
    """
    text = str(name_or_path)
    path = Path(text)
    if text.endswith(".toml") or path.exists() or "/" in text or "\\" in text:
        raw, document = read_toml_file(path, text, "strategy file", InvalidStrategy)
        return _validate(raw, document, text)
    shipped = _strategies_dir() / f"{text}.toml"
    if not shipped.is_file():
        names = available_strategies()
        close = difflib.get_close_matches(text, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidStrategy("strategy", f"unknown strategy {text!r}; {hint}shipped: {', '.join(names)} "
                                          "(or a .toml path)")
    return parse_strategy(shipped.read_bytes(), f"{text}.toml")


def parse_strategy(data: bytes | str, label: str = "<strategy>") -> Strategy:
    """Validate TOML text into a :class:`Strategy` (see :func:`load_strategy`)."""
    raw, document = read_toml(data, label, InvalidStrategy)
    return _validate(raw, document, label)


def _tag_keys() -> dict[str, list[int]]:
    """Ranks named by each tag key: point values "0".."9" and rank names."""
    keys = {str(v): [r for r in range(N_RANKS) if RANK_POINTS[r] == v] for v in range(10)}
    for r, name in enumerate(RANK_NAMES):
        if name != "10":
            keys[name] = [r]
    keys["10"] = [9]
    keys["T"] = [9]
    return keys


class _Validator(Checker):
    """Walks a parsed strategy document; every error is one line ``file: key.path: message``."""

    def __init__(self, label: str):
        super().__init__(label, InvalidStrategy)

    def setting(self, value, key) -> float:
        return self.real(value, key, -MAX_SETTING, MAX_SETTING)

    def strategy(self, doc: dict, sha256: str) -> Strategy:
        if self._is_rule_set(doc):
            self.fail("", "this file is a rule set (it describes the game), not a counting strategy (which says "
                          f"when to bet); shipped strategies: {', '.join(available_strategies())}")
        version = doc.get("schema_version")
        if type(version) is not int or version != SCHEMA_VERSION:
            self.fail("schema_version", f"must be {SCHEMA_VERSION}, got {excerpt(version)}")
        self.known(doc, "", {"schema_version", "id", "name", "source", "description", "cut_cards",
                             "count_turned_card", "counts", "bets"})
        strategy_id = self.identifier(doc.get("id"), "id", _ID, "lower-case letters, digits, '-', '_' or '.'")
        counts_raw = self.table(doc.get("counts", {}), "counts")
        counts = tuple(self.count(name, t) for name, t in counts_raw.items())
        bets_raw = doc.get("bets")
        if not isinstance(bets_raw, list) or not bets_raw:
            self.fail("bets", "must be a non-empty array of tables ([[bets]])")
        bets = tuple(self.bet(self.table(t, f"bets[{i}]"), f"bets[{i}]", {c.name for c in counts})
                     for i, t in enumerate(bets_raw))
        seen = set()
        for bet in bets:
            if bet.bet in seen:
                self.fail(f"bets.{bet.bet}", "listed twice")
            seen.add(bet.bet)
        cuts = tuple(self.cut_card(c, f"cut_cards[{i}]")
                     for i, c in enumerate(self.list(doc.get("cut_cards", []), "cut_cards")))
        return Strategy(
            id=strategy_id,
            name=self.string(doc.get("name", strategy_id), "name"),
            source=self.string(doc.get("source", ""), "source"),
            description=self.string(doc.get("description", ""), "description"),
            counts=counts,
            bets=bets,
            cut_cards=cuts,
            path=self.label,
            sha256=sha256,
            count_turned_card=self.boolean(doc.get("count_turned_card", True), "count_turned_card"),
        )

    @staticmethod
    def _is_rule_set(doc: dict) -> bool:
        return any(key in doc for key in ("shoe", "commission", "limits", "payout_notation", "claims")) or (
            isinstance(doc.get("bets"), list) and any(isinstance(b, dict) and "pays" in b for b in doc["bets"]))

    def count(self, name: str, t) -> CountSystem:
        key = f"counts.{name}"
        self.known(t, key, {"tags", "derive"})
        if ("tags" in t) == ("derive" in t):
            self.fail(key, "give exactly one of tags = {...} or derive = {bet = ..., level = ...}")
        if "derive" in t:
            d = t["derive"]
            self.known(d, f"{key}.derive", {"bet", "level", "by"})
            bet = self.string(d.get("bet"), f"{key}.derive.bet")
            level = self.integer(d.get("level", 1), f"{key}.derive.level", 1, 50)
            by = d.get("by")
            if by is not None:
                self.choice(by, f"{key}.derive.by", ("value", "rank"))
            return CountSystem(name, None, (bet, level, by))
        tags_raw = t["tags"]
        if not isinstance(tags_raw, dict) or not tags_raw:
            self.fail(f"{key}.tags", "must be a table of card = tag, e.g. { \"6\" = -3, \"7\" = 1 }")
        keys = _tag_keys()
        tags = [0.0] * N_RANKS
        # Point values first, then ranks, so "0" = -2 with "K" = 1 sets the K alone.
        for card in sorted(tags_raw, key=lambda k: 0 if k.isdigit() and len(k) == 1 else 1):
            if card not in keys:
                self.fail(f"{key}.tags.{card}", "must be a point value 0-9 or a rank A,2..10,J,Q,K")
            value = self.setting(tags_raw[card], f"{key}.tags.{card}")
            for r in keys[card]:
                tags[r] = value
        return CountSystem(name, tuple(tags), None)

    def bet(self, t, key: str, counts: set[str]) -> BetPlay:
        self.known(t, key, {"id", "play", "count", "true_count", "running_count", "min_edge", "exact_edge"})
        bet = self.string(t.get("id"), f"{key}.id")
        play = self.choice(t.get("play"), f"{key}.play", PLAYS)
        key = f"bets.{bet}"
        count = t.get("count")
        true_count = t.get("true_count")
        running = t.get("running_count")
        if play == "count":
            if count not in counts:
                self.fail(f"{key}.count", f"must name a [counts.NAME] table: {', '.join(sorted(counts)) or 'none'}")
            if (true_count is None) == (running is None):
                self.fail(key, "give exactly one of true_count = N (or \"auto\") and running_count = N")
            if true_count is not None and true_count != "auto":
                true_count = self.setting(true_count, f"{key}.true_count")
            if running is not None:
                running = self.setting(running, f"{key}.running_count")
        else:
            for name in ("count", "true_count", "running_count"):
                if name in t:
                    self.fail(f"{key}.{name}", f"only goes with play = \"count\", not {play!r}")
        min_edge = self.setting(t.get("min_edge", 0.0), f"{key}.min_edge")
        if "min_edge" in t and play != "perfect":
            self.fail(f"{key}.min_edge", "only goes with play = \"perfect\"")
        exact_edge = self.boolean(t.get("exact_edge", True), f"{key}.exact_edge")
        return BetPlay(bet, play, count, true_count, running, min_edge, exact_edge)

    def cut_card(self, value, key) -> tuple[int, int]:
        bounds = value if isinstance(value, list) else [value, value]
        if len(bounds) != 2 or any(isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= 10**6
                                   for b in bounds):
            self.fail(key, f"must be a whole number of cards from the end or a [low, high] pair, got "
                           f"{excerpt(value)}")
        if bounds[0] > bounds[1]:
            self.fail(key, f"low must not exceed high, got {excerpt(value)}")
        return int(bounds[0]), int(bounds[1])


def _validate(raw: bytes, document: dict, label: str) -> Strategy:
    return _Validator(label).strategy(document, hashlib.sha256(raw).hexdigest())
