"""asv: symmetrized log densities and the InfoNCE entropy estimator, beside plain NumPy/SciPy baselines.

Baselines (same run): scipy.stats.norm log densities combined with numpy.logaddexp (sign flips);
a per-block Python loop (block flips); brute-force log-sum-exp over all d! permutations with
NumPy fancy indexing (MLP permutations, widths where d! fits in memory); a direct NumPy
transcription of Gelberg's Ĥ^K with one Python loop over the K−1 elements. The permanent
kernel (Numba) is warmed in ``setup``. ``track_*`` record, in the same run, the largest
difference of each symcheck log density from its baseline route (the full normalised log density
by enumeration for the permanent).
"""

import itertools
import math

import numpy as np
from scipy import stats
from scipy.special import logsumexp

from symcheck import MLPPermutation, SignFlip, entropy_infonce
from symcheck.groups import _log_permanent_dp


class SignFlipLogpdf:
    params = [1000]
    param_names = ["n"]

    def setup(self, n):
        rng = np.random.default_rng(0)
        self.mean = rng.normal(size=n)
        self.var = rng.uniform(0.1, 1.0, size=n)
        self.z = rng.normal(size=(1000, n))
        self.whole = SignFlip()
        self.cols = SignFlip((n // 10, 10), blocks="columns")

    def time_symcheck_whole(self, n):
        self.whole.symmetrized_logpdf(self.z, self.mean, self.var)

    def time_scipy_whole(self, n):
        self._whole_scipy()

    def time_symcheck_columns(self, n):
        self.cols.symmetrized_logpdf(self.z.reshape(-1, n // 10, 10), self.mean.reshape(n // 10, 10),
                                     self.var.reshape(n // 10, 10))

    def time_numpy_columns_loop(self, n):
        self._columns_loop(n)

    def _whole_scipy(self):
        sd = np.sqrt(self.var)
        a = stats.norm.logpdf(self.z, self.mean, sd).sum(axis=1)
        b = stats.norm.logpdf(-self.z, self.mean, sd).sum(axis=1)
        return np.logaddexp(a, b) - math.log(2)

    def _columns_loop(self, n):
        z = self.z.reshape(-1, n // 10, 10)
        m, v = self.mean.reshape(n // 10, 10), self.var.reshape(n // 10, 10)
        total = 0.0
        for c in range(10):
            sd = np.sqrt(v[:, c])
            a = stats.norm.logpdf(z[:, :, c], m[:, c], sd).sum(axis=1)
            b = stats.norm.logpdf(-z[:, :, c], m[:, c], sd).sum(axis=1)
            total = total + np.logaddexp(a, b) - math.log(2)
        return total

    def track_whole_max_abs_diff(self, n):
        return float(np.max(np.abs(self.whole.symmetrized_logpdf(self.z, self.mean, self.var) - self._whole_scipy())))

    def track_columns_max_abs_diff(self, n):
        got = self.cols.symmetrized_logpdf(self.z.reshape(-1, n // 10, 10), self.mean.reshape(n // 10, 10),
                                           self.var.reshape(n // 10, 10))
        return float(np.max(np.abs(got - self._columns_loop(n))))

    track_whole_max_abs_diff.unit = "nats"
    track_columns_max_abs_diff.unit = "nats"


class _MLPProblem:
    """A one-hidden-layer MLP's permutation group, a mean-field q* and 10 points (setup shared by the classes below)."""

    param_names = ["width"]

    def setup(self, width):
        rng = np.random.default_rng(0)
        self.G = MLPPermutation([3, width, 2])
        self.mean = rng.normal(size=self.G.dim)
        self.var = rng.uniform(0.1, 1.0, size=self.G.dim)
        self.z = rng.normal(size=(10, self.G.dim))
        _log_permanent_dp(np.zeros((2, 2)))  # compile
        self.G.symmetrized_logpdf(self.z[:1], self.mean, self.var)


class MLPPermutationLogpdf(_MLPProblem):
    params = [5, 8, 12, 16]

    def time_symcheck_permanent(self, width):
        self.G.symmetrized_logpdf(self.z, self.mean, self.var)


class MLPPermutationEnumeration(_MLPProblem):
    """The brute-force baseline of `MLPPermutationLogpdf`: every one of the d! permutations, where d! ≤ 8!."""

    params = [5, 8]

    def setup(self, width):
        super().setup(width)
        perms = np.array(list(itertools.permutations(range(width))), dtype=np.intp)
        self.idx = self.G.source_index(perms)

    def time_numpy_enumeration(self, width):
        sd = np.sqrt(self.var)
        for zi in self.z:
            zz = zi[self.idx]  # (d!, D)
            lp = -0.5 * np.sum(((zz - self.mean) / sd) ** 2, axis=1)
            logsumexp(lp)


class MLPPermutationAccuracy:
    """The permanent's log q̃ against the full normalised log-sum-exp over all d! permutations."""

    params = [5, 8]
    param_names = ["width"]

    def setup(self, width):
        rng = np.random.default_rng(0)
        self.G = MLPPermutation([3, width, 2])
        self.mean = rng.normal(size=self.G.dim)
        self.var = rng.uniform(0.1, 1.0, size=self.G.dim)
        self.z = rng.normal(size=(10, self.G.dim))
        perms = np.array(list(itertools.permutations(range(width))), dtype=np.intp)
        self.idx = self.G.source_index(perms)

    def track_permanent_max_abs_diff(self, width):
        logpdf = lambda x: stats.norm.logpdf(x, self.mean, np.sqrt(self.var)).sum(axis=-1)  # noqa: E731
        brute = np.array([logsumexp(logpdf(zi[self.idx])) for zi in self.z]) - math.log(self.idx.shape[0])
        return float(np.max(np.abs(self.G.symmetrized_logpdf(self.z, self.mean, self.var) - brute)))

    track_permanent_max_abs_diff.unit = "nats"


def _numpy_infonce(mean, var, G, K, S, rng):
    """Direct transcription of Ĥ^K (Gelberg Sec. 4): one loop over the K−1 sampled elements."""
    sd = np.sqrt(var)
    w = mean + sd * rng.standard_normal((S, mean.size))
    logq = lambda x: stats.norm.logpdf(x, mean, sd).sum(axis=-1)  # noqa: E731
    terms = [logq(w)]
    for _ in range(K - 1):
        g = G.sample(rng, S)
        terms.append(logq(G.act(g, w)))
    return -np.mean(logsumexp(np.stack(terms), axis=0) - math.log(K))


class InfoNCE:
    params = [[2, 10, 100, 500], [10, 100]]
    param_names = ["K", "width"]

    def setup(self, K, width):
        rng = np.random.default_rng(0)
        self.G = MLPPermutation([1, width, 1])
        self.mean = rng.normal(size=self.G.dim)
        self.var = np.full(self.G.dim, 0.3)
        self.rng = rng
        self.S = 200

    def time_symcheck_infonce(self, K, width):
        entropy_infonce(self.mean, self.var, self.G, K, self.S, self.rng)

    def time_numpy_infonce(self, K, width):
        _numpy_infonce(self.mean, self.var, self.G, K, self.S, self.rng)
