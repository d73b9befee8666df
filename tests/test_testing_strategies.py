"""symcheck.testing.strategies: every draw is a valid input, with the property its shape promises.

Validity is checked by routes independent of the construction: symcheck's own argument checks
(as_sigma, check_positive_definite: Cholesky), the orthogonality bound of check_haar_sampler, sorting
for permutations. Planted invalid objects show each validity check can fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symcheck._checks import as_sigma, check_positive_definite
from symcheck.evidence import ROUNDING
from symcheck.testing.strategies import (
    MAX_COND,
    SPECTRUM_SHAPES,
    orthogonal_matrices,
    permutations,
    sigma_spectra,
    sign_flips,
    spd_matrices,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----- validity predicates (and their planted failures) ----------------------------------------------

def valid_spectrum(sigma, k, max_sigma) -> bool:
    as_sigma(sigma, k)  # raises on negative, non-finite, wrong length
    return sigma.dtype == np.float64 and bool(np.all(np.diff(sigma) <= 0)) and sigma.max(initial=0) <= max_sigma


def orthogonality_error(t) -> float:
    return float(np.max(np.abs(t.T @ t - np.eye(t.shape[0]))))


def is_spd(s) -> bool:
    try:
        check_positive_definite(s, "s")
    except ValueError:
        return False
    return bool(np.array_equal(s, s.T))


def test_the_validity_checks_can_fail():
    with pytest.raises(ValueError):
        valid_spectrum(np.array([1.0, -0.5]), 2, 10.0)
    assert not valid_spectrum(np.array([0.5, 1.0]), 2, 10.0)  # ascending
    assert not is_spd(np.array([[1.0, 2.0], [2.0, 1.0]]))  # indefinite: Cholesky fails
    assert orthogonality_error(np.array([[1.0, 1e-9], [0.0, 1.0]])) > ROUNDING * 4


# ----- sigma_spectra --------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SPECTRUM_SHAPES)
def test_sigma_spectra_are_valid_and_have_their_shape(shape):
    @SETTINGS
    @given(st.data())
    def check(data):
        k = data.draw(st.integers(1, 8))
        sigma = data.draw(sigma_spectra(k=k, shape=shape, max_sigma=50.0))
        assert sigma.shape == (k,) and valid_spectrum(sigma, k, 50.0)
        if shape == "equal":
            assert np.all(sigma == sigma[0])
        elif shape == "rank one":
            assert sigma[0] > 0 and np.count_nonzero(sigma) == 1
        elif shape == "rank-deficient":
            assert np.count_nonzero(sigma) < k
        elif shape == "spread" and k > 1:
            assert np.min(-np.diff(sigma)) >= sigma[0] / (4 * k + 1) * (1 - ROUNDING * k)
        elif shape == "clustered" and k > 1:
            width = 1 - sigma[-1] / sigma[0]  # absolute rounding error of a few eps (1 − (1 − w))
            assert 1e-8 - ROUNDING <= width <= 1e-2 + ROUNDING and sigma[-1] < sigma[0]

    check()


@SETTINGS
@given(sigma_spectra())
def test_sigma_spectra_defaults_cover_all_shapes_validly(sigma):
    assert 1 <= sigma.size <= 8 and valid_spectrum(sigma, sigma.size, 100.0)


@SETTINGS
@given(sigma_spectra(k=st.integers(2, 4), shape=("equal", "rank one")))
def test_sigma_spectra_take_a_strategy_for_k_and_several_shapes(sigma):
    assert 2 <= sigma.size <= 4
    assert np.all(sigma == sigma[0]) or np.count_nonzero(sigma) == 1


# ----- spd_matrices ---------------------------------------------------------------------------------

@pytest.mark.parametrize("cond_max", [1.0, 1e3, 1e8])
def test_spd_matrices_are_spd_within_their_condition_number(cond_max):
    @SETTINGS
    @given(spd_matrices(st.integers(1, 6), cond_max=cond_max))
    def check(s):
        assert is_spd(s)
        lam = np.linalg.eigvalsh(s)
        d = s.shape[0]
        # Weyl's inequality: rounding moves each eigenvalue by ≤ ROUNDING·d·max λ (module notes)
        assert lam[-1] / lam[0] <= cond_max * (1 + ROUNDING * d * cond_max) + ROUNDING * d * cond_max

    check()


# ----- orthogonal_matrices --------------------------------------------------------------------------

@pytest.mark.parametrize("special", [False, True])
def test_orthogonal_matrices_are_orthogonal(special):
    @SETTINGS
    @given(orthogonal_matrices(st.integers(1, 7), special=special))
    def check(t):
        k = t.shape[0]
        assert t.shape == (k, k) and t.dtype == np.float64
        assert orthogonality_error(t) <= ROUNDING * k * k  # check_haar_sampler's bound
        if special:
            assert np.linalg.det(t) > 0

    check()


def test_orthogonal_matrices_reach_both_cosets():
    dets = []

    @settings(max_examples=80, deadline=None, database=None)
    @given(orthogonal_matrices(3))
    def collect(t):
        dets.append(np.sign(np.linalg.det(t)))

    collect()
    assert {-1.0, 1.0} <= set(dets)


# ----- sign_flips, permutations ---------------------------------------------------------------------

@SETTINGS
@given(st.data())
def test_sign_flips_and_permutations_are_group_elements(data):
    d = data.draw(st.integers(1, 12))
    s = data.draw(sign_flips(d))
    assert s.shape == (d,) and s.dtype == np.float64 and set(np.unique(s)) <= {-1.0, 1.0}
    p = data.draw(permutations(d))
    assert p.shape == (d,) and np.issubdtype(p.dtype, np.integer)
    assert np.array_equal(np.sort(p), np.arange(d))


# ----- bad arguments --------------------------------------------------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: sigma_spectra(k=0), "k must be an integer >= 1"),
    (lambda: sigma_spectra(k=True), "k must be an integer"),
    (lambda: sigma_spectra(shape="flat"), "unknown shape"),
    (lambda: sigma_spectra(shape=()), "shape must name"),
    (lambda: sigma_spectra(max_sigma=-1.0), "max_sigma must be > 0"),
    (lambda: spd_matrices(3, cond_max=0.5), "cond_max must lie in"),
    (lambda: spd_matrices(3, cond_max=10 * MAX_COND), "cond_max must lie in"),
    (lambda: spd_matrices(0), "d must be an integer >= 1"),
    (lambda: orthogonal_matrices(3, special=1), "special must be a boolean"),
    (lambda: orthogonal_matrices(2.5), "k must be an integer"),
    (lambda: sign_flips(-1), "d must be an integer >= 1"),
    (lambda: permutations("3"), "n must be an integer"),
])
def test_bad_arguments_raise_naming_them(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_a_strategy_for_a_size_is_checked_when_drawn():
    @settings(max_examples=5, deadline=None, database=None)
    @given(sign_flips(st.just(0)))
    def draw(_):
        pass

    with pytest.raises(ValueError, match="d must draw integers >= 1"):
        draw()
