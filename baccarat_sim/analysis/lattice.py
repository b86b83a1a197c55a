"""Exact distribution of a sum of independent rounds on their payout lattice, with a rigorous error bound.

Pure numpy: no numba, no pandas, no printing. The pieces, in the order the
data flows:

* :func:`~baccarat_sim.analysis.one_round.one_round` -- the exact
  distribution of one round's net result, as distinct values
  (:class:`fractions.Fraction`) with integer weights. Every value is an
  integer multiple of ``unit``, the gcd of the values: the payout lattice.
  (:func:`baccarat_sim.analysis.slip.build_slip` builds it for a bet slip from
  the settlement layer.)
* :func:`exact_sum` -- the distribution of the sum of ``N`` independent rounds
  on that lattice, by FFT convolution and exponentiation by squaring. Only the
  window of each partial sum outside which Chernoff's inequality puts little
  mass is kept, and every source of error (the cut tails, FFT and summation
  round-off, the float64 rounding of the one-round probabilities) is tracked
  and stated as ``error_bound`` (:class:`LatticeSum`). Early squarings, whose
  errors every later squaring doubles, use an error-free convolution
  (:mod:`baccarat_sim.analysis.convolution`); the windows come from Chernoff
  bounds (:mod:`baccarat_sim.analysis.bounds`).
* :class:`~baccarat_sim.analysis.sums.SumQueries` -- what every distribution
  of a sum answers (CDF, tails, quantiles with their error bracket);
  :mod:`baccarat_sim.analysis.saddlepoint` gives the same answers where the
  lattice would not fit in memory.

Conventions: amounts are in the currency of the stakes (e.g. chips) and may be
ints, Fractions or floats (a float is taken at its exact binary value).
Internally the lattice is indexed by integers ``i`` meaning ``i * unit``.

References
----------
Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed., 2002), Thm 24.2 (FFT error).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from ..errors import InputError
from .bounds import ChernoffBounds
from .convolution import U, exact_convolve, fft_convolve, fft_float_bound, higham_gamma, times_round
from .one_round import OneRound, ReducedRound, reduce_round
from .sums import Density, SumQueries

__all__ = ["LatticeSum", "exact_sum", "lattice_window"]


def lattice_window(one: OneRound, n_rounds: int, tail: float = 1e-12) -> int:
    """Number of lattice points :func:`exact_sum` keeps for ``n_rounds`` (its memory, in float64 entries).

    Parameters
    ----------
    one : OneRound
    n_rounds : int
    tail : float
        Chernoff bound on each discarded tail.

    Returns
    -------
    int
    """
    lo, hi, _, _ = ChernoffBounds(reduce_round(one)).window(int(n_rounds), tail)
    return hi - lo + 1



@dataclasses.dataclass(frozen=True)
class _Partial:
    """``T_k`` restricted to ``[lo, lo + len(pmf))``, with an L1 error bound against the true law."""

    k: int
    lo: int
    pmf: np.ndarray
    error: float


def _truncate(c: np.ndarray, c_lo: int, k: int, chernoff: ChernoffBounds, eps: float):
    """Keep ``c`` (indices from ``c_lo``) on the Chernoff window of ``T_k``; returns (lo, pmf, tail mass bound)."""
    lo, hi, below, above = chernoff.window(k, eps)
    lo, hi = max(lo, c_lo), min(hi, c_lo + c.size - 1)
    return lo, c[lo - c_lo:hi - c_lo + 1].copy(), below + above


@dataclasses.dataclass(frozen=True)
class _Plan:
    """How :func:`_power` spends its error budget.

    Attributes
    ----------
    tail : float
        Largest amplified Chernoff cut per step (the window of ``T_k`` is cut
        at ``tail / amplification`` per side pair).
    budget : float
        Largest amplified round-off per step allowed for the plain float FFT
        (or shifted adds); steps above it use :func:`exact_convolve`.
    """

    tail: float
    budget: float


def _combine(a: _Partial, b: _Partial, red: ReducedRound, chernoff: ChernoffBounds, plan: _Plan, amplification: float,
             base: bool) -> tuple[_Partial, str]:
    """``a * b`` truncated to the window of ``T_{a.k + b.k}``, with its error bound.

    ``|A*B - P_a*P_b|_1 <= e_a |B|_1 + e_b`` (Young's inequality); the
    computed convolution adds its own round-off, and the truncation the true
    mass outside the window, which the Chernoff bound caps.
    """
    b_l1 = float(b.pmf.sum()) * (1 + b.pmf.size * U)
    other = a.pmf if b is a else b.pmf  # the same object when squaring: one forward FFT
    if base:
        float_error = higham_gamma(red.y.size + 1) * float(a.pmf.sum())
    else:
        float_error = fft_float_bound(a.pmf, other, a.pmf.size + other.size - 1)
    if amplification * float_error <= plan.budget:
        c, rounding = times_round(a.pmf, red) if base else fft_convolve(a.pmf, other)
        kind = "float"
    else:
        c, rounding = exact_convolve(a.pmf, other)
        kind = "exact"
    k = a.k + b.k
    lo, pmf, lost = _truncate(c, a.lo + b.lo, k, chernoff, plan.tail / amplification)
    return _Partial(k, lo, pmf, a.error * b_l1 + b.error + rounding + lost), kind


def _power(red: ReducedRound, n: int, plan: _Plan) -> tuple[_Partial, dict]:
    """``T_n`` by left-to-right binary exponentiation: square, then times one round where the bit is 1.

    An error made after squaring ``j`` reaches ``T_n`` doubled once per
    squaring still to come; that factor (``amplification``) scales the
    Chernoff cut and decides exact vs float convolution at each step.

    Returns
    -------
    (_Partial, dict)
        ``T_n`` and the count of each kind of convolution done.
    """
    chernoff = ChernoffBounds(red)
    base_pmf = np.zeros(red.r + 1)
    base_pmf[red.y] = red.p
    base = _Partial(1, 0, base_pmf, red.base_error)
    current = base
    bits = bin(n)[3:]
    kinds = {"exact": 0, "float": 0}
    for i, bit in enumerate(bits):
        amplification = 2.0 ** (len(bits) - 1 - i) * (1 + 1e-6)
        current, kind = _combine(current, current, red, chernoff, plan, amplification, base=False)
        kinds[kind] += 1
        if bit == "1":
            current, kind = _combine(current, base, red, chernoff, plan, amplification, base=True)
            kinds[kind] += 1
    return current, kinds



# --------------------------------------------------------------------------------------------------
# Exact lattice sums
# --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, eq=False)
class LatticeSum(SumQueries):
    """Distribution of a sum of ``n_rounds`` i.i.d. rounds on its lattice, exact up to ``error_bound``.

    ``pmf[i]`` is ``P(S = (start + stride * i) * unit)``; values outside the
    stored window have probability at most ``error_bound`` in total.

    Attributes
    ----------
    n_rounds : int
    unit : Fraction
        Lattice unit of the values (currency per lattice step).
    start : int
        Lattice index (in units) of ``pmf[0]``.
    stride : int
        Lattice indices between consecutive entries (the span of the lattice
        the sum lives on, in units).
    pmf : ndarray(float64, shape=(m,))
        Sums to 1.
    mean, variance : Fraction
        Exact: ``N`` times the one-round moments.
    error_bound : float
        Every probability of an event (a CDF value, a tail, a p-value) is
        within this of the truth: it bounds the L1 distance to the true law
        before renormalisation (tails cut by Chernoff, FFT and summation
        round-off, float64 rounding of the one-round probabilities), plus the
        round-off of the cumulative sums.
    tail : float
        Chernoff bound on the mass cut at each step, as it counts in the final law.
    convolutions : dict of str to int
        Convolutions done, ``"exact"`` (error-free) and ``"float"`` (plain FFT or shifted adds).
    method : str
    """

    n_rounds: int
    unit: Fraction
    start: int
    stride: int
    pmf: np.ndarray
    mean: Fraction
    variance: Fraction
    error_bound: float
    tail: float
    convolutions: dict
    method: str
    _cum: np.ndarray = dataclasses.field(repr=False)  # _cum[i] = P(T < i), length m + 1
    _upper: np.ndarray = dataclasses.field(repr=False)  # _upper[i] = P(T >= i)

    _support_min = 0

    def values(self) -> np.ndarray:
        """Currency value of each ``pmf`` entry, ``ndarray(float64, (m,))``."""
        return (self.start + self.stride * np.arange(self.pmf.size)) * float(self.unit)

    def density(self, low: float | None = None, high: float | None = None, points: int | None = None) -> Density:
        """Probability per unit of currency at every lattice point kept (exact: ``low``, ``high`` are not needed)."""
        return Density(self.values(), self.pmf / (self.stride * float(self.unit)))

    def _below_index(self, i: np.ndarray):
        j = np.clip(i, 0, self.pmf.size)
        return self._cum[j], self._upper[j]

    def _quantile_index(self, levels: np.ndarray) -> np.ndarray:
        # _cum[i + 1] = P(T <= i): the first i with it >= q
        return np.minimum(np.searchsorted(self._cum[1:], levels, side="left"), self.pmf.size - 1)


def _lattice_sum(one: OneRound, n_rounds: int, red: ReducedRound, partial: _Partial, tail: float,
                 convolutions: dict, tolerance: float) -> LatticeSum:
    """Renormalise ``T_N``'s window, build its cumulative sums and state its error bound and method."""
    pmf = partial.pmf / partial.pmf.sum()
    # Renormalising keeps every event within partial.error: if |q - p|_1 <= E, the renormalised q' has
    # |q'(A) - p(A)| <= (|1 - sum q| + E) / 2 <= E for every event A. The division adds u per entry and the
    # cumulative sums (sequential) at most (length) u each.
    error = partial.error + (pmf.size + 2) * U * 1.01
    cum = np.concatenate(([0.0], np.cumsum(pmf)))
    upper = np.concatenate((np.cumsum(pmf[::-1])[::-1], [0.0]))
    np.minimum(cum, 1.0, out=cum)
    np.minimum(upper, 1.0, out=upper)
    note = "" if error <= tolerance else (f"; ABOVE the {tolerance:.0e} target: float64 storage of the law "
                                          f"(relative 2**-53 per step, amplified ~N times) dominates at this N")
    method = (f"exact lattice (FFT, squaring; {convolutions['exact']} error-free + {convolutions['float']} float "
              f"convolutions), error bound {error:.1e} on every probability (Chernoff tail cuts {tail:.0e} "
              f"each, round-off tracked){note}")
    for array in (pmf, cum, upper):
        array.setflags(write=False)
    return LatticeSum(n_rounds, one.unit, n_rounds * red.base + red.span * partial.lo, red.span, pmf,
                      n_rounds * one.mean, n_rounds * one.variance, error, tail, convolutions, method, cum, upper)


def exact_sum(one: OneRound, n_rounds: int, *, tail: float = 1e-12, tolerance: float = 1e-9,
              max_points: int | None = None) -> LatticeSum:
    """Exact distribution of the sum of ``n_rounds`` i.i.d. copies of ``one`` on its lattice.

    FFT convolution with exponentiation by squaring (left to right: square,
    then convolve with one round where the bit of ``n_rounds`` is 1), keeping
    at each step only the window of ``T_k`` outside which Chernoff's bound
    puts little mass. The L1 error against the true law is tracked through
    every step (``_combine``) and reported as ``error_bound``: each step's
    round-off and cut tails count multiplied by the doublings still to come.
    Early steps, where that factor is large, use an error-free convolution
    (``exact_convolve``), so the bound is about ``4 N 2**-53`` (float64
    storage of the law between steps) plus ``tail`` per step.

    Parameters
    ----------
    one : OneRound
    n_rounds : int
        ``>= 1``.
    tail : float
        Chernoff bound on the mass cut at each step, as it counts in the final law.
    tolerance : float
        Target for ``error_bound``: the round-off budget of each step is
        ``max(tolerance, 4 N u) / (4 steps)``; exceeding it is stated in ``method``.
    max_points : int, optional
        Refuse (``MemoryError``) when the final window is longer.

    Returns
    -------
    LatticeSum

    Examples
    --------
    >>> from baccarat_sim.analysis.one_round import one_round
    >>> two = exact_sum(one_round([1, -1], [1, 1]), 2)  # a fair coin, twice
    >>> two.values().tolist(), two.pmf.tolist()
    ([-2.0, 0.0, 2.0], [0.25, 0.5, 0.25])
    """
    n_rounds = int(n_rounds)
    if n_rounds < 1:
        raise InputError("n_rounds", f"must be >= 1, got {n_rounds}")
    red = reduce_round(one)
    if max_points is not None:
        size = lattice_window(one, n_rounds, tail)
        if size > max_points:
            raise MemoryError(f"max_points: the lattice window of {n_rounds} rounds has {size} points, "
                              f"over {max_points}")
    steps = 2 * n_rounds.bit_length()
    plan = _Plan(tail, max(tolerance, 4 * n_rounds * U) / (4 * steps))
    partial, convolutions = _power(red, n_rounds, plan)
    return _lattice_sum(one, n_rounds, red, partial, tail, convolutions, tolerance)
