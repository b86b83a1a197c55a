"""The exploration notebook runs top to bottom (issue 9), with a small round count."""

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "explore.ipynb"


def test_explore_notebook_runs(monkeypatch, tmp_path):
    # 1e6 rounds keeps the run to seconds while every cell (MC vs exact with |z| < 4 asserted,
    # dealt-shoe positions, effect of removal) still executes for real.
    monkeypatch.setenv("BACCARAT_NB_ROUNDS", "1e6")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the inline backend renders the figures as PNG
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5, f"expected the plots of the notebook, got {len(images)} images"
