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

__all__ = ["PairMoments", "pair_moments"]


class PairMoments(NamedTuple):
    """What :func:`pair_moments` returns, per player.

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
def _pair_moments(player, x, y, segment, n_players, n_segments):
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


def pair_moments(player: np.ndarray, x: np.ndarray, y: np.ndarray, segment: np.ndarray, n_players: int,
                 n_segments: int) -> PairMoments:
    """Each player's sums over their pairs and the permutation moments of ``sum x y`` within segments.

    Parameters
    ----------
    player, segment : ndarray(int64, shape=(n,))
        Each pair's player (``0 .. n_players - 1``) and segment (``0 .. n_segments - 1``: its player's shoe); a
        segment's pairs are one player's.
    x, y : ndarray(float64, shape=(n,))
        The amount bet in the pair's round and the true count before it.
    """
    return PairMoments(*_pair_moments(np.asarray(player, np.int64), np.asarray(x, np.float64),
                                      np.asarray(y, np.float64), np.asarray(segment, np.int64), int(n_players),
                                      int(n_segments)))
