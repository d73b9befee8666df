"""The Gaussian base q* = N(mean, var) every symmetrized density starts from: one home.

Validation (diagonal variances of the event shape, or a full covariance of the flattened
point), the log density, the entropy and sampling. The groups (:mod:`symcheck.groups`,
:mod:`symcheck.orthogonal`), the symmetrized estimators (:mod:`symcheck.symmetrize`) and the
claims all use these.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import solve_triangular

from symcheck._checks import (
    as_finite_array,
    check_alloc,
    check_bool,
    check_int,
    check_positive_definite,
    check_rng,
)

__all__ = ["LOG_2PI", "entropy_gaussian", "gaussian_logpdf", "sample_gaussian", "validate_gaussian"]

#: log 2π.
LOG_2PI = math.log(2.0 * math.pi)
_LOG_2PIE = math.log(2 * math.pi * math.e)


def validate_gaussian(mean, var, event_shape=None, allow_full=True):
    """Validate a Gaussian base: ``mean`` of the event shape, ``var`` diagonal or full.

    Returns float64 ``(mean, var)``; ``var`` has the shape of ``mean`` (diagonal) or is
    an ``(n, n)`` positive-definite matrix (full covariance of the flattened point).
    """
    mean = as_finite_array(mean, "mean")
    if mean.ndim == 0:
        mean = mean.reshape(1)
    if event_shape is not None and mean.shape != tuple(event_shape):
        raise ValueError(f"mean must have the group's event shape {tuple(event_shape)}, got shape {mean.shape}")
    var = as_finite_array(var, "var")
    if var.ndim == 0 and mean.shape == (1,):
        var = var.reshape(1)
    n = mean.size
    if var.shape == mean.shape:
        if np.any(var <= 0):
            raise ValueError("var must be > 0 everywhere (variances of the base Gaussian)")
        return mean, var
    if var.shape == (n, n) and n > 1:
        if not allow_full:
            raise ValueError("var must be diagonal (the shape of mean) for this group; full covariances are not supported")
        return mean, check_positive_definite(var, "var")
    raise ValueError(
        f"var must have the shape of mean {mean.shape} (diagonal) or ({n}, {n}) (full covariance), got shape {var.shape}"
    )


def gaussian_logpdf(z, mean, var):
    """Log density of the Gaussian base q* = N(mean, var) at a batch of points.

    Parameters
    ----------
    z : array_like, shape ``(*batch, *mean.shape)``
    mean : ndarray
        Mean, of the event shape.
    var : ndarray
        Variances of the shape of ``mean`` (diagonal covariance) or an ``(n, n)``
        covariance of the row-major flattened point (n = mean.size). Assumed validated.

    Returns
    -------
    ndarray, shape ``batch``
        log N(z; mean, var), summed over the event axes.

    Notes
    -----
    Diagonal: −½ Σ [(z−μ)²/v + log 2πv]. Full: Cholesky Σ = LLᵀ, −½‖L⁻¹(z−μ)‖² − Σ log Lᵢᵢ − (n/2) log 2π.
    Finite for every finite input (no exp is taken) whose squared distance (z−μ)²/v (or
    ‖L⁻¹(z−μ)‖²) stays in the float64 range, for v down to the subnormal range; beyond it the
    density is below the smallest float64 (log density < −9e307) and the result is −inf,
    without a warning. Callers returning a log density check finiteness.
    """
    z = np.asarray(z, dtype=np.float64)
    ev = mean.ndim
    if z.ndim < ev or z.shape[z.ndim - ev:] != mean.shape:
        raise ValueError(f"z must have trailing shape {mean.shape}, got shape {z.shape}")
    if var.shape == mean.shape:
        with np.errstate(over="ignore"):  # a squared distance beyond float64: log density −inf
            d = z - mean
            axes = tuple(range(z.ndim - ev, z.ndim))
            return -0.5 * (np.sum(d * d / var, axis=axes) + np.sum(np.log(var)) + mean.size * LOG_2PI)
    n = mean.size
    batch = z.shape[: z.ndim - ev]
    chol = np.linalg.cholesky(var)
    with np.errstate(over="ignore"):
        d = (z - mean).reshape(-1, n)
        y = solve_triangular(chol, d.T, lower=True)
        quad = np.sum(y * y, axis=0)
    logdet = 2.0 * np.sum(np.log(np.diag(chol)))
    return (-0.5 * (quad + logdet + n * LOG_2PI)).reshape(batch)


def entropy_gaussian(var, full: bool = False) -> float:
    """Entropy H(q*) of a Gaussian N(·, var), in nats.

    Parameters
    ----------
    var : array_like
        Variances of a diagonal covariance (any shape), or with ``full=True`` an
        ``(n, n)`` covariance matrix.
    full : bool
        Interpret ``var`` as a full covariance.

    Notes
    -----
    ½ Σ [log(2πe) + log vᵢ] (diagonal) or ½ n log(2πe) + Σ log Lᵢᵢ (full, Cholesky Σ = LLᵀ),
    in log space: no product 2πe·v is formed, so any positive finite variance works
    (v = 1.797e308 gives 356.1 nats).
    """
    full = check_bool(full, "full")
    var = as_finite_array(var, "var")
    if full:
        cov = check_positive_definite(var, "var")
        chol = np.linalg.cholesky(cov)
        n = cov.shape[0]
        return float(0.5 * n * _LOG_2PIE + np.sum(np.log(np.diag(chol))))
    if np.any(var <= 0):
        raise ValueError("var must be > 0 everywhere")
    return float(0.5 * (var.size * _LOG_2PIE + np.sum(np.log(var))))


def sample_gaussian(mean, var, rng, size, name: str = "size"):
    """``size`` samples of q* = N(mean, var) (validated arrays); shape ``(size, *mean.shape)``.

    ``name`` is the caller's name for ``size`` in error messages.
    """
    rng = check_rng(rng)
    size = check_int(size, name, minimum=1)
    check_alloc(size * mean.size, name)
    eps = rng.standard_normal((size,) + mean.shape)
    if var.shape == mean.shape:
        return mean + np.sqrt(var) * eps
    chol = np.linalg.cholesky(var)
    flat = eps.reshape(size, -1) @ chol.T
    return mean + flat.reshape(eps.shape)
