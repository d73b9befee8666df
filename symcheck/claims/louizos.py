"""Claims on Louizos & Welling, supplementary note, Sec. 1: KL between matrix-variate Gaussians.

Each printed term (eqs. (1)–(3)) and the assembled KL (eq. (4)) is implemented literally
(explicit inverses and determinants, as printed) in :mod:`symcheck.models.louizos` and compared with the dense route: the
np × np Kronecker covariance V ⊗ U with vec column-major, linear solves and ``slogdet``.
The vec/Kronecker convention itself is checked against ``scipy.stats.matrix_normal``, and
the general Gaussian KL the note starts from against Gauss–Hermite quadrature of the
log-density ratio (exact for its quadratic integrand).

Parameters: random n × p shapes with n ≠ p (so that swapped exponents n ↔ p would show),
degenerate shapes 1 × p and n × 1, near-singular U or V (condition 1e8), equal means
(t_b = 0) and equal distributions (KL = 0).

Tolerance (float64): the dense route solves with V₁ ⊗ U₁, whose condition number is
cond(U₁)·cond(V₁), and takes log-determinants of V₀ ⊗ U₀ and V₁ ⊗ U₁ (an eigenvalue λ
of a matrix with condition κ carries a relative error ~ eps·κ); each of the O(np) terms
then has relative error ≲ np·eps·κ with κ = max(cond(U₁)cond(V₁), cond(U₀)cond(V₀)), so
the comparison allows 64·np·eps·κ·scale, with scale the sum of the absolute sizes of the
terms (|t_a| + |t_b| + np + max(n, p)·|log-determinants|).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy import stats

from symcheck.claims import Claim, evidence_from_rows, register
from symcheck.evidence import ROUNDING
from symcheck.kl import kl_gaussian, random_spd
from symcheck.models import louizos as lw

EPS = np.finfo(float).eps


def _vec(M):
    return np.asarray(M).reshape(-1, order="F")


# ---------------------------------------------------------------------------------------
# the dense routes
# ---------------------------------------------------------------------------------------


def _dense_trace(U0, V0, U1, V1):
    return float(np.trace(np.linalg.solve(np.kron(V1, U1), np.kron(V0, U0))))


def _dense_mahalanobis(M0, M1, U1, V1):
    d = _vec(M1 - M0)
    return float(d @ np.linalg.solve(np.kron(V1, U1), d))


def _dense_logdet(U0, V0, U1, V1):
    return float(np.linalg.slogdet(np.kron(V1, U1))[1] - np.linalg.slogdet(np.kron(V0, U0))[1])


def _dense_kl(M0, U0, V0, M1, U1, V1):
    return kl_gaussian(_vec(M0), np.kron(V0, U0), _vec(M1), np.kron(V1, U1))


# ---------------------------------------------------------------------------------------
# parameter cases and tolerance
# ---------------------------------------------------------------------------------------


def _cases(rng):
    """(label, (M0, U0, V0, M1, U1, V1)) over random, degenerate and near-singular inputs."""
    out = []

    def add(label, n, p, condU1=10.0, condV0=10.0, same_mean=False, same=False):
        M0 = rng.normal(size=(n, p))
        U0, V0 = random_spd(rng, n, 10.0), random_spd(rng, p, condV0)
        if same:
            out.append((label, (M0, U0, V0, M0.copy(), U0.copy(), V0.copy())))
            return
        M1 = M0.copy() if same_mean else rng.normal(size=(n, p))
        out.append((label, (M0, U0, V0, M1, random_spd(rng, n, condU1), random_spd(rng, p, 10.0))))

    for n, p in [(3, 5), (4, 2), (2, 6)]:
        add(f"random {n}x{p}", n, p)
    add("row vector 1x5", 1, 5)
    add("column vector 5x1", 5, 1)
    add("near-singular U1 (cond 1e8), 3x4", 3, 4, condU1=1e8)
    add("near-singular V0 (cond 1e8), 4x3", 4, 3, condV0=1e8)
    add("equal means, 3x2", 3, 2, same_mean=True)
    add("equal distributions, 2x3", 2, 3, same=True)
    return out


def _tolerance(args, *terms):
    M0, U0, V0, M1, U1, V1 = args
    n, p = M0.shape
    # solves with V1 ⊗ U1 and log-determinants of both Kronecker products
    cond = max(np.linalg.cond(U1) * np.linalg.cond(V1), np.linalg.cond(U0) * np.linalg.cond(V0))
    logdets = [abs(np.linalg.slogdet(A)[1]) * max(n, p) for A in (U0, V0, U1, V1)]
    scale = n * p + sum(abs(t) for t in terms) + sum(logdets)
    return ROUNDING * n * p * cond * scale


def _compare(rng, printed_fn, dense_fn, what):
    """Evidence that ``printed_fn`` equals ``dense_fn`` on every case (worst case reported)."""
    rows = []
    for label, args in _cases(rng):
        pv, dv = printed_fn(*args), dense_fn(*args)
        rows.append((label, pv, dv, _tolerance(args, pv, dv)))
    return evidence_from_rows(rows, f"{what}: printed form vs the dense Kronecker route")


# ---------------------------------------------------------------------------------------
# claims
# ---------------------------------------------------------------------------------------


def _check_vec(rng):
    # scipy.stats.matrix_normal implements the matrix density with U (rowcov, n x n) and
    # V (colcov, p x p); N(vec M, V ⊗ U) with column-major vec must give the same log-density.
    rows, contrast = [], 0.0
    for label, (M0, U0, V0, *_rest) in _cases(rng):
        X = M0 + rng.normal(size=M0.shape)
        mn = stats.matrix_normal(mean=M0, rowcov=U0, colcov=V0).logpdf(X)
        mv = stats.multivariate_normal(_vec(M0), np.kron(V0, U0)).logpdf(_vec(X))
        n, p = M0.shape
        cond = np.linalg.cond(U0) * np.linalg.cond(V0)
        tol = ROUNDING * n * p * cond * (abs(mn) + n * p)
        # the other convention (row-major vec, or U ⊗ V) as a contrast shown in the detail
        other = stats.multivariate_normal(_vec(M0), np.kron(U0, V0)).logpdf(_vec(X)) if n > 1 and p > 1 else mn
        rows.append((label, mv, mn, tol))
        contrast = max(contrast, abs(other - mn))
    ev = evidence_from_rows(rows, "log-density at a random X: N(vec M, V⊗U) vs scipy matrix_normal")
    return replace(ev, detail=ev.detail + f"; the swapped order U⊗V would differ by up to {contrast:.3g}")


register(Claim(
    id="louizos.sec1.vec-kronecker",
    source="Louizos & Welling, supp. Sec. 1 (MN = N(vec M, V ⊗ U))",
    statement=("The matrix-variate Gaussian MN(M, U, V) of n × p matrices (U the n × n row covariance, V the "
               "p × p column covariance) is the multivariate Gaussian N(vec M, V ⊗ U) with vec stacking columns."),
    check=_check_vec,
))

def _gauss_hermite_kl(m0, S0, m1, S1, nodes: int = 4) -> float:
    """E_{N₀}[log N₀(x) − log N₁(x)] by tensor Gauss–Hermite quadrature of scipy log-densities.

    The integrand is a quadratic polynomial in x, which a rule with ``nodes`` >= 2 points per
    dimension integrates exactly, so only rounding separates this from the true KL.
    """
    K = m0.size
    t, w = np.polynomial.hermite.hermgauss(nodes)
    grid = np.stack(np.meshgrid(*([t] * K), indexing="ij"), axis=-1).reshape(-1, K)
    weights = np.prod(np.stack(np.meshgrid(*([w] * K), indexing="ij"), axis=-1).reshape(-1, K), axis=1)
    x = m0 + np.sqrt(2.0) * grid @ np.linalg.cholesky(S0).T
    f = stats.multivariate_normal(m0, S0).logpdf(x) - stats.multivariate_normal(m1, S1).logpdf(x)
    return float(weights @ np.atleast_1d(f) / np.pi ** (K / 2))


def _check_gaussian_kl(rng):
    rows = []
    for label, K, cond in [("K=1", 1, 1.0), ("K=3", 3, 10.0), ("K=4", 4, 100.0), ("K=3, S1 cond 1e6", 3, 1e6)]:
        m0, m1 = rng.normal(size=K), rng.normal(size=K)
        S0, S1 = random_spd(rng, K, 10.0), random_spd(rng, K, cond)
        printed = lw.sec1_gaussian_kl(m0, S0, m1, S1)
        quad = _gauss_hermite_kl(m0, S0, m1, S1)
        # rounding: the log-densities at the nodes reach |log N₁| ~ KL + K·log(2π) + |log|S1||,
        # each with relative error ~ K·eps·cond(S1)
        scale = abs(quad) + K * np.log(2 * np.pi) + abs(np.linalg.slogdet(S1)[1]) + abs(np.linalg.slogdet(S0)[1]) + K
        rows.append((label, printed, quad, ROUNDING * K * np.linalg.cond(S1) * scale))
    return evidence_from_rows(rows, "printed Gaussian KL vs Gauss–Hermite quadrature (4 nodes per dimension, exact "
                                    "for the quadratic integrand)", {"nodes": 4})


register(Claim(
    id="louizos.sec1.gaussian-kl",
    source="Louizos & Welling, supp. Sec. 1 (KL between multivariate Gaussians)",
    statement=("KL(N₀‖N₁) = ½(tr(Σ₁⁻¹Σ₀) + (μ₁−μ₀)ᵀΣ₁⁻¹(μ₁−μ₀) − K + log(|Σ₁|/|Σ₀|)), the starting point of "
               "eqs. (1)–(4), equals E_{N₀}[log N₀ − log N₁] by quadrature."),
    check=_check_gaussian_kl,
))


def _check_term(printed_fn, dense_fn, what):
    """A check comparing two functions of (M0, U0, V0, M1, U1, V1) on every case."""
    return lambda rng: _compare(rng, printed_fn, dense_fn, what)


register(Claim(
    id="louizos.eq1.trace-term",
    source="Louizos & Welling, supp. Sec. 1, eq. (1)",
    statement="t_a = tr((V₁⊗U₁)⁻¹(V₀⊗U₀)) equals tr(U₁⁻¹U₀) tr(V₁⁻¹V₀).",
    check=_check_term(lambda M0, U0, V0, M1, U1, V1: lw.eq1_trace(U0, V0, U1, V1),
                      lambda M0, U0, V0, M1, U1, V1: _dense_trace(U0, V0, U1, V1), "t_a"),
))

register(Claim(
    id="louizos.eq2.mahalanobis-term",
    source="Louizos & Welling, supp. Sec. 1, eq. (2)",
    statement=("t_b = vec(M₁−M₀)ᵀ(V₁⊗U₁)⁻¹vec(M₁−M₀) equals tr((M₁−M₀)ᵀU₁⁻¹(M₁−M₀)V₁⁻¹)."),
    check=_check_term(lambda M0, U0, V0, M1, U1, V1: lw.eq2_mahalanobis(M0, M1, U1, V1),
                      lambda M0, U0, V0, M1, U1, V1: _dense_mahalanobis(M0, M1, U1, V1), "t_b"),
))

def _check_logdet(rng):
    ev = _compare(rng, lambda M0, U0, V0, M1, U1, V1: lw.eq3_logdet(U0, V0, U1, V1),
                  lambda M0, U0, V0, M1, U1, V1: _dense_logdet(U0, V0, U1, V1), "t_c")
    # Contrast (shows the check discriminates): the exponents swapped (n on U, p on V), and
    # the opposite sign, on a random 3 x 5 case.
    _, (M0, U0, V0, M1, U1, V1) = _cases(rng)[0]
    n, p = M0.shape
    ld = lambda A: np.linalg.slogdet(A)[1]  # noqa: E731
    swapped = n * ld(U1) + p * ld(V1) - n * ld(U0) - p * ld(V0)
    dense = _dense_logdet(U0, V0, U1, V1)
    detail = (ev.detail + f"; contrast at {n}x{p}: dense {dense:.6g}, swapped exponents {swapped:.6g}, "
              f"opposite sign {-dense:.6g}")
    return replace(ev, detail=detail)


register(Claim(
    id="louizos.eq3.logdet-term",
    source="Louizos & Welling, supp. Sec. 1, eq. (3)",
    statement=("t_c = log(|V₁⊗U₁|/|V₀⊗U₀|) equals p log|U₁| + n log|V₁| − p log|U₀| − n log|V₀| for U n×n, "
               "V p×p (the sign and the exponents as printed), checked with n ≠ p."),
    check=_check_logdet,
))

register(Claim(
    id="louizos.eq4.matrix-normal-kl",
    source="Louizos & Welling, supp. Sec. 1, eq. (4)",
    statement=("KL(MN₀ ‖ MN₁) = ½(tr(U₁⁻¹U₀)tr(V₁⁻¹V₀) + tr((M₁−M₀)ᵀU₁⁻¹(M₁−M₀)V₁⁻¹) − np + p log|U₁| "
               "+ n log|V₁| − p log|U₀| − n log|V₀|) equals the KL of the flattened Gaussians N(vec Mᵢ, Vᵢ⊗Uᵢ)."),
    # looked up at call time, like the other terms, so that a planted formula is picked up
    check=_check_term(lambda *a: lw.eq4_kl(*a), lambda *a: _dense_kl(*a), "KL"),
))
