"""The one writer: every file the package writes appears whole under its final name, or not at all.

A file is written under a temporary name beside its final one, flushed to
disk, and renamed over the final name (:func:`atomic_write`). A run's result
files are written as one set (:func:`write_file_set`): all of them are staged
first and renamed only when every one is complete, so a failure never leaves
new files beside old ones. Temporary files left by a killed process are
removed by the next writer in that folder (:func:`remove_orphans`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Callable
from pathlib import Path

from .signals import held_back

__all__ = ["FileSetError", "atomic_write", "remove_orphans", "temporary_name", "write_file_set"]

_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


class FileSetError(OSError):
    """A file set that could not be written whole; the message says which files were and were not written."""


def temporary_name(path: Path) -> Path:
    """A temporary name beside ``path`` that names the writing process (for :func:`remove_orphans`)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _sync_directory(directory: Path) -> None:
    """Flush a directory's entries (the renames) to disk, where the platform allows it."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _stage(path: Path, write: Callable[[Path], None], sync: bool) -> Path:
    """Write ``path``'s contents under a temporary name; returns that name."""
    temporary = temporary_name(path)
    try:
        write(temporary)
        if sync:
            descriptor = os.open(temporary, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary


def atomic_write(path: str | Path, write: Callable[[Path], None], *, sync: bool = False) -> Path:
    """Write one file atomically: ``write(temporary_path)``, then rename it over ``path``.

    Parameters
    ----------
    path : path
    write : callable
        Writes the contents to the path it is given.
    sync : bool
        Flush the file and the rename to disk (checkpoints: a power cut must
        not leave an empty file under the final name).
    """
    path = Path(path)
    temporary = _stage(path, write, sync)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if sync:
        _sync_directory(path.parent)
    return path


def write_file_set(directory: str | Path, files: dict[str, Callable[[Path], None]]) -> list[Path]:
    """Write several files into ``directory`` as one set.

    Every file is staged under a temporary name first; only when all are
    complete are they renamed to their final names, with the stop signals held
    back, so that a failure or a signal never leaves some new files beside old
    ones.

    Parameters
    ----------
    directory : path
    files : dict of str to callable
        File name to the function that writes its contents to a given path.

    Returns
    -------
    list of Path
        The files written, in the order given.

    Raises
    ------
    FileSetError
        Naming the files that were written and those that were not.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    # A name taken by a directory (or a FIFO...) would fail its rename after others were renamed: refuse it first.
    for name in files:
        target = directory / name
        if (target.exists() or target.is_symlink()) and not target.is_file():
            raise FileSetError(f"cannot write {target}: a directory or other non-file has that name; none of the "
                               f"{len(files)} result files was written")
    staged: dict[Path, Path] = {}
    try:
        for name, write in files.items():
            staged[directory / name] = _stage(directory / name, write, sync=False)
    except BaseException as error:
        for temporary in staged.values():
            temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            failed = next(name for name in files if directory / name not in staged)
            raise FileSetError(f"cannot write {directory / failed} ({error.strerror or error}); none of the "
                               f"{len(files)} result files was written") from None
        raise
    renamed: list[Path] = []
    with held_back():
        try:
            for final, temporary in staged.items():
                os.replace(temporary, final)
                renamed.append(final)
        except OSError as error:
            for final, temporary in staged.items():
                if final not in renamed:
                    temporary.unlink(missing_ok=True)
            left = [str(final) for final in staged if final not in renamed]
            raise FileSetError(f"cannot rename the result files into {directory} ({error.strerror or error}); "
                               f"written: {', '.join(map(str, renamed)) or 'none'}; not written: "
                               f"{', '.join(left)}") from None
    _sync_directory(directory)
    return list(staged)


def remove_orphans(directory: str | Path) -> list[Path]:
    """Remove temporary files that killed writers left in ``directory``; returns them.

    A temporary file names the process that wrote it; only files of processes
    that no longer run are removed, so a concurrent writer is never disturbed.
    """
    removed = []
    with contextlib.suppress(OSError):
        for path in Path(directory).iterdir():
            match = _TEMPORARY.match(path.name)
            if not match or _alive(int(match["pid"])):
                continue
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (on this machine)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return True
    return True
