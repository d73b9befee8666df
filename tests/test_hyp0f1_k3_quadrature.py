"""The compiled k = 3 quadrature (symcheck.hyp0f1.k3_quadrature) and its error figure.

Independent routes: the Gauss–Kronrod rule against exact integrals of Legendre series (∫₋₁¹ P_j =
2δ_{j0}) and QUADPACK's published G10–K21 table (Piessens et al. 1983); the integral against the
40-digit mpmath quadrature of the same one-dimensional integral (stored table entries,
symcheck.hyp0f1.reference_data, and live 5-point finite differences of it for the gradient). Each
check has a planted defect that breaks it: a perturbed weight, a Kronrod rule replaced by its own
Gauss rule (the estimate then compares a rule with itself), a dropped substitution Jacobian, an
interval budget too small to converge.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from symcheck.hyp0f1 import closed_form, k3_quadrature
from symcheck.hyp0f1.reference_data import DPS, k3_quadrature_mp, load_reference_values

U = 0.5 * np.finfo(float).eps
N = k3_quadrature.GAUSS_POINTS


def _rule_errors(nodes, weights, degree, rng, trials=5):
    """Largest |rule − ∫| / (rounding scale) over random Legendre series of exactly ``degree``.

    ∫₋₁¹ Σ cⱼPⱼ = 2c₀ exactly; the rule's rounding is below (2d + 2n + 4)·u·Σ|cⱼ|·Σ|wᵢ| (Clenshaw's
    recurrence, |Pⱼ| ≤ 1 on [−1, 1], then the weighted sum of 2n + 1 terms), the scale used here."""
    worst = 0.0
    for _ in range(trials):
        c = rng.standard_normal(degree + 1)
        rule = weights @ np.polynomial.legendre.legval(nodes, c)
        scale = (2 * degree + 2 * N + 4) * U * np.abs(c).sum() * np.abs(weights).sum()
        worst = max(worst, abs(rule - 2 * c[0]) / scale)
    return worst


def test_rule_integrates_polynomials_to_its_degree_exactly(rng):
    nodes, wk, wg = k3_quadrature.gauss_kronrod()
    assert nodes.size == 2 * N + 1 and np.all(np.diff(nodes) > 0) and np.count_nonzero(wg) == N
    for d in range(3 * N + 2):  # Kronrod: degree ≤ 3n + 1
        assert _rule_errors(nodes, wk, d, rng) <= 1.0, d
    for d in range(2 * N):  # Gauss: degree ≤ 2n − 1
        assert _rule_errors(nodes, wg, d, rng) <= 1.0, d
    # one degree more is not exact (the check can fail): P_{3n+2}, P_{2n} integrate to 0
    assert abs(wk @ np.polynomial.legendre.legval(nodes, np.eye(3 * N + 3)[-1])) > 1e-6
    assert abs(wg @ np.polynomial.legendre.legval(nodes, np.eye(2 * N + 1)[-1])) > 1e-6


def test_rule_matches_quadpack_table():
    """QUADPACK's qk21 (Piessens et al. 1983): xgk(1), wgk(1), wg(1), wgk(11) (the centre)."""
    nodes, wk, wg = k3_quadrature.gauss_kronrod()
    table = [(nodes[-1], 0.995657163025808080735527280689003), (wk[-1], 0.011694638867371874278064396062192),
             (wg[-2], 0.066671344308688137593568809893332), (wk[N], 0.149445554002916905664936468389821)]
    for got, published in table:
        assert abs(got - published) <= 2 * U * published


def test_a_perturbed_weight_fails_the_exactness_check(rng):
    nodes, wk, _ = k3_quadrature.gauss_kronrod()
    wrong = wk.copy()
    wrong[3] *= 1 + 1e-12
    assert max(_rule_errors(nodes, wrong, d, rng) for d in range(3 * N + 2)) > 1.0


def test_rule_bad_input():
    with pytest.raises(ValueError, match="n must"):
        k3_quadrature.gauss_kronrod(0)


# ----------------------------------------------------------------------------- the integral

def _half_slopes(sig) -> tuple:
    """h of both cosets (k3_quadrature._coset): |(α+|a|) − (β+|b|)|/2."""
    lam = closed_form._L3 @ np.asarray(sig, float)
    out = []
    for l in (lam, -lam):
        top1 = (l[0] + l[1]) / 2 + abs(l[0] - l[1]) / 2
        top0 = (l[2] + l[3]) / 2 + abs(l[2] - l[3]) / 2
        out.append(abs(top1 - top0) / 2)
    return tuple(out)


def _regime(h: float) -> str:
    return "t = sin²θ" if h <= 20 else ("stretch + tail" if h <= 400 else "stretch + cut tail")


def _stored_full_rank_k3():
    """(σ, 40-digit log ₀F₁) of every stored k = 3 entry with at least two non-zero σ."""
    return [(np.array(e.sigma), e.log_hyp0f1) for e in load_reference_values().entries
            if e.k == 3 and np.count_nonzero(e.sigma) >= 2]


def _figure(value, scale):
    """closed_form.exact_value's figure for a k = 3 row."""
    return closed_form.EXACT_ULPS * U * (1 + scale) + closed_form.K3_ERROR * (1 + abs(value))


def _value_violations():
    refs = _stored_full_rank_k3()
    value, _, scale, converged = closed_form._log_k3(np.array([s for s, _ in refs]))
    bad = []
    with mpmath.workdps(DPS):
        for (sig, ref), v, sc, ok in zip(refs, value, scale, converged):
            true = abs(mpmath.mpf(float(v)) - mpmath.mpf(ref))
            if not (ok and true <= _figure(v, sc)):
                bad.append(f"σ={sig}: true {float(true):.3g} > figure {_figure(v, sc):.3g}")
    return bad


def test_stored_references_cover_every_regime():
    regimes = {_regime(h) for sig, _ in _stored_full_rank_k3() for h in _half_slopes(sig)}
    assert regimes == {"t = sin²θ", "stretch + tail", "stretch + cut tail"}


def test_values_against_the_mpmath_quadrature_within_the_figure():
    bad = _value_violations()
    assert not bad, "\n".join(bad)


def test_planted_gauss_for_kronrod_fails(monkeypatch):
    """The Gauss weights in place of the Kronrod ones: the estimate |K − G| is 0, every range stops at
    two G10 panels, and the values are off by more than the figure."""
    nodes, _, wg = k3_quadrature.gauss_kronrod()
    monkeypatch.setattr(k3_quadrature, "gauss_kronrod", lambda: (nodes, wg, wg))
    assert _value_violations()


def _grad_mp(sig):
    """∂ log ₀F₁/∂σ by the 5-point stencil on the 40-digit quadrature, steps 2^(e−20) (σ ± 2δ exact
    in float64): truncation (2^-20)⁴ ≈ 1e-24 of the scale, rounding 1e-40/1e-6."""
    out = []
    for j in range(3):
        d = math.ldexp(1.0, math.frexp(sig[j])[1] - 20)
        f = []
        for c in (-2, -1, 1, 2):
            p = sig.copy()
            p[j] += c * d
            f.append(k3_quadrature_mp(p)[0])
        with mpmath.workdps(DPS):
            out.append(float((f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * mpmath.mpf(d))))
    return np.array(out)


@pytest.mark.parametrize("sig,regime", [([1.0, 0.5, 0.2], "t = sin²θ"), ([20.0, 10.0, 5.0], "stretch + tail")])
def test_gradient_against_mpmath_within_the_figure(sig, regime):
    """The larger coset's half slope h sets the regime (h = 25 for the second row: y = u² and a tail)."""
    sig = np.array(sig)
    assert _regime(max(_half_slopes(sig))) == regime
    _, grad, _, converged = closed_form._log_k3(sig[None], want_grad=True)
    expected = _grad_mp(sig)
    assert converged[0]
    assert np.abs(grad[0] - expected).max() <= closed_form.K3_ERROR * (1 + np.abs(grad[0]).max())


def test_gradient_at_a_zero_sigma_within_the_figure():
    """∂/∂σ₃ at σ₃ = 0 is 0 (₀F₁ is even in σ₃: T ↦ T·diag(1, 1, −1) keeps Haar measure). Under the integral
    sign the derivative cancels there only to ~1e-12 at σ ~ 1e4, ten times the figure; ``exact_value`` must
    return it within the figure (found by tests/test_hyp0f1_formal.py, seed 5)."""
    sig = np.array([[9526.99104278, 6910.90863173, 0.0], [300.0, 41.0, 0.0], [3.0, 0.5, 0.0]])
    _, _, grad, gerr = closed_form.exact_value(sig, 3, want_grad=True)
    assert np.all(np.abs(grad[:, 2]) <= gerr)
    raw = closed_form._log_k3(sig, want_grad=True)[1]
    assert np.abs(raw[0, 2]) > gerr[0]  # the defect this guards against is real at the first row


def test_too_few_intervals_give_an_infinite_figure(monkeypatch):
    sig = np.array([[30.0, 20.0, 10.0]])
    value, err = closed_form.exact_value(sig, 3)
    assert np.isfinite(err[0])
    monkeypatch.setattr(k3_quadrature, "MAX_INTERVALS", 2)
    value2, err2, _, gerr2 = closed_form.exact_value(sig, 3, want_grad=True)
    assert err2[0] == np.inf and gerr2[0] == np.inf


# ----------------------------------------------------------------------------- the Python path

_ROWS = "[[1.0, 0.5, 0.2], [20.0, 10.0, 5.0], [1e3, 600.0, 20.0], [30.0, 30.0, 30.0]]"


def _run(python_output, jit, plant=""):
    code = ("import numpy as np; from symcheck.hyp0f1 import closed_form, k3_quadrature as q\n" + plant +
            f"v, g, _, ok = closed_form._log_k3(np.array({_ROWS}), want_grad=True)\n"
            "print(repr(v.tolist())); print(repr(g.tolist())); print(bool(ok.all()))\n")
    v, g, ok = python_output(code, jit).splitlines()
    return np.array(eval(v)), np.array(eval(g)), ok == "True"


def test_python_path_matches_the_compiled_one(python_output):
    """NUMBA_DISABLE_JIT=1 runs the same kernels as Python, with scipy's C Bessel functions via ctypes."""
    (v1, g1, ok1), (v0, g0, ok0) = (_run(python_output, jit) for jit in (True, False))
    assert ok1 and ok0
    assert np.all(np.abs(v1 - v0) <= closed_form.K3_ERROR * (1 + np.abs(v1)))
    assert np.all(np.abs(g1 - g0) <= closed_form.K3_ERROR * (1 + np.abs(g1)))


_DROP_STRETCH_JACOBIAN = (
    "orig = q._integrand\n"
    "def wrong(z, mode, a, b, h, end_is_one, g1, g0, ncomp, out):\n"
    "    orig(z, mode, a, b, h, end_is_one, g1, g0, ncomp, out)\n"
    "    if mode == q._STRETCH:\n"
    "        out[:ncomp] /= z  # dy = 2u du written as 2 du\n"
    "q._integrand = wrong\n")


def test_planted_stretch_jacobian_fails(python_output):
    """Under NUMBA_DISABLE_JIT the kernels are Python functions: a dropped Jacobian of y = u² moves the
    rows whose envelope is steep (h > 20) far outside the figure, and leaves the gentle row alone."""
    v_ok, _, _ = _run(python_output, False)
    v_bad, _, _ = _run(python_output, False, _DROP_STRETCH_JACOBIAN)
    steep = np.array([max(_half_slopes(s)) > 20 for s in eval(_ROWS)])
    assert np.all(np.abs(v_bad - v_ok)[steep] > 1e3 * closed_form.K3_ERROR * (1 + np.abs(v_ok[steep])))
    assert np.all(v_bad[~steep] == v_ok[~steep])
