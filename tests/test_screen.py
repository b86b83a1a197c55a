"""The counting kernel's float32 screen (kernels/screen.py): its error bound holds, and it never changes a decision.

Perfect play must bet exactly when the exact EV clears the bet's floor, and record exactly the EV solve_packed gives:
the screen may only skip bets whose exact EV is provably below the floor.
"""

from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim.engines.composition import FastSolver, value_counts
from baccarat_sim.engines.value_basis import multinomials, value_basis
from baccarat_sim.kernels import composition as fk
from baccarat_sim.kernels import screen
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.model.shoe import as_shoe

from .test_fast import BIG_PAYOUT, ONE_BET, depleted, limit_shoe

SHOES = [as_shoe(8), as_shoe(1), depleted(21, 300), depleted(22, 60), depleted(23, 14), depleted(24, 7),
         limit_shoe()]


def _arrays(rules):
    solver = FastSolver(rules)
    a = dict(solver.packed_arrays())
    basis, a["coefficients"], a["reach"] = value_basis(a["v_rows"])
    a["basis"] = basis.astype(np.float32)
    return solver, a


def _solve_both(a, shoe, floor):
    """(ev, sign) of solve_packed, and (ev, sign, solved) of solve_screened with ``floor``."""
    n = len(floor)
    counts = value_counts(shoe)
    ev, sign = np.zeros(n), np.zeros(n, np.int64)
    fk.solve_packed(shoe, counts, a["v_rows"], a["v_scale"], a["v_max"], a["v_bet"], a["p_rows"], a["p_scale"],
                    a["p_bet"], a["f_rows"], a["f_scale"], a["f_bet"], ev, sign)
    ev_s, sign_s, solved = np.full(n, np.nan), np.full(n, 7, np.int64), np.zeros(n, np.bool_)
    screen.solve_screened(shoe, counts, a["v_rows"], a["v_scale"], a["v_max"], a["v_bet"], a["p_rows"], a["p_scale"],
                          a["p_bet"], a["f_rows"], a["f_scale"], a["f_bet"], a["basis"], a["coefficients"],
                          screen.screen_margins(a["v_scale"], a["reach"]), np.asarray(floor, np.float64), ev_s,
                          sign_s, solved)
    return ev, sign, ev_s, sign_s, solved


@pytest.mark.parametrize("rules_id", ["live-8deck-side-bets", "common-variants", "ez-baccarat"])
@pytest.mark.parametrize("shoe_index", range(len(SHOES)))
def test_the_float32_estimate_is_within_its_bound(rules_id, shoe_index):
    shoe = SHOES[shoe_index]
    solver, a = _arrays(load_rules(rules_id))
    exact = solver.ev(shoe)
    estimate = np.zeros(len(a["v_bet"]))
    screen.value_estimates(value_counts(shoe), a["basis"], a["coefficients"], estimate)
    margin = screen.screen_margins(a["v_scale"], a["reach"])
    total = int(fk.falling(int(shoe.sum()), 6))
    for j, b in enumerate(a["v_bet"]):
        true = exact[solver.bet_ids[b]]
        error = abs(Fraction(estimate[j]) / (int(a["v_scale"][j]) * total) - true)
        assert error <= Fraction(margin[j]), solver.bet_ids[b]
        # The bound is useful: a bet's EV is told from zero to better than 0.1% of its reach.
        assert margin[j] <= 1e-4 * a["reach"][j] / a["v_scale"][j]


def test_the_basis_writes_every_row_exactly_and_reach_bounds_it():
    multinomial = multinomials()
    for rules_id in ("live-8deck-side-bets", "common-variants", "ez-baccarat", "default"):
        _, a = _arrays(load_rules(rules_id))
        rows, basis, coefficients, reach = a["v_rows"], a["basis"], a["coefficients"], a["reach"]
        assert basis.shape[0] < rows.shape[0]  # the point: fewer dot products than rows
        for j, row in enumerate(rows):
            combo = [Fraction(c).limit_denominator(10**6) for c in coefficients[j]]
            assert all(float(c) == coefficients[j, i] for i, c in enumerate(combo))
            exact = [combo[0] * int(t) + sum(c * int(b) for c, b in zip(combo[1:], column))
                     for t, column in zip(multinomial, basis.astype(np.int64).T)]
            assert exact == [int(v) for v in row]
            assert max(Fraction(abs(int(v)), int(t)) for v, t in zip(row, multinomial)) <= Fraction(reach[j])
    # live-8deck-side-bets: 11 rows on 7 (Player Natural and Banker Natural are one row).
    _, a = _arrays(load_rules("live-8deck-side-bets"))
    assert (a["v_rows"].shape[0], a["basis"].shape[0]) == (11, 7)


def test_rows_with_no_small_combination_are_their_own_basis():
    rng = np.random.default_rng(5)
    rows = rng.integers(-1000, 1000, size=(4, fk.N_MONOMIALS))
    rows = np.vstack([rows[:3], rows[0] * 3 - rows[1], rows[3]])  # one in the span of the others, one not
    basis, coefficients, reach = value_basis(rows)
    assert basis.shape[0] == 4 and np.array_equal(basis[:3], rows[:3]) and np.array_equal(basis[3], rows[4])
    assert list(coefficients[3]) == [0.0, 3.0, -1.0, 0.0, 0.0]


def _floors(ev_exact):
    """Floors around each bet's exact EV: at it, a hair either side, zero, and either infinity."""
    for shift in (0.0, 1e-12, -1e-12, 1e-6, -1e-6):
        yield [float(v) + shift for v in ev_exact]
    yield [0.0] * len(ev_exact)
    yield [-np.inf] * len(ev_exact)
    yield [np.inf] * len(ev_exact)
    yield [(-np.inf, 0.0, np.inf, float(v))[i % 4] for i, v in enumerate(ev_exact)]


def _decides(ev, sign, floor):
    """Perfect play as the counting kernel plays it (min_edge 0: the exact sign)."""
    return sign > 0 if floor == 0.0 else ev > floor


@pytest.mark.parametrize("rules_id", ["live-8deck-side-bets", "common-variants"])
@pytest.mark.parametrize("shoe_index", range(len(SHOES)))
def test_screened_decisions_and_evs_are_solve_packeds(rules_id, shoe_index):
    shoe = SHOES[shoe_index]
    solver, a = _arrays(load_rules(rules_id))
    exact = solver.ev(shoe)
    ev_exact = [exact[b] for b in solver.bet_ids]
    packed = set(a["v_bet"]) | set(a["p_bet"]) | set(a["f_bet"])  # the others have no fast solver
    for floor in _floors(ev_exact):
        ev, sign, ev_s, sign_s, solved = _solve_both(a, shoe, floor)
        for b, level in enumerate(floor):
            if solved[b]:
                assert ev_s[b] == ev[b] and sign_s[b] == sign[b]
            elif b in packed:
                assert level > -np.inf and ev_exact[b] < level and not _decides(ev[b], sign[b], level)
        assert not solved[a["v_bet"]][np.array(floor)[a["v_bet"]] == np.inf].any()
        assert solved[a["v_bet"]][np.array(floor)[a["v_bet"]] == -np.inf].all()


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_an_ev_of_exactly_zero_or_one_step_from_it_on_the_largest_shoe(delta):
    # The value payout of tests/test_fast.py's exact-sign test: EV = delta * g / T on the largest shoe, far inside
    # the screen's bound, so the exact form must decide.
    from math import gcd

    when = "player_score == 9 and banker_score == 0 and player_cards == 3"
    shoe = limit_shoe()
    weights = FastSolver(parse_rules(ONE_BET.format(when=when, pays="1:1"))).weights(shoe)["bet"]
    wins, total = weights[Fraction(1)], sum(weights.values())
    g = gcd(wins, total - wins)
    pays = Fraction(total - wins + delta * g, wins)
    solver, a = _arrays(parse_rules(ONE_BET.format(when=when, pays=f"{pays.numerator}:{pays.denominator}")))
    ev, sign, ev_s, sign_s, solved = _solve_both(a, shoe, [0.0])
    assert solved[0] and sign_s[0] == sign[0] == delta and ev_s[0] == ev[0]


@pytest.mark.parametrize("keep", [832, 400, 9])
def test_numerators_beyond_64_bits_are_screened_exactly(keep):
    solver, a = _arrays(parse_rules(BIG_PAYOUT))
    shoe = as_shoe(16) if keep == 832 else depleted(31, keep)
    ev_exact = [solver.ev(shoe)[b] for b in solver.bet_ids]
    for floor in _floors(ev_exact):
        ev, sign, ev_s, sign_s, solved = _solve_both(a, shoe, floor)
        for b, level in enumerate(floor):
            if solved[b]:
                assert ev_s[b] == ev[b] and sign_s[b] == sign[b]
            else:
                assert ev_exact[b] < level and not _decides(ev[b], sign[b], level)


def test_the_screen_skips_bets_far_below_their_floor_and_keeps_the_others():
    # A full 8-deck shoe: every value bet of the rule set has a negative EV, far from zero next to the bound.
    solver, a = _arrays(load_rules("live-8deck-side-bets"))
    exact = solver.ev(as_shoe(8))
    n = len(solver.bet_ids)
    ev, sign, ev_s, sign_s, solved = _solve_both(a, as_shoe(8), [0.0] * n)
    assert all(exact[solver.bet_ids[b]] < 0 for b in a["v_bet"])
    assert not solved[a["v_bet"]].any() and solved[a["p_bet"]].all()
    # A floor below the EV (min_edge = -0.5): nothing can be skipped.
    ev, sign, ev_s, sign_s, solved = _solve_both(a, as_shoe(8), [-0.5] * n)
    assert solved.all() and np.array_equal(ev_s, ev) and np.array_equal(sign_s, sign)
