"""Issue 41, the catalogue's and the jackpot's items: one test (or more) per item, named after it.

Sources of the figures pinned here
----------------------------------
[WoO-WST]  Wizard of Odds, Exact Winning Side and Total in Baccarat,
           https://wizardofodds.com/games/exact-winning-side-and-total-in-baccarat (Tie counts by total, 8 decks).
[WoO-DD]   Wizard of Odds, Dragon Dragon (the counts of tests/test_catalogue_poker.py: six of a kind
           5,872,124,160; five of a kind 351,070,863,360; the three amount lines 616,417,689,600,
           12,273,961,559,040 and 32,896,683,048,960, out of 416 x 415 x ... x 411).
"""

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim import exact_histogram
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.model.rules import load_rules, parse_rules
from tests.cli_helpers import cli

T = math.perm(416, 6)
JACKPOT_RULES = Path(__file__).parent / "data" / "jackpot" / "tie-progressive.toml"
TIE_9, TIE_8, TIE = 55_146_054_060_032, 54_879_416_675_072, 475_627_426_473_216  # [WoO-WST]


@pytest.fixture(scope="module")
def hist():
    return exact_histogram(8)


def _progressive(when: str, *, notation: str = "to", reset: str = "", extra_line: str = "") -> str:
    """A rule file of one progressive whose only winning line pays the jackpot (a meter in stakes)."""
    return f'''schema_version = 1
id = "one-progressive"
name = "One progressive (test data)"
source = "tests/test_issue41_cat.py"
payout_notation = "{notation}"
[shoe]
decks = 8
shuffle = "fresh"
[[bets]]
id = "prog"
name = "Progressive"
jackpot = {{ unit = "stake"{reset} }}
pays = [{{ when = "{when}", pays = "jackpot" }}{extra_line}]
otherwise = "lose"
'''


# --------------------------------------------------------------------------------------------------- item 4

def test_issue41_item4_a_line_paying_the_meter_is_a_hit_at_a_meter_of_0(hist):
    # tie-progressive without its reset: at a meter of 0 the jackpot (Tie 9) and 10% of it (Tie 8) pay nothing
    # back "for one", yet they are the bet's prizes: every Tie is a hit, the flat-amount ties and those two.
    rules = parse_rules(JACKPOT_RULES.read_text().replace("reset = 1000, ", ""), "no-reset.toml")
    result = settle_bet(hist, "tie_jackpot", rules)
    assert rules.bet("tie_jackpot").meter == 0
    assert result.hit_frequency == pytest.approx(TIE / T, rel=1e-15)
    assert result.push_frequency == 0
    # The same at any meter: the hit frequency does not move with it.
    assert settle_bet(hist, rules.bet("tie_jackpot").with_meter(250), rules).hit_frequency == result.hit_frequency


def test_issue41_item4_dragon_dragon_hit_frequency_counts_its_jackpot_lines():
    # [WoO-DD]: every winning line, the six and five of a kind included, at the meter of 0 the file prices.
    from baccarat_sim.engines.detail import rules_detail

    rules = load_rules("catalogue-poker")
    result = settle_bet(exact_histogram(8, rules_detail(rules)), "dragon_dragon_1", rules)
    hits = 5_872_124_160 + 351_070_863_360 + 616_417_689_600 + 12_273_961_559_040 + 32_896_683_048_960
    assert result.hit_frequency == pytest.approx(hits / T, rel=1e-15)
    assert f"{result.hit_frequency:.7f}" == "0.0092318"  # the issue's 0.0092317 truncated; not 0.0091603


# -------------------------------------------------------------------------------------------------- item 22

@pytest.mark.parametrize("when", ["winner == tie and player_score == 9",  # outcome-level
                                  "count(colour == black, all) == 0"])  # card-level
def test_issue41_item22_a_progressive_without_a_reset_prices_at_every_meter_both_kinds(capsys, tmp_path, when):
    path = tmp_path / "prog.toml"
    path.write_text(_progressive(when))
    rtps = {}
    for meter in (0, 30):
        status, out, err = cli(capsys, "--exact", "--rules", path, "--meter", f"prog={meter}", "--format", "json",
                               "--quiet")
        assert status == 0, err
        record = json.loads(out)["bets"][0]
        rtps[meter] = record["exact_rtp"]
        jackpot = record["jackpot"]
        # "to one": RTP = P + P x meter, the event's probability times (meter + 1).
        assert record["exact_rtp"] == pytest.approx(jackpot["rtp_base"] * (1 + meter), rel=1e-12)
        assert jackpot["rtp_base"] == pytest.approx(jackpot["jackpot_probability"], rel=1e-12)
    assert rtps[30] == pytest.approx(31 * rtps[0], rel=1e-12)
    # Without --meter: priced at 0 (no reset), loaded all the same.
    status, out, err = cli(capsys, "--exact", "--rules", path, "--format", "json", "--quiet")
    assert status == 0 and json.loads(out)["bets"][0]["exact_rtp"] == pytest.approx(rtps[0], rel=1e-15)


@pytest.mark.parametrize("when", ["winner == tie and player_score == 9", "count(colour == black, all) == 0"])
def test_issue41_item22_meter_0_on_a_progressive_with_a_reset_prices_both_kinds(capsys, tmp_path, when):
    path = tmp_path / "prog.toml"
    path.write_text(_progressive(when, reset=", reset = 100"))
    status, out, err = cli(capsys, "--exact", "--rules", path, "--meter", "prog=0", "--format", "json", "--quiet")
    assert status == 0, err
    record = json.loads(out)["bets"][0]
    assert record["jackpot"]["meter"] == 0 and record["exact_rtp"] == pytest.approx(
        record["jackpot"]["jackpot_probability"], rel=1e-12)


@pytest.mark.parametrize("when", ["winner == tie and player_score == 9", "count(colour == black, all) == 0"])
def test_issue41_item22_a_bet_that_can_never_win_is_refused_the_same_way_for_both_kinds(capsys, tmp_path, when):
    # No jackpot line and nothing that pays: still refused, in one line, for either kind of bet.
    path = tmp_path / "never.toml"
    path.write_text(_progressive(when).replace('jackpot = { unit = "stake" }\n', "").replace('pays = "jackpot"',
                                                                                          'pays = "push"'))
    status, out, err = cli(capsys, "--exact", "--rules", path, "--quiet")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "bets.prog.pays: the bet can never win" in err


# -------------------------------------------------------------------------------------------------- item 17

@pytest.mark.parametrize("slip, stake, priced, other", [("dragon_dragon_1=5", "5", "1", "dragon_dragon_5"),
                                                       ("dragon_dragon_5=1", "1", "5", "dragon_dragon_1")])
def test_issue41_item17_hold_refuses_a_stake_the_bet_does_not_price(capsys, slip, stake, priced, other):
    from baccarat_sim.cli.hold import main as hold_main

    status = hold_main(["--rules", "catalogue-poker", "--slip", slip, "--rounds", "100", "--quiet"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and len(captured.err.splitlines()) == 1
    bet_id = slip.split("=")[0]
    assert (f"a stake of {stake} on {bet_id}, a bet priced for a stake of {priced} (bets.{bet_id}.stake; its "
            f"amounts are for stakes 1, 2, 5): bet {other} is priced for {stake}") in captured.err


def test_issue41_item17_the_bet_for_the_stake_gives_its_own_table():
    # [WoO-DD] counts; the $5 column pays 1500, 300, 150 for 5. Through the API, with or without the table limits.
    from baccarat_sim.analysis.joint import settle_slip
    from baccarat_sim.analysis.slip import build_slip
    from baccarat_sim.engines.detail import rules_detail
    from baccarat_sim.errors import LimitError

    rules = load_rules("catalogue-poker")
    slip = build_slip(rules, {"dragon_dragon_5": 5})
    lines = {1500: 616_417_689_600, 300: 12_273_961_559_040, 150: 32_896_683_048_960}
    rtp = sum(Fraction(paid * n, 5 * T) for paid, n in lines.items())  # "for one": the stake is not returned
    assert slip.house_edge == 1 - rtp and f"{float(1 - rtp):.6%}" == "61.822500%"
    with pytest.raises(LimitError, match="stakes.dragon_dragon_1: a stake of 5 on dragon_dragon_1"):
        build_slip(rules, {"dragon_dragon_1": 5})
    hist = exact_histogram(8, rules_detail(rules))
    with pytest.raises(LimitError, match="bets.dragon_dragon_5.stake"):
        settle_slip(hist, rules, {"dragon_dragon_5": 1}, check=False)


def test_issue41_item17_a_money_meter_without_amounts_names_its_stake(hist):
    from baccarat_sim.analysis.joint import settle_slip
    from baccarat_sim.errors import LimitError

    text = JACKPOT_RULES.read_text().replace(', amounts = { "1" = 9, "5" = 45 }', ', pays = "8:1"')
    rules = parse_rules(text, "money-meter.toml")
    assert settle_slip(hist, rules, {"tie_jackpot": 5}).total_stake == 5
    with pytest.raises(LimitError, match=r"a bet priced for a stake of 5 \(bets.tie_jackpot.stake; its jackpot meter "
                                         r"counts money per stake of 5\): stake it 5"):
        settle_slip(hist, rules, {"tie_jackpot": 10})


# -------------------------------------------------------------------------------------------- items 21, 23

def _no_reset_progressive(tmp_path, share: str = "10") -> Path:
    path = tmp_path / "progressive.toml"
    path.write_text(JACKPOT_RULES.read_text().replace("reset = 1000, ", "").replace("10% of jackpot", f"{share}% of "
                                                                                                        "jackpot"))
    return path


def test_issue41_item21_baseline_catches_a_jackpot_pay_table_change_at_a_meter_of_0(capsys, tmp_path):
    path = _no_reset_progressive(tmp_path)
    status, out, _ = cli(capsys, "--exact", "--rules", path, "--format", "json", "--quiet")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(out)
    status, _, err = cli(capsys, "--exact", "--rules", path, "--baseline", baseline)
    assert status == 0 and "baseline ok: 6 exact figures" in err  # rtp, hit, sd and the line in the meter
    # The share line edited: at a meter of 0 it pays nothing either way (RTP, hit frequency and SD unchanged) ...
    path = _no_reset_progressive(tmp_path, "50")
    status, out, _ = cli(capsys, "--exact", "--rules", path, "--format", "json", "--quiet")
    assert json.loads(out)["bets"][0]["exact_rtp"] == json.loads(baseline.read_text())["bets"][0]["exact_rtp"]
    # ... but the slope moved: (Tie 9 + 50% of Tie 8) / 5 per unit of meter against (Tie 9 + 10% of Tie 8) / 5.
    status, _, err = cli(capsys, "--exact", "--rules", path, "--baseline", baseline)
    assert status == 1 and "1 of 6 figures drifted" in err
    assert "baseline DRIFT tie_jackpot.jackpot.rtp_per_meter_unit: " in err
    was, now = (float((Fraction(TIE_9, T) + share * Fraction(TIE_8, T)) / 5) for share in (Fraction(1, 10),
                                                                                          Fraction(1, 2)))
    assert f"{now:.12g} now, {was:.12g} in the baseline" in err


def test_issue41_item21_baseline_names_a_jackpot_figure_on_one_side_only(capsys, tmp_path):
    path = _no_reset_progressive(tmp_path)
    status, out, _ = cli(capsys, "--exact", "--rules", path, "--format", "json", "--quiet")
    document = json.loads(out)
    del document["bets"][0]["jackpot"]
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(document))
    status, _, err = cli(capsys, "--exact", "--rules", path, "--baseline", baseline)
    assert status == 1 and "baseline DRIFT tie_jackpot.jackpot.rtp_base: in this run, not in the baseline" in err


@pytest.mark.parametrize("edit, field", [
    (lambda bet: bet.update(exact_rtp=10**400), "bets[0].exact_rtp"),
    (lambda bet: bet.update(sd=-(10**400)), "bets[0].sd"),
    (lambda bet: bet["jackpot"].update(rtp_base=10**400), "bets[0].jackpot.rtp_base"),
    (lambda bet: bet["jackpot"].update(rtp_per_meter_unit="0.1"), "bets[0].jackpot.rtp_per_meter_unit"),
])
def test_issue41_item23_baseline_with_a_number_beyond_float_is_bad_input(capsys, tmp_path, edit, field):
    path = _no_reset_progressive(tmp_path)
    status, out, _ = cli(capsys, "--exact", "--rules", path, "--format", "json", "--quiet")
    document = json.loads(out)
    edit(document["bets"][0])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps(document))
    status, out, err = cli(capsys, "--exact", "--rules", path, "--baseline", baseline, "--quiet")
    assert status == 2 and len(err.splitlines()) == 1 and "--baseline" in err and "each a finite number" in err
    assert f"{baseline}: {field}: not a finite number" in err  # the field at fault, by its JSON path


def _resigned(tmp_path, hist, edit) -> Path:
    """``hist`` saved, its counts edited, and the archive written (signed) again: the checksum holds."""
    from baccarat_sim.model.histogram import FORMAT
    from baccarat_sim.storage.archive import read_archive, write_archive

    saved = tmp_path / "saved.npz"
    hist.save(saved)
    header, arrays = read_archive(saved, FORMAT, "histogram")
    counts = arrays["counts"].copy()
    edit(counts)
    target = tmp_path / "resigned.npz"
    write_archive(target, FORMAT, header, dict(arrays, counts=counts))
    return target


def test_issue41_item23_a_histogram_whose_total_overflows_int64_is_refused(capsys, tmp_path, hist):
    def overflow(counts):
        counts[np.flatnonzero(counts)[:2]] = np.iinfo(np.int64).max // 2 + 1  # each fits, their sum does not

    path = _resigned(tmp_path, hist, overflow)
    status, out, err = cli(capsys, "--from-histogram", path, "--quiet")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "--from-histogram" in err and "the counts total more than int64 holds" in err


def test_issue41_item23_a_card_detail_block_that_no_longer_totals_the_outcomes_is_refused(capsys, tmp_path):
    from baccarat_sim.engines.detail import rules_detail

    path = tmp_path / "colour.toml"
    path.write_text(_progressive("count(colour == black, all) == 0", reset=", reset = 25"))
    rules = load_rules(path)
    card_level = exact_histogram(8, rules_detail(rules))
    first_group = card_level.detail.offset(0)

    def inflate(counts):
        counts[first_group + int(np.flatnonzero(counts[first_group:])[0])] *= 20  # one cell of the colour group

    saved = _resigned(tmp_path, card_level, inflate)
    status, out, err = cli(capsys, "--from-histogram", saved, "--rules", path, "--quiet")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "card-detail group 0 totals" in err and f"the outcome codes {T:,}" in err
    # The histogram as written loads and settles.
    card_level.save(tmp_path / "as-written.npz")
    assert cli(capsys, "--from-histogram", tmp_path / "as-written.npz", "--rules", path, "--quiet")[0] == 0


def test_issue41_item23_a_jackpot_share_of_5000_digits_is_bad_input(capsys, tmp_path):
    path = tmp_path / "share.toml"
    path.write_text(JACKPOT_RULES.read_text().replace("10% of jackpot", "1." + "0" * 5000 + "1% of jackpot"))
    status, out, err = cli(capsys, "--exact", "--rules", path, "--quiet")
    assert status == 2 and out == "" and len(err.splitlines()) == 1
    assert "bets.tie_jackpot.pays[1].pays: a share of the jackpot has at most 40 digits" in err


# --------------------------------------------------------------------------------------------------- item 9

def test_issue41_item9_the_catalogue_page_shows_every_line_of_every_bet():
    from baccarat_sim.model.rules import available_rules

    page = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "catalogue.md").read_text()
    rows = {line.split("`")[1]: line for line in page.splitlines() if line.startswith("| `")}
    for name in (n for n in available_rules() if n.startswith("catalogue-")):
        for bet in load_rules(name).bets:
            row = rows[bet.id]
            for case in bet.cases:
                assert f"{case.pays} if `{case.when}`".replace("|", "\\|") in row, (bet.id, case.when)
            assert f"{bet.otherwise.pays} otherwise" in row, bet.id
    assert "jackpot if `kind(all) == 6`; 10% of jackpot if `kind(all) == 5`" in rows["dragon_dragon_1"]


# ------------------------------------------------------------------------------------------ items 1, 2, 3, 5
# The catalogue's figures are pinned with their sources in tests/test_catalogue.py; these name the items.

def test_issue41_item1_all_red_and_all_black_have_no_assumed_pay(capsys):
    # The pay is the meter X (to 1): RTP = P x (X + 1), P = 0.0373904 (checked against a brute force in
    # test_catalogue.py); at Wizard of Odds' "different" pays, whatever they are, each side is priced the same way.
    rules = load_rules("catalogue-all-red-black")
    for bet in rules.bets:
        assert bet.stated_rtp is None and [case.pays for case in bet.cases] == ["jackpot"]
        assert bet.jackpot.reset is None and bet.jackpot.contribution is None
    status, out, _ = cli(capsys, "--exact", "--rules", "catalogue-all-red-black", "--meter",
                         "all_red=24,all_black=25", "--format", "json", "--quiet")
    records = {record["id"]: record for record in json.loads(out)["bets"]}
    p = records["all_red"]["jackpot"]["jackpot_probability"]
    assert f"{p:.7f}" == "0.0373904" and records["all_black"]["jackpot"]["jackpot_probability"] == p
    assert records["all_red"]["exact_rtp"] == pytest.approx(25 * p, rel=1e-12)
    assert records["all_black"]["exact_rtp"] == pytest.approx(26 * p, rel=1e-12)
    assert records["all_red"]["jackpot"]["break_even_meter"] == pytest.approx(1 / p - 1, rel=1e-12)  # 25.74 to 1


def test_issue41_item2_super_lucky_7_marks_its_unresolved_case():
    rules = load_rules("catalogue-macau-sevens")
    bet = rules.bet("super_lucky_7")
    unresolved = [case for case in bet.cases if "unresolved" in case.name]
    assert len(unresolved) == 1 and unresolved[0].net == -1
    assert "unresolved" in bet.name and "UNRESOLVED" in bet.description and bet.stated_rtp is None
    page = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "catalogue.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| `super_lucky_7`"))
    assert "lose if `player_score == 7 and banker_score == 6 and player_cards == 2 and banker_cards == 3`" in row
    assert "UNRESOLVED" in row


def test_issue41_item3_total_shot_bonus_and_jacobsons_knockout_are_in_the_catalogue():
    total_shot = load_rules("catalogue-total-shot")
    assert total_shot.bet("total_shot_bonus").stated_rtp == "91.636%"  # Jacobson: house edge 8.364%
    knockout = load_rules("catalogue-knockout")
    assert "January 15, 2017" in knockout.source and "888casino.com/blog" in knockout.source
    assert [bet.id for bet in knockout.bets] == ["knockout_1_4", "knockout_5_6", "knockout_7", "knockout_8",
                                                 "knockout_9", "knockout_player_natural", "knockout_banker_natural"]
    assert [case.net for case in knockout.bet("knockout_5_6").cases] == [Fraction(7, 2), 0]  # a tie pushes
    winning_totals = load_rules("catalogue-winning-totals")
    assert "no pays and no returns" in " ".join(winning_totals.assumptions)


def test_issue41_item5_stated_rtp_is_the_finest_figure_published():
    # Where a source prints a six-decimal return (or a four-decimal edge) beside a two-decimal house edge, the stated
    # RTP is the finer figure: for every catalogue bet, no published figure of tests/test_catalogue.py has more digits.
    from decimal import Decimal

    from tests.test_catalogue import PUBLISHED

    def digits(figure: str) -> int:  # digits after the point, as a fraction of the stake
        number = figure.removeprefix("rtp ").rstrip("%")
        return len(number.split(".")[1]) + (2 if figure.endswith("%") else 0) if "." in number else 0

    def as_rtp(figure: str) -> Decimal:
        if figure.startswith("rtp "):
            return 100 * Decimal(figure[4:])
        return 100 - Decimal(figure[:-1]) if figure.endswith("%") else 100 * (1 + Decimal(figure))

    figures: dict = {}
    for param in PUBLISHED:
        name, bet_id, decks, figure = param.values
        if decks == 8:
            figures.setdefault((name, bet_id), []).append(figure)
    for (name, bet_id), published in figures.items():
        stated = Decimal(load_rules(name).bet(bet_id).stated_rtp.rstrip("%"))
        finest = max(digits(figure) for figure in published)
        assert any(as_rtp(f) == stated and digits(f) == finest for f in published), (bet_id, stated, published)
    assert load_rules("catalogue-two-card-hands").bet("perfect_pairs_26").stated_rtp == "90.3156%"  # -0.096844
