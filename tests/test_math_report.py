"""The math report (issue 38): every figure is the one the other commands give, in all four files.

One report of a small rule set (three main bets, written by the test) is made
once, at small simulation sizes; its JSON is held to its schema and to what
``rtp --exact``, ``rtp --rounds N --seed S``, ``hold`` and ``rtp --count`` print
for the same settings and seeds. Its workbook is recomputed by ``formulas``
(an Excel evaluator that is not our code), its PDF rendered by pdftoppm and its
text read by pypdf.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from baccarat_sim.cli.hold import main as hold_main
from baccarat_sim.cli.math_report import main as report_main
from baccarat_sim.cli.rtp import main as rtp_main

from .cli_helpers import rules_text

ROOT = Path(__file__).resolve().parents[1]
SEED = 11
ROUNDS = 200_000
SHOES = 400
STEM = "test-table-math-report"


def run_json(main, capsys, *args) -> dict:
    status = main([*map(str, args), "--format", "json"])
    out = capsys.readouterr().out
    assert status == 0, out
    return json.loads(out)


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "test-table.toml"
    path.write_text(rules_text())
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory, rules_file) -> Path:
    out = tmp_path_factory.mktemp("report")
    status = report_main(["--rules", str(rules_file), "--rounds", str(ROUNDS), "--count-shoes", str(SHOES),
                          "--seed", str(SEED), "--out", str(out), "--quiet"])
    assert status == 0
    return out


@pytest.fixture(scope="module")
def document(report) -> dict:
    return json.loads((report / f"{STEM}.json").read_text())


def test_every_file_is_written(report):
    names = sorted(p.name for p in report.iterdir())
    assert names == sorted([f"{STEM}.json", f"{STEM}.md", f"{STEM}.pdf", f"{STEM}.xlsx",
                            "test-table-derived-counts.toml"])


def test_the_json_holds_to_its_schema(document):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "docs/reference/schemas/math-report.schema.json").read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(document))
    assert not errors, [f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors]


def test_the_exact_figures_are_rtp_exact(document, rules_file, capsys):
    exact = run_json(rtp_main, capsys, "--rules", rules_file, "--exact")
    by_id = {bet["id"]: bet for bet in exact["bets"]}
    for bet in document["bets"]:
        theirs = by_id[bet["id"]]
        for key in ("rtp", "house_edge", "hit_frequency", "push_frequency", "sd"):
            assert bet[key] == theirs[key], (bet["id"], key)
        lines = bet["combinations"]["lines"]
        assert sum(line["combinations"] for line in lines) == bet["combinations"]["total"]
        assert sum(Fraction(line["net_exact"]) * line["combinations"] for line in lines) == \
            Fraction(bet["ev_exact"]) * bet["combinations"]["total"]


def test_the_breakdown_is_the_analysis_breakdown(document, rules_file):
    from baccarat_sim import breakdown, exact_histogram, load_rules

    rules = load_rules(rules_file)
    hist = exact_histogram(8)
    for bet in document["bets"]:
        table = breakdown(hist, bet["id"], rules)
        assert [line["combinations"] for line in bet["combinations"]["lines"]] == \
            [int(n) for n in table["combinations"][:-1]]
        assert [line["event"] for line in bet["combinations"]["lines"]] == list(table["event"][:-1])


def test_the_monte_carlo_figures_are_rtp_with_the_same_seed(document, rules_file, capsys, tmp_path):
    run = run_json(rtp_main, capsys, "--rules", rules_file, "--rounds", ROUNDS, "--seed", SEED, "--out", tmp_path,
                   "--no-files")
    by_id = {bet["id"]: bet for bet in run["bets"]}
    for bet in document["bets"]:
        mc, theirs = bet["monte_carlo"], by_id[bet["id"]]
        assert (mc["rtp"], mc["z"], mc["se"]) == (theirs["rtp"], theirs["z"], theirs["se"]), bet["id"]
        assert [mc["ci95_low"], mc["ci95_high"]] == theirs["ci95"]
        assert mc["passed"] is (abs(theirs["z"]) < 4)
    assert document["monte_carlo"]["seed"] == SEED and document["monte_carlo"]["rounds"] == ROUNDS


def test_the_hold_table_is_the_hold_command(document, rules_file, capsys):
    horizons = [row["rounds"] for row in document["bets"][0]["hold"]]
    assert horizons == [10**k for k in range(3, 8)]
    for bet in document["bets"]:
        theirs = run_json(hold_main, capsys, "--rules", rules_file, "--model", "fresh", "--slip", f"{bet['id']}=1",
                          "--rounds", "1000,10000")
        for ours, horizon in zip(bet["hold"], theirs["horizons"]):
            assert ours["rounds"] == horizon["rounds"]
            assert ours["hold_mean"] == horizon["hold_mean"]
            assert ours["central_95"] == horizon["hold_range_95"]
            assert ours["central_99"] == horizon["hold_range_99"]
            quantiles = horizon["hold_quantiles"]
            assert ours["central_90"] == [quantiles["0.05"], quantiles["0.95"]]


def test_the_counting_figures_are_rtp_count_of_the_strategy_written(document, report, rules_file, capsys):
    strategy = report / document["counting"]["strategy_file"]
    theirs = run_json(rtp_main, capsys, "--rules", rules_file, "--model", "dealt", "--count", strategy, "--shoes",
                      SHOES, "--seed", SEED)
    rows = {row["bet"]: row for row in theirs["results"] if row["variant"] == "all rounds"}  # no bet has a cap
    counted = [bet for bet in document["bets"] if bet["count"]["skipped"] is None]
    assert counted, "no bet was counted"
    for bet in counted:
        count, row = bet["count"], rows[bet["id"]]
        for key in ("bet_share", "advantage_per_bet", "units_per_100_rounds", "units_per_shoe", "units_per_shoe_se"):
            assert count[key] == row[key], (bet["id"], key)
        assert theirs["counts"][bet["id"]]["tags"] == {k: float(v) for k, v in count["tags"].items()}
    assert f"--count {strategy}" in document["manifest"]["commands"]["count"]


def test_the_effect_of_removal_is_rtp_eor(document, rules_file, capsys):
    theirs = run_json(rtp_main, capsys, "--rules", rules_file, "--exact", "--eor")
    by_id = {bet["id"]: bet for bet in theirs["bets"]}
    for bet in document["bets"]:
        assert bet["eor_by_rank"] == by_id[bet["id"]]["eor_by_rank"]


def test_the_deck_table_is_rtp_exact_by_deck_count(document, rules_file, capsys):
    for decks in (1, 6):
        theirs = run_json(rtp_main, capsys, "--rules", rules_file, "--exact", "--decks", decks)
        label = f"{decks} deck" + ("s" if decks > 1 else "")
        for bet, their in zip(document["bets"], theirs["bets"]):
            assert bet["house_edge_by_shoe"][label] == their["house_edge"]
    assert document["decks"]["own"] == "8 decks"


def test_the_manifest_says_how_to_reproduce(document, rules_file):
    manifest = document["manifest"]
    assert manifest["rules_sha256"] == document["rules"]["sha256"]
    assert manifest["seed"] == SEED and manifest["random_stream_version"] >= 1
    assert f"--seed {SEED}" in manifest["command_line"] and str(rules_file) in manifest["command_line"]
    assert manifest["libraries"]["xlsxwriter"] and manifest["libraries"]["typst"]


# --------------------------------------------------------------------------- the workbook, recomputed by formulas


def _recompute(path: Path, inputs: dict | None = None) -> dict:
    formulas = pytest.importorskip("formulas")
    model = formulas.ExcelModel().loads(str(path)).finish()
    solution = model.calculate(inputs=inputs or {})
    values = {}
    for key, cell in solution.items():
        if "!" not in key or ":" in key.split("!")[1]:
            continue
        value = cell.value[0, 0] if hasattr(cell, "value") else cell
        values[key.split("]", 1)[1].upper()] = value
    return values


def _cell(values: dict, sheet: str, address: str):
    return values[f"{sheet.upper()}'!{address}"]


def _figure_rows(values: dict, sheet: str) -> dict:
    """Label -> value of the figures under a bet's table (column A label, column B value)."""
    found = {}
    for key, value in values.items():
        if key.startswith(f"{sheet.upper()}'!A") and isinstance(value, str):
            row = key.split("!A")[1]
            found[value] = values.get(f"{sheet.upper()}'!B{row}")
    return found


def test_every_computed_cell_of_the_workbook_is_the_exact_figure(report, document):
    values = _recompute(report / f"{STEM}.xlsx")
    for bet in document["bets"]:
        sheet = bet["id"]
        figures = _figure_rows(values, sheet)
        assert figures["RTP"] == pytest.approx(bet["rtp"], abs=1e-12)
        assert figures["House edge"] == pytest.approx(bet["house_edge"], abs=1e-12)
        assert figures["Hit frequency"] == pytest.approx(bet["hit_frequency"], abs=1e-12)
        assert figures["Push frequency"] == pytest.approx(bet["push_frequency"], abs=1e-12)
        assert figures["Standard deviation"] == pytest.approx(bet["sd"], abs=1e-12)
        assert figures["Total equals the stated total (difference)"] == 0
        for level in (90, 95, 99):
            assert figures[f"Volatility index {level}% (z x SD)"] == pytest.approx(
                bet["volatility_index"][str(level)], abs=1e-12)
        for i, line in enumerate(bet["combinations"]["lines"]):
            row = 9 + i
            assert _cell(values, sheet, f"F{row}") == str(line["combinations"])  # the exact count, as text
            assert _cell(values, sheet, f"I{row}") == line["combinations"]
            assert _cell(values, sheet, f"J{row}") == pytest.approx(line["probability"], abs=1e-12)
            assert _cell(values, sheet, f"K{row}") == pytest.approx(line["return"], abs=1e-12)
    summary = {values[f"SUMMARY'!A{r}"]: r for r in range(8, 8 + len(document["bets"]))}
    for bet in document["bets"]:
        assert _cell(values, "Summary", f"D{summary[bet['id']]}") == pytest.approx(bet["house_edge"], abs=1e-12)


def test_a_changed_pay_cell_gives_the_exact_house_edge_of_that_pay_table(report, document, tmp_path):
    from baccarat_sim import exact_histogram, settle
    from baccarat_sim.model.rules import load_rules

    changed = tmp_path / "tie-9.toml"
    changed.write_text(rules_text(tie_pays="9:1"))
    tie = next(r for r in settle(exact_histogram(8), load_rules(changed)) if r.id == "tie")
    values = _recompute(report / f"{STEM}.xlsx", {f"'[{STEM}.xlsx]TIE'!C9": 9})
    figures = _figure_rows(values, "tie")
    assert figures["House edge"] == pytest.approx(tie.house_edge, abs=1e-12)
    assert figures["RTP"] == pytest.approx(tie.rtp, abs=1e-12)
    assert figures["Standard deviation"] == pytest.approx(tie.sd, abs=1e-12)
    assert tie.house_edge != pytest.approx(next(b for b in document["bets"] if b["id"] == "tie")["house_edge"])


def test_counts_above_2_to_the_53_keep_their_value(tmp_path, rules_file, capsys):
    """16 decks: 832 x 831 x ... x 827 ~ 3.3e17 orderings, beyond a double's integers; the workbook keeps them."""
    out = tmp_path / "sixteen"
    assert report_main(["--rules", str(rules_file), "--decks", "16", "--bets", "tie", "--skip",
                        "decks,hold,countability", "--rounds", "1e5", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    bet = json.loads((out / f"{STEM}.json").read_text())["bets"][0]
    assert bet["combinations"]["total"] > 2**53
    values = _recompute(out / f"{STEM}.xlsx")
    figures = _figure_rows(values, "tie")
    assert figures["Total equals the stated total (difference)"] == 0  # exact, part by part
    assert figures["House edge"] == pytest.approx(bet["house_edge"], abs=1e-12)
    for i, line in enumerate(bet["combinations"]["lines"]):
        assert _cell(values, "tie", f"F{9 + i}") == str(line["combinations"])  # every digit, as text
        high, low = _cell(values, "tie", f"G{9 + i}"), _cell(values, "tie", f"H{9 + i}")
        assert int(high) * 10**9 + int(low) == line["combinations"]
        assert _cell(values, "tie", f"J{9 + i}") == pytest.approx(line["probability"], abs=1e-12)


# --------------------------------------------------------------------------- the PDF


def test_the_pdf_renders_and_states_each_bets_house_edge_and_combinations(report, document, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    pdf = report / f"{STEM}.pdf"
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "30", "-f", "1", "-l", "2", str(pdf), str(tmp_path / "page")],
                       check=True)
        pages = sorted(tmp_path.glob("page-*.png"))
        assert len(pages) == 2 and all(p.stat().st_size > 5_000 for p in pages)
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    text = " ".join(text.split())
    for bet in document["bets"]:
        assert f"{100 * bet['house_edge']:.6f}%" in text, bet["id"]
        for line in bet["combinations"]["lines"]:
            assert f"{line['combinations']:,}" in text, (bet["id"], line["event"])
    assert document["rules"]["sha256"] in text
    assert f"seed {SEED}" in text


def test_the_markdown_holds_every_bet(report, document):
    markdown = (report / f"{STEM}.md").read_text()
    for bet in document["bets"]:
        assert f"`{bet['id']}`" in markdown and f"{bet['combinations']['total']:,}" in markdown


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("args", "option"), [
    (["--rules", "no-such-rules"], "--rules"),
    (["--bets", "nope"], "--bets"),
    (["--skip", "everything"], "--skip"),
    (["--rounds", "0"], "--rounds"),
    (["--threads", "0"], "--threads"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, option, tmp_path, capsys):
    out = tmp_path / "out"
    status = report_main([*args, "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and option in err, err
    assert not out.exists()  # refused before the output folder is made


def test_out_that_is_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    assert report_main(["--out", str(target), "--quiet"]) == 2
    assert "--out" in capsys.readouterr().err


# --------------------------------------------------------------------------- the command line


def test_the_console_script_and_its_usage_lines(capsys):
    import tomllib

    from baccarat_sim.cli.math_report import COMMAND

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["baccarat-math-report"] == "baccarat_sim.cli.math_report:script"
    assert COMMAND.main(["--help"], prog=COMMAND.script) == 0
    assert capsys.readouterr().out.startswith("usage: baccarat-math-report ")
    assert COMMAND.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m baccarat_sim.math_report ")
    assert COMMAND.main(["--version"]) == 0 and capsys.readouterr().out.startswith("baccarat_sim ")


def test_help_imports_nothing_heavy():
    import sys

    code = ("import sys; from baccarat_sim.cli.math_report import main; main(['--help']); "
            "sys.exit(any(m in sys.modules for m in ('numba', 'numpy', 'pandas', 'matplotlib', 'typst')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_the_skippable_parts_are_the_analysis_parts():
    from baccarat_sim.analysis.math_report import PARTS
    from baccarat_sim.cli.math_report import PARTS as OPTION_PARTS

    assert OPTION_PARTS == PARTS


def test_a_rounded_commission_holds_as_the_hold_command_at_the_tables_minimum(tmp_path, capsys):
    """online-commission-rounding rounds the commission for the stake: the hold table is the minimum bet's slip."""
    out = tmp_path / "rounded"
    assert report_main(["--rules", "online-commission-rounding", "--bets", "banker", "--skip", "decks,countability",
                        "--rounds", "1e5", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    bet = json.loads((out / "online-commission-rounding-math-report.json").read_text())["bets"][0]
    stake = document_stake(out)
    theirs = run_json(hold_main, capsys, "--rules", "online-commission-rounding", "--model", "fresh", "--slip",
                      f"banker={stake}", "--rounds", "1000")
    assert bet["hold"][0]["hold_mean"] == theirs["horizons"][0]["hold_mean"]
    assert bet["hold"][0]["central_95"] == theirs["horizons"][0]["hold_range_95"]


def document_stake(out: Path) -> str:
    """The stake the report's hold command uses, read from its manifest."""
    document = json.loads((out / "online-commission-rounding-math-report.json").read_text())
    command = document["manifest"]["commands"]["hold"]
    return command.split("--slip banker=")[1].split()[0]


def test_ctrl_c_while_dealing_writes_nothing(tmp_path):
    """A stop signal during the Monte Carlo verification: exit 130, the one line, no report file."""
    import signal
    import sys
    import time

    out = tmp_path / "stopped"
    command = [sys.executable, "-m", "baccarat_sim.math_report", "--rules", "default", "--skip",
               "decks,hold,countability", "--rounds", "1e11", "--seed", "1", "--out", str(out)]
    with subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True) as process:
        try:
            for line in process.stderr:
                if line.startswith("Monte Carlo verification"):
                    break
            time.sleep(1.0)
            process.send_signal(signal.SIGINT)
            rest = process.stderr.read()
            status = process.wait(timeout=120)
        finally:
            process.kill()
    assert status == 130, rest
    assert "interrupted; nothing was written" in rest
    assert not any(out.glob("*math-report*"))


def test_a_depleted_shoe_and_the_commands_that_give_each_figure(tmp_path, capsys, rules_file):
    """--remove: the report's shoe is the depleted one, its deck table's full decks, each as its command gives it."""
    out = tmp_path / "removed"
    assert report_main(["--rules", str(rules_file), "--remove", "6,6", "--skip", "hold,countability", "--rounds",
                        "1e5", "--seed", "2", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    document = json.loads((out / f"{STEM}.json").read_text())
    assert document["decks"]["own"] == "a shoe of 414 cards" and document["dealing"]["cards"] == 414
    commands = document["manifest"]["commands"]
    own = run_json(rtp_main, capsys, *commands["exact"].split()[3:])
    assert [bet["house_edge"] for bet in own["bets"]] == [bet["house_edge"] for bet in document["bets"]]
    one_deck = run_json(rtp_main, capsys, *commands["exact_1_decks"].split()[3:])
    assert "--remove" not in commands["exact_1_decks"]
    assert [bet["house_edge"] for bet in one_deck["bets"]] == \
        [bet["house_edge_by_shoe"]["1 deck"] for bet in document["bets"]]
