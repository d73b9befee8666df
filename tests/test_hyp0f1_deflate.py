"""``method="auto"`` on numerically rank-deficient σ, and the interval every answer lies in.

An SVD returns σ such as (1e4, 5e-13, 2e-13, 8e-31, 0); before `_deflate`, auto answered 1.3e89
(figure inf) there. The fix rests on proven facts, checked here against the k = 2 Bessel closed
form in mpmath (an independent route): zeroing σⱼ lowers log ₀F₁ by at most Σ (zeroed σⱼ) and by at
most ½Σ (zeroed σⱼ)², never raises it, and moves each gradient component by at most Σ (zeroed σⱼ);
the bounds are nearly attained (k = 2, σ₁ large: T₂₂ = ±T₁₁ ≈ ±1, variance ≈ 1), so a halved bound fails.
"""

import warnings

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import api
from symcheck.hyp0f1.closed_form_mp import closed_form_mp
from symcheck.hyp0f1.methods import AUTO_RTOL

mpmath.mp.dps = 40


def _log_f_k2(a, b):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    return mpmath.log((mpmath.besseli(0, a + b) + mpmath.besseli(0, a - b)) / 2)


def _grad2_k2(a, b):
    """∂ log ₀F₁(1; diag(a, b)²/4)/∂b from the Bessel closed form (I₀' = I₁)."""
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    return (mpmath.besseli(1, a + b) - mpmath.besseli(1, a - b)) / (mpmath.besseli(0, a + b) + mpmath.besseli(0, a - b))


@pytest.mark.parametrize("factor, holds", [(1.0, True), (0.5, False)])
def test_value_moves_by_at_most_the_zeroed_sigma(factor, holds):
    changes = [(float(_log_f_k2(40, b) - _log_f_k2(40, 0)), b) for b in (0.01, 1.0, 20.0)]
    assert all(c >= 0 for c, _ in changes)
    assert all(c <= factor * b for c, b in changes) is holds  # planted: half the bound is exceeded


@pytest.mark.parametrize("factor, holds", [(1.0, True), (0.5, False)])
def test_value_moves_by_at_most_half_the_zeroed_squares(factor, holds):
    changes = [(float(_log_f_k2(40, b) - _log_f_k2(40, 0)), b) for b in (1e-6, 1e-3, 0.1)]
    assert all(c >= 0 for c, _ in changes)
    assert all(c <= factor * 0.5 * b * b for c, b in changes) is holds  # planted: half the bound is exceeded


@pytest.mark.parametrize("factor, holds", [(1.0, True), (0.5, False)])
def test_gradient_moves_by_at_most_the_zeroed_sigma(factor, holds):
    changes = [(float(_grad2_k2(40, b) - _grad2_k2(40, 0)), b) for b in (1e-6, 0.01, 0.3)]
    assert all(c <= factor * b for c, b in changes) is holds


@pytest.mark.parametrize("sigma", [
    (1e4, 5e-13, 2e-13, 8e-31, 0.0),
    (7.0, 1e-16, 0.0),
    (250.0, 3e-15, 1e-300, 2e-14, 0.0, 0.0),
])
def test_auto_answers_near_rank_deficient_rows_within_its_figure(sigma):
    sigma = np.array(sigma)
    k = sigma.size
    value, error = api.log_hyp0f1(sigma, k, return_error=True)
    dropped = float(np.sum(sigma[1:]))
    rise = min(dropped, 0.5 * float(np.sum(sigma[1:] ** 2)))
    truth_rank_one = float(mpmath.log(closed_form_mp(np.r_[sigma[0], np.zeros(k - 1)], k)))
    # the truth lies in [rank-one value, that + rise], so the figure must cover both ends
    assert max(abs(value - truth_rank_one), abs(value - truth_rank_one - rise)) <= error
    assert error <= AUTO_RTOL * max(1.0, abs(truth_rank_one))
    grad, gerr = api.grad_log_hyp0f1(sigma, k, return_error=True)
    assert np.all(np.isfinite(grad)) and gerr >= dropped and gerr <= 1e-6


@pytest.mark.parametrize("sigma", [
    (30.0, 1e-7, 2e-7, 5e-8, 0.0, 1e-8, 3e-8, 0.0),   # rank one plus noise at 1e-7: full rank, m = 6
    (30.0, 12.0, 1e-7, 1e-7, 1e-7, 1e-7, 1e-7, 1e-7, 1e-7, 1e-7),  # rank two plus noise, k = 10
])
def test_auto_drops_noise_at_the_quadratic_cost(sigma):
    """σ of ~1e-7 beside large ones: their quadratic cost ½Σσⱼ² (~1e-14) lets auto answer from the
    rank-deficient routes within its goal. The truth lies in [L, L + ½Σσⱼ²] with L the value at the
    deflated row, from an independent mpmath route (rank one: the Bessel function; rank two: the zonal
    series in two variables at 30 digits)."""
    sigma = np.array(sigma)
    k = sigma.size
    big = np.where(sigma > 1e-3, sigma, 0.0)
    if np.count_nonzero(big) == 1:
        lower = float(mpmath.log(closed_form_mp(big, k)))
    else:
        from symcheck.hyp0f1.reference import hyp0f1_reference
        lower = float(mpmath.log(hyp0f1_reference(big, k, dps=30)))
    upper = lower + 0.5 * float(np.sum((sigma - big) ** 2))
    value, error, info = api.log_hyp0f1(sigma, k, return_error=True, return_info=True)
    assert max(abs(value - lower), abs(value - upper)) <= error
    assert error <= AUTO_RTOL * max(1.0, abs(lower))
    grad, gerr = api.grad_log_hyp0f1(sigma, k, return_error=True)
    assert gerr >= float(np.sum(sigma - big))


def test_planted_deflation_without_the_squares_rule_leaves_noise_rows_unanswered(monkeypatch):
    """Without the quadratic rule (zeroing by DEFLATE·σ_max alone) the noise row of the test above gets no
    answer within the goal: the rule is what answers it."""
    monkeypatch.setattr(api, "DEFLATE_SQUARES", 0.0)
    monkeypatch.setattr(api, "DEFLATE_WIDE_SHARE", 0.0)  # the wide retry would answer it too (tested below)
    sigma = np.array((30.0, 12.0) + (1e-7,) * 8)
    with pytest.warns(api.Hyp0f1AccuracyWarning):
        _, error = api.log_hyp0f1(sigma, 10, return_error=True)
    assert error > AUTO_RTOL * 30


def test_auto_clips_into_the_proven_interval(monkeypatch):
    """A pass that returns garbage (NaN, below 0, beyond Σσ) with an infinite figure: the answer is
    clipped into [0, Σσ] and its figure is the distance to the interval's far end, which the truth
    (the exact series, within 1e-12) never exceeds."""
    rows = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    garbage = np.array([np.nan, -5.0, 1e89])

    def bad_pass(flat, k, log=None):
        n = flat.shape[0]
        return garbage[:n].copy(), np.full(n, np.inf), np.full(n, "planted", dtype=object), np.zeros(n, int)

    monkeypatch.setattr(api, "_auto_pass", bad_pass)
    with pytest.warns(api.Hyp0f1AccuracyWarning, match="3 of 3 rows"):
        value, error, *_ = api._auto(rows, 3)
    truth = float(api.log_hyp0f1(rows[0], 3, method="series"))
    assert np.all((0 <= value) & (value <= 6.0)) and np.all(np.isfinite(error))
    assert np.all(np.abs(value - truth) <= error)
    np.testing.assert_array_equal(value, [3.0, 0.0, 6.0])



def _low_rank_reference(kept: np.ndarray, k: int) -> float:
    """log ₀F₁ at the kept σ (the others 0) by an independent mpmath route: the Bessel closed form at rank
    one, the zonal series in the non-zero variables at 30 digits otherwise."""
    if np.count_nonzero(kept) == 1:
        return float(mpmath.log(closed_form_mp(kept, k)))
    from symcheck.hyp0f1.reference import hyp0f1_reference
    return float(mpmath.log(hyp0f1_reference(kept, k, dps=30)))


#: Rows whose small σ (1e-3) are far above DEFLATE_SQUARES and that no route of auto answers as given.
WIDE_ROWS = [
    (100.0,) + (1e-3,) * 19,       # k = 20, rank one plus noise (figure 100, the trivial interval, before)
    (30.0, 12.0) + (1e-3,) * 8,    # k = 10, rank two plus noise (figure 42 before)
    (100.0, 3.0) + (1e-3,) * 18,   # k = 20: the widest gap is below 3; zeroing 3 too would cost 4.5
    (30.0, 12.0) + (0.1,) * 18,    # k = 20: figure ~0.03 (7e-4 relative); the first answer is 25 nats off
]


def _wide_answer(sigma):
    """(σ, k, kept σ, the truth's interval [lower, upper], value, figure) of auto on a WIDE_ROWS row."""
    sigma = np.array(sigma)
    k = sigma.size
    kept = np.where(sigma > 1.0, sigma, 0.0)
    lower = _low_rank_reference(kept, k)
    upper = lower + 0.5 * float(np.sum((sigma - kept) ** 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", api.Hyp0f1AccuracyWarning)
        value, error = api.log_hyp0f1(sigma, k, return_error=True)
    return sigma, k, kept, lower, upper, float(value), float(error)


@pytest.mark.parametrize("sigma", WIDE_ROWS)
def test_auto_gives_up_small_sigma_where_no_route_answers_them(sigma):
    """The truth lies in [L, L + ½Σ(zeroed σⱼ)²], L at the kept σ from mpmath: the figure covers both ends,
    and it is the interval's half-width plus the route's figure (≤ 1e-5 with 1e-3 noise, 0.03 with 0.1, where auto
    had no route before)."""
    sigma, k, kept, lower, upper, value, error = _wide_answer(sigma)
    assert max(abs(value - lower), abs(value - upper)) <= error <= 0.6 * (upper - lower) + 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", api.Hyp0f1AccuracyWarning)  # Σ zeroed σⱼ ≥ 8e-3 is above 1e-6
        grad, gerr = api.grad_log_hyp0f1(sigma, k, return_error=True)
    zeroed = float(np.sum(sigma - kept))
    assert gerr >= min(zeroed, 0.5) and np.all((0 <= grad) & (grad <= 1))  # capped by max(g, 1 − g) ≥ ½
    if np.count_nonzero(kept) == 1:  # ∂/∂σ₁ at the kept row (mpmath), and the zeroed σ move it by ≤ Σ zeroed σⱼ
        a, b = mpmath.mpf(kept[0]), mpmath.mpf(k) / 2  # d/da log ₀F₁(b; a²/4) = a/(2b)·₀F₁(b+1; ·)/₀F₁(b; ·)
        slope = float(a / (2 * b) * mpmath.hyp0f1(b + 1, a * a / 4) / mpmath.hyp0f1(b, a * a / 4))
        assert abs(grad[0] - slope) + zeroed <= gerr


def test_planted_wide_deflation_off_leaves_the_rows_unanswered(monkeypatch):
    monkeypatch.setattr(api, "DEFLATE_WIDE_SHARE", 0.0)
    *_, error = _wide_answer(WIDE_ROWS[0])
    assert error > 1.0


def test_planted_cut_at_the_whole_allowance_costs_the_kept_sigma(monkeypatch):
    """Zeroing every σⱼ the allowance admits (not cutting at the widest gap) also zeroes σ = 3 of the third
    row: its figure is then at least half the cost min(Σσⱼ, ½Σσⱼ²) ≥ min(3, 4.5), i.e. 1.5."""
    monkeypatch.setattr(api, "_wide_budget", lambda flat, allowed: allowed)
    *_, error = _wide_answer(WIDE_ROWS[2])
    assert error >= 1.5


def test_planted_figure_without_the_deflation_cost_misses_the_interval(monkeypatch):
    """With the cost of zeroing left out (value at L, figure the route's alone), the figure no longer covers the
    upper end of the interval the truth lies in."""
    deflate = api._deflate
    monkeypatch.setattr(api, "_deflate", lambda flat, squares=api.DEFLATE_SQUARES: (lambda d, c, g: (d, 0 * c, g))(
        *deflate(flat, squares)))
    _, _, _, lower, upper, value, error = _wide_answer(WIDE_ROWS[0])
    assert max(abs(value - lower), abs(value - upper)) > error


@pytest.mark.parametrize("gated", [True, False])
def test_the_wide_retry_does_not_trade_a_value_for_a_useless_figure(gated, monkeypatch):
    """k = 16, σ = 100·geomspace(1, 0.1): the asymptotic expansion is outside its regime (figure inf) but its
    value is within 0.005 of saddle-point importance sampling (4000 draws, SE 0.009, k̂ 0.30 trusted). Zeroing
    σ = 10 costs up to 10: the wide answer's figure, 5.0, would be honest and useless, and its value 2.1 off.
    auto keeps it only where its figure meets DEFLATE_WIDE_USEFUL; planted without that gate, the value leaves 4 SE."""
    if not gated:
        monkeypatch.setattr(api, "DEFLATE_WIDE_USEFUL", np.inf)
    sigma = 100.0 * np.geomspace(1.0, 0.1, 16)
    ref, se, khat = api.log_hyp0f1_mc(sigma, 16, 4000, np.random.default_rng(0), proposal="saddle", return_khat=True)
    from symcheck._mc import khat_trusted
    assert khat_trusted(khat, 4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", api.Hyp0f1AccuracyWarning)
        value = float(api.log_hyp0f1(sigma, 16))
    assert bool(abs(value - float(ref)) <= 4 * float(se)) is gated


def test_the_wide_retry_is_not_run_where_its_answer_could_not_be_kept(monkeypatch):
    """The same row: zeroing σ = 10 costs more than two nats, so the wide answer's figure (half the cost plus the
    route's) could never meet DEFLATE_WIDE_USEFUL; auto does not run that pass (one pass of its steps, not two) and
    answers as before. Planted without the gate (DEFLATE_WIDE_USEFUL = inf), the pass runs again."""
    sigma = 100.0 * np.geomspace(1.0, 0.1, 16)
    real, calls = api._auto_pass, []

    def counted(flat, k, *args, **kwargs):
        calls.append(flat.copy())
        return real(flat, k, *args, **kwargs)

    monkeypatch.setattr(api, "_auto_pass", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", api.Hyp0f1AccuracyWarning)
        api.log_hyp0f1(sigma, 16)
        assert len(calls) == 1
        monkeypatch.setattr(api, "DEFLATE_WIDE_USEFUL", np.inf)
        api.log_hyp0f1(sigma, 16)
    assert len(calls) == 3 and np.count_nonzero(calls[2][0] == 0) >= 1
