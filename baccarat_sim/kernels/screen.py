"""Which bets need their exact EV this round: the value rows estimated in float32, exact only where it can matter.

Perfect play bets when the exact EV of the next round is positive (or above a
``min_edge``), and in most rounds most bets are far from that: the exact
integer forms of :func:`baccarat_sim.kernels.composition.solve_packed` (5005
int64 products per value bet and round, the counting kernel's main cost) decide
nothing that a cheaper estimate with a proven error bound cannot.
:func:`solve_screened` therefore estimates each value row and runs the exact
form only for the rows whose bet may clear its floor; those get the EV and
sign :func:`solve_packed` gives, so every decision, and every EV recorded for
a bet placed, is the same bit for bit.

The estimate. A rule set's value rows are exact rational combinations of a
few of them and of the total row (:func:`baccarat_sim.engines.value_basis.value_basis`:
live-8deck-side-bets' 11 rows need 7 dot products): the basis rows are summed
in float32 against the float32 monomials and combined in float64
(:func:`value_estimates`).

The bound. Write ``S_i = basis[i] . FF`` for a basis row's exact numerator,
``T = N (N-1) ... (N-5)``, ``u = 2**-24`` (float32) and ``g(k) = k u / (1 - k
u)``. In float32 a monomial ``FF(M)`` carries at most 15 roundings
(:func:`~baccarat_sim.kernels.composition.falling_monomials`); a term adds one
for the row entry and one for the product, and the terms are summed in chunks
of ``CHUNK`` in float32 (any order: ``reassoc`` lets the compiler vectorise),
so each term carries at most ``CHUNK + 16`` float32 roundings; the chunk sums
are then added in float64, which costs far less. So ``|S^_i - S_i| <= g(CHUNK
+ 18) sum_m |basis[i, m]| FF(M) <= g(CHUNK + 18) w_i T``, where ``w_i`` bounds
``|basis[i, m]| / multinomial(M)`` and ``sum_m multinomial(M) FF(M) = T`` (a
row is a bet's scaled nets summed over the value sequences of each multiset).
Row ``j = c_j0 total + sum_i c_ji basis_i`` is then within ``g(CHUNK + 18)
reach_j T`` (``reach_j = |c_j0| + sum_i |c_ji| w_i``; the float64 rounding of
the coefficients and of the combination costs far less). The estimate ``ev^ =
S^ / (scale T)`` (three float64 roundings more) and the kernel's own ``ev =
float(S) / (scale T)`` (within ``g64(6) |ev|``, and ``|ev| <= reach / scale``)
are then both within ``delta = EPSILON * reach / scale`` of the exact EV,
``EPSILON = 2 (CHUNK + 20) u`` leaving a factor of two to spare. A row is
skipped when ``ev^ + 4 delta <= floor``: that sum's own rounding is far below
``delta``, so the exact EV and the kernel's ``ev`` are then both below the
floor; perfect play (``sign > 0`` for a zero floor, ``ev > floor`` otherwise)
would not bet. A NaN estimate (fewer than six cards) skips nothing. No float32
value can overflow: a packed row has ``|entries| <= 720 v_max < 2**63`` and
``T < 2**63``, so every term and sum stays below ``2**126``.
"""

from __future__ import annotations

import numpy as np

from .composition import (
    N_MONOMIALS,
    closed_form_evs,
    falling,
    falling_monomials,
    value_row_ev,
)
from .jit import jit

#: Terms summed in float32 before the sum goes to float64 (64: the chunk is a few vector registers, the bound small).
CHUNK = 64
#: Relative error allowance of a value row's float32 estimate (see the module notes).
EPSILON = 2 * (CHUNK + 20) * 2.0**-24
_FULL = N_MONOMIALS - N_MONOMIALS % CHUNK


@jit
def screen_margins(v_scale, reach):
    """``delta`` of every value row (EV units): its estimate and the exact EV differ by less.

    ``reach`` bounds ``|rows[j, m]| / multinomial(m)`` and the row's combination of the basis
    (:func:`baccarat_sim.engines.value_basis.value_basis`); a row's ``v_max`` is such a bound when it is its own.
    """
    margin = np.empty(v_scale.shape[0])
    for j in range(v_scale.shape[0]):
        margin[j] = EPSILON * reach[j] / v_scale[j]
    return margin


@jit(fastmath={"reassoc", "contract"})
def value_forms_float(rows, wanted, mono, out):
    """``out[j] ~ rows[j] . mono`` for each row with ``wanted[j]``: float32 chunks of ``CHUNK`` terms, float64 total.

    Parameters
    ----------
    rows : ndarray(float32, shape=(k, N_MONOMIALS))
    wanted : ndarray(bool, shape=(k,))
        Rows to estimate (the others are left as they are).
    mono : ndarray(float32, shape=(N_MONOMIALS,))
        :func:`~baccarat_sim.kernels.composition.falling_monomials` in float32.
    out : ndarray(float64, shape=(k,))
    """
    for j in range(rows.shape[0]):
        if not wanted[j]:
            continue
        row = rows[j]
        total = 0.0
        for start in range(0, _FULL, CHUNK):
            coefficients = row[start:start + CHUNK]  # views: indices the compiler knows are >= 0
            terms = mono[start:start + CHUNK]
            chunk = np.float32(0.0)
            for t in range(CHUNK):
                chunk += coefficients[t] * terms[t]
            total += chunk
        chunk = np.float32(0.0)
        for t in range(_FULL, N_MONOMIALS):
            chunk += row[t] * mono[t]
        out[j] = total + chunk


@jit
def value_estimates(counts, basis, coefficients, out):
    """Every value row's numerator ``rows[j] . FF``, estimated: the basis rows in float32, combined in float64.

    Parameters
    ----------
    counts : ndarray(int64, shape=(10,))
        Cards left per point value.
    basis, coefficients
        As :func:`solve_screened` reads them.
    out : ndarray(float64, shape=(k,))
        Within ``EPSILON * reach[j] * T`` of the exact numerators (the module notes).
    """
    n_cards = np.int64(0)
    for v in range(10):
        n_cards += counts[v]
    total = float(falling(n_cards, 6))
    sums = np.empty(basis.shape[0])
    if basis.shape[0] > 0:
        mono = np.empty(N_MONOMIALS, np.float32)
        falling_monomials(counts, mono)
        value_forms_float(basis, np.ones(basis.shape[0], np.bool_), mono, sums)
    for j in range(coefficients.shape[0]):
        estimate = coefficients[j, 0] * total
        for i in range(basis.shape[0]):
            estimate += coefficients[j, i + 1] * sums[i]
        out[j] = estimate


@jit
def solve_screened(shoe, counts, v_rows, v_scale, v_max, v_bet, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet,
                   basis, coefficients, v_margin, floor, ev_out, sign_out, solved_out):
    """Exact EV and sign of every packed bet whose EV may exceed its floor, as :func:`solve_packed` gives them.

    Parameters
    ----------
    shoe, counts, v_rows, v_scale, v_max, v_bet, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet
        As :func:`baccarat_sim.kernels.composition.solve_packed` reads them.
    basis : ndarray(float32, shape=(r, 5005))
        The basis rows of :func:`baccarat_sim.engines.value_basis.value_basis`, as float32.
    coefficients : ndarray(float64, shape=(k, r + 1))
        Each value row's combination: ``coefficients[j, 0]`` times the total ``T``, plus the basis rows'.
    v_margin : ndarray(float64, shape=(k,))
        :func:`screen_margins` of the value rows.
    floor : ndarray(float64, shape=(n_bets,))
        Per value bet: solve it unless its exact EV is provably below this (``-inf``: always, ``+inf``: never).
        Pair and first-card bets (closed forms, a few products) are always solved.
    ev_out, sign_out : ndarray(float64 / int64, shape=(n_bets,))
        Written for the bets solved only, with :func:`solve_packed`'s values.
    solved_out : ndarray(bool, shape=(n_bets,))
        Whether each bet was solved; a bet that was not has an exact EV below its floor.
    """
    solved_out[:] = False
    n_cards = np.int64(0)
    for v in range(10):
        n_cards += counts[v]
    n_value = v_rows.shape[0]
    if n_value > 0:
        any_screened = False
        any_needed = False
        for j in range(n_value):
            level = floor[v_bet[j]]
            any_screened = any_screened or -np.inf < level < np.inf  # a finite floor: estimate first
            any_needed = any_needed or level < np.inf
        if any_needed:
            total6 = falling(n_cards, 6)
            estimate = np.empty(n_value)
            if any_screened:
                value_estimates(counts, basis, coefficients, estimate)
            mono = np.empty(N_MONOMIALS, np.int64)
            have_mono = False
            for j in range(n_value):
                b = v_bet[j]
                level = floor[b]
                if level == np.inf:
                    continue
                if level > -np.inf and estimate[j] / (v_scale[j] * float(total6)) + 4.0 * v_margin[j] <= level:
                    continue  # the exact EV is below the floor: nothing to decide
                if not have_mono:
                    falling_monomials(counts, mono)
                    have_mono = True
                value_row_ev(v_rows, j, mono, v_scale, v_max, v_bet, total6, ev_out, sign_out)
                solved_out[b] = True
    closed_form_evs(shoe, n_cards, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet, ev_out, sign_out)
    for j in range(p_bet.shape[0]):
        solved_out[p_bet[j]] = True
    for j in range(f_bet.shape[0]):
        solved_out[f_bet[j]] = True
