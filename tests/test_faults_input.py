"""Issue 21, hangs, runaway cost and internal errors on hostile input: one line and exit 2, in seconds.

Rule and strategy files with a dotted key or header of thousands of parts;
``hold`` amounts with huge exponents, or far beyond what a table can reach;
checkpoints that lie about their arrays or name heavy card-level conditions;
a ``--baseline`` nested 100,000 deep or listing a bet twice; options that do
not apply (the one table that says where each applies); a saved histogram
settled under a rule set that deals its shoes otherwise; large stakes printed
without floating-point noise; a negative amount read as a number.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from baccarat_sim.cli.hold import main as hold_main
from baccarat_sim.cli.rtp import EXIT_PARTIAL, build_parser
from baccarat_sim.engines.checkpoint import FORMAT, load_checkpoint
from baccarat_sim.errors import CheckpointError
from baccarat_sim.model.codes import N_CODES
from baccarat_sim.model.rules import load_rules
from baccarat_sim.storage.archive import read_archive, write_archive

from .cli_helpers import cli, rules_text, run_name
from .test_faults import JSON_QUIET, one_line_error


def hold(capsys, *args):
    status = hold_main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --------------------------------------------------------------------------- 6: quadratic TOML


def _dotted(parts: int) -> str:
    return ".".join(["a"] * parts)


@pytest.mark.parametrize(("name", "text"), [
    ("dotted-key", rules_text(extra=f"\n{_dotted(20_000)} = 1\n")),
    ("table-header", rules_text(extra=f"\n[{_dotted(20_000)}]\n")),
    ("quoted-key", rules_text(extra="\n" + ".".join(['"a.b"'] * 20_000) + " = 1\n")),
])
def test_a_rule_file_of_pathological_shape_is_refused_before_parsing(capsys, tmp_path, name, text):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    started = time.monotonic()
    status, _, err = cli(capsys, "--exact", "--rules", path, "--quiet")
    assert time.monotonic() - started < 5  # 20 s and more for a 40 KB key before (quadratic in its parts)
    one_line_error(status, err, str(path), "at most 32")


def test_a_strategy_file_with_a_key_of_many_parts_is_refused_before_parsing(capsys, tmp_path):
    path = tmp_path / "strategy.toml"
    path.write_text(f'schema_version = 1\nid = "x"\n{_dotted(20_000)} = 1\n')
    started = time.monotonic()
    status, _, err = cli(capsys, "--rules", "live-8deck-side-bets", "--count", path, "--shoes", 16, "--quiet")
    assert time.monotonic() - started < 5
    one_line_error(status, err, str(path), "more than 32 parts")


# --------------------------------------------------------------------------- 8 and 11: hold's amounts


@pytest.mark.parametrize("options", [
    ["--slip", "banker=1e100000000"],
    ["--slip", "banker=100", "--k", "1e100000000"],
    ["--slip", "banker=100", "--observed-win", "1e100000000", "--observed-handle", "1e6", "--rounds-played", "100"],
    ["--slip", "banker=100", "--observed-win", "1", "--observed-handle", "1e100000000", "--rounds-played", "100"],
    ["--slip", "banker=100", "--bankroll", "1e100000000"],
    ["--slip", "banker=100", "--bankroll", "1000", "--stop-loss", "1e100000000"],
    ["--slip", "banker=100", "--bankroll", "1000", "--stop-win", "1e100000000"],
])
def test_hold_refuses_a_huge_exponent_before_computing_it(options):
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.hold", *options], capture_output=True, text=True,
                          timeout=60)
    assert time.monotonic() - started < 30  # Fraction("1e100000000") hung before
    at = next(i for i, value in enumerate(options) if "1e100000000" in value)
    one_line_error(done.returncode, done.stderr, options[at - 1], "exponent 30")


@pytest.mark.parametrize("options", [
    ["--slip", "banker=1e300"],
    ["--slip", "banker=100", "--k", "1e300"],
    ["--slip", "banker=100", "--observed-win", "1e300", "--observed-handle", "1e6", "--rounds-played", "100"],
    ["--slip", "banker=100", "--bankroll", "1e300"],
    ["--slip", "banker=10", "--bankroll", "1000", "--stop-loss", "1e300", "--stop-win", "1e300"],
    ["--slip", "banker=1e30,player=1"],  # steps of a twentieth of a chip over 2e31 chips: no lattice holds it
    ["--slip", "banker=1e18,tie=1", "--rounds", "100"],
])
def test_hold_on_amounts_it_cannot_price_is_one_line_and_exit_2(capsys, options):
    rounds = [] if "--rounds" in options else ["--rounds", "100"]
    status, _, err = hold(capsys, *options, *rounds, "--sessions", "1000", "--quiet") if "--bankroll" in options \
        else hold(capsys, *options, *rounds, "--quiet")
    one_line_error(status, err, "--")
    assert "internal error" not in err


@pytest.mark.parametrize(("options", "expected"), [
    (["--k", "1e30"], 0),
    (["--k", "1e20"], 0),
    (["--observed-win", "1e30", "--observed-handle", "1e6", "--rounds-played", "100"], 1),
    (["--observed-win", "-1e30", "--observed-handle", "1e6", "--rounds-played", "100"], 1),
    (["--bankroll", "1e30", "--max-rounds", "100", "--sessions", "1000"], 0),
    (["--bankroll", "1000", "--stop-loss", "1e30", "--stop-win", "1e30", "--max-rounds", "100", "--sessions", "1000"],
     0),
])
def test_hold_answers_for_amounts_beyond_what_a_table_can_reach(capsys, options, expected):
    status, out, err = hold(capsys, "--slip", "banker=100", "--rounds", "100", "--seed", 1, *options, "--format",
                            "json", "--quiet")
    assert status == expected, err
    document = json.loads(out)
    if "--k" in options:  # the house is never behind by more than 100 rounds can lose
        (horizon,) = document["horizons"]
        assert [entry["p"] for entry in horizon["p_house_behind_by"]] == [0.0]
    if "--observed-win" in options:
        assert document["observed"]["outside"] is True


def test_hold_prints_a_large_stake_without_floating_point_noise(capsys):
    status, out, _ = hold(capsys, "--slip", "banker=1e20", "--rounds", "100", "--quiet")
    assert status == 0
    (row,) = [line.split() for line in out.splitlines() if line.startswith("100 ")][:1]
    mean, sd = row[1], row[2]
    rules = load_rules("default")
    from baccarat_sim.analysis.slip import build_slip

    exact_mean = -100 * build_slip(rules, {"banker": Fraction(10**20)}).player.mean
    assert mean == f"{round(exact_mean):,}"  # exact: every digit is the mean's
    assert sd.endswith(",000,000") and len(sd.replace(",", "").rstrip("0")) <= 15  # no digit past a float's


def test_hold_reads_a_negative_amount_in_scientific_notation_as_a_number(capsys):
    status, out, err = hold(capsys, "--slip", "banker=100", "--observed-win", "-6e4", "--observed-handle", "15e6",
                            "--rounds-played", "150000", "--format", "json", "--quiet")
    assert status in (0, 1), err
    assert json.loads(out)["observed"]["win"] == -60_000


# --------------------------------------------------------------------------- 9: hostile checkpoints


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A folder with the checkpoint of a default run of seed 2, stopped after one chunk."""
    from baccarat_sim.cli.rtp import main

    out = tmp_path_factory.mktemp("stopped")
    assert main(["--rounds", "4e6", "--seed", "2", "--threads", "1", "--max-chunks", "1", "--out", str(out),
                 "--quiet", "--no-plots"]) == EXIT_PARTIAL
    return out / f"checkpoint-{run_name(seed=2)}.npz"


def _rewrite(source: Path, target: Path, edit_header=None, arrays=None) -> None:
    header, saved = read_archive(source, FORMAT, "checkpoint")
    if edit_header is not None:
        edit_header(header)
    write_archive(target, FORMAT, header, saved if arrays is None else arrays)


def test_a_checkpoint_naming_heavy_card_level_conditions_is_refused_before_they_are_compiled(capsys, tmp_path,
                                                                                             stopped_run):
    heavy = ["(P1.rank == P3.rank) and (P1.suit == P3.suit)", "(B1.rank == P3.rank) and (B1.suit == P3.suit)",
             "(P2.rank == B3.rank) and (P2.suit == B3.suit)", "B2.colour == B3.colour"]

    def edit(header):
        header["plan"].update(detail=[["codes", heavy]], n_cells=16 * N_CODES)  # one group, by outcome code

    _rewrite(stopped_run, tmp_path / stopped_run.name, edit)
    started = time.monotonic()
    status, _, err = cli(capsys, "--resume", "--out", tmp_path, "--no-plots", "--quiet")
    assert time.monotonic() - started < 15  # 70 s before: every condition compiled before the plan was compared
    one_line_error(status, err, "--resume", "card detail", "no card detail")


class _ChunkwiseDeflate:
    """A raw deflate compressor that ends every chunk with a full flush, so that a chunk written again (the same
    bytes object) reuses its compressed bytes: deflating 1.9 GiB of zeros takes half a minute, this a second or two.

    After a full flush deflate keeps no history, so equal chunks compress to equal bytes and the stream is the
    valid deflate stream of the whole member.
    """

    def __init__(self):
        self._deflate = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        self._last = (None, b"")

    def compress(self, data):
        if data is not self._last[0]:
            self._last = (data, self._deflate.compress(data) + self._deflate.flush(zlib.Z_FULL_FLUSH))
        return self._last[1]

    def flush(self):
        return self._deflate.flush()


def _huge_member_checkpoint(source: Path, target: Path, rows: int) -> None:
    """The checkpoint with ``by_position`` swapped for a zero array of ``rows`` rows: small on disk, huge inflated."""
    _rewrite(source, target)
    with zipfile.ZipFile(target) as archive:
        members = {name: archive.read(name) for name in archive.namelist() if name != "by_position.npy"}
    header = {"descr": "<i8", "fortran_order": False, "shape": (rows, N_CODES)}
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        # zipfile takes a member's compressor from this (private, long-stable) function when the member opens.
        with (mock.patch.object(zipfile, "_get_compressor", lambda *_, **__: _ChunkwiseDeflate()),
              archive.open("by_position.npy", "w", force_zip64=True) as member):
            np.lib.format.write_array_header_2_0(member, header)
            zeros = bytes(1 << 24)
            for _ in range(rows * N_CODES * 8 // len(zeros)):
                member.write(zeros)
            member.write(bytes(rows * N_CODES * 8 % len(zeros)))


def test_a_checkpoint_whose_array_is_not_its_plans_size_is_refused_before_it_is_decompressed(tmp_path, stopped_run):
    rows = (1900 << 20) // (8 * N_CODES)  # 1.9 GiB of zeros, a few MB on disk
    target = tmp_path / stopped_run.name
    _huge_member_checkpoint(stopped_run, target, rows)
    assert target.stat().st_size < 20 << 20
    with zipfile.ZipFile(target) as archive, archive.open("by_position.npy") as member:  # a real bomb: it inflates
        start = member.read(64 << 20)
        assert start.startswith(np.lib.format.magic(2, 0)) and not start[start.index(b"\n") + 1:].strip(b"\0")
        assert archive.getinfo("by_position.npy").file_size > rows * N_CODES * 8
    script = f"""
import resource, time
resource.setrlimit(resource.RLIMIT_AS, ({2 << 30}, {2 << 30}))
from baccarat_sim.engines.checkpoint import load_checkpoint
from baccarat_sim.errors import CheckpointError
from baccarat_sim.model.rules import load_rules
started = time.monotonic()
try:
    load_checkpoint({str(target)!r}, rules=load_rules("default"))
except CheckpointError as error:
    print(f"{{time.monotonic() - started:.2f}}", error)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, message = done.stdout.split(" ", 1)
    assert "do not fit its plan" in message and float(seconds) < 10, done.stdout


def test_a_checkpoint_refused_by_its_header_is_refused_before_its_arrays_are_read(tmp_path, stopped_run):
    """The plan of another run is refused as such, whatever its arrays hold: they are never inflated."""
    def edit(header):
        header["plan"]["seed"] = 3

    target = tmp_path / "other.npz"
    _rewrite(stopped_run, target, edit)
    with zipfile.ZipFile(target) as archive:
        info = archive.getinfo("by_position.npy")
    data = bytearray(target.read_bytes())
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    end = info.header_offset + 30 + name_length + extra_length + info.compress_size
    data[end - 16:end] = bytes(16)  # the end of by_position's compressed bytes, garbled: it cannot be inflated
    target.write_bytes(bytes(data))
    expect = load_checkpoint(stopped_run, rules=load_rules("default"))[0]
    with pytest.raises(CheckpointError, match="seed = 3"):  # not "damaged": the arrays are not read
        load_checkpoint(target, expect=expect, rules=load_rules("default"))


# --------------------------------------------------------------------------- 12 and 16: --baseline


def test_a_baseline_nested_100000_deep_is_one_line(capsys, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    status, _, err = cli(capsys, "--exact", "--baseline", path, "--quiet")
    one_line_error(status, err, "--baseline", "nested too deeply")


def _baseline(capsys, tmp_path) -> tuple[Path, dict]:
    status, out, _ = cli(capsys, "--exact", *JSON_QUIET)
    assert status == 0
    return tmp_path / "baseline.json", json.loads(out)


def test_a_baseline_listing_a_bet_twice_is_refused(capsys, tmp_path):
    path, document = _baseline(capsys, tmp_path)
    twin = dict(document["bets"][1], exact_rtp=0.5)  # the second entry would hide that banker drifted
    document["bets"] = [document["bets"][0], twin, *document["bets"][1:]]
    path.write_text(json.dumps(document))
    status, _, err = cli(capsys, "--exact", "--baseline", path, "--quiet")
    one_line_error(status, err, "--baseline", "'banker' twice")


def test_a_baseline_failure_counts_figures_and_missing_bets_apart(capsys, tmp_path):
    path, document = _baseline(capsys, tmp_path)
    document["bets"] = [dict(bet, exact_rtp=bet["exact_rtp"] + 0.01) for bet in document["bets"][:2]]  # tie gone
    document["bets"].append(dict(document["bets"][0], id="extra"))
    path.write_text(json.dumps(document))
    status, _, err = cli(capsys, "--exact", "--baseline", path, "--quiet")
    assert status == 1
    (summary,) = [line for line in err.splitlines() if line.startswith("baseline FAILED")]
    drifted, compared = map(int, re.search(r"(\d+) of (\d+) figures drifted", summary).groups())
    assert (drifted, compared) == (2, 6) and "2 bets in only one of the two reports" in summary


# --------------------------------------------------------------------------- 14: options that do not apply


@pytest.fixture(scope="module")
def saved_histogram(tmp_path_factory) -> Path:
    from baccarat_sim.cli.rtp import main

    out = tmp_path_factory.mktemp("histogram")
    assert main(["--rounds", "1e5", "--seed", "1", "--out", str(out), "--no-plots", "--quiet"]) == 0
    return out / f"{run_name(seed=1)}-histogram.npz"


@pytest.mark.parametrize(("options", "words"), [
    (["--exact", "--checkpoint-every", "5"], ["--exact", "drop --checkpoint-every"]),
    (["--exact", "--no-plots"], ["--no-plots: only with --out"]),
    (["--exact", "--no-files"], ["--no-files: only with --out"]),
    (["--rounds", "1e5", "--no-plots"], ["--no-plots: only with --out"]),
    (["--count", "perfect-play", "--checkpoint-every", "5"], ["--count", "drop --checkpoint-every"]),
    (["--count", "perfect-play", "--baseline", "b.json"], ["--count", "drop --baseline"]),
    (["--sweep", "cut=14", "--model", "dealt", "--eor"], ["--sweep", "drop --eor"]),
    (["--sweep", "cut=14", "--model", "dealt", "--baseline", "b.json"], ["--sweep", "drop --baseline"]),
    (["--exact", "--tolerance", "1e-9"], ["--tolerance: only for --baseline"]),  # given, even at its default
])
def test_an_option_that_does_not_apply_is_refused_in_one_line(capsys, options, words):
    status, _, err = cli(capsys, *options, "--quiet")
    one_line_error(status, err, *words)


def test_an_option_that_does_not_apply_to_a_saved_histogram_is_refused(capsys, saved_histogram):
    status, _, err = cli(capsys, "--from-histogram", saved_histogram, "--checkpoint-every", 3, "--quiet")
    one_line_error(status, err, "--from-histogram", "drop --checkpoint-every")


def test_max_chunks_and_checkpoint_every_apply_to_a_sweep(capsys, tmp_path):
    status, _, err = cli(capsys, "--sweep", "cut=14,0.5", "--model", "dealt", "--rounds", "2e5", "--seed", 1,
                         "--max-chunks", 1, "--checkpoint-every", 5, "--out", tmp_path, "--no-plots", "--quiet")
    assert status == EXIT_PARTIAL, err  # it ran in full before
    assert list(tmp_path.glob("checkpoint-*.npz"))


def test_where_each_option_applies_is_one_table():
    """Every option of the command either applies to all it does, or has its row in rtp_parser.OPTIONS_APPLY."""
    from baccarat_sim.cli import rtp_parser

    everywhere = {"--help", "--version", "--rules", "--bets", "--threads", "--format", "--out", "--quiet", "--debug",
                  "--from-histogram", "--meter"}  # --meter: a jackpot bet's meter, read wherever the rules are
    tabled = {row.option.split()[0] for row in rtp_parser.OPTIONS_APPLY}
    options = {o for action in build_parser()._actions for o in action.option_strings if o.startswith("--")}
    assert options - everywhere - tabled == set()
    command_files = Path(rtp_parser.__file__).parent
    for name in ("rtp.py", "rtp_count.py", "rtp_sweep.py"):  # no command of its own list of options to drop
        assert "; drop {flag}" not in (command_files / name).read_text()


# --------------------------------------------------------------------------- 15: a histogram's own dealing


def test_a_histogram_settled_under_another_rule_set_describes_its_own_dealing(capsys, tmp_path):
    status, _, _ = cli(capsys, "--rules", "live-8deck-dragon-tiger", "--rounds", "2e5", "--seed", 3, "--threads", 1,
                       "--out", tmp_path, "--no-plots", "--quiet")
    assert status == 0
    (histogram,) = tmp_path.glob("*-histogram.npz")
    from baccarat_sim.analysis.positions import histogram_dealt_in_every_shoe, rounds_in_every_shoe
    from baccarat_sim.model.histogram import OutcomeHistogram

    own = histogram_dealt_in_every_shoe(OutcomeHistogram.load(histogram))
    theirs = rounds_in_every_shoe(load_rules("live-8deck-side-bets").shoe)
    assert own < theirs  # shoes cut about half way: 66 rounds are not dealt in every one of them
    status, out, err = cli(capsys, "--from-histogram", histogram, "--rules", "live-8deck-side-bets")
    assert status == 0, err
    assert f"rounds 1-{own} are dealt in every shoe" in out and f"rounds 1-{theirs} are" not in out
    (note,) = [line for line in err.splitlines() if line.startswith("note: the histogram's shoes")]
    assert f"rounds 1-{own}" in note and f"rounds 1-{theirs}" in note and "live-8deck-dragon-tiger" in note
