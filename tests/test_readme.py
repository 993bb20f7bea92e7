"""README.md's python examples run, and print what the README says they print.

Every ```python block runs in a fresh interpreter from the repository root,
except one preceded by a ``<!-- not-run -->`` line (an API sketch with
placeholders). A block followed by a ``Prints:`` line and a ```text block must
print exactly that text.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = "<!-- not-run -->"
BLOCK = re.compile(
    r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```\n"
    r"(?:\s*Prints:\s*\n```text\n(?P<prints>.*?)\n```\n)?",
    re.S,
)


def readme_blocks(text: str) -> list[tuple[int, str, str | None, bool]]:
    """(line, code, expected output or None, runnable) for each python block of ``text``."""
    return [(text.count("\n", 0, m.start("code")) + 1, m["code"], m["prints"], m["before"].strip() != NOT_RUN)
            for m in BLOCK.finditer(text)]


with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
    BLOCKS = readme_blocks(f.read())
RUNNABLE = [b for b in BLOCKS if b[3]]


def test_parser_finds_blocks_markers_and_expected_output():
    text = ("intro\n```python\nprint(1)\n```\n\nPrints:\n\n```text\n1\n```\n"
            f"{NOT_RUN}\n```python\nx = undefined\n```\n```bash\nls\n```\n")
    assert readme_blocks(text) == [(3, "print(1)", "1", True), (13, "x = undefined", None, False)]


def test_readme_has_a_checked_example():
    assert any(prints for _, _, prints, _ in RUNNABLE)


@pytest.mark.parametrize("line,code,prints", [b[:3] for b in RUNNABLE], ids=[f"line{b[0]}" for b in RUNNABLE])
def test_readme_block_runs_and_prints_what_the_readme_says(line, code, prints):
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"README.md line {line}:\n{proc.stderr[-3000:]}"
    if prints is not None:
        assert proc.stdout.rstrip("\n") == prints, f"README.md line {line} printed:\n{proc.stdout}"
