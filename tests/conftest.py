"""Settings every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fixed_terminal_width(monkeypatch):
    """Text reports take the terminal's width: tests see the same 120 columns whatever terminal runs them."""
    monkeypatch.setenv("COLUMNS", "120")
