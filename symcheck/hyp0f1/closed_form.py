"""Closed forms of ₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(ATᵀ) dT, in log space.

By Haar invariance the integral equals ∫ exp(Σᵢ σᵢ Tᵢᵢ) dT.

k = 1
    O(1) = {±1}: ₀F₁ = cosh σ.
k = 2
    O(2) is the rotations R(θ) and the reflections; on rotations Σσᵢ Tᵢᵢ = (σ₁+σ₂) cos θ,
    on reflections (σ₁−σ₂) cos θ, each with θ uniform, so
    ₀F₁ = ½ [I₀(σ₁+σ₂) + I₀(σ₁−σ₂)].
rank one (σ = (s, 0, …, 0), any k)
    T₁₁ is the first coordinate of a uniform point on S^{k−1}, with density ∝ (1−t²)^{(k−3)/2};
    the integral is the scalar ₀F₁(k/2; s²/4) = Γ(k/2) (s/2)^{1−k/2} I_{k/2−1}(s).

Large arguments use exponentially scaled Bessel functions (``scipy.special.ive``), so
nothing overflows for any finite σ; small rank-one arguments (s < 2) use the scalar
power series, where ``ive`` would underflow for large k.
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["grad_log_hyp0f1_exact", "has_closed_form", "log_hyp0f1_exact"]

_LOG2 = np.log(2.0)
#: Below this argument the rank-one case sums the scalar series (30 terms reach 1e-17 for s < 2).
_SMALL_S = 2.0
_SERIES_TERMS = 30


def has_closed_form(flat: np.ndarray, k: int) -> np.ndarray:
    """Boolean mask of the rows of ``flat`` (n, k) that a closed form covers."""
    if k <= 2:
        return np.ones(flat.shape[0], dtype=bool)
    return np.count_nonzero(flat, axis=1) <= 1


def _log_cosh(x):
    x = np.abs(x)
    return x + np.log1p(np.exp(-2.0 * x)) - _LOG2


def _scalar_series(b: float, x: np.ndarray):
    """Σₙ xⁿ / ((b)ₙ n!) − 1 (minus the constant term), for small x ≥ 0, elementwise."""
    term = np.ones_like(x)
    total = np.zeros_like(x)
    for n in range(1, _SERIES_TERMS + 1):
        term = term * x / ((b + n - 1) * n)
        total = total + term
    return total


def _log_rank_one(s: np.ndarray, k: int) -> np.ndarray:
    nu = 0.5 * k - 1.0
    out = np.empty_like(s)
    small = s < _SMALL_S
    out[small] = np.log1p(_scalar_series(0.5 * k, s[small] ** 2 / 4.0))
    big = s[~small]
    out[~small] = (special.gammaln(0.5 * k) + (1.0 - 0.5 * k) * np.log(0.5 * big)
                   + np.log(special.ive(nu, big)) + big)
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
    out[~small] = special.ive(b, big) / special.ive(b - 1.0, big)
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


def log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Closed-form log ₀F₁(k/2; AAᵀ/4) for k = 1, k = 2 or rank-one A.

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
        If some row has k >= 3 and more than one non-zero singular value.

    References
    ----------
    Muirhead (1982), Thm. 7.4.1 (integral representation); Watson (1944) for Bessel I.
    """
    flat = sig.reshape(-1, k)
    if not np.all(has_closed_form(flat, k)):
        raise ValueError("sigma: no closed form for k >= 3 with more than one non-zero singular value; "
                         "use method='series', 'laplace' or 'mc'")
    if k == 1:
        out = _log_cosh(flat[:, 0])
    elif k == 2:
        out = _log_k2(flat[:, 0], flat[:, 1])
    else:
        out = _log_rank_one(flat.max(axis=1), k)
    return out.reshape(sig.shape[:-1])


def grad_log_hyp0f1_exact(sig: np.ndarray, k: int) -> np.ndarray:
    """Gradient of :func:`log_hyp0f1_exact` with respect to σ (same coverage).

    k = 1: tanh σ. k = 2: ½[I₁(σ₁+σ₂) ± I₁(σ₁−σ₂)] / ₀F₁. Rank one: I_{k/2}(s)/I_{k/2−1}(s)
    on the non-zero entry, and 0 on the zero entries (₀F₁ is even in each σᵢ).
    """
    flat = sig.reshape(-1, k)
    if not np.all(has_closed_form(flat, k)):
        raise ValueError("sigma: no closed form for k >= 3 with more than one non-zero singular value; "
                         "use method='series', 'laplace' or 'mc'")
    if k == 1:
        out = np.tanh(flat)
    elif k == 2:
        out = _grad_k2(flat[:, 0], flat[:, 1])
    else:
        out = np.zeros_like(flat)
        idx = np.argmax(flat, axis=1)
        rows = np.arange(flat.shape[0])
        out[rows, idx] = _grad_rank_one(flat[rows, idx], k)
    return out.reshape(sig.shape)
