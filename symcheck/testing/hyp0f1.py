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
"""

from __future__ import annotations

import math
import time

import mpmath
import numpy as np

from symcheck._checks import check_bool, check_callable, check_choice, check_int
from symcheck.testing.adapters import (call_subject, float_repr_array, import_line, matrix_inputs,
                                       subject_name)
from symcheck.testing.result import CheckResult, CheckRow

__all__ = ["SIGNATURES", "assert_grad_log_hyp0f1", "assert_log_hyp0f1", "check_grad_log_hyp0f1",
           "check_log_hyp0f1", "reference_inputs"]

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


def reference_inputs(max_k: int = 12, max_sigma: float = 1e4, shapes=None) -> list:
    """The stored references with k ≤ ``max_k`` and σ_max ≤ ``max_sigma`` (and shape in ``shapes``)."""
    from symcheck.hyp0f1.reference_data import load_reference_values

    return [e for e in load_reference_values().entries
            if e.k <= max_k and e.sigma_max <= max_sigma and (shapes is None or e.shape in shapes)]


def _validate(fn, signature, batched, rtol, atol, max_k, max_sigma):
    check_callable(fn, "fn")
    check_choice(signature, "signature", SIGNATURES)
    check_bool(batched, "batched")
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    check_int(max_k, "max_k", minimum=1)
    if not (isinstance(max_sigma, (int, float)) and max_sigma > 0):
        raise ValueError(f"max_sigma must be a positive number, got {max_sigma!r}")


def _inputs(refs, signature, seed):
    """Positional arguments per reference, and the input error e_input of each (0 for sigma, k)."""
    if signature == "sigma, k":
        return [(np.array(e.sigma, float), e.k) for e in refs], np.zeros(len(refs)), None
    args, err, mats = [], np.zeros(len(refs)), {}
    rng = np.random.default_rng(seed)
    for i, e in enumerate(refs):
        m = matrix_inputs(np.array([e.sigma], float), rng)
        args.append((m.A[0],))
        err[i] = math.sqrt(e.k) * float(m.distance[0])
        mats[i] = m.A[0]
    return args, err, mats


def _table(kind, name, criterion, refs, regions, errors, tols, values, problems, references, repro):
    rows = []
    for region in dict.fromkeys(regions):
        idx = [i for i, r in enumerate(regions) if r == region]
        bad = [i for i in idx if problems[i]]
        err = np.array([errors[i] for i in idx if not problems[i]])
        ratio = [(math.inf if problems[i] else errors[i] / tols[i], i) for i in idx]
        worst = max(ratio)[1]
        e = refs[worst]
        rows.append(CheckRow(region, not bad and all(errors[i] <= tols[i] for i in idx), {
            "n": len(idx), "max error": float(err.max()) if err.size else math.nan,
            "median error": float(np.median(err)) if err.size else math.nan,
            "max ulps": max((errors[i] / np.spacing(abs(references[i])) for i in idx
                             if not problems[i] and references[i] != 0), default=math.nan),
            "failed calls": len(bad),
            "worst input": f"k={e.k}, σ=({', '.join(f'{s:.4g}' for s in e.sigma)})",
            "reference": references[worst], "subject": problems[worst] or values[worst],
            "tolerance": tols[worst]}))
    failing = [i for i in range(len(refs)) if problems[i] or errors[i] > tols[i]]
    reproducer = None
    if failing:
        worst = max(failing, key=lambda i: math.inf if problems[i] else errors[i] / tols[i])
        reproducer = repro(worst)
    return CheckResult(kind, name, tuple(rows), criterion, reproducer)


def check_log_hyp0f1(fn, *, signature: str = "sigma, k", batched: bool = False, rtol: float = 1e-10,
                     atol: float = 0.0, max_k: int = 12, max_sigma: float = 1e4, seed: int = 0,
                     subject: str | None = None) -> CheckResult:
    """Check a user's log ₀F₁(k/2; AAᵀ/4) against symcheck's stored ≥ 30-digit references.

    Parameters
    ----------
    fn : callable
        The subject. With ``signature="sigma, k"``: ``fn(sigma, k)``, sigma the k singular values of
        A (float64 array (k,)), returning log ₀F₁ as a scalar. With ``signature="matrix"``:
        ``fn(A)``, A a k×k float64 matrix U diag(σ) Vᵀ (U, V seeded Haar draws). With
        ``batched=True`` it gets a stack (n, k) or (n, k, k) of inputs of one k and returns (n,).
        It may return NumPy, JAX or PyTorch values (converted at the boundary).
    signature : {"sigma, k", "matrix"}
    batched : bool
    rtol, atol : float
        The accuracy the subject claims: |error| ≤ atol + rtol·max(1, |log ₀F₁|) (module notes).
    max_k : int
        Use only references with k ≤ max_k (the table has k ≤ 12).
    max_sigma : float
        Use only references with σ_max ≤ max_sigma (the table reaches 1e4).
    seed : int
        Seed of the Haar factors of the matrix inputs.
    subject : str, optional
        Name shown in the table (default: ``module:qualname`` of ``fn``).

    Returns
    -------
    CheckResult
        Kind ``"log_hyp0f1"``; one row per region (k range, σ_max range, spectrum shape) with n, max
        and median error, max ulps, failed calls (raised, NaN/inf, wrong shape), the worst input
        (largest error / tolerance), its reference, the subject's answer and the tolerance there; a
        reproducer when a row fails.

    Raises
    ------
    ValueError
        A bad argument (named), or no reference in the requested range.
    """
    _validate(fn, signature, batched, rtol, atol, max_k, max_sigma)
    check_int(seed, "seed", minimum=0)
    refs = reference_inputs(max_k, max_sigma)
    if not refs:
        raise ValueError(f"max_k={max_k}, max_sigma={max_sigma}: no stored reference in that range")
    args, input_err, mats = _inputs(refs, signature, seed)
    outcomes = call_subject(fn, args, (), batched=batched)
    references = [e.value for e in refs]
    problems = [o.problem for o in outcomes]
    values = [float(o.value) if o.ok else math.nan for o in outcomes]
    errors = [abs(float(mpmath.mpf(values[i]) - mpmath.mpf(refs[i].log_hyp0f1))) if not problems[i] else math.inf
              for i in range(len(refs))]
    tols = [atol + rtol * max(1.0, abs(references[i])) + 10.0 ** -refs[i].digits + input_err[i] for i in range(len(refs))]
    regions = [_region(e.k, e.sigma_max, e.shape) for e in refs]
    name = subject or subject_name(fn)
    criterion = (f"|log F_user − log F_ref| ≤ atol + rtol·max(1, |log F_ref|) + reference error"
                 f"{' + input rounding √k·‖ΔA‖' if signature == 'matrix' else ''}, atol = {atol:g}, rtol = {rtol:g}; "
                 f"{len(refs)} stored references (≥ 30 digits, mpmath), k ≤ {max_k}, σ_max ≤ {max_sigma:g}")

    def repro(i):
        e = refs[i]
        call = (f"fn(sigma, {e.k})" if signature == "sigma, k" else "fn(A)")
        lines = ["import numpy as np", import_line(fn), f"sigma = {float_repr_array(np.array(e.sigma))}"]
        if signature == "matrix":
            lines.append(f"A = {float_repr_array(mats[i])}  # singular values sigma")
        if batched:
            call = call.replace("sigma", "sigma[None]").replace("(A)", "(A[None])")
        lines += [f"print({call})  # {problems[i] or 'returns ' + repr(values[i])}",
                  f"# reference log 0F1({e.k}/2; AA'/4) = {e.log_hyp0f1} ({e.digits} digits, mpmath route "
                  f"{e.route}); allowed error {tols[i]:.3g}"]
        return "\n".join(lines)

    return _table("log_hyp0f1", name, criterion, refs, regions, errors, tols, values, problems, references, repro)


def assert_log_hyp0f1(fn, **options) -> CheckResult:
    """:func:`check_log_hyp0f1`, raising ``AssertionError`` (naming the worst input and its reference) on failure."""
    result = check_log_hyp0f1(fn, **options)
    result.raise_if_failed()
    return result


# ----- gradients ----------------------------------------------------------------------------------

#: Working precision of the gradient references (decimal digits); their error is below 1e-20.
GRAD_DPS = 30


def _grad_reference(sigma: tuple, k: int, shape: str) -> list[float] | None:
    """∂ log ₀F₁/∂σ at ``sigma`` in mpmath (analytic for k ≤ 2, mpmath.diff of mp-native closed forms
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
                          max_sigma: float = 1e3, subject: str | None = None) -> CheckResult:
    """Check a user's gradient ∂ log ₀F₁(k/2; AAᵀ/4)/∂σ against mpmath derivatives of closed forms.

    Parameters
    ----------
    fn : callable
        ``fn(sigma, k)`` → array (k,) (``batched``: (n, k) → (n, k)).
    batched : bool
    rtol, atol : float
        Claimed accuracy per component: |error| ≤ atol + rtol·max(1, max|g_ref|) + 1e-20.
    max_k, max_sigma :
        The input range (k ≤ 12 and σ_max ≤ 1e3 by default: mpmath's closed forms take seconds beyond).
    subject : str, optional

    Returns
    -------
    CheckResult
        Kind ``"grad_log_hyp0f1"``; rows by region as :func:`check_log_hyp0f1`, on the inputs of the
        stored table that have a closed form (k ≤ 2, rank one, equal spectra).
    """
    _validate(fn, "sigma, k", batched, rtol, atol, max_k, max_sigma)
    refs = [e for e in reference_inputs(max_k, max_sigma) if e.k <= 2 or e.shape in ("rank one", "equal")]
    if not refs:
        raise ValueError(f"max_k={max_k}, max_sigma={max_sigma}: no input with a closed-form gradient in that range")
    grads = [np.array(_grad_reference(e.sigma, e.k, e.shape)) for e in refs]
    args = [(np.array(e.sigma, float), e.k) for e in refs]
    outcomes = [call_subject(fn, [a], (a[1],), batched=batched)[0] for a in args]
    problems = [o.problem for o in outcomes]
    values = [o.value if o.ok else None for o in outcomes]
    errors = [float(np.max(np.abs(values[i] - grads[i]))) if not problems[i] else math.inf for i in range(len(refs))]
    tols = [atol + rtol * max(1.0, float(np.max(np.abs(g)))) + 1e-20 for g in grads]
    references = [float(np.max(np.abs(g))) for g in grads]
    regions = [_region(e.k, e.sigma_max, e.shape) for e in refs]
    criterion = (f"max_i |g_user,i − g_ref,i| ≤ atol + rtol·max(1, max|g_ref|) + 1e-20, atol = {atol:g}, rtol = "
                 f"{rtol:g}; g_ref by mpmath differentiation of closed forms at {GRAD_DPS} digits (k ≤ 2, rank one, "
                 f"equal spectra; {len(refs)} inputs); 'reference' and 'subject' columns: max|g| and the answer")

    def repro(i):
        e = refs[i]
        return "\n".join(["import numpy as np", import_line(fn), f"sigma = {float_repr_array(np.array(e.sigma))}",
                          f"print(fn(sigma, {e.k}))  # {problems[i] or 'returns ' + np.array2string(values[i])}",
                          f"# reference gradient: {np.array2string(grads[i], precision=17)}"])

    shown = [problems[i] or (None if values[i] is None else float(np.max(np.abs(values[i])))) for i in range(len(refs))]
    return _table("grad_log_hyp0f1", subject or subject_name(fn), criterion, refs, regions, errors, tols,
                  [math.nan if s is None or isinstance(s, str) else s for s in shown], problems, references, repro)


def assert_grad_log_hyp0f1(fn, **options) -> CheckResult:
    """:func:`check_grad_log_hyp0f1`, raising ``AssertionError`` on failure."""
    result = check_grad_log_hyp0f1(fn, **options)
    result.raise_if_failed()
    return result
