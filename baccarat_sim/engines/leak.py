"""Leak engine: exact weights of observation patterns and pay-table lines, in integers.

The thin layer between the analysis of leaked card information
(:mod:`baccarat_sim.analysis.leak`) and the numba kernel
(:mod:`baccarat_sim.kernels.leak`): it checks and lays out the arrays the
kernel reads and returns its integer table.
"""

from __future__ import annotations

import numpy as np

from ..kernels.leak import leak_counts
from ..model.cards import RANK_POINTS
from ..model.codes import N_CODES
from ..model.shoe import as_shoe

__all__ = ["IN_ROUND_POSITIONS", "leak_table"]

#: The six positions of a round, in dealing order: the first four cards, then the fifth and sixth cards (the
#: third cards of the hands that draw: the Player's first when it draws).
IN_ROUND_POSITIONS = ("P1", "B1", "P2", "B2", "C5", "C6")


def leak_table(shoe, classes: dict, line_col: np.ndarray, n_columns: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """Exact ordered-sequence weights of every observation pattern and pay-table line of one round.

    Parameters
    ----------
    shoe : int or ndarray(int64, shape=(13, 4))
        Deck count or composition.
    classes : dict of str to ndarray(int64)
        The observed positions (keys from :data:`IN_ROUND_POSITIONS`, in the
        order that makes the pattern index: the first is the most
        significant) and the class of each card id there (shape ``(52,)``;
        at ``C5`` and ``C6`` it must depend on the point value only).
    line_col : ndarray(int64, shape=(n_bets, N_CODES))
        Column of the pay-table line that settles each outcome code, per bet.
    n_columns : int
        Columns in all (the largest entry of ``line_col`` plus one at least).

    Returns
    -------
    (ndarray(int64, shape=(n_patterns, n_columns)), tuple of int)
        The weights (for each bet, a row summed over that bet's columns is the
        number of ordered six-card sequences that show the pattern), and the
        number of classes of each observed position, in the order given.
    """
    composition = as_shoe(shoe)
    first_class = np.zeros((4, 52), np.int64)
    third_class = np.zeros((2, 10), np.int64)
    radix = np.zeros(6, np.int64)
    sizes = tuple(int(np.max(classes[position])) + 1 for position in classes)
    stride = 1
    for position, size in zip(reversed(list(classes)), reversed(sizes)):
        index = IN_ROUND_POSITIONS.index(position)
        card_class = np.asarray(classes[position], np.int64)
        if index < 4:
            first_class[index] = card_class
        else:
            by_value = _by_point_value(card_class)
            if by_value is None:
                raise ValueError(f"{position}: a class must depend on the point value only")
            third_class[index - 4] = by_value
        radix[index] = stride
        stride *= size
    line_col = np.ascontiguousarray(line_col, np.int64)
    if line_col.ndim != 2 or line_col.shape[1] != N_CODES or line_col.size and line_col.max() >= n_columns:
        raise ValueError("line_col must be (n_bets, N_CODES) columns below n_columns")
    out = np.zeros((stride, n_columns), np.int64)
    leak_counts(composition, first_class, third_class, radix, line_col, out)
    return out, sizes


def _by_point_value(card_class: np.ndarray) -> np.ndarray | None:
    """The class of each point value, or None when two cards of one point value differ."""
    by_value = np.full(10, -1, np.int64)
    for card, klass in enumerate(card_class):
        value = RANK_POINTS[card // 4]
        if by_value[value] not in (-1, klass):
            return None
        by_value[value] = klass
    return by_value
