"""Argument validation shared by every public function.

Every public entry point of symcheck validates its input here, so that bad
input raises a :class:`ValueError` that names the argument and the problem
instead of returning a silent NaN or a meaningless number. Booleans are not
accepted where a number is expected (nor numbers where a boolean is), complex
values are never truncated to their real part, and requests for more memory
than :data:`MAX_FLOATS` float64 values are refused before anything is allocated.
"""

from __future__ import annotations

import operator

import numpy as np

__all__ = [
    "MAX_FLOATS",
    "as_finite_array",
    "as_sigma",
    "check_alloc",
    "check_bool",
    "check_callable",
    "check_choice",
    "check_finite_result",
    "check_int",
    "check_positive_definite",
    "check_positive_float",
    "check_rng",
    "check_sigma_sum",
]

#: Largest number of float64 values one call may ask to allocate at once (2³⁰, i.e. 8 GiB):
#: larger sample sizes, group orders or dimensions raise a ValueError naming the argument
#: instead of exhausting memory.
MAX_FLOATS = 2**30

_BOOL_TYPES = (bool, np.bool_)


def check_bool(value, name: str) -> bool:
    """Return ``value`` as a Python ``bool``; raise unless it is ``True``/``False`` (or a NumPy bool).

    Strings such as ``'False'`` and the integers 0/1 are rejected: a truthy string would
    otherwise silently switch the flag on.
    """
    if not isinstance(value, _BOOL_TYPES):
        raise ValueError(f"{name} must be a boolean (True or False), got {value!r}")
    return bool(value)


def check_callable(value, name: str):
    """Return ``value`` if it is callable; otherwise raise naming ``name``."""
    if not callable(value):
        raise ValueError(f"{name} must be a callable, got {type(value).__name__}")
    return value


def check_finite_result(value, names: str, what: str):
    """Return ``value`` if every entry is finite; otherwise raise naming the inputs ``names``.

    For results whose exact value lies beyond the float64 range (or whose computation
    overflowed there), so that they are never returned as NaN or ±inf.
    """
    if not np.all(np.isfinite(np.asarray(value, dtype=np.float64))):
        raise ValueError(f"{names}: {what} is not finite in float64 (it, or a term of it, lies beyond "
                         "the float64 range for these inputs)")
    return value


def check_int(value, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python ``int``; raise if it is not an integer in [``minimum``, ``maximum``].

    Booleans and non-integral floats are rejected; integral NumPy scalars are accepted.
    """
    if isinstance(value, _BOOL_TYPES):
        raise ValueError(f"{name} must be an integer, got the boolean {value!r}")
    try:
        out = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}, got {out}")
    return out


def check_alloc(n_floats: int, name: str) -> None:
    """Raise if a request needs more than :data:`MAX_FLOATS` float64 values (``name`` caused it)."""
    if n_floats > MAX_FLOATS:
        raise ValueError(f"{name}: this call would allocate {n_floats:.3g} float64 values "
                         f"(> MAX_FLOATS = {MAX_FLOATS}, 8 GiB); ask for fewer")


def check_positive_float(value, name: str, allow_zero: bool = False) -> float:
    """Return ``value`` as a finite float that is > 0 (or >= 0 with ``allow_zero``).

    Only real scalars are accepted: booleans, strings, complex numbers and arrays raise.
    """
    if isinstance(value, (_BOOL_TYPES, str, bytes, complex, np.complexfloating)):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    try:
        out = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be finite, got a number too large for float64") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not np.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out}")
    if out < 0 or (out == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {out}")
    return out


def _same_choice(value, choice) -> bool:
    """``value`` equals ``choice`` with the same kind: str for str, a non-boolean integer for int."""
    if isinstance(choice, str):
        return isinstance(value, str) and value == choice
    if isinstance(value, _BOOL_TYPES):
        return False
    try:
        return operator.index(value) == choice
    except TypeError:
        return False


def check_choice(value, name: str, choices):
    """Return the entry of ``choices`` that ``value`` equals; otherwise raise naming the options.

    Strings match strings only, integers match integers only (never booleans), and an
    unhashable or array ``value`` is rejected rather than compared elementwise.
    """
    for choice in choices:
        if _same_choice(value, choice):
            return choice
    raise ValueError(f"unknown {name} {value!r}; expected one of {sorted(choices)}")


def as_finite_array(x, name: str, ndim_min: int = 0, copy: bool = True) -> np.ndarray:
    """Convert ``x`` to a float64 array and check that every entry is a finite real number.

    Complex, boolean, string and other non-numeric input raises (complex values are
    never truncated to their real part); so do entries that overflow float64. With
    ``copy=False`` a float64 input is returned as it is (the caller must not write to it).
    """
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of real numbers (got a ragged or non-numeric object)") from None
    if raw.dtype.kind not in "iufO":
        kind = {"b": "booleans", "c": "complex numbers"}.get(raw.dtype.kind, f"dtype {raw.dtype}")
        raise ValueError(f"{name} must be an array of real numbers, got {kind}")
    try:
        with np.errstate(over="ignore"):
            arr = raw.astype(np.float64, copy=copy)
    except OverflowError:
        raise ValueError(f"{name} has an entry too large for float64; every entry must be finite") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of real numbers") from None
    if arr.ndim < ndim_min:
        raise ValueError(f"{name} must have at least {ndim_min} dimension(s), got shape {arr.shape}")
    with np.errstate(over="ignore", invalid="ignore"):  # a finite sum means every entry is finite (one pass)
        finite = np.isfinite(np.sum(arr)) or np.all(np.isfinite(arr))
    if not finite:
        bad = "NaN" if np.any(np.isnan(arr)) else "inf"
        raise ValueError(f"{name} contains {bad}; every entry must be finite")
    return arr


def check_sigma_sum(sig: np.ndarray, name: str = "sigma") -> None:
    """Raise if some row sum Σσ of singular values ``sig`` (..., k) overflows float64.

    log ₀F₁(k/2; AAᵀ/4) ≤ Σσ (as |tr ATᵀ| ≤ Σσ), and Laplace's method on a neighbourhood of
    T = I of size 1/Σσ gives log ₀F₁ ≥ Σσ − O(k² log Σσ); where Σσ exceeds the float64
    range (1.797e308) the deficit is far below the float64 spacing there (≈ 2e292), so log
    ₀F₁ is not representable either: a ValueError says so instead of returning inf.
    """
    with np.errstate(over="ignore"):
        total = np.sum(sig, axis=-1)
    if not np.all(np.isfinite(total)):
        raise ValueError(f"{name}: a row sum of singular values exceeds the float64 range (1.797e308), "
                         "so log 0F1 (>= that sum minus O(k^2 log of it)) is not representable in float64")


def as_sigma(sigma, k) -> tuple[np.ndarray, int]:
    """Validate singular values ``sigma`` of shape ``(..., k)``.

    Returns the float64 array (C-contiguous) and ``k`` as an int. Zeros are allowed;
    negative, NaN, infinite or complex entries, a last axis that is not ``k``, and rows
    whose sum overflows float64 (:func:`check_sigma_sum`) are not.
    """
    k = check_int(k, "k", minimum=1)
    arr = as_finite_array(sigma, "sigma", ndim_min=1, copy=False)  # the kernels only read it
    if arr.shape[-1] != k:
        raise ValueError(f"sigma must have last axis of length k={k}, got shape {arr.shape}")
    if arr.size and arr.min() < 0:
        raise ValueError("sigma must be non-negative (singular values), got a negative entry")
    check_sigma_sum(arr)
    return np.ascontiguousarray(arr), k


def check_positive_definite(S, name: str, size: int | None = None, match: str | None = None) -> np.ndarray:
    """Check that ``S`` is a finite, symmetric, positive-definite square matrix.

    Returns the matrix as float64. Symmetry is checked to a relative tolerance of
    ``100 * eps`` of its largest entry; definiteness by a Cholesky factorisation. ``match``
    names the argument that fixed ``size`` (for the message).
    """
    arr = as_finite_array(S, name, ndim_min=2)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    if size is not None and arr.shape[0] != size:
        to_match = f" to match {match}" if match else ""
        raise ValueError(f"{name} must be {size}x{size}{to_match}, got shape {arr.shape}")
    scale = max(np.max(np.abs(arr)), np.finfo(float).tiny)
    if np.max(np.abs(arr - arr.T)) > 100 * np.finfo(float).eps * scale:
        raise ValueError(f"{name} must be symmetric")
    try:
        np.linalg.cholesky(arr)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} must be positive definite (Cholesky factorisation failed)") from None
    return arr


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """Return a :class:`numpy.random.Generator`; accept a Generator or a non-negative integer seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, _BOOL_TYPES):
        return np.random.default_rng(check_int(rng, name, minimum=0))
    raise ValueError(f"{name} must be a numpy.random.Generator or an integer seed, got {type(rng).__name__}")
