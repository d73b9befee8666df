"""Certified numerics: how far a numerical optimum or a float64 evaluation can be from the truth.

The bounds the claims, models and experiments use to certify what an optimiser returned: the
accuracy of a bounded-Brent maximiser (`brent_argmax_tolerance`), a radius around a numerical
minimiser from finite-difference gradient and Hessian bounds (`minimiser_radius`), the float64
error of a dense Gaussian KL (`gaussian_kl_tolerance`) and the brute-force mean-field Gaussian with
certified radii (`numerical_mean_field`). Only numpy and `symcheck.kl` (lazily) are used: models
import these without knowing that the claim registry exists.
"""

from __future__ import annotations

import math

import numpy as np

from symcheck.evidence import EPS, ROUNDING

__all__ = ["brent_argmax_tolerance", "gaussian_kl_tolerance", "minimiser_radius", "numerical_mean_field"]



def brent_argmax_tolerance(f, x, xatol: float, rel_noise: float = EPS, h: float = 1e-4) -> float:
    """Accuracy of a maximiser ``x`` of ``f`` found by scipy's bounded Brent with ``xatol``.

    Two arguments whose values differ by less than the evaluation noise ``rel_noise·|f|``
    cannot be ordered, and ``f(x+δ) − f(x) ≈ ½ f''δ²``, so the argmax is known only to
    ``sqrt(2·rel_noise·|f| / |f''|)`` (``f''`` by a central difference with step ``h``);
    Brent itself stops within ``2(sqrt(eps)|x| + xatol/3)``. Returns four times the sum of
    the two (a factor 2 for each estimate).
    """
    f0 = f(x)
    curv = abs(f(x + h) - 2 * f0 + f(x - h)) / h**2
    flat = np.sqrt(2 * rel_noise * max(abs(f0), 1.0) / max(curv, EPS))
    return 4 * (flat + 2 * (np.sqrt(EPS) * abs(x) + xatol / 3))


def _hessian_fd(f, x, h):
    """Hessian of f at x by central differences with steps ``h`` (one per coordinate)."""
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            ei, ej = np.zeros(n), np.zeros(n)
            ei[i], ej[j] = h[i], h[j]
            H[i, j] = H[j, i] = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * h[i] * h[j])
    return H


def _gradient_fd(f, x, h):
    """Gradient of f at x by central differences with steps ``h``."""
    g = np.empty(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = h[i]
        g[i] = (f(x + e) - f(x - e)) / (2 * h[i])
    return g


#: Step factors tried by :func:`minimiser_radius` (steps are these times each coordinate's scale).
_FD_STEPS = 10.0 ** -np.arange(0, 7)


def minimiser_radius(f, x, tol_f: float, scale, steps=_FD_STEPS):
    """How far a numerical minimiser ``x`` of ``f`` can be from the true minimiser x*.

    Only ``f`` near ``x`` enters — no reference point and no formula under test — so a wrong
    optimum cannot widen its own allowance. With g = ∇f(x) and H = ∇²f(x), x − x* = H⁻¹g
    + O(|x − x*|²), hence ``|x − x*| ≤ 2Γ/λ``, where

    * Γ bounds |∇f(x)|: central differences with steps h = t·s and 2h (s the coordinate's
      ``scale``); each component is off by ≤ |g_h − g_2h| (its truncation error is a third of
      that, Richardson) + 2·tol_f/h (each evaluation of f is off by ≤ ``tol_f``);
    * λ = λ_min(H) − E, with H by central differences (steps t·s) and E = ‖H_h − H_2h‖_F
      + 4n·tol_f/min(h)² bounding its error; if E ≥ λ_min(H)/2 at every step the minimum is not
      resolved and the radius is NaN, so that every comparison with it is false and a check
      using it fails (otherwise ‖H⁻¹‖ ≤ 1/λ ≤ 2/λ_min(H));
    * the factor 2 covers the quadratic remainder while ‖H⁻¹‖·‖∇³f‖·|x − x*| ≤ ½, i.e. for radii
      far below the scale on which the curvature changes (every use here: radii ≤ 1e-3 of s).

    The step factor t is chosen among ``steps`` (default 1, 0.1, …, 1e-6) to make each bound
    smallest (each is a bound at its own t). Where the objective is a sum of functions of disjoint coordinate blocks,
    call this once per block (the other blocks held at ``x``).

    Parameters
    ----------
    f : callable
        Objective of a 1-D float array.
    x : array_like
        The numerical minimiser.
    tol_f : float
        Bound on the float64 error of one evaluation of ``f`` near ``x``.
    scale : array_like
        Natural scale of each coordinate; x ± 4·scale must lie in the domain of f.
    steps : sequence of float
        Step factors t to try (fewer for costly objectives whose good steps are known).

    Returns
    -------
    radius : float
        Bound on |x − x*| (Euclidean; NaN when the Hessian is not resolved).
    info : dict
        ``grad`` (Γ), ``lambda_min`` (λ), ``excess``: a bound 2Γ²/λ on f(x) − f(x*) (½ gᵀH⁻¹g
        with the same factor 2).
    """
    x = np.asarray(x, dtype=float)
    s = np.asarray(scale, dtype=float) * np.ones(x.size)
    grad = math.inf
    for t in steps:
        g1, g2 = _gradient_fd(f, x, t * s), _gradient_fd(f, x, 2 * t * s)
        grad = min(grad, float(np.linalg.norm(np.abs(g1) + np.abs(g1 - g2) + 2 * tol_f / (t * s))))
    lam = -math.inf
    for t in steps:
        H = _hessian_fd(f, x, t * s)
        err = float(np.linalg.norm(H - _hessian_fd(f, x, 2 * t * s)) + 4 * x.size * tol_f / np.min(t * s) ** 2)
        lo = float(np.linalg.eigvalsh(H)[0])
        if err < 0.5 * lo:
            lam = max(lam, lo - err)
    if lam <= 0:
        return math.nan, {"grad": grad, "lambda_min": lam, "excess": math.nan}
    return 2 * grad / lam, {"grad": grad, "lambda_min": lam, "excess": 2 * grad**2 / lam}


def gaussian_kl_tolerance(cov, value: float) -> float:
    """Float64 error bound of a dense Gaussian KL (value ``value``) against the K × K ``cov``.

    Solves and log-determinants through a Cholesky factor of ``cov`` carry a relative error of
    order K·eps·cond(cov) on terms of total size 2K + |KL| + |log det cov|; `ROUNDING` (64·eps,
    `symcheck.evidence`) times K·cond(cov) times that size.
    """
    K = cov.shape[0]
    scale = 2 * K + abs(value) + abs(np.linalg.slogdet(cov)[1])
    return float(ROUNDING * K * np.linalg.cond(cov) * scale)


def numerical_mean_field(mean, cov, x0=None) -> dict:
    """Mean-field Gaussian minimising KL[q ‖ N(mean, cov)] by brute force, with certified radii.

    The optimum is found by :func:`symcheck.kl.fit_factored_gaussian_numerically` (BFGS on the
    dense KL, finite-difference gradients). The KL of q = N(m, diag v) is a sum of a function of
    the means, ½(m − μ)ᵀΣ⁻¹(m − μ), and one of the log-variances u, ½Σ_k(e^{u_k}(Σ⁻¹)_kk − u_k),
    plus a constant, so :func:`minimiser_radius` is applied to each block at the numerical optimum
    (the other block held there), with the scales of the numerical optimum (its sd for the
    means, 1 for the log-variances) and :func:`gaussian_kl_tolerance` as the evaluation error.

    Returns
    -------
    dict
        ``means``, ``variances``, ``kl`` (at the numerical optimum), ``tol_f``, ``r_mean``,
        ``r_logvar`` (bounds on the distance to the true optimum, NaN if not resolved),
        ``excess`` (bound on KL(numerical) − KL(optimum)) and ``converged`` (both radii finite).
    """
    from symcheck.kl import _kl_gaussian_checked, fit_factored_gaussian_numerically

    mean = np.asarray(mean, dtype=float)
    cov = np.asarray(cov, dtype=float)
    m, v, kl = fit_factored_gaussian_numerically(mean, cov, x0=x0)
    u = np.log(v)
    tol_f = gaussian_kl_tolerance(cov, kl)
    # mean and cov were checked by the fit, v > 0 is its result: only the varied block is new (and finite)
    r_m, info_m = minimiser_radius(lambda x: _kl_gaussian_checked(x, v, mean, cov), m, tol_f, np.sqrt(v))
    r_s, info_s = minimiser_radius(lambda x: _kl_gaussian_checked(m, np.exp(x), mean, cov), u, tol_f,
                                   np.ones(u.size))
    return {"means": m, "variances": v, "kl": kl, "tol_f": tol_f, "r_mean": r_m, "r_logvar": r_s,
            "excess": info_m["excess"] + info_s["excess"], "converged": bool(np.isfinite(r_m) and np.isfinite(r_s))}
