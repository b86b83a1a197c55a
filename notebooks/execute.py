"""Execute ``explore.ipynb`` in place, so that the committed copy carries its outputs and reads on a code host.

Run from anywhere, with the ``[notebook]`` extra installed::

    python notebooks/execute.py

It runs every cell in a fresh kernel from the ``notebooks/`` folder, with the
notebook's own round count and seed (``BACCARAT_NB_ROUNDS`` is cleared), and
saves the file. It leaves out what only a live Jupyter front end can show (the
progress bars' widgets), what the environment printed on stderr, and the execution timestamps, so running it again
changes the file only where a result changed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbclient
import nbformat

NOTEBOOK = Path(__file__).resolve().with_name("explore.ipynb")
#: Output data that needs a live front end: a code host shows at best a frozen "0%" in its place.
LIVE_ONLY = "application/vnd.jupyter.widget-view+json"


def _static(outputs: list) -> list:
    """The outputs a saved notebook keeps: everything but the widgets and stderr.

    stderr carries what the environment that ran it says (a library's
    deprecation warning, a compile notice on a cold cache), not the notebook's
    results: committed, it would differ from machine to machine.
    """
    return [output for output in outputs
            if LIVE_ONLY not in output.get("data", {}) and output.get("name") != "stderr"]


def execute(path: Path = NOTEBOOK, timeout: int = 600) -> float:
    """Execute the notebook at ``path`` in place; returns the seconds it took."""
    os.environ.pop("BACCARAT_NB_ROUNDS", None)
    os.environ.pop("MPLBACKEND", None)  # the inline backend renders the figures as PNG
    notebook = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    nbclient.NotebookClient(notebook, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - started
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = _static(cell.outputs)
    notebook.metadata.pop("widgets", None)
    nbformat.write(notebook, path)
    return seconds


if __name__ == "__main__":
    print(f"executed {NOTEBOOK.name} in {execute():.1f} s", file=sys.stderr)
