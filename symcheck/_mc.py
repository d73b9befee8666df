"""Monte Carlo reductions shared by every estimator: sample means and their standard errors."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["log_mean_exp_se", "mean_se"]


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
