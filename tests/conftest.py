"""Settings every test shares, and the meaning of the ``slow`` marker."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import numba
import pytest

from baccarat_sim.kernels.jit import cache_by_content

# The tests' own compiled helpers call the kernels: cache them as the kernels are, by content (a kernel edit
# recompiles them; a fresh clone reuses them).
cache_by_content(Path(__file__).resolve().parent)

# The README's command runs two pytest-xdist workers on two cores: in them a kernel runs on one thread unless the
# test asks for more. The tests of thread-count independence ask for run_helpers.MANY_THREADS (numba's limit,
# NUMBA_NUM_THREADS, is unchanged), and commands started in subprocesses keep numba's default. Two workers each
# launching two threads kept four threads on two cores, a parallel kernel's threads waiting on each other
# (the whole suite with -n 2: 358 -> 331 s in one sitting; its system time about halved).
numba.set_num_threads(1)

# Runs without --out keep their checkpoints in the user's cache folder. The tests (and the commands they start,
# which inherit the environment) use a folder of their own, so that they never take a lock of, or replace a file
# of, a run the user (or another test session on the same machine) has in that folder. A test of the default
# place sets the variable itself.
_CHECKPOINTS = tempfile.mkdtemp(prefix="baccarat-sim-test-checkpoints-")
os.environ["BACCARAT_SIM_CHECKPOINTS"] = _CHECKPOINTS
atexit.register(shutil.rmtree, _CHECKPOINTS, ignore_errors=True)

#: A test is ``slow`` when it takes more than this many CPU-seconds (its process's, all threads, and those of the
#: subprocesses it waits for), setup included, with a warm kernel cache. pyproject.toml's marker text says the
#: same; ``pytest --slow-audit`` lists the tests whose mark disagrees with what they took by more than
#: SLOW_MARGIN either way (CPU time varies with the machine's load by about that much).
SLOW_CPU_SECONDS = 10.0
SLOW_MARGIN = 1.5
_CPU_TIMES: list[tuple[float, str, bool]] = []


def pytest_addoption(parser):
    parser.addoption("--slow-audit", action="store_true",
                     help=f"after the run, list the costliest tests by CPU time and those whose 'slow' mark "
                          f"disagrees with it (slow: more than {SLOW_CPU_SECONDS:g} CPU-seconds)")


def _cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    item.stash[_STARTED] = _cpu_seconds()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    # The CPU time rides on the teardown report, so that it reaches the main process under pytest-xdist too.
    if call.when == "teardown" and _STARTED in item.stash:
        item.user_properties.append(("cpu_seconds", _cpu_seconds() - item.stash[_STARTED]))
    return (yield)


def pytest_runtest_logreport(report):
    if report.when == "teardown":
        cpu = dict(report.user_properties).get("cpu_seconds")
        if cpu is not None:
            _CPU_TIMES.append((cpu, report.nodeid, "slow" in report.keywords))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not config.getoption("--slow-audit"):
        return
    write = terminalreporter.write_line
    terminalreporter.section(f"slow audit: CPU-seconds per test (slow: more than {SLOW_CPU_SECONDS:g})")
    for cpu, nodeid, marked in sorted(_CPU_TIMES, reverse=True)[:40]:
        write(f"{cpu:8.2f}  {'slow ' if marked else '     '} {nodeid}")
    by_file: dict[str, float] = {}
    for cpu, nodeid, _ in _CPU_TIMES:
        by_file[nodeid.split("::")[0]] = by_file.get(nodeid.split("::")[0], 0.0) + cpu
    write("by file: " + ", ".join(f"{name} {cpu:.1f}" for name, cpu in
                                  sorted(by_file.items(), key=lambda item: -item[1])[:15]))
    def marked_otherwise(cpu: float, marked: bool) -> bool:
        return cpu < SLOW_CPU_SECONDS / SLOW_MARGIN if marked else cpu > SLOW_CPU_SECONDS * SLOW_MARGIN

    wrong = sorted((t for t in _CPU_TIMES if marked_otherwise(t[0], t[2])), reverse=True)
    write(f"{len(wrong)} tests marked otherwise than they took (beyond a factor {SLOW_MARGIN:g}); total "
          f"{sum(t[0] for t in _CPU_TIMES):.1f} CPU-seconds in {len(_CPU_TIMES)} tests, "
          f"{sum(t[0] for t in _CPU_TIMES if t[2]):.1f} in the {sum(t[2] for t in _CPU_TIMES)} marked slow")
    for cpu, nodeid, marked in wrong:
        write(f"{cpu:8.2f}  {'marked slow, is not' if marked else 'slow, not marked'}  {nodeid}")


def pytest_collection_modifyitems(config, items):
    # The tests marked slow run first (a stable sort: otherwise in file order). Under pytest-xdist a worker that
    # draws one of them last would run it alone while the other worker idles; started first, they overlap with
    # the many short tests (longest-first scheduling). Every worker sorts the same collection the same way.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch):
    """Text reports take the terminal's width: tests see the same 120 columns whatever terminal runs them."""
    monkeypatch.setenv("COLUMNS", "120")
