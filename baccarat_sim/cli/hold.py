"""``python -m baccarat_sim.hold`` (also installed as ``baccarat-hold``): what a table does over N rounds.

Examples
--------
The house's result and hold over 100, 10^4 and 10^6 rounds of a bet mix::

    python -m baccarat_sim.hold --slip banker=100,player=50,tie=5 --rounds 100,1e4,1e6

A regulator's check of an observed hold (exit status 1 when it lies outside
the central 95% range)::

    python -m baccarat_sim.hold --slip banker=100 --observed-win 60000 --observed-handle 15e6 --rounds-played 150000

A player's sessions::

    python -m baccarat_sim.hold --slip banker=10 --bankroll 1000 --stop-loss 500 --stop-win 300

Heavy modules (numpy, numba, pandas) are imported only after the arguments
are parsed, so ``--help`` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import sys
import time
from fractions import Fraction
from pathlib import Path

from . import options
from .common import (
    EXIT_CHECK_FAILED,
    Command,
    HelpFormatter,
    Parser,
    UsageError,
    check_out_dir,
    note,
    parse_rounds,
    write_files,
)

PROG = "python -m baccarat_sim.hold"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-hold"
DEFAULT_ROUNDS = (100, 10_000, 1_000_000)
DEFAULT_MAX_ROUNDS = 1000
DEFAULT_SESSIONS = 100_000
#: The command's own library parameters and their options.
_OWN_OPTIONS = {
    "stakes": "--slip", "bankroll": "--bankroll", "stop_loss": "--stop-loss", "stop_win": "--stop-win",
    "max_rounds": "--max-rounds", "sessions": "--sessions", "tables": "--tables",
    "observed_handle": "--observed-handle", "n_rounds": "--rounds", "rounds": "--rounds", "values": "--slip",
}
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _number(text: str) -> Fraction:
    """Every amount of the command: a decimal number, bounded before it is converted (the one reader of them).

    At most ``MAX_DIGITS`` digits and an exponent of at most ``MAX_EXPONENT``
    (:func:`baccarat_sim.model.toml.exact_number`): ``1e100000000`` would
    otherwise be computed in full before anything could refuse it.
    """
    from ..model.toml import MAX_DIGITS, MAX_EXPONENT, exact_number

    cleaned = text.strip().replace("_", "")
    value = exact_number(cleaned) if _NUMBER.fullmatch(cleaned) else None
    if value is None:
        raise argparse.ArgumentTypeError(f"must be a number of at most {MAX_DIGITS} digits and exponent "
                                         f"{MAX_EXPONENT}, such as 100, 2.5 or 1e6, got {text!r}")
    return value


def amount(text: str) -> Fraction:
    """An option type: an amount of chips, more than 0 (``2.5``, ``1e6``, ``1_000``)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be an amount of chips > 0, got {text!r}")
    return value


def signed_amount(text: str) -> Fraction:
    """An option type: an amount of chips, any sign (an observed win may be a loss)."""
    return _number(text)


def amounts(text: str) -> list[Fraction]:
    """An option type: one or more amounts of chips >= 0, comma-separated."""
    values = []
    for item in text.split(","):
        value = _number(item)
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be amounts of chips >= 0, got {item.strip()!r}")
        values.append(value)
    return values


def round_counts(text: str) -> list[int]:
    """An option type: one or more whole numbers of rounds, comma-separated (``100,1e4,1e6``)."""
    items = text.split(",")
    counts = []
    for item in items:
        try:
            counts.append(parse_rounds(item))
        except argparse.ArgumentTypeError as error:
            if len(items) == 1:
                raise
            raise argparse.ArgumentTypeError(f"{item.strip()!r}: {error}") from None
    return counts


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=prog,
        description="What a Baccarat table does over N rounds of a bet slip: the house's result and hold at "
                    "quantiles, P(house behind), an observed hold's verdict, and player sessions.",
        formatter_class=HelpFormatter,
        epilog="Exit status: 0 done, 1 the observed hold lies outside the --range (or an internal error, which says "
               "so), 2 bad input, 130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP.",
    )
    options.add_version(parser)
    table = parser.add_argument_group("the table")
    options.add_rules(table)
    options.add_decks(table)
    options.add_remove(table)
    options.add_meter(table)
    options.add_model(table, "shoe model: shuffled before every round (exact), or dealt through to the cut card "
                             "(Monte Carlo of whole tables) (default: the rule set's)")
    table.add_argument("--slip", required=True, metavar="BET=STAKE[,...]",
                       help="the bets placed every round and their stakes in chips, e.g. banker=100,player=50,tie=5")
    horizons = parser.add_argument_group("the house over N rounds")
    horizons.add_argument("--rounds", type=round_counts, metavar="N[,N...]",
                          help="numbers of rounds, e.g. 100,1e4,1e6 (default: 100,1e4,1e6)")
    horizons.add_argument("--k", type=amounts, action="append", metavar="K[,K...]",
                          help="also report P(house behind by more than K chips); repeatable")
    horizons.add_argument("--tables", type=parse_rounds, metavar="T",
                          help="dealt model: simulated tables per number of rounds (default: 1e8 rounds' worth, "
                               "from 1,000 to 100,000)")
    observed = parser.add_argument_group("an observed hold")
    observed.add_argument("--observed-win", type=signed_amount, metavar="W",
                          help="the house's observed win in chips (negative for a loss)")
    observed.add_argument("--observed-handle", type=_number, metavar="H", help="the observed handle in chips")
    observed.add_argument("--rounds-played", type=parse_rounds, metavar="N", help="rounds the observation covers")
    observed.add_argument("--range", type=int, choices=(95, 99), metavar="95|99",
                          help="exit with status 1 when the observed hold lies outside this central range "
                               "(default: 95)")
    sessions = parser.add_argument_group("player sessions")
    sessions.add_argument("--bankroll", type=amount, metavar="B", help="simulate sessions starting with B chips")
    sessions.add_argument("--stop-loss", type=amount, metavar="L", help="stop once L chips are lost")
    sessions.add_argument("--stop-win", type=amount, metavar="G", help="stop once G chips are won (the goal)")
    sessions.add_argument("--max-rounds", type=parse_rounds, metavar="M",
                          help=f"rounds a session lasts at most (default: {DEFAULT_MAX_ROUNDS:,})")
    sessions.add_argument("--sessions", type=parse_rounds, metavar="S",
                          help=f"Monte Carlo sessions (default: {DEFAULT_SESSIONS:,})")
    run_group = parser.add_argument_group("how to run")
    options.add_seed(run_group, "master seed of every simulation (default: drawn at random and printed)")
    options.add_threads(run_group)
    out = parser.add_argument_group("output")
    options.add_format(out)
    options.add_out(out, "write the result files (JSON, CSV, Markdown, plots) into DIR")
    options.add_no_plots(out)
    options.add_quiet(out)
    options.add_debug(out)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter (``"stop_loss"`` -> ``--stop-loss``), for one-line errors."""
    return options.option_of(param, args, _OWN_OPTIONS)


def _check_options(args: argparse.Namespace) -> None:
    """Options that must come together, before any work is done."""
    observed = {"--observed-win": args.observed_win, "--observed-handle": args.observed_handle,
                "--rounds-played": args.rounds_played}
    given = [name for name, value in observed.items() if value is not None]
    if given and len(given) < 3:
        missing = [name for name in observed if name not in given]
        raise UsageError(f"{given[0]}: an observed hold needs {' and '.join(missing)} too")
    if args.observed_handle is not None and args.observed_handle <= 0:
        raise UsageError(f"--observed-handle: must be an amount of chips > 0, got {float(args.observed_handle):g}")
    if args.range is not None and not given:
        raise UsageError("--range: checks an observed hold; give --observed-win, --observed-handle and "
                         "--rounds-played")
    for name, value in (("--stop-loss", args.stop_loss), ("--stop-win", args.stop_win),
                        ("--max-rounds", args.max_rounds), ("--sessions", args.sessions)):
        if value is not None and args.bankroll is None:
            raise UsageError(f"{name}: sets up player sessions; give --bankroll too")
    options.refuse_no_plots_without_out(args)


def parse_slip(text: str, bet_ids, rules_id: str = "") -> dict[str, Fraction]:
    """``--slip banker=100,player=50``: stake per bet id (ids case-insensitive), each stake > 0.

    Raises
    ------
    UsageError
        One line naming ``--slip``, the item at fault and what is allowed
        (the nearest bet id for an unknown one).

    Examples
    --------
    >>> parse_slip("Banker=100, tie=2.5", ("player", "banker", "tie"), "default")
    {'banker': Fraction(100, 1), 'tie': Fraction(5, 2)}
    """
    stakes: dict[str, Fraction] = {}
    lookup = {bet_id.lower(): bet_id for bet_id in bet_ids}
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or any(not item for item in items):
        raise UsageError(f"--slip: give BET=STAKE pairs separated by commas, e.g. banker=100,player=50; got {text!r}")
    for item in items:
        name, sep, stake_text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--slip: {item!r} is not BET=STAKE, e.g. banker=100")
        bet_id = lookup.get(name.lower())
        if bet_id is None:
            close = difflib.get_close_matches(name.lower(), list(lookup), n=1, cutoff=0.5)
            hint = f"did you mean {lookup[close[0]]}? " if close else ""
            where = f"rule set {rules_id!r}" if rules_id else "the rule set"
            raise UsageError(f"--slip: no bet {name!r} in {where}; {hint}(bets: {', '.join(bet_ids)})")
        if bet_id in stakes:
            raise UsageError(f"--slip: {bet_id} is given twice")
        try:
            stake = _number(stake_text)
        except argparse.ArgumentTypeError as error:
            raise UsageError(f"--slip: the stake on {bet_id} {error}") from None
        if stake <= 0:
            raise UsageError(f"--slip: the stake on {bet_id} must be an amount of chips > 0, got "
                             f"{stake_text.strip()}")
        stakes[bet_id] = stake
    return stakes


def _progress(args: argparse.Namespace):
    """``progress(total, unit)`` for the library: a bar on stderr unless ``--quiet``."""
    from ..report.progress import progress_bar

    return lambda total, unit: progress_bar(None if not args.quiet else False, total, unit=unit)


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command line; returns the exit status."""
    started = time.perf_counter()
    _check_options(args)
    out_dir = None if args.out is None else check_out_dir(args.out)
    rules, shoe = options.load_table(args)
    if args.tables is not None and rules.shoe.model != "dealt":
        raise UsageError(f"--tables: simulates dealt shoes; rule set {rules.id!r} shuffles before every round, where "
                         "the figures are exact (add --model dealt to simulate)")
    stakes = parse_slip(args.slip, rules.bet_ids, rules.id)
    from ..analysis.hold import analyze_hold, bankroll_curve, fan_chart, study_sessions
    from ..analysis.sessions import SessionRules, session_bounds
    from ..analysis.slip import build_slip
    from ..engines.local import numba_threads
    from ..engines.plan import normalize_seed
    from ..errors import LimitError

    try:
        slip = build_slip(rules, stakes, shoe)
    except LimitError as error:
        raise UsageError(f"--slip: {error.message}") from None
    horizons = tuple(args.rounds) if args.rounds else DEFAULT_ROUNDS
    behind_by = sorted({k for group in (args.k or []) for k in group})
    simulated = slip.model == "dealt" or args.bankroll is not None
    seed_value = normalize_seed(args.seed) if simulated else None
    with numba_threads(args.threads) as threads:  # checks --threads before any work
        pass
    session_rules = None
    if args.bankroll is not None:
        session_rules = SessionRules(args.bankroll, args.max_rounds or DEFAULT_MAX_ROUNDS, args.stop_loss,
                                     args.stop_win)
        session_bounds(slip.player, session_rules)  # the bankroll must cover the slip: say so before any work
    if seed_value is not None:
        note(args, f"seed {seed_value}")
    observed = None
    if args.observed_win is not None:
        observed = (args.observed_win, args.observed_handle, args.rounds_played)
    progress = _progress(args)
    analysis = analyze_hold(slip, horizons, behind_by=behind_by, observed=observed, tables=args.tables,
                            seed=seed_value, threads=args.threads, progress=progress)
    plots = out_dir is not None and not args.no_plots
    if session_rules is not None:
        n_sessions = args.sessions or DEFAULT_SESSIONS
        with progress(n_sessions, "session") as bar:
            study = study_sessions(slip, session_rules, n_sessions, seed_value, threads=args.threads, progress=bar)
        if plots:
            study = dataclasses.replace(study, curve=bankroll_curve(slip, session_rules, max(n_sessions // 10, 10_000),
                                                                    seed_value, threads=args.threads))
        analysis = dataclasses.replace(analysis, sessions=study)
    if plots:
        analysis = dataclasses.replace(analysis, fan=fan_chart(slip, horizons, analysis.distributions))
    analysis = dataclasses.replace(analysis, run={
        "seed": seed_value, "threads": threads if simulated else None, "tables": args.tables,
        "removed": args.remove, "seconds": time.perf_counter() - started})
    return _report(args, analysis, out_dir)


def _report(args: argparse.Namespace, analysis, out_dir: Path | None) -> int:
    """Print the analysis, write its files and say whether the observed hold is inside the range."""
    from ..report import hold as hold_report

    level = args.range or 95
    files, status = write_files(args, out_dir, lambda directory: hold_report.write_hold_files(
        analysis, directory, plots_wanted=not args.no_plots, check_range=level))
    if args.format == "json":
        import json

        rendered = json.dumps(hold_report.hold_dict(analysis, level), indent=2)
    elif args.format == "csv":
        rendered = hold_report.hold_csv(analysis)
    elif args.format == "markdown":
        rendered = hold_report.hold_markdown(analysis, level)
    else:
        rendered = hold_report.hold_text(analysis, check_range=level)
    print(rendered.rstrip("\n"))
    for path in files:
        note(args, f"wrote {path}")
    verdict = analysis.observed
    if verdict is not None and verdict.handle_rescaled:  # said whatever --quiet: the input disagrees with itself
        print(f"note: {hold_report.handle_note(verdict)}", file=sys.stderr)
    if verdict is not None and not verdict.inside(level):
        note(args, f"observed hold {100 * float(verdict.hold):.4f}% lies outside the central {level}% range "
                   f"(percentile {verdict.percentile:.4g}, two-sided p-value "
                   f"{hold_report.stated_probability(verdict.p_two_sided)})")
        status = max(status, EXIT_CHECK_FAILED)
    return status


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-hold`` console script."""
    return COMMAND.console_script()
