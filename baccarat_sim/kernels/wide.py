"""Integers beyond 64 bits for the kernels: the 128-bit product of two words, and exact 128-bit sums.

numba has no 128-bit integer. A product of two 64-bit words is four 32 x 32 -> 64 bit products
(:func:`mul_hi_lo`); a sum of products is kept as a two's-complement pair of words ``(high, low)``
(:func:`add_product`), exact modulo ``2**128``, so a sum whose true value lies within ``+-2**127`` is exact
whatever its partial sums did. Pure numba functions, inlined where they are called.
"""

from __future__ import annotations

import numpy as np

from .jit import jit

__all__ = ["add_product", "mul_hi_lo", "wide_float", "wide_sign"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U32 = np.uint64(32)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO64 = 2.0**64


@jit(inline="always")
def mul_hi_lo(a, b):
    """The 128-bit product of two uint64, as ``(high 64 bits, low 64 bits)``.

    Four 32 x 32 -> 64 bit products, the middle carries summed below ``3 * 2**32``.
    """
    a_lo = a & _MASK32
    a_hi = a >> _U32
    b_lo = b & _MASK32
    b_hi = b >> _U32
    p0 = a_lo * b_lo
    p1 = a_lo * b_hi
    p2 = a_hi * b_lo
    mid = (p0 >> _U32) + (p1 & _MASK32) + (p2 & _MASK32)
    high = a_hi * b_hi + (p1 >> _U32) + (p2 >> _U32) + (mid >> _U32)
    return high, a * b


@jit(inline="always")
def _negate(high, low):
    """``-(high, low)`` on 128 bits: ``~x + 1``."""
    low = ~low + _U1
    return ~high + (_U1 if low == _U0 else _U0), low


@jit(inline="always")
def add_product(high, low, a, b):
    """``(high, low) + a * b`` modulo ``2**128`` (two's complement), for int64 ``a`` and ``0 <= b < 2**64``.

    Returns
    -------
    (uint64, uint64)
        The new high and low words.
    """
    negative = a < 0
    magnitude = _U0 - np.uint64(a) if negative else np.uint64(a)  # |a|, INT64_MIN included
    p_high, p_low = mul_hi_lo(magnitude, np.uint64(b))
    if negative:
        p_high, p_low = _negate(p_high, p_low)
    new_low = low + p_low
    return high + p_high + (_U1 if new_low < low else _U0), new_low


@jit(inline="always")
def wide_sign(high, low):
    """The sign (-1, 0, 1) of a 128-bit two's-complement integer ``(high, low)``."""
    if np.int64(high) < 0:
        return -1
    return 0 if high == _U0 and low == _U0 else 1


@jit(inline="always")
def wide_float(high, low):
    """A 128-bit two's-complement integer ``(high, low)`` as a float64 (relative error below ``2**-52``)."""
    if np.int64(high) < 0:
        high, low = _negate(high, low)
        return -(float(high) * _TWO64 + float(low))
    return float(high) * _TWO64 + float(low)
