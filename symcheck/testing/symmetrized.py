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
- `group="permutation"`: all n! permutations τ of n hidden units, q̃(z) = (1/n!) Σ_τ q*(τ·z),
  q* = N(μ, diag(v)) on the flat parameters z ∈ R^D of a one-hidden-layer MLP (d₀, n, d₂) in
  `symcheck.mlp.unpack_mlp` order; unit j's incoming weights W₁[j, :], bias b₁[j] and outgoing
  weights W₂[:, j] move together (Gelberg Def. 2.1). The subject receives the
  group as `blocks`, an integer array (n, p): row j lists the coordinates of unit j,
  (τ·z)[blocks[i]] = z[blocks[τ(i)]], coordinates in no row (the output biases) stay. log q̃: the
  n! terms written out coordinate by coordinate in mpmath at 30 digits (n ≤ 4, D ≤ 30). KL (no
  closed form): a Monte Carlo mean of r(z) = log q*(z) − log q̃(z) over `n_reference` draws
  z ~ q*, log q̃ by a max-shifted float64 log-sum-exp over the n! terms with a derived rounding
  bound ε_ref (Higham's γₙ; ~1e-11, `_permutation_r`), with the control variates
  Δ_τ − E Δ_τ, Δ_τ = log q*(τ·z) − log q*(z) (E Δ_τ in closed form), fitted on a separate pilot
  sample so the estimate stays unbiased: SE_ref 1.3–2.7 times below the plain mean's (seeds 0, 1;
  the reference's SE measured honest: over 1000 repetitions, at the earlier δ² = 8 and 6 with a
  pilot of n_reference/4, its estimates scattered 0.99–1.03 times the mean reported SE_ref). Limits the
  tests check, not references: q* fixed by every τ (all units equal in mean *and* variance; a fixed
  μ alone does not do it) gives KL = 0, orbits far apart give log n!. Families: n = 2, 3, 4
  (D = 9, 20, 30), overlapping units (unequal variances), separated, partly coincident (units
  0 = 1, and 2 = 3 for n = 4), and "narrow" (variances ~1e-36, log q* ≈ +800: a log-sum-exp
  without the max shift overflows there, as it does at moderate variances once D is in the
  thousands). The closest distinct pair of units is δ² = Σ_c (μ_ic − μ_jc)²/v_c ≤ 4 apart; a
  swap then has Δ ~ N(−δ², 2δ²), the sign flip's t at s = δ²/2 ≤ 2. Measured with a plain
  estimator (`tests/test_testing_symmetrized.py::perm_mc`) over seeds 0–399 of the check, at 10³
  and 4·10³ draws: no check failed (0 of 2 × 2800 family judgements; z = (estimate − ref)/
  √(SE² + SE_ref²) had sd 0.95–1.09 per family, |z| > 3 at 0.43% and 0.18% (normal: 0.27%), largest
  |z| 3.94). At δ² = 8 (s = 4) the same estimator's z was skewed (0.35) with |z| > 3 at 0.8% over
  1000 repetitions and |z| = 4.54 once in 2800 judgements, so the families stop at δ² = 4. An SE
  understated ×3 judges each family at 1.5 of the estimate's own SE: measured over the same 400
  seeds it is caught by 55% of the checks (10³ draws; 38% at 4·10³, where SE_ref weighs more), so
  catching it takes several seeds.

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

import functools
import itertools
import math
import warnings
from dataclasses import dataclass

import mpmath
import numpy as np

from symcheck._checks import check_callable, check_choice, check_int
from symcheck._mc import mean_se
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

GROUPS = ("signflip", "orthogonal", "permutation")
#: What a subject may compute, per group.
QUANTITIES = {"signflip": ("kl", "log_qtilde"), "orthogonal": ("kl", "log_qtilde", "r"),
              "permutation": ("kl", "log_qtilde")}
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
#: ((d₀, n, d₂), kind, δ²) of the permutation families: one-hidden-layer MLPs with n hidden units,
#: the closest distinct pair of units δ² apart (module notes); "narrow" has variances ~1e-36, so
#: log q* ≈ +800 and exp(log q*) overflows float64.
PERMUTATION_FAMILIES = (((2, 2, 1), "overlapping", 0.5), ((2, 2, 1), "separated", 4.0),
                        ((3, 3, 2), "overlapping", 1.0), ((3, 3, 2), "partly coincident", 4.0),
                        ((3, 3, 2), "narrow", 1.0), ((4, 4, 2), "overlapping", 1.0),
                        ((4, 4, 2), "partly coincident", 4.0))


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


# ----- hidden-unit permutations (Gelberg Def. 2.1) --------------------------------------------------

def _mlp_blocks(d0: int, n: int, d2: int) -> np.ndarray:
    """The unit blocks of a one-hidden-layer MLP (d0, n, d2) in `symcheck.mlp.unpack_mlp` order
    (W₁ row-major, W₂ row-major, b₁, b₂): row j lists unit j's W₁[j, :], b₁[j], W₂[:, j]."""
    j = np.arange(n)[:, None]
    w1 = j * d0 + np.arange(d0)
    w2 = n * d0 + np.arange(d2) * n + j
    return np.concatenate([w1, n * d0 + n * d2 + j, w2], axis=1)


def _unit_permutations(n: int) -> np.ndarray:
    """All n! permutations τ of the units as rows (n!, n), the identity first."""
    return np.array(list(itertools.permutations(range(n))), dtype=np.intp)


def _permutation_base(layout, kind: str, target: float, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, var, blocks) of one family: unit means spread so that the closest distinct pair of units
    is δ² = Σ_c (μ_ic − μ_jc)²/w_c = `target` apart (w the shared per-unit variance pattern)."""
    d0, n, d2 = layout
    blocks = _mlp_blocks(d0, n, d2)
    p = blocks.shape[1]
    w = rng.uniform(0.3, 1.5, p)
    unit_var = np.tile(w, (n, 1))
    offsets = rng.standard_normal((n, p)) * np.sqrt(w)
    if kind == "overlapping":  # unit variances differ as well
        unit_var = unit_var * rng.uniform(0.7, 1.4, (n, p))
    elif kind == "partly coincident":  # units 0 = 1 (and 2 = 3): q* is fixed by those swaps
        offsets[1] = offsets[0]
        if n >= 4:
            offsets[3] = offsets[2]
    dist = [float(np.sum((offsets[i] - offsets[j]) ** 2 / w)) for i in range(n) for j in range(i + 1, n)]
    offsets *= math.sqrt(target / min(x for x in dist if x > 0))
    mean, var = np.empty(n * p + d2), np.empty(n * p + d2)
    mean[blocks], var[blocks] = rng.standard_normal(p) * np.sqrt(w) + offsets, unit_var
    fixed = np.setdiff1d(np.arange(mean.size), blocks)
    mean[fixed], var[fixed] = rng.standard_normal(d2), rng.uniform(0.3, 1.5, d2)
    if kind == "narrow":  # log q* ≈ +800: exp(log q*) overflows float64
        mean, var = mean * 1e-18, var * 1e-36
    return mean, var, blocks


def _permutation_logq_mp(z, mean, var, blocks) -> list:
    """log (1/n!) Σ_τ N(τ·z; μ, diag v) per row of z, the sum over all n! unit permutations written out
    coordinate by coordinate, in mpmath at `DPS` digits."""
    perms = _unit_permutations(blocks.shape[0])
    sources = np.tile(np.arange(mean.size), (len(perms), 1))
    for g, tau in enumerate(perms):
        sources[g, blocks] = blocks[tau]  # (τ·z)[blocks[i]] = z[blocks[τ(i)]]
    with mpmath.workdps(DPS):
        mu, v = [mpmath.mpf(float(m)) for m in mean], [mpmath.mpf(float(x)) for x in var]
        const = -mpmath.fsum(mpmath.log(2 * mpmath.pi * x) for x in v) / 2 - mpmath.log(len(perms))
        out = []
        for row in z:
            x = [mpmath.mpf(float(a)) for a in row]
            terms = [mpmath.exp(-mpmath.fsum((x[s] - m) ** 2 / w for s, m, w in zip(src, mu, v)) / 2)
                     for src in sources]
            out.append(const + mpmath.log(mpmath.fsum(terms)))
        return out


def _unit_log_terms(z, mean, var, blocks):
    """log q*(τ·z) for every τ (columns, the identity first) and a bound on their float64 rounding.

    A[i, j] = Σ_c log N(z[blocks[j, c]]; μ[blocks[i, c]], v[blocks[i, c]]) (unit j's parameters under
    unit i's factor) and log q*(τ·z) = F + Σ_i A[i, τ(i)], F the fixed coordinates' part. Each of the D
    terms ½((x − μ)²/v + log 2πv) is off by ≤ γ₆(q + |log 2πv| + 1) (q the quadratic part: difference,
    square, division; the log of a rounded 2πv and its own ≤ 1 ulp); their sum in any order adds
    γ_{D−1}·Σ|terms| (Higham 2002, Lemma 3.1): ≤ γ_{D+6}·½Σ(q + |log 2πv| + 1) per τ, maximised over τ.
    """
    perms = _unit_permutations(blocks.shape[0])
    fixed = np.setdiff1d(np.arange(mean.size), blocks)
    mu, v, zu = mean[blocks], var[blocks], z[:, blocks]
    logv = np.log(2 * math.pi * v)
    A = -0.5 * np.sum((zu[:, None, :, :] - mu[None, :, None, :]) ** 2 / v[None, :, None, :] + logv[None, :, None, :],
                      axis=-1)  # (N, i, j)
    qf, lf = (z[:, fixed] - mean[fixed]) ** 2 / var[fixed], np.log(2 * math.pi * var[fixed])
    F, F_abs = -0.5 * np.sum(qf + lf, axis=-1), 0.5 * np.sum(qf + np.abs(lf) + 1.0, axis=-1)
    L = F[:, None] + np.sum(A[:, np.arange(blocks.shape[0]), perms], axis=-1)
    # ½Σ_c(q + |log 2πv| + 1) over the unit blocks of τ·z is −(L_τ − F) + ½Σ_c(|log 2πv| − log 2πv + 1),
    # largest at the smallest L_τ
    size = F_abs - np.min(L, axis=1) + F + 0.5 * float(np.sum(np.abs(logv) - logv + 1.0))
    return L, 2 * gamma(mean.size + 6) * size  # factor 2: the float64 evaluation of `size` itself


def _permutation_r(z, mean, var, blocks):
    """r(z) = log q*(z) − log q̃(z) per draw by a max-shifted float64 log-sum-exp over all n! = K
    elements, and a bound on its rounding.

    With every log q*(τ·z) off by ≤ e (`_unit_log_terms`), the exact log-sum-exp moves by ≤ e
    (1-Lipschitz in the max norm). Shifted by the largest term m, each exp(d), d ≤ 0, is off by
    ≤ (|d| + 2)u·exp(d) and Σ|d|exp(d) ≤ K/e, so S = Σ exp(d) ≥ 1 is off by a relative
    ρ ≤ γ_{2K+3}; log S by ρ/(1 − ρ) + 2u·log K; the final additions by u per magnitude. Total per draw:
    2e + γ_{2K+8}·(1 + log K + |lse| + |log q*(z)| + |r|).
    """
    L, e = _unit_log_terms(z, mean, var, blocks)
    K = L.shape[1]
    m = np.max(L, axis=1)
    lse = m + np.log(np.sum(np.exp(L - m[:, None]), axis=1))
    r = L[:, 0] - lse + math.log(K)
    return r, L, 2 * e + gamma(2 * K + 8) * (1 + math.log(K) + np.abs(lse) + np.abs(L[:, 0]) + np.abs(r))


def _expected_log_terms(mean, var, blocks):
    """E_{z~q*} log q*(τ·z) for every τ (closed form: unit j's parameters are N(μ_j, v_j), so
    E A[i, j] = −½Σ_c ((v_jc + (μ_jc − μ_ic)²)/v_ic + log 2πv_ic)), and a bound on its rounding
    (as in `_unit_log_terms`)."""
    perms = _unit_permutations(blocks.shape[0])
    fixed = np.setdiff1d(np.arange(mean.size), blocks)
    mu, v = mean[blocks], var[blocks]
    quad = (v[None, :, :] + (mu[None, :, :] - mu[:, None, :]) ** 2) / v[:, None, :]  # (i, j, c)
    logv = np.log(2 * math.pi * v)[:, None, :]
    A, A_abs = -0.5 * np.sum(quad + logv, axis=-1), 0.5 * np.sum(quad + np.abs(logv) + 1.0, axis=-1)
    lf = np.log(2 * math.pi * var[fixed])
    rows = np.arange(blocks.shape[0])
    EL = -0.5 * np.sum(1.0 + lf) + np.sum(A[rows, perms], axis=-1)
    size = 0.5 * np.sum(2.0 + np.abs(lf)) + np.sum(A_abs[rows, perms], axis=-1)
    return EL, 2 * gamma(mean.size + 8) * size


def _permutation_kl_reference(mean, var, blocks, rng, n_reference: int) -> tuple[float, float, float]:
    """KL[q*‖q̃] by Monte Carlo over `n_reference` draws z ~ q* of r(z) (`_permutation_r`), with the
    control variates c_τ = Δ_τ − E Δ_τ, Δ_τ = log q*(τ·z) − log q*(z) (E Δ_τ in closed form,
    `_expected_log_terms`), their coefficients fitted on a separate pilot sample (so the estimate is
    unbiased and its SE honest). Returns (estimate, rounding bound, SE)."""
    EL, EL_err = _expected_log_terms(mean, var, blocks)

    def sample(n):
        z = mean + np.sqrt(var) * rng.standard_normal((n, mean.size))
        r, L, err = _permutation_r(z, mean, var, blocks)
        return r, L, (L[:, 1:] - L[:, :1]) - (EL[1:] - EL[0]), err

    r0, _, c0, _ = sample(max(n_reference // 10, 100))
    beta = np.linalg.lstsq(c0 - c0.mean(axis=0), r0 - r0.mean(), rcond=None)[0]
    r, L, c, err = sample(n_reference)
    adjusted = r - c @ beta
    estimate, se = mean_se(adjusted)
    K = L.shape[1]
    # each c_τ: its two log terms (≤ e each, 2e ≤ err), two subtractions, and E Δ_τ's rounding
    c_err = err[:, None] + gamma(3) * (np.abs(L[:, 1:]) + np.abs(L[:, :1]) + np.abs(c)) + EL_err[1:] + EL_err[0]
    per_draw = err + c_err @ np.abs(beta) + gamma(K) * (np.abs(c) @ np.abs(beta) + np.abs(adjusted))
    return float(estimate), float(np.mean(per_draw) + gamma(n_reference) * np.mean(np.abs(adjusted))), float(se)


@functools.lru_cache(maxsize=8)
def _permutation_cases(quantity: str, seed: int, n_reference: int) -> tuple[_Case, ...]:
    """The families' inputs and references; the bases come from their own stream of `seed`, so they are
    the same for every quantity and `n_reference`. Cached: checking several subjects at one seed computes
    the Monte Carlo references once (the subject gets copies of the inputs, `call_subject`)."""
    rng, draws = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    cases = []
    for (d0, n, d2), kind, target in PERMUTATION_FAMILIES:
        mean, var, blocks = _permutation_base((d0, n, d2), kind, target, rng)
        family = f"n={n} (MLP {d0}-{n}-{d2}, D={mean.size}), {kind}, δ²={target:g}"
        if quantity == "kl":
            ref, err, se = _permutation_kl_reference(mean, var, blocks, draws, n_reference)
            cases.append(_Case(family, (mean, var, blocks), np.array(ref), np.array(err), se))
            continue
        z = mean + np.sqrt(var) * draws.standard_normal((POINTS, mean.size))
        for row, tau in zip(z, _unit_permutations(n)[draws.integers(0, math.factorial(n), POINTS)]):
            row[blocks] = row[blocks[tau]].copy()  # a point of q̃: a draw of q* with its units permuted
        ref = _permutation_logq_mp(z, mean, var, blocks)
        cases.append(_Case(family, (z, mean, var, blocks), np.array(ref, dtype=object),
                           np.array([1e-25 * (1 + abs(float(r))) for r in ref])))
    return tuple(cases)


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
            raise ValueError(f"max_k applies to group='orthogonal' only (the {group} inputs have no k)")
        check_int(max_k, "max_k", minimum=1)


_CALLS = {("signflip", "kl"): "fn(mean, var)", ("signflip", "log_qtilde"): "fn(z, mean, var)",
          ("orthogonal", "kl"): "fn(M, c)", ("orthogonal", "log_qtilde"): "fn(X, M, c)",
          ("orthogonal", "r"): "fn(X, M, c)", ("permutation", "kl"): "fn(mean, var, blocks)",
          ("permutation", "log_qtilde"): "fn(z, mean, var, blocks)"}
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
        `group="permutation"` (q* = N(mean, diag(var)) on R^D, q̃ its average over all n! unit
        permutations, module notes): `quantity="kl"`: `fn(mean, var, blocks)` → KL (or (estimate,
        standard error)); `"log_qtilde"`: `fn(z, mean, var, blocks)`, z of shape (n_points, D) → (n_points,).
        `blocks` is an integer array (n, p): row j lists the coordinates of unit j, which the group
        permutes as wholes; coordinates in no row stay.
    group : {"signflip", "orthogonal", "permutation"}
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
        Draws of the Monte Carlo reference of the O(k) KL for k ≥ 2 and of the permutation KL (its
        SE falls as 1/√n_reference).
    subject : str, optional
        Name shown in the table (default: module:qualname of `fn`).

    Returns
    -------
    CheckResult
        Kind "symmetrized_kl", "symmetrized_log_qtilde" or "moore_r"; one row per family (the
        separation s = μᵀΣ⁻¹μ of the sign flip; k, ‖M‖₂ and c of O(k); n, the MLP, the kind and δ²
        of the permutations).

    Raises
    ------
    ValueError
        A bad argument (named), or an option that does not apply to the group or quantity.
    """
    _validate(fn, group, quantity, estimator, rtol, atol, seed, max_k, n_reference)
    if group == "signflip":
        cases = _signflip_cases(quantity, seed)
    elif group == "permutation":
        cases = _permutation_cases(quantity, seed, n_reference)
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
    elif group == "permutation":
        source = "all n! hidden-unit permutations (blocks), references summing over the n! elements: " + (
            f"KL by Monte Carlo over {n_reference} draws z ~ q* with control variates, log q̃ by a max-shifted "
            "float64 log-sum-exp with a derived rounding bound" if quantity == "kl" else f"log q̃ by mpmath at {DPS} digits")
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
            elif name == "blocks":
                lines.append(f"blocks = np.array({arg.tolist()})  # row j: the coordinates of unit j")
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
