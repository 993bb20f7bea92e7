"""The notebooks: committed without outputs, and each runs top to bottom in fast mode (TARNEEB_FAST=1).

nbclient raises ``CellExecutionError`` on the first failing cell, so executing is the test; the
checks after it pin what the notebooks must show. The kernel is ``python3``, which jupyter_client
starts with the interpreter running the tests (the venv's), and the last cell checks that.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
NAMES = ["training_curves.ipynb", "agent_analysis.ipynb", "exploiters.ipynb", "time_to_strength.ipynb"]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_has_no_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, (
            f"{name}: cell {cell.id!r} holds outputs or an execution count; clear them before committing"
        )
    for cell in nb.cells:
        assert "execution" not in cell.metadata, f"{name}: cell {cell.id!r} holds run timestamps; clear them"
    assert nb.metadata.kernelspec.name == "python3"


def _execute(name: str, monkeypatch, tmp_path) -> tuple[str, list[str], int]:
    """Run a notebook in fast mode; returns (printed text, markdown displays, number of images)."""
    monkeypatch.setenv("TARNEEB_FAST", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # a tiny training run lands here
    for var in ("TARNEEB_RUN", "TARNEEB_AGENT"):
        monkeypatch.delenv(var, raising=False)
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint('kernel:', sys.executable)"))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "".join(o.text for o in outputs if o.output_type == "stream")
    markdown = [o.data["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    kernel = text.rsplit("kernel: ", 1)[1].strip()
    assert os.path.realpath(kernel) == os.path.realpath(sys.executable)
    return text, markdown, images


def test_training_curves_notebook_runs(monkeypatch, tmp_path):
    text, _, images = _execute("training_curves.ipynb", monkeypatch, tmp_path)
    if (ROOT / "checkpoints" / "default_logs").is_dir():
        assert f"{ROOT / 'checkpoints' / 'default_logs'}: " in text
        assert images >= 3  # training dynamics, evaluation margin, bidding (+ warm start when it had one)
    else:  # the tiny run: one cloning chunk of 16 games x 64 steps, 3 PPO iterations of 16 x 64
        assert "is absent: training a tiny run" in text
        assert " scalar tags, 3 iterations, 3,072 decisions" in text
        assert "warm start: 1,024 teacher decisions cloned" in text
        assert images == 4
        assert len(list(tmp_path.glob("tarneeb_curves_*/tiny/latest.pt"))) == 1
    assert "last evaluation vs random: " in text and "last evaluation vs rule: " in text


def test_agent_analysis_notebook_runs(monkeypatch, tmp_path):
    text, markdown, images = _execute("agent_analysis.ipynb", monkeypatch, tmp_path)
    assert images == 3  # margins, bidding vs strength, contracts by level
    margins, contracts, replay = markdown
    assert "\n| rule | " in margins and "\n| random | " in margins and "| 24 |" in margins
    assert contracts.startswith("| bid | ")
    assert "| trick | seat 0 | seat 1 | seat 2 | seat 3 |" in replay and "\n| 1 | " in replay
    if not (ROOT / "checkpoints" / "classic.pt").is_file():
        assert "falls back to the `rule` baseline" in text
        assert "\n| rule | +0.00 | [+0.00, +0.00] | 24 |" in margins  # rule is deterministic: every deal ties


def test_exploiters_notebook_plots_the_committed_figures(monkeypatch, tmp_path):
    import csv

    text, _, images = _execute("exploiters.ipynb", monkeypatch, tmp_path)
    rows = list(csv.DictReader((ROOT / "docs" / "exploiters.csv").open()))
    assert f"read docs/exploiters.csv: {len(rows)} rows" in text
    assert images == 1
    finals = [r for r in rows if int(r["deals"]) >= 10000]
    assert finals, "docs/exploiters.csv holds no 10,000-deal figure"
    for r in finals:  # each target's final figure printed as the CSV holds it
        assert (f"{r['target']}: exploiter's margin {float(r['margin']):+.2f} [{float(r['ci_lo']):+.2f}, "
                f"{float(r['ci_hi']):+.2f}] over {int(r['deals']):,} held-out deals") in text


def test_time_to_strength_notebook_plots_the_committed_curves(monkeypatch, tmp_path):
    import csv

    text, markdown, images = _execute("time_to_strength.ipynb", monkeypatch, tmp_path)
    rows = list(csv.DictReader((ROOT / "docs" / "time_to_strength.csv").open()))
    assert f"read docs/time_to_strength.csv: {len(rows)} rows" in text
    assert images == 1
    (table,) = markdown
    # the chain's in-training curve: +1.0 decided at 98.3M decisions (+1.43 [+1.07, +1.80]), first point at 19.7M
    assert "| classic chain | in-training | +1.0 | 98.3M, 93.7 min (+1.43) | 19.7M, 19.5 min (+1.17) |" in table
    assert "| classic chain | in-training | +2.0 | not reached | 144.2M, 137.1 min (+2.02) |" in table
