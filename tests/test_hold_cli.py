"""``python -m baccarat_sim.hold`` end to end (issue 14): the JSON contract, exit statuses, one-line errors, files."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from baccarat_sim.cli.hold import main

HORIZON_FIELDS = {"rounds", "mean", "sd", "p_house_behind", "quantiles", "hold_range_95", "hold_range_99", "method"}
QUANTILE_KEYS = ["0.001", "0.01", "0.05", "0.5", "0.95", "0.99", "0.999"]


def hold(capsys, *args):
    """Run the command in-process: (exit status, stdout, stderr)."""
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_json_contract(capsys):
    status, out, err = hold(capsys, "--slip", "Banker=100,player=50,TIE=5", "--rounds", "100,1e4", "--k", "1000",
                            "--k", "5000,20000", "--format", "json", "--quiet")
    assert status == 0 and err == ""
    doc = json.loads(out)
    assert list(doc)[:3] == ["rules", "slip", "horizons"]
    assert doc["rules"]["id"] == "default" and doc["rules"]["model"] == "fresh"
    assert doc["slip"]["stakes"] == {"banker": 100.0, "player": 50.0, "tie": 5.0} and doc["slip"]["total_stake"] == 155
    assert sum(r["probability"] for r in doc["slip"]["one_round"]) == pytest.approx(1.0)
    assert [h["rounds"] for h in doc["horizons"]] == [100, 10_000]
    for horizon in doc["horizons"]:
        assert HORIZON_FIELDS <= set(horizon)
        assert list(horizon["quantiles"]) == QUANTILE_KEYS
        values = [horizon["quantiles"][k] for k in QUANTILE_KEYS]
        assert values == sorted(values)
        low95, high95 = horizon["hold_range_95"]
        low99, high99 = horizon["hold_range_99"]
        assert low99 <= low95 < horizon["hold_mean"] < high95 <= high99 < 1  # fractions of the handle
        assert horizon["mean"] == pytest.approx(doc["slip"]["mean"] * horizon["rounds"])
        assert horizon["method"].startswith("exact lattice") and horizon["error_bound"] < 1e-9
        assert [b["k"] for b in horizon["p_house_behind_by"]] == [1000, 5000, 20000]
        assert 0 < horizon["p_house_behind"] < 1
    assert "observed" not in doc and "sessions" not in doc


def test_observed_hold_exit_statuses(capsys):
    base = ["--slip", "banker=100", "--rounds", "1e4", "--rounds-played", "1e4", "--observed-handle", "1e6",
            "--format", "json", "--quiet"]
    inside, out, _ = hold(capsys, *base, "--observed-win", "10000")  # a 1.0% hold: Banker's edge is 1.06%
    verdict = json.loads(out)["observed"]
    assert inside == 0 and verdict["inside_95"] and not verdict["outside"] and verdict["range_checked"] == 95
    assert 0 < verdict["percentile"] < 100 and 0.05 < verdict["p_two_sided"] <= 1
    assert verdict["hold"] == 0.01 and verdict["method"].startswith("exact lattice")
    outside, out, _ = hold(capsys, *base, "--observed-win", "-40000")  # the house lost 4% of the handle
    verdict = json.loads(out)["observed"]
    assert outside == 1 and not verdict["inside_95"] and verdict["outside"] and verdict["p_two_sided"] < 0.05
    # Between the 95% and the 99% range: outside the one, inside the other.
    low95, low99 = verdict["range_95"][0], verdict["range_99"][0]
    between = (low95 + low99) / 2 * 1e6
    status95, out, _ = hold(capsys, *base, "--observed-win", f"{between:.0f}")
    status99, _, _ = hold(capsys, *base, "--observed-win", f"{between:.0f}", "--range", "99")
    verdict = json.loads(out)["observed"]
    assert (status95, status99) == (1, 0) and not verdict["inside_95"] and verdict["inside_99"]


def test_the_text_report_names_every_method(capsys):
    status, out, err = hold(capsys, "--slip", "banker=10", "--rounds", "1000", "--observed-win", "-200",
                            "--observed-handle", "10000", "--rounds-played", "1000", "--bankroll", "200",
                            "--stop-loss", "100", "--stop-win", "50", "--max-rounds", "200", "--sessions", "20000",
                            "--seed", "3")
    assert status == 0
    assert "seed 3" in err
    for text in ("1,000 rounds: exact lattice", "verdict   the observed hold is inside the 95% range",
                 "player sessions:", "Monte Carlo: 20,000 sessions", "exact: absorbing Markov chain", "P(goal: +50)"):
        assert text in out, text
    assert max(len(line) for line in out.splitlines()) <= 120


@pytest.mark.parametrize("args, message", [
    (["--slip", "bankr=100"], "--slip: no bet 'bankr' in rule set 'default'; did you mean banker?"),
    (["--slip", "banker=100,dragon_bonus=5"], "--slip: no bet 'dragon_bonus'"),
    (["--slip", "tie=20", "--rules", "rng-6deck-single-hand"], "--slip: limits.max_bet.tie: a stake of 20 on tie"),
    (["--slip", "banker=-5"], "--slip: the stake on banker must be an amount of chips > 0, got -5"),
    (["--slip", "banker=0"], "--slip: the stake on banker must be an amount of chips > 0, got 0"),
    (["--slip", "banker=10", "--rounds", "1e4,2.5"], "argument --rounds: '2.5': must be a whole number"),
    (["--slip", "banker=10", "--rounds", "100.5"], "argument --rounds: must be a whole number"),
    (["--slip", "banker=10", "--observed-win", "5", "--observed-handle", "0", "--rounds-played", "10"],
     "--observed-handle: must be an amount of chips > 0, got 0"),
    (["--slip", "banker=10", "--observed-win", "5"], "--observed-win: an observed hold needs --observed-handle"),
    (["--slip", "banker=10", "--bankroll", "-1"], "argument --bankroll: must be an amount of chips > 0"),
    (["--slip", "banker=10", "--bankroll", "5"], "--bankroll: 5 cannot cover the slip's total stake of 10"),
    (["--slip", "banker=10", "--stop-win", "5"], "--stop-win: sets up player sessions; give --bankroll too"),
    (["--slip", "banker=10", "--threads", "999"], "--threads: must be a whole number from 1 to"),
    (["--slip", "banker=10", "--rules", "no-such-rules"], "--rules: unknown rule set"),
    (["--slip", "banker=10", "--tables", "100"], "--tables: simulates dealt shoes"),
    (["--slip", "banker=10", "--model", "dealt", "--tables", "1"], "--tables: must be at least 2"),
])
def test_bad_input_is_one_line_and_status_2(capsys, args, message):
    status, out, err = hold(capsys, *args, "--quiet")
    assert status == 2 and out == ""
    assert err.startswith(f"python -m baccarat_sim.hold: error: {message}") and err.count("\n") == 1, err


def test_files_only_with_out(capsys, tmp_path):
    out_dir = tmp_path / "hold"
    status, _, err = hold(capsys, "--slip", "banker=10", "--rounds", "100,1000", "--bankroll", "100",
                          "--stop-win", "50", "--sessions", "10000", "--max-rounds", "100", "--seed", "1",
                          "--out", out_dir)
    assert status == 0
    names = sorted(p.name for p in out_dir.iterdir())
    stem = "hold-default-fresh-banker10-seed1"
    assert names == sorted(f"{stem}{suffix}" for suffix in (".json", ".csv", ".md", "-sessions.csv", "-fan.png",
                                                            "-distribution.png", "-bankroll.png"))
    doc = json.loads((out_dir / f"{stem}.json").read_text())
    assert doc["sessions"]["bankroll_curve"] and doc["sessions"]["exact"] is not None
    assert f"wrote {out_dir / stem}.json" in err
    status, _, _ = hold(capsys, "--slip", "banker=10", "--rounds", "100", "--out", tmp_path / "plain", "--no-plots")
    assert status == 0 and not list((tmp_path / "plain").glob("*.png"))
    before = sorted(p.name for p in tmp_path.iterdir())
    hold(capsys, "--slip", "banker=10", "--rounds", "100", "--quiet")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written without --out


def test_dealt_model_uses_monte_carlo_tables_with_intervals(capsys):
    status, out, err = hold(capsys, "--slip", "banker=10", "--model", "dealt", "--rounds", "200", "--tables",
                            "4000", "--seed", "5", "--format", "json", "--quiet")
    assert status == 0
    horizon = json.loads(out)["horizons"][0]
    assert horizon["kind"] == "monte carlo" and horizon["method"].startswith("Monte Carlo: 4,000 simulated tables")
    low, high = horizon["p_house_behind_ci95"]
    assert low < horizon["p_house_behind"] < high and horizon["mean_ci95"][0] < horizon["mean"]


def test_csv_and_markdown(capsys):
    status, out, _ = hold(capsys, "--slip", "player=10", "--rounds", "10,100", "--format", "csv", "--quiet")
    assert status == 0 and out.splitlines()[0].startswith("rules,slip,rounds,handle,mean,sd,p_house_behind")
    assert len(out.splitlines()) == 3
    status, out, _ = hold(capsys, "--slip", "player=10", "--rounds", "10", "--format", "markdown", "--quiet")
    assert status == 0 and out.startswith("## What a table does over N rounds") and "| rounds |" in out


def test_help_does_not_import_numpy_or_numba():
    code = ("import sys\nfrom baccarat_sim.cli.hold import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
            "    pass\nprint(sorted(m for m in ('numpy', 'numba', 'pandas') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert "--observed-win" in done.stdout and "--bankroll" in done.stdout


@pytest.mark.parametrize("rounds", ["1000", "1000,1e5"])
def test_the_fan_chart_draws_its_bands_for_one_horizon_too(capsys, tmp_path, rounds):
    # Issue 41, item 13: with one --rounds the fan chart had a legend and no band (a band between two points at one
    # x has no width). Read the written PNG: at the horizon, in the middle of the 50% band, the pixels are the
    # band's blue, not the axes' white.
    import dataclasses

    import matplotlib.image
    from matplotlib.collections import PolyCollection

    from baccarat_sim.analysis.hold import analyze_hold, fan_chart
    from baccarat_sim.analysis.slip import build_slip
    from baccarat_sim.model.rules import load_rules
    from baccarat_sim.report.hold_plots import hold_fan_figure

    status, _, _ = hold(capsys, "--slip", "banker=100", "--rounds", rounds, "--out", tmp_path, "--quiet")
    assert status == 0
    horizons = [int(float(r)) for r in rounds.split(",")]
    slip = build_slip(load_rules("default"), {"banker": 100})
    analysis = analyze_hold(slip, horizons)
    analysis = dataclasses.replace(analysis, fan=fan_chart(slip, horizons, analysis.distributions))
    fig = hold_fan_figure(analysis)  # the figure the command wrote, drawn again to know where the band lies
    ax = fig.axes[0]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 4
    for band in bands:
        xs, ys = band.get_paths()[0].vertices.T
        assert np.ptp(xs) > 0 and np.ptp(ys) > 0  # a band with an area
    fan = analysis.fan
    median = 100 * fan.holds[0][fan.levels.index(0.5)]
    upper = 100 * fan.holds[0][fan.levels.index(0.75)]
    x, y = ax.transData.transform((fan.rounds[0], (median + upper) / 2))
    png = matplotlib.image.imread(next(tmp_path.glob("*-fan.png")))
    scale = png.shape[1] / fig.bbox.width  # the file's dpi over the figure's: the whole figure, scaled
    assert png.shape[0] == round(fig.bbox.height * scale)
    red, green, blue = png[int(round(png.shape[0] - y * scale)), int(round(x * scale)), :3]
    assert blue > red + 0.2 and blue > green, (red, green, blue)  # the band's blue, not white
