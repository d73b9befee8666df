"""Orthogonally symmetrized Gaussians: the group O(k) acting on the columns of a matrix.

Moore (2016), Sec. 3.2 and App. A. A point is an N×k matrix X (in matrix factorization the
stacked latent traits, N = n + m rows of U and V). The base posterior is the elementwise
Gaussian q*(X) = N(X; M, V), ``var`` V of shape (N, k), or (k,) (Moore's "same diagonal
covariance Σ for every row"), or a scalar c (isotropic, Σ = cI).

Convention
----------
T ∈ O(k) acts by T·X = X Tᵀ (a left action: T₁·(T₂·X) = (T₁T₂)·X). The symmetrized
density is the Haar mixture of Moore eq. (3) and App. A,

    q̃(X) = ∫_{O(k)} q*(X Tᵀ) dV(T)    (= ∫ q*(X T) dV(T), Haar measure is inversion invariant),

and sampling X = X* Tᵀ (equivalently X* T) with X* ~ q*, T Haar, draws from q̃.

The isotropic closed form, re-derived
-------------------------------------
For V = cI, ‖X Tᵀ‖ = ‖X‖, so the only T-dependent term of −‖XTᵀ − M‖²/(2c) is the cross
term tr(Mᵀ X Tᵀ)/c = tr(B Tᵀ) with

    B = Mᵀ X / c     (k×k, *not* symmetric in general).

With ₀F₁(k/2; BBᵀ/4) = ∫_{O(k)} etr(B Tᵀ) dT (Muirhead 1982, Thm. 7.4.1), a function of
the singular values of B only (so B or Bᵀ = XᵀM/c give the same value: BBᵀ and BᵀB share
their eigenvalues),

    r(X) = −log ∫ q*(XTᵀ)/q*(X) dT = tr B − log ₀F₁(k/2; BBᵀ/4),
    log q̃(X) = log q*(X) − r(X) = −(‖X‖² + ‖M‖²)/(2c) − (Nk/2) log 2πc + log ₀F₁(k/2; BBᵀ/4),

and KL[q*‖q̃] = E_{X~q*}[r(X)] (eq. (6)). Moore's App. A (and Listing 1, and the poster with
a general Σ) uses instead the symmetrised A = (MᵀX + XᵀM)/(2c). Both have the same trace,
but tr(XᵀM Tᵀ) = tr(MᵀX T) ≠ tr(MᵀX Tᵀ), so etr(A Tᵀ) ≠ etr(B Tᵀ) pointwise, and the
singular values of A are not those of B: the printed r is wrong (measured in
``symcheck.claims.moore_orthogonal``). For a diagonal non-isotropic Σ the factor
f(T) = exp{−½ tr[XᵀX(TᵀΣ⁻¹T − Σ⁻¹)]} of App. A does not vanish and the cross term is
etr(Σ⁻¹MᵀX (Tᵀ − I)); there is no ₀F₁ form, and log q̃ is computed by Haar Monte Carlo
(any k) or by quadrature (k = 2; k = 1 is a two-point mixture).

References
----------
Moore, D. A. (2016). Symmetrized Variational Inference. Sec. 3.2, App. A, eq. (6), Listing 1.
Muirhead, R. J. (1982). Aspects of Multivariate Statistical Theory. Thm. 7.4.1.
Trefethen, L. N. & Weideman, J. A. C. (2014). The exponentially convergent trapezoidal rule.
SIAM Review 56, 385–458, Thm. 3.2.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from symcheck._checks import (
    as_finite_array,
    check_alloc,
    check_bool,
    check_choice,
    check_finite_result,
    check_int,
    check_positive_float,
    check_rng,
    check_sigma_sum,
)
from symcheck._mc import log_mean_exp_se, mean_se
from symcheck.evidence import gamma
from symcheck.gaussian import gaussian_logpdf
from symcheck.groups import Group, _act_batch
from symcheck.haar import haar_orthogonal
from symcheck.hyp0f1 import log_hyp0f1

__all__ = [
    "Orthogonal",
    "moore_kl",
    "moore_r",
    "orthogonal_logpdf",
    "orthogonal_logpdf_mc",
]

#: Functions implementing a paper's result under another name (read by the report's equation index).
EQUATIONS = {"moore_r": ("moore", "eq. (6)"), "moore_kl": ("moore", "eq. (6)"), "orthogonal_logpdf": ("moore", "App. A")}

_LOG_2PI = math.log(2.0 * math.pi)
EPS = np.finfo(float).eps
_U = EPS / 2
#: p(k)/k in the singular-value error |σ̂ᵢ − σᵢ| ≤ p(k)·u·σ_max of ``np.linalg.svd`` (LAPACK dgesdd, normwise
#: backward stable; LAPACK gives no constant). Measured against mpmath.svd_r at 40 digits on 300 k×k matrices
#: (k = 2–20; Gaussian, columns graded over 1e-8, rank-deficient times 1e3): at most 1.94·k (k = 2), 0.36·k
#: at k = 20. 16 leaves a margin of 8 (the same constant as :mod:`symcheck.kl` allows ``eigvalsh``).
_SVD_PER_K = 16
#: Relative error the O(2) trapezoid rule is asked for (a rigorous bound, see _o2_nodes).
O2_QUADRATURE_RTOL = 1e-15
#: Largest number of trapezoid nodes per coset (about 10⁶: harmonic amplitudes up to ~10¹⁰).
O2_MAX_NODES = 2**20
#: Haar draws generated per chunk in the Monte Carlo route (bounds memory).
_MC_CHUNK = 2048
FORMS = ("corrected", "printed")


# =====================================================================================
# validation
# =====================================================================================


def _validate_base(mean, var, k=None):
    """Return ``(M (N, k), V (N, k), isotropic: bool)``; ValueError naming the argument."""
    M = as_finite_array(mean, "mean")
    if M.ndim != 2:
        raise ValueError(f"mean must be an N×k matrix, got shape {M.shape}")
    if M.size == 0:
        raise ValueError(f"mean must not be empty, got shape {M.shape}")
    if k is not None and M.shape[1] != k:
        raise ValueError(f"mean must have k={k} columns, got shape {M.shape}")
    V = as_finite_array(var, "var")
    if V.shape not in ((), (M.shape[1],), M.shape):
        raise ValueError(f"var must be a scalar (isotropic), shape ({M.shape[1]},) (one Σ for every row) "
                         f"or the shape of mean {M.shape}, got shape {V.shape}")
    if np.any(V <= 0):
        raise ValueError("var must be > 0 everywhere (variances of the base Gaussian)")
    V = np.ascontiguousarray(np.broadcast_to(V, M.shape), dtype=np.float64)
    return M, V, bool(np.all(V == V.flat[0]))


def _check_points(X, M, name: str = "X"):
    X = as_finite_array(X, name)
    if X.ndim < 2 or X.shape[-2:] != M.shape:
        raise ValueError(f"{name} must have trailing shape {M.shape} (the shape of mean), got shape {X.shape}")
    return X


# =====================================================================================
# the group
# =====================================================================================


class Orthogonal(Group):
    """The orthogonal group O(k) acting on the columns of N×k matrices, T·X = X Tᵀ.

    Moore (2016), Sec. 3.2 and App. A: the matrix-factorization symmetry
    p(U, V | R) = p(UT, VT | R), acting on the stacked X = [U; V].

    Parameters
    ----------
    k : int
        Number of columns (latent traits), >= 1.

    Notes
    -----
    Elements are arrays of shape ``(m, k, k)`` (Haar draws from :func:`symcheck.haar_orthogonal`).
    The base Gaussian has ``mean`` M of shape (N, k) and ``var`` a scalar c, a (k,) vector
    (the same diagonal Σ for every row) or an (N, k) array; :meth:`validate` broadcasts it
    to (N, k). Full covariances are not supported.
    """

    event_ndim = 2

    def __init__(self, k):
        self.k = check_int(k, "k", minimum=1)
        self.name = f"O({self.k})"

    def validate(self, mean, var):
        """Return ``(mean, var)`` as float64 (N, k) arrays; ValueError on bad shapes or var <= 0."""
        M, V, _ = _validate_base(mean, var, self.k)
        return M, V

    def log_order(self) -> float:
        """log |O(k)| = inf (a continuous group; Haar measure is normalised to 1)."""
        return math.inf

    def sample(self, rng, size):
        """``size`` Haar-distributed elements of O(k), shape ``(size, k, k)``."""
        return haar_orthogonal(self.k, check_int(size, "size", minimum=1), check_rng(rng))

    def act(self, g, z):
        """Return g·z = z gᵀ, broadcasting the element axis as in :meth:`Group.act`."""
        g = as_finite_array(g, "g")
        if g.ndim != 3 or g.shape[1:] != (self.k, self.k):
            raise ValueError(f"g must have shape (m, {self.k}, {self.k}) (orthogonal matrices), got {g.shape}")
        z = as_finite_array(z, "z")
        if z.ndim < 2 or z.shape[-1] != self.k:
            raise ValueError(f"z must have shape (..., N, {self.k}), got {z.shape}")
        batch = _act_batch(z.shape[:-2], g.shape[0])
        check_alloc(math.prod(batch) * z.shape[-2] * self.k, "z, g")
        with np.errstate(over="ignore"):  # an overflow is reported by the finiteness check
            out = np.matmul(z, np.swapaxes(g, -1, -2))
        return check_finite_result(out, "g, z", "g·z")

    def symmetrized_logpdf(self, z, mean, var, method: str = "auto", **options):
        """Exact log q̃(z) = log ∫ q*(z Tᵀ) dT; see :func:`orthogonal_logpdf`."""
        mean, var = self.validate(mean, var)
        return _logpdf(z, mean, var, method, options, "z")


# =====================================================================================
# exact log q̃
# =====================================================================================


def _cross(M, X):
    """Mᵀ X for a batch of X (..., N, k): shape (..., k, k) (BLAS matmul; einsum is 20× slower)."""
    return np.matmul(M.T, X)


def _singular_values(B):
    """Singular values of a batch of k×k matrices; those below k·eps·σ_max set to exactly 0.

    Such values are within the SVD's backward error of zero (a rank-deficient B, e.g. N < k
    rows or a rank-deficient M, returns ~1e-17 instead of 0); zeroing them changes
    log ₀F₁ by at most k·eps·σ_max (its gradient in each σᵢ is below 1) and lets the
    rank-one closed form apply.
    """
    sig = np.linalg.svd(B, compute_uv=False)
    return np.where(sig <= B.shape[-1] * EPS * sig[..., :1], 0.0, sig)


def _log0f1_of(B, k, method, options, names, b_error=None):
    """log ₀F₁(k/2; BBᵀ/4) for a batch of B; ValueErrors about σ are reported against ``names``.

    With ``b_error`` (a bound on ‖B̂ − B‖_F per batch entry, B̂ the computed B) it returns
    ``(value, error)``: the ₀F₁ method's figure at the computed σ̂, plus the change of log ₀F₁ from σ
    to σ̂. Every ∂ log ₀F₁/∂σᵢ = E[Tᵢᵢ] under a tilted Haar measure lies in [−1, 1], so that change is at
    most Σᵢ|σ̂ᵢ − σᵢ| ≤ √k‖B̂ − B‖_F (Mirsky) + the SVD's own error, k·p(k)·u·σ_max (`_SVD_PER_K`),
    + the values `_singular_values` sets to 0 (at most k·2u·σ_max each).
    """
    check_finite_result(B, names, "B = MᵀX/c")
    sig = _singular_values(B)
    check_sigma_sum(sig, f"{names} (through sigma, the singular values of B = MᵀX/c)")
    try:
        if b_error is None:
            return log_hyp0f1(sig, k, method=method, **options)
        value, error = log_hyp0f1(sig, k, method=method, return_error=True, **options)
    except ValueError as err:
        if str(err).startswith("sigma"):
            raise ValueError(f"{names} (through sigma, the singular values of B = MᵀX/c): {err}") from None
        raise
    moved = math.sqrt(k) * b_error + k * (_SVD_PER_K * k + 2 * k) * _U * np.max(sig, axis=-1, initial=0.0)
    return value, error + moved


def _cross_error(X, M, c, extra: int = 0):
    """A bound on ‖B̂ − B‖_F for B̂ = fl(fl(MᵀX)/c) per batch entry of X: each entry of the product is
    an N-term dot product (error ≤ γ_N (|M|ᵀ|X|)ᵢⱼ, Higham 2002 eq. (3.5)) divided by c (u), and
    ‖|M|ᵀ|X|‖_F ≤ ‖M‖_F‖X‖_F; ``extra`` further roundings per entry."""
    with np.errstate(over="ignore"):  # beyond float64: inf (B itself is then refused by :func:`_log0f1_of`)
        return gamma(M.shape[0] + 1 + extra) * _frobenius(M) * _frobenius(X) / c  # small factors first


def _frobenius(a):
    """‖a‖_F over the last two axes, scaled by the largest entry so that entries beyond 1e154 do not
    overflow their squares (the norm itself stays finite up to ~1e308)."""
    scale = np.max(np.abs(a), axis=(-2, -1), keepdims=True)
    safe = np.where(scale > 0, scale, 1.0)
    return np.sqrt(np.sum((a / safe) ** 2, axis=(-2, -1))) * safe[..., 0, 0]


def _log_qtilde_isotropic(X, M, c, method, options, names, want_error=False):
    """log q̃ for var = cI (module docstring), and with ``want_error`` its error figure (else None):
    the ₀F₁ part (:func:`_log0f1_of`), the rounding of ‖X‖² + ‖M‖² (an (Nk + 1)-term sum of squares, then
    halved and divided by c: γ_{Nk+3}) and of (Nk/2) log 2πc (log to 1 ulp, a sum and a product: 4u),
    and of the two final additions (2u times the sum of the magnitudes)."""
    k = M.shape[1]
    with np.errstate(over="ignore"):
        B = _cross(M, X) / c
        sq = np.sum(X * X, axis=(-2, -1)) + np.sum(M * M)
    norm = 0.5 * M.size * (_LOG_2PI + math.log(c))
    if not want_error:
        log0f1 = _log0f1_of(B, k, method, options, names)  # first: it refuses a B beyond float64
        with np.errstate(over="ignore"):  # ‖X‖²/c beyond float64: log q̃ = −inf, refused by the caller
            return -0.5 * sq / c - norm + log0f1, None
    log0f1, error = _log0f1_of(B, k, method, options, names, _cross_error(X, M, c))
    with np.errstate(over="ignore"):
        quad = 0.5 * sq / c
        error = (error + gamma(M.size + 3) * quad + 4 * _U * 0.5 * M.size * (_LOG_2PI + abs(math.log(c)))
                 + 2 * _U * quad + 2 * _U * abs(norm) + 2 * _U * np.abs(log0f1))  # scaled first: no overflow
    return -quad - norm + log0f1, error


def _o2_harmonics(X, M, V):
    """Fourier coefficients of h(θ) = log q*(X R(θ)ᵀ) (a trig polynomial of degree 2).

    With rows x = (x₁, x₂), R(θ) = [[cos, −sin], [sin, cos]], y = x R(θ)ᵀ =
    (x₁cos θ − x₂ sin θ, x₁ sin θ + x₂ cos θ), p = 1/V:
    h = a₀ + a₁ cos θ + b₁ sin θ + a₂ cos 2θ + b₂ sin 2θ with
    a₀ = −½ Σ[(p₁+p₂)(x₁²+x₂²)/2 + p₁m₁² + p₂m₂² + log 2πv₁ + log 2πv₂],
    a₁ = Σ(p₁m₁x₁ + p₂m₂x₂), b₁ = Σ(p₂m₂x₁ − p₁m₁x₂),
    a₂ = −¼ Σ(p₁−p₂)(x₁²−x₂²), b₂ = ½ Σ(p₁−p₂)x₁x₂  (sums over the N rows).
    """
    p1, p2 = 1.0 / V[:, 0], 1.0 / V[:, 1]
    m1, m2 = M[:, 0], M[:, 1]
    x1, x2 = X[..., 0], X[..., 1]
    a0 = -0.5 * (np.sum(0.5 * (p1 + p2) * (x1 * x1 + x2 * x2), axis=-1)
                 + np.sum(p1 * m1 * m1 + p2 * m2 * m2) + np.sum(np.log(V)) + V.size * _LOG_2PI)
    a1 = np.sum(p1 * m1 * x1 + p2 * m2 * x2, axis=-1)
    b1 = np.sum(p2 * m2 * x1 - p1 * m1 * x2, axis=-1)
    a2 = -0.25 * np.sum((p1 - p2) * (x1 * x1 - x2 * x2), axis=-1)
    b2 = 0.5 * np.sum((p1 - p2) * x1 * x2, axis=-1)
    return a0, a1, b1, a2, b2


def _o2_log_error_bound(rho1, rho2, n):
    """log of a rigorous bound on the relative error of the n-node trapezoid mean of e^h.

    Trefethen & Weideman (2014), Thm. 3.2: for f 2π-periodic, analytic and |f| ≤ S in the
    strip |Im θ| < a, |(1/n)Σ f(θⱼ) − (1/2π)∫f| ≤ 2S/(e^{an} − 1). For f = e^h,
    Re h(θ + iy) = a₀ + Σⱼ cosh(jy) Hⱼ(θ) ≤ max h + (cosh a − 1)ρ₁ + (cosh 2a − 1)ρ₂
    (Hⱼ the harmonics, ρⱼ their amplitudes). The mean is at least
    e^{max h} (1/2π)∫_{−π}^{π} e^{−L t²/2} dt with L = ρ₁ + 4ρ₂ ≥ |h''|, i.e.
    e^{max h} erf(π√(L/2))/√(2πL). The bound is minimised over a on a grid.
    """
    a = np.geomspace(1e-7, 20.0, 600)[:, None]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # L = inf: a bound of +inf
        L = rho1 + 4.0 * rho2
        log_floor = np.where(L > 1e-12, np.log(special.erf(np.pi * np.sqrt(L / 2))) - 0.5 * np.log(2 * np.pi * L), 0.0)
    an = a * n
    log_den = an + np.log(-np.expm1(-an))
    with np.errstate(over="ignore"):  # a bound beyond float64 is +inf: no node count meets it
        vals = math.log(2.0) + (np.cosh(a) - 1) * rho1 + (np.cosh(2 * a) - 1) * rho2 - log_floor - log_den
    return vals.min(axis=0)


def _o2_nodes(rho1, rho2, rtol=O2_QUADRATURE_RTOL, names="X, mean, var"):
    """Smallest power-of-two node count whose error bound is <= rtol for every row."""
    n = 16
    while True:
        if np.all(_o2_log_error_bound(rho1, rho2, n) <= math.log(rtol)):
            return n
        if n >= O2_MAX_NODES:
            raise ValueError(f"{names}: the O(2) quadrature would need more than {O2_MAX_NODES} nodes "
                             f"(harmonic amplitude {float(np.max(rho1 + 4 * rho2)):.3g}); use orthogonal_logpdf_mc")
        n *= 2


def _log_qtilde_o2(X, M, V, names="X, mean, var", want_error=False):
    """log q̃ for k = 2 and any elementwise V: both cosets by the trapezoid rule in θ; with ``want_error``
    also its error figure (:func:`_o2_error`), else None."""
    flip = np.array([1.0, -1.0])
    with np.errstate(over="ignore", invalid="ignore"):
        cosets = [_o2_harmonics(X, M, V), _o2_harmonics(X * flip, M, V)]  # R(θ) and R(θ)·diag(1, −1)
        rho1 = np.concatenate([np.hypot(h[1], h[2]).ravel() for h in cosets])
        rho2 = np.concatenate([np.hypot(h[3], h[4]).ravel() for h in cosets])
    check_finite_result(np.concatenate([rho1, rho2]), names, "the harmonics of log q*(X R(θ)ᵀ)")
    n = _o2_nodes(rho1, rho2, names=names)
    th = 2.0 * np.pi * np.arange(n) / n
    c1, s1, c2, s2 = np.cos(th), np.sin(th), np.cos(2 * th), np.sin(2 * th)
    logs = []
    for a0, a1, b1, a2, b2 in cosets:
        h = (a1[..., None] * c1 + b1[..., None] * s1 + a2[..., None] * c2 + b2[..., None] * s2)
        logs.append(a0 + special.logsumexp(h, axis=-1))
    out = np.logaddexp(logs[0], logs[1]) - math.log(2.0 * n)
    return out, (_o2_error(X, M, V, cosets[0], n, out) if want_error else None)


def _o2_error(X, M, V, harmonics, n, out):
    """Error figure of :func:`_log_qtilde_o2`: the quadrature's relative error (at most
    ``O2_QUADRATURE_RTOL``, a proven bound: log error ≤ rtol/(1 − rtol)), plus float64 rounding.

    Rounding, by the standard model (Higham 2002, Ch. 3; both cosets have the same magnitudes):
    the harmonics are N-term sums of products of ≤ 5 rounded factors (γ_{N+6} times the sum of the
    magnitudes of their terms; p₁ − p₂ is bounded absolutely by u(|p₁| + |p₂|), since it may cancel);
    the nodes' cos/sin and the four products and additions of h(θ) (6u times the amplitudes); the
    log-sum-exp (numpy's pairwise sum of n terms: blocks of ≤ 128 in 8 interleaved partial sums, then
    halving, so γ_{16 + log₂ n}; each exp to 1 ulp after a subtraction within the range of h, ≤ 2(ρ₁ + ρ₂));
    and the final log-add-exp and subtraction of log 2n (4u times the magnitudes).
    """
    p1, p2 = 1.0 / V[:, 0], 1.0 / V[:, 1]
    m1, m2 = M[:, 0], M[:, 1]
    x1, x2 = np.abs(X[..., 0]), np.abs(X[..., 1])
    g = gamma(M.shape[0] + 6)
    with np.errstate(over="ignore", invalid="ignore"):
        d_a0 = g * 0.5 * (np.sum(0.5 * (p1 + p2) * (x1 * x1 + x2 * x2), axis=-1)
                          + np.sum(p1 * m1 * m1 + p2 * m2 * m2) + np.sum(np.abs(np.log(V))) + V.size * _LOG_2PI)
        d_ab1 = 2 * g * np.sum(np.abs(p1 * m1) * x1 + np.abs(p2 * m2) * x2, axis=-1)
        d_ab2 = g * np.sum((p1 + p2) * (0.25 * (x1 * x1 + x2 * x2) + 0.5 * x1 * x2), axis=-1)
        a0, a1, b1, a2, b2 = harmonics
        amp = np.abs(a1) + np.abs(b1) + np.abs(a2) + np.abs(b2)
        lse = gamma(16 + math.ceil(math.log2(n))) + 2 * _U * (1.0 + 2 * amp)
        rounding = d_a0 + d_ab1 + d_ab2 + 6 * _U * amp + lse + 4 * _U * (np.abs(out) + np.abs(a0) + math.log(2.0 * n))
    return O2_QUADRATURE_RTOL / (1.0 - O2_QUADRATURE_RTOL) + rounding


def _o1_error(X, M, V, out):
    """Error figure of the two-point mixture (k = 1, any variance): each log q*(±X) = −½Σ[(x ∓ μ)²/v +
    log 2πv] to γ_{N+6} times the sum of its terms' magnitudes (a difference, a square, a division, a
    log to 1 ulp, a product and an addition per row, then an N-term sum), then log-add-exp and −log 2
    (4u times the result's magnitude)."""
    with np.errstate(over="ignore"):
        terms = [0.5 * np.sum((sign * X - M) ** 2 / V + np.abs(np.log(2 * np.pi * V)), axis=(-2, -1))
                 for sign in (1.0, -1.0)]
    return gamma(M.shape[0] + 6) * np.maximum(*terms) + 4 * _U * (np.abs(out) + math.log(2.0))


def orthogonal_logpdf(X, mean, var, method: str = "auto", *, return_error: bool = False, **options):
    """Exact log q̃(X) = log ∫_{O(k)} N(X Tᵀ; M, V) dT (Moore 2016, App. A), batched.

    Parameters
    ----------
    X : array_like, shape (..., N, k)
        Points.
    mean : array_like, shape (N, k)
        Mean M of the base Gaussian q*.
    var : float or array_like, shape (k,) or (N, k)
        Variances of q* (> 0). A scalar (or all entries equal) is the isotropic case.
    method : str
        ₀F₁ method for the isotropic case (see :func:`symcheck.log_hyp0f1`); ``options``
        are passed to it. Ignored for a non-isotropic ``var``.
    return_error : bool
        Also return an error figure per point: a bound on |value − log q̃(X)| (absolute, in log q̃)
        for the given float64 inputs (Notes).

    Returns
    -------
    value : ndarray, shape X.shape[:-2]
    error : ndarray, shape X.shape[:-2]
        Only with ``return_error``.

    Notes
    -----
    Isotropic (any k): log q̃ = −(‖X‖² + ‖M‖²)/(2c) − (Nk/2) log 2πc + log ₀F₁(k/2; BBᵀ/4),
    B = MᵀX/c (the corrected App. A form; see the module docstring). Exact as far as the
    ₀F₁ method is: "exact"/"series" to ~1e-14; "auto" falls back to the Laplace
    approximation where no other route reaches (then the error figure is inf). Everything is in log
    space: no overflow for ‖M‖/√c up to 10³ or more and c down to 1e-8.

    Error figure (isotropic): the ₀F₁ method's own figure (a proven bound for "series" and the closed
    forms, an estimate for "holonomic", "asymptotic" and "mc", inf for "laplace"), plus Σᵢ|σ̂ᵢ − σᵢ| for
    the singular values σ̂ of the computed B (|∂ log ₀F₁/∂σᵢ| ≤ 1: from ‖B̂ − B‖_F ≤ γ_{N+1}‖M‖_F‖X‖_F/c
    and the SVD's backward error, whose LAPACK constant is measured, not proven), plus the rounding of
    the Gaussian terms, about (‖X‖² + ‖M‖²)/c · (Nk + 3)u: where those terms nearly cancel
    log ₀F₁ (‖M‖/√c large) that rounding is the whole error.

    Non-isotropic, k = 1: O(1) = {±1}, q̃ = ½[q*(X) + q*(−X)].
    Non-isotropic, k = 2: ½ × the mean over θ of q*(X R(θ)ᵀ) and of q*(X diag(1,−1) R(θ)ᵀ)
    (rotations and reflections), by the trapezoid rule with a node count chosen from a
    rigorous error bound (relative error <= 1e-15; see ``_o2_log_error_bound``). The log
    density h(θ) is a trigonometric polynomial of degree 2 whose coefficients are formed
    once, so the cost is O(N) + O(nodes) per point.
    Non-isotropic, k >= 3: no exact route; ValueError (use :func:`orthogonal_logpdf_mc`).
    Their error figures: the rounding of the Gaussian log densities (k = 1), and the trapezoid
    rule's proven bound plus the rounding of its harmonics and sums (k = 2; :func:`_o2_error`).
    """
    return _logpdf(X, mean, var, method, options, "X", check_bool(return_error, "return_error"))


def _logpdf(X, mean, var, method, options, xname, want_error=False):
    """:func:`orthogonal_logpdf` with the points' argument called ``xname`` in error messages."""
    M, V, iso = _validate_base(mean, var)
    X = _check_points(X, M, xname)
    k = M.shape[1]
    names = f"{xname}, mean, var"
    if iso:
        out, error = _log_qtilde_isotropic(X, M, float(V.flat[0]), method, options, names, want_error)
    elif k == 1:
        out = np.logaddexp(gaussian_logpdf(X, M, V), gaussian_logpdf(-X, M, V)) - math.log(2.0)
        error = _o1_error(X, M, V, out) if want_error else None
    elif k == 2:
        out, error = _log_qtilde_o2(X, M, V, names, want_error)
    else:
        raise ValueError(f"var: exact log q̃ for O({k}) with a non-isotropic variance exists only for k <= 2; "
                         "use orthogonal_logpdf_mc")
    out = check_finite_result(out, names, "log q̃")
    return (out, np.asarray(error, dtype=float)) if want_error else out


# =====================================================================================
# Monte Carlo log q̃ (any variance)
# =====================================================================================


def _log_weights_mc(x, M, V, t):
    """log E_d q*(x Tᵀ D) for each T of the batch t (m, k, k): sign flips D summed exactly.

    D T is Haar when T is, and q*(Y D) factorises over the columns j of Y = x Tᵀ, so
    E_d q*(Y D) = Πⱼ ½[Πᵢ N(Yᵢⱼ; Mᵢⱼ, Vᵢⱼ) + Πᵢ N(−Yᵢⱼ; Mᵢⱼ, Vᵢⱼ)]
               = const · Πⱼ e^{−qⱼ/2} cosh sⱼ,  qⱼ = Σᵢ (Yᵢⱼ² + Mᵢⱼ²)/Vᵢⱼ, sⱼ = Σᵢ YᵢⱼMᵢⱼ/Vᵢⱼ.
    """
    Y = np.matmul(x, np.swapaxes(t, -1, -2))  # (m, N, k)
    q = np.sum((Y * Y + M * M) / V, axis=-2)
    s = np.abs(np.sum(Y * M / V, axis=-2))
    log_cosh = s + np.log1p(np.exp(-2.0 * s)) - math.log(2.0)
    const = -0.5 * (np.sum(np.log(V)) + V.size * _LOG_2PI)
    return const + np.sum(-0.5 * q + log_cosh, axis=-1)


def orthogonal_logpdf_mc(X, mean, var, n_samples, rng):
    """Haar Monte Carlo estimate of log q̃(X) = log E_T q*(X Tᵀ), with its standard error.

    Parameters
    ----------
    X : array_like, shape (..., N, k)
    mean : array_like, shape (N, k)
    var : float or array_like, shape (k,) or (N, k)
        Any positive variances (isotropic or not: Moore's "future work" case).
    n_samples : int
        Haar draws per point (>= 2); the draws are shared by the points of the batch.
    rng : numpy.random.Generator or int

    Returns
    -------
    estimate, standard_error : ndarray, shape X.shape[:-2]
        log of the sample mean of the weights, and the delta-method standard error
        (SE of the mean / mean). The log of a mean is biased low by about SE²/2.

    Notes
    -----
    Each Haar draw T is Rao–Blackwellised over the 2ᵏ column sign flips (exact, O(Nk)
    extra work), which keeps the estimator unbiased for q̃ and lowers its variance. The
    variance grows quickly once the mixture components are well separated (‖M‖/√c ≫ 1):
    trust the estimate only where the returned standard error is small.
    """
    M, V, _ = _validate_base(mean, var)
    X = _check_points(X, M)
    n = check_int(n_samples, "n_samples", minimum=2)
    gen = check_rng(rng)
    k = M.shape[1]
    flat = X.reshape((-1,) + M.shape)
    check_alloc(flat.shape[0] * n + _MC_CHUNK * M.size, "n_samples")
    logw = np.empty((flat.shape[0], n))
    done = 0
    while done < n:
        m = min(_MC_CHUNK, n - done)
        t = haar_orthogonal(k, m, gen)
        with np.errstate(over="ignore", invalid="ignore"):
            for i in range(flat.shape[0]):
                logw[i, done:done + m] = _log_weights_mc(flat[i], M, V, t)
        done += m
    with np.errstate(over="ignore", invalid="ignore"):
        est, se = log_mean_exp_se(logw, axis=1)
    check_finite_result([est, se], "X, mean, var", "the Monte Carlo log q̃ or its standard error")
    return est.reshape(X.shape[:-2]), se.reshape(X.shape[:-2])


# =====================================================================================
# Moore's r_θ and KL estimator (eq. (6), Listing 1), printed and corrected
# =====================================================================================


def moore_r(X, mean, c, form: str = "corrected", method: str = "auto", *, return_error: bool = False, **options):
    """Moore's r_θ(X) = −log ∫ q*(XTᵀ)/q*(X) dT for the isotropic base N(M, cI).

    Parameters
    ----------
    X : array_like, shape (..., N, k)
    mean : array_like, shape (N, k)
    c : float
        Isotropic variance (> 0).
    form : {"corrected", "printed"}
        ``"corrected"``: r = tr B − log ₀F₁(k/2; BBᵀ/4), B = MᵀX/c (equal to
        log q*(X) − log q̃(X) exactly). ``"printed"``: Moore (2016) App. A and Listing 1,
        A = (MᵀX + XᵀM)/(2c), r = tr A − log ₀F₁(k/2; AAᵀ/4) — wrong in general.
    method : str
        ₀F₁ method, see :func:`symcheck.log_hyp0f1`; ``options`` are passed to it.
        Listing 1's ``gaussian_orthog_stochastic_kl`` is
        ``moore_r(X, M, c, form="printed", method="laplace", variant="listing")``.
    return_error : bool
        Also return an error figure per point: a bound on |value − r(X)| for the chosen ``form`` (the
        ₀F₁ method's figure, inf for "laplace"; the rounding of B, of its trace and of the difference;
        as in :func:`orthogonal_logpdf`).

    Returns
    -------
    value : ndarray, shape X.shape[:-2]
        One Monte Carlo term of eq. (6): KL[q*‖q̃] = E_{X~q*} r(X).
    error : ndarray, shape X.shape[:-2]
        Only with ``return_error``.
    """
    check_choice(form, "form", FORMS)
    want_error = check_bool(return_error, "return_error")
    c = check_positive_float(c, "c")
    M, _, _ = _validate_base(mean, c)
    X = _check_points(X, M)
    with np.errstate(over="ignore", invalid="ignore"):
        B = _cross(M, X) / c
        if form == "printed":
            B = 0.5 * (B + np.swapaxes(B, -1, -2))
    names = "X, mean, c"
    if want_error:  # the printed form's symmetrisation rounds once more
        log0f1, error = _log0f1_of(B, M.shape[1], method, options, names,
                                   _cross_error(X, M, c, extra=int(form == "printed")))
    else:
        log0f1 = _log0f1_of(B, M.shape[1], method, options, names)
    with np.errstate(over="ignore", invalid="ignore"):  # a result beyond float64 is refused just below
        trace = np.trace(B, axis1=-2, axis2=-1)
        r = trace - log0f1
    r = check_finite_result(r, names, "r(X)")
    if not want_error:
        return r
    k = M.shape[1]
    with np.errstate(over="ignore"):  # tr B̂: k diagonal dot products (γ_{N+1} each), summed (γ_k)
        diag = np.sum(np.abs(M) * np.abs(X), axis=(-2, -1)) / c
    error = error + gamma(M.shape[0] + k + 2) * diag + 2 * _U * np.abs(trace) + 2 * _U * np.abs(log0f1)
    return r, np.asarray(error, dtype=float)


def moore_kl(mean, c, n_samples, rng, form: str = "corrected", method: str = "auto", *, return_error: bool = False,
             **options):
    """Moore's stochastic estimate of KL[q*‖q̃] (eq. (6)): the mean of r_θ(X) over X ~ q*.

    Parameters
    ----------
    mean : array_like, shape (N, k)
    c : float
        Isotropic variance.
    n_samples : int
        Draws X = M + √c E (>= 2).
    rng : numpy.random.Generator or int
    form, method, options
        As in :func:`moore_r`.
    return_error : bool
        Also return a bound on the systematic error of the estimate: |estimate − mean of the exact
        r(X) over the same draws| ≤ the mean of :func:`moore_r`'s figures + γ_n times the mean |r|
        (the sum). inf where a figure is (``method="laplace"``, or "auto" where only Laplace reaches).

    Returns
    -------
    kl, standard_error : float
        With ``form="corrected"`` and an exact ₀F₁ method, an unbiased estimate of
        KL[q*‖q̃] >= 0 with its standard error.
    bias_bound : float
        Only with ``return_error``.
    """
    want_error = check_bool(return_error, "return_error")
    c = check_positive_float(c, "c")
    M, _, _ = _validate_base(mean, c)
    n = check_int(n_samples, "n_samples", minimum=2)
    check_alloc(n * M.size, "n_samples")
    gen = check_rng(rng)
    X = M + math.sqrt(c) * gen.standard_normal((n,) + M.shape)
    if want_error:
        r, r_error = moore_r(X, M, c, form=form, method=method, return_error=True, **options)
    else:
        r = moore_r(X, M, c, form=form, method=method, **options)
    kl, se = mean_se(r)
    check_finite_result((kl, se), "mean, c", "the KL estimate or its standard error")
    if not want_error:
        return float(kl), float(se)
    return float(kl), float(se), float(np.mean(r_error) + gamma(n + 1) * np.mean(np.abs(r)))
