"""The hold and advantage parts of the audit in a second process, fed each batch while this one reads the next.

The audit's parts are independent sums of the same batches (:func:`~.audit.run_audit`). Numpy's and numba's work
holds Python's lock most of the time, so threads do not share it out; a second process does. The process
(:class:`SecondProcess`) gets each batch pickled through a pipe (a sender thread writes it, so that reading the
next batch goes on meanwhile), adds it to its own :class:`~.audit_hold.HoldSums` and
:class:`~.audit_advantage.AdvantageSums` in the order of the batches, and sends back their finished parts: the
same code on the same batches in the same order, so the same figures as one process gives.

The second process is a fresh interpreter running this module (``python -m``), not a fork and not
:mod:`multiprocessing`'s spawn: a fork would copy this process beside DuckDB's threads and numba's OpenMP pool (a
parallel kernel run in the copy can abort or hang), and a spawn runs the caller's main script again, which a script
without a ``__main__`` guard does not survive. Its start-up, about a second of imports, overlaps the first read.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import traceback
from multiprocessing.connection import Connection
from pathlib import Path

from .audit_advantage import AdvantageSums
from .audit_data import AuditData
from .audit_hold import HoldSums

__all__ = ["SecondProcess"]

#: What ends the batches on the pipe (a pickled batch is never empty).
_DONE = b""
#: Seconds a process is given to end after it is told to, before it is killed.
_GRACE_SECONDS = 10


def _serve(inbox: Connection, outbox: Connection) -> None:
    """The second process: the parts' arguments, then each batch added to the hold and advantage sums.

    Both parts finished are sent back, or the error that stopped them.
    """
    try:
        results, mix, churn = pickle.loads(inbox.recv_bytes())
        hold, advantage = HoldSums(results), AdvantageSums()
        while (payload := inbox.recv_bytes()) != _DONE:
            data = pickle.loads(payload)
            del payload
            hold.add(data)
            advantage.add(data)
            del data
        outcome = ("done", hold.finish(mix, churn), advantage.finish())
    except BaseException as error:  # sent back to be raised there, where the command reports it
        outcome = ("failed", error, traceback.format_exc())
    try:
        answer = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
    except Exception:  # an error that does not pickle: its traceback as an internal error
        answer = pickle.dumps(("failed", RuntimeError(outcome[2]), outcome[2]), pickle.HIGHEST_PROTOCOL)
    outbox.send_bytes(answer)
    outbox.close()


def _second_process_main(inbox_fd: int, outbox_fd: int) -> None:
    # A terminal's stop reaches both processes: the first handles it and ends this one (SIGTERM, by default here).
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _serve(Connection(inbox_fd, writable=False), Connection(outbox_fd, readable=False))


class SecondProcess:
    """The hold and advantage parts in a second process: :meth:`add` each batch, then :meth:`finish`.

    Use as a context manager: leaving it ends the process whatever happened.
    """

    def __init__(self, results: dict, mix: dict | None = None, churn: float | None = None):
        their_inbox, to_them = os.pipe()
        from_them, their_outbox = os.pipe()
        # The package as this process imports it, first on the path: a checkout run in place is the one it runs.
        package_root = str(Path(__file__).resolve().parents[2])
        paths = [package_root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(their_inbox), str(their_outbox)],
                pass_fds=(their_inbox, their_outbox), stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)})
        finally:
            os.close(their_inbox)
            os.close(their_outbox)
        self._to_them = Connection(to_them, readable=False)
        self._connection = Connection(from_them, writable=False)
        # One batch waiting beside the one on its way: the first process runs at most that far ahead.
        self._outbox: queue.Queue = queue.Queue(maxsize=1)
        self._failed: BaseException | None = None
        self._sender = threading.Thread(target=self._send, daemon=True, name="audit-batch-sender")
        self._sender.start()
        self._put(pickle.dumps((results, mix, churn), pickle.HIGHEST_PROTOCOL))

    def _send(self) -> None:
        while True:
            payload = self._outbox.get()
            try:
                self._to_them.send_bytes(payload)
            except OSError as error:  # the process ended early: finish() reads why
                self._failed = error
                return
            if payload == _DONE:
                return

    def _put(self, payload: bytes) -> None:
        while True:  # the process ended early (killed): its sender ends, and nothing would take the batch
            if not self._sender.is_alive():
                raise self._ended()
            try:
                self._outbox.put(payload, timeout=0.5)
                return
            except queue.Full:
                continue

    def _ended(self) -> BaseException:
        """Why the process ended early: the error it sent back, else its exit code."""
        if self._connection.poll(1):
            try:
                outcome = pickle.loads(self._connection.recv_bytes())
            except EOFError:
                outcome = None
            if outcome is not None and outcome[0] == "failed":
                return outcome[1]
        try:
            code = self._process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        return RuntimeError(f"the audit's second process ended early (exit code {code})"
                            + (f": {self._failed}" if self._failed else ""))

    def add(self, data: AuditData) -> None:
        """Send a batch (pickled now, before this process's parts add their caches to it)."""
        self._put(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))

    def finish(self) -> tuple[dict, dict]:
        """The hold part and the advantage part (as ``HoldSums.finish`` and ``AdvantageSums.finish`` give them)."""
        self._put(_DONE)
        self._sender.join()
        if self._failed is not None:
            raise self._ended()
        try:
            outcome = pickle.loads(self._connection.recv_bytes())
        except EOFError:
            raise self._ended() from None
        if outcome[0] == "failed":
            raise outcome[1]
        return outcome[1], outcome[2]

    def __enter__(self) -> SecondProcess:
        return self

    def __exit__(self, *exc) -> None:
        if self._sender.is_alive():  # left early: end the process, then the sender (its pipe broken or told)
            self._process.terminate()
            _wait(self._process)
            self._to_them.close()
            while self._sender.is_alive():
                try:
                    self._outbox.put(_DONE, timeout=0.1)
                except queue.Full:
                    continue
                self._sender.join(timeout=1)
        _wait(self._process)
        for end in (self._to_them, self._connection):
            if not end.closed:
                end.close()


def _wait(process: subprocess.Popen) -> None:
    """Wait for ``process`` to end; killed if it has not within the grace time."""
    try:
        process.wait(timeout=_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


if __name__ == "__main__":
    _second_process_main(int(sys.argv[1]), int(sys.argv[2]))
