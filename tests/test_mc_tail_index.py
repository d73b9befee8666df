"""The Pareto tail index k̂ that decides whether a Monte Carlo standard error can be trusted.

Expected values come from the distributions the samples are drawn from (independent of the estimator):
weights drawn from a generalized Pareto distribution of shape ξ have tail index ξ; light-tailed weights
(exponential: ξ = 0; uniform: ξ = −1) come out at or below 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import genpareto

import symcheck
from symcheck import _mc
from symcheck._mc import khat_trusted, pareto_khat

N = 20_000


def _tail_se(xi: float) -> float:
    """Asymptotic standard error of the GPD shape's maximum-likelihood estimate from the M tail points,
    (1 + ξ)/√M (Smith 1987), plus the bias of the weak prior's shrinkage (Mξ + 5)/(M + 10) − ξ."""
    m = min(N // 5, math.ceil(3 * math.sqrt(N)))
    return (1 + xi) / math.sqrt(m) + abs((m * xi + 5) / (m + 10) - xi)


@pytest.mark.parametrize("xi", [0.1, 0.3, 0.5, 0.7, 1.0, 1.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_khat_recovers_the_shape_of_pareto_weights(xi, seed):
    """The tail above any threshold of a GPD(ξ) is GPD(ξ): k̂ within 5 standard errors of ξ."""
    w = genpareto.rvs(xi, size=N, random_state=np.random.default_rng(seed))
    assert abs(pareto_khat(np.log(w)) - xi) <= 5 * _tail_se(xi)


def test_light_tails_are_reliable():
    rng = np.random.default_rng(3)
    assert pareto_khat(np.log(rng.exponential(size=N))) <= 5 * _tail_se(0.0)
    assert pareto_khat(np.log(rng.uniform(size=N))) < 0.0
    assert math.isnan(pareto_khat(np.zeros(3)))  # too few weights to fit a tail
    assert pareto_khat(np.zeros(N)) == -math.inf  # equal weights: no tail (σ = 0)


def test_a_few_overwhelming_weights_are_unreliable():
    """Log-weights spread over thousands of nats (σ ~ 1e4): most tail weights underflow beside the largest."""
    logw = np.random.default_rng(4).normal(scale=2000.0, size=N)
    assert pareto_khat(logw) == math.inf
    logw = np.r_[np.zeros(N - 50), np.linspace(700.0, 705.0, 50)]  # a quarter of the tail ~1e-305 of the top
    with np.errstate(all="raise"):  # no overflow on the way
        assert pareto_khat(logw) == math.inf


def test_planted_sign_error_in_the_fit_is_caught(monkeypatch):
    """ξ̂ = −mean log(1 − θ̂x) (the sign of Zhang & Stephens' k instead of the shape) reads heavy tails as light."""
    real_log1p = np.log1p

    class Flipped:
        def __getattr__(self, name):
            return (lambda x: -real_log1p(x)) if name == "log1p" else getattr(np, name)

    monkeypatch.setattr(_mc, "np", Flipped())
    w = genpareto.rvs(1.0, size=N, random_state=np.random.default_rng(0))
    with np.errstate(all="ignore"):  # the wrong fit takes logs of negative numbers on the way
        assert not abs(_mc.pareto_khat(np.log(w)) - 1.0) <= 5 * _tail_se(1.0)


def test_the_mc_method_returns_inf_where_its_weights_are_heavy_tailed():
    """Haar draws at k = 20, rank-deficient σ_max = 100 (k̂ ≈ 6): the 'mc' method's figure is inf, not the
    standard error; at small σ (k̂ ≈ 0.1 from 20 000 draws) it is the finite standard error."""
    heavy = np.r_[100.0 * np.geomspace(1.0, 0.1, 10), np.zeros(10)]
    _, err = symcheck.log_hyp0f1(heavy, 20, method="mc", rng=0, n_samples=5000, return_error=True)
    assert np.isinf(err)
    value, se, khat = symcheck.log_hyp0f1_mc(np.full(8, 1.0), 8, N, 0, return_khat=True)
    _, err = symcheck.log_hyp0f1(np.full(8, 1.0), 8, method="mc", rng=0, n_samples=N, return_error=True)
    assert khat_trusted(khat, N) and np.isfinite(err) and err == pytest.approx(float(se))


def test_trust_needs_the_tail_index_safely_below_one_half():
    """k̂ = 0.43 from 20 000 IS draws (k = 10, spread σ_max = 30: 4.8 standard errors off) is within two of its
    standard errors (1 + k̂)/√424 of ½, so not trusted; light tails and no tail are; nan is not."""
    assert not khat_trusted(0.43, 20_000)
    assert khat_trusted(0.1, 20_000) and khat_trusted(-math.inf, 20_000)
    assert not khat_trusted(math.nan, 20_000) and not khat_trusted(math.inf, 20_000)
    assert not khat_trusted(0.1, 50)  # too few draws to know the tail


def test_accuracy_section_trusts_the_mc_standard_error_only_under_the_khat_rule():
    """The accuracy section's sentence on Monte Carlo: a light-tailed row within 4 SE counts as trusted, a
    heavy-tailed row whose error is 40 SE is reported with its k̂ and error, not as 'an honest SE'."""
    from symcheck.report.sections import hyp0f1_accuracy

    base = {"k": 20, "shape": "spread", "sigma": [30.0, 1.0], "reference": 10.0, "mc_n": 4000}
    rows = [base | {"mc": 10.001, "mc_se": 0.001, "mc_khat": 0.1},
            base | {"mc": 6.0, "mc_se": 0.1, "mc_khat": 2.7},
            base | {"reference": float("nan"), "mc": 1.0, "mc_se": 0.1, "mc_khat": 0.1, "is_khat": 0.9}]
    line = hyp0f1_accuracy._mc_usable_line(rows)
    assert "1 of 2 inputs with a reference, whose errors are within 4 SE in 1" in line
    assert "k̂ up to 2.7" in line and "40 SE and 4 nats" in line
    assert "refused as a reference on 1 inputs" in line
    rows[0]["mc_khat"] = 0.45  # near ½: the rule's two standard errors of k̂ reject it
    assert "0 of 2 inputs" in hyp0f1_accuracy._mc_usable_line(rows)
