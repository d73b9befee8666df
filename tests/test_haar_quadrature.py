"""symcheck.haar_quadrature against closed-form Haar moments.

Expected values: the first column of a Haar-distributed T is uniform on the sphere, so T₁₁ is
cos θ with θ uniform (O(2): E e^{t T₁₁} = I₀(t)) or uniform on [−1, 1] (O(3), Archimedes:
E e^{t T₁₁} = sinh(t)/t); E[T₁₁²] = 1/k and E[det T] = 0 over both cosets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from symcheck.evidence import ROUNDING
from symcheck.haar_quadrature import o2_log_integral, o3_log_integral, so3_euler_grid

EPS = np.finfo(float).eps


@pytest.mark.parametrize("t", [0.3, 4.0, 60.0])
def test_o2_exponential_moment_is_bessel_i0(t):
    val, rel = o2_log_integral(lambda T: t * T[0, 0])
    exact = math.log(special.ive(0, t)) + t
    assert rel < 1e-10
    assert abs(val - exact) <= 10 * rel + 10 * EPS * abs(exact)


@pytest.mark.parametrize("t", [0.3, 4.0, 20.0])
def test_o3_exponential_moment_is_sinh_over_t(t):
    val, err = o3_log_integral(lambda T: t * T[:, 0, 0])
    exact = t + math.log(-math.expm1(-2 * t) / (2 * t))  # log(sinh t / t)
    assert err < 1e-6  # the rule resolves the integral (and its estimate bounds the error below)
    assert abs(val - exact) <= err + ROUNDING * max(1.0, abs(exact))


def test_euler_grid_is_orthogonal_with_unit_mass_and_second_moment():
    T, W = so3_euler_grid(12)
    assert np.allclose(T @ np.swapaxes(T, -1, -2), np.eye(3), atol=1e-14)
    assert np.allclose(np.linalg.det(T), 1.0, atol=1e-13)
    assert abs(W.sum() - 1) < 1e-14
    assert abs(np.sum(W * T[:, 1, 2] ** 2) - 1 / 3) < 1e-13


def test_o2_both_cosets_are_integrated():
    # det T is +1 on SO(2) and −1 on the other coset: log E[e^{det T}] = log cosh 1
    val, _ = o2_log_integral(lambda T: np.linalg.det(T))
    assert abs(val - math.log(math.cosh(1.0))) < 1e-12


@pytest.mark.parametrize("call, name", [
    (lambda: o2_log_integral(None), "log_f"),
    (lambda: o3_log_integral(3.0), "log_f_batch"),
    (lambda: so3_euler_grid(0), "n"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
