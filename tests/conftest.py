"""Fixtures shared by several test modules.

The test process uses one torch thread, as Ray rollout workers and evaluator workers do: a float
computed with another thread count may differ in the last bit (sums in another order, seen on AMD EPYC),
and tests compare such floats across processes exactly.
"""
import pytest
import torch

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def ray_session():
    """A local Ray instance for one test module (2 CPUs); the module's actors share it."""
    ray = pytest.importorskip("ray", reason='the ray extra is not installed: pip install -e ".[ray]"')
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()
