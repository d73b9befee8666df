"""Gelberg experiment claims: each turns to "fails" with a planted wrong formula (and holds unpatched)."""

import numpy as np
import pytest

import symcheck.claims.gelberg_experiments as gx
import symcheck.models.gelberg_experiments as ge
from symcheck.claims import get_claim


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch):
    monkeypatch.setattr(gx, "SEEDS", (0, 1))  # two data sets keep each planted run short; the claims use five
    ge.table_run.cache_clear()
    yield
    ge.table_run.cache_clear()


def status(claim_id):
    return get_claim(claim_id).run().status


def test_grid_ground_truth_fails_with_a_shifted_grid(monkeypatch):
    real = ge.grid_posterior

    def shifted(model, n=801, half_width=None):  # box too small: cuts off posterior mass
        return real(model, n=n, half_width=0.5 * (half_width or 0.2))

    monkeypatch.setattr(ge, "grid_posterior", shifted)
    assert status("gelberg.sec5.grid-ground-truth") == "fails"


def test_exact_objectives_fail_with_a_wrong_relu_moment(monkeypatch):
    real = ge.relu_moments
    monkeypatch.setattr(ge, "relu_moments", lambda m, v: (lambda a, b: (a, 1.05 * b))(*real(m, v)))
    assert status("gelberg.sec5.exact-objectives") == "fails"


def test_variance_claim_fails_when_the_fit_reports_the_component_variance(monkeypatch):
    real = gx.interpolation_fit
    monkeypatch.setattr(gx, "interpolation_fit", lambda a, s, start="component": dict(real(a, s, start), var_ratio=0.99))
    assert status("gelberg.fig3.interpolation-inflates-variance") == "fails"


def test_switch_claim_fails_with_a_kl_missing_the_entropy(monkeypatch):
    real = gx._kl_and_grad

    def wrong(p, a, sigma):  # KL without −log s: the midpoint's larger variance is no longer penalised correctly
        kl, g = real(p, a, sigma)
        return kl + 3 * p[1], g + np.array([0.0, 3.0])

    monkeypatch.setattr(gx, "_kl_and_grad", wrong)
    assert status("gelberg.fig3.stuck-above-threshold") == "fails"


def _planted_mi(monkeypatch, factor):
    real = ge.mutual_information_swap
    monkeypatch.setattr(ge, "mutual_information_swap", lambda m, v, n_nodes=ge.GH_NODES: (factor * real(m, v, n_nodes)[0], 0.0))


def test_interpolation_claim_fails_when_sgm_ignores_the_symmetrization(monkeypatch):
    _planted_mi(monkeypatch, 0.0)  # SGM objective = MFVI objective
    assert status("gelberg.fig4.mfvi-interpolates") == "fails"


def test_table3_fails_with_an_inflated_mutual_information(monkeypatch):
    _planted_mi(monkeypatch, 3.0)  # L^G then exceeds log p(Y|X)
    assert status("gelberg.table3.symmetrized-elbo") == "fails"


def test_table2_fails_with_mse_against_the_wrong_targets(monkeypatch):
    # MSE against 0 instead of the test targets: the interpolating MFVI (predictions ≈ 0) then looks best
    monkeypatch.setattr(ge, "test_mse", lambda test, slopes: float(np.mean((np.where(test.x > 0, slopes[0], -slopes[1]) * test.x) ** 2)))
    assert status("gelberg.table2.sgm-test-mse") == "fails"
