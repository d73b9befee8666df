"""The digits Table 1 stand-in (symcheck/experiments/gelberg_digits.py) and its report section.

Independent routes: the network's log likelihood against :func:`symcheck.mlp.mlp_forward`
with SciPy's log-softmax; every hand-written gradient against central finite differences at
fixed noise, the whole objective and the Numba likelihood kernel's per-draw gradient
(tolerance: the Richardson estimate |g_h − g_2h| of the truncation error plus 2·tol_f/h for
rounding, as :func:`symcheck.certify.minimiser_radius`); Ĥ^K against
:func:`symcheck.symmetrize.entropy_infonce` given the same draws (its permutations act through
:meth:`symcheck.groups.MLPPermutation.act`, not through this module's unit blocks); Adam's first
step against its closed form and several steps against a NumPy transcription of Kingma & Ba's
Alg. 1; the kernels run as plain Python (NUMBA_DISABLE_JIT=1) against the JIT; the WLS slope
against :func:`numpy.polyfit`. Planted errors (the identity term dropped from Ĥ^K, a flipped sign
in its gradient, a wrong likelihood gradient, a wrong W₁ block from the likelihood kernel, Adam
without bias correction) must be caught. Everything runs on synthetic data: scikit-learn is not
needed.
"""

from __future__ import annotations

import json
import math
import sys
import types

import numpy as np
import pytest
from scipy.special import log_softmax

import symcheck.experiments.gelberg_digits as gd
from symcheck.certify import _gradient_fd
from symcheck.evidence import ROUNDING
from symcheck.groups import MLPPermutation
from symcheck.mlp import mlp_forward
from symcheck.report.sections import gelberg_digits as section
from symcheck.symmetrize import entropy_infonce

EPS = np.finfo(float).eps
SIZES = (3, 4, 2)
GROUP = MLPPermutation(SIZES)
D = GROUP.dim
H = 1e-4  # finite-difference step for parameters of order one


def _point(seed=0, n=6, S=2, K=3):
    rng = np.random.default_rng(seed)
    params = np.stack([0.7 * rng.standard_normal(D), -0.6 + 0.3 * rng.standard_normal(D)])
    x, y = rng.standard_normal((n, SIZES[0])), rng.integers(0, SIZES[-1], n)
    eps = rng.standard_normal((S, D))
    perms = GROUP.sample(rng, S * (K - 1)).reshape(S, K - 1, SIZES[1])
    return params, x, y, eps, perms


def _fd_excess(method, seed=0):
    """max over components of |analytic − FD| / (|g_h − g_2h| + 2·tol_f/h); ≤ 1 when the gradient is right."""
    params, x, y, eps, perms = _point(seed)

    def f(flat):
        return gd.objective(flat.reshape(2, D), x, y, 20, SIZES, method, eps, perms)[0]

    value, grad, _ = gd.objective(params, x, y, 20, SIZES, method, eps, perms)
    # one evaluation sums O(D·n) float64 terms of size ≤ max(|f|, 1): error ≤ D·n·eps·max(|f|, 1)
    tol_f = D * x.shape[0] * EPS * max(abs(value), 1.0)
    g1 = _gradient_fd(f, params.ravel(), np.full(2 * D, H))
    g2 = _gradient_fd(f, params.ravel(), np.full(2 * D, 2 * H))
    allowed = np.abs(g1 - g2) + 2 * tol_f / H
    return float(np.max(np.abs(grad.ravel() - g1) / allowed))


def _hk_mismatch(seed=0, K=3, S=40):
    """|Ĥ^K of this module − entropy_infonce| / tolerance, from the same draws of one generator."""
    rng = np.random.default_rng(seed)
    mean, log_std = 0.8 * rng.standard_normal(D), -0.5 + 0.3 * rng.standard_normal(D)
    ref, _ = entropy_infonce(mean, np.exp(2 * log_std), GROUP, K, S, np.random.default_rng(seed + 1))
    # entropy_infonce draws ω (S × D normals), then S(K − 1) group elements, from its generator
    draws = np.random.default_rng(seed + 1)
    eps = draws.standard_normal((S, D))
    perms = GROUP.sample(draws, S * (K - 1)).reshape(S, K - 1, SIZES[1]) if K > 1 else np.zeros((S, 0, SIZES[1]), int)
    mine = gd.entropy_hk(mean, log_std, eps, perms, gd.unit_blocks(SIZES), grad=False).mean()
    # both sum D log-density terms of size ≤ max|log q| per element, then a log-sum-exp of K
    scale = max(abs(ref), 1.0) + float(np.sum(eps**2) / S)
    return abs(mine - ref) / (4 * D * K * EPS * scale)


# ----- model and gradients -----------------------------------------------------------------


def test_log_likelihood_matches_mlp_forward():
    params, x, y, eps, _ = _point(1, S=3)
    omega = params[0] + np.exp(params[1]) * eps
    ll, _ = gd.log_likelihood(omega, x, y, SIZES)
    ref = log_softmax(mlp_forward(omega, x, SIZES), axis=-1)[:, np.arange(y.size), y].sum(axis=1)
    np.testing.assert_allclose(ll, ref, rtol=0, atol=ROUNDING * np.max(np.abs(ref)) * x.shape[0])


def _ll_fd_excess(seed=2, S=3):
    """As :func:`_fd_excess`, for every draw's likelihood gradient ∂ll_s/∂ω_s on its own (the Numba kernel's output)."""
    params, x, y, eps, _ = _point(seed, n=7, S=S)
    omega = params[0] + np.exp(params[1]) * eps
    ll, g = gd.log_likelihood(omega, x, y, SIZES)
    np.testing.assert_array_equal(gd.log_likelihood(omega, x, y, SIZES, grad=False), ll)
    worst = 0.0
    for s in range(S):
        def f(w, s=s):
            om = omega.copy()
            om[s] = w
            return gd.log_likelihood(om, x, y, SIZES, grad=False)[s]

        tol_f = D * x.shape[0] * EPS * max(abs(ll[s]), 1.0)
        g1, g2 = (_gradient_fd(f, omega[s], np.full(D, h)) for h in (H, 2 * H))
        worst = max(worst, float(np.max(np.abs(g[s] - g1) / (np.abs(g1 - g2) + 2 * tol_f / H))))
    return worst


def test_log_likelihood_gradient_matches_finite_differences_per_draw():
    assert _ll_fd_excess() <= 1.0


def test_planted_error_in_the_likelihood_kernel_is_caught(monkeypatch):
    """A wrong W₁ block of the kernel's gradient (the ∂/∂W₁ = (∂/∂A)ᵀ X product) must fail the check."""
    real = gd._likelihood_kernel

    def planted(omega, x, y, hidden, ll, g):
        real(omega, x, y, hidden, ll, g)
        g[:, : SIZES[0] * SIZES[1]] *= 1.01

    monkeypatch.setattr(gd, "_likelihood_kernel", planted)
    assert _ll_fd_excess() > 1.0


@pytest.mark.parametrize("method", ["mfvi", "sgm"])
@pytest.mark.parametrize("seed", [0, 1])
def test_objective_gradient_matches_finite_differences(method, seed):
    assert _fd_excess(method, seed) <= 1.0


def test_planted_sign_error_in_entropy_gradient_is_caught(monkeypatch):
    real = gd._hk_gradient
    monkeypatch.setattr(gd, "_hk_gradient", lambda *a: real(*a) * np.array([[1.0], [-1.0]]))
    assert _fd_excess("sgm") > 1.0


def test_planted_likelihood_gradient_error_is_caught(monkeypatch):
    real = gd.log_likelihood

    def planted(*a, **kw):
        ll, g = real(*a, **kw)
        return ll, g * 1.01

    monkeypatch.setattr(gd, "log_likelihood", planted)
    assert _fd_excess("mfvi") > 1.0


@pytest.mark.parametrize("K", [1, 2, 5])
def test_hk_equals_entropy_infonce_with_the_same_draws(K):
    assert _hk_mismatch(K=K) <= 1.0


def test_planted_hk_without_identity_term_is_caught(monkeypatch):
    monkeypatch.setattr(gd, "_with_identity",
                        lambda a0, a_perm: np.concatenate([np.full((a0.size, 1), -np.inf), a_perm], axis=1))
    assert _hk_mismatch(K=3) > 1.0


def test_overlap_is_the_weight_of_the_moved_copies():
    """Brute force: softmax of log q over (ω, g_j·ω) by gaussian_logpdf and the group's action."""
    from symcheck.gaussian import gaussian_logpdf

    rng = np.random.default_rng(4)
    mean, log_std = 0.3 * rng.standard_normal(D), np.zeros(D)  # wide q: the permuted copies overlap
    eps = rng.standard_normal((3, D))
    perms = GROUP.sample(rng, 9).reshape(3, 3, SIZES[1])
    perms[0, 1] = np.arange(SIZES[1])  # a drawn identity does not count
    _, _, overlap = gd.entropy_hk(mean, log_std, eps, perms, gd.unit_blocks(SIZES))
    omega, var = mean + eps, np.ones(D)
    for s in range(3):
        logs = np.array([gaussian_logpdf(z, mean, var) for z in [omega[s], *GROUP.act(perms[s], omega[s])]])
        w = np.exp(logs - logs.max()) / np.exp(logs - logs.max()).sum()
        moved = [j + 1 for j in range(3) if np.any(perms[s, j] != np.arange(SIZES[1]))]
        assert overlap[s] == pytest.approx(w[moved].sum(), rel=1e-12, abs=1e-300)
    assert overlap.max() > 1e-3


def test_unit_blocks_agree_with_the_group_action():
    """Moving unit blocks by τ is MLPPermutation's action (independent index bookkeeping)."""
    rng = np.random.default_rng(3)
    omega, g = rng.standard_normal(D), GROUP.sample(rng, 5)
    blocks = gd.unit_blocks(SIZES)
    moved = np.repeat(omega[None], 5, axis=0)
    for row, tau in enumerate(g):
        moved[row, blocks[tau]] = omega[blocks]
    np.testing.assert_array_equal(moved, GROUP.act(g, omega))


def test_adam_first_step_is_lr_times_sign():
    """Kingma & Ba: after bias correction the first step is lr·g/(|g| + ε)."""
    g = np.array([[3.0, -0.2], [1e-3, -5.0]])
    step = gd.Adam(1e-3).step(np.zeros_like(g), g)
    np.testing.assert_allclose(step, 1e-3 * g / (np.abs(g) + 1e-8), rtol=4 * EPS)


def _adam_mismatch(steps=6):
    """Max |Adam − NumPy transcription of Kingma & Ba's Alg. 1| over ``steps`` ascent steps, in units of 64·eps·|θ|."""
    rng = np.random.default_rng(5)
    grads = rng.standard_normal((steps, 2, 5)) * np.array([[1.0], [1e-3]])
    adam, theta = gd.Adam(1e-2), rng.standard_normal((2, 5))
    ref, m, v = theta.copy(), np.zeros_like(theta), np.zeros_like(theta)
    worst = 0.0
    for t, g in enumerate(grads, start=1):
        theta = adam.step(theta, g)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        ref = ref + 1e-2 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        # the same IEEE operations per element; ROUNDING (64 eps) allows for (1 - β) and β^t rounded differently
        worst = max(worst, float(np.max(np.abs(theta - ref) / (ROUNDING * np.abs(ref)))))
    return worst


def test_adam_steps_follow_algorithm_1():
    assert _adam_mismatch() <= 1.0


def test_planted_adam_without_bias_correction_is_caught(monkeypatch):
    real = gd._adam_kernel
    monkeypatch.setattr(gd, "_adam_kernel", lambda *a: real(*a[:8], 1.0, 1.0))
    assert _adam_mismatch() > 1.0


def _step_excess(method, seed=3):
    """max |fit's training step (:func:`gd._step`) − (objective on x[batch], then Adam.step)| / tolerance.

    Compared: the objective's value, the parameters and first moment after the step, the overlap.
    Both routes run the same kernels on the same draws; the step's own parts (gathering the batch,
    ω = μ + σ⊙ε, the fused call) are what is checked. Tolerance: the objective and its gradient sum
    O(n·D) terms, so |Δf| ≤ n·D·eps·max(|f|, 1) and |Δg| ≤ tol_g = n·D·eps·max|g| (as in
    :func:`_fd_excess`); Adam's first step u = lr·g/(|g| + ε) moves by at most lr·ε·tol_g/(|g| − tol_g + ε)² (its derivative, decreasing in
    |g|), plus rounding of its few operations (6 eps·lr) and of θ + u (2 eps·|θ|); the first moment
    m = 0.1 g by 0.1·tol_g + eps·|m|.
    """
    params, x, y, eps, perms = _point(seed, n=10)
    if method == "mfvi":
        perms = np.zeros((eps.shape[0], 0, SIZES[1]), dtype=np.intp)
    batch = np.array([7, 2, 5, 0, 9, 3])
    ref_value, ref_grad, ref_overlap = gd.objective(params, x[batch], y[batch], y.size, SIZES, method, eps, perms)
    ref_adam = gd.Adam(1e-2)
    ref_params = ref_adam.step(params, ref_grad)
    adam, got = gd.Adam(1e-2), params.copy()
    value, overlap = gd._step(got, adam, x, y, batch, eps, perms, gd.unit_blocks(SIZES), method == "sgm", 1.0)
    tol_g = batch.size * D * EPS * np.max(np.abs(ref_grad))
    g = np.abs(ref_grad)
    assert np.all(g > tol_g)  # the bound on Adam's step needs |g| > tol_g
    tol_p = 1e-2 * 1e-8 * tol_g / (g - tol_g + 1e-8) ** 2 + 6 * EPS * 1e-2 + 2 * EPS * np.abs(ref_params)
    tol_m = 0.1 * tol_g + EPS * np.abs(ref_adam.m)
    tol_f = batch.size * D * EPS * max(abs(ref_value), 1.0)
    return max(abs(value - ref_value) / tol_f, float(np.max(np.abs(got - ref_params) / tol_p)),
               float(np.max(np.abs(adam.m - ref_adam.m) / tol_m)),
               abs(overlap - ref_overlap) / (4 * EPS) if method == "sgm" else float(overlap != 0.0))


@pytest.mark.parametrize("method", ["mfvi", "sgm"])
def test_training_step_matches_objective_then_adam(method):
    assert _step_excess(method) <= 1.0


@pytest.mark.parametrize("method", ["mfvi", "sgm"])
def test_planted_training_step_errors_are_caught(monkeypatch, method):
    """A mini-batch gathered one row off, or the other method's entropy in the fused kernel, must fail the check."""
    real_forward, real_step = gd._forward, gd._train_step
    with monkeypatch.context() as m:
        m.setattr(gd, "_forward", lambda mean, sd, eps, x, y, batch, d1: real_forward(mean, sd, eps, x, y,
                                                                                     (batch + 1) % y.size, d1))
        assert _step_excess(method) > 1.0
    with monkeypatch.context() as m:
        m.setattr(gd, "_train_step", lambda *a: real_step(*a[:9], not a[9], *a[10:]))
        assert _step_excess(method) > 1.0


def test_drawn_permutations_are_the_groups_stream():
    """_draw_perms makes MLPPermutation.sample's generator calls: the same elements, the generator left in the same state."""
    group = MLPPermutation((64, 30, 10))
    for S, K in ((1, 5), (3, 20), (2, 2)):
        mine, ref = np.random.default_rng(S * K), np.random.default_rng(S * K)
        perms = gd._draw_perms(group, mine, S, K)
        np.testing.assert_array_equal(perms, group.sample(ref, S * (K - 1)).reshape(S, K - 1, 30))
        assert perms.dtype == np.intp and perms.flags.c_contiguous
        assert mine.bit_generator.state == ref.bit_generator.state
    assert gd._draw_perms(group, mine, 2, 1).shape == (2, 0, 30)


def test_zero_weight_elements_do_not_change_the_entropy_gradient():
    """_permuted_grad skips elements of weight 0: the result equals (bit for bit) the call without those elements."""
    params, _, _, eps, perms = _point(4, S=3, K=5)
    mean, sd = params[0], np.exp(params[1])
    blocks = gd.unit_blocks(SIZES)
    unit = gd._unit_form(mean, sd, eps, blocks)[:4]  # μ, 1/σ, ω, σ⊙ε in unit form
    w = np.random.default_rng(4).dirichlet(np.ones(5), size=3)
    w[:, [2, 4]] = 0.0
    w[1, 1:] = 0.0  # a draw whose moved copies all have weight 0
    full = gd._permuted_grad(w, blocks, D, *unit, perms)
    kept = gd._permuted_grad(w[:, [0, 1, 3]], blocks, D, *unit, np.ascontiguousarray(perms[:, [0, 2]]))
    np.testing.assert_array_equal(full, kept)
    assert np.any(full != 0.0)


def test_pure_python_path_matches_jit(python_output):
    """NUMBA_DISABLE_JIT=1 runs the same kernels as plain Python: objectives, gradients, overlap, Adam and fit's training step agree.

    Both routes evaluate the same formulas in float64, the matrix products by the same NumPy/BLAS
    or Numba/BLAS calls in possibly different summation order: each output is a sum of at most
    n·D terms bounded by the largest output, so |jit − python| ≤ n·D·eps·max|output|.
    """
    code = (
        "import json, numpy as np, symcheck.experiments.gelberg_digits as gd;"
        "from symcheck.groups import MLPPermutation;"
        "G = MLPPermutation((3, 4, 2)); rng = np.random.default_rng(0);"
        "p = np.stack([0.7 * rng.standard_normal(G.dim), -0.6 + 0.3 * rng.standard_normal(G.dim)]);"
        "x, y = rng.standard_normal((6, 3)), rng.integers(0, 2, 6); eps = rng.standard_normal((2, G.dim));"
        "perms = G.sample(rng, 4).reshape(2, 2, 4); out = [];"
        "[out.extend([r[0], r[2], *r[1].ravel().tolist()]) for r in"
        " (gd.objective(p, x, y, 20, (3, 4, 2), m, eps, perms) for m in ('mfvi', 'sgm'))];"
        "out.extend(gd.Adam(0.01).step(p, p).ravel().tolist());"
        "[out.extend([*gd._step(q, gd.Adam(0.01), x, y, np.arange(5), eps, r, gd.unit_blocks((3, 4, 2)), k, 1.0),"
        " *q.ravel().tolist()]) for q, r, k in ((p.copy(), perms, True), (p.copy(), perms[:, :0], False))];"
        "print(json.dumps(out))"
    )
    jit, python = (np.array(json.loads(python_output(code, jit))) for jit in (True, False))
    np.testing.assert_allclose(python, jit, rtol=0, atol=6 * D * EPS * np.max(np.abs(jit)))


def test_convergence_criterion():
    rng = np.random.default_rng(0)
    rising = np.arange(40.0) + 0.1 * rng.standard_normal(40)
    assert not gd.converged(rising, 10)[0]
    assert gd.converged(5.0 + 0.0 * rising + np.tile([1.0, -1.0], 20), 10)[0]
    assert not gd.converged(rising[:15], 10)[0]  # too short to judge


# ----- the task function -------------------------------------------------------------------

ARGS = {"width": 3, "method": "sgm", "K": 3, "epochs": 10, "data": "synthetic", "n_predict": 20, "n_eval": 10}


def test_run_returns_json_and_is_deterministic():
    a, b = gd.run(ARGS, 7), gd.run(ARGS, np.random.default_rng(7))
    assert json.loads(json.dumps(a, allow_nan=False)) == a
    a.pop("seconds"), b.pop("seconds")
    assert a == b
    assert gd.run(ARGS, 8)["test_loglik"] != a["test_loglik"]
    assert 0.0 <= a["test_accuracy"] <= 1.0 and a["iterations"] == 10 * math.ceil(a["n_train"] / 100)
    # the InfoNCE bound on I(g; ω) is log K − log(1 + Σ_j ratios) per draw: never above log K
    assert a["mi_k"] <= math.log(gd.DEFAULTS["K_eval"])
    assert a["elbo_sym"] - a["elbo"] == pytest.approx(a["mi_k"], abs=1e-9 * abs(a["elbo"]))


def test_run_beats_chance_on_synthetic_data():
    r = gd.run({**ARGS, "method": "mfvi", "epochs": 60}, 0)
    assert r["test_accuracy"] > 0.6  # 3 separated classes: chance is 1/3


@pytest.mark.parametrize("bad, name", [({"width": 0}, "width"), ({"K": 0}, "K"), ({"method": "svgd"}, "method"),
                                        ({"epochs": 0}, "epochs"), ({"lr": -1.0}, "lr"), ({"data": "mnist"}, "data"),
                                        ({"widht": 3}, "widht"), ({"init_log_std": "x"}, "init_log_std")])
def test_bad_args_raise_naming_the_argument(bad, name):
    with pytest.raises(ValueError, match=name):
        gd.run({**ARGS, **bad}, 0)


def test_missing_required_args_and_bad_rng():
    with pytest.raises(ValueError, match="width"):
        gd.run({"method": "mfvi"}, 0)
    with pytest.raises(ValueError, match="args"):
        gd.run([3, "mfvi"], 0)
    with pytest.raises(ValueError, match="rng"):
        gd.run(ARGS, "seed")


# ----- the report section ------------------------------------------------------------------


def test_wls_slope_matches_polyfit():
    x, y, se = np.array([5, 10, 20, 30.0]), np.array([0.1, 0.3, 0.2, 0.9]), np.array([0.1, 0.2, 0.1, 0.3])
    slope, slope_se, intercept = section.wls_slope(x, y, se)
    (b, a), cov = np.polyfit(x, y, 1, w=1 / se, cov="unscaled")
    np.testing.assert_allclose([slope, intercept, slope_se], [b, a, math.sqrt(cov[0, 0])], rtol=1e-10)


@pytest.mark.parametrize("slope, expected", [(0.05, "supported"), (-0.05, "contradicted"), (0.01, "not resolved")])
def test_verdict_follows_the_numbers(slope, expected):
    assert section.verdict(slope, 0.01) == expected


def test_section_says_so_without_scikit_learn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn raises ImportError
    assert "scikit-learn is not installed" in section.render(types.SimpleNamespace(quick=True))


def test_section_renders_on_synthetic_data(monkeypatch, tmp_path):
    from symcheck.report import ReportContext

    monkeypatch.setitem(sys.modules, "sklearn", types.ModuleType("sklearn"))
    monkeypatch.setattr(section, "QUICK", {"widths": (2, 3), "seeds": 2,
                                           "args": {"epochs": 3, "n_predict": 10, "n_eval": 5, "data": "synthetic"}})
    ctx = ReportContext(out_dir=tmp_path, seed=1, quick=True, workers=1)
    text = section.render(ctx)
    assert "| SGM (K = 20) |" in text and "Met by" in text and (tmp_path / "gelberg_digits.png").is_file()
    assert json.loads((tmp_path / "gelberg_digits.json").read_text())["slopes"][0]["verdict"] in text
