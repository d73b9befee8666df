"""Closed forms of ₀F₁(k/2; ΣΣᵀ/4) in mpmath: the arbitrary-precision truth where one exists.

* k = 1: cosh σ;
* k = 2: ½[I₀(σ₁ + σ₂) + I₀(σ₁ − σ₂)] (Muirhead (1982), §7.4; the Haar integral over both
  cosets of O(2));
* rank one (at most one non-zero σ, any k): the scalar ₀F₁(k/2; σ²/4) = Γ(k/2)(σ/2)^{1−k/2} I_{k/2−1}(σ).

Evaluated at mpmath's working precision (wrap calls in ``mpmath.workdps``). The float64
closed forms are :mod:`symcheck.hyp0f1.closed_form`; this module is their independent twin.
"""

from __future__ import annotations

import mpmath
import numpy as np

from symcheck._checks import as_sigma

__all__ = ["closed_form_mp"]


def closed_form_mp(sigma, k) -> mpmath.mpf:
    """₀F₁(k/2; ΣΣᵀ/4) for k = 1, 2 or rank-one Σ, in mpmath at the working precision.

    Parameters
    ----------
    sigma : array_like, shape (k,)
        Singular values (non-negative).
    k : int
        Dimension of the orthogonal group.

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    ValueError
        If ``sigma`` is not a valid row of k singular values, or has more than one non-zero
        entry for k ≥ 3 (no closed form).
    """
    sig, k = as_sigma(sigma, k)
    if sig.ndim != 1:
        raise ValueError(f"sigma must be one row of k={k} singular values, got shape {sig.shape}")
    s = [mpmath.mpf(float(v)) for v in sig]
    if k == 2:
        return (mpmath.besseli(0, s[0] + s[1]) + mpmath.besseli(0, s[0] - s[1])) / 2
    if np.count_nonzero(sig) > 1:
        raise ValueError(f"sigma: no closed form for k={k} with more than one non-zero singular value")
    t = max(s)
    return mpmath.hyp0f1(mpmath.mpf(k) / 2, t * t / 4)  # k = 1: cosh t
