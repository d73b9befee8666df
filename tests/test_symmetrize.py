"""KL gap, entropies, InfoNCE estimator and ELBO helpers (symcheck.symmetrize).

Monte Carlo assertions use z = z_for_alpha() (two-sided α = 1e-5 each) times the
standard error; sample sizes are chosen so that the stated effect is detectable.
Closed forms used as independent routes: the normal mixture CDF, Taylor limits and
tail bounds of the sign-flip gap, the identity E_{q̃}[q*/q̃] = 1.
"""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from symcheck.evidence import FALSE_FAILURE_ALPHA, ROUNDING, z_for_alpha
from symcheck.gaussian import entropy_gaussian, gaussian_logpdf
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.signflip_exact import signflip_infonce_expectation_1d
from symcheck.symmetrize import (
    chi2_to_symmetrized,
    elbo_symmetrized_eq4,
    elbo_symmetrized_eq5,
    entropy_infonce,
    entropy_infonce_is,
    entropy_symmetrized,
    infonce_bias_law,
    sample_symmetrized,
    symmetrization_gap,
    symmetrized_logpdf,
)

Z = z_for_alpha()


def test_sampling_interpretation_1d_ks(rng):
    # z = g·z*, z* ~ q*, g uniform has CDF ½[Φ((x−μ)/σ) + Φ((x+μ)/σ)] (closed form).
    # KS with n = 20000 detects a sup-CDF error of ≈ 1.9/√n ≈ 0.013 at α = 1e-5.
    mu, sd = 1.5, 0.7
    z = sample_symmetrized([mu], [sd**2], SignFlip(), rng, 20000)[:, 0]
    cdf = lambda x: 0.5 * (ndtr((x - mu) / sd) + ndtr((x + mu) / sd))  # noqa: E731
    assert stats.kstest(z, cdf).pvalue > FALSE_FAILURE_ALPHA
    # and the unsymmetrized base is rejected by the same test (power check)
    assert stats.kstest(z, lambda x: ndtr((x - mu) / sd)).pvalue < FALSE_FAILURE_ALPHA


@pytest.mark.parametrize("group", [MLPPermutation([1, 3, 1]), SignFlip((2, 2), blocks="columns")],
                         ids=["mlp-1-3-1", "signflip-columns"])
def test_sampling_interpretation_ratio_identity(rng, group):
    # E_{z~q̃}[q*(z)/q̃(z)] = ∫ q* = 1 exactly; the ratio lies in [0, |G|], so its MC mean has
    # a finite SE. With n = 20000 a density error that shifts the mean by ≳ 4.42·SE ≈ 0.03 fails.
    shape = (group.dim,) if isinstance(group, MLPPermutation) else (2, 2)
    mean, var = rng.normal(size=shape), rng.uniform(0.3, 1.0, size=shape)
    z = sample_symmetrized(mean, var, group, rng, 20000)
    r = np.exp(gaussian_logpdf(z, mean, var) - symmetrized_logpdf(z, mean, var, group))
    se = r.std(ddof=1) / math.sqrt(r.size)
    assert abs(r.mean() - 1) <= Z * se
    # power: unsymmetrized samples (z ~ q*) give E_{q*}[q*/q̃] = 1 + χ² > 1
    chi2, _ = chi2_to_symmetrized(mean, var, group, rng, 20000)
    assert chi2 > Z * se


def test_gap_limits_signflip():
    G = SignFlip()
    # merge: KL = s/2 + O(s²), s = μ²/v (Taylor of log 2 + log σ(2t), t ~ N(s, s))
    s = 1e-6
    gap, se = symmetrization_gap([math.sqrt(s)], [1.0], G)
    assert se == 0 and abs(gap / (s / 2) - 1) <= 4 * s
    # separate: 0 ≤ log 2 − KL ≤ (1+log 2)Φ(−√s) + 2(√s φ(√s) − sΦ(−√s)) (softplus tail bound)
    for s in [1.0, 4.0, 25.0, 100.0, 1e6]:
        gap, _ = symmetrization_gap([math.sqrt(s)], [1.0], G)
        r = math.sqrt(s)
        bound = (1 + math.log(2)) * ndtr(-r) + 2 * (r * stats.norm.pdf(r) - s * ndtr(-r))
        assert -1e-13 <= math.log(2) - gap <= bound + 1e-13
    # exactly invariant base: KL = 0
    assert symmetrization_gap([0.0, 0.0], [1.0, 3.0], G) == (0.0, 0.0)


def test_gap_exact_matches_monte_carlo(rng):
    # a diagonal matrix given as a full covariance forces the Monte Carlo route
    G = SignFlip((2, 3), blocks="columns")
    mean, var = rng.normal(size=(2, 3)), rng.uniform(0.3, 1.0, size=(2, 3))
    exact, se0 = symmetrization_gap(mean, var, G)
    mc, se = symmetrization_gap(mean, np.diag(var.reshape(-1)), G, rng, 20000)
    assert se0 == 0 and 0 <= exact <= G.log_order()
    assert abs(mc - exact) <= Z * se


def test_entropy_gaussian_full_and_diag(rng):
    v = rng.uniform(0.1, 3, size=4)
    assert abs(entropy_gaussian(v) - entropy_gaussian(np.diag(v), full=True)) < ROUNDING * 4 * 10
    assert abs(entropy_gaussian(v) - stats.multivariate_normal(np.zeros(4), np.diag(v)).entropy()) < 1e-12


def test_infonce_mc_matches_exact_expectation(rng):
    # E[Ĥ^K] from the binomial-sum quadrature vs the sampler, K = 1, 3, 10
    mean, var = np.array([0.8, -0.4]), np.array([0.5, 1.0])
    s = float(np.sum(mean**2 / var))
    for K in (1, 3, 10):
        est, se = entropy_infonce(mean, var, SignFlip(), K, 8000, rng)
        exact = entropy_gaussian(var) + signflip_infonce_expectation_1d(s, K)
        assert abs(est - exact) <= Z * se


def test_infonce_stratified_exact_at_full_group(rng):
    # without replacement and K = |G| the mixture is q̃ itself: same expectation as H(q̃)
    G = MLPPermutation([1, 3, 1])
    mean, var = rng.normal(size=G.dim), np.full(G.dim, 0.3)
    est, se = entropy_infonce(mean, var, G, 6, 4000, rng, replace=False)
    H, se_h = entropy_symmetrized(mean, var, G, rng, 20000)
    assert abs(est - H) <= Z * math.hypot(se, se_h)


@pytest.mark.parametrize("group", [MLPPermutation([1, 3, 2, 1]), SignFlip((2, 3), blocks="columns")],
                         ids=["mlp", "signflip"])
def test_importance_weights_unbiased(group):
    # Σ_g r(g) w(g) f(g) = (1/|G|) Σ_g f(g) for any f: check with f = indicator of each element,
    # i.e. r(g) w(g) = 1/|G| for every g, where r is built independently from its definition.
    from symcheck.symmetrize import _is_log_weights

    els = group.elements()
    nb = np.array([np.sum(e != els[0]) == (2 if isinstance(group, MLPPermutation) else 1) for e in els])
    rho = 0.3
    r = rho / els.shape[0] + (1 - rho) * nb / nb.sum()
    w = np.exp(_is_log_weights(group, els, rho))
    assert np.allclose(r * w, 1 / els.shape[0], rtol=ROUNDING, atol=0)


def test_infonce_importance_rho_one_is_plain(rng):
    # ρ = 1 makes r uniform and w ≡ 1: the IS estimator is the plain one; compare with the exact E[H^K]
    mean, var = np.array([0.8]), np.array([0.5])
    est, se = entropy_infonce_is(mean, var, SignFlip(), 5, 8000, rng, rho=1.0)
    exact = entropy_gaussian(var) + signflip_infonce_expectation_1d(float(mean[0] ** 2 / var[0]), 5)
    assert abs(est - exact) <= Z * se


def test_bias_law_shape():
    assert np.allclose(infonce_bias_law(2.0, [1, 2, 4]), [1.0, 0.5, 0.25])
    with pytest.raises(ValueError, match="K"):
        infonce_bias_law(1.0, 0)


def test_eq4_eq5_agree(rng):
    # Moore eqs. (4) and (5) on r = uv + ε: same bound by two estimators
    r = 1.5

    def log_joint(z):
        u, v = z[:, 0], z[:, 1]
        return stats.norm.logpdf(u) + stats.norm.logpdf(v) + stats.norm.logpdf(r - u * v)

    mean, var = np.array([1.0, 1.1]), np.array([0.3, 0.25])
    a, sa = elbo_symmetrized_eq4(log_joint, mean, var, SignFlip(), 20000, rng)
    b, sb = elbo_symmetrized_eq5(log_joint, mean, var, SignFlip(), 20000, rng)
    assert abs(a - b) <= Z * math.hypot(sa, sb)


def test_bad_input(rng):
    G = SignFlip()
    with pytest.raises(ValueError, match="K"):
        entropy_infonce([0.0], [1.0], G, 0, 10, rng)
    with pytest.raises(ValueError, match="n_samples"):
        entropy_infonce([0.0], [1.0], G, 2, 1, rng)
    with pytest.raises(ValueError, match="var"):
        entropy_infonce([0.0], [-1.0], G, 2, 10, rng)
    with pytest.raises(ValueError, match="group"):
        symmetrized_logpdf([0.0], [0.0], [1.0], "signflip")
    with pytest.raises(ValueError, match="rng"):
        symmetrization_gap(np.zeros(MLPPermutation([1, 2, 1]).dim), np.ones(7), MLPPermutation([1, 2, 1]))
    with pytest.raises(ValueError, match="K"):
        entropy_infonce(np.zeros(7), np.ones(7), MLPPermutation([1, 2, 1]), 3, 10, rng, replace=False)
    with pytest.raises(ValueError, match="rho"):
        entropy_infonce_is([1.0], [1.0], G, 3, 10, rng, rho=2.0)
    with pytest.raises(ValueError, match="log_joint"):
        elbo_symmetrized_eq4(lambda z: np.zeros(3), [1.0], [1.0], G, 10, rng)


def test_two_relu_bnn_evidence_and_symmetry(rng):
    # the tractable BNN of Gelberg Sec. 5: two evidence routes (1-D decomposition vs 2-D
    # quadrature; both to relative 1e-8, so 1e-7 absolute at |log p| ~ 10) and the swap symmetry
    from symcheck.models.gelberg_bnn import TwoReLUNet

    m = TwoReLUNet.synthetic(0.3, 8, rng, noise_sd=0.7, noise=True)
    assert abs(m.log_evidence("1d") - m.log_evidence("2d")) <= 1e-7 * max(1.0, abs(m.log_evidence("1d")))
    w = rng.normal(size=(5, 2))
    assert np.allclose(m.log_joint(w), m.log_joint(w[:, ::-1]), rtol=0, atol=1e-12)
    assert np.allclose(m.forward(w, m.x), m.forward(w[:, ::-1], m.x), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="w"):
        m.log_likelihood(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="method"):
        m.log_evidence("3d")
    with pytest.raises(ValueError, match="noise_sd"):
        TwoReLUNet([1.0], [1.0], noise_sd=0.0)


def test_infonce_control_variate_same_mean_less_spread(rng):
    # the control variate log q*(ω) + H(q*) has mean 0: E[Ĥ^K] is unchanged (exact value by
    # quadrature), and in D = 6 dimensions the per-sample spread drops below the plain one
    mean, var = rng.normal(size=6) * 0.5, rng.uniform(0.3, 1.0, size=6)
    s = float(np.sum(mean**2 / var))
    exact = entropy_gaussian(var) + signflip_infonce_expectation_1d(s, 4)
    est, se = entropy_infonce(mean, var, SignFlip(), 4, 4000, rng, control_variate=True)
    _, se_plain = entropy_infonce(mean, var, SignFlip(), 4, 4000, rng)
    assert abs(est - exact) <= Z * se
    assert se < se_plain
