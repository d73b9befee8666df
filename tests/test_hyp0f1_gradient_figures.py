"""Gradient error figures on rows where a randomized search (2026-11-29) found them below the true error, against
references that share no code with the routes: k = 2 in mpmath Bessel functions, ∂ log F/∂σ₂ =
[I₁(a + b) − I₁(a − b)] / [I₀(a + b) + I₀(a − b)] (and + for σ₁), and equal spectra by mpmath differentiation of
the Bessel-determinant closed form. Each test plants the defect that was fixed and sees a figure fail."""
import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import asymptotic, closed_form, formal
from symcheck.hyp0f1.api import grad_log_hyp0f1
from symcheck.hyp0f1.closed_form_mp import equal_spectrum_dps, equal_spectrum_mp


def _k2_gradient(a: float, b: float) -> np.ndarray:
    with mpmath.workdps(40):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        den = mpmath.besseli(0, a + b) + mpmath.besseli(0, a - b)
        return np.array([float((mpmath.besseli(1, a + b) + mpmath.besseli(1, a - b)) / den),
                         float((mpmath.besseli(1, a + b) - mpmath.besseli(1, a - b)) / den)])


def _equal_gradient(s: float, k: int) -> np.ndarray:
    with mpmath.workdps(equal_spectrum_dps(s, k, 30)):
        d = mpmath.diff(lambda t: mpmath.log(equal_spectrum_mp(t, k)), mpmath.mpf(s))
    return np.full(k, float(d) / k)


def _held(rows, method, **options) -> list:
    out = []
    for sig, ref in rows:
        g, e = grad_log_hyp0f1(np.array(sig), len(sig), method=method, return_error=True, **options)
        out.append(bool(np.max(np.abs(g - ref)) <= e))
    return out


def _one_sided_fd(flat, k, fn):
    """The central differences as they were: the lower point clamped at 0 (one-sided at σᵢ = 0)."""
    idx = np.arange(k)
    h = asymptotic._fd_steps(flat)
    up = np.repeat(flat[:, None, :], k, axis=1)
    dn = up.copy()
    up[:, idx, idx] += h
    dn[:, idx, idx] = np.maximum(dn[:, idx, idx] - h, 0.0)
    both = fn(np.concatenate([up, dn], axis=1).reshape(-1, k)).reshape(flat.shape[0], 2 * k)
    return (both[:, :k] - both[:, k:]) / (up[:, idx, idx] - dn[:, idx, idx])


@pytest.mark.parametrize("plant", [False, True], ids=["honest", "planted-one-sided-difference"])
def test_asymptotic_gradient_at_a_zero_sigma(plant, monkeypatch):
    """∂/∂σ₂ = 0 at σ₂ = 0 (F is even in σ₂): the mirrored central difference gives it; the one-sided one gave 4.9e-6
    against a figure of 2.6e-8 (k = 2, σ = (93.7, 0), order 2)."""
    if plant:
        monkeypatch.setattr(asymptotic, "_fd_gradient", _one_sided_fd)
    rows = [([93.72157022407347, 0.0], _k2_gradient(93.72157022407347, 0.0)),
            ([300.0, 0.0], _k2_gradient(300.0, 0.0))]
    held = _held(rows, "asymptotic", order=2) + _held(rows, "asymptotic", order=3)
    assert all(held) != plant, held


def _old_grad_k2(s1, s2):
    """The k = 2 gradient as it was: e^{|d| − p} from the rounded p = σ₁ + σ₂ and d = σ₁ − σ₂."""
    from scipy import special
    p, d = s1 + s2, s1 - s2
    w = np.exp(np.abs(d) - p)
    den = special.i0e(p) + special.i0e(d) * w
    i1p, i1d = special.i1e(p), special.i1e(d) * w
    return np.stack([(i1p + i1d) / den, (i1p - i1d) / den], axis=-1)


K2_LARGE = [(2247.975761477243, 0.2247975761477243), (4381.076470077285, 0.43810764700772853),
            (6618.970063444376, 0.006618970063444376), (6618.970063444376, 0.6618970063444376)]


@pytest.mark.parametrize("plant", [False, True], ids=["honest", "planted-rounded-exponent"])
def test_k2_closed_form_gradient_at_large_sigma(plant, monkeypatch):
    """σ₁ ≥ 2000, σ₂ ≤ 1e-2·σ₁: the exponent −2 min σ taken exactly; from the rounded p and d it was u·σ₁ off and
    ∂/∂σ₂ 1e-13 off against a figure of 3.6e-15 (auto takes this route)."""
    if plant:
        monkeypatch.setattr(closed_form, "_grad_k2", _old_grad_k2)
    rows = [([a, b], _k2_gradient(a, b)) for a, b in K2_LARGE]
    held = _held(rows, "exact") + _held(rows, "auto")
    assert all(held) != plant, held


@pytest.mark.parametrize("plant", [False, True], ids=["honest", "planted-no-leading-term-rounding"])
def test_formal_gradient_counts_the_cosets_weights(plant, monkeypatch):
    """k = 2, σ₁ ≥ 2700: the leading terms' rounding moves the two cosets' weights, and the gradient with them
    (1.6e-13 against a figure of 9e-16 at σ = (1e4, 1)); planted, their rounding bound set to 0."""
    if plant:
        honest = formal._leading_terms

        def no_rounding(srt, k):
            parts = honest(srt, k)
            parts["round_lead"] = np.zeros_like(parts["round_lead"])
            return parts
        monkeypatch.setattr(formal, "_leading_terms", no_rounding)
    rows = [([a, b], _k2_gradient(a, b)) for a, b in [(1e4, 1.0), (6618.970063444376, 0.6618970063444376),
                                                     (2759.6265926668025, 0.2759626592666803)]]
    held = _held(rows, "formal")
    assert all(held) != plant, held


@pytest.mark.parametrize("plant", [False, True], ids=["honest", "planted-no-remainder-floor"])
def test_asymptotic_low_order_gradient_at_the_edge_of_its_regime(plant, monkeypatch):
    """Equal spectra σ ≈ 1.7–2, k = 2, 3, order 0: the next order's gradient agrees with this one (|g₁ − g₀| = 0.004)
    where both are 0.12 off; the floor p·(value figure)/min σ covers it. Planted: the value figure 0 (no floor)."""
    if plant:
        honest = asymptotic.log_hyp0f1_asymptotic

        def no_figure(flat, k, order, return_error=False):
            v, e = honest(flat, k, order, return_error=True)
            return (v, np.zeros_like(e)) if return_error else v
        monkeypatch.setattr(asymptotic, "log_hyp0f1_asymptotic", no_figure)
    rows = [([1.7237267264411928] * 2, _equal_gradient(1.7237267264411928, 2)),
            ([1.9602528691377474] * 3, _equal_gradient(1.9602528691377474, 3))]
    held = _held(rows, "asymptotic", order=0)
    assert all(held) != plant, held
