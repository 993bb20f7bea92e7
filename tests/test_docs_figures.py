"""Figures the manual quotes that the code defines: the observation size wherever a page (other than the measured
history in results.md and speed.md) states it."""
from __future__ import annotations

import glob
import os
import re

import tarneeb_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
                               if os.path.basename(p) not in ("results.md", "speed.md"))
# "float32[694]", "694 floats", "694-float", "694 float32", "(N, 694)", "694→256" (a network's input layer)
SIZE = re.compile(r"float32\[(\d{3,})\]|\b(\d{3,})[- ]float|\(\w+, (\d{3,})\)|(?<![→\d])(\d{3,})→")


def test_every_observation_size_quoted_is_the_env_s():
    quoted = []
    for page in PAGES:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                quoted += [(f"{page}:{i}", int(next(g for g in m.groups() if g))) for m in SIZE.finditer(line)]
    assert len(quoted) >= 5, quoted  # the pattern finds the quotes (env.md, vector-env.md, agents.md ...)
    wrong = [(where, n) for where, n in quoted if n != tarneeb_env.OBS_SIZE]
    assert not wrong, f"observation sizes other than {tarneeb_env.OBS_SIZE}: {wrong}"


def test_the_pattern_catches_a_wrong_figure():
    assert [int(next(g for g in m.groups() if g)) for m in SIZE.finditer("the 678→256→256 MLP, (N, 678)")] == [678, 678]
