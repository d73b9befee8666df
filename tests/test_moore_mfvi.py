"""Moore's elementwise MFVI with a certified distance to a local maximum (symcheck/models/moore_mfvi.py).

The pieces of the certificate against independent routes (finite differences of the closed-form
ELBO, measured Hessian changes, the exact maximum found in long double), planted defects that each
check catches, and the failure mode the certificate replaced: the geometric tail bound of the old
stopping rule (rate from the last 20 sweep ratios) fails ``moore.fig4.nakajima-vb`` at seed 6.
"""

import math

import mpmath
import numpy as np
import pytest

import symcheck.claims.moore_experiments as claims
import symcheck.models.moore_mfvi as mv
from symcheck.claims import get_claim
from symcheck.evidence import ROUNDING, claim_rng
from symcheck.models.moore_mf import FitResult, elbo_factorised, nakajima_vb, sample_problem


def _point(rng, n=5, m=4, k=3, sigma=0.7):
    p, _ = sample_problem(n, m, k, sigma, rng)
    x = mv.pack(rng.standard_normal((n, k)), rng.standard_normal((m, k)), rng.uniform(-1.5, 0, k),
                rng.uniform(-1.5, 0, k))
    return p, x


def _elbo(x, p):
    Mu, Mv, t, w = mv.unpack(x, p)
    return elbo_factorised(Mu, Mv, np.exp(t), np.exp(w), p)


# ----- gradient, Hessian and third-derivative bound against independent routes ----------------


def test_gradient_and_hessian_match_finite_differences_of_the_closed_form_elbo():
    rng = np.random.default_rng(0)
    p, x = _point(rng)
    G, gerr = mv.elbo_gradient(x, p)
    H, herr = mv.elbo_hessian(x, p)
    h = 1e-5
    eye = np.eye(x.size)
    G_fd = np.array([(_elbo(x + h * e, p) - _elbo(x - h * e, p)) / (2 * h) for e in eye])
    H_fd = np.array([(mv.elbo_gradient(x + h * e, p)[0] - mv.elbo_gradient(x - h * e, p)[0]).astype(float) / (2 * h)
                     for e in eye])
    # central differences: truncation ~ h²·|f'''| ≈ 1e-8 here; a wrong term is O(1)
    assert np.max(np.abs(G.astype(float) - G_fd)) < 1e-7
    assert np.max(np.abs(H - H_fd)) < 1e-7
    assert np.max(np.abs(H - H.T)) <= herr
    assert 0 < gerr < 1e-12 and 0 < herr < 1e-9


def _gradient_mp(x, p):
    """∇F in 40-digit mpmath from the same formulas (the reference for the rounding bound)."""
    mpmath.mp.dps = 40
    Mu, Mv, t, w = (mpmath.matrix(v.tolist()) if v.ndim == 2 else [mpmath.mpf(float(z)) for z in v]
                    for v in mv.unpack(x, p))
    n, m, k = p.n, p.m, p.k
    g, s2 = mpmath.mpf(p.gain), mpmath.mpf(p.sigma2)
    su, sv = [mpmath.exp(z) for z in t], [mpmath.exp(z) for z in w]
    E = mpmath.matrix(p.R.tolist()) - g * Mu * Mv.T
    a = [sum(Mu[i, j] ** 2 for i in range(n)) + n * su[j] for j in range(k)]
    b = [sum(Mv[i, j] ** 2 for i in range(m)) + m * sv[j] for j in range(k)]
    EV, EU = E * Mv, E.T * Mu
    gu = [-Mu[i, j] + g / s2 * EV[i, j] - g * g * m / s2 * Mu[i, j] * sv[j] for i in range(n) for j in range(k)]
    gv = [-Mv[i, j] + g / s2 * EU[i, j] - g * g * n / s2 * Mv[i, j] * su[j] for i in range(m) for j in range(k)]
    gt = [n / mpmath.mpf(2) * (1 - su[j] * (1 + g * g * b[j] / s2)) for j in range(k)]
    gw = [m / mpmath.mpf(2) * (1 - sv[j] * (1 + g * g * a[j] / s2)) for j in range(k)]
    return gu + gv + gt + gw


def test_gradient_error_bound_covers_the_long_double_error():
    rng = np.random.default_rng(2)
    worst = 0.0
    for _ in range(5):
        p, x = _point(rng, n=6, m=5, k=3)
        G, gerr = mv.elbo_gradient(x, p)
        exact = _gradient_mp(x, p)
        error = math.sqrt(sum((mpmath.mpf(str(gi)) - e) ** 2 for gi, e in zip(G, exact)))
        assert error <= gerr
        worst = max(worst, error / gerr)
    assert worst > 1e-4  # not a vacuous bound (the planted one below is exceeded)


@pytest.mark.skipif(np.finfo(np.longdouble).eps == np.finfo(float).eps, reason="long double is float64 here")
def test_a_planted_float64_evaluation_exceeds_the_long_double_error_bound(monkeypatch):
    # the gradient evaluated in float64 while its bound still uses long double's unit roundoff
    rng = np.random.default_rng(2)
    p, x = _point(rng, n=6, m=5, k=3)
    exact = _gradient_mp(x, p)
    monkeypatch.setattr(np, "longdouble", np.float64)
    G, gerr = mv.elbo_gradient(x, p)
    assert math.sqrt(sum((mpmath.mpf(float(gi)) - e) ** 2 for gi, e in zip(G, exact))) > gerr


def test_hessian_changes_no_faster_than_the_third_derivative_bound():
    rng = np.random.default_rng(1)
    p, x = _point(rng)
    worst = 0.0
    for r in (1e-3, 0.1, 0.5):
        L = mv.third_derivative_bound(x, p, r)
        for _ in range(200):
            d = rng.standard_normal(x.size)
            y, z = x + d * (r * rng.uniform() / np.linalg.norm(d)), x + d * (r * rng.uniform() / np.linalg.norm(d))
            ratio = np.linalg.norm(mv.elbo_hessian(z, p)[0] - mv.elbo_hessian(y, p)[0], 2) / np.linalg.norm(z - y)
            worst = max(worst, ratio / L)
    assert worst <= 1.0
    assert worst > 0.02  # the bound is not vacuous: within a factor 50 of what the samples show
    assert mv.third_derivative_bound(x, p, 2.0) == math.inf


def test_a_planted_third_derivative_bound_without_the_variance_terms_is_exceeded():
    # dropping every term but the fit term ‖E‖² (the quartic one) leaves a bound the Hessian outruns
    rng = np.random.default_rng(1)
    p, x = _point(rng)
    Mu, Mv, _, _ = mv.unpack(x, p)
    fit_only = 3 * p.gain**2 * math.hypot(np.linalg.norm(Mu, 2) + 0.1, np.linalg.norm(Mv, 2) + 0.1) / p.sigma2
    worst = 0.0
    for _ in range(200):
        d = rng.standard_normal(x.size)
        y, z = x + d * (0.1 * rng.uniform() / np.linalg.norm(d)), x + d * (0.1 * rng.uniform() / np.linalg.norm(d))
        change = np.linalg.norm(mv.elbo_hessian(z, p)[0] - mv.elbo_hessian(y, p)[0], 2)
        worst = max(worst, change / np.linalg.norm(z - y))
    assert worst > fit_only


# ----- the certificate ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def exact_maximum():
    """A 20×20 problem's maximum from coordinate ascent + Newton, polished in long double."""
    rng = np.random.default_rng(5)
    p, _ = sample_problem(20, 20, 4, 1.0, rng)
    fit = mv.fit_mfvi(p, rng, tol=1e-10)
    assert fit.converged
    x = mv.pack(fit.params["Mu"], fit.params["Mv"], np.log(fit.params["su"]), np.log(fit.params["sv"]),
                dtype=np.longdouble)
    x, cert = mv.local_maximum(x, p)
    return p, x, cert, fit


def test_certified_maximum_is_nakajimas_solution(exact_maximum):
    p, x, cert, fit = exact_maximum
    assert cert.proven and cert.h < 0.5 and cert.curvature > 0
    Mu, Mv, _, _ = mv.unpack(x.astype(float), p)
    assert np.linalg.norm(p.gain * Mu @ Mv.T - nakajima_vb(p)[0]) <= cert.mean_radius + 1e-12 * np.linalg.norm(p.R)
    assert np.linalg.norm(fit.mean - nakajima_vb(p)[0]) <= fit.params["radius"] + 1e-12 * np.linalg.norm(p.R)


def test_certified_radius_covers_the_true_distance_at_perturbed_points(exact_maximum):
    p, x_star, _, _ = exact_maximum
    rng = np.random.default_rng(6)
    proven = 0
    for scale in (1e-9, 1e-7, 1e-5, 1e-4):
        for _ in range(4):
            d = rng.standard_normal(x_star.size)
            x0 = (x_star.astype(float) + scale * d / np.linalg.norm(d))
            cert = mv.certify_maximum(x0, p)
            if cert.proven:
                proven += 1
                true = float(np.linalg.norm((x0.astype(np.longdouble) - x_star).astype(float)))
                assert true <= cert.radius
                assert cert.radius < 50 * true + 1e-9  # and it is informative
    assert proven >= 8


def test_a_planted_hessian_twice_too_curved_gives_a_radius_below_the_true_distance(exact_maximum, monkeypatch):
    # a Hessian twice too steep halves the Newton step that η bounds, and with it the radius
    p, x_star, _, _ = exact_maximum
    true_hessian = mv.elbo_hessian
    monkeypatch.setattr(mv, "elbo_hessian",
                        lambda x, problem: (2 * true_hessian(x, problem)[0], true_hessian(x, problem)[1]))
    rng = np.random.default_rng(7)
    d = rng.standard_normal(x_star.size)
    x0 = x_star.astype(float) + 1e-6 * d / np.linalg.norm(d)
    cert = mv.certify_maximum(x0, p)
    assert cert.proven and cert.radius < float(np.linalg.norm((x0.astype(np.longdouble) - x_star).astype(float)))


def test_no_certificate_at_a_saddle():
    # the collapsed point Mu = Mv = 0 of a problem with a singular value far above γ_VB is a saddle
    rng = np.random.default_rng(8)
    p, _ = sample_problem(20, 20, 4, 1.0, rng)
    x = mv.pack(np.zeros((20, 4)), np.zeros((20, 4)), np.zeros(4) - 1, np.zeros(4) - 1)
    cert = mv.certify_maximum(x, p)
    assert not cert.proven and not cert.curvature > 0


# ----- coordinate ascent ----------------------------------------------------------------------


def test_sweep_never_decreases_the_elbo_and_keeps_the_maximum(exact_maximum):
    p, x_star, cert, _ = exact_maximum
    rng = np.random.default_rng(9)
    Mu, Mv = rng.standard_normal((p.n, p.k)), rng.standard_normal((p.m, p.k))
    Su, Sv = np.ones((p.n, p.k)), np.ones((p.m, p.k))
    res = p.R - p.gain * Mu @ Mv.T
    last = elbo_factorised(Mu, Mv, Su, Sv, p)
    for _ in range(50):
        mv.sweep(p, Mu, Mv, Su, Sv, res)
        now = elbo_factorised(Mu, Mv, Su, Sv, p)
        assert now >= last - 1e-12 * abs(last)
        last = now
    assert np.allclose(res, p.R - p.gain * Mu @ Mv.T, atol=1e-12)
    # at the certified maximum one sweep moves the mean only at rounding level (a wrong update moves it)
    Mu, Mv, t, w = (np.array(v, dtype=float) for v in mv.unpack(x_star.astype(float), p))
    Su, Sv = np.tile(np.exp(t), (p.n, 1)), np.tile(np.exp(w), (p.m, 1))
    before = p.gain * Mu @ Mv.T
    mv.sweep(p, Mu, Mv, Su, Sv, p.R - before)
    assert np.linalg.norm(p.gain * Mu @ Mv.T - before) < 1e-12 * np.linalg.norm(p.R)


def _vectorised_sweep(p, Mu, Mv, Su, Sv, res, planted=False):
    """One sweep by the vectorised column updates (the route `mv.sweep` replaced); `planted` drops the
    variances Sv from the precision of U's columns (a bug)."""
    g, s2 = p.gain, p.sigma2
    for j in range(p.k):
        res += g * np.outer(Mu[:, j], Mv[:, j])
        q = 1 + g * g * np.sum(Mv[:, j] ** 2 + (0 if planted else Sv[:, j])) / s2
        Su[:, j], Mu[:, j] = 1 / q, g * res @ Mv[:, j] / (s2 * q)
        q = 1 + g * g * np.sum(Mu[:, j] ** 2 + Su[:, j]) / s2
        Sv[:, j], Mv[:, j] = 1 / q, g * res.T @ Mu[:, j] / (s2 * q)
        res -= g * np.outer(Mu[:, j], Mv[:, j])


@pytest.mark.parametrize("n, m, k", [(20, 20, 4), (15, 25, 3), (7, 3, 5), (1, 6, 2)])
def test_compiled_sweep_matches_the_vectorised_updates(n, m, k):
    """Three compiled sweeps (`mv.sweep`, count=3) vs three vectorised ones, from a unit-scale random state.
    Both sum the same terms in different orders: each entry passes through ≤ 3k column updates, each
    a sum of ≤ n + m + 2 terms no larger than the unit-scale entries, so the routes differ by at most
    ~2·3k·γ_{n+m+2}·max|entry|; the tolerance is ROUNDING (64 EPS) × 3k(n + m + 2) × max(1, max|entry|).
    A planted bug (Sv left out of U's precision) moves entries by O(0.1)."""
    rng = np.random.default_rng(n * 100 + m * 10 + k)
    p, _ = sample_problem(n, m, k, 0.8, rng)
    state = [rng.standard_normal((n, k)), rng.standard_normal((m, k)), rng.uniform(0.1, 1, (n, k)),
             rng.uniform(0.1, 1, (m, k))]
    state.append(p.R - p.gain * state[0] @ state[1].T)

    def error(planted):
        ref, got = [a.copy() for a in state], [a.copy() for a in state]
        for _ in range(3):
            _vectorised_sweep(p, *ref, planted=planted)
        mv.sweep(p, *got, count=3)
        scale = max(1.0, max(float(np.max(np.abs(a))) for a in ref))
        return max(float(np.max(np.abs(a - b))) for a, b in zip(ref, got)) / (ROUNDING * 3 * k * (n + m + 2) * scale)

    assert error(planted=False) <= 1
    assert error(planted=True) > 1e6


def test_sweep_kernel_without_jit_is_the_compiled_one(monkeypatch):
    """The NUMBA_DISABLE_JIT route (the kernels' Python functions) performs the same float64 operations
    in the same order as the compiled kernels (no fastmath): equal bit for bit."""
    if not hasattr(mv._sweeps, "py_func"):
        pytest.skip("NUMBA_DISABLE_JIT is set: the kernels run as Python already")
    rng = np.random.default_rng(5)
    p, _ = sample_problem(6, 5, 3, 1.0, rng)
    state = [rng.standard_normal((6, 3)), rng.standard_normal((5, 3)), np.ones((6, 3)), np.ones((5, 3))]
    state.append(p.R - p.gain * state[0] @ state[1].T)
    a, b = [x.copy() for x in state], [x.copy() for x in state]
    mv._sweeps(p.gain, p.sigma2, *a, 4)
    monkeypatch.setattr(mv, "_column", mv._column.py_func)  # the Python loop calls the Python column update
    mv._sweeps.py_func(p.gain, p.sigma2, *b, 4)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_fit_without_a_certified_maximum_reports_nan_and_the_claim_fails(monkeypatch):
    unproven = mv.MFVICertificate(*(math.nan,) * 7)
    monkeypatch.setattr(mv, "local_maximum", lambda x, p: (np.asarray(x, dtype=np.longdouble), unproven))
    p, _ = sample_problem(15, 25, 3, 1.5, np.random.default_rng(10))
    fit = mv.fit_mfvi(p, np.random.default_rng(11), max_sweeps=300)
    assert not fit.converged and math.isnan(fit.params["radius"]) and fit.iterations == 300
    monkeypatch.setattr(claims, "_PROBLEMS", claims._PROBLEMS[2:3])
    monkeypatch.setattr(claims, "fit_mfvi", lambda p, rng, tol, first_try: mv.fit_mfvi(p, rng, tol=tol, max_sweeps=300))
    assert get_claim("moore.fig4.nakajima-vb").run().status == "fails"


def test_bad_arguments_are_refused():
    p, _ = sample_problem(4, 4, 2, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="tol"):
        mv.fit_mfvi(p, 0, tol=0.0)
    with pytest.raises(ValueError, match="max_sweeps"):
        mv.fit_mfvi(p, 0, max_sweeps=0)
    with pytest.raises(ValueError, match="first_try"):
        mv.fit_mfvi(p, 0, first_try=0)
    Mu, Mv, S = np.zeros((4, 2)), np.zeros((4, 2)), np.ones((4, 2))
    with pytest.raises(ValueError, match="count"):
        mv.sweep(p, Mu, Mv, S, S.copy(), np.zeros((4, 4)), count=0)
    with pytest.raises(ValueError, match="res"):
        mv.sweep(p, Mu, Mv, S, S.copy(), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="Mu"):
        mv.sweep(p, Mu.astype(np.float32), Mv, S, S.copy(), np.zeros((4, 4)))


# ----- the failure mode the certificate replaced ----------------------------------------------


def _geometric_tail_fit(problem, rng, tol=1e-10, max_sweeps=200000, first_try=None):
    """The stopping rule symcheck used before: stop when a sweep moves the mean by ≤ tol·(1 + ‖R‖), and
    bound the remaining distance by the geometric tail d·ρ/(1 − ρ), ρ the largest of the last 20
    step ratios; the claim allowed twice that. (Kept here only to show that it fails; `first_try` is the
    new fit's argument, unused.)"""
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    n, m, k, g = problem.n, problem.m, problem.k, problem.gain
    Mu, Mv = gen.standard_normal((n, k)), gen.standard_normal((m, k))
    Su, Sv = np.ones((n, k)), np.ones((m, k))
    res = problem.R - g * Mu @ Mv.T
    mean, steps = g * Mu @ Mv.T, []
    for sweep in range(1, max_sweeps + 1):
        mv.sweep(problem, Mu, Mv, Su, Sv, res)
        new = g * Mu @ Mv.T
        steps.append(float(np.linalg.norm(new - mean)))
        mean = new
        if steps[-1] <= tol * (1 + np.linalg.norm(problem.R)):
            break
    ratios = np.array(steps[-min(21, len(steps) // 2 + 1):])
    rho = float(np.max(ratios[1:] / ratios[:-1]))
    tail = steps[-1] * rho / (1 - rho) if rho < 1 else math.nan
    return FitResult(mean, math.nan, sweep, True, "geometric tail", {"radius": 2 * tail, "ascent_distance": 2 * tail})


def test_planted_geometric_tail_rule_fails_the_claim_at_seed_6(monkeypatch):
    monkeypatch.setattr(claims, "fit_mfvi", _geometric_tail_fit)
    result = get_claim("moore.fig4.nakajima-vb").run(6)
    assert result.status == "fails", result.detail
    assert "40×40" in result.detail
    # the iterate it stopped at is 1.1e-3 from Nakajima's solution; the rule allowed ~4e-5
    assert result.printed > 20 * result.tolerance


def test_seed_6_iterate_where_the_old_rule_stopped_is_far_from_its_limit():
    """The cause, measured: at seed 6 the 40×40 problem has γ₃/γ_VB = 1.0039; its component converges at
    rate ≈ 0.9959 per sweep and overshoots, so the sweep change passes through a minimum (8.8e-7 at sweep
    419) while the distance to the limit is 1.1e-3."""
    rng = claim_rng("moore.fig4.nakajima-vb", 6)
    for n, m, k, s in claims._PROBLEMS[:-1]:
        p, _ = sample_problem(n, m, k, s, rng)
        _geometric_tail_fit(p, rng, tol=1e-8)
    p, _ = sample_problem(40, 40, 20, 2.0, rng)
    old = _geometric_tail_fit(p, rng, tol=1e-8)
    ref = nakajima_vb(p)[0]
    assert old.iterations == 419
    assert np.linalg.norm(old.mean - ref) > 25 * old.params["radius"]
