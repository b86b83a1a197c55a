"""The hold and advantage parts of the audit in a second process, fed each batch while this one reads the next.

The audit's parts are independent sums of the same batches (:func:`~.audit.run_audit`). Numpy's and numba's work
holds Python's lock most of the time, so threads do not share it out; a forked process does. The process
(:class:`SecondProcess`) gets each batch pickled through a pipe (a sender thread writes it, so that reading the
next batch goes on meanwhile), adds it to its own :class:`~.audit_hold.HoldSums` and
:class:`~.audit_advantage.AdvantageSums` in the order of the batches, and sends back their finished parts: the
same code on the same batches in the same order, so the same figures as one process gives.
"""

from __future__ import annotations

import multiprocessing
import pickle
import queue
import signal
import threading
import traceback
import warnings

from .audit_advantage import AdvantageSums
from .audit_data import AuditData
from .audit_hold import HoldSums

__all__ = ["SecondProcess"]

#: What ends the batches on the pipe (a pickled batch is never empty).
_DONE = b""


def _serve(connection, results: dict, mix: dict | None, churn: float | None) -> None:
    """The second process: add each batch to the hold and advantage sums, then send back both parts finished."""
    # A terminal's stop reaches both processes: the first handles it and ends this one (SIGTERM, by default here).
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        hold, advantage = HoldSums(results), AdvantageSums()
        while (payload := connection.recv_bytes()) != _DONE:
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
    connection.send_bytes(answer)
    connection.close()


class SecondProcess:
    """The hold and advantage parts in a forked process: :meth:`add` each batch, then :meth:`finish`.

    Use as a context manager: leaving it ends the process whatever happened.
    """

    def __init__(self, results: dict, mix: dict | None = None, churn: float | None = None):
        context = multiprocessing.get_context("fork")  # the package already imported: no second start-up
        self._connection, their_end = context.Pipe()
        self._process = context.Process(target=_serve, args=(their_end, results, mix, churn), daemon=True,
                                        name="audit-hold-advantage")
        with warnings.catch_warnings():
            # Python 3.12 on warns of fork() beside other threads (DuckDB's pool): the child never touches DuckDB
            # nor any lock those threads take; it runs numpy and numba on the batches it is sent.
            warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)
            self._process.start()
        their_end.close()
        # One batch waiting beside the one on its way: the first process runs at most that far ahead.
        self._outbox: queue.Queue = queue.Queue(maxsize=1)
        self._failed: BaseException | None = None
        self._sender = threading.Thread(target=self._send, daemon=True, name="audit-batch-sender")
        self._sender.start()

    def _send(self) -> None:
        while True:
            payload = self._outbox.get()
            try:
                self._connection.send_bytes(payload)
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
        self._process.join(timeout=1)
        return RuntimeError(f"the audit's second process ended early (exit code {self._process.exitcode})"
                            + (f": {self._failed}" if self._failed else ""))

    def add(self, data: AuditData) -> None:
        """Send a batch (pickled now, before this process's parts add their caches to it)."""
        self._put(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))

    def finish(self) -> tuple[dict, dict]:
        """The hold part and the advantage part (as ``HoldSums.finish`` and ``AdvantageSums.finish`` give them)."""
        self._put(_DONE)
        self._sender.join()
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
            self._process.join(timeout=10)
            self._connection.close()
            while self._sender.is_alive():
                try:
                    self._outbox.put(_DONE, timeout=0.1)
                except queue.Full:
                    continue
                self._sender.join(timeout=1)
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        if not self._connection.closed:
            self._connection.close()
