"""Counting strategies: versioned TOML files, validated on load into a frozen :class:`Strategy`.

A strategy says how each bet is played while shoes are dealt through to the
cut card (the simulation is :func:`baccarat_sim.analysis.counting.count_simulation`):

``play = "count"``
    A linear count: a tag per card (``[counts.NAME] tags = {...}``, given by
    point value or rank, by suit, by colour or card by card; or derived from
    the bet's effects of removal with ``derive = {bet = ..., level = ...}``);
    bet when the true count (running count per 52 unseen cards) is at least
    ``true_count`` (``"auto"``: the derived tags' break-even true count), or
    when the running count is at least ``running_count``. With
    ``two_sided = true`` the bet is made when the count is that far from zero
    either way (Colour Match gains from a gap between red and black cards,
    whichever colour is short).
``play = "perfect"``
    Bet when the exact EV for the unseen cards is positive (or above
    ``min_edge``): the upper bound of what any count can do.
``play = "always"``
    Flat betting every round (a control: it must reproduce the house edge).

File format (shipped strategies in ``baccarat_sim/strategies/``, documented in its README)::

    schema_version = 1
    id = "lucky6-level1"
    name = "Lucky 6: level-1 count"
    source = "where the count was published"
    cut_cards = [52, [100, 110]]        # extra cut-card positions, cards from the end
    count_turned_card = true            # the card turned to set the burn is counted (default)

    [counts.level1]
    tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }   # point values 0-9 or ranks A..K; others 0

    [counts.red_black]
    tags = { red = 1, black = -1 }      # or suits (hearts = 1), or cards ("Qh" = 2, "10s" = -1)

    [[bets]]
    id = "lucky_six_12_23"              # a bet of the rule set, or "*" for every other bet
    play = "count"                      # count | perfect | always
    count = "level1"
    true_count = 7                      # or running_count = 10
    exact_edge = true                   # also record the exact edge of every bet placed

A count's tags are one number per card (rank and suit). Keys name cards four
ways: a point value (``"0"``-``"9"``) or a rank (``A 2 .. 10 J Q K``, ``T``),
a suit (``spades hearts diamonds clubs``), a colour (``red black``), or one
card (a rank and a suit letter ``s h d c``: ``"Qh"``). The more specific key
wins: a rank over its point value, a suit over its colour, a card over
anything. Rank keys and suit or colour keys do not mix in one count (a card
would have two tags); name the cards instead.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
from importlib import resources
from pathlib import Path

from ..errors import InvalidStrategy
from .cards import (
    N_CARD_IDS,
    N_RANKS,
    N_SUITS,
    RANK_BY_NAME,
    RANK_NAMES,
    RANK_POINTS,
    SUIT_NAMES,
    SUIT_WORDS,
    SUITS_OF_COLOUR,
)
from .cutcard import LOW_ABOVE_HIGH, as_pair
from .toml import Checker, excerpt, read_named_toml, read_toml, shipped_names

__all__ = [
    "PLAYS",
    "SCHEMA_VERSION",
    "BetPlay",
    "CountSystem",
    "Strategy",
    "TAG_KINDS",
    "available_strategies",
    "describe_tags",
    "load_strategy",
    "parse_strategy",
]

SCHEMA_VERSION = 1
PLAYS = ("count", "perfect", "always")
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
#: Largest magnitude of a tag, threshold or edge in a strategy file.
MAX_SETTING = 10**6
#: How a count's tags can be keyed, coarsest first: the kind of the keys that describe a tag vector exactly.
TAG_KINDS = ("rank", "colour", "suit", "card")


@dataclasses.dataclass(frozen=True)
class CountSystem:
    """A linear count: a tag per card, given or derived from a bet's effects of removal.

    Attributes
    ----------
    name : str
    tags : tuple of 52 float or None
        Tag of every card id ``rank * 4 + suit`` (None when derived).
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
    #: Record the exact edge of every bet placed: True, False, or None for "where a closed form gives it, and for
    #: every bet played perfectly" (a card-level bet priced by its group's enumeration costs milliseconds a round).
    exact_edge: bool | None = None
    #: Bet when the count is at least the threshold away from zero either way (``|count| >= threshold``).
    two_sided: bool = False


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
    return shipped_names(_strategies_dir())


def load_strategy(name_or_path: str | Path) -> Strategy:
    """Load and validate a shipped strategy by name, or a strategy file by path.

    Raises
    ------
    InvalidStrategy
        With one line naming the file, the key at fault and what is allowed
        (``param`` ``"strategy"`` for a name that is not shipped).
    """
    raw, document, label = read_named_toml(name_or_path, _strategies_dir(), "strategy", "strategy file",
                                           InvalidStrategy, "strategy")
    return _validate(raw, document, label)


def parse_strategy(data: bytes | str, label: str = "<strategy>") -> Strategy:
    """Validate TOML text into a :class:`Strategy` (see :func:`load_strategy`)."""
    raw, document = read_toml(data, label, InvalidStrategy)
    return _validate(raw, document, label)


def _tag_keys() -> dict[str, tuple[str, list[int]]]:
    """The card ids each tag key names, with the key's kind.

    Kinds: ``value`` (point values "0".."9"), ``rank`` (A..K, T), ``colour``
    (red, black), ``suit`` (spades..clubs) and ``card`` (a rank and a suit
    letter: "Qh", "10s", "Td"; the suit letter in either case).
    """
    def ids(ranks, suits=range(N_SUITS)) -> list[int]:
        return [r * N_SUITS + s for r in ranks for s in suits]

    keys = {str(v): ("value", ids([r for r in range(N_RANKS) if RANK_POINTS[r] == v])) for v in range(10)}
    for name, r in RANK_BY_NAME.items():
        if name != "10":
            keys[name] = ("rank", ids([r]))
    keys["10"] = ("rank", ids([9]))
    for name, suits in SUITS_OF_COLOUR.items():
        keys[name] = ("colour", ids(range(N_RANKS), suits))
    for s, name in enumerate(SUIT_WORDS):
        keys[name] = ("suit", ids(range(N_RANKS), [s]))
    for name, r in RANK_BY_NAME.items():
        for s, letter in enumerate(SUIT_NAMES):
            keys[f"{name}{letter}"] = keys[f"{name}{letter.upper()}"] = ("card", [r * N_SUITS + s])
    return keys


#: Which keys override which: a rank its point value, a suit its colour, a card anything.
_KIND_ORDER = {"value": 0, "colour": 0, "rank": 1, "suit": 1, "card": 2}
_RANK_SIDE = {"value", "rank"}
_SUIT_SIDE = {"colour", "suit"}


def describe_tags(tags) -> tuple[str, dict[str, float]]:
    """The coarsest keys that give a count's tags exactly, as a strategy file writes them.

    Parameters
    ----------
    tags : sequence of 52 float
        Tag of every card id ``rank * 4 + suit``.

    Returns
    -------
    (str, dict of str to float)
        The kind (one of :data:`TAG_KINDS`) and the tag of every key of that
        kind: ranks ``A..K``; ``black``/``red``; ``spades..clubs``; or every
        card (``As`` .. ``Kc``).

    Examples
    --------
    >>> describe_tags([1.0 if s in (1, 2) else -1.0 for r in range(13) for s in range(4)])
    ('colour', {'black': -1.0, 'red': 1.0})
    """
    grid = [[float(t) for t in tags[r * N_SUITS:(r + 1) * N_SUITS]] for r in range(N_RANKS)]
    if all(len(set(row)) == 1 for row in grid):
        return "rank", {RANK_NAMES[r]: grid[r][0] for r in range(N_RANKS)}
    by_suit = [{grid[r][s] for r in range(N_RANKS)} for s in range(N_SUITS)]
    if all(len(values) == 1 for values in by_suit):
        suit_tags = [values.pop() for values in by_suit]
        colours = {name: {suit_tags[s] for s in suits} for name, suits in SUITS_OF_COLOUR.items()}
        if all(len(values) == 1 for values in colours.values()):
            return "colour", {name: values.pop() for name, values in colours.items()}
        return "suit", dict(zip(SUIT_WORDS, suit_tags))
    return "card", {f"{RANK_NAMES[r]}{SUIT_NAMES[s]}": grid[r][s] for r in range(N_RANKS) for s in range(N_SUITS)}


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
        bets_raw = self.array_of_tables(doc.get("bets"), "bets")
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
            **self.identity(doc, strategy_id),
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
            self.fail(f"{key}.tags", "must be a table of card = tag, e.g. { \"6\" = -3, \"7\" = 1 } or "
                                     "{ red = 1, black = -1 }")
        keys = _tag_keys()
        for card in tags_raw:
            if card not in keys:
                close = difflib.get_close_matches(card, [k for k in keys if len(k) > 2], n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.fail(f"{key}.tags.{card}", f"{hint}must be a point value 0-9, a rank A,2..10,J,Q,K, a suit "
                                                "(spades, hearts, diamonds, clubs), a colour (red, black) or a card "
                                                "such as \"Qh\" (rank and suit letter s, h, d, c)")
        kinds = {keys[card][0] for card in tags_raw}
        if kinds & _RANK_SIDE and kinds & _SUIT_SIDE:
            self.fail(f"{key}.tags", "give tags by point value or rank, or by suit or colour, not both (a card "
                                     "would have two tags); name single cards such as \"6h\" instead")
        tags = [0.0] * N_CARD_IDS
        # Coarse keys first, then finer ones: "0" = -2 with "K" = 1 sets the kings alone, "red" with "hearts" the
        # hearts alone, and a card key that one card.
        for card in sorted(tags_raw, key=lambda k: _KIND_ORDER[keys[k][0]]):
            value = self.setting(tags_raw[card], f"{key}.tags.{card}")
            for card_id in keys[card][1]:
                tags[card_id] = value
        return CountSystem(name, tuple(tags), None)

    def bet(self, t, key: str, counts: set[str]) -> BetPlay:
        self.known(t, key, {"id", "play", "count", "true_count", "running_count", "two_sided", "min_edge",
                            "exact_edge"})
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
            two_sided = self.boolean(t.get("two_sided", False), f"{key}.two_sided")
            if two_sided and (true_count == "auto" or (running if true_count is None else true_count) <= 0):
                self.fail(f"{key}.two_sided", "needs a threshold above zero (the bet is made when the count is at "
                                              "least that far from zero either way), not \"auto\" or a threshold <= 0")
        else:
            two_sided = False
            for name in ("count", "true_count", "running_count", "two_sided"):
                if name in t:
                    self.fail(f"{key}.{name}", f"only goes with play = \"count\", not {play!r}")
        min_edge = self.setting(t.get("min_edge", 0.0), f"{key}.min_edge")
        if "min_edge" in t and play != "perfect":
            self.fail(f"{key}.min_edge", "only goes with play = \"perfect\"")
        exact_edge = self.boolean(t["exact_edge"], f"{key}.exact_edge") if "exact_edge" in t else None
        return BetPlay(bet, play, count, true_count, running, min_edge, exact_edge, two_sided)

    def cut_card(self, value, key) -> tuple[int, int]:
        bounds = as_pair(value)
        if bounds is None or any(isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= 10**6
                                 for b in bounds):
            self.fail(key, f"must be a whole number of cards from the end or a [low, high] pair, got "
                           f"{excerpt(value)}")
        if bounds[0] > bounds[1]:
            self.fail(key, f"{LOW_ABOVE_HIGH}, got {excerpt(value)}")
        return int(bounds[0]), int(bounds[1])


def _validate(raw: bytes, document: dict, label: str) -> Strategy:
    return _Validator(label).strategy(document, hashlib.sha256(raw).hexdigest())
