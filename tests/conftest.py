"""Shared fixtures: every transform, operator and primitive test runs on each
backend; the GPU one is skipped, with the reason, where no GPU is present."""
import numpy
import pytest

from minigr.transforms.backend import gpu_unavailable_reason


def pytest_collection_modifyitems(config, items):
    reason = gpu_unavailable_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"GPU test: {reason}")
        for item in items:
            if item.get_closest_marker("gpu"):
                item.add_marker(skip)


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request):
    """The backend under test."""
    return request.param


@pytest.fixture
def xp(device):
    """The array module of the backend under test."""
    if device == "gpu":
        import cupy
        return cupy
    return numpy


def to_host(array):
    """A NumPy copy of a NumPy or CuPy array."""
    return array.get() if hasattr(array, "get") else numpy.asarray(array)
