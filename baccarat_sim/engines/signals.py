"""Stopping a run cleanly: SIGINT, SIGTERM and SIGHUP become a flag checked between chunks.

Batch schedulers stop jobs with SIGTERM, terminals with SIGHUP and people with
Ctrl-C; all three stop a run the same way, at the next chunk boundary, with a
checkpoint and a report of what was dealt. While a file is being written
(:meth:`StopSignals.deferred`), a signal is only recorded: a second Ctrl-C can
never interrupt the checkpoint that the first one started.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["STOP_SIGNALS", "StopSignals", "exit_status"]

#: Signals that stop a run cleanly (those that exist on this platform).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def exit_status(signum: int) -> int:
    """The shell's exit status of a process stopped by ``signum``: 128 + the signal number (130 for Ctrl-C)."""
    return 128 + int(signum)


class StopSignals:
    """Turns the stop signals into a flag while a run deals (main thread only; elsewhere a no-op).

    Attributes
    ----------
    signum : int or None
        The first stop signal received, or None.
    """

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict = {}
        self._deferring = 0

    @property
    def requested(self) -> bool:
        """Whether a stop signal has arrived."""
        return self.signum is not None

    @property
    def name(self) -> str | None:
        """Name of the signal received (``"SIGTERM"``), or None."""
        return None if self.signum is None else signal.Signals(self.signum).name

    def _handle(self, signum, frame):
        if self.signum is None:
            self.signum = signum

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc):
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()
        return False

    @contextlib.contextmanager
    def deferred(self):
        """Within this block the stop signals are only recorded (they always are while a run deals).

        Outside a run (no handlers installed here) the signals are held back
        with ``pthread_sigmask`` where the platform has it, and delivered at the
        end of the block.
        """
        if self._previous or threading.current_thread() is not threading.main_thread() or not hasattr(
                signal, "pthread_sigmask"):
            yield
            return
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

