"""Bounded reads: only regular files, only up to a stated size; JSON only to a stated depth."""

from __future__ import annotations

import contextlib
import json
import os
import stat

__all__ = ["MAX_JSON_DEPTH", "FileRefused", "JsonRefused", "open_regular_file", "parse_json", "read_regular_file"]

#: Deepest nesting of arrays and objects accepted in a JSON document the package reads (its own reports nest 4 deep).
MAX_JSON_DEPTH = 64


class FileRefused(OSError):
    """A path that is not a readable regular file of acceptable size (one line, with the reason)."""


def _open_checked(path, limit: int, what: str) -> int:
    """A descriptor of ``path`` once it is known to be a regular file of at most ``limit`` bytes."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise FileRefused(f"cannot read {what} {str(path)!r} ({error.strerror or error})") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                    else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else "not a file")
            raise FileRefused(f"{what} {str(path)!r} is {kind}; give a regular file")
        if info.st_size > limit:
            raise FileRefused(f"{what} {str(path)!r} has {info.st_size:,} bytes, more than the limit of "
                              f"{limit:,} bytes")
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_regular_file(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    FIFOs, devices (``/dev/zero``, ``/dev/urandom``), sockets and directories
    are refused before anything is read: a FIFO would block for ever and a
    device would be read until memory runs out. The file is opened without
    blocking and checked on its open descriptor, so a path swapped for a FIFO
    between a check and the open cannot slip through.

    Parameters
    ----------
    path : str or path-like
    limit : int
        Largest size accepted, in bytes.
    what : str
        What the file is, for the message (``"rule file"``).

    Raises
    ------
    FileRefused
        Not a regular file, larger than ``limit``, or unreadable (the
        ``strerror`` says which).
    """
    descriptor = _open_checked(path, limit, what)
    try:
        chunks, size = [], 0
        while True:
            chunk = os.read(descriptor, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:  # the file grew while it was read
                raise FileRefused(f"{what} {str(path)!r} has more than the limit of {limit:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as error:
        if isinstance(error, FileRefused):
            raise
        raise FileRefused(f"cannot read {what} {str(path)!r} ({error.strerror or error})") from None
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def open_regular_file(path: str | os.PathLike, limit: int, what: str = "file"):
    """A binary file object of a regular file of at most ``limit`` bytes, checked as :func:`read_regular_file` does.

    For a reader that needs only part of a large file (an archive's index and
    header): nothing is read until it asks.

    Raises
    ------
    FileRefused
    """
    descriptor = _open_checked(path, limit, what)
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as stream:
        yield stream


class JsonRefused(ValueError):
    """A JSON text that is not JSON, or nests deeper than allowed (one line, naming what it is)."""


def parse_json(text: str | bytes, what: str, max_depth: int = MAX_JSON_DEPTH):
    """The document of a JSON text nested at most ``max_depth`` deep: the one way the package reads JSON.

    Python's parser recurses once per level: a document nested 100,000 deep
    would exhaust the stack (a ``RecursionError``, which it raises after the
    interpreter's recursion limit, in time linear in that depth). That and any
    depth beyond ``max_depth`` are refused in one line.

    Raises
    ------
    JsonRefused
        Not UTF-8, not JSON, or nested too deeply.
    """
    try:
        document = json.loads(text)
    except RecursionError:
        raise JsonRefused(f"{what}: nested too deeply; at most {max_depth} levels of arrays and objects are "
                          "allowed") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise JsonRefused(f"{what}: is not JSON ({error})") from None
    deepest, todo = 0, [(document, 0)]
    while todo:  # iterative: the depth is not yet known to be small
        item, level = todo.pop()
        deepest = max(deepest, level)
        if deepest > max_depth:
            raise JsonRefused(f"{what}: nested too deeply; at most {max_depth} levels of arrays and objects are "
                              "allowed")
        if isinstance(item, dict):
            todo.extend((value, level + 1) for value in item.values())
        elif isinstance(item, list):
            todo.extend((value, level + 1) for value in item)
    return document
