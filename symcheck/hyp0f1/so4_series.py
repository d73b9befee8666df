"""₀F₁(2; AAᵀ/4) for k = 4 by a series of positive terms, through SO(4) ≅ (S³ × S³)/±1.

Derivation (symcheck). Identify ℝ⁴ with the quaternions, basis e₀ = 1, e₁ = i, e₂ = j, e₃ = k.
For unit quaternions p, q the map x ↦ p x q̄ is a rotation T(p, q) of ℝ⁴; (p, q) ↦ T(p, q) is
a two-to-one homomorphism of S³ × S³ onto SO(4) that carries the uniform law of (p, q) to Haar
measure. As right multiplication by a unit quaternion is orthogonal,

    T(p, q)ᵢᵢ = ⟨eᵢ, p eᵢ q̄⟩ = ⟨eᵢ q ēᵢ, p⟩,

and conjugation by eᵢ is diagonal in the basis (it fixes 1 and eᵢ and negates the other two units),
so Σᵢ σᵢ Tᵢᵢ = pᵀ Λ q with Λ = diag(λ), λ = Hσ, H the 4×4 Sylvester–Hadamard matrix:

    λ₀ = σ₀+σ₁+σ₂+σ₃,  λ₁ = σ₀+σ₁−σ₂−σ₃,  λ₂ = σ₀−σ₁+σ₂−σ₃,  λ₃ = σ₀−σ₁−σ₂+σ₃.

For uniform p on S³ ⊂ ℝ⁴, E exp⟨v, p⟩ = Γ(2) (|v|/2)⁻¹ I₁(|v|) = ₀F₁(2; |v|²/4), so

    I₊(σ) = ∫_{SO(4)} e^{Σσᵢ Tᵢᵢ} dT = E_q ₀F₁(2; Σⱼ aⱼ qⱼ²/4),   aⱼ = λⱼ²,

where (qⱼ²) is Dirichlet(½, ½, ½, ½). Expanding ₀F₁ and using the Dirichlet moments
E ∏ wⱼ^{mⱼ} = ∏ (½)_{mⱼ} / (2)ₙ (|m| = n):

    I₊ = Σₙ hₙ / (4ⁿ ((n+1)!)²),   hₙ = [tⁿ] ∏ⱼ (1 − aⱼ t)^{−1/2}  (all terms positive).

The other coset of O(4) is D·SO(4), D = diag(1, 1, 1, −1), i.e. σ₃ → −σ₃, and
log ₀F₁ = log ½(I₊ + I₋). Checks: σ = 0 gives 1; the first term gives Σσ²/8 = Σσ²/(2k).
The gradient: ∂ log I/∂λⱼ = E[pⱼ qⱼ] ∈ [−1, 1] under the tilted law, and

    ∂I/∂λⱼ = λⱼ Σ_{n≥1} q_{j,n−1} / (4ⁿ ((n+1)!)²),   q_{j,n} = [tⁿ] ∏ₗ(1 − aₗt)^{−1/2} / (1 − aⱼ t),

(from ∂hₙ/∂aⱼ = ½ q_{j,n−1}), then ∂ log I/∂σ = Hᵀ ∂ log I/∂λ.

Computation (float64, compiled). With bⱼ = (λⱼ/λ_max)² ∈ [0, 1], h̃ₙ = hₙ/a_maxⁿ are the
coefficients of ∏ⱼ (1 − bⱼt)^{−1/2}: each factor's coefficients (½)_m/m!·bⱼ^m by their two-term
recurrence, multiplied by direct convolution (positive terms: no cancellation; a factor with
bⱼ = 0 is skipped). gₙ = (λ_max/2)^{2n}/((n+1)!)² is carried as a mantissa and a binary exponent,
so nothing overflows for any λ with Σ|σ| finite, and Tₙ = h̃ₙgₙ are summed after exact scaling by
powers of two. The terms peak near n ≈ λ_max/2 and then fall like exp(−(n − λ_max/2)²/(λ_max/2));
the sum stops at N = ⌈μ + 12√μ + 60⌉ (μ = λ_max/2), and the tail is bounded rigorously: h̃ₙ ≤ n + 1
(coefficientwise ∏(1 − bⱼt)^{−1/2} ≤ (1 − t)^{−2}), so Σ_{n>N} Tₙ ≤ (N+2)g_{N+1}/(1 − ρ) with
ρ = (N+3)/(N+2)·(μ/(N+3))² (and (n+1)² for the gradient's sums, q̃ ≤ (n+1)²). Cost O(N²) for up
to three convolutions (factors with small bⱼ stop where their coefficients underflow): the route is
offered for N ≤ :data:`MAX_TERMS`, half a second to a few seconds a row at that limit.

Error bound (a proven bound on the float64 evaluation, for the computed λ). Every quantity is a
sum of products of positive numbers, so the relative error of each term is at most γ_K,
γ_K = Ku/(1 − Ku), with K = 12N + 16 counting the roundings along the longest chain (the factor
coefficients: 5 per degree including bⱼ's two; three convolutions of length ≤ N + 1; gₙ: 3 per
degree; the product and the final sum); the gradient's sums add 2N. The truncated tail is added
relative to the partial sum. The rounding of λ = Hσ (three additions: |Δλⱼ| ≤ γ₃Σ|σ|) moves
log I by at most Σ|Δλⱼ| (|∂ log I/∂λⱼ| ≤ 1) and each ∂ log I/∂λⱼ by at most Σ|Δλⱼ| (the tilted
covariances are ≤ 1). See :func:`log_hyp0f1_so4` for the assembled figures.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from symcheck.evidence import gamma

__all__ = ["MAX_TERMS", "coset_sums", "log_and_grad_so4", "log_hyp0f1_so4", "terms_needed"]

#: Largest number of series terms the route takes (N ≈ λ_max/2 + 12√(λ_max/2) + 60), i.e. Σσ up to ~4e4.
#: Measured per row (both cosets) near the limit, N ≈ 24 400, with two other jobs on the machine: 0.5 s for
#: σ = (2.2, 1.3, 0.7, 0.3)·10⁴ (two factors underflow early), 3.3 s for (44 000, 1000, 10, 0), where one
#: dominant σ makes all four λ large and every convolution full length.
MAX_TERMS = 25000

_U = 2.0**-53
_LOG2 = math.log(2.0)
#: Sylvester–Hadamard matrix: λ = H σ (module docstring).
H = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0], [1.0, -1.0, -1.0, 1.0]])
#: The second coset of O(4): σ₃ → −σ₃.
_FLIP = np.array([1.0, 1.0, 1.0, -1.0])


def terms_needed(lam_max: np.ndarray) -> np.ndarray:
    """Number of terms N the series sums for the largest |λ| (module docstring), as float (may exceed int range)."""
    mu = 0.5 * np.asarray(lam_max, dtype=float)
    return np.ceil(mu + 12.0 * np.sqrt(mu) + 60.0)


@njit(cache=True)
def _coset(lam, n_terms, want_grad):
    """log I(λ), ∂ log I/∂λ (zeros unless ``want_grad``), and the rigorous relative tail bounds of the
    value's sum and of the gradient sums (inf where the bound does not apply), for one coset.
    ``n_terms`` = N. The rounding of the N-term convolutions and sums is added by :func:`_assemble`."""
    amax = 0.0
    for j in range(4):
        amax = max(amax, abs(lam[j]))
    d = np.zeros(4)
    if amax == 0.0:
        return 0.0, d, 0.0, 0.0
    N = n_terms
    b = np.empty(4)
    for j in range(4):
        r = lam[j] / amax
        b[j] = r * r
    # h̃: coefficients of ∏ (1 − b_j t)^(-1/2), by convolution of the factors' positive series
    h = np.zeros(N + 1)
    h[0] = 1.0
    c = np.zeros(N + 1)
    tmp = np.zeros(N + 1)
    for j in range(4):
        if b[j] == 0.0:
            continue
        c[0] = 1.0
        last = 0
        for m in range(1, N + 1):
            c[m] = c[m - 1] * ((2.0 * m - 1.0) / (2.0 * m)) * b[j]
            if c[m] == 0.0:
                break
            last = m
        for n in range(N + 1):
            s = 0.0
            top = min(n, last)
            for m in range(top + 1):
                s += c[m] * h[n - m]
            tmp[n] = s
        for n in range(N + 1):
            h[n] = tmp[n]
        for m in range(last + 1):
            c[m] = 0.0
    # g_n = (λ_max/2)^(2n) / ((n+1)!)^2 as mantissa · 2^exponent
    half = 0.5 * amax
    gm = np.empty(N + 2)
    ge = np.empty(N + 2, dtype=np.int64)
    gm[0] = 1.0
    ge[0] = 0
    for n in range(1, N + 2):
        q = half / (n + 1.0)
        mant, ex = math.frexp(gm[n - 1] * (q * q))
        gm[n] = mant
        ge[n] = ge[n - 1] + ex
    # scale: the largest exponent of a term
    emax = -(2**62)
    for n in range(N + 1):
        if h[n] > 0.0:
            mant, ex = math.frexp(h[n] * gm[n])
            emax = max(emax, ex + ge[n])
    S = 0.0
    for n in range(N + 1):
        S += math.ldexp(h[n] * gm[n], int(ge[n] - emax))
    # rigorous tails: Σ_{n>N} (n+1)^p g_n ≤ (N+2)^p g_{N+1} / (1 − ρ_p)
    rho_ratio = (half / (N + 3.0)) ** 2
    g_next = math.ldexp(gm[N + 1], int(ge[N + 1] - emax))
    rel_tail = np.inf
    rel_tail_grad = np.inf
    rho1 = (N + 3.0) / (N + 2.0) * rho_ratio
    if rho1 < 1.0:
        rel_tail = (N + 2.0) * g_next / (1.0 - rho1) / S
    rho2 = ((N + 3.0) / (N + 2.0)) ** 2 * rho_ratio
    if rho2 < 1.0:
        rel_tail_grad = (N + 2.0) ** 2 * g_next / (1.0 - rho2) / S
    log_i = math.log(S) + emax * _LOG2
    if want_grad:
        # D_j = Σ_{n≥1} q̃_{j,n−1} g_n, q̃_{j,n} = b_j q̃_{j,n−1} + h̃_n
        for j in range(4):
            if lam[j] == 0.0:
                continue
            qj = 0.0
            D = 0.0
            for n in range(1, N + 1):
                qj = b[j] * qj + h[n - 1]
                D += math.ldexp(qj * gm[n], int(ge[n] - emax))
            # ∂ log I/∂λ_j = (λ_j/λ_max)/λ_max · D_j / S
            d[j] = (lam[j] / amax) * (D / S) / amax
    return log_i, d, rel_tail, rel_tail_grad


@njit(cache=True)
def _cosets(lams, n_terms, want_grad):
    n = lams.shape[0]
    log_i = np.empty((n, 2))
    dl = np.zeros((n, 2, 4))
    rel = np.empty((n, 2))
    rel_g = np.empty((n, 2))
    for r in range(n):
        for s in range(2):
            li, d, e, eg = _coset(lams[r, s], n_terms[r], want_grad)
            log_i[r, s] = li
            dl[r, s] = d
            rel[r, s] = e
            rel_g[r, s] = eg
    return log_i, dl, rel, rel_g


def coset_sums(flat: np.ndarray, want_grad: bool = False):
    """Per row of ``flat`` (n, 4): log I± (both cosets), ∂ log I±/∂λ, their relative error bounds, and λ±.

    The relative bounds: of I, γ_K (K = 12N + 16 roundings along a term's path: four convolutions, the
    weights, the scaling and the sum) plus the tail; of the gradient sums, 2γ_{K+2N} (the running sums
    q̃ add 2N) plus both tails. With u = 2⁻⁵³ (:func:`symcheck.evidence.gamma`).

    Rows needing more than :data:`MAX_TERMS` terms raise ValueError (callers check :func:`terms_needed`).
    """
    lam = np.stack([flat @ H.T, (flat * _FLIP) @ H.T], axis=1)  # (n, 2, 4)
    need = terms_needed(np.abs(lam).max(axis=(1, 2)))
    if np.any(need > MAX_TERMS):
        raise ValueError(f"sigma: the k = 4 series needs more than {MAX_TERMS} terms (sum of sigma above "
                         f"~{2 * (MAX_TERMS - 12 * math.sqrt(MAX_TERMS)):.3g})")
    log_i, dl, tail, tail_g = _cosets(np.ascontiguousarray(lam), need.astype(np.int64), bool(want_grad))
    K = 12.0 * need + 16.0
    rel = gamma(K)[:, None] + tail
    rel_g = (2.0 * gamma(K + 2.0 * need)[:, None] + tail + tail_g) if want_grad else np.full_like(rel, np.inf)
    return log_i, dl, rel, rel_g, lam


def _assemble(flat: np.ndarray, want_grad: bool):
    log_i, dl, rel, rel_g, lam = coset_sums(flat, want_grad)
    value = np.logaddexp(log_i[:, 0], log_i[:, 1]) - _LOG2
    # perturbation of λ by its rounding: |Δλ_j| ≤ γ₃ Σ|σ| each; |∂ log I/∂λ_j| ≤ 1
    dlam = 4.0 * gamma(3) * np.abs(flat).sum(axis=1)
    rel_max = rel.max(axis=1)
    error = (rel_max / (1.0 - rel_max) + dlam
             + 4.0 * _U * (np.abs(value) + np.abs(log_i).max(axis=1) + _LOG2))  # log, logaddexp, −log 2
    if not want_grad:
        return value, error
    w = np.exp(log_i - value[:, None] - _LOG2)  # coset weights I±/(I₊ + I₋)
    g_plus = dl[:, 0] @ H
    g_minus = (dl[:, 1] @ H) * _FLIP
    grad = w[:, :1] * g_plus + w[:, 1:] * g_minus
    # each ∂ log I/∂λ_j: relative rel_g, plus the λ perturbation; then Hᵀ (4 terms) and the weights
    dmag = np.abs(dl).sum(axis=2).max(axis=1)  # Σ_j |∂ log I/∂λ_j|, larger coset
    gerr = (rel_g.max(axis=1) * dmag + 4.0 * dlam + 2.0 * rel_max * np.abs(g_plus - g_minus).max(axis=1)
            + 8.0 * _U * (dmag + 1.0))
    return value, error, grad, gerr


def log_hyp0f1_so4(flat: np.ndarray):
    """log ₀F₁(2; AAᵀ/4) for rows ``flat`` (n, 4) of singular values, and a bound on its absolute error.

    The bound covers the float64 evaluation and the truncation (module docstring): the relative
    error of I±, γ_K with K = 12N + 16, plus the tail, taken into the log; the rounding of λ = Hσ
    (Σⱼ|Δλⱼ| ≤ 4γ₃Σ|σ|); and a few ulps of the logs and of log-add-exp.
    """
    return _assemble(flat, False)


def log_and_grad_so4(flat: np.ndarray):
    """(log ₀F₁, its error bound, ∂ log ₀F₁/∂σ, a bound on the gradient's largest absolute error), rows (n, 4).

    ∂ log ₀F₁/∂σ = w₊ Hᵀd₊ + w₋ D Hᵀd₋ with dⱼ = ∂ log I/∂λⱼ and the coset weights w± = I±/(I₊ + I₋).
    The bound: the gradient sums' relative error times Σⱼ|dⱼ|, 4Σ|Δλ| for the rounding of λ (the
    tilted covariances are ≤ 1), the weights' error times |Hᵀd₊ − D Hᵀd₋|, and the final sums' rounding.
    """
    return _assemble(flat, True)
