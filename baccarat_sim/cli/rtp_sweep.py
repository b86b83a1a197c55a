"""``python -m baccarat_sim.rtp --sweep cut=...``: one dealt run per cut-card position, one table and plot (issue 6)."""

from __future__ import annotations

import argparse

from .common import UsageError, note, write_files
from .options import load_table
from .rtp_parser import DEFAULT_ROUNDS
from .rtp_report import results_dir

__all__ = ["sweep"]


def sweep(args: argparse.Namespace) -> int:
    """Carry out ``--sweep``; returns the exit status."""
    for flag, given, why in (("--exact", args.exact, "deals Monte Carlo shoes"),
                             ("--resume", args.resume, "its runs are not checkpointed"),
                             ("--check", args.check, "a dealt shoe's RTP may differ from the fresh-shoe one"),
                             ("--backend dask", args.backend != "local", "runs on this machine")):
        if given:
            raise UsageError(f"--sweep: {why}; drop {flag}")
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

    def progress_note(cut, analysis):
        note(args, f"cut card {positions_report.cut_label(cut)} cards from the end: {analysis.hist.rounds:,} rounds, "
                   f"{analysis.rounds_per_shoe.mean:.2f} rounds per shoe")

    seed_value = normalize_seed(args.seed)
    note(args, f"seed {seed_value} for every cut-card position")
    rounds = args.rounds or DEFAULT_ROUNDS
    with progress_bar(None if not args.quiet else False, rounds * len(cuts)) as bar:
        result = cut_card_sweep(rules, cuts, rounds, seed_value, shoe=shoe, threads=args.threads, progress=bar,
                                on_run=progress_note)
    files, status = write_files(args, out_dir, lambda directory: write_sweep_files(result, directory,
                                                                                   not args.no_plots))
    if args.format == "json":
        import json

        rendered = json.dumps(positions_report.sweep_dict(result), indent=2)
    else:
        rendered = {"csv": positions_report.sweep_csv, "markdown": positions_report.sweep_markdown}.get(
            args.format, positions_report.sweep_text)(result)
    print(rendered.rstrip("\n"))
    for path in files:
        note(args, f"wrote {path}")
    return status
