"""Saddlepoint approximation to a sum of independent rounds where the exact lattice would not fit in memory.

Lugannani-Rice with Daniels' (1987) second continuity correction on the
reduced lattice of span 1: for ``P(T >= s)`` solve ``N K'(theta) = s - 1/2 -
N mu``, then ``w = sgn(theta) sqrt(2 (theta tau - N K))``, ``u = 2
sinh(theta / 2) sqrt(N K'')`` and ``P ~ 1 - Phi(w) + phi(w) (1/u - 1/w)``.
Each side of the mean is computed directly (no ``1 - tiny`` loss); the two
ends of the support are exact (``p_0**N``, ``p_r**N``).

The error is *measured, not proven*: every result is compared with the exact
lattice (:func:`baccarat_sim.analysis.lattice.exact_sum`) at every lattice
value of the largest ``N`` where that is cheap and at a quarter of it, and the
larger discrepancy is stated as ``error_bound`` and in ``method``. The relative
error of Lugannani-Rice falls as ``O(1/N)`` uniformly in the tails, so the
error at the target ``N`` is expected to be below the one measured. No plain
normal approximation is used.

References
----------
Lugannani and Rice, "Saddle point approximation for the distribution of the sum of independent random variables",
Adv. Appl. Prob. 12 (1980). Daniels, "Tail probability approximations", Int. Stat. Review 55 (1987).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..errors import InputError
from .bounds import ChernoffBounds, cumulant_generating
from .lattice import exact_sum
from .one_round import OneRound, ReducedRound, reduce_round
from .sums import SumQueries

__all__ = ["ApproximationCheck", "SaddlepointSum", "saddlepoint_sum"]


_SQRT2 = math.sqrt(2.0)
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _normal_sf(w: np.ndarray) -> np.ndarray:
    """``1 - Phi(w)`` with full relative precision in the upper tail."""
    return 0.5 * _erfc(w / _SQRT2)


def _normal_pdf(w: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * w * w) / math.sqrt(2.0 * math.pi)


def _solve_tilt(m: np.ndarray, red: ReducedRound) -> np.ndarray:
    """``theta`` with ``K'(theta) = m`` for each ``m`` in ``(d_min, d_max)``: Newton inside a bracket.

    ``K'`` increases from ``d_min`` to ``d_max``, so the root is first
    bracketed by doubling ``|theta|`` from ``1 / sd`` (far-tail targets need
    ``theta`` of tens), then found by Newton steps, replaced by bisection
    whenever a step would leave the bracket (``K''`` underflows far out).
    """
    d, p = red.d, red.p
    step = 1.0 / math.sqrt(red.var)
    direction = np.sign(m)
    inner = np.zeros_like(m)  # the side of the root nearer 0
    outer = direction * step
    pending = np.flatnonzero(direction != 0)
    for _ in range(1100):  # 2**1100 > any float: the bracket is always found
        if pending.size == 0:
            break
        _, k1, _ = cumulant_generating(outer[pending], d, p)
        short = direction[pending] * (k1 - m[pending]) < 0
        inner[pending[short]] = outer[pending[short]]
        outer[pending[short]] *= 2.0
        pending = pending[short]
    lo, hi = np.minimum(inner, outer), np.maximum(inner, outer)
    theta = 0.5 * (lo + hi)
    active = direction != 0
    theta[~active] = 0.0
    for _ in range(200):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        th = theta[idx]
        _, k1, k2 = cumulant_generating(th, d, p)
        g = k1 - m[idx]
        h = np.where(g > 0, th, hi[idx])
        low = np.where(g < 0, th, lo[idx])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # k2 underflows far out: bisect
            newton = th - g / k2
        ok = np.isfinite(newton) & (newton > low) & (newton < h)
        new = np.where(ok, newton, 0.5 * (low + h))
        scale = np.maximum(np.abs(th), 1e-300)
        done = (g == 0) | (np.abs(new - th) <= 1e-15 * scale) | (h - low <= 4e-16 * scale)
        theta[idx] = np.where(g == 0, th, new)
        lo[idx], hi[idx] = low, h
        active[idx[done]] = False
    return theta


def _lugannani_rice(tau: np.ndarray, n: int, red: ReducedRound) -> tuple[np.ndarray, np.ndarray]:
    """Lugannani-Rice with Daniels' second continuity correction.

    ``tau = s - 1/2 - n m`` for the event ``{T >= s}``; solves
    ``n K'(theta) = tau``, then ``w = sgn(theta) sqrt(2 (theta tau - n K))``,
    ``u = 2 sinh(theta / 2) sqrt(n K'')`` and
    ``P(T >= s) ~ 1 - Phi(w) + phi(w) (1/u - 1/w)``. Returns
    ``(P(T < s), P(T >= s))``, each computed directly on its own side of the
    mean (no ``1 - tiny`` loss).
    """
    theta = _solve_tilt(tau / n, red)
    k0, _, k2 = cumulant_generating(theta, red.d, red.p)
    w2 = np.maximum(2.0 * (theta * tau - n * k0), 0.0)
    w = np.sign(theta) * np.sqrt(w2)
    with np.errstate(over="ignore"):  # far tails: u = inf, 1/u = 0 is the limit
        u = 2.0 * np.sinh(theta / 2.0) * np.sqrt(n * k2)
    with np.errstate(divide="ignore", invalid="ignore"):
        correction = _normal_pdf(w) * (1.0 / u - 1.0 / w)
    upper_side = _normal_sf(w) + correction  # accurate for w > 0
    lower_side = _normal_sf(-w) - correction  # accurate for w < 0
    above = np.where(w > 0, upper_side, 1.0 - lower_side)
    below = np.where(w > 0, 1.0 - upper_side, lower_side)
    return np.clip(below, 0.0, 1.0), np.clip(above, 0.0, 1.0)


def _saddlepoint_below(s: np.ndarray, n: int, red: ReducedRound) -> tuple[np.ndarray, np.ndarray]:
    """``(P(T < s), P(T >= s))`` for integer ``s``: exact at the ends of the support, Lugannani-Rice inside.

    At the mean (``w -> 0``) the formula is 0/0: within ``|tau| < 1e-3 sd``
    it is interpolated linearly between ``tau = +-1e-3 sd``, where the
    round-off of ``1/u - 1/w`` is still ~1e-12 and the interpolation error is
    below 1e-9 (``Phi``'s curvature vanishes at 0).
    """
    s = np.asarray(s, dtype=np.int64)
    below = np.where(s <= 0, 0.0, 1.0)
    above = 1.0 - below
    top = n * red.r
    first = s == 1
    below[first], above[first] = red.p[0] ** n, 1.0 - red.p[0] ** n
    last = (s == top) & ~first
    above[last], below[last] = red.p[-1] ** n, 1.0 - red.p[-1] ** n
    inside = (s > 1) & (s < top)
    if inside.any():
        tau = (s[inside] - 0.5) - n * red.mean
        tau0 = 1e-3 * math.sqrt(n * red.var)
        near = np.abs(tau) < tau0
        b, a = _lugannani_rice(np.where(near, tau0, tau), n, red)
        if near.any():
            (b_lo, b_hi), (a_lo, a_hi) = _lugannani_rice(np.array([-tau0, tau0]), n, red)
            frac = (tau[near] + tau0) / (2 * tau0)
            b[near] = b_lo + (b_hi - b_lo) * frac
            a[near] = a_lo + (a_hi - a_lo) * frac
        below[inside], above[inside] = b, a
    return below, above


@dataclasses.dataclass(frozen=True)
class ApproximationCheck:
    """The saddlepoint approximation against the exact lattice where both run.

    Attributes
    ----------
    n_check : int
        Rounds of the comparison (the largest ``N`` whose exact window has at
        most ``check_points`` points, capped at the target ``N``).
    max_abs_error : float
        ``max |P_sp(S <= v) - P_exact(S <= v)|`` over every lattice value ``v``
        of the exact window at ``n_check`` (plus the exact engine's own bound).
    n_check_small : int
        ``n_check // 4``, compared the same way, to show the error falls with ``N``.
    max_abs_error_small : float
    points : int
        Lattice values compared at ``n_check``.
    """

    n_check: int
    max_abs_error: float
    n_check_small: int
    max_abs_error_small: float
    points: int


@dataclasses.dataclass(frozen=True, eq=False)
class SaddlepointSum(SumQueries):
    """Saddlepoint approximation to the distribution of a sum of ``n_rounds`` i.i.d. rounds.

    Same queries as :class:`LatticeSum`. ``error_bound`` is the discrepancy
    measured against the exact lattice (:class:`ApproximationCheck`), not a
    proof: the relative error of Lugannani-Rice is O(1/N) uniformly in the
    tails, so the absolute error at the target ``N`` is expected to be below
    the one measured at the smaller ``n_check``.

    Attributes
    ----------
    n_rounds : int
    unit : Fraction
    start, stride : int
        ``S = (start + stride * T) * unit`` with ``T`` in ``[0, N r]``.
    mean, variance : Fraction
        Exact.
    error_bound : float
    check : ApproximationCheck
    method : str
    """

    n_rounds: int
    unit: Fraction
    start: int
    stride: int
    mean: Fraction
    variance: Fraction
    error_bound: float
    check: ApproximationCheck | None
    method: str
    _red: ReducedRound = dataclasses.field(repr=False)

    _support_min = 0

    def _below_index(self, i: np.ndarray):
        return _saddlepoint_below(i, self.n_rounds, self._red)

    def _quantile_index(self, levels: np.ndarray) -> np.ndarray:
        # bisection on the reduced index t with P(T <= t) = P(T < t + 1): invariant F(lo) < q <= F(hi)
        lo = np.full(levels.shape, -1, dtype=np.int64)
        hi = np.full(levels.shape, self.n_rounds * self._red.r, dtype=np.int64)
        while np.any(hi - lo > 1):
            mid = lo + (hi - lo) // 2
            below, _ = self._below_index(mid + 1)
            reached = below >= levels
            hi = np.where(reached, mid, hi)
            lo = np.where(reached, lo, mid)
        return hi


def _check_points_n(red_chernoff: ChernoffBounds, n_max: int, check_points: int, tail: float) -> int:
    """Largest ``n <= n_max`` whose exact window has at most ``check_points`` points (at least 1)."""
    def size(n):
        lo, hi, _, _ = red_chernoff.window(n, tail)
        return hi - lo + 1

    if size(n_max) <= check_points:
        return n_max
    lo, hi = 1, n_max  # size(lo) may exceed check_points for huge ranges: then 1 it is
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if size(mid) <= check_points:
            lo = mid
        else:
            hi = mid
    return lo


def _measure(one: OneRound, red: ReducedRound, n: int, tail: float) -> tuple[float, int]:
    """Max |saddlepoint CDF - exact CDF| over the exact window at ``n`` rounds (plus the exact bound)."""
    exact = exact_sum(one, n, tail=tail)
    lo = (exact.start - n * red.base) // red.span
    t = lo + np.arange(exact.pmf.size)
    approx_below, _ = _saddlepoint_below(t + 1, n, red)
    exact_below, _ = exact.split_at(np.arange(1, exact.pmf.size + 1))  # P(S <= each stored value)
    return float(np.max(np.abs(approx_below - exact_below))) + exact.error_bound, exact.pmf.size


def saddlepoint_sum(one: OneRound, n_rounds: int, *, check_points: int = 2 ** 16, tail: float = 1e-12,
                    check: bool = True) -> SaddlepointSum:
    """Saddlepoint (Lugannani-Rice, lattice) approximation to the sum of ``n_rounds`` rounds.

    The error is stated by measurement: the approximation is compared with
    :func:`exact_sum` at every lattice value of ``n_check`` rounds (the largest
    count whose exact window has at most ``check_points`` points) and at
    ``n_check // 4``; ``error_bound`` is the larger of the two discrepancies
    (they fall with ``N``, so the one at ``n_check`` normally decides).

    Parameters
    ----------
    one : OneRound
    n_rounds : int
    check_points : int
        Size of the exact comparison.
    tail : float
        Chernoff tail of the exact comparison.
    check : bool
        Skip the comparison (``error_bound`` is then NaN); for tests only.

    Returns
    -------
    SaddlepointSum
    """
    n_rounds = int(n_rounds)
    if n_rounds < 1:
        raise InputError("n_rounds", f"must be >= 1, got {n_rounds}")
    red = reduce_round(one)
    if check:
        n_check = _check_points_n(ChernoffBounds(red), n_rounds, check_points, tail)
        n_small = max(1, n_check // 4)
        err, points = _measure(one, red, n_check, tail)
        err_small, _ = _measure(one, red, n_small, tail)
        result = ApproximationCheck(n_check, err, n_small, err_small, points)
        error = max(err, err_small)
        method = (f"saddlepoint (Lugannani-Rice, Daniels' 2nd continuity correction), max |error| of the CDF vs "
                  f"the exact lattice {err:.1e} at N={n_check:,} ({err_small:.1e} at N={n_small:,}); "
                  f"measured, not proven")
    else:
        result, error = None, math.nan
        method = "saddlepoint (Lugannani-Rice, Daniels' 2nd continuity correction), unchecked"
    return SaddlepointSum(n_rounds, one.unit, n_rounds * red.base, red.span, n_rounds * one.mean,
                          n_rounds * one.variance, error, result, method, red)
