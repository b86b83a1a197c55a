"""The math report's tables against published ones, and its dealt-shoe parts against ``rtp`` (issue 38).

Jackpot Baccarat and Dragon Dragon, 8 decks, row by row as Wizard of Odds prints
them: Jackpot Baccarat (https://wizardofodds.com/games/baccarat/side-bets/jackpot-baccarat/)
counts unordered sets of the first four cards out of C(416, 4) = 1,229,930,520,
which the report converts (each set stands for 24 x 412 x 411 ordered six-card
deals) and states; Dragon Dragon (https://wizardofodds.com/games/baccarat/side-bets/dragon-dragon/,
stored copy of January 20, 2019) counts ordered six-card deals out of
416 x 415 x ... x 411, as the report does. The same numbers are in
tests/test_catalogue_poker.py, checked there against the exact engine alone.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from baccarat_sim.cli.hold import main as hold_main
from baccarat_sim.cli.math_report import main as report_main
from baccarat_sim.cli.rtp import main as rtp_main

JACKPOT_BACCARAT = {"Mini royal": 16_384, "Four of a kind": 467_480, "Straight flush": 163_840,
                    "Three of a kind": 24_760_320, "Flush": 17_929_088, "Straight": 11_354_112, "Two pair": 18_944_640,
                    "Pair of aces": 33_048_576, "Pair 10's to K's": 132_194_304, "Loser": 991_051_776}
JACKPOT_BACCARAT_TOTAL = 1_229_930_520
DRAGON_DRAGON = {"Six of a kind": 5_872_124_160, "Five of a kind": 351_070_863_360,
                 "Double three of a kind": 616_417_689_600, "Four of a kind": 12_273_961_559_040,
                 "Three of a kind out of four cards": 32_896_683_048_960, "Loser": 4_952_254_270_218_240}


@pytest.fixture(scope="module")
def poker(tmp_path_factory):
    out = tmp_path_factory.mktemp("poker")
    status = report_main(["--rules", "catalogue-poker", "--bets", "jackpot_baccarat,dragon_dragon_1,dragon_dragon_2",
                          "--skip", "decks,countability", "--rounds", "1e5", "--seed", "3", "--out", str(out),
                          "--quiet"])
    assert status == 0
    return out, json.loads((out / "catalogue-poker-math-report.json").read_text())


def test_jackpot_baccarat_is_wizard_of_odds_row_by_row_in_four_card_sets(poker):
    _, document = poker
    bet = next(b for b in document["bets"] if b["id"] == "jackpot_baccarat")
    combos = bet["combinations"]
    assert combos["four_card_divisor"] == 24 * 412 * 411
    assert {line["event"]: line["four_card_sets"] for line in combos["lines"]} == JACKPOT_BACCARAT
    assert combos["four_card_total"] == JACKPOT_BACCARAT_TOTAL == math.comb(416, 4)
    assert combos["total"] == math.perm(416, 6)
    assert round(-bet["house_edge"], 6) == -0.158026  # the table's total return


def test_dragon_dragon_is_wizard_of_odds_row_by_row(poker):
    _, document = poker
    for bet_id, stake in (("dragon_dragon_1", 1), ("dragon_dragon_2", 2)):
        bet = next(b for b in document["bets"] if b["id"] == bet_id)
        combos = bet["combinations"]
        assert {line["event"]: line["combinations"] for line in combos["lines"]} == DRAGON_DRAGON
        assert combos["total"] == math.perm(416, 6) and combos["four_card_divisor"] is None  # reads all six cards
        jackpot = bet["jackpot"]
        assert abs(jackpot["base"] - 0.318146) <= 5e-7  # "0.318146+x+y"
        total = math.perm(416, 6)
        slope = (Fraction(DRAGON_DRAGON["Six of a kind"], total) + Fraction(DRAGON_DRAGON["Five of a kind"],
                                                                              10 * total)) / stake
        assert Fraction(jackpot["slope_exact"]) == slope
        six = next(line for line in combos["lines"] if line["event"] == "Six of a kind")
        assert six["jackpot"] and six["meets_1_in_100_million"] is True
        assert six["one_in"] == pytest.approx(total / DRAGON_DRAGON["Six of a kind"], rel=1e-15)


def test_the_hold_table_of_a_card_level_bet_is_the_hold_command(poker, capsys):
    """The report's one-round law comes from the combinations table; hold builds its slip by a fresh enumeration."""
    _, document = poker
    for bet in document["bets"][:2]:
        stake = 2 if bet["id"] == "dragon_dragon_2" else 1
        assert hold_main(["--rules", "catalogue-poker", "--model", "fresh", "--slip", f"{bet['id']}={stake}",
                          "--rounds", "1000,1e7", "--format", "json"]) == 0
        horizons = json.loads(capsys.readouterr().out)["horizons"]
        for ours, theirs in zip((bet["hold"][0], bet["hold"][-1]), horizons):
            assert ours["rounds"] == theirs["rounds"]
            assert (ours["hold_mean"], ours["central_95"], ours["central_99"]) == \
                (theirs["hold_mean"], theirs["hold_range_95"], theirs["hold_range_99"])


def test_the_pdf_states_the_published_counts_and_the_conversion(poker):
    pypdf = pytest.importorskip("pypdf")
    out, _ = poker
    text = " ".join(" ".join(page.extract_text() for page in
                             pypdf.PdfReader(out / "catalogue-poker-math-report.pdf").pages).split())
    for count in (*JACKPOT_BACCARAT.values(), JACKPOT_BACCARAT_TOTAL, *DRAGON_DRAGON.values()):
        assert f"{count:,}" in text, count
    assert "unordered four-card set stands for 4,063,968" in text
    assert "left out of this report" in text


def test_a_dealt_shoe_reports_positions_and_the_sweep_of_rtp(tmp_path, capsys):
    """live-8deck-side-bets deals through to the cut card: the report's sweep is ``rtp --sweep``'s, same seed."""
    out = tmp_path / "dealt"
    status = report_main(["--rules", "live-8deck-side-bets", "--bets", "banker,player_natural", "--skip",
                          "decks,hold", "--rounds", "2e5", "--sweep-rounds", "1e5", "--count-shoes", "300", "--seed",
                          "5", "--out", str(out), "--quiet"])
    assert status == 0
    assert capsys.readouterr().out.split() == [str(out / f"live-8deck-side-bets-math-report{suffix}")
                                               for suffix in (".pdf", ".xlsx", ".md", ".json")] + \
        [str(out / "live-8deck-side-bets-derived-counts.toml")]
    document = json.loads((out / "live-8deck-side-bets-math-report.json").read_text())
    natural = next(b for b in document["bets"] if b["id"] == "player_natural")
    assert natural["max_round"] == 50 and natural["positions"]["rtp_capped"] is not None
    command = document["manifest"]["commands"]["sweep"].split()
    sweep_at = command.index("--sweep")
    assert rtp_main([*command[3:], "--format", "json", "--out", str(tmp_path / "sweep"), "--no-files"]) == 0
    theirs = json.loads(capsys.readouterr().out)
    assert command[sweep_at + 1].startswith("cut=14,")
    assert document["sweep"]["cuts"] == theirs["cuts"] and len(theirs["cuts"]) == 4
    # A bet with a Max Round Availability is counted as the table offers it: rounds 1-50 of each shoe.
    assert natural["count"]["variant"] == "rounds 1-50"
    count = document["manifest"]["commands"]["count"].split()
    assert rtp_main([*count[3:], "--format", "json"]) == 0
    rows = {(row["bet"], row["variant"]): row for row in json.loads(capsys.readouterr().out)["results"]}
    assert natural["count"]["units_per_shoe"] == rows[("player_natural", "rounds 1-50")]["units_per_shoe"]
    run = json.loads(json.dumps(document))  # the verification run is rtp's run of the same seed
    assert rtp_main(["--rules", "live-8deck-side-bets", "--bets", "banker,player_natural", "--rounds", "2e5",
                     "--seed", "5", "--format", "json", "--out", str(tmp_path / "run"), "--no-files"]) == 0
    rtp_run = json.loads(capsys.readouterr().out)
    for ours, theirs_bet in zip(run["bets"], rtp_run["bets"]):
        assert ours["monte_carlo"]["rtp"] == theirs_bet["rtp"]
        assert ours["positions"]["rtp_by_round"] == theirs_bet["rtp_by_round"]


def test_the_workbook_moves_a_jackpot_bets_rtp_with_its_meter_cell(poker):
    formulas = pytest.importorskip("formulas")
    out, document = poker
    name = "catalogue-poker-math-report.xlsx"
    model = formulas.ExcelModel().loads(str(out / name)).finish()
    bet = next(b for b in document["bets"] if b["id"] == "dragon_dragon_2")
    meter = 250_000  # dollars
    values = model.calculate(inputs={f"'[{name}]DRAGON_DRAGON_2'!B5": meter})
    rows = {values[key].value[0, 0]: key.split("!A")[1] for key in values
            if key.startswith(f"'[{name}]DRAGON_DRAGON_2'!A") and isinstance(values[key].value[0, 0], str)}
    rtp = values[f"'[{name}]DRAGON_DRAGON_2'!B{rows['RTP']}"].value[0, 0]
    exact = Fraction(bet["jackpot"]["base_exact"]) + Fraction(bet["jackpot"]["slope_exact"]) * meter
    assert rtp == pytest.approx(float(exact), abs=1e-12)
