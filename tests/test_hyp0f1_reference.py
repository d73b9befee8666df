"""Unit checks of the mpmath reference (symcheck.hyp0f1.reference).

Expected values: the closed forms evaluated in mpmath at higher precision, the degree-1
coefficient 1/b of the series, the scalar ₀F₁ for rank one, and the O(3) quadrature of the
claims module; the float64 series is compared in the claims hyp0f1.series.*.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from symcheck.evidence import ROUNDING
from symcheck.haar_quadrature import o3_log_integral
from symcheck.hyp0f1 import reference
from symcheck.hyp0f1.closed_form_mp import closed_form_mp, equal_spectrum_dps, equal_spectrum_mp
from symcheck.hyp0f1.partitions import partitions
from symcheck.hyp0f1.reference import hyp0f1_reference


@pytest.mark.parametrize("k", [1, 2, 3, 6])
def test_matches_closed_forms_to_dps(k, rng):
    dps = 40
    for _ in range(3):
        sig = np.zeros(k)
        if k <= 2:
            sig[:] = rng.uniform(0.0, 12.0, k)
        else:  # the reference's cost grows with k at fixed degree: smaller s for k = 6
            sig[rng.integers(k)] = rng.uniform(0.0, 12.0 if k == 3 else 5.0)
        with mpmath.workdps(dps + 20):
            ref = hyp0f1_reference(sig, k, dps=dps)
            exact = closed_form_mp(sig, k)
            # truncation ≤ 10^-(dps+2), guarded recursion; returned at dps digits (half an ulp)
            assert abs(ref / exact - 1) <= mpmath.mpf(10) ** (-(dps - 2))


@pytest.mark.parametrize("s,c", [(0.3, 0.01), (8.5, 0.5), (20.0, 4.5), (40.0, 50.0), (7.0, 24.5)])
def test_degree_is_the_first_meeting_either_bound(s, c):
    """reference_degree with c = σ_max²/2: the first M whose Σσ bound or moment bound (evaluated here
    term by term in mpmath) is ≤ 10^(−dps−2)."""
    dps = 20
    with mpmath.workdps(40):
        target = mpmath.mpf(10) ** (-(dps + 2))

        def ok(m):
            r1, r2 = mpmath.mpf(s) ** 2 / ((2 * m + 3) * (2 * m + 4)), mpmath.mpf(c) / (m + 2)
            crude = r1 < 1 and mpmath.mpf(s) ** (2 * m + 2) / mpmath.factorial(2 * m + 2) / (1 - r1) <= target
            return crude or (r2 < 1 and mpmath.mpf(c) ** (m + 1) / mpmath.factorial(m + 1) / (1 - r2) <= target)

        first = next(m for m in range(1000) if ok(m))
    assert reference.reference_degree(s, dps, c=c) == first
    assert reference.reference_degree(s, dps, c=c) <= reference.reference_degree(s, dps)


def _equal_k20_error(monkeypatch=None, shrink=1.0):
    """|reference/Bessel determinants − 1| at k = 20, all σ = 1 (degree 18 by the moment bound, 40 without)."""
    if monkeypatch is not None:
        original = reference.reference_degree
        monkeypatch.setattr(reference, "reference_degree",
                            lambda s, dps, cap=None, c=None: original(s, dps, cap, c=None if c is None else shrink * c))
    sig = np.full(20, 1.0)
    with mpmath.workdps(equal_spectrum_dps(1.0, 20, 40)):
        return abs(hyp0f1_reference(sig, 20, dps=25) / equal_spectrum_mp(1.0, 20) - 1)


def test_moment_bound_degree_matches_bessel_determinants_at_k20():
    """The degree the moment bound picks is enough: 25 digits against Bessel determinants (no series)."""
    assert _equal_k20_error() <= mpmath.mpf(10) ** -24


def test_k20_check_catches_a_moment_constant_four_times_small(monkeypatch):
    assert _equal_k20_error(monkeypatch, 0.25) > mpmath.mpf(10) ** -24


def test_degree_one_coefficient():
    """F = 1 + tr X / b + O(X²) with b = k/2 (C_(1) = tr X, (b)_(1) = b)."""
    k = 4
    coef = reference._coefficients(k, 2)
    with mpmath.workdps(30):
        assert coef[1][(1,)] == mpmath.mpf(2) / k
        sig = np.array([1e-6, 2e-6, 0.0, 3e-6])
        val = hyp0f1_reference(sig, k, dps=30)
        trx = sum(mpmath.mpf(float(v)) ** 2 for v in sig) / 4
        # the degree-2 part is ≤ (Σσ)^4/4! (series truncation bound); the value carries 30 digits
        assert abs(val - 1 - trx * 2 / k) <= mpmath.mpf(6e-6) ** 4 / 24 + mpmath.mpf(10) ** -29


def test_matches_o3_quadrature():
    sig = np.array([1.0, 0.7, 0.2])
    fine, grid_err = o3_log_integral(lambda T: np.einsum("nii,i->n", T, sig))
    ref = float(mpmath.log(hyp0f1_reference(sig, 3, dps=20)))
    assert abs(ref - fine) <= grid_err + ROUNDING


def test_precision_restored():
    before = mpmath.mp.dps
    hyp0f1_reference([0.5, 0.25], 2, dps=60)
    assert mpmath.mp.dps == before
    with pytest.raises(ValueError):
        hyp0f1_reference([50.0] * 20, 20, dps=30)
    assert mpmath.mp.dps == before


def test_returned_precision():
    val = hyp0f1_reference([0.5, 0.25], 2, dps=45)
    assert isinstance(val, mpmath.mpf)
    with mpmath.workdps(70):
        assert abs(val / closed_form_mp([0.5, 0.25], 2) - 1) <= mpmath.mpf(10) ** -43


@pytest.mark.parametrize("sigma,k,dps,match", [
    ([1.0, np.nan], 2, 30, "NaN"),
    ([1.0, -1.0], 2, 30, "non-negative"),
    ([1.0, 0.5, 0.1], 2, 30, "last axis"),
    ([[1.0, 0.5]], 2, 30, "one vector"),
    ([1.0], 0, 30, "k must be"),
    ([1.0, 0.5], 2, 10, "dps"),
    ([1.0, 0.5], 2, 20.5, "dps"),
    ([50.0] * 20, 20, 30, "sigma"),
])
def test_bad_input(sigma, k, dps, match):
    with pytest.raises(ValueError, match=match):
        hyp0f1_reference(np.array(sigma), k, dps=dps)


def test_closed_form_mp_refuses_inputs_without_a_closed_form():
    with pytest.raises(ValueError, match="sigma"):
        closed_form_mp([1.0, 0.5, 0.2], 3)
    with pytest.raises(ValueError, match="sigma"):
        closed_form_mp([1.0, -0.5], 2)
    with mpmath.workdps(30):  # k = 1 is cosh, and rank one at σ = 0 is 1
        assert abs(closed_form_mp([0.7], 1) - mpmath.cosh(mpmath.mpf(0.7))) < mpmath.mpf(10) ** -29
        assert closed_form_mp([0.0, 0.0, 0.0, 0.0], 4) == 1


def _monomial_by_permutations(lam, x):
    """m_λ(x) as an exact Fraction: the sum of x^α over the distinct orderings α of λ padded to len(x)."""
    alphas = set(itertools.permutations(tuple(lam) + (0,) * (len(x) - len(lam))))
    return sum(math.prod(Fraction(xi) ** a for xi, a in zip(x, alpha)) for alpha in alphas)


def test_monomials_are_exact_then_rounded_once():
    """The integer recursion of `_monomials` vs the exact sum over the orderings of each λ (Fractions),
    with a zero, a 2^-300 and equal variables: one rounding to the working precision, |rel err| ≤ 2^-prec;
    planted: the same comparison against x with one entry moved by one float64 ulp fails."""
    floats = [0.75, 1.0 / 3.0, 0.0, 2.0**-300, 0.75]
    parts = [lam for m in range(7) for lam in partitions(m, 4)]
    with mpmath.workprec(120):
        x = [mpmath.mpf(v) for v in floats]
        got = reference._monomials(x, parts)
        moved = [Fraction(v) for v in floats]
        moved[1] = Fraction(np.nextafter(floats[1], 1.0))
        for lam in parts:
            exact = _monomial_by_permutations(lam, [Fraction(v) for v in floats])
            assert abs(Fraction(*got[lam].as_integer_ratio()) - exact) <= exact * Fraction(1, 2**120)
            if lam:  # x₂ = 1/3 enters a fair share of the terms of every m_λ: one ulp moves it by ~2^-56 relative
                assert abs(Fraction(*got[lam].as_integer_ratio()) - _monomial_by_permutations(lam, moved)) \
                    > exact * Fraction(1, 2**120)


def test_raising_the_partition_limit_takes_effect_after_a_call(monkeypatch):
    """The degree cap follows MAX_PARTITIONS as it is at the call (it was cached by k alone, so a limit raised
    after a first call at the same number of parts was ignored: the CI run of 2026-11-27 met it)."""
    from symcheck.hyp0f1 import reference

    before = reference._degree_cap(8)
    monkeypatch.setattr(reference, "MAX_PARTITIONS", 150_000)
    assert reference._degree_cap(8) > before


def test_a_call_sets_its_own_partition_limit():
    """max_partitions bounds one call: k = 5, σ = 10…1 needs degree 56 at 20 digits, 73 718 partitions, and is
    refused below that with the limit named (also by the default MAX_PARTITIONS = 40 000); a non-integer limit
    is refused."""
    sig = np.linspace(10.0, 1.0, 5)
    with pytest.raises(ValueError, match="max_partitions=73717 partitions"):
        reference.hyp0f1_reference(sig, 5, dps=20, max_partitions=73_717)
    with pytest.raises(ValueError, match="max_partitions must be an integer"):
        reference.hyp0f1_reference(sig, 5, dps=20, max_partitions=1.5)
