"""Files a run writes to --out (issue 5): reloaded and re-settled to the same numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from baccarat_sim import __version__
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.rtp import main
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.conditions import evaluate
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.report.run_report import build_report

from .cli_helpers import rules_text, run_name

STEM = run_name(seed=7)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """One Monte Carlo run of the CLI with every file written (plots included); its stdout JSON."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("run")
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = main(["--rounds", "2e5", "--seed", "7", "--out", str(out), "--quiet", "--format", "json"])
    assert status == 0
    return out, json.loads(stdout.getvalue())


def test_every_file_is_written(run_dir):
    out, _ = run_dir
    names = sorted(p.name for p in out.iterdir())
    # The finished run's checkpoint stays beside its files, so that the run can be extended (issue 16).
    assert names == sorted([f"checkpoint-{STEM}.npz"] + [f"{STEM}{suffix}" for suffix in (
        "-histogram.npz", ".csv", ".json", ".md", "-rtp.png", "-convergence.png", "-scores.png")])


def test_json_file_is_the_printed_document_with_all_metadata(run_dir):
    out, printed = run_dir
    document = json.loads((out / f"{STEM}.json").read_text())
    assert document == printed
    run = document["run"]
    assert run["version"] == __version__
    assert run["rules_sha256"] == load_rules("default").sha256
    assert (run["seed"], run["rounds"], run["model"], run["decks"]) == (7, 200_000, "fresh", 8)
    assert run["threads"] >= 1 and run["seconds"] > 0 and run["complete"] is True


def test_histogram_reloads_and_resettles_to_the_same_numbers(run_dir):
    out, printed = run_dir
    hist = OutcomeHistogram.load(out / f"{STEM}-histogram.npz")
    assert (hist.engine, hist.model, hist.seed, hist.rounds, hist.total) == ("mc", "fresh", 7, 200_000, 200_000)
    assert hist.meta["version"] == __version__ and hist.meta["rules_sha256"] == printed["run"]["rules_sha256"]
    assert hist.batches is not None and np.array_equal(hist.batches.sum(axis=0), hist.counts)
    rules = load_rules("default")
    again = build_report(rules, exact_histogram(8), hist).to_dict()["bets"]
    for before, after in zip(printed["bets"], again):
        for key in ("rtp", "house_edge", "ci95", "z", "sd", "hit_frequency", "exact_rtp"):
            assert after[key] == before[key], (before["id"], key)
    for result, bet in zip(settle(hist, rules), printed["bets"]):
        assert result.rtp == pytest.approx(bet["rtp"], rel=1e-14)


def test_histogram_resettles_another_pay_table(run_dir):
    # The point of saving the histogram: a pay table that was not in the run, settled later without dealing.
    out, _ = run_dir
    hist = OutcomeHistogram.load(out / f"{STEM}-histogram.npz")
    tie_9_to_1 = parse_rules(rules_text(tie_pays="9:1"))
    ties = int(hist.counts[evaluate("winner == tie")].sum())
    (tie,) = [r for r in settle(hist, tie_9_to_1) if r.id == "tie"]
    assert tie.rtp == pytest.approx(10 * ties / hist.total, rel=1e-14)


def test_csv_has_one_row_per_bet_and_the_run_metadata(run_dir):
    out, printed = run_dir
    frame = pd.read_csv(out / f"{STEM}.csv")
    assert list(frame["id"]) == [b["id"] for b in printed["bets"]]
    np.testing.assert_allclose(frame["rtp"], [b["rtp"] for b in printed["bets"]], rtol=1e-15)
    np.testing.assert_allclose(frame["ci95_low"], [b["ci95"][0] for b in printed["bets"]], rtol=1e-15)
    for key in ("version", "rules_sha256", "seed", "rounds", "threads"):
        assert frame[key].nunique() == 1 and str(frame[key][0]) == str(printed["run"][key]), key


def test_markdown_summary_links_its_plots(run_dir):
    out, printed = run_dir
    text = (out / f"{STEM}.md").read_text()
    assert text.startswith("## Punto banco")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == 1 + len(printed["bets"])
    assert len({row.count("|") for row in rows}) == 1
    for suffix in ("rtp", "convergence", "scores"):
        assert f"]({STEM}-{suffix}.png)" in text and (out / f"{STEM}-{suffix}.png").exists()


def test_plots_are_real_pngs(run_dir):
    from matplotlib.image import imread

    out, _ = run_dir
    for suffix in ("rtp", "convergence", "scores"):
        path = out / f"{STEM}-{suffix}.png"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        image = imread(path)
        assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 500
        assert image[..., :3].std() > 0.05  # something is drawn, not a blank canvas


def test_exact_only_files(tmp_path, capsys):
    assert main(["--exact", "--out", str(tmp_path), "--quiet", "--no-plots"]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in tmp_path.iterdir())
    stem = run_name(model="exact")
    assert names == [f"{stem}-histogram.npz", f"{stem}.csv", f"{stem}.json", f"{stem}.md"]
    hist = OutcomeHistogram.load(tmp_path / f"{stem}-histogram.npz")
    assert hist.engine == "exact" and np.array_equal(hist.counts, exact_histogram(8).counts)
    assert hist.total == 416 * 415 * 414 * 413 * 412 * 411  # every ordering of six cards of an 8-deck shoe
