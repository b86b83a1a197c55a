"""Poker values of any set of a round's cards: the categories, the largest group of one rank, flush and straight.

A *hand* here is the cards dealt at some positions of a round (2 to 6 cards from
a multi-deck shoe; a position with no card, a third card not drawn, is not part
of the hand). Its poker values are defined once, in this module, as plain
integer arithmetic on a *hand key*, and every engine reads these same functions:
the condition language evaluates them over numpy arrays, the exact
enumeration over every hand's partial state, and the Monte Carlo kernels read
them off tables worked out by these functions
(:mod:`baccarat_sim.model.poker_states`).

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
(:mod:`baccarat_sim.kernels.hand` compiles the key's).
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


# The rank fields are read all at once, bit-parallel: a mask with bit 0 of every field set marks, by the bit at
# 3 r, the ranks whose field passes a test: a handful of operations where a loop over the 13 ranks takes dozens,
# over arrays of every hand state; no branch and no loop over counts either, so the same code runs on scalars and
# on arrays. tests/test_poker.py holds each to a loop over the ranks on every hand of up to six cards.
#: Bit 0 of every rank field.
_FIELD_ONES = sum(1 << (RANK_FIELD_BITS * rank) for rank in range(N_RANKS))
_ACE_HIGH_SHIFT = RANK_FIELD_BITS * (N_RANKS - 1)
# Every other rank field in a 6-bit slot of its own (ranks 0, 2, .., 12 in place; 1, 3, .., 11 shifted down by a
# field), so that adding to every slot at once cannot carry from one field into the next.
_SLOT_BITS = 2 * RANK_FIELD_BITS
_SLOT_ONES = sum(1 << (_SLOT_BITS * slot) for slot in range((N_RANKS + 1) // 2))
_EVEN_FIELDS = _RANK_MASK * _SLOT_ONES
_ODD_FIELDS = _EVEN_FIELDS & ~(_RANK_MASK << (_SLOT_BITS * (N_RANKS // 2)))  # six odd ranks; not the suit bits


def _count(key, rank):
    return (key >> (RANK_FIELD_BITS * rank)) & _RANK_MASK


def _at_least(key, cards):
    """Bit ``3 r`` set where the hand holds at least ``cards`` (0-8, also an array) cards of rank ``r``.

    In each slot, a count plus ``8 - cards`` reaches the slot's bit 3 exactly when the count is ``cards`` or more.
    """
    carry = (8 - cards) * _SLOT_ONES
    even = (((key & _EVEN_FIELDS) + carry) >> RANK_FIELD_BITS) & _SLOT_ONES
    odd = ((((key >> RANK_FIELD_BITS) & _ODD_FIELDS) + carry) >> RANK_FIELD_BITS) & _SLOT_ONES
    return (even | (odd << RANK_FIELD_BITS)) & _FIELD_ONES


def _bit_count(bits):
    """How many bits are set in ``bits`` (0 <= bits < 2**63), by shifts and adds (no multiply to overflow)."""
    bits = bits - ((bits >> 1) & 0x5555555555555555)
    bits = (bits & 0x3333333333333333) + ((bits >> 2) & 0x3333333333333333)
    bits = (bits + (bits >> 4)) & 0x0F0F0F0F0F0F0F0F
    bits = bits + (bits >> 8)
    bits = bits + (bits >> 16)
    return (bits + (bits >> 32)) & 0x7F


def n_cards(key):
    """Cards in the hand."""
    return (_bit_count(key & _FIELD_ONES) + 2 * _bit_count((key >> 1) & _FIELD_ONES)
            + 4 * _bit_count((key >> 2) & _FIELD_ONES))


def _two_or_more(key):
    """At least two cards (1, else 0): two ranks, or two cards of one rank."""
    ranks = _at_least(key, 1)
    return (((ranks & (ranks - 1)) != 0) | (_at_least(key, 2) != 0)) * 1


def kind(key):
    """The most cards of one rank in the hand (0 for a hand without cards)."""
    most = 4 * (_at_least(key, 4) != 0)  # a binary search over 0-7
    most = most + 2 * (_at_least(key, most + 2) != 0)
    return most + (_at_least(key, most + 1) != 0)


def _highest_bit(bits):
    """Position of the highest set bit of ``bits`` (0 < bits < 2**62; 0 for 0), by halving the range."""
    position = bits & 0
    for half in (32, 16, 8, 4, 2, 1):
        above = (bits >> (position + half)) != 0
        position = position + half * above
    return position


def kind_rank(key):
    """The rank of the hand's largest group of one rank: the higher on a tie, Ace high; NO_RANK without cards."""
    most = kind(key)
    largest = _at_least(key, most) & ~_at_least(key, most + 1)  # bit 3 r: rank r has exactly `most` cards
    # Ace high: the ranks 2..K move down one field and the Ace (rank 0) goes above the King.
    ace_high = (largest >> RANK_FIELD_BITS) | ((largest & 1) << _ACE_HIGH_SHIFT)
    rank = (_highest_bit(ace_high) // RANK_FIELD_BITS + 1) % N_RANKS
    return rank + (NO_RANK - rank) * (most == 0)


def _groups(key, size):
    """Ranks the hand has at least ``size`` cards of."""
    return _bit_count(_at_least(key, size))


def pairs(key):
    """How many ranks the hand holds two or more cards of (a pair, three of a kind, ... each count once)."""
    return _groups(key, 2)


def triples(key):
    """How many ranks the hand holds three or more cards of (three, four, ... of a kind each count once)."""
    return _groups(key, 3)


def _run(ranks):
    """Whether the ranks marked in ``ranks`` (bit ``3 r`` per rank, non-zero) are consecutive.

    A run of n marks from the lowest, ``low``, is ``low * (1 + 8 + ... + 8**(n-1))``,
    so ``7 * ranks + low`` is ``low * 8**n``: a power of two, which no other set of marks gives.
    """
    low = ranks & -ranks
    spread = 7 * ranks + low
    return (ranks != 0) & ((spread & (spread - 1)) == 0)


def flush(key):
    """At least two cards, all of one suit (1, else 0)."""
    suits = (key >> SUIT_SHIFT) & _SUITS_MASK
    return ((_two_or_more(key) == 1) & (suits != 0) & ((suits & (suits - 1)) == 0)) * 1


def straight(key):
    """At least two cards of different, consecutive ranks, the Ace high or low, no wrap-around (1, else 0)."""
    ranks = _at_least(key, 1)
    ace_high = (ranks >> RANK_FIELD_BITS) | ((ranks & 1) << _ACE_HIGH_SHIFT)  # ranks 2..K, the Ace above the King
    distinct = _at_least(key, 2) == 0
    return ((_two_or_more(key) == 1) & distinct & (_run(ranks) | _run(ace_high))) * 1


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
