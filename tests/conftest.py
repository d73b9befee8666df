"""Shared fixtures: one seeded generator per test, derived from the test's node id; a PyTorch-like result."""

import numpy as np
import pytest

from symcheck.evidence import claim_rng


@pytest.fixture
def rng(request):
    """A reproducible numpy Generator, distinct for every test."""
    return claim_rng(request.node.nodeid)


class FakeTensor:
    """What a PyTorch tensor offers a checker: .detach().cpu().numpy() (no framework imported)."""

    def __init__(self, value):
        self.value = value

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return np.asarray(self.value)


@pytest.fixture
def fake_tensor():
    """The PyTorch-like result type of the adapter tests: `fake_tensor(array)`."""
    return FakeTensor
