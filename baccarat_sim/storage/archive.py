"""Checked archives: ``.npz`` files with a JSON header and a checksum over everything they hold.

Checkpoints and saved histograms are read back by the program, sometimes
after a crash or a copy between machines. Every byte of such a file either
reads back as written or fails with one clean error naming the file: the
header carries a SHA-256 of the header itself and of every array (name,
dtype, shape and bytes), so a flipped bit, a renamed member or a truncated
file never loads as something else. Pickles are never allowed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

import numpy as np

from .reading import FileRefused, read_regular_file

__all__ = ["ArchiveError", "MAX_ARCHIVE_BYTES", "read_archive", "write_archive"]

#: Largest archive read (compressed bytes on disk).
MAX_ARCHIVE_BYTES = 1 << 30
#: Largest total size of an archive's arrays once decompressed.
MAX_ARRAY_BYTES = 4 << 30


class ArchiveError(ValueError):
    """An archive that cannot be read back exactly as it was written (one line, naming the file)."""


def _checksum(header: dict, arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode())
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def write_archive(target, kind: str, header: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` and a JSON ``header`` (with ``format = kind`` and a checksum) as a compressed ``.npz``.

    Parameters
    ----------
    target : path or binary file object
        Where to write (numpy appends no suffix to a file object).
    kind : str
        The archive's format name, checked on reading.
    header : dict
        JSON-ready metadata.
    arrays : dict of str to ndarray
        Numeric arrays (no object arrays: they would need pickles).
    """
    full = {"format": kind, **header}
    full["checksum"] = _checksum(full, arrays)
    np.savez_compressed(target, header=np.array(json.dumps(full)), **arrays)


def read_archive(path: str | os.PathLike, kind: str, what: str) -> tuple[dict, dict[str, np.ndarray]]:
    """Read an archive written by :func:`write_archive`, checked against its checksum.

    Parameters
    ----------
    path : path
    kind : str
        The format name it must carry.
    what : str
        What the file is, for messages (``"checkpoint"``).

    Returns
    -------
    (dict, dict of str to ndarray)
        The header (without the format name and the checksum) and the arrays.

    Raises
    ------
    ArchiveError
        Not a regular file, too large, not an archive, not of this kind, or
        damaged (any byte that differs from what was written).
    """
    try:
        data = read_regular_file(path, MAX_ARCHIVE_BYTES, what)
    except FileRefused as refused:
        raise ArchiveError(str(refused)) from None
    damaged = f"{what} {str(path)!r} is damaged or not a baccarat_sim {what}"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_ARRAY_BYTES:
                raise ArchiveError(f"{what} {str(path)!r} holds more than {MAX_ARRAY_BYTES:,} bytes of arrays")
        with np.load(io.BytesIO(data), allow_pickle=False) as members:
            names = list(members.files)
            if "header" not in names:
                raise ArchiveError(f"{damaged} (no header)")
            header = json.loads(str(members["header"]))
            arrays = {name: members[name] for name in names if name != "header"}
    except ArchiveError:
        raise
    except MemoryError:
        raise ArchiveError(f"{damaged} (its arrays do not fit in memory)") from None
    except Exception:  # any failure to parse untrusted bytes means the file is damaged
        # zipfile, zlib, numpy and json each raise their own types for damaged bytes (BadZipFile, zlib.error,
        # ValueError, EOFError, NotImplementedError, RuntimeError, OverflowError, ...); none of their messages
        # is useful here, and numpy's would suggest loading pickles.
        raise ArchiveError(damaged) from None
    if not isinstance(header, dict) or header.get("format") != kind:
        raise ArchiveError(f"{str(path)!r} is not a baccarat_sim {what}")
    stated = header.pop("checksum", None)
    if stated != _checksum(header, arrays):
        raise ArchiveError(f"{damaged} (its checksum does not match its contents)")
    del header["format"]
    return header, arrays
