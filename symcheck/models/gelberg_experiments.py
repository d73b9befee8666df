"""Gelberg et al., Sec. 5 (tractable BNN, Tables 2–3, Fig. 4) with deterministic objectives.

For the two-ReLU network of :class:`symcheck.models.gelberg_bnn.TwoReLUNet` and a mean-field
Gaussian q = N(μ, diag v) every term the paper estimates by Monte Carlo has an exact value:

* the expected log-likelihood: it is a quadratic in a = ReLU(w₁)+ReLU(w₂) (x > 0 data) and
  b = ReLU(−w₁)+ReLU(−w₂) (x < 0 data), and E ReLU(w), E ReLU(w)² of a Gaussian are closed
  forms (w₁, w₂ independent under q);
* the expected log prior and H(q): closed forms;
* I(g; ω) = H(q^G) − H(q) for the swap group: E_q[log 2 − softplus(log q(gω) − log q(ω))], a
  smooth 2-D integrand, by tensor Gauss–Hermite quadrature (error: the difference between n
  and 2n nodes);
* the expectation over g of Gelberg's Ĥ^K with K = 2 (g₁ uniform on {e, swap}): ½H(q) +
  ½E_q[−log q^G] = H(q) + ½I, so E[L^K=2] = L + ½I; L^G = L + I (Thm. 4.1);
* the predictive mean E_q f^ω(x) = x·E a (x > 0), |x|·E b (x < 0); the same under q^G, since
  f^{g·ω} = f^ω.

The fits maximise these objectives by BFGS in (μ, log v) from three starts (both modes,
the midpoint, a same-sign point); the best is certified by
:func:`symcheck.certify.minimiser_radius`. The ground truth is the posterior on a grid
(:func:`grid_posterior`), whose discretisation error is estimated by halving the step.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import optimize
from scipy.special import ndtr

from symcheck._checks import check_choice, check_int, check_positive_float
from symcheck._mc import mean_se
from symcheck.certify import minimiser_radius
from symcheck.evidence import ROUNDING
from symcheck.models.gelberg_bnn import TwoReLUNet

__all__ = ["ALPHAS", "NOISES", "OBJECTIVES", "SEEDS", "bnn_dataset", "fit_bnn", "fitted_run", "grid_posterior", "mutual_information_swap", "objective",
           "paired", "predictive_slopes", "relu_moments", "runs", "table_run", "test_mse"]

_LOG_2PI = math.log(2 * math.pi)

#: Objectives: ``"mfvi"`` L_VI; ``"sgm2"`` E_g[L^K] for K = 2 (the paper's SGM training loss);
#: ``"sgm"`` L^G = L_VI + I(g; ω) (K → ∞).
OBJECTIVES = {"mfvi": 0.0, "sgm2": 0.5, "sgm": 1.0}

#: Gauss–Hermite nodes per axis for I(g; ω).
GH_NODES = 64

#: The Sec. 5 settings: slopes α of the data (the paper's), likelihood noise σ (the paper gives none: σ = 1
#: resolves the posterior modes, σ = 3 does not), and the data sets (seeds) of Tables 2–3.
ALPHAS = (0.05, 0.1, 0.15, 0.2)
NOISES = (1.0, 3.0)
SEEDS = tuple(range(5))


def relu_moments(mean, var):
    """E[ReLU(w)] and E[ReLU(w)²] for w ~ N(mean, var) (closed forms, elementwise).

    E ReLU(w) = μΦ(t) + sφ(t), E ReLU(w)² = (μ² + v)Φ(t) + μsφ(t), t = μ/s, s = √v.
    """
    mean = np.asarray(mean, dtype=float)
    s = np.sqrt(np.asarray(var, dtype=float))
    t = mean / s
    Phi = ndtr(t)
    phi = np.exp(-0.5 * t * t) / math.sqrt(2 * math.pi)
    return mean * Phi + s * phi, (mean * mean + s * s) * Phi + mean * s * phi


def _side_stats(model: TwoReLUNet, positive: bool):
    m = model.x > 0 if positive else model.x < 0
    ax, y = np.abs(model.x[m]), model.y[m]
    return float(ax @ ax), float(ax @ y), float(y @ y), int(m.sum())


def predictive_slopes(mean, var):
    """(E_q a, E_q b): the predictive mean is x·E a for x > 0 and |x|·E b for x < 0."""
    p1, _ = relu_moments(mean, var)
    n1, _ = relu_moments(-np.asarray(mean, dtype=float), var)
    return float(np.sum(p1)), float(np.sum(n1))


def expected_log_joint(model: TwoReLUNet, mean, var) -> float:
    """E_q[log p(Y | X, ω) + log p(ω)] for q = N(mean, diag var), in closed form."""
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)
    s2, v2 = model.noise_sd**2, model.prior_sd**2
    total = -0.5 * float(np.sum(mean**2 + var)) / v2 - (_LOG_2PI + math.log(v2))
    for sign in (1.0, -1.0):
        m1, m2 = relu_moments(sign * mean, var)
        ea, ea2 = float(m1.sum()), float(m2.sum() + 2 * m1[0] * m1[1])
        sxx, sxy, syy, n = _side_stats(model, sign > 0)
        total += -0.5 * (syy - 2 * ea * sxy + ea2 * sxx) / s2 - 0.5 * n * (_LOG_2PI + math.log(s2))
    return total


@functools.lru_cache(maxsize=8)
def _gauss_hermite(n: int):
    """Probabilists' Gauss–Hermite nodes and weights normalised to sum 1."""
    t, w = np.polynomial.hermite_e.hermegauss(n)
    return t, w / w.sum()


def mutual_information_swap(mean, var, n_nodes: int = GH_NODES) -> tuple[float, float]:
    """I(g; ω) = KL[q ‖ q^G] for the swap of two coordinates, and its quadrature error estimate.

    E_q[log 2 − softplus(r)], r(ω) = log q(ω₂, ω₁) − log q(ω₁, ω₂), by the n × n tensor
    Gauss–Hermite rule; the error estimate is |I_n − I_2n| (returned with I_2n).
    """
    n_nodes = check_int(n_nodes, "n_nodes", minimum=2)
    mean, var = np.asarray(mean, dtype=float), np.asarray(var, dtype=float)

    def rule(n):
        t, w = _gauss_hermite(n)
        z1 = mean[0] + np.sqrt(var[0]) * t[:, None]
        z2 = mean[1] + np.sqrt(var[1]) * t[None, :]

        def logq(a, b):
            return -0.5 * ((a - mean[0]) ** 2 / var[0] + (b - mean[1]) ** 2 / var[1])

        r = logq(z2, z1) - logq(z1, z2)
        return float(np.sum(np.outer(w, w) * (math.log(2.0) - np.logaddexp(0.0, r))))

    coarse, fine = rule(n_nodes), rule(2 * n_nodes)
    return fine, abs(fine - coarse) + ROUNDING


def objective(model: TwoReLUNet, kind: str, mean, var) -> tuple[float, float]:
    """(value, error bound) of L_VI + c·I(g; ω) with c = :data:`OBJECTIVES` [kind]."""
    check_choice(kind, "kind", OBJECTIVES)
    var = np.asarray(var, dtype=float)
    L = expected_log_joint(model, mean, var) + float(np.sum(0.5 * np.log(2 * math.pi * math.e * var)))
    err = ROUNDING * (abs(L) + 100)
    c = OBJECTIVES[kind]
    if c:
        mi, mi_err = mutual_information_swap(mean, var)
        return L + c * mi, err + c * mi_err
    return L, err


def fit_bnn(model: TwoReLUNet, kind: str, alpha: float) -> dict:
    """Maximise :func:`objective` over (μ, log v) by BFGS from four starts; certify the best.

    Starts: the mode (α, −α), the midpoint (ε, −ε) (ε = α/20, to break the swap symmetry) and
    the same-sign point (α/2, α/2), all with variances 1e-4 (the objectives are invariant under
    swapping both μ and v, so the other mode's start only mirrors the first). BFGS stops at
    gradient norm 1e-9 (finite-difference gradients). The radius and value excess of the best
    optimum come from :func:`symcheck.certify.minimiser_radius` on −objective with the
    objective's own error bound, in coordinates standardised by (sd, sd, 1, 1) (so ``radius``
    bounds the distance to the true optimum in posterior sds for the means and in log-variance
    units); ``converged`` says both are finite.
    """

    check_choice(kind, "kind", OBJECTIVES)
    a = check_positive_float(alpha, "alpha")

    def neg(p):
        return -objective(model, kind, p[:2], np.exp(p[2:]))[0]

    starts = [(a, -a), (a / 20, -a / 20), (a / 2, a / 2)]
    best = None
    for m0 in starts:
        with np.errstate(all="ignore"):  # line-search trials at huge log-variances give inf: rejected
            res = optimize.minimize(neg, np.array([*m0, math.log(1e-4), math.log(1e-4)]), method="BFGS",
                                    options={"gtol": 1e-9})
        if best is None or res.fun < best.fun:
            best = res
    p = best.x
    mean, var = p[:2], np.exp(p[2:])
    value, err = objective(model, kind, mean, var)
    # certified in standardised coordinates z = (p − p̂)/s, s = (sd, sd, 1, 1): the Hessian is then
    # O(1) in every direction (in raw coordinates the mean block is ~10⁴ times stiffer)
    s = np.r_[np.sqrt(var), 1.0, 1.0]
    radius, info = minimiser_radius(lambda z: neg(p + s * z), np.zeros(4), err, np.ones(4), steps=(1e-1, 1e-2, 1e-3))
    return {"mean": mean, "var": var, "value": value, "error": err, "radius": radius, "excess": info["excess"],
            "converged": bool(np.isfinite(radius))}


def bnn_dataset(alpha: float, seed, n: int = 100, noise_sd: float = 1.0) -> tuple[TwoReLUNet, TwoReLUNet]:
    """Training and test sets of size ``n`` of Gelberg's Sec. 5 (x ~ U[−10, 10], y = α|x|)."""
    rng = np.random.default_rng(seed)
    return (TwoReLUNet.synthetic(alpha, n, rng, noise_sd=noise_sd),
            TwoReLUNet.synthetic(alpha, n, rng, noise_sd=noise_sd))


def test_mse(test: TwoReLUNet, slopes) -> float:
    """Test MSE of the predictive mean with slopes (E a, E b) against the test targets."""
    ea, eb = slopes
    pred = np.where(test.x > 0, ea * test.x, -eb * test.x)
    return float(np.mean((pred - test.y) ** 2))


def grid_posterior(model: TwoReLUNet, n: int = 801, half_width: float | None = None) -> dict:
    """The exact posterior on an n × n grid (trapezoid rule, 0 a node so the kinks lie on grid lines).

    The box is ±(α̂ + 12 w) with α̂ the larger least-squares slope and w = σ/√Σx² the posterior
    width of a slope; beyond it the posterior density is below e^{-70} of its peak. Returns the log
    evidence on this grid and on the grid of twice the step (same box), whose difference
    estimates the discretisation error (trapezoid error ∝ h² on each smooth piece: the fine grid's
    error is about a third of the difference), the posterior slopes E a, E b and the grid density.
    """
    n = check_int(n, "n", minimum=5)
    n += 1 - n % 2  # odd: 0 is a node
    if half_width is None:
        sx = [_side_stats(model, s) for s in (True, False)]
        slope = max(max(sxy / sxx, 0.0) for sxx, sxy, _, _ in sx)
        half_width = slope + 12 * model.noise_sd / math.sqrt(min(sxx for sxx, *_ in sx))
    w = np.linspace(-half_width, half_width, n)
    W1, W2 = np.meshgrid(w, w, indexing="ij")
    lj = model.log_joint(np.stack([W1.ravel(), W2.ravel()], axis=1)).reshape(n, n)
    shift = float(lj.max())

    def trap(vals, step):
        tw = np.full(vals.shape[0], step)
        tw[[0, -1]] *= 0.5
        return float(tw @ vals @ tw)

    h = w[1] - w[0]
    dens = np.exp(lj - shift)
    z_fine = trap(dens, h)
    z_coarse = trap(dens[::2, ::2], 2 * h)
    A = np.maximum(W1, 0) + np.maximum(W2, 0)
    B = np.maximum(-W1, 0) + np.maximum(-W2, 0)
    return {"w": w, "density": dens / z_fine, "log_evidence": math.log(z_fine) + shift,
            "log_evidence_coarse": math.log(z_coarse) + shift, "error": abs(math.log(z_fine / z_coarse)),
            "slopes": (trap(dens * A, h) / z_fine, trap(dens * B, h) / z_fine), "step": h}


@functools.lru_cache(maxsize=64)
def fitted_run(alpha: float, seed: int, noise_sd: float = 1.0) -> dict:
    """The expensive part of a Tables 2–3 run (cached): the grid posterior, the evidence and the fits.

    Returns the data sets (``train``, ``test``), ``log_evidence`` (1-D quadrature), ``grid``
    (:func:`grid_posterior`) and the :func:`fit_bnn` optimum of each of ``"mfvi"``, ``"sgm2"``.
    """
    train, test = bnn_dataset(alpha, seed, noise_sd=noise_sd)
    return {"train": train, "test": test, "log_evidence": train.log_evidence("1d"), "grid": grid_posterior(train),
            "fits": {kind: fit_bnn(train, kind, alpha) for kind in ("mfvi", "sgm2")}}


def table_run(alpha: float, seed: int, noise_sd: float = 1.0) -> dict:
    """One data set of Tables 2–3: the fits of each objective, their L, L^G, test MSE; the exact posterior's MSE.

    The fits come from :func:`fitted_run`; the scores are recomputed on each call.
    """
    run = fitted_run(alpha, seed, noise_sd)
    train, test, grid = run["train"], run["test"], run["grid"]
    out = {"log_evidence": run["log_evidence"], "n": train.x.size}
    out["exact"] = {"mse": test_mse(test, grid["slopes"]), "grid_error": grid["error"],
                    "grid_log_evidence": grid["log_evidence"]}
    for kind, fit in run["fits"].items():
        L, eL = objective(train, "mfvi", fit["mean"], fit["var"])
        LG, eG = objective(train, "sgm", fit["mean"], fit["var"])
        out[kind] = dict(fit, L=L, L_err=eL, LG=LG, LG_err=eG,
                         mse=test_mse(test, predictive_slopes(fit["mean"], fit["var"])))
    return out


def runs(alpha, noise, seeds=None):
    """The Tables 2–3 runs (one per data set, default :data:`SEEDS`) of one (α, σ) setting (cached)."""
    return [table_run(alpha, s, noise) for s in (SEEDS if seeds is None else seeds)]


def paired(rs, key):
    """Mean and SE over data sets of ``key(run)``."""
    mean, se = mean_se([key(r) for r in rs])
    return float(mean), float(se)
