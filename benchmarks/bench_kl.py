"""asv: Gaussian and matrix-variate KL (symcheck.kl) beside plain-NumPy baselines in the same run.

Baselines are the textbook transcriptions with ``np.linalg.inv`` and ``np.linalg.det``:
½(tr(S₁⁻¹S₀) + dᵀS₁⁻¹d − K + log(det S₁ / det S₀)), and Louizos & Welling eq. (4) with
explicit inverses and determinants. The matrix-variate KL is timed by the closed form
(O(n³ + p³)) and by the dense Kronecker route (O(n³p³)) at n = p = 30 (np = 900).
``track_*`` record accuracy in the same run: the matrix-variate routes against the dense Cholesky
route, and the Gaussian KL (Cholesky, and the inverse/determinant baseline) against an
eigenvalue route that shares no factorisation with either.
"""

import numpy as np

from symcheck.kl import kl_gaussian, kl_matrix_normal, random_spd


def _numpy_kl(m0, S0, m1, S1):
    """Textbook baseline: explicit inverse and determinants."""
    P1 = np.linalg.inv(S1)
    d = m1 - m0
    return 0.5 * (np.trace(P1 @ S0) + d @ P1 @ d - m0.size + np.log(np.linalg.det(S1) / np.linalg.det(S0)))


def _numpy_matrix_normal_kl(M0, U0, V0, M1, U1, V1):
    """Louizos & Welling eq. (4) with explicit inverses and determinants."""
    n, p = M0.shape
    Ui, Vi = np.linalg.inv(U1), np.linalg.inv(V1)
    D = M1 - M0
    ld = lambda A: np.log(np.linalg.det(A))  # noqa: E731
    return 0.5 * (np.trace(Ui @ U0) * np.trace(Vi @ V0) + np.trace(D.T @ Ui @ D @ Vi) - n * p
                  + p * ld(U1) + n * ld(V1) - p * ld(U0) - n * ld(V0))


def _eigh_kl(m0, S0, m1, S1):
    """Reference route: KL from the eigenvalues λ of S₁^(-1/2) S₀ S₁^(-1/2), ½Σ(λ − 1 − log λ) + ½ dᵀS₁⁻¹d."""
    w, Q = np.linalg.eigh(S1)
    root = (Q / np.sqrt(w)) @ Q.T
    lam = np.linalg.eigvalsh(root @ S0 @ root)
    return 0.5 * (np.sum(lam - 1.0 - np.log(lam)) + np.sum((Q.T @ (m1 - m0)) ** 2 / w))


class GaussianKL:
    params = [10, 100, 900]
    param_names = ["K"]

    def setup(self, K):
        rng = np.random.default_rng(0)
        self.args = (rng.normal(size=K), random_spd(rng, K, 100.0), rng.normal(size=K), random_spd(rng, K, 100.0))
        self.diag_args = (self.args[0], np.diag(self.args[1]).copy(), self.args[2], np.diag(self.args[3]).copy())

    def time_symcheck_kl_gaussian(self, K):
        kl_gaussian(*self.args)

    def time_numpy_inv_det(self, K):
        _numpy_kl(*self.args)

    def time_symcheck_kl_gaussian_diagonal(self, K):
        kl_gaussian(*self.diag_args)

    def time_numpy_diagonal(self, K):
        m0, s0, m1, s1 = self.diag_args
        0.5 * (np.sum(s0 / s1) + np.sum((m1 - m0) ** 2 / s1) - K + np.sum(np.log(s1)) - np.sum(np.log(s0)))

    def track_symcheck_vs_eigh_relative_difference(self, K):
        ref = _eigh_kl(*self.args)
        return abs(kl_gaussian(*self.args) - ref) / abs(ref)

    def track_numpy_inv_det_vs_eigh_relative_difference(self, K):
        ref = _eigh_kl(*self.args)
        return abs(_numpy_kl(*self.args) - ref) / abs(ref)

    track_symcheck_vs_eigh_relative_difference.unit = "relative"
    track_numpy_inv_det_vs_eigh_relative_difference.unit = "relative"


class MatrixNormalKL:
    params = ["30x30", "10x60"]  # strings: a list of tuples would read as two parameter axes
    param_names = ["n_p"]

    def setup(self, n_p):
        n, p = map(int, n_p.split("x"))
        rng = np.random.default_rng(1)
        self.args = (rng.normal(size=(n, p)), random_spd(rng, n, 100.0), random_spd(rng, p, 100.0),
                     rng.normal(size=(n, p)), random_spd(rng, n, 100.0), random_spd(rng, p, 100.0))
        M0, U0, V0, M1, U1, V1 = self.args
        self.dense_args = (M0.reshape(-1, order="F"), np.kron(V0, U0), M1.reshape(-1, order="F"), np.kron(V1, U1))

    def time_symcheck_closed(self, n_p):
        kl_matrix_normal(*self.args)

    def time_symcheck_dense(self, n_p):
        kl_matrix_normal(*self.args, method="dense")

    def time_numpy_closed_inv_det(self, n_p):
        _numpy_matrix_normal_kl(*self.args)

    def time_numpy_dense_inv_det(self, n_p):
        _numpy_kl(*self.dense_args)

    def track_closed_vs_dense_relative_difference(self, n_p):
        dense = kl_matrix_normal(*self.args, method="dense")
        return abs(kl_matrix_normal(*self.args) - dense) / abs(dense)

    def track_numpy_dense_vs_dense_relative_difference(self, n_p):
        """NaN (asv: n/a) where the baseline's determinant ratio overflows (30x30: a 900 x 900 Kronecker factor)."""
        dense = kl_matrix_normal(*self.args, method="dense")
        with np.errstate(over="ignore", invalid="ignore"):
            err = abs(_numpy_kl(*self.dense_args) - dense) / abs(dense)
        return err if np.isfinite(err) else float("nan")  # asv publish cannot store inf

    track_closed_vs_dense_relative_difference.unit = "relative"
    track_numpy_dense_vs_dense_relative_difference.unit = "relative"
