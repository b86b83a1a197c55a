"""``python -m baccarat_sim.rtp`` (also installed as ``baccarat-rtp``): exact and Monte Carlo RTP of every bet.

Examples
--------
Exact per-bet table of a shipped rule set::

    python -m baccarat_sim.rtp --exact --rules live-8deck-side-bets

A billion Monte Carlo rounds, checked against exact::

    python -m baccarat_sim.rtp --rounds 1e9 --seed 1 --check

Heavy modules (numpy, numba, pandas) are imported only after the arguments
are parsed, so ``--help`` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import sys
import tempfile
import time
from pathlib import Path

from .._version import __version__
from ..limits import MAX_DECKS
from .common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    HelpFormatter,
    Parser,
    UsageError,
    announce_compile,
    guarded_main,
    ignore_stop_signals,
    non_negative_float,
    parse_rounds,
    positive_int,
    seconds,
    seed,
)

PROG = "python -m baccarat_sim.rtp"
DEFAULT_ROUNDS = 100_000_000
#: ``--after-cut`` choices, indexed by the rounds dealt after the cut card's round (the rule files' shoe.after_cut;
#: kept here so that --help needs no heavy import).
AFTER_CUT_READINGS = ("finish_round", "one_more_round")
#: Shoes a --count simulation deals by default (about 8 million rounds).
DEFAULT_SHOES = 100_000
#: Exit status of a run stopped by Ctrl-C (128 + SIGINT, the shell's convention); SIGTERM gives 143, SIGHUP 129.
EXIT_INTERRUPTED = 130
#: Exit status of a run stopped by --max-chunks: its report and files are partial.
EXIT_PARTIAL = 3


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=PROG,
        description="Exact and Monte Carlo RTP of Baccarat bets under a rule set.",
        formatter_class=HelpFormatter,
        epilog="Exit status: 0 done, 1 --check failed (or an internal error, which says so), 2 bad input, "
               f"{EXIT_PARTIAL} stopped by --max-chunks (partial result; continue with --resume), 130/143/129 "
               "stopped by Ctrl-C/SIGTERM/SIGHUP (checkpoint written; continue with --resume).",
    )
    parser.add_argument("--version", action="version", version=f"baccarat_sim {__version__}")
    what = parser.add_argument_group("what to compute")
    what.add_argument("--rules", default="default", metavar="NAME|PATH",
                      help="shipped rule set name or a rule-set .toml file")
    what.add_argument("--exact", action="store_true", help="exact combinatorial figures only (no Monte Carlo)")
    what.add_argument("--rounds", type=parse_rounds, metavar="N",
                      help=f"Monte Carlo rounds; 1e9 and 2_000_000 are accepted (default: {DEFAULT_ROUNDS:.0e}, "
                           "or the checkpoint's with --resume)")
    what.add_argument("--model", choices=("fresh", "dealt"),
                      help="shoe model: fresh shuffle every round, or dealt through to the cut card "
                           "(default: the rule set's)")
    what.add_argument("--after-cut", choices=AFTER_CUT_READINGS,
                      help="dealt shoe: when the cut card comes out, finish that round and end the shoe "
                           "(finish_round), or deal one more round after it (one_more_round); the two readings of "
                           "\"the cut card signals the final round\" (default: the rule set's shoe.after_cut)")
    what.add_argument("--decks", type=positive_int("decks", 1, MAX_DECKS), metavar="D",
                      help=f"number of decks, 1-{MAX_DECKS} (default: the rule set's)")
    what.add_argument("--remove", metavar="CARDS",
                      help="start from a depleted shoe: cards to remove, as point values (6,6,7), ranks (K,Q; T for "
                           "10) or cards (Qh)")
    what.add_argument("--bets", metavar="ID[,ID...]", help="report only these bets (ids in any case)")
    what.add_argument("--from-histogram", metavar="FILE.npz",
                      help="settle a saved histogram (a run's *-histogram.npz) under --rules instead of dealing: "
                           "another pay table on the same rounds")
    what.add_argument("--sweep", metavar="cut=LIST",
                      help="dealt shoe: one run of --rounds per cut-card position, e.g. cut=14,0.25,0.5 (cards from "
                           "the end, or fractions of the shoe; low:high for a range), and one table and plot of every "
                           "bet's RTP by position")
    advantage = parser.add_argument_group("advantage play")
    advantage.add_argument("--eor", action="store_true",
                           help="add every bet's exact effect of removal of one card of each point value and rank "
                                "(JSON: bets[].eor) and derived balanced counting tags with their betting correlation")
    advantage.add_argument("--count", metavar="STRATEGY",
                           help="instead of RTP, simulate card counting through dealt shoes: a shipped strategy "
                                "(perfect-play, lucky6-wizard-level1, ...) or a strategy .toml file")
    advantage.add_argument("--shoes", type=parse_rounds, metavar="N",
                           help=f"--count: shoes to deal (default: {DEFAULT_SHOES:,})")
    advantage.add_argument("--cut-cards", metavar="N[,N...]",
                           help="--count: cut-card positions to compare with the rule set's, in cards from the end "
                                "(low:high for a range), every shoe shuffled once for all (default: the strategy's)")
    run_group = parser.add_argument_group("how to run")
    run_group.add_argument("--seed", type=seed,
                           help="master seed (default: drawn at random and printed, or the checkpoint's with "
                                "--resume)")
    run_group.add_argument("--threads", type=positive_int("threads", 1), metavar="T",
                           help="kernel threads (default: all cores); results do not depend on it")
    run_group.add_argument("--backend", choices=("local", "dask"), default="local",
                           help="where to deal: this machine (numba threads) or a Dask cluster (needs the dask "
                                "extra); the histogram is the same bit for bit")
    run_group.add_argument("--scheduler", metavar="ADDRESS",
                           help="--backend dask: address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786")
    run_group.add_argument("--workers", type=positive_int("workers", 1), metavar="N",
                           help="--backend dask: start a local cluster of N worker processes for this run (--threads "
                                "threads each, default 1)")
    run_group.add_argument("--dask-timeout", type=seconds, metavar="S",
                           help="--backend dask: when the cluster has no worker (at the start, or all were lost), wait "
                                "S seconds for one, saying so, then stop with a checkpoint (default: 60 at the start, "
                                "300 during the run)")
    run_group.add_argument("--resume", action="store_true",
                           help="continue an interrupted run from its checkpoint (in --out, or the default checkpoint "
                                "folder) on the same random stream; with a larger --rounds, extend a run (finished "
                                "or not) bit for bit as if that many rounds had been asked for at first")
    run_group.add_argument("--checkpoint-every", type=seconds, default=30.0, metavar="S",
                           help="write the checkpoint at least every S seconds (the first one 2 s in)")
    run_group.add_argument("--max-chunks", type=positive_int("max-chunks", 1), metavar="K",
                           help="stop after K chunks as Ctrl-C would (checkpoint and report of what was dealt), e.g. "
                                "to fit a run into batch-job time slices")
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=("table", "json", "csv", "markdown"), default="table",
                     help="what to print on stdout")
    out.add_argument("--out", metavar="DIR",
                     help="write the result files (histogram, JSON, CSV, Markdown, plots) here, and keep the run's "
                          "checkpoint here, also once it is finished so that --resume --rounds M can extend it "
                          "(default: no result files; checkpoints of unfinished runs go to $BACCARAT_SIM_CHECKPOINTS, "
                          "else ~/.cache/baccarat_sim/checkpoints)")
    out.add_argument("--no-files", action="store_true", help="write no result files, even with --out (which then "
                                                             "keeps only the checkpoint)")
    out.add_argument("--no-plots", action="store_true", help="write the data files but no PNG plots (faster)")
    out.add_argument("--check", action="store_true",
                     help="exit 1 if a Monte Carlo figure is |z| >= 4 from exact or a stated RTP does not hold")
    out.add_argument("--baseline", metavar="FILE.json",
                     help="exit 1 if any bet's exact RTP, hit frequency or SD differs from a saved --format json "
                          "report by more than --tolerance (each drift is listed on stderr)")
    out.add_argument("--tolerance", type=non_negative_float("tolerance"), default=1e-9, metavar="T",
                     help="--baseline: largest absolute difference allowed for each figure (a fraction)")
    out.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    out.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def option_of(param: str, args) -> str:
    """The option that set a library parameter (``"decks"`` -> ``--decks``), for one-line errors."""
    if param == "shoe":  # a shoe is built from the rule file, then --decks, then --remove
        return "--remove" if args.remove else "--decks" if args.decks is not None else "--rules"
    return {
        "rules": "--rules", "decks": "--decks", "remove": "--remove", "rounds": "--rounds", "seed": "--seed",
        "threads": "--threads", "model": "--model", "checkpoint": "--resume", "scheduler": "--scheduler",
        "workers": "--workers", "backend": "--backend", "strategy": "--count", "shoes": "--shoes",
        "bets": "--bets", "out": "--out", "sweep": "--sweep", "histogram": "--from-histogram",
        "baseline": "--baseline", "tolerance": "--tolerance",
    }.get(param, "")


def _note(args, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def _check_out_dir(path, option: str = "--out") -> Path:
    """Create a directory and prove it writable now, before any work is done."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{option}: {str(path)!r} is a file; give a directory (it is created if missing)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # os.access says yes to root on a read-only mount: only writing a file tells the truth.
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise UsageError(f"{option}: cannot write to directory {str(path)!r} ({error.strerror or error}); "
                         "give a writable directory") from None
    from ..storage.writing import remove_orphans

    remove_orphans(directory)  # temporary files of a killed run
    return directory


def _results_dir(args) -> Path | None:
    """Where the result files go: ``--out`` (None: no files)."""
    return None if args.out is None or args.no_files else _check_out_dir(args.out)


def default_checkpoint_dir() -> Path:
    """Where checkpoints go without ``--out``: ``$BACCARAT_SIM_CHECKPOINTS``, else the user's cache folder."""
    chosen = os.environ.get("BACCARAT_SIM_CHECKPOINTS")
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "baccarat_sim" / "checkpoints"


def _checkpoint_dir(args) -> Path:
    """Where the run's checkpoint lives: ``--out``, else :func:`default_checkpoint_dir`."""
    if args.out is not None:
        return _check_out_dir(args.out)
    return _check_out_dir(default_checkpoint_dir(), "--out (for the checkpoint)")


def _write_files(args, out_dir: Path | None, write) -> tuple[list, int]:
    """Write the result files with ``write(out_dir)``; returns ``(paths, exit status)``.

    A failed write is one error line and ``EXIT_USAGE``, not a traceback: the
    result is still printed by the caller.
    """
    if out_dir is None:
        return [], EXIT_OK
    try:
        return write(out_dir), EXIT_OK
    except OSError as error:
        print(f"{PROG}: error: --out: {error.strerror or error}", file=sys.stderr)
        return [], EXIT_USAGE


def _load(args):
    """Rules and shoe composition as the arguments ask."""
    from ..model.rules import load_rules
    from ..model.shoe import as_shoe, remove_cards

    rules = load_rules(args.rules)
    if args.decks is not None:
        rules = rules.with_shoe(decks=args.decks)
    if args.model is not None:
        if args.model == "dealt" and rules.shoe.model == "fresh":
            # The rule set describes no dealing procedure: say which one the run assumes.
            shoe = rules.shoe
            burn = "no burn" if shoe.burn == "none" else f"burn {shoe.burn.replace('_', ' ')}"
            rules = dataclasses.replace(rules, assumptions=rules.assumptions + (
                f"--model dealt on a fresh-shuffle rule set: {burn}, cut card {shoe.cut_card.low}"
                + (f"-{shoe.cut_card.high}" if shoe.cut_card.high != shoe.cut_card.low else "")
                + " cards from the end, the round in which it comes out is the last"
                + (" plus one more" if shoe.rounds_after_cut else "") + " (the rule set's shoe defaults).",))
        rules = rules.with_shoe(model=args.model)
    if args.after_cut is not None:
        if rules.shoe.model != "dealt":
            raise UsageError(f"--after-cut: rule set {rules.id!r} shuffles before every round, so no cut card comes "
                             "out; add --model dealt or drop --after-cut")
        rounds_after_cut = AFTER_CUT_READINGS.index(args.after_cut)
        if rounds_after_cut != rules.shoe.rounds_after_cut:
            # The rule set's assumptions name its own reading: say that this run deals the other one.
            rules = dataclasses.replace(rules, assumptions=rules.assumptions + (
                f"--after-cut {args.after_cut}: " + ("one more round is dealt after the round in which the cut card "
                                                     "comes out" if rounds_after_cut else "the round in which the cut "
                                                     "card comes out is the last")
                + f" (the rule set's shoe.after_cut is {AFTER_CUT_READINGS[rules.shoe.rounds_after_cut]!r}).",))
        rules = rules.with_shoe(rounds_after_cut=rounds_after_cut)
    if args.bets:
        rules = rules.with_bets(select_bets(args.bets, rules))
    shoe = as_shoe(rules.shoe.decks)
    if args.remove:
        shoe = remove_cards(shoe, args.remove)
    if rules.shoe.model == "dealt":
        problem = rules.shoe.room_problem(int(shoe.sum()))
        if problem:
            raise UsageError(f"{option_of('shoe', args)}: {problem}")
    return rules, shoe


def _refuse_unused(args) -> None:
    """Options that do not apply to what was asked: refused in one line, never silently ignored."""
    if args.count is None:
        for flag, given in (("--shoes", args.shoes is not None), ("--cut-cards", args.cut_cards is not None)):
            if given:
                raise UsageError(f"{flag}: only for --count (a card-counting simulation); drop it or add --count")
    if args.exact and args.sweep is None and args.count is None and args.backend == "local":  # the others say why
        for flag, given, why in (("--rounds", args.rounds is not None, "deals no rounds"),
                                 ("--seed", args.seed is not None, "draws nothing at random"),
                                 ("--model dealt", args.model == "dealt",
                                  "prices one round from a freshly shuffled shoe; a dealt shoe needs Monte Carlo"),
                                 ("--after-cut", args.after_cut is not None,
                                  "prices one round from a freshly shuffled shoe, with no cut card"),
                                 ("--resume", args.resume, "has no run to continue"),
                                 ("--max-chunks", args.max_chunks is not None, "deals no chunks")):
            if given:
                raise UsageError(f"--exact: {why}; drop {flag}")
    if args.baseline is None and args.tolerance != 1e-9:
        raise UsageError("--tolerance: only for --baseline; drop it or add --baseline FILE.json")
    if args.from_histogram is not None:
        for flag, given in (("--exact", args.exact), ("--rounds", args.rounds is not None),
                            ("--seed", args.seed is not None), ("--model", args.model is not None),
                            ("--decks", args.decks is not None), ("--remove", args.remove is not None),
                            ("--after-cut", args.after_cut is not None),
                            ("--sweep", args.sweep is not None), ("--count", args.count is not None),
                            ("--resume", args.resume), ("--max-chunks", args.max_chunks is not None),
                            ("--backend dask", args.backend != "local")):
            if given:
                raise UsageError(f"--from-histogram: settles the saved rounds, their shoe and seed; drop {flag}")


def select_bets(text: str, rules) -> list[str]:
    """The bet ids ``--bets`` names, matched regardless of case.

    Raises
    ------
    UsageError
        An empty list or an unknown id (with the nearest id of the rule set).
    """
    import difflib

    by_lower = {bet_id.lower(): bet_id for bet_id in rules.bet_ids}
    wanted = [item.strip() for item in text.split(",")]
    if not any(wanted) or not all(wanted):
        raise UsageError(f"--bets: give bet ids separated by single commas, e.g. banker,tie; got {text!r}")
    chosen = []
    for item in wanted:
        if item.lower() not in by_lower:
            close = difflib.get_close_matches(item.lower(), list(by_lower), n=1)
            hint = f"did you mean {by_lower[close[0]]!r}? " if close else ""
            raise UsageError(f"--bets: no bet {item!r} in rule set {rules.id!r}; {hint}bets: "
                             f"{', '.join(rules.bet_ids)}")
        chosen.append(by_lower[item.lower()])
    return list(dict.fromkeys(chosen))


def run(args) -> int:
    """Carry out a parsed command line; returns the exit status."""
    _refuse_unused(args)
    if args.count is not None:
        return _count(args)
    started = time.perf_counter()
    if args.sweep is not None:
        return _sweep(args)
    if args.from_histogram is not None:
        return _from_histogram(args, started)
    _check_backend(args)
    rules, shoe = _load(args)
    out_dir = _results_dir(args)
    from ..engines.detail import rules_detail
    from ..engines.exact import exact_histogram

    with announce_compile("the exact engine", args.quiet):
        exact = exact_histogram(shoe, rules_detail(rules))
    run_info = {"rules_path": rules.path}
    if args.remove:
        run_info["removed"] = args.remove
    mc = finished = lock = None
    stopped = None
    if args.exact:
        run_info.update(rounds=None, shoes=None, seed=None, threads=None, rounds_per_second=None,
                        seconds=time.perf_counter() - started)
    else:
        mc, run_info_mc, finished, lock, stopped = _monte_carlo(args, rules, shoe)
        run_info.update(run_info_mc)
    try:
        run_info["total_seconds"] = time.perf_counter() - started
        status = _report(args, rules, exact, mc, run_info, shoe, out_dir, finished)
    finally:
        if lock is not None:
            lock.release()
    if mc is not None and not mc.meta.get("complete", True):
        signal_names = {"SIGINT": "Ctrl-C (SIGINT)"}
        why = (f"stopped by {signal_names.get(stopped.stopped_by, stopped.stopped_by)}" if stopped.interrupted
               else "stopped at --max-chunks")
        where = f"; checkpoint {run_info['checkpoint']}" if run_info.get("checkpoint") else ""
        print(f"{why} after {mc.rounds:,} of {mc.meta['rounds_requested']:,} rounds{where}; continue with "
              f"{_resume_hint(args, mc.seed)}", file=sys.stderr)
        if stopped.interrupted:
            from ..engines.signals import exit_status

            return exit_status(stopped.signum)
        return max(status, EXIT_PARTIAL)
    return status


def _report(args, rules, exact, mc, run_info, shoe, out_dir, finished=None) -> int:
    """Build, print and write a run's report, check it as asked; returns the exit status."""
    from ..report.run_report import build_report

    report = build_report(rules, exact, mc, run_info)
    if args.eor:
        report = _with_eor(report, rules, shoe)

    def write(directory):
        from ..report.files import file_stem, write_report_files

        partial = mc is not None and not mc.meta.get("complete", True)
        # A stopped run's files say so in their names: they never pass for a finished run's.
        stem = file_stem(report) + ("-partial" if partial else "")
        written = write_report_files(report, directory, plots_wanted=not args.no_plots, stem=stem)
        if not partial:  # the finished run's files replace those of its stops on the way
            for stale in directory.glob(f"{glob.escape(stem)}-partial*"):
                stale.unlink(missing_ok=True)
        return written

    files, status = _write_files(args, out_dir, write)
    print(_render(report, args.format))
    for path in files:
        _note(args, f"wrote {path}")
    if finished is not None and status == EXIT_OK:
        if args.out is None:
            finished.unlink(missing_ok=True)  # complete, and no --out to keep it in
        else:
            _note(args, f"kept {finished}: extend this run with {_resume_hint(args, mc.seed)} --rounds M")
    if args.check:
        status = max(status, _check(report, args))
    if args.baseline is not None:
        status = max(status, _compare_baseline(report, rules, args))
    return status


def _compare_baseline(report, rules, args) -> int:
    """``--baseline``: every exact figure against a saved report; lists each drift, exit 1 if any."""
    import json

    from ..analysis.baseline import compare_with_baseline, exact_figures
    from ..errors import InputError
    from ..storage.reading import FileRefused, read_regular_file

    try:
        document = json.loads(read_regular_file(args.baseline, 64 << 20, "baseline report"))
    except FileRefused as error:
        raise InputError("baseline", str(error)) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise InputError("baseline", f"{args.baseline}: is not JSON ({error})") from None
    comparison = compare_with_baseline(exact_figures(report.exact, rules), document, args.tolerance,
                                       args.baseline)
    for drift in comparison.drifts:
        print(f"baseline DRIFT {drift.describe()}", file=sys.stderr)
    if comparison.passed:
        _note(args, f"baseline ok: {comparison.compared} exact figures within {args.tolerance:g} of {args.baseline}")
        return EXIT_OK
    print(f"baseline FAILED: {len(comparison.drifts)} of {comparison.compared} figures drifted beyond "
          f"{args.tolerance:g} from {args.baseline}", file=sys.stderr)
    return EXIT_CHECK_FAILED


def _from_histogram(args, started) -> int:
    """``--from-histogram FILE``: a saved histogram settled under ``--rules`` (issue 16)."""
    from ..engines.exact import exact_histogram
    from ..model.histogram import OutcomeHistogram
    from ..model.rules import load_rules
    from ..model.shoe import as_shoe, describe_shoe

    hist = OutcomeHistogram.load(args.from_histogram)
    rules = load_rules(args.rules)
    if args.bets:
        rules = rules.with_bets(select_bets(args.bets, rules))
    if not (hist.shoe == as_shoe(rules.shoe.decks)).all():
        _note(args, f"note: the histogram was dealt from {describe_shoe(hist.shoe)}, rule set {rules.id!r} states "
                    f"{describe_shoe(as_shoe(rules.shoe.decks))}: the figures are those of the histogram's shoe")
        rules = rules.with_shoe(decks=int(round(hist.shoe.sum() / 52)) or 1)
    out_dir = _results_dir(args)
    with announce_compile("the exact engine", args.quiet):
        exact = hist if hist.engine == "exact" else exact_histogram(hist.shoe, hist.detail)
    mc = hist if hist.engine == "mc" else None
    run_info = {"rules_path": rules.path, "from_histogram": str(args.from_histogram),
                "rounds": None if mc is None else mc.rounds, "shoes": None if mc is None else mc.shoes,
                "seed": None if mc is None else mc.seed, "threads": None, "rounds_per_second": None,
                "seconds": time.perf_counter() - started, "total_seconds": time.perf_counter() - started}
    return _report(args, rules, exact, mc, run_info, hist.shoe, out_dir)


def _resume_hint(args, seed: int | None = None) -> str:
    """The options that find this run's checkpoint again (rule set, shoe overrides, seed, --out)."""
    parts = ["--resume"]
    if seed is not None:
        parts.append(f"--seed {seed}")
    if args.rules != "default":
        parts.append(f"--rules {args.rules}")
    if args.decks is not None:
        parts.append(f"--decks {args.decks}")
    if args.remove:
        parts.append(f"--remove {args.remove}")
    if args.model is not None:
        parts.append(f"--model {args.model}")
    if args.after_cut is not None:
        parts.append(f"--after-cut {args.after_cut}")
    if args.out is not None:
        parts.append(f"--out {args.out}")
    return " ".join(parts)


def parse_cut_sweep(text: str, rules, n_cards: int | None = None) -> list:
    """Cut-card positions of ``--sweep cut=...``.

    Each comma-separated item is a number of cards from the end of the shoe
    (``14``: a whole number) or a fraction of the shoe (``0.25``: a number with
    a decimal point, rounded to whole cards as the rule files do), or a range
    ``low:high`` of either kind, from which the cut card is placed uniformly in
    every shoe. Each position must leave room for a round
    (:meth:`baccarat_sim.model.rules.Shoe.room_problem`).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> [(c.low, c.high) for c in parse_cut_sweep("cut=14,0.25,0.45:0.55", load_rules("live-8deck-side-bets"))]
    [(14, 14), (104, 104), (187, 229)]

    Raises
    ------
    InputError
        ``sweep``: one line naming the bad item and what is allowed.
    """
    import re
    from fractions import Fraction

    from ..errors import InputError
    from ..model.rules import CutCard

    def refuse(message: str):
        raise InputError("sweep", message)

    n_cards = rules.shoe.n_cards if n_cards is None else n_cards

    token = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?::\s*(\d+(?:\.\d*)?|\.\d+)\s*)?$")
    body = text.strip()
    kind, sep, rest = body.partition("=")
    if sep:
        if kind.strip() != "cut":
            refuse(f"only cut=... can be swept, got {kind.strip()!r} (e.g. cut=14,0.25,0.5)")
        body = rest
    items = body.split(",")
    if not body.strip() or any(not item.strip() for item in items):
        refuse(f"give a comma-separated list of cut-card positions, e.g. cut=14,0.25,0.5; got {text!r}")
    cuts = []
    for item in items:
        match = token.match(item)
        if not match:
            refuse(f"{item.strip()!r}: a cut-card position is a card count (14), a fraction of the shoe (0.25) or "
                   "a range low:high of either")
        bounds = [match.group(1)] + ([match.group(2)] if match.group(2) else [])
        fractional = ["." in b for b in bounds]
        if len(set(fractional)) > 1:
            refuse(f"{item.strip()!r}: both ends of a range must be card counts or both fractions")
        if fractional[0]:
            values = [Fraction(b) for b in bounds]
            if any(v > 1 for v in values):
                refuse(f"{item.strip()!r}: a fraction of the shoe must be from 0 to 1")
            cards = [round(v * n_cards) for v in values]
        else:
            cards = [int(b) for b in bounds]
        low, high = cards[0], cards[-1]
        if low > high:
            refuse(f"{item.strip()!r}: low must not exceed high")
        cut = CutCard(int(low), int(high))
        problem = rules.with_shoe(model="dealt", cut_card=cut).shoe.room_problem(n_cards)
        if problem:
            refuse(f"{item.strip()!r}: {problem}")
        cuts.append(cut)
    return cuts


def _sweep(args) -> int:
    """``--sweep cut=...``: one dealt run per cut-card position, one table and one plot (issue 6)."""
    for flag, given, why in (("--exact", args.exact, "deals Monte Carlo shoes"),
                             ("--resume", args.resume, "its runs are not checkpointed"),
                             ("--check", args.check, "a dealt shoe's RTP may differ from the fresh-shoe one"),
                             ("--backend dask", args.backend != "local", "runs on this machine")):
        if given:
            raise UsageError(f"--sweep: {why}; drop {flag}")
    rules, shoe = _load(args)
    if rules.shoe.model != "dealt":
        raise UsageError(f"--sweep: the cut card matters only when the shoe is dealt through, and rule set "
                         f"{rules.id!r} shuffles before every round; add --model dealt")
    cuts = parse_cut_sweep(args.sweep, rules, int(shoe.sum()))
    out_dir = _results_dir(args)
    from ..analysis.positions import cut_card_sweep
    from ..engines.plan import normalize_seed
    from ..report import positions as positions_report
    from ..report.files import write_sweep_files
    from ..report.progress import progress_bar

    def progress_note(cut, analysis):
        _note(args, f"cut card {positions_report.cut_label(cut)} cards from the end: {analysis.hist.rounds:,} rounds, "
                    f"{analysis.rounds_per_shoe.mean:.2f} rounds per shoe")

    seed_value = normalize_seed(args.seed)
    _note(args, f"seed {seed_value} for every cut-card position")
    rounds = args.rounds or DEFAULT_ROUNDS
    with progress_bar(None if not args.quiet else False, rounds * len(cuts)) as bar:
        sweep = cut_card_sweep(rules, cuts, rounds, seed_value, shoe=shoe, threads=args.threads, progress=bar,
                               on_run=progress_note)
    files, status = _write_files(args, out_dir, lambda directory: write_sweep_files(sweep, directory,
                                                                                    not args.no_plots))
    if args.format == "json":
        import json

        rendered = json.dumps(positions_report.sweep_dict(sweep), indent=2)
    else:
        rendered = {"csv": positions_report.sweep_csv, "markdown": positions_report.sweep_markdown}.get(
            args.format, positions_report.sweep_text)(sweep)
    print(rendered.rstrip("\n"))
    for path in files:
        _note(args, f"wrote {path}")
    return status


def _with_eor(report, rules, shoe):
    """``--eor``: the report with every bet's exact effect of removal and derived counting tags (issue 7)."""
    from ..analysis.eor import effect_of_removal
    from ..report.run_report import Report

    started = time.perf_counter()
    eor = effect_of_removal(rules, shoe)
    run_info = {**report.run, "eor_cards": int(shoe.sum()), "eor_seconds": time.perf_counter() - started}
    return Report(dataclasses.replace(report.result, eor=eor, run=run_info))


def _parse_cut_cards(text: str) -> list[tuple[int, int]]:
    """``--cut-cards 52,100:110`` as (low, high) pairs of cards from the end."""
    positions = []
    for item in text.split(","):
        parts = item.strip().split(":")
        if not item.strip() or len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
            raise UsageError(f"--cut-cards: {item.strip()!r} is not a number of cards from the end (or low:high), "
                             "e.g. --cut-cards 52,100:110")
        low, high = int(parts[0]), int(parts[-1])
        if low > high:
            raise UsageError(f"--cut-cards: {item.strip()!r}: low must not exceed high")
        positions.append((low, high))
    return positions


def _count(args) -> int:
    """``--count STRATEGY``: a card-counting simulation through dealt shoes (issue 7)."""
    for flag, given, why in (("--exact", args.exact, "deals shoes"),
                             ("--rounds", args.rounds is not None, "deals whole shoes: give --shoes"),
                             ("--model fresh", args.model == "fresh", "deals shoes through to the cut card"),
                             ("--resume", args.resume, "its runs are not checkpointed"),
                             ("--check", args.check, "has no exact figure to check"),
                             ("--eor", args.eor, "is a separate analysis: run --eor without --count"),
                             ("--sweep", args.sweep is not None, "moves the cut card with --cut-cards"),
                             ("--backend dask", args.backend != "local", "runs on this machine")):
        if given:
            raise UsageError(f"--count: {why}; drop {flag}")
    rules, shoe = _load(args)
    cut_cards = None if args.cut_cards is None else _parse_cut_cards(args.cut_cards)
    from ..analysis.counting import count_simulation
    from ..engines.plan import normalize_seed
    from ..model.strategy import load_strategy
    from ..report import counting as counting_report
    from ..report.files import write_count_files
    from ..report.progress import progress_bar

    strategy = load_strategy(args.count)
    out_dir = _results_dir(args)
    seed_value = normalize_seed(args.seed)
    _note(args, f"seed {seed_value}")
    shoes = args.shoes or DEFAULT_SHOES
    with announce_compile("the counting kernel", args.quiet):
        # One shoe first, so that the compile (or the cached kernel's load) is not timed as dealing.
        count_simulation(rules, strategy, 1, seed_value, threads=1, shoe=shoe, cut_cards=cut_cards)
    with progress_bar(None if not args.quiet else False, shoes, unit="shoe") as bar:
        result = count_simulation(rules, strategy, shoes, seed_value, threads=args.threads, shoe=shoe,
                                  cut_cards=cut_cards, progress=bar, max_chunks=args.max_chunks)
    files, status = _write_files(args, out_dir, lambda directory: write_count_files(result, directory,
                                                                                    not args.no_plots))
    rendered = {"json": lambda: __import__("json").dumps(counting_report.count_dict(result), indent=2),
                "csv": lambda: counting_report.count_csv(result),
                "markdown": lambda: counting_report.count_markdown(result)}.get(
        args.format, lambda: counting_report.count_text(result))()
    print(rendered.rstrip("\n"))
    for path in files:
        _note(args, f"wrote {path}")
    return status


def _check_backend(args) -> None:
    """Backend options that fit together, and Dask importable when asked for, before any work is done."""
    if args.backend == "local":
        for flag, given in (("--scheduler", args.scheduler), ("--workers", args.workers),
                            ("--dask-timeout", args.dask_timeout)):
            if given is not None:
                raise UsageError(f"{flag}: needs --backend dask")
        return
    if args.exact:
        raise UsageError("--backend dask: deals Monte Carlo rounds; drop --exact (exact figures need no cluster)")
    if (args.scheduler is None) == (args.workers is None):
        raise UsageError("--backend dask: give --scheduler ADDRESS (a running cluster) or --workers N (a local "
                         "cluster started for this run), not " + ("both" if args.workers else "neither"))
    if args.scheduler is not None and args.threads is not None:
        raise UsageError("--threads: a cluster's workers have their own threads (dask worker --nthreads); drop it")
    from ..engines.dask_backend import check_address, require_distributed

    require_distributed()
    if args.scheduler is not None:
        check_address(args.scheduler)


def _checkpoint_path(out_dir: Path, rules, model: str, seed_value: int | str) -> Path:
    # One file per (rule set, model, seed): a new run never overwrites another run's unfinished checkpoint.
    return out_dir / f"checkpoint-{rules.id}-{model}-seed{seed_value}.npz"


def _find_checkpoint(args, rules, out_dir: Path):
    """The checkpoint ``--resume`` continues: (rules with its shoe model, path).

    Without ``--seed`` the one run of this rule set in the checkpoint folder is
    taken; without ``--model``, a ``--model dealt`` run of a fresh-shuffle rule
    set (or the reverse) is found too.
    """
    models = [rules.shoe.model]
    if args.model is None:
        models.append("dealt" if rules.shoe.model == "fresh" else "fresh")
    seed_text = "*" if args.seed is None else args.seed
    candidates = [(model, path) for model in models
                  for path in sorted(out_dir.glob(_checkpoint_path(out_dir, rules, model, seed_text).name))]
    if not candidates:
        found = sorted(p.name for p in out_dir.glob("checkpoint-*.npz"))
        wanted = f"rule set {rules.id!r}" + (f", seed {args.seed}" if args.seed is not None else "")
        raise UsageError(f"--resume: no checkpoint of {wanted} ({' or '.join(models)} model) in {str(out_dir)!r}"
                         + (f"; found: {', '.join(found)}" if found else
                            " (no run of it was stopped there, or it was stopped before its first checkpoint)"))
    if len(candidates) > 1:
        raise UsageError(f"--resume: {len(candidates)} runs of rule set {rules.id!r} in {str(out_dir)!r} ("
                         f"{', '.join(path.name for _, path in candidates)}); choose one with --seed (and --model)")
    model, path = candidates[0]
    return rules.with_shoe(model=model), path


def _lock(checkpoint: Path):
    """Hold the run's checkpoint for this process: a second run of the same checkpoint is refused."""
    from ..storage.locking import LockHeld, RunLock

    lock = RunLock(checkpoint, " ".join(sys.argv))
    try:
        lock.acquire()
    except LockHeld as held:
        raise UsageError(f"--out: {held}") from None
    return lock


def _monte_carlo(args, rules, shoe):
    """Plan (or resume, or extend), deal and time the Monte Carlo run.

    Returns (histogram, run header fields, path of the checkpoint of a finished run or None, the run's lock, the
    run outcome): the checkpoint is removed (or kept, with ``--out``) only once the result files are written, and
    the lock released after.
    """
    import numba

    from ..engines.checkpoint import PLAN_FIELDS, load_checkpoint, peek_checkpoint
    from ..engines.driver import RunControl
    from ..engines.driver import run as run_job
    from ..engines.extend import extend_state
    from ..engines.montecarlo import HistogramJob, warm_up
    from ..engines.plan import plan_run
    from ..report.progress import progress_bar

    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    checkpoint_dir = _checkpoint_dir(args)
    if args.resume:
        rules, checkpoint = _find_checkpoint(args, rules, checkpoint_dir)
        lock = _lock(checkpoint)
        # The seed and round count the user left out come from the checkpoint; everything else must match it. A
        # larger --rounds extends the run.
        expect = plan_run(rules, args.rounds or 1, args.seed or 0, shoe=shoe)
        compare = tuple(f for f in PLAN_FIELDS if (f != "seed" or args.seed is not None) and f != "rounds_requested")
        extended = False
        try:
            plan, state = load_checkpoint(checkpoint, expect=expect, rules=rules, compare=compare)
            if args.rounds is not None and args.rounds != plan.rounds_requested:
                if args.rounds < plan.rounds_requested:
                    raise UsageError(f"--rounds: the run in {checkpoint} is of {plan.rounds_requested:,} rounds; "
                                     "give more to extend it, or leave --rounds out to continue it")
                longer = plan_run(rules, args.rounds, plan.seed, model=plan.model, shoe=plan.shoe,
                                  by_position=plan.n_positions > 1)
                state = extend_state(plan, state, longer)
                _note(args, f"extending seed {plan.seed} from {plan.rounds_requested:,} to {longer.rounds_requested:,} "
                            f"rounds ({state.rounds:,} dealt kept)")
                plan, extended = longer, True
        except BaseException:
            lock.release()
            raise
        job = HistogramJob(plan)
        if state.chunks_done >= plan.n_chunks:
            _note(args, f"the run in {checkpoint} is complete: writing its results")
        elif not extended:
            _note(args, f"resuming seed {plan.seed} at {state.rounds:,} of {plan.rounds_requested:,} rounds")
    else:
        plan = plan_run(rules, args.rounds or DEFAULT_ROUNDS, args.seed, shoe=shoe)
        job = HistogramJob(plan)
        state = job.new_state()
        checkpoint = _checkpoint_path(checkpoint_dir, rules, plan.model, plan.seed)
        lock = _lock(checkpoint)
        old = peek_checkpoint(checkpoint) if checkpoint.exists() else None
        if old is not None:
            done = old["next_chunk"] >= -(-old["plan"]["total_blocks"] // old["plan"]["blocks_per_chunk"])
            what = "a finished run" if done else "an unfinished run"
            _note(args, f"note: {checkpoint} holds {what} of this seed ({old['rounds']:,} of "
                        f"{old['plan']['rounds_requested']:,} rounds); this run replaces it - stop now and add "
                        "--resume (with --rounds to extend it) to continue that one instead")
        _note(args, f"seed {plan.seed}")
    resumed_from = state.rounds
    control = RunControl(checkpoint=checkpoint, checkpoint_every=args.checkpoint_every, max_chunks=args.max_chunks,
                         meta={"rules_path": rules.path, "remove": args.remove, "bets": list(rules.bet_ids)},
                         warn=lambda text: _note(args, text), keep_finished=args.out is not None)
    try:
        with progress_bar(None if not args.quiet else False, plan.rounds_requested,
                          initial=min(state.rounds, plan.rounds_requested)) as bar:
            control.progress = bar
            if args.backend == "dask":
                from ..engines.dask_backend import DaskBackend, connect, prepare_workers

                waits = {} if args.dask_timeout is None else {"wait_for_workers": args.dask_timeout}
                with connect(args.scheduler, args.workers, args.threads or 1, **waits) as client:
                    nthreads = prepare_workers(client, plan)
                    where = f"scheduler {client.scheduler.address}" if args.scheduler else "a local cluster"
                    _note(args, f"dask: {len(nthreads)} workers, {sum(nthreads.values())} threads, on {where}")
                    waits = {} if args.dask_timeout is None else {"no_workers_timeout": args.dask_timeout}
                    backend = DaskBackend(client, note=lambda text: _note(args, text), **waits)
                    outcome = run_job(job, state, backend, control)
                if args.workers is not None:
                    outcome.backend["scheduler"] = f"LocalCluster({args.workers} workers)"
            else:
                from ..engines.local import LocalBackend

                with announce_compile("the dealing kernel", args.quiet):
                    warm_up(plan)  # compile (or load the cached kernel) before timing starts
                outcome = run_job(job, state, LocalBackend(args.threads), control)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    if outcome.interrupted:  # its checkpoint is written; a second Ctrl-C must not cut the report short
        ignore_stop_signals()
    complete = state.chunks_done >= plan.n_chunks
    # Removed (or kept, with --out) by run() once the result files are written: a crash or a signal while writing
    # them must not lose the run (the checkpoint is written whenever a run stops unfinished).
    finished = checkpoint if complete else None
    wall = outcome.wall_seconds
    mc = state.histogram(plan, {"wall_seconds": wall})
    session_rounds = state.rounds - resumed_from
    info = {
        "rounds": state.rounds,
        "rounds_requested": plan.rounds_requested,
        "shoes": state.shoes if plan.model == "dealt" else 0,
        "seed": plan.seed,
        "threads": threads,
        "seconds": wall,
        "kernel_seconds": state.kernel_seconds,
        # Kernel time is kept in the checkpoint, so this rate is right for a resumed run too.
        "rounds_per_second": state.rounds / state.kernel_seconds if state.kernel_seconds else None,
        "wall_rounds_per_second": session_rounds / wall if wall > 0 and session_rounds else None,
        "resumed_from_rounds": resumed_from if args.resume else None,
        "chunks": plan.n_chunks,
        "chunks_done": state.chunks_done,
        "complete": complete,
        "interrupted": outcome.interrupted,
        "checkpoint": None if complete else str(checkpoint),
        **outcome.backend,  # backend; for dask also workers (processes that dealt), threads, scheduler, tasks
    }
    if args.backend == "local":
        info["threads"] = threads
    return mc, info, finished, lock, outcome


def _render(report, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "csv":
        return report.to_csv().rstrip("\n")
    if fmt == "markdown":
        return report.to_markdown().rstrip("\n")
    return report.to_text()


def check_failures(report) -> dict[str, list[str]]:
    """What ``--check`` fails on, per bet (or ``"game"`` for game-wide claims).

    A Monte Carlo RTP at |z| >= 4 from the exact one (a 1-in-16,000 event for a
    correct engine), and every stated RTP the exact figure contradicts at the
    precision the sheet writes.
    """
    failures: dict[str, list[str]] = {}
    if report.mc is not None:
        for bet_id, row in report.table.iterrows():
            if abs(row["z"]) >= 4:  # NaN (nothing dealt) compares False
                failures.setdefault(bet_id, []).append(
                    f"Monte Carlo RTP {100 * row['rtp']:.4f}% is {row['z']:+.2f} standard errors from exact "
                    f"{100 * row['exact_rtp']:.4f}% (|z| >= 4)")
    for claim in report.claims:
        if not claim.holds:
            failures.setdefault(claim.claim.bet or "game", []).append(claim.reason)
    return failures


def _check(report, args) -> int:
    failures = check_failures(report)
    for bet_id in list(report.table.index) + ["game"]:
        for line in failures.get(bet_id, []):
            print(f"check FAILED {bet_id}: {line}", file=sys.stderr)
        if bet_id in report.table.index and bet_id not in failures:
            z = report.table.loc[bet_id, "z"]
            detail = ("exact only" if report.mc is None else f"z {z:+.2f}" if z == z else
                      "z n/a (too few rounds, or no spread yet: not tested)")
            _note(args, f"check ok     {bet_id}: {detail}"
                  + "".join(f"; {c.reason}" for c in report.claims if c.claim.bet == bet_id))
    if not failures:
        _note(args, "check passed: every Monte Carlo figure within |z| < 4 of exact, every stated RTP holds")
    return EXIT_CHECK_FAILED if failures else EXIT_OK


def _interrupted(args) -> int:
    """A signal outside the dealing loop (compiling, settling, writing): nothing half-written is left."""
    print(f"{PROG}: interrupted; the last checkpoint written (if any) is kept", file=sys.stderr)
    return EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return guarded_main(PROG, build_parser(), run, argv, option_of, _interrupted)
