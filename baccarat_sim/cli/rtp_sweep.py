"""``python -m baccarat_sim.rtp --sweep cut=...``: one dealt run per cut-card position, one table and plot (issue 6).

Each position is a Monte Carlo run of the one run flow, with its own
checkpoint (named as a run of that cut card is: :func:`~baccarat_sim.cli.rtp_run.checkpoint_path`),
written whole as soon as the position is dealt. Ctrl-C, SIGTERM, SIGHUP or
``--max-chunks`` stop the whole sweep as they stop a run: the positions
finished so far are reported and written under ``-partial`` names, the
position being dealt keeps its checkpoint, and ``--resume`` deals the rest
(finished positions are read back from their checkpoints, not dealt again).
"""

from __future__ import annotations

import argparse
import signal

from ..storage.signals import Stopped
from .common import UsageError, note, write_files
from .options import load_table
from .rtp_parser import DEFAULT_ROUNDS
from .rtp_report import results_dir
from .rtp_run import (
    checkpoint_dir,
    checkpoint_path,
    checkpoints_of,
    deal_run,
    open_run,
    resume_hint,
    run_control,
    stopped,
)

__all__ = ["sweep"]


def _resumed_settings(args: argparse.Namespace, variants, shoe, folder) -> tuple[int, int]:
    """``--resume`` of a sweep: its seed and rounds, from the checkpoints of its positions when not given."""
    from ..engines.checkpoint import peek_checkpoint

    found = [(seed_value, path) for variant in variants for seed_value, path in
             checkpoints_of(folder, variant, shoe, "dealt") if args.seed is None or seed_value == args.seed]
    seeds = sorted({seed_value for seed_value, _ in found})
    if not seeds:
        wanted = "" if args.seed is None else f" of seed {args.seed}"
        raise UsageError(f"--resume: no checkpoint of this sweep{wanted} (these cut cards, rule set, shoe and bets) in "
                         f"{str(folder)!r}: it was stopped before its first checkpoint, or in another folder")
    if len(seeds) > 1:
        raise UsageError(f"--resume: sweeps of {len(seeds)} seeds in {str(folder)!r} ({', '.join(map(str, seeds))}); "
                         "choose one with --seed")
    if args.rounds is not None:
        return seeds[0], args.rounds
    header = peek_checkpoint(found[0][1])
    try:
        return seeds[0], int(header["plan"]["rounds_requested"])
    except (TypeError, KeyError, ValueError):
        raise UsageError(f"--resume: {found[0][1]} cannot be read; give --rounds") from None


def sweep(args: argparse.Namespace) -> int:
    """Carry out ``--sweep``; returns the exit status."""
    rules, shoe = load_table(args)
    if rules.shoe.model != "dealt":
        raise UsageError(f"--sweep: the cut card matters only when the shoe is dealt through, and rule set "
                         f"{rules.id!r} shuffles before every round; add --model dealt")
    from ..model.cutcard import parse_cut_sweep

    cuts = parse_cut_sweep(args.sweep, rules, int(shoe.sum()))
    out_dir = results_dir(args)
    from ..analysis.positions import cut_card_sweep
    from ..engines.plan import normalize_seed
    from ..report import positions as positions_report
    from ..report.files import write_sweep_files
    from ..report.progress import progress_bar

    folder = checkpoint_dir(args)
    variants = [rules.with_shoe(model="dealt", cut_card=cut) for cut in cuts]
    if args.resume:
        seed_value, rounds = _resumed_settings(args, variants, shoe, folder)
    else:
        seed_value, rounds = normalize_seed(args.seed), args.rounds or DEFAULT_ROUNDS
    note(args, f"seed {seed_value} for every cut-card position")
    flows = []
    budget = [args.max_chunks]  # chunks this session may still deal (None: no limit)

    def deal(variant, n_rounds, seed, composition):
        if budget[0] == 0:
            return None  # --max-chunks spent at the end of the last position: the sweep stops here
        checkpoint = checkpoint_path(folder, variant, composition, "dealt", seed)
        flow = open_run(args, variant, composition, checkpoint, seed, n_rounds, resume=args.resume,
                        by_position=True, tell=False)
        flows.append(flow)
        before, was_complete = flow.state.chunks_done, flow.complete
        deal_run(args, flow, run_control(args, variant, budget[0]), bar)
        if budget[0] is not None:
            budget[0] -= flow.state.chunks_done - before
        if flow.complete and not was_complete:
            # Written whole at once: a sweep stopped later (or killed) finds this position done.
            problem = flow.keep()
            if problem is not None:
                note(args, f"warning: {problem}")
        return flow.histogram()

    def progress_note(cut, analysis):
        note(args, f"cut card {positions_report.cut_label(cut)} cards from the end: {analysis.hist.rounds:,} rounds, "
                   f"{analysis.rounds_per_shoe.mean:.2f} rounds per shoe")

    then = (f"; continue with {resume_hint(args, seed_value, f'--sweep {args.sweep}')}" if folder is not None else
            " (not checkpointed: nothing to continue)")
    try:
        with progress_bar(None if not args.quiet else False, rounds * len(cuts)) as bar:
            result = cut_card_sweep(rules, cuts, rounds, seed_value, shoe=shoe, threads=args.threads, progress=bar,
                                    on_run=progress_note, deal=deal)
        if result.analyses:
            files, status = write_files(args, out_dir, lambda directory: write_sweep_files(result, directory,
                                                                                           not args.no_plots))
            print(_render(result, args.format).rstrip("\n"))
            for path in files:
                note(args, f"wrote {path}")
        else:
            status = 0
        if result.complete:
            if status == 0:  # the sweep's files are safe: its positions' checkpoints go (kept, with --out)
                for flow in flows:
                    problem = flow.finish(keep_checkpoint=args.out is not None)
                    if problem is not None:
                        note(args, f"warning: {problem}")
            return status
    except Stopped as stop:
        # Outside a position's dealing (between two, or once the last is dealt, while the sweep is analysed or
        # written): each position dealt in full kept its checkpoint, and --resume reads it back.
        dealt = sum(flow.complete for flow in flows)
        return stopped(args, signal.Signals(stop.signum).name, stop.signum,
                       f"{dealt} of {len(cuts)} cut-card positions, before the sweep was reported", then, 0)
    finally:
        for flow in flows:
            flow.close()
    last = flows[-1] if flows else None
    outcome = None if last is None else last.outcome
    signum = None if outcome is None else outcome.signum
    doing = ("" if last is None or last.complete else
             f" (cut card {positions_report.cut_label(cuts[len(result.analyses)])}: {last.state.rounds:,} of "
             f"{last.plan.rounds_requested:,} rounds)")
    return stopped(args, None if outcome is None else outcome.stopped_by, signum,
                   f"{len(result.analyses)} of {len(cuts)} cut-card positions{doing}", then, status)


def _render(result, fmt: str) -> str:
    from ..report import positions as positions_report

    if fmt == "json":
        import json

        return json.dumps(positions_report.sweep_dict(result), indent=2)
    return {"csv": positions_report.sweep_csv, "markdown": positions_report.sweep_markdown}.get(
        fmt, positions_report.sweep_text)(result)
