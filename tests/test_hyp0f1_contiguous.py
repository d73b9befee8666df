"""The contiguous route (F_k from the function at k + 2, symcheck/hyp0f1/contiguous.py) against references it does not
use: the k ≤ 4 and rank-one closed forms, the series with its rigorous bound, the mpmath series, the holonomic route,
and the second solution G it is built to avoid (k = 2 in Bessel functions)."""
import math

import mpmath
import numpy as np
import pytest
from scipy.special import ive

import symcheck
from symcheck.hyp0f1 import closed_form, contiguous, holonomic, reference, series

EPS = np.finfo(float).eps


def _distinct_rows(rng, k, scales, per_scale=2):
    """Seeded rows of k pairwise distinct σ (relative gaps ≥ contiguous.GAP), σ_max = each scale."""
    rows = []
    for smax in scales:
        for _ in range(1000):
            sig = np.sort(smax * np.exp(-rng.uniform(0.0, 2.5, k)))[::-1]
            sig[0] = smax
            if contiguous.contiguous_reason(sig[None], k)[0] == "":
                rows.append(sig)
            if sum(r[0] == smax for r in rows) == per_scale:
                break
        else:
            raise AssertionError(f"no row in the regime at k = {k}, sigma_max = {smax}")
    return rows


def test_k1_is_cosh():
    """m = 1: F₁ = g + σg' with g = sinh σ/σ (module docstring): log cosh σ."""
    sig = np.array([[0.5], [3.0], [30.0], [80.0]])
    v, e = contiguous.log_hyp0f1_contiguous(sig, 1)
    ref = sig[:, 0] + np.log1p(np.exp(-2 * sig[:, 0])) - math.log(2)
    assert np.all(np.abs(v - ref) <= e)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_against_the_closed_forms(k):
    rng = np.random.default_rng(100 + k)
    for sig in _distinct_rows(rng, k, [0.3, 3.0, 30.0, 30.0 * k]):
        ref, ref_err = (x[0] for x in closed_form.exact_value(sig[None], k))
        v, e = contiguous.log_hyp0f1_contiguous(sig[None], k)
        assert abs(v[0] - ref) <= e[0] + ref_err, (sig, v[0] - ref, e[0])
        assert e[0] <= 1e-10 * max(1.0, abs(ref))


@pytest.mark.parametrize("k", [5, 6, 8])
def test_against_the_series_with_its_bound(k):
    sig = 3.0 * np.geomspace(1.0, 0.2, k)[None, :]
    ref, rel = series.log_hyp0f1_series(sig, k, rtol=1e-15, max_degree=200)
    v, e = contiguous.log_hyp0f1_contiguous(sig, k)
    assert abs(v[0] - ref[0]) <= e[0] + rel[0] + 4 * EPS * abs(ref[0])


@pytest.mark.parametrize("k,smax", [(5, 30.0), (6, 10.0), (8, 10.0)])
def test_against_the_holonomic_route_at_k_equal_m(k, smax):
    """Where the direct ray at k = m is accurate (figures ~1e-11), the two agree within both figures."""
    sig = smax * np.geomspace(1.0, 0.1, k) * (1 + 0.01 * np.arange(k))
    ref, ref_err = symcheck.log_hyp0f1(sig, k, method="holonomic", rtol=1e-14,
                                       work=holonomic.AUTO_FULL_RANK_STEP_WORK, return_error=True)
    v, e = contiguous.log_hyp0f1_contiguous(sig[None], k)
    assert abs(v[0] - ref) <= e[0] + ref_err


def test_the_second_solution_is_det_times_the_function_at_k_plus_2():
    """The module's premise at k = 2: G = ∫ det(T) etr(ATᵀ) dT = ½(I₀(a + b) − I₀(a − b)) equals
    (ab/2!)·₀F₁(2; diag(a², b²)/4) = (ab/2)·F₄(a, b, 0, 0) (the series route in 2 of 4 variables)."""
    for a, b in [(1.0, 0.5), (3.0, 2.0), (8.0, 1.5)]:
        g_log, g_rel = series.log_hyp0f1_series(np.array([[a, b, 0.0, 0.0]]), 4, rtol=1e-15, max_degree=200)
        big, small = a + b, a - b
        det_weighted = 0.5 * (ive(0, big) * math.exp(big) - ive(0, small) * math.exp(small))
        assert abs(math.log(a * b / 2) + g_log[0] - math.log(det_weighted)) <= g_rel[0] + 1e-14


def test_a_planted_coefficient_error_fails_the_closed_forms(monkeypatch):
    """c_S 0.1 % off for |S| = 1 (a wrong operator D(u)) moves the value far outside the figure."""
    honest = contiguous.sekiguchi_coefficients

    def planted(key, u):
        c = honest(np.array(key), u).copy()
        single = [1 << i for i in range(len(key))]
        c[single] *= 1.001
        return c, np.zeros_like(c)

    monkeypatch.setattr(contiguous, "_coefficients_cached", planted)
    sig = np.array([[30.0, 12.0, 3.0, 1.0]])
    ref, ref_err = (x[0] for x in closed_form.exact_value(sig, 4))
    v, e = contiguous.log_hyp0f1_contiguous(sig, 4)
    assert abs(v[0] - ref) > e[0] + ref_err


@pytest.mark.parametrize("rtol", [1e-9, 3e-10, 1e-10])
@pytest.mark.parametrize("plant", ["honest", "coarse-not-coarser", "coarse-not-coarser-unseen"])
def test_the_figure_holds_at_loose_tolerances_and_a_coarse_run_that_is_not_coarser_breaks_it(rtol, plant, monkeypatch):
    """Where the truncation dominates the coarse run must see it. Honest, the figure covers the closed form's distance.
    A coarse run at the fine tolerance takes the fine run's steps, which holonomic.tolerance_limited sees (the general
    estimate then holds); with that check disabled too, the figure falls below the distance."""
    sig = np.array([[30.0, 12.0, 3.0, 1.0]])
    ref, ref_err = (x[0] for x in closed_form.exact_value(sig, 4))
    if plant != "honest":
        honest_ray = holonomic._ray

        def fine_only(sig, k, tol, *args, **kwargs):
            return honest_ray(sig, k, min(tol, rtol), *args, **kwargs)
        monkeypatch.setattr(holonomic, "_ray", fine_only)
    if plant == "coarse-not-coarser-unseen":
        monkeypatch.setattr(holonomic, "tolerance_limited", lambda steps, coarse_steps: True)
    v, e = contiguous.log_hyp0f1_contiguous(sig, 4, rtol=rtol)
    assert (abs(v[0] - ref) <= e[0] + ref_err) == (plant != "coarse-not-coarser-unseen")


@pytest.mark.parametrize("sig,k,what", [
    ([3.0, 3.0, 1.0], 3, "apart"),                 # a tie: the coefficients' poles
    ([3.0, 2.9, 1.0], 3, "apart"),                 # closer than GAP
    ([0.0, 0.0], 2, "non-zero"),
    (list(np.geomspace(10, 1, 11)), 11, "k ≤ 10"),
    ([250.0, 1.2e-6, 1.9e-7, 0.0, 0.0], 5, "smallest"),  # g's ray stalls (MIN_RATIO)
])
def test_rows_outside_the_regime_raise_naming_sigma(sig, k, what):
    with pytest.raises(ValueError, match=f"sigma.*{what}"):
        symcheck.log_hyp0f1(np.array(sig), k, method="contiguous")


def test_a_ray_beyond_its_budget_raises_naming_max_steps():
    with pytest.raises(ValueError, match="max_steps"):
        symcheck.log_hyp0f1(30.0 * np.geomspace(1.0, 0.1, 6), 6, method="contiguous", max_steps=20)


def test_the_budget_holds_for_the_four_runs_together():
    """max_steps caps g's four runs together (fine, coarse, two probes): a budget one step above what the fine run
    tries leaves the coarse run its rejected steps and one more, and raises; the steps the runs try in all succeed. Planted: each run charged what the
    runs before it took read from the wrong entry of their results (a float far below 1: every run got the whole
    budget, the bug until 2026-11-29) — then the first budget passes."""
    sig = 30.0 * np.geomspace(1.0, 0.1, 6)
    fine = holonomic._ray(sig, 8, 1e-13, 10**6)[4]
    tols = [1e-13, contiguous.COARSE * 1e-13] + [1e-13] * holonomic.PROBES
    noises, salts = [0.0, 0.0] + [holonomic.NOISE] * holonomic.PROBES, [0, 0] + list(range(holonomic.PROBES))
    start = holonomic._ray_start(sig, 8)
    total = sum(r[4] for r in holonomic._serial_runs(sig, 8, tols, noises, salts, 10**6, start))
    assert total > fine + 1
    with pytest.raises(holonomic.StepBudgetExceeded):
        contiguous.log_hyp0f1_contiguous(sig[None], 6, max_steps=fine + 1)
    assert np.isfinite(contiguous.log_hyp0f1_contiguous(sig[None], 6, max_steps=total)[1][0])

    def old_runs(sig, k, tols, noises, salts, budget, start, full_state=False):
        runs = []
        for tol, noise, salt in zip(tols, noises, salts):
            runs.append(holonomic._ray(sig, k, tol, budget - 1e-3 * len(runs), noise, salt, start, full_state))
        return runs

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(holonomic, "_serial_runs", old_runs)
        assert np.isfinite(contiguous.log_hyp0f1_contiguous(sig[None], 6, max_steps=fine + 1)[1][0])


def test_auto_takes_it_at_k_equal_10_where_the_direct_ray_is_not_accurate():
    """k = m = 10, spread σ_max = 10: the direct ray's figure is ~5e-8 (its k = m mode); auto now reaches the
    goal by this route, and the direct ray agrees within its own figure."""
    sig = 10.0 * np.geomspace(1.0, 0.1, 10) * (1 + 0.01 * np.arange(10))
    v, e, info = symcheck.log_hyp0f1(sig, 10, return_error=True, return_info=True)
    assert str(info.method) == "contiguous"
    assert e <= 1e-10 * max(1.0, abs(v))
    ref, ref_err = symcheck.log_hyp0f1(sig, 10, method="holonomic", rtol=1e-14,
                                       work=holonomic.AUTO_LAWSON_STEP_WORK, return_error=True)
    assert abs(v - ref) <= e + ref_err


def test_auto_gradient_on_its_rows_comes_from_a_route_with_a_gradient():
    """The route has no gradient; auto's gradient on its rows is the best route that has one (the direct ray),
    not the Laplace fallback, and matches central differences of this route's values: |error| ≤ the gradient's
    figure + 2·(value figure)/h + h²/3 (the third derivative of log F in one σᵢ is a third cumulant of a
    variable in [−1, 1], at most 2 in size)."""
    k = 6
    sig = 10.0 * np.geomspace(1.0, 0.1, k) * (1 + 0.01 * np.arange(k))
    g, ge, info = symcheck.grad_log_hyp0f1(sig, k, return_error=True, return_info=True)
    assert str(info.method) == "holonomic"
    assert np.isfinite(ge)
    h = 1e-3
    for i in (0, k - 1):
        up, down = sig.copy(), sig.copy()
        up[i] += h
        down[i] -= h
        (vu, vd), (eu, ed) = contiguous.log_hyp0f1_contiguous(np.stack([up, down]), k)
        assert abs((vu - vd) / (2 * h) - g[i]) <= ge + (eu + ed) / (2 * h) + h**2 / 3


@pytest.mark.parametrize("k", [2, 3, 4])
def test_k_equal_m_plus_1_against_the_closed_forms(k):
    """One σ zero (u = 2, constant k!): the closed forms at k = 2–4 hold any σ."""
    rng = np.random.default_rng(200 + k)
    for sig in _distinct_rows(rng, k - 1, [0.3, 3.0, 30.0, 30.0 * k]):
        row = np.r_[sig, 0.0][None, :]
        ref, ref_err = (x[0] for x in closed_form.exact_value(row, k))
        v, e = contiguous.log_hyp0f1_contiguous(row, k)
        assert abs(v[0] - ref) <= e[0] + ref_err, (sig, v[0] - ref, e[0])
        assert e[0] <= 1e-10 * max(1.0, abs(ref))


@pytest.mark.parametrize("row, wrong_u", [([30.0, 12.0, 3.0, 0.0], 1), ([5.0, 0.0, 0.0, 0.0], 2)],
                         ids=["k=m+1-with-u-of-k=m", "k=m+3-with-u-of-k=m+1"])
def test_the_operator_of_a_wrong_parameter_fails(row, wrong_u, monkeypatch):
    """Planted: the operator of a wrong parameter (at k = m + 1 the coefficients of k = m, u = 1; at k = m + 3 those of
    k = m + 1, u = 2) misses the k = 4 closed form."""
    honest = contiguous.sekiguchi_coefficients
    monkeypatch.setattr(contiguous, "_coefficients_cached",
                        lambda key, u: (honest(np.array(key), wrong_u), np.zeros(1 << len(key))))
    row = np.array([row])
    ref, ref_err = (x[0] for x in closed_form.exact_value(row, 4))
    v, e = contiguous.log_hyp0f1_contiguous(row, 4)
    assert abs(v[0] - ref) > e[0] + ref_err


@pytest.mark.parametrize("m,smax", [(4, 10.0), (6, 10.0), (6, 30.0)])
def test_k_equal_m_plus_1_against_the_holonomic_route(m, smax):
    """Where the direct ray at k = m + 1 is accurate, the two agree within both figures."""
    row = np.r_[smax * (1 - 1.001 * contiguous.GAP) ** np.arange(m), 0.0]
    ref, ref_err = symcheck.log_hyp0f1(row, m + 1, method="holonomic", rtol=1e-14,
                                       work=holonomic.AUTO_FULL_RANK_STEP_WORK, return_error=True)
    v, e = contiguous.log_hyp0f1_contiguous(row[None], m + 1)
    assert abs(v[0] - ref) <= e[0] + ref_err


@pytest.mark.parametrize("k", [3, 5, 10, 20])
def test_rank_one_at_any_k_against_the_closed_form(k):
    """m = 1 at k ≥ 3 (u = k, constant k): the rank-one closed form (a Bessel function) holds any k and σ."""
    row = np.zeros((3, k))
    row[:, 0] = [0.5, 5.0, 50.0]
    ref, ref_err = closed_form.exact_value(row, k)
    v, e = contiguous.log_hyp0f1_contiguous(row, k)
    assert np.all(np.abs(v - ref) <= e + ref_err), (v - ref, e)
    assert np.all(e <= 1e-10 * np.maximum(1.0, np.abs(ref)))


@pytest.mark.parametrize("m,k", [(2, 4), (2, 8), (3, 6), (3, 12)])
def test_k_at_least_m_plus_2_against_the_mpmath_series(m, k):
    """k ≥ m + 2 (a second route beside the direct ray): the mpmath series at 30 digits (partitions with ≤ m parts:
    its truncation far below the figure) at σ_max 3 and 12."""
    for smax in (3.0, 12.0):
        row = np.r_[smax * np.geomspace(1.0, 0.3, m), np.zeros(k - m)]
        ref = float(mpmath.log(reference.hyp0f1_reference(row, k, dps=30)))
        v, e = contiguous.log_hyp0f1_contiguous(row[None], k)
        assert abs(v[0] - ref) <= e[0] + 1e-25, (smax, v[0] - ref, e[0])
        assert e[0] <= 1e-10 * max(1.0, abs(ref))


def test_rank_deficient_goal_row_against_the_holonomic_route():
    """The goal table's rank-deficient row at k = 12, σ_max = 30 (m = 6): the direct ray and this route agree within
    both figures, each at the goal."""
    row = np.r_[30.0 * np.geomspace(1.0, 0.1, 6), np.zeros(6)]
    ref, ref_err = symcheck.log_hyp0f1(row, 12, method="holonomic", return_error=True)
    v, e = contiguous.log_hyp0f1_contiguous(row[None], 12)
    assert abs(v[0] - ref) <= e[0] + ref_err
    assert max(e[0], ref_err) <= 1e-10 * abs(ref)


# σ spanning six orders: the weighted matrix B has entries ~1e40 and more there, and its 40-digit determinant
# det B = m! comes out 0 (a randomized search against the mpmath series found k = 6, σ = (5.5, 1.6e-5, …, 3.9e-8),
# 1.1 nats off with a figure of 4e-14, 2026-11-29; these two are inside the route's regime, σ_min ≥ MIN_RATIO·σ_max).
TINY_BESIDE_LARGE = [(np.array([5.5, 1e-3, 4e-4, 1.5e-4, 6e-5, 2.4e-5, 1e-5]), 7),
                     (np.array([5.5, 2e-4, 8e-5, 3e-5, 1.2e-5, 6e-6]), 6)]


def _weighted_coefficients(sig, u=1, dps=contiguous.DPS):
    """The minors of B itself, Bᵢⱼ = xᵢ(wⱼ/wᵢ)/(xᵢ − xⱼ) with the barycentric weights w (eq. (2) as printed)."""
    m = sig.shape[0]
    with mpmath.workdps(dps):
        x = [mpmath.mpf(float(s)) ** 2 / 4 for s in sig]
        w = [1 / mpmath.fprod([x[i] - x[j] for j in range(m) if j != i]) for i in range(m)]
        B = [[x[i] * (w[j] / w[i]) / (x[i] - x[j]) if i != j else
              u + x[i] * mpmath.fsum(1 / (x[i] - x[j]) for j in range(m) if j != i) for j in range(m)] for i in range(m)]
        return np.array([float(mpmath.det(mpmath.matrix([[B[i][j] for j in range(m) if not (S >> j) & 1]
                                                         for i in range(m) if not (S >> i) & 1])))
                         if S != (1 << m) - 1 else 1.0 for S in range(1 << m)])


@pytest.mark.parametrize("plant", ["honest", "weighted-both-precisions", "weighted-one-precision"])
def test_tiny_sigma_beside_large_against_the_mpmath_series(plant, monkeypatch):
    """Honest: within the figure of the mpmath series' distance. The weighted matrix at both precisions: the two
    differ, the digits double and the value still holds. Planted, the weighted matrix at one precision with no
    figure for the coefficients (the route before the fix): the figure falls below the true error."""
    contiguous._coefficients_cached.cache_clear()  # the honest minors of these rows may be cached from before
    if plant == "weighted-both-precisions":
        monkeypatch.setattr(contiguous, "sekiguchi_coefficients", _weighted_coefficients)
    elif plant == "weighted-one-precision":
        monkeypatch.setattr(contiguous, "_coefficients_cached",
                            lambda key, u: (_weighted_coefficients(np.array(key), u), np.zeros(1 << len(key))))
    held = []
    for sig, k in TINY_BESIDE_LARGE:
        ref = float(mpmath.log(reference.hyp0f1_reference(sig, k, dps=30)))
        v, e = contiguous.log_hyp0f1_contiguous(sig[None], k)
        held.append(abs(v[0] - ref) <= e[0])
    assert all(held) == (plant != "weighted-one-precision"), held


@pytest.mark.parametrize("plant", [False, True], ids=["honest", "planted-tight-estimate"])
def test_a_short_ray_at_loose_rtol_takes_the_general_estimate(plant, monkeypatch):
    """k = 3, σ = (6.23, 3.39, 0), rtol 1e-6: g's ray is a few steps set by the step growth limit, the fine and coarse
    runs agree to the last bit, and the value is 2.9e-9 off the k = 3 closed form. Honest, holonomic's general estimate
    (the ray's own error estimate) covers it; planted, the tight estimate (fine − coarse) does not."""
    if plant:
        monkeypatch.setattr(holonomic, "_tight_regime", lambda *args: True)
    row = np.array([[6.234724120632815, 3.3867020420565264, 0.0]])
    ref, ref_err = (x[0] for x in closed_form.exact_value(row, 3))
    v, e = contiguous.log_hyp0f1_contiguous(row, 3, rtol=1e-6)
    assert (abs(v[0] - ref) <= e[0] + ref_err) != plant


def test_principal_minors_by_the_recursion_are_the_determinants():
    """Griffin–Tsatsomeros against mpmath's determinant of each principal submatrix: random 6 × 6 at 40 digits, and a
    zero pivot at every level (the determinants' fallback); a wrong Schur complement (A[i][0]·A[0][j] dropped) fails."""
    rng = np.random.default_rng(7)
    zero_pivots = np.array([[0.0, 2, 1, 3], [3, 0, 4, 1], [1, 5, 0, 2], [2, 1, 3, 0]])
    with mpmath.workdps(40):
        for a in (rng.normal(size=(6, 6)), zero_pivots):
            A = [[mpmath.mpf(float(v)) for v in row] for row in a]
            minors = contiguous._principal_minors(A)
            for R in range(1 << len(A)):
                rows = [i for i in range(len(A)) if (R >> i) & 1]
                det = mpmath.det(mpmath.matrix([[A[i][j] for j in rows] for i in rows])) if rows else 1
                assert abs(minors[R] - det) <= mpmath.mpf(10) ** -35 * max(1, abs(det)), (R, minors[R], det)
        A = [[mpmath.mpf(float(v)) for v in row] for row in rng.normal(size=(4, 4))]
        wrong = [A[0][0] * v for v in contiguous._principal_minors([row[1:] for row in A[1:]])]
        right = contiguous._principal_minors(A)
        assert any(abs(w - right[(R << 1) | 1]) > 1e-10 for R, w in enumerate(wrong))
