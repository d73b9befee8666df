"""asv benchmarks: log q̃ for Gaussians symmetrized over O(k) (Moore 2016, App. A).

Each benchmark has a plain NumPy / SciPy baseline measured in the same run:

* isotropic log q̃ for k = 2..50 with N = n + m = 80 rows and a batch of 64 points:
  ``orthogonal_logpdf`` (batched SVD + the Numba ₀F₁ kernel) against a straightforward
  NumPy transcription (per-point matrix product and SVD, then eq. (7) with Listing 1's
  saddle point written with NumPy arrays); ``track_*`` records their largest difference;
* non-isotropic k = 2: the trapezoid route over the rotation angle (harmonics formed once)
  against ``scipy.integrate.quad`` of the literal Gaussian density on both cosets.
"""

import math

import numpy as np
from scipy import integrate

from symcheck.gaussian import gaussian_logpdf
from symcheck.orthogonal import orthogonal_logpdf

N_ROWS = 80
BATCH = 64


def _problem(k, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((N_ROWS, k))
    c = 0.5
    X = M + math.sqrt(c) * rng.standard_normal((BATCH, N_ROWS, k))
    return M, X, c


def numpy_logpdf_laplace(X, M, c):
    """Plain NumPy log q̃ (isotropic): loop over points, B = MᵀX/c, SVD, Laplace eq. (7)."""
    k = M.shape[1]
    out = np.empty(X.shape[0])
    for i, x in enumerate(X):
        sig = np.linalg.svd(M.T @ x / c, compute_uv=False)
        u = 2.0 * sig / k
        y = u / (np.sqrt(u * u + 1.0) + 1.0)
        y2 = y * y
        log0f1 = np.sum(sig * y + 0.5 * k * np.log1p(-y2)) - 0.5 * np.sum(np.log1p(-np.outer(y2, y2)))
        out[i] = (-0.5 * (np.sum(x * x) + np.sum(M * M)) / c - 0.5 * M.size * math.log(2 * math.pi * c) + log0f1)
    return out


class TimeIsotropicLogpdf:
    """log q̃ for O(k), isotropic base, N = 80 rows, 64 points (Laplace ₀F₁ on both sides)."""

    params = [2, 5, 10, 20, 50]
    param_names = ["k"]

    def setup(self, k):
        self.M, self.X, self.c = _problem(k)
        orthogonal_logpdf(self.X[:2], self.M, self.c, method="laplace")  # warm the Numba kernel

    def time_symcheck(self, k):
        orthogonal_logpdf(self.X, self.M, self.c, method="laplace")

    def time_numpy_baseline(self, k):
        numpy_logpdf_laplace(self.X, self.M, self.c)

    def track_max_abs_diff(self, k):
        a = orthogonal_logpdf(self.X, self.M, self.c, method="laplace")
        return float(np.max(np.abs(a - numpy_logpdf_laplace(self.X, self.M, self.c))))

    track_max_abs_diff.unit = "nats"


class TimeIsotropicLogpdfAuto:
    """log q̃ with the default ₀F₁ method ("auto": closed form / series / Laplace)."""

    params = [2, 5, 10, 20, 50]
    param_names = ["k"]

    def setup(self, k):
        self.M, self.X, self.c = _problem(k)
        # asv skips a benchmark whose setup raises NotImplementedError (no series yet)
        orthogonal_logpdf(self.X[:2], self.M, self.c, method="auto")

    def time_symcheck_auto(self, k):
        orthogonal_logpdf(self.X, self.M, self.c, method="auto")

    def time_numpy_baseline(self, k):
        numpy_logpdf_laplace(self.X, self.M, self.c)


def scipy_quad_logpdf_o2(X, M, V):
    """Baseline: ∫ q*(X Tᵀ) over both cosets of O(2) by adaptive quadrature, per point."""
    out = np.empty(X.shape[0])
    flip = np.diag([1.0, -1.0])

    def rot(t):
        return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])

    for i, x in enumerate(X):
        shift = float(gaussian_logpdf(x, M, V))
        total = 0.0
        for coset in (rot, lambda t: rot(t) @ flip):
            val, _ = integrate.quad(lambda t: math.exp(gaussian_logpdf(x @ coset(t).T, M, V) - shift),
                                    0, 2 * np.pi, epsabs=0, epsrel=1e-12, limit=200)
            total += val
        out[i] = math.log(total / (4 * np.pi)) + shift
    return out


class TimeNonisotropicO2:
    """Exact log q̃ for O(2) with a non-isotropic diagonal Σ, N = 80 rows, 8 points."""

    def setup(self):
        rng = np.random.default_rng(1)
        self.M = 0.3 * rng.standard_normal((N_ROWS, 2))
        self.V = np.broadcast_to(np.array([0.5, 1.5]), self.M.shape)
        self.X = self.M + np.sqrt(self.V) * rng.standard_normal((8, N_ROWS, 2))

    def time_symcheck_trapezoid(self):
        orthogonal_logpdf(self.X, self.M, self.V)

    def time_scipy_quad_baseline(self):
        scipy_quad_logpdf_o2(self.X, self.M, self.V)

    def track_max_abs_diff(self):
        a = orthogonal_logpdf(self.X, self.M, self.V)
        return float(np.max(np.abs(a - scipy_quad_logpdf_o2(self.X, self.M, self.V))))

    track_max_abs_diff.unit = "nats"
