"""ICA with binary variance switches, Turner, Berkes & Sahani Sec. 3.3 (symcheck.models.turner_ica).

The printed equations are checked in symcheck.claims.turner_ica; here: the enumeration routes
against quadrature, properties of the variational fixed point, and bad input.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from symcheck.evidence import ROUNDING
from symcheck.models import turner_ica as ica


@pytest.mark.parametrize("sigma2,sigma_y2", [(0.3, 0.2), (1.0, 1.0), (1.9, 0.05)])
def test_evidence_integrates_to_one(sigma2, sigma_y2):
    val, err = integrate.quad(lambda y: np.exp(ica.ica_log_evidence(y, sigma2, sigma_y2)), -np.inf, np.inf, epsabs=1e-13)
    assert abs(val - 1) <= 10 * err + ROUNDING


def test_evidence_matches_double_integral():
    # p(y) = Σ_s ¼ ∫∫ N(x1; 0, v1) N(x2; 0, v2) N(y; x1 + x2, σ_y²) dx: integrate x2 analytically
    # (Gaussian convolution) and x1 by quad, independent of the enumerated closed form
    s2, sy2, y = 0.4, 0.3, 1.3
    total = 0.0
    for s in ica.SWITCH_STATES:
        v1, v2 = (1 - s) * s2 + s * (2 - s2)
        f = lambda x1: stats.norm.pdf(x1, 0, np.sqrt(v1)) * stats.norm.pdf(y - x1, 0, np.sqrt(v2 + sy2))  # noqa: E731
        total += 0.25 * integrate.quad(f, -np.inf, np.inf, epsabs=0, epsrel=1e-12)[0]
    assert float(ica.ica_log_evidence(y, s2, sy2)) == pytest.approx(np.log(total), abs=1e-11)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 1.95), st.floats(0.05, 2.0), st.floats(-4.0, 4.0))
def test_fixed_point_is_below_evidence_and_self_consistent(s2, sy2, y):
    fit = ica.ica_variational_fit(np.array(y), s2, sy2, init_s=(0.8, 0.3))
    F = float(fit["free_energy"])
    assert F <= float(ica.ica_log_evidence(y, s2, sy2)) + ROUNDING * (abs(F) + 10)
    # at the fixed point another sweep changes nothing (to the stopping tolerance 1e-13)
    Sigma, mu = ica.eq63_q_x(fit["Es"], y, s2, sy2)
    assert np.allclose(Sigma, fit["Sigma"], rtol=0, atol=1e-10 * np.max(np.abs(Sigma)) + 1e-12)
    if fit["converged"]:
        # free energy (66) agrees with quadrature of log p − log q at the fitted q
        Fq = ica.ica_free_energy_quadrature(fit["q_s"], fit["mu"], fit["Sigma"], y, s2, sy2)
        assert F == pytest.approx(Fq, abs=ROUNDING * (abs(F) + 1 / s2 + 1 / (2 - s2) + (y * y + 10) / sy2) * 10)


def test_symmetric_start_stays_symmetric():
    fit = ica.ica_variational_fit(np.array([0.2, 1.5, -3.0]), 0.3, 0.2, init_s=(0.5, 0.5))
    assert np.array_equal(fit["Es"][:, 0], fit["Es"][:, 1])


def test_gaussian_sources_are_exact():
    # σ² = 1: γ = 0, the posterior is Gaussian and independent of s; the free energy is log p(y)
    y = np.array([-2.0, 0.1, 1.7])
    fit = ica.ica_variational_fit(y, 1.0, 0.4)
    assert np.allclose(fit["free_energy"], ica.ica_log_evidence(y, 1.0, 0.4), rtol=0, atol=ROUNDING * 20)


@pytest.mark.parametrize("sigma2", [0.0, -0.1, 2.0, 2.5, np.nan])
def test_bad_sigma2(sigma2):
    with pytest.raises(ValueError, match="sigma2"):
        ica.ica_log_evidence(0.3, sigma2, 0.2)
    with pytest.raises(ValueError, match="sigma2"):
        ica.eq71_dgamma(sigma2)


@pytest.mark.parametrize("sigma_y2", [0.0, -1.0, np.inf])
def test_bad_sigma_y2(sigma_y2):
    with pytest.raises(ValueError, match="sigma_y2"):
        ica.eq61_log_evidence(0.3, 0.5, sigma_y2)


def test_bad_inputs():
    with pytest.raises(ValueError, match="y"):
        ica.ica_log_evidence(np.nan, 0.5, 0.2)
    with pytest.raises(ValueError, match="init_s"):
        ica.ica_variational_fit(0.3, 0.5, 0.2, init_s=(1.5, 0.2))
    with pytest.raises(ValueError, match="q_s"):
        ica.ica_free_energy_quadrature(np.ones((2, 2)), np.zeros(2), np.eye(2), 0.3, 0.5, 0.2)
