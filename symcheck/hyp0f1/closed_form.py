"""Closed forms of ₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(ATᵀ) dT, in log space.

By Haar invariance the integral equals ∫ exp(Σᵢ σᵢ Tᵢᵢ) dT.

k = 1
    O(1) = {±1}: ₀F₁ = cosh σ.
k = 2
    O(2) is the rotations R(θ) and the reflections; on rotations Σσᵢ Tᵢᵢ = (σ₁+σ₂) cos θ,
    on reflections (σ₁−σ₂) cos θ, each with θ uniform, so
    ₀F₁ = ½ [I₀(σ₁+σ₂) + I₀(σ₁−σ₂)].
k = 3 (a one-dimensional integral, valid for every σ)
    A rotation R(q) of SO(3) from a unit quaternion q = (q₁, …, q₄) has
    Σσᵢ Rᵢᵢ = Σⱼ λⱼ qⱼ² with λ = (σ₁+σ₂+σ₃, σ₁−σ₂−σ₃, −σ₁+σ₂−σ₃, −σ₁−σ₂+σ₃), and Haar on
    SO(3) is the uniform law of q on S³. The other coset is −SO(3) (k odd), i.e. λ → −λ.
    The squares (qⱼ²) are Dirichlet(½, ½, ½, ½): the pair sums (q₁²+q₂², q₃²+q₄²) are
    (r, 1−r) with r uniform on [0, 1], and within each pair the share is arcsine, whose
    exponential moment is a Bessel I₀. Hence, with α = (λ₁+λ₂)/2, a = (λ₁−λ₂)/2,
    β = (λ₃+λ₄)/2, b = (λ₃−λ₄)/2,
    E[e^{Σλⱼqⱼ²}] = ∫₀¹ e^{rα + (1−r)β} I₀(r a) I₀((1−r) b) dr,
    and ₀F₁ = ½ (E₊ + E₋). The integrand is e^{M}·(a factor ≤ 1) with a log-linear
    envelope, integrated adaptively (``scipy.integrate.quad_vec``) in scaled form.
rank one (σ = (s, 0, …, 0), any k)
    T₁₁ is the first coordinate of a uniform point on S^{k−1}, with density ∝ (1−t²)^{(k−3)/2};
    the integral is the scalar ₀F₁(k/2; s²/4) = Γ(k/2) (s/2)^{1−k/2} I_{k/2−1}(s).

Large arguments use exponentially scaled Bessel functions (``scipy.special.ive``), so
nothing overflows for any finite σ; small rank-one arguments (s < 2) use the scalar
power series, where ``ive`` would underflow for large k. ``ive`` returns NaN beyond
s ≈ 1.07e9 (measured, any ν), so from s = 1e8 on, where 4ν² ≤ s, the rank-one case uses
Hankel's expansion e^{−s} I_ν(s) √(2πs) = Σⱼ (−1)ʲ aⱼ(ν)/sʲ, aⱼ(ν) = Πᵢ₌₁ʲ (4ν² − (2i−1)²)/(j! 8ʲ)
(DLMF 10.40.1; the exponentially small second part is below 1e-10⁸ there). Its terms
then fall at least 8-fold each (|aⱼ₊₁/aⱼ|/s ≤ max(4ν², (2j+1)²)/(8(j+1)s) ≤ 1/8 for j ≤ √s/2),
so it is summed until a term is below eps/8 of the sum. Rank one with s ≥ 1e9 and 4ν² > s
(k > 63 000) has neither route and raises. The k = 3 integrand is divided by its value at
the favoured end, so it neither underflows nor overflows for any σ with finite Σσ.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, special

__all__ = ["grad_log_hyp0f1_exact", "has_closed_form", "log_hyp0f1_exact"]

_LOG2 = np.log(2.0)
#: Below this argument the rank-one case sums the scalar series (30 terms reach 1e-17 for s < 2).
_SMALL_S = 2.0
_SERIES_TERMS = 30
#: From this argument on (where 4ν² ≤ s) the rank-one case uses Hankel's expansion.
_HANKEL_S = 1e8
#: scipy's ``ive`` returns NaN above about 1.07e9; beyond this, only Hankel's expansion is used.
_IVE_MAX_S = 1e9
#: Hankel terms at most (each ≤ 1/8 of the previous: 8⁻¹⁹ < eps/8).
_HANKEL_TERMS = 20


def has_closed_form(flat: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the rows of ``flat`` (n, k) that a closed form covers."""
    if k <= 3:
        return np.ones(flat.shape[0], dtype=bool)
    return np.count_nonzero(flat, axis=1) <= 1


def _log_cosh(x):
    x = np.abs(x)
    with np.errstate(over="ignore"):  # −2x = −inf for x near the float maximum: exp gives 0
        return x + np.log1p(np.exp(-2.0 * x)) - _LOG2


def _scalar_series(b: float, x: np.ndarray):
    """Σₙ xⁿ / ((b)ₙ n!) − 1 (minus the constant term), for small x ≥ 0, elementwise."""
    term = np.ones_like(x)
    total = np.zeros_like(x)
    for n in range(1, _SERIES_TERMS + 1):
        term = term * x / ((b + n - 1) * n)
        total = total + term
    return total


def _log_ive_hankel(nu: float, s: np.ndarray) -> np.ndarray:
    """log(e^{−s} I_ν(s)) by Hankel's expansion, for s ≥ _HANKEL_S with 4ν² ≤ s (module notes)."""
    mu = 4.0 * nu * nu
    term = np.ones_like(s)
    total = np.ones_like(s)
    for j in range(1, _HANKEL_TERMS + 1):
        term = -term * ((mu - (2 * j - 1) ** 2) / (8.0 * j)) / s
        total = total + term
        if np.all(np.abs(term) <= 0.125 * np.finfo(float).eps * total):
            break
    return np.log(total) - 0.5 * (np.log(2.0 * np.pi) + np.log(s))


def _log_ive(nu: float, s: np.ndarray) -> np.ndarray:
    """log(e^{−s} I_ν(s)) for s ≥ _SMALL_S: ``ive`` or Hankel's expansion (module notes)."""
    hankel = (s >= _HANKEL_S) & (4.0 * nu * nu <= s)
    if np.any(~hankel & (s >= _IVE_MAX_S)):
        raise ValueError(f"sigma: the rank-one closed form for k={2 * nu + 2:g} covers a singular value "
                         f"above {_IVE_MAX_S:g} only while k <= sqrt(sigma) + 2; use method='laplace'")
    out = np.empty_like(s)
    out[hankel] = _log_ive_hankel(nu, s[hankel])
    out[~hankel] = np.log(special.ive(nu, s[~hankel]))
    return out


def _log_rank_one(s: np.ndarray, k: int) -> np.ndarray:
    nu = 0.5 * k - 1.0
    out = np.empty_like(s)
    small = s < _SMALL_S
    out[small] = np.log1p(_scalar_series(0.5 * k, s[small] ** 2 / 4.0))
    big = s[~small]
    out[~small] = special.gammaln(0.5 * k) + (1.0 - 0.5 * k) * np.log(0.5 * big) + _log_ive(nu, big) + big
    return out


def _grad_rank_one(s: np.ndarray, k: int) -> np.ndarray:
    """d/ds log ₀F₁(k/2; s²/4) = I_{k/2}(s) / I_{k/2−1}(s)."""
    b = 0.5 * k
    out = np.empty_like(s)
    small = s < _SMALL_S
    x = s[small] ** 2 / 4.0
    # d/ds ₀F₁(b; s²/4) = (s/2) ₀F₁(b+1; s²/4) / b
    out[small] = 0.5 * s[small] * (1.0 + _scalar_series(b + 1.0, x)) / (b * (1.0 + _scalar_series(b, x)))
    big = s[~small]
    out[~small] = np.exp(_log_ive(b, big) - _log_ive(b - 1.0, big))
    return out


def _log_k2(s1, s2):
    p = s1 + s2
    d = np.abs(s1 - s2)
    return p + np.log(special.i0e(p) + special.i0e(d) * np.exp(d - p)) - _LOG2


def _grad_k2(s1, s2):
    p = s1 + s2
    d = s1 - s2
    w = np.exp(np.abs(d) - p)
    den = special.i0e(p) + special.i0e(d) * w
    i1p = special.i1e(p)
    i1d = special.i1e(d) * w  # I₁ is odd, i1e keeps the sign of d
    return np.stack([(i1p + i1d) / den, (i1p - i1d) / den], axis=-1)


_L3 = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
#: The stretched k = 3 integral stops at y = t·h = 400 (the rest is below e^{−444}).
_K3_CUT = 400.0
#: Relative accuracy asked of the k = 3 quadrature (its own error estimate is checked).
K3_EPSREL = 1e-14


def _k3_coset(lam: np.ndarray, want_grad: bool):
    """log E[exp(Σλⱼqⱼ²)] for q uniform on S³, and its gradient in λ (4,).

    The exponent r(α+|a|) + (1−r)(β+|b|) of the scaled integrand is linear in r with its
    maximum m at one end; with t the distance from that end it is m − t·slope, so the
    integrand is e^{−t·slope}·I₀e·I₀e (no cancellation of large terms), divided by its
    value g₀ at t = 0 (no underflow of the I₀e factors, each ≥ 1/√(2π·max σ)). With
    h = slope/2 (halved so it cannot overflow) and h > 20, the part t ≤ 20/h is integrated
    in the stretched variable y = t·h, and the rest, below e^{−40} ≈ 4e-18 of it, only to
    that absolute accuracy, up to y = 400: beyond it e^{−2y} ≤ e^{−800} while the Bessel
    ratio I₀e(x)/I₀e(a) ≤ √(2πa) ≤ e^{356} for any float64 a, so the cut part is below
    e^{−444} of the integrand's value 1 at y = 0 (measured: equal σ summing to 1.8e308 took
    50 s with the whole tail integrated, 0.05 s now).
    """
    alpha, a = lam[0] / 2 + lam[1] / 2, lam[0] / 2 - lam[1] / 2  # halves first: no overflow
    beta, b = lam[2] / 2 + lam[3] / 2, lam[2] / 2 - lam[3] / 2
    top1, top0 = alpha + abs(a), beta + abs(b)
    m = max(top1, top0)
    half_slope = abs(top1 / 2 - top0 / 2)
    end_is_one = top1 >= top0
    g1, g0 = (special.i0e(a), 1.0) if end_is_one else (1.0, special.i0e(b))

    def integrand(t, tc):  # tc = 1 − t, passed separately so neither end loses digits
        r, rc = (tc, t) if end_is_one else (t, tc)
        x1, x0 = r * a, rc * b
        i1, i0 = special.i0e(x1), special.i0e(x0)
        g = np.exp(-t * half_slope) ** 2 * (i1 / g1) * (i0 / g0)  # e^{-2th}, 2th may overflow
        if not want_grad:
            return np.array([g])
        t1 = special.i1e(x1) / i1
        t0 = special.i1e(x0) / i0
        return g * np.array([1.0, r / 2 * (1 + t1), r / 2 * (1 - t1), rc / 2 * (1 + t0), rc / 2 * (1 - t0)])

    log_scale = m + np.log(g1) + np.log(g0)
    if half_slope <= 20:  # t = sin²θ: the 1/√t, 1/√(1−t) edges of I₀e ratios become smooth
        vals, _ = integrate.quad_vec(lambda th: integrand(np.sin(th) ** 2, np.cos(th) ** 2) * np.sin(2 * th),
                                     0.0, np.pi / 2, epsrel=K3_EPSREL, epsabs=0, norm="max")
    else:  # ∫₀¹ f(t) dt = (1/h) ∫₀^h f(y/h) dy, y = u² near 0, cut at y = 400 (docstring)
        vals, _ = integrate.quad_vec(lambda u: integrand(u * u / half_slope, 1 - u * u / half_slope) * 2 * u,
                                     0.0, np.sqrt(20.0), epsrel=K3_EPSREL, epsabs=0, norm="max")
        top = min(half_slope, _K3_CUT)
        if top > 20.0:
            far, _ = integrate.quad_vec(lambda y: integrand(y / half_slope, 1 - y / half_slope), 20.0, top,
                                        epsrel=K3_EPSREL, epsabs=1e-3 * K3_EPSREL * np.max(np.abs(vals)),
                                        norm="max")
            vals = vals + far
        log_scale -= np.log(half_slope)
    log_val = log_scale + np.log(vals[0])
    return log_val, (vals[1:] / vals[0] if want_grad else None)


def _log_k3(flat: np.ndarray, want_grad: bool = False):
    out = np.empty(flat.shape[0])
    grad = np.empty_like(flat)
    for n, sig in enumerate(flat):
        lam = _L3 @ sig
        lp, gp = _k3_coset(lam, want_grad)
        lm, gm = _k3_coset(-lam, want_grad)
        out[n] = np.logaddexp(lp, lm) - _LOG2
        if want_grad:
            wp = np.exp(lp - np.logaddexp(lp, lm))
            grad[n] = _L3.T @ (wp * gp - (1 - wp) * gm)
    return out, grad


def log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Closed-form log ₀F₁(k/2; AAᵀ/4) for k = 1, 2, 3 (one-dimensional integral) or rank-one A.

    Parameters
    ----------
    sig : ndarray, shape (..., k)
        Validated singular values.
    k : int

    Returns
    -------
    ndarray, shape sig.shape[:-1]

    Raises
    ------
    ValueError
        If some row has k >= 4 and more than one non-zero singular value.

    References
    ----------
    Muirhead (1982), Thm. 7.4.1 (integral representation); Watson (1944) for Bessel I.
    """
    flat = sig.reshape(-1, k)
    if not np.all(has_closed_form(flat, k)):
        raise ValueError("sigma: no closed form for k >= 4 with more than one non-zero singular value; "
                         "use method='series', 'asymptotic', 'laplace' or 'mc'")
    if k == 1:
        out = _log_cosh(flat[:, 0])
    elif k == 2:
        out = _log_k2(flat[:, 0], flat[:, 1])
    else:
        out = np.empty(flat.shape[0])
        r1 = np.count_nonzero(flat, axis=1) <= 1
        out[r1] = _log_rank_one(flat[r1].max(axis=1), k)
        if (~r1).any():
            out[~r1] = _log_k3(flat[~r1])[0]
    return out.reshape(sig.shape[:-1])


def grad_log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Gradient of :func:`log_hyp0f1_exact` with respect to σ (same coverage).

    k = 1: tanh σ. k = 2: ½[I₁(σ₁+σ₂) ± I₁(σ₁−σ₂)] / ₀F₁. k = 3: the derivative of the
    one-dimensional integral under the integral sign. Rank one: I_{k/2}(s)/I_{k/2−1}(s)
    on the non-zero entry, and 0 on the zero entries (₀F₁ is even in each σᵢ).
    """
    flat = sig.reshape(-1, k)
    if not np.all(has_closed_form(flat, k)):
        raise ValueError("sigma: no closed form for k >= 4 with more than one non-zero singular value; "
                         "use method='series', 'asymptotic', 'laplace' or 'mc'")
    if k == 1:
        out = np.tanh(flat)
    elif k == 2:
        out = _grad_k2(flat[:, 0], flat[:, 1])
    else:
        out = np.zeros_like(flat)
        r1 = np.count_nonzero(flat, axis=1) <= 1
        idx = np.argmax(flat, axis=1)
        rows = np.flatnonzero(r1)
        out[rows, idx[rows]] = _grad_rank_one(flat[rows, idx[rows]], k)
        if (~r1).any():
            out[~r1] = _log_k3(flat[~r1], want_grad=True)[1]
    return out.reshape(sig.shape)
