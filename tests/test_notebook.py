"""The exploration notebook runs top to bottom (issue 9) and is committed with its outputs, in one unit (issue 16)."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "explore.ipynb"
#: A table column that names one of these quantities gives it in percent (`%`) or percentage points (`pp`).
PERCENT_QUANTITY = re.compile(r"rtp|edge|hit|exact|offered|of stake|capped", re.IGNORECASE)


def _code_outputs(cells) -> list:
    return [output for cell in cells if cell["cell_type"] == "code" for output in cell.get("outputs", [])]


def _table_headers(outputs) -> list[str]:
    """The column and index names of every table (a pandas DataFrame's HTML) among the outputs."""
    headers = []
    for output in outputs:
        html = "".join(output.get("data", {}).get("text/html", ""))
        headers += [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<th[^>]*>(.*?)</th>", html, re.S)]
    return [header for header in headers if header]


def test_committed_notebook_carries_its_outputs():
    # Saved by notebooks/execute.py: every code cell run once, top to bottom, at the notebook's own round count,
    # and nothing that only a live Jupyter front end can draw (a progress widget shows as a frozen "0%").
    notebook = json.loads(NOTEBOOK.read_text())
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert [cell["execution_count"] for cell in code] == list(range(1, len(code) + 1))
    assert all(cell["outputs"] for cell in code)
    outputs = _code_outputs(notebook["cells"])
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert not [o for o in outputs if o.get("name") == "stderr"]  # what the environment said is not committed
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) >= 5
    default = re.search(r'"BACCARAT_NB_ROUNDS", "([^"]+)"', "".join(code[0]["source"])).group(1)
    assert f"{int(float(default)):,} rounds per run" in "".join(code[0]["outputs"][0]["text"])


def test_committed_tables_label_their_unit():
    notebook = json.loads(NOTEBOOK.read_text())
    headers = _table_headers(_code_outputs(notebook["cells"]))
    assert "RTP % (95% CI)" in headers and "Colour Match RTP %" in headers
    unlabelled = [h for h in headers if PERCENT_QUANTITY.search(h) and "%" not in h and "(pp)" not in h]
    assert unlabelled == []


@pytest.mark.slow
def test_explore_notebook_runs(monkeypatch, tmp_path):
    # The [test] extra installs these; without them (a plain install) there is no kernel to run it in.
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    # 1e6 rounds keeps the run to seconds while every cell (MC vs exact with |z| < 4 asserted, dealt-shoe
    # positions, Colour Match, effect of removal) still executes for real.
    monkeypatch.setenv("BACCARAT_NB_ROUNDS", "1e6")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the inline backend renders the figures as PNG
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = _code_outputs(notebook.cells)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    warned = [o["text"] for o in outputs if o.get("name") == "stderr" and "Warning" in o["text"]]
    assert warned == []
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 5, f"expected the plots of the notebook, got {len(images)} images"
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert "1,000,000 rounds per run" in first.outputs[0]["text"]
