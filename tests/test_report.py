"""The report layer and the progress bar (issue 5)."""

from __future__ import annotations

import json

import pytest

from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.engines.state import RunState
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.report.progress import _NoOpBar, progress_bar
from baccarat_sim.report.run_report import build_report

from .cli_helpers import rules_text
from .run_helpers import run_chunks


@pytest.fixture(scope="module")
def rules():
    claims = ('\n[[claims]]\nwhat = "bet"\nbet = "banker"\nvalue = "98.94%"\n'
              '\n[[claims]]\nwhat = "bet"\nbet = "player"\nvalue = "98.80%"\n')  # Player's is wrong: 98.7649%
    return parse_rules(rules_text(extra=claims))


@pytest.fixture(scope="module")
def mc_report(rules):
    hist = simulate(rules, 200_000, seed=23)
    return build_report(rules, exact_histogram(8), hist, {"threads": 1, "seconds": 0.5, "rounds_per_second": 4e5,
                                                        "wall_rounds_per_second": 4e5})


def test_table_columns_and_values(mc_report):
    t = mc_report.table
    assert list(t.index) == ["player", "banker", "tie"]
    for _, row in t.iterrows():
        assert row["ci95_low"] < row["rtp"] < row["ci95_high"]
        assert row["house_edge"] == pytest.approx(1 - row["rtp"])
        assert row["z"] == pytest.approx((row["rtp"] - row["exact_rtp"]) / row["se"])
        # Rounds for a +/-0.01% 95% CI at this SD: (1.96 SD / 1e-4)^2.
        assert row["rounds_for_0_01pct_ci"] == pytest.approx((1.959964 * row["sd"] / 1e-4) ** 2, rel=1e-5)
    # Wizard of Odds (baccarat basics, 8 decks): SD per unit about 0.93 Banker, 0.95 Player, 2.64 Tie.
    assert t.loc["banker", "sd"] == pytest.approx(0.93, abs=0.01)
    assert t.loc["player", "sd"] == pytest.approx(0.95, abs=0.01)
    assert t.loc["tie", "sd"] == pytest.approx(2.64, abs=0.02)


def test_display_and_text(mc_report):
    shown = mc_report.display_table()
    assert list(shown.columns) == ["bet", "RTP % (95% CI)", "edge %", "exact %", "stated", "z", "hit %", "SD",
                                   "rounds ±0.01%"]
    assert shown.loc["player", "stated"] == "98.80% *" and shown.loc["banker", "stated"] == "98.94%"
    text = mc_report.to_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    assert "200,000" in text and "seed      23" in text and "M rounds/s" in text
    assert "player RTP: stated 98.80%" in text and "does NOT hold" in text
    # Narrower: long check lines wrap (never cut: the verdict is at their end).
    narrow = mc_report.to_text(width=92)
    assert max(len(line) for line in narrow.splitlines()) <= 92
    assert "-> does NOT hold at the sheet's precision (+/-0.005%)" in " ".join(narrow.split())


def test_json_adds_stated_verdicts(mc_report):
    bets = {b["id"]: b for b in json.loads(mc_report.to_json())["bets"]}
    assert bets["banker"]["stated_rtp"] == pytest.approx(0.9894) and bets["banker"]["stated_holds"] is True
    assert bets["player"]["stated_holds"] is False and bets["tie"]["stated_holds"] is None
    assert bets["tie"]["se_method"] == "iid"


def test_exact_report(rules):
    report = build_report(rules, exact_histogram(8))
    run = report.to_dict()["run"]
    for key in ("rounds", "shoes", "seed", "threads", "seconds", "rounds_per_second"):
        assert key in run and run[key] is None
    assert "push %" in report.display_table().columns
    assert "exact, every ordering" in report.to_text()


def test_partial_and_resumed_headers(rules):
    plan = plan_run(rules, 1_000_000, seed=3, model="dealt")
    state = RunState.empty(plan)
    run_chunks(plan, state, threads=1, max_chunks=3)
    hist = state.histogram(plan)
    report = build_report(rules, exact_histogram(8), hist, {"complete": False, "rounds_requested": 1_000_000,
                                                           "resumed_from_rounds": 1000, "threads": 1})
    text = report.to_text()
    assert "of 1,000,000 requested (stopped early" in text
    assert f"in {hist.shoes:,} shoes" in text and "resumed at 1,000" in text
    assert "freshly shuffled shoe" in text  # the dealt-model caveat on z


def test_markdown_table_is_well_formed(mc_report):
    rows = [line for line in mc_report.to_markdown().splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 3 and len({row.count("|") for row in rows}) == 1


# --------------------------------------------------------------------------- progress


def test_progress_bar_off_and_auto():
    assert isinstance(progress_bar(False, 100), _NoOpBar)
    # Under pytest stderr is captured, not a terminal: "auto" shows nothing.
    bar = progress_bar(None, 100, initial=10)
    assert isinstance(bar, _NoOpBar)
    with bar:
        bar.update(5)
    assert bar.n == 15


def test_progress_bar_counts_rounds_per_chunk(capsys):
    rules = load_rules("default")
    plan = plan_run(rules, 300_000, seed=1)
    with progress_bar(True, plan.rounds_requested) as bar:
        run_chunks(plan, RunState.empty(plan), threads=1, progress=bar)
    err = capsys.readouterr().err
    assert "300k/300k" in err and "round/s" in err
    # One redraw per chunk at most (tqdm may skip some): never per round.
    assert err.count("/300k") <= plan.n_chunks + 2
