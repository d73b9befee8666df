"""Closed-form KL divergences between Gaussians, and the optimal factored Gaussian.

Everything here is KL[0 ‖ 1] = E_0[log p_0 − log p_1] for Gaussians, computed with Cholesky
factors, triangular solves and log-determinants from the factors' diagonals (no explicit
inverse, no determinant that could overflow):

multivariate Gaussians
    KL[N(m₀, S₀) ‖ N(m₁, S₁)] = ½ ( tr(S₁⁻¹S₀) + (m₁−m₀)ᵀS₁⁻¹(m₁−m₀) − K + log|S₁| − log|S₀| ),
    with tr(S₁⁻¹S₀) = ‖L₁⁻¹L₀‖²_F and (m₁−m₀)ᵀS₁⁻¹(m₁−m₀) = ‖L₁⁻¹(m₁−m₀)‖² for S = LLᵀ.
    Near S₀ = S₁ this is a small difference of O(K) terms, so :func:`kl_gaussian` evaluates it
    there as ½ Σ (μᵢ − log1p μᵢ) + ½‖L₁⁻¹(m₁−m₀)‖², μ the eigenvalues of L₁⁻¹(S₀ − S₁)L₁⁻ᵀ
    (relative accuracy), and returns a first-order error bound on request. It takes full
    covariances or 1-D diagonal variances for either side.
matrix-variate Gaussians
    MN(M, U, V) for n × p matrices is N(vec M, V ⊗ U) with vec column-major (Fortran order),
    U (n × n) the row covariance and V (p × p) the column covariance. The closed form
    (Louizos & Welling, supp. Sec. 1, eqs. (1)–(4)) is
    KL = ½ ( tr(U₁⁻¹U₀) tr(V₁⁻¹V₀) + tr((M₁−M₀)ᵀU₁⁻¹(M₁−M₀)V₁⁻¹) − np
             + p log|U₁| + n log|V₁| − p log|U₀| − n log|V₀| ).
    :func:`kl_matrix_normal` evaluates it in O(n³ + p³), or by the dense Kronecker route
    (``method="dense"``, O(n³p³)) as an independent check.
optimal factored Gaussian
    The Gaussian q = Π_b N(x_b; μ_b, C_b) over blocks b of the coordinates that minimises
    KL[q ‖ N(μ, Σ)] has the means of p and block precisions C_b⁻¹ = (Σ⁻¹)_bb, the diagonal
    blocks of p's precision (Turner, Berkes & Sahani, Sec. 1, eq. (3), with the precision
    corrected as the text states); its KL is −½ log|Σ⁻¹| + ½ Σ_b log|(Σ⁻¹)_bb| ≥ 0.
    :func:`optimal_factored_gaussian` returns it; :func:`fit_factored_gaussian_numerically`
    finds the mean-field optimum by direct numerical minimisation of the dense KL, the
    brute-force route the claims compare against.

References
----------
C. Louizos, M. Welling, Structured and Efficient Variational Deep Learning with Matrix
Gaussian Posteriors, supplementary material, Sec. 1.
R. E. Turner, P. Berkes, M. Sahani, Technical Report for Biases in Variational Learning, Sec. 1.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize
from scipy.linalg import blas

from symcheck._checks import (
    as_finite_array,
    check_alloc,
    check_bool,
    check_choice,
    check_finite_result,
    check_int,
    check_positive_definite,
    check_positive_float,
    check_rng,
)
from symcheck.evidence import EPS, gamma

__all__ = [
    "fit_factored_gaussian_numerically",
    "kl_gaussian",
    "kl_matrix_normal",
    "optimal_factored_gaussian",
    "random_spd",
]

#: Functions implementing a paper's result under another name (read by the report's equation index).
EQUATIONS = {
    "kl_matrix_normal": ("louizos", "eq. (4)"),
    "optimal_factored_gaussian": ("turner", "eq. (3)"),
}


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------


def _as_mean(m, name: str, size: int | None = None, match: str = "m0") -> np.ndarray:
    arr = as_finite_array(m, name, ndim_min=1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D mean vector, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} must have length {size} to match {match}, got length {arr.size}")
    return arr


def _as_cov(S, name: str, size: int) -> np.ndarray:
    """A full covariance (2-D, symmetric positive definite) or diagonal variances (1-D, > 0)."""
    arr = as_finite_array(S, name, ndim_min=1)
    if arr.ndim == 1:
        if arr.size != size:
            raise ValueError(f"{name} as diagonal variances must have length {size} to match m0, got {arr.size}")
        if np.any(arr <= 0):
            raise ValueError(f"{name} must be positive definite: diagonal variances must be > 0")
        return arr
    return check_positive_definite(arr, name, size=size, match="m0")


def _as_matrix_mean(M, name: str, shape: tuple[int, int] | None = None) -> np.ndarray:
    arr = as_finite_array(M, name, ndim_min=2)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be an n x p matrix, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} to match M0, got {arr.shape}")
    return arr


# ---------------------------------------------------------------------------------------
# Gaussian KL pieces from Cholesky factors
# ---------------------------------------------------------------------------------------


def _logdet(L: np.ndarray) -> float:
    """log|LLᵀ| = 2 Σ log Lᵢᵢ for a lower Cholesky factor L."""
    return 2.0 * float(np.sum(np.log(np.diag(L))))


def _solve_lower(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """L⁻¹B for a lower-triangular factor L.

    Calls BLAS ``dtrsm`` directly: ``scipy.linalg.solve_triangular`` goes through LAPACK
    ``dtrtrs``, which was measured here at ~0.7–5 ms per 5 × 5 solve on a loaded machine
    (versus ~1 µs for ``dtrsm``), and the numerical minimisations call this thousands of times.
    """
    if B.ndim == 1:
        return blas.dtrsm(1.0, L, B[:, None], lower=1)[:, 0]
    return blas.dtrsm(1.0, L, B, lower=1)


def _trace_term(L1: np.ndarray, L0: np.ndarray) -> float:
    """tr(S₁⁻¹S₀) = ‖L₁⁻¹L₀‖²_F."""
    A = _solve_lower(L1, L0)
    return float(np.sum(A * A))


#: ‖M‖_F at or below which :func:`kl_gaussian` takes the eigenvalue route (every |μ| ≤ ½, 1 + μ ≥ ½).
_SMALL = 0.5
#: Terms of the series of x − log1p(x) in y² (|y| ≤ ⅓): the first left out is below 9⁻¹⁸/39 ≈ 4e-20.
_SERIES_TERMS = 18
#: Relative error allowed for `_x_minus_log1p` (its float64 rounding; measured in tests/test_kl.py).
_F_ROUNDING = 16 * (EPS / 2)
#: p(K)/K in the eigenvalue error |μ̂ − μ| ≤ p(K)·u·‖M‖₂ of ``eigvalsh`` (not proven: LAPACK gives no
#: constant; measured against mpmath.eigsy at 40 digits on 1100 symmetric matrices, K = 2 to 40:
#: at most 3.2·K, at K = 3, and 0.31·K at K = 40).
_EIGVALSH_PER_K = 16
#: The smallest normal float64: the absolute error of x − log1p(x) once x² underflows.
_TINY = float(np.finfo(float).tiny)


def _x_minus_log1p(x: np.ndarray) -> np.ndarray:
    """x − log1p(x) for |x| ≤ ½, to a few ulps of the result (no cancellation).

    With y = x/(2 + x), log1p(x) = 2 atanh(y) = 2(y + y³/3 + y⁵/5 + …) and x − 2y = xy, so
    x − log1p(x) = xy − 2y³ Σₖ y²ᵏ/(2k + 3). For |x| ≤ ½, |y| ≤ ⅓: xy = x²/(2 + x) ≥ 0 is the
    leading term and 2|y|³/3 at most 6 % of it, so the difference loses no digits; the series in
    y² ≤ 1/9 has positive terms and is summed by Horner's rule.
    """
    y = x / (2.0 + x)
    z = y * y
    s = np.zeros_like(x)
    for k in range(_SERIES_TERMS - 1, -1, -1):
        s = s * z + 1.0 / (2 * k + 3)
    return x * y - 2.0 * y * z * s


def _abs_sum(A: np.ndarray, B: np.ndarray) -> float:
    """Σᵢⱼ |Aᵢⱼ|·|Bᵢⱼ|, a bound on |tr(A Bᵀ)|."""
    return float(np.sum(np.abs(A) * np.abs(B)))


def _kl_diagonal(delta, s0, s1, return_error):
    """KL for 1-D variances, coordinate by coordinate: μ = (s0 − s1)/s1, and x − log1p(x) where |μ| ≤ ½."""
    u = EPS / 2
    K = delta.size
    mu = (s0 - s1) / s1
    small = np.abs(mu) <= _SMALL
    ratio = s0[~small] / s1[~small]
    terms = np.empty(K)
    terms[small] = _x_minus_log1p(mu[small])
    log_ratio = np.log(ratio)
    terms[~small] = mu[~small] - log_ratio
    maha_terms = delta * delta / s1
    maha = float(np.sum(maha_terms))
    kl = 0.5 * (float(np.sum(terms)) + maha)
    if not return_error:
        return kl, None
    a = np.abs(mu)
    # μ carries 2u relative; f' = μ/(1 + μ); f to _F_ROUNDING; the log route: ratio (u), log (≤ 2u relative, 1 ulp), μ, subtraction
    e_terms = np.empty(K)
    e_terms[small] = 2 * u * a[small] ** 2 / (1.0 + mu[small]) + _F_ROUNDING * terms[small]
    e_terms[~small] = 2 * u * a[~small] + u + 2 * u * np.abs(log_ratio) + u * terms[~small]
    e_cov = float(np.sum(e_terms)) + gamma(K) * float(np.sum(terms)) + K * _TINY
    e_maha = (4 * u + gamma(K)) * maha  # δ rounded (twice, squared), square, division; the sum
    return kl, 2.0 * (0.5 * (e_cov + e_maha) + u * kl)


def _kl_full(delta, S0, S1, return_error):
    """KL for full covariances (module notes of :func:`kl_gaussian`): M = L1⁻¹(S0 − S1)L1⁻ᵀ, then
    the eigenvalue route (‖M‖_F ≤ ½) or the trace and log-determinant route; with the error bound."""
    u = EPS / 2
    K = delta.size
    L1 = np.linalg.cholesky(S1)
    D = S0 - S1
    X = _solve_lower(L1, D)  # L1⁻¹D
    M_raw = _solve_lower(L1, X.T)  # L1⁻¹ D L1⁻ᵀ (D symmetric)
    M = 0.5 * (M_raw + M_raw.T)
    r = _solve_lower(L1, delta)
    maha = float(r @ r)
    eigen = float(np.sqrt(np.sum(M * M))) <= _SMALL
    if eigen:
        mu = np.linalg.eigvalsh(M)
        f = _x_minus_log1p(mu)
        cov = float(np.sum(f))
    else:
        L0 = np.linalg.cholesky(S0)
        A = _solve_lower(L1, L0)
        trace = float(np.sum(A * A))  # tr(S1⁻¹S0) = ‖L1⁻¹L0‖²_F
        ld1, ld0 = _logdet(L1), _logdet(L0)
        cov = trace - K + ld1 - ld0
    kl = 0.5 * (cov + maha)
    if not return_error:
        return kl, None
    # first-order bound (module notes); Linv = L1⁻¹ (its own rounding is second order)
    Linv = _solve_lower(L1, np.eye(K))
    aL, aLinv = np.abs(L1), np.abs(Linv)
    LLt = aL @ aL.T  # Cholesky backward error of S1: |E1| ≤ γ_{K+1}|L1||L1ᵀ| (Higham Thm 10.3)
    w = Linv.T @ r  # S1⁻¹δ
    e_maha = (gamma(K + 1) * float(np.sum((aL.T @ np.abs(w)) ** 2))  # E1
              + 2 * gamma(K + 1) * float(np.abs(w) @ (aL @ np.abs(r)))  # the solve for r (Higham Thm 8.5)
              + 2 * u * float(np.abs(w) @ np.abs(delta))  # δ = m1 − m0 rounded
              + gamma(K) * maha)  # r·r
    if eigen:
        # the two solves for M: |ΔM| ≤ γ_{K+1}(|L1⁻¹||X||L1ᵀ||L1⁻ᵀ| + |L1⁻¹||L1||M|), plus u|M| for the symmetrisation
        dM = gamma(K + 1) * (aLinv @ np.abs(X).T @ aL.T @ aLinv.T + aLinv @ (aL @ np.abs(M_raw))) + u * np.abs(M)
        fp = np.linalg.solve(np.eye(K) + M, M)  # f'(M) = M(I + M)⁻¹, symmetric
        e_cov = (u * _abs_sum(Linv.T @ fp @ Linv, D)  # D = S0 − S1 rounded: tr(L1⁻ᵀ f'(M) L1⁻¹ F)
                 + gamma(K + 1) * _abs_sum(Linv.T @ (M @ fp) @ Linv, LLt)  # E1 moves S0 − S1 by nothing: M²(I + M)⁻¹
                 + _abs_sum(fp, dM)  # the solves: tr(f'(M) ΔM)
                 + _EIGVALSH_PER_K * K * u * float(np.max(np.abs(mu))) * float(np.sum(np.abs(mu) / (1.0 + mu)))
                 + (_F_ROUNDING + gamma(K)) * cov  # x − log1p(x) and the sum
                 + K * _TINY)  # x² underflowing for |x| < 1e-154
    else:
        L0inv = _solve_lower(L0, np.eye(K))
        aL0 = np.abs(L0)
        logs = float(np.abs(np.log(np.diag(L1))).sum() + np.abs(np.log(np.diag(L0))).sum())
        e_cov = (gamma(K + 1) * _abs_sum(Linv.T @ Linv - L0inv.T @ L0inv, aL0 @ aL0.T)  # E0: tr((S1⁻¹ − S0⁻¹)E0)
                 + gamma(K + 1) * _abs_sum(Linv.T @ M @ Linv, LLt)  # E1: tr(S1⁻¹S0S1⁻¹E1) − tr(S1⁻¹E1)
                 + 2 * gamma(K + 1) * _abs_sum(A, aLinv @ (aL @ np.abs(A)))  # the solve L1⁻¹L0
                 + gamma(K * K) * trace  # its squares and their sum
                 + 2 * (2 * u + gamma(K)) * logs  # the logarithms (≤ 1 ulp) and their sums
                 + gamma(4) * (trace + maha + K + 2 * logs))  # ‖L1⁻¹L0‖² + maha − K + log|S1| − log|S0|
    return kl, 2.0 * (0.5 * (e_cov + e_maha) + u * abs(kl))


def kl_gaussian(m0, S0, m1, S1, return_error: bool = False):
    """KL[N(m0, S0) ‖ N(m1, S1)] between two multivariate Gaussians, optionally with an error bound.

    Parameters
    ----------
    m0, m1 : array_like, shape (K,)
        Means.
    S0, S1 : array_like, shape (K, K) or (K,)
        Covariances: a symmetric positive-definite matrix, or a 1-D array of positive
        diagonal variances (either side independently).
    return_error : bool
        Also return an absolute error figure for the float64 evaluation.

    Returns
    -------
    kl : float
        ½ (tr(S1⁻¹S0) + (m1−m0)ᵀS1⁻¹(m1−m0) − K + log|S1| − log|S0|) ≥ 0.
    error : float
        Only with ``return_error``: a first-order bound on |kl − KL| for the exact KL of the
        float64 inputs (Notes), doubled to cover second-order terms.

    Raises
    ------
    ValueError
        Non-finite entries, mismatched shapes, a non-symmetric or non-positive-definite
        covariance, or a non-positive variance (the message names the argument).

    Notes
    -----
    With S1 = L1L1ᵀ, D = S0 − S1 and M = L1⁻¹DL1⁻ᵀ (eigenvalues μ > −1), the KL is
    ½ Σᵢ (μᵢ − log1p μᵢ) + ½‖L1⁻¹δ‖², δ = m1 − m0; no term of size K is ever formed, so pairs
    with S0 ≈ S1 (KL ~ ‖M‖²_F/4) keep their relative accuracy. Route: when ‖M‖_F ≤ ½
    (every |μ| ≤ ½), the μ of ``eigvalsh(M)`` and x − log1p(x) by a cancellation-free series
    (`_x_minus_log1p`); otherwise 1 + μ may be tiny and ill-determined by M, so the covariance part is
    the former ‖L1⁻¹L0‖²_F − K + log|S1| − log|S0|, log-determinants 2 Σ log Lᵢᵢ of both Cholesky
    factors (then KL ≳ 0.05; the Cholesky error of S0 moves its trace and log-determinant terms
    together, by ½ tr((S1⁻¹ − S0⁻¹)E0), which tr M with a separate log|S0| would not do). 1-D variances on both sides take the same choice per
    coordinate, μₖ = (s0ₖ − s1ₖ)/s1ₖ; one 1-D side is made a diagonal matrix.

    The error bound adds, to first order, the effect of every rounding of the algorithm: the
    Cholesky backward error |E| ≤ γ_{K+1}|L||Lᵀ| (Higham 2002, Thm 10.3), which moves S0 − S1 not at
    all on the eigenvalue route (E1 enters both: a second-order change, M²(I + M)⁻¹); each triangular
    solve's |ΔL| ≤ γ_{K+1}|L| (Higham Thm 8.5, column by column, with one more rounding for a BLAS
    that multiplies by the reciprocals of the diagonal); the rounding of S0 − S1 and m1 − m0
    (u relative); the sums (γ_K) and the logarithms (≤ 1 ulp). Each is propagated through the
    derivative of the KL (f'(μ) = μ/(1 + μ) for the eigenvalue route, so the figure is relative
    there too) with componentwise sums |G|∘|E| computed from L1⁻¹ (an extra O(K³), only with
    ``return_error``). Not proven: ``eigvalsh`` (LAPACK dsyevd) is normwise backward stable,
    |μ̂ᵢ − μᵢ| ≤ p(K)·u·‖M‖₂ with p "a modestly growing function" (LAPACK Users' Guide, Sec. 4.7);
    p(K) = 16K is used (measured at most 3.2K, `_EIGVALSH_PER_K`); the rounding of x − log1p(x) is
    allowed 16u relative (measured 3.1u, `_F_ROUNDING`); the factor 2 for the second-order terms
    is not derived. So the figure is a first-order bound with measured constants, not a proof. Against the 50-digit references of `symcheck.testing.kl` (seeds 0–4,
    every family, 1-D variances too) and 62 further pairs with κ up to 1e8 (tests/test_kl.py), the
    true error was at most 0.20 of the figure (0.05 on the further pairs). Cost: the
    eigenvalue route adds a triangular solve and ``eigvalsh`` (measured ×1.3 at K = 10 and ×2.5
    at K = 100 against the former ‖L1⁻¹L0‖²_F formula, single-threaded BLAS), the trace route the
    two solves for M (×1.1, ×2.0); ``return_error`` a further ×1.7–2.2 (O(K³) products with L1⁻¹).
    """
    m0 = _as_mean(m0, "m0")
    K = m0.size
    m1 = _as_mean(m1, "m1", size=K)
    S0 = _as_cov(S0, "S0", K)
    S1 = _as_cov(S1, "S1", K)
    return _kl_gaussian_checked(m0, S0, m1, S1, check_bool(return_error, "return_error"))


def _kl_gaussian_checked(m0, S0, m1, S1, return_error: bool = False):
    """:func:`kl_gaussian` of arguments it has already checked (float64 means of one length K; covariances
    K × K symmetric positive definite or K positive variances), for inner loops that vary one argument
    whose validity they ensure themselves (the numerical minimisations: ~20 000 calls per claim run)."""
    delta = m1 - m0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a KL beyond float64 is refused below
        if S0.ndim == 1 and S1.ndim == 1:
            kl, error = _kl_diagonal(delta, S0, S1, return_error)
        else:
            kl, error = _kl_full(delta, np.diag(S0) if S0.ndim == 1 else S0,
                                 np.diag(S1) if S1.ndim == 1 else S1, return_error)
    kl = float(check_finite_result(kl, "m0, S0, m1, S1", "the KL divergence"))
    if not return_error:
        return kl
    return kl, (float(error) if np.isfinite(error) else math.inf)


# ---------------------------------------------------------------------------------------
# matrix-variate Gaussians
# ---------------------------------------------------------------------------------------


def _vec(M: np.ndarray) -> np.ndarray:
    """Column-major vectorisation: stacks the columns of M."""
    return M.reshape(-1, order="F")


def kl_matrix_normal(M0, U0, V0, M1, U1, V1, method: str = "closed") -> float:
    """KL[MN(M0, U0, V0) ‖ MN(M1, U1, V1)] between matrix-variate Gaussians.

    MN(M, U, V) is the law of an n × p matrix X with vec(X) ~ N(vec(M), V ⊗ U), vec
    column-major; U (n × n) is the row covariance, V (p × p) the column covariance.

    Parameters
    ----------
    M0, M1 : array_like, shape (n, p)
        Means.
    U0, U1 : array_like, shape (n, n)
        Row covariances (symmetric positive definite).
    V0, V1 : array_like, shape (p, p)
        Column covariances (symmetric positive definite).
    method : {"closed", "dense"}
        ``"closed"``: Louizos & Welling, supp. Sec. 1, eq. (4), from Cholesky factors of the
        four n × n and p × p matrices, O(n³ + p³ + n²p + np²). ``"dense"``: build the
        np × np Kronecker covariances and call :func:`kl_gaussian`, O(n³p³); the
        independent route.

    Returns
    -------
    float

    Notes
    -----
    Closed form: ½ (tr(U1⁻¹U0) tr(V1⁻¹V0) + tr(Dᵀ U1⁻¹ D V1⁻¹) − np + p log|U1| + n log|V1|
    − p log|U0| − n log|V0|) with D = M1 − M0, using |V ⊗ U| = |V|ⁿ |U|ᵖ. The
    Mahalanobis term is ‖L_U1⁻¹ D L_V1⁻ᵀ‖²_F. The overall scale of (U, V) is not
    identified (cU, V/c give the same law); the KL does not depend on it.
    """
    method = check_choice(method, "method", ("closed", "dense"))
    M0 = _as_matrix_mean(M0, "M0")
    n, p = M0.shape
    M1 = _as_matrix_mean(M1, "M1", shape=(n, p))
    U0 = check_positive_definite(U0, "U0", size=n, match="M0")
    U1 = check_positive_definite(U1, "U1", size=n, match="M0")
    V0 = check_positive_definite(V0, "V0", size=p, match="M0")
    V1 = check_positive_definite(V1, "V1", size=p, match="M0")
    names = "M0, U0, V0, M1, U1, V1"
    if method == "dense":
        check_alloc((n * p) ** 2, names)
        try:
            return kl_gaussian(_vec(M0), np.kron(V0, U0), _vec(M1), np.kron(V1, U1))
        except ValueError as err:  # the Kronecker products and vec(M) are not the caller's arguments
            raise ValueError(f"{names} (dense route): {err}") from None
    with np.errstate(over="ignore", invalid="ignore"):
        LU0, LU1 = np.linalg.cholesky(U0), np.linalg.cholesky(U1)
        LV0, LV1 = np.linalg.cholesky(V0), np.linalg.cholesky(V1)
        t_a = _trace_term(LU1, LU0) * _trace_term(LV1, LV0)
        A = _solve_lower(LU1, M1 - M0)  # L_U1⁻¹ D, n × p
        B = _solve_lower(LV1, A.T)  # L_V1⁻¹ Dᵀ L_U1⁻ᵀ, p × n
        t_b = float(np.sum(B * B))
        t_c = p * (_logdet(LU1) - _logdet(LU0)) + n * (_logdet(LV1) - _logdet(LV0))
        kl = 0.5 * (t_a + t_b - n * p + t_c)
    return float(check_finite_result(kl, names, "the KL divergence"))


# ---------------------------------------------------------------------------------------
# the optimal factored Gaussian
# ---------------------------------------------------------------------------------------


def _as_blocks(blocks, K: int) -> list[np.ndarray]:
    try:
        out = [np.asarray(b).reshape(-1) for b in blocks]
    except TypeError:
        raise ValueError("blocks must be a sequence of index sequences") from None
    for b in out:
        if b.size == 0 or not np.issubdtype(b.dtype, np.integer):
            raise ValueError("blocks must be non-empty sequences of integer indices")
    flat = np.concatenate(out)
    if flat.size != K or not np.array_equal(np.sort(flat), np.arange(K)):
        raise ValueError(f"blocks must partition the indices 0..{K - 1} (each exactly once)")
    return [b.astype(np.intp) for b in out]


def optimal_factored_gaussian(mean, cov, blocks=None):
    """The factored Gaussian q minimising KL[q ‖ N(mean, cov)], and that KL.

    Parameters
    ----------
    mean : array_like, shape (K,)
        Mean of the target Gaussian p.
    cov : array_like, shape (K, K)
        Covariance of p (symmetric positive definite).
    blocks : sequence of index sequences, optional
        A partition of 0..K−1 into the factors of q. ``None`` (default): the mean-field
        family, one factor per coordinate.

    Returns
    -------
    means : ndarray, shape (K,)
        The optimal means, equal to ``mean``.
    covs : ndarray, shape (K,), or list of ndarray
        Mean-field: the optimal variances 1 / (cov⁻¹)_kk. Blocks: the list of optimal
        block covariances ((cov⁻¹)_bb)⁻¹, in the order of ``blocks``.
    kl : float
        min_q KL[q ‖ p] = −½ log|cov⁻¹| + ½ Σ_b log|(cov⁻¹)_bb| (0 iff p factorises).

    Notes
    -----
    Setting the gradient of KL[q ‖ p] to zero gives means μ and block precisions
    (Σ⁻¹)_bb (Turner, Berkes & Sahani, Sec. 1, eq. (3), whose printed variance 1/Σ²_kk
    is corrected here to 1/(Σ⁻¹)_kk, as that section's text says). With Σ = LLᵀ, the
    columns of L⁻¹ give the blocks of Σ⁻¹ = L⁻ᵀL⁻¹ without forming the inverse of Σ.
    The optimal variance never exceeds the marginal variance Σ_kk (compactness).
    """
    mean = _as_mean(mean, "mean")
    K = mean.size
    cov = check_positive_definite(cov, "cov", size=K, match="mean")
    parts = None if blocks is None else _as_blocks(blocks, K)
    L = np.linalg.cholesky(cov)
    half_logdet_cov = 0.5 * _logdet(L)
    names = "cov"
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        Linv = _solve_lower(L, np.eye(K))
        if parts is None:
            prec_diag = np.sum(Linv * Linv, axis=0)
            kl = half_logdet_cov + 0.5 * float(np.sum(np.log(prec_diag)))
            check_finite_result(np.concatenate([prec_diag, 1.0 / prec_diag, [kl]]), names,
                                "the optimal variances or their KL")
            return mean.copy(), 1.0 / prec_diag, kl
        covs = []
        kl = half_logdet_cov
        for b in parts:
            C = check_finite_result(Linv[:, b], names, "the precision (cov⁻¹)")
            try:
                Lb = np.linalg.cholesky(C.T @ C)  # block precision (Σ⁻¹)_bb = CᵀC
            except np.linalg.LinAlgError:
                raise ValueError(f"{names}: a block of the precision is not numerically positive definite") from None
            kl += 0.5 * _logdet(Lb)
            Lb_inv = _solve_lower(Lb, np.eye(b.size))
            covs.append(check_finite_result(Lb_inv.T @ Lb_inv, names, "an optimal block covariance"))
    return mean.copy(), covs, float(check_finite_result(kl, names, "the KL of the optimum"))


def fit_factored_gaussian_numerically(mean, cov, x0=None, gtol: float = 1e-9):
    """Mean-field Gaussian minimising KL[q ‖ N(mean, cov)] by direct numerical minimisation.

    The brute-force route: BFGS (scipy) over the means and log-variances of q, with
    :func:`kl_gaussian` of the dense Gaussians as a black-box objective and its gradient
    by central finite differences. Nothing about the form of the optimum is used, so the
    returned parameters are accurate only to the optimiser's tolerance (central differences
    carry a relative gradient error of about eps^(2/3) ≈ 4e-11, divided by the curvature);
    the returned KL is an upper bound on the minimum.

    Parameters
    ----------
    mean, cov : array_like
        The target Gaussian p (K and K × K).
    x0 : array_like, shape (2K,), optional
        Start [means, log-variances]; default: zero means and log Σ_kk.
    gtol : float
        BFGS gradient tolerance.

    Returns
    -------
    means : ndarray, shape (K,)
    variances : ndarray, shape (K,)
    kl : float
        The KL at the returned point (an upper bound on the minimum).
    """
    mean = _as_mean(mean, "mean")
    K = mean.size
    cov = check_positive_definite(cov, "cov", size=K, match="mean")
    gtol = check_positive_float(gtol, "gtol")
    if x0 is None:
        x0 = np.concatenate([np.zeros(K), np.log(np.diag(cov))])
    x0 = _as_mean(x0, "x0", size=2 * K, match="mean (2 K: means, then log-variances)")
    names = "mean, cov, x0"

    def objective(x):
        with np.errstate(over="ignore", under="ignore"):
            v = np.exp(x[K:])
        if not np.all((v > 0) & np.isfinite(v)):
            return np.inf  # a variance outside float64: the line search steps back
        try:  # v > 0 and finite: the arguments kl_gaussian would check are valid (x[:K] non-finite: KL refused)
            return _kl_gaussian_checked(x[:K], v, mean, cov)
        except ValueError:  # the KL itself overflows at this point
            return np.inf

    if not np.isfinite(objective(x0)):
        raise ValueError(f"{names}: the KL at the starting point is not finite in float64")
    with np.errstate(over="ignore", invalid="ignore"):
        res = optimize.minimize(objective, x0, method="BFGS", jac="3-point",
                                options={"gtol": gtol, "maxiter": 2000})
    with np.errstate(over="ignore"):
        out = res.x[:K].copy(), np.exp(res.x[K:]), float(res.fun)
    check_finite_result(np.concatenate([out[0], out[1], [out[2]]]), names, "the BFGS result")
    return out


def random_spd(rng, size: int, cond: float = 10.0) -> np.ndarray:
    """A random symmetric positive-definite matrix with condition number ``cond``.

    Eigenvectors are Haar-distributed (QR of a Gaussian matrix); eigenvalues are
    log-uniform in [cond^(-1/2), cond^(1/2)] with both ends attained (for size ≥ 2), so the
    2-norm condition number is ``cond`` up to rounding. Used by the tests and claims to
    reach near-singular covariances deliberately.

    Parameters
    ----------
    rng : numpy.random.Generator or int
    size : int
        Dimension (>= 1).
    cond : float
        Condition number (>= 1).
    """
    rng = check_rng(rng)
    size = check_int(size, "size", minimum=1)
    cond = check_positive_float(cond, "cond")
    if cond < 1:
        raise ValueError(f"cond must be >= 1, got {cond}")
    Q, R = np.linalg.qr(rng.standard_normal((size, size)))
    Q = Q * np.sign(np.diag(R))
    u = rng.uniform(-0.5, 0.5, size=size)
    if size >= 2:
        u[:2] = (-0.5, 0.5)
    S = (Q * np.exp(u * np.log(cond))) @ Q.T
    return 0.5 * (S + S.T)
