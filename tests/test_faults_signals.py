"""Issue 21, item 13: a burst of stop signals anywhere outside the dealing loop; the first one decides.

Each case runs the command line in a subprocess and sends it real signals: the
first at a chosen moment (a module's import: numpy's, the report's, the
writer's; or the dealing loop, seen by its checkpoint), then a barrage of the
other stop signals until the process ends, from within (a thread of the
process) or from the test. Wherever they land, in an ``except`` or
``finally`` block, in an import, while the report is written, the command
ends with the first signal's exit status, its one line, and no traceback.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import pytest

from .cli_helpers import run_name
from .test_faults import TIMEOUT, finish, start, wait_for

#: Runs the command with a real signal sent at the import of a chosen module, then a barrage of others.
SIGNAL_RUN = r'''
import builtins, os, runpy, signal, sys, threading, time

trigger, first, burst, command, *argv = sys.argv[1:]
first = getattr(signal, first)
burst = [getattr(signal, name) for name in burst.split(",") if name]
real_import = builtins.__import__
fired = False


def resolved(name, globals_, level):
    if not level:
        return name
    package = (globals_ or {}).get("__package__") or ""
    base = package.rsplit(".", level - 1)[0] if level > 1 else package
    return f"{base}.{name}" if name else base


def barrage():
    while True:
        for signum in burst:
            os.kill(os.getpid(), signum)
        time.sleep(0.0002)


def hooked(name, globals=None, locals=None, fromlist=(), level=0):
    global fired
    if not fired and resolved(name, globals, level).startswith(trigger):
        fired = True
        try:
            signal.raise_signal(first)  # its handler runs before this call returns
        finally:
            if burst:
                threading.Thread(target=barrage, daemon=True).start()
    return real_import(name, globals, locals, fromlist, level)


builtins.__import__ = hooked
sys.argv = [command, *argv]
runpy.run_module(command, run_name="__main__", alter_sys=True)
'''


def _clean_stop(code: int, err: str, status: int) -> None:
    assert code == status, err[-2000:]
    assert "Traceback" not in err and "Exception ignored" not in err and "internal error" not in err, err[-2000:]


@pytest.mark.parametrize(("trigger", "first", "burst", "status"), [
    ("numpy", "SIGINT", "SIGTERM", 130),  # while numpy is imported (inside its own import machinery)
    ("baccarat_sim.report.run_report", "SIGTERM", "SIGINT,SIGHUP", 143),  # dealt, while the report is built
    ("baccarat_sim.storage.writing", "SIGHUP", "SIGINT,SIGTERM", 129),  # while --out is checked
])
def test_the_first_signal_decides_and_a_barrage_after_it_is_ignored(tmp_path, trigger, first, burst, status):
    script = tmp_path / "signal_run.py"
    script.write_text(SIGNAL_RUN)
    done = subprocess.run([sys.executable, str(script), trigger, first, burst, "baccarat_sim.rtp", "--rounds", "1e6",
                           "--seed", "1", "--out", str(tmp_path / "out"), "--no-plots", "--quiet"],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    _clean_stop(done.returncode, done.stderr, status)
    assert done.stderr.strip().splitlines() == ["python -m baccarat_sim.rtp: interrupted; the last checkpoint "
                                                "written (if any) is kept"]


def test_a_barrage_after_ctrl_c_in_the_dealing_loop_leaves_the_checkpoint_the_report_and_status_130(tmp_path):
    out = tmp_path / "out"
    process = start("--rounds", "1e12", "--seed", "51", "--threads", "1", "--out", out, "--no-plots", "--format",
                    "json", "--checkpoint-every", "0.2", cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=51)}.npz"
    wait_for(checkpoint.exists, process, "the first checkpoint")
    process.send_signal(signal.SIGINT)
    ending = threading.Event()

    def barrage():  # SIGTERM and SIGHUP while it stops, saves and reports, until it has exited
        # CPython runs the handlers of signals pending together in the order of their numbers, so a SIGHUP (1)
        # that reaches the process before it has run the SIGINT's (2) handler is, to the process, the first signal:
        # under load that can take a while (the main thread waits for the dealing threads). SIGTERM (15) cannot
        # overtake the SIGINT; SIGHUP joins once the SIGINT has surely been handled.
        begun = time.monotonic()
        while not ending.is_set() and process.poll() is None:
            late = time.monotonic() - begun > 0.5
            for signum in (signal.SIGTERM, signal.SIGHUP) if late else (signal.SIGTERM,):
                try:
                    process.send_signal(signum)
                except ProcessLookupError:
                    return
            time.sleep(0.001)

    thread = threading.Thread(target=barrage, daemon=True)
    time.sleep(0.002)  # the SIGINT first
    thread.start()
    try:
        code, stdout, err = finish(process)
    finally:
        ending.set()
        thread.join()
    _clean_stop(code, err, 130)
    assert "stopped by Ctrl-C (SIGINT)" in err
    report = json.loads(stdout)["run"]
    assert report["interrupted"] is True and report["rounds"] > 0
    assert (out / f"{run_name(seed=51)}-partial-histogram.npz").exists()


def test_a_signal_while_the_command_is_imported_is_heard(tmp_path):
    """``python -m``: the command's first lines hear the stop signals, before its modules are imported."""
    script = tmp_path / "signal_run.py"
    script.write_text(SIGNAL_RUN)
    done = subprocess.run([sys.executable, str(script), "baccarat_sim.cli.rtp", "SIGTERM", "SIGINT",
                           "baccarat_sim.rtp", "--exact"], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=tmp_path)
    _clean_stop(done.returncode, done.stderr, 143)
    assert done.stdout == ""



#: Runs the command with a signal raised inside llvmlite's object-cache callback (C calls it while numba loads or
#: compiles a kernel): an exception raised there cannot travel, and Python only prints it.
CALLBACK_RUN = r'''
import pathlib, runpy, signal, sys
from llvmlite.binding import executionengine

real = executionengine.ExecutionEngine.set_object_cache


def set_object_cache(self, notify_func=None, getbuffer_func=None):
    def notify(module, buffer):
        if not pathlib.Path("fired").exists():
            pathlib.Path("fired").touch()
            signal.raise_signal(signal.SIGHUP)  # its handler runs here, inside the ctypes callback
        return notify_func(module, buffer)
    return real(self, notify if notify_func else None, getbuffer_func)


executionengine.ExecutionEngine.set_object_cache = set_object_cache
sys.argv = ["baccarat_sim.rtp", *sys.argv[1:]]
runpy.run_module("baccarat_sim.rtp", run_name="__main__", alter_sys=True)
'''


def test_a_signal_that_lands_in_a_callback_from_c_still_stops_the_command_without_a_traceback(tmp_path):
    """CI once saw the Stopped of a SIGHUP printed by Python from a callback that C made, and the command go on."""
    script = tmp_path / "callback_run.py"
    script.write_text(CALLBACK_RUN)
    done = subprocess.run([sys.executable, str(script), "--rounds", "1e12", "--seed", "3", "--out",
                           str(tmp_path / "out"), "--no-plots", "--threads", "1"],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert (tmp_path / "fired").exists()  # numba compiled something, so the signal really landed in the callback
    _clean_stop(done.returncode, done.stderr, 129)


def test_a_lost_stop_comes_again_and_other_lost_exceptions_are_still_reported(capfd):
    """The latch's hooks, in this process: a Stopped that C swallowed (printed through sys.unraisablehook or
    sys.excepthook, as PyErr_Print does) prints nothing and stops the command at its next bytecode; anything else
    is reported as before; and the hooks are put back when the command ends."""
    import ctypes

    from baccarat_sim.storage.signals import FIRST_STOP, Stopped

    hooks = (sys.unraisablehook, sys.excepthook)
    previous = FIRST_STOP.arm()
    try:
        @ctypes.CFUNCTYPE(None)
        def callback():
            signal.raise_signal(signal.SIGHUP)

        with pytest.raises(Stopped) as stopped:
            callback()  # through C: the Stopped is lost there
            assert FIRST_STOP.signum is None and FIRST_STOP.raising  # the latch is as before the signal
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                time.sleep(0.001)  # the signal comes again, and lands here
        assert stopped.value.signum == signal.SIGHUP and FIRST_STOP.raised

        # As PyErr_Print reports an exception: through sys.excepthook.
        FIRST_STOP.signum, FIRST_STOP.raised, FIRST_STOP._raising = None, False, True
        with pytest.raises(Stopped):
            try:
                signal.raise_signal(signal.SIGTERM)
            except Stopped as lost:
                sys.excepthook(type(lost), lost, lost.__traceback__)
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                time.sleep(0.001)
        sys.excepthook(ValueError, ValueError("someone else's"), None)
    finally:
        FIRST_STOP.disarm(previous)
    assert (sys.unraisablehook, sys.excepthook) == hooks
    err = capfd.readouterr().err
    assert "Stopped" not in err and "ValueError: someone else's" in err
