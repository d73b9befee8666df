"""Louizos & Welling, supplementary note, Sec. 1: the KL between matrix-variate Gaussians as printed.

The general Gaussian KL the note starts from (``sec1_gaussian_kl``), the terms t_a, t_b, t_c of
eqs. (1)–(3) and the assembled KL of eq. (4), literally (explicit inverses and determinants, as
printed). The stable implementation is :func:`symcheck.kl.kl_matrix_normal`; the claims
comparing both with the dense Kronecker route are :mod:`symcheck.claims.louizos`.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "eq1_trace",
    "eq2_mahalanobis",
    "eq3_logdet",
    "eq4_kl",
    "sec1_gaussian_kl",
]

#: Functions implementing a labelled result under another name (read by the report's equation index).
EQUATIONS = {"sec1_gaussian_kl": ("louizos", "Sec. 1 (KL between multivariate Gaussians)")}


def sec1_gaussian_kl(m0, S0, m1, S1) -> float:
    """Sec. 1, first display, as printed: KL(N₀‖N₁) = ½(tr(Σ₁⁻¹Σ₀) + (μ₁−μ₀)ᵀΣ₁⁻¹(μ₁−μ₀) − K + log(|Σ₁|/|Σ₀|))."""
    P1 = np.linalg.inv(S1)
    d = m1 - m0
    return float(0.5 * (np.trace(P1 @ S0) + d @ P1 @ d - m0.size + np.log(np.linalg.det(S1) / np.linalg.det(S0))))


def eq1_trace(U0, V0, U1, V1) -> float:
    """Eq. (1) as printed: t_a = tr(U₁⁻¹U₀) tr(V₁⁻¹V₀)."""
    return float(np.trace(np.linalg.inv(U1) @ U0) * np.trace(np.linalg.inv(V1) @ V0))


def eq2_mahalanobis(M0, M1, U1, V1) -> float:
    """Eq. (2) as printed: t_b = tr((M₁−M₀)ᵀ U₁⁻¹ (M₁−M₀) V₁⁻¹)."""
    D = M1 - M0
    return float(np.trace(D.T @ np.linalg.inv(U1) @ D @ np.linalg.inv(V1)))


def eq3_logdet(U0, V0, U1, V1) -> float:
    """Eq. (3) as printed: t_c = p log|U₁| + n log|V₁| − p log|U₀| − n log|V₀| (U n×n, V p×p)."""
    n, p = U0.shape[0], V0.shape[0]
    ld = lambda A: np.log(np.linalg.det(A))  # noqa: E731 — literal |A|
    return float(p * ld(U1) + n * ld(V1) - p * ld(U0) - n * ld(V0))


def eq4_kl(M0, U0, V0, M1, U1, V1) -> float:
    """Eq. (4) as printed: KL = ½ (tr(U₁⁻¹U₀)tr(V₁⁻¹V₀) + tr((M₁−M₀)ᵀU₁⁻¹(M₁−M₀)V₁⁻¹)
    − np + p log|U₁| + n log|V₁| − p log|U₀| − n log|V₀|)."""
    n, p = M0.shape
    Ui, Vi = np.linalg.inv(U1), np.linalg.inv(V1)
    D = M1 - M0
    ld = lambda A: np.log(np.linalg.det(A))  # noqa: E731
    return float(0.5 * (np.trace(Ui @ U0) * np.trace(Vi @ V0) + np.trace(D.T @ Ui @ D @ Vi)
                        - n * p + p * ld(U1) + n * ld(V1) - p * ld(U0) - n * ld(V0)))
