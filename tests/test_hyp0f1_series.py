"""Unit checks of the float64 zonal series (symcheck.hyp0f1.series).

Expected values come from the closed forms (cosh, Bessel I), the k = 3 one-dimensional Haar
integral of closed_form, mpmath evaluations of the tail bound, finite differences, and exact
symmetries; tolerances are the series' rigorous error bounds (truncation + rounding) plus the
stated float64 error of the other route. The mpmath reference is checked in
tests/test_hyp0f1_reference.py and the claims hyp0f1.series.*.
"""

import json
import math

import mpmath
import numpy as np
import pytest

from symcheck.claims.hyp0f1_series import grad_tolerance
from symcheck.hyp0f1 import closed_form, closed_form_mp, series
from symcheck.hyp0f1.reference import hyp0f1_reference

U = np.finfo(float).eps / 2


def _log_round(v):
    """Absolute float64 error of storing log F (u|log F| plus an ulp near 0)."""
    return 2 * U * (1 + np.abs(v))


@pytest.mark.parametrize("k,rank_one", [(1, False), (2, False), (4, True), (9, True)])
def test_matches_closed_forms(k, rank_one, rng):
    sig = np.exp(rng.uniform(math.log(1e-3), math.log(20.0), (12, k)))
    if rank_one:
        sig[:, 1:] = 0.0
    val, bound = series.log_hyp0f1_series(sig, k)
    exact = closed_form.log_hyp0f1_exact(sig, k)
    # closed forms: scaled Bessel / cosh to a few ulps: 8u(1 + |log F|)
    tol = bound + _log_round(val) + 8 * U * (1 + np.abs(exact))
    assert np.all(np.abs(val - exact) <= tol)
    assert np.all(bound <= 1e-12)


def test_matches_k3_integral(rng):
    """Full-rank k = 3 against closed_form's quaternion integral (adaptive Gauss–Kronrod, epsrel 1e-14 per coset)."""
    sig = rng.uniform(0.0, 6.0, (5, 3))
    val, bound = series.log_hyp0f1_series(sig, 3)
    exact = closed_form.log_hyp0f1_exact(sig, 3)
    tol = bound + _log_round(val) + 2 * closed_form.K3_EPSREL + 8 * U * (1 + np.abs(exact))
    assert np.all(np.abs(val - exact) <= tol)


def test_zero_sigma():
    val, bound = series.log_hyp0f1_series(np.zeros((2, 4)), 4)
    assert np.all(val == 0.0) and np.all(bound == 0.0)
    assert np.all(series.grad_log_hyp0f1_series(np.zeros((1, 4)), 4) == 0.0)


def test_batch_shape_and_rows(rng):
    sig = rng.uniform(0.0, 3.0, (2, 3, 4))
    val, bound = series.log_hyp0f1_series(sig, 4)
    assert val.shape == (2, 3) and bound.shape == (2, 3)
    assert series.grad_log_hyp0f1_series(sig, 4).shape == (2, 3, 4)
    for idx in np.ndindex(2, 3):
        one, b1 = series.log_hyp0f1_series(sig[idx], 4)
        assert abs(float(one) - val[idx]) <= float(b1) + bound[idx] + 2 * _log_round(val[idx])


def test_symmetric_in_sigma(rng):
    """F is symmetric in σ while the kernel adds one variable at a time: permutations agree."""
    k = 5
    sig = rng.uniform(0.0, 2.5, k)
    perms = np.array([rng.permutation(sig) for _ in range(6)])
    val, bound = series.log_hyp0f1_series(perms, k)
    assert np.ptp(val) <= 2 * bound.max() + 2 * _log_round(val).max()
    grads = series.grad_log_hyp0f1_series(perms, k)
    order = [np.argsort(p) for p in perms]
    g_sorted = np.array([g[o] for g, o in zip(grads, order)])
    assert np.all(np.ptp(g_sorted, axis=0) <= 1e-12 * (1 + np.abs(g_sorted).max()))


def test_truncated_increases_with_degree():
    """All terms are positive, so the partial sums grow strictly with the degree."""
    sig = np.array([1.5, 1.0, 0.5])
    vals = [float(series.log_hyp0f1_series_truncated(sig, 3, m)[0]) for m in range(0, 12)]
    assert vals[0] == 0.0
    assert np.all(np.diff(vals) > 0)


@pytest.mark.parametrize("s", [0.1, 3.0, 25.0, 150.0])
def test_degree_needed_is_minimal(s):
    """The chosen M is the first degree whose tail bound (evaluated in mpmath) is ≤ rtol."""
    rtol = 1e-14

    def mp_tail(m):
        r = mpmath.mpf(s) ** 2 / ((2 * m + 3) * (2 * m + 4))
        if r >= 1:
            return mpmath.inf
        return mpmath.mpf(s) ** (2 * m + 2) / mpmath.factorial(2 * m + 2) / (1 - r)

    k = 2
    m = int(series.series_degree_needed(np.array([[s / 2, s / 2]]), k, rtol)[0])
    with mpmath.workdps(30):
        assert mp_tail(m) <= rtol
        assert m == 0 or mp_tail(m - 1) > rtol
        assert abs(float(series.log_tail_bound(s, m)) - float(mpmath.log(mp_tail(m)))) <= 1e-12 * (1 + abs(float(mpmath.log(mp_tail(m)))))


def _equal_tail_cases():
    """(k, s, M) with M < k: the moment bound's regime of sharpness (E(tr T)^{2m} = (2m − 1)!! for m ≤ k)."""
    return [(k, s, M) for k in (4, 8, 20) for s in (0.5, 1.5, 3.0) for M in (2, 3, 5) if M < k and s * s / 2 < M + 1]


def _equal_tails(k, s, M):
    """True relative tail F/F̂_M − 1 and relative gradient tail (∂F/∂σᵢ − ∂F̂_M/∂σᵢ)/F̂_M at k equal σ = s.

    F and dF/ds from Bessel determinants (mpmath, no zonal series); by symmetry ∂F/∂σᵢ = (dF/ds)/k.
    """
    sig = np.full((1, k), s)
    logf_hat = float(series.log_hyp0f1_series_truncated(sig, k, M)[0][0])
    _, grad_hat, _ = series._evaluate(sig, k, np.array([M]), grad=True)
    with mpmath.workdps(closed_form_mp.equal_spectrum_dps(s, k, 30)):
        f = closed_form_mp.equal_spectrum_mp(s, k)
        df = mpmath.diff(lambda x: closed_form_mp.equal_spectrum_mp(x, k), s)
        f_hat = mpmath.exp(logf_hat)
        tail = float(f / f_hat - 1)
        gtail = float(df / k / f_hat - mpmath.mpf(float(grad_hat[0, 0])))
    return tail, gtail, logf_hat


def _moment_violations(c_factor):
    """Cases where the truncation bounds with c = c_factor·σ_max²/2 miss the true tail, or exceed it by
    more than their geometric factors 1/(1 − c/(M + 2)) and 1/(1 − c/(M + 1)) allow (relative to F̂;
    rounding allowance 3γ_K + 8u from the series' own rounding bound)."""
    bad = []
    for k, s, M in _equal_tail_cases():
        c = c_factor * s * s / 2
        tail, gtail, logf_hat = _equal_tails(k, s, M)
        bound = math.exp(float(series.log_tail_bound(k * s, M, c=c)) - logf_hat)
        gbound = math.exp(float(series.log_grad_tail_bound(k * s, M, c=c, k=k)) - logf_hat)
        slack = 3 * series.rounding_bound(k, M) + 8 * U
        if not (tail <= bound + slack and bound <= tail / (1 - c / (M + 2)) + slack):
            bad.append(("value", k, s, M, tail, bound))
        if not (gtail <= gbound + slack * s and gbound <= gtail / (1 - c / (M + 1)) + slack * s):
            bad.append(("gradient", k, s, M, gtail, gbound))
    return bad


def test_moment_bound_is_sharp_for_equal_sigma():
    """With k equal σ and M < k the degree-m parts are exactly (σ²/2)^m/m! for m ≤ k, so the moment
    bound and its gradient bound sit between the true tail and the true tail over its geometric factor."""
    assert _moment_violations(1.0) == []


@pytest.mark.parametrize("c_factor", [0.9, 1.25])
def test_moment_bound_check_catches_a_wrong_constant(c_factor):
    """A Gaussian constant 10 % too small misses the tail; 25 % too large is looser than the check allows."""
    assert _moment_violations(c_factor)


def _spread_tail_violations(rng, proxy):
    """Cases (k = 3, 4, spread σ, degrees where the moment bound is finite) where the value or gradient
    tail bound with ``c = proxy(σ)`` misses the true tail. Truth: the 30-digit mpmath reference (no
    zonal polynomials) and its 6th-order central differences at h = 2⁻⁸ (exact in float64; error
    ~h⁶F⁽⁷⁾ ≲ 1e-13 relative, far below the tails tested, which are ≥ 1e-9). Returns the violations
    and how many cases the moment bound was the smallest of the three."""
    bad, active = [], 0
    weights = {1: 45, 2: -9, 3: 1}  # f'(x) ≈ Σ w_j (f(x + jh) − f(x − jh)) / (60h)
    h = 2.0 ** -8
    for k in (3, 4):
        for _ in range(3):
            sig = np.sort(rng.uniform(0.3, 2.0, k))[::-1]
            s, v, c = sig.sum(), float(series.variance_proxy(sig, k)), proxy(sig)
            with mpmath.workdps(40):
                f = hyp0f1_reference(sig, k, dps=30)
                df = [sum(w * (hyp0f1_reference(sig + j * h * e, k, dps=30) - hyp0f1_reference(sig - j * h * e, k, dps=30))
                          for j, w in weights.items()) / (60 * h) for e in np.eye(k)]
            for M in range(int(c) + 1, int(c) + 6):
                logf_hat = float(series.log_hyp0f1_series_truncated(sig, k, M)[0])
                _, grad_hat, _ = series._evaluate(sig[None], k, np.array([M]), grad=True)
                with mpmath.workdps(40):
                    f_hat = mpmath.exp(logf_hat)
                    tail = float(f / f_hat - 1)
                    gtail = max(float(df[i] / f_hat - mpmath.mpf(float(grad_hat[0, i]))) for i in range(k))
                bound = math.exp(float(series.log_tail_bound(s, M, v, c)) - logf_hat)
                gbound = math.exp(float(series.log_grad_tail_bound(s, M, v, c, k)) - logf_hat)
                active += bool(series.log_tail_bound(s, M, v, c) < series.log_tail_bound(s, M, v))
                slack = 3 * series.rounding_bound(k, M) + 8 * U
                if not (tail <= bound + slack and gtail <= gbound + slack * s + 1e-12):
                    bad.append((k, sig.tolist(), M, tail, bound, gtail, gbound))
    return bad, active


def test_moment_bound_holds_for_spread_sigma(rng):
    """Spread σ: the bounds rest on monotonicity in each xᵢ (non-negative zonal coefficients), which
    equal σ do not exercise. They hold, and are the smallest of the three in most cases."""
    bad, active = _spread_tail_violations(rng, lambda sig: float(series.gaussian_proxy(sig)))
    assert bad == [] and active >= 15


def test_spread_check_catches_a_bound_at_the_smallest_sigma(rng):
    """Planted: c = σ_min²/2 (monotonicity applied the wrong way) misses the true tail."""
    bad, _ = _spread_tail_violations(rng, lambda sig: 0.5 * float(sig.min()) ** 2)
    assert bad


def test_moment_bound_reaches_k20_at_sigma_3():
    """k = 20 with σ_max = 3 (two clusters 3 and 1) needs degree ≤ 32, the feasible cap, for 1e-10:
    the sub-Gaussian bound alone needs more. The value agrees with the Bessel determinants for equal σ."""
    sig = np.array([[3.0] * 10 + [1.0] * 10])
    need = int(series.series_degree_needed(sig, 20, 1e-10)[0])
    assert need <= series.max_feasible_degree(20)
    s, v = sig.sum(), float(series.variance_proxy(sig, 20)[0])
    assert float(series.log_tail_bound(s, need, v)) > math.log(1e-10)
    val, err = series.log_hyp0f1_series(np.full(20, 3.0), 20, rtol=1e-10)
    with mpmath.workdps(closed_form_mp.equal_spectrum_dps(3.0, 20, 30)):
        ref = float(mpmath.log(closed_form_mp.equal_spectrum_mp(3.0, 20)))
    assert abs(float(val) - ref) <= float(err) + _log_round(ref)


def test_degree_needed_unreachable_and_errors():
    sig = np.full((1, 20), 4.0)
    assert series.series_degree_needed(sig, 20, 1e-14)[0] == series.UNREACHABLE
    with pytest.raises(ValueError, match="max_degree"):
        series.log_hyp0f1_series(sig, 20)
    with pytest.raises(ValueError, match="max_degree=10"):
        series.log_hyp0f1_series(np.array([30.0, 1.0]), 2, max_degree=10)
    with pytest.raises(ValueError, match="degree"):
        series.log_hyp0f1_series_truncated(sig, 20, 500)


def _fd_gradient(sig, k, degree, h):
    out = np.empty(k)
    for i in range(k):
        e = np.zeros(k)
        e[i] = h
        f = [float(series.log_hyp0f1_series_truncated(sig + c * e, k, degree)[0]) for c in (1, -1)]
        out[i] = (f[0] - f[1]) / (2 * h)
    return out


@pytest.mark.parametrize("k", [3, 4])
def test_gradient_vs_finite_differences(k, rng):
    sig = rng.uniform(0.5, 3.0, k)
    degree = int(series.series_degree_needed(sig[None], k, 1e-14)[0])
    g = series.grad_log_hyp0f1_series(sig, k)
    h, big = 1e-4, 0.05
    fd = _fd_gradient(sig, k, degree, h)
    # error of the central difference: h²/6·|f'''| + δ/h (δ: evaluation error of f, the
    # reported bound plus the stored log's rounding); |f'''| estimated by a third difference
    # with step 0.05 and a safety factor 10
    third = np.empty(k)
    for i in range(k):
        e = np.zeros(k)
        e[i] = big
        f = [float(series.log_hyp0f1_series_truncated(sig + c * e, k, degree)[0]) for c in (2, 1, -1, -2)]
        third[i] = abs(f[0] - 2 * f[1] + 2 * f[2] - f[3]) / (2 * big ** 3)
    val, bound = series.log_hyp0f1_series_truncated(sig, k, degree)
    delta = float(bound) + float(_log_round(val))
    tol = h * h / 6 * 10 * third + delta / h + grad_tolerance(sig, k, g, float(val), degree)
    assert np.all(np.abs(g - fd) <= tol)


@pytest.mark.parametrize("k,sig", [(1, [0.3]), (2, [2.0, 0.7]), (2, [5.0, 5.0]), (5, [0.0, 3.0, 0.0, 0.0, 0.0]),
                                   (3, [1.0, 4.0, 2.5])])
def test_gradient_vs_closed_forms(k, sig):
    sig = np.array(sig)
    g = series.grad_log_hyp0f1_series(sig, k)
    val, _ = series.log_hyp0f1_series(sig, k)
    degree = int(series.series_degree_needed(sig[None], k, 1e-14)[0])
    exact = closed_form.grad_log_hyp0f1_exact(sig, k)
    extra = 2 * closed_form.K3_EPSREL * (1 + np.abs(exact)) if k == 3 else 0.0
    tol = grad_tolerance(sig, k, g, float(val), degree) + 8 * U * (1 + np.abs(exact)) + extra
    assert np.all(np.abs(g - exact) <= tol)
    assert np.all(g[sig == 0] == 0.0)


@pytest.mark.parametrize("sigma,k,match", [
    ([1.0, np.nan], 2, "NaN"),
    ([1.0, np.inf], 2, "inf"),
    ([1.0, -0.5], 2, "non-negative"),
    ([1.0, 0.5, 0.1], 2, "last axis"),
    ([1.0], 0, "k must be"),
    ([1.0, 2.0], 2.5, "k must be"),
])
def test_bad_sigma_and_k(sigma, k, match):
    for fn in (series.log_hyp0f1_series, series.grad_log_hyp0f1_series):
        with pytest.raises(ValueError, match=match):
            fn(np.array(sigma), k)
    with pytest.raises(ValueError, match=match):
        series.series_degree_needed(np.array([sigma]), k, 1e-14)


@pytest.mark.parametrize("rtol", [0.0, -1e-3, 1.0, np.nan, "a"])
def test_bad_rtol(rtol):
    with pytest.raises(ValueError, match="rtol"):
        series.log_hyp0f1_series(np.array([1.0, 0.5]), 2, rtol=rtol)
    with pytest.raises(ValueError, match="rtol"):
        series.series_degree_needed(np.array([[1.0, 0.5]]), 2, rtol)


def test_bad_degrees():
    with pytest.raises(ValueError, match="max_degree"):
        series.log_hyp0f1_series(np.array([1.0, 0.5]), 2, max_degree=-1)
    with pytest.raises(ValueError, match="degree"):
        series.log_hyp0f1_series_truncated(np.array([1.0, 0.5]), 2, 2.5)


def test_numba_disabled_parity(python_output):
    """The kernels run as plain Python (NUMBA_DISABLE_JIT=1) and agree within the rounding bounds."""
    code = ("import json, numpy as np; from symcheck.hyp0f1 import series; "
            "s = np.array([[1.0, 0.5, 0.2], [2.0, 1.0, 0.0]]); "
            "print(json.dumps([series.log_hyp0f1_series(s, 3)[0].tolist(), "
            "series.grad_log_hyp0f1_series(s, 3).tolist()]))")
    py_val, py_grad = (np.array(v) for v in json.loads(python_output(code, jit=False)))
    s = np.array([[1.0, 0.5, 0.2], [2.0, 1.0, 0.0]])
    val, bound = series.log_hyp0f1_series(s, 3)
    assert np.all(np.abs(py_val - val) <= 2 * bound)
    g = series.grad_log_hyp0f1_series(s, 3)
    degree = int(series.series_degree_needed(s, 3, 1e-14).max())
    assert np.all(np.abs(py_grad - g) <= 2 * (3 * series.rounding_bound(3, degree) + 8 * U) * np.abs(g))


@pytest.mark.parametrize("plant", [False, True], ids=["degrees-for-the-gradient", "planted-value-degrees"])
def test_small_sigma_gradient_reaches_rtol(plant, monkeypatch):
    """k = 1: ∂ log cosh σ = tanh σ (mpmath). At σ = 3e-4 the value's degree leaves the gradient's tail σ³/6 = 4.5e-12;
    the gradient's own degree rule brings its error and figure to rtol = 1e-15 (plus rounding, a few ε·|g|). Planted:
    the gradient at the value's degrees misses 1e-14 (and its figure says so)."""
    if plant:
        monkeypatch.setattr(series, "_gradient_degrees",
                            series._checked_degrees)
    sig = np.array([[3e-4], [1e-3], [2e-5]])
    grad, err = series.grad_log_hyp0f1_series_with_error(sig, 1, rtol=1e-15)
    ref = np.array([float(mpmath.tanh(mpmath.mpf(s))) for s in sig[:, 0]])
    assert np.all(np.abs(grad[:, 0] - ref) <= err)
    assert (np.max(np.abs(grad[:, 0] - ref)) > 1e-14) == plant
