"""Exact routes of the whole-point sign flip z → −z of a Gaussian q* = N(μ, Σ) (Moore Sec. 3.1).

For the flip, log q*(−z) − log q*(z) = −2t with t = μᵀΣ⁻¹z ~ N(s, s) under q*, s = μᵀΣ⁻¹μ,
so the KL gap, the χ² divergence and the expected InfoNCE entropy bound of Gelberg et al.
are one-dimensional integrals in any dimension, evaluated here by adaptive quadrature.
:class:`symcheck.groups.SignFlip` uses them per block for its ``exact_gap`` / ``exact_chi2``;
the claims and the estimators section use them as exact references.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate
from scipy.special import expit, gammaln, log_expit

__all__ = ["signflip_chi2_1d", "signflip_gap_1d", "signflip_infonce_expectation_1d"]


def _normal_expectation(f, s: float) -> float:
    """E[f(t)] for t ~ N(s, s), s ≥ 0, by adaptive quadrature in u = (t − s)/√s.

    The integrand is split at u = 0 (the normal's mode) and at u = −√s (t = 0, where the
    softplus-type integrands bend), over |u| ≤ 40 (normal mass beyond is < 1e-340).
    """
    if s == 0.0:
        return float(f(np.array(0.0)))
    r = math.sqrt(s)
    pts = sorted({-40.0, 0.0, max(-40.0, min(40.0, -r)), 40.0})
    total = 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        if b <= a:
            continue
        val, _ = integrate.quad(
            lambda u: float(f(np.array(s + r * u))) * math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi),
            a, b, epsabs=1e-15, epsrel=1e-13, limit=200,
        )
        total += val
    return total


def signflip_gap_1d(s: float) -> float:
    """KL[q*‖q̃] for the whole-point flip, as a function of s = μᵀΣ⁻¹μ.

    log q*(−z) − log q*(z) = −2t with t = μᵀΣ⁻¹z ~ N(s, s) under q*, so
    KL = E[log 2 + log σ(2t)] (σ the logistic function): a 1-D integral in any dimension.
    Where s overflows float64 (s = inf) the limit log 2 is exact to float64: |E log σ(2t)|
    ≤ E[e^{−2t}; t > 0] + E[log 2 − 2t; t < 0] = O(√s e^{−s/2}).
    """
    if s == math.inf:
        return math.log(2.0)
    return math.log(2.0) + _normal_expectation(lambda t: log_expit(2.0 * t), s)


def signflip_chi2_1d(s: float) -> float:
    """χ²(q*‖q̃) = E[q*/q̃] − 1 = E[2σ(2t)] − 1, t ~ N(s, s), for the whole-point flip.

    Where s overflows float64 (s = inf) the limit 1 is exact to float64 (1 − E[2σ(2t)] ≤
    2 E[e^{−2t}; t > 0] + 2 P(t < 0) = O(e^{−s/2})).
    """
    if s == math.inf:
        return 1.0
    return 2.0 * _normal_expectation(lambda t: expit(2.0 * t), s) - 1.0


def signflip_infonce_expectation_1d(s: float, K: int) -> float:
    """E[H^K] − H(q*) for the whole-point flip, exactly (binomial sum + 1-D quadrature).

    With m of the K−1 elements equal to −1 (m ~ Binomial(K−1, ½)), the InfoNCE mixture is
    q*(ω)[(K−m) + m e^{−2t}]/K, so E[H^K] − H(q*) = log K − Σ_m P(m) E_t log(K−m + m e^{−2t}).
    """
    ms = np.arange(K)
    logp = gammaln(K) - gammaln(ms + 1) - gammaln(K - ms) - (K - 1) * math.log(2.0)
    p = np.exp(logp)

    def f(t):
        # log(K−m + m e^{−2t}) = logaddexp(log(K−m), log m − 2t), stable for any t
        with np.errstate(divide="ignore"):
            a = np.log(K - ms)
            b = np.log(ms) - 2.0 * float(t)
        return float(np.sum(p * np.logaddexp(a, b)))

    return math.log(K) - _normal_expectation(f, s)
