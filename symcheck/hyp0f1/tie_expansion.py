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
degree 4 inside a cluster needs p_c ≥ 3, so n = 5 where every cluster that moves has p_c ≥ 3, else n = 4 (at
p_c = 2, d_c = (δ, −δ) and E(t₁ − t₂)⁴ needs M((4))).

Remainder. At every θ, X lies in [−‖d‖₁, ‖d‖₁] (|tᵢ| ≤ 1), an interval of length ℓ = 2‖d‖₁, so its central
moments obey |μ_q| ≤ ℓ^{q−2}μ₂ and μ₂ ≤ ℓ²/4 (Popoviciu 1935). Since dκ₂/dθ = κ₃ and |κ₃| = |μ₃| ≤ ℓκ₂,
Grönwall's inequality gives κ₂(θ) ≤ V := min(ℓ²/4, κ₂(0)e^ℓ) on [0, 1], and

    |κ₄| = |μ₄ − 3μ₂²| ≤ ℓ²V,    |κ₅| = |μ₅ − 10μ₃μ₂| ≤ ℓ³V + 10ℓV·ℓ²/4 = 3.5ℓ³V,                                (3)

so the remainder of (1) is at most ℓ²V/24 (n = 4) or 3.5ℓ³V/120 (n = 5). κ₂(0) = E X² comes from the same
moments as the terms, so V is taken with twice the largest κ₂(0) of the ray's runs (its error is the ray's, far below
that); the bound is proven given it. At the goal table's near clusters (consecutive σ 1e-4 apart, k = 8,
σ_max = 30: ‖d‖₁ ≈ 0.016) the worst case V = ℓ²/4 alone gives 2.4e-10; the first-order band of :mod:`near_equal`
would be ‖d‖₁²/4 = 6e-5.

The rounding of the means leaves e_c = Σ_{i∈c} dᵢ ≠ 0 (summed exactly, :func:`math.fsum`): moving each cluster's
base by e_c/p_c makes the expansion exact again and changes log F by at most Σ|e_c| (every ∂ log F/∂σᵢ lies in
[0, 1]) and the terms of (1) by less; :func:`split` returns 2Σ|e_c|.

Gradient. ∂ᵢ log F = E tᵢ =: fᵢ(θ) along the segment, with fᵢ' = Cov(tᵢ, X), fᵢ'' = κ(tᵢ, X, X) (joint
cumulants). At θ = 0, for i in cluster c (the other clusters' sums of d vanish), Cov(tᵢ, X) = (Var tᵢ − Cov(tᵢ, tⱼ))dᵢ
= α_c dᵢ with α_c = (M((2)_c) − M((1,1)_c))/F (j ≠ i in c), and, E X being 0,

    κ(tᵢ, X, X) = E[tᵢX²] − g_c E X²,   E[tᵢX²] = Σ_{j,l} dⱼd_l ⟨tᵢtⱼt_l⟩/F,                                       (4)

each ⟨tᵢtⱼt_l⟩ the orbit moment of the multiplicities of (i, j, l) in each cluster (:func:`gradient_terms`; for
every i, also where dᵢ = 0). The third derivative, κ(tᵢ, X, X, X) = E[t̃ᵢX̃³] − 3E[t̃ᵢX̃]E[X̃²] (centred), is at most
2ℓV + 3V^{3/2} in size (|t̃ᵢ| ≤ 2, Var tᵢ ≤ 1), so ∂ᵢ log F(σ) = g_c + α_c dᵢ + κ(tᵢ, X, X)/2 within
(2ℓV + 3V^{3/2})/6 (+ Σ|e_c|).

References
----------
T. Popoviciu (1935), Mathematica (Cluj) 9, 129–145 (the variance bound). R. J. Muirhead (1982), Aspects of
Multivariate Statistical Theory, Sec. 7.3 (monomial symmetric functions).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

__all__ = ["correction", "expansion_terms", "gradient_remainder", "gradient_terms", "monomial_sum", "remainder", "split",
           "variance_bound"]


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


@functools.lru_cache(maxsize=None)
def _partitions(n: int, maxparts: int, maxpart: int | None = None) -> tuple:
    """Partitions of n (decreasing tuples) with at most ``maxparts`` parts."""
    if n == 0:
        return ((),)
    if maxparts == 0:
        return ()
    top = n if maxpart is None else min(n, maxpart)
    return tuple((first,) + rest for first in range(top, 0, -1) for rest in _partitions(n - first, maxparts - 1, first))


def expansion_terms(d_by_cluster: list, available) -> tuple[int, list]:
    """The terms of (2): ``(n, terms)`` with n the order of the remainder of (1) and ``terms[j]`` (j = 2 … n − 1) a
    list of (λ tuple, coefficient) whose moments ``available(λ)`` says the confluent system holds.

    ``d_by_cluster`` holds d per cluster (in the confluent system's cluster order). Terms whose coefficient is 0
    (a cluster that does not move, λ_c = (1)) are dropped; if a degree-4 term is needed and not available, n = 4.
    """
    moving = [c for c, dc in enumerate(d_by_cluster) if np.any(dc != 0.0)]
    r = len(d_by_cluster)
    terms: dict = {}
    n = 5
    for j in (2, 3, 4):
        out = []
        for degrees in itertools.product(range(j + 1), repeat=len(moving)):
            if sum(degrees) != j or 1 in degrees:  # m_(1)(d_c) = Σ_{i∈c} dᵢ = 0
                continue
            for parts in itertools.product(*[_partitions(a, d_by_cluster[c].size)
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
    """κ₂/2 + κ₃/6 + κ₄/24 of (1) from ``moments[j]`` = E Xʲ at the tied point (those present)."""
    m2 = moments.get(2, 0.0)
    out = m2 / 2.0
    if 3 in moments:
        out += moments[3] / 6.0
    if 4 in moments:
        out += (moments[4] - 3.0 * m2 * m2) / 24.0
    return out


def variance_bound(l1: float, var0: float) -> float:
    """V of (3): a bound on the variance of X along the segment, from ‖d‖₁ = ``l1`` and a bound ``var0`` on its
    variance at the tied point (inf or NaN: Popoviciu's ℓ²/4 alone)."""
    ell = 2.0 * l1
    worst = ell * ell / 4.0
    if not var0 >= 0.0 or not math.isfinite(var0):
        return worst
    return min(worst, var0 * math.exp(ell))


def remainder(l1: float, n: int, var: float) -> float:
    """Bound (3) on the remainder of (1) at order n ∈ {4, 5} for ‖d‖₁ = ``l1`` and V = ``var``
    (:func:`variance_bound`)."""
    ell = 2.0 * l1
    return ell * ell * var / 24.0 if n == 4 else 3.5 * ell**3 * var / 120.0


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


def gradient_remainder(l1: float, var: float, second_order: bool) -> float:
    """Bound on the gradient's remainder (module docstring): (2ℓV + 3V^{3/2})/6 after the term (4), V after the
    first-order term alone."""
    if not second_order:
        return var
    return (4.0 * l1 * var + 3.0 * var**1.5) / 6.0
