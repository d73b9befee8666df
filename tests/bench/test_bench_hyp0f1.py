"""pytest-benchmark versions of the hot paths (run once as smoke tests; enable with --benchmark-enable)."""

import numpy as np
import pytest
from scipy.stats import ortho_group

from symcheck import haar_orthogonal, log_hyp0f1, log_hyp0f1_mc
from symcheck.models.moore import listing1_log_bessel


@pytest.fixture(scope="module")
def sig20():
    return 5.0 * np.random.default_rng(0).random((20_000, 20))


def test_bench_laplace_k20(benchmark, sig20):
    out = benchmark(log_hyp0f1, sig20, 20, method="laplace")
    assert out.shape == (20_000,) and np.all(np.isfinite(out))  # accuracy: tests/test_hyp0f1_core.py


def test_bench_listing1_numpy_k20(benchmark, sig20):
    benchmark(listing1_log_bessel, sig20, 20)


def test_bench_haar_k20(benchmark):
    rng = np.random.default_rng(0)
    t = benchmark(haar_orthogonal, 20, 2_000, rng)
    assert t.shape == (2_000, 20, 20)


def test_bench_scipy_ortho_group_k20(benchmark):
    rng = np.random.default_rng(0)
    benchmark(ortho_group.rvs, 20, size=2_000, random_state=rng)


def test_bench_mc_k5(benchmark):
    rng = np.random.default_rng(0)
    est, se = benchmark(log_hyp0f1_mc, np.linspace(2, 0.5, 5), 5, 2_000, rng)
    assert np.isfinite(est) and se > 0
