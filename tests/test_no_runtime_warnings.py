"""Values that legitimately overflow float64 are handled where they arise: a correct answer, no RuntimeWarning.

Deterministic companions of the fuzz property (`tests/test_fuzz.py`): each case is an input the
fuzz found warning, with its answer from an independent route (exact rational arithmetic, the
enumerated log-sum-exp, the s = inf limit of the 1-D integrals).
"""

import math
import statistics
import warnings
from fractions import Fraction

import numpy as np
import pytest

from symcheck import SignFlip, kl_gaussian
from symcheck._mc import mean_se
from symcheck.gaussian import gaussian_logpdf


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def test_mean_se_of_huge_values_matches_exact_arithmetic():
    x = np.array([1e300, -2e300, 3e300, 5e299, 1.5e300])
    exact = [Fraction(v) for v in x]
    mean = statistics.mean(exact)
    # exact rationals (nothing overflows); the variance ~1e600 is scaled by 10^600 before its square root
    se = math.sqrt(float(statistics.variance(exact) / len(x) / Fraction(10) ** 600)) * 1e300
    m, s = mean_se(x)
    assert m == pytest.approx(float(mean), rel=4 * np.finfo(float).eps)
    assert s == pytest.approx(se, rel=8 * np.finfo(float).eps)


def test_mean_se_unchanged_on_ordinary_values():
    x = np.random.default_rng(3).normal(size=(4, 50))
    m, s = mean_se(x, axis=1)
    assert np.array_equal(m, x.mean(axis=1)) and np.array_equal(s, x.std(axis=1, ddof=1) / math.sqrt(50))


def test_gaussian_logpdf_beyond_float64_is_minus_inf_silently():
    mean, var = np.array([0.0, 0.0]), np.array([1.0, 5e-324])
    out = gaussian_logpdf(np.array([[1.0, 1.0], [1.0, 0.0]]), mean, var)
    assert out[0] == -math.inf and math.isfinite(out[1])
    full = gaussian_logpdf(np.array([[1e200, 0.0]]), mean, np.eye(2))
    assert full[0] == -math.inf


def test_blocks_keep_a_finite_mirror_when_one_side_underflows():
    """z's column 1 sits on the mean of its mirror image: log q̃ is finite although log q*(z) is -inf.

    The per-block sums once multiplied -inf by 0 (NaN) and refused the input; the independent
    route is the log-sum-exp over the 4 enumerated sign patterns.
    """
    g = SignFlip((3, 2), blocks="columns")
    mean = np.array([[0.5, -1.0], [0.2, 1e200], [-1.0, 0.3]])
    var = np.full((3, 2), 0.5)
    z = np.array([[[0.1, 0.4], [0.3, -1e200], [-0.2, 0.1]]])
    got = g.symmetrized_logpdf(z, mean, var)
    want = g.enumerated_logpdf(z, mean, var)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("blocks, shape", [(None, None), ("columns", (3, 2))])
def test_exact_gap_and_chi2_at_separated_components(blocks, shape):
    """s = μ²/v overflows: KL → log 2 per block and χ² → 2^B − 1, the exact limits."""
    g = SignFlip() if shape is None else SignFlip(shape, blocks=blocks)
    mean = np.array([0.5, -1.0, 1e300]) if shape is None else np.array([[1e300, 1e300], [0.0, 0.0], [1.0, 1.0]])
    var = np.ones_like(mean)
    assert g.exact_gap(mean, var) == pytest.approx(g.n_blocks * math.log(2.0), rel=1e-15)
    assert g.exact_chi2(mean, var) == pytest.approx(2.0**g.n_blocks - 1, rel=1e-15)


def test_kl_beyond_float64_is_refused_without_a_warning():
    with pytest.raises(ValueError, match="m0, S0, m1, S1"):
        kl_gaussian(np.zeros(3), np.ones(3), np.zeros(3), np.array([1.0, 0.5, 5e-324]))


# ----- ₀F₁ at mixed extreme scales: no warning, a gradient inside its proven range ---------------

#: σ rows mixing subnormal, tiny and huge singular values (each warned or gave a −inf gradient
#: component from the asymptotic expansion before; found by a fuzz over 0, 5e-324 … 1.7e308).
MIXED_EXTREMES = [
    ([1e200, 1e100, 1.0, 1e-100, 1e-300], 5),
    ([1000.0, 1000.0, 1.7e308, 1e-20, 1e200], 5),
    ([1.7e308, 0.001, 1e20], 3),
    ([1e-150, 1.7e308, 0.0], 3),
    ([5e-324, 1.0, 1e20, 0.0, 5e-324, 1.7e308], 6),
    ([1e200, 1e100, 1e-20, 0.0], 4),
]


@pytest.mark.parametrize("sig, k", MIXED_EXTREMES)
@pytest.mark.parametrize("method", ["auto", "asymptotic", "laplace", "exact"])
def test_hyp0f1_mixed_extremes_answer_without_warning(sig, k, method):
    from symcheck import Hyp0f1AccuracyWarning, grad_log_hyp0f1, log_hyp0f1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)  # an announced rough answer is fine
        try:
            value, err = log_hyp0f1(np.array(sig), k, method=method, return_error=True)
            grad, gerr = grad_log_hyp0f1(np.array(sig), k, method=method, return_error=True)
        except ValueError:  # outside the method's domain: refused, with a message
            return
    # log ₀F₁ lies between max(σ)-free bounds: 0 ≤ log F ≤ Σσ (|tr(ΣT)| ≤ Σσ, F ≥ 1 by Jensen)
    assert np.isfinite(value) and -err <= value <= sum(sig) * (1 + 1e-15) + err
    # ∂ log F/∂σᵢ = E[Tᵢᵢ] under the tilted Haar measure: in [0, 1]; its figure covers any truth there
    assert np.all(np.isfinite(grad)) and np.all((0.0 <= grad) & (grad <= 1.0))
    assert gerr <= 1.0


@pytest.mark.parametrize("sig", [[0.3, 0.1], [2.0, 0.5], [7.0, 7.0], [40.0, 0.01]])
def test_gradient_range_zero_one_holds_for_the_k2_closed_form(sig):
    """The [0, 1] range `grad_log_hyp0f1` clips to, checked on mpmath's k = 2 closed form by
    numerical differentiation at 30 digits (independent of every float64 route)."""
    import mpmath

    from symcheck.hyp0f1.closed_form_mp import closed_form_mp

    with mpmath.workdps(30):
        for i in range(2):
            def f(t, i=i):
                s = list(map(mpmath.mpf, sig))
                s[i] = t
                return mpmath.log(closed_form_mp(s, 2))
            g = mpmath.diff(f, mpmath.mpf(sig[i]))
            assert 0 <= g <= 1
