"""Exact distribution of a sum of independent rounds on their payout lattice, with a rigorous error bound.

Pure numpy: no numba, no pandas, no printing. The pieces, in the order the
data flows:

* :func:`one_round` -- the exact distribution of one round's net result, as
  distinct values (:class:`fractions.Fraction`) with integer weights. Every
  value is an integer multiple of ``unit``, the gcd of the values: the payout
  lattice. (:func:`baccarat_sim.analysis.slip.build_slip` builds it for a bet
  slip from the settlement layer.)
* :func:`exact_sum` -- the distribution of the sum of ``N`` independent rounds
  on that lattice, by FFT convolution and exponentiation by squaring. Only the
  window of each partial sum outside which Chernoff's inequality puts little
  mass is kept, and every source of error (the cut tails, FFT and summation
  round-off, the float64 rounding of the one-round probabilities) is tracked
  and stated as ``error_bound`` (:class:`LatticeSum`). Early squarings, whose
  errors every later squaring doubles, use an error-free convolution.
* :class:`SumQueries` -- what every distribution of a sum answers (CDF, tails,
  quantiles with their error bracket); :mod:`baccarat_sim.analysis.saddlepoint`
  gives the same answers where the lattice would not fit in memory.

Conventions: amounts are in the currency of the stakes (e.g. chips) and may be
ints, Fractions or floats (a float is taken at its exact binary value).
Internally the lattice is indexed by integers ``i`` meaning ``i * unit``.

References
----------
Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed., 2002), Thm 24.2 (FFT error).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from functools import reduce

import numpy as np

from ..errors import InputError
from ..limits import MAX_LATTICE_SPAN

__all__ = [
    "QUANTILE_LEVELS",
    "U",
    "ChernoffBounds",
    "LatticeSum",
    "OneRound",
    "Probability",
    "Quantile",
    "ReducedRound",
    "SumQueries",
    "as_fraction",
    "cumulant_generating",
    "exact_sum",
    "fraction_gcd",
    "house_round",
    "lattice_window",
    "one_round",
    "reduce_round",
]

#: Unit roundoff of float64, ``2**-53``.
U = float(np.finfo(np.float64).eps) / 2
#: The quantile levels a hold summary reports.
QUANTILE_LEVELS = (0.001, 0.01, 0.05, 0.5, 0.95, 0.99, 0.999)


# --------------------------------------------------------------------------------------------------
# One round
# --------------------------------------------------------------------------------------------------

def as_fraction(x) -> Fraction:
    """Exact Fraction of an int, Fraction, numpy number or float (a float at its binary value)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (np.integer, int)):
        return Fraction(int(x))
    if isinstance(x, (np.floating, float)):
        return Fraction(float(x))
    return Fraction(x)


def fraction_gcd(values) -> Fraction:
    """Largest ``g > 0`` such that every value is an integer multiple of ``g``.

    Parameters
    ----------
    values : iterable of Fraction
        At least one non-zero value.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> fraction_gcd([Fraction(95), Fraction(-100), Fraction(0)])
    Fraction(5, 1)
    >>> fraction_gcd([Fraction(19, 20), Fraction(-1)])
    Fraction(1, 20)
    """
    values = [v for v in map(as_fraction, values) if v != 0]
    if not values:
        raise InputError("values", "need at least one non-zero value to define a lattice unit")
    denominator = reduce(math.lcm, (v.denominator for v in values))
    numerator = reduce(math.gcd, (abs(v.numerator) * (denominator // v.denominator) for v in values))
    return Fraction(numerator, denominator)


@dataclasses.dataclass(frozen=True, eq=False)
class OneRound:
    """Exact distribution of one round's net result, on its payout lattice.

    Build it with :func:`one_round` (or :func:`baccarat_sim.analysis.slip.build_slip` from a rule set).

    Attributes
    ----------
    values : tuple of Fraction
        Distinct net results, ascending.
    weights : tuple of int
        Positive integer weight of each value, reduced by their gcd.
    total : int
        ``sum(weights)``; the probability of ``values[i]`` is ``weights[i] / total``.
    unit : Fraction
        The lattice unit: the gcd of the values, so ``values[i] = steps[i] * unit``.
    steps : ndarray(int64, shape=(n,))
        ``values / unit``.
    probabilities : ndarray(float64, shape=(n,))
        ``weights / total``, each correctly rounded.
    mean, variance : Fraction
        Exact moments of one round.
    cost : Fraction or None
        Amount the player must put on the table to play the round (the slip's
        total stake), when known; used by the session model.
    """

    values: tuple
    weights: tuple
    total: int
    unit: Fraction
    steps: np.ndarray
    probabilities: np.ndarray
    mean: Fraction
    variance: Fraction
    cost: Fraction | None = None

    @property
    def sd(self) -> float:
        """Standard deviation of one round."""
        return math.sqrt(self.variance)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{v}: {w}/{self.total}" for v, w in zip(self.values, self.weights))
        return f"OneRound(unit={self.unit}, {{{pairs}}})"


def one_round(values, weights, cost=None) -> OneRound:
    """The exact distribution of one round from values and integer weights.

    Parameters
    ----------
    values : sequence of number
        Net results (ints, Fractions or floats at their exact binary value).
        Repeated values are merged.
    weights : sequence of int
        Non-negative integer weights (e.g. counts of card orderings); values
        of weight 0 are dropped.
    cost : number, optional
        Total stake of the slip (see :attr:`OneRound.cost`).

    Returns
    -------
    OneRound

    Examples
    --------
    >>> r = one_round([95, -100, 0], [4585, 4462, 953])
    >>> r.unit, r.steps.tolist()
    (Fraction(5, 1), [-20, 0, 19])
    """
    if len(values) != len(weights):
        raise InputError("weights", f"values and weights differ in length ({len(values)} and {len(weights)})")
    merged: dict[Fraction, int] = {}
    for value, weight in zip(values, weights):
        if int(weight) != weight or weight < 0:
            raise InputError("weights", f"must be non-negative integers, got {weight!r}")
        if weight:
            key = as_fraction(value)
            merged[key] = merged.get(key, 0) + int(weight)
    if len(merged) < 2:
        raise InputError("values", "need at least two outcomes of positive weight (a sure result has no spread)")
    ordered = sorted(merged)
    common = reduce(math.gcd, merged.values())
    reduced = tuple(merged[v] // common for v in ordered)
    total = sum(reduced)
    unit = fraction_gcd(ordered)
    mean = sum((v * w for v, w in zip(ordered, reduced)), Fraction(0)) / total
    second = sum((v * v * w for v, w in zip(ordered, reduced)), Fraction(0)) / total
    whole = [int(v / unit) for v in ordered]
    if whole[-1] - whole[0] > MAX_LATTICE_SPAN:
        raise InputError("values", f"the results of a round range over {whole[-1] - whole[0]:,} steps of "
                                   f"{float(unit):g} chips (from {float(ordered[0]):g} to {float(ordered[-1]):g}); at "
                                   f"most {MAX_LATTICE_SPAN:,} steps can be priced: stakes that far apart need "
                                   "separate slips")
    steps = np.array(whole, dtype=np.int64)
    probabilities = np.array([w / total for w in reduced])  # int / int: correctly rounded
    for array in (steps, probabilities):
        array.setflags(write=False)
    return OneRound(tuple(ordered), reduced, total, unit, steps, probabilities, mean, second - mean * mean,
                    None if cost is None else as_fraction(cost))


def house_round(player: OneRound) -> OneRound:
    """The house's side of a round: every value negated (the house wins what the player loses).

    Parameters
    ----------
    player : OneRound

    Returns
    -------
    OneRound
    """
    steps = -player.steps[::-1].copy()
    probabilities = player.probabilities[::-1].copy()
    for array in (steps, probabilities):
        array.setflags(write=False)
    return OneRound(tuple(-v for v in reversed(player.values)), tuple(reversed(player.weights)), player.total,
                    player.unit, steps, probabilities, -player.mean, player.variance, player.cost)


# --------------------------------------------------------------------------------------------------
# The reduced lattice and the cumulant generating function
# --------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, eq=False)
class ReducedRound:
    """One round on its minimal lattice: ``step = base + span * y`` with integer ``y`` in ``[0, r]``.

    The sum of ``n`` rounds is then ``n * base + span * T`` with ``T`` the sum of
    the ``y``: convolving in ``y`` wastes no zeros when the steps share a
    residue (e.g. +-1 only, where sums keep the parity of ``n``).
    """

    base: int
    span: int
    y: np.ndarray  # int64 (a,), ascending, y[0] == 0
    p: np.ndarray  # float64 (a,)
    r: int
    mean: float  # E y, rounded from the exact value
    var: float
    mean_exact: Fraction
    base_error: float  # sum |p_float - p_exact|, rounded up

    @property
    def d(self) -> np.ndarray:
        """Centred values ``y - E y``, float64 (a,)."""
        return self.y - self.mean


def reduce_round(one: OneRound) -> ReducedRound:
    """``one`` on its minimal lattice (see :class:`ReducedRound`), with the float64 rounding of its probabilities."""
    base = int(one.steps[0])
    span = reduce(math.gcd, (int(s) - base for s in one.steps[1:]))
    y = (one.steps - base) // span
    mean_exact = sum((Fraction(int(yi)) * w for yi, w in zip(y, one.weights)), Fraction(0)) / one.total
    var_exact = one.variance / (one.unit * span) ** 2
    error = sum((abs(Fraction(float(p)) - Fraction(w, one.total)) for p, w in zip(one.probabilities, one.weights)),
                Fraction(0))
    return ReducedRound(base, span, y, one.probabilities, int(y[-1]), float(mean_exact), float(var_exact),
                        mean_exact, math.nextafter(float(error), math.inf))


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


# --------------------------------------------------------------------------------------------------
# Chernoff windows
# --------------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------------
# Convolutions with error bounds
# --------------------------------------------------------------------------------------------------
#
# Why two kinds of convolution. In exponentiation by squaring an L1 error e in the law of T_k becomes
# 2e after the next squaring (|A*A - P*P|_1 <= e (|A|_1 + 1)), so an error made at count k reaches the
# final law of T_N multiplied by about N / k. A float FFT convolution errs by ~1e-13 in L1 (round-off
# relative to the norm, spread over every entry): harmless near the end, but at k = 1, 2, 4, ... it
# would be amplified a million-fold at N = 1e6. Early steps therefore use an error-free convolution
# (numbers split into small integer digits whose convolutions the FFT computes exactly, then put back
# together with one rounding per entry), and only the last, little-amplified steps use the plain FFT.
# Each step picks the cheaper one that keeps its amplified error within budget.

def _fast_length(n: int) -> int:
    """Smallest ``2**a 3**b 5**c >= n`` (a size pocketfft transforms fast)."""
    best = 1 << max(0, (n - 1).bit_length())
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            size = p35
            while size < n:
                size *= 2
            best = min(best, size)
            p35 *= 3
        p5 *= 5
    return best


def _fft_constant(length: int) -> float:
    """Factor ``C`` in the FFT convolution bound ``|c_fft - c|_2 <= C (|a|_1 |b|_2 + |a|_2 |b|_1)``.

    Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed., 2002),
    Thm 24.2: a floating-point FFT of length ``L`` has relative L2 error at most
    ``eps_f = log2(L) eta``, ``eta ~ 6.7 u`` with twiddles accurate to ``u``.
    Through ``IFFT(FFT(a) FFT(b))``, with ``|FFT(a)|_inf <= |a|_1`` and
    Parseval, the error is at most ``(2 eps_f + 3u)(|a|_1 |b|_2 + |a|_2 |b|_1)``
    plus ``eps_f |c|_2 <= eps_f |a|_1 |b|_2``. ``u (16 log2 L + 8)`` covers
    ``3 eps_f + 3u`` with a margin.
    """
    return U * (16.0 * math.log2(max(length, 2)) + 8.0)


def _fft_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``a * b`` (full) by real FFT, negatives clipped; returns (result, L1 error bound).

    The L1 bound is ``sqrt(len)`` times the L2 bound (Cauchy-Schwarz);
    clipping cannot add error since the true result is ``>= 0``.
    """
    size = a.size + b.size - 1
    length = _fast_length(size)
    fa = np.fft.rfft(a, length)
    fb = fa if b is a else np.fft.rfft(b, length)
    c = np.fft.irfft(fa * fb, length)[:size]
    np.maximum(c, 0.0, out=c)
    return c, _fft_float_bound(a, b, size)


def _fft_float_bound(a: np.ndarray, b: np.ndarray, size: int) -> float:
    """L1 error bound of :func:`_fft_convolve` (computed from the norms, before convolving)."""
    a1, a2 = float(a.sum()), float(np.sqrt(a @ a))
    b1, b2 = (a1, a2) if b is a else (float(b.sum()), float(np.sqrt(b @ b)))
    return _fft_constant(_fast_length(size)) * (a1 * b2 + a2 * b1) * math.sqrt(size) * 1.01


def _split_digits(a: np.ndarray, bits: int, count: int) -> tuple[float, list[np.ndarray]]:
    """``a = scale * sum_j digits[j] 2**(-bits (j + 1)) + rest`` with integer digits in ``[0, 2**bits)``.

    ``scale`` is a power of two above ``max(a)``, so every operation here is
    exact; ``0 <= rest < scale 2**(-bits count)`` entrywise.
    """
    top = float(a.max())
    scale = 2.0 ** math.frexp(top)[1] if top > 0 else 1.0
    x = a / scale
    radix = float(2 ** bits)
    digits = []
    for _ in range(count):
        x = x * radix
        digit = np.floor(x)
        digits.append(digit)
        x = x - digit
    return scale, digits


def _digit_plan(na: int, nb: int, length: int) -> tuple[int, int]:
    """Digit size and count for :func:`_exact_convolve`.

    Each output level sums at most ``count`` integer convolutions of digits
    below ``2**bits``; the FFT bound on that sum (worst-case norms
    ``|A|_1 <= n 2**bits``, ``|A|_2 <= sqrt(n) 2**bits``) is kept below 1/4 so
    rounding recovers the exact integers, and the integers stay below
    ``2**52``. ``bits * count`` reaches ``60 + log2(na + nb)`` so the
    discarded digits cost at most ``2**-60`` in L1.
    """
    need = 60 + math.log2(na + nb)
    worst = _fft_constant(length) * (na * math.sqrt(nb) + math.sqrt(na) * nb)
    for count in range(3, 64):
        bits = min(24, math.floor(math.log2(0.25 / (count * worst)) / 2))
        while bits > 1 and count * min(na, nb) * 4.0 ** bits >= 2.0 ** 52:
            bits -= 1
        if bits >= 2 and bits * count >= need:
            return bits, count
    raise ArithmeticError(f"no exact digit plan for a convolution of {na} x {nb}")


def _exact_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """``a * b`` (full) for ``a, b >= 0``, each entry within ``1.01 u`` (relative) plus ``2**-60`` (L1).

    The inputs are split into integer digits (:func:`_split_digits`); the
    convolution of each pair of digit arrays is an integer array the FFT
    gets within 1/4 (:func:`_digit_plan`), so rounding makes it exact; the
    levels are carry-normalised in exact float arithmetic and summed by
    Horner's rule from the least significant end, so each entry takes one
    final rounding (plus ``2**-bits`` of that from the lower levels).

    Returns
    -------
    (ndarray(float64, shape=(len(a) + len(b) - 1,)), float)
        The convolution and its L1 error bound.
    """
    size = a.size + b.size - 1
    length = _fast_length(size)
    bits, count = _digit_plan(a.size, b.size, length)
    scale_a, digits_a = _split_digits(a, bits, count)
    spectra_a = [np.fft.rfft(d, length) for d in digits_a]
    if b is a:
        scale_b, spectra_b = scale_a, spectra_a
    else:
        scale_b, digits_b = _split_digits(b, bits, count)
        spectra_b = [np.fft.rfft(d, length) for d in digits_b]
    levels, worst = [], 0.0
    for s in range(2 * count - 1):
        terms = range(max(0, s - count + 1), min(s, count - 1) + 1)
        level = np.fft.irfft(sum(spectra_a[i] * spectra_b[s - i] for i in terms), length)[:size]
        exact = np.rint(level)
        worst = max(worst, float(np.max(np.abs(level - exact))))
        levels.append(exact)
    if worst > 0.25:
        raise ArithmeticError(f"exact convolution: FFT error {worst} breaks the a-priori bound of 1/4")
    radix, inverse = float(2 ** bits), 2.0 ** -bits
    carry = np.zeros(size)
    for s in reversed(range(len(levels))):  # carries up from the least significant level, exactly
        total = levels[s] + carry
        carry = np.floor(total * inverse)
        levels[s] = total - carry * radix
    value = levels[-1]
    for digit in reversed(levels[:-1]):
        value = digit + value * inverse
    c = (carry + value * inverse) * (inverse * scale_a * scale_b)
    dropped = 2.0 ** (-bits * count) * (scale_b * b.size * float(a.sum()) + scale_a * a.size * float(b.sum())
                                        + scale_a * scale_b * a.size * b.size * 2.0 ** (-bits * count))
    return c, 1.01 * U * float(c.sum()) * 1.01 + dropped


def _times_round(a: np.ndarray, red: ReducedRound) -> tuple[np.ndarray, float]:
    """``a`` convolved with one reduced round by shifted adds; returns (result, L1 error bound).

    Each entry is a sum of at most ``m`` rounded products (``m`` outcomes), so
    its error is at most ``gamma_{m+1}`` times the exact sum of its terms.
    """
    c = np.zeros(a.size + red.r)
    for yj, pj in zip(red.y, red.p):
        c[yj:yj + a.size] += pj * a
    return c, _gamma(red.y.size + 1) * float(a.sum()) * 1.01


def _gamma(m: int) -> float:
    """Higham's ``gamma_m = m u / (1 - m u)``."""
    return m * U / (1 - m * U)


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
        (or shifted adds); steps above it use :func:`_exact_convolve`.
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
        float_error = _gamma(red.y.size + 1) * float(a.pmf.sum())
    else:
        float_error = _fft_float_bound(a.pmf, other, a.pmf.size + other.size - 1)
    if amplification * float_error <= plan.budget:
        c, rounding = _times_round(a.pmf, red) if base else _fft_convolve(a.pmf, other)
        kind = "float"
    else:
        c, rounding = _exact_convolve(a.pmf, other)
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
class Probability:
    """A probability with its error and the method that produced it.

    Attributes
    ----------
    value : float
    error : float
        Absolute error bound: rigorous for the exact lattice; measured for an
        approximation; for a Monte Carlo estimate the larger half-width of its
        95% confidence interval (see ``method``).
    method : str
    ci95 : (float, float) or None
        A Monte Carlo estimate's 95% confidence interval.
    """

    value: float
    error: float
    method: str
    ci95: tuple | None = None


@dataclasses.dataclass(frozen=True, eq=False)
class Quantile:
    """The ``q``-quantile: the smallest lattice value ``v`` with ``P(S <= v) >= q``.

    Attributes
    ----------
    q : float
    value : Fraction
        The quantile computed from the distribution as stored.
    low, high : Fraction
        Given the distribution's error bound ``e`` on every probability, the
        true quantile lies in ``[low, high]`` (the quantiles at ``q - e`` and
        ``q + e``); ``low == high == value`` says the error cannot move it.
    method : str
    """

    q: float
    value: Fraction
    low: Fraction
    high: Fraction
    method: str


#: A reduced index beyond every sum's support on either side (a query there is clipped to it).
_FAR_INDEX = 1 << 62


class SumQueries:
    """Queries shared by :class:`LatticeSum` and :class:`~baccarat_sim.analysis.saddlepoint.SaddlepointSum`.

    Subclasses provide ``_below_index(i)``: ``(P(T < i), P(T >= i))`` for an
    integer array ``i`` of reduced indices, with ``S = start + stride * T``
    lattice units, and ``_quantile_index(q)``.
    """

    def _index_at_most(self, x) -> int:
        """Largest reduced index ``t`` with value ``<= x``."""
        return math.floor((as_fraction(x) / self.unit - self.start) / self.stride)

    def _index_below(self, x) -> int:
        """Largest reduced index ``t`` with value ``< x``."""
        return math.ceil((as_fraction(x) / self.unit - self.start) / self.stride) - 1

    @staticmethod
    def _at(index: int) -> np.ndarray:
        """One reduced index as the array ``_below_index`` reads, clipped to :data:`_FAR_INDEX`.

        An amount far beyond the support (10^30 chips) lies past one end of
        it, and is clipped there rather than overflow int64.
        """
        return np.array([max(-_FAR_INDEX, min(_FAR_INDEX, index))], dtype=np.int64)

    def cdf(self, x) -> float:
        """``P(S <= x)``, ``x`` in currency."""
        return float(self._below_index(self._at(self._index_at_most(x) + 1))[0][0])

    def prob_below(self, x) -> float:
        """``P(S < x)`` (strict), ``x`` in currency."""
        return float(self._below_index(self._at(self._index_below(x) + 1))[0][0])

    def prob_at_least(self, x) -> float:
        """``P(S >= x)``, computed directly (full relative precision in the upper tail)."""
        return float(self._below_index(self._at(self._index_below(x) + 1))[1][0])

    def prob_above(self, x) -> float:
        """``P(S > x)``."""
        return float(self._below_index(self._at(self._index_at_most(x) + 1))[1][0])

    def split_at(self, t) -> tuple[np.ndarray, np.ndarray]:
        """``(P(T < t), P(T >= t))`` for an array of reduced indices ``t`` (``S = (start + stride T) unit``).

        Each side is computed directly, so a small upper tail keeps its relative precision.
        """
        return self._below_index(np.asarray(t, dtype=np.int64))

    def value_of(self, t) -> Fraction:
        """Currency value of reduced index ``t``."""
        return (self.start + self.stride * int(t)) * self.unit

    def quantile(self, q: float) -> Quantile:
        """The smallest lattice value ``v`` with ``P(S <= v) >= q``, with its error bracket.

        Parameters
        ----------
        q : float
            In ``(0, 1)``.

        Returns
        -------
        Quantile
        """
        if not 0.0 < q < 1.0:
            raise InputError("q", f"must be in (0, 1), got {q}")
        levels = np.array([q, max(q - self.error_bound, 0.0), min(q + self.error_bound, 1.0)])
        t = self._quantile_index(levels)
        low = self.value_of(t[1]) if levels[1] > 0 else self.value_of(self._support_min)
        return Quantile(q, self.value_of(t[0]), low, self.value_of(t[2]), self.method)

    def as_probability(self, p: float) -> Probability:
        """A probability this distribution gave, with its error bound and method."""
        return Probability(float(p), self.error_bound, self.method)

    @property
    def sd(self) -> float:
        """Exact SD, ``sqrt(N var)``."""
        return math.sqrt(self.variance)


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
    (``_exact_convolve``), so the bound is about ``4 N 2**-53`` (float64
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


