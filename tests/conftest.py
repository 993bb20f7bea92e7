"""Fixtures shared by several test modules.

The test process uses one torch thread, as Ray rollout workers and evaluator workers do: a float
computed with another thread count may differ in the last bit (sums in another order, seen on AMD EPYC),
and tests compare such floats across processes exactly.
"""
import pytest
import torch

torch.set_num_threads(1)

# Rules no shipped agent is trained for (every preset has one): trump_by_card with hearts always trump.
UNSHIPPED = "preset: trump_by_card\ntrump: hearts\n"


@pytest.fixture
def unshipped_rules(tmp_path):
    """Path of a rules file (``unshipped.yaml``) that no shipped agent is trained for: its rules are ``custom``."""
    path = tmp_path / "unshipped.yaml"
    path.write_text(UNSHIPPED, encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def ray_session():
    """A local Ray instance for one test module (2 CPUs); the module's actors share it."""
    ray = pytest.importorskip("ray", reason='the ray extra is not installed: pip install -e ".[ray]"')
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()
