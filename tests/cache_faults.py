"""Run Python code, or a module as a script, with some folders read-only or on a full disk (a simulated fault).

``python tests/cache_faults.py MODE FOLDER[,FOLDER...] -c CODE`` or ``... -m MODULE [ARGS...]``

The tests run as root on some machines, and root writes through ``chmod``;
a read-only mount or a full disk cannot be made without privileges either.
So the fault is made where Python reaches the file system (``os.open``,
``open``, ``os.mkdir``, ``os.replace``, ``os.rename``, ``os.unlink``), for
paths inside the named folders only, raising what the operating system would:

- ``read-only``: every call that would create, write, rename or remove
  fails with ``EROFS``; reading works;
- ``full``: files and folders are created, but writing data fails with
  ``ENOSPC`` (what a full disk does).
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import runpy
import sys

_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND | getattr(os, "O_TMPFILE", 0)


def _install(mode: str, folders: list[str]) -> None:
    roots = [os.path.abspath(folder) for folder in folders]

    def inside(path) -> bool:
        try:
            path = os.path.abspath(os.fsdecode(path))
        except TypeError:  # a file descriptor
            return False
        return any(path == root or path.startswith(root + os.sep) for root in roots)

    def refuse(code: int, path):
        raise OSError(code, os.strerror(code), os.fsdecode(path))

    real_open, real_os_open = builtins.open, os.open
    real_mkdir, real_replace, real_rename, real_unlink = os.mkdir, os.replace, os.rename, os.unlink

    class FullDisk:
        """A file opened for writing on a full disk: writing fails."""

        def __init__(self, file):
            self._file = file

        def write(self, data):
            refuse(errno.ENOSPC, self._file.name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._file.close()

        def __getattr__(self, name):
            return getattr(self._file, name)

    def open_(file, mode="r", *args, **kwargs):
        if inside(file) and any(c in mode for c in "wax+"):
            if mode_ == "read-only":
                refuse(errno.EROFS, file)
            return FullDisk(real_open(file, mode, *args, **kwargs))
        return real_open(file, mode, *args, **kwargs)

    def os_open(path, flags, *args, **kwargs):
        if mode_ == "read-only" and inside(path) and flags & _WRITING:
            refuse(errno.EROFS, path)
        return real_os_open(path, flags, *args, **kwargs)

    def mkdir(path, *args, **kwargs):
        if mode_ == "read-only" and inside(path):
            refuse(errno.EEXIST if os.path.isdir(path) else errno.EROFS, path)
        return real_mkdir(path, *args, **kwargs)

    def moving(real):
        def move(src, dst, *args, **kwargs):
            if mode_ == "read-only" and (inside(src) or inside(dst)):
                refuse(errno.EROFS, dst)
            return real(src, dst, *args, **kwargs)
        return move

    def unlink(path, *args, **kwargs):
        if mode_ == "read-only" and inside(path):
            refuse(errno.EROFS, path)
        return real_unlink(path, *args, **kwargs)

    mode_ = mode
    builtins.open = io.open = open_
    os.open, os.mkdir, os.unlink, os.remove = os_open, mkdir, unlink, unlink
    os.replace, os.rename = moving(real_replace), moving(real_rename)


def main(argv: list[str]) -> None:
    mode, folders, how, what, *rest = argv
    if mode not in ("read-only", "full") or how not in ("-c", "-m"):
        raise SystemExit(__doc__)
    _install(mode, folders.split(","))
    if how == "-c":
        sys.argv = ["-c", *rest]
        exec(compile(what, "<code>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = [what, *rest]
        runpy.run_module(what, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
