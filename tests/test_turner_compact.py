"""Checks of symcheck.models.turner_compact (the Sec. 2 models of Turner, Berkes & Sahani).

Independent routes: the geometric series of the AR(1) variance, Monte Carlo simulation of
both chains (tolerance z·SE, Bonferroni over the entries compared), the inverse relation
between the assembled precision and the propagated covariance, and the chain-rule form of
the factored KL (entropy of q minus the expected log transition probabilities).
"""

import numpy as np
import pytest

from symcheck.evidence import FALSE_FAILURE_ALPHA, ROUNDING, z_for_alpha
from symcheck.models.turner_compact import (
    ar1_joint_covariance,
    ar1_joint_precision,
    ar1_stationary_variance,
    binary_chain_factored_kl,
    binary_chain_joint,
)

EPS = np.finfo(float).eps


@pytest.mark.parametrize("sigma2,lam", [(1.0, 0.0), (0.19, 0.9), (2.0, -0.7), (0.5, 0.999)])
def test_ar1_stationary_variance_is_the_geometric_series(sigma2, lam):
    # v = σ² Σ_j λ^{2j}; truncated where λ^{2N} < eps, so the tail is below eps·v.
    N = int(np.ceil(np.log(EPS) / (2 * np.log(abs(lam))))) + 1 if lam != 0 else 1
    series = sigma2 * np.sum(lam ** (2.0 * np.arange(N)))
    # summation error ~ N·eps·v (pairwise summation is better), Lyapunov error ~ eps/(1−λ²)·v
    tol = (ROUNDING / (1 - lam * lam) + 2 * EPS * np.log2(N + 1) + EPS) * series
    assert abs(ar1_stationary_variance(sigma2, lam) - series) <= tol


def test_ar1_joint_covariance_matches_simulation(rng):
    sigma2, lam, T, burn, n = 0.7, 0.8, 4, 200, 100_000
    x = np.zeros(n)
    for _ in range(burn):  # λ^{2·200} ≈ 1e-39: the start is forgotten
        x = lam * x + np.sqrt(sigma2) * rng.standard_normal(n)
    X = np.empty((n, T))
    for t in range(T):
        X[:, t] = x
        x = lam * x + np.sqrt(sigma2) * rng.standard_normal(n)
    prod = X[:, :, None] * X[:, None, :]
    est, se = prod.mean(axis=0), prod.std(axis=0, ddof=1) / np.sqrt(n)
    z = z_for_alpha(FALSE_FAILURE_ALPHA / T**2)
    assert np.all(np.abs(est - ar1_joint_covariance(sigma2, lam, T)) <= z * se)


@pytest.mark.parametrize("lam", [0.3, -0.95, 1 - 1e-4])
def test_ar1_precision_inverts_covariance(lam):
    T = 5
    P, C = ar1_joint_precision(1.3, lam, T), ar1_joint_covariance(1.3, lam, T)
    cond = np.linalg.cond(C)
    assert np.max(np.abs(P @ C - np.eye(T))) <= ROUNDING * T * cond


def test_binary_chain_joint_matches_simulation(rng):
    delta, T, n = 0.2, 3, 200_000
    x = np.empty((n, T), dtype=int)
    x[:, 0] = rng.integers(0, 2, size=n)
    for t in range(1, T):
        flip = rng.random(n) < delta
        x[:, t] = np.where(flip, 1 - x[:, t - 1], x[:, t - 1])
    codes = x @ (2 ** np.arange(T - 1, -1, -1))
    freq = np.bincount(codes, minlength=2**T) / n
    p = binary_chain_joint(delta, T).reshape(-1)  # C order = the same binary code
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= z_for_alpha(FALSE_FAILURE_ALPHA / 2**T) * se)
    assert abs(p.sum() - 1) <= 2**T * EPS


@pytest.mark.parametrize("T", [1, 2, 5])
def test_binary_factored_kl_chain_rule(rng, T):
    # KL = −H(q) − E_q log p, E_q log p = log ½ + Σ_t [s_t log(1−Δ) + (1−s_t) log Δ] with
    # s_t = ρ_tρ_{t−1} + (1−ρ_t)(1−ρ_{t−1}) the probability that q keeps the state.
    delta = 0.07
    rho = rng.uniform(0.05, 0.95, size=T)
    H = -np.sum(rho * np.log(rho) + (1 - rho) * np.log(1 - rho))
    s = rho[1:] * rho[:-1] + (1 - rho[1:]) * (1 - rho[:-1])
    elogp = np.log(0.5) + np.sum(s * np.log(1 - delta) + (1 - s) * np.log(delta))
    expected = -H - elogp
    tol = ROUNDING * 2**T * (1 + abs(np.log(delta)))
    assert abs(binary_chain_factored_kl(rho, delta) - expected) <= tol


def test_binary_factored_kl_zero_for_independent_uniform_chain():
    # Δ = ½ makes the chain i.i.d. uniform, which the factored q = ½ matches exactly.
    assert abs(binary_chain_factored_kl([0.5, 0.5, 0.5], 0.5)) <= ROUNDING * 8
    assert binary_chain_factored_kl([0.5, 0.5], 0.1) > 0


def test_binary_factored_kl_handles_deterministic_q():
    # 0 log 0 = 0: ρ = (1, 1) puts all mass on the state (1, 1), p = ½(1−Δ)
    delta = 0.3
    assert abs(binary_chain_factored_kl([1.0, 1.0], delta) - (-np.log(0.5 * (1 - delta)))) <= 8 * EPS


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="lam must satisfy \\|lam\\| < 1"):
        ar1_stationary_variance(1.0, 1.0)
    with pytest.raises(ValueError, match="lam must satisfy"):
        ar1_joint_covariance(1.0, float("nan"))
    with pytest.raises(ValueError, match="lam must be a real number"):
        ar1_joint_precision(1.0, "slow")
    with pytest.raises(ValueError, match="sigma2 must be > 0"):
        ar1_joint_covariance(0.0, 0.5)
    with pytest.raises(ValueError, match="sigma2 must be > 0"):
        ar1_stationary_variance(-1.0, 0.5)
    with pytest.raises(ValueError, match="T must be an integer >= 1"):
        ar1_joint_covariance(1.0, 0.5, T=0)
    with pytest.raises(ValueError, match="delta must be > 0"):
        binary_chain_joint(0.0)
    with pytest.raises(ValueError, match="delta must satisfy 0 < delta < 1"):
        binary_chain_joint(1.0)
    with pytest.raises(ValueError, match="T must be <= 20"):
        binary_chain_joint(0.1, T=21)
    with pytest.raises(ValueError, match="rho must lie in \\[0, 1\\]"):
        binary_chain_factored_kl([0.5, 1.2], 0.1)
    with pytest.raises(ValueError, match="rho contains NaN"):
        binary_chain_factored_kl([0.5, np.nan], 0.1)
    with pytest.raises(ValueError, match="rho must be 1-D"):
        binary_chain_factored_kl([[0.5, 0.5]], 0.1)


# ---------------------------------------------------------------------------------------
# the Sec. 1–2 claims can fail: a wrong formula in place of the printed one is caught
# ---------------------------------------------------------------------------------------


def _run_check(claim_id):
    from symcheck.claims import claim_rng, get_claim

    return get_claim(claim_id).check(claim_rng(claim_id))


def test_eq11_claim_rejects_the_marginal_variance(monkeypatch):
    import symcheck.models.turner_factored as tf

    # the marginal variance σ²/(1−λ²) is what an approximation that "folds in" x_{t−1} would give
    monkeypatch.setattr(tf, "eq11_variance", lambda s2, lam: s2 / (1 - lam * lam))
    assert not _run_check("turner.eq11.ar1-factor-variance").holds


def test_eq17_claim_rejects_a_wrong_exponent(monkeypatch):
    import symcheck.models.turner_factored as tf

    monkeypatch.setattr(tf, "eq17_rhs", lambda rho, d: 1.0 / (1.0 + (d / (1 - d)) ** (rho - 0.5)))
    assert not _run_check("turner.eq17.fixed-point").holds


def test_eq3_erratum_fails_if_the_corrected_form_is_wrong(monkeypatch):
    import symcheck.models.turner_factored as tf

    # the marginal variances Σ_kk instead of 1/(Σ⁻¹)_kk: the erratum check must not pass
    monkeypatch.setattr(tf, "eq3_optimum_corrected", lambda mu, S: (np.asarray(mu), np.diag(S).copy()))
    assert not _run_check("turner.eq3.optimal-factored").holds
