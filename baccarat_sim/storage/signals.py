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

A signal can also land in Python code that C calls back and that has nowhere
to send an exception (llvmlite's object cache while numba loads a kernel, a
ctypes callback): Python prints such an exception ("Exception ignored ...")
and goes on as if nothing had happened. The latch hears of that through
``sys.unraisablehook`` and ``sys.excepthook``, prints nothing, and delivers
the signal to the main thread again from a helper thread, so that it stops the
command at the next point where an exception can travel.
"""

from __future__ import annotations

import _thread
import contextlib
import signal
import sys
import threading
import time

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
        self._hooks: tuple | None = None  # sys.unraisablehook and sys.excepthook replaced while armed
        self._in_hook = False

    def _handle(self, signum, frame):
        if self.signum is not None:
            return
        if self._in_hook:  # in the hook that reports a lost Stopped: not here either
            self._send_again(signum)
            return
        self.signum = signum
        if self._raising:
            self._raising = False
            self.raised = True
            raise Stopped(signum)

    def _swallowed(self, error: BaseException) -> bool:
        """Whether ``error`` is this latch's :class:`Stopped`, lost where C called Python; if so it comes again.

        The latch goes back to what it was before the signal, and a helper
        thread sends the same signal to the main thread (``pthread_kill``: a
        block that holds the signals back still holds it back), whose handler
        runs at its next bytecode: outside the callback, it stops the command;
        in another such callback, this happens once more.
        """
        if not (isinstance(error, Stopped) and self.raised and self.signum == error.signum and self._hooks):
            return False
        self.signum = None
        self.raised = False
        self._raising = True
        self._send_again(error.signum)
        return True

    def _send_again(self, signum: int) -> None:
        # A bare thread: threading.Thread.start() waits for it, and the signal would land in the hook. It sends the
        # signal once the hook has returned.
        main = threading.main_thread().ident

        def send():
            while self._in_hook:
                time.sleep(0.001)
            signal.pthread_kill(main, signum)

        _thread.start_new_thread(send, ())

    def _unraisable(self, unraisable) -> None:
        self._in_hook = True
        try:
            if not self._swallowed(unraisable.exc_value):
                (self._hooks[0] if self._hooks else sys.__unraisablehook__)(unraisable)
        finally:
            self._in_hook = False

    def _excepthook(self, kind, value, trace) -> None:
        self._in_hook = True
        try:
            if not self._swallowed(value):
                (self._hooks[1] if self._hooks else sys.__excepthook__)(kind, value, trace)
        finally:
            self._in_hook = False

    def _hook(self) -> None:
        if self._hooks is None and hasattr(signal, "pthread_kill"):
            self._hooks = (sys.unraisablehook, sys.excepthook)
            sys.unraisablehook, sys.excepthook = self._unraisable, self._excepthook

    def _unhook(self) -> None:
        if self._hooks is not None:
            # Put back only what is still ours: someone who replaced a hook since keeps theirs.
            if sys.unraisablehook == self._unraisable:
                sys.unraisablehook = self._hooks[0]
            if sys.excepthook == self._excepthook:
                sys.excepthook = self._hooks[1]
            self._hooks = None

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
        self._hook()
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
        self._unhook()
        if not _main_thread():
            return
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back from here
                signal.signal(signum, handler)
        self._installed = False

    def end_of_process(self) -> None:
        """The process ends now: every stop signal is ignored by the system (a late one must not kill it)."""
        self._raising = False
        self._unhook()
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
