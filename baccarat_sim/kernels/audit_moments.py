"""The audit's count correlations: each player's sums over their (player, round) pairs, in two passes.

The advantage-play review (:mod:`baccarat_sim.analysis.audit_advantage`) correlates, for each player and countable
bet, the amount bet on it in each round the player played with the true count before the round, and sets the
observed correlation against its permutation law within shoes. Both need sums over a year of pairs for every bet:
here one pass gathers each player's and each (player, shoe) segment's sums, a second the deviations from the
segments' means. The sums run over the pairs in their order, one by one, as ``np.bincount`` adds them, so the
figures are those of the numpy form they replace.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .jit import jit

__all__ = ["PairMoments", "pair_sums"]


class PairMoments(NamedTuple):
    """Per player, what :func:`pair_sums` gives (:func:`baccarat_sim.engines.audit_moments.pair_moments`: this type).

    Attributes
    ----------
    sums : ndarray(float64, shape=(6, n_players))
        The pairs, and the sums of x, y, x², y², xy.
    shifted : ndarray(float64, shape=(n_players,))
        ``sum x (y - mean of y in the pair's segment)``: the observed sum of products less its permutation mean.
    spread : ndarray(float64, shape=(n_players,))
        The permutation variance of ``sum x y``: over the player's segments of ``n > 1`` pairs,
        ``SSx SSy / (n - 1)`` (``SS``: the sum of squared deviations from the segment's mean).
    """

    sums: np.ndarray
    shifted: np.ndarray
    spread: np.ndarray


@jit
def pair_sums(player, x, y, segment, n_players, n_segments):
    """The fields of :class:`PairMoments` for pairs in their order (arrays typed by the engine's wrapper)."""
    sums = np.zeros((6, n_players))
    size = np.zeros(n_segments)
    sum_x = np.zeros(n_segments)
    sum_y = np.zeros(n_segments)
    placed = np.zeros(n_segments)
    owner = np.zeros(n_segments, np.int64)
    for k in range(len(x)):
        p, s, a, b = player[k], segment[k], x[k], y[k]
        sums[0, p] += 1.0
        sums[2, p] += b
        sums[4, p] += b * b
        size[s] += 1.0
        sum_y[s] += b
        owner[s] = p
        if a != 0.0:  # a zero adds nothing to a sum of x
            sums[1, p] += a
            sums[3, p] += a * a
            sums[5, p] += a * b
            sum_x[s] += a
            placed[s] += 1.0
    mean_x = sum_x / size
    mean_y = sum_y / size
    spread_x = np.zeros(n_segments)
    spread_y = np.zeros(n_segments)
    shifted = np.zeros(n_players)
    for k in range(len(x)):
        s, a = segment[k], x[k]
        centred = y[k] - mean_y[s]
        spread_y[s] += centred * centred
        if a != 0.0:
            spread_x[s] += (a - mean_x[s]) ** 2
            shifted[player[k]] += a * centred
    spread = np.zeros(n_players)
    for s in range(n_segments):
        if size[s] > 1.0:
            # The zeros' deviations from the segment's mean: (pairs - pairs bet) x mean².
            spread[owner[s]] += (spread_x[s] + (size[s] - placed[s]) * mean_x[s] ** 2) * spread_y[s] / (size[s] - 1.0)
        else:
            spread[owner[s]] += 0.0
    return sums, shifted, spread
