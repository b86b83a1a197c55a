"""Result files: every run's files written as one set by the one writer (:mod:`baccarat_sim.storage.writing`).

A run report writes its histogram (``.npz``), per-bet table (``.csv``,
``.json``), Markdown summary and PNG plots; a cut-card sweep and a counting
study write their own tables. Every file of one run shares a stem (for a run
report ``{rules}-{model}[-seed{seed}]``), so the files of different rule sets,
models and seeds sit side by side in one directory. All the files of a run
appear together or not at all.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ..storage.writing import remove_orphans, write_file_set
from . import counting as counting_report
from . import eor as eor_report
from . import plots
from . import positions as positions_report
from .render import csv_text
from .run_report import Report

__all__ = ["DPI", "PLOTS", "figure_writer", "file_stem", "text_writer", "write_count_files", "write_files",
           "write_report_files", "write_sweep_files"]

#: Plot files of a run report: suffix -> (figure builder in :mod:`baccarat_sim.report.plots`, needs Monte Carlo).
PLOTS = {
    "rtp": (plots.bet_rtp_figure, False),
    "convergence": (plots.convergence_figure, True),
    "scores": (plots.score_distribution_figure, False),
    # Dealt-model runs only (the builders return None otherwise).
    "by-round": (plots.rtp_by_round_figure, True),
    "rounds-per-shoe": (plots.rounds_per_shoe_figure, True),
}
#: Resolution of the PNG plots a command writes.
DPI = 120


def file_stem(report: Report) -> str:
    """Shared stem of a run's files, e.g. ``default-fresh-seed1``."""
    run = report.run
    parts = [run["rules"], run["model"]]
    if report.mc is not None:
        parts.append(f"seed{run['seed']}")
    return "-".join(str(p) for p in parts)


def text_writer(text: str):
    """A writer of ``text`` for :func:`write_files`."""
    return lambda path: path.write_text(text)


def figure_writer(figure):
    """A writer of a figure as a PNG for :func:`write_files`."""
    # The Figure is never registered with pyplot: it is garbage once written.
    return lambda path: figure.savefig(path, dpi=DPI, format="png")


def _save_histogram(hist):
    def write(path: Path) -> None:
        with open(path, "wb") as stream:  # a file object: given a name, numpy would append ".npz"
            hist.save(stream)
    return write


def write_files(out_dir, files: dict) -> list[Path]:
    """Write a command's files (name to writer) into ``out_dir`` as one set; returns their paths.

    The directory is made if need be and the orphans of an interrupted earlier
    write are removed first (:mod:`baccarat_sim.storage.writing`).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_orphans(out_dir)
    return write_file_set(out_dir, files)


def write_report_files(report: Report, out_dir, plots_wanted: bool = True, stem: str | None = None) -> list[Path]:
    """Write a run report's files into ``out_dir`` as one set; returns their paths.

    The histogram file holds everything needed to re-settle any pay table later
    (:meth:`baccarat_sim.model.histogram.OutcomeHistogram.load`, then
    :func:`baccarat_sim.analysis.settlement.settle`); its ``meta`` carries the
    run header (package version, rule-set hash, seed, rounds, threads, timing).
    The ``.json`` file is the ``--format json`` document; the ``.csv`` file has
    one row per bet with the run metadata repeated in each row.
    """
    stem = stem or file_stem(report)
    document = report.to_dict()
    hist = report.mc if report.mc is not None else report.exact
    hist = dataclasses.replace(hist, meta={**hist.meta, **document["run"]})
    files = {
        f"{stem}-histogram.npz": _save_histogram(hist),
        f"{stem}.csv": text_writer(report.to_csv()),
        f"{stem}.json": text_writer(json.dumps(document, indent=2) + "\n"),
    }
    if report.eor is not None:  # effects of removal by point value and by rank
        files[f"{stem}-eor.csv"] = text_writer(eor_report.eor_csv(report.eor))
    if report.positions is not None:  # dealt model: RTP at every round position, rounds per shoe
        files[f"{stem}-by-round.csv"] = text_writer(
            csv_text(positions_report.by_round_frame(report.positions), index=False))
        files[f"{stem}-rounds-per-shoe.csv"] = text_writer(
            csv_text(positions_report.rounds_per_shoe_frame(report.positions.rounds_per_shoe), index=False))
    images = []
    if plots_wanted:
        for suffix, (builder, needs_mc) in PLOTS.items():
            if needs_mc and (report.mc is None or report.mc.batches is None or not report.mc.batches.any()):
                continue
            figure = builder(report)
            if figure is None:  # not this kind of run
                continue
            files[f"{stem}-{suffix}.png"] = figure_writer(figure)
            images.append(f"{stem}-{suffix}.png")
        if report.eor is not None:
            files[f"{stem}-eor.png"] = figure_writer(plots.eor_figure(report.eor))
            images.append(f"{stem}-eor.png")
    pictures = "".join(f"\n![{Path(name).stem}]({name})\n" for name in images)
    shown = len(report.plotted_bets())
    if pictures and shown < len(report.table):  # bounded figures (limits.MAX_PLOTTED_BETS): say what they leave out
        pictures = (f"\nThe per-bet plots show {shown} of the {len(report.table)} bets: those whose stated RTP does "
                    "not hold, then those furthest from exact; every bet is in the table above.\n" + pictures)
    files[f"{stem}.md"] = text_writer(report.to_markdown() + "\n" + (f"\n### Plots\n{pictures}" if pictures else ""))
    return write_files(out_dir, files)


def write_sweep_files(sweep, out_dir, plots_wanted: bool = True) -> list[Path]:
    """Write a cut-card sweep's ``.csv``, ``.json``, ``.md`` and (with plots) ``.png`` as one set."""
    stem = positions_report.sweep_stem(sweep)
    files = {
        f"{stem}.csv": text_writer(positions_report.sweep_csv(sweep)),
        f"{stem}.json": text_writer(json.dumps(positions_report.sweep_dict(sweep), indent=2) + "\n"),
    }
    image = ""
    if plots_wanted:
        files[f"{stem}.png"] = figure_writer(plots.cut_sweep_figure(sweep))
        image = f"\n![{stem}]({stem}.png)\n"
    files[f"{stem}.md"] = text_writer(positions_report.sweep_markdown(sweep) + image)
    return write_files(out_dir, files)


def write_count_files(result, out_dir, plots_wanted: bool = True) -> list[Path]:
    """Write a counting study's ``.json``, ``.csv``, ``.md`` (and a ``.png`` plot) as one set."""
    stem = counting_report.count_stem(result)
    files = {
        f"{stem}.json": text_writer(json.dumps(counting_report.count_dict(result), indent=2) + "\n"),
        f"{stem}.csv": text_writer(counting_report.count_csv(result)),
    }
    markdown = counting_report.count_markdown(result)
    if plots_wanted:
        files[f"{stem}.png"] = figure_writer(plots.count_figure(result))
        markdown += f"\n![{stem}]({stem}.png)\n"
    files[f"{stem}.md"] = text_writer(markdown)
    return write_files(out_dir, files)
