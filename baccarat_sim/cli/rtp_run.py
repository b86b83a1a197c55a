"""Exact and Monte Carlo figures of ``python -m baccarat_sim.rtp``: where checkpoints live, the backend, the run.

The run itself (plan, resume, extend, lock, deal, finish) is the engines' one
run flow, :class:`~baccarat_sim.engines.simulation.MonteCarloRun`; this module
chooses its checkpoint file, its backend and its progress bar, and says what
it does.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .common import EXIT_OK, UsageError, announce_compile, check_out_dir, ignore_stop_signals, note, progress_note
from .rtp_parser import DEFAULT_ROUNDS, EXIT_PARTIAL
from .rtp_report import results_dir, run_report

__all__ = ["default_checkpoint_dir", "figures"]


def default_checkpoint_dir() -> Path:
    """Where checkpoints go without ``--out``: ``$BACCARAT_SIM_CHECKPOINTS``, else the user's cache folder."""
    chosen = os.environ.get("BACCARAT_SIM_CHECKPOINTS")
    if chosen:
        return Path(chosen)
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "baccarat_sim" / "checkpoints"


def _checkpoint_dir(args: argparse.Namespace) -> Path:
    """Where the run's checkpoint lives: ``--out``, else :func:`default_checkpoint_dir`."""
    if args.out is not None:
        return check_out_dir(args.out)
    return check_out_dir(default_checkpoint_dir(), "--out (for the checkpoint)")


def _checkpoint_path(out_dir: Path, rules, model: str, seed_value: int | str) -> Path:
    # One file per (rule set, model, seed): a new run never overwrites another run's unfinished checkpoint.
    return out_dir / f"checkpoint-{rules.id}-{model}-seed{seed_value}.npz"


def _find_checkpoint(args: argparse.Namespace, rules, out_dir: Path):
    """The checkpoint ``--resume`` continues: (rules with its shoe model, path).

    Without ``--seed`` the one run of this rule set in the checkpoint folder is
    taken; without ``--model``, a ``--model dealt`` run of a fresh-shuffle rule
    set (or the reverse) is found too.
    """
    models = [rules.shoe.model]
    if args.model is None:
        models.append("dealt" if rules.shoe.model == "fresh" else "fresh")
    seed_text = "*" if args.seed is None else args.seed
    candidates = [(model, path) for model in models
                  for path in sorted(out_dir.glob(_checkpoint_path(out_dir, rules, model, seed_text).name))]
    if not candidates:
        found = sorted(p.name for p in out_dir.glob("checkpoint-*.npz"))
        wanted = f"rule set {rules.id!r}" + (f", seed {args.seed}" if args.seed is not None else "")
        raise UsageError(f"--resume: no checkpoint of {wanted} ({' or '.join(models)} model) in {str(out_dir)!r}"
                         + (f"; found: {', '.join(found)}" if found else
                            " (no run of it was stopped there, or it was stopped before its first checkpoint)"))
    if len(candidates) > 1:
        raise UsageError(f"--resume: {len(candidates)} runs of rule set {rules.id!r} in {str(out_dir)!r} ("
                         f"{', '.join(path.name for _, path in candidates)}); choose one with --seed (and --model)")
    model, path = candidates[0]
    return rules.with_shoe(model=model), path


def check_backend(args: argparse.Namespace) -> None:
    """Backend options that fit together, and Dask importable when asked for, before any work is done."""
    if args.backend == "local":
        for flag, given in (("--scheduler", args.scheduler), ("--workers", args.workers),
                            ("--dask-timeout", args.dask_timeout)):
            if given is not None:
                raise UsageError(f"{flag}: needs --backend dask")
        return
    if args.exact:
        raise UsageError("--backend dask: deals Monte Carlo rounds; drop --exact (exact figures need no cluster)")
    if (args.scheduler is None) == (args.workers is None):
        raise UsageError("--backend dask: give --scheduler ADDRESS (a running cluster) or --workers N (a local "
                         "cluster started for this run), not " + ("both" if args.workers else "neither"))
    if args.scheduler is not None and args.threads is not None:
        raise UsageError("--threads: a cluster's workers have their own threads (dask worker --nthreads); drop it")
    from ..engines.dask_backend import check_address, require_distributed

    require_distributed()
    if args.scheduler is not None:
        check_address(args.scheduler)


def _open(args: argparse.Namespace, rules, shoe):
    """The run the options ask for, through the one run flow: new, or ``--resume`` (extended by ``--rounds``)."""
    from ..engines.plan import normalize_seed
    from ..engines.simulation import MonteCarloRun
    from ..errors import CheckpointInUse

    checkpoint_dir = _checkpoint_dir(args)
    if args.resume:
        rules, checkpoint = _find_checkpoint(args, rules, checkpoint_dir)
        seed_value, rounds = args.seed, args.rounds  # None: the checkpoint's
    else:
        seed_value, rounds = normalize_seed(args.seed), args.rounds or DEFAULT_ROUNDS
        checkpoint = _checkpoint_path(checkpoint_dir, rules, rules.shoe.model, seed_value)
    try:
        flow = MonteCarloRun.open(rules, rounds, seed_value, shoe=shoe, checkpoint=checkpoint, resume=args.resume)
    except CheckpointInUse as held:
        raise UsageError(f"--out: {held.message}") from None
    plan, state = flow.plan, flow.state
    if flow.extended_from is not None:
        note(args, f"extending seed {plan.seed} from {flow.extended_from.rounds_requested:,} to "
                   f"{plan.rounds_requested:,} rounds ({state.rounds:,} dealt kept)")
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
    return rules, flow


def _monte_carlo(args: argparse.Namespace, rules, shoe):
    """Plan (or resume, or extend) and deal the Monte Carlo run; returns (rules, the run, still locked)."""
    from ..engines.driver import RunControl
    from ..report.progress import progress_bar

    rules, flow = _open(args, rules, shoe)
    plan, state = flow.plan, flow.state
    control = RunControl(checkpoint_every=args.checkpoint_every, max_chunks=args.max_chunks,
                         meta={"rules_path": rules.path, "remove": args.remove, "bets": list(rules.bet_ids)},
                         warn=lambda text: note(args, text), keep_finished=args.out is not None)
    try:
        with progress_bar(None if not args.quiet else False, plan.rounds_requested,
                          initial=min(state.rounds, plan.rounds_requested)) as bar:
            control.progress = bar
            if args.backend == "dask":
                from ..engines.dask_backend import cluster_backend

                waits = {} if args.dask_timeout is None else {"wait_for_workers": args.dask_timeout,
                                                              "no_workers_timeout": args.dask_timeout}
                with cluster_backend(plan, scheduler=args.scheduler, workers=args.workers,
                                     threads_per_worker=args.threads or 1, note=lambda text: note(args, text),
                                     **waits) as backend:
                    flow.deal(backend, control)
            else:
                from ..engines.local import LocalBackend

                with announce_compile("the dealing kernel", args.quiet):
                    flow.warm_up()  # compile (or load the cached kernel) before timing starts
                flow.deal(LocalBackend(args.threads), control)
    except BaseException:
        flow.close()
        raise
    if flow.outcome.interrupted:  # its checkpoint is written; a second Ctrl-C must not cut the report short
        ignore_stop_signals()
    return rules, flow


def resume_hint(args: argparse.Namespace, seed: int | None = None) -> str:
    """The options that find this run's checkpoint again (rule set, shoe overrides, seed, --out)."""
    parts = ["--resume"]
    if seed is not None:
        parts.append(f"--seed {seed}")
    if args.rules != "default":
        parts.append(f"--rules {args.rules}")
    if args.decks is not None:
        parts.append(f"--decks {args.decks}")
    if args.remove:
        parts.append(f"--remove {args.remove}")
    if args.model is not None:
        parts.append(f"--model {args.model}")
    if args.after_cut is not None:
        parts.append(f"--after-cut {args.after_cut}")
    if args.out is not None:
        parts.append(f"--out {args.out}")
    return " ".join(parts)


def figures(args: argparse.Namespace, rules, shoe, started: float) -> int:
    """Exact figures, and unless ``--exact`` a Monte Carlo run: reported, written, checked; the exit status."""
    from ..engines.detail import rules_detail
    from ..engines.exact import exact_histogram

    out_dir = results_dir(args)
    with announce_compile("the exact engine", args.quiet):
        detail = rules_detail(rules, progress=progress_note(args, "card detail (which combinations can happen)"))
        exact = exact_histogram(shoe, detail, progress=progress_note(args, "exact enumeration"))
    run_info = {"rules_path": rules.path}
    if args.remove:
        run_info["removed"] = args.remove
    if args.exact:
        run_info.update(rounds=None, shoes=None, seed=None, threads=None, rounds_per_second=None,
                        seconds=time.perf_counter() - started)
        run_info["total_seconds"] = time.perf_counter() - started
        return run_report(args, rules, exact, None, run_info, shoe, out_dir)
    rules, flow = _monte_carlo(args, rules, shoe)
    mc = flow.histogram()
    run_info.update(flow.summary())

    def written(status: int) -> None:
        # The checkpoint of a finished run goes (or stays, with --out, to be extended) only once the result files
        # are written: a crash or a signal while writing them must not lose the run.
        if flow.complete and status == EXIT_OK:
            flow.finish(keep_checkpoint=args.out is not None)
            if args.out is not None:
                note(args, f"kept {flow.checkpoint}: extend this run with {resume_hint(args, mc.seed)} --rounds M")

    try:
        run_info["total_seconds"] = time.perf_counter() - started
        status = run_report(args, rules, exact, mc, run_info, shoe, out_dir, written)
    finally:
        flow.close()
    if flow.complete:
        return status
    outcome = flow.outcome
    signal_names = {"SIGINT": "Ctrl-C (SIGINT)"}
    why = (f"stopped by {signal_names.get(outcome.stopped_by, outcome.stopped_by)}" if outcome.interrupted
           else "stopped at --max-chunks")
    where = f"; checkpoint {run_info['checkpoint']}" if run_info.get("checkpoint") else ""
    print(f"{why} after {mc.rounds:,} of {mc.meta['rounds_requested']:,} rounds{where}; continue with "
          f"{resume_hint(args, mc.seed)}", file=sys.stderr)
    if outcome.interrupted:
        from ..storage.signals import exit_status

        return exit_status(outcome.signum)
    return max(status, EXIT_PARTIAL)
