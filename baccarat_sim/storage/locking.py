"""Run locks: one run at a time per checkpoint, and a clear line naming the one that holds it."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

from .reading import parse_json, read_regular_file

__all__ = ["LockHeld", "RunLock"]

try:
    import fcntl
except ImportError:  # not on Windows: runs there are not locked
    fcntl = None


class LockHeld(OSError):
    """Another process holds the lock; the message names it."""


class RunLock:
    """An exclusive lock on ``path`` (a checkpoint), held in ``path + ".lock"`` while a run uses it.

    The lock is an ``flock`` on the lock file, so the system drops it when the
    holder dies, even by ``kill -9``; the file records who holds it, for the
    message another run gets.

    Parameters
    ----------
    path : path
        The file the lock protects.
    what : str
        A description of the holder, written into the lock file (the command).
    """

    def __init__(self, path: str | Path, what: str = ""):
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.what = what
        self._descriptor = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def acquire(self) -> None:
        """Take the lock or raise :class:`LockHeld` naming the process that holds it."""
        if fcntl is None:
            return
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            descriptor = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(descriptor)
                raise LockHeld(f"{self.path} is in use by another run ({self._holder()}); wait for it to finish, "
                               "or stop it first") from None
            try:  # the holder before us may have removed the file between our open and our lock: lock the new one
                same = os.stat(self.lock_path).st_ino == os.fstat(descriptor).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(descriptor)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, json.dumps({"pid": os.getpid(), "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                                         "command": self.what}).encode())
        self._descriptor = descriptor

    def _holder(self) -> str:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            info = parse_json(read_regular_file(self.lock_path, 1 << 16, "lock file"), "lock file")
            return f"pid {info['pid']}, started {info['started']}" + (f": {info['command']}" if info.get("command")
                                                                       else "")
        return "a process that is still running"

    def release(self) -> None:
        """Release the lock (and remove the lock file)."""
        if self._descriptor is None:
            return
        with contextlib.suppress(OSError):
            self.lock_path.unlink()
        os.close(self._descriptor)
        self._descriptor = None
