"""``python -m baccarat_sim.math_report`` (also ``baccarat-math-report``): the math report a test lab receives.

Example
-------
The PDF, the Excel workbook, Markdown and JSON of a rule set's bets::

    python -m baccarat_sim.math_report --rules catalogue-poker --out submission/

Heavy modules are imported only after the arguments are parsed and the
output folder is proven writable, so ``--help`` and bad input are instant and
write nothing.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from . import options
from .common import Command, HelpFormatter, Parser, check_out_dir, note, parse_rounds

__all__ = ["DEFAULT_COUNT_SHOES", "DEFAULT_ROUNDS", "DEFAULT_SWEEP_ROUNDS", "PROG", "SCRIPT", "build_parser", "main",
           "run", "script"]

PROG = "python -m baccarat_sim.math_report"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-math-report"
#: Monte Carlo verification rounds: the size certification simulations use.
DEFAULT_ROUNDS = 10**9
#: Shoes of the counting study: about 8 x 10^6 rounds of an 8-deck shoe, every counted bet at once.
DEFAULT_COUNT_SHOES = 10**5
#: Rounds per cut-card position of the sweep (a dealt shoe), four positions.
DEFAULT_SWEEP_ROUNDS = 10**8
_OWN_OPTIONS = {"rounds": "--rounds", "shoes": "--count-shoes", "skip": "--skip"}
#: The parts ``--skip`` may leave out (as :data:`baccarat_sim.analysis.math_report.PARTS`, which a test holds it to:
#: the parser imports nothing heavy).
PARTS = ("decks", "hold", "countability", "sweep")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=prog,
        description="Write a rule set's math report for a test lab or regulator into DIR: a typeset PDF, an Excel "
                    "workbook with live formulas, Markdown and JSON. Per bet: the combinations table, RTP, house "
                    "edge, hit frequency, SD, volatility index, jackpot odds, house edge by deck count, hold "
                    "confidence, countability and a Monte Carlo verification; and a reproducibility manifest.",
        formatter_class=HelpFormatter,
        epilog="Exit status: 0 written (1 when a Monte Carlo figure fails its |z| check, or an internal error, "
               "which says so), 2 bad input (nothing is written), 130/143/129 stopped by Ctrl-C/SIGTERM/SIGHUP.",
    )
    options.add_version(parser)
    table = parser.add_argument_group("the table")
    options.add_rules(table)
    options.add_decks(table)
    options.add_remove(table)
    options.add_meter(table)
    options.add_bets(table, "report only these bets (ids in any case; default: every bet of the rule set)")
    sizes = parser.add_argument_group("simulation sizes (each part states its own in the report)")
    sizes.add_argument("--rounds", type=parse_rounds, default=DEFAULT_ROUNDS, metavar="N",
                       help="Monte Carlo verification rounds")
    sizes.add_argument("--count-shoes", type=parse_rounds, default=DEFAULT_COUNT_SHOES, metavar="S",
                       help="shoes of the counting study (every counted bet played in one pass)")
    sizes.add_argument("--sweep-rounds", type=parse_rounds, default=DEFAULT_SWEEP_ROUNDS, metavar="N",
                       help="a rule set dealt through a shoe: rounds per cut-card position")
    sizes.add_argument("--skip", type=_parts, metavar="PART[,PART...]",
                       help="leave parts out of the report (it says so): " + ", ".join(PARTS))
    run_group = parser.add_argument_group("how to run")
    options.add_seed(run_group, "master seed of every simulated part (default: drawn at random and stated)")
    options.add_threads(run_group)
    out = parser.add_argument_group("output")
    out.add_argument("--out", metavar="DIR", required=True,
                     help="write {rules}-math-report.pdf, .xlsx, .md, .json (and the counting study's strategy) "
                          "into DIR, all together or none")
    options.add_quiet(out)
    options.add_debug(out)
    parser.set_defaults(model=None)  # the rule set's own shoe model (load_table reads it)
    return parser


def _parts(text: str) -> tuple[str, ...]:
    """``--skip hold,countability``: parts of the report to leave out."""
    chosen = tuple(dict.fromkeys(part.strip() for part in text.split(",")))
    for part in chosen:
        if part not in PARTS:
            raise argparse.ArgumentTypeError(f"no part {part!r}; parts: {', '.join(PARTS)}")
    return chosen


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter, for one-line errors."""
    return options.option_of(param, args, _OWN_OPTIONS)


def _table_options(args: argparse.Namespace, shoe: bool = True) -> str:
    """The options that set the table (``shoe``: with ``--decks`` and ``--remove``)."""
    parts = [f"--rules {shlex.quote(args.rules)}"]
    chosen = (("--decks", args.decks), ("--remove", args.remove)) if shoe else ()
    for option, value in (*chosen, ("--bets", args.bets)):
        if value is not None:
            parts.append(f"{option} {shlex.quote(str(value))}")
    for meter in args.meter or []:
        parts.append(f"--meter {shlex.quote(meter)}")
    return " ".join(parts)


def commands(args: argparse.Namespace, result, out_dir) -> tuple[str, dict]:
    """The command line that reproduces the report, and the command behind each part's figures."""
    from ..analysis.math_report import HOLD_HORIZONS, hold_stake
    from ..analysis.math_report_parts import sweep_positions
    from ..report.math_report import STRATEGY_FILE

    table = _table_options(args)
    seed = result.seed
    line = (f"{PROG} {table} --rounds {args.rounds} --count-shoes {args.count_shoes} --sweep-rounds "
            f"{args.sweep_rounds} --seed {seed}" + (f" --skip {','.join(args.skip)}" if args.skip else "")
            + f" --out {shlex.quote(str(out_dir))}")
    rules = result.rules
    horizons = ",".join(str(n) for n in HOLD_HORIZONS)
    parts = {
        "exact": f"python -m baccarat_sim.rtp --exact {table}",
        "monte_carlo": f"python -m baccarat_sim.rtp {table} --rounds {args.rounds} --seed {seed}",
    }
    if result.eor is not None:
        parts["effect_of_removal"] = f"python -m baccarat_sim.rtp --exact --eor {table}"
    if any(section.hold for section in result.sections):
        parts["hold"] = "; ".join(f"python -m baccarat_sim.hold {table} --model fresh --slip {bet.id}="
                                  f"{hold_stake(rules, bet)} --rounds {horizons}" for bet in rules.bets)
    if result.count_strategy is not None:
        strategy = shlex.quote(str(out_dir / (rules.id + STRATEGY_FILE)))
        parts["count"] = (f"python -m baccarat_sim.rtp {table} --model dealt --count {strategy} --shoes "
                          f"{args.count_shoes} --seed {seed}")
    if result.sweep is not None:
        parts["sweep"] = (f"python -m baccarat_sim.rtp {table} --sweep {sweep_positions(rules)} --rounds "
                          f"{args.sweep_rounds} --seed {seed}")
    full_decks = _table_options(args, shoe=False)  # the deck table's shoes are full, whatever --remove takes out
    for deck in range(1, 9) if result.decks is not None else ():
        parts[f"exact_{deck}_decks"] = f"python -m baccarat_sim.rtp --exact {full_decks} --decks {deck}"
    return line, parts


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command line; returns the exit status."""
    started = time.perf_counter()
    rules, shoe = options.load_table(args)  # bad rules or bets: refused before the output folder is made
    out_dir = check_out_dir(args.out)
    from ..analysis.math_report import ReportSizes, build_math_report
    from ..engines.local import numba_threads
    from ..report.math_report import Submission, build_manifest
    from ..report.math_report_files import write_math_report_files
    from ..report.progress import progress_bar
    from .common import EXIT_CHECK_FAILED, EXIT_OK, announce_compile, write_files

    with numba_threads(args.threads) as threads:  # checks --threads before any work, and says how many run
        pass
    sizes = ReportSizes(args.rounds, args.count_shoes, args.sweep_rounds)
    with announce_compile("the kernels", args.quiet):
        result = build_math_report(
            rules, sizes=sizes, seed=args.seed, threads=threads, shoe=shoe,
            progress=lambda total, unit: progress_bar(None if not args.quiet else False, total, unit=unit),
            note=lambda text: note(args, text), skip=args.skip or ())
    note(args, f"seed {result.seed}")
    line, parts = commands(args, result, out_dir)
    submission = Submission(result, build_manifest(result, line, parts))
    note(args, "typesetting the PDF and writing the workbook ...")
    files, status = write_files(args, out_dir, lambda directory: write_math_report_files(submission, directory))
    for path in files:
        print(path)
    failed = [s.bet.id for s in result.sections if abs(s.figures.z) >= _fail_z()]  # NaN compares False
    for bet_id in failed:
        print(f"check FAILED {bet_id}: the Monte Carlo RTP lies {_fail_z()} or more standard errors from exact",
              file=sys.stderr)
    note(args, f"done in {time.perf_counter() - started:.1f} s")
    return max(status, EXIT_CHECK_FAILED if failed else EXIT_OK)


def _fail_z() -> float:
    from ..analysis.check import FAIL_Z

    return FAIL_Z


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, "; nothing was written")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-math-report`` console script."""
    return COMMAND.console_script()
