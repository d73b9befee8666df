"""Double-double arithmetic (a value as an unevaluated sum hi + lo of two float64, |lo| ≤ ulp(hi)/2) for Numba kernels.

About 106 bits of significand from float64 operations alone: Dekker's (1971) splitting and exact product, Knuth's
two-sum, the accurate double-double sum (relative error ≤ 3u² + 13u³, u = 2⁻⁵³), a double-double times a float64
(≤ 2u²), bounds proved by Joldes, Muller & Popescu (2017, "Tight and rigorous error bounds for basic building
blocks of double-word arithmetic", ACM TOMS 44(2)), and the product of two double-doubles without FMA (≤ 7u²: their
5u² for DWTimesDW, one more rounding and the dropped lo·lo term); tests/test_hyp0f1_double_double.py checks them against exact rationals. :mod:`confluent` assembles its
relations with it, where float64 sums cancel (its module docstring, "Regime"). No FMA is needed or assumed: Numba
compiles without floating-point contraction unless ``fastmath`` is set, and every kernel here is compiled without it.

Inputs must stay below ~1e300 (the splitting constant multiplies them by 2²⁷ + 1).
"""
from __future__ import annotations

from numba import njit

__all__ = ["dd_add", "dd_mul", "dd_mul_d", "dd_recip_int", "two_prod", "two_sum"]

_SPLIT = 134217729.0  # 2**27 + 1


@njit(cache=True, inline="always")
def two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, inline="always")
def _quick_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


@njit(cache=True, inline="always")
def _split(a):
    c = _SPLIT * a
    hi = c - (c - a)
    return hi, a - hi


@njit(cache=True, inline="always")
def two_prod(a, b):
    """(p, e) with p = fl(a·b) and p + e = a·b exactly (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True, inline="always")
def dd_add(ah, al, bh, bl):
    """(ah + al) + (bh + bl) as a double-double (the accurate sum of Hida, Li & Bailey)."""
    s, e = two_sum(ah, bh)
    t, f = two_sum(al, bl)
    e += t
    s, e = _quick_two_sum(s, e)
    e += f
    return _quick_two_sum(s, e)


@njit(cache=True, inline="always")
def dd_mul(ah, al, bh, bl):
    """(ah + al)·(bh + bl) as a double-double."""
    p, e = two_prod(ah, bh)
    e += ah * bl + al * bh
    return _quick_two_sum(p, e)


@njit(cache=True, inline="always")
def dd_mul_d(ah, al, b):
    """(ah + al)·b for a float64 b, as a double-double."""
    p, e = two_prod(ah, b)
    e += al * b
    return _quick_two_sum(p, e)


@njit(cache=True, inline="always")
def dd_recip_int(n):
    """1/n for a non-zero integer-valued float64 n (|n| < 2⁵³) as a double-double (one Newton correction)."""
    q = 1.0 / n
    p, e = two_prod(q, n)
    return _quick_two_sum(q, ((1.0 - p) - e) / n)
