"""Same logs, same audit: the audit of this tree against another checkout's, on seeded months with anomalies.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_audit.py --before /tmp/before [--tables 4 --days 30 --seed 1]
    python benchmarks/compare_audit.py --before /tmp/before --db audit.duckdb    # both reports of one database

Each tree runs ``audit simulate`` (every anomaly, Parquet and CSV), ``audit import`` into its own database and
``audit report --format json`` in a fresh interpreter (``PYTHONPATH`` set to the tree). The simulated files are
compared column by column, and the two JSON reports value by value: every finding, flag, p-value and figure must be
equal; a float may differ only by round-off (relative 1e-12), which summing the same numbers in another order (SQL
``GROUP BY`` against ``np.bincount``) gives. Prints each difference and a summary; exits 1 when any differs.
Both trees run with one ``PYTHONHASHSEED``, so that an order taken from a set of text is the same in both, and the
other tree with its own numba cache (``NUMBA_CACHE_DIR`` in a temporary folder) and no bytecode written into it.
With ``--db`` the two trees' reports of that database (opened read-only) are compared, nothing simulated.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
#: Relative difference allowed between two floats: summation order only.
ROUND_OFF = 1e-12


def _audit(tree: Path, work: Path, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    if tree != HERE:  # a second copy of the package: its kernels in a cache of its own, nothing written into it
        env.update(NUMBA_CACHE_DIR=str(work.parent / "numba-cache-before"), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.audit", *args], cwd=work, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: audit {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


def _run_tree(tree: Path, work: Path, options, file_format: str) -> tuple[dict, Path]:
    work.mkdir(parents=True)
    _audit(tree, work, ["simulate", "--tables", str(options.tables), "--days", str(options.days),
                        "--rounds-per-day", str(options.rounds_per_day), "--anomalies", "all",
                        "--seed", str(options.seed), "--format", file_format, "--out", "logs"])
    suffix = "parquet" if file_format == "parquet" else "csv"
    _audit(tree, work, ["import", "--db", "audit.duckdb", *(f"logs/{k}.{suffix}" for k in ("rounds", "bets",
                                                                                            "results"))])
    report = json.loads(_audit(tree, work, ["report", "--db", "audit.duckdb", "--format", "json"]))
    return report, work / "logs"


def _differences(before, after, where: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out = [f"{where}/{k}: only in {'before' if k in before else 'after'}" for k in set(before) ^ set(after)]
        for key in before:
            if key in after:
                out += _differences(before[key], after[key], f"{where}/{key}")
        return out
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{where}: {len(before)} items before, {len(after)} after"]
        return [d for k, (b, a) in enumerate(zip(before, after)) for d in _differences(b, a, f"{where}[{k}]")]
    if isinstance(before, float) and isinstance(after, (int, float)) and not isinstance(after, bool):
        if before == after or (math.isnan(before) and math.isnan(after)):
            return []
        if abs(before - after) <= ROUND_OFF * max(abs(before), abs(after)):
            return []
        return [f"{where}: {before!r} before, {after!r} after"]
    return [] if before == after and type(before) is type(after) else [f"{where}: {before!r} before, {after!r} after"]


def _file_differences(before: Path, after: Path) -> list[str]:
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    out = []
    for path in sorted(before.iterdir()):
        other = after / path.name
        if not other.exists():
            out.append(f"{path.name}: missing after")
        elif path.suffix == ".json":
            out += [f"{path.name}{d}" for d in _differences(json.loads(path.read_text()),
                                                             json.loads(other.read_text()))]
        else:
            read = pq.read_table if path.suffix == ".parquet" else pa_csv.read_csv
            first, second = read(str(path)), read(str(other))
            if not first.equals(second):
                out.append(f"{path.name}: contents differ ({first.schema} / {second.schema})")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the other checkout")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--rounds-per-day", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="compare the two trees' reports of this database (nothing simulated)")
    options = parser.parse_args()
    if options.db:
        with tempfile.TemporaryDirectory() as folder:
            reports = []
            for tree, name in ((Path(options.before).resolve(), "before"), (HERE, "after")):
                (Path(folder) / name).mkdir()
                reports.append(json.loads(_audit(tree, Path(folder) / name, [
                    "report", "--db", str(Path(options.db).resolve()), "--format", "json"])))
        found = _differences(*reports)
        print(f"{options.db}: {'same' if not found else f'{len(found)} differences'}")
        for line in found[:40]:
            print(f"  {line}")
        return 1 if found else 0
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        for file_format in ("parquet", "csv"):
            before, before_logs = _run_tree(Path(options.before).resolve(), Path(folder) / f"before-{file_format}",
                                            options, file_format)
            after, after_logs = _run_tree(HERE, Path(folder) / f"after-{file_format}", options, file_format)
            found = _file_differences(before_logs, after_logs) + _differences(before, after)
            counted = (f"{len(after['integrity'])} findings, " if "integrity" in after else "") + \
                f"{sum(1 for _ in json.dumps(after))} characters of JSON"
            print(f"{file_format}: {'same' if not found else f'{len(found)} differences'} ({counted})")
            for line in found[:40]:
                print(f"  {line}")
            failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
