"""Exact and Monte Carlo figures of ``python -m baccarat_sim.rtp``: where checkpoints live, the backend, the run.

The run itself (plan, resume, extend, lock, deal, finish) is the engines' one
run flow, :class:`~baccarat_sim.engines.simulation.MonteCarloRun`; this module
chooses its checkpoint file, its backend and its progress bar, and says what
it does.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

from .common import EXIT_OK, UsageError, announce_compile, check_out_dir, note, progress_note
from .rtp_parser import DEFAULT_CHECKPOINT_SECONDS, DEFAULT_ROUNDS, EXIT_PARTIAL
from .rtp_report import results_dir, run_report

__all__ = ["checkpoint_dir", "checkpoint_path", "checkpoints_of", "deal_run", "default_checkpoint_dir", "figures",
           "open_run", "resume_hint", "run_control", "stopped"]


def default_checkpoint_dir() -> Path:
    """Where checkpoints go without ``--out``: ``$BACCARAT_SIM_CHECKPOINTS``, else the user's cache folder."""
    chosen = os.environ.get("BACCARAT_SIM_CHECKPOINTS")
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "baccarat_sim" / "checkpoints"


def checkpoint_dir(args: argparse.Namespace) -> Path | None:
    """Where the run's checkpoints live: ``--out``, else :func:`default_checkpoint_dir`.

    Without ``--out``, a default folder that cannot be written costs only the
    checkpoint: the run goes on without one, and says so (None). A run to be
    resumed must find its folder.
    """
    if args.out is not None:
        return check_out_dir(args.out)
    try:
        return check_out_dir(default_checkpoint_dir(), "--out (for the checkpoint)")
    except UsageError as error:
        if args.resume:
            raise
        note(args, f"note: {str(error).removeprefix('--out (for the checkpoint): ')}; this run writes no checkpoint "
                   "(Ctrl-C loses it): give --out DIR, or set BACCARAT_SIM_CHECKPOINTS to a writable folder")
        return None


def checkpoint_path(folder: Path | None, rules, shoe, model: str, seed_value: int) -> Path | None:
    """A run's checkpoint: named as its result files are (:func:`~baccarat_sim.analysis.naming.run_file_name`).

    Runs that differ in rule file, shoe, dealing, bets, model or seed never share one.
    """
    from ..analysis.naming import run_file_name

    return None if folder is None else folder / f"checkpoint-{run_file_name(rules, shoe, model, seed_value)}.npz"


def checkpoints_of(folder: Path, rules, shoe, model: str) -> list[tuple[int, Path]]:
    """The checkpoints of runs of this rule set, shoe, model and bets in ``folder``, any seed: (seed, path)."""
    from ..analysis.naming import run_file_pattern, seed_of_name

    found = []
    for path in sorted(folder.glob(f"checkpoint-{run_file_pattern(rules, shoe, model)}.npz")):
        seed_value = seed_of_name(path.name, "checkpoint-", ".npz")
        if seed_value is not None:
            found.append((seed_value, path))
    return found


def _find_checkpoint(args: argparse.Namespace, rules, shoe, folder: Path):
    """The checkpoint ``--resume`` continues: (rules with its shoe model, path).

    Without ``--seed`` the one run of these settings in the checkpoint folder
    is taken; without ``--model``, a ``--model dealt`` run of a fresh-shuffle
    rule set (or the reverse) is found too.
    """
    models = [rules.shoe.model]
    if args.model is None:
        models.append("dealt" if rules.shoe.model == "fresh" else "fresh")
    candidates = []
    for model in models:
        variant = rules.with_shoe(model=model)
        if args.seed is not None:
            path = checkpoint_path(folder, variant, shoe, model, args.seed)
            candidates += [(model, path)] if path.exists() else []
        else:
            candidates += [(model, path) for _, path in checkpoints_of(folder, variant, shoe, model)]
    if not candidates:
        _explain_other_settings(args, rules, shoe, folder, models)
        found = sorted(p.name for p in folder.glob("checkpoint-*.npz"))
        wanted = f"rule set {rules.id!r}" + (f", seed {args.seed}" if args.seed is not None else "")
        raise UsageError(f"--resume: no checkpoint of {wanted} ({' or '.join(models)} model) with these settings "
                         f"(decks, removed cards, after-cut, bets, rule file) in {str(folder)!r}"
                         + (f"; found: {', '.join(found)}" if found else
                            " (no run of it was stopped there, or it was stopped before its first checkpoint)"))
    if len(candidates) > 1:
        raise UsageError(f"--resume: {len(candidates)} runs of rule set {rules.id!r} in {str(folder)!r} ("
                         f"{', '.join(path.name for _, path in candidates)}); choose one with --seed (and --model)")
    model, path = candidates[0]
    return rules.with_shoe(model=model), path


def _explain_other_settings(args: argparse.Namespace, rules, shoe, folder: Path, models) -> None:
    """A checkpoint of this rule set's id (and seed) with other settings: say which setting differs, in one line.

    Names carry a digest of the settings, so ``--resume`` with another shoe,
    rule file or bets finds no checkpoint of its own; the nearest one tells
    what the run was (its header alone is read).
    """
    import glob

    from ..engines.checkpoint import PLAN_FIELDS, load_checkpoint, peek_checkpoint
    from ..engines.plan import plan_run
    from ..errors import CheckpointError

    seed_part = "*" if args.seed is None else str(args.seed)
    others = [path for model in models
              for path in sorted(folder.glob(f"checkpoint-{glob.escape(rules.id)}-{model}-*-seed{seed_part}.npz"))]
    if len(others) != 1:
        return
    (other,) = others
    header = peek_checkpoint(other)
    plan = header.get("plan") if isinstance(header, dict) else None
    model = plan.get("model") if isinstance(plan, dict) else None
    if model not in models:
        return
    expect = plan_run(rules.with_shoe(model=model), 1, args.seed or 0, shoe=shoe)
    compare = tuple(f for f in PLAN_FIELDS if f != "rounds_requested" and (f != "seed" or args.seed is not None))
    try:
        load_checkpoint(other, expect=expect, rules=rules.with_shoe(model=model), compare=compare)
    except CheckpointError as error:
        raise UsageError(f"--resume: {error.message}") from None
    bets = header.get("meta", {}).get("bets") if isinstance(header.get("meta"), dict) else None
    raise UsageError(f"--resume: the run in {other} reports other bets ({', '.join(map(str, bets or []))}); resume it "
                     f"with the same --bets")


def check_backend(args: argparse.Namespace) -> None:
    """Backend options that fit together, and Dask importable when asked for, before any work is done.

    (Options that apply only to ``--backend dask`` are in the command's table, ``rtp_parser.OPTIONS_APPLY``.)
    """
    if args.backend == "local":
        return
    if (args.scheduler is None) == (args.workers is None):
        raise UsageError("--backend dask: give --scheduler ADDRESS (a running cluster) or --workers N (a local "
                         "cluster started for this run), not " + ("both" if args.workers else "neither"))
    if args.scheduler is not None and args.threads is not None:
        raise UsageError("--threads: a cluster's workers have their own threads (dask worker --nthreads); drop it")
    from ..engines.dask_backend import check_address, require_distributed

    require_distributed()
    if args.scheduler is not None:
        check_address(args.scheduler)


def open_run(args: argparse.Namespace, rules, shoe, checkpoint: Path | None, seed_value, rounds, *,
             resume: bool, by_position: bool | None = None, tell: bool = True):
    """A run through the one run flow (new, resumed, or extended), its checkpoint locked; notes say which."""
    from ..engines.simulation import MonteCarloRun
    from ..errors import CheckpointInUse

    try:
        flow = MonteCarloRun.open(rules, rounds, seed_value, shoe=shoe, by_position=by_position,
                                  checkpoint=checkpoint, resume=resume)
    except CheckpointInUse as held:
        where = ("--out" if args.out is not None or checkpoint is None
                 else f"the checkpoint folder {checkpoint.parent} ($BACCARAT_SIM_CHECKPOINTS)")
        raise UsageError(f"{where}: {held.message}") from None
    plan, state = flow.plan, flow.state
    if not tell:
        return flow
    if flow.extended_from is not None:
        note(args, f"extending seed {plan.seed} from {flow.extended_from.rounds_requested:,} to "
                   f"{plan.rounds_requested:,} rounds: the {state.rounds:,} rounds already dealt are kept, and the "
                   "result is the same as a run of the larger number from the start")
    elif flow.resumed and flow.complete:
        note(args, f"the run in {checkpoint} is complete: writing its results")
    elif flow.resumed:
        note(args, f"resuming seed {plan.seed} at {state.rounds:,} of {plan.rounds_requested:,} rounds")
    else:
        old = flow.replaces
        if old is not None:
            what = "a finished run" if old["finished"] else "an unfinished run"
            note(args, f"note: {checkpoint} holds {what} of this seed ({old['rounds']:,} of "
                       f"{old['rounds_requested']:,} rounds); this run replaces it - stop now and add --resume (with "
                       "--rounds to extend it) to continue that one instead")
        note(args, f"seed {plan.seed}")
    return flow


def run_control(args: argparse.Namespace, rules, max_chunks: int | None = None):
    """How the run is watched and saved: checkpoint interval, chunk budget, header, warnings."""
    from ..engines.driver import RunControl

    every = DEFAULT_CHECKPOINT_SECONDS if args.checkpoint_every is None else args.checkpoint_every
    return RunControl(checkpoint_every=every, max_chunks=max_chunks,
                      meta={"rules_path": rules.path, "remove": args.remove, "bets": list(rules.bet_ids)},
                      warn=lambda text: note(args, text))


def deal_run(args: argparse.Namespace, flow, control, bar) -> None:
    """Deal what the run lacks on the backend ``args`` asks for (this machine, or a Dask cluster)."""
    control.progress = bar
    if args.backend == "dask":
        from ..engines.dask_backend import cluster_backend

        waits = {} if args.dask_timeout is None else {"wait_for_workers": args.dask_timeout,
                                                      "no_workers_timeout": args.dask_timeout}
        with cluster_backend(flow.plan, scheduler=args.scheduler, workers=args.workers,
                             threads_per_worker=args.threads or 1, note=lambda text: note(args, text),
                             **waits) as backend:
            flow.deal(backend, control)
    else:
        from ..engines.local import LocalBackend

        with announce_compile("the dealing kernel", args.quiet):
            flow.warm_up()  # compile (or load the cached kernel) before timing starts
        flow.deal(LocalBackend(args.threads), control)


def _monte_carlo(args: argparse.Namespace, rules, shoe):
    """Plan (or resume, or extend) and deal the Monte Carlo run; returns (rules, the run, still locked)."""
    from ..engines.plan import normalize_seed
    from ..report.progress import progress_bar

    folder = checkpoint_dir(args)
    if args.resume:
        rules, checkpoint = _find_checkpoint(args, rules, shoe, folder)
        seed_value, rounds = args.seed, args.rounds  # None: the checkpoint's
    else:
        seed_value, rounds = normalize_seed(args.seed), args.rounds or DEFAULT_ROUNDS
        checkpoint = checkpoint_path(folder, rules, shoe, rules.shoe.model, seed_value)
    flow = open_run(args, rules, shoe, checkpoint, seed_value, rounds, resume=args.resume)
    try:
        with progress_bar(None if not args.quiet else False, flow.plan.rounds_requested,
                          initial=min(flow.state.rounds, flow.plan.rounds_requested)) as bar:
            deal_run(args, flow, run_control(args, rules, args.max_chunks), bar)
    except BaseException:
        flow.close()
        raise
    return rules, flow


def stopped(args: argparse.Namespace, outcome_name: str | None, signum: int | None, what: str, then: str,
            status: int) -> int:
    """A run stopped before its end: one line on stderr (why, what it had done, what now); its exit status.

    The exit status of a run stopped by a signal is that of its (first)
    signal, 130, 143 or 129; of one stopped by ``--max-chunks``
    :data:`~baccarat_sim.cli.rtp_parser.EXIT_PARTIAL`, unless ``status`` says worse.
    """
    signal_names = {"SIGINT": "Ctrl-C (SIGINT)"}
    why = (f"stopped by {signal_names.get(outcome_name, outcome_name)}" if signum is not None
           else "stopped at --max-chunks")
    print(f"{why} after {what}{then}", file=sys.stderr)
    if signum is not None:
        from ..storage.signals import exit_status

        return exit_status(signum)
    return max(status, EXIT_PARTIAL)


def resume_hint(args: argparse.Namespace, seed: int | None = None, *more: str) -> str:
    """The options that find this run's checkpoint again (rule set, shoe and bets, seed, --out)."""
    parts = [*more, "--resume"]
    if seed is not None:
        parts.append(f"--seed {seed}")
    if args.rules != "default":
        parts.append(f"--rules {args.rules}")
    for option, value in (("--decks", args.decks), ("--remove", args.remove), ("--model", args.model),
                          ("--after-cut", args.after_cut), ("--bets", args.bets), ("--out", args.out)):
        if value is not None:
            parts.append(f"{option} {value}")
    return " ".join(parts)


def figures(args: argparse.Namespace, rules, shoe, started: float) -> int:
    """Exact figures, and unless ``--exact`` a Monte Carlo run: reported, written, checked; the exit status."""
    from ..engines.budget import check_exact_cost, priced_detail
    from ..engines.detail import GroupError, check_on_weights, rules_detail
    from ..engines.exact import exact_histogram
    from ..model.shoe import as_shoe

    out_dir = results_dir(args)
    with announce_compile("the exact engine", args.quiet):
        detail = rules_detail(rules, progress=progress_note(args, "card detail (which combinations can happen)"))
        if args.eor:  # the effect of removal prices the rule set once per card removed: refused before any work
            from ..analysis.eor import check_eor_cost

            check_eor_cost(rules, shoe)
        if args.exact:  # every exact figure, or a refusal before any work
            check_exact_cost(rules, detail, shoe=as_shoe(shoe))
            unpriced = {}
        else:  # a Monte Carlo run waits only for the exact figures the cost model calls cheap
            given = "".join(f" {option} {shlex.quote(str(value))}" for option, value in (("--decks", args.decks),
                                                                           ("--remove", args.remove)) if value)
            detail, unpriced = priced_detail(rules, detail, shoe=as_shoe(shoe), shoe_options=given)
        try:
            exact = exact_histogram(shoe, detail, progress=progress_note(args, "exact enumeration"))
        except GroupError as error:  # a limit of the enumeration: one line naming the bets
            raise error.naming(rules) from None
        check_on_weights(rules, exact)  # overlaps and gaps of the groups whose cells came from the Monte Carlo tables
    run_info = {"rules_path": rules.path}
    if args.remove:
        run_info["removed"] = args.remove
    if args.exact:
        run_info.update(rounds=None, shoes=None, seed=None, threads=None, rounds_per_second=None,
                        seconds=time.perf_counter() - started)
        run_info["total_seconds"] = time.perf_counter() - started
        return run_report(args, rules, exact, None, run_info, shoe, out_dir, unpriced=unpriced)
    rules, flow = _monte_carlo(args, rules, shoe)
    mc = flow.histogram()
    run_info.update(flow.summary())

    def written(status: int) -> None:
        # The report is printed and the result files are written (or failed): only now does a finished run's
        # checkpoint go, or, with --out, get written whole so that the run can be extended. That write is best
        # effort: a full disk must cost the extension, never the results.
        if not flow.complete:
            return
        if status == EXIT_OK:
            problem = flow.finish(keep_checkpoint=args.out is not None)
            if problem is None and args.out is not None:
                note(args, f"kept {flow.checkpoint}: extend this run with {resume_hint(args, mc.seed)} --rounds M")
            elif problem is not None:
                print(f"warning: the finished run's checkpoint is not kept, so it cannot be extended: {problem}; "
                      "its results above are complete", file=sys.stderr)
        else:  # the results are not written: the checkpoint keeps the run, and --resume writes them
            problem = flow.keep()
            if problem is None:
                print(f"the run is saved in {flow.checkpoint}: {resume_hint(args, mc.seed)} writes its results",
                      file=sys.stderr)
            else:
                print(f"warning: {problem}", file=sys.stderr)

    try:
        run_info["total_seconds"] = time.perf_counter() - started
        status = run_report(args, rules, exact, mc, run_info, shoe, out_dir, written, unpriced)
    finally:
        flow.close()
    if flow.complete:
        return status
    where = f"; checkpoint {run_info['checkpoint']}" if run_info.get("checkpoint") else ""
    then = f"{where}; continue with {resume_hint(args, mc.seed)}" if flow.checkpoint is not None else \
        " (not checkpointed: nothing to continue)"
    return stopped(args, flow.outcome.stopped_by, flow.outcome.signum,
                   f"{mc.rounds:,} of {mc.meta['rounds_requested']:,} rounds", then, status)
