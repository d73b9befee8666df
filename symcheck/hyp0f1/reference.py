"""mpmath reference for ₀F₁(k/2; AAᵀ/4), independent of the zonal-polynomial kernel.

Route: the power series of F(x) = ₀F₁(b; diag(x)) in the *monomial* symmetric functions,
F = Σ_λ a_λ m_λ(x), with the coefficients a_λ obtained from the system of partial differential
equations that characterises ₀F₁ (Muirhead 1982, §7.5: the system of ₂F₁ and its confluent limits;
Constantine & Muirhead 1972): for every i = 1..k,

    xᵢ ∂ᵢ²F + c ∂ᵢF + ½ Σ_{j≠i} (xᵢ ∂ᵢF − x_j ∂_jF)/(xᵢ − x_j) = F,     c = b − (k − 1)/2,

F symmetric, analytic at 0, F(0) = 1. No zonal polynomial, hook length, Pochhammer symbol or
branching coefficient is used, so the comparison with :mod:`symcheck.hyp0f1.series` tests the
algorithm, not a shared formula.

Coefficient recursion. On a pair of exponents (p, q) = (xᵢ, x_j), the divided difference
(xᵢ∂ᵢ − x_j∂_j)/(xᵢ − x_j) sends xᵢ^p x_j^q + xᵢ^q x_j^p (p > q) to (p − q) Σ_{t=0}^{p−q−1}
xᵢ^{q+t} x_j^{p−1−t}; so the coefficient of x^β (|β| = m − 1) in equation i reads

    a_β = (βᵢ+1)(βᵢ+c) a_{β+eᵢ} + ½ Σ_{j≠i} Σ_{q=0}^{min(βᵢ,β_j)} (βᵢ+β_j+1−2q) a_{β[i←βᵢ+β_j+1−q, j←q]}.

For a partition γ of m take i = its last non-zero part and β = γ − eᵢ. The term q = β_j (for
β_j ≤ βᵢ, i.e. j after i, where β_j = 0) is a_γ itself; every other term moves weight from a
smaller to a larger part, i.e. is a partition that strictly dominates γ. Processing the
partitions of each degree in decreasing lexicographic order (which refines dominance) makes the
system triangular with positive diagonal

    a_γ = [a_β − ½ Σ_{j<i} Σ_{q=0}^{βᵢ} (βᵢ+β_j+1−2q) a_{sort(β[i←βᵢ+β_j+1−q, j←q])}]
          / [(βᵢ+1)(βᵢ+c) + ½ (k − ℓ(γ)) (βᵢ+1)],

whose unique solution are the true coefficients (₀F₁ satisfies every equation).

Rank-deficient σ: with m non-zero σᵢ only the monomials m_γ with ℓ(γ) ≤ m are non-zero, and the
equation for such a γ involves only partitions with ≤ ℓ(γ) parts (β, and β with weight moved
between two of its first ℓ(γ) entries), so the coefficients with ≤ m parts are a closed triangular
subsystem: they are computed alone (k still enters the diagonal through c and k − ℓ(γ)). The
cost then grows with the partitions with ≤ m parts, not ≤ k. The
subtraction loses digits, so the recursion runs with guard digits (see ``_GUARD``); the
monomial functions m_λ(x₁..x_n) = Σ_v x_n^v m_{λ∖v}(x₁..x_{n−1}) are computed exactly (integer
arithmetic on the dyadic x = σ²/4) and rounded once.

Truncation: degree M is the smallest with s^{2M+2}/(2M+2)!/(1 − s²/((2M+3)(2M+4))) ≤
10^{−dps−2}, s = Σσᵢ, or with c^{M+1}/(M+1)!/(1 − c/(M+2)) ≤ 10^{−dps−2}, c = σ_max²/2 (proofs in
:mod:`symcheck.hyp0f1.series`: the degree-m part is ∫(tr ATᵀ)^{2m}/(2m)! dT ≤ s^{2m}/(2m)!, and
≤ c^m/m! because the part is non-decreasing in each σᵢ and the moments of tr T over O(k) are at
most those of N(0, 1); the partial sum is ≥ 1). The second bound is what lets the reference reach
k = 20 at σ_max = 1 (degree 18 at dps = 20, against 27–45 for the first on the report's spread, two-cluster
and equal rows); it is checked without
this module against Bessel determinants for equal σ (``tests/test_hyp0f1_series.py``).

Valid range: the cost grows with the number of partitions with ≤ m parts of size ≤ M (m the
number of σᵢ > 0, at least 1), limited to ``MAX_PARTITIONS``; at dps = 30 this allows s = Σσ up to
about 58 for m = 3, 17 for m = 5, 9 for m = 8 and 7 for m = 20, whatever k (a ValueError names
sigma otherwise). A call takes milliseconds
for small s and minutes near the limit. Digits lost to the subtractions, measured against an 80-digit run: ≤ 4 for k ≤ 20,
M ≤ 60, well inside the 15 + M/4 guard digits.

References
----------
Muirhead, R. J. (1982). Aspects of Multivariate Statistical Theory, Thm. 7.4.1, §7.5.
Constantine, A. G. & Muirhead, R. J. (1972). Partial differential equations for hypergeometric
functions of two argument matrices. J. Multivariate Anal. 2, 332–338.
"""

from __future__ import annotations

import functools

import mpmath
import numpy as np

from symcheck._checks import as_sigma, check_int
from symcheck.hyp0f1.bounded_cache import SizeBoundedCache
from symcheck.hyp0f1.partitions import partitions

__all__ = ["MAX_DEGREE", "MAX_DPS", "MAX_PARTITIONS", "degree_for", "hyp0f1_reference", "reference_degree"]

#: Largest number of partitions (≤ k parts, size ≤ M) the reference accepts.
MAX_PARTITIONS = 40_000
#: Largest degree the reference sums (reached first for k = 1 and at most ~1 s there at dps = 50;
#: k ≥ 2 meets MAX_PARTITIONS first).
MAX_DEGREE = 2_000
#: Largest precision accepted, in decimal digits.
MAX_DPS = 1_000
#: Guard digits of the coefficient recursion: a base, plus one per this many degrees.
_GUARD = 15
_GUARD_PER_DEGREE = 4


def reference_degree(s, dps: int, cap: int | None = None, c=None) -> int:
    """Smallest degree M whose tail bound is ≤ 10^(−dps−2) at s = Σσ and, if given, c = σ_max²/2
    (module docstring).

    Each bound is infinite while its geometric ratio is ≥ 1 (s² ≥ (2M+3)(2M+4), c ≥ M + 2) and
    decreasing in M after that, so the search starts at the first M past the earlier of those points
    and doubles, then bisects: O(log M) steps for any s. With ``cap``, returns ``cap + 1`` as soon as
    M is known to exceed ``cap``.
    """
    with mpmath.workdps(30):
        s = mpmath.mpf(s)
        if s == 0:
            return 0
        target = -(dps + 2) * mpmath.log(10)
        c = None if c is None else mpmath.mpf(c)

        def ok(m):
            ratio = s * s / ((2 * m + 3) * (2 * m + 4))
            if ratio < 1 and ((2 * m + 2) * mpmath.log(s) - mpmath.loggamma(2 * m + 3)
                              - mpmath.log1p(-ratio)) <= target:
                return True
            return c is not None and c < m + 2 and ((m + 1) * mpmath.log(c) - mpmath.loggamma(m + 2)
                                                    - mpmath.log1p(-c / (m + 2))) <= target

        # every m below this has an infinite bound
        lo = max(0, int(mpmath.floor((mpmath.sqrt(s * s + 0.25) - 3.5) / 2)))
        if c is not None:
            lo = min(lo, max(0, int(mpmath.floor(c)) - 2))
        if cap is not None and lo > cap:
            return cap + 1
        if ok(lo):
            return lo
        step = 1
        while not ok(lo + step):  # invariant: not ok(lo)
            if cap is not None and lo + step > cap:
                return cap + 1
            lo, step = lo + step, 2 * step
        hi = lo + step  # ok(hi), not ok(lo)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return hi if cap is None or hi <= cap else cap + 1


def _count_partitions(k: int, degree: int) -> int:
    """Number of partitions with ≤ k parts and size ≤ degree (DP, exact)."""
    # p[j][n]: partitions of n into parts of size <= j  <->  (conjugate) at most j parts
    table = [1] + [0] * degree
    for part in range(1, k + 1):
        for n in range(part, degree + 1):
            table[n] += table[n - part]
    return sum(table)


def _degree_cap(k: int, max_partitions: int | None = None) -> int:
    """Largest degree ≤ MAX_DEGREE whose partitions (≤ k parts) number at most ``max_partitions`` (default
    MAX_PARTITIONS; the limits as they are at the call: a caller may raise them)."""
    return _cap_for(k, MAX_PARTITIONS if max_partitions is None else max_partitions, MAX_DEGREE)


@functools.lru_cache(maxsize=None)
def _cap_for(k: int, max_partitions: int, max_degree: int) -> int:
    lo, hi = 0, max_degree + 1  # invariant: lo within both limits, hi not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _count_partitions(k, mid) <= max_partitions else (lo, mid)
    return lo


def _coefficients(k: int, degree: int, coef: list[dict] | None = None, parts: int | None = None) -> list[dict]:
    """a_λ for all partitions λ with ≤ ``parts`` parts (default k) of each size 0..degree, at the
    current precision (a closed subsystem for any parts ≤ k: module docstring).

    ``coef`` (the result of an earlier call at the same k, parts and precision) is extended in place.
    """
    parts = k if parts is None else parts
    c = mpmath.mpf(1) / 2  # b − (k−1)/2 with b = k/2
    half = mpmath.mpf(1) / 2
    if coef is None:
        coef = [{(): mpmath.mpf(1)}]
    for m in range(len(coef), degree + 1):
        cur = {}
        for gamma in partitions(m, parts):
            ell = len(gamma)
            i = ell - 1
            beta = list(gamma)
            beta[i] -= 1
            bi = beta[i]
            num = coef[m - 1][tuple(p for p in beta if p)]
            for j in range(i):
                bj = beta[j]
                for q in range(bi + 1):
                    moved = beta.copy()
                    moved[i] = bi + bj + 1 - q
                    moved[j] = q
                    key = tuple(sorted((p for p in moved if p), reverse=True))
                    num -= half * (bi + bj + 1 - 2 * q) * cur[key]
            den = (bi + 1) * (bi + c) + half * (k - ell) * (bi + 1)
            cur[gamma] = num / den
        coef.append(cur)
    return coef


def _monomials(x: list, parts) -> dict:
    """m_λ(x₁, …, x_k) for every λ of ``parts`` (a set closed under removing a part), as a dict,
    each exact before one rounding to the working precision.

    One variable at a time, without recursion (so any k works): with m_λ of no variables
    equal to [λ = ∅], m_λ(x₁..x_n) = m_λ(x₁..x_{n−1}) + Σ_{distinct parts v of λ} x_n^v m_{λ∖v}(x₁..x_{n−1}).
    A variable x_n = 0 adds nothing and is skipped. The x_n (mpf, ≥ 0) are dyadic, x_n = M_n·2^{e_n},
    and every term of m_λ has degree |λ|: with E = min e_n and the integers X_n = M_n·2^{e_n − E},
    m_λ(x) = 2^{E|λ|}·m_λ(X), so the recursion runs on Python integers, exactly (and several times
    faster than in mpmath).
    """
    nonzero = [v for v in x if v != 0]
    low = min((v.exp for v in nonzero), default=0)
    table = {lam: int(not lam) for lam in parts}
    top = max((lam[0] for lam in table if lam), default=0)
    for v in nonzero:
        xn = v.man << (v.exp - low)
        power = [xn**j for j in range(top + 1)]  # each X_n^j once, as many partitions share it
        new = {}
        for lam, val in table.items():
            for idx, part in enumerate(lam):
                if idx == 0 or part != lam[idx - 1]:  # distinct parts (λ is non-increasing)
                    val += power[part] * table[lam[:idx] + lam[idx + 1:]]
            new[lam] = val
        table = new
    return {lam: mpmath.mpf((val, low * sum(lam))) for lam, val in table.items()}


#: Coefficients kept in the cached tables (one table per (k, number of parts, binary precision)), in
#: all: the least recently used tables are dropped beyond it (the newest is always kept). Four times
#: the largest table (MAX_PARTITIONS) is some tens of MB; the claims of one seed use about 20 tables
#: of 32 000 coefficients between them (measured), so a process running many seeds computes each
#: table once (with 8 tables they were recomputed on every call: half the time of
#: hyp0f1.series.vs-reference).
_CACHE_COEFFICIENTS = 4 * MAX_PARTITIONS
_CACHE = SizeBoundedCache(_CACHE_COEFFICIENTS, lambda table: sum(map(len, table)))


def _cached_coefficients(k: int, parts: int, degree: int, prec: int) -> list[dict]:
    """Coefficients (≤ ``parts`` parts) up to ``degree`` at binary precision ``prec``, extending a cached table."""

    def extend(coef):
        with mpmath.workprec(prec):
            return _coefficients(k, degree, coef, parts)

    return _CACHE.get((k, parts, prec), extend)


def degree_for(sig: np.ndarray, dps: int, cap: int | None = None) -> int:
    """`reference_degree` of one σ vector (float64, ≥ 0): at s = Σσ and c = σ_max²/2, the degree
    :func:`hyp0f1_reference` sums at ``dps`` digits (``cap + 1`` past ``cap``)."""
    return reference_degree(float(np.sum(sig)), dps, cap, c=mpmath.mpf(float(np.max(sig))) ** 2 / 2)


def hyp0f1_reference(sigma, k, dps: int = 50, max_partitions: int | None = None) -> mpmath.mpf:
    """₀F₁(k/2; AAᵀ/4) (not its log) for one σ vector, correct to about ``dps`` digits.

    Parameters
    ----------
    sigma : array_like, shape (k,)
        Singular values of A (finite, ≥ 0), converted exactly from float64.
    k : int
        Dimension of O(k) (>= 1).
    dps : int
        Decimal digits (>= 15). The mpmath precision is set for the call and restored.
    max_partitions : int, optional
        Most partitions the call may sum (default ``MAX_PARTITIONS``; >= 1). Time and memory grow with it:
        716 000 partitions with 6 parts took 78 s and 2.6 GB at dps = 20 (k = 6, σ = (10³, (10/3)³), 2026-11-28).

    Returns
    -------
    mpmath.mpf
        The value at ``dps`` digits; relative error ≤ 10^(−dps−2) from truncation plus the
        rounding of the guarded recursion (module docstring).

    Raises
    ------
    ValueError
        For invalid input, or if the degree needed exceeds ``max_partitions`` partitions.
    """
    sig, k = as_sigma(sigma, k)
    if sig.ndim != 1:
        raise ValueError(f"sigma must be one vector of shape (k,)=({k},), got shape {sig.shape}")
    dps = check_int(dps, "dps", minimum=15, maximum=MAX_DPS)
    s = float(np.sum(sig))
    parts = max(int(np.count_nonzero(sig)), 1)  # partitions with more parts have m_λ(x) = 0
    limit = MAX_PARTITIONS if max_partitions is None else check_int(max_partitions, "max_partitions", minimum=1)
    cap = _degree_cap(parts, limit)
    degree = degree_for(sig, dps, cap)
    if degree > cap:
        raise ValueError(f"sigma: Σσ = {s:.4g} needs a degree above {cap} at dps={dps}, i.e. more than "
                         f"max_partitions={limit} partitions with <= {parts} parts or more than "
                         f"MAX_DEGREE={MAX_DEGREE}; use smaller sigma or dps")
    guard = _GUARD + degree // _GUARD_PER_DEGREE
    guard -= guard % 5  # coarse precision steps let calls share cached coefficient tables
    with mpmath.workdps(dps + guard):
        prec = mpmath.mp.prec
        coef = _cached_coefficients(k, parts, degree, prec)
        x = [mpmath.mpf(float(v)) ** 2 / 4 for v in sig]
        mono = _monomials(x, [lam for m in range(degree + 1) for lam in coef[m]])  # coef may extend past degree
        total = mpmath.mpf(0)
        for m in range(degree, -1, -1):  # small terms first
            for lam, a in coef[m].items():
                total += a * mono[lam]
    with mpmath.workdps(dps):
        return +total
