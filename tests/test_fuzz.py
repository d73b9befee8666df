"""Hypothesis fuzz of the whole public API with bad input (issue #7).

Every function of ``symcheck.__all__`` and every public method of the group classes is
called with valid small arguments in which one argument is replaced by a bad or extreme
value: NaN, ±inf, huge, negative, zero, complex, wrong shape, wrong type, a boolean
where a number is expected, a string where a boolean is expected. The property:

* the call returns finite numbers only (arrays, tuples, mpmath numbers: no silent NaN/inf),
  or raises :class:`ValueError` whose message names the replaced argument;
* no other exception type escapes;
* no ``RuntimeWarning`` (overflow, invalid value, division by zero) escapes from symcheck, with
  an answer or with the ValueError: a value that legitimately overflows (a log density below
  the float64 range, s = μ²/v = inf) is handled where it is computed, without a warning;
* the call finishes within ``CALL_SECONDS`` (checked per call), and a call that hangs
  (e.g. in a Numba loop that ignores signals) is stopped by a hard guard,
  ``faulthandler.dump_traceback_later(HARD_SECONDS, exit=True)``, which prints every
  thread's traceback and ends the process.

Default run: ``EXAMPLES`` examples per function (a few hundred in total). The ``slow``
run, ``pytest -m slow tests/test_fuzz.py``, draws ``SLOW_EXAMPLES`` per function
(> 10⁴ in total). The planted tests at the end feed the property checker broken
functions (silent NaN, wrong exception type, unnamed argument, slow call) and see it fail.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import math
import sys
import time
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symcheck
from symcheck import MLPPermutation, Orthogonal, SignFlip

#: Longest a single call may take (seconds): every call here takes milliseconds to a
#: fraction of a second on valid input of this size; the margin absorbs a loaded machine.
CALL_SECONDS = 20.0
#: A call still running after this long is a hang: the process is stopped with tracebacks.
HARD_SECONDS = 120.0
EXAMPLES = 8
SLOW_EXAMPLES = 250


# ------------------------------------------------------------------------------ property


class PropertyViolation(AssertionError):
    """The call broke the fuzz property (see the module docstring)."""


def _all_finite(value) -> bool:
    """True if every number inside ``value`` (nested tuples/lists, arrays, mpmath) is finite."""
    if isinstance(value, (tuple, list)):
        return all(_all_finite(v) for v in value)
    if isinstance(value, (mpmath.mpf, mpmath.mpc)):
        return bool(mpmath.isfinite(value))
    if isinstance(value, (str, bool, np.bool_)) or value is None:
        return True
    arr = np.asarray(value)
    if arr.dtype.kind in "biu":
        return True
    if arr.dtype.kind in "fc":
        return bool(np.all(np.isfinite(arr)))
    return True  # other objects (e.g. a Group instance returned by a constructor)


def check_call(fn, kwargs: dict, bad: str | None, seconds: float = CALL_SECONDS):
    """Call ``fn(**kwargs)`` and enforce the property; ``bad`` names the replaced argument.

    Returns the result (or the ValueError). Raises :class:`PropertyViolation` otherwise.
    """
    faulthandler.dump_traceback_later(HARD_SECONDS, exit=True)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn(**kwargs)
    except ValueError as err:
        out = err
    except Exception as err:  # noqa: BLE001 — any other type is the failure being looked for
        raise PropertyViolation(f"{type(err).__name__} (not ValueError) with {bad}={kwargs.get(bad)!r}: "
                                f"{err}") from err
    finally:
        faulthandler.cancel_dump_traceback_later()
    # warnings raised in this file come from the user callables of the cases (a log joint overflowing)
    leaked = [w for w in caught if issubclass(w.category, RuntimeWarning) and w.filename != __file__]
    if leaked:
        w = leaked[0]
        raise PropertyViolation(f"{w.category.__name__} escaped ({w.filename}:{w.lineno}: {w.message}) "
                                f"with {bad}={kwargs.get(bad)!r}")
    elapsed = time.perf_counter() - start
    if elapsed > seconds:
        raise PropertyViolation(f"call took {elapsed:.1f} s (> {seconds} s) with {bad}={kwargs.get(bad)!r}")
    if isinstance(out, ValueError):
        if bad is not None and bad not in str(out):
            raise PropertyViolation(f"ValueError does not name {bad!r}: {out}")
        return out
    if not _all_finite(out):
        raise PropertyViolation(f"non-finite result {out!r} with {bad}={kwargs.get(bad)!r}")
    return out


# ------------------------------------------------------------------------------ bad values

_HUGE_INTS = [2**40, 2**63, 10**30, -(2**63)]
_NON_NUMBERS = [None, "3", "abc", b"1", {"a": 1}, object(), [1, "a"], [[1, 2], [3]]]

BAD_INT = st.sampled_from([-1, 0, 1, 2.5, 2.0, np.nan, np.inf, -np.inf, 1 + 1j, True, False, np.True_,
                           np.float64(3.0), np.array([3]), *_HUGE_INTS, *_NON_NUMBERS])
BAD_FLOAT = st.sampled_from([np.nan, np.inf, -np.inf, -1.0, 0.0, -0.0, 1e308, 1.797e308, 5e-324, 1e-300,
                             1 + 1j, np.complex128(2.0), True, False, "0.5", np.array([0.5]), 10**400,
                             *_NON_NUMBERS])
BAD_BOOL = st.sampled_from(["False", "True", "", 0, 1, 2, None, np.array([True]), [True], 1.0, np.nan])
BAD_CHOICE = st.sampled_from(["", "nope", "AUTO", None, 1, 0, True, 1.5, ["auto"], np.array(["auto"]),
                              {"auto": 1}, b"auto"])
BAD_RNG = st.sampled_from([None, -1, 2.5, "0", True, np.random.RandomState(0), {"seed": 1}, 1 + 1j,
                           np.array([1, 2]), np.nan])
BAD_CALLABLE = st.sampled_from([None, 3, "f", np.array([1.0])])
BAD_GROUP = st.sampled_from([None, "SignFlip", 3, object(), SignFlip, np.array([1.0])])
BAD_BLOCKS = st.sampled_from([[[0, 0], [1]], [[0], [1]], [[0.5, 2], [1]], [[0, 2], [1, 3]], [[0, 2], []], "ab",
                              [[0, 1, 2]], 3, [[-1, 2], [1]], [[True, 2], [1]], [[2**63, 0], [1]], np.nan])
_SPECIAL = [np.nan, np.inf, -np.inf, 1e300, -1e300, 1.797e308, -1.0, 5e-324, 0.0]


@st.composite
def bad_array(draw, valid: np.ndarray):
    """A corrupted version of the valid float array ``valid``."""
    kind = draw(st.sampled_from(["entry", "scale", "complex", "shape", "type", "bool", "empty", "dtype_int"]))
    arr = np.array(valid, dtype=np.float64, copy=True)
    if kind == "entry" and arr.size:
        idx = draw(st.integers(0, arr.size - 1))
        arr.reshape(-1)[idx] = draw(st.sampled_from(_SPECIAL))
        return arr
    if kind == "scale":
        with np.errstate(over="ignore"):  # an overflow to inf is one of the bad values wanted
            return arr * draw(st.sampled_from([1e150, 1e300, 1e308, -1.0, 1e-300, 0.0]))
    if kind == "complex":
        return arr + draw(st.sampled_from([1j, 0j, 1e-300j]))
    if kind == "shape":
        return draw(st.sampled_from([arr[..., :-1] if arr.ndim else arr[None], arr[None], arr.reshape(-1),
                                     np.concatenate([arr.reshape(-1), [1.0]]), arr[..., None], arr.T,
                                     np.float64(1.0)]))
    if kind == "type":
        return draw(st.sampled_from(_NON_NUMBERS + [arr.tolist().__repr__(), arr.astype(str)]))
    if kind == "bool":
        return arr > 0.5
    if kind == "empty":
        return draw(st.sampled_from([np.empty(0), np.empty((0,) + arr.shape[1:]), []]))
    return arr.astype(np.int64)


def _bad(kind, valid):
    """Strategy of bad values for an argument of ``kind`` whose valid value is ``valid``."""
    fixed = {
        "int": BAD_INT, "float": BAD_FLOAT, "bool": BAD_BOOL, "choice": BAD_CHOICE, "rng": BAD_RNG,
        "callable": BAD_CALLABLE, "group": BAD_GROUP, "blocks": BAD_BLOCKS,
    }
    return fixed[kind] if kind in fixed else bad_array(np.asarray(valid))


# ------------------------------------------------------------------------------ the API


@dataclasses.dataclass
class Case:
    """One public callable: ``fn(**valid())`` works; ``kinds`` maps each argument to its kind."""

    name: str
    fn: object
    valid: object
    kinds: dict

    def __repr__(self):
        return self.name


def _rng():
    return np.random.default_rng(12345)


_SIG3 = np.array([[1.5, 0.7, 0.2], [0.3, 0.0, 2.0]])
_COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]])
_MLP = [1, 3, 1]
_MLP_DIM = 10


def _log_joint(z):
    return -0.5 * np.sum(np.asarray(z) ** 2, axis=tuple(range(1, np.ndim(z))))


def _nan_log_joint(z):
    return np.full(np.shape(z)[0], np.nan)


def _sigma_cases():
    base = {"sigma": "array", "k": "int", "method": "choice"}
    out = []
    for method, opts in [("auto", {}), ("laplace", {"variant": ("choice", "listing")}),
                         ("series", {"rtol": ("float", 1e-12), "max_degree": ("int", 60),
                                     "return_error": ("bool", True)}),
                         ("mc", {"n_samples": ("int", 64), "rng": ("rng", 0)}), ("exact", {}),
                         ("asymptotic", {"order": ("int", 1)})]:
        sig = _SIG3 if method not in ("exact", "asymptotic") else (_SIG3 + 3.0)
        valid = {"sigma": sig, "k": 3, "method": method, **{k: v for k, (_, v) in opts.items()}}
        kinds = {**base, **{k: kind for k, (kind, _) in opts.items()}}
        out.append(Case(f"log_hyp0f1[{method}]", symcheck.log_hyp0f1, lambda v=valid: dict(v), kinds))
        if method in ("auto", "laplace", "series", "exact"):
            gvalid = {k: v for k, v in valid.items() if k != "return_error"}
            gkinds = {k: v for k, v in kinds.items() if k != "return_error"}
            out.append(Case(f"grad_log_hyp0f1[{method}]", symcheck.grad_log_hyp0f1,
                            lambda v=gvalid: dict(v), gkinds))
    return out


def _group_cases(label, make, mean, var, z, g, extra=()):
    """Public methods of one group instance (constructed fresh per call)."""
    mk = lambda attr: (lambda **kw: getattr(make(), attr)(**kw))  # noqa: E731
    base = {"mean": "array", "var": "array"}
    # log |G| = inf is the documented value for a continuous group
    log_order = (lambda: make().log_order() == math.inf) if label == "Orthogonal" else mk("log_order")
    cases = [
        Case(f"{label}.validate", mk("validate"), lambda: {"mean": mean, "var": var}, base),
        Case(f"{label}.log_order", log_order, dict, {}),
        Case(f"{label}.sample", mk("sample"), lambda: {"rng": _rng(), "size": 5}, {"rng": "rng", "size": "int"}),
        Case(f"{label}.act", mk("act"), lambda: {"g": g, "z": z}, {"g": "array", "z": "array"}),
        Case(f"{label}.symmetrized_logpdf", mk("symmetrized_logpdf"), lambda: {"z": z, "mean": mean, "var": var},
             {"z": "array", **base}),
        Case(f"{label}.base_logpdf", mk("base_logpdf"), lambda: {"z": z, "mean": mean, "var": var},
             {"z": "array", **base}),
    ]
    for name in extra:
        if name == "elements":
            cases.append(Case(f"{label}.elements", mk("elements"), lambda: {"max_elements": 1000},
                              {"max_elements": "int"}))
            cases.append(Case(f"{label}.enumerated_logpdf", mk("enumerated_logpdf"),
                              lambda: {"z": z, "mean": mean, "var": var, "max_elements": 1000},
                              {"z": "array", **base, "max_elements": "int"}))
        elif name in ("exact_gap", "exact_chi2"):
            cases.append(Case(f"{label}.{name}", mk(name), lambda: {"mean": mean, "var": var}, base))
        elif name == "neighbours":
            cases.append(Case(f"{label}.log_n_neighbours", mk("log_n_neighbours"), dict, {}))
            cases.append(Case(f"{label}.sample_neighbours", mk("sample_neighbours"),
                              lambda: {"rng": _rng(), "size": 4}, {"rng": "rng", "size": "int"}))
            cases.append(Case(f"{label}.is_neighbour", mk("is_neighbour"), lambda: {"g": g}, {"g": "array"}))
        elif name == "source_index":
            cases.append(Case(f"{label}.source_index", mk("source_index"), lambda: {"g": g}, {"g": "array"}))
    return cases


def _cases():
    rng = np.random.default_rng(7)
    m3, v3 = np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.5, 2.0])
    mats = {"M0": rng.normal(size=(2, 3)), "U0": _COV[:2, :2], "V0": _COV, "M1": rng.normal(size=(2, 3)),
            "U1": np.eye(2), "V1": 2 * np.eye(3)}
    M42 = rng.normal(size=(4, 2))
    X42 = rng.normal(size=(3, 4, 2))
    mlp_mean, mlp_var = rng.normal(size=_MLP_DIM), rng.uniform(0.5, 1.5, _MLP_DIM)
    grp = lambda: SignFlip()  # noqa: E731
    sym = {"mean": "array", "var": "array", "group": "group"}
    cases = _sigma_cases() + [
        Case("log_hyp0f1_mc", symcheck.log_hyp0f1_mc,
             lambda: {"sigma": _SIG3, "k": 3, "n_samples": 64, "rng": _rng(), "proposal": "haar"},
             {"sigma": "array", "k": "int", "n_samples": "int", "rng": "rng", "proposal": "choice"}),
        Case("log_hyp0f1_mc[saddle]", symcheck.log_hyp0f1_mc,
             lambda: {"sigma": _SIG3 + 20, "k": 3, "n_samples": 64, "rng": _rng(), "proposal": "saddle"},
             {"sigma": "array", "k": "int", "n_samples": "int", "rng": "rng"}),
        Case("hyp0f1_reference", symcheck.hyp0f1_reference, lambda: {"sigma": _SIG3[0], "k": 3, "dps": 20},
             {"sigma": "array", "k": "int", "dps": "int"}),
        Case("haar_orthogonal", symcheck.haar_orthogonal,
             lambda: {"k": 3, "size": 6, "rng": _rng(), "special": True},
             {"k": "int", "size": "int", "rng": "rng", "special": "bool"}),
        Case("kl_gaussian", symcheck.kl_gaussian, lambda: {"m0": m3, "S0": _COV, "m1": -m3, "S1": v3},
             {"m0": "array", "S0": "array", "m1": "array", "S1": "array"}),
        Case("kl_matrix_normal", symcheck.kl_matrix_normal, lambda: {**mats, "method": "closed"},
             {**{k: "array" for k in mats}, "method": "choice"}),
        Case("optimal_factored_gaussian", symcheck.optimal_factored_gaussian,
             lambda: {"mean": m3, "cov": _COV, "blocks": [[0, 2], [1]]},
             {"mean": "array", "cov": "array", "blocks": "blocks"}),
        Case("fit_factored_gaussian_numerically", symcheck.fit_factored_gaussian_numerically,
             lambda: {"mean": m3, "cov": _COV, "x0": np.zeros(6), "gtol": 1e-6},
             {"mean": "array", "cov": "array", "x0": "array", "gtol": "float"}),
        Case("mlp_forward", symcheck.mlp_forward,
             lambda: {"omega": mlp_mean, "x": np.array([[0.3], [-1.0]]), "layer_sizes": _MLP, "activation": np.tanh},
             {"omega": "array", "x": "array", "layer_sizes": "array", "activation": "callable"}),
        Case("symmetrized_logpdf", symcheck.symmetrized_logpdf,
             lambda: {"z": np.array([[0.1, 0.2, 0.3]]), "mean": m3, "var": v3, "group": grp()},
             {"z": "array", **sym}),
        Case("symmetrization_gap", symcheck.symmetrization_gap,
             lambda: {"mean": m3, "var": v3, "group": grp(), "rng": _rng(), "n_samples": 64},
             {**sym, "rng": "rng", "n_samples": "int"}),
        Case("symmetrization_gap[mc]", symcheck.symmetrization_gap,
             lambda: {"mean": mlp_mean, "var": mlp_var, "group": MLPPermutation(_MLP), "rng": _rng(),
                      "n_samples": 64},
             {"mean": "array", "var": "array", "rng": "rng", "n_samples": "int"}),
        Case("entropy_infonce", symcheck.entropy_infonce,
             lambda: {"mean": m3, "var": v3, "group": grp(), "K": 2, "n_samples": 32, "rng": _rng(),
                      "replace": True, "control_variate": False},
             {**sym, "K": "int", "n_samples": "int", "rng": "rng", "replace": "bool", "control_variate": "bool"}),
        Case("entropy_gaussian", symcheck.entropy_gaussian, lambda: {"var": _COV, "full": True},
             {"var": "array", "full": "bool"}),
        Case("entropy_gaussian[diag]", symcheck.entropy_gaussian, lambda: {"var": v3, "full": False},
             {"var": "array"}),
        Case("entropy_symmetrized", symcheck.entropy_symmetrized,
             lambda: {"mean": m3, "var": v3, "group": grp(), "rng": _rng(), "n_samples": 32},
             {**sym, "rng": "rng", "n_samples": "int"}),
        Case("elbo", symcheck.elbo,
             lambda: {"log_joint": _log_joint, "mean": m3, "var": v3, "n_samples": 32, "rng": _rng()},
             {"log_joint": "callable", "mean": "array", "var": "array", "n_samples": "int", "rng": "rng"}),
        Case("elbo_symmetrized_eq4", symcheck.elbo_symmetrized_eq4,
             lambda: {"log_joint": _log_joint, "mean": m3, "var": v3, "group": grp(), "n_samples": 32,
                      "rng": _rng()},
             {"log_joint": "callable", **sym, "n_samples": "int", "rng": "rng"}),
        Case("elbo_symmetrized_eq5", symcheck.elbo_symmetrized_eq5,
             lambda: {"log_joint": _log_joint, "mean": m3, "var": v3, "group": grp(), "n_samples": 32,
                      "rng": _rng(), "gap_samples": 32},
             {"log_joint": "callable", **sym, "n_samples": "int", "rng": "rng", "gap_samples": "int"}),
        Case("elbo_infonce", symcheck.elbo_infonce,
             lambda: {"log_joint": _log_joint, "mean": m3, "var": v3, "group": grp(), "K": 3, "n_samples": 32,
                      "rng": _rng()},
             {"log_joint": "callable", **sym, "K": "int", "n_samples": "int", "rng": "rng"}),
        Case("orthogonal_logpdf", symcheck.orthogonal_logpdf,
             lambda: {"X": X42, "mean": M42, "var": 0.7, "method": "auto", "return_error": True},
             {"X": "array", "mean": "array", "var": "array", "method": "choice", "return_error": "bool"}),
        Case("orthogonal_logpdf[k2]", symcheck.orthogonal_logpdf,
             lambda: {"X": X42, "mean": M42, "var": np.array([0.5, 1.5]), "return_error": True},
             {"X": "array", "mean": "array", "var": "array", "return_error": "bool"}),
        Case("orthogonal_logpdf_mc", symcheck.orthogonal_logpdf_mc,
             lambda: {"X": X42, "mean": M42, "var": np.array([0.5, 1.5]), "n_samples": 32, "rng": _rng()},
             {"X": "array", "mean": "array", "var": "array", "n_samples": "int", "rng": "rng"}),
        Case("moore_r", symcheck.moore_r,
             lambda: {"X": X42, "mean": M42, "c": 0.7, "form": "printed", "method": "laplace"},
             {"X": "array", "mean": "array", "c": "float", "form": "choice", "method": "choice"}),
        Case("moore_r[error]", symcheck.moore_r,
             lambda: {"X": X42, "mean": M42, "c": 0.7, "form": "corrected", "method": "auto", "return_error": True},
             {"X": "array", "mean": "array", "c": "float", "form": "choice", "method": "choice", "return_error": "bool"}),
        Case("moore_kl", symcheck.moore_kl,
             lambda: {"mean": M42, "c": 0.7, "n_samples": 16, "rng": _rng(), "form": "corrected", "return_error": True},
             {"mean": "array", "c": "float", "n_samples": "int", "rng": "rng", "form": "choice",
              "return_error": "bool"}),
        Case("SignFlip", SignFlip, lambda: {"event_shape": (3, 2), "blocks": "columns"},
             {"event_shape": "array", "blocks": "choice"}),
        Case("MLPPermutation", MLPPermutation, lambda: {"layer_sizes": [2, 3, 2, 1]}, {"layer_sizes": "array"}),
        Case("Orthogonal", Orthogonal, lambda: {"k": 3}, {"k": "int"}),
    ]
    cases += _group_cases("SignFlip", SignFlip, m3, v3, np.array([[0.1, 0.2, 0.3]]), np.array([[1.0], [-1.0]]),
                          extra=("elements", "exact_gap", "exact_chi2", "neighbours"))
    cols = lambda: SignFlip((3, 2), blocks="columns")  # noqa: E731
    cases += _group_cases("SignFlip[columns]", cols, rng.normal(size=(3, 2)), np.full((3, 2), 0.5),
                          rng.normal(size=(2, 3, 2)), np.array([[1.0, -1.0], [-1.0, -1.0]]),
                          extra=("elements", "exact_gap", "exact_chi2", "neighbours"))
    cases += _group_cases("MLPPermutation", lambda: MLPPermutation(_MLP), mlp_mean, mlp_var,
                          rng.normal(size=(2, _MLP_DIM)), np.array([[0, 1, 2], [2, 0, 1]]),
                          extra=("elements", "neighbours", "source_index"))
    cases += _group_cases("Orthogonal", lambda: Orthogonal(2), M42, np.array([0.5, 1.5]), X42,
                          symcheck.haar_orthogonal(2, 3, 0))
    return cases


CASES = _cases()


@pytest.fixture(scope="module", autouse=True)
def _warm_up():
    """Every case works on its valid arguments (and Numba kernels are loaded before timing)."""
    failures = []
    for case in CASES:
        try:
            check_call(case.fn, case.valid(), None, seconds=HARD_SECONDS)
        except PropertyViolation as err:
            failures.append(f"{case.name}: {err}")
    assert not failures, "\n".join(failures)


def _fuzz(case, data):
    kwargs = case.valid()
    if not case.kinds:
        check_call(case.fn, kwargs, None)
        return
    name = data.draw(st.sampled_from(sorted(case.kinds)), label="argument")
    kwargs[name] = data.draw(_bad(case.kinds[name], kwargs.get(name)), label=name)
    check_call(case.fn, kwargs, name)


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                 database=None)


@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=EXAMPLES, **_SETTINGS)
@given(data=st.data())
def test_fuzz(case, data):
    _fuzz(case, data)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=repr)
@settings(max_examples=SLOW_EXAMPLES, **_SETTINGS)
@given(data=st.data())
def test_fuzz_slow(case, data):
    _fuzz(case, data)


def test_fuzz_covers_the_public_api():
    """Every name of symcheck.__all__ (but the abstract Group and the result/warning types of
    log_hyp0f1, which take no user input) has a fuzz case."""
    fns = {case.fn for case in CASES}
    exempt = {"Group", "Hyp0f1Info", "Hyp0f1AccuracyWarning"}
    missing = [n for n in symcheck.__all__ if n not in exempt and getattr(symcheck, n) not in fns]
    assert not missing
    assert len(CASES) * SLOW_EXAMPLES >= 10_000


# ------------------------------------------------------------------------------ planted errors


def _planted_nan(x):
    return np.full(3, np.nan)


def _planted_type_error(x):
    raise TypeError("unsupported operand")


def _planted_unnamed(x):
    raise ValueError("input must be finite")


def _planted_slow(x):
    time.sleep(0.3)
    return 1.0


def _planted_overflow_warning(x):
    np.var(np.array([1e300, -1e300]))  # numpy warns from its own module: overflow in square
    return 1.0


@pytest.mark.parametrize("fn,seconds", [(_planted_nan, CALL_SECONDS), (_planted_type_error, CALL_SECONDS),
                                        (_planted_unnamed, CALL_SECONDS), (_planted_slow, 0.1),
                                        (_planted_overflow_warning, CALL_SECONDS)])
def test_property_catches_planted_errors(fn, seconds):
    with pytest.raises(PropertyViolation):
        check_call(fn, {"x": np.nan}, "x", seconds=seconds)


def test_property_accepts_good_behaviour():
    assert check_call(lambda x: (np.ones(2), mpmath.mpf(1)), {"x": 1.0}, "x") is not None
    err = check_call(lambda x: (_ for _ in ()).throw(ValueError("x must be finite")), {"x": np.nan}, "x")
    assert isinstance(err, ValueError)


def test_hard_guard_stops_a_hang(tmp_path):
    """A call that never returns (a Numba-style loop ignoring signals) ends the process with tracebacks."""
    import subprocess

    code = ("import faulthandler, time; faulthandler.dump_traceback_later(1.0, exit=True); "
            "time.sleep(30); print('not stopped')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=25)
    assert run.returncode != 0 and "not stopped" not in run.stdout and "Thread" in run.stderr
    assert math.isfinite(HARD_SECONDS)
