"""The kernels' numba cache is dropped when a module they compile in has changed since it was written
(:func:`tarneeb_env.kernel_cache.drop_stale_cache`), and kept otherwise: each case is a fresh interpreter on its
own cache."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# one small cached kernel, called once; prints how it was found: "<cache hits> <cache misses>"
CALL = ("import numpy as np; from tarneeb_env import batch_kernels; out = np.zeros(1, np.int64); "
        "batch_kernels.sample_legal(np.ones((1, 3), np.bool_), np.zeros(1), out); "
        "s = batch_kernels.sample_legal.stats; print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")
# rule's compiled card play (agents.rule_kernels), the same way
RULE_CALL = ("import numpy as np; from tarneeb_env.batch import BatchEnv; from agents import rule_kernels; "
             "be = BatchEnv(2, seed=0); be.reset(); out = np.zeros(1, np.int64); "
             "rule_kernels.play_actions(*be.kernel_state()[:2], np.zeros(1, np.int64), be.kernel_state()[2], out); "
             "s = rule_kernels.play_actions.stats; print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")


def _run(cache_dir: Path, call: str) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    proc = subprocess.run([sys.executable, "-c", call], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("call, tag, deps, edited", [
    (CALL, "batch_kernels", ("rules_core.py", "observation.py", "cards.py"), "rules_core.py"),
    (RULE_CALL, "rule_kernels", ("rule_play.py", "batch_kernels.py", "rules_core.py", "cards.py"), "rule_play.py"),
])
def test_kernels_recompile_once_after_a_module_they_use_changed(tmp_path, call, tag, deps, edited):
    assert _run(tmp_path, call) == "0 1"  # an empty cache: compiled and written
    (deps_file,) = tmp_path.rglob(f"{tag}.deps")
    stamp = deps_file.read_text(encoding="utf-8")
    assert all(name in stamp for name in deps)
    assert _run(tmp_path, call) == "1 0"  # nothing changed: loaded from the cache
    deps_file.write_text(stamp.replace(f"{edited}', ", f"{edited}', 1"), encoding="utf-8")  # as if edited
    assert _run(tmp_path, call) == "0 1"  # the stale cache was dropped: compiled again with the module as it reads
    assert deps_file.read_text(encoding="utf-8") == stamp  # and the new stamp recorded
    assert _run(tmp_path, call) == "1 0"
