"""Stopping a run cleanly: the stop signals become a flag checked between chunks.

SIGINT, SIGTERM and SIGHUP (:data:`baccarat_sim.storage.signals.STOP_SIGNALS`)
all stop a run the same way, at the next chunk boundary, with a checkpoint and
a report of what was dealt. While a file is being written
(:meth:`StopSignals.deferred`), a signal is only recorded: a second Ctrl-C can
never interrupt the checkpoint that the first one started. The command's
latch (:data:`baccarat_sim.storage.signals.FIRST_STOP`) is told of the first
signal, so that once the run is over a later one is ignored and the exit
status stays the first one's.
"""

from __future__ import annotations

import contextlib
import signal
import threading

from ..storage.signals import FIRST_STOP, STOP_SIGNALS, held_back

__all__ = ["StopSignals"]


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
        FIRST_STOP.record(signum)

    def __enter__(self):
        if FIRST_STOP.stopping:  # the command was stopped before this run began (between two runs of it)
            self.signum = FIRST_STOP.signum
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
        if self._previous:
            yield
            return
        with held_back():
            yield
