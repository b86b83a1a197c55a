"""The composition-aware fast solver agrees exactly with the full exact engine (issue 7)."""

import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim.analysis.settlement import settle, settle_bet
from baccarat_sim.engines.composition import (
    FastSolver,
    first_card_histogram,
    pair_histogram,
    value_counts,
    value_histogram,
)
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.kernels import composition as fk
from baccarat_sim.model.rules import available_rules, load_rules, parse_rules
from baccarat_sim.model.shoe import MAX_CARDS, as_shoe


def depleted(seed, keep):
    """An 8-deck shoe with all but ``keep`` cards removed at random (suits end up uneven)."""
    rng = np.random.default_rng(seed)
    shoe = as_shoe(8)
    cards = np.repeat(np.arange(52), shoe.ravel())
    kept = rng.choice(cards, size=keep, replace=False)
    return np.bincount(kept, minlength=52).reshape(13, 4).astype(np.int64)


# Full shoes, deep and shallow random depletions, a shoe with no tens or nines (a point value at zero count),
# and the smallest shoes (the falling factorials hit zero).
SHOES = [
    pytest.param(as_shoe(8), id="8-decks"),
    pytest.param(as_shoe(1), id="1-deck"),
    pytest.param(depleted(1, 300), id="300-left"),
    pytest.param(depleted(2, 60), id="60-left"),
    pytest.param(depleted(3, 9), id="9-left"),
    pytest.param(depleted(4, 6), id="6-left"),
]


def no_tens_or_nines():
    shoe = as_shoe(2).copy()
    shoe[8:, :] = 0  # 9, 10, J, Q, K gone: point values 9 and 0 are empty
    return shoe


@pytest.mark.parametrize("shoe", SHOES + [pytest.param(no_tens_or_nines(), id="no-9-or-0")])
def test_marginals_equal_the_exact_engine(shoe):
    hist = exact_histogram(shoe)
    n = int(shoe.sum())
    grid = hist.counts.reshape(400, 3, 3, 4)
    assert np.array_equal(value_histogram(shoe), grid.sum(axis=(1, 2, 3)))
    # The exact engine counts six-card orderings: the closed forms count four (pairs) and two (first cards).
    assert np.array_equal(pair_histogram(shoe) * (n - 4) * (n - 5), grid.sum(axis=(0, 3)))
    assert np.array_equal(first_card_histogram(shoe) * math.perm(n - 2, 4), grid.sum(axis=(0, 1, 2)))


# Not the side-bet catalogue (catalogue-*.toml, test_catalogue.py): its card-level bets are priced by the card solver,
# checked against the exact engine in tests/test_card_solver.py.
@pytest.mark.parametrize("name", [n for n in available_rules() if not n.startswith("catalogue-")])
def test_every_shipped_bet_settles_exactly_as_the_exact_engine(name):
    rules = load_rules(name)
    solver = FastSolver(rules)
    for shoe in (as_shoe(rules.shoe.decks), depleted(zlib.crc32(name.encode()) % 1000, 150)):
        expected = {r.id: r.ev_exact for r in settle(exact_histogram(shoe), rules)}
        assert solver.ev(shoe) == expected
        ev, sign = solver.ev_array(shoe)
        for i, bet_id in enumerate(solver.bet_ids):
            assert ev[i] == pytest.approx(float(expected[bet_id]), rel=1e-12, abs=1e-15)
            assert sign[i] == (expected[bet_id] > 0) - (expected[bet_id] < 0)


MIXED = """
schema_version = 1
id = "mixed"
[[bets]]
id = "player_pair_and_win"
pays = [{ when = "player_pair and winner == player", pays = "20:1" }]
otherwise = "lose"
[[bets]]
id = "dragon_even"
pays = [{ when = "first_card == player_high", pays = "1:1" }, { when = "first_card_tie", pays = "push" }]
otherwise = "lose"
[[bets]]
id = "pairs_table"
pays = [
  { when = "player_perfect_pair and banker_perfect_pair", pays = "200:1" },
  { when = "player_pair and banker_pair and not (player_perfect_pair and banker_perfect_pair)", pays = "40:1" },
  { when = "(player_perfect_pair or banker_perfect_pair) and not (player_pair and banker_pair)", pays = "20:1" },
  { when = "ONE_PLAIN_PAIR", pays = "5:1" },
]
otherwise = "lose"
""".replace("ONE_PLAIN_PAIR", "any_pair and not (player_pair and banker_pair) and not (player_perfect_pair or "
            "banker_perfect_pair)")


def test_kinds_and_the_general_fallback():
    rules = parse_rules(MIXED)
    solver = FastSolver(rules)
    # A pay table mixing pairs and scores has no closed form: it falls back to the full engine, still exactly.
    assert solver.kinds == {"player_pair_and_win": "general", "dragon_even": "first_card", "pairs_table": "pairs"}
    assert solver.general == ("player_pair_and_win",)
    shoe = depleted(7, 120)
    assert solver.ev(shoe) == {r.id: r.ev_exact for r in settle(exact_histogram(shoe), rules)}
    ev, sign = solver.ev_array(shoe)
    # Dragon with equal ranks pushed is exactly even for any shoe (the two first cards are exchangeable).
    assert ev[1] == 0.0 and sign[1] == 0


BIG_PAYOUT = """
schema_version = 1
id = "big"
[[bets]]
id = "nine_over_zero"
pays = [{ when = "player_score == 9 and banker_score == 0 and player_cards == 3", pays = "5000:1" }]
otherwise = "lose"
[[bets]]
id = "player"
pays = [{ when = "winner == player", pays = "1:1" }, { when = "winner == tie", pays = "push" }]
otherwise = "lose"
"""


@pytest.mark.parametrize("keep", [832, 400])
def test_numerators_beyond_64_bits_keep_an_exact_sign(keep):
    # 16 decks and a 5000:1 payout: |numerator| can pass 2**62, the kernel's wrapped-integer + float path.
    rules = parse_rules(BIG_PAYOUT)
    shoe = as_shoe(16) if keep == 832 else depleted(11, keep)
    solver = FastSolver(rules)
    assert solver.packed_arrays()["v_max"][0] * math.perm(int(shoe.sum()), 6) > 2**62 or keep != 832
    expected = solver.ev(shoe)
    assert expected == {r.id: r.ev_exact for r in settle(exact_histogram(shoe), rules.with_shoe(decks=16))}
    ev, sign = solver.ev_array(shoe)
    for i, bet_id in enumerate(solver.bet_ids):
        assert ev[i] == pytest.approx(float(expected[bet_id]), rel=1e-12)
        assert sign[i] == (expected[bet_id] > 0) - (expected[bet_id] < 0)


ONE_BET = """
schema_version = 1
id = "one-bet"
[[bets]]
id = "bet"
pays = [{{ when = "{when}", pays = "{pays}" }}]
otherwise = "lose"
"""


def limit_shoe() -> np.ndarray:
    """A shoe of MAX_CARDS cards (27 decks and 46 more, suits uneven): the largest validation accepts."""
    shoe = np.full((13, 4), 27, np.int64)
    shoe[0, :] += 6
    shoe[12, :] += 5
    shoe[5, :2] += 1
    assert shoe.sum() == MAX_CARDS
    return shoe


def test_issue20_player_pair_paying_99999_999_to_1_on_27_decks():
    # The issue's reproducer: the pair path's int64 numerator overflowed (-1909.81 with sign -1, exact +7625.59), and
    # the counting kernel played perfect play by that sign.
    rules = parse_rules(ONE_BET.format(when="player_pair", pays="99999.999:1"))
    shoe = as_shoe(np.full((13, 4), 27))
    solver = FastSolver(rules)
    assert solver.kinds == {"bet": "pairs"}
    exact = settle_bet(exact_histogram(shoe), rules.bet("bet"), rules).ev_exact
    assert solver.ev(shoe) == {"bet": exact} and round(float(exact), 2) == 7625.59
    ev, sign = solver.ev_array(shoe)
    assert sign[0] == 1 and ev[0] == pytest.approx(float(exact), rel=1e-12)


@pytest.mark.parametrize("when, kind", [
    ("player_pair", "pairs"),
    ("banker_perfect_pair", "pairs"),
    ("first_card == player_high", "first_card"),
    ("player_score == 9 and banker_score == 0 and player_cards == 3", "value"),
])
@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_exact_signs_at_the_largest_shoe(when, kind, delta):
    # A payout that makes the EV exactly delta * g / (ordered draws) on the largest shoe (g the gcd of the wins and
    # the losses, so that the payout's denominator stays packable): every numerator is far beyond 64 bits in its
    # partial sums, and the sign must still be exact (0 included).
    shoe = limit_shoe()
    weights = FastSolver(parse_rules(ONE_BET.format(when=when, pays="1:1"))).weights(shoe)["bet"]
    wins, total = weights[Fraction(1)], sum(weights.values())
    g = math.gcd(wins, total - wins)
    pays = Fraction(total - wins + delta * g, wins)
    rules = parse_rules(ONE_BET.format(when=when, pays=f"{pays.numerator}:{pays.denominator}"))
    solver = FastSolver(rules)
    assert solver.kinds == {"bet": kind}
    expected = solver.ev(shoe)["bet"]
    assert expected == Fraction(delta * g, total)
    ev, sign = solver.ev_array(shoe)
    assert sign[0] == delta
    assert ev[0] == pytest.approx(float(expected), rel=1e-12, abs=0)
    if kind == "value":  # the 128-bit path of the value rows was taken
        assert solver.packed_arrays()["v_max"][0] * math.perm(MAX_CARDS, 6) > 2**62


@pytest.mark.parametrize("when, pays", [
    ("winner == tie", "99999.999999999:1"),
    ("player_pair", "99999.999999999:1"),
    ("first_card == tie", "99999.999999999:1"),
    # 35 decimals: the nets in integer units pass 64 bits, so the bet is settled on the full histogram instead.
    ("player_pair", "11.00000000000000000000000000000000001:1"),
    ("winner == tie", "8.00000000000000000000000000000000001:1"),
])
def test_largest_payouts_on_the_largest_shoe_agree_with_fractions(when, pays):
    rules = parse_rules(ONE_BET.format(when=when, pays=pays))
    shoe = limit_shoe()
    solver = FastSolver(rules)
    expected = solver.ev(shoe)["bet"]
    assert expected == settle_bet(exact_histogram(shoe), rules.bet("bet"), rules).ev_exact
    ev, sign = solver.ev_array(shoe)
    assert sign[0] == (expected > 0) - (expected < 0)
    assert ev[0] == pytest.approx(float(expected), rel=1e-12)
    assert (solver.kinds["bet"] == "general") == ("0000000001" in pays)


def test_coefficient_rows_are_multinomials():
    from baccarat_sim.engines.composition import _coefficients

    table = _coefficients()
    multiplicity = [math.factorial(6) // math.prod(math.factorial(list(m).count(v)) for v in set(m))
                    for m in fk.M_VALUES]
    # Every value sequence of a multiset lands in exactly one base.
    assert np.array_equal(table.sum(axis=0), multiplicity)
    assert table.sum() == 10**6


def test_monomials_are_falling_factorial_products():
    counts = value_counts(depleted(5, 200))
    mono = np.empty(fk.N_MONOMIALS, np.int64)
    fk.falling_monomials(counts, mono)
    for m in (0, 17, 1234, 4000, fk.N_MONOMIALS - 1):
        values = fk.M_VALUES[m]
        expected = math.prod(math.perm(int(counts[v]), int(np.sum(values == v))) for v in set(values.tolist()))
        assert mono[m] == expected
    assert fk.multiset_index([9] * 6) == fk.N_MONOMIALS - 1



def test_monomial_blocks_cover_every_multiset_once():
    # What the module once asserted at import: the blocks' monomials are the 5005 multisets, each once.
    np.testing.assert_array_equal(np.sort(fk.COLEX_TO_M), np.arange(fk.N_MONOMIALS))
    assert len({tuple(row) for row in fk.M_VALUES.tolist()}) == fk.N_MONOMIALS
    assert all(fk.COLEX_TO_M[fk.multiset_index(row)] == m for m, row in enumerate(fk.M_VALUES.tolist()))


@pytest.mark.parametrize("kernel, shape", [(fk.pair_weights, (3, 3)), (fk.first_card_weights, (4,))])
def test_closed_forms_compiled_and_uncompiled_agree(kernel, shape):
    shoe = depleted(9, 77)
    compiled, python = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    kernel(shoe, compiled)
    kernel.py_func(shoe, python)
    assert np.array_equal(compiled, python)


def test_player_pair_closed_form_by_hand():
    # One deck: P(player pair) = 13 * 4 * 3 / (52 * 51) = 1/17.
    pairs = pair_histogram(1)
    assert Fraction(int(pairs[1:, :].sum()), int(pairs.sum())) == Fraction(1, 17)
    # Suited pairs need two copies of a card: impossible in one deck.
    assert pairs[2, :].sum() == 0 and pairs[:, 2].sum() == 0
