"""Gelberg et al., Sec. 3 and App. A: the Gaussian reverse-KL fit of a two-component mixture.

Target p_α^σ(x) = ½(N(x; 0, σ²I) + N(x; αu, σ²I)), Gaussian q = N(μ, Σ). The target factorises
into N(x_⊥; 0, σ²I) times a 1-D mixture along u, so the fit reduces exactly to one dimension:
q = N(m, s²) along u (the orthogonal block of the optimum is the target's own factor).
KL(q‖p) and its gradient in (m, log s) are computed by 200-point Gauss–Hermite quadrature
(exact to ~1e-15 for these smooth integrands at the scales used), replacing the paper's
S = 5000-sample estimate (8).

The threshold α* is where the fit started at the component (0, σ²) stops ending at the
midpoint (m/α = ½) and stays at the component (m/α → 0), for two optimisers: gradient descent
with the paper's step size 1e-2 and 3000 steps, and BFGS (gradient norm ≤ 1e-10).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from symcheck._checks import check_choice

__all__ = ["OPTIMISERS", "component_fit_ratio", "interpolation_fit", "interpolation_kl", "mode_seeking_threshold"]

#: Optimisers of :func:`component_fit_ratio`: the paper's gradient descent and BFGS.
OPTIMISERS = ("gd", "bfgs")

_X, _W = np.polynomial.hermite_e.hermegauss(200)
_W = _W / _W.sum()


def interpolation_kl(p: np.ndarray, a: float, sigma: float):
    """KL(N(m, s²) ‖ ½N(0, σ²) + ½N(a, σ²)) up to a constant, and its gradient in (m, log s).

    Parameters
    ----------
    p : array_like, shape ``(2,)``
        ``(m, log s)``.
    a, sigma : float
        Separation of the components and their standard deviation (Gelberg Sec. 3, α and σ).

    Returns
    -------
    kl : float
        −log s − E_q log p (Gauss–Hermite, 200 nodes).
    grad : ndarray, shape ``(2,)``
        Its gradient in ``(m, log s)``.
    """
    m, ls = p
    s = np.exp(ls)
    z = m + s * _X
    l0 = -0.5 * (z / sigma) ** 2
    l1 = -0.5 * ((z - a) / sigma) ** 2
    lp = np.logaddexp(l0, l1)
    r1 = np.exp(l1 - lp)
    dlp = -(z - r1 * a) / sigma**2  # d/dz log p(z)
    kl = -ls - np.sum(_W * lp)
    return kl, np.array([-np.sum(_W * dlp), -1.0 - np.sum(_W * dlp * s * _X)])


def component_fit_ratio(a: float, sigma: float, optimiser: str) -> float:
    """m/α at the end of the fit of :func:`interpolation_kl` started from the component (0, σ²).

    ``optimiser``: ``"gd"`` (step 1e-2, 3000 steps; the m-step is scaled by σ² so that the run
    for σ is the σ = 1 run rescaled, the log s gradient being scale-free) or ``"bfgs"``.
    """
    check_choice(optimiser, "optimiser", OPTIMISERS)
    p = np.array([0.0, np.log(sigma)])
    if optimiser == "gd":
        scale = np.array([sigma**2, 1.0])
        for _ in range(3000):
            p = p - 1e-2 * scale * interpolation_kl(p, a, sigma)[1]
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # line-search trials at huge s
            p = optimize.minimize(interpolation_kl, p, args=(a, sigma), jac=True, method="BFGS",
                                  options={"gtol": 1e-10}).x
    return p[0] / a


def mode_seeking_threshold(sigma: float, optimiser: str) -> float:
    """α* (to 1e-3·σ, by bisection on [σ, 10σ]): the smallest α whose fit stays near the component (m/α < ¼)."""
    lo, hi = 1.0 * sigma, 10.0 * sigma
    while hi - lo > 1e-3 * sigma:
        mid = 0.5 * (lo + hi)
        if component_fit_ratio(mid, sigma, optimiser) < 0.25:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def interpolation_fit(alpha: float, sigma: float, start: str = "component") -> dict:
    """BFGS minimum of KL(N(m, s²) ‖ ½N(0, σ²) + ½N(α, σ²)) (up to a constant) from ``start``.

    ``start``: ``"component"`` (m, s) = (0, σ) as in the paper, or ``"midpoint"`` (α/2, σ).
    Returns m/α, s²/σ² (= det Σ*/σ^{2d}: the orthogonal block is σ²I), the KL and the final
    gradient norm (the convergence criterion: ≤ 1e-10 unless BFGS reports a line-search failure).
    """
    p0 = np.array([0.0 if start == "component" else alpha / 2, math.log(sigma)])
    with np.errstate(over="ignore", invalid="ignore"):
        res = optimize.minimize(interpolation_kl, p0, args=(alpha, sigma), jac=True, method="BFGS", options={"gtol": 1e-10})
    return {"ratio": res.x[0] / alpha, "var_ratio": math.exp(2 * res.x[1]) / sigma**2, "kl": float(res.fun),
            "grad": float(np.linalg.norm(res.jac))}
