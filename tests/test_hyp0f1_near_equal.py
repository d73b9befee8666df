"""The near-equal route (symcheck/hyp0f1/near_equal.py): the equal-spectrum closed form at the mean σ and a
proven band ‖d‖₁²/4 around it.

Expected values come from routes that share nothing with it (no Weyl formula, no float64 kernel): the
mpmath zonal series (:func:`symcheck.hyp0f1.reference.hyp0f1_reference`, k = 5, 6, 8 at small σ), the
60-digit SO(4) series (:func:`symcheck.hyp0f1.reference_data.so4_series_mp`, k = 4 up to σ = 3000) and
mpmath's Bessel closed form (k = 2). The perturbations d are dyadic with Σdᵢ = 0 exactly, so σ = s𝟙 + d
is exact in float64 and the band (1) of the module docstring is checked as stated.
"""

from __future__ import annotations

import functools
import warnings

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import methods, near_equal, weyl
from symcheck.hyp0f1.api import Hyp0f1AccuracyWarning, grad_log_hyp0f1, log_hyp0f1
from symcheck.hyp0f1.closed_form_mp import closed_form_mp
from symcheck.hyp0f1.reference import hyp0f1_reference
from symcheck.hyp0f1.reference_data import so4_series_mp


def _pattern(k: int) -> np.ndarray:
    """A zero-sum direction with small integer entries (exact in float64 times any power of 2)."""
    p = np.zeros(k)
    p[:2] = (1.0, -1.0)
    if k >= 4:
        p[2:4] = (2.0, -2.0)
    if k >= 6:
        p[4:6] = (-3.0, 3.0)
    return p


def _mp_log(sig: np.ndarray, k: int):
    """An independent mpmath value of log ₀F₁ at σ (mpf)."""
    if k == 2:
        with mpmath.workdps(40):
            return mpmath.log(closed_form_mp(sig, 2))
    if k == 4:
        with mpmath.workdps(60):
            return so4_series_mp(sig)
    return mpmath.log(hyp0f1_reference(sig, k, dps=30))


#: (k, mean s, step ε): σ = s𝟙 + ε·pattern; ε a power of 2 (a tight band and a wide one).
CASES = ([(2, s, e) for s in (1.0, 30.0, 1000.0) for e in (2.0**-20, 2.0**-6)]
         + [(4, s, e) for s in (0.5, 30.0, 300.0, 3000.0) for e in (2.0**-20, 2.0**-5)]
         + [(5, 1.0, 2.0**-20), (5, 3.0, 2.0**-7), (6, 2.0, 2.0**-20), (6, 2.0, 2.0**-6), (8, 1.0, 2.0**-8)])


@functools.lru_cache(maxsize=None)
def _reference(k: int, s: float, eps: float):
    """(σ, log F(σ), log F(s𝟙)) in mpmath."""
    sig = s + eps * _pattern(k)
    assert np.sum(sig - s) == 0.0 and np.all(sig - s == eps * _pattern(k))  # exact in float64
    return sig, _mp_log(sig, k), _mp_log(np.full(k, s), k)


@pytest.mark.parametrize("k,s,eps", CASES)
def test_the_band_holds_on_independent_references(k, s, eps):
    """log F(s𝟙) ≤ log F(s𝟙 + d) ≤ log F(s𝟙) + ½‖d‖₁² (convexity; Popoviciu's bound on the curvature)."""
    sig, at_sig, at_mean = _reference(k, s, eps)
    l1 = float(np.abs(sig - s).sum())
    rise = float(at_sig - at_mean)
    assert -1e-25 * max(1.0, abs(float(at_mean))) <= rise <= 0.5 * l1 * l1


@pytest.mark.parametrize("k,s,eps", CASES)
def test_value_and_figure_against_independent_references(k, s, eps):
    sig, at_sig, _ = _reference(k, s, eps)
    value, err = near_equal.log_hyp0f1_near_equal(sig[None], k)
    assert abs(value[0] - float(at_sig)) <= err[0]
    # the figure is the band's half-width plus allowances of the closed form's size, no more
    _, weyl_err = weyl.log_hyp0f1_equal(np.full((1, k), s), k)
    assert err[0] <= near_equal.band(sig[None])[0] * (1 + 1e-12) + 2 * weyl_err[0] + 1e-14 * (1 + abs(value[0]))


GRAD_CASES = [(2, 30.0, 2.0**-6), (2, 1000.0, 2.0**-20), (4, 0.5, 2.0**-5), (4, 300.0, 2.0**-5), (4, 3000.0, 2.0**-20)]


@functools.lru_cache(maxsize=None)
def _grad_reference(k: int, s: float, eps: float) -> np.ndarray:
    """∂ log F/∂σᵢ: mpmath's derivative of the k = 2 Bessel form, or central differences (step 1e-25,
    60 digits) of the 60-digit SO(4) series for k = 4."""
    sig = s + eps * _pattern(k)
    if k == 2:
        with mpmath.workdps(40):
            f = lambda x, y: mpmath.log((mpmath.besseli(0, x + y) + mpmath.besseli(0, x - y)) / 2)  # noqa: E731
            return np.array([float(mpmath.diff(f, tuple(sig), (1, 0))), float(mpmath.diff(f, tuple(sig), (0, 1)))])
    out = np.empty(k)
    with mpmath.workdps(60):
        h = mpmath.mpf(10) ** -25
        base = [mpmath.mpf(float(x)) for x in sig]
        for i in range(k):
            up = so4_series_mp([x + h * (j == i) for j, x in enumerate(base)])
            down = so4_series_mp([x - h * (j == i) for j, x in enumerate(base)])
            out[i] = float((up - down) / (2 * h))
    return out


def _grad_violations() -> list[str]:
    bad = []
    for k, s, eps in GRAD_CASES:
        sig = s + eps * _pattern(k)
        _, _, grad, gerr = near_equal.log_hyp0f1_near_equal(sig[None], k, want_grad=True)
        true = float(np.max(np.abs(grad[0] - _grad_reference(k, s, eps))))
        if not true <= gerr[0]:
            bad.append(f"k={k} s={s} eps={eps}: true {true:.3g} > figure {gerr[0]:.3g}")
    return bad


def _value_violations() -> list[str]:
    bad = []
    for k, s, eps in CASES:
        sig, at_sig, _ = _reference(k, s, eps)
        value, err = near_equal.log_hyp0f1_near_equal(sig[None], k)
        true = abs(value[0] - float(at_sig))
        if not true <= err[0]:
            bad.append(f"k={k} s={s} eps={eps}: true {true:.3g} > figure {err[0]:.3g}")
    return bad


def test_gradient_figures_hold_on_independent_references():
    assert not _grad_violations()


def _planted_split(scale_l1: float = 1.0, base=None):
    """near_equal._split with a planted defect: ‖d‖₁ scaled (0: the band forgotten), or the base point
    moved to ``base(row)`` with the first-order term it leaves not counted."""
    real = near_equal._split

    def split(flat):
        s, d, l1, first = real(flat)
        if base is not None:
            s = np.array([base(row) for row in flat])
            d = flat - s[:, None]
            return s, d, np.abs(d).sum(axis=1) * scale_l1, np.zeros_like(first)
        return s, d, l1 * scale_l1, first
    return split


def test_planted_band_forgotten_fails(monkeypatch):
    """Without the band (the closed form at the mean taken as the value, its own figure as the error) the
    value and gradient figures fall below the true error."""
    monkeypatch.setattr(near_equal, "_split", _planted_split(scale_l1=0.0))
    assert _value_violations()
    assert _grad_violations()


def test_planted_base_at_the_largest_sigma_fails(monkeypatch):
    """Expanding about σ_max instead of the mean leaves a first-order term g·Σdᵢ that the band does not
    cover; uncounted, the figures fall below the true error."""
    monkeypatch.setattr(near_equal, "_split", _planted_split(base=np.max))
    assert _value_violations()


def _first_order_only(monkeypatch):
    """The second-order expansion (module docstring (2)–(3)) switched off: every row takes the band (1)."""
    monkeypatch.setattr(near_equal, "curvature", lambda s, k: (np.zeros(np.shape(s)), np.full(np.shape(s), np.inf)))


def test_planted_band_too_narrow_fails(monkeypatch):
    """A band 4k² times too narrow (the Haar variance 1/k of Tᵢᵢ used as if it bounded the curvature at
    every σ, and ℓ₂ for ℓ₁) is caught at small σ, where the true rise is |d|²/(2k)."""
    _first_order_only(monkeypatch)
    monkeypatch.setattr(near_equal, "_split", lambda flat: _shrunk(flat))
    assert _value_violations()


def _shrunk(flat):
    s = flat.mean(axis=1)
    d = flat - s[:, None]
    k = flat.shape[1]
    return s, d, np.sqrt((d * d).sum(axis=1) / (4.0 * k * k)), np.zeros(flat.shape[0])


def test_outside_the_closed_form_range_it_refuses():
    k = 5
    with pytest.raises(ValueError, match="sigma: .*means up to"):
        near_equal.log_hyp0f1_near_equal(np.full((1, k), 2 * weyl.MAX_S), k)
    with pytest.raises(ValueError, match="near-equal route"):
        log_hyp0f1(np.full(k, 2 * weyl.MAX_S), k, method="near-equal")


def test_an_equal_row_is_the_closed_form():
    for k, s in [(5, 3.0), (20, 100.0)]:
        flat = np.full((1, k), s)
        v, e = near_equal.log_hyp0f1_near_equal(flat, k)
        w, f = weyl.log_hyp0f1_equal(flat, k)
        assert v[0] == w[0] and f[0] <= e[0] <= f[0] + 1e-15 * (1 + abs(v[0]))


@pytest.mark.parametrize("k,s", [(6, 30.0), (8, 100.0), (20, 10.0)])
def test_auto_takes_it_for_nearly_equal_rows(k, s):
    """Where the band is narrow auto answers from it, meets its goal and says so (before this route: k = 6,
    σ ≈ 30, relative spread 1e-7 came back with a figure of 148 nats; its time is benchmarked in asv)."""
    sig = s * (1.0 + 2.0**-24 * _pattern(k))
    with warnings.catch_warnings():
        warnings.simplefilter("error", Hyp0f1AccuracyWarning)
        value, err, info = log_hyp0f1(sig, k, return_error=True, return_info=True)
    assert info.method == "near-equal"
    assert err <= methods.AUTO_RTOL * max(1.0, abs(float(value)))
    g, gerr = grad_log_hyp0f1(sig, k, method="near-equal", return_error=True)
    assert np.all(np.isfinite(g)) and gerr <= 1e-4 * s



def _small_sigma_answer(k, s):
    """auto at σ = s(1 − 3e-4)^i: (figure / |log ₀F₁|, method), after checking the figure holds against the
    mpmath reference (k = 4: the SO(4) series; else Muirhead's monomial recursion)."""
    sig = s * (1 - 3e-4) ** np.arange(k)
    with mpmath.workdps(40):
        exact = float(so4_series_mp(sig) if k == 4 else mpmath.log(hyp0f1_reference(sig, k)))
    value, err, info = log_hyp0f1(sig, k, return_error=True, return_info=True)
    assert abs(float(value) - exact) <= err
    return float(err) / abs(exact), str(info.method)


@pytest.mark.parametrize("k,s", [(4, 0.0108), (4, 0.3), (6, 0.05)])
def test_auto_leaves_small_sigma_to_the_series(k, s):
    """Where the series needs a low degree (≤ methods.NEAR_EQUAL_SERIES_DEGREE), auto answers from it, not from
    the band: the band is absolute (‖d‖₁²/4 plus the closed form's rounding), the series bounds the error
    relative to ₀F₁, which matters where log ₀F₁ is small: its figure is within 1e-8 of |log ₀F₁| here."""
    relative, method = _small_sigma_answer(k, s)
    assert method == "series" and relative <= 1e-8


def test_planted_band_at_small_sigma_is_poor_relative_to_log_f(monkeypatch):
    """With the series never preferred, auto answers k = 4, σ ≈ 0.0108 from the band: 4.2e-11 against
    log ₀F₁ = 5.8e-5, 7e-7 relative (measured 2026-11-27)."""
    _first_order_only(monkeypatch)
    monkeypatch.setattr(methods, "NEAR_EQUAL_SERIES_DEGREE", -1)
    relative, method = _small_sigma_answer(4, 0.0108)
    assert method == "near-equal" and relative > 1e-8


# --- second order (module docstring (2)–(3)) ------------------------------------------------------------------

@pytest.mark.parametrize("k,s", [(2, 0.01), (2, 1.0), (2, 5.0), (4, 0.5), (4, 3.0), (4, 30.0), (4, 300.0)])
def test_curvature_against_independent_second_derivatives(k, s):
    """c = ∂ᵢ² log F − ∂ᵢ∂ⱼ log F at s𝟙 from Muirhead's equation at the tie and Weyl's G, G': against ½/F for
    k = 2 (F = [I₀(2s) + 1]/2: Fᵢᵢ − Fᵢⱼ = I₀''(0) = ½) and, for k = 4, the second difference of the 60-digit
    SO(4) series along (1, −1, 0, 0) (step 1e-20), within its error estimate."""
    c, dc = near_equal.curvature(np.array([s]), k)
    with mpmath.workdps(60):
        if k == 2:
            exact = 0.5 / ((mpmath.besseli(0, 2 * s) + 1) / 2)
        else:
            h = mpmath.mpf(10) ** -20
            base = [mpmath.mpf(s)] * 4
            up, down = [s + h, s - h, s, s], [s - h, s + h, s, s]
            exact = (so4_series_mp(up) + so4_series_mp(down) - 2 * so4_series_mp(base)) / (2 * h * h)
    assert abs(c[0] - float(exact)) <= dc[0]
    assert dc[0] <= 1e-6  # a useful estimate (c lies in [0, 2]), not a vacuous one


def test_second_order_narrows_the_figure_where_the_law_is_concentrated():
    """At large s the band (1) is ‖d‖₁²/4 while the second-order figure is the cubic remainder: k = 4, s = 300
    and 3000, ε = 2⁻⁵ (band 8.8e-3); the figure holds and is far below the band."""
    for s in (300.0, 3000.0):
        sig, at_sig, _ = _reference(4, s, 2.0**-5)
        value, err = near_equal.log_hyp0f1_near_equal(sig[None], 4)
        assert abs(value[0] - float(at_sig)) <= err[0] < 1e-3 * near_equal.band(sig[None])[0]


def test_planted_wrong_curvature_fails(monkeypatch):
    """Muirhead's equation at the tie with the sign of its first-derivative term flipped (−F₁/(2s) read as
    +F₁/(2s): c off by ~(k − 1)G/(k(k + 2)s)): the value figures fall below the true error."""
    real = near_equal.curvature

    def wrong(s, k):
        c, dc = real(s, k)
        G = k * near_equal.weyl.log_hyp0f1_equal(np.repeat(np.asarray(s, float)[:, None], k, axis=1), k,
                                                 want_grad=True)[2][:, 0]
        shift = np.where(np.asarray(s) > 0, 2.0 * (k - 1) * G / (k * np.maximum(s, 1e-300)), 0.0) / (k + 2)
        return np.clip(c + k * shift / (k - 1), 0.0, 2.0), dc

    monkeypatch.setattr(near_equal, "curvature", wrong)
    assert _value_violations()


def test_planted_second_order_term_dropped_fails(monkeypatch):
    """The second-order value with the term ½c‖d‖₂² dropped (the band's centre moved to L): caught."""
    monkeypatch.setattr(near_equal, "curvature", lambda s, k: (np.zeros(np.shape(s)), np.zeros(np.shape(s))))
    assert _value_violations()

