"""Moore's scalar and 1×2 factorisation models (Figs. 1–3) in closed form.

Fig. 1/3: r = uv + ε, u, v, ε ~ N(0, 1). Fig. 2: r = u vᵀ + ε with u, v ∈ R^{1×2} (no 1/√k).
Both are Moore's matrix model (:mod:`symcheck.models.moore_mf`) with n = m = 1, unit noise and
gain 1 (k = 1 and k = 2): :func:`scalar_problem`.

Mean-field collapse threshold (Fig. 1 caption, Fig. 3). The coordinate-ascent updates for
q = N(m_u, s_u) N(m_v, s_v) are s_u = 1/(1 + m_v² + s_v), m_u = r m_v s_u (and u ↔ v). A
fixed point with m_u m_v ≠ 0 needs r s = 1 in the symmetric solution, i.e. s = 1/r and
1 + m² + 1/r = r: m² = r − 1 − 1/r, positive iff r² − r − 1 > 0, i.e. r > φ = (1 + √5)/2.
Below φ the only fixed point is the origin with s = 1/φ. So MFVI predicts
E[uv|r] = max(r − 1 − 1/r, 0) (:func:`mfvi_product`), and r = 1.5 of Fig. 1 is below φ.

Fig. 2 ring. p(u|r) ∝ N(u; 0, I) N(r; 0, 1 + |u|²) depends on |u| only; with t = 1 + |u|², the
stationarity condition is t² + t − r² = 0, so the marginal peaks on the circle
|u|² = (√(1 + 4r²) − 1)/2 − 1 when r > √2 (:func:`ring_radius`), at the origin otherwise.

References
----------
D. A. Moore (2016), *Symmetrized Variational Inference*, Figs. 1–3, Sec. 3.1.
"""

from __future__ import annotations

import math

import numpy as np

from symcheck._checks import as_finite_array, check_int
from symcheck.models.moore_mf import MFProblem

__all__ = ["GOLDEN", "log_marginal_u", "mfvi_optimum", "mfvi_product", "ring_radius", "scalar_problem"]

#: MFVI collapse threshold of r = uv + ε: (1 + √5)/2.
GOLDEN = (1 + math.sqrt(5)) / 2


def scalar_problem(r: float, k: int = 1) -> MFProblem:
    """Moore's model with n = m = 1, σ_n = 1, gain 1: r = u vᵀ + ε, u, v ∈ R^{1×k}."""
    return MFProblem(np.array([[float(r)]]), check_int(k, "k", minimum=1), 1.0, 1.0)


def mfvi_product(r: float) -> float:
    """MFVI predictive mean E_q[uv] = max(|r| − 1 − 1/|r|, 0)·sign r (module docstring)."""
    a = abs(float(r))
    return math.copysign(a - 1 - 1 / a, r) if a > GOLDEN else 0.0


def mfvi_optimum(r: float) -> tuple[float, float, float, float]:
    """Symmetric MFVI optimum (m_u, m_v, log s_u, log s_v) for r ≥ 0 (module docstring).

    Above φ: s = 1/r, m = √(r − 1 − 1/r); at or below φ: m = 0, s = 1/φ (the root of s² + s − 1).
    """
    r = float(r)
    if r > GOLDEN:
        m = math.sqrt(r - 1 - 1 / r)
        return m, m, -math.log(r), -math.log(r)
    return 0.0, 0.0, -math.log(GOLDEN), -math.log(GOLDEN)


def ring_radius(r: float) -> float:
    """Radius of the circle on which p(u|r) of the 1×2 model (Fig. 2) is largest (0 if r² ≤ 2)."""
    t = (math.sqrt(1 + 4 * float(r) ** 2) - 1) / 2
    return math.sqrt(t - 1) if t > 1 else 0.0


def log_marginal_u(u, r: float) -> np.ndarray:
    """log p(u|r) + const for the 1×2 model: −|u|²/2 − ½ log(1 + |u|²) − r²/(2(1 + |u|²)); u (..., 2)."""
    u = as_finite_array(u, "u")
    t = 1 + np.sum(u * u, axis=-1)
    return -0.5 * (t - 1) - 0.5 * np.log(t) - 0.5 * float(r) ** 2 / t
