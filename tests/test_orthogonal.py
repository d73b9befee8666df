"""Tests of symcheck.orthogonal: O(k) acting on matrix columns (Moore 2016, App. A).

Every expected value comes from another route: literal Gaussian densities integrated over
O(2) by adaptive quadrature, the sign-flip group of symcheck.groups for O(1), Bessel closed
forms against the trapezoid route, Haar Monte Carlo within z·SE, and exact identities
(invariance, Cauchy–Schwarz) with float64 rounding budgets.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import logsumexp

from symcheck import Orthogonal, moore_kl, moore_r, orthogonal_logpdf, orthogonal_logpdf_mc
from symcheck.evidence import ROUNDING, z_for_alpha
from symcheck.gaussian import gaussian_logpdf
from symcheck.groups import SignFlip
from symcheck.haar import haar_orthogonal
from symcheck.orthogonal import _o2_harmonics, _o2_log_error_bound, _o2_nodes
from symcheck.symmetrize import sample_symmetrized, symmetrization_gap, symmetrized_logpdf

EPS = np.finfo(float).eps
Z = z_for_alpha()


def _rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def _quad_logpdf(X, M, V):
    """log q̃(X) = log ½ Σ_cosets (1/2π)∫ q*(X Tᵀ) dθ with the literal density; (value, rel. err)."""
    flip = np.diag([1.0, -1.0])
    shift = float(gaussian_logpdf(X, M, V))
    total, err = 0.0, 0.0
    for coset in (lambda t: _rot(t), lambda t: _rot(t) @ flip):
        v, e = integrate.quad(lambda t: math.exp(gaussian_logpdf(X @ coset(t).T, M, V) - shift),
                              0, 2 * np.pi, epsabs=0, epsrel=1e-13, limit=400)
        total += v
        err += e
    return math.log(total / (4 * np.pi)) + shift, err / total


# ----- validation --------------------------------------------------------------------


@pytest.mark.parametrize("mean, var, match", [
    (np.zeros(3), 1.0, "mean must be an N×k matrix"),
    (np.zeros((3, 2)), -1.0, "var must be > 0"),
    (np.zeros((3, 2)), np.ones(3), "var must be a scalar"),
    (np.zeros((3, 2)), np.array([1.0, np.nan]), "var contains NaN"),
    (np.full((3, 2), np.inf), 1.0, "mean contains inf"),
])
def test_bad_base_raises(mean, var, match):
    with pytest.raises(ValueError, match=match):
        orthogonal_logpdf(np.zeros((3, 2)), mean, var)


def test_bad_points_and_options_raise():
    M = np.zeros((3, 2))
    with pytest.raises(ValueError, match="X must have trailing shape"):
        orthogonal_logpdf(np.zeros((2, 3)), M, 1.0)
    with pytest.raises(ValueError, match="X contains NaN"):
        orthogonal_logpdf(np.full((3, 2), np.nan), M, 1.0)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        Orthogonal(0)
    with pytest.raises(ValueError, match="mean must have k=3 columns"):
        Orthogonal(3).validate(M, 1.0)
    with pytest.raises(ValueError, match="unknown form"):
        moore_r(M, M, 1.0, form="symmetric")
    with pytest.raises(ValueError, match="c must be > 0"):
        moore_r(M, M, 0.0)
    with pytest.raises(ValueError, match="n_samples must be an integer >= 2"):
        orthogonal_logpdf_mc(M, M, 1.0, 1, 0)
    with pytest.raises(ValueError, match="non-isotropic variance exists only for k <= 2"):
        orthogonal_logpdf(np.zeros((2, 3)), np.zeros((2, 3)), np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="g must have shape"):
        Orthogonal(2).act(np.eye(2), M)
    with pytest.raises(ValueError, match="unknown method"):
        orthogonal_logpdf(M, M, 1.0, method="nope")


# ----- the group action ---------------------------------------------------------------


def test_action_convention_and_broadcasting(rng):
    G = Orthogonal(3)
    g = G.sample(rng, 5)
    assert g.shape == (5, 3, 3)
    np.testing.assert_allclose(g @ np.swapaxes(g, -1, -2), np.broadcast_to(np.eye(3), g.shape), atol=ROUNDING)
    X = rng.standard_normal((4, 3))
    out = G.act(g, X)
    assert out.shape == (5, 4, 3)
    np.testing.assert_allclose(out[2], X @ g[2].T, atol=16 * EPS)
    # a left action: g1·(g2·X) = (g1 g2)·X
    two = G.act(g[:1], G.act(g[1:2], X))
    np.testing.assert_allclose(two, G.act(g[:1] @ g[1:2], X), atol=ROUNDING)
    pairs = G.act(g, np.broadcast_to(X, (7, 5, 4, 3)))
    assert pairs.shape == (7, 5, 4, 3)
    assert G.log_order() == math.inf


# ----- exact routes against literal quadrature ------------------------------------------


def test_o2_harmonics_match_literal_density(rng):
    M = rng.standard_normal((5, 2))
    V = rng.uniform(0.2, 3.0, (5, 2))
    X = rng.standard_normal((5, 2))
    for flip in (np.array([1.0, 1.0]), np.array([1.0, -1.0])):
        a0, a1, b1, a2, b2 = _o2_harmonics(X * flip, M, V)
        for t in rng.uniform(0, 2 * np.pi, 6):
            h = a0 + a1 * math.cos(t) + b1 * math.sin(t) + a2 * math.cos(2 * t) + b2 * math.sin(2 * t)
            T = _rot(t) @ np.diag(flip)
            ref = float(gaussian_logpdf(X @ T.T, M, V))
            # O(N) products of size |x|²/v summed twice: 64 eps per unit of that size
            assert abs(h - ref) <= ROUNDING * (1 + np.sum((X * X + M * M) / V))


@pytest.mark.parametrize("iso", [True, False])
def test_k2_exact_matches_adaptive_quadrature(rng, iso):
    for scale in (0.1, 1.0, 3.0):
        M = scale * rng.standard_normal((4, 2))
        var = 0.7 if iso else rng.uniform(0.3, 2.0, (4, 2))
        V = np.broadcast_to(var, M.shape)
        X = M + np.sqrt(V) * rng.standard_normal((4, 2))
        ref, rel = _quad_logpdf(X, M, V)
        got = float(orthogonal_logpdf(X, M, var))
        scale_terms = float(np.sum((X * X + M * M) / V))
        assert abs(got - ref) <= 10 * rel + 1e-15 + ROUNDING * (1 + scale_terms), (scale, got, ref)


def test_k1_matches_signflip_group(rng):
    M = rng.standard_normal((6, 1))
    V = rng.uniform(0.2, 2.0, (6, 1))
    X = rng.standard_normal((10, 6, 1))
    ref = SignFlip().symmetrized_logpdf(X.reshape(10, 6), M.ravel(), V.ravel())
    np.testing.assert_allclose(orthogonal_logpdf(X, M, V), ref, rtol=0, atol=ROUNDING * (1 + np.abs(ref).max()))


@pytest.mark.parametrize("norm_ratio, c", [(1.0, 1.0), (30.0, 1e-2), (1e3, 1.0), (1e3, 1e-8)])
def test_far_modes_isotropic_bessel_vs_trapezoid(rng, norm_ratio, c):
    """Isotropic k = 2: the I₀ closed form and the trapezoid route agree, also for far modes.

    Both routes add terms of size (‖X‖² + ‖M‖²)/c; their float64 rounding is ~8 eps times
    that (a few operations each), and the trapezoid's rigorous bound is 1e-15 relative.
    """
    N = 80
    M = rng.standard_normal((N, 2))
    M *= norm_ratio * math.sqrt(c) / np.linalg.norm(M)
    X = M + math.sqrt(c) * rng.standard_normal((3, N, 2))
    closed = orthogonal_logpdf(X, M, c, method="exact")
    from symcheck.orthogonal import _log_qtilde_o2

    trap, _ = _log_qtilde_o2(X, M, np.full(M.shape, c))
    size = (np.sum(X * X, axis=(1, 2)) + np.sum(M * M)) / c
    assert np.all(np.isfinite(closed))
    np.testing.assert_array_less(np.abs(closed - trap), ROUNDING * (1 + size) + 1e-14)


def test_far_modes_stay_finite_any_k(rng):
    for k in (3, 5, 10):
        M = rng.standard_normal((80, k))
        M *= 1e3 * math.sqrt(1e-8) / np.linalg.norm(M)
        X = M + 1e-4 * rng.standard_normal((2, 80, k))
        # k = 3 "auto" goes to the k = 3 quadrature closed form, which takes seconds at σ ~ 1e6
        # (reported to its owner); its finiteness there is not this module's concern
        for method in ("laplace",) if k == 3 else ("laplace", "auto"):
            lq = orthogonal_logpdf(X, M, 1e-8, method=method)
            r = moore_r(X, M, 1e-8, method=method)
            assert np.all(np.isfinite(lq)) and np.all(np.isfinite(r))
        est, se = orthogonal_logpdf_mc(X, M, 1e-8, 64, rng)
        assert np.all(np.isfinite(est)) and np.all(np.isfinite(se))
    # non-isotropic far mode, k = 2 (trapezoid with ~10⁴ nodes)
    M = rng.standard_normal((80, 2))
    M *= 1e3 / np.linalg.norm(M)
    V = np.array([1.0, 3.0])
    X = M + np.sqrt(V) * rng.standard_normal((80, 2))
    assert np.isfinite(orthogonal_logpdf(X, M, V))


def test_trapezoid_node_count_is_enough(rng):
    """The node count from the error bound agrees with 4× as many nodes to rounding."""
    for amp in (0.0, 1.0, 50.0, 1e4):
        n = _o2_nodes(np.array([amp]), np.array([amp / 3]))
        assert _o2_log_error_bound(np.array([amp]), np.array([amp / 3]), n)[0] <= math.log(1e-15)
        th = [2 * np.pi * np.arange(m) / m for m in (n, 4 * n)]
        vals = [logsumexp(amp * np.cos(t) + amp / 3 * np.sin(2 * t)) - math.log(t.size) for t in th]
        # the log of a mean of positive terms: rounding ~ log2(n) eps relative, on values ~amp
        assert abs(vals[0] - vals[1]) <= 1e-15 + ROUNDING * (1 + amp)


# ----- Monte Carlo route ------------------------------------------------------------------


@pytest.mark.parametrize("k, var", [(2, np.array([0.4, 1.5])), (2, 0.8), (1, np.array([0.5])), (4, 0.6)])
def test_mc_matches_exact_within_se(rng, k, var):
    N = 1 if k == 4 else 3  # N = 1 makes B rank one: a closed form for any k
    M = rng.standard_normal((N, k))
    X = M + np.sqrt(np.broadcast_to(var, M.shape)) * rng.standard_normal((5, N, k))
    exact = orthogonal_logpdf(X, M, var, method="exact")
    est, se = orthogonal_logpdf_mc(X, M, var, 20_000, rng)
    # z·SE per point (5 points: Bonferroni) + the log-of-mean bias ≈ SE²/2 + rounding (for
    # k = 1 the sign-flip Rao–Blackwellisation makes every weight exact: SE = 0)
    z = z_for_alpha(1e-5 / 5)
    np.testing.assert_array_less(np.abs(est - exact), z * se + se**2 + ROUNDING * (1 + np.abs(exact)))


# ----- Moore's r and KL -------------------------------------------------------------------


def test_corrected_r_is_log_ratio_and_printed_is_never_smaller(rng):
    M = rng.standard_normal((5, 2))
    X = M + rng.standard_normal((200, 5, 2))
    rc = moore_r(X, M, 1.0, method="exact")
    lq = gaussian_logpdf(X, M, np.ones((5, 2))) - orthogonal_logpdf(X, M, 1.0, method="exact")
    size = np.sum(X * X, axis=(1, 2)) + np.sum(M * M)
    np.testing.assert_array_less(np.abs(rc - lq), ROUNDING * (1 + size))
    # Cauchy–Schwarz over T ↦ Tᵀ: ₀F₁(σ(A)) ≤ ₀F₁(σ(B)), so the printed r ≥ the correct r
    rp = moore_r(X, M, 1.0, form="printed", method="exact")
    assert np.all(rp - rc >= -ROUNDING * (1 + size))
    assert np.mean(rp - rc) > 0


def test_group_protocol_dispatchers(rng):
    G = Orthogonal(2)
    M = rng.standard_normal((4, 2))
    X = rng.standard_normal((3, 4, 2))
    np.testing.assert_array_equal(symmetrized_logpdf(X, M, 0.5, G), orthogonal_logpdf(X, M, 0.5))
    s = sample_symmetrized(M, 0.5, G, rng, 6)
    assert s.shape == (6, 4, 2)
    gap, se = symmetrization_gap(M, 0.5, G, rng=np.random.default_rng(7), n_samples=500)
    kl, se2 = moore_kl(M, 0.5, 500, np.random.default_rng(7), method="exact")
    assert abs(gap - kl) <= ROUNDING * 500 * (1 + abs(kl)) and abs(se - se2) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), iso=st.booleans(), scale=st.floats(0.01, 20.0))
def test_invariance_property(seed, iso, scale):
    gen = np.random.default_rng(seed)
    M = scale * gen.standard_normal((3, 2))
    var = 0.5 if iso else gen.uniform(0.2, 2.0, 2)
    X = M + gen.standard_normal((3, 2))
    T = haar_orthogonal(2, 4, gen)
    base = orthogonal_logpdf(X, M, var)
    moved = orthogonal_logpdf(X @ np.swapaxes(T, -1, -2), M, var)
    size = (np.sum(X * X) + np.sum(M * M)) / np.min(var)
    np.testing.assert_array_less(np.abs(moved - base), 256 * EPS * (1 + size + abs(base)))


def test_group_checks_k_of_the_base():
    with pytest.raises(ValueError, match="mean must have k=2 columns"):
        Orthogonal(2).symmetrized_logpdf(np.zeros((4, 3)), np.zeros((4, 3)), 1.0)
