"""Turner, Berkes & Sahani, Secs. 1–2: the printed equations, literally, with corrected twins.

Sec. 1: the KL between a factored and a correlated Gaussian (eqs. (1)–(2)) and its optimum
(eq. (3)). Sec. 2.1: the 2-D Gaussian along [1, 1], [1, −1] (eqs. (4)–(5)) and the AR(1) pair
(eqs. (6)–(12)). Sec. 2.2: the symmetric binary Markov chain (eqs. (13)–(18)).

Each function ``eqN_*`` is eq. (N) as printed (its docstring quotes the printed form);
``eqN_*_corrected`` is the corrected form where the printed one fails. The models these
equations describe, built from their definitions, are :mod:`symcheck.models.turner_compact`;
the claims comparing the two are :mod:`symcheck.claims.turner_factored`.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "eq10_covariance",
    "eq10_precision",
    "eq11_variance",
    "eq15_joint",
    "eq16_kl",
    "eq17_rhs",
    "eq18_limits",
    "eq1_kl",
    "eq1_kl_corrected",
    "eq2_second_moment",
    "eq3_optimum",
    "eq3_optimum_corrected",
    "eq4_covariance",
    "eq5_variance",
    "eq5_variance_corrected",
    "eq7_stationary_variance",
    "sec21_axis_variances",
    "sec21_variance_ratio",
]

#: Functions implementing a labelled result under another name (read by the report's equation index).
EQUATIONS = {
    "sec21_axis_variances": ("turner", "Sec. 2.1, eqs. (4) and (10)"),
    "sec21_variance_ratio": ("turner", "Sec. 2.1, eq. (12)"),
}


def eq1_kl(sigma2, Sigma, Sigma_x) -> float:
    """Eq. (1) as printed: KL(q|p) = −½ Σ_k log σ_k² + ½ log det Σ⁻¹ + ½ tr(Σ⁻¹ Σ_x)."""
    Sigma_inv = np.linalg.inv(Sigma)
    return float(-0.5 * np.sum(np.log(sigma2)) + 0.5 * np.log(np.linalg.det(Sigma_inv))
                 + 0.5 * np.trace(Sigma_inv @ Sigma_x))


def eq1_kl_corrected(sigma2, Sigma, Sigma_x) -> float:
    """Eq. (1) corrected: −½ Σ_k log σ_k² + ½ log det Σ + ½ tr(Σ⁻¹ Σ_x) − K/2."""
    K = len(sigma2)
    return float(-0.5 * np.sum(np.log(sigma2)) + 0.5 * np.log(np.linalg.det(Sigma))
                 + 0.5 * np.trace(np.linalg.inv(Sigma) @ Sigma_x) - 0.5 * K)


def eq2_second_moment(m, sigma2, mu) -> np.ndarray:
    """Eq. (2): Σ_x = ⟨(x − μ)(x − μ)ᵀ⟩_q for q = N(m, diag σ²), i.e. diag σ² + (m − μ)(m − μ)ᵀ."""
    d = np.asarray(m) - np.asarray(mu)
    return np.diag(sigma2) + np.outer(d, d)


def eq3_optimum(mu, Sigma):
    """Eq. (3) as printed: μ_k = μ_k, σ_k² = 1 / Σ_kk²."""
    return np.asarray(mu, dtype=float).copy(), 1.0 / np.diag(Sigma) ** 2


def eq3_optimum_corrected(mu, Sigma):
    """Eq. (3) corrected (as the text states: precisions match): μ_k = μ_k, σ_k² = 1 / (Σ⁻¹)_kk."""
    return np.asarray(mu, dtype=float).copy(), 1.0 / np.diag(np.linalg.inv(Sigma))


def eq4_covariance(s1, s2) -> np.ndarray:
    """Eq. (4): Σ = ½ σ₁² e₁e₁ᵀ + ½ σ₂² e₂e₂ᵀ with e₁ = [1, 1], e₂ = [1, −1]."""
    e1, e2 = np.array([1.0, 1.0]), np.array([1.0, -1.0])
    return 0.5 * s1 * np.outer(e1, e1) + 0.5 * s2 * np.outer(e2, e2)


def eq5_variance(s1, s2) -> float:
    """Eq. (5) as printed: q(x_i) = Norm(0, ½ σ₁²σ₂² / (σ₁² + σ₂²))."""
    return 0.5 * s1 * s2 / (s1 + s2)


def eq5_variance_corrected(s1, s2) -> float:
    """Eq. (5) corrected: q(x_i) = Norm(0, 2 σ₁²σ₂² / (σ₁² + σ₂²)) (= 1 / (Σ⁻¹)_ii)."""
    return 2.0 * s1 * s2 / (s1 + s2)


def eq7_stationary_variance(sigma2, lam) -> float:
    """Eq. (7): σ_∞² = σ² / (1 − λ²)."""
    return sigma2 / (1.0 - lam * lam)


def eq10_precision(sigma2, lam) -> np.ndarray:
    """Eq. (10), left: Σ⁻¹ = (1/σ²) [[1, −λ], [−λ, 1]]."""
    return np.array([[1.0, -lam], [-lam, 1.0]]) / sigma2


def eq10_covariance(sigma2, lam) -> np.ndarray:
    """Eq. (10), right: Σ = σ²/(1 − λ²) [[1, λ], [λ, 1]]."""
    return sigma2 / (1.0 - lam * lam) * np.array([[1.0, lam], [lam, 1.0]])


def sec21_axis_variances(sigma2, lam) -> tuple[float, float]:
    """Sec. 2.1 text: the AR(1) pair is eq. (4) with σ₁² = σ²/(1 − λ), σ₂² = σ²/(1 + λ)."""
    return sigma2 / (1.0 - lam), sigma2 / (1.0 + lam)


def eq11_variance(sigma2, lam) -> float:
    """Eqs. (11)–(12): q(x_t) = q(x_{t−1}) = Norm(0, σ²)."""
    return sigma2


def sec21_variance_ratio(lam) -> float:
    """Sec. 2.1 text: σ_var² / σ_true² = 1 − λ²."""
    return 1.0 - lam * lam


def eq15_joint(delta) -> np.ndarray:
    """Eq. (15): p(x₁, x₂) = ½ [[1 − Δ, Δ], [Δ, 1 − Δ]]."""
    return 0.5 * np.array([[1.0 - delta, delta], [delta, 1.0 - delta]])


def eq16_kl(rho1, rho2, delta) -> float:
    """Eq. (16) as printed: −ρ₁ρ₂ log ½(1−Δ) − (1−ρ₁)ρ₂ log ½Δ − ρ₁(1−ρ₂) log ½Δ
    − (1−ρ₁)(1−ρ₂) log ½(1−Δ) + ρ₁ log ρ₁ + (1−ρ₁) log(1−ρ₁) + ρ₂ log ρ₂ + (1−ρ₂) log(1−ρ₂)."""
    a, b = np.log(0.5 * (1 - delta)), np.log(0.5 * delta)
    return float(-rho1 * rho2 * a - (1 - rho1) * rho2 * b - rho1 * (1 - rho2) * b
                 - (1 - rho1) * (1 - rho2) * a
                 + rho1 * np.log(rho1) + (1 - rho1) * np.log(1 - rho1)
                 + rho2 * np.log(rho2) + (1 - rho2) * np.log(1 - rho2))


def eq17_rhs(rho, delta) -> float:
    """Eq. (17), right-hand side: 1 / (1 + (Δ/(1−Δ))^(2ρ₁−1)); the fixed point has ρ₁ = ρ₂."""
    return 1.0 / (1.0 + (delta / (1.0 - delta)) ** (2.0 * rho - 1.0))


def eq18_limits() -> tuple[np.ndarray, np.ndarray]:
    """Eq. (18): q(x₁, x₂) → [[0, 0], [0, 1]] or [[1, 0], [0, 0]] as Δ → 0."""
    return np.array([[0.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 0.0]])
