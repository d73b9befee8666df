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

from symcheck.hyp0f1 import closed_form, confluent, holonomic, tie_expansion
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
    """κ₂ … κ₄ (and κ₅ where the system holds degree 5) of eq. (1) at the tie from the confluent system's moments (series
    state at s = 1: Σσ ≤ ŝ), and the sums of |terms| of E Xʲ (their rounding scale)."""
    means, sizes, labels, _, _ = tie_expansion.split(sig0, confluent.GAP)
    sy = confluent.confluent_system(tuple(sizes))
    ray = confluent.Ray(sy, means, k, confluent.MAX_EVALS)
    assert ray.total <= confluent._start(len(sig0), len(sig0) == k)  # the series alone: no ray error
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
    return order, kappa, scale


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
    got, kappa, scale = _cumulants_float(sig0, d, 4)
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
        _, kappa, scale = _cumulants_float(sig0, d, 4)
    ref = _cumulants_mp(sig0, d)
    assert abs(kappa[5] - ref[5]) > 1e3 * _EPS * (scale[5] + 10.0 * abs(kappa[2]) * scale[3])


def _along(sig0, d, theta):
    """{j: κⱼ(θ)} (j = 2 … 6) of log F(σ⁰ + θd) by mpmath's differentiation of the k = 4 series at 60 digits."""
    with mpmath.workdps(60):
        f = lambda t: so4_series_mp([mpmath.mpf(float(a)) + t * mpmath.mpf(float(b)) for a, b in zip(sig0, d)])
        return {j: float(mpmath.diff(f, mpmath.mpf(theta), j)) for j in range(2, 7)}


#: Segments for the lemma (3) (any σ⁰ and d: the bounds do not need a tie): the variance and fourth moment grow along
#: the first (by 5 % and 9 % at θ = 1), and the second is the concentrated large-σ case where W is the gain.
SEGMENTS = [((8.0, 8.0, 3.0, 3.0), (0.5, -0.5, 0.3, -0.3)), ((20.0, 20.0, 20.0, 20.0), (0.3, -0.1, -0.15, -0.05))]


@pytest.mark.parametrize("sig0, d", SEGMENTS, ids=["growing", "concentrated"])
def test_moment_bounds_and_remainders_hold_along_the_segment(sig0, d):
    """(3): μ₂(θ) ≤ V, μ₄(θ) ≤ W and |κ₄|, |κ₅|, |κ₆| within their bounds at θ = ¼ … 1, from the exact μ₂(0), μ₄(0); and
    the Taylor remainder of (1) at n = 4, 5, 6 within :func:`tie_expansion.remainder`. Exact: mpmath derivatives of the
    k = 4 series (60 digits; far below the 1e-12 relative slack allowed for the float64 bound arithmetic)."""
    l1 = sum(abs(x) for x in d)
    ell = 2.0 * l1
    c0 = _along(sig0, d, 0.0)
    var, fourth = tie_expansion.moment_bounds(l1, c0[2], c0[4] + 3.0 * c0[2] ** 2)
    slack = 1.0 + 1e-12
    for theta in (0.25, 0.5, 0.75, 1.0):
        c = _along(sig0, d, theta)
        assert c[2] <= var * slack
        assert c[4] + 3.0 * c[2] ** 2 <= fourth * slack
        assert abs(c[4]) <= max(fourth, 3.0 * var**2) * slack
        assert abs(c[5]) <= (ell * fourth + 10.0 * var**1.5 * math.sqrt(fourth)) * slack
        assert abs(c[6]) <= max(ell**2 * fourth + 30.0 * var**3, 25.0 * var * fourth) * slack
    with mpmath.workdps(60):
        f = lambda t: so4_series_mp([mpmath.mpf(float(a)) + t * mpmath.mpf(float(b)) for a, b in zip(sig0, d)])
        rest = f(1) - f(0) - mpmath.diff(f, 0, 1) - c0[2] / 2 - c0[3] / 6  # the remainder at n = 4
        for n in (4, 5, 6):
            assert abs(float(rest)) <= tie_expansion.remainder(l1, n, var, fourth, c0[5]) * slack
            rest -= c0[n] / math.factorial(n)


def test_bounds_without_growth_along_the_segment_would_be_false():
    """Plant: V = μ₂(0) and W = μ₄(0) (no Grönwall growth) — on the growing segment μ₂ and μ₄ exceed them at θ = 1,
    so the growth terms of (3) are needed, and a check of the bounds at θ = 1 would catch their loss."""
    sig0, d = SEGMENTS[0]
    c0, c1 = _along(sig0, d, 0.0), _along(sig0, d, 1.0)
    assert c1[2] > c0[2] * (1.0 + 1e-6)
    assert c1[4] + 3.0 * c1[2] ** 2 > (c0[4] + 3.0 * c0[2] ** 2) * (1.0 + 1e-6)


def test_a_wrong_multinomial_factor_is_caught():
    """Plant: eq. (2) without the 1/∏λ! of the multinomial coefficient."""
    sig0, d = TIE_POINTS[0]
    right = tie_expansion.monomial_sum
    with mock.patch.object(tie_expansion, "monomial_sum",
                           lambda x, lam: right(x, lam) * math.prod(math.factorial(a) for a in lam)):
        _, kappa, scale = _cumulants_float(sig0, d, 4)
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
    assert order == 6
    x = sample @ d
    for j in (2, 3, 4, 5):
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
