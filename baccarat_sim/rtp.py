"""Command line: ``python -m baccarat_sim.rtp`` (also installed as ``baccarat-rtp``).

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
import os
import re
import sys
import time
from pathlib import Path

from ._version import __version__

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
#: Largest --rounds accepted (counts stay far from 64-bit overflow); keep in step with simulate.MAX_ROUNDS.
MAX_ROUNDS = 10**15
DEFAULT_ROUNDS = 100_000_000
PROG = "python -m baccarat_sim.rtp"


class UsageError(Exception):
    """Bad input: reported as one line and exit status 2."""


def parse_rounds(text: str) -> int:
    """Read a round count: ``1e9``, ``2_000_000``, ``100000``."""
    cleaned = text.strip().replace("_", "")
    if not re.fullmatch(r"\d+(\.\d*)?([eE][+]?\d+)?", cleaned):
        raise argparse.ArgumentTypeError(f"must be a positive whole number such as 1e9 or 2_000_000, got {text!r}")
    value = float(cleaned) if re.search(r"[.eE]", cleaned) else int(cleaned)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number of rounds, got {text!r}")
    value = int(value)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    if value > MAX_ROUNDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_ROUNDS:.0e} (beyond what a run can count), got {text!r}")
    return value


def _positive_int(name: str, low: int = 1, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            allowed = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    parse.__name__ = name
    return parse


def _seed(text: str) -> int:
    try:
        value = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**63-1, got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = _Parser(
        prog=PROG,
        description="Exact and Monte Carlo RTP of Baccarat bets under a rule set.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"baccarat_sim {__version__}")
    what = parser.add_argument_group("what to compute")
    what.add_argument("--rules", default="default", metavar="NAME|PATH",
                      help="shipped rule set name or a rule-set .toml file")
    what.add_argument("--exact", action="store_true", help="exact combinatorial figures only (no Monte Carlo)")
    what.add_argument("--rounds", type=parse_rounds, default=DEFAULT_ROUNDS, metavar="N",
                      help="Monte Carlo rounds (1e9 and 2_000_000 are accepted)")
    what.add_argument("--model", choices=("fresh", "dealt"),
                      help="shoe model: fresh shuffle every round, or dealt through to the cut card "
                           "(default: the rule set's)")
    what.add_argument("--decks", type=_positive_int("decks", 1, 16), metavar="D",
                      help="number of decks, 1-16 (default: the rule set's)")
    what.add_argument("--remove", metavar="CARDS",
                      help="start from a depleted shoe: cards to remove, as point values (6,6,7), ranks (K,Q) "
                           "or cards (Qh)")
    what.add_argument("--bets", metavar="ID[,ID...]", help="report only these bets")
    run = parser.add_argument_group("how to run")
    run.add_argument("--seed", type=_seed, help="master seed (default: drawn at random and printed)")
    run.add_argument("--threads", type=_positive_int("threads", 1), metavar="T",
                     help="kernel threads (default: all cores); results do not depend on it")
    run.add_argument("--resume", action="store_true",
                     help="continue an interrupted run from the checkpoint in --out")
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=("table", "json", "csv", "markdown"), default="table",
                     help="what to print on stdout")
    out.add_argument("--out", default="results", metavar="DIR", help="directory for result files and checkpoints")
    out.add_argument("--no-files", action="store_true", help="print only; write nothing to --out")
    out.add_argument("--check", action="store_true",
                     help="exit 1 if a Monte Carlo figure is |z| >= 4 from exact or a stated RTP does not hold")
    out.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    return parser


def _note(args, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def _check_out_dir(path: str) -> Path:
    directory = Path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--out: cannot create directory {path!r} ({error.strerror or error})") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"--out: directory {path!r} is not writable")
    return directory


def _load(args):
    """Rules and shoe composition as the arguments ask."""
    from .exact import as_shoe, remove_cards
    from .rules import load_rules

    rules = load_rules(args.rules)
    if args.decks is not None:
        rules = rules.with_shoe(decks=args.decks)
    if args.model is not None:
        rules = rules.with_shoe(model=args.model)
    if args.bets:
        wanted = [b.strip() for b in args.bets.split(",") if b.strip()]
        unknown = [b for b in wanted if b not in rules.bet_ids]
        if unknown or not wanted:
            raise UsageError(f"--bets: unknown bet {', '.join(unknown) or repr(args.bets)} in rule set {rules.id!r}; "
                             f"bets: {', '.join(rules.bet_ids)}")
        rules = rules.with_bets(wanted)
    shoe = as_shoe(rules.shoe.decks)
    if args.remove:
        try:
            shoe = remove_cards(shoe, args.remove)
        except ValueError as error:
            raise UsageError(f"--remove: {error}") from None
    return rules, shoe


def run(args) -> int:
    """Carry out a parsed command line; returns the exit status."""
    from .exact import exact_histogram
    from .outputs import write_outputs
    from .report import build_report

    rules, shoe = _load(args)
    out_dir = None if args.no_files else _check_out_dir(args.out)
    started = time.perf_counter()
    exact = exact_histogram(shoe)
    run_info = {"rules_path": rules.path}
    if args.remove:
        run_info["removed"] = args.remove
    mc = None
    if not args.exact:
        mc, run_info_mc = _monte_carlo(args, rules, shoe, out_dir)
        run_info.update(run_info_mc)
    else:
        run_info["seconds"] = time.perf_counter() - started
    report = build_report(rules, exact, mc, run_info)
    files = write_outputs(report, out_dir) if out_dir is not None else []
    print(_render(report, args.format))
    for path in files:
        _note(args, f"wrote {path}")
    if mc is not None and not mc.meta.get("complete", True):
        _note(args, f"interrupted after {mc.rounds:,} rounds; continue with --resume (same --out)")
    if args.check:
        return _check(report, args)
    return EXIT_OK


def _monte_carlo(args, rules, shoe, out_dir):
    import numba

    from .checkpoint import load_checkpoint
    from .simulate import RunState, plan_run, run_chunks

    if args.threads is not None and args.threads > numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"--threads: must be from 1 to {numba.config.NUMBA_NUM_THREADS} on this machine, "
                         f"got {args.threads}")
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    checkpoint = None if out_dir is None else out_dir / f"checkpoint-{rules.id}.npz"
    if args.resume:
        if checkpoint is None or not checkpoint.exists():
            raise UsageError(f"--resume: no checkpoint for rule set {rules.id!r} in {args.out!r}")
        expect = plan_run(rules, args.rounds, args.seed, shoe=shoe) if args.seed is not None else None
        plan, state = load_checkpoint(checkpoint, expect=expect, rules=rules)
        _note(args, f"resuming seed {plan.seed} at {state.rounds:,} rounds")
    else:
        plan = plan_run(rules, args.rounds, args.seed, shoe=shoe)
        state = RunState.empty(plan)
        _note(args, f"seed {plan.seed}")
    _warm_up(plan)
    wall = time.perf_counter()
    run_chunks(plan, state, threads=threads, progress=None if not args.quiet else False, checkpoint=checkpoint)
    wall = time.perf_counter() - wall
    if checkpoint is not None and state.next_chunk >= plan.n_chunks and checkpoint.exists():
        checkpoint.unlink()
    mc = state.histogram(plan, {"wall_seconds": wall})
    info = {
        "rounds": state.rounds,
        "shoes": state.shoes if plan.model == "dealt" else 0,
        "seed": plan.seed,
        "threads": threads,
        "seconds": wall,
        "kernel_seconds": state.kernel_seconds,
        "rounds_per_second": state.rounds / state.kernel_seconds if state.kernel_seconds else None,
        "complete": state.next_chunk >= plan.n_chunks,
        "interrupted": state.interrupted,
    }
    return mc, info


def _warm_up(plan) -> None:
    """Compile (or load from cache) the kernel before timing starts."""
    import dataclasses

    import numpy as np

    from .outcomes import N_CODES
    from .simulate import deal_chunks

    tiny = dataclasses.replace(plan, total_blocks=1, last_units=1, blocks_per_chunk=1)
    deal_chunks(tiny, 0, 1, np.zeros((1, plan.n_positions, N_CODES), np.int64), np.zeros((1, 2), np.int64))


def _render(report, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "csv":
        return report.to_csv().rstrip("\n")
    if fmt == "markdown":
        return report.to_markdown().rstrip("\n")
    return report.to_text()


def _check(report, args) -> int:
    failures = []
    for bet_id, row in report.table.iterrows():
        if report.mc is not None and abs(row["z"]) >= 4:
            failures.append(f"{bet_id}: Monte Carlo RTP {row['rtp']:.6f} is {row['z']:+.2f} SE from exact "
                            f"{row['exact_rtp']:.6f} (|z| >= 4)")
    failures += [c.reason for c in report.claims if not c.holds]
    for line in failures:
        print(f"check failed: {line}", file=sys.stderr)
    if not failures:
        _note(args, "check passed: every Monte Carlo figure within |z| < 4 of exact, every stated RTP holds")
    return EXIT_CHECK_FAILED if failures else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # known input errors become one line; anything else is a bug and raises
        from .checkpoint import CheckpointError
        from .rules import InvalidRules

        if isinstance(error, (InvalidRules, CheckpointError)) or type(error) is ValueError:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        raise


if __name__ == "__main__":
    sys.exit(main())
