"""Result files of a run: histogram (.npz), per-bet table (.csv, .json), Markdown summary."""

from __future__ import annotations

import json
from pathlib import Path

from .report import Report

__all__ = ["write_outputs"]


def _stem(report: Report) -> str:
    run = report.run
    model = run["model"]
    parts = [run["rules"], model]
    if report.mc is not None:
        parts.append(f"seed{run['seed']}")
    return "-".join(str(p) for p in parts)


def write_outputs(report: Report, out_dir: str | Path) -> list[Path]:
    """Write the run's files into ``out_dir``; returns their paths.

    The histogram file holds everything needed to re-settle any pay table later
    (:meth:`baccarat_sim.outcomes.OutcomeHistogram.load`).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = _stem(report)
    written = []
    hist = report.mc if report.mc is not None else report.exact
    meta = {k: v for k, v in report.to_dict()["run"].items()}
    hist_path = out_dir / f"{stem}-histogram.npz"
    type(hist)(**{**hist.__dict__, "meta": {**hist.meta, **meta}}).save(hist_path)
    written.append(hist_path)
    csv_path = out_dir / f"{stem}.csv"
    csv_path.write_text(report.to_csv())
    written.append(csv_path)
    json_path = out_dir / f"{stem}.json"
    json_path.write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    written.append(json_path)
    md_path = out_dir / f"{stem}.md"
    md_path.write_text(report.to_markdown() + "\n")
    written.append(md_path)
    return written
