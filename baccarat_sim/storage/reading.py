"""Bounded reads: only regular files, only up to a stated size."""

from __future__ import annotations

import os
import stat

__all__ = ["FileRefused", "read_regular_file"]


class FileRefused(OSError):
    """A path that is not a readable regular file of acceptable size (one line, with the reason)."""


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

