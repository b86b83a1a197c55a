"""Convolutions of probability vectors with a bound on their error: the plain FFT and an error-free one.

Each function returns the convolution and a bound on its L1 error, which the
exact lattice sums (:mod:`baccarat_sim.analysis.lattice`) add up step by step.

Why two kinds of convolution. In exponentiation by squaring an L1 error ``e``
in the law of ``T_k`` becomes ``2e`` after the next squaring (``|A*A - P*P|_1
<= e (|A|_1 + 1)``), so an error made at count ``k`` reaches the final law of
``T_N`` multiplied by about ``N / k``. A float FFT convolution
(:func:`fft_convolve`) errs by ~1e-13 in L1 (round-off relative to the norm,
spread over every entry): harmless near the end, but at ``k = 1, 2, 4, ...``
it would be amplified a million-fold at ``N = 1e6``. Early steps therefore use
an error-free convolution (:func:`exact_convolve`: numbers split into small
integer digits whose convolutions the FFT computes exactly, then put back
together with one rounding per entry), and only the last, little-amplified
steps use the plain FFT. Each step picks the cheaper one that keeps its
amplified error within budget.

References
----------
Higham, *Accuracy and Stability of Numerical Algorithms* (2nd ed., 2002), Thm 24.2 (FFT error).
"""

from __future__ import annotations

import math

import numpy as np

from .one_round import ReducedRound

__all__ = ["U", "exact_convolve", "fft_convolve", "fft_float_bound", "higham_gamma", "times_round"]

#: Unit roundoff of float64, ``2**-53``.
U = float(np.finfo(np.float64).eps) / 2


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


def fft_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
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
    return c, fft_float_bound(a, b, size)


def fft_float_bound(a: np.ndarray, b: np.ndarray, size: int) -> float:
    """L1 error bound of :func:`fft_convolve` (computed from the norms, before convolving)."""
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
    """Digit size and count for :func:`exact_convolve`.

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


def exact_convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
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


def times_round(a: np.ndarray, red: ReducedRound) -> tuple[np.ndarray, float]:
    """``a`` convolved with one reduced round by shifted adds; returns (result, L1 error bound).

    Each entry is a sum of at most ``m`` rounded products (``m`` outcomes), so
    its error is at most ``gamma_{m+1}`` times the exact sum of its terms.
    """
    c = np.zeros(a.size + red.r)
    for yj, pj in zip(red.y, red.p):
        c[yj:yj + a.size] += pj * a
    return c, higham_gamma(red.y.size + 1) * float(a.sum()) * 1.01


def higham_gamma(m: int) -> float:
    """Higham's ``gamma_m = m u / (1 - m u)``."""
    return m * U / (1 - m * U)
