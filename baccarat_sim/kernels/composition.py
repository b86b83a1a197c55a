"""Composition-aware exact solver: pure numba functions over integer arrays, no I/O.

A round's *point-value* outcome (final scores and card counts, the 400
"bases" ``((ps * 10 + bs) * 2 + pc) * 2 + bc`` of the outcome code) depends
only on the point values of the six cards in dealing order (unused positions
stand for any card). The number of ordered six-card draws whose values form
the multiset ``M`` is the product of falling factorials
``FF(M) = prod_v n_v (n_v - 1) ... (n_v - c_v + 1)`` of the value counts
``n_v`` left in the shoe. So the exact weight of every base, and the exact EV
numerator of any bet settled on bases, is a fixed integer linear form in the
``C(15, 6) = 5005`` monomials ``FF(M)``: the coefficients (how many value
sequences with multiset ``M`` give each base) are computed once, and a solve
is 5005 monomials plus one dot product per bet.

Pairs, perfect pairs and the first-card comparison (Dragon/Tiger) depend on
the first four cards' ranks and suits only and have closed forms in the rank
and rank-suit counts (:func:`pair_weights`, :func:`first_card_weights`).

A multiset is ranked by the colex index of the combination ``w_i = v_i + i``
(``v`` sorted), ``sum_i C(w_i, i + 1)`` (the combinatorial number system), and
stored in blocks: a monomial is the falling factorials of its values 0-4 (the
"low half") times those of its values 5-9 (the "high half"), and each block
is one half times a contiguous run of the other side's halves, which the
compiler vectorises.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..model.codes import N_PREFIXES
from .jit import jit
from .outcome import third_card_prefix
from .wide import add_product, wide_float, wide_sign

#: Point values, cards per round at most, and the number of value multisets.
N_VALUES = 10
ROUND_CARDS = 6
N_MONOMIALS = 5005
#: Bases: the outcome-code prefix ``((player_score * 10 + banker_score) * 2 + player_cards) * 2 + banker_cards``.
N_BASES = N_PREFIXES
#: Values 0-4 form the "low" half of a multiset, 5-9 the "high" half; a
#: monomial is the product of its two halves' falling factorials, which takes
#: about a fifth of the multiplications of six factors per monomial.
SPLIT = 5


def _binomials() -> np.ndarray:
    table = np.zeros((N_VALUES + ROUND_CARDS, ROUND_CARDS + 1), np.int64)
    for n in range(table.shape[0]):
        for k in range(table.shape[1]):
            table[n, k] = _comb(n, k)
    return table


def _comb(n: int, k: int) -> int:
    from math import comb

    return comb(n, k) if 0 <= k <= n else 0


BINOM = _binomials()


def multiset_index(values) -> int:
    """Colex index of a multiset of six point values (any order)."""
    ordered = sorted(values)
    return sum(int(BINOM[v + i, i + 1]) for i, v in enumerate(ordered))


def _half_tables():
    """Every multiset of size 0..6 over five values, as counts per value, grouped by size.

    Also, per multiset but the empty one, how it grows from a smaller one: its ``parent`` (the multiset less one
    copy of its largest value), that ``value`` and the copies of it in the parent (``drop``), so that its falling
    factorials are the parent's times ``n_value - drop``.
    """
    halves = [()]
    for size in range(1, ROUND_CARDS + 1):
        halves += list(itertools.combinations_with_replacement(range(SPLIT), size))
    counts = np.zeros((len(halves), SPLIT), np.int64)
    for i, half in enumerate(halves):
        for v in half:
            counts[i, v] += 1
    size_start = np.zeros(ROUND_CARDS + 2, np.int64)
    for size in range(ROUND_CARDS + 1):
        size_start[size + 1] = size_start[size] + _comb(size + SPLIT - 1, SPLIT - 1)
    where = {half: i for i, half in enumerate(halves)}
    growth = np.zeros((len(halves), 3), np.int64)  # parent, value, drop
    for i, half in enumerate(halves[1:], start=1):
        growth[i] = where[half[:-1]], half[-1], half[:-1].count(half[-1])
    return halves, counts, size_start, growth


def _monomial_tables():
    """Monomial order and the tables that build the monomials from two halves.

    A monomial is (low half's falling factorials) x (high half's). Monomials
    are stored in *blocks* of one scalar times a contiguous run of the other
    side's halves: a low half of size ``s <= 3`` times every high half of size
    ``6 - s`` (35 to 210 of them), or a high half of size ``6 - s`` times every
    low half of size ``s >= 4`` (35 to 210). 77 blocks, each a loop long
    enough for the compiler to vectorise.
    """
    halves, half_counts, size_start, growth = _half_tables()
    blocks = []  # (scalar side, scalar half, vector start, vector length)
    for low_size in range(ROUND_CARDS + 1):
        high_size = ROUND_CARDS - low_size
        if low_size <= ROUND_CARDS // 2:
            for i in range(size_start[low_size], size_start[low_size + 1]):
                blocks.append((0, i, size_start[high_size], size_start[high_size + 1] - size_start[high_size]))
        else:
            for h in range(size_start[high_size], size_start[high_size + 1]):
                blocks.append((1, h, size_start[low_size], size_start[low_size + 1] - size_start[low_size]))
    block_side, block_half, block_vector, block_len = (np.array(column, np.int64) for column in zip(*blocks))
    block_out = np.concatenate([[0], np.cumsum(block_len)[:-1]]).astype(np.int64)
    # Where a block's scalar and vector lie in the halves array of falling_halves (low halves, then high halves).
    n_halves = len(halves)
    block_scalar_at = block_half + block_side * n_halves
    block_vector_at = block_vector + (1 - block_side) * n_halves
    colex_to_m = np.full(N_MONOMIALS, -1, np.int64)
    m_values = np.zeros((N_MONOMIALS, ROUND_CARDS), np.int64)
    m = 0
    for side, half, vector, length in blocks:
        for other in range(vector, vector + length):
            low, high = (halves[half], halves[other]) if side == 0 else (halves[other], halves[half])
            multiset = low + tuple(v + SPLIT for v in high)
            colex_to_m[multiset_index(multiset)] = m
            m_values[m] = multiset
            m += 1
    # The blocks cover the 5005 multisets once each (m ends at N_MONOMIALS): tests/test_fast.py holds it.
    tables = {
        "HALF_COUNTS": half_counts, "HALF_PARENT": growth[:, 0].copy(), "HALF_VALUE": growth[:, 1].copy(),
        "HALF_DROP": growth[:, 2].copy(), "BLOCK_SIDE": block_side, "BLOCK_HALF": block_half,
        "BLOCK_VECTOR": block_vector, "BLOCK_LEN": block_len, "BLOCK_OUT": block_out,
        "BLOCK_SCALAR_AT": block_scalar_at, "BLOCK_VECTOR_AT": block_vector_at,
        "COLEX_TO_M": colex_to_m, "M_VALUES": m_values,
    }
    for table in tables.values():
        table.setflags(write=False)
    return tables


_T = _monomial_tables()
HALF_COUNTS = _T["HALF_COUNTS"]
HALF_PARENT, HALF_VALUE, HALF_DROP = _T["HALF_PARENT"], _T["HALF_VALUE"], _T["HALF_DROP"]
BLOCK_SIDE, BLOCK_HALF, BLOCK_VECTOR = _T["BLOCK_SIDE"], _T["BLOCK_HALF"], _T["BLOCK_VECTOR"]
BLOCK_LEN, BLOCK_OUT = _T["BLOCK_LEN"], _T["BLOCK_OUT"]
BLOCK_SCALAR_AT, BLOCK_VECTOR_AT = _T["BLOCK_SCALAR_AT"], _T["BLOCK_VECTOR_AT"]
COLEX_TO_M, M_VALUES = _T["COLEX_TO_M"], _T["M_VALUES"]
N_HALVES = HALF_COUNTS.shape[0]
N_BLOCKS = BLOCK_SIDE.shape[0]


@jit
def value_coefficients(out):
    """How many value sequences of each multiset give each base.

    Parameters
    ----------
    out : ndarray(int64, shape=(N_BASES, N_MONOMIALS))
        Zeroed output: ``out[base, m]`` counts the ordered point-value
        sequences (P1, B1, P2, B2, fifth, sixth card) with multiset ``m`` whose
        round ends in ``base``. Each row-sum over bases is the multinomial
        ``6! / prod(c_v!)`` of its multiset.
    """
    sorted_values = np.zeros(ROUND_CARDS, np.int64)
    for x0 in range(N_VALUES):
        for x1 in range(N_VALUES):
            for x2 in range(N_VALUES):
                for x3 in range(N_VALUES):
                    p = (x0 + x2) % 10
                    b = (x1 + x3) % 10
                    for x4 in range(N_VALUES):
                        for x5 in range(N_VALUES):
                            base = third_card_prefix(p, b, x4, x5)
                            sorted_values[0] = x0
                            sorted_values[1] = x1
                            sorted_values[2] = x2
                            sorted_values[3] = x3
                            sorted_values[4] = x4
                            sorted_values[5] = x5
                            for i in range(1, ROUND_CARDS):  # insertion sort of six values
                                v = sorted_values[i]
                                j = i - 1
                                while j >= 0 and sorted_values[j] > v:
                                    sorted_values[j + 1] = sorted_values[j]
                                    j -= 1
                                sorted_values[j + 1] = v
                            colex = 0
                            for i in range(ROUND_CARDS):
                                colex += BINOM[sorted_values[i] + i, i + 1]
                            out[base, COLEX_TO_M[colex]] += 1


@jit
def falling_halves(counts, halves):
    """The falling factorials of every half multiset (:data:`HALF_COUNTS`) of a shoe's point-value counts.

    Parameters
    ----------
    counts : ndarray(int64, shape=(10,))
        Cards left per point value.
    halves : ndarray(int64 or a float type, shape=(2 * N_HALVES,))
        Receives the low halves' products (values 0-4) then the high halves' (values 5-9), computed in the
        array's own type: exact in int64; in floating point a half of ``c`` cards is a product of at most ``c``
        roundings.
    """
    factors = np.empty((N_VALUES, ROUND_CARDS), halves.dtype)  # n_v - k in the halves' type (no mixed products)
    for v in range(N_VALUES):
        for k in range(ROUND_CARDS):
            factors[v, k] = counts[v] - k
    halves[0] = 1
    halves[N_HALVES] = 1
    for i in range(1, N_HALVES):  # one factor more than a half listed before it (HALF_PARENT)
        parent = HALF_PARENT[i]
        value = HALF_VALUE[i]
        drop = HALF_DROP[i]
        halves[i] = halves[parent] * factors[value, drop]
        halves[N_HALVES + i] = halves[N_HALVES + parent] * factors[SPLIT + value, drop]


@jit
def falling_monomials(counts, out):
    """The 5005 monomials ``FF(M)`` of a shoe's point-value counts.

    Parameters
    ----------
    counts : ndarray(int64, shape=(10,))
        Cards left per point value.
    out : ndarray(int64 or float32, shape=(N_MONOMIALS,))
        Receives ``FF(M)``: ordered draws of six cards whose values form ``M``
        (each at most ``N (N-1) ... (N-5)``, so no product overflows), computed in the array's own type: exact in
        int64; in floating point each is a product of at most 15 roundings (:mod:`baccarat_sim.kernels.screen`).
    """
    halves = np.empty(2 * N_HALVES, out.dtype)
    falling_halves(counts, halves)
    for b in range(N_BLOCKS):
        scalar = halves[BLOCK_SCALAR_AT[b]]
        length = BLOCK_LEN[b]
        # Views, so the compiler sees indices it knows are >= 0 (no negative-index wraparound) and vectorises.
        vector = halves[BLOCK_VECTOR_AT[b]:BLOCK_VECTOR_AT[b] + length]
        block = out[BLOCK_OUT[b]:BLOCK_OUT[b] + length]
        for t in range(length):
            block[t] = scalar * vector[t]


@jit
def value_dot(counts, rows, out):
    """Exact integer linear forms of the monomials: ``out[j] = rows[j] . FF``.

    Parameters
    ----------
    counts : ndarray(int64, shape=(10,))
        Cards left per point value.
    rows : ndarray(int64, shape=(k, N_MONOMIALS))
        Coefficients, e.g. class indicators (counts of sequences) of a bet's
        net results; ``|out[j]|`` must stay below ``2**63``.
    out : ndarray(int64, shape=(k,))
    """
    mono = np.empty(N_MONOMIALS, np.int64)
    falling_monomials(counts, mono)
    for j in range(rows.shape[0]):
        total = np.int64(0)
        for m in range(N_MONOMIALS):
            total += rows[j, m] * mono[m]
        out[j] = total


@jit(inline="always")
def _pair_sums(shoe):
    """``(N, suited, ranked)`` of a ``(13, 4)`` shoe.

    ``suited`` counts ordered suited pairs, sum m (m - 1) over rank-suit
    classes; ``ranked`` ordered pairs of equal rank, sum n (n - 1) over ranks.
    """
    n_cards = np.int64(0)
    suited = np.int64(0)
    ranked = np.int64(0)
    for r in range(13):
        n_r = np.int64(0)
        for s in range(4):
            m = shoe[r, s]
            n_r += m
            suited += m * (m - 1)
        n_cards += n_r
        ranked += n_r * (n_r - 1)
    return n_cards, suited, ranked


@jit
def pair_weights(shoe, out):
    """Ordered four-card draws by (Player pair, Banker pair) status, in closed form.

    Cards 1 and 3 form the Player's pair, 2 and 4 the Banker's; by
    exchangeability the joint law is that of two disjoint position pairs.
    Status 0: no pair, 1: pair of unequal suits, 2: suited ("perfect") pair.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        Cards left per rank and suit.
    out : ndarray(int64, shape=(3, 3))
        ``out[player_status, banker_status]``; sums to ``N (N-1) (N-2) (N-3)``.
    """
    n_cards, suited, ranked = _pair_sums(shoe)
    # Removing a pair of one class (or of one rank) lowers the other hand's
    # pair counts by 4 m - 6 (or 4 n - 6): (m - 2)(m - 3) = m (m - 1) - (4 m - 6).
    j_ss = np.int64(0)  # Player suited pair, Banker suited pair
    j_sr = np.int64(0)  # Player suited pair, Banker pair of any suits
    j_rr = np.int64(0)  # both pairs of any suits
    for r in range(13):
        n_r = np.int64(0)
        for s in range(4):
            n_r += shoe[r, s]
        for s in range(4):
            m = shoe[r, s]
            ways = m * (m - 1)
            j_ss += ways * (suited - 4 * m + 6)
            j_sr += ways * (ranked - 4 * n_r + 6)
        j_rr += n_r * (n_r - 1) * (ranked - 4 * n_r + 6)
    rest = (n_cards - 2) * (n_cards - 3)  # the other hand's ordered draws
    out[2, 2] = j_ss
    out[2, 1] = j_sr - j_ss
    out[1, 2] = j_sr - j_ss  # exchangeability: P(suited, pair) = P(pair, suited)
    out[1, 1] = j_rr - 2 * j_sr + j_ss
    out[2, 0] = suited * rest - j_sr
    out[0, 2] = out[2, 0]
    out[1, 0] = (ranked - suited) * rest - (j_rr - j_sr)
    out[0, 1] = out[1, 0]
    out[0, 0] = n_cards * (n_cards - 1) * rest - (
        out[2, 2] + 2 * out[2, 1] + out[1, 1] + 2 * out[2, 0] + 2 * out[1, 0]
    )


@jit
def first_card_weights(shoe, out):
    """Ordered (Player first card, Banker first card) draws by comparison, in closed form.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
    out : ndarray(int64, shape=(4,))
        Player higher, Banker higher, equal rank (unsuited), equal rank and
        suit; the first two are equal by symmetry and all sum to ``N (N-1)``.
    """
    n_cards, suited, ranked = _pair_sums(shoe)
    higher = (n_cards * (n_cards - 1) - ranked) // 2
    out[0] = higher
    out[1] = higher
    out[2] = ranked - suited
    out[3] = suited


@jit(inline="always")
def falling(n, k):
    """``n (n-1) ... (n-k+1)`` (0 when ``k > n >= 0``)."""
    product = np.int64(1)
    for i in range(k):
        product *= n - i
    return product


@jit(inline="always")
def _linear_form(rows, j, weights, largest, total):
    """``rows[j] . weights`` exactly, as ``(float, sign)``.

    ``largest`` bounds ``|rows[j, k]|`` and ``total`` the sum of the
    (non-negative) ``weights``, so ``|sum| <= largest * total``: below
    ``2**62`` the sum is plain int64 arithmetic (the common case); else it is
    summed on 128 bits (:mod:`baccarat_sim.kernels.wide`), exact for every
    int64 row and weights totalling below ``2**64``.
    """
    if largest * float(total) < 2.0**62:
        exact = np.int64(0)
        for k in range(weights.shape[0]):
            exact += rows[j, k] * weights[k]
        return float(exact), (1 if exact > 0 else (-1 if exact < 0 else 0))
    high, low = np.uint64(0), np.uint64(0)
    for k in range(weights.shape[0]):
        high, low = add_product(high, low, rows[j, k], weights[k])
    return wide_float(high, low), wide_sign(high, low)


@jit(inline="always")
def _largest(rows, j):
    """``max_k |rows[j, k]|`` as a float."""
    largest = 0.0
    for k in range(rows.shape[1]):
        largest = max(largest, abs(float(rows[j, k])))
    return largest


@jit
def solve_packed(shoe, counts, v_rows, v_scale, v_max, v_bet, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet,
                 ev_out, sign_out):
    """Exact EV of packed bets for one shoe composition.

    Each bet's pay table is packed as integer rows in units of ``1 / scale``:
    value bets as coefficients over the 5005 monomials, pair bets over the 9
    (Player, Banker) pair statuses, first-card bets over the 4 comparisons.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        Cards left per rank and suit (at most ``MAX_CARDS``, so that ``N (N-1) ... (N-5)`` fits in int64).
    counts : ndarray(int64, shape=(10,))
        The same cards per point value.
    v_rows, p_rows, f_rows : ndarray(int64, shape=(k, 5005) / (k, 9) / (k, 4))
        Scaled net result per monomial coefficient / pair status / comparison.
    v_scale, p_scale, f_scale : ndarray(int64, shape=(k,))
        The scale of each row (the lcm of its net results' denominators).
    v_max : ndarray(float64, shape=(k,))
        Largest absolute scaled net result of each value row: the numerator is
        at most ``v_max * N (N-1) ... (N-5)`` in absolute value.
    v_bet, p_bet, f_bet : ndarray(int64, shape=(k,))
        Index of each row's bet in ``ev_out``.
    ev_out : ndarray(float64, shape=(n_bets,))
        EV per unit staked.
    sign_out : ndarray(int64, shape=(n_bets,))
        Exact sign of the EV (-1, 0, 1).

    Notes
    -----
    Every numerator is a sum of products of a row entry (int64) and a weight
    (a monomial, a pair or first-card count: non-negative, int64), whose
    absolute values total at most ``v_max * N (N-1) ... (N-5)`` (``max |row| *
    N (N-1) (N-2) (N-3)``, ``max |row| * N (N-1)``): below ``2**126`` for any
    int64 row. A numerator that could pass ``2**62`` is summed on 128 bits, so
    every sign is exact, and the EV is its float (relative error about
    ``1e-16``). :meth:`~baccarat_sim.engines.composition.FastSolver.packed_arrays`
    packs only pay tables whose rows fit in int64.
    """
    n_cards = np.int64(0)
    for v in range(10):
        n_cards += counts[v]
    if v_rows.shape[0] > 0:
        mono = np.empty(N_MONOMIALS, np.int64)
        falling_monomials(counts, mono)
        total6 = falling(n_cards, 6)
        for j in range(v_rows.shape[0]):
            value_row_ev(v_rows, j, mono, v_scale, v_max, v_bet, total6, ev_out, sign_out)
    closed_form_evs(shoe, n_cards, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet, ev_out, sign_out)


@jit(inline="always")
def value_row_ev(v_rows, j, mono, v_scale, v_max, v_bet, total6, ev_out, sign_out):
    """Exact EV and sign of value row ``j`` from the shoe's monomials (``total6 = N (N-1) ... (N-5)``)."""
    numerator, sign = _linear_form(v_rows, j, mono, v_max[j], total6)
    ev_out[v_bet[j]] = numerator / (v_scale[j] * float(total6))
    sign_out[v_bet[j]] = sign


@jit(inline="always")
def closed_form_evs(shoe, n_cards, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet, ev_out, sign_out):
    """Exact EV and sign of every pair and first-card row (:func:`solve_packed`'s closed forms)."""
    if p_rows.shape[0] > 0:
        pairs = np.zeros((3, 3), np.int64)
        pair_weights(shoe, pairs)
        flat = pairs.reshape(9)
        total4 = falling(n_cards, 4)
        for j in range(p_rows.shape[0]):
            numerator, sign = _linear_form(p_rows, j, flat, _largest(p_rows, j), total4)
            ev_out[p_bet[j]] = numerator / (p_scale[j] * float(total4))
            sign_out[p_bet[j]] = sign
    if f_rows.shape[0] > 0:
        first = np.zeros(4, np.int64)
        first_card_weights(shoe, first)
        total2 = falling(n_cards, 2)
        for j in range(f_rows.shape[0]):
            numerator, sign = _linear_form(f_rows, j, first, _largest(f_rows, j), total2)
            ev_out[f_bet[j]] = numerator / (f_scale[j] * float(total2))
            sign_out[f_bet[j]] = sign
