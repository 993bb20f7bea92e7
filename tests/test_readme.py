"""README.md's and docs/*.md's python examples run and print what they say; the pages stay readable and linked.

Every ```python block runs in a fresh interpreter from the repository root,
except one preceded by a ``<!-- not-run -->`` line (an API sketch with
placeholders). A block followed by a ``Prints:`` line and a ```text block must
print exactly that text. Lines are at most 120 characters, and every relative
link points to a file or folder of the repository.
"""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_RUN = "<!-- not-run -->"
MAX_LINE = 120
BLOCK = re.compile(
    r"(?P<before>[^\n]*)\n```python\n(?P<code>.*?)\n```\n"
    r"(?:\s*Prints:\s*\n```text\n(?P<prints>.*?)\n```\n)?",
    re.S,
)
LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def _read(page: str) -> str:
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        return f.read()


def readme_blocks(text: str) -> list[tuple[int, str, str | None, bool]]:
    """(line, code, expected output or None, runnable) for each python block of ``text``."""
    return [(text.count("\n", 0, m.start("code")) + 1, m["code"], m["prints"], m["before"].strip() != NOT_RUN)
            for m in BLOCK.finditer(text)]


def relative_links(text: str) -> list[str]:
    """The link targets of ``text`` that are paths in the repository (no scheme, no pure #anchor), anchors cut."""
    targets = (m["target"] for m in LINK.finditer(text))
    return [t.split("#")[0] for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


RUNNABLE = [(page, *b[:3]) for page in PAGES for b in readme_blocks(_read(page)) if b[3]]


def test_parser_finds_blocks_markers_and_expected_output():
    text = ("intro\n```python\nprint(1)\n```\n\nPrints:\n\n```text\n1\n```\n"
            f"{NOT_RUN}\n```python\nx = undefined\n```\n```bash\nls\n```\n")
    assert readme_blocks(text) == [(3, "print(1)", "1", True), (13, "x = undefined", None, False)]


def test_link_parser_keeps_repository_paths_only():
    text = "[a](docs/env.md) [b](https://x.org/y) [c](#quickstart) [d](../configs/smoke.yaml#L2) ![e](web_table.png)"
    assert relative_links(text) == ["docs/env.md", "../configs/smoke.yaml", "web_table.png"]


def test_readme_has_a_checked_example():
    assert any(prints for page, _, _, prints in RUNNABLE if page == "README.md")


def test_docs_pages_exist():
    assert len(PAGES) > 1, "docs/*.md: no pages found"


@pytest.mark.parametrize("page", PAGES)
def test_lines_are_at_most_120_characters(page):
    long = [f"{page}:{i}: {len(line)} characters" for i, line in enumerate(_read(page).split("\n"), 1)
            if len(line) > MAX_LINE]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_point_to_files_of_the_repository(page):
    here = os.path.dirname(os.path.join(ROOT, page))
    broken = [t for t in relative_links(_read(page)) if not os.path.exists(os.path.normpath(os.path.join(here, t)))]
    assert not broken, f"{page}: links to missing files: {broken}"


@pytest.mark.parametrize("page,line,code,prints", RUNNABLE, ids=[f"{b[0]}:{b[1]}" for b in RUNNABLE])
def test_python_block_runs_and_prints_what_the_page_says(page, line, code, prints):
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{page} line {line}:\n{proc.stderr[-3000:]}"
    if prints is not None:
        assert proc.stdout.rstrip("\n") == prints, f"{page} line {line} printed:\n{proc.stdout}"
