"""Issue 41: corrections of the command lines (items 15, 16 and 24)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baccarat_sim.cli.common import EXIT_INTERRUPTED


def _families(pid: int) -> list[int]:
    """The family processes ``compile --only NAME`` whose parent is ``pid`` (Linux: read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"--only" in command:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads the process table from /proc")
def test_issue41_item24_ctrl_c_stops_compile_jobs_children_at_once(tmp_path):
    # An empty cache of its own: each family's process has a long compilation ahead of it.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    parent = subprocess.Popen([sys.executable, "-m", "baccarat_sim.compile", "--jobs", "2", "--force"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_families(parent.pid)) < 2 and time.monotonic() < deadline and parent.poll() is None:
        time.sleep(0.1)
    children = _families(parent.pid)
    if len(children) != 2:
        parent.kill()
        pytest.fail(f"expected two family processes, found {children}: {parent.communicate()}")
    time.sleep(2)  # inside their compilations
    parent.send_signal(signal.SIGINT)  # to the command only, as `kill -INT` does (Ctrl-C reaches every process)
    started = time.monotonic()
    try:
        _, err = parent.communicate(timeout=30)
    finally:  # nothing left running after the test, whatever happens
        for pid in set(children) & set(_families(parent.pid)):
            os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    took = time.monotonic() - started
    assert parent.returncode == EXIT_INTERRUPTED, err
    assert took < 10, f"the command took {took:.1f} s to stop"
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]  # stopped and reaped
