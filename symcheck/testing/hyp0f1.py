"""Is a user's log ₀F₁(k/2; AAᵀ/4) right, and where does it break? Checkers against stored references.

`check_log_hyp0f1(fn)` calls the user's function on every input of symcheck's stored table of
log ₀F₁ values (`symcheck.hyp0f1.reference_data`: k = 1..12, spectra "rank one", "equal", "spread",
σ_max from 1e-3 to 1e4, each value at ≥ 30 correct digits by mpmath closed forms, the
monomial-basis series or the k = 3 quadrature: routes independent of the float64 kernels) and
returns a table by region: k range × σ_max range × spectrum shape. An input passes when

    |log F_user − log F_ref| ≤ atol + rtol·max(1, |log F_ref|) + e_ref + e_input,

e_ref = 10^(−digits) the stored value's error and, for `signature="matrix"`, e_input = √k·‖ΔA‖_F,
the change of log ₀F₁ that the rounding of A = U diag(σ) Vᵀ can cause (∂ log ₀F₁/∂A = E[T] under the
tilted Haar measure, ‖E[T]‖_F ≤ √k; ‖ΔA‖_F bounded in `symcheck.testing.adapters.matrix_inputs`).
The absolute error of log ₀F₁ is the relative error of ₀F₁ itself; hence max(1, ·): near F = 1
(log F → 0) the claim is on the relative accuracy of F, as for symcheck's own `auto` (1e-10·max(1, |log F|)).

`check_grad_log_hyp0f1(fn)` checks ∂ log ₀F₁/∂σ against mpmath derivatives (30 digits) of closed
forms: k ≤ 2, rank one (the components at σⱼ = 0 are exactly 0: the tilted law of Tⱼⱼ is symmetric
there), and equal spectra (each component is (1/k) d/ds log F(s, …, s) by symmetry).

Both take `regions=` (only the inputs in a region: `"k<=5, sigma<=100"`, `"shape=equal"`, or a list
of such strings, their union; `parse_regions`) and `extra_inputs=` (singular-value vectors of the
user's own). An extra input has no independent ≥ 30-digit reference: it is compared with symcheck's
most accurate route (`symcheck.log_hyp0f1` / `grad_log_hyp0f1`, method "auto") and reported in a
row of its own with that route's error figure, but not judged.
"""

from __future__ import annotations

import math
import operator
import re
import warnings

import mpmath
import numpy as np

from symcheck._checks import as_finite_array, as_sigma, check_bool, check_callable, check_choice, check_int
from symcheck.hyp0f1 import Hyp0f1AccuracyWarning, grad_log_hyp0f1, log_hyp0f1
from symcheck.hyp0f1.reference_data import SHAPES as REFERENCE_SHAPES
from symcheck.testing.adapters import (call_subject, float_repr_array, import_line, matrix_inputs,
                                       subject_name)
from symcheck.testing.result import CheckResult, group_rows, worst_failure

__all__ = ["SIGNATURES", "assert_grad_log_hyp0f1", "assert_log_hyp0f1", "check_grad_log_hyp0f1",
           "check_log_hyp0f1", "parse_regions", "reference_inputs"]

#: How a subject is called: fn(sigma, k) with the singular values (k,), or fn(A) with the k×k matrix.
SIGNATURES = ("sigma, k", "matrix")
#: Region edges of the table: k ranges and σ_max ranges.
K_RANGES = ((1, 2), (3, 5), (6, 8), (9, 12))
SIGMA_RANGES = ((0.0, 1.0), (1.0, 30.0), (30.0, 1e3), (1e3, math.inf))


def _range_label(lo, hi, name):
    if hi == math.inf:
        return f"{name} > {lo:g}"
    return f"{name} {lo:g}–{hi:g}" if name == "k" else f"{lo:g} < {name} ≤ {hi:g}" if lo else f"{name} ≤ {hi:g}"


def _region(k: int, sigma_max: float, shape: str) -> str:
    kr = next(r for r in K_RANGES if r[0] <= k <= r[1])
    sr = next(r for r in SIGMA_RANGES if (r[0] < sigma_max <= r[1]) or (r[0] == 0.0 and sigma_max <= r[1]))
    return f"{_range_label(*kr, 'k')}, {_range_label(*sr, 'σ_max')}, {shape}"


_OPS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt, "=": operator.eq,
        "==": operator.eq}
_CONDITION = re.compile(r"^\s*(k|sigma_max|sigma|σ_max|σ|shape)\s*(<=|>=|==|<|>|=)\s*(.+?)\s*$")
#: Spectrum shapes: the stored table's, and "other" for extra inputs of none of them.
SHAPES = (*REFERENCE_SHAPES, "other")


def parse_regions(regions) -> list | None:
    """Read a region restriction into a list of regions (their union), each a list of conditions.

    Parameters
    ----------
    regions : None, str or sequence of str
        Comma-separated conditions on k, sigma (σ_max, the largest singular value) and shape, with
        <=, <, >=, >, = (shape takes = only): "k<=5, sigma<=100", "k=3, shape=equal". A list of
        strings is the union of their regions. None: every input.

    Returns
    -------
    list of list of (variable, operator, value), or None

    Raises
    ------
    ValueError
        Naming regions and the part that cannot be read.
    """
    if regions is None:
        return None
    items = [regions] if isinstance(regions, str) else regions
    if not isinstance(items, (list, tuple)) or not items or not all(isinstance(r, str) for r in items):
        raise ValueError(f"regions must be a string of conditions or a non-empty list of them, got {regions!r}")
    out = []
    for text in items:
        conditions = []
        for part in filter(str.strip, text.split(",")):
            match = _CONDITION.match(part)
            if not match:
                raise ValueError(f"regions: cannot read {part.strip()!r}; write conditions such as 'k<=5', "
                                 "'sigma<=100', 'shape=equal', separated by commas")
            var, op, raw = match.groups()
            var = {"sigma": "sigma_max", "σ": "sigma_max", "σ_max": "sigma_max"}.get(var, var)
            if var == "shape":
                shape = raw.replace("_", " ").replace("-", " ")
                if op not in ("=", "==") or shape not in SHAPES:
                    raise ValueError(f"regions: {part.strip()!r}: shape takes '=' and one of {SHAPES}")
                conditions.append((var, "=", shape))
                continue
            try:
                conditions.append((var, op, int(raw) if var == "k" else float(raw)))
            except ValueError:
                raise ValueError(f"regions: {part.strip()!r} needs a number after {op}") from None
        out.append(conditions)
    return out


def _in_regions(regions, k: int, sigma_max: float, shape: str) -> bool:
    if regions is None:
        return True
    env = {"k": k, "sigma_max": sigma_max, "shape": shape}
    return any(all(_OPS[op](env[var], value) for var, op, value in region) for region in regions)


def _shape_of(sigma: np.ndarray) -> str:
    if np.count_nonzero(sigma) <= 1:
        return "rank one"
    return "equal" if np.all(sigma == sigma[0]) else "other"


def _extra(extra_inputs) -> list[tuple[np.ndarray, int, str]]:
    """(σ, k, shape) of each extra input; ValueError naming extra_inputs[i] for a bad one."""
    if extra_inputs is None:
        return []
    try:
        rows = list(extra_inputs)
    except TypeError:
        raise ValueError("extra_inputs must be a sequence of singular-value vectors (one per input), "
                         f"got {type(extra_inputs).__name__}") from None
    out = []
    for i, row in enumerate(rows):
        arr = as_finite_array(row, f"extra_inputs[{i}]", ndim_min=1)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"extra_inputs[{i}] must be a 1-D vector of k >= 1 singular values, got shape {arr.shape}")
        try:
            sig, k = as_sigma(arr, arr.size)
        except ValueError as exc:
            raise ValueError(f"extra_inputs[{i}]: {exc}") from None
        out.append((np.array(sig, dtype=float), k, _shape_of(sig)))
    return out


def _label(k: int, sigma) -> str:
    return f"k={k}, σ=({', '.join(f'{s:.4g}' for s in sigma)})"


def reference_inputs(max_k: int = 12, max_sigma: float = 1e4, shapes=None) -> list:
    """The stored references with k ≤ `max_k` and σ_max ≤ `max_sigma` (and shape in `shapes`)."""
    from symcheck.hyp0f1.reference_data import load_reference_values

    return [e for e in load_reference_values().entries
            if e.k <= max_k and e.sigma_max <= max_sigma and (shapes is None or e.shape in shapes)]


def _validate(fn, signature, batched, rtol, atol, max_k, max_sigma):
    """ValueError naming the first bad argument."""
    check_callable(fn, "fn")
    check_choice(signature, "signature", SIGNATURES)
    check_bool(batched, "batched")
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    check_int(max_k, "max_k", minimum=1)
    if not (isinstance(max_sigma, (int, float)) and max_sigma > 0):
        raise ValueError(f"max_sigma must be a positive number, got {max_sigma!r}")


def _matrices(sigmas, ks, seed):
    """Per input: the k×k matrix U diag(σ) Vᵀ handed to a "matrix" subject, and e_input = √k·‖ΔA‖_F."""
    rng = np.random.default_rng(seed)
    mats, err = [], []
    for sigma, k in zip(sigmas, ks):
        m = matrix_inputs(np.array([sigma], float), rng)
        mats.append(m.A[0])
        err.append(math.sqrt(k) * float(m.distance[0]))
    return mats, err


def check_log_hyp0f1(fn, *, signature: str = "sigma, k", batched: bool = False, rtol: float = 1e-10,
                     atol: float = 0.0, max_k: int = 12, max_sigma: float = 1e4, regions=None, extra_inputs=None,
                     seed: int = 0, subject: str | None = None) -> CheckResult:
    """Check a user's log ₀F₁(k/2; AAᵀ/4) against symcheck's stored ≥ 30-digit references.

    Parameters
    ----------
    fn : callable
        The subject. With `signature="sigma, k"`: `fn(sigma, k)`, sigma the k singular values of
        A (float64 array (k,)), returning log ₀F₁ as a scalar. With `signature="matrix"`:
        `fn(A)`, A a k×k float64 matrix U diag(σ) Vᵀ (U, V seeded Haar draws). With
        `batched=True` it gets a stack (n, k) or (n, k, k) of inputs of one k and returns (n,).
        It may return NumPy, JAX or PyTorch values (converted at the boundary).
    signature : {"sigma, k", "matrix"}
    batched : bool
    rtol, atol : float
        The accuracy the subject claims: |error| ≤ atol + rtol·max(1, |log ₀F₁|) (module notes).
    max_k : int
        Use only references with k ≤ max_k (the table has k ≤ 12).
    max_sigma : float
        Use only references with σ_max ≤ max_sigma (the table reaches 1e4).
    regions : str or list of str, optional
        Use only the inputs in these regions (`parse_regions`: "k<=5, sigma<=100", "shape=equal").
    extra_inputs : sequence of 1-D array_like, optional
        The user's own singular-value vectors: reported beside symcheck's "auto" route and its
        error figure, not judged (module notes).
    seed : int
        Seed of the Haar factors of the matrix inputs.
    subject : str, optional
        Name shown in the table (default: module:qualname of `fn`).

    Returns
    -------
    CheckResult
        Kind "log_hyp0f1"; one row per region (k range, σ_max range, spectrum shape) with n, max
        and median error, max ulps, failed calls (raised, NaN/inf, wrong shape), the worst input
        (largest error / tolerance), its reference, the subject's answer and the tolerance there; a
        row "not judged" for the extra inputs; a reproducer when a row fails.

    Raises
    ------
    ValueError
        A bad argument (named), or no input in the requested range.
    """
    _validate(fn, signature, batched, rtol, atol, max_k, max_sigma)
    check_int(seed, "seed", minimum=0)
    regs = parse_regions(regions)
    refs = [e for e in reference_inputs(max_k, max_sigma) if _in_regions(regs, e.k, e.sigma_max, e.shape)]
    extras = _extra(extra_inputs)
    if not refs and not extras:
        raise ValueError(f"max_k={max_k}, max_sigma={max_sigma}, regions={regions!r}: no stored reference there")
    sigmas = [np.array(e.sigma, float) for e in refs] + [x[0] for x in extras]
    ks = [e.k for e in refs] + [x[1] for x in extras]
    ref_mp = [mpmath.mpf(e.log_hyp0f1) for e in refs]
    ref_err = [10.0 ** -e.digits for e in refs]
    notes = [f"{e.digits} digits, mpmath route {e.route}" for e in refs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)  # its figure says how far to trust it
        for sigma, k, _ in extras:
            v, err, info = log_hyp0f1(sigma, k, return_error=True, return_info=True)
            ref_mp.append(mpmath.mpf(float(v)))
            ref_err.append(float(err))
            notes.append(f"symcheck.log_hyp0f1, method {info.method}, error {'bound' if info.rigorous else 'estimate'}"
                         f" {float(err):.3g}; not judged")
    judged = [True] * len(refs) + [False] * len(extras)
    if signature == "matrix":
        mats, input_err = _matrices(sigmas, ks, seed)
        args = [(A,) for A in mats]
    else:
        mats, input_err = None, [0.0] * len(sigmas)
        args = list(zip(sigmas, ks))
    outcomes = call_subject(fn, args, (), batched=batched)
    references = [float(r) for r in ref_mp]
    problems = [o.problem for o in outcomes]
    values = [float(o.value) if o.ok else math.nan for o in outcomes]
    errors = [math.inf if problems[i] else float(abs(mpmath.mpf(values[i]) - ref_mp[i])) for i in range(len(ks))]
    tols = [atol + rtol * max(1.0, abs(references[i])) + ref_err[i] + input_err[i] if judged[i] else ref_err[i]
            for i in range(len(ks))]
    groups = [_region(e.k, e.sigma_max, e.shape) for e in refs] + ["extra"] * len(extras)
    name = subject or subject_name(fn)
    criterion = (f"|log F_user − log F_ref| ≤ atol + rtol·max(1, |log F_ref|) + reference error"
                 f"{' + input rounding √k·‖ΔA‖' if signature == 'matrix' else ''}, atol = {atol:g}, rtol = {rtol:g}; "
                 f"{len(refs)} stored references (≥ 30 digits, mpmath), k ≤ {max_k}, σ_max ≤ {max_sigma:g}"
                 + (f", regions {regions!r}" if regions is not None else "")
                 + (f"; {len(extras)} extra inputs against symcheck's 'auto' route, not judged (the 'reference "
                    "error' column is its error figure)" if extras else ""))
    worst = worst_failure(errors, tols, problems, judged)
    reproducer = None
    if worst is not None:
        i = worst
        call = f"fn(sigma, {ks[i]})" if signature == "sigma, k" else "fn(A)"
        lines = ["import numpy as np", import_line(fn), f"sigma = {float_repr_array(sigmas[i])}"]
        if signature == "matrix":
            lines.append(f"A = {float_repr_array(mats[i])}  # singular values sigma")
        if batched:
            call = call.replace("sigma", "sigma[None]").replace("(A)", "(A[None])")
        lines += [f"print({call})  # {problems[i] or 'returns ' + repr(values[i])}",
                  f"# reference log 0F1({ks[i]}/2; AA'/4) = {mpmath.nstr(ref_mp[i], 30)} ({notes[i]}); "
                  f"allowed error {tols[i]:.3g}"]
        reproducer = "\n".join(lines)
    rows = group_rows(groups, [_label(k, sg) for k, sg in zip(ks, sigmas)], errors, tols, references, values,
                      problems, judged)
    return CheckResult("log_hyp0f1", name, rows, criterion, reproducer)


def assert_log_hyp0f1(fn, **options) -> CheckResult:
    """`check_log_hyp0f1`, raising AssertionError (naming the worst input and its reference) on failure."""
    result = check_log_hyp0f1(fn, **options)
    result.raise_if_failed()
    return result


# ----- gradients ----------------------------------------------------------------------------------

#: Working precision of the gradient references (decimal digits); their error is below 1e-20.
GRAD_DPS = 30


def _grad_reference(sigma: tuple, k: int, shape: str) -> list[float] | None:
    """∂ log ₀F₁/∂σ at `sigma` in mpmath (analytic for k ≤ 2, mpmath.diff of mp-native closed forms
    otherwise), or None where no closed form exists."""
    from symcheck.hyp0f1.closed_form_mp import equal_spectrum_dps, equal_spectrum_mp

    with mpmath.workdps(GRAD_DPS):
        s = [mpmath.mpf(x) for x in sigma]
        if k == 1:  # ₀F₁(1/2; σ²/4) = cosh σ
            return [float(mpmath.tanh(s[0]))]
        if k == 2:  # ₀F₁(1; AAᵀ/4) = ½(I₀(σ₁ + σ₂) + I₀(σ₁ − σ₂)), I₀' = I₁ (odd)
            a, b = s[0] + s[1], s[0] - s[1]
            F = (mpmath.besseli(0, a) + mpmath.besseli(0, b)) / 2
            i1a, i1b = mpmath.besseli(1, a), mpmath.besseli(1, b)
            return [float((i1a + i1b) / 2 / F), float((i1a - i1b) / 2 / F)]
        if shape == "rank one":  # ₀F₁(k/2; σ²/4); the other components are 0 (symmetric tilted law)
            g = mpmath.diff(lambda t: mpmath.log(mpmath.hyp0f1(mpmath.mpf(k) / 2, t * t / 4)), s[0])
            return [float(g)] + [0.0] * (k - 1)
    if shape == "equal":  # every component (1/k) d/ds log F(s, …, s) by symmetry
        with mpmath.workdps(equal_spectrum_dps(sigma[0], k, GRAD_DPS)):
            g = mpmath.diff(lambda t: mpmath.log(equal_spectrum_mp(t, k)), mpmath.mpf(sigma[0])) / k
        return [float(g)] * k
    return None


def check_grad_log_hyp0f1(fn, *, batched: bool = False, rtol: float = 1e-10, atol: float = 0.0, max_k: int = 12,
                          max_sigma: float = 1e3, regions=None, extra_inputs=None,
                          subject: str | None = None) -> CheckResult:
    """Check a user's gradient ∂ log ₀F₁(k/2; AAᵀ/4)/∂σ against mpmath derivatives of closed forms.

    Parameters
    ----------
    fn : callable
        `fn(sigma, k)` → array (k,) (`batched`: (n, k) → (n, k)).
    batched : bool
    rtol, atol : float
        Claimed accuracy per component: |error| ≤ atol + rtol·max(1, max|g_ref|) + 1e-20.
    max_k, max_sigma : int, float
        The input range (k ≤ 12 and σ_max ≤ 1e3 by default: mpmath's closed forms take seconds beyond).
    regions : str or list of str, optional
        As in `check_log_hyp0f1`.
    extra_inputs : sequence of 1-D array_like, optional
        The user's own singular-value vectors: reported beside symcheck's gradient and its error
        figure, not judged.
    subject : str, optional

    Returns
    -------
    CheckResult
        Kind "grad_log_hyp0f1"; rows by region as `check_log_hyp0f1`, on the inputs of the
        stored table that have a closed form (k ≤ 2, rank one, equal spectra); the "reference" and
        "subject" columns show max|g| of the reference and of the answer.
    """
    _validate(fn, "sigma, k", batched, rtol, atol, max_k, max_sigma)
    regs = parse_regions(regions)
    refs = [e for e in reference_inputs(max_k, max_sigma) if (e.k <= 2 or e.shape in ("rank one", "equal"))
            and _in_regions(regs, e.k, e.sigma_max, e.shape)]
    extras = _extra(extra_inputs)
    if not refs and not extras:
        raise ValueError(f"max_k={max_k}, max_sigma={max_sigma}, regions={regions!r}: no input with a closed-form "
                         "gradient there")
    sigmas = [np.array(e.sigma, float) for e in refs] + [x[0] for x in extras]
    ks = [e.k for e in refs] + [x[1] for x in extras]
    grads = [np.array(_grad_reference(e.sigma, e.k, e.shape)) for e in refs]
    ref_err = [1e-20] * len(refs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)
        for sigma, k, _ in extras:
            g, err = grad_log_hyp0f1(sigma, k, return_error=True)
            grads.append(np.asarray(g, float))
            ref_err.append(float(np.max(err)))
    judged = [True] * len(refs) + [False] * len(extras)
    outcomes = [call_subject(fn, [(sg, k)], (k,), batched=batched)[0] for sg, k in zip(sigmas, ks)]
    problems = [o.problem for o in outcomes]
    values = [o.value if o.ok else None for o in outcomes]
    errors = [float(np.max(np.abs(values[i] - grads[i]))) if not problems[i] else math.inf for i in range(len(ks))]
    tols = [atol + rtol * max(1.0, float(np.max(np.abs(g)))) + e if j else e for g, e, j in zip(grads, ref_err, judged)]
    references = [float(np.max(np.abs(g))) for g in grads]
    groups = [_region(e.k, e.sigma_max, e.shape) for e in refs] + ["extra"] * len(extras)
    criterion = (f"max_i |g_user,i − g_ref,i| ≤ atol + rtol·max(1, max|g_ref|) + 1e-20, atol = {atol:g}, rtol = "
                 f"{rtol:g}; g_ref by mpmath differentiation of closed forms at {GRAD_DPS} digits (k ≤ 2, rank one, "
                 f"equal spectra; {len(refs)} inputs); 'reference' and 'subject' columns: max|g| and the answer"
                 + (f"; {len(extras)} extra inputs against symcheck.grad_log_hyp0f1, not judged" if extras else ""))
    i = worst_failure(errors, tols, problems, judged)
    reproducer = None
    if i is not None:
        reproducer = "\n".join([
            "import numpy as np", import_line(fn), f"sigma = {float_repr_array(sigmas[i])}",
            f"print(fn(sigma, {ks[i]}))  # {problems[i] or 'returns ' + np.array2string(values[i])}",
            f"# reference gradient: {np.array2string(grads[i], precision=17)}"])
    shown = [math.nan if v is None else float(np.max(np.abs(v))) for v in values]
    rows = group_rows(groups, [_label(k, sg) for k, sg in zip(ks, sigmas)], errors, tols, references, shown,
                      problems, judged)
    return CheckResult("grad_log_hyp0f1", subject or subject_name(fn), rows, criterion, reproducer)


def assert_grad_log_hyp0f1(fn, **options) -> CheckResult:
    """`check_grad_log_hyp0f1`, raising AssertionError on failure."""
    result = check_grad_log_hyp0f1(fn, **options)
    result.raise_if_failed()
    return result
