"""The audit's count correlations, per player: the kernel's sums over (player, round) pairs, its arrays typed.

The kernel (:mod:`baccarat_sim.kernels.audit_moments`) reads int64 and float64 arrays; the analysis
(:mod:`baccarat_sim.analysis.audit_advantage`) hands it whatever its batches hold.
"""

from __future__ import annotations

import numpy as np

from ..kernels.audit_moments import PairMoments, pair_sums

__all__ = ["PairMoments", "pair_moments"]


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
    return PairMoments(*pair_sums(np.asarray(player, np.int64), np.asarray(x, np.float64),
                                  np.asarray(y, np.float64), np.asarray(segment, np.int64), int(n_players),
                                  int(n_segments)))
