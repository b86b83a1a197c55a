"""``python -m baccarat_sim.rtp --count STRATEGY``: a card-counting simulation through dealt shoes (issue 7)."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import time

from ..storage.signals import FIRST_STOP, Stopped
from .common import UsageError, announce_compile, note, write_files
from .options import load_table
from .rtp_parser import DEFAULT_SHOES
from .rtp_report import results_dir
from .rtp_run import stopped

__all__ = ["count"]

#: Studies of this many shoes (about 10^9 rounds) or more say how big they are before they deal.
LONG_STUDY_SHOES = 10**7


def _cut_cards(text: str) -> list[tuple[int, int]]:
    """``--cut-cards 52,100:110`` as (low, high) pairs of cards from the end (card counts only)."""
    from ..model.cutcard import parse_cut_positions

    try:
        return [(cut.low, cut.high) for cut in parse_cut_positions(text, example="--cut-cards 52,100:110")]
    except ValueError as error:
        raise UsageError(f"--cut-cards: {error}") from None


def count(args: argparse.Namespace) -> int:
    """Carry out ``--count``; returns the exit status."""
    started = time.perf_counter()
    rules, shoe = load_table(args)
    cut_cards = None if args.cut_cards is None else _cut_cards(args.cut_cards)
    from ..analysis.counting import MAX_SHOES, count_simulation
    from ..engines.plan import normalize_seed
    from ..model.strategy import load_strategy
    from ..report import counting as counting_report
    from ..report.files import write_count_files
    from ..report.progress import progress_bar

    strategy = load_strategy(args.count)
    out_dir = results_dir(args)
    seed_value = normalize_seed(args.seed)
    note(args, f"seed {seed_value}")
    shoes = args.shoes or DEFAULT_SHOES
    with announce_compile("the counting kernel", args.quiet):
        # One shoe first, so that the compile (or the cached kernel's load) is not timed as dealing.
        first = count_simulation(rules, strategy, 1, seed_value, threads=1, shoe=shoe, cut_cards=cut_cards)
    if FIRST_STOP.stopping:  # a signal while it compiled: the study stops before it deals
        raise Stopped(FIRST_STOP.signum)
    if shoes >= LONG_STUDY_SHOES:  # say what was asked for before a study that may run for hours
        note(args, f"dealing {shoes:,} shoes, about {shoes * first.run['rounds']:,} rounds (at most "
                   f"{MAX_SHOES:,} shoes); the progress bar gives the time left, and Ctrl-C stops with the report "
                   "of the shoes dealt")
    with progress_bar(None if not args.quiet else False, shoes, unit="shoe") as bar:
        result = count_simulation(rules, strategy, shoes, seed_value, threads=args.threads, shoe=shoe,
                                  cut_cards=cut_cards, progress=bar, max_chunks=args.max_chunks)
    # The strategy was prepared (its counts derived: up to a minute) for the first shoe, and the kernel loaded.
    result = dataclasses.replace(result, run={
        **result.run, "prepare_seconds": first.run["prepare_seconds"] + result.run["prepare_seconds"],
        "total_seconds": time.perf_counter() - started})
    files, status = write_files(args, out_dir, lambda directory: write_count_files(result, directory,
                                                                                   not args.no_plots))
    rendered = {"json": lambda: __import__("json").dumps(counting_report.count_dict(result), indent=2),
                "csv": lambda: counting_report.count_csv(result),
                "markdown": lambda: counting_report.count_markdown(result)}.get(
        args.format, lambda: counting_report.count_text(result))()
    print(rendered.rstrip("\n"))
    for path in files:
        note(args, f"wrote {path}")
    if result.run["complete"]:
        return status
    # Stopped by a signal or --max-chunks: the same exit statuses and -partial names as a Monte Carlo run.
    stopped_by = result.run["stopped_by"]
    signum = None if stopped_by in (None, "max_chunks") else int(getattr(signal, stopped_by))
    return stopped(args, stopped_by, signum, f"{result.run['shoes']:,} of {result.run['shoes_requested']:,} shoes",
                   " (a counting study is not checkpointed: run it again to deal every shoe)", status)
