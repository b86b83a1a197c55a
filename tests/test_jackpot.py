"""Jackpots and flat amounts as data (issue 22, section 2): a meter, a share of it, an amount for a stake level.

The test rule set (tests/data/jackpot/tie-progressive.toml) pays, "for one" on a 5-unit stake with the meter in
money, the whole jackpot on a Tie of 9, 10% of it on a Tie of 8 and 45 on any other Tie. Its exact figures are
checked against Wizard of Odds' Tie counts by total ("Exact Winning Side and Total in Baccarat", 8 decks), which
no code of this package produced.
"""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat_sim import exact_histogram
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.analysis.settlement_jackpot import jackpot_figures
from baccarat_sim.cli.hold import main as hold_main
from baccarat_sim.model.rules import load_rules
from baccarat_sim.report.run_report import build_report
from tests.cli_helpers import cli

RULES = Path(__file__).parent / "data" / "jackpot" / "tie-progressive.toml"
T = 4_998_398_275_503_360  # 416 * 415 * ... * 411 ordered six-card deals
TIE_9, TIE_8, TIE = 55_146_054_060_032, 54_879_416_675_072, 475_627_426_473_216  # Wizard of Odds' counts


@pytest.fixture(scope="module")
def hist():
    return exact_histogram(8)


@pytest.fixture(scope="module")
def rules():
    return load_rules(RULES)


def test_lines_are_linear_in_the_meter_and_amounts_are_read_for_the_stake(rules):
    bet = rules.bet("tie_jackpot")
    jackpot, nine, eight, other = bet.jackpot, *bet.cases
    assert (jackpot.unit, jackpot.reset, jackpot.contribution, jackpot.meter) == ("money", 1000, Fraction(1, 10), 1000)
    # "for one" on a stake of 5: the meter in money over the stake, less the stake that is not returned.
    assert (nine.net, nine.jackpot, nine.pays) == (Fraction(1000, 5) - 1, Fraction(1, 5), "jackpot")
    assert (eight.net, eight.jackpot, eight.pays) == (Fraction(100, 5) - 1, Fraction(1, 50), "10% of jackpot")
    assert (other.net, other.jackpot, other.pays) == (Fraction(45, 5) - 1, 0, "45 for 5")
    at_zero = bet.with_meter(0)
    assert [case.net for case in at_zero.cases] == [-1, -1, 8]
    assert bet.with_meter(0).with_meter(1000) == bet  # exact: moving the meter and back is the same bet
    with pytest.raises(ValueError):
        bet.with_meter(-1)
    with pytest.raises(ValueError):
        load_rules("default").bet("tie").with_meter(5)


def test_rtp_is_base_plus_slope_times_meter_against_published_counts(hist, rules):
    figures = jackpot_figures(hist, "tie_jackpot", rules)
    other_ties = TIE - TIE_9 - TIE_8
    assert figures.base == Fraction(45 // 5 * other_ties, T)  # meter 0: only the flat amount pays back
    assert figures.slope == (Fraction(TIE_9, T) + Fraction(TIE_8, 10 * T)) / 5
    assert figures.jackpot_probability == Fraction(TIE_9, T)
    for meter in (0, 140, Fraction(2501, 3)):
        settled = settle_bet(hist, rules.bet("tie_jackpot").with_meter(meter), rules)
        assert 1 + settled.ev_exact == figures.rtp_at(meter)
    assert figures.rtp_at(figures.break_even_meter) == 1
    assert figures.rtp_at_reset == 1 + settle_bet(hist, "tie_jackpot", rules).ev_exact
    # Long run: every contribution goes back to players; the operator seeds the reset once per whole jackpot.
    assert figures.long_run_rtp == figures.base + Fraction(1, 10) + Fraction(1000, 5) * Fraction(TIE_9, T)
    assert figures.operator_long_run_return == 1 - figures.long_run_rtp


def test_report_fields_in_json_csv_and_text(hist, rules):
    report = build_report(rules, hist)
    record = report.bets_json()[0]
    jackpot = record["jackpot"]
    figures = jackpot_figures(hist, "tie_jackpot", rules)
    assert jackpot["unit"] == "money" and jackpot["money_per_stake"] == 5 and jackpot["reset"] == 1000
    assert jackpot["rtp_base"] == float(figures.base) and jackpot["rtp_per_meter_unit"] == float(figures.slope)
    assert jackpot["break_even_meter"] == pytest.approx(float(figures.break_even_meter), rel=1e-15)
    assert jackpot["rtp_at_reset"] == pytest.approx(record["exact_rtp"], rel=1e-15)
    assert jackpot["contribution_rate"] == 0.1 and jackpot["monte_carlo"] is None
    assert "operator_long_run_return" in jackpot and "long_run_rtp" in jackpot
    csv = report.to_csv()
    assert "jackpot_break_even_meter" in csv.splitlines()[0]
    assert "tie_jackpot: RTP = " in report.to_text() and "breaks even at a meter of" in report.to_markdown()
    # A bet without a jackpot has no such object, and a rule set without one no such columns.
    plain = build_report(load_rules("default"), hist)
    assert all("jackpot" not in record for record in plain.bets_json())
    assert "jackpot" not in plain.to_csv()


def test_meter_option_in_rtp_exact_and_monte_carlo(capsys, hist, rules):
    status, out, _ = cli(capsys, "--exact", "--rules", RULES, "--meter", "tie_jackpot=100", "--format", "json",
                         "--quiet")
    assert status == 0
    record = json.loads(out)["bets"][0]
    expected = jackpot_figures(hist, "tie_jackpot", rules).rtp_at(100)
    assert record["exact_rtp"] == pytest.approx(float(expected), rel=1e-15)
    assert record["jackpot"]["meter"] == 100
    status, out, _ = cli(capsys, "--rules", RULES, "--meter", "tie_jackpot=100", "--rounds", "2e5", "--seed", "4",
                         "--format", "json", "--quiet")
    assert status == 0
    record = json.loads(out)["bets"][0]
    mc = record["jackpot"]["monte_carlo"]
    assert abs(record["z"]) < 4
    assert mc["rtp_base"] + 100 * mc["rtp_per_meter_unit"] == pytest.approx(record["rtp"], abs=1e-12)


@pytest.mark.parametrize("meter, message", [
    ("tie_jackpot", "--meter: give BET=VALUE"),
    ("tie_jackpot=-3", "--meter: tie_jackpot's meter must be a number from 0"),
    ("nothing=3", "--meter: bet 'nothing' is not in rule set 'tie-progressive'; bets with a jackpot: tie_jackpot"),
])
def test_meter_option_errors_name_it(capsys, meter, message):
    status, out, err = cli(capsys, "--exact", "--rules", RULES, "--meter", meter, "--quiet")
    assert status == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_meter_option_in_hold(capsys, hist, rules):
    edges = []
    for meter in ("0", "100"):
        assert hold_main(["--rules", str(RULES), "--slip", "tie_jackpot=5", "--meter", f"tie_jackpot={meter}",
                          "--rounds", "100", "--format", "json", "--quiet"]) == 0
        document = json.loads(capsys.readouterr().out)
        assert document["rules"]["jackpot_meters"] == {"tie_jackpot": float(meter)}
        edges.append(document["slip"]["house_edge"])
    figures = jackpot_figures(hist, "tie_jackpot", rules)
    assert edges == [pytest.approx(float(1 - figures.rtp_at(m)), rel=1e-12) for m in (0, 100)]


def test_readme_jackpot_block_is_a_valid_bet_and_lists_every_json_field(hist, rules):
    import re

    readme = (Path(__file__).resolve().parents[1] / "baccarat_sim" / "rulesets" / "README.md").read_text()
    block = next(b for b in re.findall(r"```toml\n(.*?)```", readme, flags=re.S) if 'id = "tie_progressive"' in b)
    from baccarat_sim.model.rules import parse_rules

    documented = parse_rules('schema_version = 1\nid = "readme"\n' + block, "README.md").bet("tie_progressive")
    tested = rules.bet("tie_jackpot")
    assert [(c.net, c.jackpot) for c in documented.cases] == [(c.net, c.jackpot) for c in tested.cases]
    fields = build_report(rules, hist).bets_json()[0]["jackpot"]
    for name in fields:
        assert f"| `{name}` |" in readme, name


def test_a_jackpot_without_a_reset_value_is_priced_at_a_meter_of_zero(hist):
    # Where the source does not give the reset (Dragon Dragon), the bet is priced at 0 unless --meter sets it.
    from baccarat_sim.model.rules import parse_rules

    text = RULES.read_text().replace("reset = 1000, ", "")
    rules = parse_rules(text, "no-reset.toml")
    bet = rules.bet("tie_jackpot")
    assert bet.jackpot.reset is None and bet.meter == 0 and bet.cases[0].net == -1
    figures = jackpot_figures(hist, bet, rules)
    assert figures.rtp_at_reset is None and figures.long_run_rtp is None
    assert figures.base == jackpot_figures(hist, "tie_jackpot", load_rules(RULES)).base
    jackpot = build_report(rules, hist).bets_json()[0]["jackpot"]
    assert jackpot["reset"] is None and jackpot["rtp_at_reset"] is None and jackpot["meter"] == 0
    assert "no reset value given" in build_report(rules, hist).to_markdown()


def test_meter_in_counting(capsys, tmp_path, hist, rules):
    # The counting simulation settles the bet at the meter set: its off-the-top EV is the exact one at that meter.
    from baccarat_sim.analysis.counting import count_simulation
    from baccarat_sim.model.strategy import parse_strategy
    from baccarat_sim.report.counting import count_frame

    flat = 'schema_version = 1\nid = "flat"\n[[bets]]\nid = "*"\nplay = "always"'
    figures = jackpot_figures(hist, "tie_jackpot", rules)
    for meter in (0, 100):
        dealt = rules.with_meters({"tie_jackpot": meter}).with_shoe(model="dealt")
        row = count_frame(count_simulation(dealt, parse_strategy(flat), 50, seed=3)).iloc[0]
        assert row["ev_off_the_top"] == pytest.approx(float(figures.rtp_at(meter) - 1), rel=1e-12)
    strategy = tmp_path / "flat.toml"
    strategy.write_text(flat)
    status, out, _ = cli(capsys, "--rules", RULES, "--model", "dealt", "--count", strategy, "--shoes", "50",
                         "--seed", "3", "--meter", "tie_jackpot=100", "--format", "json", "--quiet")
    assert status == 0
    row = json.loads(out)["results"][0]
    assert row["bet"] == "tie_jackpot"
    assert row["ev_off_the_top"] == pytest.approx(float(figures.rtp_at(100) - 1), rel=1e-12)
