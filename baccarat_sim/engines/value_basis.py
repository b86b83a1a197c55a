"""A rule set's value rows as exact combinations of a few: the counting kernel's screen sums fewer of them.

The counting kernel estimates every value bet's EV numerator ``rows[j] . FF``
in float32 each round (:mod:`baccarat_sim.kernels.screen`), and those dot
products over the 5005 monomials are its main cost. A rule set's value rows
are far from independent: Banker is a combination of Player, Tie and the
total ``T = multinomials . FF`` (every row sums the value sequences of each
multiset), Player Natural and Banker Natural are the same row, and so on
(live-8deck-side-bets: 11 rows, rank 8 with the total). :func:`value_basis`
picks a basis among the rows, the total first (its dot product is ``T``, known
without summing), and writes every row as an exact rational combination of
it, checked in integers on all 5005 monomials; the screen then sums only the
basis rows and combines. A row it cannot write exactly with small
denominators becomes a basis row itself, so the basis is always right, at
worst no smaller.

The error bound follows the rows through the combination: a basis row ``i``
is summed within ``g * w_i * T`` (``w_i = max_m |basis[i, m]| /
multinomial(m)``, the kernel's bound with ``w_i`` for ``v_max``), so row ``j =
sum_i c_ji basis_i + c_j0 total`` is within ``g * reach_j * T``, ``reach_j =
sum_i |c_ji| w_i + |c_j0|`` (the float64 rounding of the coefficients and of
their sum costs far less than the margin the kernel leaves). ``reach_j`` also
bounds ``|rows[j, m]| / multinomial(m)``, hence the row's exact EV.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ..kernels.composition import M_VALUES

__all__ = ["multinomials", "value_basis"]

#: Largest denominator of a combination coefficient tried (bet rows combine with the lcm of a few payout scales).
MAX_DENOMINATOR = 10**6


@functools.lru_cache(maxsize=1)
def multinomials() -> np.ndarray:
    """``6! / prod(c_v!)`` of every monomial: value sequences per multiset, ``ndarray(int64, shape=(5005,))``."""
    table = np.array([math.factorial(6) // math.prod(math.factorial(list(m).count(v)) for v in set(m))
                     for m in M_VALUES.tolist()], np.int64)
    table.setflags(write=False)
    return table


def _in_span(basis: list[np.ndarray], row: np.ndarray) -> list[Fraction] | None:
    """Exact coefficients writing ``row`` in ``basis`` (int64 rows), or None.

    The coefficients come from a float least-squares solve, rounded to fractions of small denominators; they count
    only if the combination is checked equal to the row, entry by entry, in integers (int64 where no sum can pass
    ``2**62``, Python integers otherwise).
    """
    matrix = np.array(basis, np.float64).T
    target = row.astype(np.float64)
    approx, *_ = np.linalg.lstsq(matrix, target, rcond=None)
    if not np.all(np.isfinite(approx)) or np.abs(matrix @ approx - target).max() > 1e-6 * (1 + np.abs(target).max()):
        return None
    coefficients = [Fraction(float(c)).limit_denominator(MAX_DENOMINATOR) for c in approx]
    common = math.lcm(*(c.denominator for c in coefficients))
    numerators = [int(c * common) for c in coefficients]
    largest = common * int(np.abs(row).max()) + sum(abs(n) * int(np.abs(b).max()) for n, b in zip(numerators, basis))
    if largest < 2**62:
        return coefficients if np.array_equal(np.array(numerators, np.int64) @ np.array(basis), row * common) else None
    combined = sum((n * b.astype(object) for n, b in zip(numerators, basis)), np.zeros(len(row), object))
    return coefficients if np.array_equal(combined, row.astype(object) * common) else None


def value_basis(v_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A basis of the value rows and every row's exact combination of it.

    Parameters
    ----------
    v_rows : ndarray(int64, shape=(k, 5005))
        :meth:`~baccarat_sim.engines.composition.FastSolver.packed_arrays`' value rows.

    Returns
    -------
    basis : ndarray(int64, shape=(r, 5005))
        Rows of ``v_rows`` (the total, whose dot product is ``T``, is the implicit first basis vector).
    coefficients : ndarray(float64, shape=(k, r + 1))
        ``v_rows[j] = coefficients[j, 0] * multinomials + coefficients[j, 1:] . basis``, exactly in the rationals
        the floats round.
    reach : ndarray(float64, shape=(k,))
        ``sum_i |c_ji| w_i + |c_j0|``, rounded up (see the module notes).
    """
    total = multinomials()
    basis = [total]
    weight = [1.0]  # w_i: largest |entry| / multinomial, rounded up
    combos = []
    for row in v_rows:
        found = _in_span(basis, row)
        if found is None:
            basis.append(row)
            # Each ratio is within two roundings of its exact value: 2**-50 more bounds it from above.
            weight.append(float(np.max(np.abs(row.astype(np.float64)) / total)) * (1 + 2.0**-50))
            found = [Fraction(0)] * (len(basis) - 1) + [Fraction(1)]
        combos.append(found)
    width = len(basis)
    coefficients = np.zeros((len(v_rows), width))
    reach = np.zeros(len(v_rows))
    for j, found in enumerate(combos):
        coefficients[j, :len(found)] = [float(c) for c in found]
        exact_reach = sum((abs(c) * Fraction(w) for c, w in zip(found, weight)), Fraction(0))
        reach[j] = np.nextafter(float(exact_reach), np.inf)
    rows = np.array(basis[1:], np.int64).reshape(width - 1, v_rows.shape[1])
    return rows, coefficients, reach
