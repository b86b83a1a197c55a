"""results/README.md says what is committed under results/, and no checkpoint can be committed (issue 16, item 6)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def test_every_curated_file_is_listed_and_shown_by_readme_or_the_docs():
    page = (RESULTS / "README.md").read_text()
    shown = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])
    curated = sorted(p.name for p in (RESULTS / "readme").iterdir() if not p.name.startswith("."))
    assert curated, "results/readme/ holds the figures README and the docs show"
    assert [name for name in curated if f"`{name}`" not in page] == []
    assert [name for name in curated if f"results/readme/{name}" not in shown] == []


def test_every_benchmark_file_has_its_script():
    figures = sorted(RESULTS.glob("bench_*.json")) + sorted(RESULTS.glob("bench_*.md"))
    assert figures
    assert [p.name for p in figures if not (ROOT / "benchmarks" / f"{p.stem}.py").exists()] == []


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a checkout")
@pytest.mark.parametrize(("path", "ignored"), [
    ("results/readme/checkpoint-default-fresh-seed2024.npz", True),
    ("results/readme/checkpoint-default-fresh-seed2024.npz.lock", True),
    ("runs/checkpoint-live-8deck-side-bets-dealt-seed1.npz", True),
    ("results/default-fresh-seed2024.json", True),
    ("results/readme/default-fresh-seed2024.json", False),
    ("results/findings/README.md", False),
    ("results/bench_mc.json", False),
])
def test_gitignore_keeps_checkpoints_and_ad_hoc_runs_out(path, ignored):
    # --no-index: asks about the patterns alone, whether or not such a file is tracked or exists.
    status = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT).returncode
    assert status == (0 if ignored else 1)
