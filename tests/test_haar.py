"""Haar sampler on O(k): orthogonality and distributional checks with a known false-failure rate.

Each statistical assertion is a two-sided z-test at level FALSE_FAILURE_ALPHA (z = 4.42) or a
KS / binomial test at that level; the expected values are facts about Haar measure:
E[Tᵢⱼ²] = 1/k; (T₁₁ + 1)/2 ~ Beta((k−1)/2, (k−1)/2); E[tr T] = 0, E[(tr T)²] = 1 (k ≥ 2) and
E[(tr T)⁴] = 3 (k ≥ 4) (Diaconis & Shahshahani 1994: the first k moments of tr T equal N(0,1)'s);
P(det T = +1) = 1/2.
"""

import numpy as np
import pytest
from scipy import stats

from symcheck import haar_orthogonal
from symcheck.evidence import FALSE_FAILURE_ALPHA, z_for_alpha

Z = z_for_alpha()


def _z_mean(x, expected):
    return abs(x.mean() - expected) / (x.std(ddof=1) / np.sqrt(x.size))


@pytest.mark.parametrize("k", [1, 2, 3, 7, 20])
def test_orthogonal_to_rounding(k, rng):
    t = haar_orthogonal(k, 500, rng)
    err = np.abs(np.einsum("nij,nkj->nik", t, t) - np.eye(k)).max()
    # Householder QR is backward stable: ‖QQᵀ − I‖ ≲ c·k·eps
    assert err <= 10 * k * np.finfo(float).eps


@pytest.mark.parametrize("k", [2, 5, 12])
def test_second_moments(k, rng):
    t = haar_orthogonal(k, 20_000, rng)
    for i, j in [(0, 0), (k - 1, 0), (0, k - 1), (k // 2, k // 2)]:
        assert _z_mean(t[:, i, j] ** 2, 1.0 / k) <= Z


@pytest.mark.parametrize("k", [2, 3, 6])
def test_first_entry_law(k, rng):
    t = haar_orthogonal(k, 5_000, rng)
    a = (k - 1) / 2
    for entry in (t[:, 0, 0], t[:, k - 1, 1]):
        assert stats.kstest((entry + 1) / 2, stats.beta(a, a).cdf).pvalue >= FALSE_FAILURE_ALPHA


def test_trace_moments(rng):
    k = 6
    tr = np.trace(haar_orthogonal(k, 40_000, rng), axis1=1, axis2=2)
    assert _z_mean(tr, 0.0) <= Z
    assert _z_mean(tr**2, 1.0) <= Z
    assert _z_mean(tr**4, 3.0) <= Z


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_determinant_signs_balanced(k, rng):
    n = 4_000
    pos = int(np.sum(np.linalg.det(haar_orthogonal(k, n, rng)) > 0))
    assert stats.binomtest(pos, n, 0.5).pvalue >= FALSE_FAILURE_ALPHA


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_special_orthogonal(k, rng):
    t = haar_orthogonal(k, 2_000, rng, special=True)
    assert np.allclose(np.linalg.det(t), 1.0, atol=1e-12)
    if k == 3:
        # SO(3): tr T = 1 + 2 cos θ with θ density (1 − cos θ)/π, so E[tr T] = 0
        assert _z_mean(np.trace(t, axis1=1, axis2=2), 0.0) <= Z


def test_reproducible_and_single():
    a = haar_orthogonal(4, 3, 7)
    b = haar_orthogonal(4, 3, np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert haar_orthogonal(3, None, 1).shape == (3, 3)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"k": 0, "size": 2, "rng": 1}, "k"), ({"k": 2.5, "size": 2, "rng": 1}, "k"),
     ({"k": 2, "size": -1, "rng": 1}, "size"), ({"k": 2, "size": 2, "rng": None}, "rng"),
     ({"k": 2, "size": 2, "rng": "x"}, "rng")],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        haar_orthogonal(**kwargs)
