"""Monte Carlo reductions shared by every estimator: sample means and their standard errors."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["log_mean_exp_se", "mean_se"]


def mean_se(values, axis: int = -1):
    """Sample mean and its standard error (sample sd with ddof = 1 over √n) along ``axis``."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[axis]
    return values.mean(axis=axis), values.std(axis=axis, ddof=1) / math.sqrt(n)


def log_mean_exp_se(logw, axis: int = -1):
    """log of the sample mean of exp(logw), and its delta-method standard error.

    Computed as max + log mean exp(logw − max), so nothing overflows; the standard error
    of the log is SE(mean)/mean. Entries of −inf (zero weights) are allowed.
    """
    logw = np.asarray(logw, dtype=np.float64)
    top = np.max(logw, axis=axis, keepdims=True)
    mean, se = mean_se(np.exp(logw - top), axis=axis)
    return np.squeeze(top, axis=axis) + np.log(mean), se / mean
