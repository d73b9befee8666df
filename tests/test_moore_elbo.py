"""Independent checks of the closed forms behind the claim ``moore.eq5.printed-kl-not-a-bound``."""

import numpy as np
from scipy import stats

from symcheck.evidence import z_for_alpha
from symcheck.claims.moore_elbo import C_STAR, M_STAR, NOISE_VAR, R_OBS
from symcheck.models.moore_scalar import base_terms_1x2, log_evidence_1x2


def test_expected_log_joint_matches_monte_carlo(rng):
    n = 200_000
    X = M_STAR + np.sqrt(C_STAR) * rng.standard_normal((n, 2, 2))
    uv = np.einsum("ni,ni->n", X[:, 0], X[:, 1])
    log_joint = stats.norm.logpdf(R_OBS, uv, np.sqrt(NOISE_VAR)) + stats.norm.logpdf(X).sum(axis=(1, 2))
    entropy = 0.5 * 4 * np.log(2 * np.pi * np.e * C_STAR)
    mc = log_joint.mean() + entropy
    se = log_joint.std(ddof=1) / np.sqrt(n)
    assert abs(mc - base_terms_1x2(M_STAR, C_STAR, R_OBS, NOISE_VAR)) <= z_for_alpha() * se


def test_evidence_matches_prior_monte_carlo(rng):
    n = 1_000_000
    u, v = rng.standard_normal((2, n, 2))
    lik = stats.norm.pdf(R_OBS, np.einsum("ni,ni->n", u, v), np.sqrt(NOISE_VAR))
    se = lik.std(ddof=1) / np.sqrt(n)
    assert abs(lik.mean() - np.exp(log_evidence_1x2(R_OBS, NOISE_VAR))) <= z_for_alpha() * se
