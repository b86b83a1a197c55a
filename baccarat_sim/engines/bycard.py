"""Exact weights of one group of card-level atoms, by card (:mod:`baccarat_sim.kernels.exact_detail`).

The enumeration runs over the first four cards' ids on a shoe with the card
ids that nothing the group reads tells apart pooled (:func:`_pooled_shoe`),
and its third-card stage over third-card classes, once per *state* of the
first four cards (every set of atoms' partial class): fast for conditions that
read few kinds of card, whose table of states by third-card classes
(:func:`~baccarat_sim.model.detail_tables.exact_cells`) is small. Conditions
whose table would be large (two poker hands compared, a poker value that reads
the suits of third cards) are counted by rank instead
(:mod:`baccarat_sim.engines.rankwise`); both give the same integers.

:func:`bycard_weights` and :func:`bycard_reach` return what the rank-wise
builder returns: rows by atom bits, ascending.
"""

from __future__ import annotations

import numba
import numpy as np

from ..kernels.dealing import CARDS_PER_ROUND
from ..kernels.exact_detail import exact_detail_counts, exact_detail_reach
from ..model.cards import N_CARD_IDS, N_SUITS, RANK_POINTS
from ..model.detail_tables import card_letter, exact_tables, joint_classes

__all__ = ["bycard_reach", "bycard_weights"]

#: The pairs of two-card totals the exact enumeration takes per call: between calls a stop signal is honoured
#: and progress is told.
PAIRS_PER_CALL = 10


def _kinds(atoms, outcomes: str, cards: str) -> np.ndarray:
    """The kind of every card id (``int64[52]``): what the tableau, the atoms and their poker values read of it.

    A kind of card is a point value (the tableau), what every atom reads of a
    card at every position and what each poker value reads; where every code is
    counted, also the card itself (``cards="ids"``) or its rank
    (``cards="ranks"``), for the pairs and the first-card comparison.
    """
    ids = np.arange(N_CARD_IDS)
    keys = [RANK_POINTS[ids // N_SUITS]]
    if outcomes == "codes":
        keys.append(ids if cards == "ids" else ids // N_SUITS)
    keys += [column[:N_CARD_IDS] for column in joint_classes(atoms, letters=True)[0]]
    for atom in atoms:
        for hand_value in atom.derived:
            keys.append(card_letter(hand_value)[:N_CARD_IDS])
    return np.unique(np.stack(keys, axis=1), axis=0, return_inverse=True)[1].ravel()


def _pooled_shoe(atoms, outcomes: str, shoe: np.ndarray) -> np.ndarray:
    """The shoe with the card ids that nothing counted tells apart pooled on one id of each kind (:func:`_kinds`).

    Where every code is counted, the pairs and first cards compare ids: no two ids are pooled.
    """
    counts = np.asarray(shoe, np.int64).reshape(-1)
    kinds = _kinds(atoms, outcomes, "ids")
    first = np.unique(kinds, return_index=True)[1]
    pooled = np.zeros(N_CARD_IDS, np.int64)
    np.add.at(pooled, first[kinds], counts)
    return pooled


def _reach_shoe(atoms, outcomes: str) -> np.ndarray:
    """Six cards of one id of every kind, of two where every code is counted: what :func:`_reach_by_combination` deals.

    It deals the same cells as the universal shoe (six cards of every id).
    Each of its sequences is one of the universal shoe's; and a sequence of
    the universal shoe has a twin here that every atom, poker value and the
    tableau read the same, card by card, as they read only kinds
    (:func:`_kinds`). Where every code is counted, the twin also keeps the
    outcome code's suffix: it reads the cards' ranks (in the kind) and
    whether P1 is P2, B1 is B2 and P1 is B1 (the same id). Those three
    comparisons form a chain, P2 - P1 - B1 - B2, so two ids of each kind are
    enough to keep them all: P1 takes the kind's first id; each next card of
    the chain takes the id of its neighbour where the two were one card, the
    kind's other id where they were two cards of one kind, and its kind's
    first id otherwise (the third cards take their kind's first id). A poker
    value that reads suits makes every id a kind of its own, so that the twin
    is the sequence itself.
    """
    kinds = _kinds(atoms, outcomes, "ranks")
    per_kind = 2 if outcomes == "codes" else 1
    shoe = np.zeros(N_CARD_IDS, np.int64)
    for kind in np.unique(kinds):
        shoe[np.flatnonzero(kinds == kind)[:per_kind]] = CARDS_PER_ROUND
    return shoe.reshape(13, 4)


def _weights_by_combination(atoms, shoe: np.ndarray, outcomes: str, lanes: int | None = None
                            ) -> tuple[np.ndarray, list]:
    """Exact weights of one group's atoms: by combination of local ids and by outcome, and each set's bits.

    Returns
    -------
    (ndarray(int64, shape=(n_combinations, n_outcomes)), list of ndarray(uint64))
        The weights (they total ``N (N-1) ... (N-5)`` for a shoe of ``N`` cards) and, for each set of the
        enumeration, the atom bits of each local id (:func:`baccarat_sim.model.detail_tables.exact_tables`).

    Raises
    ------
    ValueError
        When the atoms tell apart more than the enumeration holds.
    """
    tables = exact_tables(atoms, _pooled_shoe(atoms, outcomes, shoe), outcomes)
    lanes = max(1, numba.get_num_threads() if lanes is None else lanes)
    out = np.zeros((lanes, tables["n_combinations"], tables["n_outcomes"]), np.int64)
    args = [tables[name] for name in ("counts", "points", "ids", "n_ids", "tclass", "t_total", "t_point", "first4",
                                      "d_over", "d_rank_only", "d_keys", "d_key_offset", "d_key_count", "d_stride",
                                      "reduced", "reduced_offset", "radix", "third", "rt", "rt_offset", "rt_width",
                                      "n_states", "rows")]
    for start in range(0, 100, PAIRS_PER_CALL):  # short calls: a stop signal acts between them
        exact_detail_counts(*args, np.arange(start, min(start + PAIRS_PER_CALL, 100), dtype=np.int64), out)
    return out.sum(axis=0), tables["distinct"]


def _reach_by_combination(atoms, outcomes: str) -> tuple[np.ndarray, list]:
    """Which cells of one group's atoms can happen: by combination of local ids and by outcome, and each set's bits.

    The cells of :func:`_weights_by_combination` that have a positive weight on the universal shoe (six cards of
    every id), found without counting them (:func:`~baccarat_sim.kernels.exact_detail.exact_detail_reach`).

    Returns
    -------
    (ndarray(bool, shape=(n_combinations, n_outcomes)), list of ndarray(uint64))
    """
    tables = exact_tables(atoms, _reach_shoe(atoms, outcomes), outcomes)
    out = np.zeros((tables["n_combinations"], tables["n_outcomes"]), np.bool_)
    held = np.flatnonzero(tables["t_total"] > 0)
    # A third card matters through its point value and the index it gives each set, as the Player's or the Banker's
    # third card: one class of each kind is tried.
    player, banker = tables["third"][:, 0, held].T, tables["third"][:, 1, held].T
    point = tables["t_point"][held, None]
    fifth = held[np.unique(np.hstack([point, player, banker]), axis=0, return_index=True)[1]]
    sixth = held[np.unique(np.hstack([point, banker]), axis=0, return_index=True)[1]]
    args = [tables["counts"], tables["ids"], tables["n_ids"], tables["t_point"], np.sort(fifth), np.sort(sixth)]
    args += [tables[name] for name in ("first4", "d_over", "d_rank_only", "d_keys", "d_key_offset", "d_key_count",
                                       "d_stride", "reduced", "reduced_offset", "radix", "third", "rt", "rt_offset",
                                       "rt_width", "n_states")]
    for start in range(0, 100, PAIRS_PER_CALL):  # short calls: a stop signal acts between them
        exact_detail_reach(*args, np.arange(start, min(start + PAIRS_PER_CALL, 100), dtype=np.int64), out)
    return out, tables["distinct"]


def _combination_bits(distinct: list) -> np.ndarray:
    """The atom bits of every combination of local ids (the first set's id varies fastest)."""
    bits = np.zeros(1, np.uint64)
    for values in distinct:
        bits = (values[:, None] | bits[None, :]).reshape(-1)
    return bits


def _rows(weights: np.ndarray, distinct: list) -> tuple[np.ndarray, np.ndarray]:
    """Weights by combination of local ids as rows by atom bits (ascending; rows of no weight left out)."""
    bits = _combination_bits(distinct)
    keys, inverse = np.unique(bits, return_inverse=True)
    rows = np.zeros((len(keys), weights.shape[1]), weights.dtype)
    np.add.at(rows, inverse.ravel(), weights)
    keep = rows.any(axis=1)
    return keys[keep].astype(np.uint64), rows[keep]


def bycard_weights(atoms, shoe: np.ndarray, outcomes: str, threads: int | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Exact weights of one group's atoms by atom bits (rows, ascending) and outcome, counted by card."""
    return _rows(*_weights_by_combination(tuple(atoms), shoe, outcomes, threads))


def bycard_reach(atoms, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """Which cells of one group's atoms the universal shoe deals: rows by atom bits (ascending) and outcome."""
    reach, distinct = _reach_by_combination(tuple(atoms), outcomes)
    bits, rows = _rows(reach.astype(np.int64), distinct)
    return bits, rows > 0
