"""The advantage-play command line: --eor, --count, --shoes, --cut-cards, --remove (issue 7)."""

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from baccarat_sim.analysis.settlement import settle
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import parse_rules
from baccarat_sim.model.shoe import remove_cards

from .cli_helpers import cli, rules_text, run_name

VALUE_COUNTS_8_DECKS = {str(v): (128 if v == 0 else 32) for v in range(10)}


@pytest.fixture()
def table(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(rules_text())
    return path


def test_eor_json_carries_every_point_value(capsys, table):
    status, out, _ = cli(capsys, "--rules", table, "--exact", "--eor", "--format", "json", "--quiet")
    assert status == 0
    doc = json.loads(out)
    for bet in doc["bets"]:
        eor = bet["eor"]
        assert set(eor) == {str(v) for v in range(10)}
        # One card removed at random leaves the EV unchanged: the count-weighted EORs sum to zero.
        assert math.fsum(VALUE_COUNTS_8_DECKS[v] * e for v, e in eor.items()) == pytest.approx(0, abs=1e-15)
        assert bet["count_tags"] and bet["count_tags"][0]["level"] == 1
    player = next(b for b in doc["bets"] if b["id"] == "player")
    assert player["eor"]["6"] == pytest.approx(0.000112842, abs=1e-9)  # removing a 6 helps the Player
    assert doc["run"]["eor_cards"] == 416


def test_eor_text_and_files(capsys, table, tmp_path):
    out_dir = tmp_path / "out"
    status, out, _ = cli(capsys, "--rules", table, "--exact", "--eor", "--out", out_dir, "--quiet")
    assert status == 0
    assert "effect of removal" in out and "derived balanced tags" in out
    stem = run_name("--rules", table, model="exact")
    assert (out_dir / f"{stem}-eor.csv").exists() and (out_dir / f"{stem}-eor.png").exists()
    assert "### Effect of removal" in (out_dir / f"{stem}.md").read_text()


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_remove_depletes_exact_and_monte_carlo_and_eor(capsys, table, tmp_path, model):
    out_dir = tmp_path / "out"
    status, out, _ = cli(capsys, "--rules", table, "--remove", "6,6,7", "--eor", "--rounds", "40000", "--seed", "3",
                         "--model", model, "--format", "json", "--out", out_dir, "--no-plots", "--quiet")
    assert status == 0
    doc = json.loads(out)
    rules = parse_rules(rules_text())
    shoe = remove_cards(8, "6,6,7")
    # The Monte Carlo run dealt from the depleted shoe: its histogram records the composition.
    name = run_name("--rules", table, "--remove", "6,6,7", "--model", model, seed=3)
    dealt = OutcomeHistogram.load(out_dir / f"{name}-histogram.npz")
    assert dealt.engine == "mc" and dealt.model == model and np.array_equal(dealt.shoe, shoe)
    exact = {r.id: r for r in settle(exact_histogram(shoe), rules)}
    assert doc["run"]["removed"] == "6,6,7" and doc["run"]["eor_cards"] == 413
    for bet in doc["bets"]:
        assert bet["exact_rtp"] == pytest.approx(exact[bet["id"]].rtp, abs=1e-15)
        assert abs(bet["z"]) < 4  # the Monte Carlo run dealt from the same depleted shoe
    counts = shoe.sum(axis=1)
    values = np.zeros(10)
    for rank, n in enumerate(counts):
        values[(rank + 1) % 10 if rank < 9 else 0] += n
    for bet in doc["bets"]:
        assert math.fsum(values[int(v)] * e for v, e in bet["eor"].items()) == pytest.approx(0, abs=1e-15)


STRATEGY = """
schema_version = 1
id = "tie-perfect"
name = "Tie, perfect play"
[[bets]]
id = "tie"
play = "perfect"
[[bets]]
id = "banker"
play = "always"
exact_edge = false
"""


def test_count_json_and_files(capsys, tmp_path):
    rules = tmp_path / "dealt.toml"
    rules.write_text(rules_text().replace('shuffle = "fresh"', 'shuffle = "dealt"'))
    strategy = tmp_path / "s.toml"
    strategy.write_text(STRATEGY)
    out_dir = tmp_path / "out"
    status, out, err = cli(capsys, "--rules", rules, "--count", strategy, "--shoes", "48", "--seed", "7",
                           "--cut-cards", "52,100:120", "--format", "json", "--out", out_dir)
    assert status == 0 and "seed 7" in err
    doc = json.loads(out)
    assert doc["run"]["shoes"] == 48 and doc["run"]["seed"] == 7
    assert [s["cut_card_from_end"] for s in doc["run"]["scenarios"]] == [[14, 14], [52, 52], [100, 120]]
    assert {r["bet"] for r in doc["results"]} == {"tie", "banker"} and len(doc["results"]) == 6
    banker = next(r for r in doc["results"] if r["bet"] == "banker")
    assert banker["bet_share"] == 1.0 and banker["exact_advantage_per_bet"] is None
    (stem,) = {p.name.rsplit(".", 1)[0] for p in out_dir.iterdir()}  # named by the one naming rule (analysis.naming)
    assert re.fullmatch(r"count-tie-perfect-test-table-[0-9a-f]{8}-seed7", stem)
    assert {p.name for p in out_dir.iterdir()} == {f"{stem}{s}" for s in (".json", ".csv", ".md", ".png")}
    status, text, _ = cli(capsys, "--rules", rules, "--count", strategy, "--shoes", "48", "--seed", "7",
                          "--quiet")
    assert status == 0 and "perfect play" in text


@pytest.mark.parametrize("extra, message", [
    (["--count", "no-such-strategy"], "--count: unknown strategy 'no-such-strategy'"),
    (["--count", "perfect-play", "--exact"], "--count: deals shoes; drop --exact"),
    (["--count", "perfect-play", "--rounds", "1000"], "--count: deals whole shoes: give --shoes; drop --rounds"),
    (["--count", "perfect-play", "--eor"], "drop --eor"),
    (["--count", "perfect-play", "--model", "fresh"], "drop --model fresh"),
    (["--count", "perfect-play", "--cut-cards", "60:50"], "--cut-cards: '60:50': low must not exceed high"),
    (["--count", "perfect-play", "--cut-cards", "a"], "--cut-cards: 'a' is not a number of cards"),
    (["--count", "perfect-play", "--cut-cards", "500"], "--cut-cards: [500, 500] cards from the end leaves no room"),
    (["--count", "perfect-play", "--shoes", "0"], "--shoes: must be at least 1"),
])
def test_bad_counting_input_is_one_line_exit_2(capsys, table, extra, message):
    status, out, err = cli(capsys, "--rules", table, "--quiet", *extra)
    assert status == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_help_lists_the_advantage_options():
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--help"], capture_output=True, text=True,
                          timeout=30)
    for option in ("--eor", "--count", "--shoes", "--cut-cards"):
        assert option in done.stdout, option
