"""Is a user's symmetrized KL, log q̃ or Moore's r_θ right? Checkers against exact routes.

`check_symmetrized_kl(fn, group=...)` checks a user's symmetrization gap KL[q*‖q̃] (or log q̃, or the
term r_θ of Moore's KL estimator) for two groups:

- `group="signflip"`: the whole-point flip q̃(z) = ½(q*(z) + q*(−z)), q* = N(μ, diag(v)) (Moore
  eq. (5), Gelberg Thm 4.1). With s = μᵀΣ⁻¹μ, KL = log 2 + E[log σ(2t)], t ~ N(s, s), a
  one-dimensional integral in any dimension, evaluated by mpmath quadrature at 30 digits with s
  computed in mpmath from the exact inputs; log q̃ by mpmath at 30 digits.
- `group="orthogonal"`: O(k) acting on the columns of N×k matrices, T·X = XTᵀ, isotropic base
  q* = N(M, cI) (Moore App. A, corrected: B = MᵀX/c, not the symmetrised A that App. A and
  Listing 1 print). log q̃ and r_θ(X) = log q*(X) − log q̃(X) = tr B − log ₀F₁(k/2; BBᵀ/4) come
  from `symcheck.orthogonal` with the ₀F₁ error figure of `symcheck.log_hyp0f1`, plus √k times the
  rounding of B and of its SVD (∂ log ₀F₁/∂B has Frobenius norm ≤ √k), plus 64·ε of the Gaussian
  terms. The KL is exact for k = 1 (O(1) = {±1} is the sign flip with s = ‖M‖²/c); for k ≥ 2 it
  is a Monte Carlo mean of the corrected r_θ over `n_reference` draws X ~ q* with exact ₀F₁ and
  the control variate tr B (E tr B = ‖M‖²/c exactly), reported with its standard error SE_ref.

An exact subject passes when |value − ref| ≤ atol + rtol·|ref| + ε_ref (+ 4.5·SE_ref where the
reference is Monte Carlo). A Monte Carlo subject (`estimator="mc"`) returns (estimate, standard
error) and passes when |estimate − ref| ≤ 4.5·√(SE² + SE_ref²) + ε_ref: a correct estimator with an
honest SE fails one family with probability 6.8e-6 (two-sided normal tail at z = 4.5), the whole
check with at most that times the number of families (≤ 5e-5), as long as the estimate is near
normal. A sample SE cannot see events its sample never draws: for the sign flip with separated
modes (s > 10) the gap differs from log 2 through t < 0, of probability Φ(−√s) (2.7e-8 at s = 30),
so a plain Monte Carlo estimator reports an SE far below its actual error there, and the check
says so. Between the two the estimate is skewed: measured over 4000 repetitions of a plain
estimator with 2·10⁴ draws, |z| > 4 never occurred at s = 3 and 5, but |z| > 4.5 occurred at
rate 2.5e-4 at s = 8 (and 3.6e-2 at s = 9 with 4·10³ draws), so the families judged for overlap
stop at s = 5 (and s ≤ 2.25 for O(1)).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import mpmath
import numpy as np

from symcheck._checks import check_callable, check_choice, check_int
from symcheck.evidence import ROUNDING
from symcheck.haar import haar_orthogonal
from symcheck.hyp0f1 import log_hyp0f1
from symcheck.hyp0f1.api import Hyp0f1AccuracyWarning
from symcheck.orthogonal import _singular_values, moore_r, orthogonal_logpdf
from symcheck.evidence import gamma
from symcheck.testing.adapters import call_subject, float_repr_array, import_line, subject_name
from symcheck.testing.result import CheckResult, group_rows, worst_failure

__all__ = ["ESTIMATORS", "GROUPS", "N_REFERENCE", "QUANTITIES", "Z_MC", "assert_symmetrized_kl",
           "check_symmetrized_kl"]

GROUPS = ("signflip", "orthogonal")
#: What a subject may compute, per group.
QUANTITIES = {"signflip": ("kl", "log_qtilde"), "orthogonal": ("kl", "log_qtilde", "r")}
ESTIMATORS = ("exact", "mc")
#: z of the Monte Carlo criterion (two-sided normal tail 6.8e-6 per family).
Z_MC = 4.5
#: Draws X ~ q* behind the Monte Carlo reference of the O(k) KL, k ≥ 2.
N_REFERENCE = 20_000
#: Digits of the sign-flip references.
DPS = 30
#: Points per family of the pointwise quantities (log q̃, r_θ).
POINTS = 8
_U = float(np.finfo(float).eps) / 2
#: (k, ‖M‖₂, c) of the O(k) families: overlapping to well separated modes, k = 1, 2, 3 (k = 1 is the
#: sign flip with s = ‖M‖²/c ≤ 2.25: a plain Monte Carlo mean is near normal there, module notes).
ORTHOGONAL_FAMILIES = ((1, 0.5, 1.0), (1, 1.5, 1.0), (2, 0.5, 1.0), (2, 3.0, 1.0), (2, 10.0, 0.5), (3, 0.5, 1.0),
                       (3, 1.5, 1.0))
#: Rows N of the O(k) means.
ORTHOGONAL_ROWS = 6


@dataclass(frozen=True)
class _Case:
    """One input: its family, the subject's arguments, the reference (one value, or one per point), the
    reference's error bound or figure, and the standard error of a Monte Carlo reference (0 otherwise)."""

    family: str
    args: tuple
    reference: np.ndarray
    error: np.ndarray
    se: float = 0.0


# ----- sign flip ------------------------------------------------------------------------------------

def _signflip_gap_mp(s: mpmath.mpf) -> mpmath.mpf:
    """log 2 + E[log σ(2t)], t ~ N(s, s), by mpmath quadrature at `DPS` digits (s = μᵀΣ⁻¹μ > 0)."""
    with mpmath.workdps(DPS):
        sd = mpmath.sqrt(s)

        def integrand(t):
            return -mpmath.log1p(mpmath.exp(-2 * t)) * mpmath.npdf(t, s, sd)
        edges = [s - 40 * sd, min(mpmath.mpf(0), s), max(mpmath.mpf(0), s), s + 40 * sd]
        return mpmath.log(2) + mpmath.quad(integrand, sorted(edges))


def _maha_mp(mean, var) -> mpmath.mpf:
    """s = Σ μᵢ²/vᵢ in mpmath from the exact float64 inputs."""
    with mpmath.workdps(DPS):
        return mpmath.fsum(mpmath.mpf(float(m)) ** 2 / mpmath.mpf(float(v)) for m, v in zip(mean, var))


def _signflip_logq_mp(z, mean, var) -> list:
    """log ½(N(z; μ, diag v) + N(−z; μ, diag v)) per row of z, in mpmath at `DPS` digits."""
    with mpmath.workdps(DPS):
        mu, v = [mpmath.mpf(float(m)) for m in mean], [mpmath.mpf(float(x)) for x in var]
        const = -mpmath.fsum(mpmath.log(2 * mpmath.pi * x) for x in v) / 2
        out = []
        for row in z:
            x = [mpmath.mpf(float(a)) for a in row]
            quads = [mpmath.fsum((sg * a - m) ** 2 / w for a, m, w in zip(x, mu, v)) for sg in (1, -1)]
            out.append(const + mpmath.log((mpmath.exp(-quads[0] / 2) + mpmath.exp(-quads[1] / 2)) / 2))
        return out


def _signflip_cases(quantity: str, seed: int) -> list[_Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for target, family in ((0.05, "overlapping (s < 1)"), (0.5, "overlapping (s < 1)"), (3.0, "s 1–10"),
                           (5.0, "s 1–10"), (30.0, "separated (s > 10)"), (200.0, "separated (s > 10)")):
        d = int(rng.integers(1, 6))
        var = rng.uniform(0.2, 2.0, d)
        u = rng.standard_normal(d)
        mean = u * math.sqrt(target / float(np.sum(u * u / var)))
        if quantity == "kl":
            ref = _signflip_gap_mp(_maha_mp(mean, var))
            cases.append(_Case(family, (mean, var), np.array(ref), np.array(1e-25)))
            continue
        z = (mean + np.sqrt(var) * rng.standard_normal((POINTS, d))) * rng.choice([-1.0, 1.0], (POINTS, 1))
        ref = _signflip_logq_mp(z, mean, var)
        cases.append(_Case(family, (z, mean, var), np.array(ref, dtype=object),
                           np.array([1e-25 * (1 + abs(float(r))) for r in ref])))
    return cases


# ----- O(k) on N×k matrices (Moore App. A) ----------------------------------------------------------

def _log0f1_error(X, M, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Error figure of log ₀F₁(k/2; BBᵀ/4), B = MᵀX/c, per point (module notes), and tr B."""
    k = M.shape[1]
    B = np.matmul(M.T, X) / c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)  # the figure says how far to trust it
        _, err = log_hyp0f1(_singular_values(B), k, return_error=True)
    rounding = gamma(M.shape[0] + 1) * np.linalg.norm(np.matmul(np.abs(M).T, np.abs(X)), axis=(-2, -1)) / c
    svd = ROUNDING * k * np.linalg.norm(B, axis=(-2, -1))
    return err + math.sqrt(k) * (rounding + svd), np.trace(B, axis1=-2, axis2=-1)


def _orthogonal_cases(quantity: str, seed: int, max_k: int, n_reference: int) -> list[_Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for k, scale, c in ORTHOGONAL_FAMILIES:
        Q, _ = np.linalg.qr(rng.standard_normal((ORTHOGONAL_ROWS, k)))
        M = Q * (scale / np.arange(1, k + 1))  # singular values scale, scale/2, …
        if k > max_k:
            continue
        family = f"k={k}, ‖M‖₂={scale:g}, c={c:g}"
        if quantity == "kl" and k == 1:  # O(1) = {±1}: the sign flip with s = ‖M‖²/c
            ref = _signflip_gap_mp(_maha_mp(M.ravel(), np.full(M.size, c)))
            cases.append(_Case(family, (M, c), np.array(ref), np.array(1e-25)))
        elif quantity == "kl":
            X = M + math.sqrt(c) * rng.standard_normal((n_reference,) + M.shape)
            r = moore_r(X, M, c)
            err, trB = _log0f1_error(X, M, c)
            cv = trB - np.sum(M * M) / c  # mean 0 exactly
            beta = float(np.mean((r - r.mean()) * cv) / np.mean(cv * cv))
            adjusted = r - beta * cv
            se = float(np.std(adjusted, ddof=1) / math.sqrt(n_reference))
            systematic = float(np.mean(err)) + ROUNDING * float(np.mean(np.abs(r) + np.abs(trB)))
            cases.append(_Case(family, (M, c), np.array(adjusted.mean()), np.array(systematic), se))
        else:
            T = haar_orthogonal(k, POINTS, rng)
            X = np.matmul(M + math.sqrt(c) * rng.standard_normal((POINTS,) + M.shape), np.swapaxes(T, -1, -2))
            err, trB = _log0f1_error(X, M, c)
            if quantity == "log_qtilde":
                ref = orthogonal_logpdf(X, M, c)
                err = err + ROUNDING * ((np.sum(X * X, axis=(-2, -1)) + np.sum(M * M)) / (2 * c)
                                        + 0.5 * M.size * abs(math.log(2 * math.pi * c)))
            else:
                ref = moore_r(X, M, c)
                err = err + ROUNDING * np.abs(trB)
            cases.append(_Case(family, (X, M, c), ref, err))
    return cases


# ----- the checker ----------------------------------------------------------------------------------

def _validate(fn, group, quantity, estimator, rtol, atol, seed, max_k, n_reference):
    check_callable(fn, "fn")
    check_choice(group, "group", GROUPS)
    check_choice(quantity, "quantity", QUANTITIES[group])
    check_choice(estimator, "estimator", ESTIMATORS)
    if estimator == "mc" and quantity != "kl":
        raise ValueError("estimator: 'mc' applies to quantity='kl' only (log q̃ and r_θ are checked point by point)")
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    check_int(seed, "seed", minimum=0)
    check_int(n_reference, "n_reference", minimum=100)
    if max_k is not None:
        if group != "orthogonal":
            raise ValueError("max_k applies to group='orthogonal' only (the sign-flip inputs have no k)")
        check_int(max_k, "max_k", minimum=1)


_CALLS = {("signflip", "kl"): "fn(mean, var)", ("signflip", "log_qtilde"): "fn(z, mean, var)",
          ("orthogonal", "kl"): "fn(M, c)", ("orthogonal", "log_qtilde"): "fn(X, M, c)",
          ("orthogonal", "r"): "fn(X, M, c)"}
_WHAT = {"kl": "KL[q*‖q̃]", "log_qtilde": "log q̃", "r": "r_θ(X) = log q*(X) − log q̃(X)"}


def check_symmetrized_kl(fn, *, group: str = "signflip", quantity: str = "kl", estimator: str = "exact",
                         rtol: float = 1e-8, atol: float = 0.0, max_k: int | None = None, seed: int = 0,
                         n_reference: int = N_REFERENCE, subject: str | None = None) -> CheckResult:
    """Check a user's symmetrization gap KL[q*‖q̃], log q̃ or Moore's r_θ (module notes).

    Parameters
    ----------
    fn : callable
        `group="signflip"` (q* = N(mean, diag(var)), q̃(z) = ½(q*(z) + q*(−z))):
        `quantity="kl"`: `fn(mean, var)` → KL, or (estimate, standard error) with
        `estimator="mc"`; `quantity="log_qtilde"`: `fn(z, mean, var)`, z of shape (n, d) → (n,).
        `group="orthogonal"` (q* = N(M, cI) on N×k matrices, O(k) acting by T·X = XTᵀ):
        `quantity="kl"`: `fn(M, c)` → KL (or (estimate, standard error)); `"log_qtilde"`:
        `fn(X, M, c)`, X of shape (n, N, k) → log q̃ per point; `"r"`: `fn(X, M, c)` → Moore's
        r_θ(X) per point (the term of his KL estimator, eq. (6)).
    group : {"signflip", "orthogonal"}
    quantity : {"kl", "log_qtilde", "r"}
        "r" for the orthogonal group only.
    estimator : {"exact", "mc"}
        "exact": the subject returns a number; "mc" (quantity "kl" only): (estimate, standard error).
    rtol, atol : float
        Claimed accuracy of an exact subject: |value − ref| ≤ atol + rtol·|ref| + ε_ref.
    max_k : int, optional
        Orthogonal group only: use the families with k ≤ max_k (they have k = 1, 2, 3).
    seed : int
        Seed of the inputs and of the Monte Carlo reference.
    n_reference : int
        Draws of the Monte Carlo reference of the O(k) KL for k ≥ 2 (its SE falls as 1/√n_reference).
    subject : str, optional
        Name shown in the table (default: module:qualname of `fn`).

    Returns
    -------
    CheckResult
        Kind "symmetrized_kl", "symmetrized_log_qtilde" or "moore_r"; one row per family (the
        separation s = μᵀΣ⁻¹μ of the sign flip; k, ‖M‖₂ and c of O(k)).

    Raises
    ------
    ValueError
        A bad argument (named), or an option that does not apply to the group or quantity.
    """
    _validate(fn, group, quantity, estimator, rtol, atol, seed, max_k, n_reference)
    if group == "signflip":
        cases = _signflip_cases(quantity, seed)
    else:
        cases = _orthogonal_cases(quantity, seed, 3 if max_k is None else max_k, n_reference)
    pointwise = quantity != "kl"
    out_shape = (POINTS,) if pointwise else ((2,) if estimator == "mc" else ())
    outcomes = call_subject(fn, [c.args for c in cases], out_shape)
    groups, labels, errors, tols, references, values, problems, where = [], [], [], [], [], [], [], []
    for i, (case, out) in enumerate(zip(cases, outcomes)):
        refs = list(case.reference.reshape(-1))
        problem = out.problem
        if not problem and estimator == "mc" and not out.value[1] >= 0:
            problem = f"returned a negative standard error {float(out.value[1]):g}"
        for j, ref in enumerate(refs):
            eps = float(case.error.reshape(-1)[j])
            if estimator == "mc":
                se = float(out.value[1]) if not problem else 0.0
                tol = Z_MC * math.hypot(se, case.se) + eps
            else:
                tol = atol + rtol * abs(float(ref)) + eps + Z_MC * case.se
            value = math.nan if problem else float(out.value[j] if pointwise else out.value.reshape(-1)[0])
            with mpmath.workdps(DPS):
                error = math.inf if problem else float(abs(mpmath.mpf(value) - mpmath.mpf(ref)))
            groups.append(case.family)
            labels.append(f"{case.family}{f', point {j}' if pointwise else ''}")
            errors.append(error)
            tols.append(tol)
            references.append(float(ref))
            values.append(value)
            problems.append(problem)
            where.append((i, j))
    if estimator == "mc":
        how = (f"|estimate − ref| ≤ {Z_MC:g}·√(SE² + SE_ref²) + ε_ref (false failure 6.8e-6 per family, "
               f"≤ {6.8e-6 * len(cases):.2g} for the {len(cases)} families)")
    else:
        how = f"|value − ref| ≤ atol + rtol·|ref| + ε_ref, atol = {atol:g}, rtol = {rtol:g}"
        if any(c.se for c in cases):
            how += f" (+ {Z_MC:g}·SE_ref where the reference is Monte Carlo: false failure 6.8e-6 per family)"
    if group == "signflip":
        source = (f"whole-point sign flip, references by mpmath at {DPS} digits (KL: log 2 + E log σ(2t), "
                  "t ~ N(s, s), by quadrature)")
    else:
        source = ("O(k) on N×k matrices, isotropic base N(M, cI), corrected App. A (B = MᵀX/c); references "
                  "from symcheck.orthogonal with the ₀F₁ error figure" + (
                      f"; KL exact for k = 1, Monte Carlo over {n_reference} draws with exact ₀F₁ for k ≥ 2"
                      if quantity == "kl" else ""))
    criterion = f"{_WHAT[quantity]}: {how}; {source}; {len(cases)} families, seed {seed}"
    worst = worst_failure(errors, tols, problems)
    reproducer = None
    if worst is not None:
        i, j = where[worst]
        case = cases[i]
        names = _CALLS[(group, quantity)][3:-1].split(", ")
        lines = ["import numpy as np", import_line(fn)]
        for name, arg in zip(names, case.args):
            if pointwise and name in ("z", "X"):
                lines.append(f"{name} = {float_repr_array(arg[j:j + 1])}  # one point")
            else:
                lines.append(f"{name} = {float_repr_array(arg) if isinstance(arg, np.ndarray) else repr(arg)}")
        lines.append(f"print({_CALLS[(group, quantity)]})  # {problems[worst] or 'returns ' + repr(values[worst])}")
        where_from = f"Monte Carlo, SE {case.se:.3g}" if case.se else "error ≤ " + f"{float(case.error.reshape(-1)[j]):.3g}"
        lines.append(f"# reference {_WHAT[quantity]} = {mpmath.nstr(mpmath.mpf(case.reference.reshape(-1)[j]), 17)}"
                     f" ({where_from}); allowed error {tols[worst]:.3g}")
        reproducer = "\n".join(lines)
    kind = {"kl": "symmetrized_kl", "log_qtilde": "symmetrized_log_qtilde", "r": "moore_r"}[quantity]
    return CheckResult(f"{kind} ({group})", subject or subject_name(fn),
                       group_rows(groups, labels, errors, tols, references, values, problems), criterion, reproducer)


def assert_symmetrized_kl(fn, **options) -> CheckResult:
    """`check_symmetrized_kl`, raising AssertionError (naming the failing families) on failure."""
    result = check_symmetrized_kl(fn, **options)
    result.raise_if_failed()
    return result
