"""Card-level features: what a condition can say about the cards of a round, not only its outcome.

A round deals up to six cards in positions ``P1 B1 P2 B2`` (the Player's and
the Banker's first two cards, in dealing order) and ``P3 B3`` (their third
cards, when the tableau draws them). A card-level *value* is read from those
cards: one card's rank, point value, suit or colour; a count of the cards that
pass a test; a hand's two-card total; a hand pattern (suited, flush, three of a
kind, straight); a poker value of the cards at any positions
(:class:`HandValue`, defined in :mod:`baccarat_sim.model.poker`); two values
compared (:class:`Compare`, :class:`ValueCompare`). A missing third card is
the defined value *no card*: every attribute of it is ``none``, it passes no
card test, it counts as no card in a count, and it is not part of a hand.

A condition mixes outcome features (over the 14,400 outcome codes) with
card-level tests. Every maximal part of a condition that reads only cards is an
atom (:class:`baccarat_sim.model.atoms.Atom`), compiled to tables the engines
read; settlement reads atoms back as the *card detail* of an outcome
(:mod:`baccarat_sim.model.detail`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import poker
from .cards import (
    COLOUR_WORDS,
    N_CARD_IDS,
    N_RANKS,
    N_SUITS,
    RANK_BY_NAME,
    RANK_NAMES,
    RANK_POINTS,
    RANK_WORDS,
    SUIT_COLOURS,
    SUIT_WORDS,
)

__all__ = [
    "ATTRIBUTES",
    "GROUPS",
    "HAND_PATTERNS",
    "HAND_VALUES",
    "NONE",
    "N_CARD_VALUES",
    "POSITIONS",
    "Attribute",
    "CardValue",
    "Compare",
    "Count",
    "HandPattern",
    "HandValue",
    "Membership",
    "TwoCardTotal",
    "ValueCompare",
    "card_function",
    "hand_key",
]

#: Card positions in dealing order; P3 and B3 are the third cards.
POSITIONS = ("P1", "B1", "P2", "B2", "P3", "B3")
#: Named sets of positions for counts.
GROUPS = {
    "first_four": ("P1", "B1", "P2", "B2"),
    "player": ("P1", "P2", "P3"),
    "banker": ("B1", "B2", "B3"),
    "all": POSITIONS,
}
HANDS = {"player": ("P1", "P2", "P3"), "banker": ("B1", "B2", "B3")}
#: The card value of a missing third card ("no card").
NONE = N_CARD_IDS
#: Card values: the 52 card ids and ``NONE``.
N_CARD_VALUES = N_CARD_IDS + 1



def _symbols_rank() -> dict[str, int]:
    # Rank names, then words, then the other names (T): the order messages list them in.
    return {**{name: rank for rank, name in enumerate(RANK_NAMES)}, **RANK_WORDS, **RANK_BY_NAME}


#: Attribute name -> (values by card value ``0..52``, symbolic names, numbers accepted as (low, high, offset),
#: ordered). Numbers name values directly (point 0-9) or as ranks 1-13 (Ace 1 .. King 13). ``none`` is the
#: attribute's value for no card and compares equal only to ``none``.
ATTRIBUTES: dict[str, tuple[np.ndarray, dict[str, int], tuple[int, int, int] | None, bool]] = {}


def _attribute_tables():
    cards = np.arange(N_CARD_IDS)
    rank = np.append(cards // N_SUITS, N_RANKS)
    suit = np.append(cards % N_SUITS, N_SUITS)
    colour = np.append(np.array(SUIT_COLOURS, np.int64)[cards % N_SUITS], len(COLOUR_WORDS))
    point = np.append(RANK_POINTS[cards // N_SUITS], 10)
    tables = {
        "rank": (rank, {**_symbols_rank(), "none": N_RANKS}, (1, 13, -1), True),
        "point": (point, {"none": 10}, (0, 9, 0), True),
        "suit": (suit, {**{w: i for i, w in enumerate(SUIT_WORDS)}, "none": N_SUITS}, None, False),
        "colour": (colour, {**{w: i for i, w in enumerate(COLOUR_WORDS)}, "none": len(COLOUR_WORDS)}, None, False),
    }
    tables["color"] = tables["colour"]
    for values, *_ in tables.values():
        values.setflags(write=False)
    return tables


ATTRIBUTES.update(_attribute_tables())
#: Poker values of any positions (``poker(first_four)``): name -> (description, kind of value).
HAND_VALUES = {
    "poker": ("the poker category of the cards at the positions (high_card, pair, ... six_of_a_kind)", "poker"),
    "kind": ("the most cards of one rank among them (0-6)", "number"),
    "kind_rank": ("the rank of that largest group: the higher on a tie, Ace high; none without cards", "rank"),
    "flush": ("1 when at least two cards and all of one suit", "number"),
    "straight": ("1 when at least two cards of different, consecutive ranks (Ace high or low)", "number"),
    "pairs": ("how many ranks it holds two or more cards of (0-3)", "number"),
    "triples": ("how many ranks it holds three or more cards of (0-2)", "number"),
}
#: Hand patterns: name -> (description).
HAND_PATTERNS = {
    "suited": "every card of the hand has the same suit (two or three cards)",
    "flush": "three cards of the same suit",
    "three_of_a_kind": "three cards of the same rank",
    "straight": "three cards of consecutive ranks; Ace low (A-2-3) or high (Q-K-A), never K-A-2",
    "straight_flush": "a straight of one suit",
}


def card_function(attribute: str) -> np.ndarray:
    """An attribute's value for every card value ``0..52`` (``ndarray(int64, shape=(53,))``)."""
    return ATTRIBUTES[attribute][0]


def attribute_domain(attribute: str) -> list[int]:
    """Every value the attribute takes, ``none`` included."""
    return sorted(set(int(v) for v in card_function(attribute)))


def value_names(attribute: str, values) -> list[str]:
    """Values of an attribute as a rule file writes them (``K``, ``hearts``, ``red``, ``none``)."""
    _, symbols, numbers, _ = ATTRIBUTES[attribute]
    by_value: dict[int, str] = {}
    for name, value in symbols.items():
        if attribute != "rank" or name in RANK_NAMES or name == "none":
            by_value.setdefault(value, name)
    return [by_value.get(v, str(v)) for v in sorted(values)]


# --------------------------------------------------------------------------- card-level values


@dataclasses.dataclass(frozen=True)
class CardValue:
    """A value read from the cards of a round (base class).

    Class attributes: ``kind``, what its values are (``"number"``, ``"rank"``,
    ``"suit"``, ``"colour"``, ``"poker"``: two values compare only within one
    kind).
    """

    kind = "number"

    def positions(self) -> tuple[str, ...]:
        """Positions whose cards the value reads."""
        raise NotImplementedError

    def functions(self, position: str) -> list[np.ndarray]:
        """Per-card functions (over card values 0..52) the value needs of the card at ``position``.

        A poker value (:class:`HandValue`) reads its positions as a whole, not through per-card classes: it
        has none, and is one of :meth:`derived`.
        """
        raise NotImplementedError

    def derived(self) -> tuple:
        """The poker values (:class:`HandValue`) it is made of: each is one dimension of an atom's table."""
        return ()

    def evaluate(self, cards: dict[str, np.ndarray]) -> np.ndarray:
        """The value for arrays of card values, one array per position (broadcast together).

        ``cards`` may also hold a poker value's array by its text (an atom's table lists its values directly).
        """
        raise NotImplementedError

    def domain(self) -> list[int]:
        """Every value it can take."""
        raise NotImplementedError

    def none(self) -> int | None:
        """The value that stands for *no card* (no value at all), or None when it always has one."""
        return None

    def literals(self) -> str | None:
        """The card attribute whose names its literals are (``"rank"``: ``K``, ``none``), or None for numbers."""
        return None

    def ordered(self) -> bool:
        """Whether ``<``, ``<=``, ``>``, ``>=`` compare its values."""
        return True

    def text(self) -> str:
        """Canonical text."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Attribute(CardValue):
    """One card's attribute: ``P1.rank``, ``B3.suit``."""

    position: str
    attribute: str

    @property
    def kind(self):
        return "number" if self.attribute == "point" else self.attribute

    def positions(self):
        return (self.position,)

    def functions(self, position):
        return [card_function(self.attribute)]

    def evaluate(self, cards):
        return card_function(self.attribute)[cards[self.position]]

    def domain(self):
        return attribute_domain(self.attribute)

    def none(self):
        return int(card_function(self.attribute)[NONE])

    def literals(self):
        return self.attribute

    def ordered(self):
        return ATTRIBUTES[self.attribute][3]

    def text(self):
        return f"{self.position}.{self.attribute}"


@dataclasses.dataclass(frozen=True)
class Membership(CardValue):
    """Whether one card's attribute is among ``allowed`` (0 or 1): what ``P1.rank == 9`` reads of the card.

    An atom compiled from a test tells apart only the cards that pass from
    those that fail, not every value of the attribute: two classes instead of
    thirteen ranks at that position.
    """

    position: str
    attribute: str
    allowed: frozenset

    def positions(self):
        return (self.position,)

    def functions(self, position):
        return [np.isin(card_function(self.attribute), sorted(self.allowed)).astype(np.int64)]

    def evaluate(self, cards):
        return np.isin(card_function(self.attribute)[cards[self.position]], sorted(self.allowed)).astype(np.int64)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.position}.{self.attribute} in {sorted(self.allowed)}"


def _compare(operator: str, left, right, missing) -> np.ndarray:
    """``left operator right`` elementwise; where ``missing`` (no card on a side), only ``!=`` holds."""
    held = {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
            ">": left > right, ">=": left >= right}[operator]
    return np.where(missing, operator == "!=", held).astype(np.int64)


@dataclasses.dataclass(frozen=True)
class Compare(CardValue):
    """Two cards compared on one attribute: ``P1.suit == B1.suit``, ``P3.rank > B3.rank`` (0 or 1).

    No card has no value: ``==`` and the orderings are false when either card
    is missing, ``!=`` is true.
    """

    attribute: str
    left: str
    operator: str
    right: str

    def positions(self):
        return tuple(p for p in POSITIONS if p in (self.left, self.right))

    def functions(self, position):
        return [card_function(self.attribute)]

    def evaluate(self, cards):
        values = card_function(self.attribute)
        missing = (np.asarray(cards[self.left]) == NONE) | (np.asarray(cards[self.right]) == NONE)
        return _compare(self.operator, values[cards[self.left]], values[cards[self.right]], missing)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.left}.{self.attribute} {self.operator} {self.right}.{self.attribute}"


@dataclasses.dataclass(frozen=True)
class ValueCompare(CardValue):
    """Two card-level values of one kind compared: ``player_two_card_total == banker_two_card_total`` (0 or 1).

    As for two cards (:class:`Compare`): where either side has no value (an
    attribute of no card, the rank of a hand without cards), ``==`` and the
    orderings are false and ``!=`` is true.
    """

    left: CardValue
    operator: str
    right: CardValue

    def positions(self):
        both = set(self.left.positions()) | set(self.right.positions())
        return tuple(p for p in POSITIONS if p in both)

    def functions(self, position):
        return [f for side in (self.left, self.right) if position in side.positions()
                for f in side.functions(position)]

    def derived(self):
        return tuple(dict.fromkeys(self.left.derived() + self.right.derived()))

    def evaluate(self, cards):
        left, right = np.asarray(self.left.evaluate(cards)), np.asarray(self.right.evaluate(cards))
        missing = np.zeros(np.broadcast(left, right).shape, bool)
        for side, values in ((self.left, left), (self.right, right)):
            if side.none() is not None:
                missing = missing | (values == side.none())
        return _compare(self.operator, left, right, missing)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.left.text()} {self.operator} {self.right.text()}"


@dataclasses.dataclass(frozen=True)
class Count(CardValue):
    """How many of the cards at ``over`` pass a test on one attribute (no card never passes)."""

    attribute: str
    allowed: frozenset
    over: tuple[str, ...]

    def _test(self) -> np.ndarray:
        values = card_function(self.attribute)
        passes = np.isin(values, sorted(self.allowed)).astype(np.int64)
        passes[NONE] = 0
        return passes

    def positions(self):
        return self.over

    def functions(self, position):
        return [self._test()]

    def evaluate(self, cards):
        test = self._test()
        return sum(test[cards[position]] for position in self.over)

    def domain(self):
        return list(range(len(self.over) + 1))

    def text(self):
        return f"count({self.attribute} in [{', '.join(value_names(self.attribute, self.allowed))}], " \
               f"{', '.join(self.over)})"


@dataclasses.dataclass(frozen=True)
class TwoCardTotal(CardValue):
    """A hand's total on its first two cards (0-9)."""

    hand: str

    def positions(self):
        return HANDS[self.hand][:2]

    def functions(self, position):
        return [card_function("point")]

    def evaluate(self, cards):
        point = card_function("point")
        first, second = HANDS[self.hand][:2]
        return (point[cards[first]] + point[cards[second]]) % 10

    def domain(self):
        return list(range(10))

    def text(self):
        return f"{self.hand}_two_card_total"


def hand_key(cards: dict[str, np.ndarray], over) -> np.ndarray:
    """The poker hand key (:mod:`baccarat_sim.model.poker`) of the cards at positions ``over`` (arrays)."""
    key = np.int64(0)
    for position in over:
        key = poker.add_card(key, np.asarray(cards[position], np.int64))
    return key


@dataclasses.dataclass(frozen=True)
class HandPattern(CardValue):
    """A pattern of one hand's cards (1 where it holds, else 0); three-card patterns need a third card.

    Read off the poker values of the hand (:mod:`baccarat_sim.model.poker`): ``suited`` is its flush (two or
    three cards of one suit); the others are the three-card hands that are a flush, a straight, three of a kind.
    """

    hand: str
    pattern: str

    def positions(self):
        return HANDS[self.hand]

    def functions(self, position):
        needs = {"suited": ["suit"], "flush": ["suit"], "three_of_a_kind": ["rank"], "straight": ["rank"],
                 "straight_flush": ["rank", "suit"]}[self.pattern]
        return [card_function(name) for name in needs]

    def evaluate(self, cards):
        key = hand_key(cards, HANDS[self.hand])
        three = poker.n_cards(key) == 3
        value = {
            "suited": lambda: poker.flush(key) == 1,
            "flush": lambda: three & (poker.flush(key) == 1),
            "three_of_a_kind": lambda: poker.kind(key) == 3,
            "straight": lambda: three & (poker.straight(key) == 1),
            "straight_flush": lambda: three & (poker.straight(key) == 1) & (poker.flush(key) == 1),
        }[self.pattern]()
        return np.asarray(value, np.int64)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.hand}_{self.pattern}"


@dataclasses.dataclass(frozen=True)
class HandValue(CardValue):
    """A poker value of the cards at ``over`` (``poker(first_four)``, ``kind(all)``): see :data:`HAND_VALUES`.

    A position with no card is not part of the hand. The value reads its
    positions as a whole (an atom's table has one dimension for it, its
    domain), not through classes of each card.
    """

    which: str
    over: tuple[str, ...]

    @property
    def kind(self):
        return HAND_VALUES[self.which][1]

    @property
    def number(self) -> int:
        """Its number among :data:`baccarat_sim.model.poker.VALUES`, as the kernels know it."""
        return poker.VALUES.index(self.which)

    def positions(self):
        return self.over

    def functions(self, position):
        return []

    def derived(self):
        return (self,)

    def evaluate(self, cards):
        if self.text() in cards:
            return np.asarray(cards[self.text()])
        return poker.value(self.number, hand_key(cards, self.over))

    def domain(self):
        if self.which == "poker":
            return list(range(len(poker.CATEGORIES)))
        if self.which == "kind":
            return list(range(len(self.over) + 1))
        if self.which == "pairs":
            return list(range(len(self.over) // 2 + 1))
        if self.which == "triples":
            return list(range(len(self.over) // 3 + 1))
        if self.which == "kind_rank":
            return list(range(N_RANKS + 1))
        return [0, 1]

    def none(self):
        return poker.NO_RANK if self.which == "kind_rank" else None

    def literals(self):
        return "rank" if self.which == "kind_rank" else None

    def text(self):
        return f"{self.which}({', '.join(self.over)})"
