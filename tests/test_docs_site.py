"""The documentation site builds with ``mkdocs build --strict``: no broken link, no missing page (issue 24)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    completed = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                                str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert completed.returncode == 0, completed.stdout + completed.stderr
    for page in ("index.html", "guide/design-a-side-bet/index.html", "reference/cli/index.html",
                 "reference/python-api/index.html", "results/findings/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
