"""Is a user's Gaussian KL, or symmetrization gap KL[q*‖q̃], right? Checkers against 50-digit references.

`check_kl_gaussian(fn)` calls ``fn(m0, S0, m1, S1)`` on families of Gaussian pairs and compares it
with KL[N(m0, S0) ‖ N(m1, S1)] = ½(tr(S1⁻¹S0) + δᵀS1⁻¹δ − d + log|S1| − log|S0|), δ = m1 − m0,
evaluated by mpmath at 50 digits (LU inverse and determinants: a route independent of float64
Cholesky code). An input passes when

    |KL_user − KL_ref| ≤ rtol·KL_ref + atol + floor,  floor = 64·ε·d·κ(S1)·(1 + KL_ref),

the floor being what a backward-stable float64 evaluation from Cholesky factors loses (relative error
~ d·ε·κ per term, Higham 2002 Thm 10.3 and 8.5; the terms are O(d + KL) and cancel to KL; 64
covers two routes' γ factors, see `symcheck.evidence.ROUNDING`). Families: well-conditioned,
ill-conditioned (κ up to 1e8), high dimension (d = 60; also with variances ~1e-6, whose
determinant underflows float64), near-identical (KL ~ 1e-12, where naive
formulas cancel), diagonal, and far apart (KL ~ 1e4).

`check_symmetrized_kl(fn, group="signflip")` checks KL[q*‖q̃] for the whole-point sign flip
q̃(z) = ½(q*(z) + q*(−z)), q* = N(μ, diag(v)) (Moore eq. (5), Gelberg Thm 4.1): with s = μᵀΣ⁻¹μ,
KL = log 2 + E[log σ(2t)], t ~ N(s, s), a one-dimensional integral (`symcheck.signflip_exact`),
evaluated here by mpmath quadrature at 30 digits. A Monte Carlo subject (``estimator="mc"``)
returns (estimate, standard error) and is judged at z = 4.5 standard errors (a correct estimator
fails one input with probability 6.8e-6, the whole check with at most that times the input count).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from symcheck._checks import check_callable, check_choice, check_int
from symcheck.evidence import ROUNDING
from symcheck.kl import random_spd
from symcheck.testing.adapters import call_subject, float_repr_array, import_line, subject_name
from symcheck.testing.result import CheckResult, CheckRow

__all__ = ["assert_kl_gaussian", "check_kl_gaussian", "check_symmetrized_kl", "kl_gaussian_mp"]

#: Digits of the KL references.
DPS = 50
#: z of the Monte Carlo criterion (two-sided normal tail 6.8e-6 per input).
Z_MC = 4.5


def kl_gaussian_mp(m0, S0, m1, S1) -> mpmath.mpf:
    """KL[N(m0, S0) ‖ N(m1, S1)] at `DPS` digits by mpmath (inverse and determinants by LU)."""
    with mpmath.workdps(DPS):
        d = len(m0)
        A0, A1 = mpmath.matrix(S0.tolist()), mpmath.matrix(S1.tolist())
        delta = mpmath.matrix([mpmath.mpf(b) - mpmath.mpf(a) for a, b in zip(m0, m1)])
        inv = mpmath.inverse(A1)
        trace = mpmath.fsum(inv[i, j] * A0[j, i] for i in range(d) for j in range(d))
        y = inv * delta
        maha = mpmath.fsum(delta[i] * y[i] for i in range(d))
        return (trace + maha - d + mpmath.log(mpmath.det(A1)) - mpmath.log(mpmath.det(A0))) / 2


def _pairs(rng) -> list[tuple[str, tuple]]:
    """(family, (m0, S0, m1, S1)) for every family of the module notes."""
    out = []
    for d in (1, 2, 5, 20):
        for _ in range(2):
            out.append(("well-conditioned (κ ≤ 10)", (rng.standard_normal(d), random_spd(rng, d, 10.0),
                                                     rng.standard_normal(d), random_spd(rng, d, 10.0))))
    for cond in (1e4, 1e6, 1e8):
        out.append((f"ill-conditioned (κ ≤ 1e8)", (rng.standard_normal(8), random_spd(rng, 8, cond),
                                                  rng.standard_normal(8), random_spd(rng, 8, cond))))
    out.append(("high dimension (d = 60)", (rng.standard_normal(60), random_spd(rng, 60, 100.0),
                                           rng.standard_normal(60), random_spd(rng, 60, 100.0))))
    # posterior-sized variances: |S| ~ 1e-360 underflows float64, though the KL is moderate
    out.append(("high dimension, small variances (d = 60, S ~ 1e-6)",
                (rng.standard_normal(60) * 1e-3, 1e-6 * random_spd(rng, 60, 10.0), rng.standard_normal(60) * 1e-3,
                 1e-6 * random_spd(rng, 60, 10.0))))
    for d in (3, 10):
        S = random_spd(rng, d, 10.0)
        E = 1e-6 * rng.standard_normal((d, d))
        m = rng.standard_normal(d)
        out.append(("near-identical (KL ~ 1e-12)", (m, S, m + 1e-6 * rng.standard_normal(d), S + (E + E.T) / 2)))
    for d in (4, 30):
        out.append(("diagonal", (rng.standard_normal(d), np.diag(rng.uniform(0.1, 3, d)), rng.standard_normal(d),
                                 np.diag(rng.uniform(0.1, 3, d)))))
    out.append(("far apart (KL ~ 1e4)", (np.zeros(5), np.eye(5), np.full(5, 60.0), np.eye(5))))
    return out


def _rows(refs_by_family, errors, tols, values, problems, references):
    rows = []
    for family in dict.fromkeys(refs_by_family):
        idx = [i for i, f in enumerate(refs_by_family) if f == family]
        good = [errors[i] for i in idx if not problems[i]]
        worst = max(idx, key=lambda i: math.inf if problems[i] else errors[i] / tols[i])
        rows.append(CheckRow(family, all(not problems[i] and errors[i] <= tols[i] for i in idx), {
            "n": len(idx), "max error": max(good, default=math.nan),
            "max rel. error": max((errors[i] / abs(references[i]) for i in idx if not problems[i] and references[i]),
                                  default=math.nan),
            "failed calls": sum(bool(problems[i]) for i in idx),
            "reference": references[worst], "subject": problems[worst] or values[worst], "tolerance": tols[worst]}))
    return tuple(rows)


def check_kl_gaussian(fn, *, rtol: float = 1e-10, atol: float = 0.0, seed: int = 0,
                      subject: str | None = None) -> CheckResult:
    """Check a user's KL[N(m0, S0) ‖ N(m1, S1)] against 50-digit mpmath references.

    Parameters
    ----------
    fn : callable
        ``fn(m0, S0, m1, S1)`` with means (d,) and covariance matrices (d, d), returning the KL.
    rtol, atol : float
        Claimed accuracy beyond the float64 floor of the module notes.
    seed : int
        Seed of the random pairs.
    subject : str, optional

    Returns
    -------
    CheckResult
        Kind ``"kl_gaussian"``; one row per family: n, max absolute and relative error, failed calls,
        and at the worst input the reference, the subject's answer and the tolerance.
    """
    check_callable(fn, "fn")
    check_int(seed, "seed", minimum=0)
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    pairs = _pairs(np.random.default_rng(seed))
    refs = [kl_gaussian_mp(*p) for _, p in pairs]
    references = [float(r) for r in refs]
    outcomes = call_subject(fn, [p for _, p in pairs], ())
    problems = [o.problem for o in outcomes]
    values = [float(o.value) if o.ok else math.nan for o in outcomes]
    errors = [math.inf if problems[i] else float(abs(mpmath.mpf(values[i]) - refs[i])) for i in range(len(pairs))]
    tols = [rtol * references[i] + atol
            + ROUNDING * len(p[0]) * np.linalg.cond(p[3]) * (1.0 + abs(references[i]))
            for i, (_, p) in enumerate(pairs)]
    criterion = (f"|KL_user − KL_ref| ≤ rtol·KL + atol + 64·eps·d·κ(S1)·(1 + KL) (float64 floor), rtol = {rtol:g}, "
                 f"atol = {atol:g}; KL_ref by mpmath at {DPS} digits; {len(pairs)} pairs, seed {seed}")
    failing = [i for i in range(len(pairs)) if problems[i] or errors[i] > tols[i]]
    reproducer = None
    if failing:
        i = max(failing, key=lambda j: math.inf if problems[j] else errors[j] / tols[j])
        m0, S0, m1, S1 = pairs[i][1]
        reproducer = "\n".join([
            "import numpy as np", import_line(fn), f"m0 = {float_repr_array(m0)}", f"S0 = {float_repr_array(S0)}",
            f"m1 = {float_repr_array(m1)}", f"S1 = {float_repr_array(S1)}",
            f"print(fn(m0, S0, m1, S1))  # {problems[i] or 'returns ' + repr(values[i])}",
            f"# reference KL = {mpmath.nstr(refs[i], 20)} (mpmath, {DPS} digits); allowed error {tols[i]:.3g}"])
    return CheckResult("kl_gaussian", subject or subject_name(fn),
                       _rows([f for f, _ in pairs], errors, tols, values, problems, references), criterion, reproducer)


def assert_kl_gaussian(fn, **options) -> CheckResult:
    """:func:`check_kl_gaussian`, raising ``AssertionError`` on failure."""
    result = check_kl_gaussian(fn, **options)
    result.raise_if_failed()
    return result


# ----- symmetrization gap of the sign flip --------------------------------------------------------

def _signflip_gap_mp(s: float) -> mpmath.mpf:
    """log 2 + E[log σ(2t)], t ~ N(s, s), by mpmath quadrature at 30 digits (s = μᵀΣ⁻¹μ > 0)."""
    with mpmath.workdps(30):
        s = mpmath.mpf(s)
        sd = mpmath.sqrt(s)

        def integrand(t):
            return -mpmath.log1p(mpmath.exp(-2 * t)) * mpmath.npdf(t, s, sd)
        edges = [s - 40 * sd, min(mpmath.mpf(0), s), max(mpmath.mpf(0), s), s + 40 * sd]
        return mpmath.log(2) + mpmath.quad(integrand, sorted(edges))


def check_symmetrized_kl(fn, *, group: str = "signflip", estimator: str = "exact", rtol: float = 1e-8,
                         seed: int = 0, subject: str | None = None) -> CheckResult:
    """Check a user's KL[q*‖q̃] for q* = N(mean, diag(var)) symmetrized over the whole-point sign flip.

    Parameters
    ----------
    fn : callable
        ``fn(mean, var)`` → KL (``estimator="exact"``) or (estimate, standard error) (``"mc"``).
    group : {"signflip"}
        The symmetry group: {z, −z} (Moore eq. (5)). Other groups are not offered yet.
    estimator : {"exact", "mc"}
    rtol : float
        Claimed relative accuracy of an exact subject (plus 1e-15 absolute).
    seed : int
        Seed of the random means and variances.
    subject : str, optional

    Returns
    -------
    CheckResult
        Kind ``"symmetrized_kl"``; rows by separation s = μᵀΣ⁻¹μ (overlapping modes s < 1, s in 1–10,
        separated s > 10).
    """
    check_callable(fn, "fn")
    check_choice(group, "group", ("signflip",))
    check_choice(estimator, "estimator", ("exact", "mc"))
    check_int(seed, "seed", minimum=0)
    if not (isinstance(rtol, (int, float)) and math.isfinite(rtol) and rtol >= 0):
        raise ValueError(f"rtol must be a finite number >= 0, got {rtol!r}")
    rng = np.random.default_rng(seed)
    inputs, families = [], []
    for target, family in ((0.05, "overlapping (s < 1)"), (0.5, "overlapping (s < 1)"), (3.0, "s 1–10"),
                           (8.0, "s 1–10"), (30.0, "separated (s > 10)"), (200.0, "separated (s > 10)")):
        d = int(rng.integers(1, 6))
        var = rng.uniform(0.2, 2.0, d)
        u = rng.standard_normal(d)
        mean = u * math.sqrt(target / float(np.sum(u * u / var)))
        inputs.append((mean, var))
        families.append(family)
    refs = [_signflip_gap_mp(float(np.sum(m * m / v))) for m, v in inputs]
    references = [float(r) for r in refs]
    out_shape = () if estimator == "exact" else (2,)
    outcomes = call_subject(fn, inputs, out_shape)
    problems = [o.problem for o in outcomes]
    values = [float(o.value) if o.ok and estimator == "exact" else (float(o.value[0]) if o.ok else math.nan)
              for o in outcomes]
    errors = [math.inf if problems[i] else float(abs(mpmath.mpf(values[i]) - refs[i])) for i in range(len(inputs))]
    if estimator == "exact":
        tols = [rtol * references[i] + 1e-15 for i in range(len(inputs))]
        how = f"|KL_user − KL_ref| ≤ rtol·KL + 1e-15, rtol = {rtol:g}"
    else:
        tols = [Z_MC * float(o.value[1]) + 1e-15 if o.ok and o.value[1] >= 0 else math.nan for o in outcomes]
        problems = [p or ("" if math.isfinite(tols[i]) else "returned a negative standard error")
                    for i, p in enumerate(problems)]
        how = f"|estimate − KL_ref| ≤ {Z_MC}·SE (false failure ≤ 6.8e-6 per input)"
    criterion = (f"{how}; whole-point sign flip, KL_ref = log 2 + E log σ(2t), t ~ N(s, s), by mpmath quadrature "
                 f"(30 digits); {len(inputs)} inputs, seed {seed}")
    failing = [i for i in range(len(inputs)) if problems[i] or errors[i] > tols[i]]
    reproducer = None
    if failing:
        i = failing[0]
        reproducer = "\n".join(["import numpy as np", import_line(fn), f"mean = {float_repr_array(inputs[i][0])}",
                                f"var = {float_repr_array(inputs[i][1])}",
                                f"print(fn(mean, var))  # {problems[i] or 'returns ' + repr(values[i])}",
                                f"# reference KL[q*||q~] = {mpmath.nstr(refs[i], 20)} (mpmath quadrature)"])
    return CheckResult("symmetrized_kl", subject or subject_name(fn),
                       _rows(families, errors, tols, values, problems, references), criterion, reproducer)
