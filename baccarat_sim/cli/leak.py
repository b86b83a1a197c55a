"""``python -m baccarat_sim.leak`` (also installed as ``baccarat-leak``): what leaked card information is worth.

Examples
--------
Edge sorting the first card with Jacobson's groups (High = 6, 7, 8, 9)::

    python -m baccarat_sim.leak

The first four cards, and the best of the 1023 High groups::

    python -m baccarat_sim.leak --positions P1,B1,P2,B2
    python -m baccarat_sim.leak --positions P1,B1,P2,B2 --optimize

A flashed Player first card, and a shown burn card of a dealt shoe::

    python -m baccarat_sim.leak --card P1
    python -m baccarat_sim.leak --rules live-8deck-side-bets --card burn

Heavy modules (numpy, numba, pandas) are imported only after the arguments
are parsed, so ``--help`` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import time

from .._version import __version__
from . import options
from .common import Command, HelpFormatter, Parser, UsageError, check_out_dir, note, positive_int, write_files

__all__ = ["build_parser", "main", "option_of", "run", "script"]

PROG = "python -m baccarat_sim.leak"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-leak"
DEFAULT_HIGH = "6,7,8,9"
DEFAULT_TOP = 10


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=prog,
        description="Exact value of leaked card information (edge sorting, exposed cards): for every observation "
                    "pattern its probability, each bet's EV, the best action (a bet or sitting out) and the edge; "
                    "the player's edge over all rounds, a sat-out round counting 0.",
        formatter_class=HelpFormatter,
        epilog="Positions: P1 B1 P2 B2 (the first four cards, in dealing order), C5 C6 (the fifth and sixth cards: "
               "the third cards of the hands that draw; by point value only), next (the next card out of the shoe, "
               "the round's first card: P1), burn (a burned card shown; a dealt shoe that burns), bottom (the bottom "
               "card, behind the cut card of a dealt shoe). Groups: --high 6,7,8,9 splits the point values into High "
               "and Low; --groups 'A234|5678|9TJQK' is any partition, groups separated by '|', members one character "
               "each (T for 10) or separated by commas, read by rank when it names J, Q or K (or with --by rank), "
               "else by point value (0-9; A for 1, T for 0). Exit status: 0 done, 2 bad input (one line), 1 an "
               "internal error.",
    )
    options.add_version(parser)
    game = parser.add_argument_group("the game")
    options.add_rules(game, "shipped rule set name or a rule-set .toml file; its bets (side bets included) are the "
                            "player's options besides sitting out")
    options.add_decks(game)
    options.add_remove(game)
    options.add_model(game, "shoe model (default: the rule set's); a burn or bottom card needs a dealt shoe")
    options.add_bets(game, "only these bets of the rule set (ids in any case)")
    seen = parser.add_argument_group("what the player sees before betting")
    seen.add_argument("--positions", metavar="POS[,POS...]",
                      help="the positions whose cards the player classifies (default P1); 'none' for no information")
    seen.add_argument("--high", metavar="VALUES",
                      help=f"point values 0-9 in the High group, the rest Low (default {DEFAULT_HIGH} when no other "
                           "grouping is given)")
    seen.add_argument("--groups", metavar="PARTITION",
                      help="any partition of the point values or ranks, e.g. '0123|456789' or 'A234|5678|9TJQK'")
    seen.add_argument("--by", choices=("value", "rank", "card"),
                      help="classify by point value, rank or card; alone, every value, rank or card is its own group "
                           "(exact knowledge at that level)")
    seen.add_argument("--card", "--exposed", metavar="POS[,POS...]", dest="card",
                      help="one card seen by accident, known exactly (rank and suit): the edge for each card it can "
                           "be and on average; e.g. --card P1 (a flashed Player first card), --exposed burn, "
                           "--exposed bottom")
    seen.add_argument("--optimize", action="store_true",
                      help="search all 1023 High groups of the ten point values at --positions (one to four of the "
                           "six round positions) and show the best")
    seen.add_argument("--top", type=positive_int("top", 1, 511), metavar="N",
                      help=f"--optimize: how many of the best splits to list (default {DEFAULT_TOP})")
    out = parser.add_argument_group("output")
    options.add_format(out)
    options.add_out(out, "write .json, .csv, .md and a .png plot of the edge for each observation pattern here "
                         "(nothing is written without it)")
    options.add_no_plots(out, "with --out: no PNG plot")
    options.add_quiet(out, "no notes on stderr")
    options.add_debug(out)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter, for one-line errors."""
    return options.option_of(param, args, {"positions": "--card" if args.card else "--positions",
                                           "bets": "--bets" if args.bets else "--rules", "high": "--high",
                                           "groups": "--groups", "by": "--by", "top": "--top"})


def _check_options(args: argparse.Namespace) -> None:
    """Options that do not go together, before any work is done."""
    if args.card is not None:
        for flag, given in (("--positions", args.positions), ("--high", args.high), ("--groups", args.groups),
                            ("--by", args.by), ("--optimize", args.optimize)):
            if given:
                raise UsageError(f"--card: names the positions and the grouping itself (every card apart); drop "
                                 f"{flag}")
    if args.optimize:
        for flag, given in (("--high", args.high), ("--groups", args.groups), ("--by", args.by)):
            if given:
                raise UsageError(f"--optimize: searches the High groups of the point values itself; drop {flag}")
    if args.top is not None and not args.optimize:
        raise UsageError("--top: only goes with --optimize")
    if args.high is not None and args.groups is not None:
        raise UsageError("--high: give either --high or --groups, not both")
    if args.high is not None and args.by not in (None, "value"):
        raise UsageError(f"--high: names point values; it does not go with --by {args.by}")
    if args.groups is not None and args.by == "card":
        raise UsageError("--groups: with --by card every card is its own group; drop --groups")
    options.refuse_no_plots_without_out(args)


def _positions(text: str | None) -> list[str]:
    """``--positions``/``--card`` as a list of names (``none``: no information)."""
    if text is None:
        return ["P1"]
    if text.strip().lower() == "none":
        return []
    names = [item.strip() for item in text.split(",")]
    if not all(names):
        raise UsageError(f"--positions: empty item in {text!r}; give positions separated by single commas, e.g. "
                         "P1,B1,P2,B2")
    return names


def _grouping(args: argparse.Namespace):
    """The grouping the options ask for (library errors name --high, --groups or --by)."""
    from ..analysis.leak import each, high_low, parse_groups

    if args.card is not None:
        return each("card")
    if args.groups is not None:
        return parse_groups(args.groups, args.by)
    if args.high is not None:
        return high_low(args.high.split(","))
    if args.by is not None:
        return each(args.by)
    return high_low(DEFAULT_HIGH.split(","))


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed command line; returns the exit status."""
    _check_options(args)
    positions = _positions(args.card if args.card is not None else args.positions)
    started = time.perf_counter()
    rules, shoe = options.load_table(args, deals_rounds=False)  # the cards seen, not rounds dealt to the cut card
    out_dir = None if args.out is None else check_out_dir(args.out)
    from ..analysis.leak import leak_value, optimal_sort
    from ..report import leak as leak_report

    optimal = None
    if args.optimize:
        optimal = optimal_sort(rules, positions, shoe, top=args.top or DEFAULT_TOP)
        result = optimal.best
    else:
        result = leak_value(rules, positions, _grouping(args), shoe)
    seconds = time.perf_counter() - started
    run_info = {"version": __version__, "rules_path": rules.path, "removed": args.remove, "seconds": seconds}
    if args.format == "json":
        import json

        print(json.dumps(leak_report.leak_dict(result, optimal, run_info), indent=2))
    elif args.format == "csv":
        print(leak_report.leak_csv(result).rstrip("\n"))
    elif args.format == "markdown":
        print(leak_report.leak_markdown(result, optimal))
    else:
        print(leak_report.leak_text(result, optimal))
    note(args, f"done in {seconds:.2f} s")
    files, status = write_files(args, out_dir, lambda directory: leak_report.write_leak_files(
        result, directory, optimal, not args.no_plots, run_info))
    for path in files:
        note(args, f"wrote {path}")
    return status


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, "; nothing was written")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-leak`` console script."""
    return COMMAND.console_script()
