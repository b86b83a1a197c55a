"""The options of ``python -m baccarat_sim.rtp``: its one parser, and the option behind each library parameter.

Every feature of the command (:mod:`~baccarat_sim.cli.rtp_run` exact and
Monte Carlo figures, :mod:`~baccarat_sim.cli.rtp_report` reports, checks and
saved histograms, :mod:`~baccarat_sim.cli.rtp_sweep` cut-card sweeps,
:mod:`~baccarat_sim.cli.rtp_count` card counting) reads its options from
here; the options every command shares come from :mod:`baccarat_sim.cli.options`.
"""

from __future__ import annotations

import argparse

from ..analysis.check import FAIL_Z
from . import options
from .common import HelpFormatter, Parser, non_negative_float, parse_rounds, positive_int, seconds

__all__ = ["DEFAULT_CHECKPOINT_SECONDS", "DEFAULT_ROUNDS", "DEFAULT_SHOES", "DEFAULT_TOLERANCE", "EXIT_PARTIAL",
           "OPTIONS_APPLY", "PROG", "build_parser", "mode_of", "option_of", "refuse_unused"]

PROG = "python -m baccarat_sim.rtp"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-rtp"
DEFAULT_ROUNDS = 100_000_000
#: Shoes a --count simulation deals by default (about 8 million rounds).
DEFAULT_SHOES = 100_000
#: Exit status of a run stopped by --max-chunks: its report and files are partial.
EXIT_PARTIAL = 3
#: Seconds between checkpoints (--checkpoint-every).
DEFAULT_CHECKPOINT_SECONDS = 30.0
#: Largest difference of a figure from --baseline's (--tolerance).
DEFAULT_TOLERANCE = 1e-9
#: The command's own library parameters and their options.
_OWN_OPTIONS = {
    "rounds": "--rounds", "checkpoint": "--resume", "scheduler": "--scheduler", "workers": "--workers",
    "backend": "--backend", "strategy": "--count", "shoes": "--shoes", "sweep": "--sweep",
    "histogram": "--from-histogram", "baseline": "--baseline", "tolerance": "--tolerance",
    "cut_cards": "--cut-cards", "eor": "--eor",
}


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(
        prog=prog,
        description="Exact and Monte Carlo RTP of Baccarat bets under a rule set.",
        formatter_class=HelpFormatter,
        epilog="Exit status: 0 done, 1 --check failed (or an internal error, which says so), 2 bad input, "
               f"{EXIT_PARTIAL} stopped by --max-chunks (partial result; continue with --resume), 130/143/129 "
               "stopped by Ctrl-C/SIGTERM/SIGHUP (checkpoint written; continue with --resume).",
    )
    options.add_version(parser)
    what = parser.add_argument_group("what to compute")
    options.add_rules(what)
    what.add_argument("--exact", action="store_true", help="exact combinatorial figures only (no Monte Carlo)")
    what.add_argument("--rounds", type=parse_rounds, metavar="N",
                      help=f"Monte Carlo rounds; 1e9 and 2_000_000 are accepted (default: {DEFAULT_ROUNDS:.0e}, "
                           "or the checkpoint's with --resume)")
    options.add_model(what, "shoe model: fresh shuffle every round, or dealt through to the cut card (default: the "
                            "rule set's)")
    what.add_argument("--after-cut", choices=options.AFTER_CUT_READINGS,
                      help="dealt shoe: when the cut card comes out, finish that round and end the shoe "
                           "(finish_round), or deal one more round after it (one_more_round); the two readings of "
                           "\"the cut card signals the final round\" (default: the rule set's shoe.after_cut)")
    options.add_decks(what)
    options.add_remove(what)
    options.add_bets(what)
    options.add_meter(what)
    what.add_argument("--from-histogram", metavar="FILE.npz",
                      help="settle a saved histogram (a run's *-histogram.npz) under --rules instead of dealing: "
                           "another pay table on the same rounds")
    what.add_argument("--sweep", metavar="cut=LIST",
                      help="dealt shoe: one run of --rounds per cut-card position, e.g. cut=14,0.25,0.5 (cards from "
                           "the end, or fractions of the shoe; low:high for a range), and one table and plot of every "
                           "bet's RTP by position")
    advantage = parser.add_argument_group("advantage play")
    advantage.add_argument("--eor", action="store_true",
                           help="add every bet's exact effect of removal of one card of each point value and rank "
                                "(JSON: bets[].eor) and derived balanced counting tags with their betting correlation")
    advantage.add_argument("--count", metavar="STRATEGY",
                           help="instead of RTP, simulate card counting through dealt shoes: a shipped strategy "
                                "(perfect-play, lucky6-wizard-level1, ...) or a strategy .toml file")
    advantage.add_argument("--shoes", type=parse_rounds, metavar="N",
                           help=f"--count: shoes to deal (default: {DEFAULT_SHOES:,})")
    advantage.add_argument("--cut-cards", metavar="N[,N...]",
                           help="--count: cut-card positions to compare with the rule set's, in cards from the end "
                                "(low:high for a range), every shoe shuffled once for all (default: the strategy's)")
    run_group = parser.add_argument_group("how to run")
    options.add_seed(run_group, "master seed (default: drawn at random and printed, or the checkpoint's with --resume)")
    options.add_threads(run_group)
    run_group.add_argument("--backend", choices=("local", "dask"), default="local",
                           help="where to deal: this machine (numba threads) or a Dask cluster (needs the dask "
                                "extra); the histogram is the same bit for bit")
    run_group.add_argument("--scheduler", metavar="ADDRESS",
                           help="--backend dask: address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786")
    run_group.add_argument("--workers", type=positive_int("workers", 1), metavar="N",
                           help="--backend dask: start a local cluster of N worker processes for this run (--threads "
                                "threads each, default 1)")
    run_group.add_argument("--dask-timeout", type=seconds, metavar="S",
                           help="--backend dask: when the cluster has no worker (at the start, or all were lost), wait "
                                "S seconds for one, saying so, then stop with a checkpoint (default: 60 at the start, "
                                "300 during the run)")
    run_group.add_argument("--resume", action="store_true",
                           help="continue an interrupted run from its checkpoint (in --out, or the default checkpoint "
                                "folder) on the same random stream; with a larger --rounds, extend a run (finished "
                                "or not) bit for bit as if that many rounds had been asked for at first")
    run_group.add_argument("--checkpoint-every", type=seconds, metavar="S",
                           help=f"write the checkpoint at least every S seconds (the first one 2 s in; default: "
                                f"{DEFAULT_CHECKPOINT_SECONDS:g})")
    run_group.add_argument("--max-chunks", type=positive_int("max-chunks", 1), metavar="K",
                           help="stop after K chunks as Ctrl-C would (checkpoint and report of what was dealt), e.g. "
                                "to fit a run into batch-job time slices")
    out = parser.add_argument_group("output")
    options.add_format(out)
    options.add_out(out, "write the result files (histogram, JSON, CSV, Markdown, plots) here, and keep the run's "
                         "checkpoint here, also once it is finished so that --resume --rounds M can extend it "
                         "(default: no result files; checkpoints of unfinished runs go to $BACCARAT_SIM_CHECKPOINTS, "
                         "else ~/.cache/baccarat_sim/checkpoints)")
    out.add_argument("--no-files", action="store_true", help="write no result files, even with --out (which then "
                                                             "keeps only the checkpoint)")
    options.add_no_plots(out, "write the data files but no PNG plots (faster)")
    out.add_argument("--check", action="store_true",
                     help=f"exit 1 if a Monte Carlo figure is |z| >= {FAIL_Z} from exact or a stated RTP does not "
                          "hold")
    out.add_argument("--baseline", metavar="FILE.json",
                     help="exit 1 if any bet's exact RTP, hit frequency or SD (or a progressive's rtp_base, "
                          "rtp_per_meter_unit or jackpot_probability) differs from a saved --format json report by "
                          "more than --tolerance (each drift is listed on stderr)")
    out.add_argument("--tolerance", type=non_negative_float("tolerance"), metavar="T",
                     help=f"--baseline: largest absolute difference allowed for each figure (a fraction; default: "
                          f"{DEFAULT_TOLERANCE:g})")
    options.add_quiet(out)
    options.add_debug(out)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter (``"decks"`` -> ``--decks``), for one-line errors."""
    return options.option_of(param, args, _OWN_OPTIONS)


# --------------------------------------------------------------------------- where each option applies

#: What the command does, by the option that chose it: settle a saved histogram, count cards, sweep the cut card,
#: price exactly; without any of these it deals a Monte Carlo run ("monte_carlo"). The first given wins.
MODES = {"histogram": "--from-histogram", "count": "--count", "sweep": "--sweep", "exact": "--exact"}
_SAVED = "settles the saved rounds, their shoe and seed"
_FRESH = "prices one round from a freshly shuffled shoe"
_NOT_CHECKPOINTED = "its runs are not checkpointed"
_NEEDS_OUT = "only with --out (nothing is written without it)"


def _needs_dask(option: str):
    return lambda args: args.backend == "dask", f"{option}: needs --backend dask"


#: Every option of the command that applies only to some of what it does, in the order its error takes precedence:
#: an option that does not apply is refused in one line, never ignored (see options.refuse_unused).
OPTIONS_APPLY = (
    options.Applies("--shoes", lambda a: a.shoes is not None,
                    needs=(lambda a: a.count is not None, "--shoes: only for --count (a card-counting simulation); "
                                                          "drop it or add --count")),
    options.Applies("--cut-cards", lambda a: a.cut_cards is not None,
                    needs=(lambda a: a.count is not None, "--cut-cards: only for --count (a card-counting "
                                                          "simulation); drop it or add --count")),
    options.Applies("--exact", lambda a: a.exact,
                    needs=(lambda a: a.backend == "local" or a.count is not None or a.sweep is not None
                           or a.from_histogram is not None,
                           "--backend dask: deals Monte Carlo rounds; drop --exact (exact figures need no cluster)"),
                    refused={"histogram": _SAVED, "count": "deals shoes", "sweep": "deals Monte Carlo shoes"}),
    options.Applies("--rounds", lambda a: a.rounds is not None,
                    refused={"histogram": _SAVED, "count": "deals whole shoes: give --shoes",
                             "exact": "deals no rounds"}),
    options.Applies("--seed", lambda a: a.seed is not None,
                    refused={"histogram": _SAVED, "exact": "draws nothing at random"}),
    options.Applies("--model", lambda a: a.model is not None, refused={"histogram": _SAVED}),
    options.Applies("--model dealt", lambda a: a.model == "dealt",
                    refused={"exact": f"{_FRESH}; a dealt shoe needs Monte Carlo"}),
    options.Applies("--model fresh", lambda a: a.model == "fresh",
                    refused={"count": "deals shoes through to the cut card"}),
    options.Applies("--decks", lambda a: a.decks is not None, refused={"histogram": _SAVED}),
    options.Applies("--remove", lambda a: a.remove is not None, refused={"histogram": _SAVED}),
    options.Applies("--after-cut", lambda a: a.after_cut is not None,
                    refused={"histogram": _SAVED, "exact": f"{_FRESH}, with no cut card"}),
    options.Applies("--sweep", lambda a: a.sweep is not None,
                    refused={"histogram": _SAVED, "count": "moves the cut card with --cut-cards"}),
    options.Applies("--count", lambda a: a.count is not None, refused={"histogram": _SAVED}),
    options.Applies("--resume", lambda a: a.resume,
                    refused={"histogram": _SAVED, "count": _NOT_CHECKPOINTED, "exact": "has no run to continue"}),
    options.Applies("--max-chunks", lambda a: a.max_chunks is not None,
                    refused={"histogram": _SAVED, "exact": "deals no chunks"}),
    options.Applies("--checkpoint-every", lambda a: a.checkpoint_every is not None,
                    refused={"histogram": _SAVED, "count": _NOT_CHECKPOINTED, "exact": "writes no checkpoint"}),
    options.Applies("--backend dask", lambda a: a.backend != "local",
                    refused={"histogram": _SAVED, "count": "runs on this machine", "sweep": "runs on this machine"}),
    options.Applies("--scheduler", lambda a: a.scheduler is not None, needs=_needs_dask("--scheduler")),
    options.Applies("--workers", lambda a: a.workers is not None, needs=_needs_dask("--workers")),
    options.Applies("--dask-timeout", lambda a: a.dask_timeout is not None, needs=_needs_dask("--dask-timeout")),
    options.Applies("--eor", lambda a: a.eor,
                    refused={"count": "is a separate analysis: run --eor without --count",
                             "sweep": "compares the cut card's positions: run --eor without --sweep"}),
    options.Applies("--check", lambda a: a.check,
                    refused={"count": "has no exact figure to check",
                             "sweep": "a dealt shoe's RTP may differ from the fresh-shoe one"}),
    options.Applies("--baseline", lambda a: a.baseline is not None,
                    refused={"count": "has no exact figures to compare: run --baseline without --count",
                             "sweep": "compares no exact figures: run --baseline without --sweep"}),
    options.Applies("--tolerance", lambda a: a.tolerance is not None,
                    needs=(lambda a: a.baseline is not None, "--tolerance: only for --baseline; drop it or add "
                                                             "--baseline FILE.json")),
    options.Applies("--no-files", lambda a: a.no_files,
                    needs=(lambda a: a.out is not None, f"--no-files: {_NEEDS_OUT}")),
    options.NO_PLOTS,
)


def mode_of(args: argparse.Namespace) -> str:
    """What the command line asks for: ``histogram``, ``count``, ``sweep``, ``exact`` or ``monte_carlo``."""
    given = {"histogram": args.from_histogram is not None, "count": args.count is not None,
             "sweep": args.sweep is not None, "exact": args.exact}
    return next((mode for mode in MODES if given[mode]), "monte_carlo")


def refuse_unused(args: argparse.Namespace) -> None:
    """Options that do not apply to what was asked (:data:`OPTIONS_APPLY`): refused in one line, never ignored."""
    options.refuse_unused(args, OPTIONS_APPLY, mode_of(args), MODES)
