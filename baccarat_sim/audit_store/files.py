"""Writing log files in the published formats (CSV or Parquet), as one set, atomically.

The columns come from :data:`~baccarat_sim.audit_store.formats.FORMATS` in their order; an empty value (a hand
that stood, a shoe-level column on a shoe's later rounds, a ``-1``) is written empty (CSV) or null (Parquet).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..storage.writing import remove_orphans, write_file_set
from .formats import FORMATS

__all__ = ["FILE_NAMES", "write_logs"]

#: The file of each kind, by suffix (``rounds.csv``, ``bets.parquet``, ...).
FILE_NAMES = {"rounds": "rounds", "bets": "bets", "results": "results"}


def _arrow_column(values: np.ndarray, kind: str):
    import pyarrow as pa

    values = np.asarray(values)
    if values.dtype.kind == "M":
        return pa.array(values.astype("datetime64[D]"))
    if values.dtype.kind in "iu":
        return pa.array(values, mask=values < 0)
    if values.dtype.kind == "f":
        return pa.array(values)
    import pyarrow.compute as pc

    text = pa.array(values.astype(object), type=pa.string())
    return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)


def _table(kind: str, columns: dict):
    import pyarrow as pa

    names = [name for name in FORMATS[kind].names if name in columns]
    return pa.table({name: _arrow_column(columns[name], kind) for name in names})


def write_logs(out_dir, logs: dict, file_format: str = "csv", extra: dict | None = None) -> list[Path]:
    """Write ``logs`` (kind to its columns) into ``out_dir`` as one set; returns the paths written.

    Parameters
    ----------
    logs : dict of str to dict of str to ndarray
        ``{"rounds": {...}, "bets": {...}, "results": {...}}`` (any of them).
    file_format : {"csv", "parquet"}
    extra : dict of str to object, optional
        Further files written as JSON beside them (name to its content).
    """
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_orphans(out_dir)
    files = {}
    for kind, columns in logs.items():
        table = _table(kind, columns)
        if file_format == "csv":
            files[f"{FILE_NAMES[kind]}.csv"] = (lambda t: lambda path: pa_csv.write_csv(
                t, str(path), pa_csv.WriteOptions(quoting_style="needed")))(table)
        else:
            files[f"{FILE_NAMES[kind]}.parquet"] = (lambda t: lambda path: pq.write_table(t, str(path)))(table)
    for name, content in (extra or {}).items():
        files[name] = (lambda c: lambda path: path.write_text(json.dumps(c, indent=2) + "\n"))(content)
    return write_file_set(out_dir, files)
