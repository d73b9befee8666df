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
from scipy import integrate

from symcheck._checks import as_finite_array, check_int
from symcheck.gaussian import entropy_gaussian
from symcheck.models.moore_mf import MFProblem
from symcheck.signflip_exact import signflip_gap_1d

__all__ = ["GOLDEN", "base_terms_1x2", "bayes_predictive_mean", "elbo_meanfield", "elbo_symmetrized", "log_evidence",
           "log_evidence_1x2", "log_joint", "log_marginal_u", "map_predictive_mean", "mfvi_optimum", "mfvi_product",
           "ring_radius", "scalar_problem"]

#: MFVI collapse threshold of r = uv + ε: (1 + √5)/2.
GOLDEN = (1 + math.sqrt(5)) / 2
_LOG_2PI = math.log(2 * math.pi)


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


# --- r = uv + ε: ELBOs, evidence and predictive means (Moore Sec. 3.1, Figs. 1 and 3) ---------------

def log_joint(z, r):
    """log p(r, u, v) for a batch ``z`` of shape (S, 2)."""
    u, v = z[:, 0], z[:, 1]
    return -1.5 * _LOG_2PI - 0.5 * (u * u + v * v + (r - u * v) ** 2)


def elbo_meanfield(params, r):
    """Moore eq. (2) in closed form for q* = N(m_u, s_u) N(m_v, s_v); params = (m_u, m_v, log s_u, log s_v)."""
    mu, mv, lu, lv = params
    su, sv = math.exp(lu), math.exp(lv)
    eu2, ev2 = mu * mu + su, mv * mv + sv
    e_log_joint = -1.5 * _LOG_2PI - 0.5 * (eu2 + ev2 + r * r - 2 * r * mu * mv + eu2 * ev2)
    return e_log_joint + entropy_gaussian(np.array([su, sv]))


def elbo_symmetrized(params, r):
    """Moore eq. (5): eq. (2) + KL[q*‖q̃] (sign flip of (u, v), exact by quadrature).

    KL depends on q* only through s = m_u²/s_u + m_v²/s_v (see ``SignFlip.exact_gap``).
    """
    mu, mv, lu, lv = params
    return elbo_meanfield(params, r) + signflip_gap_1d(mu * mu / math.exp(lu) + mv * mv / math.exp(lv))


def log_evidence(r):
    """log p(r) = log ∫ N(u; 0, 1) N(r; 0, 1 + u²) du (1-D quadrature)."""
    f = lambda u: math.exp(-0.5 * u * u - 0.5 * r * r / (1 + u * u)) / (2 * math.pi * math.sqrt(1 + u * u))  # noqa: E731
    return math.log(integrate.quad(f, -np.inf, np.inf, epsabs=0, epsrel=1e-13)[0])


def bayes_predictive_mean(r):
    """E[uv | r]: v | u, r is Gaussian with mean ru/(1+u²), so E[uv|r] = E[r u²/(1+u²) | r] (1-D quadrature)."""
    w = lambda u: math.exp(-0.5 * u * u - 0.5 * r * r / (1 + u * u)) / math.sqrt(1 + u * u)  # noqa: E731
    num = integrate.quad(lambda u: w(u) * r * u * u / (1 + u * u), -np.inf, np.inf, epsabs=0, epsrel=1e-12)[0]
    return num / integrate.quad(w, -np.inf, np.inf, epsabs=0, epsrel=1e-12)[0]


def map_predictive_mean(r):
    """uv at the MAP: ∂/∂u of −(u²+v²+(r−uv)²)/2 vanishes at u = v = √(r−1) for r > 1, else at 0."""
    return max(r - 1.0, 0.0)


# --- r = u vᵀ + ε, u, v ∈ R^{1×2} (Moore Fig. 2): evidence and the closed-form part of eq. (5) -------

def log_evidence_1x2(r: float, noise_var: float) -> float:
    """log p(r) of r = u vᵀ + ε, u, v ∈ R^{1×2}, ε ~ N(0, noise_var), by 1-D quadrature over t = |u|² ~ χ²₂
    (u·v | u ~ N(0, |u|²))."""
    f = lambda t: 0.5 * np.exp(-t / 2 - r * r / (2 * (noise_var + t))) / np.sqrt(2 * np.pi * (noise_var + t))
    val, _ = integrate.quad(f, 0, np.inf, epsabs=0, epsrel=1e-13)
    return float(np.log(val))


def base_terms_1x2(M: np.ndarray, c: float, r: float, noise_var: float) -> float:
    """E_{q*}[log p(r, X)] + H(q*) in closed form for q* = N(M, cI) on X = [u; v] (Fig. 2 model).

    E[log p(r | X)] = −½ log 2πσ² − (r² − 2r m_u·m_v + E[(u·v)²])/(2σ²) with
    E[(u·v)²] = (m_u·m_v)² + c(|m_u|² + |m_v|²) + k c², E[log N(X; 0, I)] = −(Nk/2) log 2π − ½(‖M‖² + Nk c),
    H(q*) = (Nk/2) log(2πe c).
    """
    n, k = M.shape
    mu, mv = M
    e_uv = mu @ mv
    e_uv2 = e_uv**2 + c * (mu @ mu) + c * (mv @ mv) + k * c * c
    ell = -0.5 * np.log(2 * np.pi * noise_var) - (r * r - 2 * r * e_uv + e_uv2) / (2 * noise_var)
    prior = -0.5 * n * k * np.log(2 * np.pi) - 0.5 * (np.sum(M * M) + n * k * c)
    entropy = 0.5 * n * k * np.log(2 * np.pi * np.e * c)
    return float(ell + prior + entropy)
