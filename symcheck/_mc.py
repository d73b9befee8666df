"""Monte Carlo reductions shared by every estimator: sample means and their standard errors."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["KHAT_RELIABLE", "khat_trusted", "log_mean_exp_se", "mean_se", "pareto_khat"]

#: Largest Pareto tail index k̂ of the weights at which a sample mean's standard error is trusted. The weights
#: have finite variance only for ξ < ½, and the standard error is the central-limit one (Vehtari, Simpson,
#: Gelman, Yao & Gabry 2024, §3; their practical 0.7 is for Pareto-smoothed estimates, which are not used
#: here). Measured: saddle-point IS at k = 10, spread σ_max = 30, k̂ ≈ 0.57, came out 4.8 standard errors
#: below the holonomic value (on which two integrators agree to 2.5e-9); six more runs of 200 000 draws
#: were 0.7–3.6 below.
KHAT_RELIABLE = 0.5
#: k̂ must lie this many of its standard errors (1 + k̂)/√M below KHAT_RELIABLE (:func:`khat_trusted`): the
#: same IS row gave k̂ = 0.43 with another seed, still 4.8 standard errors off, within 1.1 standard errors
#: of k̂ from ½.
KHAT_Z = 2.0


def mean_se(values, axis: int = -1):
    """Sample mean and its standard error (sample sd with ddof = 1 over √n) along ``axis``.

    Where the sum or the sum of squares overflows float64 although the values are finite
    (magnitudes near 1e154 and beyond), the sample is rescaled by its largest magnitude first,
    so a mean and standard error within the float64 range are returned, without a warning. A
    sample holding ±inf or NaN gives a non-finite mean or standard error, which callers reject.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[axis]
    with np.errstate(over="ignore", invalid="ignore"):
        mean, sd = values.mean(axis=axis), values.std(axis=axis, ddof=1)
    redo = ~(np.isfinite(mean) & np.isfinite(sd)) & np.all(np.isfinite(values), axis=axis)
    if np.any(redo):
        scale = np.max(np.abs(values), axis=axis, keepdims=True)
        scaled = values / np.where(scale > 0, scale, 1.0)
        scale = np.squeeze(scale, axis=axis)
        with np.errstate(over="ignore"):  # a mean or sd beyond float64 stays inf: callers check finiteness
            mean = np.where(redo, scale * scaled.mean(axis=axis), mean)
            sd = np.where(redo, scale * scaled.std(axis=axis, ddof=1), sd)
    return mean, sd / math.sqrt(n)


def log_mean_exp_se(logw, axis: int = -1):
    """log of the sample mean of exp(logw), and its delta-method standard error.

    Computed as max + log mean exp(logw − max), so nothing overflows; the standard error
    of the log is SE(mean)/mean. Entries of −inf (zero weights) are allowed.
    """
    logw = np.asarray(logw, dtype=np.float64)
    top = np.max(logw, axis=axis, keepdims=True)
    mean, se = mean_se(np.exp(logw - top), axis=axis)
    return np.squeeze(top, axis=axis) + np.log(mean), se / mean


#: Exceedances below this fraction of the largest count as none (:func:`pareto_khat`).
_NEGLIGIBLE = 1e-250


def pareto_khat(logw) -> float:
    """Tail index ξ̂ of the weights exp(logw): the generalized Pareto shape fitted to their largest
    M = min(n/5, 3√n) values above the next one (Vehtari et al. 2024, PSIS diagnostic).

    The fit is Zhang & Stephens' (2009, Technometrics 51, 316–325) estimator: with exceedances x (sorted),
    θ on the grid θⱼ = 1/x₍M₎ + (1 − √(g/(j − ½)))/(3x₍q₎), j = 1…g, g = 30 + ⌊√M⌋, q = ⌊M/4 + ½⌋, the
    profile likelihood ℓ(θ) = M(log(θ/κ(θ)) + κ(θ) − 1), κ(θ) = −mean log(1 − θx), gives posterior weights
    over the grid; θ̂ is their mean and ξ̂ = mean log(1 − θ̂x), then shrunk towards ½ as (Mξ̂ + 5)/(M + 10)
    (Vehtari et al.'s weak prior). ξ̂ > ½ means the weights have infinite variance, ξ̂ > 1 an infinite mean.
    Returns nan where fewer than 25 weights are finite; −inf where the largest M + 1 are equal (no tail: the
    weights are bounded there); +inf where a quarter of the M exceedances are below 1e-250 of the largest
    (a few weights larger than the rest by ≳ 575 nats, or ties under them: the mean rests on those few, and
    the fit's grid would overflow).
    """
    logw = np.asarray(logw, dtype=np.float64).ravel()
    logw = logw[np.isfinite(logw)]
    tail = _tail_size(logw.size)
    if tail < 5:
        return math.nan
    top = np.sort(logw)[-(tail + 1):]
    w = np.exp(top - top[-1])
    x = w[1:] - w[0]
    if not x[-1] > 0.0:
        return -math.inf
    x = x / x[-1]  # the shape does not depend on the scale
    g = 30 + int(math.sqrt(tail))
    q = max(int(tail / 4 + 0.5), 1)
    if not x[q - 1] > _NEGLIGIBLE:
        return math.inf
    j = np.arange(1, g + 1)
    theta = 1.0 / x[-1] + (1.0 - np.sqrt(g / (j - 0.5))) / (3.0 * x[q - 1])
    kappa = -np.mean(np.log1p(-np.outer(theta, x)), axis=1)
    ell = tail * (np.log(theta / kappa) + kappa - 1.0)
    post = np.exp(ell - ell.max())
    theta_hat = float(post @ theta / post.sum())
    xi = float(np.mean(np.log1p(-theta_hat * x)))
    return (tail * xi + 5.0) / (tail + 10.0)


def _tail_size(n: int) -> int:
    return int(min(n // 5, math.ceil(3.0 * math.sqrt(n))))


def khat_trusted(khat, n: int):
    """Whether a standard error from n weights with tail index ``khat`` can be trusted: k̂ + KHAT_Z·(1 + k̂)/√M
    ≤ KHAT_RELIABLE, M the tail size of :func:`pareto_khat` ((1 + ξ)/√M: the large-sample standard error of the
    shape's estimate, Smith 1987). False for nan; True for −inf (no tail)."""
    khat = np.asarray(khat, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        upper = np.where(np.isneginf(khat), -np.inf, khat + KHAT_Z * (1.0 + khat) / math.sqrt(max(_tail_size(n), 1)))
    return upper <= KHAT_RELIABLE
