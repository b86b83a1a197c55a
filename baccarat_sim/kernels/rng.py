"""Explicit random streams for the dealing kernel (numba, no global state).

Each block of rounds owns a xoshiro256** generator whose state is derived from
(master seed, block index, stream id) through splitmix64, so a block deals the
same cards whichever thread runs it and whenever it runs. The stream id says
what the numbers are for (:data:`STREAM_DEAL`, the rounds dealt; other ids for
a kernel's auxiliary draws): two stream ids never give the same generator
state, so an auxiliary stream is never another run's dealing stream. Bounded integers use Lemire's
multiply-and-reject method on 32-bit halves of the 64-bit output: unbiased, and
a rejection is rare (probability below ``n / 2**32``).

The dealing kernel needs six to eight bits per card, so one 32-bit half of an
output serves up to three draws at once (:func:`bounded_batch`, the batched
method of Brackett-Rozinsky and Lemire): one multiply per draw and one rejection
test per three draws, still exactly unbiased. Every output is used whole and
consumed in a fixed order, so no "spare bits" state crosses a round.

References
----------
Blackman and Vigna, "Scrambled linear pseudorandom number generators" (2018).
Lemire, "Fast random integer generation in an interval", ACM TOMACS 29 (2019).
Brackett-Rozinsky and Lemire, "Batched ranged random integer generation",
Software: Practice and Experience 55 (2025), arXiv:2408.06213.
"""

from __future__ import annotations

import numpy as np

from .jit import jit

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U17 = np.uint64(17)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U45 = np.uint64(45)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(0x100000000)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_BLOCK_SALT = np.uint64(0xD1B54A32D192ED03)
#: Spacing of a stream's state words per stream id (odd: distinct ids give distinct spacings).
_STREAM_STEP = np.uint64(0xBB67AE8584CAA73B)

#: Stream id of the rounds dealt (the Monte Carlo engine, sessions, the counting kernel's shoes): the stream every
#: earlier version dealt, unchanged.
STREAM_DEAL = 0
#: Stream id of the counting kernel's alternative cut cards (their places, and the shuffle of the cards they reach).
STREAM_CUT_SCENARIOS = 1


@jit(inline="always")
def _rotl(x, k):
    return (x << k) | (x >> (np.uint64(64) - k))


@jit(inline="always")
def splitmix64_mix(z):
    """The splitmix64 output function (a bijective 64-bit mixer)."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@jit
def block_state(seed, block, stream=STREAM_DEAL):
    """Generator state of block ``block`` in stream ``stream`` of master ``seed``.

    The state's words are ``mix(key + k * step)``, ``k = 1..4``, with ``key``
    from (seed, block) and ``step`` from the stream id (``_GAMMA`` for
    :data:`STREAM_DEAL`). ``mix`` is a bijection, so the first word fixes
    ``key + step`` and the second then fixes ``step``: states of two stream
    ids never coincide, whatever their seeds and blocks.

    Parameters
    ----------
    seed : uint64
        Master seed.
    block : int64
        Block index (>= 0).
    stream : int64
        Stream id (:data:`STREAM_DEAL`, :data:`STREAM_CUT_SCENARIOS`).

    Returns
    -------
    tuple of 4 uint64
        xoshiro256** state (never all zero).
    """
    key = splitmix64_mix(splitmix64_mix(np.uint64(seed)) ^ splitmix64_mix(np.uint64(block) * _BLOCK_SALT + _GAMMA))
    step = _GAMMA + np.uint64(stream) * _STREAM_STEP
    s0 = splitmix64_mix(key + step)
    s1 = splitmix64_mix(key + step * np.uint64(2))
    s2 = splitmix64_mix(key + step * np.uint64(3))
    s3 = splitmix64_mix(key + step * np.uint64(4))
    if s0 == _U0 and s1 == _U0 and s2 == _U0 and s3 == _U0:
        s0 = _U1  # the all-zero state is xoshiro's only fixed point
    return (s0, s1, s2, s3)


@jit(inline="always")
def next_u64(state):
    """Next 64-bit output of xoshiro256**; returns ``(output, new_state)``.

    The state is a tuple of scalars rather than an array so that LLVM keeps it
    in registers inside the dealing loop.
    """
    s0, s1, s2, s3 = state
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, (s0, s1, s2, s3)


@jit(inline="always")
def bounded(bits32, n, state):
    """Uniform integer in ``[0, n)`` from 32 random bits (Lemire, unbiased).

    Parameters
    ----------
    bits32 : uint64
        32 fresh random bits (one half of a :func:`next_u64` output).
    n : int
        Range, ``1 <= n <= 2**32``.
    state : tuple of 4 uint64
        Generator state, used only in the rare case of a rejection.

    Returns
    -------
    (int64, state)
    """
    d1, _, _, state = bounded_batch(bits32, n, 1, 1, state)
    return d1, state


@jit(inline="always")
def high32(x):
    """High 32 bits of a 64-bit output."""
    return x >> _U32


@jit(inline="always")
def low32(x):
    """Low 32 bits of a 64-bit output."""
    return x & _MASK32


@jit(inline="always")
def bounded2(bits32, n1, n2, state):
    """Two independent uniform integers in ``[0, n1)`` and ``[0, n2)`` from 32 random bits.

    See :func:`bounded_batch`; requires ``n1 * n2 <= 2**32``.

    Returns
    -------
    (int64, int64, state)
    """
    d1, d2, _, state = bounded_batch(bits32, n1, n2, 1, state)
    return d1, d2, state


@jit(inline="always")
def bounded3(bits32, n1, n2, n3, state):
    """Three independent uniform integers in ``[0, n1)``, ``[0, n2)``, ``[0, n3)`` from 32 random bits.

    See :func:`bounded_batch`; requires ``n1 * n2 * n3 <= 2**32``.

    Returns
    -------
    (int64, int64, int64, state)
    """
    return bounded_batch(bits32, n1, n2, n3, state)


@jit(inline="always")
def _digits(bits32, a, b, c):
    """``divmod(bits32 * a * b * c, 2**32)`` as mixed-radix digits ``(d1, d2, d3)`` and the low word."""
    m = bits32 * a
    d1 = m >> _U32
    m = (m & _MASK32) * b
    d2 = m >> _U32
    m = (m & _MASK32) * c
    return d1, d2, m >> _U32, m & _MASK32


@jit(inline="always")
def bounded_batch(bits32, n1, n2, n3, state):
    """Three independent uniform integers in ``[0, n1)``, ``[0, n2)``, ``[0, n3)`` from 32 random bits.

    Brackett-Rozinsky and Lemire's batched method. With ``P = n1 n2 n3 <=
    2**32``, the three multiply-and-carry steps of :func:`_digits` compute
    ``divmod(bits32 * P, 2**32) = (D, low)`` with ``D = (d1 n2 + d2) n3 + d3``
    (mixed radix), so accepting exactly when ``low >= 2**32 mod P`` is
    Lemire's unbiased draw of ``D`` from ``[0, P)``, and the digits are
    independent and uniform. (With ``n2 = n3 = 1`` it is Lemire's method
    itself.) The test ``low < P`` that guards the exact threshold fails with
    probability ``P / 2**32`` (1.7% for three draws from an 8-deck shoe);
    a rejection redraws all three from the next output's high half.

    Parameters
    ----------
    bits32 : uint64
        32 fresh random bits.
    n1, n2, n3 : int
        Ranges, each ``>= 1``, with ``n1 * n2 * n3 <= 2**32``.
    state : tuple of 4 uint64
        Generator state, used only on a rejection.

    Returns
    -------
    (int64, int64, int64, state)
    """
    a = np.uint64(n1)
    b = np.uint64(n2)
    c = np.uint64(n3)
    d1, d2, d3, low = _digits(bits32, a, b, c)
    if low < a * b * c:
        return _bounded_slow(low, d1, d2, d3, a, b, c, state)
    return np.int64(d1), np.int64(d2), np.int64(d3), state


@jit(inline="always")
def _bounded_slow(low, d1, d2, d3, a, b, c, state):
    """The rare branch of :func:`bounded_batch`: the exact threshold, and redraws while below it.

    Inlined like the rest: a call, even on a cold path, keeps LLVM from
    holding the generator state in registers and costs the fresh kernel 20%.
    """
    product = a * b * c
    threshold = (_TWO32 - product) % product
    while low < threshold:
        x, state = next_u64(state)
        d1, d2, d3, low = _digits(x >> _U32, a, b, c)
    return np.int64(d1), np.int64(d2), np.int64(d3), state
