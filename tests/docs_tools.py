"""The documentation's tools (docs/examples.py, docs/generate.py), imported for the docs tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def load(name: str):
    """Import ``docs/NAME.py`` as a module (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


examples = load("examples")
generate = load("generate")
