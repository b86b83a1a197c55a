"""Writing log files in the published formats (CSV or Parquet), as one set, atomically, whole or a chunk at a time.

The columns come from :data:`~baccarat_sim.audit_store.formats.FORMATS` in their order; an empty value (a hand
that stood, a shoe-level column on a shoe's later rounds, a ``-1``) is written empty (CSV) or null (Parquet).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ..storage.writing import remove_orphans, temporary_name, write_file_set
from .formats import FORMATS

__all__ = ["FILE_NAMES", "write_log_chunks", "write_logs"]

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


class _LogWriter:
    """One log file written a chunk at a time (Parquet row groups, or CSV lines under one header)."""

    def __init__(self, path: Path, kind: str, file_format: str):
        self.path, self.kind, self.file_format, self.writer = path, kind, file_format, None

    def write(self, columns: dict) -> None:
        import pyarrow.csv as pa_csv
        import pyarrow.parquet as pq

        table = _table(self.kind, columns)
        if self.writer is None:
            self.writer = (pa_csv.CSVWriter(str(self.path), table.schema,
                                            write_options=pa_csv.WriteOptions(quoting_style="needed"))
                           if self.file_format == "csv" else pq.ParquetWriter(str(self.path), table.schema))
        self.writer.write_table(table)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def write_log_chunks(out_dir, kinds: list[str], chunks: Iterable[dict], file_format: str = "csv",
                     extra: dict[str, Callable[[], object]] | None = None) -> list[Path]:
    """Write logs that come a chunk at a time into ``out_dir`` as one set; returns the paths written.

    Parameters
    ----------
    kinds : list of str
        The file kinds, each chunk giving the columns of each (``{"rounds": {...}, "bets": {...}}``).
    chunks : iterable of dict of str to dict of str to ndarray
        Consumed once, as the first kind's file is written; the other kinds' files are written beside it under
        temporary names at the same time, and all are renamed together.
    file_format : {"csv", "parquet"}
    extra : dict of str to callable, optional
        Further files written as JSON beside them: name to the function that gives its content, called when
        every chunk is written (a simulated month's anomalies are known then).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_orphans(out_dir)
    names = {kind: f"{FILE_NAMES[kind]}.{file_format}" for kind in kinds}
    beside = {kind: temporary_name(out_dir / names[kind]) for kind in kinds[1:]}

    def write_all(first_path: Path) -> None:
        writers = {kind: _LogWriter(beside.get(kind, first_path), kind, file_format) for kind in kinds}
        try:
            for chunk in chunks:
                for kind in kinds:
                    writers[kind].write(chunk[kind])
        finally:
            for writer in writers.values():
                writer.close()

    files = {names[kinds[0]]: write_all}
    files.update({names[kind]: (lambda k: lambda path: os.replace(beside[k], path))(kind) for kind in kinds[1:]})
    files.update({name: (lambda c: lambda path: path.write_text(json.dumps(c(), indent=2) + "\n"))(content)
                  for name, content in (extra or {}).items()})
    try:
        return write_file_set(out_dir, files)
    finally:
        for path in beside.values():
            path.unlink(missing_ok=True)


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
    return write_log_chunks(out_dir, list(logs), [logs], file_format,
                            {name: (lambda c: lambda: c)(content) for name, content in (extra or {}).items()})
