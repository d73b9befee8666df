"""Group actions and exact symmetrized log densities (symcheck.groups).

Independent routes: explicit permutation matrices of Gelberg Def. 2.1, brute-force
enumeration, scipy.stats densities, 1-D quadrature of the normalisation, and the MLP
forward pass (function invariance). Float tolerances: sums of O(D) terms of size O(1)
accumulate ≤ D·eps relative error, so 64·D·eps·scale is used where two float routes meet.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from symcheck.evidence import FALSE_FAILURE_ALPHA, ROUNDING
from symcheck.gaussian import gaussian_logpdf
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.mlp import mlp_forward, unpack_mlp

EPS = np.finfo(float).eps


def _tol(scale, n_terms):
    """Float64 error budget for a sum of ``n_terms`` terms of magnitude ``scale``."""
    return ROUNDING * n_terms * max(1.0, scale)


# ----- sign flips ---------------------------------------------------------------------


def test_signflip_whole_matches_scipy_mixture(rng):
    mean, var = rng.normal(size=3), rng.uniform(0.2, 2, size=3)
    z = rng.normal(size=(5, 3))
    ref = np.log(0.5 * (stats.multivariate_normal(mean, np.diag(var)).pdf(z)
                        + stats.multivariate_normal(-mean, np.diag(var)).pdf(z)))
    got = SignFlip().symmetrized_logpdf(z, mean, var)
    assert np.allclose(got, ref, rtol=0, atol=_tol(np.max(np.abs(ref)), 10))


def test_signflip_full_covariance_matches_scipy(rng):
    A = rng.normal(size=(3, 3))
    cov = A @ A.T + 0.5 * np.eye(3)
    mean = rng.normal(size=3)
    z = rng.normal(size=(4, 3))
    ref = np.log(0.5 * (stats.multivariate_normal(mean, cov).pdf(z) + stats.multivariate_normal(-mean, cov).pdf(z)))
    got = SignFlip().symmetrized_logpdf(z, mean, cov)
    assert np.allclose(got, ref, rtol=0, atol=_tol(np.max(np.abs(ref)), 30))


@pytest.mark.parametrize("blocks", ["columns", "coordinates", "custom"])
def test_signflip_blocks_factorised_equals_enumeration(rng, blocks):
    shape = (3, 2)
    b = np.array([[0, 1], [1, 2], [0, 2]]) if blocks == "custom" else blocks
    G = SignFlip(shape, blocks=b)
    mean, var = rng.normal(size=shape), rng.uniform(0.2, 2, size=shape)
    z = rng.normal(size=(7,) + shape)
    fast = G.symmetrized_logpdf(z, mean, var)
    brute = G.enumerated_logpdf(z, mean, var)
    assert np.allclose(fast, brute, rtol=0, atol=_tol(np.max(np.abs(brute)), 6 * 2**G.n_blocks))


def test_signflip_columns_full_covariance_by_enumeration(rng):
    # a full covariance that is diagonal must give the factorised diagonal answer
    G = SignFlip((2, 3), blocks="columns")
    mean, var = rng.normal(size=(2, 3)), rng.uniform(0.2, 2, size=(2, 3))
    z = rng.normal(size=(4, 2, 3))
    full = G.symmetrized_logpdf(z, mean, np.diag(var.reshape(-1)))
    diag = G.symmetrized_logpdf(z, mean, var)
    assert np.allclose(full, diag, rtol=0, atol=_tol(np.max(np.abs(diag)), 50))


def test_signflip_normalised_1d():
    # ∫ q̃ = 1 by quadrature split at the two modes (independent of the mixture formula)
    mean, var = np.array([3.0]), np.array([0.25])
    f = lambda x: math.exp(SignFlip().symmetrized_logpdf(np.array([[x]]), mean, var)[0])  # noqa: E731
    total = sum(integrate.quad(f, a, b, epsabs=1e-13, limit=200)[0]
                for a, b in [(-np.inf, -3), (-3, 0), (0, 3), (3, np.inf)])
    assert abs(total - 1) < 1e-9


def test_signflip_invariance_and_trivial_symmetrization(rng):
    G = SignFlip((4, 2), blocks="columns")
    mean, var = rng.normal(size=(4, 2)), rng.uniform(0.2, 2, size=(4, 2))
    z = rng.normal(size=(4, 2))
    g = G.elements()
    vals = G.symmetrized_logpdf(G.act(g, z), mean, var)
    assert np.ptp(vals) <= _tol(np.max(np.abs(vals)), 16)
    # q* invariant (zero mean) => q̃ = q*
    zero = np.zeros((4, 2))
    zs = rng.normal(size=(6, 4, 2))
    assert np.allclose(G.symmetrized_logpdf(zs, zero, var), gaussian_logpdf(zs, zero, var), rtol=0,
                       atol=_tol(30, 16))


@pytest.mark.parametrize("sep", [1e3, 1e-12])
def test_signflip_numerical_safety(sep):
    # far-apart modes (‖μ‖/σ = 1e3 with var 1e-8 gives ‖μ‖²/v ~ 1e6·1e8) and coincident ones
    var = np.full(1000, 1e-8)
    mean = np.full(1000, sep * 1e-4 / math.sqrt(1000))
    z = mean[None, :].copy()
    got = SignFlip().symmetrized_logpdf(z, mean, var)[0]
    base = gaussian_logpdf(z, mean, var)[0]
    assert np.isfinite(got)
    if sep > 1:
        # the mirrored component is exp(−2‖μ‖²/v) ≈ exp(−2e6): log q̃ = log q* − log 2 exactly
        assert abs(got - (base - math.log(2))) <= _tol(abs(base), 1000)
    else:
        assert abs(got - base) <= _tol(abs(base), 1000) + 1e-12
    Gb = SignFlip((1000,), blocks="coordinates")
    assert np.isfinite(Gb.symmetrized_logpdf(z, mean, var)[0])


def test_signflip_bad_input():
    G = SignFlip((3, 2), blocks="columns")
    with pytest.raises(ValueError, match="mean"):
        G.symmetrized_logpdf(np.zeros((3, 2)), np.zeros((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="var"):
        G.symmetrized_logpdf(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="var"):
        G.validate(np.zeros((3, 2)), -np.ones((3, 2)))
    with pytest.raises(ValueError, match="z"):
        G.symmetrized_logpdf(np.zeros((3, 3)), np.zeros((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="mean"):
        G.validate(np.array([[np.nan, 0], [0, 0], [0, 0]]), np.ones((3, 2)))
    with pytest.raises(ValueError, match="max_elements"):
        SignFlip((30,), blocks="coordinates").elements()
    with pytest.raises(ValueError, match="blocks"):
        SignFlip((3,), blocks="columns")
    with pytest.raises(ValueError, match="blocks"):
        SignFlip((3,), blocks=np.array([0, 2, 2]))
    with pytest.raises(ValueError, match="event_shape"):
        SignFlip(blocks="columns")


# ----- MLP permutations -----------------------------------------------------------------


def _act_by_matrices(omega, taus, sizes):
    """Gelberg Def. 2.1 with explicit permutation matrices (P_τ)_{j, τ(j)} = 1: W'_l = P_lᵀ W_l P_{l−1}."""
    Ws, bs = unpack_mlp(omega, sizes)
    L = len(Ws)
    P = [np.eye(sizes[0])]
    for tau in taus:
        M = np.zeros((len(tau), len(tau)))
        M[np.arange(len(tau)), tau] = 1.0
        P.append(M)
    P.append(np.eye(sizes[-1]))
    Wn = [P[l + 1].T @ Ws[l] @ P[l] for l in range(L)]
    bn = [P[l + 1].T @ bs[l] for l in range(L)]
    return np.concatenate([w.ravel() for w in Wn] + bn)


@pytest.mark.parametrize("sizes", [[2, 3, 2], [1, 2, 3, 1], [3, 4, 2, 3, 2]])
def test_mlp_action_matches_definition_and_keeps_function(rng, sizes):
    G = MLPPermutation(sizes)
    omega = rng.normal(size=G.dim)
    g = G.sample(rng, 6)
    got = G.act(g, omega)
    H = np.cumsum([0] + G.hidden)
    for r in range(6):
        taus = [g[r, H[i]: H[i + 1]] for i in range(len(G.hidden))]
        assert np.array_equal(got[r], _act_by_matrices(omega, taus, sizes))
    x = rng.normal(size=(5, sizes[0]))
    f0 = mlp_forward(omega, x, sizes)
    for act in (np.tanh, lambda a: np.maximum(a, 0)):
        f0 = mlp_forward(omega, x, sizes, act)
        f1 = mlp_forward(got, x, sizes, act)
        assert np.max(np.abs(f1 - f0)) <= _tol(np.max(np.abs(f0)), 4 * max(sizes))
    # orthonormal (a coordinate permutation): norms preserved exactly
    assert np.allclose(np.linalg.norm(got, axis=1), np.linalg.norm(omega), rtol=4 * EPS, atol=0)


def test_mlp_left_action_and_order(rng):
    G = MLPPermutation([2, 3, 2, 1])
    els = G.elements()
    assert els.shape[0] == math.factorial(3) * math.factorial(2) == round(math.exp(G.log_order()))
    assert len({tuple(e) for e in els}) == els.shape[0]
    omega = rng.normal(size=G.dim)
    g, h = G.sample(rng, 4), G.sample(rng, 4)
    gh = np.take_along_axis(g, h, axis=1)  # τ_g ∘ τ_h per layer (offsets cancel within a layer)
    H = np.cumsum([0] + G.hidden)
    for i in range(len(G.hidden)):
        gh[:, H[i]: H[i + 1]] = np.take_along_axis(g[:, H[i]: H[i + 1]], h[:, H[i]: H[i + 1]], axis=1)
    assert np.array_equal(G.act(g, G.act(h, omega)), G.act(gh, omega))


def test_mlp_sampling_uniform(rng):
    # chi-square goodness of fit of 6000 draws over the 3!·2! = 12 elements
    G = MLPPermutation([1, 3, 2, 1])
    els = {tuple(e): i for i, e in enumerate(G.elements())}
    draws = G.sample(rng, 6000)
    counts = np.bincount([els[tuple(d)] for d in draws], minlength=len(els))
    p = stats.chisquare(counts).pvalue
    assert p > FALSE_FAILURE_ALPHA


@pytest.mark.parametrize("width", [1, 2, 4, 6])
def test_mlp_permanent_equals_enumeration(rng, width):
    G = MLPPermutation([2, width, 2])
    mean, var = rng.normal(size=G.dim), rng.uniform(0.1, 1, size=G.dim)
    z = rng.normal(size=(3, G.dim))
    perm = G.symmetrized_logpdf(z, mean, var)
    brute = G.enumerated_logpdf(z, mean, var)
    assert np.allclose(perm, brute, rtol=0, atol=_tol(np.max(np.abs(brute)), G.dim * math.factorial(width)))


def test_mlp_logpdf_full_cov_invariant_and_far_modes(rng):
    G = MLPPermutation([1, 3, 1])
    A = rng.normal(size=(G.dim, G.dim))
    cov = A @ A.T / G.dim + 0.1 * np.eye(G.dim)
    mean = rng.normal(size=G.dim)
    z = rng.normal(size=G.dim)
    vals = G.symmetrized_logpdf(G.act(G.elements(), z), mean, cov)
    assert np.ptp(vals) <= _tol(np.max(np.abs(vals)), 6 * G.dim**2)
    # far modes, tiny variances: only the identity component survives
    mean = np.arange(G.dim, dtype=float) * 1e-1
    var = np.full(G.dim, 1e-8)
    got = G.symmetrized_logpdf(mean[None], mean, var)[0]
    base = gaussian_logpdf(mean[None], mean, var)[0]
    assert abs(got - (base - G.log_order())) <= _tol(abs(base), G.dim)


def test_permanent_against_itertools(rng):
    # the log-space subset recursion against the definition Σ_σ Π A[i, σ(i)]
    from symcheck.groups import _log_permanent_dp

    A = rng.uniform(0.1, 2, size=(5, 5))
    ref = sum(np.prod(A[np.arange(5), list(s)]) for s in itertools.permutations(range(5)))
    assert abs(_log_permanent_dp(np.log(A)) - math.log(ref)) < ROUNDING * 5 * abs(math.log(ref)) + 1e-14
    A[0, :] = 0.0  # a zero row (−inf logs) gives −inf, not NaN
    with np.errstate(divide="ignore"):
        assert _log_permanent_dp(np.log(A)) == -np.inf


def test_mlp_bad_input(rng):
    with pytest.raises(ValueError, match="layer_sizes"):
        MLPPermutation([3, 2])
    with pytest.raises(ValueError, match="layer_sizes"):
        MLPPermutation([3, 0, 2])
    G = MLPPermutation([2, 9, 2])
    with pytest.raises(ValueError, match="max_elements"):
        G.elements()
    with pytest.raises(ValueError, match="mean"):
        G.validate(np.zeros(5), np.ones(5))
    with pytest.raises(ValueError, match="g"):
        G.act(np.zeros((2, 3), dtype=int), np.zeros(G.dim))
    with pytest.raises(ValueError, match="x"):
        mlp_forward(np.zeros(G.dim), np.zeros((4, 3)), [2, 9, 2])
    big = MLPPermutation([1, 4, 3, 1])
    with pytest.raises(ValueError, match="max_elements"):
        big.enumerated_logpdf(np.zeros(big.dim), np.zeros(big.dim), np.ones(big.dim), max_elements=10)
