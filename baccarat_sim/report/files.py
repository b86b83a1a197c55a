"""Result files: every run's files written as one set by the one writer (:mod:`baccarat_sim.storage.writing`).

A run report writes its histogram (``.npz``), per-bet table (``.csv``,
``.json``), Markdown summary and PNG plots; a cut-card sweep and a counting
study write their own tables. Every file of one run shares its name
(:mod:`baccarat_sim.analysis.naming`: for a run report
``{rules}-{model}-{digest}[-seed{seed}]``), so the files of different rule
sets, shoes, models, bets and seeds sit side by side in one directory. All the
files of a run appear together or not at all. A run stopped before its end
writes them with ``-partial`` after its name; once it finishes, its files
replace exactly those (:func:`write_run_files`), whatever else the folder holds.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ..analysis.naming import PARTIAL, partial_names, run_file_name
from ..storage.writing import remove_orphans, write_file_set
from . import counting as counting_report
from . import eor as eor_report
from . import positions as positions_report
from .render import csv_text
from .run_report import Report

__all__ = ["COUNT_SUFFIXES", "DPI", "PLOTS", "REPORT_SUFFIXES", "SWEEP_SUFFIXES", "figure_writer", "file_stem",
           "text_writer", "write_count_files", "write_files", "write_report_files", "write_run_files",
           "write_sweep_files"]

#: Plot files of a run report: suffix -> (name of its figure builder in :mod:`baccarat_sim.report.plots`, needs
#: Monte Carlo).
PLOTS = {
    "rtp": ("bet_rtp_figure", False),
    "convergence": ("convergence_figure", True),
    "scores": ("score_distribution_figure", False),
    # Dealt-model runs only (the builders return None otherwise).
    "by-round": ("rtp_by_round_figure", True),
    "rounds-per-shoe": ("rounds_per_shoe_figure", True),
}
#: Resolution of the PNG plots a command writes.
DPI = 120
#: Every file a run report may write, after its name (:func:`write_report_files`).
REPORT_SUFFIXES = ("-histogram.npz", ".csv", ".json", "-eor.csv", "-by-round.csv", "-rounds-per-shoe.csv",
                   *(f"-{suffix}.png" for suffix in PLOTS), "-eor.png", ".md")
#: Every file a cut-card sweep may write (:func:`write_sweep_files`).
SWEEP_SUFFIXES = (".csv", ".json", ".png", ".md")
#: Every file a counting study may write (:func:`write_count_files`).
COUNT_SUFFIXES = (".json", ".csv", ".png", ".md")


def file_stem(report: Report) -> str:
    """The name of a run report's files (:func:`run_file_name`), e.g. ``default-fresh-3f2a91c0-seed1``."""
    run = report.run
    return run_file_name(report.rules, report.exact.shoe, run["model"], run["seed"] if report.mc is not None else None)


def text_writer(text: str):
    """A writer of ``text`` for :func:`write_files`."""
    return lambda path: path.write_text(text)


def _plots():
    """The figure builders, :mod:`baccarat_sim.report.plots`, imported only when a command draws.

    matplotlib takes more than half a second of CPU to import: a run with ``--no-plots`` (every run the tests
    start, a run scripted for its JSON) has no use for it.
    """
    from . import plots

    return plots


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


def write_run_files(out_dir, name: str, files: dict, complete: bool, suffixes) -> list[Path]:
    """Write a run's files ``{name}{suffix}`` into ``out_dir`` as one set (:func:`write_files`); returns their paths.

    Parameters
    ----------
    out_dir : path
    name : str
        The run's name (:mod:`~baccarat_sim.analysis.naming`).
    files : dict of str to callable
        Suffix (``".json"``) to the function that writes that file's contents.
    complete : bool
        Whether the run finished. A stopped run's files are named
        ``{name}-partial{suffix}``, so that they never pass for a finished
        run's; a finished run's replace them: once its set is written, the
        partial files of this name and kind (``suffixes``) are removed, and
        nothing else.
    suffixes : iterable of str
        Every suffix this kind of run may write.
    """
    stem = name if complete else name + PARTIAL
    written = write_files(out_dir, {f"{stem}{suffix}": write for suffix, write in files.items()})
    if complete:
        for stale in partial_names(name, suffixes):
            (Path(out_dir) / stale).unlink(missing_ok=True)
    return written


def write_report_files(report: Report, out_dir, plots_wanted: bool = True, stem: str | None = None) -> list[Path]:
    """Write a run report's files into ``out_dir`` as one set; returns their paths.

    The histogram file holds everything needed to re-settle any pay table later
    (:meth:`baccarat_sim.model.histogram.OutcomeHistogram.load`, then
    :func:`baccarat_sim.analysis.settlement.settle`); its ``meta`` carries the
    run header (package version, rule-set hash, seed, rounds, threads, timing).
    The ``.json`` file is the ``--format json`` document; the ``.csv`` file has
    one row per bet with the run metadata repeated in each row. ``stem`` is the
    run's name (default :func:`file_stem`); a Monte Carlo run stopped before its
    end writes ``{stem}-partial*`` (:func:`write_run_files`).
    """
    name = stem or file_stem(report)
    complete = report.mc is None or bool(report.mc.meta.get("complete", True))
    shown = name if complete else name + PARTIAL  # the names the Markdown links to
    document = report.to_dict()
    hist = report.mc if report.mc is not None else report.exact
    hist = dataclasses.replace(hist, meta={**hist.meta, **document["run"]})
    files = {
        "-histogram.npz": _save_histogram(hist),
        ".csv": text_writer(report.to_csv()),
        ".json": text_writer(json.dumps(document, indent=2) + "\n"),
    }
    if report.eor is not None:  # effects of removal by point value and by rank
        files["-eor.csv"] = text_writer(eor_report.eor_csv(report.eor))
    if report.positions is not None:  # dealt model: RTP at every round position, rounds per shoe
        files["-by-round.csv"] = text_writer(
            csv_text(positions_report.by_round_frame(report.positions), index=False))
        files["-rounds-per-shoe.csv"] = text_writer(
            csv_text(positions_report.rounds_per_shoe_frame(report.positions.rounds_per_shoe), index=False))
    images = []
    if plots_wanted:
        plots = _plots()
        for suffix, (builder, needs_mc) in PLOTS.items():
            if needs_mc and (report.mc is None or report.mc.batches is None or not report.mc.batches.any()):
                continue
            figure = getattr(plots, builder)(report)
            if figure is None:  # not this kind of run
                continue
            files[f"-{suffix}.png"] = figure_writer(figure)
            images.append(f"{shown}-{suffix}.png")
        if report.eor is not None:
            files["-eor.png"] = figure_writer(plots.eor_figure(report.eor))
            images.append(f"{shown}-eor.png")
    pictures = "".join(f"\n![{Path(image).stem}]({image})\n" for image in images)
    plotted = len(report.plotted_bets())
    if pictures and plotted < len(report.table):  # bounded figures (limits.MAX_PLOTTED_BETS): say what they leave out
        pictures = (f"\nThe per-bet plots show {plotted} of the {len(report.table)} bets: those whose stated RTP does "
                    "not hold, then those furthest from exact; every bet is in the table above.\n" + pictures)
    files[".md"] = text_writer(report.to_markdown() + "\n" + (f"\n### Plots\n{pictures}" if pictures else ""))
    return write_run_files(out_dir, name, files, complete, REPORT_SUFFIXES)


def write_sweep_files(sweep, out_dir, plots_wanted: bool = True) -> list[Path]:
    """Write a cut-card sweep's ``.csv``, ``.json``, ``.md`` and (with plots) ``.png`` as one set.

    A sweep stopped before its last position writes the positions it finished,
    under ``-partial`` names (:func:`write_run_files`).
    """
    name = positions_report.sweep_stem(sweep)
    shown = name if sweep.complete else name + PARTIAL
    files = {
        ".csv": text_writer(positions_report.sweep_csv(sweep)),
        ".json": text_writer(json.dumps(positions_report.sweep_dict(sweep), indent=2) + "\n"),
    }
    image = ""
    if plots_wanted:
        files[".png"] = figure_writer(_plots().cut_sweep_figure(sweep))
        image = f"\n![{shown}]({shown}.png)\n"
    files[".md"] = text_writer(positions_report.sweep_markdown(sweep) + image)
    return write_run_files(out_dir, name, files, sweep.complete, SWEEP_SUFFIXES)


def write_count_files(result, out_dir, plots_wanted: bool = True) -> list[Path]:
    """Write a counting study's ``.json``, ``.csv``, ``.md`` (and a ``.png`` plot) as one set.

    A study stopped before its last shoe writes under ``-partial`` names (:func:`write_run_files`).
    """
    name = counting_report.count_stem(result)
    complete = bool(result.run.get("complete", True))
    shown = name if complete else name + PARTIAL
    files = {
        ".json": text_writer(json.dumps(counting_report.count_dict(result), indent=2) + "\n"),
        ".csv": text_writer(counting_report.count_csv(result)),
    }
    markdown = counting_report.count_markdown(result)
    if plots_wanted:
        files[".png"] = figure_writer(_plots().count_figure(result))
        markdown += f"\n![{shown}]({shown}.png)\n"
    files[".md"] = text_writer(markdown)
    return write_run_files(out_dir, name, files, complete, COUNT_SUFFIXES)
