"""Butler–Wood Laplace approximation of ₀F₁(k/2; AAᵀ/4), as in Moore (2016) eq. (7).

Moore (2016), App. A, eq. (7):

    ₀F₁(k/2; AAᵀ/4) ≈ ∏ᵢ (1 − ŷᵢ²)^{k/2} e^{σᵢ ŷᵢ} / sqrt(∏ᵢ ∏ⱼ (1 − ŷᵢ² ŷⱼ²)).

Two forms of the saddle point ŷᵢ are in the paper:

``"printed"``   ŷᵢ = 2σᵢ / (k sqrt(4σᵢ²/k² + 1) + 1)          (eq. (7) as printed)
``"listing"``   ŷᵢ = u / (sqrt(u² + 1) + 1),  u = 2σᵢ/k        (Listing 1, ``log_bessel``)

and a third variant, ``"pairs-once"``: the listing ŷ with the denominator's product taken
over unordered pairs i ≤ j instead of all ordered pairs (i, j). Laplace's method on O(k)
(expanding Σσᵢ Tᵢᵢ to second order around T = I) gives log ₀F₁ = Σσᵢ − ½Σ_{i<j} log(σᵢ+σⱼ)
+ const + O(1/σ); only the i ≤ j product reproduces the σ-dependence of that expansion,
while the ordered-pair product of eq. (7) leaves an error that grows like
(k−1)/2 · Σᵢ log σᵢ − ½ Σ_{i<j} log(σᵢ+σⱼ) (see the claims ``moore.eq7.*``).

i.e. ŷᵢ = 2σᵢ / (k sqrt(4σᵢ²/k² + 1) + k). They agree only for k = 1. The listing form
solves the Laplace saddle-point equation of Butler & Wood (2003) for ₀F₁(b; X) with
b = k/2, xᵢ = σᵢ²/4: ŷᵢ = 2√xᵢ / (b + sqrt(b² + 4xᵢ)). The report and the claims measure
both against the exact value.

Everything is computed in log space with 1 − ŷ² in closed form (no cancellation):
listing: 1 − ŷ² = 2 / (1 + s); printed: 1 − ŷ² = (k² + 2ks + 1) / (ks + 1)², s = sqrt(u²+1);
and 1 − ŷᵢ²ŷⱼ² = aᵢ + aⱼ − aᵢaⱼ with aᵢ = 1 − ŷᵢ².

Valid range: any σ ≥ 0, any k ≥ 1 (no overflow: the log grows like Σσᵢ). Exact at σ = 0.
Its error is measured in the report, never assumed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from symcheck._checks import check_choice

__all__ = ["VARIANTS", "grad_log_hyp0f1_laplace", "log_hyp0f1_laplace"]

VARIANTS = {"listing": 0, "printed": 1, "pairs-once": 2}


@njit(cache=True)
def _saddle(sig, k, variant, y, a, dy):
    """Fill ŷ, a = 1 − ŷ² and dŷ/dσ for one row of singular values."""
    for i in range(k):
        u = 2.0 * sig[i] / k
        s = math.hypot(u, 1.0)  # no overflow of u² for huge σ
        if variant != 1:
            y[i] = u / (s + 1.0)
            a[i] = 2.0 / (1.0 + s)
            dy[i] = (2.0 / k) / (s * (s + 1.0))
        else:
            den = k * s + 1.0
            y[i] = k * u / den
            a[i] = (k * k + 2.0 * k * s + 1.0) / (den * den)
            dy[i] = 2.0 * (k + s) / (s * den * den)


@njit(cache=True)
def _laplace_kernel(sig, k, variant, want_grad, out, grad):
    n = sig.shape[0]
    y = np.empty(k)
    a = np.empty(k)
    dy = np.empty(k)
    half_k = 0.5 * k
    for r in range(n):
        _saddle(sig[r], k, variant, y, a, dy)
        num = 0.0
        for i in range(k):
            num += half_k * np.log(a[i]) + sig[r, i] * y[i]
        # Σ log(aᵢ + aⱼ − aᵢaⱼ) over i < j and over i = j, as logs of running products:
        # every factor lies in (0, 1], so a log is taken only when the product falls below
        # 1e-150 (or for a factor below that), never underflowing; rounding stays ~ k²·eps.
        off = 0.0
        diag = 0.0
        prod = 1.0
        for i in range(k):
            diag += np.log(a[i] * (2.0 - a[i]))
            for j in range(i + 1, k):
                f = a[i] + a[j] - a[i] * a[j]
                if f < 1e-150:
                    off += np.log(f)
                    continue
                prod *= f
                if prod < 1e-150:
                    off += np.log(prod)
                    prod = 1.0
        off += np.log(prod)
        # eq. (7): all ordered pairs (i, j) = 2·(i < j) + diagonal; "pairs-once": i ≤ j
        den = (1.0 if variant == 2 else 2.0) * off + diag
        out[r] = num - 0.5 * den
        if want_grad:
            for i in range(k):
                da = -2.0 * y[i] * dy[i]
                acc = 0.0
                for j in range(k):
                    acc += (1.0 - a[j]) / (a[i] + a[j] - a[i] * a[j])
                if variant == 2:
                    acc = 0.5 * (acc + (1.0 - a[i]) / (a[i] * (2.0 - a[i])))
                grad[r, i] = half_k * da / a[i] + y[i] + sig[r, i] * dy[i] - da * acc


def _run(sig: np.ndarray, k: int, variant: str, want_grad: bool):
    v = VARIANTS[check_choice(variant, "variant", VARIANTS)]
    flat = np.ascontiguousarray(sig.reshape(-1, k), dtype=np.float64)
    out = np.empty(flat.shape[0])
    grad = np.empty(flat.shape if want_grad else (0, k))
    _laplace_kernel(flat, k, v, want_grad, out, grad)
    return out, grad


def log_hyp0f1_laplace(sig: np.ndarray, k: int, variant: str = "listing") -> np.ndarray:
    """Laplace approximation of log ₀F₁(k/2; AAᵀ/4) (Moore 2016, eq. (7)).

    Parameters
    ----------
    sig : ndarray, shape (..., k)
        Validated singular values (see :func:`symcheck.log_hyp0f1`, which validates).
    k : int
    variant : {"listing", "printed"}
        Saddle point ŷ as coded in Moore's Listing 1, or as printed in eq. (7).

    Returns
    -------
    ndarray, shape sig.shape[:-1]

    References
    ----------
    Moore (2016), App. A, eq. (7) and Listing 1; Butler & Wood (2003).
    """
    out, _ = _run(sig, k, variant, False)
    return out.reshape(sig.shape[:-1])


def grad_log_hyp0f1_laplace(sig: np.ndarray, k: int, variant: str = "listing") -> np.ndarray:
    """Analytic gradient of :func:`log_hyp0f1_laplace` with respect to σ.

    With aᵢ = 1 − ŷᵢ² and L = Σᵢ [(k/2) log aᵢ + σᵢŷᵢ] − ½ Σᵢⱼ log(aᵢ + aⱼ − aᵢaⱼ):
    ∂L/∂σᵢ = (k/2) aᵢ'/aᵢ + ŷᵢ + σᵢŷᵢ' − aᵢ' Σⱼ (1 − aⱼ)/(aᵢ + aⱼ − aᵢaⱼ), aᵢ' = −2ŷᵢŷᵢ'.
    """
    _, grad = _run(sig, k, variant, True)
    return grad.reshape(sig.shape)
