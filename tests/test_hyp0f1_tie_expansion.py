"""Near ties: the confluent route's Taylor expansion about the clusters' means (symcheck.hyp0f1.tie_expansion).

References it does not use: the k = 3 quadrature and the k = 4 series (``closed_form``), the k = 4 series in mpmath
differentiated along d (the cumulants κⱼ of eq. (1) exactly), the holonomic route (a 2^m system with the values
spread), and for eq. (2) alone a sample average. Every returned figure must cover the difference from the reference
plus the reference's figure; planted defects (a term dropped, a wrong multinomial factor, the gradient's slope
dropped) must be caught by the same checks.
"""

from __future__ import annotations

import math
from unittest import mock

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import closed_form, confluent, holonomic, reference, tie_expansion
from symcheck.hyp0f1.api import log_hyp0f1
from symcheck.hyp0f1.methods import AUTO_RTOL
from symcheck.hyp0f1.reference_data import so4_series_mp
from symcheck.report.sections.hyp0f1_goal import _shapes

_EPS = np.finfo(float).eps

#: Near ties with closed forms: clusters of two, three (p = 3: the κ₃ and κ₄ terms) and four (the κ₅ term, the κ₆
#: bound), unevenly spaced (p₃(d) ≠ 0), gaps from 1e-4 to 0.8 %, σ from 2 to 40.
CLOSED = [([10.0, 10.0 * (1 - 1e-4)], 2), ([10.0, 9.99, 3.0], 3), ([3.0, 2.99, 2.96], 3),
          ([10.0, 9.99, 3.3, 3.3 * (1 - 1e-3)], 4), ([30.0, 29.85, 10.0, 9.95], 4), ([5.0, 4.99, 4.96, 1.0], 4),
          ([40.0, 39.8, 39.7, 2.0], 4), ([2.0, 1.999, 1.99, 1.985], 4), ([30.0, 29.8, 29.6, 29.45], 4),
          ([6.0, 5.95, 5.92, 5.9], 4)]


@pytest.mark.parametrize("sig, k", CLOSED, ids=[f"k{k}-{i}" for i, (_, k) in enumerate(CLOSED)])
def test_near_ties_against_the_closed_forms(sig, k):
    sig = np.array([sig])
    ref, ref_err = closed_form.exact_value(sig, k)
    value, error = confluent.log_hyp0f1_confluent(sig, k)
    assert abs(value[0] - ref[0]) <= error[0] + ref_err[0]
    gref, gref_err = closed_form.exact_gradient(sig, k)
    grad, gerr = confluent.grad_log_hyp0f1_confluent(sig, k)
    assert np.max(np.abs(grad - gref)) <= gerr[0] + gref_err[0]


def test_a_dropped_second_order_term_is_caught():
    """Plant: the correction without κ₂/2 (the first-order band's whole content) must leave the figure."""
    sig, k = np.array([[30.0, 29.85, 10.0, 9.95]]), 4
    ref, ref_err = closed_form.exact_value(sig, k)
    right = tie_expansion.correction
    with mock.patch.object(tie_expansion, "correction", lambda mom: right(mom) - mom.get(2, 0.0) / 2):
        value, error = confluent.log_hyp0f1_confluent(sig, k)
    assert abs(value[0] - ref[0]) > error[0] + ref_err[0]


def test_a_dropped_gradient_slope_is_caught():
    """Plant: the gradient at the clusters' means alone (α_c = 0) must leave the gradient's figure."""
    sig, k = np.array([[30.0, 29.85, 10.0, 9.95]]), 4
    gref, gref_err = closed_form.exact_gradient(sig, k)
    finish = confluent.Ray.finish

    def flat_slope(self, z, log_scale):
        v, g, alpha, half, mom = finish(self, z, log_scale)
        return v, g, np.zeros_like(alpha), half, mom

    with mock.patch.object(confluent.Ray, "finish", flat_slope):
        grad, gerr = confluent.grad_log_hyp0f1_confluent(sig, k)
    assert np.max(np.abs(grad - gref)) > gerr[0] + gref_err[0]


def test_a_dropped_second_order_gradient_term_is_caught():
    """Plant: the gradient without κ(tᵢ, X, X)/2 of eq. (4) must leave the gradient's (second-order) figure (here
    3.2e-8; dropped, the error is 5e-7)."""
    sig, k = np.array([[3.0, 2.99, 2.96]]), 3
    gref, gref_err = closed_form.exact_gradient(sig, k)
    finish = confluent.Ray.finish

    def first_order(self, z, log_scale):
        v, g, alpha, half, mom = finish(self, z, log_scale)
        return v, g, alpha, np.zeros_like(half), mom

    with mock.patch.object(confluent.Ray, "finish", first_order):
        grad, gerr = confluent.grad_log_hyp0f1_confluent(sig, k)
    assert np.max(np.abs(grad - gref)) > gerr[0] + gref_err[0]


def _cumulants_float(sig0, d, k):
    """κ₂ … κ₄ (and κ₅, κ₆ where the system holds degree 5, 6) of eq. (1) at the tie from the confluent system's moments
    (series state at s = 1: Σσ ≤ ŝ), the sums of |terms| of E Xʲ (their rounding scale), and the moments E Xʲ."""
    means, sizes, labels, _, _ = tie_expansion.split(sig0, confluent.GAP)
    sy = confluent.confluent_system(tuple(sizes))
    ray = confluent.Ray(sy, means, k, confluent.MAX_EVALS)
    assert ray.total <= confluent._start(len(sig0), len(sig0) == k, sy.nS)  # the series alone: no ray error
    order = ray.expand([d[labels == c] for c in range(len(means))])
    x = confluent.count_state(means, sizes, k, 1.0, ray.total)
    mom = ray.finish(x, 0.0)[4]
    confluent._sweep(1.0, x, sy.nU, sy.deg, ray.asm.indptr, ray.asm.indices, ray.asm.data, ray.asm.a2col,
                     ray.asm.inv, ray.asm.dstart, sy.blocks, ray.y)
    y = ray.y / ray.y[sy.nU]
    scale = {j: math.fsum(abs(c * y[i]) for i, c in t) for j, t in ray.terms.items()}
    kappa = {2: mom[2], 3: mom[3], 4: mom[4] - 3.0 * mom[2] ** 2}
    if 5 in mom:
        kappa[5] = tie_expansion.fifth_cumulant(mom)
    if 6 in mom:
        kappa[6] = tie_expansion.sixth_cumulant(mom)
    return order, kappa, scale, mom


def _cumulants_mp(sig0, d):
    """κⱼ = dʲ/dθʲ log F(σ⁰ + θd) at θ = 0 by mpmath's differentiation of the k = 4 series at 50 digits."""
    with mpmath.workdps(50):
        f = lambda t: so4_series_mp([mpmath.mpf(float(a)) + t * mpmath.mpf(float(b)) for a, b in zip(sig0, d)])
        return {j: float(mpmath.diff(f, 0, j)) for j in (2, 3, 4, 5)}


#: A cluster of three (degree-4 moments held: n = 5) and a singleton; a cluster of four (degree 5 held: n = 6); σ small
#: enough for the series start alone.
TIE_POINTS = [(np.array([2.0, 2.0, 2.0, 0.7]), np.array([0.02, -0.005, -0.015, 0.0])),
              (np.array([1.5, 1.5, 1.5, 1.5]), np.array([0.03, -0.01, -0.005, -0.015]))]


@pytest.mark.parametrize("sig0, d, order", [(*TIE_POINTS[0], 5), (*TIE_POINTS[1], 6)], ids=["3+1", "4"])
def test_cumulants_against_mpmath_derivatives(sig0, d, order):
    """κ₂ … κ₄ (κ₅ for the cluster of four) of eq. (1) from the moments of eq. (2) against the derivatives of the
    mpmath k = 4 series along d.

    Tolerance: the series state is exact to INIT_TOL = 1e-18 relative; the sweep's block solves and the sum (2)
    round at ~ε per operation on terms of size ``scale`` (Σ|terms|), over at most a few hundred operations: 1e3·ε·scale
    (plus the rounding of the products subtracted in κ₄, κ₅). The mpmath derivatives are good to far more digits."""
    got, kappa, scale, _ = _cumulants_float(sig0, d, 4)
    assert got == order and len(kappa) == order - 2
    ref = _cumulants_mp(sig0, d)
    extra = {2: 0.0, 3: 0.0, 4: 6.0 * abs(kappa[2]) * scale.get(2, 0.0),
             5: 10.0 * (abs(kappa[2]) * scale.get(3, 0.0) + abs(kappa[3]) * scale.get(2, 0.0))}
    for j in kappa:
        tol = 1e3 * _EPS * (scale[j] + extra[j])
        assert abs(kappa[j] - ref[j]) <= tol, (j, kappa[j], ref[j], tol)


def test_a_wrong_fifth_cumulant_is_caught():
    """Plant: κ₅ = E X⁵ + 10 E X³ E X² (the sign of the product term flipped) against the mpmath derivative."""
    sig0, d = TIE_POINTS[1]
    with mock.patch.object(tie_expansion, "fifth_cumulant", lambda mom: mom[5] + 10.0 * mom[3] * mom[2]):
        _, kappa, scale, _ = _cumulants_float(sig0, d, 4)
    ref = _cumulants_mp(sig0, d)
    assert abs(kappa[5] - ref[5]) > 1e3 * _EPS * (scale[5] + 10.0 * abs(kappa[2]) * scale[3])


def _cumulants_zonal_mp(sig0, d, k):
    """κⱼ (j = 2 … 6) of log F(σ⁰ + θd) at θ = 0 from mpmath's Taylor coefficients (numerical differentiation at 60
    digits) of the zonal series Σ a_λ m_λ(σ²/4) at k (:mod:`symcheck.hyp0f1.reference`'s coefficient recurrence and
    exact monomial sums, degree 30: Σσ ≤ 3 here, terms below 1e-40)."""
    degree = 30
    with mpmath.workdps(60):
        coef = reference._coefficients(k, degree)
        lams = [lam for m in range(degree + 1) for lam in coef[m]]

        def f(t):
            x = [(mpmath.mpf(float(a)) + t * mpmath.mpf(float(b))) ** 2 / 4 for a, b in zip(sig0, d)]
            mono = reference._monomials(x, lams)
            return mpmath.log(mpmath.fsum(coef[m][lam] * mono[lam] for m in range(degree + 1) for lam in coef[m]))

        taylor = mpmath.taylor(f, 0, 6)
        return {j: float(taylor[j] * mpmath.factorial(j)) for j in range(2, 7)}


#: A cluster of five at k = 5 (degree-6 moments held: n = 7, the κ₆ term and μ₆(0) in the remainder).
CLUSTER_OF_FIVE = (np.full(5, 0.6), np.array([0.02, -0.005, -0.015, 0.01, -0.01]))


def _sixth_tolerance(mom, scale):
    """1e3·ε times the terms of κ₆ = E X⁶ − 15 E X⁴ E X² − 10 (E X³)² + 30 (E X²)³ and their products' roundings."""
    m2, m3, m4 = (abs(mom[j]) for j in (2, 3, 4))
    return 1e3 * _EPS * (scale[6] + 15.0 * (m4 * scale[2] + m2 * scale[4]) + 20.0 * m3 * scale[3]
                         + 90.0 * m2 * m2 * scale[2])


def test_sixth_cumulant_against_mpmath_derivatives():
    """κ₂ … κ₆ and μ₆(0) = E X⁶ (the remainder's input) for a cluster of five at k = 5 against mpmath's derivatives of
    the zonal series along d (μ₆ = κ₆ + 15κ₄κ₂ + 10κ₃² + 15κ₂³). Tolerance as for κ₂ … κ₅ (above), for E X⁶ times the
    condition of the sweep's block solves its degree-6 moments come from (measured: 9e-13 relative, the tolerance
    4e-12)."""
    sig0, d = CLUSTER_OF_FIVE
    got, kappa, scale, mom = _cumulants_float(sig0, d, 5)
    assert got == 7 and sorted(kappa) == [2, 3, 4, 5, 6]
    ref = _cumulants_zonal_mp(sig0, d, 5)
    for j in (2, 3):
        assert abs(kappa[j] - ref[j]) <= 1e3 * _EPS * scale[j], j
    assert abs(kappa[6] - ref[6]) <= _sixth_tolerance(mom, scale)
    mu6 = ref[6] + 15.0 * ref[4] * ref[2] + 10.0 * ref[3] ** 2 + 15.0 * ref[2] ** 3
    assert abs(mom[6] - mu6) <= 1e3 * _EPS * _block_condition(5) * scale[6]


def _block_condition(p):
    """Largest condition number of the sweep's pre-inverted diagonal blocks for one cluster of p: the degree-6
    moments come out of those block solves, so their relative rounding is that times ~ε per operation."""
    sy = confluent.confluent_system((p,))
    asm = sy.assemble(np.array([1.0]), p)
    return max(np.linalg.cond(asm.inv[asm.dstart[b]:asm.dstart[b + 1]].reshape(sy.blocks[b, 1], sy.blocks[b, 1]))
               for b in range(sy.blocks.shape[0]))


def test_a_wrong_sixth_cumulant_is_caught():
    """Plant: κ₆ with + 10 (E X³)² (the sign flipped) against the mpmath derivative."""
    sig0, d = CLUSTER_OF_FIVE
    with mock.patch.object(tie_expansion, "sixth_cumulant",
                           lambda mom: mom[6] - 15.0 * mom[4] * mom[2] + 10.0 * mom[3] ** 2 + 30.0 * mom[2] ** 3):
        _, kappa, scale, mom = _cumulants_float(sig0, d, 5)
    assert abs(kappa[6] - _cumulants_zonal_mp(sig0, d, 5)[6]) > _sixth_tolerance(mom, scale)


@pytest.mark.parametrize("s", [4.0, 6.0])
def test_a_loose_cluster_of_five_against_the_mpmath_series(s):
    """k = m = 5, σ = s·0.995^i (one loose cluster: n = 7, the bound with μ₆(0)) against the mpmath zonal series (20
    digits): within the figure (measured 2026-11-29: 7e-15 off with figures 1.2e-12, 3.6e-12; the holonomic route,
    spreading the cluster, was 1.1e-9 off at s = 10 with its figure 8e-8)."""
    sig = s * 0.995 ** np.arange(5)
    ref = float(mpmath.log(reference.hyp0f1_reference(sig, 5, dps=20, max_partitions=200_000)))
    value, error = confluent.log_hyp0f1_confluent(sig[None], 5)
    assert abs(value[0] - ref) <= error[0] + 1e-15 * abs(ref)


def _along(sig0, d, theta):
    """{j: κⱼ(θ)} (j = 2 … 7) of log F(σ⁰ + θd) by mpmath's differentiation of the k = 4 series at 60 digits."""
    with mpmath.workdps(60):
        f = lambda t: so4_series_mp([mpmath.mpf(float(a)) + t * mpmath.mpf(float(b)) for a, b in zip(sig0, d)])
        return {j: float(mpmath.diff(f, mpmath.mpf(theta), j)) for j in range(2, 8)}


def _central(c):
    """Central moments μ₂, μ₄, μ₆ from the cumulants κ₂ … κ₆ (μ₄ = κ₄ + 3κ₂², μ₆ = κ₆ + 15κ₄κ₂ + 10κ₃² + 15κ₂³)."""
    return (c[2], c[4] + 3.0 * c[2] ** 2, c[6] + 15.0 * c[4] * c[2] + 10.0 * c[3] ** 2 + 15.0 * c[2] ** 3)


#: Segments for the lemma (3) (any σ⁰ and d: the bounds do not need a tie): the variance and fourth moment grow along
#: the first (by 5 % and 9 % at θ = 1), and the second is the concentrated large-σ case where W is the gain.
SEGMENTS = [((8.0, 8.0, 3.0, 3.0), (0.5, -0.5, 0.3, -0.3)), ((20.0, 20.0, 20.0, 20.0), (0.3, -0.1, -0.15, -0.05))]


@pytest.mark.parametrize("sig0, d", SEGMENTS, ids=["growing", "concentrated"])
def test_moment_bounds_and_remainders_hold_along_the_segment(sig0, d):
    """(3): μ₂(θ) ≤ V, μ₄(θ) ≤ W, μ₆(θ) ≤ U and |κ₄| … |κ₇| within their bounds at θ = ¼ … 1, from the exact μ₂(0),
    μ₄(0), μ₆(0) (and, second, without μ₆(0): U = ℓ²W); and the Taylor remainder of (1) at n = 4 … 7 within
    :func:`tie_expansion.remainder`. Exact: mpmath derivatives of the k = 4 series (60 digits; far below the 1e-12
    relative slack allowed for the float64 bound arithmetic)."""
    l1 = sum(abs(x) for x in d)
    ell = 2.0 * l1
    c0 = _along(sig0, d, 0.0)
    slack = 1.0 + 1e-12
    along = {theta: _along(sig0, d, theta) for theta in (0.25, 0.5, 0.75, 1.0)}
    with mpmath.workdps(60):
        f = lambda t: so4_series_mp([mpmath.mpf(float(a)) + t * mpmath.mpf(float(b)) for a, b in zip(sig0, d)])
        rest0 = f(1) - f(0) - mpmath.diff(f, 0, 1) - c0[2] / 2 - c0[3] / 6  # the remainder at n = 4
    for sixth0 in (_central(c0)[2], None):
        var, fourth, sixth = tie_expansion.moment_bounds(l1, *_central(c0)[:2], sixth0)
        mu3 = math.sqrt(var * fourth)
        mu5 = min(ell * fourth, math.sqrt(fourth * sixth))
        for c in along.values():
            m2, m4, m6 = _central(c)
            assert m2 <= var * slack and m4 <= fourth * slack and m6 <= sixth * slack
            assert abs(c[4]) <= max(fourth, 3.0 * var**2) * slack
            assert abs(c[5]) <= (mu5 + 10.0 * var * mu3) * slack
            assert abs(c[6]) <= max(sixth + 30.0 * var**3, 25.0 * var * fourth) * slack
            assert abs(c[7]) <= (ell * sixth + 21.0 * var * mu5 + 35.0 * fourth * mu3 + 210.0 * var**2 * mu3) * slack
        rest = rest0
        for n in (4, 5, 6, 7):
            assert abs(float(rest)) <= tie_expansion.remainder(l1, n, var, fourth, c0[5], sixth, c0[6]) * slack
            rest -= c0[n] / math.factorial(n)


def test_bounds_without_growth_along_the_segment_would_be_false():
    """Plant: V = μ₂(0), W = μ₄(0), U = μ₆(0) (no Grönwall growth) — on the growing segment μ₂, μ₄ and μ₆ exceed them
    at θ = 1, so the growth terms of (3) are needed, and a check of the bounds at θ = 1 would catch their loss."""
    sig0, d = SEGMENTS[0]
    m0, m1 = _central(_along(sig0, d, 0.0)), _central(_along(sig0, d, 1.0))
    assert all(b > a * (1.0 + 1e-6) for a, b in zip(m0, m1))


def test_the_sixth_moment_is_the_gain_where_the_law_is_concentrated():
    """With μ₆(0) (a cluster of five or more) the n = 7 remainder on the concentrated segment is far below the n = 6
    bound without it (the lemma's point: U ≪ ℓ²W where μ₆ ≈ 15μ₂³), and still above the true remainder (above)."""
    sig0, d = SEGMENTS[1]
    l1 = sum(abs(x) for x in d)
    c0 = _along(sig0, d, 0.0)
    var, fourth, sixth = tie_expansion.moment_bounds(l1, *_central(c0))
    var_w, fourth_w, _ = tie_expansion.moment_bounds(l1, *_central(c0)[:2])
    assert tie_expansion.remainder(l1, 7, var, fourth, c0[5], sixth, c0[6]) < \
        1e-2 * tie_expansion.remainder(l1, 6, var_w, fourth_w, c0[5])


def test_a_wrong_multinomial_factor_is_caught():
    """Plant: eq. (2) without the 1/∏λ! of the multinomial coefficient."""
    sig0, d = TIE_POINTS[0]
    right = tie_expansion.monomial_sum
    with mock.patch.object(tie_expansion, "monomial_sum",
                           lambda x, lam: right(x, lam) * math.prod(math.factorial(a) for a in lam)):
        _, kappa, scale, _ = _cumulants_float(sig0, d, 4)
    ref = _cumulants_mp(sig0, d)
    assert any(abs(kappa[j] - ref[j]) > 1e3 * _EPS * scale[j] for j in (2, 3))


def test_eq2_against_a_sample_average():
    """Eq. (2) is an identity for any law symmetric inside each cluster: check it on an empirical one (a random sample
    symmetrised over the permutations inside each cluster), where the moments M(λ) are sample averages too. Tolerance:
    both sides are sums of the same ~10⁴ products, rounded at ~ε each: 1e4·ε·Σ|products|."""
    rng = np.random.default_rng(20261129)
    sizes = (3, 2)
    base = rng.uniform(-1.0, 1.0, size=(40, 5))
    perms = [np.array(a + tuple(3 + np.array(b))) for a in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1),
                                                             (2, 1, 0)) for b in ((0, 1), (1, 0))]
    sample = np.vstack([base[:, p] for p in perms])
    d = np.array([0.3, -0.1, -0.2, 0.05, -0.05])
    groups = [d[:3], d[3:]]

    def moment(lam):
        exps = np.zeros(5)
        for c, q in enumerate(lam):
            off = 0 if c == 0 else 3
            exps[off:off + len(q)] = q
        return float(np.mean(np.prod(sample ** exps, axis=1)))

    order, terms = tie_expansion.expansion_terms(groups, lambda lam: all(len(q) <= p for q, p in zip(lam, sizes)))
    assert order == 7
    x = sample @ d
    for j in (2, 3, 4, 5, 6):
        lhs = math.fsum(c * moment(lam) for lam, c in terms[j])
        rhs = float(np.mean(x ** j))
        assert abs(lhs - rhs) <= 1e4 * _EPS * float(np.mean(np.abs(x) ** j) + sum(abs(c) for _, c in terms[j]))


NEAR = [(k, s, shape) for k in (5, 6) for s in (3.0, 10.0) for shape in ("near clusters", "loose clusters")]


@pytest.mark.parametrize("k, s, shape", NEAR, ids=[f"k{k}-s{s:g}-{sh.split()[0]}" for k, s, sh in NEAR])
def test_near_ties_against_the_holonomic_route(k, s, shape):
    """The goal table's near (1e-4) and loose (0.5 %) clusters at k = 5, 6 against the holonomic system (2^m
    unknowns, the values spread, no expansion): value and gradient within the two figures."""
    sig = _shapes(k, s)[shape][None]
    value, error = confluent.log_hyp0f1_confluent(sig, k)
    ref, ref_err = holonomic.log_hyp0f1_holonomic(sig, k)
    assert np.isfinite(ref_err[0])
    assert abs(value[0] - ref[0]) <= error[0] + ref_err[0]
    grad, gerr = confluent.grad_log_hyp0f1_confluent(sig, k)
    gref, gref_err = holonomic.grad_log_hyp0f1_holonomic(sig, k)
    assert np.max(np.abs(grad - gref)) <= gerr[0] + gref_err[0]


def test_auto_reaches_the_goal_on_near_clusters_at_k_8():
    """k = m = 8, two clusters with consecutive σ 1e-4 apart: the asymptotic expansion's 53-nat figure before this
    route (σ_max = 10); now the confluent route at the means with the expansion, within the goal."""
    sig = _shapes(8, 10.0)["near clusters"]
    value, error, info = log_hyp0f1(sig, 8, return_error=True, return_info=True)
    assert info.method[()] == "confluent"
    assert error <= AUTO_RTOL * max(1.0, abs(value))


def test_split_keeps_clusters_at_least_the_gap_apart():
    """Chaining values less than GAP apart can never leave two cluster means closer than GAP (relative)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        sig = np.sort(rng.uniform(1.0, 1.2, size=8))[::-1]
        means, sizes, labels, d, slack = tie_expansion.split(sig, confluent.GAP)
        assert sum(sizes) == 8 and slack <= 16 * 8 * _EPS * 1.2
        assert all(a - b >= confluent.GAP * a for a, b in zip(means, means[1:]))
        assert np.allclose(sig - d, np.array(means)[labels], rtol=0, atol=4 * _EPS)
