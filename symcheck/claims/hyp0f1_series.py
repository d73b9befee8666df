"""Claims about the float64 zonal series of ₀F₁(k/2; AAᵀ/4) and its mpmath reference.

Routes: the float64 Koev–Edelman series (:mod:`symcheck.hyp0f1.series`, Jack branching), the
mpmath reference (:mod:`symcheck.hyp0f1.reference`, monomial coefficients from Muirhead's
PDE system: no zonal polynomials), the closed forms (cosh, Bessel I), and direct numerical
integration over O(3) with its Haar measure. Every tolerance is the series' own rigorous error
bound or a stated float64 / quadrature error estimate.
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from symcheck.claims import Claim, all_of, bound_from_rows, evidence_from_rows, register
from symcheck.haar_quadrature import O3_GRIDS, o3_log_integral
from symcheck.hyp0f1 import closed_form, series
from symcheck.hyp0f1.closed_form_mp import closed_form_mp, equal_spectrum_dps, equal_spectrum_mp
from symcheck.hyp0f1.reference import _count_partitions, hyp0f1_reference, reference_degree

#: Unit roundoff of float64.
U = np.finfo(float).eps / 2
#: Digits of the reference in the checks (its error, ~1e-20, is negligible against float64).
DPS = 20
_KE = "Koev & Edelman (2006), Math. Comp. 75, §4"
#: Cost cap of the mpmath reference in the closed-form check: partitions (≤ k parts, size ≤ the
#: degree it needs at dps = DPS). Its own limit, MAX_PARTITIONS = 40 000, takes minutes near the
#: end; 6000 partitions take about a second (k = 12: Σσ ≤ 6.9; k = 5: Σσ ≤ 12).
REFERENCE_PARTITIONS = 6000


def _ref_log(sig, k) -> mpmath.mpf:
    with mpmath.workdps(DPS + 10):
        return mpmath.log(hyp0f1_reference(sig, k, dps=DPS))


def _rel_err(logval: float, ref_log: mpmath.mpf) -> float:
    """|exp(logval)/F − 1| evaluated in mpmath."""
    with mpmath.workdps(DPS + 10):
        return float(abs(mpmath.expm1(mpmath.mpf(float(logval)) - ref_log)))


def _log_rounding(logval) -> np.ndarray:
    """Absolute float64 error of storing log F̂ (u·|log F| plus one ulp near 0)."""
    return 2 * U * (1.0 + np.abs(logval))


def _grid(rng, cases):
    """Random σ rows: log-uniform in [1e-3, σmax] per entry, plus the row with all σ = σmax."""
    out = []
    for k, smax, n in cases:
        for _ in range(n):
            out.append((k, np.exp(rng.uniform(math.log(1e-3), math.log(smax), k))))
        out.append((k, np.full(k, smax)))
    return out


def _compare_with_reference(grid):
    """Series (rtol = 1e-14) vs the reference on each row; holds if err ≤ bound ≤ 1e-12 everywhere."""
    errors, bounds = [], []
    for k, sig in grid:
        val, bound = series.log_hyp0f1_series(sig, k)
        val, bound = float(val), float(bound)
        label = f"k={k}, sigma={np.round(sig, 4).tolist()}"
        errors.append((f"{label}: |F̂/F − 1|", _rel_err(val, _ref_log(sig, k)), 0.0, bound + float(_log_rounding(val))))
        bounds.append((f"{label}: reported bound", bound, 1e-12, 0.0))
    return all_of([evidence_from_rows(errors, f"relative error of the series vs the reference (dps={DPS}) within its "
                                              "reported bound (truncation + rounding, + u|log F| for the stored log)"),
                   bound_from_rows(bounds, "reported bound ≤ 1e-12")],
                  f"{len(grid)} rows", {"rtol": 1e-14, "dps": DPS, "rows": len(grid)})


def _check_vs_reference(rng):
    # σmax: degree 67 (k = 1, 2), 49 (k = 3); smaller for k >= 4, where the reference's cost grows fastest
    cases = [(1, 40.0, 2), (2, 20.0, 2), (3, 9.0, 2), (4, 3.0, 1), (5, 1.6, 1), (6, 1.2, 1), (7, 1.0, 1)]
    return _compare_with_reference(_grid(rng, cases))


register(Claim(
    id="hyp0f1.series.vs-reference",
    source=_KE,
    statement=("The float64 zonal series (rtol 1e-14) agrees with the independent mpmath reference (monomial "
               "coefficients from Muirhead's PDE system) within its own reported error bound, which is ≤ 1e-12, "
               "for k = 1..7 and σ from 1e-3 up to Σσ = 40 (degree 67) for k ≤ 2 and 27 (degree 49) for k = 3."),
    check=_check_vs_reference,
))


def _check_vs_reference_large_k(rng):
    cases = [(8, 0.8, 1), (12, 0.35, 1), (20, 0.15, 1)]
    return _compare_with_reference(_grid(rng, cases))


register(Claim(
    id="hyp0f1.series.vs-reference-large-k",
    source=_KE,
    statement=("The float64 zonal series agrees with the mpmath reference within its reported bound (≤ 1e-12) "
               "for k = 8, 12, 20."),
    check=_check_vs_reference_large_k,
))


def _largest_sum(feasible) -> float:
    """Largest s = Σσ in [0, 60] (to 1e-3) with ``feasible(s)`` (a predicate monotone in s)."""
    lo, hi = 0.0, 60.0
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if feasible(mid) else (lo, mid)
    return lo


@functools.lru_cache(maxsize=None)
def series_sum_limit(k: int) -> float:
    """Largest Σσ the float64 series evaluates at rtol = 1e-14 (degree ≤ its largest feasible degree)."""
    row = lambda s: np.array([[s] + [0.0] * (k - 1)])  # noqa: E731 — the degree depends on Σσ only
    return _largest_sum(lambda s: series.series_degree_needed(row(s), k, 1e-14)[0] <= series.max_feasible_degree(k))


@functools.lru_cache(maxsize=None)
def reference_sum_limit(k: int) -> float:
    """Largest Σσ the mpmath reference evaluates at dps = DPS within REFERENCE_PARTITIONS partitions."""
    return _largest_sum(lambda s: _count_partitions(k, reference_degree(s, DPS)) <= REFERENCE_PARTITIONS)


def _closed_form_cases(rng, sum_limit):
    """σ rows with a closed form, log-uniform from 1e-3: k = 1, 2 full rank (entries ≤ 15) and rank
    one in k = 3, 5, 12 (≤ 25), every row's Σσ capped at ``sum_limit(k)``, what the route can evaluate."""
    rows = []
    for k, n in ((1, 4), (2, 6)):
        hi = min(15.0, sum_limit(k) / k)
        rows += [(k, np.exp(rng.uniform(math.log(1e-3), math.log(hi), (n, k))))]
    for k in (3, 5, 12):
        sig = np.zeros((4, k))
        sig[:, 0] = np.exp(rng.uniform(math.log(1e-3), math.log(min(25.0, sum_limit(k))), 4))
        rows.append((k, sig))
    return rows


def _check_series_closed_forms(rng):
    rows = []
    for k, sig in _closed_form_cases(rng, series_sum_limit):
        val, bound = series.log_hyp0f1_series(sig, k)
        exact = closed_form.log_hyp0f1_exact(sig, k)
        # closed forms: scaled Bessel/cosh to a few ulps, log adds u|log F|: 8u(1 + |log F|)
        tol = bound + _log_rounding(val) + 8 * U * (1 + np.abs(exact))
        rows += [(f"k={k}, sigma={np.round(row, 4).tolist()}", float(v), float(e), float(t))
                 for row, v, e, t in zip(sig, val, exact, tol)]
    return evidence_from_rows(rows, "log ₀F₁ by the series vs k = 1, 2 (cosh, ½[I₀(σ₁+σ₂)+I₀(σ₁−σ₂)]) and rank one in "
                                    "k = 3, 5, 12 (Bessel I_(k/2−1))", {"rtol": 1e-14})


register(Claim(
    id="hyp0f1.series.closed-forms",
    source=f"{_KE}; Muirhead (1982), Thm. 7.4.1",
    statement=("The zonal series reproduces the closed forms (k = 1: cosh σ; k = 2: ½[I₀(σ₁+σ₂)+I₀(σ₁−σ₂)]; "
               "rank one: Γ(k/2)(s/2)^{1−k/2} I_{k/2−1}(s)) within its error bound plus float64 rounding, for σ "
               "log-uniform from 1e-3 up to 15 per entry (k ≤ 2) or 25 (rank one in k = 3, 5, 12), capped at the "
               "largest Σσ the series evaluates (k = 5: 23.2, k = 12: 16.3)."),
    check=_check_series_closed_forms,
))


def _check_reference_closed_forms(rng):
    rows = []
    tol = 10.0 ** (-(DPS - 2))
    for k, sig in _closed_form_cases(rng, reference_sum_limit):
        for row in sig:
            with mpmath.workdps(DPS + 10):
                ref = hyp0f1_reference(row, k, dps=DPS)
                exact = closed_form_mp(row, k)
                dev = float(abs(ref / exact - 1))
            rows.append((f"k={k}, sigma={np.round(row, 4).tolist()}: |reference/closed form − 1|", dev, 0.0, tol))
    return evidence_from_rows(rows, f"reference (dps={DPS}) vs mpmath closed forms at dps={DPS + 10}; tolerance "
                                    "10^-(dps-2) (truncation ≤ 10^-(dps+2) plus the guarded recursion's rounding)",
                              {"dps": DPS})


register(Claim(
    id="hyp0f1.series.reference-closed-forms",
    source="Muirhead (1982), Thm. 7.4.1 and §7.5 (PDE system of ₀F₁)",
    statement=("The mpmath reference (PDE-recursion for the monomial coefficients) matches the closed forms "
               "for k = 1, 2 and rank one to dps − 2 digits, for σ log-uniform from 1e-3 up to 15 per entry (k ≤ 2) "
               "or 25 (rank one), capped where the reference needs more than 6000 partitions (k = 3: Σσ ≤ 27.7, "
               "k = 5: 10.6, k = 12: 6.5)."),
    check=_check_reference_closed_forms,
))


def _check_reference_o3(rng):
    rows = []
    for sig in ([0.5, 0.3, 0.1], [2.0, 1.0, 0.5], [3.0, 2.5, 1.0], [4.0, 0.2, 3.0]):
        # exponentially convergent Euler grids: the error of the finer is ≪ |fine − coarse| (in logs);
        # float64: ~1e5 positive terms and exp of arguments ≤ Σσ: 64u
        fine, grid_err = o3_log_integral(lambda T, s=np.asarray(sig): np.einsum("nii,i->n", T, s))
        with mpmath.workdps(DPS + 10):
            ref = float(mpmath.log(hyp0f1_reference(sig, 3, dps=DPS)))
        rows.append((f"sigma={sig}", ref, fine, grid_err + 64 * U))
    return evidence_from_rows(rows, f"log reference vs log quadrature: Euler-angle grids on SO(3) plus the −I coset "
                                    f"(sizes {O3_GRIDS}), error estimate |fine − coarse|", {"grids": list(O3_GRIDS)})


register(Claim(
    id="hyp0f1.series.reference-o3-quadrature",
    source="Muirhead (1982), Thm. 7.4.1 (₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(ATᵀ) dT)",
    statement=("For k = 3 and full-rank σ, the mpmath reference equals the Haar integral over O(3) computed by "
               "direct quadrature (axis–angle chart of SO(3) and its −I coset), within the quadrature's error "
               "estimate."),
    check=_check_reference_o3,
))


def _equal_log(s: float, k: int) -> mpmath.mpf:
    """log ₀F₁(k/2; s²I_k/4) by Bessel determinants (no zonal series), to about DPS digits."""
    with mpmath.workdps(equal_spectrum_dps(s, k, DPS)):
        return mpmath.log(equal_spectrum_mp(s, k))


def _check_truncation_bound(rng):
    """At fixed low degrees the truncation error is large; it must stay below the reported bound.

    Random spread rows at k = 2, 3, 5 (the reference series), and k equal σ at k = 8 and 20 (Bessel
    determinants), where the moment bound c^{M+1}/(M+1)! is the active one and, for M < k, within
    a few per cent of the actual tail: a bound too small by 10 % fails there.
    """
    rows = []
    cases = [(sig, k, degree, lambda sig=sig, k=k: _ref_log(sig, k))
             for k, scale in ((2, 3.0), (3, 2.0), (5, 1.0)) for degree in (1, 2, 4, 7, 11, 16)
             for sig in [scale * rng.uniform(0.2, 1.0, k)]]
    cases += [(np.full(k, s), k, degree, lambda s=s, k=k: _equal_log(s, k))
              for k in (8, 20) for s in (1.0, 2.5) for degree in (1, 3, 6)]
    for sig, k, degree, reference in cases:
        val, bound = series.log_hyp0f1_series_truncated(sig, k, degree)
        val, bound = float(val), float(bound)
        if not np.isfinite(bound):
            continue
        rows.append((f"k={k}, degree={degree}, sigma={np.round(sig, 3).tolist()}",
                     _rel_err(val, reference()), 0.0, bound + float(_log_rounding(val))))
    return all_of([evidence_from_rows(rows, "actual error vs the bound (smallest of s^(2M+2)/(2M+2)!, the "
                                            "sub-Gaussian and the moment bound, over 1 − ratio) relative to the "
                                            "partial sum, plus rounding"),
                   bound_from_rows([("(k, degree, σ) cases with finite bound", len(rows), 24, 0)],
                                   "at least 24 cases", side="lower")],
                  "truncated series", {"degrees": [1, 2, 4, 7, 11, 16], "equal_degrees": [1, 3, 6]})


register(Claim(
    id="hyp0f1.series.truncation-bound",
    source=("symcheck derivation: degree-m part = ∫(tr ATᵀ)^{2m}/(2m)! dT ≤ (Σσ)^{2m}/(2m)! (Muirhead 1982, "
            "Thm. 7.4.1), and ≤ (σ_max²/2)^m/m! (Knop & Sahi 1997; first fundamental theorem for O(k), Weyl 1939)"),
    statement=("The reported relative error bound of the truncated series (the tail bounds of the module "
               "docstring relative to the partial sum, plus float64 rounding) is never below the actual error "
               "against the mpmath reference or, for equal σ, the Bessel determinants."),
    check=_check_truncation_bound,
))


def _trace_moments(k: int, m_max: int) -> list:
    """(E(tr T)^{2m}, error estimate) for T Haar on O(k), m = 1..m_max: (2m)! times the Taylor coefficients at 0 of
    E e^{s tr T} = ₀F₁(k/2; s²I_k/4) (Bessel determinants; even in s), at 80 digits, the error estimated as the
    difference from a 60-digit run."""
    runs = []
    for dps in (60, 80):
        with mpmath.workdps(dps):
            c = mpmath.taylor(lambda s: equal_spectrum_mp(abs(s), k), 0, 2 * m_max)
            runs.append([c[2 * m] * mpmath.factorial(2 * m) for m in range(1, m_max + 1)])
    return [(float(fine), float(abs(fine - coarse))) for coarse, fine in zip(*runs)]


def _check_trace_moments(rng):
    """The lemma behind the series' moment bound, on its own: E(tr T)^{2m} = (2m − 1)!! for m ≤ k, and strictly
    less (by at least 1: the moments are integers, dimensions of invariant spaces) for m > k."""
    equal, below = [], []
    for k in range(1, 7):
        for m, (mu, err) in enumerate(_trace_moments(k, min(k + 3, 9)), start=1):
            gaussian = float(math.prod(range(2 * m - 1, 0, -2)))
            tol = 10 * err + 2 * U * mu
            (equal if m <= k else below).append((f"k={k}, m={m}", mu, gaussian, tol))
    return all_of([evidence_from_rows(equal, "E(tr T)^{2m} vs (2m−1)!! for m ≤ k (Taylor coefficients of the "
                                             "Bessel determinants)"),
                   bound_from_rows(below, "E(tr T)^{2m} < (2m−1)!! for m > k", side="upper", strict=True)],
                  "moments of the trace of a Haar orthogonal matrix", {"k": list(range(1, 7))})


register(Claim(
    id="hyp0f1.series.trace-moments",
    source=("symcheck derivation: E(tr T)^{2m} = E tr(T^{⊗2m}) is the dimension of the O(k)-invariants of "
            "(ℝᵏ)^{⊗2m}, spanned by the (2m−1)!! pairings (Weyl 1939, first fundamental theorem), independent "
            "iff m ≤ k (Brauer 1937)"),
    statement=("For T Haar on O(k), E(tr T)^{2m} equals the N(0, 1) moment (2m − 1)!! for m ≤ k and is smaller for "
               "m > k; with the non-negative coefficients of the zonal polynomials this gives the series' tail "
               "bound (σ_max²/2)^m/m! per degree."),
    check=_check_trace_moments,
))


def grad_tolerance(sig, k, grad, value, degree):
    """Bound on |∂ log F/∂σ − series gradient| for one row (used by checks and tests).

    Truncation: (|∂R/∂σᵢ| + tail·|gᵢ|)/F̂ (see :func:`symcheck.hyp0f1.series.log_grad_tail_bound`);
    rounding: 3γ_K|gᵢ| (forward, adjoint and gradient sums of positive terms) plus 8u|gᵢ|.
    """
    s = float(np.sum(sig))
    fhat = math.exp(value)
    v = float(series.variance_proxy(np.asarray(sig, dtype=float), k))
    c = float(series.gaussian_proxy(np.asarray(sig, dtype=float)))
    tail = math.exp(float(series.log_tail_bound(s, degree, v, c)))
    dtail = math.exp(float(series.log_grad_tail_bound(s, degree, v, c, k)))
    gamma = series.rounding_bound(k, degree, n_vars=max(int(np.count_nonzero(np.asarray(sig) > 0)), 1))
    return (dtail + tail * np.abs(grad)) / fhat + (3 * gamma + 8 * U) * np.abs(grad)


def _check_gradient(rng):
    rows = []
    cases = [(1, np.exp(rng.uniform(-5, 2.5, 1))), (2, np.exp(rng.uniform(-5, 2.5, 2))),
             (2, np.array([3.0, 3.0])), (4, np.array([6.0, 0.0, 0.0, 0.0])), (7, np.array([0.0, 2.5] + [0.0] * 5))]
    for k, sig in cases:
        g = series.grad_log_hyp0f1_series(sig, k)
        val, _ = series.log_hyp0f1_series(sig, k)
        degree = int(series.series_degree_needed(sig[None], k, 1e-14)[0])
        exact = closed_form.grad_log_hyp0f1_exact(sig, k)
        tol = grad_tolerance(sig, k, g, float(val), degree) + 8 * U * (1 + np.abs(exact))
        rows += [(f"k={k}, sigma={np.round(sig, 4).tolist()}, ∂/∂σ_{i}", float(g[i]), float(exact[i]), float(tol[i]))
                 for i in range(k)]
    return evidence_from_rows(rows, "series gradient vs closed-form gradients (tanh, Bessel I₁/I₀, I_(k/2)/I_(k/2−1)); "
                                    "tolerance from the derivative tail bound and rounding", {"rtol": 1e-14})


register(Claim(
    id="hyp0f1.series.gradient-closed-forms",
    source=f"{_KE}; Watson (1944) for d/ds I_ν",
    statement=("The exact derivative of the truncated series (reverse mode through the branching levels) matches "
               "the gradients of the closed forms (k = 1, 2, rank one) within the derivative-tail and rounding bound."),
    check=_check_gradient,
))
