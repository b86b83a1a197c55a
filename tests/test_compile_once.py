"""Compile once per install (issue 23): rule sets, strategies and card details are arrays, not compiled constants.

A kernel family compiles one signature for the plain path and one for card detail, whatever the rule set or
strategy: a second strategy's, rule set's or card detail's first run finds nothing new to compile (numba's
dispatcher keeps one signature per compiled variant; a new one would be a compilation, in the cache or not).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import baccarat_sim
from baccarat_sim import load_rules, simulate
from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.cli.compile import FAMILIES, write_bytecode
from baccarat_sim.kernels.counting import count_blocks
from baccarat_sim.kernels.mc import DRIVERS
from baccarat_sim.model.strategy import load_strategy, parse_strategy


def _perfect(*bets):
    """A strategy that plays ``bets`` perfectly."""
    lines = "".join(f"[[bets]]\nid = '{bet}'\nplay = 'perfect'\n" for bet in bets)
    return parse_strategy(f"schema_version = 1\nid = 'perfect'\n{lines}")


def test_a_second_strategy_compiles_nothing():
    dealt = load_rules("common-variants").with_shoe(model="dealt")
    cards = load_rules("catalogue-colour-and-suits").with_shoe(model="dealt")
    count_simulation(dealt, load_strategy("lucky6-wizard-level1"), shoes=4, seed=1)
    count_simulation(cards, load_strategy("colour-match-red-black"), shoes=4, seed=1)  # with a card detail
    # A card-level bet played perfectly through its group's enumeration (the compile command's counting family).
    count_simulation(cards, _perfect("super_tie_100_25_7"), shoes=4, seed=1)
    compiled = set(count_blocks.signatures)
    misses = sum(count_blocks.stats.cache_misses.values())
    count_simulation(dealt, load_strategy("lucky6-wizard-level2"), shoes=4, seed=1)
    count_simulation(load_rules("default").with_shoe(model="dealt"), load_strategy("perfect-play"), shoes=4, seed=1)
    count_simulation(load_rules("live-8deck-side-bets").with_shoe(model="dealt"), load_strategy("lucky6-derived"),
                     shoes=4, seed=1)
    # Perfect play where the solver packs pair and first-card bets but no score bet (its arrays of bet indices
    # were writable for some kinds and read-only for others: a new signature for every mix), and every bet of a
    # card-level rule set played flat.
    dragon_tiger = load_rules("live-8deck-dragon-tiger").with_shoe(model="dealt")
    count_simulation(dragon_tiger, load_strategy("perfect-play"), shoes=4, seed=1)
    flat = parse_strategy('schema_version = 1\nid = "flat"\n[[bets]]\nid = "*"\nplay = "always"\nexact_edge = false')
    count_simulation(cards, flat, shoes=4, seed=1)
    # Closed forms and a group priced together, and another group.
    count_simulation(cards, _perfect("colour_match", "contrast_bonus_35_15_5"), shoes=4, seed=1)
    assert set(count_blocks.signatures) == compiled
    assert sum(count_blocks.stats.cache_misses.values()) == misses


def test_another_rule_set_or_card_detail_compiles_nothing():
    for model in ("fresh", "dealt"):
        simulate(load_rules("default"), 1000, seed=1, model=model)
        simulate(load_rules("catalogue-colour-and-suits"), 1000, seed=1, model=model)
        compiled = {model: set(driver.signatures) for model, driver in DRIVERS.items()}
        simulate(load_rules("live-8deck-side-bets"), 1000, seed=1, model=model)
        simulate(load_rules("common-variants"), 1000, seed=1, model=model, shoe=6)
        simulate(load_rules("catalogue-monkey"), 1000, seed=1, model=model)  # another card detail
        assert {model: set(driver.signatures) for model, driver in DRIVERS.items()} == compiled, model


def test_the_compile_command_names_its_families_and_refuses_unknown_ones():
    assert {"fresh", "dealt", "cards-fresh", "cards-dealt", "counting", "sessions", "leak", "dask"} <= set(FAMILIES)
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.compile", "--only", "fresh,nonsense"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "nonsense" in done.stderr and "fresh" in done.stderr
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.compile", "--only", "leak", "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ""


def test_the_compile_notice_fires_on_a_compilation_and_only_then(capsys):
    import time

    from numba import njit

    from baccarat_sim.cli.common import announce_compile

    @njit
    def plus_one(x):
        return x + 1

    with announce_compile("a test kernel"):
        plus_one(1)
    assert "compiling a test kernel" in capsys.readouterr().err
    with announce_compile("a test kernel"):
        plus_one(2)
        time.sleep(1.2)  # slow preparation, nothing compiled: no notice (it used to fire after a second)
    assert capsys.readouterr().err == ""
    with announce_compile("a test kernel", quiet=True):
        plus_one(2.5)  # a new signature compiles, but quietly
    assert capsys.readouterr().err == ""


def test_the_compile_command_writes_the_packages_bytecode(tmp_path):
    # Python writes no bytecode where PYTHONDONTWRITEBYTECODE is set, and compiled every module at every start.
    package = tmp_path / "baccarat_sim"
    shutil.copytree(Path(baccarat_sim.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    sources = sorted(package.rglob("*.py"))
    assert sources and not list(package.rglob("*.pyc"))
    assert write_bytecode(package)
    missing = [p for p in sources if not Path(importlib.util.cache_from_source(str(p))).is_file()]
    assert missing == []


def test_a_stamped_cache_folder_is_ready_until_a_file_goes_or_shrinks(tmp_path):
    from baccarat_sim.cli.compile import STAMP_NAME, stamp_key, stamped_ready, write_stamp

    (tmp_path / "k.nbi").write_bytes(b"12345")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "h.nbc").write_bytes(b"1")
    assert not stamped_ready(tmp_path)  # no stamp yet
    write_stamp(tmp_path)
    stamp = json.loads((tmp_path / STAMP_NAME).read_text())
    assert stamp["files"] == {"k.nbi": 5, "tests/h.nbc": 1} and stamp["package"] == stamp_key()["package"]
    assert stamped_ready(tmp_path)
    (tmp_path / "k.nbi").write_bytes(b"123456")  # numba added a signature to the index: still ready
    assert stamped_ready(tmp_path)
    (tmp_path / "k.nbi").write_bytes(b"1")
    assert not stamped_ready(tmp_path)
    (tmp_path / "k.nbi").write_bytes(b"12345")
    (tmp_path / "tests" / "h.nbc").unlink()
    assert not stamped_ready(tmp_path)
    write_stamp(tmp_path)
    for field, other in (("package", "0" * 64), ("target", ["x86_64-unknown-linux-gnu", "other-cpu", ""]),
                         ("families", {"fresh": []})):
        (tmp_path / STAMP_NAME).write_text(json.dumps({**stamp, "files": {}, field: other}))
        assert not stamped_ready(tmp_path), field
    (tmp_path / STAMP_NAME).write_text("{not json")
    assert not stamped_ready(tmp_path)


def test_the_compile_command_skips_a_stamped_folder_unless_forced(tmp_path, monkeypatch, capsys):
    from baccarat_sim.cli import compile as compile_command
    from baccarat_sim.kernels.jit import kernel_cache_dir

    # The real command in a process of its own, on a cache folder stamped for this package and machine: it
    # starts no family (an empty cache would take minutes to compile).
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    folder = subprocess.run([sys.executable, "-c", "from baccarat_sim.kernels.jit import kernel_cache_dir as k; "
                             "print(k())"], capture_output=True, text=True, env=env, check=True).stdout.strip()
    Path(folder).mkdir(parents=True)
    compile_command.write_stamp(Path(folder))
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.compile", "--jobs", "2"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0 and "compiled before" in done.stderr and "ready in" not in done.stderr, done.stderr
    # --force runs every family (here the families are counted, not compiled), and stamps again.
    started = []

    def families(names, jobs, say):
        started.extend(names)
        return 0

    monkeypatch.setattr(compile_command, "_compile_in_processes", families)
    monkeypatch.setattr(compile_command, "write_stamp", lambda folder: started.append(f"stamp {folder}"))
    assert compile_command.main(["--force", "--quiet"]) == 0
    assert started == [*FAMILIES, f"stamp {kernel_cache_dir()}"]
    started.clear()

    def one_fails(names, jobs, say):
        started.extend(names)
        return 1

    monkeypatch.setattr(compile_command, "_compile_in_processes", one_fails)
    assert compile_command.main(["--force"]) == 1  # a family failed: no stamp
    assert started == list(FAMILIES)
    assert f"1 of {len(FAMILIES)} families failed" in capsys.readouterr().err
