"""pytest-benchmark versions of the zonal series timings (run once as smoke tests; enable with
--benchmark-enable). The peer comparison also checks agreement: pyhypergeomatrix sums the same
truncated series (|κ| <= degree) by its own implementation of Koev–Edelman."""

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import series
from symcheck.hyp0f1.reference import hyp0f1_reference

SIG3 = np.array([1.5, 1.0, 0.5])


def test_bench_series_k3_degree30(benchmark):
    series.log_hyp0f1_series_truncated(SIG3, 3, 30)  # tables + Numba warm-up
    val, bound = benchmark(series.log_hyp0f1_series_truncated, SIG3, 3, 30)
    assert np.isfinite(val) and bound < 1e-12  # accuracy: tests/test_hyp0f1_series.py, claims


def test_bench_series_k10_degree20(benchmark):
    sig = np.linspace(0.6, 0.1, 10)
    series.log_hyp0f1_series_truncated(sig, 10, 20)
    val, _ = benchmark(series.log_hyp0f1_series_truncated, sig, 10, 20)
    assert np.isfinite(val)


def test_bench_series_gradient_k3(benchmark):
    series.grad_log_hyp0f1_series(SIG3, 3)
    g = benchmark(series.grad_log_hyp0f1_series, SIG3, 3)
    assert g.shape == (3,)


def test_bench_reference_k3_dps20(benchmark):
    val = benchmark(hyp0f1_reference, SIG3, 3, 20)
    assert isinstance(val, mpmath.mpf)


def test_bench_pyhypergeomatrix_k3_degree8(benchmark):
    """Peer baseline at a low degree (its degree-30 call takes seconds: see benchmarks/bench_series.py)."""
    peer = pytest.importorskip("pyhypergeomatrix.hypergeomat")
    degree = 8
    theirs = benchmark(peer.hypergeomPQ, degree, [], [1.5], list(SIG3 ** 2 / 4))
    ours, bound = series.log_hyp0f1_series_truncated(SIG3, 3, degree)
    # same truncated sum: agreement within our rounding bound (the tail part of ``bound`` is
    # irrelevant here) plus the peer's float64 rounding, taken as the same size
    gamma = series.rounding_bound(3, degree)
    assert abs(np.log(float(theirs)) - float(ours)) <= 2 * gamma + 4 * np.finfo(float).eps
