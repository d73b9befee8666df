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
    envelope, integrated in scaled form by a compiled adaptive Gauss–Kronrod rule
    (:mod:`symcheck.hyp0f1.k3_quadrature`, which holds the substitutions).
k = 4 (a series of positive terms, valid for every σ with Σσ up to ~4·10⁴)
    SO(4) ≅ (S³ × S³)/±1 turns the integral into E_q ₀F₁(2; Σⱼ λⱼ² qⱼ²/4) over uniform q on S³,
    λ = Hσ (Hadamard), whose Dirichlet moments give Σₙ hₙ/(4ⁿ((n+1)!)²) with hₙ the coefficients
    of ∏ⱼ(1 − λⱼ²t)^{−1/2}: every term positive (:mod:`symcheck.hyp0f1.so4_series`, with a proven
    rounding and truncation bound).
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
from scipy import special

from symcheck.hyp0f1 import k3_quadrature, so4_series, weyl

__all__ = ["EXACT_ULPS", "closed_form_reason", "exact_gradient", "exact_value", "grad_log_hyp0f1_exact", "has_closed_form",
           "log_hyp0f1_exact"]

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


def _k4_series_fits(flat: np.ndarray) -> np.ndarray:
    """Rows (n, 4) whose k = 4 series needs at most :data:`symcheck.hyp0f1.so4_series.MAX_TERMS` terms
    (its largest |λ| is at most Σσ)."""
    return so4_series.terms_needed(flat.sum(axis=1)) <= so4_series.MAX_TERMS


def has_closed_form(flat: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the rows of ``flat`` (n, k) that a closed form covers: every row for k ≤ 3, for
    k = 4 every row within the series' term limit, rank one (at most one non-zero σ), and k equal σ up
    to :data:`symcheck.hyp0f1.weyl.MAX_S`."""
    if k <= 3:
        return np.ones(flat.shape[0], dtype=bool)
    out = (np.count_nonzero(flat, axis=1) <= 1) | (weyl.is_equal_full_rank(flat) & (flat[:, 0] <= weyl.MAX_S))
    return out | _k4_series_fits(flat) if k == 4 else out


def closed_form_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row: '' where a closed form applies, else why not (for routing and error messages)."""
    out = np.full(flat.shape[0], "", dtype=object)
    miss = ~has_closed_form(flat, k)
    if k == 4:
        out[miss] = (f"the k = 4 series needs more than {so4_series.MAX_TERMS} terms (sum of sigma above "
                     f"~{2 * (so4_series.MAX_TERMS - 12 * np.sqrt(so4_series.MAX_TERMS)):.3g}) and the row is "
                     f"neither rank one nor {k} equal sigma (at most {weyl.MAX_S:g})")
    else:
        out[miss] = (f"no closed form for k={k} with more than one non-zero singular value unless all {k} are equal "
                     f"(and at most {weyl.MAX_S:g})")
    return out


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


def _log_rank_one(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(k/2; s²/4) and the size of the terms it adds (the scale of its rounding error)."""
    nu = 0.5 * k - 1.0
    out = np.empty_like(s)
    scale = np.ones_like(s)
    small = s < _SMALL_S
    out[small] = np.log1p(_scalar_series(0.5 * k, s[small] ** 2 / 4.0))
    big = s[~small]
    parts = (np.full_like(big, special.gammaln(0.5 * k)), (1.0 - 0.5 * k) * np.log(0.5 * big), _log_ive(nu, big), big)
    out[~small] = sum(parts)
    scale[~small] = sum(np.abs(p) for p in parts)
    return out, scale


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


def _log_k2(s1, s2) -> tuple[np.ndarray, np.ndarray]:
    p = s1 + s2
    d = np.abs(s1 - s2)
    inner = np.log(special.i0e(p) + special.i0e(d) * np.exp(-2.0 * np.minimum(s1, s2)))  # e^{|d| − p}, exactly
    return p + inner - _LOG2, np.abs(p) + np.abs(inner) + _LOG2


def _grad_k2(s1, s2):
    p = s1 + s2
    d = s1 - s2
    # e^{|d| − p} = e^{−2 min σ}: from the rounded p and d the exponent was u·σ_max off, which at σ = (2248, 0.22)
    # moved ∂/∂σ₂ by 1.9e-13 against a figure of 3.6e-15 (a randomized search found it, 2026-11-29)
    w = np.exp(-2.0 * np.minimum(s1, s2))
    den = special.i0e(p) + special.i0e(d) * w
    i1p = special.i1e(p)
    i1d = special.i1e(d) * w  # I₁ is odd, i1e keeps the sign of d
    return np.stack([(i1p + i1d) / den, (i1p - i1d) / den], axis=-1)


_L3 = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
#: Relative accuracy asked of the k = 3 quadrature (its own error estimate is checked).
K3_EPSREL = 1e-14


def _log_k3(flat: np.ndarray, want_grad: bool = False):
    """(log ₀F₁, gradient or None, rounding scale, converged) of k = 3 rows by the one-dimensional
    integral, both cosets of every row in one compiled call (:mod:`symcheck.hyp0f1.k3_quadrature`)."""
    lam = flat @ _L3.T
    log_e, size, moments, converged = k3_quadrature.coset_integrals(lam, want_grad, K3_EPSREL)
    lp, lm = log_e[:, 0], log_e[:, 1]
    out = np.logaddexp(lp, lm) - _LOG2
    with np.errstate(over="ignore"):  # beyond float64 near σ ~ 1e308: error figure inf, honestly
        scale = size.max(axis=1) + np.abs(out) + _LOG2
    grad = None
    if want_grad:
        wp = np.exp(lp - np.logaddexp(lp, lm))[:, None]
        grad = (wp * moments[:, 0] - (1 - wp) * moments[:, 1]) @ _L3
    return out, grad, scale, converged.all(axis=1)


#: Rounding allowance of the closed forms, in units of u·(1 + Σ|terms|) (u = 2⁻⁵³, Σ|terms| the
#: magnitudes of the logs added: e.g. |log Γ(k/2)| + |(1 − k/2) log(s/2)| + |log I_ν e^{−s}| + s for
#: rank one), covering scipy's Bessel functions (a few ulp, measured) and the additions; checked
#: against the mpmath closed forms in tests/test_hyp0f1_error_figures.py (largest measured ratio
#: below EXACT_ULPS/4).
EXACT_ULPS = 16.0
#: Relative error allowance of the k = 3 quadrature: its target K3_EPSREL times a safety factor 8
#: (the Gauss–Kronrod estimate is not a bound). Measured against the 40-digit mpmath quadrature
#: (:func:`symcheck.hyp0f1.reference_data.k3_quadrature_mp`) on the 28 stored k = 3 entries (σ up to
#: 1e4, all three regimes of :mod:`symcheck.hyp0f1.k3_quadrature`) and 37 more rows (random σ from 1e-3
#: to 1e4, equal, two equal, one or two zero): true error / (K3_EPSREL·(1 + |log ₀F₁|)) at most 0.04,
#: and for 24 gradients (5-point differences; rank one: I_{3/2}/I_{1/2}) max-norm error /
#: (K3_EPSREL·(1 + max|∂|)) at most 0.18;
#: tests/test_hyp0f1_k3_quadrature.py re-checks it.
K3_ERROR = 8 * K3_EPSREL


def _validate(flat: np.ndarray, k: int) -> None:
    if not np.all(has_closed_form(flat, k)):
        raise ValueError("sigma: " + next(r for r in closed_form_reason(flat, k) if r)
                         + "; use method='series', 'holonomic', 'asymptotic', 'laplace' or 'mc'")


def exact_value(flat: np.ndarray, k: int, want_grad: bool = False):
    """Closed-form log ₀F₁ of the rows ``flat`` (n, k) and an estimate of its absolute error.

    k = 1 (cosh), k = 2 (Bessel I₀), k = 3 (one-dimensional integral), k = 4 (positive series,
    :mod:`symcheck.hyp0f1.so4_series`), rank one (Bessel I_{k/2−1}), all k σ equal (Weyl's integration
    formula, :mod:`symcheck.hyp0f1.weyl`). The error is EXACT_ULPS·u·(1 + Σ|terms|), plus
    K3_ERROR·(1 + |value|) for the k = 3 quadrature, the k = 4 series' proven bound and the
    equal-spectrum route's own estimate. With ``want_grad`` also the gradient in σ and an
    estimate of its largest absolute error (same allowances relative to the gradient's size).

    Raises
    ------
    ValueError
        A row with no closed form (:func:`closed_form_reason`).

    References
    ----------
    Muirhead (1982), Thm. 7.4.1 (integral representation); Watson (1944) for Bessel I;
    module docstring for k = 3 and 4; :mod:`symcheck.hyp0f1.weyl` for equal σ.
    """
    _validate(flat, k)
    n = flat.shape[0]
    value = np.empty(n)
    error = np.empty(n)
    grad = np.zeros_like(flat)
    gerr = np.zeros(n)
    unit = EXACT_ULPS * 0.5 * np.finfo(float).eps
    if k == 1:
        value[:] = _log_cosh(flat[:, 0])
        error[:] = unit * (1.0 + np.abs(flat[:, 0]))
        if want_grad:
            grad[:, 0] = np.tanh(flat[:, 0])
            gerr[:] = unit
    elif k == 2:
        value[:], scale = _log_k2(flat[:, 0], flat[:, 1])
        error[:] = unit * (1.0 + scale)
        if want_grad:
            grad[:] = _grad_k2(flat[:, 0], flat[:, 1])
            gerr[:] = unit * (1.0 + np.abs(grad).max(axis=1))
    else:
        r1 = np.count_nonzero(flat, axis=1) <= 1
        eq = ~r1 & weyl.is_equal_full_rank(flat) & (flat.max(axis=1) <= weyl.MAX_S)
        k3 = ~r1 & ~eq & (k == 3)  # the one-dimensional integral
        k4 = ~r1 & ~eq & (k == 4)  # the positive series
        if r1.any():
            s = flat[r1].max(axis=1)
            value[r1], scale = _log_rank_one(s, k)
            error[r1] = unit * (1.0 + scale)
            if want_grad:
                rows = np.flatnonzero(r1)
                idx = np.argmax(flat[rows], axis=1)
                g = _grad_rank_one(s, k)
                grad[rows, idx] = g
                gerr[rows] = unit * (1.0 + np.abs(g))
        if eq.any():
            res = weyl.log_hyp0f1_equal(flat[eq], k, want_grad=want_grad)
            value[eq], error[eq] = res[0], res[1]
            if want_grad:
                grad[eq], gerr[eq] = res[2], res[3]
        if k3.any():
            v, g, scale, converged = _log_k3(flat[k3], want_grad)
            value[k3] = v
            # a quadrature that missed its tolerance (never seen: module k3_quadrature) has no error figure
            error[k3] = np.where(converged, unit * (1.0 + scale) + K3_ERROR * (1.0 + np.abs(v)), np.inf)
            if want_grad:
                grad[k3] = g
                gerr[k3] = np.where(converged, K3_ERROR * (1.0 + np.abs(g).max(axis=1)), np.inf)
        if k4.any():
            if want_grad:
                value[k4], error[k4], grad[k4], gerr[k4] = so4_series.log_and_grad_so4(flat[k4])
            else:
                value[k4], error[k4] = so4_series.log_hyp0f1_so4(flat[k4])
    if want_grad:
        # ₀F₁ is even in each σᵢ, so ∂/∂σᵢ = 0 at σᵢ = 0 exactly; the k = 3 integral's derivative under the
        # integral sign cancels there only to ~1e-12 at σ ~ 1e4 (above its figure K3_ERROR)
        grad[flat == 0] = 0.0
    return (value, error, grad, gerr) if want_grad else (value, error)


def log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Closed-form log ₀F₁(k/2; AAᵀ/4) (:func:`exact_value` without the error), shape sig.shape[:-1]."""
    return exact_value(sig.reshape(-1, k), k)[0].reshape(sig.shape[:-1])


def exact_gradient(flat: np.ndarray, k: int):
    """(gradient in σ, estimate of its largest absolute error) of the closed forms, rows (n, k).

    k = 1: tanh σ. k = 2: ½[I₁(σ₁+σ₂) ± I₁(σ₁−σ₂)] / ₀F₁. k = 3: the derivative of the
    one-dimensional integral under the integral sign. Rank one: I_{k/2}(s)/I_{k/2−1}(s) on the
    non-zero entry, and 0 on the zero entries (₀F₁ is even in each σᵢ). Equal σ: 1/k of the
    derivative along the diagonal (:mod:`symcheck.hyp0f1.weyl`).
    """
    _, _, grad, gerr = exact_value(flat, k, want_grad=True)
    return grad, gerr


def grad_log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Gradient of :func:`log_hyp0f1_exact` with respect to σ (:func:`exact_gradient`), shape sig.shape."""
    return exact_gradient(sig.reshape(-1, k), k)[0].reshape(sig.shape)
