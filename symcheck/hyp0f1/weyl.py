"""₀F₁(k/2; s²I/4) for equal singular values σ = (s, …, s) of full rank, by Weyl's integration formula.

With all k singular values equal, etr(ATᵀ) = exp(s·tr T) is a class function of T ∈ O(k), so
the Haar integral reduces to the eigenvalues of T (Weyl's integration formula; Weyl 1939,
Ch. VII; for the two cosets of O(k) see e.g. Baik & Rains 2001, §2). Haar measure on O(k) is
the equal mixture of SO(k) and its other coset O⁻(k); on each, T has the fixed eigenvalues
below and n conjugate pairs e^{±iθⱼ}, θ ∈ [0, π]ⁿ, with joint density ∝ Δ(cos θ)² ∏ⱼ w(θⱼ):

=========  ==========  ===============  ===========  =============================
coset      k           fixed eigenvalue  n           w(θ) dθ (x = cos θ, t = 1 − x)
=========  ==========  ===============  ===========  =============================
SO(2m)     even        —                 m           dθ
O⁻(2m)     even        +1 and −1         m − 1       sin²θ dθ
SO(2m+1)   odd         +1                m           2 sin²(θ/2) dθ = t dθ
O⁻(2m+1)   odd         −1                m           2 cos²(θ/2) dθ = (2 − t) dθ
=========  ==========  ===============  ===========  =============================

so tr T = (fixed) + 2 Σⱼ cos θⱼ and, by Andréief's identity, E_coset[e^{s tr T}] = e^{s·fixed}
D(s)/D(0) with D(s) = det[∫₀^π e^{2s cos θ} pᵢ(cos θ) pⱼ(cos θ) w(θ) dθ]ᵢ,ⱼ<n for any basis pᵢ
of degree i. (With Chebyshev bases the entries are Bessel functions, e.g. π/2·[I_{i+j}(2s) +
I_{i−j}(2s)] on SO(2m): :func:`symcheck.hyp0f1.closed_form_mp.equal_spectrum_mp` evaluates those
determinants in mpmath as the independent check.)

Evaluation. A Gram determinant is the product of the squared norms hⱼ of the monic orthogonal
polynomials of its measure, so with dμ_s = e^{2s cos θ} w(θ) dθ,

    log E_coset[e^{s tr T}] = s·fixed + 2sn + Σⱼ<n log( hⱼ(e^{−2st} w) / hⱼ(w) ),

where hⱼ are computed in the variable t = 1 − cos θ = 2 sin²(θ/2) (exact near the peak t = 0)
by the discretised Stieltjes procedure (Gautschi 2004, §2.2.3) on the N-point midpoint rule in θ,
which integrates the even 2π-periodic integrands spectrally: exactly for trigonometric degree
< 2N, with an aliasing error that falls faster than geometrically once 2N exceeds the bandwidth of
e^{2s cos θ} (its Fourier coefficients are I_ν(2s)). The measure is rescaled (u = c·t, c =
max(1, 2s)) so that no norm under- or overflows. N is doubled until two successive
discretisations agree to the working precision; the value is the finer one, and its error
estimate is their difference plus the rounding term of :data:`ROUNDING_ULPS`.

The derivative follows from the same recurrence: d/ds log hⱼ = −2⟨tπⱼ, πⱼ⟩/hⱼ = −2aⱼ (aⱼ the
Stieltjes recurrence coefficient; ∂_sπⱼ has degree < j and is orthogonal to πⱼ), so
d/ds log E_coset = fixed + 2n − 2 Σⱼ aⱼ, and at an equal point every ∂ log ₀F₁/∂σᵢ is 1/k of
d/ds log ₀F₁(s·𝟙).

Valid range: every k ≥ 1 and 0 ≤ s ≤ :data:`MAX_S` (the node count grows like √s; beyond, the
large-σ expansion is accurate to rounding for k ≤ 64).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["MAX_S", "ROUNDING_ULPS", "cosets", "is_equal_full_rank", "log_hyp0f1_equal"]

#: Largest s accepted (node count ~ 10·√(s·n): ~10⁵ nodes at s = 1e7, k = 64).
MAX_S = 1e7
#: Rounding allowance of the result, in units of u·(n + 1)·(1 + |log ₀F₁| + 2sn) (u = 2⁻⁵³; 2sn is
#: the size of the terms that cancel in the sum of the module docstring): the largest ratio of true
#: error to that unit measured against the mpmath determinants for k ≤ 64 and s ∈ [1e-3, 1e5] was
#: 1.07 (tests/test_hyp0f1_weyl.py re-measures it), so this carries a safety factor of about 7.
ROUNDING_ULPS = 8.0
_U = 0.5 * float(np.finfo(float).eps)
#: Largest node count tried before giving up (a discretisation that has not converged by then
#: returns an infinite error estimate).
_MAX_NODES = 1 << 20
#: Two discretisations closer than this many u·(n + 1)·(1 + |value|) have converged.
_SETTLE_ULPS = 4.0


def cosets(k: int) -> tuple:
    """(weight kind, n, fixed eigenvalue contribution to tr T) of SO(k) and of O⁻(k)."""
    if k % 2 == 0:
        m = k // 2
        return (0, m, 0.0), (1, m - 1, 0.0)
    m = (k - 1) // 2
    return (2, m, 1.0), (3, m, -1.0)


@njit(cache=True)
def _kahan(total, comp, x):
    """One step of Kahan's compensated summation: (new total, new compensation)."""
    y = x - comp
    new = total + y
    return new, (new - total) - y


@njit(cache=True)
def _stieltjes(s, n, kind, N):
    """(Σⱼ log(hⱼ(s)/hⱼ(0)) + 2sn, d/ds of it) on the N-point midpoint rule (module docstring)."""
    scale = max(1.0, 2.0 * s)
    t = np.empty(N)
    w0 = np.empty(N)
    ws = np.empty(N)
    for i in range(N):
        th = (i + 0.5) * math.pi / N
        half = math.sin(0.5 * th)
        t[i] = 2.0 * half * half
        if kind == 0:
            wk = 1.0
        elif kind == 1:
            wk = math.sin(th) ** 2
        elif kind == 2:
            wk = t[i]
        else:
            wk = 2.0 - t[i]
        w0[i] = wk
        ws[i] = wk * math.exp(-2.0 * s * t[i])
    log_ratio = 2.0 * s * n
    dlog = 2.0 * n
    # the σ-measure in u = scale·t, the σ = 0 measure in t
    pm_s = np.zeros(N)
    p_s = np.ones(N)
    pm_0 = np.zeros(N)
    p_0 = np.ones(N)
    h_prev_s = 1.0
    h_prev_0 = 1.0
    log_scale = math.log(scale)
    for j in range(n):
        hs = 0.0
        as_ = 0.0
        h0 = 0.0
        a0 = 0.0
        c_hs = 0.0  # Kahan compensations: the sums run over up to ~10⁵ nodes
        c_as = 0.0
        c_h0 = 0.0
        c_a0 = 0.0
        for i in range(N):
            q = ws[i] * p_s[i] * p_s[i]
            hs, c_hs = _kahan(hs, c_hs, q)
            as_, c_as = _kahan(as_, c_as, q * t[i])
            r = w0[i] * p_0[i] * p_0[i]
            h0, c_h0 = _kahan(h0, c_h0, r)
            a0, c_a0 = _kahan(a0, c_a0, r * t[i])
        as_ = as_ / hs * scale  # recurrence coefficient in u
        a0 = a0 / h0
        log_ratio += math.log(hs / h0) - 2.0 * j * log_scale
        dlog -= 2.0 * as_ / scale
        bs = hs / h_prev_s if j > 0 else 0.0
        b0 = h0 / h_prev_0 if j > 0 else 0.0
        for i in range(N):
            nxt = (scale * t[i] - as_) * p_s[i] - bs * pm_s[i]
            pm_s[i] = p_s[i]
            p_s[i] = nxt
            nxt = (t[i] - a0) * p_0[i] - b0 * pm_0[i]
            pm_0[i] = p_0[i]
            p_0[i] = nxt
        h_prev_s = hs
        h_prev_0 = h0
    return log_ratio, dlog


def _initial_nodes(s: float, n: int) -> int:
    """A node count near the bandwidth of the integrands (refined by doubling in :func:`_coset`)."""
    return 2 * n + 16 + int(math.ceil(4.0 * math.sqrt(s * (n + 1.0))))


def _coset(s: float, n: int, kind: int) -> tuple[float, float, float, float]:
    """(log ratio, its s-derivative, discretisation error estimate, derivative's estimate).

    The node count doubles until two discretisations agree to the rounding level
    (:data:`_SETTLE_ULPS`), or until the difference stops shrinking fourfold per doubling (the
    rounding floor: the spectral convergence is then over); the estimate is the last difference.
    """
    if n == 0:
        return 0.0, 0.0, 0.0, 0.0
    N = _initial_nodes(s, n)
    coarse, dcoarse = _stieltjes(s, n, kind, N)
    last = math.inf
    while True:
        N *= 2
        fine, dfine = _stieltjes(s, n, kind, N)
        diff = max(abs(fine - coarse), abs(dfine - dcoarse) * max(1.0, s))
        if diff <= _SETTLE_ULPS * _U * (n + 1) * (1.0 + abs(fine)) or diff > 0.25 * last:
            return fine, dfine, abs(fine - coarse), abs(dfine - dcoarse)
        if N > _MAX_NODES:
            return fine, dfine, math.inf, math.inf
        coarse, dcoarse, last = fine, dfine, diff


def is_equal_full_rank(flat: np.ndarray) -> np.ndarray:
    """Rows of ``flat`` (n, k) whose k singular values are all equal (all zero included)."""
    return np.all(flat == flat[:, :1], axis=1)


def log_hyp0f1_equal(flat: np.ndarray, k: int, want_grad: bool = False):
    """log ₀F₁(k/2; s²I/4), its error estimate and (optionally) its gradient, rows of equal σ.

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Validated rows whose entries are all equal (:func:`is_equal_full_rank`), s ≤ :data:`MAX_S`.
    k : int
    want_grad : bool
        Also return the gradient in σ and an error estimate of it.

    Returns
    -------
    value, error : ndarray, shape (n,)
        log ₀F₁ and an *estimate* of its absolute error: the difference between the last two
        discretisations plus ROUNDING_ULPS·u·(n + 1)·(1 + |log ₀F₁| + 2sn) (module docstring).
    grad, grad_error : ndarray, shape (n, k) and (n,)
        Only with ``want_grad``: every component is (1/k)·d/ds log ₀F₁(s𝟙).

    Raises
    ------
    ValueError
        A row is not all-equal, or s > MAX_S.

    References
    ----------
    H. Weyl (1939), The Classical Groups, Ch. VII; J. Baik & E. M. Rains (2001), Algebraic
    aspects of increasing subsequences, Duke Math. J. 109, §2 (densities of O(k)'s cosets);
    W. Gautschi (2004), Orthogonal Polynomials: Computation and Approximation, §2.2.3.
    """
    if not np.all(is_equal_full_rank(flat)):
        raise ValueError("sigma: the equal-spectrum closed form needs all k singular values equal")
    s_all = flat[:, 0]
    if np.any(s_all > MAX_S):
        raise ValueError(f"sigma: the equal-spectrum closed form takes singular values up to {MAX_S:g}; "
                         f"got {float(s_all.max()):.3g} (use method='asymptotic' beyond)")
    value = np.zeros(s_all.shape[0])
    error = np.zeros_like(value)
    deriv = np.zeros_like(value)
    derr = np.zeros_like(value)
    parts = cosets(k)
    n_max = max(p[1] for p in parts)
    for r, s in enumerate(s_all):
        s = float(s)
        if s == 0.0:
            continue
        logs, ds, es, eds = [], [], [], []
        for kind, n, fixed in parts:
            lr, dlr, e, de = _coset(s, n, kind)
            logs.append(fixed * s + lr)
            ds.append(fixed + dlr)
            es.append(e)
            eds.append(de)
        value[r] = np.logaddexp(logs[0], logs[1]) - math.log(2.0)
        p_plus = math.exp(logs[0] - np.logaddexp(logs[0], logs[1]))  # posterior weight of SO(k)
        deriv[r] = p_plus * ds[0] + (1.0 - p_plus) * ds[1]
        error[r] = max(es) + ROUNDING_ULPS * _U * (n_max + 1) * (1.0 + abs(value[r]) + 2.0 * s * n_max)
        derr[r] = max(eds) + ROUNDING_ULPS * _U * (n_max + 1) * (1.0 + abs(deriv[r]) + 2.0 * n_max)
    if not want_grad:
        return value, error
    grad = np.repeat((deriv / k)[:, None], k, axis=1)
    return value, error, grad, derr / k
