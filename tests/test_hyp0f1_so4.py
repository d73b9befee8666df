"""k = 4 by the positive series of SO(4) ≅ (S³ × S³)/±1 (symcheck/hyp0f1/so4_series.py).

Expected values come from routes that share nothing with the series: the 50-digit zonal-polynomial
reference (:func:`symcheck.hyp0f1.reference.hyp0f1_reference`), Bessel determinants for equal σ and
the rank-one Bessel function (:mod:`symcheck.hyp0f1.closed_form_mp`), the packaged reference table,
and, at large σ where none of those reaches, an mpmath evaluation of the same Dirichlet-moment
identity by another algorithm (:func:`symcheck.hyp0f1.reference_data.so4_series_mp`:
the four-term recurrence of the coefficients hₙ, from (∏(1 − aⱼt))P′ = −½(∏(1 − aⱼt))′P, at 120
digits) — it checks the float64 convolutions, the scaling and the error bound, and agrees with the
zonal reference where both reach (tested).
Every returned figure must cover the true error.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import grad_log_hyp0f1, log_hyp0f1, so4_series
from symcheck.hyp0f1.closed_form_mp import closed_form_mp, equal_spectrum_mp
from symcheck.hyp0f1.reference import hyp0f1_reference
from symcheck.hyp0f1.reference_data import _so4_coset_mp, load_reference_values, so4_series_mp

SHAPES = [[0.3, 0.2, 0.1, 0.05], [2.0, 1.0, 0.5, 0.25], [6.0, 5.0, 2.0, 1.0], [9.0, 4.0, 0.0, 0.0],
          [7.0, 7.0, 7.0 / 3, 7.0 / 3], [10.0, 4.6, 2.2, 1.0], [12.0, 0.5, 0.5, 0.5], [3.0, 3.0, 3.0, 0.0]]


@pytest.mark.parametrize("sig", SHAPES)
def test_value_and_figure_against_the_zonal_reference(sig):
    """The 50-digit zonal series (an independent algorithm): the true error is within the figure."""
    sig = np.array(sig)
    value, error = so4_series.log_hyp0f1_so4(sig[None])
    with mpmath.workdps(50):
        ref = mpmath.log(hyp0f1_reference(sig, 4, dps=50))
        assert abs(so4_series_mp(sig) - ref) < mpmath.mpf(10) ** -40  # the test's own mpmath route agrees
    assert abs(float(ref) - value[0]) <= error[0]


def test_packaged_reference_table():
    """Every stored k = 4 entry (rank one up to σ = 1e4, spread and equal spectra) within the figure."""
    entries = [e for e in load_reference_values().entries if e.k == 4]
    assert len(entries) >= 20
    sig = np.array([e.sigma for e in entries])
    value, error = so4_series.log_hyp0f1_so4(sig)
    true = np.array([abs(float(mpmath.mpf(e.log_hyp0f1)) - v) for e, v in zip(entries, value)])
    assert np.all(true <= error), np.max(true / error)


@pytest.mark.parametrize("s", [0.5, 30.0, 400.0, 3000.0])
def test_equal_and_rank_one_against_bessel_closed_forms(s):
    """The series itself (not Weyl's route, which exact_value takes for these) against Bessel routes."""
    with mpmath.workdps(40):
        equal = mpmath.log(equal_spectrum_mp(mpmath.mpf(s), 4))
        rank_one = mpmath.log(closed_form_mp([s, 0, 0, 0], 4))
    value, error = so4_series.log_hyp0f1_so4(np.array([[s] * 4, [s, 0, 0, 0]]))
    assert abs(float(equal) - value[0]) <= error[0]
    assert abs(float(rank_one) - value[1]) <= error[1]


@pytest.mark.parametrize("sig", [[1e3, 464.0, 215.0, 100.0], [1e3, 1e3, 333.0, 333.0], [1e4, 4641.0, 2154.0, 1000.0],
                                 [1e4, 3162.0, 0.0, 0.0], [2e4, 1.0, 0.5, 0.0]])
def test_large_sigma_against_the_recurrence_at_120_digits(sig):
    sig = np.array(sig)
    value, error = log_hyp0f1(sig, 4, method="exact", return_error=True)
    with mpmath.workdps(120):
        ref = so4_series_mp(sig)
    true = abs(float(ref) - float(value))
    assert true <= error and error <= 1e-14 * (1 + abs(float(ref)))  # and the bound is not vacuous


def test_tail_bound_covers_a_cut_series():
    """Summing fewer terms than the rule asks: the bound (truncation tail + rounding) still covers the
    error at every cut, and grows as the cut moves below the peak of the terms (it would not if the
    tail bound ignored the growth of hₙ or the ratio of the gₙ); far past the peak only the rounding
    allowance, which grows with N, remains."""
    sig = np.array([60.0, 30.0, 10.0, 5.0])
    lam = np.stack([sig @ so4_series.H.T, (sig * [1, 1, 1, -1]) @ so4_series.H.T])[None]
    with mpmath.workdps(60):
        exact = [float(mpmath.log(_so4_coset_mp([mpmath.mpf(x) for x in lam[0, c]]))) for c in range(2)]
    bounds = []
    for n_terms in (55, 60, 70, 80, 100, 140):
        log_i, _, rel, _ = so4_series._cosets(lam, np.array([n_terms]), False)
        for c in range(2):
            assert exact[c] - log_i[0, c] <= rel[0, c] / (1 - rel[0, c]) if rel[0, c] < 1 else True
            assert log_i[0, c] <= exact[c] + 1e-12  # a cut positive series is below the sum
        bounds.append(rel[0, 0])
    assert bounds[0] > 1e-3 and bounds[-1] < 1e-12 and bounds[:4] == sorted(bounds[:4], reverse=True)


@pytest.mark.parametrize("sig", SHAPES[:6] + [[300.0, 100.0, 30.0, 10.0]])
def test_gradient_against_the_series_gradient_and_mpmath_differences(sig):
    """∂ log ₀F₁/∂σ against the float64 series' gradient (its bound) where it reaches, else 1e-12
    central differences of the 120-digit recurrence; components in [0, 1]."""
    sig = np.array(sig)
    grad, gerr = grad_log_hyp0f1(sig, 4, method="exact", return_error=True)
    assert np.all((0 <= grad) & (grad <= 1))
    if sig.sum() <= 40:
        ref, rerr = grad_log_hyp0f1(sig, 4, method="series", return_error=True)
        assert np.max(np.abs(grad - ref)) <= gerr + rerr
    else:
        with mpmath.workdps(120):
            h = mpmath.mpf(10) ** -30
            ref = []
            for i in range(4):
                e = [mpmath.mpf(0)] * 4
                e[i] = h
                up = [mpmath.mpf(float(x)) + d for x, d in zip(sig, e)]
                dn = [mpmath.mpf(float(x)) - d for x, d in zip(sig, e)]
                ref.append(float((so4_series_mp(up) - so4_series_mp(dn)) / (2 * h)))
        assert np.max(np.abs(grad - np.array(ref))) <= gerr


def test_planted_errors_are_caught():
    """A sign slip in H (λ₃ = σ₀ − σ₁ − σ₂ − σ₃) or a dropped second coset moves the value far outside
    its figure against the zonal reference. (σ is generic: I± depend on the |λⱼ| only, and at
    σ₀ = σ₁ + σ₂ that slip would leave |λ₃| unchanged.)"""
    sig = np.array([3.0, 2.0, 0.7, 0.5])
    with mpmath.workdps(40):
        ref = float(mpmath.log(hyp0f1_reference(sig, 4, dps=40)))
    lam = np.stack([sig @ so4_series.H.T, (sig * [1, 1, 1, -1]) @ so4_series.H.T])[None]
    need = np.array([200])
    log_i = so4_series._cosets(lam, need, False)[0][0]
    good = np.logaddexp(log_i[0], log_i[1]) - np.log(2)
    _, error = so4_series.log_hyp0f1_so4(sig[None])
    assert abs(good - ref) <= error[0]
    assert abs(log_i[0] - ref) > 1e3 * error[0]  # one coset only
    wrong = so4_series.H.copy()
    wrong[3] = [1, -1, -1, -1]
    lam_w = np.stack([sig @ wrong.T, (sig * [1, 1, 1, -1]) @ wrong.T])[None]
    log_w = so4_series._cosets(lam_w, need, False)[0][0]
    assert abs(np.logaddexp(log_w[0], log_w[1]) - np.log(2) - ref) > 1e3 * error[0]


def test_auto_takes_the_series_at_k4_and_bad_input_is_refused():
    value, error, info = log_hyp0f1(np.array([50.0, 20.0, 5.0, 1.0]), 4, return_error=True, return_info=True)
    assert info.method[()] == "exact" and error < 1e-12 * abs(value)
    with pytest.raises(ValueError, match="sigma"):
        log_hyp0f1(np.array([1.0, np.nan, 0.0, 0.0]), 4, method="exact")
    with pytest.raises(ValueError, match="k = 4 series needs more than"):
        so4_series.coset_sums(np.array([[1e5, 0.0, 0.0, 1.0]]))


def test_the_kernel_runs_as_python_without_jit(python_output):
    """NUMBA_DISABLE_JIT=1 runs `_coset` as plain Python (the coverage path): the same values, bit for bit
    up to the order of floating-point operations, which is the same."""
    code = ("import numpy as np\nfrom symcheck.hyp0f1 import so4_series as s\n"
            "v, e, g, ge = s.log_and_grad_so4(np.array([[3.0, 2.0, 0.7, 0.5], [40.0, 10.0, 0.0, 0.0]]))\n"
            "print(repr(np.concatenate([v, e, g.ravel(), ge]).tolist()))\n")
    jit, plain = (np.array(eval(python_output(code, flag))) for flag in (True, False))
    assert np.array_equal(jit, plain)


def test_reference_route_for_the_packaged_table():
    """The table's k = 4 route: DPS − 5 digits, agreeing with the zonal route; refused for another k."""
    from symcheck.hyp0f1 import reference_data

    sig = np.array([6.0, 5.0, 2.0, 1.0])
    text, digits = reference_data.compute_reference(sig, 4, "so4_series_mp")
    zonal, _ = reference_data.compute_reference(sig, 4, "hyp0f1_reference")
    assert digits == reference_data.MAX_DIGITS
    assert abs(mpmath.mpf(text) - mpmath.mpf(zonal)) < mpmath.mpf(10) ** -digits
    with pytest.raises(ValueError, match="needs k = 4"):
        reference_data.compute_reference(sig[:3], 3, "so4_series_mp")
