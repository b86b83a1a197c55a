"""The findings page (issue 9): one command writes the exact figures of the shipped rule sets."""

import json

import pandas as pd

from baccarat_sim.cli.findings import main


def test_findings_page_for_two_rule_sets(tmp_path):
    out = tmp_path / "findings"
    assert main(["--out", str(out), "--rules", "rng-6deck-single-hand", "online-commission-rounding"]) == 0
    page = (out / "README.md").read_text()
    # rng-6deck-single-hand.txt states Banker 98.94%, Player 98.76%, Tie 85.56% (6 decks): all hold exactly.
    assert page.count("confirmed") == 3 and "not confirmed" not in page
    bets = pd.read_csv(out / "bets.csv")
    banker = bets[(bets["rules"] == "rng-6deck-single-hand") & (bets["bet"] == "banker")].iloc[0]
    assert abs(banker["house_edge"] - 0.010558) < 5e-7  # Wizard of Odds, 6 decks: 1.0558%
    commission = pd.read_csv(out / "commission.csv")
    assert list(commission["stake"]) == list(range(1, 101))
    # One chip: commission 0.05 rounds up to 0.25, so a win pays 0.75; five chips: exactly 5%.
    assert commission.loc[0, "commission"] == 0.25 and commission.loc[4, "effective_rate"] == 0.05
    # Rounding up never helps the player: no stake beats the nominal 5% (8 decks: 98.9421%).
    assert commission["rtp"].max() <= 0.989421 + 1e-6
    assert (out / "commission-rounding.png").stat().st_size > 1000
    payload = json.loads((out / "findings.json").read_text())
    assert {c["holds"] for c in payload["claims"]} == {True}


def test_findings_rejects_unknown_rule_set(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--rules", "no-such-rules"]) == 2
    assert "unknown rule set" in capsys.readouterr().err
