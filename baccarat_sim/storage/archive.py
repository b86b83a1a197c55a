"""Checked archives: ``.npz`` files with a JSON header and a checksum over everything they hold.

Checkpoints and saved histograms are read back by the program, sometimes
after a crash or a copy between machines. Every byte of such a file either
reads back as written or fails with one clean error naming the file: the
header carries a SHA-256 of the header itself and of every array (name,
dtype, shape and bytes), so a flipped bit, a renamed member or a truncated
file never loads as something else. Pickles are never allowed.

A hostile file costs no more than it declares, and its declarations are
checked before anything is decompressed: the reader takes the zip index and
the small header first, then each array's type and shape from its ``.npy``
header alone, checks them (sizes, and the caller's expectations:
:func:`read_archive`'s ``check``, a checkpoint's plan), and only then
decompresses the arrays and verifies the checksum. Its integrity, that is:
the checksum is not keyed, so it proves that a file is whole, not who wrote it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zipfile
from collections.abc import Callable

import numpy as np

from .reading import FileRefused, JsonRefused, open_regular_file, parse_json

__all__ = ["ArchiveError", "MAX_ARCHIVE_BYTES", "read_archive", "read_archive_header", "write_archive"]

#: Largest archive read (compressed bytes on disk).
MAX_ARCHIVE_BYTES = 1 << 30
#: Largest total size of an archive's arrays once decompressed.
MAX_ARRAY_BYTES = 4 << 30
#: Largest header (JSON text, decompressed): the biggest a run writes is a few kilobytes.
MAX_HEADER_BYTES = 1 << 20
#: Most members an archive may have (a run's have four at most).
MAX_MEMBERS = 16


class ArchiveError(ValueError):
    """An archive that cannot be read back exactly as it was written (one line, naming the file)."""


class _Refused(Exception):
    """A ``check`` of :func:`read_archive` refused the file: its error goes to the caller unchanged."""

    def __init__(self, error: Exception):
        super().__init__()
        self.error = error


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


def _npy_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[np.dtype, tuple]:
    """The dtype and shape a ``.npy`` member declares, read from its first bytes only."""
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise ValueError(f"npy version {version}")
    if dtype.hasobject or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError("not an array of numbers")
    return dtype, tuple(shape)


def _open_members(archive: zipfile.ZipFile, path, what: str, damaged: str) -> tuple[dict, dict]:
    """The header and the declared (dtype, shape) of every array, every size checked; nothing large is read."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS or len({info.filename for info in infos}) != len(infos):
        raise ArchiveError(f"{damaged} (its members)")
    members = {info.filename.removesuffix(".npy"): info for info in infos}
    if "header" not in members:
        raise ArchiveError(f"{damaged} (no header)")
    if members["header"].file_size > MAX_HEADER_BYTES:
        raise ArchiveError(f"{damaged} (a header of {members['header'].file_size:,} bytes)")
    with archive.open(members["header"]) as stream:
        text = np.lib.format.read_array(stream, allow_pickle=False)
    if text.dtype.kind != "U" or text.shape != ():
        raise ArchiveError(f"{damaged} (its header is not text)")
    try:
        header = parse_json(str(text), f"{what} {str(path)!r}")
    except JsonRefused as refused:
        raise ArchiveError(str(refused)) from None
    shapes, total = {}, 0
    for name, info in members.items():
        if name == "header":
            continue
        dtype, shape = _npy_header(archive, info)
        size = dtype.itemsize * math.prod(shape)
        if info.file_size < size:  # a member shorter than its array: truncated, or lying about its shape
            raise ArchiveError(f"{damaged} (array {name} is shorter than its shape)")
        total += size
        if total > MAX_ARRAY_BYTES:
            raise ArchiveError(f"{what} {str(path)!r} holds more than {MAX_ARRAY_BYTES:,} bytes of arrays")
        shapes[name] = (dtype, shape)
    return header, shapes


def read_archive(path: str | os.PathLike, kind: str, what: str,
                 check: Callable[[dict, dict], None] | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Read an archive written by :func:`write_archive`, checked against its checksum.

    Parameters
    ----------
    path : path
    kind : str
        The format name it must carry.
    what : str
        What the file is, for messages (``"checkpoint"``).
    check : callable or None
        ``check(header, shapes)``, called with the header (format name and
        checksum included) and each array's declared ``(dtype, shape)``
        before any array is decompressed: it raises to refuse the file (a
        checkpoint whose plan is not the run's, or whose arrays are not its
        plan's size, costs no more than its header).

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
    damaged = f"{what} {str(path)!r} is damaged or not a baccarat_sim {what}"
    try:
        with open_regular_file(path, MAX_ARCHIVE_BYTES, what) as stream, zipfile.ZipFile(stream) as archive:
            header, shapes = _open_members(archive, path, what, damaged)
            if not isinstance(header, dict) or header.get("format") != kind:
                raise ArchiveError(f"{str(path)!r} is not a baccarat_sim {what}")
            if check is not None:
                try:
                    check(header, shapes)
                except Exception as refused:  # the caller's own refusal: passed on as it is
                    raise _Refused(refused) from None
            arrays = {}
            for name in shapes:
                with archive.open(f"{name}.npy") as member:
                    arrays[name] = np.lib.format.read_array(member, allow_pickle=False)
    except _Refused as refused:
        raise refused.error from None
    except FileRefused as refused:
        raise ArchiveError(str(refused)) from None
    except ArchiveError:
        raise
    except MemoryError:
        raise ArchiveError(f"{damaged} (its arrays do not fit in memory)") from None
    except Exception:  # any failure to parse untrusted bytes means the file is damaged
        # zipfile, zlib, numpy and json each raise their own types for damaged bytes (BadZipFile, zlib.error,
        # ValueError, EOFError, NotImplementedError, RuntimeError, OverflowError, ...); none of their messages
        # is useful here, and numpy's would suggest loading pickles.
        raise ArchiveError(damaged) from None
    stated = header.pop("checksum", None)
    if stated != _checksum(header, arrays):
        raise ArchiveError(f"{damaged} (its checksum does not match its contents)")
    del header["format"]
    return header, arrays


def read_archive_header(path: str | os.PathLike, kind: str, what: str) -> dict:
    """The header of an archive, read alone (nothing else is decompressed, and nothing is verified).

    For describing a file (what a new run would replace), never for using what it holds.

    Raises
    ------
    ArchiveError
    """
    damaged = f"{what} {str(path)!r} is damaged or not a baccarat_sim {what}"
    try:
        with open_regular_file(path, MAX_ARCHIVE_BYTES, what) as stream, zipfile.ZipFile(stream) as archive:
            header, _ = _open_members(archive, path, what, damaged)
    except FileRefused as refused:
        raise ArchiveError(str(refused)) from None
    except ArchiveError:
        raise
    except Exception:
        raise ArchiveError(damaged) from None
    if not isinstance(header, dict) or header.get("format") != kind:
        raise ArchiveError(f"{str(path)!r} is not a baccarat_sim {what}")
    return header
