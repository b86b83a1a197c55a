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
import sys
import tempfile
import time
from pathlib import Path

from .._version import __version__
from .common import EXIT_OK, EXIT_USAGE, HelpFormatter, Parser, UsageError, guarded_main, positive_int

__all__ = ["build_parser", "main", "option_of", "run"]

PROG = "python -m baccarat_sim.leak"
#: Exit status of a command stopped by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130
DEFAULT_HIGH = "6,7,8,9"
DEFAULT_TOP = 10


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=PROG,
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
    parser.add_argument("--version", action="version", version=f"baccarat_sim {__version__}")
    game = parser.add_argument_group("the game")
    game.add_argument("--rules", default="default", metavar="NAME|PATH",
                      help="shipped rule set name or a rule-set .toml file; its bets (side bets included) are the "
                           "player's options besides sitting out")
    game.add_argument("--decks", type=positive_int("decks", 1, 16), metavar="D",
                      help="number of decks, 1-16 (default: the rule set's)")
    game.add_argument("--remove", metavar="CARDS",
                      help="a depleted shoe: cards to remove, as point values (6,6,7), ranks (K,Q; T for 10) or cards "
                           "(Qh)")
    game.add_argument("--model", choices=("fresh", "dealt"),
                      help="shoe model (default: the rule set's); a burn or bottom card needs a dealt shoe")
    game.add_argument("--bets", metavar="ID[,ID...]", help="only these bets of the rule set")
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
    out.add_argument("--format", choices=("table", "json", "markdown", "csv"), default="table",
                     help="what to print on stdout")
    out.add_argument("--out", metavar="DIR",
                     help="write .json, .csv, .md and a .png plot of the edge for each observation pattern here "
                          "(nothing is written without it)")
    out.add_argument("--no-plots", action="store_true", help="with --out: no PNG plot")
    out.add_argument("--quiet", action="store_true", help="no notes on stderr")
    out.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def option_of(param: str, args) -> str:
    """The option that set a library parameter, for one-line errors."""
    if param == "shoe":
        return "--remove" if args.remove else "--decks" if args.decks is not None else "--rules"
    if param == "positions":
        return "--card" if args.card else "--positions"
    if param == "bets":
        return "--bets" if args.bets else "--rules"
    return {"rules": "--rules", "decks": "--decks", "remove": "--remove", "model": "--model", "high": "--high",
            "groups": "--groups", "by": "--by", "top": "--top", "out": "--out"}.get(param, "")


def _note(args, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def _check_options(args) -> None:
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
    if args.no_plots and args.out is None:
        raise UsageError("--no-plots: only goes with --out (nothing is written without it)")


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


def _load(args):
    """Rules and shoe composition as the arguments ask."""
    from ..model.rules import load_rules
    from ..model.shoe import as_shoe, remove_cards

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
        shoe = remove_cards(shoe, args.remove)
    return rules, shoe


def _grouping(args):
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


def _check_out_dir(path: str) -> Path:
    """Create ``--out`` and prove it writable now, before any work is done."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out: {path!r} is a file; give a directory (it is created if missing)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):  # only writing a file tells the truth (root, read-only mounts)
            pass
    except OSError as error:
        raise UsageError(f"--out: cannot write to directory {path!r} ({error.strerror or error})") from None
    return directory


def run(args) -> int:
    """Carry out a parsed command line; returns the exit status."""
    _check_options(args)
    positions = _positions(args.card if args.card is not None else args.positions)
    started = time.perf_counter()
    rules, shoe = _load(args)
    out_dir = None if args.out is None else _check_out_dir(args.out)
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
    _note(args, f"done in {seconds:.2f} s")
    if out_dir is None:
        return EXIT_OK
    try:
        files = leak_report.write_leak_files(result, out_dir, optimal, not args.no_plots, run_info)
    except OSError as error:
        print(f"{PROG}: error: --out: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    for path in files:
        _note(args, f"wrote {path}")
    return EXIT_OK


def _interrupted(args) -> int:
    print(f"{PROG}: interrupted; nothing was written", file=sys.stderr)
    return EXIT_INTERRUPTED


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    return guarded_main(PROG, build_parser(), run, argv, option_of, _interrupted)
