"""Exact zonal-polynomial series of ₀F₁(k/2; AAᵀ/4) in float64 (Koev & Edelman 2006).

With X = AAᵀ/4, eigenvalues xᵢ = σᵢ²/4 and b = k/2,

    ₀F₁(b; X) = Σ_κ C_κ(X) / ((b)_κ |κ|!),

summed over partitions κ with at most k parts; C_κ is the zonal polynomial (Jack parameter
α = 2, normalised so that Σ_{|κ|=m} C_κ = (tr X)^m) and (b)_κ = Πᵢ (b − (i−1)/2)_{κᵢ}.

Rank-deficient rows. If only m < k of the σᵢ are non-zero, C_κ(x₁, …, x_m, 0, …, 0) is
C_κ(x₁, …, x_m) and vanishes when ℓ(κ) > m: C_κ is a multiple of the Jack symmetric function
P_κ = m_κ + Σ_{μ<κ} u_{κμ} m_μ (Macdonald 1995, VI.10; the normalising constant does not depend on
the number of variables), setting a variable of a monomial symmetric function m_μ to 0 leaves
m_μ in the others, and every μ below κ in dominance order has ℓ(μ) ≥ ℓ(κ) > m parts, so m_μ
vanishes in m variables (Koev & Edelman 2006, §2: C_κ(X) = 0 when ℓ(κ) exceeds the size). So the
series is exactly the sum over partitions with ≤ m parts of the zonal polynomials in the m
non-zero xᵢ, with (b)_κ still at b = k/2 (its factors (k − i + 1)/2 + j, i ≤ m ≤ k, stay positive). Each row is therefore evaluated with tables in n = m variables
(n = k for full-rank rows, n = 1 for σ = 0), and the rows of a batch are grouped by their number
of σ > 0 (exact zeros only). A zero σⱼ has gradient component exactly 0, for the function and for
the truncated sum alike: both are polynomials or power series in xⱼ = σⱼ²/4, so ∂/∂σⱼ = (σⱼ/2)∂/∂xⱼ
vanishes at σⱼ = 0 (equivalently, log ₀F₁ is even in each σⱼ: flipping the sign of row j of
T ∈ O(k) preserves Haar measure and changes only Tⱼⱼ among the diagonal entries).

Algorithm
---------
Write C_κ through the monic Jack polynomial P_κ (Macdonald 1995, VI.10): J_κ = c_κ P_κ with
c_κ = Π_{s∈κ} (α a(s) + l(s) + 1), and C_κ = α^m m! J_κ / j_κ with j_κ = c_κ c'_κ,
c'_κ = Π_{s∈κ} h^*(s), h^*(s) = α(a(s) + 1) + l(s) (Koev & Edelman 2006, §2; a, l are arm and
leg lengths). So each term is d_κ P_κ(x) with

    d_κ = α^{|κ|} / (c'_κ (b)_κ).

P_κ is evaluated one variable at a time by the branching rule (Koev & Edelman 2006, §4;
Macdonald 1995, VI (6.24) in the Jack limit of VI.10):

    P_κ(x₁, …, x_n) = Σ_μ ψ_{κ/μ} x_n^{|κ|−|μ|} P_μ(x₁, …, x_{n−1}),

over μ with κ/μ a horizontal strip (κ_{i+1} ≤ μᵢ ≤ κᵢ) and ℓ(μ) ≤ n − 1, where
ψ_{κ/μ} = Π b_μ(s)/b_κ(s) over the boxes s of μ lying in a row of κ/μ but not in a column of
κ/μ, and b_λ(s) = (α a + l + 1)/(α a + l + α). ψ does not depend on the level, so with n the
number of variables of the row (k, or the number m of non-zero σ) the pairs are tabulated once
per (n, M, b) (cached, up to `_TABLES_BYTES`): those with ℓ(μ) ≤ n − 2, used by the levels
1..n − 1, grouped by ℓ(μ), sorted by |κ| and cut into runs of equal κ; and, for the last level,
where only the weighted sum over κ is needed, the collapsed weights
e[μ, s] = Σ_{|κ|=|μ|+s} d̂_κ ψ_{κ/μ}, so that S = Σ_μ P_μ(y₁..y_{n−1}) Σ_s e[μ, s] y_n^s w_{|μ|+s}
(this removes the largest group of pairs from the per-row work). Evaluating a row is then a
sparse, allocation-free product over the n variables (Numba). The gradient is the exact
derivative of the same truncated sum by reverse mode through the n linear levels.

Scaling: with c = maxᵢ xᵢ and y = x/c ∈ [0, 1]ᵏ, the term is d̂_κ w_m P_κ(y), where
w_m = c^m / (m! (b)_m) (rank-one series term, by a running product) and
d̂_κ = d_κ m! (b)_m (a moderate ratio, computed as a product of per-box factors), so nothing
overflows where the series is usable.

Truncation bound (rigorous)
---------------------------
The degree-m part of the series (degree 2m in A) equals ∫ (tr ATᵀ)^{2m}/(2m)! dT: expand
etr(ATᵀ) and integrate term by term; odd powers vanish because −T is Haar-distributed.
Since |tr ATᵀ| ≤ s := Σᵢ σᵢ for orthogonal T, term_m ≤ s^{2m}/(2m)!, and, when
r_M = s²/((2M+3)(2M+4)) < 1, the terms after degree M are bounded by a geometric series,

    tail_M ≤ s^{2M+2}/(2M+2)! · 1/(1 − r_M),

computed in log space (lgamma). All terms are ≥ 0, so the partial sum is ≥ 1 and
tail_M / partial sum is a relative error bound. The degree M is the smallest one with
tail_M ≤ rtol (using partial sum ≥ 1); the reported bound divides by the computed partial sum.

Both bounds concern the integral over O(k), so they hold unchanged for rank-deficient rows (k, not
m, enters the variance proxy below; zeros add nothing to s).

For k ≥ 3 a second bound, sharp when k is large, is taken where it is smaller. Each coset of O(k)
is isometric to SO(k), whose Ricci curvature (k − 2)/4 gives a logarithmic Sobolev inequality
with constant 4/(k − 2) (Bakry–Émery; Meckes 2019, *The Random Matrix Theory of the Classical
Compact Groups*, Thm. 5.16); f(T) = tr ATᵀ is ‖σ‖₂-Lipschitz and has mean 0 on each coset, so
by Herbst's argument E cosh(λf) ≤ e^{vλ²/2} with v = 4‖σ‖₂²/(k − 2). Hence, for every λ,
term_m = E f^{2m}/(2m)! ≤ e^{vλ²/2}/λ^{2m}, and at λ² = 2m/v, term_m ≤ (ev/(2m))^m; the ratio
of consecutive such bounds is ≤ ev/(2m + 2), so

    tail_M ≤ (ev/(2M + 2))^{M+1} / (1 − ev/(2M + 4))    (ev < 2M + 4).

(At k = 20 and σ = 1 this needs degree 24 for 1e-14 where the first bound needs > 100.)

A third bound, sharp for equal and clustered σ, uses the series' own structure. Every zonal
polynomial has non-negative coefficients in the monomials of x (Jack polynomials at α > 0: Knop &
Sahi 1997, Thm. 1.1), and (b)_κ > 0, so the degree-m part T_m(x) is non-decreasing in each
xᵢ ≥ 0 and T_m(x) ≤ T_m(x_max, …, x_max) = σ_max^{2m} E(tr T)^{2m}/(2m)! (k variables, T Haar
on O(k); zero σ included). Now E(tr T)^{2m} = E tr(T^{⊗2m}) is the dimension of the
O(k)-invariant subspace of (ℝᵏ)^{⊗2m} (the Haar mean of a representation is the projection onto
its invariants), which is spanned by the (2m − 1)!! pairing tensors (first fundamental theorem
of invariant theory for O(k): Weyl 1939, Thm. 2.9.A; Goodman & Wallach 2009, Thm. 5.3.3), so
E(tr T)^{2m} ≤ (2m − 1)!!, the moment of N(0, 1), with equality for m ≤ k (the pairings are then
independent). Hence term_m ≤ c^m/m! with c = σ_max²/2, and

    tail_M ≤ c^{M+1}/(M+1)! / (1 − c/(M + 2))    (c < M + 2),

exact to first order for k equal σ and M < k. At k = 20 it needs degree 26 for 1e-10 where
σ = 3 (3, 1 in two clusters) and the sub-Gaussian bound needs 49.

Rounding: every quantity is a sum of products of positive numbers, so (first order, Higham
2002, §3–4) the relative rounding error of the partial sum is ≤ K·u, u = 2⁻⁵³, with, for tables
in n variables (n = k, or m for a row with m non-zero σ, whose computation is exactly the
n-variable one), K = Σ_{l<n} F_l + E + 4nM + 12M + 6n + N_max + 8: F_l the largest number of
summands of one P_κ at level l, E that of one e[μ, s], 4nM the products forming ψ across the n
levels, 12M the
powers y^s, d̂_κ, w_m, the inner sums over s and the rounding of xᵢ = σᵢ²/4 (a degree-M
polynomial with positive coefficients), N_max the final sum over the partitions of one size.
The reported ``rel_error_bound`` is tail_M / ((1 − Ku) S) + Ku/(1 − Ku).

Valid range
-----------
Any finite σ ≥ 0 whose required degree M ≤ ``max_degree`` and whose partition tables (in n
variables: n = k, or the number m of σ > 0) fit ``MAX_PAIRS`` (κ, μ) pairs (≈ 20 bytes each):
M ≤ 388 for n = 2, 88 for n = 3, 53 for n = 4, 43 for n = 5, 34 for n = 8 and 32 for n ≥ 20 (the
tables stop growing with n once n > M), whatever k ≥ n. So a row of k = 20 with two non-zero σ
reaches degree 388 (Σσ ≈ 250 at rtol = 1e-14), where a full-rank row stops at 32 (Σσ ≈ 5).
Requesting more raises a ValueError naming ``max_degree``; :func:`series_degree_needed` returns :data:`UNREACHABLE`
there, so a router comparing it with a maximum degree never selects an infeasible row.
Roughly, rtol = 1e-14 needs M ≈ 60 at s = Σσ ≈ 34.

References
----------
Koev, P. & Edelman, A. (2006). The efficient evaluation of the hypergeometric function of a
matrix argument. Math. Comp. 75, 833–846 (§2 and §4).
Macdonald, I. G. (1995). Symmetric Functions and Hall Polynomials, 2nd ed., ch. VI.
Knop, F. & Sahi, S. (1997). A recursion and a combinatorial formula for Jack polynomials.
Invent. Math. 128, 9–22.
Weyl, H. (1939). The Classical Groups. Princeton University Press, ch. II.
Goodman, R. & Wallach, N. R. (2009). Symmetry, Representations, and Invariants. Springer, §5.3.
Muirhead, R. J. (1982). Aspects of Multivariate Statistical Theory, Thm. 7.4.1 (integral form).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit, types
from numba.typed import Dict

from symcheck._checks import as_sigma, check_int, check_positive_float
from symcheck.hyp0f1.bounded_cache import SizeBoundedCache

__all__ = [
    "MAX_PAIRS",
    "UNREACHABLE",
    "grad_log_hyp0f1_series",
    "grad_log_hyp0f1_series_with_error",
    "log_hyp0f1_series",
    "log_hyp0f1_series_truncated",
    "log_grad_tail_bound",
    "gaussian_proxy",
    "log_tail_bound",
    "max_feasible_degree",
    "rounding_bound",
    "series_degree_needed",
    "variance_proxy",
]

#: Jack parameter of the zonal polynomials.
ALPHA = 2.0
#: Largest number of tabulated (κ, μ) pairs (≈ 20 bytes each, so ≈ 100 MB).
MAX_PAIRS = 5_000_000
#: Returned by :func:`series_degree_needed` where the required degree is not feasible.
UNREACHABLE = int(np.iinfo(np.int64).max)
#: Unit roundoff of float64.
_U = np.finfo(np.float64).eps / 2
#: Largest degree ever tabulated (k = 1 only; other k hit MAX_PAIRS first).
_DEGREE_CAP = 4096
#: Table degrees are rounded up to a multiple of this (fewer distinct cached tables).
_DEGREE_STEP = 10


# --------------------------------------------------------------------------- truncation bound

@njit(cache=True)
def _log_tail(s, v, c, m):
    """Scalar log tail bound (see :func:`log_tail_bound`): the smallest of the three bounds."""
    if s == 0.0:
        return -np.inf
    best = np.inf
    ratio = s * s / ((2.0 * m + 3.0) * (2.0 * m + 4.0))
    if ratio < 1.0:
        best = (2.0 * m + 2.0) * math.log(s) - math.lgamma(2.0 * m + 3.0) - math.log1p(-ratio)
    ev = math.e * v
    if ev < 2.0 * m + 4.0:
        best = min(best, (m + 1.0) * math.log(ev / (2.0 * m + 2.0)) - math.log1p(-ev / (2.0 * m + 4.0)))
    if c < m + 2.0:
        best = min(best, (m + 1.0) * math.log(c) - math.lgamma(m + 2.0) - math.log1p(-c / (m + 2.0)))
    return best


@njit(cache=True)
def _log_tail_many(s, v, c, m, out):
    for i in range(s.shape[0]):
        out[i] = _log_tail(s[i], v[i], c[i], m[i])


@njit(cache=True)
def _degrees_for_bound(s, v, c, log_rtol, cap, out):
    """out[i] = smallest M in [0, cap] with _log_tail(s[i], v[i], c[i], M) <= log_rtol, or cap + 1 if none is.

    Each bound is +inf until its geometric ratio drops below 1 ((2M+3)(2M+4) > s², 2M + 4 > ev,
    M + 2 > c) and decreases after, so their minimum does too: search from the first finite
    degree by doubling, then bisection. That start is computed in floating point and compared
    with ``cap`` before any integer is formed, so huge s, v or c (up to the float64 maximum)
    neither overflow int64 nor loop: every row takes O(log cap) steps.
    """
    for i in range(s.shape[0]):
        start = min(max(0.0, (math.sqrt(s[i] * s[i] + 0.25) - 3.5) / 2.0), max(0.0, 0.5 * math.e * v[i] - 2.0),
                    max(0.0, c[i] - 2.0))
        if start > cap:
            out[i] = cap + 1
            continue
        lo = int(start)
        while lo <= cap and _log_tail(s[i], v[i], c[i], lo) == np.inf:
            lo += 1
        if lo > cap:
            out[i] = cap + 1
            continue
        if _log_tail(s[i], v[i], c[i], lo) <= log_rtol:
            out[i] = lo
            continue
        step = 1
        while lo + step <= cap and _log_tail(s[i], v[i], c[i], lo + step) > log_rtol:
            lo += step
            step *= 2
        hi = lo + step  # ok(hi), not ok(lo), unless hi passed the cap
        if hi > cap:
            if _log_tail(s[i], v[i], c[i], cap) > log_rtol:
                out[i] = cap + 1
                continue
            hi = cap
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _log_tail(s[i], v[i], c[i], mid) <= log_rtol:
                hi = mid
            else:
                lo = mid
        out[i] = hi


def variance_proxy(flat, k: int) -> np.ndarray:
    """v = 4‖σ‖₂²/(k − 2) per row: the sub-Gaussian variance proxy of tr ATᵀ on each coset of
    O(k) (module docstring, "Truncation bound"); +inf for k ≤ 2 (no curvature bound)."""
    flat = np.asarray(flat, dtype=np.float64)
    if k <= 2:
        return np.full(flat.shape[:-1], np.inf)
    with np.errstate(over="ignore"):
        return 4.0 * np.sum(flat * flat, axis=-1) / (k - 2)


def gaussian_proxy(flat) -> np.ndarray:
    """c = σ_max²/2 per row: the degree-m part of the series is ≤ c^m/m! (module docstring,
    "Truncation bound": the moments of tr T over O(k) are at most those of N(0, 1))."""
    flat = np.asarray(flat, dtype=np.float64)
    with np.errstate(over="ignore"):
        return 0.5 * np.max(flat, axis=-1, initial=0.0) ** 2


def log_tail_bound(s, degree, v=np.inf, c=np.inf) -> np.ndarray:
    """Log of the rigorous bound on the series terms of degree > ``degree``.

    The smallest of s^{2M+2}/(2M+2)! / (1 − s²/((2M+3)(2M+4))), given the variance proxy v
    (:func:`variance_proxy`) (ev/(2M+2))^{M+1}/(1 − ev/(2M+4)), and, given c = σ_max²/2
    (:func:`gaussian_proxy`), c^{M+1}/(M+1)!/(1 − c/(M+2)); see the module docstring.
    Returns +inf where no geometric ratio is < 1 (no bound) and −inf where s = 0.

    Parameters
    ----------
    s : array_like
        Σᵢ σᵢ (≥ 0).
    degree : array_like of int
        Truncation degree M (in the eigenvalues xᵢ = σᵢ²/4).
    v : array_like, optional
        4‖σ‖₂²/(k − 2); the default +inf leaves the second bound out.
    c : array_like, optional
        maxᵢ σᵢ²/2; the default +inf leaves the third bound out.
    """
    s, v, c, m = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(v, dtype=np.float64),
                                     np.asarray(c, dtype=np.float64), np.asarray(degree, dtype=np.int64))
    out = np.empty(s.shape)
    _log_tail_many(np.ascontiguousarray(s).reshape(-1), np.ascontiguousarray(v).reshape(-1),
                   np.ascontiguousarray(c).reshape(-1), np.ascontiguousarray(m).reshape(-1), out.reshape(-1))
    return out


def log_grad_tail_bound(s, degree, v=np.inf, c=np.inf, k=1) -> np.ndarray:
    """Log of a bound on |∂R/∂σᵢ| for the tail R of the series after degree ``degree``.

    ∂/∂σᵢ of the degree-m part ∫(tr ATᵀ)^{2m}/(2m)! dT (A = diag σ) is
    ∫ (tr ATᵀ)^{2m−1} Tᵢᵢ/(2m−1)! dT ≤ E|f|^{2m−1}/(2m−1)! (|Tᵢᵢ| ≤ 1), bounded by
    s^{2m−1}/(2m−1)! and, with the variance proxy v, by 2(ev/(2m−1))^{m−1/2} (E e^{λ|f|} ≤
    2e^{vλ²/2} at λ² = (2m−1)/v). Third, with c = σ_max²/2 = 2x_max: ∂/∂σᵢ T_m = (σᵢ/2)∂T_m/∂xᵢ,
    and ∂T_m/∂xᵢ has non-negative coefficients, so it is at most its value at x_max·(1, …, 1),
    which by symmetry and Euler's identity is m T_m(x_max, …)/(k x_max) ≤ m c^m/(m! k x_max);
    so |∂T_m/∂σᵢ| ≤ (σ_max/k) c^{m−1}/(m−1)!. Summed geometrically: |∂R/∂σᵢ| ≤ the smallest of
    s^{2M+1}/(2M+1)! / (1 − s²/((2M+2)(2M+3))), 2(ev/(2M+1))^{M+1/2}/(1 − ev/(2M+3)) and
    (σ_max/k) c^M/M!/(1 − c/(M+1)). Then, with F̂ the truncated sum and g its log-gradient,
    |∂ᵢ log F − gᵢ| ≤ (e^{this} + tail·|gᵢ|)/F̂ (used by the checks). Returns +inf where no ratio
    is < 1 and −inf where s = 0.

    ``k`` is the dimension of O(k) (the third bound's 1/k; the default 1 is valid for any k).
    """
    s, v, c, m = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(v, dtype=np.float64),
                                     np.asarray(c, dtype=np.float64), np.asarray(degree, dtype=np.float64))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = s * s / ((2 * m + 2) * (2 * m + 3))
        crude = ((2 * m + 1) * np.log(s) - np.array([math.lgamma(x) for x in (2 * m + 2).ravel()]).reshape(m.shape)
                 - np.log1p(-np.where(ratio < 1, ratio, 0.0)))
        crude = np.where(ratio >= 1.0, np.inf, crude)
        ev = math.e * v
        ok = ev < 2 * m + 3
        safe_ev = np.where(ok, ev, 1.0)
        lsi = (math.log(2.0) + (m + 0.5) * np.log(safe_ev / (2 * m + 1))
               - np.log1p(-np.where(ok, safe_ev / (2 * m + 3), 0.0)))
        ok_c = c < m + 1
        safe_c = np.where(ok_c, c, 1.0)
        moments = (0.5 * np.log(2.0 * safe_c) - math.log(k) + m * np.log(safe_c)
                   - np.array([math.lgamma(x) for x in (m + 1).ravel()]).reshape(m.shape)
                   - np.log1p(-np.where(ok_c, safe_c / (m + 1), 0.0)))
        out = np.minimum(np.minimum(crude, np.where(ok, lsi, np.inf)), np.where(ok_c & (c > 0), moments, np.inf))
    return np.where(s == 0, -np.inf, out)


def _degree_for_bound(s: np.ndarray, rtol: float, cap: int, v=np.inf, c=np.inf) -> np.ndarray:
    """Smallest M in [0, cap] with log_tail_bound(s, M, v, c) <= log(rtol), elementwise (int64);
    cap + 1 where no degree up to ``cap`` reaches it."""
    s, v, c = np.broadcast_arrays(np.asarray(s, dtype=np.float64), np.asarray(v, dtype=np.float64),
                                  np.asarray(c, dtype=np.float64))
    s = np.ascontiguousarray(s).reshape(-1)
    out = np.empty(s.shape[0], dtype=np.int64)
    _degrees_for_bound(s, np.ascontiguousarray(v).reshape(-1), np.ascontiguousarray(c).reshape(-1),
                       math.log(rtol), cap, out)
    return out


# --------------------------------------------------------------------------- table sizes

def _count_pairs(k: int, degree: int, stop: float = np.inf) -> float:
    """Number of (κ, μ) pairs tabulated for (k, degree), by a DP over interlacing sequences.

    Counts κ₁ ≥ μ₁ ≥ κ₂ ≥ … ≥ μ_{k−1} ≥ κ_k ≥ 0 with |κ| ≤ degree (float; stops early once
    above ``stop``).
    """
    d = degree
    f = np.zeros((d + 1, d + 1))  # f[v, w]: rows i..k with κᵢ = v and weight w
    f[np.arange(d + 1), np.arange(d + 1)] = 1.0
    for _ in range(min(k, d + 1) - 1):
        if f.sum() > stop:
            break
        nf = np.zeros_like(f)
        for vp in range(d + 1):
            mult = (vp - np.arange(vp + 1) + 1.0)[:, None]
            nf[vp, vp:] = (mult * f[: vp + 1, : d + 1 - vp]).sum(axis=0)
        f = nf
    return float(f.sum())


@functools.lru_cache(maxsize=None)
def max_feasible_degree(k: int) -> int:
    """Largest degree whose partition tables in ``k`` variables hold at most :data:`MAX_PAIRS`
    pairs (capped at :data:`_DEGREE_CAP`).

    The tables of a row have as many variables as the row has non-zero σ (module docstring):
    pass k for full-rank rows and the number m of σ > 0 otherwise (:func:`series_degree_needed`
    does this per row). The count does not depend on b.
    """
    k = check_int(k, "k", minimum=1)
    if k == 1:  # one pair per degree
        return _DEGREE_CAP
    lo, hi = 0, 1
    while _count_pairs(k, hi, MAX_PAIRS) <= MAX_PAIRS and hi < _DEGREE_CAP:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: lo feasible, hi not (or the cap)
        mid = (lo + hi) // 2
        if _count_pairs(k, mid, MAX_PAIRS) <= MAX_PAIRS:
            lo = mid
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------- table building

@njit(cache=True)
def _next_partition(p, total, degree):
    """Advance p (nonincreasing, length k) to the next partition in lex order; return new total or -1."""
    k = p.shape[0]
    tail = 0
    for i in range(k - 1, -1, -1):
        if (i == 0 or p[i] < p[i - 1]) and total - tail + 1 <= degree:
            for j in range(i + 1, k):
                p[j] = 0
            p[i] += 1
            return total - tail + 1
        tail += p[i]
    return -1


@njit(cache=True)
def _enumerate_partitions(k, degree):
    """All partitions with <= k parts and size <= degree, rows of an (N, k) array (lex order)."""
    p = np.zeros(k, dtype=np.int64)
    n, total = 1, 0
    while True:
        total = _next_partition(p, total, degree)
        if total < 0:
            break
        n += 1
    out = np.zeros((n, k), dtype=np.int64)
    p[:] = 0
    total, r = 0, 0
    while True:
        out[r] = p
        r += 1
        total = _next_partition(p, total, degree)
        if total < 0:
            break
    return out


@njit(cache=True)
def _key(p):
    """Exact int64 code of a partition: its boundary path as bits (needs |p| + 2 <= 63)."""
    k = p.shape[0]
    key = np.int64(1)
    for i in range(k - 1, -1, -1):
        if p[i] == 0:
            continue
        nxt = p[i + 1] if i + 1 < k else 0
        diff = p[i] - nxt
        key = (key << diff) | ((np.int64(1) << diff) - 1)
        key = key << 1
    return key


@njit(cache=True)
def _key_radix(p, base):
    """Exact int64 code of a partition in base ``base`` (needs base**k < 2**63)."""
    key = np.int64(0)
    for i in range(p.shape[0]):
        key = key * base + p[i]
    return key


@njit(cache=True)
def _conjugate(p, out):
    """Column lengths of p into out[0:p[0]]."""
    k = p.shape[0]
    for j in range(p[0]):
        c = 0
        for i in range(k):
            if p[i] > j:
                c += 1
        out[j] = c


@njit(cache=True)
def _psi(kap, mu, kc, mc, alpha):
    """ψ_{κ/μ} = Π b_μ(s)/b_κ(s) over boxes of μ in rows, not columns, of the strip κ/μ."""
    r = 1.0
    for i in range(kap.shape[0]):
        if mu[i] < kap[i]:
            for j in range(mu[i]):
                if kc[j] == mc[j]:
                    leg = kc[j] - i - 1
                    am = mu[i] - j - 1
                    ak = kap[i] - j - 1
                    r *= ((alpha * am + leg + 1.0) * (alpha * ak + leg + alpha)) / (
                        (alpha * am + leg + alpha) * (alpha * ak + leg + 1.0))
    return r


@njit(cache=True)
def _dhat(p, pc, b, alpha):
    """d_κ m! (b)_m with d_κ = α^m / (Π h^*(s) (b)_κ), as a product of per-box factors."""
    r = 1.0
    t = 0
    for i in range(p.shape[0]):
        for j in range(p[i]):
            t += 1
            hstar = pc[j] - i - 1 + alpha * (p[i] - j)
            r *= (alpha * t * (b + t - 1.0)) / (hstar * (b - i / alpha + j))
    return r


@njit(cache=True)
def _build_pairs(parts, k, degree, b, alpha, radix):
    """Tabulate the horizontal strips κ/μ (κ_{i+1} <= μᵢ <= κᵢ, ℓ(μ) <= k − 1, |κ| <= degree).

    Here k is the tables' number of variables (n_vars: k, or the number of non-zero σ) and b = k/2
    of the group O(k) enters only d̂.

    Pairs with ℓ(μ) <= k − 2 (used by levels 1..k−1) are returned individually: (kappa_idx,
    mu_idx, strip, psi, group = ℓ(μ), kappa_size). Pairs with any ℓ(μ) feed the last level
    through e[μ, s] = Σ_{κ: κ/μ strip, |κ| = |μ| + s} d̂_κ ψ_{κ/μ}. Also returns d̂ and the
    rounding constants fan[n-1] (largest number of pairs feeding one κ at level n < k) and
    efan (largest number of terms of one e[μ, s]).
    """
    n = parts.shape[0]
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    sizes = np.zeros(n, dtype=np.int64)
    dhat = np.empty(n, dtype=np.float64)
    kc = np.zeros(degree + 1, dtype=np.int64)
    for r in range(n):
        index[_key_radix(parts[r], radix) if radix > 0 else _key(parts[r])] = r
        sizes[r] = parts[r].sum()
        _conjugate(parts[r], kc)
        dhat[r] = _dhat(parts[r], kc, b, alpha)
    npairs = 0  # pairs with ℓ(μ) <= k − 2: need ℓ(κ) <= k − 1 and μ_{k−2} = 0
    for r in range(n):
        if k >= 2 and parts[r, k - 1] == 0:
            c = 1
            for i in range(k - 2):
                c *= parts[r, i] - parts[r, i + 1] + 1
            npairs += c
    kap_idx = np.empty(npairs, dtype=np.int32)
    mu_idx = np.empty(npairs, dtype=np.int32)
    strip = np.empty(npairs, dtype=np.int16)
    psi = np.empty(npairs, dtype=np.float64)
    group = np.empty(npairs, dtype=np.int64)
    ksize = np.empty(npairs, dtype=np.int64)
    e = np.zeros((n, degree + 1), dtype=np.float64)
    ecount = np.zeros((n, degree + 1), dtype=np.int64)
    fan = np.zeros(k, dtype=np.int64)
    mc = np.zeros(degree + 1, dtype=np.int64)
    mu = np.zeros(k, dtype=np.int64)
    per_group = np.zeros(k, dtype=np.int64)
    q = 0
    for r in range(n):
        kap = parts[r]
        _conjugate(kap, kc)
        per_group[:] = 0
        for i in range(k - 1):
            mu[i] = kap[i + 1]
        mu[k - 1] = 0
        while True:
            _conjugate(mu, mc)
            for j in range(mu[0], kap[0]):
                mc[j] = 0
            lm = 0
            for i in range(k):
                if mu[i] > 0:
                    lm += 1
            mi = index[_key_radix(mu, radix) if radix > 0 else _key(mu)]
            s = sizes[r] - sizes[mi]
            ps = _psi(kap, mu, kc, mc, alpha)
            e[mi, s] += dhat[r] * ps
            ecount[mi, s] += 1
            if lm <= k - 2:
                kap_idx[q] = r
                mu_idx[q] = mi
                strip[q] = s
                psi[q] = ps
                group[q] = lm
                ksize[q] = sizes[r]
                per_group[lm] += 1
                q += 1
            # odometer over rows 0..k-2, mu_i in [kap_{i+1}, kap_i]
            i = k - 2
            while i >= 0:
                if mu[i] < kap[i]:
                    mu[i] += 1
                    for j in range(i + 1, k - 1):
                        mu[j] = kap[j + 1]
                    break
                i -= 1
            if i < 0:
                break
        ell = 0
        for i in range(k):
            if kap[i] > 0:
                ell += 1
        cum = 0
        for lvl in range(1, k):  # level lvl < k uses groups g <= lvl - 1
            cum += per_group[lvl - 1]
            if lvl >= ell and cum > fan[lvl - 1]:
                fan[lvl - 1] = cum
    return kap_idx, mu_idx, strip, psi, group, ksize, dhat, e, fan, ecount.max()


class _Tables:
    """Partition tables of one (n_vars, degree, b); see the module docstring.

    ``n_vars`` is the number of variables and the largest number of parts (k for full-rank rows,
    the number m of non-zero σ otherwise); b enters only d̂ (b = k/2 in every case).

    Attributes
    ----------
    kernel_tables : tuple
        (run_kap, run_end, mu, strip, psi, grp_start, grp_end): the pairs with ℓ(μ) <= n_vars − 2,
        grouped by ℓ(μ), sorted by |κ| and cut into runs of equal κ; grp_start[g] and
        grp_end[g, m] delimit the runs of group g with |κ| <= m.
    e : ndarray, shape (N, degree + 1)
        Last-level weights e[μ, s] (see :func:`_build_pairs`).
    deg_start : ndarray
        Partitions are sorted by size; those of size j are deg_start[j]:deg_start[j+1].
    rounding_k : int
        K of the module docstring for this table's full degree.
    nbytes : int
        Bytes of the arrays above.
    """

    def __init__(self, n_vars: int, degree: int, b: float):
        k = n_vars
        parts = _enumerate_partitions(k, degree)
        sizes = parts.sum(axis=1)
        order = np.argsort(sizes, kind="stable")  # by size; ∅ first
        parts = np.ascontiguousarray(parts[order])
        sizes = sizes[order]
        if degree + 2 <= 63:
            radix = 0
        elif k * math.log2(degree + 1) < 62:
            radix = degree + 1
        else:  # unreachable under MAX_PAIRS; kept as a guard on the int64 codes
            raise ValueError(f"max_degree={degree} is too large for k={k}")
        kap, mu, strip, psi, group, ksize, _, e, fan, efan = _build_pairs(parts, k, degree, b, ALPHA, radix)
        key = group * (degree + 1) + ksize
        srt = np.argsort(key, kind="stable")
        key, kap = key[srt], kap[srt]
        # runs: maximal blocks of consecutive pairs with the same (group, κ)
        new_run = np.ones(key.shape[0], dtype=bool)
        new_run[1:] = (kap[1:] != kap[:-1]) | (key[1:] != key[:-1])
        starts = np.flatnonzero(new_run)
        run_key = key[starts]
        g = np.arange(k)[:, None] * (degree + 1)
        self.kernel_tables = (
            np.ascontiguousarray(kap[starts]),
            np.append(starts[1:], key.shape[0]).astype(np.int64),
            np.ascontiguousarray(mu[srt]),
            np.ascontiguousarray(strip[srt]),
            np.ascontiguousarray(psi[srt]),
            np.searchsorted(run_key, g[:, 0], side="left").astype(np.int64),
            np.searchsorted(run_key, g + np.arange(degree + 1)[None, :], side="right").astype(np.int64),
        )
        self.e = e
        self.deg_start = np.searchsorted(sizes, np.arange(degree + 2), side="left").astype(np.int64)
        self.degree = degree
        self.rounding_k = (int(fan.sum()) + int(efan) + 4 * k * degree + 12 * degree + 6 * k
                           + int(np.diff(self.deg_start).max()) + 8)
        self.nbytes = sum(a.nbytes for a in self.kernel_tables) + self.e.nbytes + self.deg_start.nbytes


#: Bytes of partition tables kept in `_TABLES`, least recently used dropped beyond it (the newest is always
#: kept): the 6 × ~100 MB of the six largest tables. The claims of one seed use about 45 tables of 20 MB
#: between them (measured), which a cache of six tables rebuilt on every seed.
_TABLES_BYTES = 600_000_000
_TABLES = SizeBoundedCache(_TABLES_BYTES, lambda t: t.nbytes)


def _tables(n_vars: int, degree: int, b: float) -> _Tables:
    """Cached partition tables for (n_vars, degree, b) (at most ~100 MB each, `_TABLES_BYTES` in all)."""
    return _TABLES.get((n_vars, degree, b), lambda tab: _Tables(n_vars, degree, b) if tab is None else tab)


def _tables_for(n_vars: int, degree: int, b: float) -> _Tables:
    """Tables covering ``degree`` (rounded up to a multiple of 10 when that stays feasible)."""
    rounded = -(-max(degree, 1) // _DEGREE_STEP) * _DEGREE_STEP
    return _tables(n_vars, rounded if rounded <= max_feasible_degree(n_vars) else degree, b)


# --------------------------------------------------------------------------- kernels

@njit(cache=True)
def _powers(y, degree, out):
    out[0] = 1.0
    for s in range(1, degree + 1):
        out[s] = out[s - 1] * y


@njit(cache=True)
def _degree_weights(c, b, m, w):
    """w[j] = c^j / (j! (b)_j) for j = 0..m (rank-one series terms, running product)."""
    w[0] = 1.0
    for j in range(1, m + 1):
        w[j] = w[j - 1] * c / (j * (b + j - 1.0))


@njit(cache=True)
def _forward_level(n, m, y, pold, pnew, tab, ypow):
    """pnew = level-n branching of pold (pairs with ℓ(μ) <= n − 1 and |κ| <= m).

    The pairs of one κ form runs, each summed in registers (two accumulators) and stored once.
    """
    run_kap, run_end, mu, strip, psi, grp_start, grp_end = tab
    _powers(y, m, ypow)
    pnew[:] = 0.0
    for g in range(n):
        r0 = grp_start[g]
        r1 = grp_end[g, m]
        if r0 == r1:
            continue
        p = run_end[r0 - 1] if r0 > 0 else 0
        for r in range(r0, r1):
            end = run_end[r]
            acc0 = 0.0
            acc1 = 0.0
            while p + 1 < end:
                acc0 += psi[p] * ypow[strip[p]] * pold[mu[p]]
                acc1 += psi[p + 1] * ypow[strip[p + 1]] * pold[mu[p + 1]]
                p += 2
            if p < end:
                acc0 += psi[p] * ypow[strip[p]] * pold[mu[p]]
                p += 1
            pnew[run_kap[r]] += acc0 + acc1


@njit(cache=True)
def _last_level(m, p, e, deg_start, ypow, w, v, dv):
    """S = Σ_μ P_μ Σ_s e[μ, s] y^s w_{|μ|+s}, summed by |μ| then over sizes.

    Also fills v[μ] = ∂S/∂P_μ and returns ∂S/∂y when ``v`` is non-empty (gradient pass).
    """
    grad = v.shape[0] > 0
    tot = 0.0
    dtot = 0.0
    for j in range(m + 1):
        acc = 0.0
        for q in range(deg_start[j], deg_start[j + 1]):
            if p[q] == 0.0 and not grad:
                continue
            inner = 0.0
            for s in range(m - j + 1):
                inner += e[q, s] * ypow[s] * w[j + s]
            acc += p[q] * inner
            if grad:
                v[q] = inner
                dinner = 0.0
                for s in range(1, m - j + 1):
                    dinner += e[q, s] * s * ypow[s - 1] * w[j + s]
                dtot += p[q] * dinner
        tot += acc
    dv[0] = dtot
    return tot


@njit(cache=True)
def _series_kernel(x, deg, b, tab, e, deg_start, out):
    """out[r] = log of the series truncated at degree deg[r], for rows x = σ²/4 of shape (n, n_vars).

    n_vars = x.shape[1] is the tables' number of variables (the rows' non-zero σ, or all k); b = k/2.
    """
    nrows, k = x.shape
    npart = e.shape[0]
    dmax = e.shape[1] - 1
    pa = np.zeros(npart)
    pb = np.zeros(npart)
    ypow = np.empty(dmax + 1)
    w = np.empty(dmax + 1)
    none = np.empty(0)
    dv = np.empty(1)
    for r in range(nrows):
        m = deg[r]
        c = 0.0
        for i in range(k):
            c = max(c, x[r, i])
        if c == 0.0 or m == 0:
            out[r] = 0.0
            continue
        pold, pnew = pa, pb
        pold[:] = 0.0
        pold[0] = 1.0  # P_∅ = 1 (index 0 is the empty partition)
        for n in range(1, k):
            _forward_level(n, m, x[r, n - 1] / c, pold, pnew, tab, ypow)
            pold, pnew = pnew, pold
        _powers(x[r, k - 1] / c, m, ypow)
        _degree_weights(c, b, m, w)
        out[r] = np.log(_last_level(m, pold, e, deg_start, ypow, w, none, dv))


@njit(cache=True)
def _grad_kernel(x, deg, b, tab, e, deg_start, out, logs):
    """out[r, i] = ∂ log S / ∂xᵢ of the truncated series (reverse mode over the n_vars = x.shape[1] levels), and
    logs[r] = log S, the value :func:`_series_kernel` returns (the same forward pass)."""
    nrows, k = x.shape
    npart = e.shape[0]
    dmax = e.shape[1] - 1
    run_kap, run_end, mu, strip, psi, grp_start, grp_end = tab
    plev = np.zeros((k, npart))
    va = np.zeros(npart)
    vb = np.zeros(npart)
    ypow = np.empty(dmax + 1)
    w = np.empty(dmax + 1)
    dv = np.empty(1)
    for r in range(nrows):
        m = deg[r]
        c = 0.0
        for i in range(k):
            c = max(c, x[r, i])
        logs[r] = 0.0
        if m == 0:
            out[r, :] = 0.0
            continue
        if c == 0.0:  # at x = 0 only the degree-1 term tr X / b contributes
            out[r, :] = 1.0 / b
            continue
        plev[0, :] = 0.0
        plev[0, 0] = 1.0
        for n in range(1, k):
            _forward_level(n, m, x[r, n - 1] / c, plev[n - 1], plev[n], tab, ypow)
        _powers(x[r, k - 1] / c, m, ypow)
        _degree_weights(c, b, m, w)
        vnew, vold = va, vb
        tot = _last_level(m, plev[k - 1], e, deg_start, ypow, w, vnew, dv)
        logs[r] = np.log(tot)
        out[r, k - 1] = dv[0] / (tot * c)
        for n in range(k - 1, 0, -1):
            _powers(x[r, n - 1] / c, m, ypow)
            vold[:] = 0.0
            gsum = 0.0
            pprev = plev[n - 1]
            for g in range(n):
                r0 = grp_start[g]
                p = run_end[r0 - 1] if r0 > 0 else 0
                for rr in range(r0, grp_end[g, m]):
                    vk = vnew[run_kap[rr]]
                    while p < run_end[rr]:
                        t = psi[p] * vk
                        s = strip[p]
                        vold[mu[p]] += t * ypow[s]
                        if s > 0:
                            gsum += t * s * ypow[s - 1] * pprev[mu[p]]
                        p += 1
            out[r, n - 1] = gsum / (tot * c)
            vnew, vold = vold, vnew


# --------------------------------------------------------------------------- public functions

def _check_rtol(rtol) -> float:
    rtol = check_positive_float(rtol, "rtol")
    if rtol >= 1:
        raise ValueError(f"rtol must be < 1, got {rtol}")
    return rtol


def _n_vars(flat: np.ndarray) -> np.ndarray:
    """Number of variables of each row's tables: its number of σ > 0, at least 1 (int64)."""
    return np.maximum(np.count_nonzero(flat > 0, axis=1), 1).astype(np.int64)


def _feasible_degrees(n_vars: np.ndarray) -> np.ndarray:
    """:func:`max_feasible_degree` of each row's number of variables."""
    values, index = np.unique(n_vars, return_inverse=True)
    return np.array([max_feasible_degree(int(m)) for m in values], dtype=np.int64)[index.reshape(n_vars.shape)]


def _tail_proxies(flat, k):
    """(Σσ, v, c) per row: the three quantities the tail bounds take (:func:`log_tail_bound`)."""
    return flat.sum(axis=1), variance_proxy(flat, k), gaussian_proxy(flat)


def _degrees_within(flat, k, rtol, cap) -> np.ndarray:
    """Per row, the smallest degree with tail bound ≤ rtol, searched up to cap[row] (cap + 1 if none)."""
    s, v, c = _tail_proxies(flat, k)
    need = np.empty(flat.shape[0], dtype=np.int64)
    for top in np.unique(cap):
        rows = cap == top
        need[rows] = _degree_for_bound(s[rows], rtol, int(top), v[rows], c[rows])
    return need


def series_degree_needed(flat, k, rtol) -> np.ndarray:
    """Degree M the truncation bound needs to reach ``rtol`` for each row (no series evaluation).

    Parameters
    ----------
    flat : array_like, shape (n, k)
        Singular values, one row per input.
    k : int
    rtol : float
        Target relative truncation error (0 < rtol < 1).

    Returns
    -------
    ndarray of int64, shape (n,)
        The smallest M with tail bound ≤ rtol (module docstring), or :data:`UNREACHABLE` where
        that M exceeds :func:`max_feasible_degree` of the row's number of non-zero σ (tables
        too large), so that ``M <= max_degree`` is also a feasibility test.
    """
    sig, k = as_sigma(flat, k)
    rtol = _check_rtol(rtol)
    flat = sig.reshape(-1, k)
    feasible = _feasible_degrees(_n_vars(flat))
    need = _degrees_within(flat, k, rtol, feasible)
    return np.where(need > feasible, UNREACHABLE, need).astype(np.int64)


def _evaluate(flat, k, degrees, grad: bool):
    """Per row the log of the truncated series, the gradient of that log w.r.t. σ (None unless ``grad``; the
    value then comes from the gradient's forward pass) and K of the rounding bound.

    Rows are grouped by their number m of σ > 0; a group runs the kernels on its non-zero σ alone,
    with tables in m variables and b = k/2 (module docstring). Zero σ get gradient component 0.
    """
    deg = np.asarray(degrees, dtype=np.int64).reshape(-1)
    nonzero = flat > 0
    rank = np.count_nonzero(nonzero, axis=1)
    b = 0.5 * k
    out = np.zeros(flat.shape) if grad else None
    logval = np.empty(flat.shape[0])
    rounding_k = np.empty(flat.shape[0], dtype=np.int64)
    for m in np.unique(rank):
        rows = np.flatnonzero(rank == m)
        mask = nonzero[rows]
        # rows of zeros run as one variable x = 0 (value log 1 = 0, gradient 0)
        sub = flat[rows][mask].reshape(rows.size, m) if m else np.zeros((rows.size, 1))
        tab = _tables_for(max(int(m), 1), int(deg[rows].max()), b)
        rounding_k[rows] = tab.rounding_k
        x = np.ascontiguousarray(sub * sub * 0.25)
        args = (x, np.ascontiguousarray(deg[rows]), b, tab.kernel_tables, tab.e, tab.deg_start)
        val = np.empty(rows.size)
        if grad:
            g = np.empty_like(x)
            _grad_kernel(*args, g, val)
            block = np.zeros((rows.size, flat.shape[1]))
            if m:
                block[mask] = (g * sub * 0.5).reshape(-1)  # chain rule dxᵢ/dσᵢ = σᵢ/2
            out[rows] = block
        else:
            _series_kernel(*args, val)
        logval[rows] = val
    return logval, out, rounding_k


def _gamma(rounding_k):
    """γ_K = K u / (1 − K u) (elementwise)."""
    return rounding_k * _U / (1.0 - rounding_k * _U)


def rounding_bound(k, degree, n_vars=None) -> float:
    """γ_K = K u / (1 − K u): the first-order bound on the relative float64 rounding error of
    the truncated sum (module docstring) for the tables used at this (k, degree).

    ``n_vars``: the number of non-zero σ of the rows (default k, full rank); the tables then
    have n_vars variables and K its levels.
    """
    k = check_int(k, "k", minimum=1)
    degree = check_int(degree, "degree", minimum=0)
    n_vars = k if n_vars is None else check_int(n_vars, "n_vars", minimum=1, maximum=k)
    return float(_gamma(_tables_for(n_vars, degree, 0.5 * k).rounding_k))


def _error_bound(flat, deg, logval, rounding_k) -> np.ndarray:
    s, v, c = _tail_proxies(flat, flat.shape[1])
    # rows with s = 0 or degree 0 return log 1 = 0 exactly: no rounding
    gamma = np.where((s == 0) | (deg == 0), 0.0, _gamma(rounding_k))
    log_tail = log_tail_bound(s, deg, v, c)
    rel_tail = np.exp(log_tail - logval) / (1.0 - gamma)
    return rel_tail + gamma


def _checked_degrees(flat, k, rtol, max_degree) -> np.ndarray:
    rtol = _check_rtol(rtol)
    max_degree = check_int(max_degree, "max_degree", minimum=0)
    n_vars = _n_vars(flat)
    feasible = _feasible_degrees(n_vars)
    cap = np.minimum(min(max_degree, int(feasible.max(initial=0))), feasible)  # a Python int beyond int64 is fine
    need = _degrees_within(flat, k, rtol, cap)
    over = np.flatnonzero(need > cap)
    if over.size:
        total = flat.sum(axis=1)
        r = over[np.argmax(total[over])]
        limit = (f"max_degree={max_degree}" if max_degree <= feasible[r] else
                 f"the largest feasible degree {feasible[r]} for {n_vars[r]} non-zero sigma at k={k} "
                 f"(partition tables > {MAX_PAIRS} pairs; a larger max_degree cannot help)")
        raise ValueError(f"sigma: the row sum Σσ = {total[r]:.4g} needs a series degree above "
                         f"{limit} for rtol={rtol:g}; use smaller sigma, a larger rtol, or method='laplace'")
    return need


def log_hyp0f1_series(sig, k, rtol=1e-14, max_degree=200):
    """log ₀F₁(k/2; AAᵀ/4) by the zonal series, truncated by a rigorous tail bound.

    Parameters
    ----------
    sig : array_like, shape (..., k)
        Singular values σ of A (finite, ≥ 0).
    k : int
        Dimension of O(k) (>= 1).
    rtol : float
        Relative truncation error target, 0 < rtol < 1 (the degree is chosen per row).
    max_degree : int
        Largest degree allowed; ValueError (naming ``rtol``/``max_degree`` and the degree
        needed) if some row needs more, or if the tables would exceed :data:`MAX_PAIRS`.

    Returns
    -------
    log_value, rel_error_bound : ndarray, shape sig.shape[:-1]
        log of the truncated series, and a rigorous bound on |F̂ − F|/F (truncation, and
        first-order float64 rounding; module docstring). Rounding the final log to float64
        adds at most u·|log F| to the absolute error of ``log_value``.

    References
    ----------
    Koev & Edelman (2006), Math. Comp. 75, §4; Macdonald (1995), VI (6.24) and VI.10.
    """
    sig, k = as_sigma(sig, k)
    flat = sig.reshape(-1, k)
    deg = _checked_degrees(flat, k, rtol, max_degree)
    val, _, rounding_k = _evaluate(flat, k, deg, grad=False)
    err = _error_bound(flat, deg, val, rounding_k)
    return val.reshape(sig.shape[:-1]), err.reshape(sig.shape[:-1])


def log_hyp0f1_series_truncated(sig, k, degree):
    """log of the series summed over degrees 0..``degree`` exactly, with its error bound.

    Same as :func:`log_hyp0f1_series` with a fixed truncation degree (for benchmarks at a
    given degree and for checking the bound). ``rel_error_bound`` is +inf where the tail
    bound does not apply (s² ≥ (2M+3)(2M+4)).
    """
    sig, k = as_sigma(sig, k)
    degree = check_int(degree, "degree", minimum=0)
    flat = sig.reshape(-1, k)
    n_vars = _n_vars(flat)
    feasible = _feasible_degrees(n_vars)
    if np.any(degree > feasible):
        r = int(np.argmin(feasible))
        raise ValueError(f"degree={degree} exceeds the largest feasible degree {feasible[r]} for "
                         f"{n_vars[r]} non-zero sigma at k={k}")
    deg = np.full(flat.shape[0], degree, dtype=np.int64)
    val, _, rounding_k = _evaluate(flat, k, deg, grad=False)
    err = _error_bound(flat, deg, val, rounding_k)
    return val.reshape(sig.shape[:-1]), err.reshape(sig.shape[:-1])


def grad_log_hyp0f1_series(sig, k, rtol=1e-14, max_degree=200):
    """Gradient w.r.t. σ of the log of the truncated series of :func:`log_hyp0f1_series`.

    The exact derivative of the same truncated sum (same degrees, reverse mode through the
    variable-by-variable branching), times dxᵢ/dσᵢ = σᵢ/2.

    Returns
    -------
    ndarray, shape sig.shape
    """
    sig, k = as_sigma(sig, k)
    flat = sig.reshape(-1, k)
    _, out, _ = _evaluate(flat, k, _gradient_degrees(flat, k, rtol, max_degree), grad=True)
    return out.reshape(sig.shape)


#: Most degrees :func:`_gradient_degrees` adds to the value's.
GRADIENT_EXTRA_DEGREES = 8


def _gradient_degrees(flat, k, rtol, max_degree):
    """The degrees for the gradient: the value's degrees (:func:`_checked_degrees`), raised
    (by at most GRADIENT_EXTRA_DEGREES, within ``max_degree`` and the feasible degree) until the gradient's tail bound
    over F̂ is at most ``rtol``. The value's rule bounds the tail relative to F, but ∂ᵢ log F ≈ σᵢ/k is small at small
    σ, where its absolute tail is the value's relative one times ~k/σ (k = 1, σ = 3e-4, rtol 1e-15: 4.5e-12 at the
    value's degree). F̂ grows with the degree, so the F̂ of the value's degrees keeps the rule conservative."""
    deg = _checked_degrees(flat, k, rtol, max_degree)
    logval, _, _ = _evaluate(flat, k, deg, grad=False)
    s, v, c = _tail_proxies(flat, k)
    feasible = _feasible_degrees(_n_vars(flat))
    limit = min(check_int(max_degree, "max_degree", minimum=0), int(feasible.max(initial=0)))  # a Python int
    cap = np.minimum(np.minimum(deg + GRADIENT_EXTRA_DEGREES, feasible), limit)
    target = math.log(rtol)
    for _ in range(GRADIENT_EXTRA_DEGREES):
        short = (log_grad_tail_bound(s, deg, v, c, k) - logval > target) & (deg < cap) & (s > 0)
        if not short.any():
            break
        deg = np.where(short, deg + 1, deg)
    return deg


def grad_log_hyp0f1_series_with_error(flat, k, rtol=1e-14, max_degree=200):
    """Gradient of :func:`log_hyp0f1_series` and a rigorous bound on its largest component error.

    With F̂ the truncated sum, tail its truncation bound and e^{ℓ} the bound of
    :func:`log_grad_tail_bound` on every |∂R/∂σᵢ|: |∂ᵢ log F − gᵢ| ≤ (e^{ℓ} + tail·|gᵢ|)/F̂, to first
    order in the tail; rounding adds 2γ|gᵢ| (the gradient's summands are products of positive
    factors, as the value's, through at most twice as many operations).

    Returns
    -------
    grad : ndarray, shape (n, k)
    error : ndarray, shape (n,)
    """
    sig, k = as_sigma(flat, k)
    flat = sig.reshape(-1, k)
    deg = _gradient_degrees(flat, k, rtol, max_degree)
    logval, grad, rounding_k = _evaluate(flat, k, deg, grad=True)
    gamma = _gamma(rounding_k)[:, None]
    s, v, c = _tail_proxies(flat, k)
    tail = np.exp(log_tail_bound(s, deg, v, c) - logval)
    gtail = np.exp(log_grad_tail_bound(s, deg, v, c, k) - logval)
    err = np.max(gtail[:, None] + (tail[:, None] + 2.0 * gamma) * np.abs(grad), axis=1)
    return grad, np.where(s == 0, 0.0, err)

