"""asv: ₀F₁ kernels (Laplace, Haar sampling, Monte Carlo, asymptotic, holonomic, the k = 4 series, the near-equal band) beside same-run baselines.

Baselines: the NumPy transcription of Moore's Listing 1 (Laplace), ``scipy.stats.ortho_group``
(Haar), a plain NumPy Haar Monte Carlo without variance reduction (MC). Numba kernels are
warmed in ``setup`` so compile time is not measured.
"""

import time

import numpy as np
from scipy.stats import ortho_group

from symcheck import haar_orthogonal, log_hyp0f1, log_hyp0f1_mc
from symcheck.models.moore import listing1_log_bessel


class Laplace:
    """10⁴ rows of σ (Listing 1 forms a k × k array of pairs per row: at 10⁵ rows, 3.3 GB per temporary at
    k = 64, whose first touch alone took 21 s)."""

    params = [2, 20, 64]
    param_names = ["k"]

    def setup(self, k):
        rng = np.random.default_rng(0)
        self.sig = 5.0 * rng.random((10_000, k))
        log_hyp0f1(self.sig[:2], k, method="laplace")

    def time_symcheck_laplace(self, k):
        log_hyp0f1(self.sig, k, method="laplace")

    def time_numpy_listing1(self, k):
        listing1_log_bessel(self.sig, k)

    def peakmem_numpy_listing1(self, k):
        listing1_log_bessel(self.sig, k)

    def peakmem_symcheck_laplace(self, k):
        log_hyp0f1(self.sig, k, method="laplace")


class Haar:
    params = [3, 20, 50]
    param_names = ["k"]

    def setup(self, k):
        self.rng = np.random.default_rng(0)
        haar_orthogonal(k, 4, self.rng)

    def time_symcheck_haar(self, k):
        haar_orthogonal(k, 10_000, self.rng)

    def time_scipy_ortho_group(self, k):
        ortho_group.rvs(k, size=10_000, random_state=self.rng)

    def time_numpy_normals_only(self, k):
        self.rng.standard_normal((10_000, k, k))


def _plain_mc(sig, k, n, rng):
    """Textbook estimator: mean of exp(Σσᵢ Tᵢᵢ) over scipy Haar draws, in log space."""
    t = ortho_group.rvs(k, size=n, random_state=rng) if k > 1 else rng.choice([-1.0, 1.0], (n, 1, 1))
    logw = np.einsum("i,nii->n", sig, t)
    top = logw.max()
    w = np.exp(logw - top)
    return top + np.log(w.mean()), w.std(ddof=1) / np.sqrt(n) / w.mean()


class MonteCarlo:
    params = [3, 10]
    param_names = ["k"]

    def setup(self, k):
        self.rng = np.random.default_rng(0)
        self.sig = np.linspace(2.0, 0.5, k)
        log_hyp0f1_mc(self.sig, k, 16, self.rng)

    def time_symcheck_mc(self, k):
        log_hyp0f1_mc(self.sig, k, 10_000, self.rng)

    def time_plain_numpy_mc(self, k):
        _plain_mc(self.sig, k, 10_000, self.rng)

    def track_se_per_second_ratio(self, k):
        """Efficiency 1/(SE²·seconds) of symcheck's MC over the plain estimator's, same run."""
        eff = []
        for fn in (lambda: log_hyp0f1_mc(self.sig, k, 10_000, self.rng), lambda: _plain_mc(self.sig, k, 10_000, self.rng)):
            t0 = time.perf_counter()
            _, se = fn()
            eff.append(1.0 / (float(se) ** 2 * (time.perf_counter() - t0)))
        return eff[0] / eff[1]

    track_se_per_second_ratio.unit = "ratio"


class Asymptotic:
    params = [3, 20]
    param_names = ["k"]

    def setup(self, k):
        rng = np.random.default_rng(0)
        self.sig = 100 + 1000 * rng.random((10_000, k))

    def time_symcheck_asymptotic(self, k):
        log_hyp0f1(self.sig, k, method="asymptotic")


class Accuracy:
    """Accuracy tracked over commits: max |log error| against the k = 2 closed form."""

    def setup(self):
        t = np.geomspace(1e-3, 1e4, 200)
        self.sig = np.stack([t, t / 3], axis=1)
        self.exact = log_hyp0f1(self.sig, 2, method="exact")

    def track_laplace_listing_max_log_error_k2(self):
        return float(np.max(np.abs(log_hyp0f1(self.sig, 2, method="laplace") - self.exact)))

    def track_laplace_pairs_once_max_log_error_k2(self):
        return float(np.max(np.abs(log_hyp0f1(self.sig, 2, method="laplace", variant="pairs-once") - self.exact)))

    def track_asymptotic_log_error_k2_at_1e3(self):
        s = np.array([[1e3, 1e3 / 3]])
        return float(abs(log_hyp0f1(s, 2, method="asymptotic") - log_hyp0f1(s, 2, method="exact"))[0])


def _registered_deterministic():
    from symcheck.hyp0f1 import methods

    return [name for name, m in methods.REGISTRY.items() if not m.needs_rng]


class Methods:
    """Every registered deterministic method (read from the registry) per value, k = 3, 8, 20, at
    σ = 2·(1, …, 0.1) geometrically spaced; skipped where the method's domain excludes the input."""

    params = [_registered_deterministic(), [3, 8, 20]]
    param_names = ["method", "k"]

    def setup(self, method, k):
        from symcheck.hyp0f1 import methods

        self.sig = 2.0 * np.geomspace(1.0, 0.1, k)[None, :]
        if method != "auto":
            m = methods.get(method)
            if m.domain(self.sig, k, methods.resolve_options(m, {}))[0]:
                raise NotImplementedError(f"{method} does not apply at k={k}")
        log_hyp0f1(self.sig, k, method=method)  # compile and tabulate outside the timing

    def time_one_value(self, method, k):
        log_hyp0f1(self.sig, k, method=method)


def _holonomic_or_skip(sig, k):
    """Compile the holonomic method on the row, and skip a case beyond its default step budget (it raises,
    naming max_steps)."""
    try:
        log_hyp0f1(sig, k, method="holonomic")
    except ValueError as err:
        raise NotImplementedError(str(err)) from None


class Holonomic:
    """The holonomic method per value by the number m of non-zero σ (rank 2^m): spread
    σ = 10·(1, …, 0.1) and two clusters (m/2 values at 10, m/2 at 3); k = m. m ≤ 12 (MAX_M)."""

    params = [[4, 6, 8, 10, 12], ["spread", "clustered"]]
    param_names = ["m", "shape"]
    timeout = 300

    def setup(self, m, shape):
        if shape == "spread":
            self.sig = 10.0 * np.geomspace(1.0, 0.1, m)[None, :]
        else:
            self.sig = np.concatenate([np.full(m // 2, 10.0), np.full(m - m // 2, 3.0)])[None, :]
        _holonomic_or_skip(self.sig, m)

    def time_one_value(self, m, shape):
        log_hyp0f1(self.sig, m, method="holonomic")


class HolonomicWideRuns:
    """The holonomic method per value on one run of all k σ = 10(1 − g)^i, k = 5, 6: at g = 0.05 % spread only,
    at 0.3 % and 0.7 % (gaps ≥ UNSPREAD_GAP) spread and then unspread, the smaller figure kept (≤ 2 × the
    spread alone)."""

    params = [[5, 6], [5e-4, 3e-3, 7e-3]]
    param_names = ["k", "gap"]
    timeout = 300

    def setup(self, k, gap):
        self.sig = (10.0 * (1 - gap) ** np.arange(k))[None, :]
        _holonomic_or_skip(self.sig, k)

    def time_one_value(self, k, gap):
        log_hyp0f1(self.sig, k, method="holonomic")


class Formal:
    """The formal series at s = ∞ per value by the number m of non-zero σ (state 2^m), σ = 1000·(1, …, 0.1)
    geometrically spaced, k = m (full rank, where auto takes it from m = 8 on) and k = 20 (rank-deficient),
    beside a same-run baseline on the same row: the asymptotic expansion at order 3 where k = m (the Wick
    terms this series carries to any order), Moore's Laplace approximation (Listing 1) at k = 20 (the
    expansion is undefined with two zeros)."""

    params = [[4, 8, 10, 12, 14, 16], ["k = m", "k = 20"]]
    param_names = ["m", "k"]
    timeout = 300

    def setup(self, m, k):
        self.k = m if k == "k = m" else 20
        self.sig = np.zeros((1, self.k))
        self.sig[0, :m] = 1000.0 * np.geomspace(1.0, 0.1, m)
        log_hyp0f1(self.sig, self.k, method="formal")  # compile outside the timing
        self.time_baseline(m, k)  # the order-3 contraction patterns are built once per process

    def time_formal(self, m, k):
        log_hyp0f1(self.sig, self.k, method="formal")

    def time_baseline(self, m, k):
        if self.k == m:
            log_hyp0f1(self.sig, self.k, method="asymptotic", order=3)
        else:
            log_hyp0f1(self.sig, self.k, method="laplace")


class FormalClusters:
    """The formal series per value on two clusters of m/2 σ at σ_max = 100 and 100/3 (k = m), exactly tied (three
    spread rows and a probe) or nearly (relative gaps 1e-4: six spread rows and a probe), beside the same row
    with the clusters spread 5 % apart (distinct σ: one row and a probe), the work without the extrapolation."""

    params = [[6, 8, 12, 16], ["tied", "near", "distinct"]]
    param_names = ["m", "clusters"]
    timeout = 300

    def setup(self, m, clusters):
        gap = {"tied": 0.0, "near": 1e-4, "distinct": 0.05}[clusters]
        h = m // 2
        self.sig = np.r_[100.0 * (1 - gap) ** np.arange(h), 100.0 / 3 * (1 - gap) ** np.arange(m - h)][None, :]
        log_hyp0f1(self.sig, m, method="formal")  # compile outside the timing

    def time_formal(self, m, clusters):
        log_hyp0f1(self.sig, self.sig.shape[1], method="formal")


class AutoAtMooresSize:
    """log_hyp0f1(method="auto") per value at k = 20 (Moore's Fig. 4): spread, equal, two clusters
    and rank-deficient spectra at σ_max = 0.3, 3, 30, 300, 3000."""

    params = [["spread", "equal", "two clusters", "rank-deficient"], [0.3, 3.0, 30.0, 300.0, 3000.0]]
    param_names = ["shape", "sigma_max"]

    def setup(self, shape, sigma_max):
        k = 20
        spread = sigma_max * np.geomspace(1.0, 0.1, k)
        self.sig = {"spread": spread, "equal": np.full(k, sigma_max),
                    "two clusters": np.r_[np.full(10, sigma_max), np.full(10, sigma_max / 3)],
                    "rank-deficient": np.r_[spread[:10], np.zeros(10)]}[shape][None, :]
        import warnings

        warnings.simplefilter("ignore")
        log_hyp0f1(self.sig, k)

    def time_one_value(self, shape, sigma_max):
        log_hyp0f1(self.sig, 20)


class K4Series:
    """k = 4 per value: the positive series of SO(4) ≅ (S³ × S³)/±1 (method "exact") beside the holonomic
    method on the same row (same-run baseline; it skips rows beyond its default step budget), spread
    σ = σ_max·(1, 0.46, 0.21, 0.1)."""

    params = [[3.0, 30.0, 300.0, 3000.0], ["exact", "holonomic"]]
    param_names = ["sigma_max", "method"]
    timeout = 300

    def setup(self, sigma_max, method):
        self.sig = sigma_max * np.array([[1.0, 0.46, 0.21, 0.1]])
        try:  # compile, and skip a case beyond the method's range or step budget
            log_hyp0f1(self.sig, 4, method=method)
        except ValueError as err:
            raise NotImplementedError(str(err)) from None

    def time_one_value(self, sigma_max, method):
        log_hyp0f1(self.sig, 4, method=method)


class NearEqual:
    """auto per value on nearly equal σ (σ̄·(1 + 2⁻²⁴·pattern), zero-sum pattern): the near-equal route answers
    (its second-order expansion); beside it the equal-spectrum closed form at σ̄ (same-run baseline: the route adds
    the closed form's derivative at four more points for the curvature, ~7–12× the baseline, 0.5–2 ms a value,
    measured 2026-11-29)."""

    params = [[6, 8, 20], [3.0, 30.0, 300.0]]
    param_names = ["k", "sigma_mean"]

    def setup(self, k, sigma_mean):
        pattern = np.zeros(k)
        pattern[:6] = (1.0, -1.0, 2.0, -2.0, -3.0, 3.0)
        self.sig = (sigma_mean * (1.0 + 2.0**-24 * pattern))[None, :]
        self.equal = np.full((1, k), sigma_mean)
        log_hyp0f1(self.sig, k)

    def time_auto(self, k, sigma_mean):
        log_hyp0f1(self.sig, k)

    def time_equal_closed_form(self, k, sigma_mean):
        log_hyp0f1(self.equal, k, method="exact")


class Confluent:
    """The confluent system per value at exact ties, k = m: two clusters (m/2 values at σ_max, m/2 at σ_max/3);
    beside it the holonomic method on the same row (same-run baseline: clusters spread and extrapolated), skipped
    where it raises (at m = 12 it runs out of its step budget after ~3 s)."""

    params = [[4, 6, 8, 10, 12], [10.0, 30.0]]
    param_names = ["m", "sigma_max"]
    timeout = 300

    def setup(self, m, sigma_max):
        self.sig = np.concatenate([np.full(m // 2, sigma_max), np.full(m - m // 2, sigma_max / 3)])[None, :]
        log_hyp0f1(self.sig, m, method="confluent")

    def time_confluent(self, m, sigma_max):
        log_hyp0f1(self.sig, m, method="confluent")

    def time_holonomic(self, m, sigma_max):
        try:
            log_hyp0f1(self.sig, m, method="holonomic")
        except ValueError as err:
            raise NotImplementedError(str(err)) from None


class ConfluentNearTies(Confluent):
    """The confluent system per value at near ties, k = m: two clusters of consecutive values 1e-4 apart (relative;
    the report's "near clusters"), run at the clusters' means with the tie expansion (its extra cost: one sweep per
    run and the expansion's terms); beside it the holonomic method on the same row (same-run baseline: the values
    spread and extrapolated), skipped where it raises."""

    def setup(self, m, sigma_max):
        shrink = (1.0 - 1e-4) ** np.arange(m // 2)
        self.sig = np.concatenate([sigma_max * shrink, sigma_max / 3 * shrink[:m - m // 2]])[None, :]
        log_hyp0f1(self.sig, m, method="confluent")


class Contiguous:
    """The contiguous route per value at k = m (one ray at k + 2 through the Sekiguchi–Debiard operator): spread
    σ = σ_max·(1, …, 0.1), with the work auto gives it; beside it the direct holonomic ray at k = m on the same row
    with the work auto gave it (same-run baseline; it is less accurate there at k = 10), skipped where it raises."""

    params = [[6, 8, 10], [10.0, 30.0]]
    param_names = ["k", "sigma_max"]
    timeout = 300

    def setup(self, k, sigma_max):
        from symcheck.hyp0f1 import contiguous, holonomic

        self.sig = sigma_max * np.geomspace(1.0, 0.1, k)[None, :]
        self.work, self.work_direct = contiguous.WORK, holonomic.AUTO_LAWSON_STEP_WORK
        log_hyp0f1(self.sig, k, method="contiguous", work=self.work)

    def time_contiguous(self, k, sigma_max):
        log_hyp0f1(self.sig, k, method="contiguous", work=self.work)

    def time_holonomic(self, k, sigma_max):
        try:
            log_hyp0f1(self.sig, k, method="holonomic", work=self.work_direct)
        except ValueError as err:
            raise NotImplementedError(str(err)) from None
