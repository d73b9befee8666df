"""Argument validation shared by every public function.

Every public entry point of symcheck validates its input here, so that bad
input raises a :class:`ValueError` that names the argument and the problem
instead of returning a silent NaN or a meaningless number.
"""

from __future__ import annotations

import operator

import numpy as np

__all__ = [
    "as_finite_array",
    "as_sigma",
    "check_choice",
    "check_int",
    "check_positive_definite",
    "check_positive_float",
    "check_rng",
]


def check_int(value, name: str, minimum: int | None = None) -> int:
    """Return ``value`` as a Python ``int``; raise if it is not an integer >= ``minimum``.

    Booleans and non-integral floats are rejected; integral NumPy scalars are accepted.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer, got the boolean {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {out}")
    return out


def check_positive_float(value, name: str, allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float that is > 0 (or >= 0 with ``allow_zero``)."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not np.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out}")
    if out < 0 or (out == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {out}")
    return out


def check_choice(value, name: str, choices) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise naming the options."""
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}; expected one of {sorted(choices)}")
    return value


def as_finite_array(x, name: str, ndim_min: int = 0) -> np.ndarray:
    """Convert ``x`` to a float64 array and check that every entry is finite."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of real numbers") from None
    if arr.ndim < ndim_min:
        raise ValueError(f"{name} must have at least {ndim_min} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.any(np.isnan(arr)) else "inf"
        raise ValueError(f"{name} contains {bad}; every entry must be finite")
    return arr


def as_sigma(sigma, k) -> tuple[np.ndarray, int]:
    """Validate singular values ``sigma`` of shape ``(..., k)``.

    Returns the float64 array (C-contiguous) and ``k`` as an int. Zeros are allowed;
    negative, NaN or infinite entries and a last axis that is not ``k`` are not.
    """
    k = check_int(k, "k", minimum=1)
    arr = as_finite_array(sigma, "sigma", ndim_min=1)
    if arr.shape[-1] != k:
        raise ValueError(f"sigma must have last axis of length k={k}, got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError("sigma must be non-negative (singular values), got a negative entry")
    return np.ascontiguousarray(arr), k


def check_positive_definite(S, name: str, size: int | None = None) -> np.ndarray:
    """Check that ``S`` is a finite, symmetric, positive-definite square matrix.

    Returns the matrix as float64. Symmetry is checked to a relative tolerance of
    ``100 * eps`` of its largest entry; definiteness by a Cholesky factorisation.
    """
    arr = as_finite_array(S, name, ndim_min=2)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name} must be {size}x{size}, got shape {arr.shape}")
    scale = max(np.max(np.abs(arr)), np.finfo(float).tiny)
    if np.max(np.abs(arr - arr.T)) > 100 * np.finfo(float).eps * scale:
        raise ValueError(f"{name} must be symmetric")
    try:
        np.linalg.cholesky(arr)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite (Cholesky factorisation failed)") from None
    return arr


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return a :class:`numpy.random.Generator`; accept a Generator or an integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise ValueError(f"{name} must be a numpy.random.Generator or an integer seed, got {type(rng).__name__}")
