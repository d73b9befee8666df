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
and 1 − ŷᵢ²ŷⱼ² = aᵢ + aⱼ − aᵢaⱼ with aᵢ = 1 − ŷᵢ². With (k/2)·log aᵢ and the diagonal
factor aᵢ(2 − aᵢ) of the denominator combined, a row is

    log ₀F₁ ≈ Σᵢ σᵢŷᵢ + (k−1)/2 · Σᵢ log aᵢ − ½ Σᵢ log(2 − aᵢ) − c/2 · Σ_{i<j} log(aᵢ + aⱼ − aᵢaⱼ),

c = 2 (eq. (7), ordered pairs) or 1 ("pairs-once"); the three sums of logs are logs of
running products, renormalised (a log taken) only when a product leaves [1e-150, 1e150], so
a row costs a few logarithms, not O(k²). Where u > 1e150 (σ up to the float64 maximum)
ŷ, a and dŷ/dσ are written in w = 1/u = k/(2σ), so neither u² nor σ·u overflows.

Parallel: rows are independent and each is computed by the same Numba function, whether
the batch runs serially (small batches) or is split into blocks over the threads
(``parallel=True``, ``prange``), so both give bit-identical results.

Valid range: any σ ≥ 0, any k ≥ 1 (no overflow: the log grows like Σσᵢ, finite by the
validation of Σσ). Exact at σ = 0. Its error is measured in the report, never assumed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from symcheck._checks import check_choice

__all__ = ["VARIANTS", "grad_log_hyp0f1_laplace", "log_hyp0f1_laplace", "log_hyp0f1_laplace_and_grad"]

VARIANTS = {"listing": 0, "printed": 1, "pairs-once": 2}


#: Above this u = 2σ/k, ŷ, 1 − ŷ² and dŷ/dσ are computed from w = 1/u (no overflow).
_BIG_U = 1e150
#: Running products of factors in (0, 1] (or [1, 2)) are logged when they leave [1/this, this].
_RENORM = 1e150
#: Rows per block of the parallel kernel, and the smallest batch that is run in parallel.
_BLOCK = 256
PARALLEL_MIN_ROWS = 2 * _BLOCK


@njit(cache=True)
def _saddle(sig, k, variant, y, a, dy):
    """Fill ŷ, a = 1 − ŷ² and dŷ/dσ for one row of singular values (module notes)."""
    for i in range(k):
        u = 2.0 * sig[i] / k
        if u <= _BIG_U:
            s = math.sqrt(u * u + 1.0)
            if variant != 1:
                y[i] = u / (s + 1.0)
                a[i] = 2.0 / (1.0 + s)
                dy[i] = (2.0 / k) / (s * (s + 1.0))
            else:  # divided by den twice: den² and s·den² would overflow for u ≳ 1e100
                den = k * s + 1.0
                y[i] = k * u / den
                a[i] = (k * k + 2.0 * k * s + 1.0) / den / den
                dy[i] = 2.0 * (k + s) / (s * den) / den
        else:  # w = 1/u, h = s/u = sqrt(1 + w²)
            w = (0.5 * k) / sig[i]
            h = math.sqrt(1.0 + w * w)
            if variant != 1:
                y[i] = 1.0 / (h + w)
                a[i] = 2.0 * w / (w + h)
                dy[i] = (2.0 / k) * w * w / (h * (h + w))
            else:
                q = k * h + w
                y[i] = k / q
                a[i] = w * (2.0 * k * h + (k * k + 1.0) * w) / (q * q)
                dy[i] = 2.0 * w * w * (k * w + h) / (h * q * q)


@njit(cache=True)
def _mul_log(p, f, acc):
    """Multiply the running product p by f ∈ (0, 1]; move it into the log sum acc before it underflows."""
    if f < 1.0 / _RENORM:
        return p, acc + math.log(f)
    p *= f
    if p < 1.0 / _RENORM:
        return 1.0, acc + math.log(p)
    return p, acc


@njit(cache=True)
def _laplace_row(sig, r, k, variant, want_grad, y, a, dy, out, grad):
    """out[r] (and grad[r] if ``want_grad``) for row r; y, a, dy are scratch of length k."""
    row = sig[r]
    _saddle(row, k, variant, y, a, dy)
    sy = 0.0
    log_a = 0.0  # Σ log aᵢ, aᵢ ∈ (0, 1]
    log_b = 0.0  # Σ log(2 − aᵢ), 2 − aᵢ ∈ [1, 2)
    pa = 1.0
    pb = 1.0
    for i in range(k):
        sy += row[i] * y[i]
        pa, log_a = _mul_log(pa, a[i], log_a)
        pb *= 2.0 - a[i]
        if pb > _RENORM:
            log_b += math.log(pb)
            pb = 1.0
    log_a += math.log(pa)
    log_b += math.log(pb)
    # Σ_{i<j} log(aᵢ + aⱼ − aᵢaⱼ): two running products (independent multiplication chains,
    # j − i odd / even), each factor in (0, 1]
    off = 0.0
    p0 = 1.0
    p1 = 1.0
    for i in range(k):
        ai = a[i]
        j = i + 1
        while j + 1 < k:
            p0, off = _mul_log(p0, ai + a[j] - ai * a[j], off)
            p1, off = _mul_log(p1, ai + a[j + 1] - ai * a[j + 1], off)
            j += 2
        if j < k:
            p0, off = _mul_log(p0, ai + a[j] - ai * a[j], off)
    off += math.log(p0) + math.log(p1)
    c = 1.0 if variant == 2 else 2.0  # eq. (7): ordered pairs (i, j), i ≠ j twice; "pairs-once": i < j
    out[r] = sy + 0.5 * (k - 1) * log_a - 0.5 * log_b - 0.5 * c * off
    if want_grad:
        half_k = 0.5 * k
        for i in range(k):
            da = -2.0 * y[i] * dy[i]
            acc = 0.0
            for j in range(k):
                acc += da / (a[i] + a[j] - a[i] * a[j]) * (1.0 - a[j])
            if variant == 2:
                acc = 0.5 * (acc + da / (a[i] * (2.0 - a[i])) * (1.0 - a[i]))
            grad[r, i] = half_k * da / a[i] + y[i] + row[i] * dy[i] - acc


@njit(cache=True)
def _laplace_serial(sig, k, variant, want_grad, out, grad):
    y = np.empty(k)
    a = np.empty(k)
    dy = np.empty(k)
    for r in range(sig.shape[0]):
        _laplace_row(sig, r, k, variant, want_grad, y, a, dy, out, grad)


@njit(cache=True, parallel=True)
def _laplace_parallel(sig, k, variant, want_grad, out, grad):
    n = sig.shape[0]
    nblocks = (n + _BLOCK - 1) // _BLOCK
    for blk in prange(nblocks):
        y = np.empty(k)
        a = np.empty(k)
        dy = np.empty(k)
        for r in range(blk * _BLOCK, min(n, (blk + 1) * _BLOCK)):
            _laplace_row(sig, r, k, variant, want_grad, y, a, dy, out, grad)


def _run(sig: np.ndarray, k: int, variant: str, want_grad: bool, parallel: bool | None = None):
    """Evaluate every row; ``parallel=None`` runs batches of >= PARALLEL_MIN_ROWS rows in parallel."""
    v = VARIANTS[check_choice(variant, "variant", VARIANTS)]
    flat = np.ascontiguousarray(sig.reshape(-1, k), dtype=np.float64)
    out = np.empty(flat.shape[0])
    grad = np.empty(flat.shape if want_grad else (0, k))
    if parallel is None:
        parallel = flat.shape[0] >= PARALLEL_MIN_ROWS
    (_laplace_parallel if parallel else _laplace_serial)(flat, k, v, want_grad, out, grad)
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


def log_hyp0f1_laplace_and_grad(sig: np.ndarray, k: int, variant: str = "listing") -> tuple[np.ndarray, np.ndarray]:
    """:func:`log_hyp0f1_laplace` and :func:`grad_log_hyp0f1_laplace` from one pass of the kernel.

    The kernel computes a row's value before, and independently of, its gradient, so both are
    bit for bit those of the two functions.
    """
    out, grad = _run(sig, k, variant, True)
    return out.reshape(sig.shape[:-1]), grad.reshape(sig.shape)
