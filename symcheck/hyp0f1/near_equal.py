"""log ₀F₁(k/2; AAᵀ/4) near an equal spectrum: the equal-spectrum closed form at the mean and a proven band.

log ₀F₁ is the cumulant generating function of the diagonal (T₁₁, …, T_kk) of a Haar-distributed T ∈ O(k):
F(σ) = E[exp Σσᵢ Tᵢᵢ]. So, with p_σ the law of T tilted by exp Σσᵢ Tᵢᵢ,

* ∇ log F(σ) = E_{p_σ}[diag T] and ∇² log F(σ) = Cov_{p_σ}(diag T): log F is convex;
* at an equal point s𝟙 every ∂ᵢ log F is the same g = (1/k) d/ds log F(s𝟙) (F is symmetric);
* for any direction d, dᵀ∇² log F d = Var_{p_σ}(Σ dᵢTᵢᵢ) ≤ ‖d‖₁², since Σ dᵢTᵢᵢ lies in [−‖d‖₁, ‖d‖₁]
  (|Tᵢᵢ| ≤ 1, attained at T = diag(sign dᵢ)) and a variable in an interval of length ℓ has variance
  at most ℓ²/4 (Popoviciu 1935).

Write σ = s𝟙 + d with s the mean of σ, so Σdᵢ = 0 in exact arithmetic. Taylor's theorem with the
convexity and the curvature bound gives

    log F(s𝟙) + g Σdᵢ  ≤  log F(σ)  ≤  log F(s𝟙) + g Σdᵢ + ½‖d‖₁².                               (1)

The value returned is the middle of the band, L + ‖d‖₁²/4 with L = log F(s𝟙) from Weyl's integration
formula (:mod:`symcheck.hyp0f1.weyl`), and its error figure is

    ‖d‖₁²/4 (half the band, proven) + |Σdᵢ| (the first-order term left by the rounding of s; 0 ≤ g ≤ 1)
    + the figure of L (an estimate: its rounding allowance measured against mpmath) + rounding,

with Σdᵢ summed exactly (:func:`math.fsum`) over dᵢ = σᵢ − s, which are exact where s/2 ≤ σᵢ ≤ 2s
(Sterbenz) and are otherwise counted by their rounding. The gradient is g𝟙: by the mean value theorem
each component moves from g by eᵢᵀ∇² log F d at an intermediate point, at most √Var(Tᵢᵢ)·√Var(Σ dⱼTⱼⱼ) ≤ ‖d‖₁
(Cauchy–Schwarz; Var Tᵢᵢ ≤ 1), so its figure is ‖d‖₁ plus that of g.

Second order. The band (1) is wide where the tilted law is concentrated (large s: the curvature dᵀ∇² log F d is
then ~‖d‖₂²/s, far below ‖d‖₁²). At the equal point the Hessian is symmetric under permutations, H = (α − β)I + βJ
with α = ∂ᵢ² log F, β = ∂ᵢ∂ⱼ log F, so dᵀHd = c‖d‖₂² + β(Σdᵢ)² with c = α − β = (Fᵢᵢ − Fᵢⱼ)/F = ½Var(tᵢ − tⱼ) ∈ [0, 2].
Muirhead's equation (Muirhead 1982, Thm. 7.5.6; :mod:`symcheck.hyp0f1.confluent` (4)) at the tie, its same-cluster
term g_ij taken to its limit ∂ᵢN = −F₁/(2s) + ½(Fᵢᵢ − Fᵢⱼ) (F₁ = ∂ᵢF), and the diagonal f(s) = F(s𝟙) give two
linear equations,

    ((k + 1)/2)Fᵢᵢ − ((k − 1)/2)Fᵢⱼ = F − ((k − 1)/(2s))F₁,    kFᵢᵢ + k(k − 1)Fᵢⱼ = f'',                      (2)

with F₁/F = G/k and f''/F = G' + G², G = d/ds log f from :mod:`~symcheck.hyp0f1.weyl` and G' its central
differences (steps CURVATURE_STEP·s and half that, Richardson-combined; their difference and the rounding of G over
the step are its error estimate). (2) at k = 2 is the identity of ½[I₀(2s) + 1], and c = 1/k at s → 0 (Haar moments).
Taylor's theorem to second order along θ ↦ log F(s𝟙 + θd), with the third cumulant of X = Σdᵢtᵢ as the remainder,
gives

    log F(σ) = L + gΣdᵢ + ½c‖d‖₂² + ½β(Σdᵢ)² + κ₃(θ*)/6,   |κ₃| ≤ ℓV,                                        (3)

ℓ = 2‖d‖₁ (the length of X's range) and V = min(ℓ²/4, μ e^ℓ) the Grönwall bound on the variance of X along the
segment from its value μ ≥ dᵀHd at θ = 0 (:mod:`symcheck.hyp0f1.tie_expansion`, "Remainder"; μ = min(2, c +
CURVATURE_SAFETY·δc)‖d‖₂² + (Σdᵢ)²). The value is L + ½c‖d‖₂², its figure ℓV/6 + CURVATURE_SAFETY·½δc‖d‖₂² +
½(Σdᵢ)² plus the allowances of (1)'s figure; the gradient is g + c dᵢ within V (|κ(tᵢ, X, X)| ≤ 2V, tie_expansion
(5)) + CURVATURE_SAFETY·δc·max|dᵢ| + |Σdᵢ| + g's figure. Each row takes the smaller of the two figures (first or
second order). At k = 12, σ ≈ 9.15 with relative deviations 1e-5 the band (1) gives 2.1e-8, (3) ~1e-12.

Valid range: every k ≥ 1 and every σ with mean up to :data:`symcheck.hyp0f1.weyl.MAX_S`; the band is
useful where ‖d‖₁ is small, i.e. for nearly equal spectra, where the other routes are at their worst
(the holonomic method spreads a cluster of k nearly equal σ; the series and the asymptotic expansion do
not see the near-equality): at k = 6, σ ≈ 30 with a relative spread of 1e-7 auto's earlier answer had an
error figure of 148 nats against this band's 3e-11 (measured 2026-11-27).
"""

from __future__ import annotations

import math

import numpy as np

from symcheck.evidence import EPS
from symcheck.hyp0f1 import weyl

__all__ = ["CURVATURE_SAFETY", "CURVATURE_STEP", "band", "curvature", "log_hyp0f1_near_equal", "near_equal_reason"]

_U = EPS / 2
#: Relative step of the central differences of G = d/ds log F(s𝟙) whose Richardson combination gives G' (module
#: docstring, "Second order"), and the safety factor on that derivative's error estimate.
CURVATURE_STEP = 1e-3
CURVATURE_SAFETY = 10.0


def _split(flat: np.ndarray):
    """(mean s, deviations d = σ − s, ‖d‖₁, |Σdᵢ| with the rounding of dᵢ) per row; σ near the float64
    limit overflow the mean or ‖d‖₁ to inf (such rows are refused or get an infinite band)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = flat.mean(axis=1)
        d = flat - s[:, None]
        l1 = np.abs(d).sum(axis=1) * (1.0 + 2.0 * flat.shape[1] * _U)  # the sum's rounding, upward
        exact = (flat >= 0.5 * s[:, None]) & (flat <= 2.0 * s[:, None])  # Sterbenz: σᵢ − s is exact
        first = np.array([abs(math.fsum(row)) if np.all(np.isfinite(row)) else np.inf for row in d])
        first = first + _U * np.where(exact, 0.0, np.abs(d)).sum(axis=1)
    return s, d, l1, first


def curvature(s: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """c = (Fᵢᵢ − Fᵢⱼ)/F at the equal points s𝟙 (clipped to [0, 2], where it lies) and an estimate of its error from
    (2) of the module docstring; c = 1/k (δc = 0) at s = 0, δc = inf where k < 2 or s(1 + CURVATURE_STEP) exceeds
    weyl.MAX_S."""
    s = np.asarray(s, dtype=float)
    c, dc = np.full(s.shape, 1.0 / max(k, 1)), np.zeros(s.shape)
    dc[s > weyl.MAX_S / (1.0 + CURVATURE_STEP)] = np.inf
    if k < 2:
        return c, np.full(s.shape, np.inf)
    rows = np.flatnonzero((s > 0) & np.isfinite(dc))
    if not rows.size:
        return c, dc
    h = CURVATURE_STEP * s[rows]
    points = np.concatenate([s[rows], s[rows] + h, s[rows] - h, s[rows] + h / 2, s[rows] - h / 2])
    _, _, grad, gerr = weyl.log_hyp0f1_equal(np.repeat(points[:, None], k, axis=1), k, want_grad=True)
    G, dG = (k * grad[:, 0]).reshape(5, -1), (k * gerr).reshape(5, -1)
    wide, narrow = (G[1] - G[2]) / (2 * h), (G[3] - G[4]) / h
    G1 = (4.0 * narrow - wide) / 3.0
    dG1 = np.abs(narrow - wide) + 3.0 * dG.max(axis=0) / h
    g, dg, sr = G[0], dG[0], s[rows]
    fpp, dfpp = G1 + g * g, dG1 + 2.0 * np.abs(g) * dg
    a = (2.0 - (k - 1) * g / (k * sr) + fpp / k) / (k + 2)
    da = ((k - 1) * dg / (k * sr) + dfpp / k) / (k + 2)
    c[rows] = np.clip((k * a - fpp / k) / (k - 1), 0.0, 2.0)
    dc[rows] = (k * da + dfpp / k) / (k - 1)
    return c, dc


def band(flat: np.ndarray) -> np.ndarray:
    """Half-width ‖d‖₁²/4 of the proven band (1) per row of ``flat`` (n, k) (module docstring; inf where it
    overflows)."""
    with np.errstate(over="ignore"):
        return 0.25 * _split(flat)[2] ** 2


def near_equal_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row: '' where the route applies (mean σ ≤ weyl.MAX_S), else why not."""
    out = np.full(flat.shape[0], "", dtype=object)
    with np.errstate(over="ignore"):
        mean = flat.mean(axis=1) if flat.shape[0] else np.zeros(0)
    for r in np.flatnonzero(mean > weyl.MAX_S):
        out[r] = (f"the near-equal route evaluates the equal-spectrum closed form at the mean singular value, "
                  f"which takes means up to {weyl.MAX_S:g}; this row's is {mean[r]:.3g}")
    return out


def log_hyp0f1_near_equal(flat: np.ndarray, k: int, want_grad: bool = False):
    """log ₀F₁(k/2; AAᵀ/4) from the equal-spectrum closed form at the mean σ and the band (1).

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Validated singular values with mean ≤ :data:`symcheck.hyp0f1.weyl.MAX_S`.
    k : int
    want_grad : bool
        Also return the gradient and its figure.

    Returns
    -------
    value, error : ndarray, shape (n,)
        The middle of the band (1) and its half-width plus the first-order term the rounding of the mean
        leaves, the closed form's figure and the rounding of the sum (module docstring).
    grad, grad_error : ndarray, shape (n, k) and (n,)
        Only with ``want_grad``: g𝟙 and ‖d‖₁ plus the closed form's figure of g.

    Raises
    ------
    ValueError
        A row's mean exceeds weyl.MAX_S.

    References
    ----------
    T. Popoviciu (1935), Sur les équations algébriques ayant toutes leurs racines réelles, Mathematica
    (Cluj) 9, 129–145 (the variance bound); :mod:`symcheck.hyp0f1.weyl` for the closed form.
    """
    reasons = near_equal_reason(flat, k)
    if np.any(reasons != ""):
        raise ValueError(f"sigma: {reasons[reasons != ''][0]}")
    s, d, l1, first = _split(flat)
    res = weyl.log_hyp0f1_equal(np.repeat(s[:, None], k, axis=1), k, want_grad=want_grad)
    half = 0.25 * l1 * l1
    value = res[0] + half
    error = half * (1.0 + 2.0 * _U) + first + res[1] + 2.0 * _U * np.abs(value)
    # second order, (2)–(3) of the module docstring: taken where its figure is the smaller
    c, dc = curvature(s, k)
    with np.errstate(over="ignore", invalid="ignore"):
        l2sq = (d * d).sum(axis=1) * (1.0 + 2.0 * k * _U)
        ell = 2.0 * l1
        mu = np.minimum(2.0, c + CURVATURE_SAFETY * dc) * l2sq + first * first
        V = np.minimum(0.25 * ell * ell, mu * np.exp(ell))
        value2 = res[0] + 0.5 * c * l2sq
        error2 = (ell * V / 6.0 + CURVATURE_SAFETY * 0.5 * dc * l2sq + 0.5 * first * first + first + res[1]
                  + 2.0 * _U * np.abs(value2))
    better = error2 < error
    value, error = np.where(better, value2, value), np.where(better, error2, error)
    if not want_grad:
        return value, error
    with np.errstate(over="ignore", invalid="ignore"):
        grad2 = res[2] + c[:, None] * d
        gerror2 = V + CURVATURE_SAFETY * dc * np.abs(d).max(axis=1, initial=0.0) + first + res[3]
    gbetter = gerror2 < l1 + res[3]
    return (value, error, np.where(gbetter[:, None], grad2, res[2]), np.where(gbetter, gerror2, l1 + res[3]))
