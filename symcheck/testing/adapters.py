"""The boundary between a checker and the user's function (the *subject*).

A checker hands the subject NumPy float64 arrays (or whatever `convert_input` turns them into,
e.g. `torch.as_tensor`) and converts what comes back to a float64 NumPy array here: NumPy
arrays and scalars, Python numbers, JAX arrays (through `np.asarray`) and PyTorch tensors
(`.detach().cpu().numpy()`, looked up by attribute, so neither framework is imported). Every
call is guarded: a subject that raises, returns NaN or ±inf, a complex or non-numeric value or an
array of the wrong shape gets an `Outcome` naming the problem instead of crashing the check.

Batched subjects (`batched=True`) receive the inputs of one size stacked along a new first axis
and must return one result per input; if the batched call fails, each input is retried in a batch
of one, so the table still names the input that breaks it.

`matrix_inputs` builds the k×k matrices A = U diag(σ) Vᵀ of the `signature="matrix"`
checks from seeded Haar-random U, V, with a bound on how far the float64 A is from a matrix with
singular values exactly σ (the reference's input error).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from symcheck.evidence import gamma
from symcheck.haar import haar_orthogonal

__all__ = ["MatrixInputs", "Outcome", "call_subject", "describe_exception", "import_line",
           "matrix_inputs", "subject_name", "to_float_array", "to_real_array"]


def subject_name(fn) -> str:
    """`module:qualified_name` of a function, else its `repr` (the name shown in the result)."""
    module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if module and qual:
        return f"{module}:{qual}"
    return repr(fn)


def import_line(fn) -> str:
    """A line of Python that makes the subject available as `fn` in a reproducer.

    `from module import name as fn` for a module-level function, otherwise a comment asking the
    reader to define `fn` (lambdas, closures and callable objects cannot be imported by name).
    """
    module, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if module and qual and "<" not in qual and "." not in qual and module != "__main__":
        return f"from {module} import {qual} as fn"
    return f"fn = ...  # the function under test: {subject_name(fn)}"


def describe_exception(exc: BaseException, limit: int = 120) -> str:
    """`"ValueError: message"` shortened to `limit` characters (one table cell)."""
    text = f"{type(exc).__name__}: {exc}".splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def to_real_array(value) -> np.ndarray:
    """A subject's return value as a real NumPy array in its own dtype (float32 stays float32).

    PyTorch-like objects go through `.detach()`, `.cpu()` and `.numpy()` (each where present);
    everything else through `np.asarray` (NumPy, JAX, Python numbers, sequences).

    Raises
    ------
    TypeError
        For complex, boolean or non-numeric results (the message says which), so the caller can
        report it against the input.
    """
    if not isinstance(value, np.ndarray):
        if hasattr(value, "detach"):
            value = value.detach()
        if hasattr(value, "cpu"):
            value = value.cpu()
        if hasattr(value, "numpy"):
            value = value.numpy()
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged sequences
        raise TypeError(f"returned a value NumPy cannot read as an array ({describe_exception(exc)})") from None
    if arr.dtype.kind not in "iuf":
        kind = {"c": "complex numbers", "b": "booleans", "O": "Python objects"}.get(arr.dtype.kind, f"dtype {arr.dtype}")
        raise TypeError(f"returned {kind} (type {type(value).__name__}), not real numbers")
    return arr


def to_float_array(value) -> np.ndarray:
    """`to_real_array` cast to float64."""
    return to_real_array(value).astype(np.float64)


@dataclass(frozen=True)
class Outcome:
    """What the subject returned for one input: `value` (float64, expected shape) or the `problem`."""

    value: np.ndarray | None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def _fit(arr: np.ndarray, shape: tuple) -> np.ndarray:
    """`arr` in `shape`; a size-1 result stands for a scalar. ValueError naming both shapes otherwise."""
    if arr.shape == shape:
        return arr
    if shape == () and arr.size == 1:
        return arr.reshape(())
    raise ValueError(f"returned shape {arr.shape}, expected {shape}")


def _check_values(arr: np.ndarray) -> str:
    if np.all(np.isfinite(arr)):
        return ""
    bad = "NaN" if np.any(np.isnan(arr)) else "inf"
    return f"returned {bad}"


def _call_one(fn, args: tuple, out_shape: tuple, convert_input) -> Outcome:
    try:
        raw = fn(*(convert_input(a.copy()) if isinstance(a, np.ndarray) else a for a in args))  # a subject may
        arr = _fit(to_float_array(raw), out_shape)  # write into its inputs: it gets copies
    except Exception as exc:  # noqa: BLE001 - any failure of the subject is evidence, not a crash
        return Outcome(None, f"raised {describe_exception(exc)}")
    problem = _check_values(arr)
    return Outcome(arr, problem)


def _call_batch(fn, group: list[tuple], out_shape: tuple, convert_input) -> list[Outcome] | None:
    """One stacked call for inputs of equal array shapes and equal non-array arguments; None if it fails."""
    stacked = tuple(np.stack([args[i] for args in group]) if isinstance(group[0][i], np.ndarray) else group[0][i]
                    for i in range(len(group[0])))
    try:
        raw = fn(*(convert_input(a) if isinstance(a, np.ndarray) else a for a in stacked))
        arr = _fit(to_float_array(raw), (len(group),) + out_shape)
    except Exception:  # noqa: BLE001 - retried input by input to name the one that breaks it
        return None
    return [Outcome(row, _check_values(row)) for row in arr]


def _batch_key(args: tuple) -> tuple:
    return tuple(("array", a.shape) if isinstance(a, np.ndarray) else ("value", a) for a in args)


def call_subject(fn, inputs: list[tuple], out_shape: tuple, *, batched: bool = False, deadline: float | None = None,
                 convert_input=None) -> list[Outcome | None]:
    """Call the subject on every input, guarded; `None` for inputs left when `deadline` passed.

    Parameters
    ----------
    fn : callable
        The subject.
    inputs : list of tuple
        Positional arguments per input (NumPy arrays and plain values such as k).
    out_shape : tuple
        The expected shape of one result (`()` for a scalar).
    batched : bool
        Stack inputs whose arrays have equal shapes and whose other arguments are equal, call the
        subject once per stack and expect a leading axis of results.
    deadline : float, optional
        `time.perf_counter()` value after which no further call is started.
    convert_input : callable, optional
        Applied to every array argument before the call (e.g. `torch.as_tensor`).

    Returns
    -------
    list of Outcome or None
        In input order.
    """
    convert = convert_input if convert_input is not None else (lambda a: a)
    out: list[Outcome | None] = [None] * len(inputs)

    def expired() -> bool:
        return deadline is not None and time.perf_counter() > deadline

    if batched:
        groups: dict[tuple, list[int]] = {}
        for i, args in enumerate(inputs):
            groups.setdefault(_batch_key(args), []).append(i)
        for idx in groups.values():
            if expired():
                break
            res = _call_batch(fn, [inputs[i] for i in idx], out_shape, convert)
            if res is None:  # localise the failure: each input as a batch of one
                for i in idx:
                    if expired():
                        break
                    one = _call_batch(fn, [inputs[i]], out_shape, convert)
                    out[i] = one[0] if one is not None else _batched_problem(fn, inputs[i], out_shape, convert)
            else:
                for i, r in zip(idx, res):
                    out[i] = r
        return out
    for i, args in enumerate(inputs):
        if expired():
            break
        out[i] = _call_one(fn, args, out_shape, convert)
    return out


def _batched_problem(fn, args: tuple, out_shape: tuple, convert) -> Outcome:
    """The problem of a failed batch of one, named like an unbatched call's."""
    single = tuple(a[None] if isinstance(a, np.ndarray) else a for a in args)
    res = _call_one(fn, single, (1,) + out_shape, convert)
    return res if not res.ok else Outcome(None, "failed when batched with other inputs")


@dataclass(frozen=True)
class MatrixInputs:
    """k×k matrices A = U diag(σ) Vᵀ for the `signature="matrix"` checks.

    Attributes
    ----------
    A : ndarray, shape (n, k, k)
        The float64 matrices handed to the subject.
    U, V : ndarray, shape (n, k, k)
        The Haar-random float64 factors.
    distance : ndarray, shape (n,)
        Bound on ‖A − A₀‖_F, A₀ = U₀ diag(σ) V₀ᵀ with U₀, V₀ the orthogonal polar factors of U, V
        (so A₀ has singular values exactly σ): the rounding of the two products plus the distance
        of U, V from orthogonality (see `matrix_inputs`).
    orthogonality : ndarray, shape (n,)
        Bound on ‖U − U₀‖₂ + ‖V − V₀‖₂.
    """

    A: np.ndarray
    U: np.ndarray
    V: np.ndarray
    distance: np.ndarray
    orthogonality: np.ndarray


def _polar_distance(Q: np.ndarray) -> np.ndarray:
    """Bound on ‖Q − Q₀‖₂ (Q₀ the orthogonal polar factor) per matrix of a batch (n, k, k).

    With s the singular values of Q, ‖Q − Q₀‖₂ = max|sᵢ − 1| ≤ max|sᵢ² − 1| = ‖QᵀQ − I‖₂ ≤ ‖QᵀQ − I‖_F;
    the float64 evaluation of QᵀQ − I is off by at most γ_k·‖Q‖_F² ≤ γ_k·k(1 + ‖QᵀQ − I‖₂), added.
    """
    k = Q.shape[-1]
    G = np.matmul(np.swapaxes(Q, -1, -2), Q) - np.eye(k)
    e = np.sqrt(np.sum(G * G, axis=(-2, -1)))
    return e + gamma(k) * k * (1.0 + e) * 2.0


def matrix_inputs(sigma: np.ndarray, rng: np.random.Generator) -> MatrixInputs:
    """Matrices with singular values σ: A = U diag(σ) Vᵀ, U and V Haar on O(k) (seeded).

    Parameters
    ----------
    sigma : ndarray, shape (n, k)
        Singular values per input.
    rng : numpy.random.Generator

    Returns
    -------
    MatrixInputs

    Notes
    -----
    Error of A (Higham 2002, §3.5): the computed product is (U diag σ)Vᵀ with elementwise error
    ≤ γ_{k+1}|U| diag(σ) |V|ᵀ, whose Frobenius norm is ≤ γ_{k+1}·‖U‖_F‖V‖_F·σ_max ≤
    γ_{k+1}·k(1 + e)²σ_max. With e_U = ‖U − U₀‖₂, e_V likewise (`_polar_distance`),
    U diag(σ)Vᵀ − U₀ diag(σ)V₀ᵀ = (U − U₀)diag(σ)Vᵀ + U₀ diag(σ)(V − V₀)ᵀ has Frobenius norm
    ≤ ‖σ‖₂(e_U(1 + e_V) + e_V).
    """
    n, k = sigma.shape
    U = haar_orthogonal(k, n, rng) if n else np.empty((0, k, k))
    V = haar_orthogonal(k, n, rng) if n else np.empty((0, k, k))
    A = np.matmul(U * sigma[:, None, :], np.swapaxes(V, -1, -2))
    eu, ev = _polar_distance(U), _polar_distance(V)
    smax = sigma.max(axis=1) if k else np.zeros(n)
    rounding = gamma(k + 1) * k * (1.0 + eu) * (1.0 + ev) * smax
    distance = rounding + np.sqrt(np.sum(sigma * sigma, axis=1)) * (eu * (1.0 + ev) + ev)
    return MatrixInputs(A=A, U=U, V=V, distance=distance, orthogonality=eu + ev)


def float_repr_array(a: np.ndarray) -> str:
    """`np.array([...])` source text that reproduces `a` bit for bit (repr of each float)."""
    def rec(x):
        if np.ndim(x) == 0:
            v = float(x)
            return repr(v) if math.isfinite(v) else f"float('{v}')"
        return "[" + ", ".join(rec(y) for y in x) + "]"
    return f"np.array({rec(np.asarray(a, dtype=float))})"
