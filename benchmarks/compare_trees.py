"""Same seed, same figures: every command's output of this tree against another checkout, in one sitting.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_trees.py --before /tmp/before [--only NAME ...] [--list]

A refactor must keep behaviour. Each case below is one command line (``rtp``, ``hold``, ``leak``, ``findings``) run
in a fresh interpreter of each tree, with a fixed seed; its JSON output and the arrays of the histogram files it
writes are compared after masking only what may differ between two runs of the same tree (times, speeds, paths,
the package version); files are matched by name without the digest of the run's definition that names carry since
issue 21, so the same files under those names compare by their content. Fresh, dealt, card-level, counting, sweeps,
effect of removal, hold (exact, dealt, sessions), leak and the findings page are all covered. Prints one line per
case and a summary; exits 1 when any case differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent

#: (name, module, arguments): every case is run with --format json where the command has it.
CASES: list[tuple[str, str, list[str]]] = [
    ("fresh-default", "rtp", ["--rounds", "2e6", "--seed", "5", "--format", "json"]),
    ("fresh-6decks-removed", "rtp", ["--rules", "rng-6deck-single-hand", "--rounds", "1e6", "--seed", "11",
                                     "--remove", "6,6,K,Qh", "--format", "json"]),
    ("dealt-side-bets", "rtp", ["--rules", "live-8deck-side-bets", "--model", "dealt", "--rounds", "2e6",
                                "--seed", "5", "--format", "json"]),
    ("dealt-one-more-round", "rtp", ["--rules", "live-8deck-side-bets", "--model", "dealt", "--after-cut",
                                     "one_more_round", "--rounds", "5e5", "--seed", "9", "--format", "json"]),
    ("dealt-dragon-tiger", "rtp", ["--rules", "live-8deck-dragon-tiger", "--rounds", "1e6", "--seed", "3",
                                   "--format", "json"]),
    ("cardlevel-fresh", "rtp", ["--rules", "catalogue-colour-and-suits", "--rounds", "1e6", "--seed", "7",
                                "--format", "json"]),
    ("cardlevel-dealt", "rtp", ["--rules", "catalogue-colour-and-suits", "--model", "dealt", "--rounds", "1e6",
                                "--seed", "7", "--format", "json"]),
    ("cardlevel-third-cards", "rtp", ["--rules", "catalogue-two-card-hands", "--model", "dealt", "--rounds", "5e5",
                                      "--seed", "2", "--format", "json"]),
    ("exact-eor", "rtp", ["--exact", "--rules", "live-8deck-side-bets", "--eor", "--format", "json"]),
    ("exact-cardlevel-eor", "rtp", ["--exact", "--rules", "catalogue-colour-and-suits", "--eor", "--format", "json"]),
    ("count-lucky6", "rtp", ["--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--shoes", "3000",
                             "--seed", "1", "--format", "json"]),
    ("count-perfect-play", "rtp", ["--rules", "live-8deck-side-bets", "--count", "perfect-play", "--shoes", "300",
                                   "--seed", "4", "--format", "json"]),
    ("count-colour-match", "rtp", ["--rules", "catalogue-colour-and-suits", "--count", "colour-match-red-black",
                                   "--shoes", "2000", "--seed", "6", "--format", "json"]),
    ("sweep", "rtp", ["--rules", "live-8deck-side-bets", "--sweep", "cut=14,0.5", "--rounds", "3e5", "--seed", "8",
                      "--format", "json"]),
    ("hold-exact", "hold", ["--slip", "banker=100,player=50,tie=5", "--rounds", "100,1e4,1e6", "--k", "1000",
                            "--observed-win", "12000", "--observed-handle", "1e6", "--rounds-played", "6000",
                            "--format", "json"]),
    ("hold-cardlevel", "hold", ["--rules", "catalogue-colour-and-suits", "--slip",
                                "colour_match=10,super_tie_100_25_7=1", "--rounds", "100,1e4", "--format", "json"]),
    ("hold-dealt", "hold", ["--rules", "live-8deck-side-bets", "--model", "dealt", "--slip",
                            "banker=100,player_pair=5", "--rounds", "100,1e4", "--tables", "1000", "--seed", "3",
                            "--format", "json"]),
    ("hold-sessions", "hold", ["--slip", "banker=10", "--bankroll", "500", "--stop-loss", "300", "--stop-win",
                               "200", "--max-rounds", "300", "--sessions", "20000", "--seed", "4", "--format",
                               "json"]),
    ("leak-high", "leak", ["--rules", "live-8deck-side-bets", "--positions", "P1,B1", "--format", "json"]),
    ("leak-optimize", "leak", ["--optimize", "--positions", "P1", "--top", "5", "--format", "json"]),
    ("leak-exposed", "leak", ["--rules", "live-8deck-side-bets", "--model", "dealt", "--exposed", "burn,P1",
                              "--format", "json"]),
    ("findings", "findings", ["--rules", "default", "live-8deck-side-bets", "online-commission-rounding"]),
]

#: Keys whose values legitimately differ between two runs of one tree: times, speeds, paths, the version.
VOLATILE_KEYS = {"seconds", "rounds_per_second", "kernel_seconds", "wall_rounds_per_second", "total_seconds",
                 "version", "checkpoint", "rules_path", "out", "compile_seconds", "wall_seconds", "threads",
                 "shoes_per_second", "sessions_per_second", "elapsed"}


def _mask(value):
    if isinstance(value, dict):
        return {k: _mask(v) for k, v in value.items()
                if k not in VOLATILE_KEYS and not k.endswith("_seconds") and not k.endswith("per_second")}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


#: The digest of a run's definition in its file names (``default-fresh-3f2a91c0-seed5``, issue 21): a tree that
#: names its files without it (or with another) writes the same files, so names are compared without it, and so are
#: the names that files mention (a Markdown summary's links to its plots).
_RUN_DIGEST = re.compile(r"-[0-9a-f]{8}(?=-seed|-cut-sweep|\.|-partial|-histogram|-by-round|-rounds-per-shoe|-rtp|"
                         r"-convergence|-scores|-eor)")


def _unnamed(text: str) -> str:
    """``text`` with run names' digests taken out (see :data:`_RUN_DIGEST`)."""
    return _RUN_DIGEST.sub("", text)


#: Lines of text reports that carry times or speeds.
_VOLATILE_LINE = re.compile(r"(^|\W)(time|seconds?)\W|/s\b|rounds per second|compil", re.IGNORECASE)


def _mask_text(text: str, work: str) -> str:
    return "\n".join(_unnamed(line) for line in text.replace(work, "<work>").splitlines()
                     if not _VOLATILE_LINE.search(line))


def _digest_npz(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as archive:
        return {name: hashlib.sha256(np.ascontiguousarray(archive[name]).tobytes()).hexdigest()[:16]
                for name in sorted(archive.files) if archive[name].dtype.kind in "iuf"}


def run_case(tree: Path, module: str, argv: list[str]) -> dict:
    """The masked JSON output and the digests of the files a case writes, run in ``tree``."""
    python = tree / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "out"
        extra = ["--out", str(out)]
        env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "120",
               "BACCARAT_SIM_CHECKPOINTS": str(Path(work) / "checkpoints")}
        quiet = [] if module == "findings" else ["--quiet"]
        done = subprocess.run([str(python), "-m", f"baccarat_sim.{module}", *argv, *quiet, *extra], cwd=work,
                              env=env, capture_output=True, text=True)
        result = {"rc": done.returncode}
        try:
            result["stdout"] = _mask(json.loads(done.stdout))
        except json.JSONDecodeError:
            result["stdout"] = _mask_text(done.stdout, work)
        if done.returncode not in (0, 1):
            result["stderr"] = done.stderr[-2000:]
        files = {}
        if out.exists():
            for path in sorted(out.rglob("*")):
                rel = _unnamed(path.relative_to(out).as_posix())  # files matched by content and name, not digest
                if path.suffix == ".npz" and not path.name.startswith("checkpoint-"):
                    files[rel] = _digest_npz(path)
                elif path.suffix == ".json":
                    files[rel] = _mask(json.loads(path.read_text()))
                elif path.suffix in (".csv", ".md"):
                    files[rel] = _mask_text(path.read_text(), work)
        result["files"] = files
        return result


def _first_difference(a, b, where="") -> str | None:
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}/{key}: only in {'after' if key in b else 'before'}"
            found = _first_difference(a[key], b[key], f"{where}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    if a == b:
        return None
    if isinstance(a, str):
        for number, (x, y) in enumerate(zip(a.splitlines() + [""], b.splitlines() + [""])):
            if x != y:
                return f"{where} line {number + 1}: {x[:150]!r} != {y[:150]!r}"
    return f"{where}: {str(a)[:200]!r} != {str(b)[:200]!r}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the other checkout")
    parser.add_argument("--only", nargs="*", help="case names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    if args.list:
        for name, module, argv in CASES:
            print(f"{name:24} python -m baccarat_sim.{module} {' '.join(argv)}")
        return 0
    if args.before is None:
        parser.error("--before is required")
    differing = 0
    for name, module, argv in CASES:
        if args.only and name not in args.only:
            continue
        before = run_case(args.before.resolve(), module, argv)
        after = run_case(HERE, module, argv)
        difference = _first_difference(before, after)
        differing += difference is not None
        verdict = "same" if difference is None else "DIFFERS " + difference
        if before["rc"] not in (0, 1) and difference is None:
            verdict = "same, but the command failed in both trees: fix the case"
            differing += 1
        print(f"{name:24} rc {before['rc']}/{after['rc']}  {verdict}", flush=True)
    print(f"{differing} case(s) differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
