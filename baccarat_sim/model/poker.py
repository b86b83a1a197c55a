"""Poker values of any set of a round's cards: the categories, the largest group of one rank, flush and straight.

A *hand* here is the cards dealt at some positions of a round (2 to 6 cards from
a multi-deck shoe; a position with no card, a third card not drawn, is not part
of the hand). Its poker values are defined once, in this module, as plain
integer arithmetic on a *hand key*, and every engine reads these same functions:
the condition language evaluates them over numpy arrays, the kernels compile
them (:mod:`baccarat_sim.kernels.hand`) and inline them.

The hand key
    One int64 that cards are added to one at a time (:func:`add_card`), in any
    order: three bits per rank holding how many cards of that rank the hand has
    (0-7; bits ``3 r .. 3 r + 2`` for rank ``r``, Ace 0 .. King 12), and four
    bits from :data:`SUIT_SHIFT` on, one per suit the hand has. A card that is
    not there (:data:`~baccarat_sim.model.cardlevel.NONE`) adds nothing.

The values (documented for rule files in ``baccarat_sim/rulesets/README.md``)
    * :func:`kind`: the most cards of one rank (0 for no card);
    * :func:`kind_rank`: the rank of that largest group, the higher rank on a tie,
      Ace high; :data:`NO_RANK` for no card;
    * :func:`flush`: at least two cards, all of one suit;
    * :func:`straight`: at least two cards of different, consecutive ranks, the Ace
      high or low (A-2-3-4, J-Q-K-A), never round the corner (K-A-2);
    * :func:`pairs`: how many ranks the hand holds two or more cards of;
    * :func:`triples`: how many ranks the hand holds three or more cards of (its
      twin: with :func:`kind` and :func:`pairs` it tells every rank pattern of
      up to six cards apart, 3+3 from 3+2+1, without reading suits);
    * :func:`category`: the highest category the hand makes on the ladder
      :data:`CATEGORIES`, so that a hand that makes several (a flush of cards
      that also make a pair) is the one highest of them.

Every function works on scalars and on numpy arrays alike (no branch; calls
only to ``np.maximum`` and to each other), so numba compiles the same
definitions the condition language runs over arrays
(:func:`baccarat_sim.kernels.hand` rebinds the calls to their compiled forms).
"""

from __future__ import annotations

import numpy as np

from .cards import N_RANKS, N_SUITS, SUIT_BITS

__all__ = [
    "CATEGORIES",
    "CATEGORY_ALIASES",
    "CATEGORY_BY_NAME",
    "VALUES",
    "NO_RANK",
    "RANK_FIELD_BITS",
    "SUIT_SHIFT",
    "add_card",
    "category",
    "flush",
    "kind",
    "kind_rank",
    "n_cards",
    "pairs",
    "rank_counts_only",
    "straight",
    "suits_settled",
    "triples",
    "value",
]

#: Bits of the hand key per rank (a count of 0-7 cards of that rank).
RANK_FIELD_BITS = 3
_RANK_MASK = (1 << RANK_FIELD_BITS) - 1
#: Where the hand key's suit bits start (one bit per suit the hand has).
SUIT_SHIFT = N_RANKS * RANK_FIELD_BITS
_SUITS_MASK = (1 << N_SUITS) - 1
#: The card value of no card (:data:`baccarat_sim.model.cardlevel.NONE`; cards are ``rank * 4 + suit``).
_NO_CARD = N_RANKS * N_SUITS
#: :func:`kind_rank` of a hand without cards (the rank attribute's ``none``).
NO_RANK = N_RANKS
_ACE, _KING = 0, N_RANKS - 1

#: The poker categories, lowest to highest: a hand is the highest one it makes. Only a flush can coincide with
#: another category (a flush whose cards also make a pair, two pair or more of one rank, from several decks);
#: the ladder puts the flush above two pairs (three pair included) and below three of a kind, as Wizard of Odds'
#: Jackpot Baccarat table counts four cards.
CATEGORIES = (
    "high_card",               # none of the below
    "pair",                    # one rank twice, no other rank twice or more (2+1+..)
    "two_pair",                # two ranks twice each, nothing more (2+2, 2+2+1, 2+2+1+1)
    "three_pair",              # three ranks twice each (2+2+2, six cards)
    "straight",                # different, consecutive ranks, Ace high or low; not one suit
    "flush",                   # every card one suit; not a straight; no rank three times or more
    "three_of_a_kind",         # one rank three times, no other rank twice or more (3, 3+1, 3+1+1, 3+1+1+1)
    "full_house",              # one rank three times, another twice (3+2, 3+2+1)
    "double_three_of_a_kind",  # two ranks three times each (3+3, six cards)
    "four_of_a_kind",          # one rank four times (4, 4+1, 4+1+1, 4+2)
    "straight_flush",          # a straight of one suit, other than the royal
    "royal",                   # a straight flush up to the Ace played high (A-K, A-K-Q, A-K-Q-J, ...)
    "five_of_a_kind",          # one rank five times (5, 5+1)
    "six_of_a_kind",           # one rank six times
)
#: Other names rule files may write for a category: a royal of three or four cards is a "mini royal".
CATEGORY_ALIASES = {"mini_royal": "royal"}
#: Value of each category name (aliases included).
CATEGORY_BY_NAME = {**{name: i for i, name in enumerate(CATEGORIES)},
                    **{alias: CATEGORIES.index(name) for alias, name in CATEGORY_ALIASES.items()}}


def add_card(key, card):
    """The hand key with ``card`` (``rank * 4 + suit``, or no card: nothing added) added.

    Works on scalars and on arrays (elementwise).
    """
    present = (card < _NO_CARD) * 1
    rank = (card >> SUIT_BITS) * present  # no card: rank 13 would reach the suit bits; it adds 0 anyway
    suit = (card & (N_SUITS - 1)) * present
    return (key + (present << (RANK_FIELD_BITS * rank))) | (present << (SUIT_SHIFT + suit))


def _count(key, rank):
    return (key >> (RANK_FIELD_BITS * rank)) & _RANK_MASK


def n_cards(key):
    """Cards in the hand."""
    total = key & 0
    for rank in range(N_RANKS):
        total = total + _count(key, rank)
    return total


def kind(key):
    """The most cards of one rank in the hand (0 for a hand without cards)."""
    most = key & 0
    for rank in range(N_RANKS):
        most = np.maximum(most, _count(key, rank))
    return most


def kind_rank(key):
    """The rank of the hand's largest group of one rank: the higher on a tie, Ace high; NO_RANK without cards."""
    most = kind(key)
    best = (key & 0) + NO_RANK
    # Ace high: the Ace (rank 0, reached as 13) is looked at last, so that it wins a tie.
    for step in range(1, N_RANKS + 1):
        rank = step % N_RANKS
        hit = (_count(key, rank) == most) & (most > 0)
        best = best + (rank - best) * hit
    return best


def _groups(key, size):
    """Ranks the hand has at least ``size`` cards of."""
    total = key & 0
    for rank in range(N_RANKS):
        total = total + (_count(key, rank) >= size)
    return total


def pairs(key):
    """How many ranks the hand holds two or more cards of (a pair, three of a kind, ... each count once)."""
    return _groups(key, 2)


def triples(key):
    """How many ranks the hand holds three or more cards of (three, four, ... of a kind each count once)."""
    return _groups(key, 3)


def _rank_mask(key):
    mask = key & 0
    for rank in range(N_RANKS):
        mask = mask | ((_count(key, rank) > 0) * (1 << rank))
    return mask


def _run(mask):
    """Whether the set bits of ``mask`` (non-zero) are consecutive."""
    low = mask & -mask
    return (mask != 0) & (((mask + low) & mask) == 0)


def flush(key):
    """At least two cards, all of one suit (1, else 0)."""
    suits = (key >> SUIT_SHIFT) & _SUITS_MASK
    return ((n_cards(key) >= 2) & (suits != 0) & ((suits & (suits - 1)) == 0)) * 1


def straight(key):
    """At least two cards of different, consecutive ranks, the Ace high or low, no wrap-around (1, else 0)."""
    mask = _rank_mask(key)
    ace_high = (mask >> 1) | ((mask & 1) << (N_RANKS - 1))  # ranks 2..K, then the Ace above the King
    distinct = kind(key) == 1
    return ((n_cards(key) >= 2) & distinct & (_run(mask) | _run(ace_high))) * 1


def category(key):
    """The hand's poker category: its index in :data:`CATEGORIES` (the highest category it makes)."""
    most = kind(key)
    pairs = _groups(key, 2)
    trips = triples(key)
    is_flush = flush(key)
    is_straight = straight(key)
    both = is_flush * is_straight
    has_ace_king = (_count(key, _ACE) > 0) & (_count(key, _KING) > 0)
    found = key & 0
    for value, holds in (
        (1, pairs >= 1),
        (2, pairs == 2),
        (3, pairs == 3),
        (4, is_straight == 1),
        (5, is_flush == 1),
        (6, most == 3),
        (7, (most == 3) & (pairs >= 2)),
        (8, trips == 2),
        (9, most == 4),
        (10, both == 1),
        (11, (both == 1) & has_ace_king),
        (12, most == 5),
        (13, most >= 6),
    ):
        found = np.maximum(found, value * holds)
    return found


def rank_counts_only(key):
    """The key without its suits: what every value but a flush reads of the hand."""
    return key & ((1 << SUIT_SHIFT) - 1)


def suits_settled(key):
    """The key with suits reduced to what can still matter: one suit, or every suit bit once two are seen.

    A hand with two suits can never become a flush, whatever cards it takes;
    the exact enumeration keeps such hands together.
    """
    suits = (key >> SUIT_SHIFT) & _SUITS_MASK
    mixed = (suits & (suits - 1)) != 0
    return key | (mixed * (_SUITS_MASK << SUIT_SHIFT))


#: The poker values a condition can read of a hand, as the grammar names them (``poker(first_four)``, ...), by
#: the number the kernels know them by (:func:`value`).
VALUES = ("poker", "kind", "kind_rank", "flush", "straight", "pairs", "triples")


def value(which, key):
    """Poker value number ``which`` (an index into :data:`VALUES`) of a hand key."""
    found = category(key)
    found = found + (kind(key) - found) * (which == 1)
    found = found + (kind_rank(key) - found) * (which == 2)
    found = found + (flush(key) - found) * (which == 3)
    found = found + (straight(key) - found) * (which == 4)
    found = found + (pairs(key) - found) * (which == 5)
    return found + (triples(key) - found) * (which == 6)
