"""Two-latent factor analysis of Turner, Berkes & Sahani Sec. 3.2 (symcheck.models.turner_fa).

The printed equations and the qualitative learning claims are checked in
symcheck.claims.turner_fa; here: the dense routes against each other, invariances, and bad input.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symcheck.evidence import ROUNDING
from symcheck.models import turner_fa as fa

EPS = np.finfo(float).eps
fa_params = st.tuples(st.floats(0.1, 3.0), st.floats(0.1, 3.0), st.floats(-3.0, 3.0), st.floats(-3.0, 3.0),
                      st.floats(0.05, 3.0))


@settings(max_examples=40, deadline=None)
@given(fa_params, st.floats(-3.0, 3.0))
def test_kl_depends_only_on_angle_difference(p, shift):
    # rotating both weights leaves the posterior covariance (46) and hence the KL unchanged
    w1, w2, t1, t2, sy2 = p
    k0 = fa.fa_mean_field_kl(*p)
    k1 = fa.fa_mean_field_kl(w1, w2, t1 + shift, t2 + shift, sy2)
    cond = np.linalg.cond(fa.fa_regression_matrix(*p)) ** 2
    assert abs(k0 - k1) <= ROUNDING * cond * 8


@settings(max_examples=40, deadline=None)
@given(fa_params)
def test_least_squares_posterior_matches_conditioning(p):
    # two dense routes: QR of [W/σ_y; I] and Gaussian conditioning of the joint of [x, y]
    y = np.array([[0.3, -1.1], [2.0, 0.4]])
    m, S = fa.fa_posterior(y, *p)
    C = fa.fa_joint_covariance(*p)
    gain = np.linalg.solve(C[2:, 2:], C[2:, :2]).T
    S2 = C[:2, :2] - gain @ C[2:, :2]
    kappa = np.linalg.cond(C[2:, 2:]) * np.max(np.abs(C)) + np.linalg.cond(fa.fa_regression_matrix(*p)) ** 2
    assert np.max(np.abs(S - S2)) <= ROUNDING * kappa
    assert np.max(np.abs(m - y @ gain.T)) <= ROUNDING * kappa * (1 + np.max(np.abs(y)))


def test_printed_kl_is_twice_the_corrected():
    p = (1.2, 0.7, 0.3, 1.1, 0.4)
    assert fa.eq48_kl(*p) == pytest.approx(2 * fa.eq48_kl_corrected(*p), rel=4 * EPS)


def test_free_energy_is_below_likelihood_and_exact_for_orthogonal_weights():
    p = dict(w1=1.0, w2=1.0, theta1=0.0, theta2=np.pi / 8, sigma_y2=0.43)
    S = fa.fa_joint_covariance(**p)[2:, 2:]
    args = (1.0, 1.0, 0.0, np.pi / 5, 0.43)
    assert fa.fa_objective("free_energy", S, *args) < fa.fa_objective("likelihood", S, *args)
    orth = (1.0, 1.0, 0.0, np.pi / 2, 0.43)
    assert fa.fa_objective("free_energy", S, *orth) == pytest.approx(fa.fa_objective("likelihood", S, *orth), abs=ROUNDING * 10)


def test_zero_temperature_is_log_joint_at_posterior_mean(rng):
    # E_y log p(x̂(y), y) through S equals the sample average of eq. (49) at the posterior means,
    # exactly (both quadratic in y) when S is the sample second moment
    p = (1.0, 0.8, 0.2, 1.0, 0.3)
    Y = rng.normal(size=(7, 2))
    S = Y.T @ Y / len(Y)
    m, _ = fa.fa_posterior(Y, *p)
    direct = np.mean(fa.eq49_log_joint(m, Y, *p))
    assert fa.fa_expected_zero_temperature(S, *p) == pytest.approx(direct, abs=ROUNDING * 100)


def test_learning_recovers_ml_values():
    p = dict(w1=1.0, w2=1.0, theta1=0.0, theta2=np.pi / 8, sigma_y2=0.43)
    assert fa.fa_learn("likelihood", "theta2", p, (0.0, np.pi / 2)) == pytest.approx(np.pi / 8, abs=1e-6)
    assert fa.fa_learn("likelihood", "w2", p, (0.0, 3.0)) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("name,args", [("sigma_y2", (1, 1, 0, 0.3, 0.0)), ("sigma_y2", (1, 1, 0, 0.3, -2.0)),
                                       ("w1", (np.nan, 1, 0, 0.3, 0.5)), ("theta2", (1, 1, 0, np.inf, 0.5))])
def test_bad_parameters(name, args):
    with pytest.raises(ValueError, match=name):
        fa.eq48_kl(*args)
    with pytest.raises(ValueError, match=name):
        fa.fa_posterior(np.zeros(2), *args)


def test_bad_choices_and_shapes():
    S = np.eye(2)
    with pytest.raises(ValueError, match="kind"):
        fa.fa_objective("map", S, 1, 1, 0, 0.3, 0.5)
    with pytest.raises(ValueError, match="parameter"):
        fa.fa_learn("likelihood", "w1", dict(w1=1, w2=1, theta1=0, theta2=0.3, sigma_y2=0.5), (0, 1))
    with pytest.raises(ValueError, match="y"):
        fa.eq45_posterior_mean(np.zeros(3), 1, 1, 0, 0.3, 0.5)
    with pytest.raises(ValueError, match="S"):
        fa.fa_objective("likelihood", -np.eye(2), 1, 1, 0, 0.3, 0.5)
