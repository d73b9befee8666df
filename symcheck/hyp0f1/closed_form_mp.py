"""Closed forms of ₀F₁(k/2; ΣΣᵀ/4) in mpmath: the arbitrary-precision truth where one exists.

* k = 1: cosh σ;
* k = 2: ½[I₀(σ₁ + σ₂) + I₀(σ₁ − σ₂)] (Muirhead (1982), §7.4; the Haar integral over both
  cosets of O(2));
* rank one (at most one non-zero σ, any k): the scalar ₀F₁(k/2; σ²/4) = Γ(k/2)(σ/2)^{1−k/2} I_{k/2−1}(σ);
* all k singular values equal (:func:`equal_spectrum_mp`): Weyl's integration formula on the two
  cosets of O(k) with Andréief's identity gives determinants of modified Bessel functions,
  E_SO(2m)[e^{s tr T}] = det[I_{i+j} + I_{i−j}]/det[same at s = 0] (i, j < m, argument 2s), and
  with I_{i−j} − I_{i+j+2} (O⁻(2m), size m − 1), e^{s}·(I_{i−j} − I_{i+j+1}) (SO(2m+1)) and
  e^{−s}·(I_{i−j} + I_{i+j+1}) (O⁻(2m+1)); ₀F₁ is the mean of the two cosets. The float64 route
  is :mod:`symcheck.hyp0f1.weyl` (orthogonal polynomials on a quadrature, not determinants).

Evaluated at mpmath's working precision (wrap calls in ``mpmath.workdps``). The float64
closed forms are :mod:`symcheck.hyp0f1.closed_form`; this module is their independent twin.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from symcheck._checks import as_sigma, check_int

__all__ = ["closed_form_mp", "equal_spectrum_cosets_mp", "equal_spectrum_mp"]


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


def _bessel_det(s, size: int, kind: int):
    """det of the (size × size) Bessel matrix of one coset (module docstring) at argument 2s."""
    if size == 0:
        return mpmath.mpf(1)
    if s == 0:
        bess = {nu: mpmath.mpf(1 if nu == 0 else 0) for nu in range(-size - 2, 2 * size + 3)}
    else:
        bess = {nu: mpmath.besseli(abs(nu), 2 * s) for nu in range(-size - 2, 2 * size + 3)}
    entry = (lambda i, j: bess[i + j] + bess[i - j], lambda i, j: bess[i - j] - bess[i + j + 2],
             lambda i, j: bess[i - j] - bess[i + j + 1], lambda i, j: bess[i - j] + bess[i + j + 1])[kind]
    return mpmath.det(mpmath.matrix([[entry(i, j) for j in range(size)] for i in range(size)]))


def equal_spectrum_dps(s: float, k: int, digits: int = 30) -> int:
    """Working precision for :func:`equal_spectrum_mp` to keep ``digits`` digits: the determinants
    lose about log10 of (largest entry)^size / det ≈ size²/2 · log10(2 + s) digits to cancellation."""
    size = k // 2
    return digits + 10 + int(math.ceil(0.5 * size * (size - 1) * math.log10(2.0 + float(s))))


def equal_spectrum_cosets_mp(s, k: int) -> tuple:
    """(E_SO(k)[e^{s tr T}], E_O⁻(k)[e^{s tr T}]): the two cosets' Haar means of which :func:`equal_spectrum_mp`
    is the average, by their Bessel determinants (module docstring); parameters and precision as there."""
    k = check_int(k, "k", minimum=1)
    s = mpmath.mpf(s)
    if s < 0:
        raise ValueError(f"s must be >= 0, got {s}")
    if k % 2 == 0:
        m = k // 2
        parts = ((0, m, 0), (1, m - 1, 0))
    else:
        m = (k - 1) // 2
        parts = ((2, m, 1), (3, m, -1))
    return tuple(mpmath.exp(fixed * s) * _bessel_det(s, size, kind) / _bessel_det(mpmath.mpf(0), size, kind)
                 for kind, size, fixed in parts)


def equal_spectrum_mp(s, k: int):
    """₀F₁(k/2; s²I_k/4), all k singular values equal to ``s``, by Bessel determinants (mpmath).

    Parameters
    ----------
    s : float or mpmath.mpf
        The common singular value (>= 0).
    k : int
        Dimension (>= 1).

    Returns
    -------
    mpmath.mpf
        At mpmath's working precision; the determinants cancel about size²/2·log10(2 + s) digits
        (size = k // 2), so raise the precision by :func:`equal_spectrum_dps` first.

    References
    ----------
    H. Weyl (1939), The Classical Groups, Ch. VII; C. Andréief (1886) for det-of-integrals;
    J. Baik & E. M. Rains (2001), Duke Math. J. 109, §2 (the cosets of O(k)).
    """
    plus, minus = equal_spectrum_cosets_mp(s, k)
    return (plus + minus) / 2
