"""How long README's test command takes on a clean clone (the figure README and the benchmarks page show).

    python benchmarks/bench_suite.py                    # warm kernel cache: the machine's own
    python benchmarks/bench_suite.py --kernel-cache empty
    python benchmarks/bench_suite.py --pytest-args tests/test_docs_names.py --out /tmp/trial.json   # a trial

It clones the repository's committed HEAD into a temporary folder (what a
newcomer gets: uncommitted changes are not in it), then runs there, in a shell,
exactly the command between the markers of ``.ci/run`` (which a test holds
identical to README's), and times it from start to end: the venv, the install,
the kernels compiled ahead of time and the whole suite. ``--kernel-cache
empty`` points ``NUMBA_CACHE_DIR`` at an empty folder, so every kernel compiles
afresh (pip's and uv's caches stay as they are). The wall time, the exit status, pytest's summary line, the commit and
the machine go to ``results/bench_suite.json``, under ``runs.warm`` or
``runs.empty`` (the other run's figures stay).

``--pytest-args`` replaces the suite's selection (for a trial of this script);
such a run is marked ``"whole_suite": false`` and must not replace the
committed figure, so it needs ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "bench_suite.json"
#: The line of .ci/run that holds README's test command comes right after this marker.
MARKER = "# --- README test command (keep identical to README.md) ---\n"


def test_command() -> str:
    """README's test command, as .ci/run runs it."""
    return (ROOT / ".ci" / "run").read_text().split(MARKER, 1)[1].split("\n", 1)[0]


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel-cache", choices=("warm", "empty"), default="warm",
                        help="the machine's numba cache, or an empty one (default: warm)")
    parser.add_argument("--pytest-args", help="run these pytest arguments instead of the suite's (a trial)")
    parser.add_argument("--out", type=Path, help=f"where the figures go (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    command = test_command()
    if args.pytest_args:
        if args.out is None:
            parser.error("--pytest-args runs part of the suite: give --out, so that the committed figure stays")
        command, found = re.subn(r"-m pytest .*$", "-m pytest " + args.pytest_args, command)
        if not found:
            parser.error(f"no pytest call in the test command: {command}")
    commit = _git("rev-parse", "--short", "HEAD")
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        clone = Path(tmp) / "clone"
        _git("clone", "--quiet", "--no-local", str(ROOT), str(clone), cwd=Path(tmp))
        env = dict(os.environ)
        if args.kernel_cache == "empty":
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "empty-cache")  # the kernels' cache alone (kernels/jit.py)
        started = time.perf_counter()
        completed = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
    summary = [line for line in completed.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    run = {
        "command": command,
        "whole_suite": not args.pytest_args,
        "commit": commit,
        "seconds": seconds,
        "exit_status": completed.returncode,
        "pytest_summary": summary[-1].strip("= ") if summary else None,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
    }
    out = args.out or OUT
    figures = json.loads(out.read_text()) if out.exists() else {"benchmark": "bench_suite", "runs": {}}
    figures["runs"][args.kernel_cache] = run
    out.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"{shlex.quote(command)}\n{seconds:.0f} s, exit {completed.returncode}: {run['pytest_summary']}; "
          f"wrote {out}")
    if completed.returncode:
        print(completed.stdout[-3000:] + completed.stderr[-3000:], file=sys.stderr)
    return completed.returncode


if __name__ == "__main__":
    sys.exit(main())
