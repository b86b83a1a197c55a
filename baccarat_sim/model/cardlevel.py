"""Card-level features: what a condition can say about the cards of a round, not only its outcome.

A round deals up to six cards in positions ``P1 B1 P2 B2`` (the Player's and
the Banker's first two cards, in dealing order) and ``P3 B3`` (their third
cards, when the tableau draws them). A card-level *value* is read from those
cards: one card's rank, point value, suit or colour; a count of the cards that
pass a test; a hand's two-card total; a hand pattern (suited, flush, three of a
kind, straight). A missing third card is the defined value *no card*: every
attribute of it is ``none``, it passes no card test, and it counts as no card
in a count.

A condition mixes outcome features (over the 14,400 outcome codes) with
card-level tests. Every maximal part of a condition that reads only cards is an
:class:`Atom`: a yes/no function of the cards at a few positions, compiled to a
projection of each position's card onto the few classes it distinguishes and a
truth table over those classes. Engines evaluate atoms from the cards they
deal; settlement reads them back as the *card detail* of an outcome
(:mod:`baccarat_sim.model.detail`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

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
    "NONE",
    "N_CARD_VALUES",
    "POSITIONS",
    "Atom",
    "Attribute",
    "CardValue",
    "Compare",
    "Membership",
    "Count",
    "HandPattern",
    "TwoCardTotal",
    "card_function",
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

#: Most table cells an atom may have (positions' classes multiplied).
MAX_ATOM_CELLS = 1 << 22


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
    """A value read from the cards of a round (base class)."""

    def positions(self) -> tuple[str, ...]:
        """Positions whose cards the value reads."""
        raise NotImplementedError

    def functions(self, position: str) -> list[np.ndarray]:
        """Per-card functions (over card values 0..52) the value needs of the card at ``position``."""
        raise NotImplementedError

    def evaluate(self, cards: dict[str, np.ndarray]) -> np.ndarray:
        """The value for arrays of card values, one array per position (broadcast together)."""
        raise NotImplementedError

    def domain(self) -> list[int]:
        """Every value it can take."""
        raise NotImplementedError

    def text(self) -> str:
        """Canonical text."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class Attribute(CardValue):
    """One card's attribute: ``P1.rank``, ``B3.suit``."""

    position: str
    attribute: str

    def positions(self):
        return (self.position,)

    def functions(self, position):
        return [card_function(self.attribute)]

    def evaluate(self, cards):
        return card_function(self.attribute)[cards[self.position]]

    def domain(self):
        return attribute_domain(self.attribute)

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
        left, right = values[cards[self.left]], values[cards[self.right]]
        missing = (np.asarray(cards[self.left]) == NONE) | (np.asarray(cards[self.right]) == NONE)
        held = {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                ">": left > right, ">=": left >= right}[self.operator]
        return np.where(missing, self.operator == "!=", held).astype(np.int64)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.left}.{self.attribute} {self.operator} {self.right}.{self.attribute}"


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


def _straight(ranks) -> np.ndarray:
    """Three ranks (0 = Ace .. 12 = King) of consecutive value, Ace low or high."""
    low = np.minimum(np.minimum(ranks[0], ranks[1]), ranks[2])
    high = np.maximum(np.maximum(ranks[0], ranks[1]), ranks[2])
    distinct = (ranks[0] != ranks[1]) & (ranks[1] != ranks[2]) & (ranks[0] != ranks[2])
    run = distinct & (high - low == 2)
    # Q-K-A: ranks {0, 11, 12}
    queen_king_ace = sum((r == 0) for r in ranks) + sum((r == 11) for r in ranks) + sum((r == 12) for r in ranks)
    return run | (distinct & (queen_king_ace == 3))


@dataclasses.dataclass(frozen=True)
class HandPattern(CardValue):
    """A pattern of one hand's cards (1 where it holds, else 0); three-card patterns need a third card."""

    hand: str
    pattern: str

    def positions(self):
        return HANDS[self.hand]

    def functions(self, position):
        needs = {"suited": ["suit"], "flush": ["suit"], "three_of_a_kind": ["rank"], "straight": ["rank"],
                 "straight_flush": ["rank", "suit"]}[self.pattern]
        return [card_function(name) for name in needs]

    def evaluate(self, cards):
        first, second, third = (cards[p] for p in HANDS[self.hand])
        rank, suit = card_function("rank"), card_function("suit")
        has_third = third != NONE
        same_suit = suit[first] == suit[second]
        same_suit3 = same_suit & (suit[second] == suit[third]) & has_third
        if self.pattern == "suited":
            value = same_suit & (~has_third | (suit[third] == suit[first]))
        elif self.pattern == "flush":
            value = same_suit3
        elif self.pattern == "three_of_a_kind":
            value = (rank[first] == rank[second]) & (rank[second] == rank[third]) & has_third
        else:
            straight = _straight((rank[first], rank[second], rank[third])) & has_third
            value = straight if self.pattern == "straight" else straight & same_suit3
        return np.asarray(value, np.int64)

    def domain(self):
        return [0, 1]

    def text(self):
        return f"{self.hand}_{self.pattern}"


# --------------------------------------------------------------------------- atoms


@dataclasses.dataclass(frozen=True, eq=False)
class Atom:
    """A yes/no function of the cards at a few positions, compiled to tables the engines read.

    The card at each position used is projected onto the classes the atom
    distinguishes (``projection[j][card value]``); the atom's value is
    ``truth[sum_j class_j * stride_j]``. Positions are ordered as in
    :data:`POSITIONS`, so the first four cards' part of the index comes before
    the third cards' part.

    Attributes
    ----------
    text : str
        Canonical text of the card-only condition it stands for (its identity).
    positions : tuple of str
    projection : ndarray(int64, shape=(n_positions, 53))
        Class of each card value at each position.
    sizes : tuple of int
        Classes at each position.
    truth : ndarray(bool, shape=(prod(sizes),))
        The atom's value for every combination of classes.
    """

    text: str
    positions: tuple[str, ...]
    projection: np.ndarray
    sizes: tuple[int, ...]
    truth: np.ndarray

    def __eq__(self, other):
        return isinstance(other, Atom) and self.text == other.text

    def __hash__(self):
        return hash(self.text)

    @property
    def strides(self) -> tuple[int, ...]:
        """Index stride of each position's class (the last position varies slowest)."""
        strides, step = [], 1
        for size in self.sizes:
            strides.append(step)
            step *= size
        return tuple(strides)

    def value(self, cards: dict[str, int]) -> bool:
        """The atom for one round's cards (card values by position; a missing third card is ``NONE``)."""
        index = sum(int(self.projection[j, cards[p]]) * s for j, (p, s) in enumerate(zip(self.positions,
                                                                                          self.strides)))
        return bool(self.truth[index])

    @classmethod
    def build(cls, text: str, values: list[CardValue], evaluate) -> Atom:
        """Compile a card-only condition over ``values`` (``evaluate(cards) -> bool array``) into an atom.

        Raises
        ------
        ValueError
            When the condition distinguishes more card combinations than :data:`MAX_ATOM_CELLS`.
        """
        positions = tuple(p for p in POSITIONS if any(p in v.positions() for v in values))
        projection = np.zeros((len(positions), N_CARD_VALUES), np.int64)
        representatives, sizes = [], []
        for j, position in enumerate(positions):
            functions = [f for v in values if position in v.positions() for f in v.functions(position)]
            keys = np.stack(functions, axis=1) if functions else np.zeros((N_CARD_VALUES, 1), np.int64)
            if position in ("P1", "B1", "P2", "B2"):
                keys = keys[:N_CARD_IDS]  # the first four cards are always there
            unique, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
            projection[j, : len(inverse)] = inverse.ravel()
            representatives.append(first)
            sizes.append(len(unique))
        cells = int(np.prod(sizes)) if sizes else 1
        if cells > MAX_ATOM_CELLS:
            raise ValueError(f"it tells apart {cells:,} combinations of cards, more than the limit of "
                             f"{MAX_ATOM_CELLS:,}; split it into simpler conditions")
        grids = np.meshgrid(*representatives, indexing="ij") if positions else []
        # Fortran order: the first position's class varies fastest, matching the strides.
        cards = {p: g.ravel(order="F") for p, g in zip(positions, grids)}
        truth = np.asarray(evaluate(cards), bool).reshape(-1) if positions else np.asarray([bool(evaluate({}))])
        if truth.size != cells:
            truth = np.broadcast_to(truth, (cells,)).copy()
        for array in (projection, truth):
            array.setflags(write=False)
        return cls(text, positions, projection, tuple(int(s) for s in sizes), truth)

