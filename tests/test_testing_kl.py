"""The Gaussian-KL checker of `symcheck.testing` passes correct subjects and catches planted bugs.

References: mpmath at 50 digits (LU) for d ≤ 60, exact eigenbases for d = 64..200 (checked here
against the mpmath route). Correct subject: a float64 KL through L1⁻¹(S0 − S1)L1⁻ᵀ and log1p
(no O(d) cancellation), at three seeds. Planted bugs: swapped arguments, the log-determinant left
out, the trace with S0 and S1 swapped, inverse/determinant (underflows in high dimension),
float32; the textbook sum of O(d) terms fails near-identical pairs only, by orders of magnitude,
and passes once atol admits its d·1e-15 absolute accuracy (symcheck's own `kl_gaussian`, which
takes the difference form there, passes at the default rtol: tests/test_kl.py).
"""

import math

import mpmath
import numpy as np
import pytest
import scipy.linalg as sl

from symcheck.testing import assert_kl_gaussian, check_kl_gaussian
from symcheck.testing import kl as tkl

NEAR = "near-identical (KL ~ 1e-12)"


def _x_minus_log1p(e):
    """x − log1p(x) without cancellation: its series for |x| < 0.1 (truncation below 0.1²⁰/20)."""
    out = np.empty_like(e)
    small = np.abs(e) < 0.1
    x = e[small]
    out[small] = sum((-1) ** n * x**n / n for n in range(2, 21))
    out[~small] = e[~small] - np.log1p(e[~small])
    return out


def stable_kl(m0, S0, m1, S1):
    """½(Σ eᵢ − log1p(eᵢ) + ‖L1⁻¹δ‖²), eᵢ the eigenvalues of L1⁻¹(S0 − S1)L1⁻ᵀ: no O(d) cancellation."""
    L1 = np.linalg.cholesky(S1)
    X = sl.solve_triangular(L1, S0 - S1, lower=True)
    E = sl.solve_triangular(L1, X.T, lower=True)
    r = sl.solve_triangular(L1, m1 - m0, lower=True)
    return 0.5 * (np.sum(_x_minus_log1p(np.linalg.eigvalsh(0.5 * (E + E.T)))) + r @ r)


def textbook_kl(m0, S0, m1, S1):
    """The formula as usually typed: one sum of O(d) terms (log-determinants by slogdet)."""
    inv1 = np.linalg.inv(S1)
    d = m1 - m0
    return 0.5 * (np.trace(inv1 @ S0) + d @ inv1 @ d - len(m0) + np.linalg.slogdet(S1)[1] - np.linalg.slogdet(S0)[1])


def naive_inv_det(m0, S0, m1, S1):
    """Determinants instead of log-determinants: |S| underflows for d = 60, S ~ 1e-6."""
    iS1 = np.linalg.inv(S1)
    d = m1 - m0
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0: the NaN is the evidence
        return 0.5 * (np.trace(iS1 @ S0) + d @ iS1 @ d - len(m0) + np.log(np.linalg.det(S1) / np.linalg.det(S0)))


# ----- references -----------------------------------------------------------------------------------

def test_mpmath_reference_matches_the_closed_form_of_scalar_gaussians():
    # KL[N(a, s²) ‖ N(b, t²)] = log(t/s) + (s² + (a − b)²)/(2t²) − ½
    m0, S0, m1, S1 = np.array([0.5]), np.array([[0.25]]), np.array([2.0]), np.array([[4.0]])
    exact = math.log(2.0 / 0.5) + (0.25 + 1.5 ** 2) / 8.0 - 0.5
    assert float(tkl.kl_gaussian_mp(m0, S0, m1, S1)) == pytest.approx(exact, rel=1e-15)


@pytest.mark.parametrize("d, cond, near", [(24, 1e4, False), (13, 10.0, False), (24, 10.0, True)])
def test_exact_eigenbasis_reference_agrees_with_the_mpmath_route(d, cond, near):
    """The d ≥ 64 route (rationals + logs) against mpmath LU on the same float64 matrices, to 1e-30."""
    pair, ref = tkl._structured_pair(np.random.default_rng(d), d, cond, near=near)
    assert np.count_nonzero(pair[1]) > 0.4 * d * d  # dense, not a diagonal in disguise
    with mpmath.workdps(tkl.DPS):
        assert abs(ref - tkl.kl_gaussian_mp(*pair)) <= 1e-30 * (1 + abs(ref))


def test_pairs_are_fresh_copies():
    first = tkl.kl_gaussian_pairs(0)
    first[0][2][0][:] = 1e6
    assert tkl.kl_gaussian_pairs(0)[0][2][0][0] != 1e6


# ----- correct subjects -----------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_stable_float64_kl_passes_every_family(seed):
    result = check_kl_gaussian(stable_kl, seed=seed)
    assert result, result.table()
    assert len(result.rows) == 7 and "exact eigenbases" in result.criterion


# ----- planted bugs ---------------------------------------------------------------------------------

def test_a_sum_of_order_d_terms_fails_near_identical_pairs_only():
    subject = textbook_kl
    result = check_kl_gaussian(subject)
    assert [r.name for r in result.failures] == [NEAR], result.table()
    row = result.failures[0]
    assert row.values["max error"] > 1e3 * row.values["tolerance"]  # orders of magnitude, not a rounding slip
    assert "d=" in row.values["worst input"] and "reference KL" in result.reproducer
    assert check_kl_gaussian(subject, atol=1e-12), "its absolute accuracy d·1e-15 is admitted by atol"


@pytest.mark.parametrize("name, subject", [
    ("arguments swapped", lambda m0, S0, m1, S1: stable_kl(m1, S1, m0, S0)),
    ("log-det term missing", lambda m0, S0, m1, S1: stable_kl(m0, S0, m1, S1)
     - 0.5 * (np.linalg.slogdet(S1)[1] - np.linalg.slogdet(S0)[1])),
    ("trace with S0, S1 swapped", lambda m0, S0, m1, S1: stable_kl(m0, S0, m1, S1)
     - 0.5 * np.trace(np.linalg.solve(S1, S0)) + 0.5 * np.trace(np.linalg.solve(S0, S1))),
    ("float32", lambda m0, S0, m1, S1: np.float32(stable_kl(m0, S0, m1, S1))),
])
def test_planted_formula_bugs_fail_beyond_the_near_identical_family(name, subject):
    result = check_kl_gaussian(subject)
    assert {r.name for r in result.failures} - {NEAR}, f"{name} was not caught: {result.table()}"


def test_determinants_underflow_in_high_dimension():
    result = check_kl_gaussian(naive_inv_det)
    assert "high dimension, small variances (S ~ 1e-6)" in {r.name for r in result.failures}


def test_assert_form_and_bad_arguments():
    assert_kl_gaussian(stable_kl)
    with pytest.raises(AssertionError, match="near-identical"):
        assert_kl_gaussian(textbook_kl)
    for bad, name in (({"rtol": math.nan}, "rtol"), ({"atol": -1.0}, "atol"), ({"seed": -1}, "seed")):
        with pytest.raises(ValueError, match=name):
            check_kl_gaussian(stable_kl, **bad)
    with pytest.raises(ValueError, match="fn"):
        check_kl_gaussian(None)
