"""The batch kernels' numba cache is dropped when a module they compile in has changed since it was written
(``batch_kernels._drop_stale_cache``), and kept otherwise: each case is a fresh interpreter on its own cache."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# one small cached kernel, called once; prints how it was found: "<cache hits> <cache misses>"
CALL = ("import numpy as np; from tarneeb_env import batch_kernels as bk; out = np.zeros(1, np.int64); "
        "bk.sample_legal(np.ones((1, 3), np.bool_), np.zeros(1), out); s = bk.sample_legal.stats; "
        "print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")


def _run(cache_dir: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run([sys.executable, "-c", CALL], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_kernels_recompile_once_after_a_module_they_use_changed(tmp_path):
    assert _run(tmp_path) == "0 1"  # an empty cache: compiled and written
    (deps,) = tmp_path.rglob("batch_kernels.deps")
    stamp = deps.read_text(encoding="utf-8")
    assert "rules_core.py" in stamp and "observation.py" in stamp and "cards.py" in stamp
    assert _run(tmp_path) == "1 0"  # nothing changed: loaded from the cache
    deps.write_text(stamp.replace("rules_core.py', ", "rules_core.py', 1"), encoding="utf-8")  # as if edited
    assert _run(tmp_path) == "0 1"  # the stale cache was dropped: compiled again with the module as it reads
    assert deps.read_text(encoding="utf-8") == stamp  # and the new stamp recorded
    assert _run(tmp_path) == "1 0"
