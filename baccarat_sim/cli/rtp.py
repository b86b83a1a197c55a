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

from .common import EXIT_INTERRUPTED, Command
from .options import AFTER_CUT_READINGS, load_table
from .rtp_parser import (
    DEFAULT_ROUNDS,
    DEFAULT_SHOES,
    EXIT_PARTIAL,
    PROG,
    SCRIPT,
    build_parser,
    option_of,
    refuse_unused,
)

__all__ = ["AFTER_CUT_READINGS", "DEFAULT_ROUNDS", "DEFAULT_SHOES", "EXIT_INTERRUPTED", "EXIT_PARTIAL", "PROG",
           "build_parser", "main", "option_of", "run", "script"]


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command line; returns the exit status."""
    from .rtp_count import count
    from .rtp_report import from_histogram
    from .rtp_run import check_backend, figures
    from .rtp_sweep import sweep

    refuse_unused(args)  # the one table of where each option applies (rtp_parser.OPTIONS_APPLY)
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


def _on_interrupt(args: argparse.Namespace | None) -> str:
    """What a stopped command's line adds: only a Monte Carlo run (or a count) writes a checkpoint to keep."""
    if args is not None and (args.exact or args.from_histogram is not None) and args.count is None:
        return "; nothing was written (exact figures and a settled histogram keep no checkpoint)"
    return "; the last checkpoint written (if any) is kept"


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, _on_interrupt)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-rtp`` console script."""
    return COMMAND.console_script()
