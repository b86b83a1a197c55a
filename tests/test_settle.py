"""Settlement of bets and bet slips, table limits, breakdown tables, commission rounding (issue 3, deliverable 4)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim.analysis.joint import covariance, settle_slip
from baccarat_sim.analysis.settlement import net_vector, settle, settle_bet
from baccarat_sim.analysis.table_limits import check_limits
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.errors import LimitError
from baccarat_sim.model.codes import N_CODES
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import Commission, load_rules, parse_rules
from baccarat_sim.tables import breakdown, commission_table


@pytest.fixture(scope="module")
def h8():
    return exact_histogram(8)


@pytest.fixture(scope="module")
def h6():
    return exact_histogram(6)


@pytest.fixture(scope="module")
def mc_like():
    # An arbitrary Monte Carlo-like histogram (round counts): settlement must not assume exact weights.
    rng = np.random.default_rng(20240607)
    counts = np.zeros(N_CODES, np.int64)
    support = np.flatnonzero(exact_histogram(8).counts)
    counts[support] = rng.integers(0, 50, len(support))
    return OutcomeHistogram(counts=counts, engine="mc", model="fresh", shoe=np.full((13, 4), 8), seed=1,
                            rounds=int(counts.sum()))


def brute_slip(hist, rules, stakes):
    """EV, SD and hit frequency of a slip from per-code float nets: no grouping, no fractions."""
    combined = sum(stake * net_vector(rules.bet(bet_id), rules) for bet_id, stake in stakes.items())
    p = hist.counts / hist.total
    ev = float(p @ combined)
    return ev, math.sqrt(float(p @ (combined - ev) ** 2)), float(p[combined > 1e-12].sum())


@pytest.mark.parametrize("stakes", [{"player": 5, "banker": 7}, {"banker": 10, "tie": 1},
                                    {"player_pair": 1, "banker_pair": 1, "any_pair": 2, "perfect_pair": 1},
                                    {"player_bonus": 3, "banker_bonus": 3, "lucky_six": 1, "tie": 1}])
@pytest.mark.parametrize("which", ["h8", "mc_like"])
def test_slip_matches_a_per_outcome_brute_force(request, which, stakes):
    hist = request.getfixturevalue(which)
    rules = load_rules("live-8deck-side-bets")
    slip = settle_slip(hist, rules, stakes)
    ev, sd, hit = brute_slip(hist, rules, stakes)
    assert slip.ev == pytest.approx(ev, rel=1e-12, abs=1e-15)
    assert slip.sd == pytest.approx(sd, rel=1e-9)
    assert slip.hit_frequency == pytest.approx(hit, rel=1e-12)
    assert sum(p for _, p in slip.distribution) == pytest.approx(1.0, rel=1e-15)
    assert slip.total_stake == sum(stakes.values())
    # The variance is the quadratic form of the stakes in the covariance matrix.
    s = np.array([stakes[b] for b in slip.covariance.bet_ids], float)
    assert s @ slip.covariance.matrix @ s == pytest.approx(slip.sd**2, rel=1e-9)


def test_slip_ev_is_exact_and_additive(h8):
    rules = load_rules("live-8deck-side-bets")
    stakes = {"banker": 3, "tie": 1, "lucky_six": 2}
    slip = settle_slip(h8, rules, stakes)
    singles = {bet_id: settle_bet(h8, rules.bet(bet_id), rules).ev_exact for bet_id in stakes}
    assert slip.ev_exact == sum(stake * singles[bet_id] for bet_id, stake in stakes.items())
    assert slip.rtp == pytest.approx(1 + float(slip.ev_exact) / 6)


def test_player_and_banker_hedge_each_other(h8):
    rules = load_rules("default")
    cov = covariance(h8, rules)
    assert cov("player", "banker") < 0  # opposite sides move against each other
    assert np.allclose(cov.matrix, cov.matrix.T)
    hedge = settle_slip(h8, rules, {"player": 1, "banker": 1})
    alone = [settle_bet(h8, rules.bet(b), rules).sd for b in ("player", "banker")]
    # Independent bets would give sqrt(0.95^2 + 0.93^2) = 1.3; covariance leaves only the 5% commission.
    assert hedge.sd < 0.1 < math.hypot(*alone)
    # A Player win or a Tie breaks even; a Banker win loses the 5% commission.
    player, tie = (settle_bet(h8, rules.bet(b), rules).hit_frequency for b in ("player", "tie"))
    assert hedge.hit_frequency == 0
    assert hedge.push_frequency == pytest.approx(player + tie, rel=1e-15)
    assert [float(v) for v, _ in hedge.distribution] == [-0.05, 0.0]


def test_single_bet_slip_equals_the_bet(h8):
    rules = load_rules("live-8deck-side-bets")
    for bet_id in rules.bet_ids:
        one = settle_bet(h8, rules.bet(bet_id), rules)
        slip = settle_slip(h8, rules, {bet_id: 1})
        assert slip.ev_exact == one.ev_exact
        assert slip.sd == pytest.approx(one.sd, rel=1e-12)
        assert slip.hit_frequency == pytest.approx(one.hit_frequency, rel=1e-12)
        assert slip.covariance(bet_id, bet_id) == pytest.approx(one.sd**2, rel=1e-12)


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize("stakes, limit", [
    ({"tie": 16}, "limits.max_bet.tie: a stake of 16 on tie is over the limit of 15x the minimum bet (15)"),
    ({"player": 71}, "limits.max_bet.player"),
    ({"banker": 70.5}, "limits.max_bet.banker"),
    ({"player": 10, "banker": 10}, "limits.equal_player_banker: the same amount (10) may not be staked on Player"),
    ({"player": 10, "banker": 10.5}, "limits.player_banker_min_difference: the Player and Banker stakes must differ "
                                     "by at least 1, got 10 and 10.5"),
    ({"tie": 0.5}, "limits.min_bet: a stake of 0.5 on tie is below the minimum bet (1)"),
    ({"dragon": 1}, "stakes.dragon: no such bet in rng-6deck-single-hand"),
    ({"tie": -1}, "stakes.tie: a stake must be >= 0"),
    ({"tie": "lots"}, "stakes.tie: a stake must be a number"),
    ({"tie": 0}, "stakes: every stake is 0"),
    ({}, "stakes: give at least one bet id"),
])
def test_rng_6deck_limits_name_the_limit_broken(stakes, limit):
    with pytest.raises(LimitError) as info:
        check_limits(load_rules("rng-6deck-single-hand"), stakes)
    assert limit in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("stakes", [{"player": 70, "banker": 69}, {"tie": 15}, {"player": 1, "tie": 1},
                                    {"player": 10, "banker": 11, "tie": 15}])
def test_rng_6deck_limits_accept_legal_slips(h6, stakes):
    rules = load_rules("rng-6deck-single-hand")
    assert check_limits(rules, stakes) == {k: Fraction(v) for k, v in stakes.items()}
    assert settle_slip(h6, rules, stakes).total_stake == sum(stakes.values())


def test_slip_is_checked_unless_asked_not_to(h6):
    rules = load_rules("rng-6deck-single-hand")
    with pytest.raises(LimitError, match="limits.equal_player_banker"):
        settle_slip(h6, rules, {"player": 5, "banker": 5})
    hedge = settle_slip(h6, rules, {"player": 5, "banker": 5}, check=False)
    assert hedge.ev < 0


def test_live_limit_caps_the_difference_of_player_and_banker():
    rules = load_rules("live-8deck-side-bets")  # Player/Banker limit 1000 on the difference
    check_limits(rules, {"player": 1500, "banker": 1000})  # each over 1000, difference 500: allowed
    check_limits(rules, {"player": 1000})
    with pytest.raises(LimitError, match=r"limits.player_banker_limit: the Player and Banker stakes \(2500 and "
                                         r"1000\) differ by 1500, over the limit of 1000 on their difference"):
        check_limits(rules, {"player": 2500, "banker": 1000})
    with pytest.raises(LimitError, match="limits.player_banker_limit"):
        check_limits(rules, {"banker": 1001})
    check_limits(rules, {"player": 5, "banker": 5})  # this table allows equal stakes


def test_side_bets_need_a_main_bet_where_the_table_says_so():
    rules = load_rules("ez-baccarat")
    with pytest.raises(LimitError, match="limits.side_bets_need_main_bet: dragon_7, panda_8 may only be staked with "
                                         "a main bet"):
        check_limits(rules, {"dragon_7": 1, "panda_8": 1})
    check_limits(rules, {"dragon_7": 1, "banker": 5})
    check_limits(load_rules("live-8deck-dragon-tiger"), {"dragon": 1})  # "without placing the main bets"


# --------------------------------------------------------------------------- breakdown


@pytest.mark.parametrize("which", ["h8", "mc_like"])
def test_breakdown_rows_add_up(request, which):
    hist = request.getfixturevalue(which)
    rules = load_rules("live-8deck-side-bets")
    for bet in rules.bets:
        table = breakdown(hist, bet, rules)
        body, total = table.iloc[:-1], table.iloc[-1]
        assert list(table.columns) == ["event", "pays", "net", "combinations", "probability", "return"]
        assert total["event"] == "total" and total["combinations"] == hist.total
        assert body["combinations"].sum() == hist.total
        assert body["probability"].sum() == pytest.approx(1.0)
        assert total["return"] == pytest.approx(settle_bet(hist, bet, rules).ev, rel=1e-12, abs=1e-15)
        assert list(body["event"]) == [case.name for case in (*bet.cases, bet.otherwise)]


def test_breakdown_marks_commission(h8):
    table = breakdown(h8, "banker", load_rules("default"))
    assert table.loc[0, "pays"] == "1:1 less commission" and table.loc[0, "net"] == 0.95


# --------------------------------------------------------------------------- commission rounding


def test_commission_rounding_modes():
    up, down, nearest = (Commission(Fraction(1, 20), mode, Fraction(1, 4)) for mode in ("up", "down", "nearest"))
    assert [up.amount(Fraction(s)) for s in (1, 5, 6, 10, 11)] == [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2),
                                                                   Fraction(1, 2), Fraction(3, 4)]
    assert [down.amount(Fraction(s)) for s in (1, 5, 6, 11)] == [0, Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]
    assert [nearest.amount(Fraction(s)) for s in (2, 3, 7, 8)] == [0, Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]
    assert Commission(Fraction(1, 20)).amount(Fraction(3)) == Fraction(3, 20)


def test_commission_table_for_online_rounding(h8):
    rules = load_rules("online-commission-rounding")
    table = commission_table(h8, rules)
    assert list(table["stake"]) == list(range(1, 101))
    nominal = settle(h8, rules)[1].rtp
    winner = breakdown(h8, "banker", rules).set_index("event")["probability"]
    p_win, p_tie = winner["Banker win"], winner["Tie"]
    for row in table.itertuples():
        fee = math.ceil(0.05 * row.stake * 4 - 1e-9) / 4  # 5% rounded up to a quarter chip
        assert row.commission == pytest.approx(fee)
        assert row.rtp == pytest.approx(p_win * (1 + (row.stake - fee) / row.stake) + p_tie, rel=1e-12)
        assert row.rtp <= nominal + 1e-15  # rounding up never helps the player
        if row.stake % 5 == 0:
            assert row.rtp == pytest.approx(nominal, abs=1e-15)
    assert table.loc[0, "effective_rate"] == 0.25  # one chip: a quarter chip of commission
    assert table.loc[0, "rtp"] == pytest.approx(nominal - 0.20 * p_win)
    assert (table["rtp_nominal"] == nominal).all()


def test_settle_bet_at_a_stake(h8):
    rules = load_rules("online-commission-rounding")
    at_one = settle_bet(h8, "banker", rules, stake=1)
    at_five = settle_bet(h8, "banker", rules, stake=5)
    assert at_five.ev_exact == settle_bet(h8, "banker", rules).ev_exact
    assert at_one.ev_exact < at_five.ev_exact
    # Without rounding the stake does not matter.
    default = load_rules("default")
    assert settle_bet(h8, "banker", default, stake=1).ev_exact == settle_bet(h8, "banker", default).ev_exact
    with pytest.raises(ValueError, match="has no commission line"):
        commission_table(h8, rules, "player")


def test_commission_applies_only_to_marked_wins(h8):
    text = (
        'schema_version = 1\nid = "c"\n[commission]\nrate = 0.1\n'
        '[[bets]]\nid = "banker"\npays = [{ when = "winner == banker", pays = "1:1", commission = true },'
        ' { when = "winner == tie", pays = "push" }]\notherwise = "lose"\n'
        '[[bets]]\nid = "player"\npays = [{ when = "winner == player", pays = "1:1" },'
        ' { when = "winner == tie", pays = "push" }]\notherwise = "lose"\n'
    )
    rules = parse_rules(text, "c.toml")
    banker, player = (breakdown(h8, b, rules).set_index("event") for b in ("banker", "player"))
    assert banker.loc["winner == banker", "net"] == pytest.approx(0.9)
    assert player.loc["winner == player", "net"] == 1.0


def test_settling_a_histogram_of_another_deck_count_warns():
    """Issue 16, item 20: a 6-deck histogram under an 8-deck rule set says whose figures they are."""
    from baccarat_sim import ShoeMismatchWarning, exact_histogram, load_rules, settle
    from baccarat_sim.model.shoe import as_shoe, remove_cards

    rules = load_rules("default")
    with pytest.warns(ShoeMismatchWarning, match="dealt from 6 decks, rule set 'default' states 8"):
        settle(exact_histogram(6), rules)
    # The same deck count, and a depleted shoe of it, settle quietly (filterwarnings = error would fail otherwise).
    settle(exact_histogram(6), rules.with_shoe(decks=6))
    settle(exact_histogram(remove_cards(as_shoe(8), "6,6,K")), rules)
