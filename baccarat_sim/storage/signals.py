"""The stop signals: which signals stop a command, how they are held back, and the exit status they give.

Batch schedulers stop jobs with SIGTERM, terminals with SIGHUP and people with
Ctrl-C (SIGINT); the package treats the three alike everywhere. This module
is their one definition, read by the atomic writer (renames of a file set are
never cut in two), the run driver's clean stop
(:class:`baccarat_sim.engines.signals.StopSignals`) and the command lines
(their exit statuses, and the end of a command that is already stopping). It
sits at the bottom of the layers, beside the writer that needs it.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["STOP_SIGNALS", "exit_status", "held_back", "ignore_stop_signals"]

#: Signals that stop a run or a command cleanly (those that exist on this platform).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def exit_status(signum: int) -> int:
    """The shell's exit status of a process stopped by ``signum``: 128 + the signal number (130 for Ctrl-C)."""
    return 128 + int(signum)


@contextlib.contextmanager
def held_back():
    """Within this block the stop signals wait (``pthread_sigmask``) and are delivered at its end.

    For a critical step that must finish whole once begun (the renames of a
    file set, a checkpoint). Only the main thread receives signals; elsewhere,
    or where the platform has no ``pthread_sigmask``, this does nothing.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def ignore_stop_signals() -> None:
    """Ignore every stop signal from now on (main thread only): the process is stopping already.

    A command that stops reports what it did; a second Ctrl-C must not cut
    that report, or its exit status, short.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
