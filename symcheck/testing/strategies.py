"""Hypothesis strategies for valid inputs of symcheck's functions and of a user's implementations.

Use them in property tests of your own code (`pip install hypothesis`; symcheck's core does not
need it):

    from hypothesis import given
    from symcheck.testing.strategies import sigma_spectra

    @given(sigma_spectra(k=3, shape="clustered", max_sigma=50.0))
    def test_my_log_bessel_is_finite(sigma):
        assert np.isfinite(my_log_bessel(sigma, 3))

Every strategy returns float64 NumPy arrays (index arrays for permutations) that are valid
inputs by construction, shrinks towards simple cases (small σ, the identity, few non-zero
values), and takes its sizes either as an integer or as a Hypothesis strategy of integers.

| strategy | draws |
|---|---|
| sigma_spectra(k, shape, max_sigma) | singular values σ (k,), descending: equal, spread, clustered, rank-deficient, rank one |
| spd_matrices(d, cond_max) | symmetric positive-definite (d, d) with condition number ≤ cond_max |
| orthogonal_matrices(k, special) | elements of O(k) or SO(k): the identity, signed permutations, Givens rotations, Haar draws |
| sign_flips(d) | elements of the sign-flip group {−1, +1}^d as float arrays |
| permutations(n) | elements of the symmetric group S_n as index arrays |
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from symcheck._checks import check_bool, check_choice, check_positive_float
from symcheck.haar import haar_orthogonal

__all__ = ["SPECTRUM_SHAPES", "orthogonal_matrices", "permutations", "sigma_spectra", "sign_flips", "spd_matrices"]

#: The spectrum shapes of sigma_spectra.
SPECTRUM_SHAPES = ("equal", "spread", "clustered", "rank-deficient", "rank one")
#: Largest condition number spd_matrices accepts: the eigen-decomposition it builds from is then
#: rounded by at most ~d·eps·cond_max ≤ 1e-3 relative in the smallest eigenvalue (d ≤ 100).
MAX_COND = 1e10


def _sizes(value, name: str, minimum: int) -> st.SearchStrategy:
    """An integer (checked here) or a strategy of integers (checked when drawn) as a strategy."""
    if isinstance(value, st.SearchStrategy):
        def checked(v):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < minimum:
                raise ValueError(f"{name} must draw integers >= {minimum}, drew {v!r}")
            return int(v)
        return value.map(checked)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum} or a Hypothesis strategy of them, got {value!r}")
    return st.just(int(value))


def _magnitudes(low: float, high: float) -> st.SearchStrategy:
    """Finite floats in [low, high] without subnormals."""
    return st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def _spectrum(draw, k: int, shape: str, max_sigma: float) -> np.ndarray:
    if shape == "equal":
        return np.full(k, draw(_magnitudes(0.0, max_sigma)))
    if shape == "rank one":
        return np.r_[draw(_magnitudes(0.0, max_sigma).filter(lambda s: s > 0)), np.zeros(k - 1)]
    if shape == "rank-deficient":
        rank = draw(st.integers(0, k - 1))
        top = draw(st.lists(_magnitudes(0.0, max_sigma).filter(lambda s: s > 0), min_size=rank, max_size=rank))
        return np.sort(np.r_[top, np.zeros(k - rank)])[::-1].copy()
    top = draw(_magnitudes(0.0, max_sigma).filter(lambda s: s > 0))
    if shape == "spread":  # distinct values, neighbouring gaps at least top/(4k + 1)
        slots = draw(st.lists(st.integers(0, 2 * k - 1), min_size=k, max_size=k, unique=True))
        jitter = draw(st.lists(_magnitudes(0.0, 0.5), min_size=k, max_size=k))
        values = top * (np.sort(slots)[::-1] + 0.5 + np.array(jitter)) / (2 * k + 0.5)
        values[0] = top
        return np.sort(values)[::-1].copy()
    # clustered: every value within a relative width 1e-8 … 1e-2 below the top, the smallest at top·(1 − width)
    width = draw(st.floats(min_value=1e-8, max_value=1e-2))
    offsets = draw(st.lists(_magnitudes(0.0, 1.0), min_size=max(k - 2, 0), max_size=max(k - 2, 0)))
    below = top * (1 - width * np.r_[offsets, 1.0]) if k > 1 else np.zeros(0)
    return np.sort(np.r_[top, below])[::-1].copy()


def sigma_spectra(k=st.integers(1, 8), shape=None, max_sigma=100.0) -> st.SearchStrategy:
    """Singular values σ of a k×k matrix argument A: the input of log ₀F₁(k/2; AAᵀ/4).

    Parameters
    ----------
    k : int or strategy of int
        Number of singular values (≥ 1); default 1 to 8.
    shape : str, sequence of str or None
        One of SPECTRUM_SHAPES, several, or None for all of them:

        - "equal": k copies of one σ ≥ 0 (Weyl's closed form applies);
        - "spread": distinct values, the largest σ_max, neighbouring gaps at least σ_max/(4k + 1);
        - "clustered": every value within a relative width w in [1e-8, 1e-2] below σ_max, the
          smallest σ_max·(1 − w) (coalescing values, where formulas with 1/(σᵢ − σⱼ) lose digits);
        - "rank-deficient": 0 … k − 1 non-zero values, the rest exactly 0;
        - "rank one": (σ, 0, …, 0) with σ > 0.
    max_sigma : float
        Largest σ drawn (> 0); default 100.

    Returns
    -------
    SearchStrategy of ndarray, shape (k,)
        Finite, non-negative, in descending order, float64.
    """
    max_sigma = check_positive_float(max_sigma, "max_sigma")
    if shape is None:
        shapes = SPECTRUM_SHAPES
    elif isinstance(shape, str):
        shapes = (check_choice(shape, "shape", SPECTRUM_SHAPES),)
    else:
        shapes = tuple(check_choice(s, "shape", SPECTRUM_SHAPES) for s in shape)
        if not shapes:
            raise ValueError("shape must name at least one spectrum shape")
    return st.tuples(_sizes(k, "k", 1), st.sampled_from(shapes)).flatmap(
        lambda ks: _spectrum(ks[0], ks[1], max_sigma))


@st.composite
def _orthogonal(draw, k: int, special: bool) -> np.ndarray:
    kind = draw(st.sampled_from(("identity", "signed permutation", "givens", "haar")))
    if kind == "identity":
        out = np.eye(k)
    elif kind == "signed permutation":
        perm = draw(st.permutations(range(k)))
        signs = draw(st.lists(st.sampled_from((1.0, -1.0)), min_size=k, max_size=k))
        out = np.zeros((k, k))
        out[np.arange(k), perm] = signs
    elif kind == "givens":
        out = np.eye(k)
        if k > 1:
            i, j = draw(st.lists(st.integers(0, k - 1), min_size=2, max_size=2, unique=True))
            angle = draw(st.floats(min_value=-np.pi, max_value=np.pi))
            out[i, i] = out[j, j] = np.cos(angle)
            out[i, j], out[j, i] = -np.sin(angle), np.sin(angle)
    else:
        out = haar_orthogonal(k, rng=draw(st.integers(0, 2**32 - 1)))
    if special and np.linalg.det(out) < 0:
        out[:, 0] = -out[:, 0]
    return out


def orthogonal_matrices(k, special=False) -> st.SearchStrategy:
    """Elements of O(k) (or SO(k) with special=True) as float64 (k, k) arrays.

    Draws the identity, signed permutation matrices (exact), Givens rotations by any angle in a
    random coordinate plane, and Haar draws of symcheck.haar_orthogonal from a drawn seed (Householder
    with the sign fix of Mezzadri 2007); with special=True a draw with det −1 has its first column
    negated. Every draw satisfies max |TᵀT − I| ≤ 64·k²·eps (check_haar_sampler's bound).

    Parameters
    ----------
    k : int or strategy of int
        Dimension, ≥ 1.
    special : bool
        Draw from SO(k) (det +1) instead of O(k).
    """
    special = check_bool(special, "special")
    return _sizes(k, "k", 1).flatmap(lambda kk: _orthogonal(kk, special))


@st.composite
def _spd(draw, d: int, cond_max: float) -> np.ndarray:
    q = draw(_orthogonal(d, False))
    logs = draw(st.lists(st.floats(min_value=0.0, max_value=float(np.log(cond_max))), min_size=d, max_size=d))
    scale = draw(st.sampled_from((1.0, 1e-3, 1e3)))
    eig = scale * np.exp(np.array(logs))
    s = (q * eig) @ q.T
    return 0.5 * (s + s.T)


def spd_matrices(d, cond_max=1e6) -> st.SearchStrategy:
    """Symmetric positive-definite (d, d) float64 matrices with condition number at most cond_max.

    Built as Q diag(λ) Qᵀ with Q from orthogonal_matrices(d) and eigenvalues λ = c·e^{tᵢ}, tᵢ in
    [0, log cond_max], c in {1e-3, 1, 1e3}, then symmetrised. Rounding moves each eigenvalue by at most
    ~d·eps·max λ (Weyl's inequality), so the computed condition number exceeds cond_max by a relative
    ≤ ~d·eps·cond_max at most, and Cholesky succeeds.

    Parameters
    ----------
    d : int or strategy of int
        Dimension, ≥ 1.
    cond_max : float
        Largest condition number, in [1, 1e10].
    """
    cond_max = check_positive_float(cond_max, "cond_max")
    if not 1.0 <= cond_max <= MAX_COND:
        raise ValueError(f"cond_max must lie in [1, {MAX_COND:g}] (beyond it rounding can break definiteness), "
                         f"got {cond_max!r}")
    return _sizes(d, "d", 1).flatmap(lambda dd: _spd(dd, cond_max))


def sign_flips(d) -> st.SearchStrategy:
    """Elements of the sign-flip group {−1, +1}^d as float64 arrays of shape (d,) (symcheck.SignFlip's format).

    Parameters
    ----------
    d : int or strategy of int
        Number of signs, ≥ 1.
    """
    return _sizes(d, "d", 1).flatmap(
        lambda dd: st.lists(st.sampled_from((1.0, -1.0)), min_size=dd, max_size=dd).map(np.array))


def permutations(n) -> st.SearchStrategy:
    """Elements of the symmetric group S_n as index arrays of shape (n,): g with (g·z)[c] = z[g[c]].

    Parameters
    ----------
    n : int or strategy of int
        Number of points, ≥ 1.
    """
    return _sizes(n, "n", 1).flatmap(lambda nn: st.permutations(range(nn)).map(lambda p: np.array(p, dtype=np.intp)))
