"""Shared fixtures: one seeded generator per test, derived from the test's node id; a PyTorch-like result;
a fresh interpreter with or without Numba's JIT; the asymptotic expansion's pattern cache cleared around a
planted error."""

import os
import subprocess
import sys

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


def _python_output(code: str, jit: bool, timeout: float = 600) -> str:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                          timeout=timeout).stdout


@pytest.fixture
def python_output():
    """`python_output(code, jit)`: the standard output of ``code`` run by a fresh interpreter, with Numba's JIT
    on or off (NUMBA_DISABLE_JIT=1 runs every kernel as plain Python: the coverage path of the brief)."""
    return _python_output


@pytest.fixture
def fresh_patterns():
    """Clear the asymptotic expansion's pattern cache before and after, so a planted Φ_p or Jacobian
    coefficient is used and not kept."""
    from symcheck.hyp0f1 import asymptotic

    asymptotic.order_patterns.cache_clear()
    yield
    asymptotic.order_patterns.cache_clear()
