"""₀F₁ closed forms, Laplace kernel, Haar Monte Carlo and the public dispatcher.

Independent routes: mpmath Bessel functions at 40 digits (closed forms), literal NumPy
transcriptions of Moore's eq. (7) and Listing 1 (Laplace kernel), central finite differences
(gradients), z·SE tests against closed forms (Monte Carlo).
"""


import mpmath
import numpy as np
import pytest

import symcheck
from symcheck import grad_log_hyp0f1, log_hyp0f1, log_hyp0f1_mc
from symcheck.evidence import z_for_alpha
from symcheck.hyp0f1.closed_form_mp import closed_form_mp
from symcheck.models.moore import eq7_printed, listing1_log_bessel

EPS = np.finfo(float).eps


def _mp_log_exact(sig, k):
    with mpmath.workdps(40):
        return float(mpmath.log(closed_form_mp(sig, k)))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 9, 40])
@pytest.mark.parametrize("s", [0.0, 1e-8, 1e-3, 0.5, 1.999, 2.0, 2.001, 7.0, 80.0, 700.0, 5e4])
def test_exact_vs_mpmath(k, s):
    sig = np.zeros(k)
    sig[0] = s
    if k == 2:
        sig[1] = s / 3
    ref = _mp_log_exact(sig, k)
    got = float(log_hyp0f1(sig, k, method="exact"))
    # scipy's Bessel functions are accurate to a few ulps; the log adds ~eps·|log value|
    assert abs(got - ref) <= 50 * EPS * max(1.0, abs(ref)) + 1e-300


@pytest.mark.parametrize("sig", [[0.3, 0.2, 0.1], [2.0, 1.0, 0.5], [6.0, 6.0, 6.0], [9.0, 4.0, 0.0]])
def test_k3_integral_vs_series(sig):
    """Two independent exact routes for k = 3: the 1-D quaternion integral and the zonal series."""
    sig = np.array(sig)
    ser, bound = log_hyp0f1(sig, 3, method="series", rtol=1e-15, return_error=True)
    # quadrature asked for 1e-14 relative (its Gauss–Kronrod estimate), series bound as reported
    assert abs(float(log_hyp0f1(sig, 3, method="exact")) - float(ser)) <= 2e-14 + float(bound) + 10 * EPS * abs(ser)


def test_exact_refuses_general_k5_and_k4_beyond_its_series():
    with pytest.raises(ValueError, match="closed form"):
        log_hyp0f1([1.0, 2.0, 0.0, 0.0, 0.0], 5, method="exact")
    log_hyp0f1([1.0, 2.0, 0.0, 0.0], 4, method="exact")  # k = 4: the positive series
    with pytest.raises(ValueError, match="k = 4 series needs more than"):
        log_hyp0f1([8e4, 3e4, 0.0, 0.0], 4, method="exact")


def _fd_grad(f, sig, h, mask=None):
    g = np.zeros_like(sig)
    for i in np.flatnonzero(np.ones(sig.size, bool) if mask is None else mask):
        e = np.zeros_like(sig)
        e[i] = h
        g[i] = (f(sig + e) - f(sig - e)) / (2 * h)
    return g


@pytest.mark.parametrize(
    "k, sig",
    [(1, [0.3]), (1, [40.0]), (2, [1.0, 0.4]), (2, [30.0, 29.0]), (2, [0.5, 0.5]), (5, [3.0, 0, 0, 0, 0]),
     (5, [0.7, 0, 0, 0, 0]), (30, [12.0] + [0.0] * 29), (3, [2.0, 1.0, 0.5]), (3, [30.0, 20.0, 1.0])],
)
def test_exact_gradient_vs_fd(k, sig):
    sig = np.array(sig, dtype=float)
    h = 1e-5
    # rank one: only the non-zero entry can be perturbed and stay rank one (and σ ≥ 0)
    mask = (sig > h) | (k <= 2)
    fd = _fd_grad(lambda x: float(log_hyp0f1(x, k, method="exact")), sig, h, mask)
    got = grad_log_hyp0f1(sig, k, method="exact")
    # central FD: truncation h²·|f'''| (|f'''| ≤ 1 here) + rounding eps·|f|/h
    tol = h * h + 10 * EPS * max(1.0, float(log_hyp0f1(sig, k, method="exact"))) / h
    assert np.all(np.abs(got[mask] - fd[mask]) <= tol)
    assert np.all(got[~mask] == 0.0)


# --- Laplace: the kernel against literal transcriptions of the paper -------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 8, 20])
def test_laplace_matches_paper_transcriptions(k, rng):
    for scale in (0.01, 1.0, 5.0, 30.0):
        sig = scale * rng.random(k)
        # float64 evaluation of O(k²) logs of O(1) numbers: error ≲ k²·eps·|terms|
        tol = 50 * k * k * EPS * (1 + sig.sum())
        assert abs(log_hyp0f1(sig, k, method="laplace", variant="listing") - listing1_log_bessel(sig, k)) <= tol
        assert abs(log_hyp0f1(sig, k, method="laplace", variant="printed") - eq7_printed(sig, k)) <= tol


def test_laplace_variants_agree_for_k1(rng):
    sig = 10 * rng.random((50, 1))
    a = log_hyp0f1(sig, 1, method="laplace", variant="listing")
    # Same formula up to rearrangement of 1 − ŷ²: rounding ≲ a few eps in each log and in σŷ.
    tol = 20 * EPS * (1 + sig[:, 0])
    for v in ("printed", "pairs-once"):
        assert np.all(np.abs(log_hyp0f1(sig, 1, method="laplace", variant=v) - a) <= tol)


@pytest.mark.parametrize("variant", ["listing", "printed", "pairs-once"])
@pytest.mark.parametrize("k", [1, 3, 6])
def test_laplace_gradient_vs_fd(variant, k, rng):
    sig = 0.2 + 4 * rng.random(k)
    h = 1e-5
    f = lambda x: float(log_hyp0f1(x, k, method="laplace", variant=variant))
    fd = _fd_grad(f, sig, h)
    tol = 10 * h * h * k * k + 10 * EPS * max(1.0, abs(f(sig))) / h
    assert np.max(np.abs(grad_log_hyp0f1(sig, k, method="laplace", variant=variant) - fd)) <= tol


def test_laplace_no_overflow_and_symmetry(rng):
    k = 4
    sig = np.array([1e300, 1e-300, 0.0, 1e8])
    v = log_hyp0f1(sig, k, method="laplace")
    assert np.isfinite(v)
    perm = rng.permutation(k)
    assert log_hyp0f1(sig[perm], k, method="laplace") == pytest.approx(float(v), rel=1e-15)


def test_laplace_unknown_variant():
    with pytest.raises(ValueError, match="variant"):
        log_hyp0f1([1.0, 2.0], 2, method="laplace", variant="nope")


# --- Monte Carlo ---------------------------------------------------------------------------

def test_mc_standard_error_is_honest(rng):
    """Spread of independent MC estimates matches the reported SE (chi-square test)."""
    from scipy import stats

    k, sig, n, reps = 3, np.array([2.0, 1.0, 0.0]), 2_000, 40
    est = np.empty(reps)
    se = np.empty(reps)
    for r in range(reps):
        est[r], se[r] = log_hyp0f1_mc(sig, k, n, rng)
    # Sum of squared standardised deviations around the mean of the estimates ~ χ²(reps − 1).
    chi2 = np.sum(((est - est.mean()) / se) ** 2)
    lo, hi = stats.chi2(reps - 1).ppf([1e-5 / 2, 1 - 1e-5 / 2])
    assert lo <= chi2 <= hi


def test_mc_batch_shape_and_rank_one(rng):
    sig = np.zeros((2, 3, 4))
    sig[..., 0] = np.linspace(0.1, 3.0, 6).reshape(2, 3)
    est, se = log_hyp0f1_mc(sig, 4, 20_000, rng)
    assert est.shape == (2, 3) and se.shape == (2, 3)
    ref = log_hyp0f1(sig, 4, method="exact")
    assert np.all(np.abs(est - ref) <= z_for_alpha() * se + 1e-14)


# --- dispatcher ----------------------------------------------------------------------------

def test_auto_uses_closed_forms_and_keeps_shape(rng):
    sig = rng.random((3, 5, 2)) * 5
    assert np.array_equal(log_hyp0f1(sig, 2), log_hyp0f1(sig, 2, method="exact"))
    assert log_hyp0f1(sig, 2).shape == (3, 5)
    assert grad_log_hyp0f1(sig, 2).shape == (3, 5, 2)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [(([np.nan, 1.0], 2), {}, "NaN"), (([np.inf, 1.0], 2), {}, "inf"), (([-1.0, 1.0], 2), {}, "negative"),
     (([1.0, 1.0], 3), {}, "last axis"), (([1.0], 0), {}, "k"), (([1.0], 1.5), {}, "k"), (([1.0], True), {}, "k"),
     (([1.0], 1), {"method": "magic"}, "method"), (([1.0], 1), {"method": "exact", "rtol": 1}, "option"),
     (([1.0], 1), {"method": "mc"}, "rng"), ((1.0, 1), {}, "dimension")],
)
def test_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        log_hyp0f1(*args, **kwargs)


def test_mc_saddle_proposal(rng):
    """Saddle-point importance sampling: unbiased against closed forms, k = 1 handled exactly."""
    est, se = log_hyp0f1_mc(np.array([[40.0, 3.0], [0.5, 0.1]]), 2, 4_000, rng, proposal="saddle")
    ref = log_hyp0f1(np.array([[40.0, 3.0], [0.5, 0.1]]), 2, method="exact")
    assert np.all(np.abs(est - ref) <= z_for_alpha() * se + 1e-13)
    est1, se1 = log_hyp0f1_mc([3.0], 1, 10, rng, proposal="saddle")
    assert abs(float(est1) - np.log(np.cosh(3.0))) <= 1e-14 and float(se1) == 0.0
    with pytest.raises(ValueError, match="proposal"):
        log_hyp0f1_mc([1.0, 2.0], 2, 10, rng, proposal="uniform")


def test_asymptotic_refuses_two_zero_singular_values():
    with pytest.raises(ValueError, match="asymptotic expansion is undefined"):
        log_hyp0f1([3.0, 0.0, 0.0], 3, method="asymptotic")


def test_mc_bad_input():
    with pytest.raises(ValueError, match="n_samples"):
        log_hyp0f1_mc([1.0, 2.0], 2, 1, 0)
    with pytest.raises(ValueError, match="rng"):
        log_hyp0f1_mc([1.0, 2.0], 2, 10, None)


def test_pure_python_path_matches_jit(python_output):
    """NUMBA_DISABLE_JIT=1 runs the same kernels as plain Python: results must agree."""
    code = (
        "import numpy as np, symcheck as s;"
        "x=np.array([[0.3,1.2,4.0],[2.0,0.0,0.5]]);"
        "print(repr(s.log_hyp0f1(x,3,method='laplace').tolist()));"
        "print(repr(s.grad_log_hyp0f1(x,3,method='laplace',variant='pairs-once').tolist()));"
        "print(repr(s.haar_orthogonal(3,2,5).tolist()));"
        "print(repr([v.tolist() for v in s.log_hyp0f1_mc(x,3,50,5)]))"
    )
    outs = [python_output(code, jit).splitlines() for jit in (True, False)]
    for a, b in zip(*outs):
        np.testing.assert_allclose(eval(a), eval(b), rtol=1e-12, atol=1e-14)
