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
        while not ending.is_set() and process.poll() is None:
            for signum in (signal.SIGTERM, signal.SIGHUP):
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

