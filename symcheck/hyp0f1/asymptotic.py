"""Large-σ asymptotic expansion of log ₀F₁(k/2; AAᵀ/4) = log ∫_{O(k)} e^{Σσᵢ Tᵢᵢ} dT, to O(1/σ³).

Leading term (Laplace's method on the group). Write σ sorted decreasingly. On the identity
component SO(k) the exponent Σσᵢ Tᵢᵢ is maximal at T = I. With T = exp(Θ), Θ skew with entries
θᵢⱼ (i < j), the Haar *probability* measure of O(k) is dT = J(Θ) dθ / (2 Vol SO(k)), where
Vol SO(k) = ∏_{m=1}^{k−1} |S^m|, |S^m| = 2π^{(m+1)/2}/Γ((m+1)/2), is the volume for the metric in
which the θᵢⱼ are orthonormal, and J(Θ) = det(sinh(ad_Θ/2)/(ad_Θ/2)) is the Jacobian of exp. As
(Θ²)ᵢᵢ = −Σₗ θᵢₗ² and odd powers of a skew matrix have zero diagonal,

    Σσᵢ (e^Θ)ᵢᵢ = Σσ − ½ Σ_{i<j} (σᵢ+σⱼ) θᵢⱼ² + Σ_{m≥2} tr(S Θ^{2m})/(2m)!,   S = diag(σ),

so I₊ = ∫_{SO(k)} = e^{Σσ} ∏_{i<j} sqrt(2π vᵢⱼ) / (2 Vol SO(k)) · E[e^Φ], vᵢⱼ = 1/(σᵢ+σⱼ), the
expectation over independent θᵢⱼ ~ N(0, vᵢⱼ) (extended from the injectivity domain of exp to all
of ℝ^{k(k−1)/2}: an exponentially small change), with

    Φ = Σ_{p≥1} Φ_p,   Φ_p = tr(S Θ^{2p+2})/(2p+2)! + c_p tr(ad_Θ^{2p}),   c_p = B_{2p}/(2p·(2p)!)

(log(sinh(x/2)/(x/2)) = Σ c_p x^{2p}: c₁ = 1/24, c₂ = −1/2880, c₃ = 1/181440; B Bernoulli numbers).
On so(k), splitting gl(k) = so(k) ⊕ sym(k) and using tr(X ↦ AXB) = tr A tr B and
tr(X ↦ AXᵀB) = tr(ABᵀ),

    tr(ad_Θ^{2p}) = ½ Σ_{j=0}^{2p} C(2p, j) (−1)^j tr(Θ^{2p−j}) tr(Θ^j) − 2^{2p−1} tr(Θ^{2p})

(tr Θ⁰ = k, odd traces vanish): (k−2) tr Θ², (k−8) tr Θ⁴ + 3 (tr Θ²)², (k−32) tr Θ⁶ + 15 tr Θ² tr Θ⁴.
Each θ is O(σ^{−1/2}), so Φ_p = O(1/σ^p), and the cumulant expansion of log E[e^Φ] collected by
homogeneous degree in σ gives log I₊ = (leading) + T₁ + T₂ + T₃ + O(1/σ⁴) with

    T₁ = κ(Φ₁),  T₂ = κ(Φ₂) + ½κ(Φ₁, Φ₁),  T₃ = κ(Φ₃) + κ(Φ₁, Φ₂) + ⅙κ(Φ₁, Φ₁, Φ₁),

the joint cumulants computed exactly by Wick's theorem for any k
(:mod:`symcheck.hyp0f1.wick`): rational combinations of contraction patterns of v and σ. For
k = 2 these are the terms of the Hankel expansion of log I₀(σ₁+σ₂): 1/(8z), 1/(16z²), 25/(384z³).

The other coset is D·SO(k), D = diag(1, …, 1, −1): the same expansion with σ_k replaced by −σ_k
(pair sums σᵢ − σ_k for j = k), giving I₋, and log ₀F₁ = log(I₊ + I₋).

Valid range. Every pair sum σᵢ + σⱼ (i < j) must be large: the expansion is in powers of vᵢⱼ, and
the terms grow with k (T_p ~ (k²·max v)^p roughly). The I₋ coset needs its pair sums σᵢ − σ_k
(i < k) large too, *or* to be negligible: I₋ ≤ ½ e^{Σσ − 2σ_k} (the integrand's maximum on the
coset times its mass), so where that bound is below 2⁻⁶⁰·I₊ the coset is dropped and log(1 + bound/I₊) is
added to the error estimate.

Degenerate second coset. Where σ_{k−1} = σ_k the saddle of I₋ is degenerate and I₋ is dropped with that bound, which
is then useless (it lacks the Gaussian volume: at k = 20, σ = (300¹⁰, 100¹⁰) it is e^{230}·I₊ while I₋ ≈
e^{−180}·I₊). So where σ_{k−1} − σ_k < ``DEGENERATE_GAP`` and σ_k ≥ ``DEGENERATE_MIN_SIGMA``·max(1, k/4) the figure
takes instead the smaller of it and ``DEGENERATE_SAFETY`` times Laplace's estimate of I₋/I₊ on the coset's critical
manifold, and a near tie whose I₋ is negligible by that (below NEGLIGIBLE_COSET) is dropped too: its expansion, with
pair sums σⱼ − σ_k < 1, runs far outside its regime and had entered the value (k = 19, σ ≈ 501 … 49 with ties 1e-6
apart: 6150.9 against importance sampling's 5726.56). A near tie whose I₋ is not negligible keeps it (the value then
moves continuously as the tie opens: an optimiser on the value crosses no jump; its figure stays inf).
Let B = {j : σⱼ − σ_k < DEGENERATE_GAP} (the bottom run, p = |B| ≥ 2; J = B∖{k}, a = σ_k). For equal values
in B the maximum Σσ − 2a of Σσᵢ Tᵢᵢ on D·SO(k) is attained on M = {D·diag(I, D_p(I − 2vvᵀ)) : v ∈ S^{p−1}} ≅
ℝP^{p−1}, whose tangent at v = e_k is spanned by the flat pairs (j, k), j ∈ J, and whose volume for the
metric with orthonormal θᵢⱼ is 2^{p−2}|S^{p−1}| (the left-trivialised tangent of v ↦ T(v) is −2(dv vᵀ − v dvᵀ),
of norm 2|dv|). The normal curvatures are those of I₊ except σᵢ − a for the pairs (i, k), i ∉ B. So

    I₋/I₊ ≈ e^{−2a}·2^{p−2}|S^{p−1}|·∏_{j∈J} ((σⱼ + a)/2π)^{1/2}·∏_{i∉B} ((σᵢ + a)/(σᵢ − max_B σ))^{1/2}
            ·∏_{i∉B, j∈J} ((σᵢ + σⱼ)/(σᵢ + a))^{1/2}·∏_{j<l∈J} ((σⱼ + σₗ)/2a)^{1/2},

the last three products the near-tie's side of each approximation (curvatures along M taken at their smallest,
so the flat directions over-count; all 1 at an exact tie). At k = 2 this is 2(πa)^{1/2}e^{−2a} against the exact
1/I₀(2a). Measured against the two cosets' Bessel determinants (equal spectra, :func:`symcheck.hyp0f1.
closed_form_mp.equal_spectrum_cosets_mp`): true / estimate < 1 for k = 2–64 wherever σ ≥ max(1, k/4)
(→ 1 as σ grows: 0.9999 at k = 2, σ = 1000, 0.43 at k = 64, σ = 300), but up to 2.9 at k = 20, σ = 1 and 9e6 at
k = 64, σ = 2 below that line, where the Laplace picture fails (and I₊'s expansion is far outside its regime);
at k = 2 with a near tie (exact I₀(δ)/I₀(2a + δ)) ≤ 1 as well. Hence DEGENERATE_SAFETY = 10.
Not valid near σ = 0 (the terms diverge there); where a pair sum σᵢ + σⱼ is 0 the value is inf.

Error estimate (estimated, not proven). ``asymptotic_error_estimate(sig, k, order)`` returns, in
log ₀F₁, SAFETY·(w₊·|T₊| + w₋·|T₋|) + (dropped-coset bound) + float64 rounding, where T± is the
*first omitted* term T_{order+1} of each coset for order < MAX_ORDER and, at order = MAX_ORDER = 3 (T₄ is
not computed), T₄ extrapolated from the terms' ratios, |T₃|·max(|T₃/T₂|, |T₂/T₁|) where that ratio is at most
``EXTRAPOLATE_RATIO`` (an asymptotic series' ratios grow with the order; the larger of two keeps an
accidentally small T₃ or T₂ from shrinking it), else |T₃|, and w± = I±/(I₊ + I₋). It is inf outside the
asymptotic regime: where |T₁| > T1_MAX or some computed term is more than RHO times the one
before it (measured: at k = 6, σ = 10·(1, …, 0.1) the terms of the second coset are 0.52, 0.37,
0.61 and the order-3 value is off by 0.58; at k = 20, σ = 1 the terms grow and order 3 was off by
86). Inside the regime the ratio true error / |first omitted term| was measured on independent
references (tests/test_hyp0f1_error_figures.py: Bessel determinants for equal spectra up to
k = 64, the k = 2 and rank-one closed forms, the packaged mpmath table) at up to 2.05 (k = 2,
σ = (3, 0), order 2, at the edge of the regime; ≤ 1.1 on equal spectra), hence SAFETY = 4.
The extrapolated T₄ was measured against Bessel determinants (equal spectra, k = 4–20, σ = 30–3000) and
the formal series (its figure subtracted; k = 4–12 spread and two clusters, σ_max = 100–3000): where
truncation dominates, the order-3 error / (|T₃|·|T₃/T₂|) was 1.22–1.62, at most 1.8 on 755 random spectra (k = 3–12,
one zero σ the worst) against the formal series, and at most 1.68 on the k = 2–6 equal,
k = 2 and rank-one closed forms where the ratios are ≤ EXTRAPOLATE_RATIO (2026-11-27), a ratio like
(n + β)/(n − 1 + β) of a series whose terms grow like Γ(n + β)·rⁿ; the order-3 figure is SAFETY times it.
The series is asymptotic, not convergent: where the terms stop decreasing (e.g. T₃ ≈ T₂ at
σ ≈ 10·(1, 0.5, 0.2), k = 3) a higher order does not help.

Cost. The contraction patterns are built once per process (orders 1–2 instantly, order 3 in about
two seconds). Then a value costs O(k⁴) per row (O(k³) but for three K₄ patterns of T₃): for one
value (both cosets) about 0.5 ms at order 1, 1–2 ms at order 2 and 5–10 ms at order 3 or with the
error estimate of order 2 (which needs T₃); in batches 0.01–0.3 ms per value, for k ≤ 12.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

import numpy as np
from scipy import special

from symcheck._checks import check_bool, check_int
from symcheck.hyp0f1 import wick
from symcheck.hyp0f1.partitions import partitions

__all__ = [
    "MAX_ORDER",
    "ad_trace_monomials",
    "asymptotic_error_estimate",
    "expansion_terms",
    "grad_log_hyp0f1_asymptotic",
    "grad_log_hyp0f1_asymptotic_with_error",
    "log_degenerate_ratio",
    "log_hyp0f1_asymptotic",
    "log_hyp0f1_asymptotic_and_grad",
    "log_hyp0f1_asymptotic_best",
    "log_jacobian_coefficient",
    "log_vol_so",
]

#: Highest order (power of 1/σ) of the expansion.
MAX_ORDER = 3
#: Safety factor of the error estimate: the estimate is SAFETY·|first omitted term| (module notes;
#: the largest ratio error/|first omitted term| measured inside the regime is 2.05).
SAFETY = 4.0
#: At order 3, T₄ is extrapolated from the terms' ratios only where the larger of |T₃/T₂| and |T₂/T₁| is at most
#: this (deep in the regime; true error / extrapolated T₄ ≤ 1.8 there on the references of the module notes,
#: up to 3.8 from 0.05 to 0.1 on equal spectra at k = 3, where a dropped coset's share of the error is large);
#: above it the order-3 figure is SAFETY·|T₃|.
EXTRAPOLATE_RATIO = 0.05
#: The regime: every computed term at most RHO times the one before, and |T₁| ≤ T1_MAX.
RHO = 0.5
T1_MAX = 0.5

#: The I₋ coset is dropped where its bound ½e^{Σσ−2σ_k} is below this fraction of I₊.
NEGLIGIBLE_COSET = 2.0**-60
#: ... and where σ_{k−1} − σ_k is below this (absolute): a curvature under 1 along a compact direction of the coset is
#: no Gaussian (module notes, "Degenerate second coset"); at k = 2 its expansion's T₂/T₁ = 1/(2(σ₁ − σ₂)) > RHO there.
DEGENERATE_GAP = 1.0
#: Laplace's estimate of a degenerate I₋ is used only where σ_k ≥ DEGENERATE_MIN_SIGMA·max(1, k/4) (module notes).
DEGENERATE_MIN_SIGMA = 1.0
#: Safety factor of that estimate (module notes: true / estimate < 1 in its range, 0.9999 the largest measured).
DEGENERATE_SAFETY = 10.0

_LOG_2PI = np.log(2 * np.pi)
EPS = np.finfo(float).eps


def log_vol_so(k: int) -> float:
    """log Vol SO(k) = Σ_{m=1}^{k−1} log |S^m| for the metric with orthonormal θᵢⱼ (i < j)."""
    m = np.arange(1, k)
    return float(np.sum(np.log(2.0) + (m + 1) / 2 * np.log(np.pi) - special.gammaln((m + 1) / 2)))


def _bernoulli(n: int) -> Fraction:
    """Bernoulli number B_n (B₁ = −½) by the recurrence Σ_{j<m+1} C(m+1, j) B_j = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(comb(m + 1, j) * b[j] for j in range(m)) / (m + 1))
    return b[n]


def log_jacobian_coefficient(p: int) -> Fraction:
    """c_p in log(sinh(x/2)/(x/2)) = Σ_{p≥1} c_p x^{2p}: c_p = B_{2p}/(2p·(2p)!)."""
    return _bernoulli(2 * p) / (2 * p * factorial(2 * p))


def ad_trace_monomials(p: int) -> tuple:
    """tr_so(k)(ad_Θ^{2p}) as monomials in tr Θ^m: ((coefficient, ((0, m₁), (0, m₂), …)), …).

    ½ Σ_j C(2p, j) tr(Θ^{2p−j}) tr(Θ^j) − 2^{2p−1} tr(Θ^{2p}) (odd j dropped: their traces
    vanish); (0, 0) is tr Θ⁰ = k. Words as in :mod:`symcheck.hyp0f1.wick`.
    """
    mons = [(Fraction(comb(2 * p, j), 2), ((0, 2 * p - j), (0, j))) for j in range(0, 2 * p + 1, 2)]
    mons.append((Fraction(-(2 ** (2 * p - 1))), ((0, 2 * p),)))
    return tuple(mons)


def _phi(p: int) -> tuple:
    """Φ_p = tr(S Θ^{2p+2})/(2p+2)! + c_p tr(ad_Θ^{2p}) as a sum of monomials."""
    c = log_jacobian_coefficient(p)
    return ((Fraction(1, factorial(2 * p + 2)), ((1, 2 * p + 2),)),
            *((c * a, words) for a, words in ad_trace_monomials(p)))


@lru_cache(maxsize=None)
def order_patterns(p: int) -> wick.PatternSum:
    """T_p = Σ over partitions (p₁, …, p_r) of p of κ(Φ_{p₁}, …, Φ_{p_r}) / ∏ (multiplicity)!.

    Built once per process (order 3 takes about two seconds).
    """
    total: dict = {}
    for part in partitions(p):
        weight = Fraction(1)
        for q in set(part):
            weight /= factorial(part.count(q))
        for pat, c in wick.cumulant_patterns(tuple(_phi(q) for q in part)).items():
            total[pat] = total.get(pat, 0) + weight * c
    return {pat: c for pat, c in total.items() if c}


#: order → (the pattern sum of :func:`order_patterns`, that sum compiled for evaluation).
_COMPILED: dict = {}


def _compiled_order(p: int) -> wick.CompiledPatterns:
    """:func:`order_patterns` (p) prepared for evaluation, once per pattern sum: compiled again only
    when ``order_patterns`` returns another sum (its cache cleared, e.g. by a test that plants an error)."""
    patterns = order_patterns(p)
    hit = _COMPILED.get(p)
    if hit is None or hit[0] is not patterns:
        hit = _COMPILED[p] = (patterns, wick.CompiledPatterns(patterns))
    return hit[1]


def _coset_terms(st: np.ndarray, n_terms: int, rounding: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """T₁..T_{n_terms} (n, n_terms) for signed singular values ``st`` (n, k), and their rounding bounds
    (NaN without ``rounding``).

    T_p is homogeneous of degree −p in σ, so it is evaluated at σ/max|σ| and scaled back:
    the monomials of σ inside the patterns overflow from σ ≈ 1e100 on otherwise.
    """
    k = st.shape[1]
    scale = np.max(np.abs(st), axis=1)
    unit = st / scale[:, None]
    # the diagonal (2σᵢ, possibly 0) is overwritten; a pair of subnormal σ/max|σ| gives inf, which
    # makes the row's terms non-finite and its error figure inf (_combine)
    with np.errstate(divide="ignore", over="ignore"):
        v = 1.0 / (unit[:, :, None] + unit[:, None, :])
    idx = np.arange(k)
    v[:, idx, idx] = 0.0
    vals = np.zeros((st.shape[0], n_terms))
    rnd = np.zeros_like(vals) if rounding else np.full_like(vals, np.nan)
    # a term beyond the float64 range (tiny σ beside large ones) comes out ±inf or NaN: _combine
    # counts such a row as overflowed (error figure inf), so numpy's warnings would only be noise
    with np.errstate(over="ignore", invalid="ignore"):
        for p in range(1, n_terms + 1):
            t, r = _compiled_order(p).evaluate(unit, v, rounding)
            vals[:, p - 1] = t * (1.0 / scale) ** p
            if rounding:
                rnd[:, p - 1] = r * (1.0 / scale) ** p
    return vals, rnd


def expansion_terms(sig: np.ndarray, k: int, n_terms: int = MAX_ORDER, rounding: bool = True) -> dict:
    """The pieces of the expansion for each row of ``sig`` (..., k) (k >= 2), flattened to (n, ...).

    Without ``rounding`` the float64 error bounds of the terms are left out (``round_plus``,
    ``round_minus`` NaN where a coset's terms are computed): the value alone does not need them.

    Returns
    -------
    dict
        ``lead_plus``, ``lead_minus``: log of the leading (Laplace) terms of I₊ and I₋ (−inf where
        I₋ is dropped; inf where a pair sum is 0). ``terms_plus``, ``terms_minus``: T₁ … T_{n_terms}
        of each coset, shape (n, n_terms) (0 where the coset is dropped). ``round_plus``,
        ``round_minus``: float64 error bounds of those terms (:func:`symcheck.hyp0f1.wick.evaluate`).
        ``round_lead``: float64 error bound of the leading terms. ``dropped``: what leaving I₋ out costs in
        log ₀F₁ where it is dropped, log(1 + r) with r the bound ½e^{Σσ−2σ_k}/I₊ or, at a degenerate saddle in
        its range, the smaller of that and DEGENERATE_SAFETY times :func:`log_degenerate_ratio`; else 0. ``invalid``: a
        pair sum σᵢ + σⱼ is 0.
    """
    flat = -np.sort(-sig.reshape(-1, k), axis=1)
    n = flat.shape[0]
    iu, ju = np.triu_indices(k, 1)
    const = -np.log(2.0) - log_vol_so(k) + 0.5 * len(iu) * _LOG_2PI
    total = flat.sum(axis=1)
    invalid = flat[:, k - 2] + flat[:, k - 1] <= 0
    ok = ~invalid
    with np.errstate(divide="ignore"):
        log_pair = np.where(ok[:, None], np.log(flat[:, iu] + flat[:, ju]), 0.0)
    lead_plus = np.where(ok, total + const - 0.5 * np.sum(log_pair, axis=1), np.inf)
    out = {"lead_plus": lead_plus, "lead_minus": np.full(n, -np.inf), "invalid": invalid}
    for name in ("terms_plus", "round_plus", "terms_minus", "round_minus"):
        out[name] = np.zeros((n, n_terms))
    if ok.any() and n_terms:
        out["terms_plus"][ok], out["round_plus"][ok] = _coset_terms(flat[ok], n_terms, rounding)
    # the I₋ coset: kept where its bound ½e^{Σσ−2σ_k} is not negligible and its saddle is non-degenerate
    gap = flat[:, k - 2] - flat[:, k - 1]
    log_bound_ratio = total - 2 * flat[:, k - 1] - np.log(2.0) - lead_plus
    relevant = ok & (log_bound_ratio > np.log(NEGLIGIBLE_COSET))
    # a degenerate saddle in the range of Laplace's estimate on the critical manifold (module notes)
    laplace = np.flatnonzero(ok & (gap < DEGENERATE_GAP) & (flat[:, k - 1] >= DEGENERATE_MIN_SIGMA * max(1.0, k / 4)))
    log_dropped = log_bound_ratio.copy()
    if laplace.size:
        log_dropped[laplace] = np.minimum(log_bound_ratio[laplace],
                                          np.log(DEGENERATE_SAFETY) + log_degenerate_ratio(flat[laplace]))
    # kept: not negligible by either, and not an exact tie (whose saddle is degenerate: no expansion)
    keep = relevant & (gap > 0) & (log_dropped > np.log(NEGLIGIBLE_COSET))
    # log(I₊ + I₋) − log I₊ ≤ log(1 + ratio) wherever I₋ is left out
    out["dropped"] = np.where(ok & ~keep, np.logaddexp(0.0, log_dropped), 0.0)
    size = np.abs(total) + abs(const) + 0.5 * np.sum(np.abs(log_pair), axis=1)
    if keep.any():
        fl = flat[keep].copy()
        fl[:, k - 1] *= -1
        log_pm = np.log(fl[:, iu] + fl[:, ju])
        out["lead_minus"][keep] = fl.sum(axis=1) + const - 0.5 * np.sum(log_pm, axis=1)
        size[keep] = np.maximum(size[keep], np.abs(fl.sum(axis=1)) + abs(const) + 0.5 * np.sum(np.abs(log_pm), axis=1))
        if n_terms:
            out["terms_minus"][keep], out["round_minus"][keep] = _coset_terms(fl, n_terms, rounding)
    # Σσ, the constant and ½Σ log(pair sum): one rounding per operation, each of a term ≤ size
    out["round_lead"] = (len(iu) + k + 8) * EPS * size
    return out


def log_degenerate_ratio(flat: np.ndarray) -> np.ndarray:
    """Laplace's estimate of log(I₋/I₊) on the critical manifold of a (nearly) degenerate second coset, per row of
    ``flat`` (n, k), σ sorted decreasingly with σ_k > 0 (module notes, "Degenerate second coset")."""
    a = flat[:, -1:]
    in_b = flat - a < DEGENERATE_GAP
    in_b[:, -1] = True
    in_j = in_b.copy()
    in_j[:, -1] = False
    top = ~in_b
    p = in_b.sum(axis=1)
    b_max = np.max(np.where(in_b, flat, -np.inf), axis=1, keepdims=True)
    log_vol = (p - 1) * np.log(2.0) + 0.5 * p * np.log(np.pi) - special.gammaln(0.5 * p)  # 2^{p−2}|S^{p−1}|
    # all pairs are formed and then masked: sums of two σ near the float64 limit overflow where they are not used
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        flat_dirs = np.where(in_j, np.log((flat + a) / (2 * np.pi)), 0.0)
        normal = np.where(top, np.log((flat + a) / (flat - b_max)), 0.0)
        cross = np.where(top[:, :, None] & in_j[:, None, :],
                         np.log((flat[:, :, None] + flat[:, None, :]) / (flat[:, :, None] + a[:, :, None])), 0.0)
        pairs = np.where(in_j[:, :, None] & in_j[:, None, :] & np.triu(np.ones(flat.shape[1:] * 2, bool), 1),
                         np.log((flat[:, :, None] + flat[:, None, :]) / (2 * a[:, :, None])), 0.0)
    return (-2 * a[:, 0] + log_vol + 0.5 * (flat_dirs.sum(axis=1) + normal.sum(axis=1) + cross.sum(axis=(1, 2))
                                            + pairs.sum(axis=(1, 2))))


def _combine(parts: dict, order: int, with_error: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """log(I₊ + I₋) at ``order`` and the error estimate (module notes) from :func:`expansion_terms`."""
    invalid = parts["invalid"]
    # Singular values spanning ~50+ decades overflow intermediate products of the Wick
    # contractions (σ_max^a·v^b; measured: T₃ at σ = (1e60, 3.7, 3.2)): such rows get the value
    # with the overflowed terms left out and an infinite error figure (no estimate).
    used = max(order, min(order + 1, parts["terms_plus"].shape[1]) if with_error else order)
    overflowed = ~(np.all(np.isfinite(parts["terms_plus"][:, :used]), axis=1)
                   & np.all(np.isfinite(parts["terms_minus"][:, :used]), axis=1))
    tp = np.where(np.isfinite(parts["terms_plus"]), parts["terms_plus"], 0.0)
    tm = np.where(np.isfinite(parts["terms_minus"]), parts["terms_minus"], 0.0)
    parts = {**parts, "terms_plus": tp, "terms_minus": tm}
    with np.errstate(invalid="ignore"):
        lp = parts["lead_plus"] + parts["terms_plus"][:, :order].sum(axis=1)
        lm = parts["lead_minus"] + parts["terms_minus"][:, :order].sum(axis=1)
        value = np.logaddexp(lp, lm)
        w_minus = np.exp(lm - value)
    if not with_error:
        return np.where(invalid, np.inf, value), None
    computed = parts["terms_plus"].shape[1]
    nxt = min(order + 1, MAX_ORDER, computed) - 1  # index of T_{order+1}, or of T₃ at order 3
    if nxt < 0:  # k = 1 or no terms computed: only the leading term
        e_plus = e_minus = np.zeros_like(value)
    elif order == MAX_ORDER and computed == MAX_ORDER:
        e_plus = SAFETY * _next_term(parts["terms_plus"])
        e_minus = SAFETY * _next_term(parts["terms_minus"])
    else:
        e_plus = SAFETY * np.abs(parts["terms_plus"][:, nxt])
        e_minus = SAFETY * np.abs(parts["terms_minus"][:, nxt])
    if nxt >= 0:
        # outside the asymptotic regime (module notes) there is no estimate
        e_plus = np.where(_outside_regime(parts["terms_plus"]), np.inf, e_plus)
        e_minus = np.where(_outside_regime(parts["terms_minus"]) & (w_minus > 0), np.inf, e_minus)
    rounding = (parts["round_lead"] + parts["round_plus"][:, :order].sum(axis=1)
                + parts["round_minus"][:, :order].sum(axis=1) + 4 * EPS * np.abs(value))
    with np.errstate(invalid="ignore"):  # 0·inf where a coset has no weight counts 0
        err = (np.where(w_minus < 1, (1 - w_minus) * e_plus, 0.0)
               + np.where(w_minus > 0, w_minus * e_minus, 0.0))
    err = err + parts["dropped"] + rounding
    return np.where(invalid, np.inf, value), np.where(invalid | overflowed, np.inf, err)


def _next_term(terms: np.ndarray) -> np.ndarray:
    """|T₄| extrapolated from T₁, T₂, T₃ (n, 3): |T₃| times the larger of |T₃/T₂| and |T₂/T₁| where that ratio
    is at most EXTRAPOLATE_RATIO; |T₃| itself elsewhere, and where a ratio is undefined (module notes)."""
    mag = np.abs(terms)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.maximum(mag[:, 2] / mag[:, 1], mag[:, 1] / mag[:, 0])
    deep = np.isfinite(ratio) & (ratio <= EXTRAPOLATE_RATIO)
    return mag[:, 2] * np.where(deep, ratio, 1.0)


def _outside_regime(terms: np.ndarray) -> np.ndarray:
    """Rows where the computed terms T₁, T₂, … are not an asymptotic sequence in its regime:
    |T₁| > T1_MAX, or some |T_{j+1}| > RHO·|T_j| (module notes)."""
    mag = np.abs(terms)
    out = mag[:, 0] > T1_MAX if mag.shape[1] else np.zeros(mag.shape[0], bool)
    if mag.shape[1] > 1:
        out = out | np.any(mag[:, 1:] > RHO * mag[:, :-1], axis=1)
    return out


def _log_cosh_half(s: np.ndarray) -> np.ndarray:
    """log(cosh s) for O(1) = {±1} (k = 1): the two 'saddles' are exact."""
    return np.logaddexp(s, -s) - np.log(2.0)


def _evaluate(sig: np.ndarray, k: int, order, with_error: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Value (and error estimate if ``with_error``: it needs T_{order+1}, the costlier term)."""
    order = check_int(order, "order", minimum=0, maximum=MAX_ORDER)
    shape = sig.shape[:-1]
    if k == 1:
        value = _log_cosh_half(sig.reshape(-1))
        return value.reshape(shape), (2 * EPS * np.abs(value) + EPS).reshape(shape)
    # with the error: the first omitted term and at least two terms for the regime test
    parts = (expansion_terms(sig, k, min(max(order + 1, 2), MAX_ORDER)) if with_error
             else expansion_terms(sig, k, order, rounding=False))
    value, err = _combine(parts, order, with_error)
    return value.reshape(shape), (err.reshape(shape) if with_error else None)


def log_hyp0f1_asymptotic(sig: np.ndarray, k: int, order: int = 1, return_error: bool = False):
    """Large-σ asymptotic expansion of log ₀F₁(k/2; AAᵀ/4), both cosets of O(k).

    Parameters
    ----------
    sig : ndarray, shape (..., k)
        Validated singular values (:func:`symcheck._checks.as_sigma`); every pair sum must be
        large (module notes).
    k : int
    order : int, 0 … MAX_ORDER
        Number of correction terms T₁, …, T_order after the Laplace term; the error is
        O(1/σ^{order+1}).
    return_error : bool
        Also return :func:`asymptotic_error_estimate` (computed with the same terms).

    Returns
    -------
    ndarray, shape sig.shape[:-1]
        ``inf`` where a pair sum σᵢ + σⱼ is 0 (outside the valid range). With
        ``return_error`` a pair (value, error estimate).

    References
    ----------
    Muirhead (1982), Thm. 7.4.1 (₀F₁ as a Haar integral); Moore (2016), App. A. The expansion
    is derived in the module notes.
    """
    with_error = check_bool(return_error, "return_error")
    value, err = _evaluate(sig, k, order, with_error)
    return (value, err) if with_error else value


def log_hyp0f1_asymptotic_best(sig: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, the order 0 … MAX_ORDER with the smallest error estimate: (value, estimate, order).

    T₁ … T₃ are computed once and combined at every order (the cost of one order-3 evaluation).
    Rows where no order has a finite estimate get order MAX_ORDER and estimate inf.
    """
    sig = np.asarray(sig, dtype=float)
    flat = sig.reshape(-1, k)
    if k == 1:
        value, err = _evaluate(flat, 1, 0, True)
        return value.reshape(sig.shape[:-1]), err.reshape(sig.shape[:-1]), np.zeros(flat.shape[0], int)
    parts = expansion_terms(flat, k, MAX_ORDER)
    best_v, best_e = _combine(parts, MAX_ORDER, True)
    best_o = np.full(flat.shape[0], MAX_ORDER)
    for order in range(MAX_ORDER):
        v, e = _combine(parts, order, True)
        better = np.isfinite(v) & (e < best_e)
        best_v, best_e, best_o = np.where(better, v, best_v), np.where(better, e, best_e), np.where(better, order, best_o)
    shape = sig.shape[:-1]
    return best_v.reshape(shape), best_e.reshape(shape), best_o.reshape(shape)


def asymptotic_error_estimate(sig: np.ndarray, k: int, order: int = 1) -> np.ndarray:
    """Estimated (not proven) absolute error of :func:`log_hyp0f1_asymptotic` in log ₀F₁.

    The first omitted term |T_{order+1}| for order < MAX_ORDER, T₄ extrapolated from the terms' ratios
    at order = MAX_ORDER (:func:`_next_term`), weighted by the coset shares, plus the bound of a dropped coset and
    float64 rounding (module notes). ``inf`` where a pair sum is 0.
    """
    return _evaluate(sig, k, order, True)[1]


def _fd_steps(flat: np.ndarray) -> np.ndarray:
    """Central-difference steps hᵢ = 1e-5·max(1, σᵢ) (see :func:`grad_log_hyp0f1_asymptotic`)."""
    return 1e-5 * np.maximum(1.0, flat)


def _fd_gradient(flat: np.ndarray, k: int, fn) -> np.ndarray:
    """Central differences of ``fn`` (rows (m, k) -> (m,)) at every row of ``flat`` (n, k).

    ₀F₁ is even in each σᵢ, so below σᵢ = h the lower point σᵢ − h is taken at its mirror |σᵢ − h|: the central
    difference of the even function, 0 at σᵢ = 0. (Clamped at 0, a one-sided difference at σᵢ = 0 gave 4.9e-6 for the
    exact 0 at k = 2, σ = (93.7, 0), order 2, against a figure of 2.6e-8; a randomized search found it, 2026-11-29.)
    """
    idx = np.arange(k)
    h = _fd_steps(flat)
    up = np.repeat(flat[:, None, :], k, axis=1)  # up[:, i] is the row with σᵢ shifted
    dn = up.copy()
    up[:, idx, idx] += h
    dn[:, idx, idx] = np.abs(dn[:, idx, idx] - h)
    both = fn(np.concatenate([up, dn], axis=1).reshape(-1, k)).reshape(flat.shape[0], 2 * k)
    return (both[:, :k] - both[:, k:]) / (2.0 * h)


def _first_term_and_gradient(st: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """T₁, ∂T₁/∂s and Σ_{j≠i} vᵢⱼ at signed singular values ``st`` (n, k), in closed form.

    The five contraction patterns of T₁ = κ(Φ₁) (:func:`order_patterns` (1)) are, with
    vᵢⱼ = 1/(sᵢ + sⱼ) (vᵢᵢ = 0), rᵢ = Σⱼ vᵢⱼ, uᵢ = Σⱼ vᵢⱼsⱼ and qᵢ = Σⱼ vᵢⱼ²,

        T₁ = (1/24)(Σᵢ sᵢrᵢ² + Σᵢ sᵢqᵢ + Σᵢ rᵢuᵢ) + (1/12 − k/24) Σᵢ rᵢ

    (tests check it against the generic Wick evaluation), and with ∂vᵢⱼ/∂s_a = −vᵢⱼ²(δᵢₐ + δⱼₐ)
    and pᵢ = Σⱼ vᵢⱼ³ its gradient is

        ∂T₁/∂s = (1/24)(r² − 2V²(s∘r) − 2 s∘r∘q + q − 2V³s − 2 s∘p + Vr − V²u − u∘q − r∘V²s − s∘V²r)
                 − 2 (1/12 − k/24) q

    (products ∘ elementwise, V² = V∘V, V³ = V∘V∘V). T₁ is homogeneous of degree −1, so it is
    evaluated at s/max|s| and scaled back (as :func:`_coset_terms`); r is returned unscaled.
    """
    k = st.shape[1]
    scale = np.max(np.abs(st), axis=1)[:, None]
    s = st / scale
    with np.errstate(divide="ignore", over="ignore"):
        V = 1.0 / (s[:, :, None] + s[:, None, :])
    idx = np.arange(k)
    V[:, idx, idx] = 0.0
    mv = lambda M, x: np.einsum("nij,nj->ni", M, x)  # noqa: E731  (batched matrix-vector product)
    # a pair of subnormal s/max|s| gives inf, and its row NaN or ±inf (as in _coset_terms: the value's
    # figure is inf there, and grad_log_hyp0f1 keeps the gradient in its proven range [0, 1])
    with np.errstate(over="ignore", invalid="ignore"):
        V2 = V * V
        r, u, q, p = V.sum(axis=2), mv(V, s), V2.sum(axis=2), (V2 * V).sum(axis=2)
        c = 1.0 / 12.0 - k / 24.0
        t1 = (np.sum(s * r * r + s * q + r * u, axis=1) / 24.0 + c * r.sum(axis=1)) / scale[:, 0]
        grad = ((r * r - 2 * mv(V2, s * r) - 2 * s * r * q + q - 2 * mv(V2 * V, s) - 2 * s * p
                 + mv(V, r) - mv(V2, u) - u * q - r * mv(V2, s) - s * mv(V2, r)) / 24.0 - 2 * c * q)
        return t1, grad / scale**2, r / scale


def _coset_gradient(st: np.ndarray, order: int) -> np.ndarray:
    """∂/∂s of one coset's leading term Σs − ½Σ_{i<j} log(sᵢ + sⱼ) plus T₁ if ``order`` is 1."""
    t1, g1, r = _first_term_and_gradient(st)
    return 1.0 - 0.5 * r + (g1 if order else 0.0)


def _value_and_gradient_low_order(flat: np.ndarray, k: int, order: int) -> tuple[np.ndarray, np.ndarray]:
    """The order-0 or order-1 value (both cosets) and its exact gradient for rows ``flat`` (n, k), k ≥ 2.

    The value is :func:`log_hyp0f1_asymptotic`'s (the same terms, combined by :func:`_combine`).
    log(I₊ + I₋) has gradient w₊∇log I₊ + w₋∇log I₋ (w± = I±/(I₊ + I₋)); the I₋ coset is the I₊
    expression at (σ₁, …, −σ_k), so its gradient in σ_k changes sign. NaN where a pair sum is 0.
    """
    order_idx = np.argsort(-flat, axis=1, kind="stable")
    srt = np.take_along_axis(flat, order_idx, axis=1)
    parts = expansion_terms(srt, k, order, rounding=False)
    with np.errstate(invalid="ignore"):
        value = _combine(parts, order, False)[0]
    ok = ~parts["invalid"]
    grad = np.full_like(srt, np.nan)
    lp = parts["lead_plus"] + parts["terms_plus"][:, :order].sum(axis=1)
    lm = parts["lead_minus"] + parts["terms_minus"][:, :order].sum(axis=1)
    with np.errstate(invalid="ignore"):
        w_minus = np.exp(lm - np.logaddexp(lp, lm))
    if ok.any():
        grad[ok] = _coset_gradient(srt[ok], order)
    both = ok & (w_minus > 0)
    if both.any():
        fl = srt[both].copy()
        fl[:, k - 1] *= -1
        gm = _coset_gradient(fl, order)
        gm[:, k - 1] *= -1
        w = w_minus[both][:, None]
        grad[both] = (1.0 - w) * grad[both] + w * gm
    out = np.empty_like(grad)
    np.put_along_axis(out, order_idx, grad, axis=1)
    return value, out


def grad_log_hyp0f1_asymptotic(sig: np.ndarray, k: int, order: int = 1) -> np.ndarray:
    """Gradient of :func:`log_hyp0f1_asymptotic` in σ.

    Orders 0 and 1 in closed form (:func:`_first_term_and_gradient`; O(k²) per row beside the
    value's patterns). Orders 2 and 3 by central differences with step hᵢ = 1e-5·max(1, σᵢ): the
    truncation error h²·|f‴| is below 1e-10·|∂f/∂σ| for the smooth (rational and logarithmic)
    terms of the expansion, far below the expansion's own error; rounding adds ~ eps·|f|/h. The 2k
    shifted copies of every row are evaluated in one batch (the per-call cost of the contraction
    patterns is paid once, not 2k times).
    """
    check_int(order, "order", minimum=0, maximum=MAX_ORDER)
    flat = sig.reshape(-1, k)
    if k >= 2 and order <= 1:
        return _value_and_gradient_low_order(flat, k, order)[1].reshape(sig.shape)
    grad = _fd_gradient(flat, k, lambda rows: log_hyp0f1_asymptotic(rows, k, order))
    return grad.reshape(sig.shape)


def log_hyp0f1_asymptotic_and_grad(sig: np.ndarray, k: int, order: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """:func:`log_hyp0f1_asymptotic` and :func:`grad_log_hyp0f1_asymptotic` at ``order``, bit for bit.

    At orders 0 and 1 (k ≥ 2) both come from one evaluation of the expansion's terms, which the two
    functions would each evaluate (the Wick contractions of T₁, both cosets); otherwise from the two.
    """
    order = check_int(order, "order", minimum=0, maximum=MAX_ORDER)
    if k >= 2 and order <= 1:
        value, grad = _value_and_gradient_low_order(sig.reshape(-1, k), k, order)
        return value.reshape(sig.shape[:-1]), grad.reshape(sig.shape)
    return log_hyp0f1_asymptotic(sig, k, order), grad_log_hyp0f1_asymptotic(sig, k, order)


def grad_log_hyp0f1_asymptotic_with_error(flat: np.ndarray, k: int, order=1) -> tuple[np.ndarray, np.ndarray]:
    """Gradient (n, k) at ``order`` (0 … MAX_ORDER, or ``"best"``: each row's order of
    :func:`log_hyp0f1_asymptotic_best`) and an estimate of its largest component error.

    The estimate is SAFETY·max|∇(value at the next order − value at ``order``)| (at order 3:
    of T₃ itself), at least SAFETY·p·(the value's estimate)/min σ (p = order + 1: the remainder's gradient if it
    scales like σ^−p), both by :func:`grad_log_hyp0f1_asymptotic` (closed
    form at orders 0 and 1, central differences above), plus the rounding of a difference
    quotient, 8u(1 + |value|)/h; inf where the value's estimate is inf (outside the asymptotic
    regime).
    """
    n = flat.shape[0]
    if k == 1:
        return np.tanh(flat), np.full(n, 4 * EPS)
    if order == "best":
        val, err, orders = log_hyp0f1_asymptotic_best(flat, k)
    else:
        order = check_int(order, "order", minimum=0, maximum=MAX_ORDER)
        orders = np.full(n, order)
        val, err = log_hyp0f1_asymptotic(flat, k, order, return_error=True)
    grad = np.zeros_like(flat)
    gerr = np.full(n, np.inf)
    for o in np.unique(orders):
        rows = np.flatnonzero(orders == o)
        sub = flat[rows]
        lo, hi = (int(o), int(o) + 1) if o < MAX_ORDER else (MAX_ORDER - 1, MAX_ORDER)
        g_lo, g_hi = grad_log_hyp0f1_asymptotic(sub, k, lo), grad_log_hyp0f1_asymptotic(sub, k, hi)
        grad[rows] = g_lo if o == lo else g_hi
        h = _fd_steps(sub).min(axis=1)
        # the remainder R ~ σ^−p (p = o + 1, the first omitted order) has Σσᵢ∂ᵢR = −pR, so its gradient is of size
        # p|R|/σ_min: a floor where the next order's gradient happens to agree (k = 2, σ = 1.72·(1, 1), order 0:
        # |g₁ − g₀| = 0.004 where the error is 0.12; a randomized search found it, 2026-11-29)
        smallest = np.min(np.where(sub > 0, sub, np.inf), axis=1)
        with np.errstate(invalid="ignore"):
            e = (SAFETY * np.maximum(np.max(np.abs(g_hi - g_lo), axis=1), (lo + 1) * err[rows] / smallest)
                 + 8 * EPS * (1.0 + np.abs(val[rows])) / h)
        gerr[rows] = np.where(np.isfinite(err[rows]), e, np.inf)
    return grad, gerr
