"""asv: the float64 zonal series of ₀F₁ beside the mpmath reference and the pyhypergeomatrix peer.

The series is timed at fixed truncation degrees (``log_hyp0f1_series_truncated``), so every
method sums exactly the partitions with |κ| <= degree. Partition tables are built and Numba
is warmed in ``setup``. Baselines measured in the same run: the mpmath reference (this
package, an independent algorithm) and, if importable, ``pyhypergeomatrix`` (GPL, pure
Python Koev–Edelman; benchmark-only, ``pip install --no-deps pyhypergeomatrix``).
"""

import mpmath
import numpy as np

from symcheck.hyp0f1 import series
from symcheck.hyp0f1.reference import hyp0f1_reference


def _sigma(k):
    """A full-rank σ row with decreasing entries (Σσ = 3 for every k)."""
    sig = np.linspace(1.0, 0.2, k)
    return 3.0 * sig / sig.sum()


class Series:
    params = ([3, 5, 10, 20], [10, 20, 30, 60])
    param_names = ["k", "degree"]

    def setup(self, k, degree):
        if degree > series.max_feasible_degree(k) or (k >= 10 and degree > 30):
            raise NotImplementedError("tables too large for this (k, degree)")
        self.sig = _sigma(k)
        self.batch = np.tile(self.sig, (10, 1)) * np.linspace(0.5, 1.5, 10)[:, None]
        series.log_hyp0f1_series_truncated(self.sig, k, degree)

    def time_series_one_row(self, k, degree):
        series.log_hyp0f1_series_truncated(self.sig, k, degree)

    def time_series_10_rows(self, k, degree):
        series.log_hyp0f1_series_truncated(self.batch, k, degree)

    def peakmem_series_one_row(self, k, degree):
        series.log_hyp0f1_series_truncated(self.sig, k, degree)


class SeriesTruncationError:
    """|F̂/F − 1| of the series truncated at each degree, against the mpmath reference (Σσ = 3)."""

    params = ([3, 5, 10], [5, 10, 20, 30])
    param_names = ["k", "degree"]
    timeout = 120

    def setup(self, k, degree):
        self.sig = _sigma(k)
        with mpmath.workdps(30):
            self.ref = hyp0f1_reference(self.sig, k, dps=30)

    def track_relative_error(self, k, degree):
        val, _ = series.log_hyp0f1_series_truncated(self.sig, k, degree)
        with mpmath.workdps(30):
            return float(abs(mpmath.exp(mpmath.mpf(float(val))) / self.ref - 1))

    def track_error_bound_over_error(self, k, degree):
        """The series' own rigorous bound divided by its actual error (≥ 1 unless the bound is broken)."""
        val, bound = series.log_hyp0f1_series_truncated(self.sig, k, degree)
        with mpmath.workdps(30):
            err = float(abs(mpmath.exp(mpmath.mpf(float(val))) / self.ref - 1))
        return float(bound) / max(err, np.finfo(float).tiny)

    track_relative_error.unit = "relative error"
    track_error_bound_over_error.unit = "ratio"


class SeriesGradient:
    params = ([3, 10], [20, 30])
    param_names = ["k", "degree"]

    def setup(self, k, degree):
        self.sig = _sigma(k) * 2.0  # Σσ = 6: rtol 1e-14 needs degree ≈ 20–25
        series.grad_log_hyp0f1_series(self.sig, k)

    def time_series_gradient(self, k, degree):
        series.grad_log_hyp0f1_series(self.sig, k)

    def time_series_value(self, k, degree):
        series.log_hyp0f1_series(self.sig, k)


class Reference:
    """The mpmath baseline (monomial-coefficient recursion): the slow truth."""

    params = ([3, 5], [20, 50])
    param_names = ["k", "dps"]
    timeout = 300

    def setup(self, k, dps):
        self.sig = _sigma(k)

    def time_reference(self, k, dps):
        hyp0f1_reference(self.sig, k, dps=dps)


class Peer:
    """pyhypergeomatrix at k = 3, degree 20 and 30 (seconds per call: 0.8 s and 4.7 s measured): run once."""

    params = [20, 30]
    param_names = ["degree"]
    number = 1
    repeat = 1
    timeout = 600

    def setup(self, degree):
        try:
            from pyhypergeomatrix.hypergeomat import hypergeomPQ
        except ImportError:
            raise NotImplementedError("pyhypergeomatrix is not installed") from None
        self.hyp = hypergeomPQ
        self.sig = np.array([1.5, 1.0, 0.5])
        series.log_hyp0f1_series_truncated(self.sig, 3, degree)

    def time_pyhypergeomatrix_k3(self, degree):
        self.hyp(degree, [], [1.5], list(self.sig ** 2 / 4))

    def time_symcheck_series_k3(self, degree):
        series.log_hyp0f1_series_truncated(self.sig, 3, degree)


def track_series_error_vs_reference():
    """Largest |F̂/F − 1| of the series (rtol 1e-14) against the reference over a k = 3 grid."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for sig in rng.uniform(0.0, 8.0, (6, 3)):
        val, _ = series.log_hyp0f1_series(sig, 3)
        with mpmath.workdps(30):
            ref = hyp0f1_reference(sig, 3, dps=20)
            worst = max(worst, float(abs(mpmath.exp(mpmath.mpf(float(val))) / ref - 1)))
    return worst


track_series_error_vs_reference.unit = "relative error"
