"""Bad and extreme input never hangs or lies (issue #7), and the parallel Laplace kernel.

Each item of the issue has a check here; every expected value comes from an independent
route (a closed form or asymptotic formula written out in the test, mpmath at high
precision, or an exact limit), and every check has a planted-error twin that feeds it the
old (wrong) behaviour and sees it fail. Calls that used to hang go through the fuzz
suite's ``check_call`` (a hard guard ends the process with tracebacks instead of hanging).

Tolerances: values computed in float64 from O(k) terms of size up to |v| carry a
rounding error of a few eps·|v| (Higham 2002, §3); "4·eps·|v|" below is that bound with
k ≤ 3 terms, "8·eps" where a log of a ratio of two such sums is taken.
"""

from __future__ import annotations

import json
import math
import warnings

import mpmath
import numba
import numpy as np
import pytest
from scipy.special import log_expit

import symcheck
from symcheck import (
    SignFlip,
    entropy_gaussian,
    entropy_infonce,
    fit_factored_gaussian_numerically,
    grad_log_hyp0f1,
    haar_orthogonal,
    hyp0f1_reference,
    kl_gaussian,
    log_hyp0f1,
    log_hyp0f1_mc,
    orthogonal_logpdf,
    symmetrization_gap,
    symmetrized_logpdf,
)
from symcheck import _checks, signflip_exact, symmetrize
from symcheck.hyp0f1 import closed_form, laplace, series
from symcheck.models.moore import eq7_printed, listing1_log_bessel
from test_fuzz import PropertyViolation, check_call

EPS = np.finfo(float).eps
FMAX = np.finfo(float).max


def _log_vol_so3():
    """Vol SO(3) = |S¹|·|S²| = 2π·4π for the metric with orthonormal θᵢⱼ."""
    return math.log(8 * math.pi**2)


def _leading_asymptotic_k3(sig):
    """Laplace's method on SO(3) at T = I (identity coset only; the other is e^{−2σ₃} smaller):
    Σσ − ½ Σ_{i<j} log(σᵢ+σⱼ) + (3/2) log 2π − log 2 − log Vol SO(3)."""
    s1, s2, s3 = sig
    pairs = np.array([s1 + s2, s1 + s3, s2 + s3])
    return sig.sum() - 0.5 * np.sum(np.log(pairs)) + 1.5 * math.log(2 * math.pi) - math.log(2) - _log_vol_so3()


# ------------------------------------------------------------------ huge σ: answer or raise, quickly

X20 = 1e20 * np.array([1.0, 0.55, 0.1])


def _check_huge_value(value, sig):
    """log ₀F₁ at huge σ against the leading asymptotic (its O(1/σ) error is ~1e-20 here)."""
    expected = _leading_asymptotic_k3(sig)
    assert np.isfinite(value) and abs(value - expected) <= 4 * EPS * abs(expected)


def test_huge_sigma_value_and_gradient():
    value = check_call(log_hyp0f1, {"sigma": X20, "k": 3}, "sigma")
    _check_huge_value(float(value), X20)
    grad = check_call(grad_log_hyp0f1, {"sigma": X20, "k": 3}, "sigma")
    # ∂ᵢ = 1 − ½ Σ_{j≠i} 1/(σᵢ+σⱼ) + O(σ⁻²) = 1 to float64
    assert np.all(np.abs(grad - 1.0) <= 4 * EPS)


@pytest.mark.parametrize("fn,kwargs,name", [
    (log_hyp0f1, {"sigma": X20, "k": 3, "method": "series"}, "sigma"),
    (grad_log_hyp0f1, {"sigma": X20, "k": 3, "method": "series"}, "sigma"),
    (hyp0f1_reference, {"sigma": 1e300 * np.array([1.0, 0.55, 0.1]), "k": 3}, "sigma"),
    (hyp0f1_reference, {"sigma": np.array([1.0, 0.55, 0.1]), "k": 3, "dps": 10**20}, "dps"),
])
def test_huge_sigma_or_dps_raises_naming_it(fn, kwargs, name):
    err = check_call(fn, kwargs, name)
    assert isinstance(err, ValueError)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 20])
@pytest.mark.parametrize("method", ["auto", "laplace", "asymptotic"])
def test_any_sigma_up_to_float_max_answers(k, method):
    """Rows of equal σ with Σσ from 1e10 up to the float64 maximum: finite, ≤ Σσ and ≥ Σσ − k²·log Σσ."""
    if k == 1 and method == "asymptotic":
        pytest.skip("the asymptotic method needs k >= 2")
    for total in (1e10, 1e100, 1e200, 1e300, (1 - 1e-12) * FMAX):  # k·(total/k) must not round up past FMAX
        sig = np.full(k, total / k)
        value = float(check_call(log_hyp0f1, {"sigma": sig, "k": k, "method": method}, "sigma"))
        s = sig.sum()
        # log ₀F₁ ≤ Σσ (|tr ATᵀ| ≤ Σσ); every approximation here is within O(k² log Σσ) of it
        assert -k * k * math.log(s) - 4 * EPS * s <= value - s <= 4 * EPS * s


def test_planted_huge_value_check_fails():
    """A value off by one part in 1e14 (or the old −inf) fails the huge-σ check."""
    with pytest.raises(AssertionError):
        _check_huge_value(_leading_asymptotic_k3(X20) * (1 + 1e-14), X20)
    with pytest.raises(AssertionError):
        _check_huge_value(-np.inf, X20)


def test_planted_hang_is_caught():
    """The time limit of check_call catches a call that does not come back in time."""
    import time

    with pytest.raises(PropertyViolation, match="took"):
        check_call(lambda sigma: time.sleep(0.2), {"sigma": X20}, "sigma", seconds=0.05)


def test_degree_search_caps():
    """The degree search returns cap + 1 at once for any s beyond the cap, and the exact minimum below it."""
    s = np.array([0.0, 3.0, 25.0, 1e20, 1e300, FMAX])
    for cap in (0, 10, 88, 4096):
        got = series._degree_for_bound(s, 1e-14, cap)
        for si, m in zip(s, got):
            tail = lambda M: float(series.log_tail_bound(si, M))  # noqa: E731
            if m <= cap:
                assert tail(m) <= math.log(1e-14) and (m == 0 or tail(m - 1) > math.log(1e-14))
            else:
                assert m == cap + 1 and tail(cap) > math.log(1e-14)


# ------------------------------------------------------------------ rank one at huge σ (was NaN)


def _mp_rank_one(s, k):
    """log ₀F₁(k/2; s²/4) = log Γ(k/2) + (1 − k/2) log(s/2) + log I_{k/2−1}(s), and its s-derivative
    I_{k/2}(s)/I_{k/2−1}(s), by mpmath at 60 digits (Bessel functions of mpmath, not Hankel's series)."""
    with mpmath.workdps(60):
        s = mpmath.mpf(s)
        nu = mpmath.mpf(k) / 2 - 1
        i0, i1 = mpmath.besseli(nu, s), mpmath.besseli(nu + 1, s)
        value = mpmath.loggamma(mpmath.mpf(k) / 2) + (1 - mpmath.mpf(k) / 2) * mpmath.log(s / 2) + mpmath.log(i0)
        return float(value), float(i1 / i0)


def _check_rank_one(s, k):
    sig = np.zeros(k)
    sig[0] = s
    value, slope = _mp_rank_one(s, k)
    got = float(log_hyp0f1(sig, k, method="exact"))
    assert abs(got - value) <= 4 * EPS * abs(value)
    grad = grad_log_hyp0f1(sig, k, method="exact")
    assert abs(grad[0] - slope) <= 8 * EPS and np.all(grad[1:] == 0.0)


@pytest.mark.parametrize("k", [3, 20, 50])
@pytest.mark.parametrize("s", [2e9, 1e12, 1e15])
def test_rank_one_beyond_scipy_range_vs_mpmath(s, k):
    """scipy's ive is NaN above ~1.07e9: the Hankel route against mpmath's Bessel functions."""
    _check_rank_one(s, k)


@pytest.mark.parametrize("k", [3, 20, 50])
@pytest.mark.parametrize("method", ["auto", "exact"])
def test_rank_one_at_1e150(k, method):
    sig = np.zeros(k)
    sig[0] = 1e150
    value = float(log_hyp0f1(sig, k, method=method))
    # s − (k−1)/2 log s + O(1): equal to s in float64 (ulp(1e150) ≈ 2e134)
    assert value == pytest.approx(1e150, rel=4 * EPS)
    grad = grad_log_hyp0f1(sig, k, method=method)
    assert abs(grad[0] - 1.0) <= 4 * EPS and np.all(grad[1:] == 0.0)


def test_planted_hankel_without_corrections_fails(monkeypatch):
    """Hankel's expansion cut to its leading term (no ν dependence) fails the gradient check."""
    monkeypatch.setattr(closed_form, "_log_ive_hankel", lambda nu, s: -0.5 * np.log(2 * np.pi * s))
    with pytest.raises(AssertionError):
        _check_rank_one(2e9, 20)


# ------------------------------------------------------------------ k = 3 integral at 1e300 (was −inf)


@pytest.mark.parametrize("scale", [1e150, 1e250, 1e300, FMAX / 1.66])
def test_k3_integral_at_huge_sigma(scale):
    sig = scale * np.linspace(1, 0.1, 3)
    value = float(log_hyp0f1(sig, 3, method="exact"))
    _check_huge_value(value, sig)


@pytest.mark.parametrize("sig", [[1e6, 5.5e5, 1e5], [3e4, 3e4, 2e4]])
def test_k3_integral_at_large_sigma_vs_asymptotic(sig):
    """Where the O(log σ) terms are visible: the integral against the leading asymptotic, whose
    relative error is O(1/min pair sum) = O(1e-5) of those terms (Laplace's method, next term
    ≤ (k−2)/12 Σ 1/(σᵢ+σⱼ) + Σσᵢ vᵢ²... ≈ 1e-4 here)."""
    sig = np.array(sig)
    value = float(log_hyp0f1(sig, 3, method="exact"))
    expected = _leading_asymptotic_k3(sig)
    assert abs(value - expected) <= 1e-3 + 8 * EPS * abs(expected)


def test_planted_k3_wrong_volume_fails():
    """The same check with Vol SO(3) = 4π² (a factor 2 off) fails: it resolves O(1) errors in the log."""
    sig = np.array([1e6, 5.5e5, 1e5])
    value = float(log_hyp0f1(sig, 3, method="exact"))
    assert abs(value - (_leading_asymptotic_k3(sig) + math.log(2))) > 1e-3 + 8 * EPS * abs(value)


# ------------------------------------------------------------------ complex input is rejected


def _assert_rejects(fn, kwargs, name):
    """ValueError naming ``name`` and no warning at all (no ComplexWarning truncation)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=name):
            fn(**kwargs)


Z3 = np.array([1.0 + 1e-3j, 0.5, 0.2])
COMPLEX_CALLS = [
    (log_hyp0f1, {"sigma": Z3, "k": 3}, "sigma"),
    (grad_log_hyp0f1, {"sigma": Z3, "k": 3}, "sigma"),
    (hyp0f1_reference, {"sigma": Z3, "k": 3}, "sigma"),
    (log_hyp0f1_mc, {"sigma": Z3, "k": 3, "n_samples": 8, "rng": 0}, "sigma"),
    (log_hyp0f1, {"sigma": Z3.real, "k": 3, "method": "series", "rtol": 1e-10 + 0j}, "rtol"),
    (kl_gaussian, {"m0": Z3, "S0": np.ones(3), "m1": np.zeros(3), "S1": np.ones(3)}, "m0"),
    (entropy_gaussian, {"var": np.ones(3) + 0j}, "var"),
    (symmetrized_logpdf, {"z": Z3[None], "mean": np.zeros(3), "var": np.ones(3), "group": SignFlip()}, "z"),
    (orthogonal_logpdf, {"X": np.ones((2, 2)) * (1 + 1j), "mean": np.ones((2, 2)), "var": 1.0}, "X"),
    (haar_orthogonal, {"k": 3 + 0j, "size": 2, "rng": 0}, "k"),
]


@pytest.mark.parametrize("fn,kwargs,name", COMPLEX_CALLS, ids=[f"{c[0].__name__}-{c[2]}" for c in COMPLEX_CALLS])
def test_complex_input_raises_naming_the_argument(fn, kwargs, name):
    _assert_rejects(fn, kwargs, name)


def test_planted_complex_truncation_fails():
    """The old conversion (np.asarray(..., dtype=float64): a ComplexWarning, then the real part) fails."""
    with pytest.raises((AssertionError, np.exceptions.ComplexWarning)):
        _assert_rejects(lambda sigma: np.asarray(sigma, dtype=np.float64), {"sigma": Z3}, "sigma")


# ------------------------------------------------------------------ a NaN is never "exact"


@pytest.mark.parametrize("mean", [[1e300, 0.0], [1e100, 0.0], [0.0, -1.797e308]])
@pytest.mark.parametrize("blocks", [None, "coordinates"])
def test_signflip_gap_far_modes_is_log2(mean, blocks):
    """Well separated modes: KL[q*‖q̃] → log 2 per block with a separated mean, the deficit
    O(√s e^{−s/2}) at s = μ²/v ≥ 1e200 is below float64; χ² → 1 likewise."""
    group = SignFlip((2,), blocks=blocks) if blocks else SignFlip()
    mean = np.array(mean)
    n_far = 1 if blocks is None else int(np.count_nonzero(mean))
    gap, se = symmetrization_gap(mean, np.ones(2), group)
    assert se == 0.0 and gap == pytest.approx(n_far * math.log(2.0), rel=4 * EPS)
    chi2 = group.exact_chi2(mean, np.ones(2))
    assert chi2 == pytest.approx(2.0**n_far - 1.0, rel=4 * EPS)


def test_planted_gap_without_the_limit_fails(monkeypatch):
    """The pre-fix gap (quadrature at s = inf gives NaN) is refused, never returned as exact."""
    monkeypatch.setattr(signflip_exact, "signflip_gap_1d",
                        lambda s: math.log(2.0) + signflip_exact._normal_expectation(lambda t: log_expit(2.0 * t), s))
    with pytest.raises(ValueError, match="mean, var"):
        symmetrization_gap(np.array([1e300, 0.0]), np.ones(2), SignFlip())


# ------------------------------------------------------------------ booleans must be booleans


BOOL_FLAGS = [
    (haar_orthogonal, {"k": 3, "size": 6, "rng": 0}, "special"),
    (entropy_gaussian, {"var": np.array([[2.0, 0.5], [0.5, 1.0]])}, "full"),
    (entropy_infonce, {"mean": np.ones(2), "var": np.ones(2), "group": SignFlip(), "K": 2, "n_samples": 4,
                       "rng": 0}, "replace"),
    (entropy_infonce, {"mean": np.ones(2), "var": np.ones(2), "group": SignFlip(), "K": 2, "n_samples": 4,
                       "rng": 0}, "control_variate"),
    (log_hyp0f1, {"sigma": np.array([1.0, 0.5]), "k": 2, "method": "series"}, "return_error"),
    (log_hyp0f1_mc, {"sigma": np.array([1.0, 0.5]), "k": 2, "n_samples": 8, "rng": 0}, "return_khat"),
    (log_hyp0f1, {"sigma": np.array([1.0, 0.5]), "k": 2}, "return_info"),
    (symcheck.grad_log_hyp0f1, {"sigma": np.array([1.0, 0.5]), "k": 2}, "return_error"),
    (symcheck.grad_log_hyp0f1, {"sigma": np.array([1.0, 0.5]), "k": 2}, "return_info"),
    (kl_gaussian, {"m0": np.zeros(2), "S0": np.eye(2), "m1": np.ones(2), "S1": np.ones(2)}, "return_error"),
    (symcheck.orthogonal_logpdf, {"X": np.eye(2), "mean": np.eye(2), "var": 1.0}, "return_error"),
    (symcheck.moore_r, {"X": np.eye(2), "mean": np.eye(2), "c": 1.0}, "return_error"),
    (symcheck.moore_kl, {"mean": np.eye(2), "c": 1.0, "n_samples": 4, "rng": 0}, "return_error"),
]


@pytest.mark.parametrize("fn,kwargs,flag", BOOL_FLAGS, ids=[f"{c[0].__name__}-{c[2]}" for c in BOOL_FLAGS])
@pytest.mark.parametrize("bad", ["False", "True", 0, 1, None, np.array([True])])
def test_boolean_flags_reject_non_booleans(fn, kwargs, flag, bad):
    _assert_rejects(fn, {**kwargs, flag: bad}, flag)


@pytest.mark.parametrize("fn,kwargs,flag", BOOL_FLAGS, ids=[f"{c[0].__name__}-{c[2]}" for c in BOOL_FLAGS])
def test_boolean_flags_accept_booleans(fn, kwargs, flag):
    for good in (True, False, np.True_, np.False_):
        fn(**{**kwargs, flag: good})


def test_haar_special_string_does_not_switch_to_so():
    """special=False draws from O(3): both determinant signs appear among 200 draws
    (P(all equal) = 2·2⁻²⁰⁰); special=True gives only +1."""
    assert set(np.round(np.linalg.det(haar_orthogonal(3, 200, 0, special=False)))) == {-1.0, 1.0}
    assert set(np.round(np.linalg.det(haar_orthogonal(3, 200, 0, special=True)))) == {1.0}


def test_planted_truthy_flag_fails():
    """bool('False') is True: the old handling passes a string flag and fails the check."""
    with pytest.raises(pytest.fail.Exception):
        _assert_rejects(lambda special: bool(special), {"special": "False"}, "special")


def test_check_bool_unit():
    assert _checks.check_bool(np.True_, "f") is True
    for bad in ("False", 1, 1.0, None, [False]):
        with pytest.raises(ValueError, match="f must be a boolean"):
            _checks.check_bool(bad, "f")


# ------------------------------------------------------------------ gtol, entropy, Laplace at the float maximum


@pytest.mark.parametrize("gtol", [np.nan, np.inf, 0.0, -1e-6, "1e-6", True])
def test_gtol_validated(gtol):
    _assert_rejects(fit_factored_gaussian_numerically, {"mean": np.zeros(2), "cov": np.array([[2.0, 1.0], [1.0, 2.0]]),
                                                        "gtol": gtol}, "gtol")


def test_planted_gtol_ignored_fails():
    """A fit that ignores gtol (returns the start for gtol = NaN, the old behaviour) fails the check."""
    with pytest.raises(pytest.fail.Exception):
        _assert_rejects(lambda gtol: (np.zeros(2), np.full(2, 2.0), 0.19), {"gtol": np.nan}, "gtol")


def _mp_entropy(var):
    """½ Σ log(2πe vᵢ) in mpmath (50 digits): no overflow at any float64 variance."""
    with mpmath.workdps(50):
        return float(sum(mpmath.log(2 * mpmath.pi * mpmath.e * mpmath.mpf(float(v))) for v in var) / 2)


@pytest.mark.parametrize("var", [[1.797e308], [1e308, 1e-308, 5e-324], [1.0, 2.0]])
def test_entropy_gaussian_in_log_space(var):
    expected = _mp_entropy(var)
    # ½ Σ of len(var)+1 logs, each with relative error eps: a few eps·Σ|log|
    tol = 4 * EPS * (sum(abs(math.log(v)) for v in var) + len(var) * math.log(2 * math.pi * math.e))
    assert abs(entropy_gaussian(np.array(var)) - expected) <= tol
    assert abs(entropy_gaussian(np.diag(var), full=True) - expected) <= tol


def test_planted_entropy_product_overflows():
    """The old formula ½ log(2πe·v) overflows to inf at v = 1.797e308 (the value is ≈ 356.1)."""
    with np.errstate(over="ignore"):
        old = float(0.5 * np.sum(np.log(2 * math.pi * math.e * np.array([1.797e308]))))
    assert not abs(old - _mp_entropy([1.797e308])) <= 1e-12


def _mp_saddle(s, k, variant):
    """ŷ, 1 − ŷ² and dŷ/dσ in mpmath from the listing/printed formulas of eq. (7), at 700 digits
    (1 − ŷ² ≈ k/σ cancels down to ~1e-308, so 330 digits are lost before 15 are left)."""
    with mpmath.workdps(700):
        s, k = mpmath.mpf(float(s)), mpmath.mpf(k)

        def y_of(x):
            u = 2 * x / k
            return u / (mpmath.sqrt(u * u + 1) + 1) if variant != 1 else 2 * x / (k * mpmath.sqrt(4 * x * x / k**2 + 1) + 1)

        y = y_of(s)
        return float(y), float(1 - y * y), float(mpmath.diff(y_of, s))


@pytest.mark.parametrize("variant", [0, 1])
@pytest.mark.parametrize("k", [1, 3, 20])
def test_laplace_saddle_quantities_at_huge_sigma(variant, k):
    """ŷ, a = 1 − ŷ² and dŷ/dσ on both sides of the switch to the w = 1/u form, up to the float maximum."""
    y, a, dy = np.empty(k), np.empty(k), np.empty(k)
    for s in (1.0, 0.4e150 * k, 0.6e150 * k, 1e200, 1e300, FMAX):
        laplace._saddle(np.full(k, s), k, variant, y, a, dy)  # one row of k equal entries
        ey, ea, edy = _mp_saddle(s, k, variant)
        # a few roundings each; dŷ/dσ may be subnormal (then only its absolute size matters)
        assert np.all(np.abs(y - ey) <= 8 * EPS * ey) and np.all(np.abs(a - ea) <= 16 * EPS * ea)
        assert np.all(np.abs(dy - edy) <= 16 * EPS * edy + 1e-320)


def _check_laplace_huge(value, sig):
    """Σσᵢŷᵢ − O(k² log σ) with ŷ = 1 − O(k/σ): Σσ to float64 (ulp(1e200) ≈ 1e184)."""
    assert value == pytest.approx(float(np.sum(sig)), rel=4 * EPS)


@pytest.mark.parametrize("variant", ["listing", "printed", "pairs-once"])
@pytest.mark.parametrize("k", [1, 3, 20])
def test_laplace_at_float_max(variant, k):
    """Laplace at σ₁ = 1.797e308 and at σ = (1e200, 1, …): finite, Σσ to float64; gradient ŷ₁ ≈ 1."""
    for top in (FMAX, 1e200):
        sig = np.ones(k)
        sig[0] = top
        _check_laplace_huge(float(log_hyp0f1(sig, k, method="laplace", variant=variant)), sig)
        grad = grad_log_hyp0f1(sig, k, method="laplace", variant=variant)
        assert abs(grad[0] - 1.0) <= 4 * EPS and np.all(np.isfinite(grad))


@pytest.mark.parametrize("planted,sig", [(lambda s: listing1_log_bessel(s, 1), np.array([FMAX])),
                                         (lambda s: eq7_printed(s, 2), np.array([1e200, 1.0]))])
def test_planted_paper_formulas_fail_at_huge_sigma(planted, sig):
    """The literal transcriptions of eq. (7) give NaN (u² overflows) or 0.24 (ŷ = 2σ/∞ = 0) here."""
    with np.errstate(all="ignore"), pytest.raises(AssertionError):
        _check_laplace_huge(float(planted(sig)), sig)


# ------------------------------------------------------------------ log ₀F₁ beyond the float64 range


@pytest.mark.parametrize("method", ["auto", "laplace", "series", "exact", "asymptotic", "mc"])
def test_log0f1_beyond_float_range_raises(method):
    sig = np.array([1.5e308, 1.5e308, 1.0])
    opts = {"rng": 0, "n_samples": 8} if method == "mc" else {}
    with pytest.raises(ValueError, match="sigma.*float64 range"):
        log_hyp0f1(sig, 3, method=method, **opts)
    with pytest.raises(ValueError, match="sigma.*float64 range"):
        log_hyp0f1_mc(sig, 3, 8, 0)


def test_log0f1_at_the_edge_of_the_range_answers():
    """Σσ just below the float maximum: a finite answer (the ValueError is not over-eager)."""
    sig = np.array([FMAX / 2, FMAX / 2, 0.0])
    assert float(log_hyp0f1(sig, 3)) == pytest.approx(FMAX, rel=4 * EPS)


def test_log0f1_range_error_names_the_callers_argument():
    with pytest.raises(ValueError, match="X, mean, var"):
        orthogonal_logpdf(np.full((2, 2), 1e200), np.full((2, 2), 1e200), 1e-100)


def test_planted_overflow_check_fails():
    """A log ₀F₁ that returns inf (the old behaviour) fails the range check."""
    with pytest.raises(pytest.fail.Exception):
        with pytest.raises(ValueError, match="float64 range"):
            float(np.sum(np.array([1.5e308, 1.5e308, 1.0])))


# ------------------------------------------------------------------ Laplace kernel: parallel = serial, bit for bit


def _laplace_inputs(rng, k, n=3 * laplace.PARALLEL_MIN_ROWS):
    """Rows over 30 decades (and zeros, and the float maximum): every branch of the kernel."""
    sig = 10.0 ** rng.uniform(-10, 20, (n, k)) * (rng.random((n, k)) > 0.1)
    sig[0, 0] = FMAX / 2  # rows of huge σ: the w = 1/u branch
    return sig


@pytest.mark.parametrize("k", [1, 2, 3, 20, 64])
@pytest.mark.parametrize("variant", list(laplace.VARIANTS))
def test_laplace_parallel_is_bit_identical_to_serial(rng, k, variant):
    sig = _laplace_inputs(rng, k)
    for want_grad in (False, True):
        serial = laplace._run(sig, k, variant, want_grad, parallel=False)
        for threads in (1, numba.config.NUMBA_NUM_THREADS):
            numba.set_num_threads(threads)
            par = laplace._run(sig, k, variant, want_grad, parallel=True)
            assert np.array_equal(par[0], serial[0]) and np.array_equal(par[1], serial[1])
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    # the public path (parallel for this batch size) is the same function
    assert np.array_equal(laplace.log_hyp0f1_laplace(sig, k, variant), serial[0])


def test_planted_reordered_sum_is_not_bit_identical(rng):
    """A different summation order (the NumPy transcription of Listing 1) agrees to ~1e-14, not
    bit for bit: the bit-identity check would flag a parallel kernel that reassociates."""
    sig = 5.0 * rng.random((2000, 20))
    serial = laplace._run(sig, 20, "listing", False, parallel=False)[0]
    other = listing1_log_bessel(sig, 20)
    assert np.max(np.abs(other - serial)) <= 1e-12 and not np.array_equal(other, serial)


def test_laplace_kernels_without_jit_agree(python_output):
    """NUMBA_DISABLE_JIT=1 runs the parallel and serial kernels as plain Python (prange = range)
    and the capped degree search; they agree with the compiled ones to rounding (libm logs)."""
    code = ("import json, numpy as np; from symcheck.hyp0f1 import laplace, series; "
            "rng = np.random.default_rng(3); sig = 10.0 ** rng.uniform(-5, 20, (600, 4)); sig[0, 0] = 8e307; "
            "out = [laplace._run(sig, 4, v, True, parallel=p)[i].tolist() for v in laplace.VARIANTS "
            "for p in (True, False) for i in (0, 1)]; "
            "out.append(series._degree_for_bound(np.array([0.0, 3.0, 1e20, 1e300]), 1e-14, 88).tolist()); "
            "print(json.dumps(out))")
    py = json.loads(python_output(code, jit=False))
    rng = np.random.default_rng(3)
    sig = 10.0 ** rng.uniform(-5, 20, (600, 4))
    sig[0, 0] = 8e307
    jit = [laplace._run(sig, 4, v, True, parallel=p)[i] for v in laplace.VARIANTS for p in (True, False) for i in (0, 1)]
    for a, b in zip(py[:-1], jit):
        # each value is a sum of O(k²) terms of size up to |v|: rounding ≲ k²·eps·|v|
        assert np.all(np.abs(np.array(a) - b) <= 16 * 16 * EPS * np.maximum(1.0, np.abs(b)))
    assert py[-1] == series._degree_for_bound(np.array([0.0, 3.0, 1e20, 1e300]), 1e-14, 88).tolist()


def test_public_api_has_no_unvalidated_flag():
    """Every public callable's boolean parameters are among those checked above."""
    import inspect

    functions = [fn for fn in (getattr(symcheck, n) for n in symcheck.__all__)
                 if callable(fn) and not (isinstance(fn, type) and issubclass(fn, Warning))]
    flags = {(fn.__name__, p.name) for fn in functions
             for p in inspect.signature(fn).parameters.values() if isinstance(p.default, bool)}
    checked = {(fn.__name__, flag) for fn, _, flag in BOOL_FLAGS}
    assert flags <= checked
