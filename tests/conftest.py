"""Fixtures shared by several test modules."""
import pytest


@pytest.fixture(scope="module")
def ray_session():
    """A local Ray instance for one test module (2 CPUs); the module's actors share it."""
    ray = pytest.importorskip("ray", reason='the ray extra is not installed: pip install -e ".[ray]"')
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()
