"""The options several commands share, defined once: their types, checks, help and the errors that name them.

``--rules``, ``--decks``, ``--remove``, ``--model``, ``--bets``, ``--meter``, ``--seed``,
``--threads``, ``--format``, ``--out``, ``--no-plots``, ``--quiet``,
``--debug`` and ``--version`` mean the same in every command that has them
(``rtp``, ``hold``, ``leak``, ``findings``); a command's help may say what an
option does there, never what it accepts. :func:`load_table` reads the table
they describe, and :func:`option_of` names the option behind a library error.

Plain Python only: parsers are built before any heavy module is imported.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable

from .._version import __version__
from ..limits import MAX_DECKS
from .common import UsageError, positive_int, seed

__all__ = [
    "AFTER_CUT_READINGS",
    "NO_PLOTS",
    "Applies",
    "FORMATS",
    "add_bets",
    "add_debug",
    "add_decks",
    "add_format",
    "add_meter",
    "add_model",
    "add_no_plots",
    "add_out",
    "add_quiet",
    "add_remove",
    "add_rules",
    "add_seed",
    "add_threads",
    "add_version",
    "load_table",
    "meters",
    "option_of",
    "refuse_no_plots_without_out",
    "refuse_unused",
    "select_bets",
]

#: What ``--format`` prints on stdout.
FORMATS = ("table", "json", "csv", "markdown")
#: ``--after-cut`` choices, indexed by the rounds dealt after the cut card's round (the rule files' shoe.after_cut).
AFTER_CUT_READINGS = ("finish_round", "one_more_round")
#: The option of each library parameter that names a shared option (the option's dest is the parameter's name).
_SHARED = {"rules": "--rules", "decks": "--decks", "remove": "--remove", "model": "--model", "seed": "--seed",
           "threads": "--threads", "bets": "--bets", "out": "--out"}


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version``."""
    parser.add_argument("--version", action="version", version=f"baccarat_sim {__version__}")


def add_rules(group, help: str = "shipped rule set name or a rule-set .toml file") -> None:
    """``--rules NAME|PATH`` (default: the shipped ``default``)."""
    group.add_argument("--rules", default="default", metavar="NAME|PATH", help=help)


def add_decks(group) -> None:
    """``--decks D``: 1 to :data:`~baccarat_sim.limits.MAX_DECKS`."""
    group.add_argument("--decks", type=positive_int("decks", 1, MAX_DECKS), metavar="D",
                       help=f"number of decks, 1-{MAX_DECKS} (default: the rule set's)")


def add_remove(group) -> None:
    """``--remove CARDS`` (read by :func:`baccarat_sim.model.shoe.remove_cards`)."""
    group.add_argument("--remove", metavar="CARDS",
                       help="start from a depleted shoe: cards to remove, as point values (6,6,7), ranks (K,Q; T for "
                            "10) or cards (Qh)")


def add_model(group, help: str) -> None:
    """``--model fresh|dealt`` (default: the rule set's)."""
    group.add_argument("--model", choices=("fresh", "dealt"), help=help)


def add_bets(group, help: str = "report only these bets (ids in any case)") -> None:
    """``--bets ID[,ID...]``, matched regardless of case (:func:`select_bets`)."""
    group.add_argument("--bets", metavar="ID[,ID...]", help=help)


def add_meter(group) -> None:
    """``--meter BET=VALUE[,BET=VALUE...]`` (repeatable): a jackpot bet's meter, in the unit its rule file states."""
    group.add_argument("--meter", action="append", metavar="BET=VALUE",
                       help="price a jackpot bet with its meter at VALUE, in the unit its rule file states (default: "
                            "the reset value); repeat or separate with commas for several bets (ids in any case, "
                            "each bet once)")


def meters(texts: list[str], rules) -> dict:
    """The meter of each bet that ``--meter`` names (bet id to an exact value), checked against ``rules``.

    Raises
    ------
    UsageError
        Not ``BET=VALUE``, a bet that is not in the rule set or pays no jackpot, a bet given twice, or a value that
        is not a number >= 0.

    Bet ids match regardless of case, as ``--bets`` matches them.
    """
    from fractions import Fraction

    with_jackpot = [bet.id for bet in rules.bets if bet.jackpot is not None]
    allowed = ", ".join(with_jackpot) or "none in this rule set"
    by_lower = {bet_id.lower(): bet_id for bet_id in rules.bet_ids}
    found, given = {}, {}
    for item in (part.strip() for text in texts for part in text.split(",")):
        bet_id, equals, value = item.partition("=")
        bet_id = by_lower.get(bet_id.strip().lower(), bet_id.strip())
        if not equals or not bet_id:
            raise UsageError(f"--meter: give BET=VALUE (a jackpot bet's id and its meter), got {item!r}")
        if bet_id in given:
            raise UsageError(f"--meter: bet {bet_id!r} is given twice ({given[bet_id]!r} and {item!r}); give each "
                             "bet's meter once")
        given[bet_id] = item
        if bet_id not in with_jackpot:
            what = "pays no jackpot" if bet_id in rules.bet_ids else f"is not in rule set {rules.id!r}"
            raise UsageError(f"--meter: bet {bet_id!r} {what}; bets with a jackpot: {allowed}")
        try:
            meter = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            meter = None
        if meter is None or meter < 0 or meter > 10**12:
            raise UsageError(f"--meter: {bet_id}'s meter must be a number from 0 to 10^12 (in the unit its rule file "
                             f"states), got {value.strip()!r}")
        found[bet_id] = meter
    return found


def add_seed(group, help: str = "master seed (default: drawn at random and printed)") -> None:
    """``--seed``: 0 to 2**63 - 1."""
    group.add_argument("--seed", type=seed, help=help)


def add_threads(group) -> None:
    """``--threads T`` (checked against the machine when a run starts)."""
    group.add_argument("--threads", type=positive_int("threads", 1), metavar="T",
                       help="kernel threads (default: all cores); results do not depend on it")


def add_format(group) -> None:
    """``--format``: one of :data:`FORMATS`."""
    group.add_argument("--format", choices=FORMATS, default="table", help="what to print on stdout")


def add_out(group, help: str, default: str | None = None) -> None:
    """``--out DIR`` (checked writable before any work: :func:`~baccarat_sim.cli.common.check_out_dir`)."""
    group.add_argument("--out", metavar="DIR", default=default, help=help)


def add_no_plots(group, help: str = "with --out: no PNG plots (faster)") -> None:
    """``--no-plots``."""
    group.add_argument("--no-plots", action="store_true", help=help)


def add_quiet(group, help: str = "no progress bar or notes on stderr") -> None:
    """``--quiet``."""
    group.add_argument("--quiet", action="store_true", help=help)


def add_debug(group) -> None:
    """``--debug``."""
    group.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")


@dataclasses.dataclass(frozen=True)
class Applies:
    """Where an option applies: one row of a command's table of options that it refuses rather than ignore.

    Attributes
    ----------
    option : str
        The option as a message names it (``"--model dealt"``).
    given : callable
        ``given(args)``: whether the command line sets it.
    needs : tuple or None
        ``(holds(args), line)``: the option applies only where ``holds`` does;
        elsewhere ``line`` is the error (``"--no-plots: only with --out ..."``).
    refused : dict
        What the command does (its *mode*, see :func:`refuse_unused`) to why
        the option does not apply there.
    """

    option: str
    given: Callable[[argparse.Namespace], bool]
    needs: tuple | None = None
    refused: dict = dataclasses.field(default_factory=dict)


#: ``--no-plots`` and ``--no-files`` where files are written only with ``--out``.
NO_PLOTS = Applies("--no-plots", lambda args: args.no_plots,
                   needs=(lambda args: args.out is not None, "--no-plots: only with --out (nothing is written without "
                                                             "it)"))


def refuse_unused(args, table, mode: str = "", mode_options: dict | None = None) -> None:
    """Refuse, in one line, the first option of ``table`` that is given but does not apply: never ignore it.

    Parameters
    ----------
    args : Namespace
    table : iterable of Applies
        The command's rows, in the order their errors take precedence.
    mode : str
        What the command does with these options (``"exact"``, ``"count"``, ...).
    mode_options : dict or None
        The option that chose each mode, for the message (``{"count": "--count"}``).

    Raises
    ------
    UsageError
        ``--count: deals shoes; drop --exact``, or the row's own line.
    """
    for row in table:
        if not row.given(args):
            continue
        if row.needs is not None and not row.needs[0](args):
            raise UsageError(row.needs[1])
        why = row.refused.get(mode)
        if why is not None:
            raise UsageError(f"{(mode_options or {}).get(mode, mode)}: {why}; drop {row.option}")


def refuse_no_plots_without_out(args) -> None:
    """``--no-plots`` without ``--out`` (in a command that writes files only there): one line, exit 2."""
    refuse_unused(args, (NO_PLOTS,))


def option_of(param: str, args, own: dict[str, str] | None = None) -> str:
    """The option that set a library parameter (``"decks"`` -> ``--decks``), for one-line errors.

    Parameters
    ----------
    param : str
        The library's parameter (``error.param``).
    args : Namespace
        The parsed options: a shared option counts only where the command has it.
    own : dict or None
        The command's own parameters and options.
    """
    if param == "shoe" and hasattr(args, "remove"):  # a shoe is built from the rule file, then --decks, then --remove
        return "--remove" if args.remove else "--decks" if args.decks is not None else "--rules"
    if own and param in own:
        return own[param]
    return _SHARED[param] if param in _SHARED and hasattr(args, param) else ""


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


def load_table(args, *, deals_rounds: bool = True):
    """The rule set and shoe composition the shared options ask for.

    ``--rules``, then ``--decks``, ``--model``, ``--after-cut`` and ``--bets``
    where the command has them, then the shoe with ``--remove``'s cards out.
    A rule set dealt through to the cut card must leave room for a round
    (``deals_rounds``: the command deals rounds to the cut card).

    Returns
    -------
    (Rules, ndarray)
    """
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
    after_cut = getattr(args, "after_cut", None)
    if after_cut is not None:
        if rules.shoe.model != "dealt":
            raise UsageError(f"--after-cut: rule set {rules.id!r} shuffles before every round, so no cut card comes "
                             "out; add --model dealt or drop --after-cut")
        rounds_after_cut = AFTER_CUT_READINGS.index(after_cut)
        if rounds_after_cut != rules.shoe.rounds_after_cut:
            # The rule set's assumptions name its own reading: say that this run deals the other one.
            rules = dataclasses.replace(rules, assumptions=rules.assumptions + (
                f"--after-cut {after_cut}: " + ("one more round is dealt after the round in which the cut card "
                                                "comes out" if rounds_after_cut else "the round in which the cut "
                                                "card comes out is the last")
                + f" (the rule set's shoe.after_cut is {AFTER_CUT_READINGS[rules.shoe.rounds_after_cut]!r}).",))
        rules = rules.with_shoe(rounds_after_cut=rounds_after_cut)
    if getattr(args, "meter", None):
        rules = rules.with_meters(meters(args.meter, rules))
    if getattr(args, "bets", None) is not None:  # "" is refused by select_bets, not taken as every bet
        rules = rules.with_bets(select_bets(args.bets, rules))
    shoe = as_shoe(rules.shoe.decks)
    if args.remove:
        shoe = remove_cards(shoe, args.remove)
    if deals_rounds and rules.shoe.model == "dealt":
        problem = rules.shoe.room_problem(int(shoe.sum()))
        if problem:
            raise UsageError(f"{option_of('shoe', args)}: {problem}")
    return rules, shoe

