"""Settings every test shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from baccarat_sim.kernels.jit import cache_by_content

# The tests' own compiled helpers call the kernels: cache them as the kernels are, by content (a kernel edit
# recompiles them; a fresh clone reuses them).
cache_by_content(Path(__file__).resolve().parent)


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch):
    """Text reports take the terminal's width: tests see the same 120 columns whatever terminal runs them."""
    monkeypatch.setenv("COLUMNS", "120")
