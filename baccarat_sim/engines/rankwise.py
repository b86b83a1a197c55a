"""Exact weights of one group of card-level atoms, by rank with suits counted (:mod:`baccarat_sim.kernels.rankwise`).

:func:`rankwise_tables` packs a group's layout
(:func:`baccarat_sim.model.rankwise_layout.rankwise_layout`) and the shoe by
kind for the kernel. :func:`rankwise_weights` runs the kernel over the Player's first
card's kinds, in calls that threads share (the kernel releases the GIL) and
between which a stop signal acts, and adds their rows by atom bits.

Its cost, known before anything is built, is
:func:`baccarat_sim.model.rankwise_layout.rankwise_cost`.
"""

from __future__ import annotations

import concurrent.futures
import functools

import numba
import numpy as np

from ..kernels.rankwise import RankwiseTables, rankwise_counts
from ..kernels.suit_counts import MAX_SUIT_HANDS
from ..model import poker_states
from ..model.cards import N_SUITS, RANK_POINTS
from ..model.codes import N_CODES, N_PREFIXES
from ..model.rankwise_layout import rankwise_layout

__all__ = ["rankwise_tables", "rankwise_weights"]


def _read_only(tables: RankwiseTables) -> RankwiseTables:
    for array in tables:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
    return tables


def rankwise_tables(atoms: tuple, shoe: np.ndarray, outcomes: str) -> RankwiseTables:
    """The tables :func:`~baccarat_sim.kernels.rankwise.rankwise_counts` reads for a group of atoms and a shoe.

    Raises
    ------
    ValueError
        When the atoms read the suits of more poker hands than the kernel holds.
    """
    (kind_of, slot_of, first_rank, by_kind, varies, none_class, hand_over, hand_suits, atom_term, value_first,
     value_which, value_hand, value_stride, truth, truth_offset) = rankwise_layout(tuple(atoms), outcomes)
    if int(hand_suits.max(initial=-1)) + 1 > MAX_SUIT_HANDS:
        raise ValueError(f"the card-level bets read the suits of {int(hand_suits.max()) + 1} poker hands together, "
                         f"more than the {MAX_SUIT_HANDS} the exact enumeration holds; split them into separate bets")
    n_kinds = len(first_rank)
    by_suit = np.zeros((n_kinds, N_SUITS), np.int64)
    np.add.at(by_suit, (kind_of, slot_of), np.asarray(shoe, np.int64).reshape(-1))
    # Kinds whose suit distributions are equal: equal cards by suit, equal classes where the class reads the suit.
    reads = np.where(varies[:, :, None] == 1, by_kind, -1).transpose(1, 0, 2).reshape(n_kinds, -1)
    suit_kind = np.unique(np.hstack([by_suit, reads]), axis=0, return_inverse=True)[1].ravel().astype(np.int64)
    states = poker_states.state_tables()
    return _read_only(RankwiseTables(
        by_suit, RANK_POINTS[first_rank].astype(np.int64), first_rank, suit_kind, by_kind, varies, none_class,
        hand_over, hand_suits, atom_term, value_first, value_which, value_hand, value_stride, truth, truth_offset,
        states.first_four_state, states.next_state, states.hand_value, int(outcomes == "codes")))


def rankwise_weights(atoms: tuple, shoe: np.ndarray, outcomes: str, threads: int | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Exact weights of one group's atoms by combination of atom bits and by outcome, from a freshly shuffled shoe.

    Returns
    -------
    (ndarray(uint64, shape=(n_rows,)), ndarray(int64, shape=(n_rows, n_outcomes)))
        The atom bits of each row, ascending (atom ``i`` is bit ``i``; only combinations of positive weight), and
        its weights by outcome (a code, or a code prefix): they total ``N (N-1) ... (N-5)`` for a shoe of ``N``
        cards.
    """
    tables = rankwise_tables(atoms, shoe, outcomes)
    n_kinds = tables.shoe.shape[0]
    threads = max(1, numba.get_num_threads() if threads is None else threads)
    # A few calls a thread, each remembering its suit distributions across the Player's first cards it takes.
    n_calls = min(n_kinds, 2 * threads)
    calls = [np.arange(start, n_kinds, n_calls, dtype=np.int64) for start in range(n_calls)]
    if threads == 1:
        parts = [rankwise_counts(tables, kinds) for kinds in calls]
    else:
        with concurrent.futures.ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(functools.partial(rankwise_counts, tables), calls))
    n_outcomes = N_CODES if outcomes == "codes" else N_PREFIXES
    bits = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    keys, inverse = np.unique(bits, return_inverse=True)
    weights = np.zeros((len(keys), n_outcomes), np.int64)
    np.add.at(weights, inverse.ravel(), np.concatenate([p[1] for p in parts]).reshape(-1, n_outcomes))
    return keys.astype(np.uint64), weights
