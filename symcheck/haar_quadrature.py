"""Deterministic quadrature of Haar integrals over O(2) and O(3): the independent route of the checks.

Both rules integrate a log-integrand ``log_f(T)`` against the normalised Haar measure without
any of the algebra under test (Bessel functions, zonal series, Laplace's method):

* O(2) = SO(2) ∪ SO(2)·diag(1, −1), each coset half of the mass; on each, adaptive quadrature
  in the rotation angle θ ∈ [0, 2π) (``scipy.integrate.quad``), whose own error estimate is
  returned.
* O(3) = SO(3) ∪ (−I)·SO(3); on SO(3) a tensor rule in ZYZ Euler angles (α, β, γ): trapezoid in
  the periodic α, γ and Gauss–Legendre in β with the Haar weight sin β / 2. The rule converges
  exponentially for entire integrands, so the finer of two grids is far more accurate than
  their difference, which is returned as its error.

Both work in log space (shifted by the maximum), so integrands of any size are safe.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, special

from symcheck._checks import check_callable, check_int

__all__ = ["o2_log_integral", "o3_log_integral", "so3_euler_grid"]

#: Coarse and fine Euler grid sizes of :func:`o3_log_integral` (n nodes per angle, 2n³ points on O(3)).
O3_GRIDS = (28, 40)

_REFLECTION = np.diag([1.0, -1.0])


def _rotation2(theta: float) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


def o2_log_integral(log_f, epsrel: float = 1e-13) -> tuple[float, float]:
    """log ∫_{O(2)} e^{log_f(T)} dT (normalised Haar measure) by adaptive quadrature on both cosets.

    Parameters
    ----------
    log_f : callable
        ``log_f(T) -> float`` for a 2 × 2 orthogonal ``T``.
    epsrel : float
        Relative tolerance asked of ``scipy.integrate.quad`` on each coset.

    Returns
    -------
    value : float
        The log of the integral.
    rel_error : float
        Relative error of the integral (the sum of quad's error estimates over the total);
        the error of ``value`` is about the same.
    """
    check_callable(log_f, "log_f")
    cosets = (_rotation2, lambda t: _rotation2(t) @ _REFLECTION)
    # shift by the maximum over a fine grid so that the integrand is O(1)
    grid = np.linspace(0, 2 * np.pi, 721)
    shift = max(float(log_f(coset(t))) for t in grid for coset in cosets)
    total, err = 0.0, 0.0
    for coset in cosets:
        val, e = integrate.quad(lambda t: math.exp(float(log_f(coset(t))) - shift), 0, 2 * np.pi,
                                epsabs=0, epsrel=epsrel, limit=400)
        total, err = total + val, err + e
    total, err = total / (4 * np.pi), err / (4 * np.pi)
    return math.log(total) + shift, err / total


def _rz(t):
    c, s, z, o = np.cos(t), np.sin(t), np.zeros_like(t), np.ones_like(t)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2)


def _ry(t):
    c, s, z, o = np.cos(t), np.sin(t), np.zeros_like(t), np.ones_like(t)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2)


def so3_euler_grid(n: int) -> tuple[np.ndarray, np.ndarray]:
    """ZYZ Euler grid on SO(3): rotations R_z(α) R_y(β) R_z(γ) (n³, 3, 3) and Haar weights summing to 1.

    α, γ: n equispaced nodes on [0, 2π) (trapezoid); β: n Gauss–Legendre nodes on [0, π] with
    weight sin β / 2.
    """
    n = check_int(n, "n", minimum=1)
    a = 2 * np.pi * np.arange(n) / n
    x, w = np.polynomial.legendre.leggauss(n)
    b = 0.5 * np.pi * (x + 1.0)
    wb = w * 0.5 * np.pi * np.sin(b) / 2.0  # ∫₀^π (sin β / 2) dβ = 1
    A, B, G = np.meshgrid(a, b, a, indexing="ij")
    W = np.broadcast_to(wb[None, :, None] / n**2, A.shape)
    return _rz(A.ravel()) @ _ry(B.ravel()) @ _rz(G.ravel()), W.ravel()


def o3_log_integral(log_f_batch, grids=O3_GRIDS) -> tuple[float, float]:
    """log ∫_{O(3)} e^{log_f(T)} dT on two Euler grids; (finer value, |fine − coarse| error).

    Parameters
    ----------
    log_f_batch : callable
        ``log_f_batch(T) -> array (n,)`` for a stack ``T`` of shape (n, 3, 3).
    grids : pair of int
        Coarse and fine grid sizes (default :data:`O3_GRIDS`).

    Returns
    -------
    value : float
        The log of the integral on the finer grid.
    error : float
        |fine − coarse| of the logs: a bound on the error of ``value`` (exponential convergence).
    """
    check_callable(log_f_batch, "log_f_batch")
    vals = []
    for n in grids:
        T, W = so3_euler_grid(n)
        T = np.concatenate([T, -T])  # O(3) = SO(3) ∪ (−I)·SO(3), each half of the Haar mass
        W = np.concatenate([W, W]) / 2.0
        vals.append(float(special.logsumexp(log_f_batch(T), b=W)))
    return vals[1], abs(vals[1] - vals[0])
