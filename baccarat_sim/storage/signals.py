"""The stop signals: which signals stop a command, how they are held back, and the exit status they give.

Batch schedulers stop jobs with SIGTERM, terminals with SIGHUP and people with
Ctrl-C (SIGINT); the package treats the three alike everywhere. This module
is their one definition, read by the atomic writer (renames of a file set are
never cut in two), the run driver's clean stop
(:class:`baccarat_sim.engines.signals.StopSignals`) and the command lines
(their exit statuses, and the end of a command that is already stopping). It
sits at the bottom of the layers, beside the writer that needs it.

A command hears the stop signals through one latch, :data:`FIRST_STOP`: the
first stop signal decides how the command ends (it stops the command at once,
or at the next chunk boundary while a run deals, and its number gives the exit
status); every later one is ignored until the process exits, wherever it
lands: in an ``except`` or ``finally`` block, in a module's import, while the
report is written.
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["FIRST_STOP", "STOP_SIGNALS", "FirstStop", "Stopped", "exit_status", "held_back",
           "ignore_stop_signals"]

#: Signals that stop a run or a command cleanly (those that exist on this platform).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def exit_status(signum: int) -> int:
    """The shell's exit status of a process stopped by ``signum``: 128 + the signal number (130 for Ctrl-C)."""
    return 128 + int(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class Stopped(KeyboardInterrupt):
    """The first stop signal, outside a run's dealing loop: the command stops as on Ctrl-C.

    Attributes
    ----------
    signum : int
        The signal (its exit status is ``128 + signum``).
    """

    def __init__(self, signum: int):
        super().__init__()
        self.signum = signum


class FirstStop:
    """The latch of a command's stop signals: the first one counts, later ones are ignored.

    While :meth:`armed`, the first stop signal raises :class:`Stopped` (once);
    the run driver's clean stop tells the latch of a signal it took instead
    (:meth:`record`). Any later signal only finds the latch set and does
    nothing, so no second exception can land in the code that reports the
    stop, and the exit status is the first signal's.

    Attributes
    ----------
    signum : int or None
        The first stop signal received, or None.
    raised : bool
        Whether it raised :class:`Stopped` (rather than stopping a run at a
        chunk boundary).
    """

    def __init__(self):
        self.signum: int | None = None
        self.raised = False
        self._raising = False
        self._installed = False

    def _handle(self, signum, frame):
        if self.signum is not None:
            return
        self.signum = signum
        if self._raising:
            self._raising = False
            self.raised = True
            raise Stopped(signum)

    def record(self, signum: int) -> None:
        """A stop signal taken by someone else (a run's clean stop): the first one is kept."""
        if self.signum is None:
            self.signum = signum

    def install(self) -> None:
        """Hear the stop signals from now on, recording only (the earliest moment of a command's process)."""
        if not _main_thread():
            return
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._handle)
        self._installed = True

    def arm(self, fresh: bool = True) -> dict:
        """Start a command: the first stop signal raises :class:`Stopped`; returns the handlers it replaced.

        ``fresh`` forgets a signal recorded before (a command called again in
        the same process); a command's own process keeps one that came while
        it started (:meth:`install`).
        """
        if not _main_thread():
            return {}
        previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        if fresh or not self._installed:
            self.signum = None
            self.raised = False
        self._raising = self.signum is None
        self.install()
        return previous

    @property
    def stopping(self) -> bool:
        """Whether the command running in this process has been told to stop (a run must not start dealing)."""
        return self._installed and self.signum is not None

    @property
    def raising(self) -> bool:
        """Whether the next (first) stop signal raises :class:`Stopped`."""
        return self._raising

    def quiet(self) -> None:
        """From now on a stop signal is only recorded (the command is ending and reports how)."""
        self._raising = False

    def disarm(self, previous: dict) -> None:
        """End a command called within a longer process: the handlers it replaced are put back."""
        self._raising = False
        if not _main_thread():
            return
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back from here
                signal.signal(signum, handler)
        self._installed = False

    def end_of_process(self) -> None:
        """The process ends now: every stop signal is ignored by the system (a late one must not kill it)."""
        self._raising = False
        ignore_stop_signals()


#: The latch of the command running in this process.
FIRST_STOP = FirstStop()


@contextlib.contextmanager
def held_back():
    """Within this block the stop signals wait (``pthread_sigmask``) and are delivered at its end.

    For a critical step that must finish whole once begun (the renames of a
    file set, a checkpoint). Only the main thread receives signals; elsewhere,
    or where the platform has no ``pthread_sigmask``, this does nothing.
    """
    if not _main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def ignore_stop_signals() -> None:
    """Ignore every stop signal from now on (main thread only), at the system level: the process is ending.

    Python checks for a signal that is already pending before it changes a
    handler, so such a signal still reaches the handler in place (the latch).
    """
    if not _main_thread():
        return
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
