"""Speed and memory of the audit (issue 40): simulate, import and the full audit of N logged rounds.

    python benchmarks/bench_audit.py                     # 1e6 rounds (25 tables x 40 days x 1000 rounds)
    python benchmarks/bench_audit.py --days 4            # 1e5 rounds, quick
    python benchmarks/bench_audit.py --days 400 --stages simulate,import --out results/bench_audit_import.json

Each stage runs in its own process (``python -m baccarat_sim.audit ...``, Parquet logs), timed by wall clock and
CPU (user + system of the process and its threads) with its peak resident memory (``getrusage`` of the child).
The issue's target: import and full audit of 1e7 logged rounds (25 tables, a year) in at most 60 s and 2 GB on 2
cores; the figures at 1e6 are extrapolated linearly to 1e7 (the audit's stages are linear in the rounds, apart
from the per-period lattices of the hold, whose number grows with the days, not the rounds). Writes
``results/bench_audit.json`` with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stage(args: list[str], cwd: Path) -> dict:
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, "-m", "baccarat_sim.audit", *args], cwd=cwd, stdout=out,
                                 stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak memory
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        said, why = out.read(), err.read()
    if child.returncode != 0:
        raise SystemExit(f"{args[0]} failed: {why.strip()}")
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "said": said.strip().splitlines()[:2]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--rounds-per-day", type=int, default=1000)
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_audit.json"))
    parser.add_argument("--stages", default="simulate,import,report", metavar="STAGE[,...]",
                        help="stages run, in order (simulate is always run: the others read its files)")
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet", help="the logs' format")
    options = parser.parse_args()
    wanted = set(options.stages.split(","))
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        stages = {"simulate": _stage(["simulate", "--tables", str(options.tables), "--days", str(options.days),
                                      "--rounds-per-day", str(options.rounds_per_day), "--anomalies", "all",
                                      "--format", options.format, "--out", "logs"], work)}
        rounds = int(stages["simulate"]["said"][0].split()[1].replace(",", ""))
        if wanted & {"import", "report"}:
            stages["import"] = _stage(["import", "--db", "audit.duckdb",
                                       *(f"logs/{kind}.{options.format}" for kind in ("rounds", "bets", "results"))],
                                      work)
        if "report" in wanted:
            stages["report"] = _stage(["report", "--db", "audit.duckdb", "--out", "report", "--no-plots"], work)
    if "report" not in stages:  # simulate and import only
        figures = {"rounds": rounds, "format": options.format, "stages": stages,
                   "peak_rss_mb": max(s["peak_rss_mb"] for s in stages.values()),
                   "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                               "python": platform.python_version(), "load_average_start": load_at_start,
                               "load_average_end": os.getloadavg()}}
        Path(options.out).write_text(json.dumps(figures, indent=2) + "\n")
        print(json.dumps(figures, indent=2))
        return 0
    import_and_audit = stages["import"]["wall_s"] + stages["report"]["wall_s"]
    scale = 1e7 / rounds
    figures = {
        "rounds": rounds, "stages": stages,
        "import_and_audit_wall_s": round(import_and_audit, 2),
        "import_and_audit_cpu_s": round(stages["import"]["cpu_s"] + stages["report"]["cpu_s"], 2),
        "peak_rss_mb": max(s["peak_rss_mb"] for s in stages.values()),
        "extrapolated_1e7_wall_s": round(import_and_audit * scale, 1),
        "target": "import and full audit of 1e7 rounds in at most 60 s and 2 GB on 2 cores",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average_start": load_at_start, "load_average_end": os.getloadavg()},
    }
    Path(options.out).write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
