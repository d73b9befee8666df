"""Error figures of orthogonal_logpdf, moore_r and moore_kl against references computed in mpmath.

Every reference is built at 40 digits from the float64 inputs taken exactly: B = MᵀX/c (or Moore's
symmetrised A), its singular values by ``mpmath.svd_r``, and log ₀F₁ by a closed form (k = 1: log cosh;
k = 2: ½[I₀(σ₁ + σ₂) + I₀(σ₁ − σ₂)]) or by the 30-digit series reference at the float64-rounded σ
(k = 3, 4; the rounding moves log ₀F₁ by at most Σ|σ − fl(σ)|, computed exactly and allowed for); the
non-isotropic k = 2 case by ``mpmath.quad`` over both cosets of O(2), directly on the Gaussian density
(not on the harmonics the code uses). The check: |value − reference| ≤ figure, for every point, at
scales from ‖M‖/√c ≈ 1e-3 to 1e3, where the Gaussian terms cancel log ₀F₁ to many digits.

Planted: without its rounding allowances (``gamma`` ≡ 0, u = 0, no SVD term) the figure falls below the
true error on points far in the tail, so those allowances are needed, not decoration; a wrong value (Moore's
printed symmetrised A in place of B) is caught by the same comparison.
"""

import math

import mpmath as mp
import numpy as np
import pytest

from symcheck import moore_kl, moore_r, orthogonal_logpdf
from symcheck import orthogonal as orth
from symcheck.hyp0f1 import hyp0f1_reference

DPS = 40


def _mp_matrix(a):
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in np.atleast_2d(a)])


def _mp_log0f1(sig_mp, k):
    """log ₀F₁(k/2; diag(σ²)/4) and the allowance for the reference's own error."""
    sig_mp = sorted(sig_mp, reverse=True)
    if k == 1:
        return mp.log(mp.cosh(sig_mp[0])), mp.mpf(0)
    if k == 2:
        s1, s2 = sig_mp
        return mp.log((mp.besseli(0, s1 + s2) + mp.besseli(0, s1 - s2)) / 2), mp.mpf(0)
    rounded = np.array([float(s) for s in sig_mp])
    moved = sum(abs(s - mp.mpf(r)) for s, r in zip(sig_mp, rounded))  # |∂ log ₀F₁/∂σᵢ| ≤ 1
    return mp.log(hyp0f1_reference(rounded, k, dps=30)), moved + mp.mpf(10) ** -26


def _singular_values(mat):
    return [abs(s) for s in mp.svd_r(mat, compute_uv=False)]


def _reference_logpdf_iso(x, m, c):
    """log q̃(x) for var = cI at DPS digits, and the reference's error allowance."""
    with mp.workdps(DPS):
        X, M, cc = _mp_matrix(x), _mp_matrix(m), mp.mpf(float(c))
        n, k = m.shape
        B = (M.T * X) / cc
        sq = sum(X[i, j] ** 2 + M[i, j] ** 2 for i in range(n) for j in range(k))
        log0f1, allow = _mp_log0f1(_singular_values(B), k)
        return -sq / (2 * cc) - mp.mpf(n * k) / 2 * mp.log(2 * mp.pi * cc) + log0f1, allow


def _reference_r(x, m, c, printed=False):
    with mp.workdps(DPS):
        X, M, cc = _mp_matrix(x), _mp_matrix(m), mp.mpf(float(c))
        B = (M.T * X) / cc
        if printed:
            B = (B + B.T) / 2
        log0f1, allow = _mp_log0f1(_singular_values(B), m.shape[1])
        return sum(B[i, i] for i in range(m.shape[1])) - log0f1, allow


def _reference_logpdf_o2(x, m, v):
    """log q̃ for k = 2 and elementwise var: mpmath.quad of q*(x R(θ)ᵀ) and q*(x diag(1, −1) R(θ)ᵀ)."""
    with mp.workdps(30):
        X, M, V = ([[mp.mpf(float(e)) for e in row] for row in a] for a in (x, m, v))

        def logq(theta, flip):
            c, s = mp.cos(theta), mp.sin(theta)
            out = mp.mpf(0)
            for (x1, x2), (m1, m2), (v1, v2) in zip(X, M, V):
                x2 = -x2 if flip else x2
                y1, y2 = x1 * c - x2 * s, x1 * s + x2 * c
                out -= ((y1 - m1) ** 2 / v1 + (y2 - m2) ** 2 / v2 + mp.log(4 * mp.pi ** 2 * v1 * v2)) / 2
            return out

        peak = max(logq(t, f) for t in mp.linspace(0, 2 * mp.pi, 64) for f in (False, True))
        total = sum(mp.quad(lambda t: mp.exp(logq(t, f) - peak), mp.linspace(0, 2 * mp.pi, 9)) for f in (False, True))
        return peak + mp.log(total / (4 * mp.pi))


def _cases(rng, k, scales, n_rows=(1, 3, 8)):
    """(X, M, c) with ‖M‖/√c spread over ``scales``; X = M + √c E (typical draws of q*)."""
    out = []
    for scale in scales:
        for n in n_rows:
            c = float(10.0 ** rng.uniform(-4, 2))
            m = scale * math.sqrt(c) * rng.standard_normal((n, k))
            x = m + math.sqrt(c) * rng.standard_normal((n, k))
            out.append((x, m, c))
    return out


def _far_cases(rng, k):
    """Points far in the tail of a small-mean base (‖X‖/√c = 1e4, ‖M‖/√c = 1e-3): log ₀F₁ is small and
    exact to a few ulps, while ‖X‖²/c ≈ 1e9 carries the rounding of the Gaussian terms."""
    out = []
    for n in (1, 3, 8):
        c = float(10.0 ** rng.uniform(-4, 2))
        out.append((1e4 * math.sqrt(c) * rng.standard_normal((n, k)), 1e-3 * math.sqrt(c) * rng.standard_normal((n, k)), c))
    return out


def _misses(values, errors, refs):
    """Points whose figure is below the true error: (|value − reference| − allowance) / figure > 1."""
    return [float((abs(mp.mpf(float(v)) - r) - a) / e) for v, e, (r, a) in zip(values, errors, refs)
            if abs(mp.mpf(float(v)) - r) - a > e]


WIDE = (1e-3, 0.3, 3.0, 30.0, 1e3)


@pytest.mark.parametrize("k, scales", [(1, WIDE), (2, WIDE), (3, (1e-3, 0.3, 1.0)), (4, (1e-3, 0.3, 0.8))])
def test_isotropic_logpdf_figure_holds(k, scales):
    rng = np.random.default_rng(100 + k)
    cases = _cases(rng, k, scales) + (_far_cases(rng, k) if k <= 2 else [])  # k ≥ 3: σ beyond the reference
    for x, m, c in cases:
        value, error = orthogonal_logpdf(x[None], m, c, return_error=True)
        assert not _misses(value, error, [_reference_logpdf_iso(x, m, c)]), (k, x, m, c)


@pytest.mark.parametrize("form", ["corrected", "printed"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_moore_r_figure_holds(k, form):
    rng = np.random.default_rng(200 + k)
    for x, m, c in _cases(rng, k, WIDE if k <= 2 else (1e-3, 0.3, 1.0)):
        value, error = moore_r(x[None], m, c, form=form, return_error=True)
        assert not _misses(value, error, [_reference_r(x, m, c, form == "printed")]), (k, form, x, m, c)


def test_non_isotropic_figures_hold():
    rng = np.random.default_rng(300)
    for scale in (1e-3, 1.0, 30.0):
        for n in (1, 4):
            v = 10.0 ** rng.uniform(-2, 1, (n, 2))
            m = scale * np.sqrt(v) * rng.standard_normal((n, 2))
            x = m + np.sqrt(v) * rng.standard_normal((n, 2))
            value, error = orthogonal_logpdf(x, m, v, return_error=True)
            assert not _misses([value], [error], [(_reference_logpdf_o2(x, m, v), mp.mpf(0))]), (x, m, v)
            value1, error1 = orthogonal_logpdf(x[:, :1], m[:, :1], v[:, :1], return_error=True)
            with mp.workdps(DPS):
                X, M, V = (_mp_matrix(a[:, :1]) for a in (x, m, v))
                logq = [sum(-((s * X[i, 0] - M[i, 0]) ** 2 / V[i, 0] + mp.log(2 * mp.pi * V[i, 0])) / 2
                            for i in range(n)) for s in (1, -1)]
                ref = mp.log((mp.exp(logq[0]) + mp.exp(logq[1])) / 2)
            assert not _misses([value1], [error1], [(ref, mp.mpf(0))]), (x, m, v)


def test_moore_kl_bias_bound_holds():
    """The bias figure bounds |estimate − mean of the exact r over the same draws| (k = 2, ‖M‖/√c = 300)."""
    rng = np.random.default_rng(400)
    m = 300.0 * rng.standard_normal((4, 2))
    kl, se, bias = moore_kl(m, 1.0, 16, np.random.default_rng(7), return_error=True)
    draws = m + np.random.default_rng(7).standard_normal((16,) + m.shape)  # moore_kl's draws, same generator
    with mp.workdps(DPS):
        refs = [_reference_r(x, m, 1.0) for x in draws]
        exact = sum(r for r, _ in refs) / len(refs)
        assert abs(mp.mpf(kl) - exact) <= bias
    assert math.isfinite(se)


def test_laplace_figure_is_inf():
    """Laplace has no error bound: the figure is inf, never a number below its error."""
    rng = np.random.default_rng(500)
    m = 3.0 * rng.standard_normal((6, 4))
    x = m + rng.standard_normal((2, 6, 4))
    _, error = moore_r(x, m, 1.0, method="laplace", return_error=True)
    assert np.all(np.isinf(error))
    _, error = orthogonal_logpdf(x, m, 1.0, method="laplace", return_error=True)
    assert np.all(np.isinf(error))


def test_planted_no_rounding_allowance_fails(monkeypatch):
    """Without its rounding allowances (γ ≡ 0, u = 0, no SVD term) the figure is the ₀F₁ method's alone,
    and on points far in the tail (‖X‖²/c ≈ 1e9, log ₀F₁ small) it falls below the true error."""
    monkeypatch.setattr(orth, "gamma", lambda n: 0.0)
    monkeypatch.setattr(orth, "_U", 0.0)
    monkeypatch.setattr(orth, "_SVD_PER_K", 0)
    rng = np.random.default_rng(600)
    misses = []
    for k in (1, 2):
        for x, m, c in _far_cases(rng, k):
            value, error = orthogonal_logpdf(x[None], m, c, return_error=True)
            misses += _misses(value, error, [_reference_logpdf_iso(x, m, c)])
    assert misses, "the rounding allowances were never needed: the planted figure should have failed"


def test_planted_printed_form_is_caught():
    """Moore's printed r (symmetrised A) is a different function: compared with the corrected reference
    its error exceeds the figure."""
    rng = np.random.default_rng(700)
    misses = []
    for x, m, c in _cases(rng, 2, (0.3, 3.0)):
        value, error = moore_r(x[None], m, c, form="printed", return_error=True)
        misses += _misses(value, error, [_reference_r(x, m, c, printed=False)])
    assert misses



@pytest.mark.parametrize("return_error", [False, True])
def test_log_density_beyond_float64_raises_without_warning(return_error):
    """‖X‖²/c beyond float64 (while B = MᵀX/c is tiny): a ValueError naming the inputs, no RuntimeWarning
    (the overflow of −‖X‖²/2c escaped as a warning before the finiteness check)."""
    import warnings

    m, x = np.full((2, 2), 1e-200), np.full((2, 2), 1e153)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for args in ((x, m, 1e-3), (x[:, :1], m[:, :1], np.array([1e-3]))):
            with pytest.raises(ValueError, match="X, mean, var: log q̃ is not finite"):
                orthogonal_logpdf(*args, return_error=return_error)
        big = np.full((2, 2), 1e150)  # B = MᵀX/c beyond float64, and so its error bound (c tiny)
        for c in (1e-300, 5e-324):
            with pytest.raises(ValueError, match="X, mean, var: B = MᵀX/c is not finite"):
                orthogonal_logpdf(big, big, c, return_error=return_error)
            with pytest.raises(ValueError, match="X, mean, c: B = MᵀX/c is not finite"):
                moore_r(big, big, c, return_error=return_error)
            with pytest.raises(ValueError, match="mean, c: B = MᵀX/c is not finite|X, mean, c: B"):
                moore_kl(big, c, 4, 0, return_error=return_error)
