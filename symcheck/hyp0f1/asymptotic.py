"""Large-argument (Laplace-on-the-group) asymptotics of ₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} e^{Σσᵢ Tᵢᵢ} dT.

Derivation. Write σ sorted decreasingly. On the identity component SO(k) the exponent
Σσᵢ Tᵢᵢ is maximal at T = I; with T = exp(Θ), Θ skew with entries θᵢⱼ (i < j),
Σσᵢ Tᵢᵢ = Σσᵢ − ½ Σ_{i<j} (σᵢ + σⱼ) θᵢⱼ² + O(θ³). In the coordinates θᵢⱼ the Haar
*probability* measure of O(k) has density 1/(2·Vol SO(k)) at the identity, where
Vol SO(k) = ∏_{m=1}^{k−1} |S^m|, |S^m| = 2π^{(m+1)/2}/Γ((m+1)/2), is the volume for the
metric in which the θᵢⱼ are orthonormal. The Gaussian integral gives

    I₊ ≈ e^{Σσ} ∏_{i<j} sqrt(2π / (σᵢ + σⱼ)) / (2 Vol SO(k)).

The other coset is D·SO(k), D = diag(1, …, 1, −1) (the smallest σ flipped), with maximum
Σσ − 2σ_k and pair curvatures σᵢ + σⱼ (i < j < k) and σᵢ − σ_k (j = k):

    I₋ ≈ e^{Σσ − 2σ_k} ∏_{i<j<k} sqrt(2π/(σᵢ+σⱼ)) ∏_{i<k} sqrt(2π/(σᵢ−σ_k)) / (2 Vol SO(k)).

log ₀F₁ ≈ log(I₊ + I₋) (I₋ dropped when σ_{k−1} = σ_k, where its saddle degenerates and
its weight is ≤ I₊). Check for k = 2: I₊ = e^{σ₁+σ₂}/(2·sqrt(2π(σ₁+σ₂))), the leading term of
½ I₀(σ₁+σ₂).

First-order correction (``order=1``). Odd powers of a skew Θ have zero diagonal, so the
next term of the exponent is q(Θ) = Σσᵢ (Θ⁴)ᵢᵢ / 24; the Haar density in exponential
coordinates is J(Θ) = det((1 − e^{−ad Θ})/ad Θ), log J = tr(ad_Θ²)/24 + O(Θ⁴)
= (k−2) tr(Θ²)/24 = −(k−2)/12 Σ_{i<j} θᵢⱼ². With θᵢⱼ ~ N(0, vᵢⱼ), vᵢⱼ = 1/(σᵢ+σⱼ),
Gaussian moments give log I = (leading) + E[q] + E[log J] + O(1/σ²) with

    E[q] = (1/24) Σᵢ σᵢ [Σₗ vᵢₗ² + rᵢ² + Σₗ vᵢₗ rₗ],  rᵢ = Σₗ vᵢₗ,
    E[log J] = −(k−2)/12 Σ_{i<j} vᵢⱼ,

and the same on the other coset with σ_k replaced by −σ_k. For k = 2 this is 1/(8(σ₁+σ₂)),
the first term of the Hankel expansion of I₀.

Error: O(1/min pair sum) at order 0, O(1/min pair sum²) at order 1 (and the same in the gap
σ_{k−1} − σ_k for I₋); the report measures it. Valid range: all pair sums σᵢ + σⱼ ≫ 1,
i.e. at most one small singular value. Not valid near σ = 0 (it diverges there).
"""

from __future__ import annotations

import numpy as np
from scipy import special

__all__ = ["grad_log_hyp0f1_asymptotic", "log_hyp0f1_asymptotic", "log_vol_so"]

_LOG_2PI = np.log(2 * np.pi)


def log_vol_so(k: int) -> float:
    """log Vol SO(k) = Σ_{m=1}^{k−1} log |S^m| for the metric with orthonormal θᵢⱼ (i < j)."""
    m = np.arange(1, k)
    return float(np.sum(np.log(2.0) + (m + 1) / 2 * np.log(np.pi) - special.gammaln((m + 1) / 2)))


def _first_order(st: np.ndarray, k: int) -> np.ndarray:
    """E[q] + E[log J] for effective (signed) singular values ``st`` (n, k), see module notes."""
    with np.errstate(divide="ignore"):
        v = 1.0 / (st[:, :, None] + st[:, None, :])
    idx = np.arange(k)
    v[:, idx, idx] = 0.0
    r = v.sum(axis=2)
    term = (v * v).sum(axis=2) + r * r + np.einsum("nil,nl->ni", v, r)
    return (st * term).sum(axis=1) / 24.0 - (k - 2) / 24.0 * v.sum(axis=(1, 2))


def log_hyp0f1_asymptotic(sig: np.ndarray, k: int, order: int = 1) -> np.ndarray:
    """Large-σ asymptotic of log ₀F₁(k/2; AAᵀ/4), both cosets of O(k).

    Parameters
    ----------
    sig : ndarray, shape (..., k)
        Validated singular values; at most one may be small (see the module notes).
    k : int
    order : {0, 1}
        0: Laplace on the group (leading term); 1: with the O(1/σ) correction.

    Returns
    -------
    ndarray, shape sig.shape[:-1]
        ``-inf``-free where every pair sum σᵢ + σⱼ (i < j) is > 0; ``inf`` (flagging
        "outside the valid range") where a pair sum is 0.
    """
    flat = -np.sort(-sig.reshape(-1, k), axis=1)
    if k == 1:
        # O(1) = {±1}: the two "saddles" are exact.
        s = flat[:, 0]
        out = np.logaddexp(s, -s) - np.log(2.0)
        return out.reshape(sig.shape[:-1])
    iu, ju = np.triu_indices(k, 1)
    const = -np.log(2.0) - log_vol_so(k) + 0.5 * len(iu) * _LOG_2PI
    with np.errstate(divide="ignore"):
        pair = flat[:, iu] + flat[:, ju]
        log_plus = flat.sum(axis=1) + const - 0.5 * np.sum(np.log(pair), axis=1)
        last = ju == k - 1
        gap = flat[:, iu[last]] - flat[:, [k - 1]]
        log_minus = (flat.sum(axis=1) - 2 * flat[:, k - 1] + const - 0.5 * np.sum(np.log(pair[:, ~last]), axis=1)
                     - 0.5 * np.sum(np.log(gap), axis=1))
    degenerate = gap.min(axis=1) <= 0
    if order == 1:
        log_plus = log_plus + _first_order(flat, k)
        flipped = flat.copy()
        flipped[:, k - 1] *= -1
        with np.errstate(invalid="ignore"):
            log_minus = log_minus + np.where(degenerate, 0.0, _first_order(flipped, k))
    log_minus[degenerate] = -np.inf
    out = np.logaddexp(log_plus, log_minus)
    return out.reshape(sig.shape[:-1])


def grad_log_hyp0f1_asymptotic(sig: np.ndarray, k: int, order: int = 1) -> np.ndarray:
    """Gradient of :func:`log_hyp0f1_asymptotic` in σ by central differences.

    Step hᵢ = 1e-5·max(1, σᵢ): the truncation error h²·|f'''| is below 1e-10·|∂f/∂σ| for
    the smooth (rational and logarithmic) terms of the expansion, far below the expansion's
    own O(1/σ²) error; rounding adds ~ eps·|f|/h.
    """
    flat = sig.reshape(-1, k)
    grad = np.empty_like(flat)
    for i in range(k):
        h = 1e-5 * np.maximum(1.0, flat[:, i])
        up, dn = flat.copy(), flat.copy()
        up[:, i] += h
        dn[:, i] = np.maximum(dn[:, i] - h, 0.0)
        grad[:, i] = (log_hyp0f1_asymptotic(up, k, order) - log_hyp0f1_asymptotic(dn, k, order)) / (up[:, i] - dn[:, i])
    return grad.reshape(sig.shape)
