"""Speed and memory of the audit (issue 40): simulate, import and the full audit of N logged rounds.

    python benchmarks/bench_audit.py                     # 1e6 rounds (25 tables x 40 days x 1000 rounds)
    python benchmarks/bench_audit.py --days 4            # 1e5 rounds, quick
    python benchmarks/bench_audit.py --days 400          # 1e7 rounds, a simulated year: the issue's target
    python benchmarks/bench_audit.py --days 400 --stages simulate,import   # without the report
    python benchmarks/bench_audit.py --copies 10         # the report of 1e7 rounds: the 1e6 imported, copied ten times

Each stage runs in its own process (``python -m baccarat_sim.audit ...``, Parquet logs), timed by wall clock and
CPU (user + system of the process, its threads and the second process the report starts) with its peak resident
memory (the largest of ``getrusage``'s peak of the child and the sum of the resident memory of the child and its
own children, sampled 20 times a second: the report's two processes together, the pages they share counted twice).
The issue's target: import and full audit of 1e7 logged rounds (25 tables, a year) in at most 60 s and 2 GB on 2
cores; the figures at 1e6 are extrapolated linearly to 1e7 (the audit's stages are linear in the rounds, apart
from the per-period lattices of the hold, whose number grows with the days, not the rounds). With ``--copies N``
the imported database is copied N times by SQL into another one (:func:`copy_database`: each copy's days moved
past the last copy's, its shoes renamed and its rounds renumbered, so that the copies are distinct shoes of a
longer run of days at the same tables), and the report runs on that one (25 tables x 40 days x 10 copies: 1e7
rounds over 400 days). Writes ``results/bench_audit.json`` with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tree_rss_kb(pid: int) -> int:
    """The resident memory of process ``pid`` and its descendants, summed (pages they share counted for each)."""
    total, todo = 0, [pid]
    while todo:
        at = todo.pop()
        try:
            total += next(int(line.split()[1]) for line in Path(f"/proc/{at}/status").read_text().splitlines()
                          if line.startswith("VmRSS:"))
            for task in os.listdir(f"/proc/{at}/task"):
                todo += [int(c) for c in Path(f"/proc/{at}/task/{task}/children").read_text().split()]
        except (OSError, StopIteration):  # ended meanwhile
            continue
    return total


def _watch(pid: int, peak: list, done: threading.Event) -> None:
    while not done.wait(0.05):
        peak[0] = max(peak[0], _tree_rss_kb(pid))


def _stage(args: list[str], cwd: Path) -> dict:
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen([sys.executable, "-m", "baccarat_sim.audit", *args], cwd=cwd, stdout=out,
                                 stderr=err, text=True)
        # The report forks a second process: its memory and the first's together, sampled 20 times a second.
        tree_peak, done = [0], threading.Event()
        watcher = threading.Thread(target=_watch, args=(child.pid, tree_peak, done), daemon=True)
        if Path("/proc").is_dir():
            watcher.start()
        _, status, usage = os.wait4(child.pid, 0)  # CPU time of the child and its children, the peak of the largest
        done.set()
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        said, why = out.read(), err.read()
    if child.returncode != 0:
        raise SystemExit(f"{args[0]} failed: {why.strip()}")
    if watcher.is_alive():
        watcher.join()
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(max(usage.ru_maxrss, tree_peak[0]) / 1024, 1),
            "said": said.strip().splitlines()[:2]}


def copy_database(source: Path, target: Path, copies: int) -> None:
    """Copy the audit database ``source`` ``copies`` times into a new database ``target``.

    Copy ``k`` (from 0, the rows as they are) has its days moved by ``k`` times the days the source spans, its
    shoes renamed ``SHOE-k`` and its rids moved past the copies before it; players and tables are kept.
    """
    from baccarat_sim.audit_store.database import open_database

    target.unlink(missing_ok=True)
    connection = open_database(target)
    connection.execute(f"ATTACH '{source}' AS source (READ_ONLY)")
    first, last, top = connection.execute(
        "SELECT least(min(r.day), (SELECT min(day) FROM source.results)), greatest(max(r.day), (SELECT max(day) "
        "FROM source.results)), max(rid) FROM source.rounds r").fetchone()
    span = (last - first).days + 1
    for table in ("imports", "rule_sets"):
        connection.execute(f"INSERT INTO {table} SELECT * FROM source.{table}")
    for k in range(copies):
        shoe = "shoe" if k == 0 else f"shoe || '-{k}'"
        connection.execute(f"INSERT INTO rounds SELECT rid + {k * top}, table_id, {shoe}, round, day + {k * span}, "
                           "rule_set, p1, b1, p2, b2, p3, b3, turned, burned, cut FROM source.rounds ORDER BY rid")
        connection.execute(f"INSERT INTO bets SELECT rid + {k * top}, seat, player, bet, stake, net FROM source.bets")
        connection.execute(f"INSERT INTO results SELECT table_id, day + {k * span}, shift, drop_amount, win, handle "
                           "FROM source.results")
    connection.execute("DETACH source")
    connection.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--rounds-per-day", type=int, default=1000)
    parser.add_argument("--copies", type=int, default=1, help="report on the database copied this many times")
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
            db = "audit.duckdb"
            if options.copies > 1:
                started = time.perf_counter()
                db = f"audit-x{options.copies}.duckdb"
                copy_database(work / "audit.duckdb", work / db, options.copies)
                (work / "audit.duckdb").unlink()
                stages["copy"] = {"wall_s": round(time.perf_counter() - started, 2), "copies": options.copies}
                rounds *= options.copies
            stages["report"] = _stage(["report", "--db", db, "--out", "report", "--no-plots"], work)
    if "report" not in stages:  # simulate and import only
        figures = {"rounds": rounds, "format": options.format, "stages": stages,
                   "peak_rss_mb": max(s["peak_rss_mb"] for s in stages.values()),
                   "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                               "python": platform.python_version(), "load_average_start": load_at_start,
                               "load_average_end": os.getloadavg()}}
        Path(options.out).write_text(json.dumps(figures, indent=2) + "\n")
        print(json.dumps(figures, indent=2))
        return 0
    import_and_audit = stages["import"]["wall_s"] * options.copies + stages["report"]["wall_s"]
    scale = 1e7 / rounds
    figures = {
        "rounds": rounds, "stages": stages,
        # With copies: the import of one copy times the copies (the import of them all is not run).
        "import_and_audit_wall_s": round(import_and_audit, 2),
        "import_and_audit_cpu_s": round(stages["import"]["cpu_s"] * options.copies + stages["report"]["cpu_s"], 2),
        "peak_rss_mb": max(s["peak_rss_mb"] for s in stages.values() if "peak_rss_mb" in s),
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
