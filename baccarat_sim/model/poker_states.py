"""The poker values of every hand as lookup tables: a hand's ranks as a *state*, and each value of each state.

The Monte Carlo kernels read a round's poker values off these tables instead
of working them out card by card (:mod:`baccarat_sim.model.poker`'s bit
arithmetic takes 6-10 ns a value even over a batch of rounds; a lookup, one).
Every entry is computed by :func:`baccarat_sim.model.poker.value` itself, so
the rules of the values stay written once.

A hand's *state* numbers the multiset of its ranks (up to six cards, the most
of a round): the states are the rank-count keys of
:mod:`~baccarat_sim.model.poker`, those of fewer cards first. A card is a
*letter*: its rank (``card >> 2``, 0-12), or 13 for no card
(:data:`~baccarat_sim.model.cardlevel.NONE` is 52, whose rank field is 13),
which leaves the state as it is. The only thing of the suits any value reads
is whether the hand is of one suit (:func:`~baccarat_sim.model.poker.flush`),
so a value is ``hand_value[which, 2 * state + one_suit]``.

:func:`state_tables` gives:

``first_four_state``  ``uint16[14**4]``: the state of up to four letters
                      ``l0 + 14 l1 + 196 l2 + 2744 l3`` (a position the hand
                      does not read holds letter 13);
``next_state``        ``uint16[n * 14]``: the state after letter ``l`` is added
                      to state ``m`` (hands of at most five cards), at ``14 m + l``;
``hand_value``        ``uint8[len(VALUES), 2 * N_STATES]``: value ``which`` of
                      state ``m``, of more than one suit (``2 m``) or of one
                      suit or none (``2 m + 1``).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

from .cards import N_CARD_IDS, N_RANKS, SUIT_BITS
from .poker import RANK_FIELD_BITS, SUIT_SHIFT, VALUES, value

__all__ = ["HAND_LETTER_BITS", "LETTERS", "MAX_HAND_CARDS", "NO_LETTER", "N_STATES", "SUIT_COUNT_BITS", "StateTables",
           "letter_of", "state_tables"]

#: Most cards of a hand (a round's six).
MAX_HAND_CARDS = 6
#: The letter of no card; letters 0-12 are the ranks.
NO_LETTER = N_RANKS
#: Letters: the ranks and no card.
LETTERS = N_RANKS + 1
#: A hand as the Monte Carlo kernels add it up from its cards (engines/packer._hand_terms): the index of its
#: first four letters in ``first_four_state`` (14**4 < 2**16), then its cards' count in each suit (at most six).
HAND_LETTER_BITS = 16
SUIT_COUNT_BITS = 3


def letter_of(card):
    """The letter of a card value (``rank * 4 + suit``, or 52 for no card): its rank, or :data:`NO_LETTER`."""
    return card >> SUIT_BITS


if letter_of(N_CARD_IDS) != NO_LETTER:  # no card is card value N_CARD_IDS (cardlevel.NONE)
    raise RuntimeError("internal error: no card's letter is not NO_LETTER")
if LETTERS ** 4 > 1 << HAND_LETTER_BITS or MAX_HAND_CARDS >= 1 << SUIT_COUNT_BITS:
    raise RuntimeError("internal error: a hand does not fit its field")


def _state_keys() -> np.ndarray:
    # By the number of cards, then by key: the states of hands that can still take a card come first.
    keys = [sum(1 << (RANK_FIELD_BITS * rank) for rank in ranks)
            for size in range(MAX_HAND_CARDS + 1)
            for ranks in itertools.combinations_with_replacement(range(N_RANKS), size)]
    return np.array(keys, np.int64)


#: States: every multiset of at most six ranks.
N_STATES = math.comb(N_RANKS + MAX_HAND_CARDS, MAX_HAND_CARDS)
_RANK_STEP = np.int64(1) << (RANK_FIELD_BITS * np.arange(N_RANKS, dtype=np.int64))


def _cards_of(keys: np.ndarray) -> np.ndarray:
    fields = (keys[:, None] >> (RANK_FIELD_BITS * np.arange(N_RANKS))) & ((1 << RANK_FIELD_BITS) - 1)
    return fields.sum(axis=1)


class _States:
    """The state of a rank-count key, by binary search."""

    def __init__(self, keys: np.ndarray):
        self.keys = keys
        self.by_key = np.argsort(keys)

    def __call__(self, keys: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.keys[self.by_key], keys), len(self.keys) - 1)
        states = self.by_key[at]
        if not (self.keys[states] == keys).all():
            raise RuntimeError("internal error: a hand of at most six cards has no state")
        return states


def _next_state(state_of: _States) -> np.ndarray:
    # Only hands of at most five cards take another card: the table stops short of the six-card states.
    small = np.flatnonzero(_cards_of(state_of.keys) < MAX_HAND_CARDS)
    n_small = small.size
    if not np.array_equal(small, np.arange(n_small)):
        raise RuntimeError("internal error: the states of smaller hands do not come first")
    table = np.empty((n_small, LETTERS), np.int64)
    for rank in range(N_RANKS):
        table[:, rank] = state_of(state_of.keys[:n_small] + _RANK_STEP[rank])
    table[:, NO_LETTER] = np.arange(n_small)
    return table.reshape(-1)


def _first_four_state(state_of: _States) -> np.ndarray:
    letters = np.arange(LETTERS ** 4)
    key = np.zeros(letters.size, np.int64)
    for j in range(4):
        letter = (letters // LETTERS ** j) % LETTERS
        key += np.where(letter < N_RANKS, _RANK_STEP[np.minimum(letter, N_RANKS - 1)], 0)
    return state_of(key)


def _hand_value(state_keys: np.ndarray) -> np.ndarray:
    one_suit, two_suits = np.int64(1) << SUIT_SHIFT, np.int64(3) << SUIT_SHIFT
    keys = np.stack([state_keys | two_suits, state_keys | one_suit], axis=1).reshape(-1)
    return np.stack([value(which, keys) for which in range(len(VALUES))])


def _small(table: np.ndarray, dtype) -> np.ndarray:
    if table.min() < 0 or table.max() > np.iinfo(dtype).max:
        raise RuntimeError(f"internal error: a poker state table does not fit {np.dtype(dtype).name}")
    small = table.astype(dtype)
    small.setflags(write=False)
    return small


class StateTables(NamedTuple):
    """The tables (see the module's notes) and the rank-count key of every state, read-only."""

    state_keys: np.ndarray
    first_four_state: np.ndarray
    next_state: np.ndarray
    hand_value: np.ndarray


@functools.lru_cache(maxsize=1)
def state_tables() -> StateTables:
    """The tables, built on first use (0.2 s, which a rule set without poker values never pays)."""
    state_of = _States(_state_keys())
    return StateTables(_small(state_of.keys, np.int64), _small(_first_four_state(state_of), np.uint16),
                       _small(_next_state(state_of), np.uint16), _small(_hand_value(state_of.keys), np.uint8))
