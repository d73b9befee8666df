"""log ₀F₁ near exact ties: its Taylor expansion about the tied point, with a proven remainder.

log F(σ) = log E[exp Σσᵢ tᵢ] (tᵢ = Tᵢᵢ, T Haar on O(k)) is the cumulant generating function of the diagonal of T
(:mod:`symcheck.hyp0f1.near_equal`). Group the non-zero σ into clusters of values less than a relative gap apart
(:func:`split`), let σ⁰ hold each cluster's mean and d = σ − σ⁰, so Σ_{i∈c} dᵢ = 0 in every cluster c (up to the
rounding of the mean, counted below). Along θ ↦ log F(σ⁰ + θd), θ ∈ [0, 1], the j-th derivative is the j-th
cumulant κⱼ of X = Σ dᵢtᵢ under the law of T tilted by exp Σ(σ⁰ + θd)ᵢtᵢ. Taylor's theorem with Lagrange's
remainder gives

    log F(σ) = log F(σ⁰) + Σ_{j=2}^{n−1} κⱼ(0)/j! + κ_n(θ*)/n!,                                            (1)

with κ₁(0) = E X = Σ_c μ_c Σ_{i∈c} dᵢ = 0 (at σ⁰ every tᵢ of a cluster has the same tilted mean μ_c). At θ = 0
E X = 0, so κ₂ = E X², κ₃ = E X³, κ₄ = E X⁴ − 3(E X²)², and

    E Xʲ = Σ_λ j!/∏_{c,r} λ_{c,r}! · ∏_c m_{λ_c}(d_c) · M(λ)/F,                                               (2)

over tuples λ = (λ_c) of partitions with Σ|λ_c| = j, m_λ the monomial symmetric polynomial and M(λ) the tilted
orbit moment ⟨∏_c t_c^{λ_c}⟩ of :mod:`symcheck.hyp0f1.confluent` (1) at σ⁰ (the multinomial expansion of Xʲ
grouped by the orbits of the exponent vectors; tuples with m_{λ_c}(d_c) = 0 drop, e.g. λ_c = (1) and every
cluster with d_c = 0). The confluent system supplies M(λ) where each |λ_c| ≤ p_c + 1 (p_c the cluster's size):
degree j inside a cluster needs p_c ≥ j − 1, so n = 7 where every cluster that moves has p_c ≥ 5, n = 6 where they
have p_c ≥ 4, n = 5 where they have p_c ≥ 3, else n = 4 (at p_c = 2, d_c = (δ, −δ) and E(t₁ − t₂)⁴ needs M((4))).
At n = 6 the κ₅ term joins (1), at n = 7 the κ₆ term: κ₅ = E X⁵ − 10 E X³ E X², κ₆ = E X⁶ − 15 E X⁴ E X² − 10 (E X³)²
+ 30 (E X²)³.

Remainder. At every θ, X lies in [−‖d‖₁, ‖d‖₁] (|tᵢ| ≤ 1), an interval of length ℓ = 2‖d‖₁, so its central
moments μ_q (about μ = E X) obey |X − μ| ≤ ℓ, μ₂ ≤ ℓ²/4 (Popoviciu 1935), |μ_{q+1}| ≤ ℓμ_q for even q and
|μ₃| ≤ √(μ₂μ₄) (Cauchy–Schwarz). Along the segment d/dθ E f = Cov(f, X), so

    μ₂' = μ₃,    μ₄' = μ₅ − 4μ₂μ₃,    μ₆' = μ₇ − 6μ₂μ₅.

The first, with |μ₃| ≤ ℓμ₂, gives by Grönwall's inequality μ₂(θ) ≤ V := min(ℓ²/4, μ₂(0)e^ℓ) on [0, 1]. Where the
system holds the degree-4 moments (n ≥ 5), the second bounds μ₄: with w = √μ₄, w' ≤ (ℓ/2)w + 2V^{3/2}, so
μ₄(θ) ≤ W := min(ℓ²V, [e^{ℓ/2}(√μ₄(0) + 2V^{3/2})]²) (elsewhere W = ℓ²V); then μ₂ ≤ μ₂(0) + sup|μ₃| ≤ μ₂(0) + √(VW)
tightens V. Where the system holds the degree-6 moments too (n = 7), the third bounds μ₆ the same way: with
u = √μ₆, |μ₇| ≤ ℓμ₆ and |μ₅| ≤ √(μ₄μ₆), u' ≤ (ℓ/2)u + 3V√W, so μ₆(θ) ≤ U := min(ℓ²W, [e^{ℓ/2}(√μ₆(0) + 3V√W)]²)
(elsewhere U = ℓ²W), and μ₄ ≤ μ₄(0) + sup|μ₅| + 4V sup|μ₃| ≤ μ₄(0) + √(WU) + 4V√(VW) tightens W. The bounds are
refined in turn (:func:`moment_bounds`; each round a valid bound). W and U are the gain: μ₄(0) ≈ 3μ₂(0)² and μ₆(0) ≈
15μ₂(0)³ are far below ℓ²μ₂ and ℓ⁴μ₂ when the tilted law is concentrated (large σ). With |μ₃| ≤ √(VW) and
|μ₅| ≤ min(ℓW, √(WU)) =: B₅ the cumulants along the segment are then

    |κ₄| = |μ₄ − 3μ₂²| ≤ max(W, 3V²),   |κ₅| = |μ₅ − 10μ₃μ₂| ≤ B₅ + 10V^{3/2}√W,
    |κ₆| = |μ₆ − 15μ₄μ₂ − 10μ₃² + 30μ₂³| ≤ max(U + 30V³, 25VW),
    |κ₇| = |μ₇ − 21μ₅μ₂ − 35μ₄μ₃ + 210μ₃μ₂²| ≤ ℓU + 21VB₅ + 35W√(VW) + 210V²√(VW),                            (3)

and the remainder of (1) is at most max(W, 3V²)/24 (n = 4), (B₅ + 10V^{3/2}√W)/120 (n = 5), at n = 6 the smaller
of the κ₆ bound over 720 and the n = 5 bound plus |κ₅(0)|/120, at n = 7 the smaller of the κ₇ bound over 5040 and the
n = 6 bound plus |κ₆(0)|/720 (:func:`remainder`). With W = ℓ²V these are the bounds of the first version (ℓ²V/24 and
3.5ℓ³V/120 at most). μ₂(0) = E X², μ₄(0) = E X⁴ and μ₆(0) = E X⁶ come from the same moments as the terms; they enter
with twice the largest value of the ray's runs (whose spread is the ray's error, far below
that; where the runs differ by more than MOMENT_SPREAD, relative, :mod:`confluent` takes the worst cases instead), so
the bound is proven given them. Measured (2026-11-29, k = 8, two clusters of four 0.5 % apart): σ_max = 30, the
remainder 2.6e-4 → 7.2e-9; σ_max = 10, 4.3e-6 → 5.1e-10; k = 10, two clusters of five 0.5 % apart (n = 7 with U
against n = 6 with U = ℓ²W): σ_max = 10, 8.2e-9 → 2.1e-11, σ_max = 30, 2.4e-7 → 7.1e-11. At the goal table's near
clusters (consecutive σ 1e-4 apart, k = 8, σ_max = 30: ‖d‖₁ ≈ 0.016) the worst case V = ℓ²/4 alone gives 2.4e-10;
the first-order band of :mod:`near_equal` would be ‖d‖₁²/4 = 6e-5.

The rounding of the means leaves e_c = Σ_{i∈c} dᵢ ≠ 0 (summed exactly, :func:`math.fsum`): moving each cluster's
base by e_c/p_c makes the expansion exact again and changes log F by at most Σ|e_c| (every ∂ log F/∂σᵢ lies in
[0, 1]) and the terms of (1) by less; :func:`split` returns 2Σ|e_c|.

Gradient. ∂ᵢ log F = E tᵢ =: fᵢ(θ) along the segment, with fᵢ' = Cov(tᵢ, X), fᵢ'' = κ(tᵢ, X, X) (joint
cumulants). At θ = 0, for i in cluster c (the other clusters' sums of d vanish), Cov(tᵢ, X) = (Var tᵢ − Cov(tᵢ, tⱼ))dᵢ
= α_c dᵢ with α_c = (M((2)_c) − M((1,1)_c))/F (j ≠ i in c), and, E X being 0,

    κ(tᵢ, X, X) = E[tᵢX²] − g_c E X²,   E[tᵢX²] = Σ_{j,l} dⱼd_l ⟨tᵢtⱼt_l⟩/F,                                       (4)

each ⟨tᵢtⱼt_l⟩ the orbit moment of the multiplicities of (i, j, l) in each cluster (:func:`gradient_terms`; for
every i, also where dᵢ = 0). The third derivative, κ(tᵢ, X, X, X) = E[t̃ᵢX̃³] − 3E[t̃ᵢX̃]E[X̃²] (centred), is at most
min(2√(VW), ℓ√W) + 3V^{3/2} in size (|t̃ᵢ| ≤ 2 and E t̃ᵢ² = Var tᵢ ≤ 1, with (3)'s V and W), so
∂ᵢ log F(σ) = g_c + α_c dᵢ + κ(tᵢ, X, X)/2 within (min(2√(VW), ℓ√W) + 3V^{3/2})/6 (+ Σ|e_c|), and the first-order
term alone within min(2V, √W)/2 (|κ(tᵢ, X, X)| = |E t̃ᵢX̃²| ≤ min(2μ₂, √μ₄)).                                 (5)

References
----------
T. Popoviciu (1935), Mathematica (Cluj) 9, 129–145 (the variance bound). R. J. Muirhead (1982), Aspects of
Multivariate Statistical Theory, Sec. 7.3 (monomial symmetric functions).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from symcheck.hyp0f1.partitions import partitions

__all__ = ["BOUND_ROUNDS", "correction", "expansion_terms", "fifth_cumulant", "gradient_remainder", "gradient_terms",
           "moment_bounds", "monomial_sum", "remainder", "sixth_cumulant", "split"]

#: Rounds of the alternating refinement of V, W (and U) in :func:`moment_bounds`, plus one (each a valid bound; three
#: settle them to a few per cent).
BOUND_ROUNDS = 3


def split(sig: np.ndarray, gap: float):
    """Clusters of the positive entries of ``sig``: consecutive values (sorted decreasingly) less than ``gap``
    apart relative to the larger one belong to one cluster.

    Returns
    -------
    means : list of float
        Cluster means, decreasing (a cluster of one value: that value, exactly).
    sizes : list of int
    labels : ndarray of int
        The cluster of each entry of ``sig`` (−1 for entries ≤ 0).
    d : ndarray
        σᵢ − mean of its cluster (0 for entries ≤ 0).
    slack : float
        2Σ_c |Σ_{i∈c} dᵢ|, the allowance for the rounding of the means (module docstring).
    """
    sig = np.asarray(sig, dtype=float)
    order = np.argsort(-sig, kind="stable")
    labels = np.full(sig.shape, -1, dtype=np.int64)
    groups: list = []
    prev = None
    for i in order:
        v = sig[i]
        if not v > 0.0:
            break
        if prev is not None and prev - v < gap * prev:
            groups[-1].append(i)
        else:
            groups.append([i])
        prev = v
    means, sizes = [], []
    d = np.zeros(sig.shape)
    slack = 0.0
    for c, members in enumerate(groups):
        vals = sig[members]
        mean = float(vals[0]) if len(members) == 1 else math.fsum(vals) / len(members)
        labels[members] = c
        d[members] = vals - mean
        slack += 2.0 * abs(math.fsum(d[members]))
        means.append(mean)
        sizes.append(len(members))
    return means, sizes, labels, d, slack


def monomial_sum(x: np.ndarray, lam: tuple) -> float:
    """m_λ(x): the sum of x^α over the distinct exponent vectors α that are rearrangements of λ (zeros padded)."""
    if not lam:
        return 1.0
    if len(lam) > x.size:
        return 0.0
    mult = math.prod(math.factorial(lam.count(v)) for v in set(lam))
    total = math.fsum(math.prod(x[i] ** a for i, a in zip(idx, lam))
                      for idx in itertools.permutations(range(x.size), len(lam)))
    return total / mult


def expansion_terms(d_by_cluster: list, available) -> tuple[int, list]:
    """The terms of (2): ``(n, terms)`` with n the order of the remainder of (1) and ``terms[j]`` (j = 2 … n − 1) a
    list of (λ tuple, coefficient) whose moments ``available(λ)`` says the confluent system holds.

    ``d_by_cluster`` holds d per cluster (in the confluent system's cluster order). Terms whose coefficient is 0
    (a cluster that does not move, λ_c = (1)) are dropped; n is the first degree j ≤ 6 with a term the system does
    not hold, else 7.
    """
    moving = [c for c, dc in enumerate(d_by_cluster) if np.any(dc != 0.0)]
    r = len(d_by_cluster)
    terms: dict = {}
    n = 7
    for j in (2, 3, 4, 5, 6):
        out = []
        for degrees in itertools.product(range(j + 1), repeat=len(moving)):
            if sum(degrees) != j or 1 in degrees:  # m_(1)(d_c) = Σ_{i∈c} dᵢ = 0
                continue
            for parts in itertools.product(*[partitions(a, d_by_cluster[c].size)
                                             for a, c in zip(degrees, moving)]):
                coef = math.factorial(j)
                for lam, c in zip(parts, moving):
                    coef *= monomial_sum(d_by_cluster[c], lam) / math.prod(math.factorial(a) for a in lam)
                if coef == 0.0:
                    continue
                tup = [()] * r
                for lam, c in zip(parts, moving):
                    tup[c] = lam
                out.append((tuple(tup), coef))
        if not all(available(t) for t, _ in out):
            n = j
            break
        terms[j] = out
    return n, terms


def correction(moments: dict) -> float:
    """κ₂/2 + κ₃/6 + κ₄/24 + κ₅/120 + κ₆/720 of (1) from ``moments[j]`` = E Xʲ at the tied point (those present;
    E X = 0)."""
    m2 = moments.get(2, 0.0)
    out = m2 / 2.0
    if 3 in moments:
        out += moments[3] / 6.0
    if 4 in moments:
        out += (moments[4] - 3.0 * m2 * m2) / 24.0
    if 5 in moments:
        out += fifth_cumulant(moments) / 120.0
    if 6 in moments:
        out += sixth_cumulant(moments) / 720.0
    return out


def fifth_cumulant(moments: dict) -> float:
    """κ₅ = E X⁵ − 10 E X³ E X² at the tied point (E X = 0) from ``moments``."""
    return moments[5] - 10.0 * moments[3] * moments[2]


def sixth_cumulant(moments: dict) -> float:
    """κ₆ = E X⁶ − 15 E X⁴ E X² − 10 (E X³)² + 30 (E X²)³ at the tied point (E X = 0) from ``moments``."""
    m2 = moments[2]
    return moments[6] - 15.0 * moments[4] * m2 - 10.0 * moments[3] ** 2 + 30.0 * m2**3


def moment_bounds(l1: float, var0: float, fourth0: float | None = None,
                  sixth0: float | None = None) -> tuple[float, float, float]:
    """(V, W, U) of (3): bounds on the central moments μ₂, μ₄ and μ₆ of X along the segment, from ‖d‖₁ = ``l1`` and
    bounds ``var0``, ``fourth0``, ``sixth0`` on μ₂, μ₄, μ₆ at the tied point where the moments hold them (inf, NaN or
    None: the worst cases ℓ²/4, ℓ²V and ℓ²W). Each round takes the smaller of a bound and one derived from the
    previous round's (valid) bounds, so every round's bounds are valid."""
    ell = 2.0 * l1
    var = ell * ell / 4.0
    if var0 >= 0.0 and math.isfinite(var0):
        var = min(var, var0 * math.exp(ell))
    if fourth0 is None or not (fourth0 >= 0.0 and math.isfinite(fourth0)) or not (var0 >= 0.0 and math.isfinite(var0)):
        return var, ell * ell * var, ell**4 * var
    have_sixth = sixth0 is not None and sixth0 >= 0.0 and math.isfinite(sixth0)
    growth = math.exp(ell / 2.0)
    fourth = ell * ell * var
    sixth = ell * ell * fourth
    for _ in range(BOUND_ROUNDS + 1):
        fourth = min(fourth, ell * ell * var, (growth * (math.sqrt(fourth0) + 2.0 * var**1.5)) ** 2)
        sixth = min(sixth, ell * ell * fourth)
        if have_sixth:
            sixth = min(sixth, (growth * (math.sqrt(sixth0) + 3.0 * var * math.sqrt(fourth))) ** 2)
            fourth = min(fourth, fourth0 + math.sqrt(fourth * sixth) + 4.0 * var * math.sqrt(var * fourth))
        var = min(var, var0 + math.sqrt(var * fourth))
    return var, fourth, sixth


def remainder(l1: float, n: int, var: float, fourth: float, kappa5: float = 0.0, sixth: float | None = None,
              kappa6: float = 0.0) -> float:
    """Bound (3) on the remainder of (1) at order n ∈ {4, 5, 6, 7} for ‖d‖₁ = ``l1`` and (V, W, U) = (``var``,
    ``fourth``, ``sixth``) of :func:`moment_bounds` (U = ℓ²W where not given); at n = 6 and 7 the smaller of the
    κ_n bound and the bound one order lower plus the term that order omits, |``kappa5``|/120 or |``kappa6``|/720."""
    ell = 2.0 * l1
    if sixth is None:
        sixth = ell * ell * fourth
    if n == 4:
        return max(fourth, 3.0 * var * var) / 24.0
    mu3 = math.sqrt(var * fourth)  # |μ₃| ≤ √(μ₂μ₄)
    mu5 = min(ell * fourth, math.sqrt(fourth * sixth))  # |μ₅| ≤ ℓμ₄ and ≤ √(μ₄μ₆)
    fifth = (mu5 + 10.0 * var * mu3) / 120.0
    if n == 5:
        return fifth
    six = min(max(sixth + 30.0 * var**3, 25.0 * var * fourth) / 720.0, fifth + abs(kappa5) / 120.0)
    if n == 6:
        return six
    seventh = (ell * sixth + 21.0 * var * mu5 + 35.0 * fourth * mu3 + 210.0 * var * var * mu3) / 5040.0
    return min(seventh, six + abs(kappa6) / 720.0)


def gradient_terms(d_by_cluster: list, available) -> list | None:
    """The terms of (4): for each entry i (cluster by cluster, in the order of ``d_by_cluster``) a list of
    (λ tuple, Σ dⱼd_l over the (j, l) whose (i, j, l) has that orbit), so E[tᵢX²] = Σ coefficient·M(λ)/F; None where
    ``available`` lacks a moment."""
    r = len(d_by_cluster)
    entries = [(c, a) for c, dc in enumerate(d_by_cluster) for a in range(dc.size)]
    moving = [(c, a) for c, a in entries if d_by_cluster[c][a] != 0.0]
    out = []
    for i in entries:
        acc: dict = {}
        for j in moving:
            for l in moving:
                counts: list = [{} for _ in range(r)]
                for c, a in (i, j, l):
                    counts[c][a] = counts[c].get(a, 0) + 1
                lam = tuple(tuple(sorted(cnt.values(), reverse=True)) for cnt in counts)
                acc[lam] = acc.get(lam, 0.0) + float(d_by_cluster[j[0]][j[1]]) * float(d_by_cluster[l[0]][l[1]])
        if not all(available(lam) for lam in acc):
            return None
        out.append(list(acc.items()))
    return out


def gradient_remainder(l1: float, var: float, fourth: float, second_order: bool) -> float:
    """Bound (5) on the gradient's remainder for ‖d‖₁ = ``l1`` and (V, W) = (``var``, ``fourth``) of
    :func:`moment_bounds`: after the term (4), (min(2√(VW), ℓ√W) + 3V^{3/2})/6; after the first-order term alone,
    min(2V, √W)/2."""
    if not second_order:
        return min(2.0 * var, math.sqrt(fourth)) / 2.0
    return (min(2.0 * math.sqrt(var * fourth), 2.0 * l1 * math.sqrt(fourth)) + 3.0 * var**1.5) / 6.0
