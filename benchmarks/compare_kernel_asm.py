"""The machine code of kernels in this tree against another checkout: a refactor that moves code keeps it.

    git worktree add /tmp/before <commit>
    python benchmarks/compare_kernel_asm.py --before /tmp/before \\
        mc_fresh:deal_fresh_groups=mc:_deal_fresh_groups dealing:deal_rounds ...

Each tree runs in a fresh interpreter (the two at once) with an empty numba cache of its own (so that every kernel
is compiled, not loaded), deals a few rounds of the plain 8-deck shoe fresh, live-8deck-side-bets dealt and
catalogue-colour-and-suits' card-level bets on either shoe, and prints the assembly of each kernel named
(``module:function`` under ``baccarat_sim.kernels``, ``AFTER=BEFORE`` where the refactor moved or renamed it), for
every signature it was compiled for. The listings are compared after masking what names a function rather than
computes (mangled symbols, the strings of function names, the file and line an exception carries) and dropping
assembler directives; a kernel whose listing is the same instruction for instruction runs the same. Prints one
line per kernel and signature; exits 1 when any differs or is compiled by one tree only.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
#: Run in each tree: compile the run paths, then print the assembly of the kernels named, as JSON.
DUMP = r"""
import importlib, json, re, sys
from baccarat_sim import load_rules, simulate
for rules_id, model in (("default", "fresh"), ("live-8deck-side-bets", "dealt"),
                        ("catalogue-colour-and-suits", "fresh"), ("catalogue-colour-and-suits", "dealt")):
    simulate(load_rules(rules_id), 20_000, seed=1, threads=1, model=model)
# Names, not computation: mangled symbols, a function's name string, the pickled exception (its file and line).
MASK = re.compile(r"_ZN[0-9A-Za-z_$.]+|\.const\.pickle[0-9A-Za-z_$.]+|\.const\.(?!array)[A-Za-z_]\w*")
NAMED_DATA = re.compile(r"\.const\.(pickle|(?!array)[A-Za-z_]\w*:$)")
SKIP = (".file", ".ident", ".section", ".p2align", ".type", ".size", ".globl", ".text", ".weak", ".loc", ".cfi")
out = {}
for spec in sys.argv[1:]:
    module, name = spec.split(":")
    kernel = getattr(importlib.import_module(f"baccarat_sim.kernels.{module}"), name)
    for signature, asm in kernel.inspect_asm().items():
        lines, skip = [], False
        for line in asm.splitlines():
            line = line.split("#")[0].rstrip()
            if line and not line[0].isspace() and line.endswith(":"):  # a label: what follows is its code or data
                skip = bool(NAMED_DATA.match(line))
            if line and not skip and not line.lstrip().startswith(SKIP):
                lines.append(MASK.sub("NAME", line))
        out[f"{spec} {signature}"] = lines
print(json.dumps(out))
"""


def listings(trees: list[tuple[Path, list[str]]]) -> list[dict]:
    """``{(spec, signature): [lines]}`` of each tree's kernels, compiled afresh in a cache of their own, at once."""
    with tempfile.TemporaryDirectory() as caches:
        running = []
        for k, (tree, specs) in enumerate(trees):
            cache = Path(caches) / str(k)
            cache.mkdir()
            env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache)}
            running.append(subprocess.Popen([sys.executable, "-c", DUMP, *specs], cwd=cache, env=env,
                                            stdout=subprocess.PIPE, text=True))
        outputs = [process.communicate()[0] for process in running]
    if any(process.returncode for process in running):
        raise SystemExit("a tree's kernels did not compile")
    return [{tuple(key.split(" ", 1)): lines for key, lines in json.loads(out.strip().splitlines()[-1]).items()}
            for out in outputs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("kernels", nargs="+", help="module:function, or AFTER=BEFORE where it moved")
    args = parser.parse_args()
    pairs = [(spec.split("=")[0], spec.split("=")[-1]) for spec in args.kernels]
    after, before = listings([(HERE, [a for a, _ in pairs]), (args.before.resolve(), [b for _, b in pairs])])
    differ = 0
    for spec_after, spec_before in pairs:
        signatures = sorted({s for (k, s) in after if k == spec_after} | {s for (k, s) in before if k == spec_before})
        if not signatures:
            print(f"{spec_after:36} {'compiled by neither tree':38} (the runs do not reach it)")
            continue
        for signature in signatures:
            a, b = after.get((spec_after, signature)), before.get((spec_before, signature))
            if a is None or b is None:
                verdict = "missing in " + ("this tree" if a is None else "the other")
            elif a == b:
                verdict = f"same ({len(a)} instructions and labels)"
            else:
                changed = [line for line in difflib.unified_diff(b, a, lineterm="", n=0)
                           if line[:1] in "+-" and line[:3] not in ("+++", "---")]
                verdict = f"differs ({len(changed)} lines)"
            differ += not verdict.startswith("same")
            print(f"{spec_after:36} {verdict:38} {signature[:70]}")
    print(f"{differ} kernel signature(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
