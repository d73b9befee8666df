"""Two-chain LDS of Turner, Berkes & Sahani Sec. 3.1 (symcheck.models.turner_lds).

The printed equations are checked claim by claim in symcheck.claims.turner_lds (run by
tests/test_claims.py); here: the dense routes against each other and against Monte Carlo,
structural properties of the KLs, and bad input.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symcheck.evidence import ROUNDING, z_for_alpha
from symcheck.kl import optimal_factored_gaussian
from symcheck.models import turner_lds as lds

params = st.tuples(st.floats(-0.98, 0.98), st.floats(0.01, 5.0), st.floats(0.01, 5.0))


def test_joint_covariance_matches_monte_carlo(rng):
    # simulate the generative model (19)-(21) directly; each entry of the sample covariance has
    # standard error sqrt((C_ii C_jj + C_ij²)/n); allow z_for_alpha() of them
    p = (0.9, 0.19, 0.43)
    lam, sx2, sy2 = p
    n = 200_000
    x11 = rng.normal(size=n) * np.sqrt(sx2 / (1 - lam**2))
    x21 = rng.normal(size=n) * np.sqrt(sx2 / (1 - lam**2))
    x12 = lam * x11 + rng.normal(size=n) * np.sqrt(sx2)
    x22 = lam * x21 + rng.normal(size=n) * np.sqrt(sx2)
    y1 = x11 + x21 + rng.normal(size=n) * np.sqrt(sy2)
    y2 = x12 + x22 + rng.normal(size=n) * np.sqrt(sy2)
    Z = np.stack([x11, x21, x12, x22, y1, y2])
    emp = Z @ Z.T / n
    C = lds.lds_joint_covariance(*p)
    se = np.sqrt((np.outer(np.diag(C), np.diag(C)) + C**2) / n)
    assert np.all(np.abs(emp - C) <= z_for_alpha() * se)


@settings(max_examples=40, deadline=None)
@given(params)
def test_kl_nesting(p):
    # q1 (fully factored) is a subfamily of q2 and of q3, so its optimal KL is the largest; all are >= 0
    S = lds.lds_posterior(np.zeros(2), *p)[1]
    k = {name: optimal_factored_gaussian(np.zeros(4), S, b)[2] for name, b in lds.FACTORISATIONS.items()}
    tol = ROUNDING * np.linalg.cond(S) * 4
    assert k["q1"] >= k["q2"] - tol and k["q1"] >= k["q3"] - tol
    assert min(k.values()) >= -tol


@settings(max_examples=40, deadline=None)
@given(params)
def test_closed_form_kls_with_corrected_gamma(p):
    lam, sx2, sy2 = p
    C = lds.lds_joint_covariance(*p)
    S = lds.lds_posterior(np.zeros(2), *p)[1]
    # dense: conditioning error eps·cond(Σ_Y)·‖C‖/λ_min(Σ) relative, Cholesky eps·cond(Σ); closed form:
    # the bracket of γ cancels by ((2σx²+σy²)² + σy⁴)/bracket (as in the claims turner.eq30-32)
    bracket = (2 * sx2 + sy2) ** 2 - lam**2 * sy2**2
    rel_S = np.linalg.cond(C[4:, 4:]) * np.max(np.abs(C)) / np.linalg.eigvalsh(S)[0]
    tol = ROUNDING * (4 * (rel_S + np.linalg.cond(S)) + ((2 * sx2 + sy2) ** 2 + sy2**2) / bracket + 8)
    g = lds.eq33_gamma_corrected
    for fn, name in ((lds.eq30_kl1, "q1"), (lds.eq31_kl2, "q2"), (lds.eq32_kl3, "q3")):
        dense = optimal_factored_gaussian(np.zeros(4), S, lds.FACTORISATIONS[name])[2]
        assert abs(fn(*p, gamma=g) - dense) <= tol


def test_printed_gamma_differs_except_at_zero_lambda():
    assert lds.eq33_gamma(0.0, 0.3, 0.5) == lds.eq33_gamma_corrected(0.0, 0.3, 0.5)
    assert abs(lds.eq33_gamma(0.5, 0.3, 0.5) - lds.eq33_gamma_corrected(0.5, 0.3, 0.5)) > 1e-3


def test_map_iteration_converges_to_posterior_mean(rng):
    p = (0.95, 0.05, 1.0)
    y = rng.normal(size=2)
    W, G = lds.eq37_map_iteration(*p)
    x = np.zeros(4)
    for _ in range(2000):  # spectral radius (σ_x² + |λ|σ_y²)/(σ_x² + σ_y²) = 0.952...
        x = W @ x + G @ y
    m = lds.lds_posterior(y, *p)[0][0]
    rho = (p[1] + abs(p[0]) * p[2]) / (p[1] + p[2])
    assert np.max(np.abs(x - m)) <= rho**2000 * 10 + ROUNDING * 10


def test_sigma_y2_update_corrected_is_expected_residual(rng):
    # (1/2N) Σ_n Σ_t E(y_t − x_1t − x_2t)² from the posterior moments, computed directly
    p = (0.7, 0.4, 0.3)
    C = lds.lds_joint_covariance(*p)
    Y = rng.multivariate_normal(np.zeros(2), C[4:, 4:], size=5)
    m, S = lds.lds_posterior(Y, *p)
    second = S[None] + m[:, :, None] * m[:, None, :]
    a = np.array([[1, 1, 0, 0], [0, 0, 1, 1]], float)
    resid = [np.sum((yn - a @ mn) ** 2) + np.trace(a @ S @ a.T) for yn, mn in zip(Y, m)]
    assert lds.eq36_sigma_y2_update_corrected(Y, m, second) == pytest.approx(np.sum(resid) / 10, rel=1e-12)


@pytest.mark.parametrize("lam", [1.0, -1.0, 1.5, np.nan, np.inf])
def test_bad_lambda(lam):
    with pytest.raises(ValueError, match="lam"):
        lds.lds_joint_covariance(lam, 0.2, 0.3)
    with pytest.raises(ValueError, match="lam"):
        lds.eq30_kl1(lam, 0.2, 0.3)


@pytest.mark.parametrize("name,args", [("sigma_x2", (0.5, 0.0, 0.3)), ("sigma_x2", (0.5, -1.0, 0.3)),
                                       ("sigma_y2", (0.5, 0.2, 0.0)), ("sigma_y2", (0.5, 0.2, np.nan))])
def test_bad_variances(name, args):
    with pytest.raises(ValueError, match=name):
        lds.eq27_posterior_precision(*args)


def test_bad_shapes():
    with pytest.raises(ValueError, match="y"):
        lds.lds_posterior(np.zeros(3), 0.5, 0.2, 0.3)
    with pytest.raises(ValueError, match="second_moments"):
        lds.eq34_lambda_update(np.zeros((2, 3, 3)), 0.2)
    with pytest.raises(ValueError, match="y"):
        lds.eq38_fixed_point(np.zeros((2, 2)), 0.5, 0.2, 0.3)


def test_zero_temperature_objective_matches_sample_average(rng):
    # E_y log p(x̂(y), y) through S equals the sample average of the dense log joint at the posterior
    # means when S is the sample second moment (both are the same quadratic form in y)
    p = (0.6, 0.3, 0.5)
    Y = rng.normal(size=(9, 2))
    m, _ = lds.lds_posterior(Y, *p)
    direct = np.mean(lds.lds_log_joint(m, Y, *p))
    C = lds.lds_joint_covariance(*p)
    assert lds.lds_objective("zero_temperature", Y.T @ Y / 9, *p) == pytest.approx(direct, abs=ROUNDING * np.linalg.cond(C) * 50)


def test_objective_and_learn_bad_choices():
    with pytest.raises(ValueError, match="kind"):
        lds.lds_objective("q4", np.eye(2), 0.5, 0.2, 0.3)
    with pytest.raises(ValueError, match="parameter"):
        lds.lds_learn("q1", "lambda", (0.5, 0.2, 0.3), (0, 1))
