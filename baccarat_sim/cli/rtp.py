"""``python -m baccarat_sim.rtp`` (also installed as ``baccarat-rtp``): exact and Monte Carlo RTP of every bet.

Examples
--------
Exact per-bet table of a shipped rule set::

    python -m baccarat_sim.rtp --exact --rules live-8deck-side-bets

A billion Monte Carlo rounds, checked against exact::

    python -m baccarat_sim.rtp --rounds 1e9 --seed 1 --check

Heavy modules (numpy, numba, pandas) are imported only after the arguments
are parsed, so ``--help`` and argument errors are instant. The command's
features live beside it: its options in :mod:`~baccarat_sim.cli.rtp_parser`,
exact and Monte Carlo figures in :mod:`~baccarat_sim.cli.rtp_run`, reports,
checks and saved histograms in :mod:`~baccarat_sim.cli.rtp_report`, cut-card
sweeps in :mod:`~baccarat_sim.cli.rtp_sweep`, card counting in
:mod:`~baccarat_sim.cli.rtp_count`.
"""

from __future__ import annotations

import argparse
import time

from .common import EXIT_INTERRUPTED, Command, UsageError
from .options import AFTER_CUT_READINGS, load_table
from .rtp_parser import DEFAULT_ROUNDS, DEFAULT_SHOES, EXIT_PARTIAL, PROG, SCRIPT, build_parser, option_of

__all__ = ["AFTER_CUT_READINGS", "DEFAULT_ROUNDS", "DEFAULT_SHOES", "EXIT_INTERRUPTED", "EXIT_PARTIAL", "PROG",
           "build_parser", "main", "option_of", "run", "script"]


def _refuse_unused(args: argparse.Namespace) -> None:
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


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command line; returns the exit status."""
    from .rtp_count import count
    from .rtp_report import from_histogram
    from .rtp_run import check_backend, figures
    from .rtp_sweep import sweep

    _refuse_unused(args)
    if args.count is not None:
        return count(args)
    started = time.perf_counter()
    if args.sweep is not None:
        return sweep(args)
    if args.from_histogram is not None:
        return from_histogram(args, started)
    check_backend(args)
    rules, shoe = load_table(args)
    return figures(args, rules, shoe, started)


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, "; the last checkpoint written (if any) is kept")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-rtp`` console script."""
    return COMMAND.console_script()
