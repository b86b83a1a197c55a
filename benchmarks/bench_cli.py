"""What the command line costs on top of dealing (issue 5).

    python benchmarks/bench_cli.py                 # 5 repeats of each
    python benchmarks/bench_cli.py --repeats 3 --rounds 1e7

Each case is a fresh process, as a user runs it (the numba cache is warm after
the first run, which is not counted):

- ``--help``: start-up and argument parsing (target: under 1 s; numba,
  numpy and pandas must not be imported before the arguments are parsed);
- ``--exact``: imports, the exact engine and the report;
- ``--rounds N`` (no ``--out``: no files): the same plus N Monte Carlo rounds;
- ``--rounds N`` with files: plus the histogram, CSV, JSON, Markdown and the
  three PNG plots in ``--out``;
- the same with ``--no-plots``.

The median wall time of each case goes to ``results/bench_cli.json``, with the
machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baccarat_sim._version import __version__
from baccarat_sim.cli.common import parse_rounds

OUT = Path(__file__).resolve().parent.parent / "results" / "bench_cli.json"


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=parse_rounds, default=10**7)
    args = parser.parse_args()
    base = [sys.executable, "-m", "baccarat_sim.rtp", "--quiet", "--seed", "1"]
    with tempfile.TemporaryDirectory() as out:
        cases = {
            "help": [sys.executable, "-m", "baccarat_sim.rtp", "--help"],
            "exact": base + ["--exact"],
            "mc_no_files": base + ["--rounds", str(args.rounds)],
            "mc_files_and_plots": base + ["--rounds", str(args.rounds), "--out", out],
            "mc_files_no_plots": base + ["--rounds", str(args.rounds), "--out", out, "--no-plots"],
        }
        wall(cases["mc_files_and_plots"])  # compile or load the kernel cache, build matplotlib's font cache
        seconds = {name: statistics.median(wall(command) for _ in range(args.repeats))
                   for name, command in cases.items()}
    result = {
        "benchmark": "bench_cli",
        "version": __version__,
        "rounds": args.rounds,
        "repeats": args.repeats,
        "median_seconds": seconds,
        "plots_seconds": seconds["mc_files_and_plots"] - seconds["mc_files_no_plots"],
        "help_under_1s": seconds["help"] < 1.0,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor()},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    for name, value in seconds.items():
        print(f"{name:20s} {value:7.3f} s")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
