"""Chernoff bounds on the sum of independent rounds, from the cumulant generating function of one round.

:func:`cumulant_generating` gives ``K(theta)`` of a round on its minimal
lattice (:class:`~baccarat_sim.analysis.one_round.ReducedRound`) and its
derivatives at full relative precision; the saddlepoint approximation
(:mod:`baccarat_sim.analysis.saddlepoint`) solves with them, and
:class:`ChernoffBounds` turns them into rigorous tail bounds, which decide the
window of the sum the exact lattice (:mod:`baccarat_sim.analysis.lattice`)
keeps at each step.
"""

from __future__ import annotations

import math

import numpy as np

from .one_round import ReducedRound

__all__ = ["ChernoffBounds", "cumulant_generating"]


_F_COEFFS = tuple(1.0 / math.factorial(k) for k in range(2, 21))


def _expm1_minus_x(x: np.ndarray) -> np.ndarray:
    """``expm1(x) - x`` to full relative precision (a series where subtracting ``x`` would cancel)."""
    small = np.abs(x) < 0.5
    xs = np.where(small, x, 0.0)
    acc = np.full_like(xs, _F_COEFFS[-1])
    for c in reversed(_F_COEFFS[:-1]):
        acc = acc * xs + c
    large = np.expm1(np.minimum(x, 700.0)) - x
    return np.where(small, acc * xs * xs, large)


def cumulant_generating(theta: np.ndarray, d: np.ndarray, p: np.ndarray, derivatives: bool = True, chunk: int = 8192):
    """Centred cumulant generating function ``K(theta) = log E exp(theta (Y - E Y))`` and derivatives.

    Two forms, chosen per ``theta``: near 0 (``max |theta d| <= 1``)
    ``K = log1p(sum p (expm1(theta d) - theta d))`` keeps full relative
    precision (``K ~ theta**2 var / 2`` would otherwise be lost against 1,
    which the saddlepoint needs near the mean); further out a shifted
    log-sum-exp, which cannot overflow.

    Parameters
    ----------
    theta : ndarray(float64, shape=(n,))
    d : ndarray(float64, shape=(a,))
        Centred values.
    p : ndarray(float64, shape=(a,))
    derivatives : bool
        Also return ``K'`` and ``K''``.

    Returns
    -------
    K or (K, K1, K2) : ndarray(float64, shape=(n,))
    """
    theta = np.asarray(theta, dtype=np.float64)
    out = [np.empty_like(theta) for _ in range(3 if derivatives else 1)]
    for start in range(0, theta.size, chunk):
        part = slice(start, start + chunk)
        x = np.multiply.outer(theta[part], d)
        small = np.abs(x).max(axis=1) <= 1.0
        xs = np.where(small[:, None], x, 0.0)
        e0 = _expm1_minus_x(xs) @ p  # E exp(theta d) - 1, the theta*E d = 0 term dropped exactly
        shift = x.max(axis=1)
        tilted = np.exp(x - shift[:, None]) * p
        mass = tilted.sum(axis=1)
        out[0][part] = np.where(small, np.log1p(e0), shift + np.log(mass))
        if derivatives:
            # the tilted distribution q ~ p exp(theta d); near 0 its normaliser is 1 + e0
            q = np.where(small[:, None], p * np.exp(xs) / (1.0 + e0)[:, None], tilted / mass[:, None])
            k1_small = (np.expm1(xs) * d) @ p / (1.0 + e0)  # d*expm1(theta d) >= 0 termwise: no cancellation
            k1 = np.where(small, k1_small, q @ d)
            out[1][part] = k1
            out[2][part] = (q * (d[None, :] - k1[:, None]) ** 2).sum(axis=1)
    return tuple(out) if derivatives else out[0]



class ChernoffBounds:
    """Chernoff bounds for the sum ``T_k`` of ``k`` reduced rounds, on a grid of ``theta``.

    ``P(T_k - k m >= t) <= exp(k K(theta) - theta t)`` holds for every
    ``theta > 0`` (and the mirror for the lower tail), so the minimum over any
    grid is a rigorous bound; the grid (4000 points, 14 decades) only decides
    how tight it is.
    """

    def __init__(self, red: ReducedRound):
        self.red = red
        scale = math.sqrt(red.var)
        self.theta = np.geomspace(1e-10, 1e4, 4000) / scale
        self.k_up = cumulant_generating(self.theta, red.d, red.p, derivatives=False)
        self.k_down = cumulant_generating(-self.theta, red.d, red.p, derivatives=False)

    def deviation(self, k: int, log_inv_eps: float, upper: bool) -> float:
        """Smallest ``t`` on the grid's bound with ``P(+-(T_k - k m) >= t) <= exp(-log_inv_eps)``."""
        cgf = self.k_up if upper else self.k_down
        return float(np.min((k * cgf + log_inv_eps) / self.theta))

    def log_tail(self, k: int, t: float, upper: bool) -> float:
        """Log of the bound on ``P(+-(T_k - k m) >= t)`` (``t > 0``)."""
        cgf = self.k_up if upper else self.k_down
        return min(0.0, float(np.min(k * cgf - self.theta * t)))

    def window(self, k: int, eps: float) -> tuple[int, int, float, float]:
        """Window ``[lo, hi]`` of ``T_k`` outside which each tail has mass at most ``eps``.

        Returns
        -------
        (lo, hi, tail_below, tail_above)
            Integer bounds within the support ``[0, k r]``, and the bounds on
            the mass below ``lo`` and above ``hi`` (0 where the window reaches
            the end of the support).
        """
        red = self.red
        centre = k * red.mean
        log_inv = math.log(2.0 / eps)  # a factor 2 of slack for float64 in K
        lo = max(0, math.ceil(centre - self.deviation(k, log_inv, upper=False)))
        hi = min(k * red.r, math.floor(centre + self.deviation(k, log_inv, upper=True)))
        below = 0.0 if lo == 0 else math.exp(self.log_tail(k, centre - (lo - 1), upper=False))
        above = 0.0 if hi == k * red.r else math.exp(self.log_tail(k, hi + 1 - centre, upper=True))
        return lo, hi, below, above
