"""Claims on Gelberg et al., Sec. 3 and App. A: mode interpolation by a unimodal reverse-KL fit.

Target p_α^σ(x) = ½(N(x; 0, σ²I) + N(x; αu, σ²I)), Gaussian q = N(μ, Σ) initialised at the
component (0, σ²I). The target factorises into N(x_⊥; 0, σ²I) times a 1-D mixture along u,
so the fit reduces exactly to one dimension: q = N(m, s²) along u (the orthogonal block of
the optimum is the target's own factor). KL(q‖p) and its gradient are computed by
200-point Gauss–Hermite quadrature (exact to ~1e-15 for these smooth integrands at the
scales used), replacing the paper's S = 5000-sample estimate (8).

The threshold α* is where the fit started at the component stops ending at the midpoint
(m/α = ½) and stays at the component (m/α → 0). It is found by bisection on α for two
optimisers: gradient descent with the paper's step size 1e-2 and 3000 steps (in the
parameters (m, log s)), and BFGS.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from symcheck.claims import Claim, Evidence, register

_X, _W = np.polynomial.hermite_e.hermegauss(200)
_W = _W / _W.sum()


def _kl_and_grad(p: np.ndarray, a: float, sigma: float):
    """KL(N(m, s²) ‖ ½N(0, σ²) + ½N(a, σ²)) up to a constant, and its gradient in (m, log s)."""
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


def _fit_ratio(a: float, sigma: float, optimiser: str) -> float:
    """m/α at the end of the fit started from the component (0, σ²)."""
    p = np.array([0.0, np.log(sigma)])
    if optimiser == "gd":
        # the m-step is scaled by σ² so that the run for σ is the σ = 1 run rescaled (the
        # log s gradient is scale-free); for σ = 1 it is the paper's plain step size
        scale = np.array([sigma**2, 1.0])
        for _ in range(3000):
            p = p - 1e-2 * scale * _kl_and_grad(p, a, sigma)[1]
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # line-search trials at huge s
            p = optimize.minimize(_kl_and_grad, p, args=(a, sigma), jac=True, method="BFGS",
                                  options={"gtol": 1e-10}).x
    return p[0] / a


def _threshold(sigma: float, optimiser: str) -> float:
    """Smallest α (to 1e-3·σ) whose fit stays near the component (m/α < ¼)."""
    lo, hi = 1.0 * sigma, 10.0 * sigma
    while hi - lo > 1e-3 * sigma:
        mid = 0.5 * (lo + hi)
        if _fit_ratio(mid, sigma, optimiser) < 0.25:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def _check_threshold(rng):
    # "α* ≈ 5" is stated to one significant figure: the claim holds if α* ∈ [4.5, 5.5).
    rows = [(opt, _threshold(1.0, opt)) for opt in ("gd", "bfgs")]
    holds = all(4.5 <= t < 5.5 for _, t in rows)
    scaled = {s: _threshold(s, "gd") / s for s in (0.25, 2.0)}
    # the rescaled runs are the same run: equal up to twice the bisection resolution
    holds &= all(abs(v - rows[0][1]) <= 2e-3 for v in scaled.values())
    return Evidence(printed=5.0, independent=rows[0][1], tolerance=0.5, holds=holds,
                    detail=(f"alpha* (sigma = 1): gradient descent (lr 1e-2, 3000 steps) {rows[0][1]:.3f}, "
                            f"BFGS {rows[1][1]:.3f}; alpha*/sigma at sigma = 0.25, 2: "
                            + ", ".join(f"{v:.3f}" for v in scaled.values())),
                    params={"sigma": [0.25, 1.0, 2.0], "steps": 3000, "lr": 1e-2})


register(Claim(
    id="gelberg.sec3.mode-seeking-threshold",
    source="Gelberg et al., Sec. 3 and Fig. 3; App. A, Fig. 5",
    statement=("A Gaussian reverse-KL fit of ½(N(0, σ²I) + N(αu, σ²I)), started at the component (0, σ²I), ends "
               "at the midpoint for α below a threshold α* ≈ 5σ and at the component above it (α* ∝ σ)."),
    check=_check_threshold,
))
