"""Command line: ``python -m baccarat_sim.rtp`` (also installed as ``baccarat-rtp``).

Examples
--------
Exact per-bet table of a shipped rule set::

    python -m baccarat_sim.rtp --exact --rules live-8deck-side-bets

A billion Monte Carlo rounds, checked against exact::

    python -m baccarat_sim.rtp --rounds 1e9 --seed 1 --check

Heavy modules (numpy, numba, pandas) are imported only after the arguments
are parsed, so ``--help`` and argument errors are instant.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from ._version import __version__

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
#: A run stopped by Ctrl-C (128 + SIGINT, the shell's convention): its report covers what was dealt.
EXIT_INTERRUPTED = 130
#: Largest --rounds accepted (counts stay far from 64-bit overflow); keep in step with simulate.MAX_ROUNDS.
MAX_ROUNDS = 10**15
DEFAULT_ROUNDS = 100_000_000
#: Shoes a --count simulation deals by default (about 8 million rounds).
DEFAULT_SHOES = 100_000
PROG = "python -m baccarat_sim.rtp"


class UsageError(Exception):
    """Bad input: reported as one line and exit status 2."""


def parse_rounds(text: str) -> int:
    """Read a round count: ``1e9``, ``2_000_000``, ``100000``, ``2.5e6``.

    Examples
    --------
    >>> parse_rounds("1e9"), parse_rounds("2_000_000"), parse_rounds("2.5e6")
    (1000000000, 2000000, 2500000)
    """
    from decimal import Decimal

    cleaned = text.strip().replace("_", "")
    if not re.fullmatch(r"\d+(\.\d*)?([eE][+]?\d+)?", cleaned):
        raise argparse.ArgumentTypeError(f"must be a positive whole number such as 1e9 or 2_000_000, got {text!r}")
    # Decimal, not float: 1e400 must not become inf, and 1e15 + 1 must not round.
    value = Decimal(cleaned)
    if value > MAX_ROUNDS:
        raise argparse.ArgumentTypeError(f"must be at most 1e{len(str(MAX_ROUNDS)) - 1} (beyond what a run can "
                                         f"count), got {text!r}")
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"must be a whole number of rounds, got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return int(value)


def _positive_int(name: str, low: int = 1, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            allowed = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    parse.__name__ = name
    return parse


def _seed(text: str) -> int:
    try:
        value = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 2**63-1, got {text!r}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**63-1, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not 0 < value <= 86_400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 seconds, got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit status 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows a default only where it says something (not None/False, not already in the help)."""

    def _get_help_string(self, action):
        if action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = _Parser(
        prog=PROG,
        description="Exact and Monte Carlo RTP of Baccarat bets under a rule set.",
        formatter_class=_HelpFormatter,
        epilog="Exit status: 0 done, 1 --check failed, 2 bad input, 130 stopped by Ctrl-C (checkpoint written; "
               "continue with --resume).",
    )
    parser.add_argument("--version", action="version", version=f"baccarat_sim {__version__}")
    what = parser.add_argument_group("what to compute")
    what.add_argument("--rules", default="default", metavar="NAME|PATH",
                      help="shipped rule set name or a rule-set .toml file")
    what.add_argument("--exact", action="store_true", help="exact combinatorial figures only (no Monte Carlo)")
    what.add_argument("--rounds", type=parse_rounds, metavar="N",
                      help=f"Monte Carlo rounds; 1e9 and 2_000_000 are accepted (default: {DEFAULT_ROUNDS:.0e}, "
                           "or the checkpoint's with --resume)")
    what.add_argument("--model", choices=("fresh", "dealt"),
                      help="shoe model: fresh shuffle every round, or dealt through to the cut card "
                           "(default: the rule set's)")
    what.add_argument("--decks", type=_positive_int("decks", 1, 16), metavar="D",
                      help="number of decks, 1-16 (default: the rule set's)")
    what.add_argument("--remove", metavar="CARDS",
                      help="start from a depleted shoe: cards to remove, as point values (6,6,7), ranks (K,Q) "
                           "or cards (Qh)")
    what.add_argument("--bets", metavar="ID[,ID...]", help="report only these bets")
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
    run = parser.add_argument_group("how to run")
    run.add_argument("--seed", type=_seed,
                     help="master seed (default: drawn at random and printed, or the checkpoint's with --resume)")
    run.add_argument("--threads", type=_positive_int("threads", 1), metavar="T",
                     help="kernel threads (default: all cores); results do not depend on it")
    run.add_argument("--backend", choices=("local", "dask"), default="local",
                     help="where to deal: this machine (numba threads) or a Dask cluster (needs the dask extra); "
                          "the histogram is the same bit for bit")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="--backend dask: address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786")
    run.add_argument("--workers", type=_positive_int("workers", 1), metavar="N",
                     help="--backend dask: start a local cluster of N worker processes for this run (--threads "
                          "threads each, default 1)")
    run.add_argument("--resume", action="store_true",
                     help="continue an interrupted run from its checkpoint in --out (same random stream)")
    run.add_argument("--checkpoint-every", type=_seconds, default=30.0, metavar="S",
                     help="write the checkpoint at least every S seconds")
    run.add_argument("--max-chunks", type=_positive_int("max-chunks", 1), metavar="K",
                     help="stop after K chunks as Ctrl-C would (checkpoint and report of what was dealt), e.g. to "
                          "fit a run into batch-job time slices")
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=("table", "json", "csv", "markdown"), default="table",
                     help="what to print on stdout")
    out.add_argument("--out", default="results", metavar="DIR", help="directory for result files and checkpoints")
    out.add_argument("--no-files", action="store_true", help="print only; write nothing to --out")
    out.add_argument("--no-plots", action="store_true", help="write the data files but no PNG plots (faster)")
    out.add_argument("--check", action="store_true",
                     help="exit 1 if a Monte Carlo figure is |z| >= 4 from exact or a stated RTP does not hold")
    out.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    return parser


def _note(args, message: str) -> None:
    if not args.quiet:
        print(message, file=sys.stderr)


def _check_out_dir(path: str) -> Path:
    """Create ``--out`` and prove it writable now, before any work is done."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out: {path!r} is a file; give a directory (it is created if missing)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # os.access says yes to root on a read-only mount: only writing a file tells the truth.
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise UsageError(f"--out: cannot write to directory {path!r} ({error.strerror or error}); "
                         "give a writable directory or --no-files") from None
    return directory


def _check_threads(threads: int | None) -> None:
    """Refuse a ``--threads`` larger than numba can run here (numba is imported only once it is asked for)."""
    if threads is None:
        return
    import numba

    if threads > numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"--threads: must be from 1 to {numba.config.NUMBA_NUM_THREADS} on this machine, "
                         f"got {threads}")


def _write_files(args, out_dir: Path | None, write) -> tuple[list, int]:
    """Write the result files with ``write(out_dir)``; returns ``(paths, exit status)``.

    A failed write is one error line and ``EXIT_USAGE``, not a traceback: the
    result is still printed by the caller.
    """
    if out_dir is None:
        return [], EXIT_OK
    try:
        return write(out_dir), EXIT_OK
    except OSError as error:
        print(f"{PROG}: error: --out: cannot write result files to {args.out!r} ({error.strerror or error})",
              file=sys.stderr)
        return [], EXIT_USAGE


def _load(args):
    """Rules and shoe composition as the arguments ask."""
    from .exact import as_shoe, remove_cards
    from .rules import load_rules

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
    if args.bets:
        wanted = [b.strip() for b in args.bets.split(",") if b.strip()]
        unknown = [b for b in wanted if b not in rules.bet_ids]
        if unknown or not wanted:
            raise UsageError(f"--bets: unknown bet {', '.join(unknown) or repr(args.bets)} in rule set {rules.id!r}; "
                             f"bets: {', '.join(rules.bet_ids)}")
        rules = rules.with_bets(wanted)
    shoe = as_shoe(rules.shoe.decks)
    if args.remove:
        try:
            shoe = remove_cards(shoe, args.remove)
        except ValueError as error:
            raise UsageError(f"--remove: {error}") from None
    return rules, shoe


def run(args) -> int:
    """Carry out a parsed command line; returns the exit status."""
    from .exact import exact_histogram
    from .report import build_report

    if args.count is not None:
        return _count(args)
    started = time.perf_counter()
    if args.sweep is not None:
        return _sweep(args)
    if args.exact and args.resume:
        raise UsageError("--resume: only continues a Monte Carlo run; drop --exact")
    _check_backend(args)
    rules, shoe = _load(args)
    out_dir = None if args.no_files else _check_out_dir(args.out)
    exact = exact_histogram(shoe)
    run_info = {"rules_path": rules.path}
    if args.remove:
        run_info["removed"] = args.remove
    mc = finished = None
    if args.exact:
        run_info.update(rounds=None, shoes=None, seed=None, threads=None, rounds_per_second=None,
                        seconds=time.perf_counter() - started)
    else:
        mc, run_info_mc, finished = _monte_carlo(args, rules, shoe, out_dir)
        run_info.update(run_info_mc)
    run_info["total_seconds"] = time.perf_counter() - started
    report = build_report(rules, exact, mc, run_info)
    if args.eor:
        report = _with_eor(report, rules, shoe)

    def write(directory):
        from .outputs import write_outputs

        return write_outputs(report, directory, plots=not args.no_plots)

    files, status = _write_files(args, out_dir, write)
    print(_render(report, args.format))
    for path in files:
        _note(args, f"wrote {path}")
    if finished is not None and status == EXIT_OK:
        finished.unlink(missing_ok=True)  # the run is complete and its files are written
    if args.check:
        status = max(status, _check(report, args))
    if mc is not None and not mc.meta.get("complete", True):
        why = "stopped by Ctrl-C" if run_info.get("interrupted") else "stopped at --max-chunks"
        where = f"; checkpoint {run_info['checkpoint']}" if run_info.get("checkpoint") else ""
        print(f"{why} after {mc.rounds:,} of {mc.meta['rounds_requested']:,} rounds{where}; continue with "
              f"{_resume_hint(args)}", file=sys.stderr)
        if run_info.get("interrupted"):
            return EXIT_INTERRUPTED
    return status


def _resume_hint(args) -> str:
    """The options that find this run's checkpoint again (rule set, shoe overrides, --out)."""
    parts = ["--resume"]
    if args.rules != "default":
        parts.append(f"--rules {args.rules}")
    if args.decks is not None:
        parts.append(f"--decks {args.decks}")
    if args.remove:
        parts.append(f"--remove {args.remove}")
    parts.append(f"--out {args.out}")
    return " ".join(parts)


def _sweep(args) -> int:
    """``--sweep cut=...``: one dealt run per cut-card position, one table and one plot (issue 6)."""
    from .positions import cut_card_sweep, parse_cut_sweep

    for flag, given, why in (("--exact", args.exact, "deals Monte Carlo shoes"),
                             ("--resume", args.resume, "its runs are not checkpointed"),
                             ("--check", args.check, "a dealt shoe's RTP may differ from the fresh-shoe one"),
                             ("--backend dask", args.backend != "local", "runs on this machine")):
        if given:
            raise UsageError(f"--sweep: {why}; drop {flag}")
    rules, shoe = _load(args)
    if rules.shoe.model != "dealt":
        raise UsageError(f"--sweep: the cut card matters only when the shoe is dealt through, and rule set "
                         f"{rules.id!r} shuffles before every round; add --model dealt")
    try:
        cuts = parse_cut_sweep(args.sweep, rules, int(shoe.sum()))
    except ValueError as error:
        raise UsageError(f"--sweep: {error}") from None
    out_dir = None if args.no_files else _check_out_dir(args.out)
    threads = args.threads
    _check_threads(threads)

    def progress_note(cut, analysis):
        _note(args, f"cut card {cut.low}" + (f"-{cut.high}" if cut.high != cut.low else "") + " cards from the end: "
              f"{analysis.hist.rounds:,} rounds, {analysis.rounds_per_shoe.mean:.2f} rounds per shoe")

    from .simulate import normalize_seed

    seed = normalize_seed(args.seed)
    _note(args, f"seed {seed} for every cut-card position")
    sweep = cut_card_sweep(rules, cuts, args.rounds or DEFAULT_ROUNDS, seed, shoe=shoe, threads=threads,
                           progress=False if args.quiet else None, on_run=progress_note)
    files, status = _write_files(args, out_dir, lambda directory: sweep.write(directory, plots=not args.no_plots))
    if args.format == "json":
        import json

        rendered = json.dumps(sweep.to_dict(), indent=2)
    else:
        rendered = {"csv": sweep.to_csv, "markdown": sweep.to_markdown}.get(args.format, sweep.to_text)()
    print(rendered.rstrip("\n"))
    for path in files:
        _note(args, f"wrote {path}")
    return status


def _with_eor(report, rules, shoe):
    """``--eor``: the report with every bet's exact effect of removal and derived counting tags (issue 7)."""
    import dataclasses

    from .eor import effect_of_removal

    started = time.perf_counter()
    eor = effect_of_removal(rules, shoe)
    run = {**report.run, "eor_cards": int(shoe.sum()), "eor_seconds": time.perf_counter() - started}
    return dataclasses.replace(report, eor=eor, run=run)


def _parse_cut_cards(text: str) -> list[tuple[int, int]]:
    """``--cut-cards 52,100:110`` as (low, high) pairs of cards from the end."""
    positions = []
    for item in text.split(","):
        parts = item.strip().split(":")
        if not item.strip() or len(parts) > 2 or not all(p.strip().isdigit() for p in parts):
            raise UsageError(f"--cut-cards: {item.strip()!r} is not a number of cards from the end (or low:high), "
                             "e.g. --cut-cards 52,100:110")
        low, high = int(parts[0]), int(parts[-1])
        if low > high:
            raise UsageError(f"--cut-cards: {item.strip()!r}: low must not exceed high")
        positions.append((low, high))
    return positions


def _count(args) -> int:
    """``--count STRATEGY``: a card-counting simulation through dealt shoes (issue 7)."""
    import json

    from .counting import InvalidStrategy, count_simulation, load_strategy

    for flag, given, why in (("--exact", args.exact, "deals shoes"),
                             ("--rounds", args.rounds is not None, "deals whole shoes: give --shoes"),
                             ("--model fresh", args.model == "fresh", "deals shoes through to the cut card"),
                             ("--resume", args.resume, "its runs are not checkpointed"),
                             ("--check", args.check, "has no exact figure to check"),
                             ("--eor", args.eor, "is a separate analysis: run --eor without --count"),
                             ("--sweep", getattr(args, "sweep", None) is not None, "moves the cut card with "
                                                                                   "--cut-cards"),
                             ("--backend dask", args.backend != "local", "runs on this machine")):
        if given:
            raise UsageError(f"--count: {why}; drop {flag}")
    rules, shoe = _load(args)
    cut_cards = None if args.cut_cards is None else _parse_cut_cards(args.cut_cards)
    _check_threads(args.threads)
    try:
        strategy = load_strategy(args.count)
        out_dir = None if args.no_files else _check_out_dir(args.out)
        from .simulate import normalize_seed

        seed = normalize_seed(args.seed)
        _note(args, f"seed {seed}")
        result = count_simulation(rules, strategy, args.shoes or DEFAULT_SHOES, seed, threads=args.threads,
                                  shoe=shoe, cut_cards=cut_cards, progress=False if args.quiet else None)
    except InvalidStrategy as error:
        raise UsageError(str(error)) from None
    files, status = _write_files(args, out_dir, lambda directory: result.write(directory, plots=not args.no_plots))
    rendered = {"json": lambda: json.dumps(result.to_dict(), indent=2), "csv": result.to_csv,
                "markdown": result.to_markdown}.get(args.format, result.to_text)()
    print(rendered.rstrip("\n"))
    for path in files:
        _note(args, f"wrote {path}")
    return status


def _check_backend(args) -> None:
    """Backend options that fit together, and Dask importable when asked for, before any work is done."""
    if args.backend == "local":
        if args.scheduler is not None or args.workers is not None:
            raise UsageError(f"--{'scheduler' if args.scheduler is not None else 'workers'}: needs --backend dask")
        return
    if args.exact:
        raise UsageError("--backend dask: deals Monte Carlo rounds; drop --exact (exact figures need no cluster)")
    if (args.scheduler is None) == (args.workers is None):
        raise UsageError("--backend dask: give --scheduler ADDRESS (a running cluster) or --workers N (a local "
                         "cluster started for this run), not " + ("both" if args.workers else "neither"))
    if args.scheduler is not None and args.threads is not None:
        raise UsageError("--threads: a cluster's workers have their own threads (dask worker --nthreads); drop it")
    from .distributed import BackendError, _require_distributed, check_address

    try:
        _require_distributed()
        if args.scheduler is not None:
            check_address(args.scheduler)
    except BackendError as error:
        raise UsageError(str(error)) from None


def _checkpoint_path(out_dir: Path, rules, model: str, seed: int | str) -> Path:
    # One file per (rule set, model, seed): a new run never overwrites another run's unfinished checkpoint.
    return out_dir / f"checkpoint-{rules.id}-{model}-seed{seed}.npz"


def _find_checkpoint(args, rules, out_dir: Path):
    """The checkpoint ``--resume`` continues: (rules with its shoe model, path).

    Without ``--seed`` the one unfinished run of this rule set in ``--out`` is
    taken; without ``--model``, a ``--model dealt`` run of a fresh-shuffle rule
    set (or the reverse) is found too.
    """
    models = [rules.shoe.model]
    if args.model is None:
        models.append("dealt" if rules.shoe.model == "fresh" else "fresh")
    seed = "*" if args.seed is None else args.seed
    candidates = [(model, path) for model in models
                  for path in sorted(out_dir.glob(_checkpoint_path(out_dir, rules, model, seed).name))]
    if not candidates:
        found = sorted(p.name for p in out_dir.glob("checkpoint-*.npz"))
        wanted = f"rule set {rules.id!r}" + (f", seed {args.seed}" if args.seed is not None else "")
        raise UsageError(f"--resume: no checkpoint of {wanted} ({' or '.join(models)} model) in {args.out!r}"
                         + (f"; found: {', '.join(found)}" if found else " (the run finished or never began)"))
    if len(candidates) > 1:
        raise UsageError(f"--resume: {len(candidates)} unfinished runs of rule set {rules.id!r} in {args.out!r} ("
                         f"{', '.join(path.name for _, path in candidates)}); choose one with --seed (and --model)")
    model, path = candidates[0]
    return rules.with_shoe(model=model), path


def _monte_carlo(args, rules, shoe, out_dir):
    """Plan (or resume), deal and time the Monte Carlo run.

    Returns (histogram, run header fields, path of the checkpoint of a finished run or None): that checkpoint is
    removed only once the result files are written.
    """
    import numba

    from .checkpoint import PLAN_FIELDS, load_checkpoint, peek_checkpoint
    from .simulate import RunState, plan_run, run_chunks

    if args.backend == "local":
        _check_threads(args.threads)
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    if args.resume:
        if out_dir is None:
            raise UsageError("--resume: reads the checkpoint from --out; drop --no-files")
        rules, checkpoint = _find_checkpoint(args, rules, out_dir)
        # The seed and round count the user left out come from the checkpoint; everything else must match it.
        expect = plan_run(rules, args.rounds or 1, args.seed or 0, shoe=shoe)
        compare = tuple(f for f in PLAN_FIELDS if (f != "seed" or args.seed is not None)
                        and (f != "rounds_requested" or args.rounds is not None))
        plan, state = load_checkpoint(checkpoint, expect=expect, rules=rules, compare=compare)
        if state.next_chunk >= plan.n_chunks:
            raise UsageError(f"--resume: the run in {checkpoint} is already complete")
        _note(args, f"resuming seed {plan.seed} at {state.rounds:,} of {plan.rounds_requested:,} rounds")
    else:
        plan = plan_run(rules, args.rounds or DEFAULT_ROUNDS, args.seed, shoe=shoe)
        state = RunState.empty(plan)
        checkpoint = None if out_dir is None else _checkpoint_path(out_dir, rules, plan.model, plan.seed)
        old = peek_checkpoint(checkpoint) if checkpoint is not None and checkpoint.exists() else None
        if old is not None:
            _note(args, f"note: {checkpoint} holds an unfinished run of this seed ({old['rounds']:,} of "
                        f"{old['plan']['rounds_requested']:,} rounds); this run replaces it - stop now and add "
                        "--resume to continue that one instead")
        _note(args, f"seed {plan.seed}")
    resumed_from = state.rounds
    extra_meta = {"rules_path": rules.path, "remove": args.remove, "bets": list(rules.bet_ids)}
    cluster = {"backend": args.backend}
    if args.backend == "dask":
        from .distributed import BackendError, run_from_cli

        try:
            wall, dask_info = run_from_cli(plan, state, scheduler=args.scheduler, workers=args.workers,
                                           threads_per_worker=args.threads or 1,
                                           progress=False if args.quiet else None, checkpoint=checkpoint,
                                           checkpoint_every=args.checkpoint_every, max_chunks=args.max_chunks,
                                           extra_meta=extra_meta, note=lambda text: _note(args, text))
        except BackendError as error:
            raise UsageError(str(error)) from None
        cluster.update(dask_info)
    else:
        _warm_up(plan)
        wall = time.perf_counter()
        run_chunks(plan, state, threads=threads, progress=False if args.quiet else None, checkpoint=checkpoint,
                   checkpoint_every=args.checkpoint_every, max_chunks=args.max_chunks, extra_meta=extra_meta)
        wall = time.perf_counter() - wall
    complete = state.next_chunk >= plan.n_chunks
    if checkpoint is not None and complete:
        # Removed by run() once the result files are written: a crash or Ctrl-C while writing them must not lose
        # the run (the last checkpoint is at most --checkpoint-every seconds behind).
        finished = checkpoint
    else:
        finished = None
    mc = state.histogram(plan, {"wall_seconds": wall})
    session_rounds = state.rounds - resumed_from
    info = {
        "rounds": state.rounds,
        "rounds_requested": plan.rounds_requested,
        "shoes": state.shoes if plan.model == "dealt" else 0,
        "seed": plan.seed,
        "threads": threads,
        "seconds": wall,
        "kernel_seconds": state.kernel_seconds,
        # Kernel time is kept in the checkpoint, so this rate is right for a resumed run too.
        "rounds_per_second": state.rounds / state.kernel_seconds if state.kernel_seconds else None,
        "wall_rounds_per_second": session_rounds / wall if wall > 0 else None,
        "resumed_from_rounds": resumed_from if args.resume else None,
        "chunks": plan.n_chunks,
        "chunks_done": state.chunks_done,
        "complete": complete,
        "interrupted": state.interrupted,
        "checkpoint": None if complete or checkpoint is None else str(checkpoint),
        **cluster,  # backend; for dask also workers (processes that dealt), threads, scheduler, tasks
    }
    return mc, info, finished


def _warm_up(plan) -> None:
    """Compile (or load from cache) the kernel before timing starts."""
    import dataclasses

    import numpy as np

    from .outcomes import N_CODES
    from .simulate import deal_chunks

    tiny = dataclasses.replace(plan, total_blocks=1, last_units=1, blocks_per_chunk=1)
    deal_chunks(tiny, 0, 1, np.zeros((1, plan.n_positions, N_CODES), np.int64), np.zeros((1, 2), np.int64))


def _render(report, fmt: str) -> str:
    if fmt == "json":
        return report.to_json()
    if fmt == "csv":
        return report.to_csv().rstrip("\n")
    if fmt == "markdown":
        return report.to_markdown().rstrip("\n")
    return report.to_text()


def check_failures(report) -> dict[str, list[str]]:
    """What ``--check`` fails on, per bet (or ``"game"`` for game-wide claims).

    A Monte Carlo RTP at |z| >= 4 from the exact one (a 1-in-16,000 event for a
    correct engine), and every stated RTP the exact figure contradicts at the
    precision the sheet writes.
    """
    failures: dict[str, list[str]] = {}
    if report.mc is not None:
        for bet_id, row in report.table.iterrows():
            if abs(row["z"]) >= 4:  # NaN (nothing dealt) compares False
                failures.setdefault(bet_id, []).append(
                    f"Monte Carlo RTP {100 * row['rtp']:.4f}% is {row['z']:+.2f} standard errors from exact "
                    f"{100 * row['exact_rtp']:.4f}% (|z| >= 4)")
    for claim in report.claims:
        if not claim.holds:
            failures.setdefault(claim.claim.bet or "game", []).append(claim.reason)
    return failures


def _check(report, args) -> int:
    failures = check_failures(report)
    for bet_id in list(report.table.index) + ["game"]:
        for line in failures.get(bet_id, []):
            print(f"check FAILED {bet_id}: {line}", file=sys.stderr)
        if bet_id in report.table.index and bet_id not in failures:
            z = report.table.loc[bet_id, "z"]
            detail = "exact only" if report.mc is None else f"z {z:+.2f}"
            _note(args, f"check ok     {bet_id}: {detail}"
                  + "".join(f"; {c.reason}" for c in report.claims if c.claim.bet == bet_id))
    if not failures:
        _note(args, "check passed: every Monte Carlo figure within |z| < 4 of exact, every stated RTP holds")
    return EXIT_CHECK_FAILED if failures else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (also for ``--help`` and bad arguments, instead of exiting)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return run(args)
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly, as other command-line tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except UsageError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # outside the chunk loop (compiling, settling) or a second Ctrl-C
        print(f"{PROG}: interrupted; the last checkpoint written (if any) is kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # known input errors become one line; anything else is a bug and raises
        from .checkpoint import CheckpointError
        from .rules import InvalidRules

        if isinstance(error, (InvalidRules, CheckpointError)) or type(error) is ValueError:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        raise


if __name__ == "__main__":
    sys.exit(main())
