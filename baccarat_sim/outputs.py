"""Result files of a run: histogram (.npz), per-bet table (.csv, .json), Markdown summary, PNG plots.

Every file of one run shares a stem, ``{rules}-{model}[-seed{seed}]``, so the
files of different rule sets, models and seeds sit side by side in one
``--out`` directory.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from .report import Report

__all__ = ["PLOTS", "file_stem", "write_outputs", "write_plots"]

#: Plot files: suffix -> figure builder in :mod:`baccarat_sim.plots` (and whether it needs a Monte Carlo run).
PLOTS = {
    "rtp": ("bet_rtp_figure", False),
    "convergence": ("convergence_figure", True),
    "scores": ("score_distribution_figure", False),
    # Dealt-model runs only (the builders return None otherwise).
    "by-round": ("rtp_by_round_figure", True),
    "rounds-per-shoe": ("rounds_per_shoe_figure", True),
}


def file_stem(report: Report) -> str:
    """Shared stem of a run's files, e.g. ``default-fresh-seed1``."""
    run = report.run
    parts = [run["rules"], run["model"]]
    if report.mc is not None:
        parts.append(f"seed{run['seed']}")
    return "-".join(str(p) for p in parts)


def _write_atomic(path: Path, write) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a file under the final name."""
    # A plain name (not mkstemp) so that the file gets the umask's permissions, like any other output.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(Path(temporary))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_plots(report: Report, out_dir: str | Path, stem: str | None = None, dpi: int = 120) -> list[Path]:
    """Draw the run's PNG plots into ``out_dir``; returns their paths.

    Per-bet RTP against exact and stated values, the score distribution and,
    for a Monte Carlo run, the convergence of each bet's running RTP.
    """
    from . import plots

    out_dir = Path(out_dir)
    stem = stem or file_stem(report)
    written = []
    for suffix, (builder, needs_mc) in PLOTS.items():
        if needs_mc and (report.mc is None or report.mc.batches is None or not report.mc.batches.any()):
            continue
        figure = getattr(plots, builder)(report)
        if figure is None:  # not this kind of run
            continue
        path = out_dir / f"{stem}-{suffix}.png"
        # The Figure is never registered with pyplot: it is garbage once this loop moves on.
        _write_atomic(path, lambda tmp, fig=figure: fig.savefig(tmp, dpi=dpi, format="png"))
        written.append(path)
    return written


def _save_histogram(hist, path: Path) -> None:
    # Through a file object: given a name, numpy would append ".npz" to the temporary one.
    with open(path, "wb") as stream:
        hist.save(stream)


def _markdown(report: Report, plot_paths: list[Path]) -> str:
    images = "".join(f"\n![{p.stem}]({p.name})\n" for p in plot_paths)
    files = f"\n### Plots\n{images}" if images else ""
    return report.to_markdown() + "\n" + files


def write_outputs(report: Report, out_dir: str | Path, plots: bool = True) -> list[Path]:
    """Write the run's files into ``out_dir``; returns their paths.

    The histogram file holds everything needed to re-settle any pay table later
    (:meth:`baccarat_sim.outcomes.OutcomeHistogram.load`, then
    :func:`baccarat_sim.settle.settle`); its ``meta`` carries the run header
    (package version, rule-set hash, seed, rounds, threads, timing). The
    ``.json`` file is the ``--format json`` document; the ``.csv`` file has
    one row per bet with the run metadata repeated in each row.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = file_stem(report)
    document = report.to_dict()
    hist = report.mc if report.mc is not None else report.exact
    hist = dataclasses.replace(hist, meta={**hist.meta, **document["run"]})
    written = []

    def add(name: str, write) -> None:
        path = out_dir / name
        _write_atomic(path, write)
        written.append(path)

    add(f"{stem}-histogram.npz", lambda tmp: _save_histogram(hist, tmp))
    add(f"{stem}.csv", lambda tmp: tmp.write_text(report.to_csv()))
    add(f"{stem}.json", lambda tmp: tmp.write_text(json.dumps(document, indent=2) + "\n"))
    if report.eor is not None:  # --eor: effects of removal by point value and by rank
        add(f"{stem}-eor.csv", lambda tmp: tmp.write_text(report.eor.to_csv()))
    if report.positions is not None:  # dealt model: RTP at every round position, rounds per shoe
        add(f"{stem}-by-round.csv", lambda tmp: tmp.write_text(report.positions.by_round_frame().to_csv(index=False)))
        add(f"{stem}-rounds-per-shoe.csv",
            lambda tmp: tmp.write_text(report.positions.rounds_per_shoe.to_frame().to_csv(index=False)))
    plot_paths = write_plots(report, out_dir, stem) if plots else []
    if plots and report.eor is not None:
        from .plots import eor_figure

        eor_path = out_dir / f"{stem}-eor.png"
        _write_atomic(eor_path, lambda tmp: eor_figure(report.eor).savefig(tmp, dpi=120, format="png"))
        plot_paths.append(eor_path)
    add(f"{stem}.md", lambda tmp: tmp.write_text(_markdown(report, plot_paths)))
    return written[:3] + plot_paths + written[3:]
