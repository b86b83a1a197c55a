"""Issue 41, item 18: a kernel cache that cannot be read or written, or holds a damaged entry, never stops a command.

Each test uses a cache folder of its own (``NUMBA_CACHE_DIR``) and one cheap
kernel (``dealing.encode_shoe``), except the one that runs a whole command.
Folders that are read-only or on a full disk are simulated where Python
reaches the file system (``tests/cache_faults.py``): the tests may run as
root, which writes through ``chmod``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import baccarat_sim

PACKAGE = Path(baccarat_sim.__file__).resolve().parent
FAULTS = Path(__file__).resolve().parent / "cache_faults.py"

#: Compiles (or loads) one cheap kernel and prints [cache hits, cache misses, what it computed].
_ENCODE = textwrap.dedent("""
    import json
    import numpy as np
    from baccarat_sim.kernels.dealing import encode_shoe
    encoded = encode_shoe(np.arange(52, dtype=np.uint8))
    stats = encode_shoe.stats
    print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), int(encoded.sum())]))
""")


def _run(cache: Path, *command: str, fault: str | None = None, folders=(), **env_changes):
    """``python [tests/cache_faults.py FAULT FOLDERS] COMMAND`` with ``cache`` as numba's cache folder."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), **env_changes}
    prefix = [] if fault is None else [str(FAULTS), fault, ",".join(str(f) for f in folders)]
    return subprocess.run([sys.executable, *prefix, *command], env=env, capture_output=True, text=True, timeout=600)


def _encode(cache: Path, **kwargs) -> tuple[list, str]:
    done = _run(cache, "-c", _ENCODE, **kwargs)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> Path:
    """A cache folder holding the cheap kernel."""
    cache = tmp_path_factory.mktemp("warm")
    assert _encode(cache)[0][:2] == [0, 1]
    return cache


def _copy(warm: Path, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    shutil.copytree(warm, cache)
    return cache


def _entry(cache: Path, suffix: str) -> Path:
    (found,) = cache.rglob(f"dealing.encode_shoe-*{suffix}")
    return found


def test_issue41_item18_read_only_complete_cache_is_read_not_compiled_again(warm, tmp_path):
    cache = _copy(warm, tmp_path)
    before = sorted(path.name for path in cache.rglob("*"))
    counts, err = _encode(cache, fault="read-only", folders=[cache])
    assert counts[:2] == [1, 0] and err == ""  # loaded; nothing to say
    assert sorted(path.name for path in cache.rglob("*")) == before


def test_issue41_item18_read_only_cache_missing_a_kernel_compiles_it_in_memory(warm, tmp_path):
    cache = tmp_path / "empty"
    cache.mkdir()
    counts, err = _encode(cache, fault="read-only", folders=[cache])
    expected = _encode(warm)[0]
    assert counts == [0, 1, expected[2]]
    folder = cache / "baccarat_sim"
    assert err.count("\n") == 1 and f"kernel cache {folder}" in err and "Read-only file system" in err
    assert "compiled in memory" in err
    assert not any(cache.rglob("*.nb*"))


def test_issue41_item18_full_disk_under_the_cache_compiles_in_memory(warm, tmp_path):
    cache = tmp_path / "full"
    cache.mkdir()
    for _ in range(2):  # every later command too
        counts, err = _encode(cache, fault="full", folders=[cache])
        assert counts[:2] == [0, 1]
        assert err.count("\n") == 1 and "No space left on device" in err and str(cache / "baccarat_sim") in err
    assert not [path for path in cache.rglob("*") if path.is_file()]  # no half-written file left behind


@pytest.mark.parametrize("suffix", [".nbi", ".1.nbc"])
def test_issue41_item18_truncated_cache_entry_recompiled(warm, tmp_path, suffix):
    cache = _copy(warm, tmp_path)
    entry = _entry(cache, suffix)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    counts, err = _encode(cache)
    assert counts == [0, 1, _encode(warm)[0][2]]
    assert err.count("\n") == 1 and "damaged" in err and "replacing it" in err and str(entry.parent) in err
    # Replaced: the next command loads it, and says nothing.
    assert _encode(cache) == ([1, 0, counts[2]], "")
    assert _entry(cache, suffix).stat().st_size > entry.stat().st_size // 2 + 1


def test_issue41_item18_garbled_cache_entry_recompiled(warm, tmp_path):
    cache = _copy(warm, tmp_path)
    entry = _entry(cache, ".1.nbc")
    entry.write_bytes(bytes(entry.stat().st_size))  # the same size, every byte zero
    counts, err = _encode(cache)
    assert counts[:2] == [0, 1] and "damaged" in err
    assert _encode(cache)[0][:2] == [1, 0]


def test_issue41_item18_no_cache_anywhere_and_a_read_only_package_still_run_the_command(tmp_path):
    # The cache folder cannot be made (its parent is a file), and the package and numba's own user-wide cache
    # are read-only (an installed package in a container): the command compiles in memory and says so once.
    package = tmp_path / "site"
    shutil.copytree(PACKAGE, package / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    home = tmp_path / "home"
    home.mkdir()
    done = _run(blocker / "cache", "-m", "baccarat_sim.rtp", "--exact", "--format", "json", "--quiet",
                fault="read-only", folders=[package, home], PYTHONPATH=str(package), XDG_CACHE_HOME=str(home),
                HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
    assert done.returncode == 0, done.stderr
    bets = {bet["id"]: bet for bet in json.loads(done.stdout)["bets"]}
    assert round(bets["banker"]["exact_house_edge"], 6) == 0.010579  # Wizard of Odds, 8 decks: 1.0579%
    assert done.stderr.count("\n") == 1 and str(blocker / "cache" / "baccarat_sim") in done.stderr
    assert "compiled in memory" in done.stderr


def test_issue41_item18_compile_refuses_a_cache_folder_it_cannot_write_in_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = _run(blocker / "cache", "-m", "baccarat_sim.compile", "--jobs", "2")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert str(blocker / "cache" / "baccarat_sim") in line and "cannot be written (Not a directory)" in line
