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

__all__ = ["DEFAULT_ROUNDS", "DEFAULT_SHOES", "EXIT_PARTIAL", "PROG", "build_parser", "option_of"]

PROG = "python -m baccarat_sim.rtp"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-rtp"
DEFAULT_ROUNDS = 100_000_000
#: Shoes a --count simulation deals by default (about 8 million rounds).
DEFAULT_SHOES = 100_000
#: Exit status of a run stopped by --max-chunks: its report and files are partial.
EXIT_PARTIAL = 3
#: The command's own library parameters and their options.
_OWN_OPTIONS = {
    "rounds": "--rounds", "checkpoint": "--resume", "scheduler": "--scheduler", "workers": "--workers",
    "backend": "--backend", "strategy": "--count", "shoes": "--shoes", "sweep": "--sweep",
    "histogram": "--from-histogram", "baseline": "--baseline", "tolerance": "--tolerance",
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
    run_group.add_argument("--checkpoint-every", type=seconds, default=30.0, metavar="S",
                           help="write the checkpoint at least every S seconds (the first one 2 s in)")
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
                     help="exit 1 if any bet's exact RTP, hit frequency or SD differs from a saved --format json "
                          "report by more than --tolerance (each drift is listed on stderr)")
    out.add_argument("--tolerance", type=non_negative_float("tolerance"), default=1e-9, metavar="T",
                     help="--baseline: largest absolute difference allowed for each figure (a fraction)")
    options.add_quiet(out)
    options.add_debug(out)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter (``"decks"`` -> ``--decks``), for one-line errors."""
    return options.option_of(param, args, _OWN_OPTIONS)
