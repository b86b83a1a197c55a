"""The report of ``python -m baccarat_sim.rtp``: printed, written, checked (``--check``, ``--baseline``).

Also the report of a saved histogram settled under another rule set
(``--from-histogram``), which deals nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from pathlib import Path

from ..analysis.check import FAIL_Z
from .common import EXIT_CHECK_FAILED, EXIT_OK, announce_compile, check_out_dir, note, write_files
from .options import meters, select_bets
from .rtp_parser import DEFAULT_TOLERANCE

__all__ = ["from_histogram", "results_dir", "run_report"]


def results_dir(args: argparse.Namespace) -> Path | None:
    """Where the result files go: ``--out`` (None: no files, or ``--no-files``)."""
    return None if args.out is None or args.no_files else check_out_dir(args.out)


def _render(report, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "csv":
        return report.to_csv().rstrip("\n")
    if fmt == "markdown":
        return report.to_markdown().rstrip("\n")
    return report.to_text()


def run_report(args: argparse.Namespace, rules, exact, mc, run_info: dict, shoe, out_dir: Path | None,
               on_written=None, unpriced: dict[str, str] | None = None) -> int:
    """Build, print and write a run's report, check it as asked; returns the exit status.

    ``on_written(status)`` is called once the files are written and their
    paths told (a finished run's checkpoint may go then), before the checks.
    ``unpriced``: the bets whose exact figures were not computed, with why.
    """
    from ..report.run_report import build_report

    report = build_report(rules, exact, mc, run_info, unpriced)
    if args.eor:
        report = _with_eor(report, rules, shoe, args)

    def write(directory):
        from ..report.files import write_report_files

        # A stopped run's files say so in their names (-partial); the finished run's replace exactly those.
        return write_report_files(report, directory, plots_wanted=not args.no_plots)

    files, status = write_files(args, out_dir, write)
    print(_render(report, args.format))
    for path in files:
        note(args, f"wrote {path}")
    _warn_above_stake(report)
    if on_written is not None:
        on_written(status)
    if args.check:
        status = max(status, _check(report, args))
    if args.baseline is not None:
        status = max(status, _compare_baseline(report, rules, args))
    return status


def _warn_above_stake(report) -> None:
    """One line on stderr (even with ``--quiet``) naming every bet whose exact RTP is above 100%: a likely typo."""
    above = report.result.paying_more_than_staked
    if not above:
        return
    bets = ", ".join(f"{bet_id} {100 * rtp:.4f}%" for bet_id, rtp in above.items())
    jackpot = any(report.rules.bet(bet_id).jackpot is not None for bet_id in above)
    print(f"warning: {'a bet returns' if len(above) == 1 else f'{len(above)} bets return'} more than is staked "
          f"(exact RTP above 100%): {bets}; check the pays, almost always a typo"
          + (" (or a jackpot meter past the bet's break-even)" if jackpot else "")
          + " (JSON: bets[].pays_more_than_staked)", file=sys.stderr)


def _check(report, args: argparse.Namespace) -> int:
    """``--check``: every failure on stderr, each bet that passes as a note; exit 1 if any failed."""
    from ..analysis.check import check_failures

    table = report.table
    dealt, over = _checked_figures(report)
    failures = check_failures(dealt.values(), report.claims, over)
    for bet_id in list(table.index) + ["game"]:
        for line in failures.get(bet_id, []):
            print(f"check FAILED {bet_id}: {line}", file=sys.stderr)
        if bet_id in table.index and bet_id not in failures:
            z = dealt[bet_id][3] if bet_id in dealt else None
            exact_rtp = table.loc[bet_id, "exact_rtp"]
            detail = ("exact only" if report.mc is None else f"z {z:+.2f}" if z == z else
                      "z n/a (exact figure not computed: see the notes; not tested)" if exact_rtp != exact_rtp else
                      "z n/a (too few rounds, or no spread yet: not tested)")
            note(args, f"check ok     {bet_id}: {detail}"
                 + "".join(f"; {c.reason}" for c in report.claims if c.claim.bet == bet_id))
    if not failures:
        untested = 0 if report.mc is None else int(table["exact_rtp"].isna().sum())
        monte_carlo = ("" if report.mc is None else f"every Monte Carlo figure{f' over {over}' if over else ''} "
                       f"within |z| < {FAIL_Z} of exact"
                       + (f" ({untested} without an exact figure, not tested), " if untested else ", "))
        note(args, f"check passed: {monte_carlo}every stated RTP holds")
    return EXIT_CHECK_FAILED if failures else EXIT_OK


def _checked_figures(report) -> tuple[dict, str]:
    """What ``--check`` holds to exact: bet id to (id, RTP, exact RTP, z), and which rounds ("": every one).

    A dealt shoe's RTP over every round is not the fresh shoe's: the cut card
    moves it (rounds late in a shoe are dealt only from shoes whose earlier
    rounds were short). Its rounds ``1..N`` that every shoe deals have the fresh
    shoe's exact RTP (:mod:`baccarat_sim.analysis.positions`): those are checked.
    """
    if report.mc is None:
        return {}, ""
    if report.positions is None:
        return {bet_id: (bet_id, row["rtp"], row["exact_rtp"], row["z"])
                for bet_id, row in report.table.iterrows()}, ""
    figures = {}
    for bet_id, bet in report.positions.bets.items():
        every = bet.every_shoe
        figures[bet_id] = (bet_id, math.nan if every is None else every.rtp, bet.exact_rtp, bet.z_every_shoe)
    return figures, f"rounds 1-{report.positions.always} (those every shoe deals)"


def _compare_baseline(report, rules, args: argparse.Namespace) -> int:
    """``--baseline``: every exact figure against a saved report; lists each drift, exit 1 if any."""
    from ..analysis.baseline import compare_with_baseline, exact_figures
    from ..errors import InputError
    from ..storage.reading import FileRefused, JsonRefused, parse_json, read_regular_file

    try:
        document = parse_json(read_regular_file(args.baseline, 64 << 20, "baseline report"), str(args.baseline))
    except (FileRefused, JsonRefused) as error:
        raise InputError("baseline", str(error)) from None
    tolerance = DEFAULT_TOLERANCE if args.tolerance is None else args.tolerance
    # The bets a Monte Carlo run priced exactly (the others have no exact figure to compare: the notes say why).
    priced = rules.with_bets(list(report.table.index[report.table["exact_rtp"].notna()]))
    comparison = compare_with_baseline(exact_figures(report.exact, priced), document, tolerance, args.baseline)
    for drift in comparison.drifts:
        print(f"baseline DRIFT {drift.describe()}", file=sys.stderr)
    if comparison.passed:
        note(args, f"baseline ok: {comparison.compared} exact figures within {tolerance:g} of {args.baseline}")
        return EXIT_OK
    print(f"baseline FAILED: {comparison.summary()}, against {args.baseline}", file=sys.stderr)
    return EXIT_CHECK_FAILED


def _with_eor(report, rules, shoe, args):
    """``--eor``: the report with every bet's exact effect of removal and derived counting tags (issue 7)."""
    from ..analysis.eor import effect_of_removal
    from ..report.run_report import Report

    started = time.perf_counter()
    eor = effect_of_removal(rules, shoe, progress=_eor_progress(args))
    run_info = {**report.run, "eor_cards": int(shoe.sum()), "eor_seconds": time.perf_counter() - started}
    return Report(dataclasses.replace(report.result, eor=eor, run=run_info))


def _eor_progress(args: argparse.Namespace, every: float = 2.0):
    """``progress(done, total)`` of the effect of removal: a line on stderr at most every ``every`` seconds."""
    last = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] >= every or done == total:
            last[0] = time.monotonic()
            note(args, f"effect of removal: {done:,} of {total:,} exact pricings done")

    return progress


def from_histogram(args: argparse.Namespace, started) -> int:
    """``--from-histogram FILE``: a saved histogram settled under ``--rules`` (issue 16)."""
    from ..engines.budget import priced_detail
    from ..engines.exact import exact_histogram
    from ..model.histogram import OutcomeHistogram
    from ..model.rules import load_rules
    from ..model.shoe import as_shoe, describe_shoe, nearest_deck_count

    hist = OutcomeHistogram.load(args.from_histogram)
    rules = load_rules(args.rules)
    if args.meter:
        rules = rules.with_meters(meters(args.meter, rules))
    if args.bets is not None:  # "" is refused by select_bets, not taken as every bet
        rules = rules.with_bets(select_bets(args.bets, rules))
    if not (hist.shoe == as_shoe(rules.shoe.decks)).all():
        note(args, f"note: the histogram was dealt from {describe_shoe(hist.shoe)}, rule set {rules.id!r} states "
                   f"{describe_shoe(as_shoe(rules.shoe.decks))}: the figures are those of the histogram's shoe")
        rules = rules.with_shoe(decks=nearest_deck_count(hist.shoe))
    if hist.model == "dealt":
        _note_dealing(args, hist, rules)
    out_dir = results_dir(args)
    unpriced = {}
    with announce_compile("the exact engine", args.quiet):
        if hist.engine == "exact":
            exact = hist
        else:  # the exact figures the cost model calls cheap: as a Monte Carlo run computes them
            detail, unpriced = priced_detail(rules, hist.detail, shoe=hist.shoe)
            exact = exact_histogram(hist.shoe, detail)
    mc = hist if hist.engine == "mc" else None
    run_info = {"rules_path": rules.path, "from_histogram": str(args.from_histogram),
                "rounds": None if mc is None else mc.rounds, "shoes": None if mc is None else mc.shoes,
                "seed": None if mc is None else mc.seed, "threads": None, "rounds_per_second": None,
                "seconds": time.perf_counter() - started, "total_seconds": time.perf_counter() - started}
    requested = hist.meta.get("rounds_requested")
    if mc is not None and type(requested) is int:
        run_info["rounds_requested"] = requested
    return run_report(args, rules, exact, mc, run_info, hist.shoe, out_dir, unpriced=unpriced)


def _note_dealing(args: argparse.Namespace, hist, rules) -> None:
    """A dealt histogram is described by its own dealing; say where the rule set's would differ."""
    from ..analysis.positions import histogram_dealt_in_every_shoe, rounds_in_every_shoe
    from ..engines.plan import shoe_params

    n_cards = int(hist.shoe.sum())
    dealt_by = hist.meta.get("rules", "its rule set")
    own = histogram_dealt_in_every_shoe(hist)
    if own is None:
        note(args, f"note: {args.from_histogram} does not record how its shoes were dealt (an older histogram): the "
                   f"rounds dealt in every shoe are taken from rule set {rules.id!r}'s cut card")
        return
    if rules.shoe.model != "dealt":
        note(args, f"note: the histogram's shoes were dealt through to the cut card as {dealt_by!r} deals them "
                   f"(every shoe deals rounds 1-{own}); rule set {rules.id!r} shuffles before every round: its "
                   "figures are those of the histogram's dealing")
        return
    theirs = rounds_in_every_shoe(rules.shoe, n_cards)
    recorded = hist.meta.get("shoe_params")
    if recorded == [int(x) for x in shoe_params(rules.shoe, n_cards)] or (recorded is None and own == theirs):
        return
    note(args, f"note: the histogram's shoes were dealt as {dealt_by!r} deals them (every shoe deals rounds "
               f"1-{own}); rule set {rules.id!r} deals its own otherwise (burn, cut card or rounds after it: every "
               f"shoe deals rounds 1-{theirs}): the rounds by position are the histogram's")
