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

__all__ = ["band", "log_hyp0f1_near_equal", "near_equal_reason"]

_U = EPS / 2


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
    s, _, l1, first = _split(flat)
    res = weyl.log_hyp0f1_equal(np.repeat(s[:, None], k, axis=1), k, want_grad=want_grad)
    half = 0.25 * l1 * l1
    value = res[0] + half
    error = half * (1.0 + 2.0 * _U) + first + res[1] + 2.0 * _U * np.abs(value)
    if not want_grad:
        return value, error
    return value, error, res[2], l1 + res[3]
