"""The compactness models of Turner, Berkes & Sahani, Sec. 2, built from their generative definitions.

These are the brute-force routes of the Sec. 2 claims: nothing here uses the report's
closed forms (eqs. (7), (10), (15)–(17)); each quantity is assembled from the model as
defined.

AR(1) (eq. (6))
    x_t | x_{t−1} ~ N(λ x_{t−1}, σ²), started from its stationary law. The stationary
    variance solves the discrete Lyapunov equation v = λ v λ + σ² (solved by
    ``scipy.linalg.solve_discrete_lyapunov``); the joint covariance of T consecutive
    states is propagated step by step, and the joint precision is assembled from the
    quadratic forms of the log density, x₁²/v + Σ_t (x_t − λx_{t−1})²/σ².
    Valid for |λ| < 1 and σ² > 0.
symmetric binary Markov chain (eqs. (13)–(14))
    p(x₁) = (½, ½), p(x_t | x_{t−1}) = 1 − Δ if x_t = x_{t−1} else Δ, for 0 < Δ < 1;
    joint probabilities and the KL of a fully factored q = Π_t Bernoulli(ρ_t) by
    enumeration of all 2^T states.

References
----------
R. E. Turner, P. Berkes, M. Sahani, Technical Report for Biases in Variational Learning, Sec. 2.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import linalg

from symcheck._checks import as_finite_array, check_int, check_positive_float

__all__ = [
    "ar1_joint_covariance",
    "ar1_joint_precision",
    "ar1_stationary_variance",
    "binary_chain_joint",
    "binary_chain_factored_kl",
]

#: Largest chain length the enumeration accepts (2^T states).
MAX_ENUMERATION_LENGTH = 20


def _check_ar1(sigma2, lam) -> tuple[float, float]:
    sigma2 = check_positive_float(sigma2, "sigma2")
    try:
        lam = float(lam)
    except (TypeError, ValueError):
        raise ValueError(f"lam must be a real number, got {lam!r}") from None
    if not np.isfinite(lam) or abs(lam) >= 1:
        raise ValueError(f"lam must satisfy |lam| < 1 for a stationary AR(1) process, got {lam}")
    return sigma2, lam


def ar1_stationary_variance(sigma2, lam) -> float:
    """Stationary variance of x_t = λx_{t−1} + N(0, σ²), from the discrete Lyapunov equation.

    Solves v = λ v λ + σ² with ``scipy.linalg.solve_discrete_lyapunov`` (no closed form
    used). Its relative rounding error grows like eps / (1 − λ²).
    """
    sigma2, lam = _check_ar1(sigma2, lam)
    return float(linalg.solve_discrete_lyapunov(np.array([[lam]]), np.array([[sigma2]]))[0, 0])


def ar1_joint_covariance(sigma2, lam, T: int = 2) -> np.ndarray:
    """Covariance of (x₁, …, x_T) of the stationary AR(1), propagated through the dynamics.

    Cov(x_t, x_s) = λ Cov(x_{t−1}, x_s) for s < t, Var(x_t) = λ² Var(x_{t−1}) + σ², started
    from the stationary variance of :func:`ar1_stationary_variance`.
    """
    sigma2, lam = _check_ar1(sigma2, lam)
    T = check_int(T, "T", minimum=1)
    C = np.zeros((T, T))
    C[0, 0] = ar1_stationary_variance(sigma2, lam)
    for t in range(1, T):
        C[t, :t] = lam * C[t - 1, :t]
        C[:t, t] = C[t, :t]
        C[t, t] = lam * lam * C[t - 1, t - 1] + sigma2
    return C


def ar1_joint_precision(sigma2, lam, T: int = 2) -> np.ndarray:
    """Precision of (x₁, …, x_T) assembled from the log density of the stationary AR(1).

    −2 log p = x₁²/v + Σ_{t≥2} (x_t − λx_{t−1})²/σ² + const, so the precision is
    e₁e₁ᵀ/v + Σ_t a_t a_tᵀ/σ² with a_t = e_t − λe_{t−1} and v from
    :func:`ar1_stationary_variance`.
    """
    sigma2, lam = _check_ar1(sigma2, lam)
    T = check_int(T, "T", minimum=1)
    P = np.zeros((T, T))
    P[0, 0] = 1.0 / ar1_stationary_variance(sigma2, lam)
    for t in range(1, T):
        a = np.zeros(T)
        a[t], a[t - 1] = 1.0, -lam
        P += np.outer(a, a) / sigma2
    return P


def _check_delta(delta) -> float:
    delta = check_positive_float(delta, "delta")
    if delta >= 1:
        raise ValueError(f"delta must satisfy 0 < delta < 1 (a switching probability), got {delta}")
    return delta


def _states(T: int) -> np.ndarray:
    return np.array(list(itertools.product((0, 1), repeat=T)), dtype=np.int8)


def binary_chain_joint(delta, T: int = 2) -> np.ndarray:
    """Joint probabilities p(x₁, …, x_T) of the symmetric binary chain, shape (2,)*T.

    p(x₁) = ½ and each step keeps the state with probability 1 − Δ; computed by
    multiplying the factors along every one of the 2^T state sequences.
    """
    delta = _check_delta(delta)
    T = check_int(T, "T", minimum=1)
    if T > MAX_ENUMERATION_LENGTH:
        raise ValueError(f"T must be <= {MAX_ENUMERATION_LENGTH} for enumeration, got {T}")
    out = np.empty((2,) * T)
    for s in _states(T):
        prob = 0.5
        for t in range(1, T):
            prob *= (1.0 - delta) if s[t] == s[t - 1] else delta
        out[tuple(s)] = prob
    return out


def binary_chain_factored_kl(rho, delta) -> float:
    """KL[q ‖ p] for q(x) = Π_t ρ_t^{x_t}(1 − ρ_t)^{1−x_t} and p the symmetric binary chain.

    Enumerates Σ_x q(x) (log q(x) − log p(x)) over all 2^T states with T = len(rho),
    using 0 log 0 = 0.

    Parameters
    ----------
    rho : array_like, shape (T,)
        q(x_t = 1), each in [0, 1].
    delta : float
        Switching probability, 0 < Δ < 1.
    """
    rho = as_finite_array(rho, "rho", ndim_min=1)
    if rho.ndim != 1:
        raise ValueError(f"rho must be 1-D, got shape {rho.shape}")
    if np.any((rho < 0) | (rho > 1)):
        raise ValueError("rho must lie in [0, 1] (probabilities)")
    p = binary_chain_joint(delta, rho.size)
    total = 0.0
    for s in _states(rho.size):
        q = float(np.prod(np.where(s == 1, rho, 1.0 - rho)))
        if q > 0:
            total += q * (np.log(q) - np.log(p[tuple(s)]))
    return total
