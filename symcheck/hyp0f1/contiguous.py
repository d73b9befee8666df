"""F at k from the function at k + 2 (k = m and m + 1, and a second route at k ≥ m + 2): the Sekiguchi–Debiard
operator, F_k ∝ det(B + diag(σᵢ∂ᵢ)) g.

Write F_k(σ) = ₀F₁(k/2; diag(σ)²/4) (m non-zero σ) and g(σ) = F_{k+2}(σ, 0, 0) = ₀F₁(k/2 + 1; diag(σ)²/4),
the same hypergeometric function with the parameter raised by one. Why: at k = m, Muirhead's system for F_k has a
second solution analytic at σ = 0, G = ∫_{O(k)} det(T) etr(ATᵀ) dT = (∏σᵢ/k!)·g (substitute F = ∏σᵢ·g into the
system: the b-system becomes the (b + 1)-system exactly when 2b = m; the constant is E[det T ∏Tᵢᵢ] = 1/k!). It is
∝ ∏σᵢ near 0 and grows to F's size, so errors the holonomic ray makes early are amplified by up to k!/∏(s₀σᵢ)
(:mod:`holonomic`: k = m = 10, spread σ_max = 30, its figure 5.7e-6). The (b + 1)-system has m < k + 2: no such
solution (its second exponent at σᵢ = 0 is −1), so g's ray is stable, and F_k follows from g without integrating
the unstable system.

The relation. With x = σ²/4 the zonal polynomials C_κ are Jack polynomials (α = 2), eigenfunctions of the
Sekiguchi–Debiard operator (Macdonald 1995, VI §3 ex. 3, VI (4.14); Sekiguchi 1977)

    D(u) = a_δ(x)⁻¹ Σ_{w∈S_m} ε(w) x^{wδ} ∏ᵢ (u + (wδ)ᵢ + 2xᵢ∂_{xᵢ}),   D(u) C_κ = ∏ᵢ (u + m − i + 2κᵢ) C_κ.   (1)

Since (b + 1)_κ/(b)_κ = ∏ᵢ (b − (i−1)/2 + κᵢ)/(b − (i−1)/2), u = 2b + 1 − m turns D(u) into that ratio times
2^m ∏ᵢ(b − (i−1)/2), so F_k = D(u) g / (2^m ∏ᵢ(b − (i−1)/2)); u = k + 1 − m and the constant is k!/(k − m)!
(k = m: u = 1, k!; k = m + 1: u = 2, k!). With
2xᵢ∂_{xᵢ} = σᵢ∂_{σᵢ} (commuting, one per variable) the determinant expands over subsets S (the operator taken in
the rows S):

    F_k(σ) = ((k − m)!/k!) Σ_S c_S(x) σ^S ∂_S g(σ),   c_S = det B[Sᶜ, Sᶜ],   B = V W V⁻¹ = u I + X D,     (2)

V = (xᵢ^{m−j}), W = diag(u + m − j): B acts on a polynomial of degree < m given by its values at the xᵢ as
u + x d/dx, i.e. Bᵢⱼ = xᵢ (wⱼ/wᵢ)/(xᵢ − xⱼ) (i ≠ j), Bᵢᵢ = u + xᵢ Σ_{l≠i} 1/(xᵢ − x_l), w the barycentric weights
(D the Lagrange differentiation matrix at the nodes x). The square-free derivatives ∂_S g are exactly the state
of g's holonomic ray (:mod:`holonomic`, G_S), so one ray of the stable system at k + 2 gives F_k. Check: m = 1,
F₁ = g + σg' = (σ·sinh σ/σ)' = cosh σ.

k = m + 1. There the second exponent at σᵢ = 0 is 0 (a logarithmic solution): the direct ray neither damps nor
grows its early errors against F and amplifies rounding much as at k = m (:func:`holonomic._rounding_probed`:
k = 9, m = 8, σ = 10·0.9499^i, a probe figure ~2e-7), while (2) with u = 2 on g's ray at k + 2 agrees with the
direct ray from ŝ = 24 (figure 5.4e-12) to 1.5e-11 (measured 2026-11-28).

k ≥ m + 2. Nothing in (1)–(2) needs k ≤ m + 1 (u = k + 1 − m, constant k!/(k − m)!), and there the direct ray at k is
stable: the route is then a second computation of the same value by other means (the system at parameter b + 1 and
the operator (2) instead of the system at b), which the report's goal table uses to check the holonomic route's
rank-deficient rows (m = k/2 at k = 12–20) that nothing else reaches. Auto tries it after the direct ray
(:mod:`symcheck.hyp0f1.methods`).

Terms and cancellation. At small σ the S = ∅ term (c_∅ = m!) carries F, at large σ the S = full term
(∏σᵢ ∂_full g/k! ≈ G ≈ F); on spread spectra no term exceeds the sum (k = m = 10, σ_max = 10 and 30: the
largest term is 0.19 and 0.01 of the sum). c_S has poles where xᵢ = xⱼ (i ∈ S, j ∉ S): near ties the terms cancel
(k = 8, σ 1 % apart: 3.5e7 times the sum), so the route takes distinct σ only (:func:`contiguous_reason`). The
c_S are principal minors of B computed with mpmath at DPS digits (float64 minors were 8e-14 off at m = 10 where
cond B = 2e14), of the diagonally similar matrix without the barycentric weights (:func:`sekiguchi_coefficients`), all
2^m of them by the Griffin–Tsatsomeros recursion (0.04 s at m = 10 against 1 s for 2^m determinants), and again at
DPS + EXTRA_DPS digits to measure their error (:func:`_coefficients_cached`).

Error figure (an estimate): g's ray is run at ``rtol``, at COARSE·rtol and PROBES times with its rounding
imitated (:func:`holonomic._ray`, ``noise``), and (2) is evaluated on each; with V, V_c, V_p the resulting log F_k,

    SAFETY·R + SAFETY_NOISE·(u/NOISE)·max|V − V_p| + (INIT_TOL + 2^m·u)·A + Σ_S |δc_S σ^S ∂_S g|/|sum| + ROUNDING·(1 + |V|),

A = Σ|terms|/|sum| (the amplification of (2)), δc_S the coefficients' figure (:func:`_coefficients_cached`: two
precisions). R = |V − V_c|/(COARSE − 1) + steps·u·(1 + |V|) where holonomic's tight estimate holds for g's ray
(:func:`holonomic._tight_regime` at k + 2, its coarse run coarser: the coarse run sees the ray's truncation through
(2)); elsewhere
holonomic's general one, R = e·(1 + A) + |V − V_c| with e the ray's own estimate (at loose rtol a short ray's
steps are set by the step growth limit, and both runs can agree to the last bit while 2.9e-9 off). The probes see
its rounding. Measured on references this module does not use (tests/test_hyp0f1_contiguous.py).

Regime: any k ≥ m, m ≤ MAX_M (g's ray is one Lawson ray: :func:`holonomic._lawson_suits` at k + 2),
pairwise relative gaps ≥ GAP, the smallest non-zero σ ≥ MIN_RATIO·σ_max, Σσ ≤ holonomic.MAX_SIGMA_SUM, and the ray's step budget. No gradient (it needs
∂ᵢ∂_S g with i ∈ S, not in the state).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np

from symcheck.evidence import ROUNDING
from symcheck.hyp0f1 import holonomic

__all__ = ["COARSE", "GAP", "MAX_M", "RUNS", "SAFETY", "WORK", "contiguous_reason", "log_hyp0f1_contiguous",
           "sekiguchi_coefficients"]

EPS = float(np.finfo(float).eps)
#: Largest m = k: g's ray at k + 2 is one Lawson ray up to holonomic.LAWSON_MAX_M (the HO scheme at m = 12 ran
#: > 15 min on k = 12 spread σ_max = 10).
MAX_M = holonomic.LAWSON_MAX_M
#: Least relative gap (σᵢ − σᵢ₊₁)/σᵢ: the coefficients' poles at ties (module docstring).
GAP = 0.05
#: Least ratio of the smallest non-zero σ to the largest: below, g's ray stalls (its couplings' differences σᵢ² − σⱼ²
#: round away against σ_max²): at k + 2 = 11, σ = (100, 1e-6, 2e-7) and (250, 1.2e-6, 1.9e-7) ran out of 100 000 steps
#: where (30, 1e-6, 2e-7) and (250, 1e-2, 2e-3) took 250 and 1758 (measured 2026-11-29).
MIN_RATIO = 1e-6
#: Coarse run at COARSE × rtol; safety factor of the figure (module docstring).
COARSE = 16.0
SAFETY = 10.0
#: Digits of the principal minors c_S.
DPS = 40
#: Digits added for the coefficients' second evaluation, the largest difference of the two (relative to the largest
#: |c_S|) accepted before both precisions double, and the most digits tried (:func:`_coefficients_cached`).
EXTRA_DPS = 20
COEF_RTOL = 1e-20
MAX_DPS = 320
#: Largest amplification A of the sum (2) the route accepts.
MAX_AMPLIFICATION = 1e4
#: g's runs (fine, coarse and holonomic.PROBES probes), and the work units they get together by default (auto's):
#: each as much as one rank-deficient Lawson ray of auto's. The goal table's rows k = 20 rank-deficient at σ_max 100
#: and 300 and k = 10 spread at σ_max 300 need more than one such budget for the four runs (until 2026-11-29 each run
#: was allowed the whole budget: the steps already used were read from the wrong entry of a run's result).
RUNS = 2 + holonomic.PROBES
WORK = RUNS * holonomic.AUTO_LAWSON_RANK_DEFICIENT_STEP_WORK


def sekiguchi_coefficients(sig: np.ndarray, u: int = 1, dps: int = DPS) -> np.ndarray:
    """c_S = det B[Sᶜ, Sᶜ] for every subset S (bit i of S for sig[i]) of eq. (2), as floats, computed at ``dps``
    digits.

    Principal minors do not change under a diagonal similarity, so they are taken of
    diag(w) B diag(w)⁻¹: off the diagonal xᵢ/(xᵢ − xⱼ), without the barycentric weights, whose ratios span
    hundreds of orders where σ spans a few (σ = (5.5, 1.6e-5, 7e-7, 4e-7, 1.6e-7, 3.9e-8): entries ~1e60 and
    det B = 6! came out 0 at 40 digits).

    Parameters
    ----------
    sig : ndarray, shape (m,)
        Pairwise distinct positive σ.
    u : int
        k + 1 − m (1 at k = m, 2 at k = m + 1).
    dps : int
        Working digits.
    """
    m = sig.shape[0]
    with mpmath.workdps(dps):
        x = [mpmath.mpf(float(s)) ** 2 / 4 for s in sig]
        B = [[(x[i] / (x[i] - x[j]) if i != j else
               u + x[i] * mpmath.fsum(1 / (x[i] - x[j]) for j in range(m) if j != i)) for j in range(m)]
             for i in range(m)]
        kept = _principal_minors(B)
        full = (1 << m) - 1
        return np.array([float(kept[full ^ S]) for S in range(1 << m)])


def _principal_minors(A: list) -> list:
    """Every principal minor det A[R, R] (index R: bit i for row i kept), by the recursion of Griffin & Tsatsomeros
    (2006): the minors without index 0 are those of A[1:, 1:], the ones with it a₀₀ times those of the Schur
    complement A/a₀₀ (of A[R, R] with a scalar pivot: the complement restricted to R). O(2^m) work against
    2^m determinants; where a₀₀ = 0 the minors with index 0 are taken as determinants."""
    n = len(A)
    if n == 0:
        return [mpmath.mpf(1)]
    without = _principal_minors([row[1:] for row in A[1:]])
    pivot = A[0][0]
    if pivot != 0:
        with_first = [pivot * v for v in _principal_minors([[A[i][j] - A[i][0] * A[0][j] / pivot for j in range(1, n)]
                                                            for i in range(1, n)])]
    else:
        with_first = [mpmath.det(mpmath.matrix([[A[i][j] for j in rows] for i in rows]))
                      for rows in ([0] + [i + 1 for i in range(n - 1) if (R >> i) & 1] for R in range(1 << (n - 1)))]
    out = [None] * (1 << n)
    for R in range(1 << (n - 1)):
        out[R << 1] = without[R]
        out[(R << 1) | 1] = with_first[R]
    return out


@functools.lru_cache(maxsize=64)
def _coefficients_cached(key: tuple, u: int) -> tuple[np.ndarray, np.ndarray]:
    """(c_S, a figure for each): the minors at DPS and DPS + EXTRA_DPS digits; their difference (an estimate of the
    first's error, far above the second's) is the figure, plus the float64 rounding of c_S. Where the two differ by
    more than COEF_RTOL of the largest |c_S|, both precisions are doubled, up to MAX_DPS."""
    sig = np.array(key)
    dps = DPS
    lo = sekiguchi_coefficients(sig, u, dps)
    while True:
        hi = sekiguchi_coefficients(sig, u, dps + EXTRA_DPS)
        diff = np.abs(hi - lo)
        if np.max(diff) <= COEF_RTOL * np.max(np.abs(hi)) or 2 * dps > MAX_DPS:
            return hi, diff + EPS * np.abs(hi)
        dps *= 2
        lo = sekiguchi_coefficients(sig, u, dps)


def _relation(sig: np.ndarray, k: int, coef: tuple, log_g: float, ratios: np.ndarray) -> tuple[float, float, float]:
    """(log F_k, amplification A, the coefficients' share of the figure) from g's state by eq. (2); ``coef`` as
    :func:`_coefficients_cached` returns it."""
    m = sig.shape[0]
    c, c_err = coef
    bits = (np.arange(1 << m)[:, None] >> np.arange(m)) & 1
    powers = np.prod(np.where(bits == 1, sig[None, :], 1.0), axis=1)
    terms = c * powers * ratios
    total = float(np.sum(terms))
    if not total > 0.0:
        raise RuntimeError(f"the contiguous relation lost all accuracy (sum {total:.3g})")
    return (log_g + math.log(total) - math.log(math.perm(k, m)),  # k!/(k − m)! exactly, then one rounding
            float(np.sum(np.abs(terms))) / total, float(np.sum(c_err * powers * np.abs(ratios))) / total)


def contiguous_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row: '' where the contiguous route applies (module docstring, "Regime"), else why not."""
    out = np.full(flat.shape[0], "", dtype=object)
    for r, row in enumerate(flat):
        sig = holonomic.nonzero_sorted(row)
        if sig.shape[0] == 0:
            out[r] = "the contiguous route needs a non-zero singular value"
        elif sig.shape[0] > MAX_M:
            out[r] = f"the contiguous route takes k ≤ {MAX_M} (g's ray at k + 2 is one Lawson ray)"
        elif sig.sum() > holonomic.MAX_SIGMA_SUM:
            out[r] = (f"the contiguous route takes rows with a sum of singular values up to "
                      f"{holonomic.MAX_SIGMA_SUM:g}; this row sums to {sig.sum():.3g}")
        elif sig[-1] < MIN_RATIO * sig[0]:
            out[r] = (f"the contiguous route needs its smallest non-zero singular value at least {MIN_RATIO:g} times "
                      f"the largest (g's ray stalls below: its couplings lose σᵢ² − σⱼ² to rounding)")
        elif np.any(sig[1:] > (1.0 - GAP) * sig[:-1]):
            out[r] = (f"the contiguous route needs singular values at least {GAP:g} apart (relative): its "
                      f"coefficients have poles at ties")
        elif not holonomic._lawson_suits(sig, k + 2):
            out[r] = "the contiguous route needs g's ray at k + 2 to be one Lawson ray (holonomic._lawson_suits)"
    return out


def _one(sig: np.ndarray, k: int, rtol: float, budget: int) -> tuple[float, float]:
    """(log F_k, its figure) for the m ≤ k non-zero, pairwise distinct σ of a row, sorted decreasingly."""
    m = sig.shape[0]
    coef = _coefficients_cached(tuple(float(s) for s in sig), k + 1 - m)
    start = holonomic._ray_start(sig, k + 2)
    probes = holonomic.PROBES
    rays = holonomic._serial_runs(sig, k + 2, [rtol, COARSE * rtol] + [rtol] * probes,
                                  [0.0, 0.0] + [holonomic.NOISE] * probes, [0, 0] + list(range(probes)), budget, start,
                                  full_state=True)
    runs = [(*_relation(sig, k, coef, lg, ratios), used, ray_err) for lg, ray_err, used, ratios, _ in rays]
    v, amp, coef_share, used, ray_err = runs[0]
    if amp > MAX_AMPLIFICATION:
        return v, np.inf
    fixed = (holonomic.INIT_TOL + (1 << m) * EPS) * amp + coef_share + ROUNDING * (1.0 + abs(v))
    if used == 0:
        return v, fixed
    response = max(abs(v - r[0]) for r in runs[2:])
    noise = (holonomic.SAFETY_NOISE * (EPS / holonomic.NOISE) * response if response <= holonomic.PROBE_LINEAR
             else np.inf)
    if holonomic._tight_regime(sig, k + 2, rtol, used, runs[1][3]):
        raw = abs(v - runs[1][0]) / (COARSE - 1.0) + used * EPS * (1.0 + abs(v))
    else:  # holonomic's general estimate: the fine and coarse runs need not differ (a few steps set by the step
        # size limits, not rtol: k = 3, σ = (6.2, 3.4, 0), rtol 1e-6, both runs alike, 2.9e-9 off; holonomic.TOLERANCE_LIMITED)
        raw = ray_err * (1.0 + amp) + abs(v - runs[1][0])
    return v, SAFETY * raw + noise + fixed


def log_hyp0f1_contiguous(flat: np.ndarray, k: int, rtol: float = 1e-13, max_steps: int | None = None,
                          work: float = WORK
                          ) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(k/2; diag(σ)²/4) by eq. (2) of the module docstring, and its error figure (an estimate).

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Rows of k singular values, the non-zero ones pairwise distinct (relative gap ≥ GAP).
    k : int
        Dimension: m ≤ MAX_M non-zero σ.
    rtol : float
        Tolerance of g's ray (its coarse run at COARSE·rtol).
    max_steps : int, optional
        Steps g's four runs may take together (default from ``work``: :func:`holonomic.default_max_steps`).
    work : float
        Work units of g's four runs of a row when ``max_steps`` is None (by default auto's, :data:`WORK`).

    Returns
    -------
    value, error : ndarray, shape (n,)

    Raises
    ------
    ValueError
        A row outside the regime (:func:`contiguous_reason`).
    holonomic.StepBudgetExceeded
        g's runs need more than ``max_steps`` steps.

    Examples
    --------
    >>> import numpy as np
    >>> from symcheck.hyp0f1 import closed_form
    >>> sig = np.array([[20.0, 12.0, 5.0, 2.0]])
    >>> v, e = log_hyp0f1_contiguous(sig, 4)
    >>> bool(abs(v[0] - closed_form.exact_value(sig, 4)[0][0]) <= e[0])
    True
    """
    flat = np.asarray(flat, dtype=float)
    reasons = contiguous_reason(flat, k)
    value = np.empty(flat.shape[0])
    error = np.empty(flat.shape[0])
    for r, row in enumerate(flat):
        if reasons[r]:
            raise ValueError(f"sigma: {reasons[r]} (row {r})")
        sig = holonomic.nonzero_sorted(row)
        budget = holonomic.default_max_steps(sig.shape[0], work) if max_steps is None else max_steps
        value[r], error[r] = _one(sig, k, rtol, budget)
    return value, error
