"""Haar-distributed samples on the orthogonal groups O(k) and SO(k).

A matrix Z of i.i.d. N(0, 1) entries has QR factorisation Z = QR; with the signs of R's
diagonal moved into Q (Q ← Q diag(sign Rᵢᵢ)) the factor Q is Haar on O(k)
(Mezzadri 2007, "How to generate random matrices from the classical compact groups",
Notices AMS 54, 592–604, Sec. 5). The QR here is a Householder factorisation written
as a Numba kernel over a batch, so no LAPACK call per sample and no Python loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from symcheck._checks import check_int, check_rng

__all__ = ["haar_orthogonal"]


#: Samples processed together: the innermost loops run over them (SIMD-friendly, no re-association).
_LANES = 32


@njit(cache=True, parallel=True)
def _householder_q(z, out, special):
    """Write Haar matrices into out (n, k, k) from i.i.d. normals z (k, k, n).

    Householder QR of A = z[:, :, s]ᵀ (i.i.d. normal, like z itself), with the signs of R's
    diagonal moved into Q (Mezzadri 2007). Samples are processed in blocks of _LANES with
    the sample index innermost, so every arithmetic loop is a contiguous, independent
    per-sample update that vectorises without changing any summation order.
    Each block is copied to contiguous memory; its column j is overwritten by the
    Householder vector of step j.
    """
    k = z.shape[0]
    n = z.shape[2]
    nblocks = (n + _LANES - 1) // _LANES
    for blk in prange(nblocks):
        s0 = blk * _LANES
        m = min(_LANES, n - s0)
        b = z[:, :, s0:s0 + m].copy()  # contiguous block
        q = np.zeros((k, k, m))
        w = np.empty((k, m))
        signs = np.empty((k, m))
        beta = np.empty(m)
        det = np.ones(m)
        for j in range(k - 1):
            for l in range(m):
                beta[l] = 0.0
            for c in range(j, k):
                for l in range(m):
                    beta[l] += b[c, j, l] * b[c, j, l]
            for l in range(m):
                norm2 = beta[l]
                x0 = b[j, j, l]
                alpha = -np.sqrt(norm2) if x0 >= 0 else np.sqrt(norm2)  # R[j, j]
                signs[j, l] = 1.0 if alpha > 0 else -1.0
                b[j, j, l] = x0 - alpha  # column j now holds v = x − alpha e₁
                vnorm2 = norm2 - x0 * x0 + b[j, j, l] * b[j, j, l]
                if vnorm2 > 0.0:
                    beta[l] = 2.0 / vnorm2
                    det[l] = -det[l]
                else:
                    beta[l] = 0.0
            for r in range(j + 1, k):
                for l in range(m):
                    w[r, l] = 0.0
            for c in range(j, k):
                for r in range(j + 1, k):
                    for l in range(m):
                        w[r, l] += b[c, r, l] * b[c, j, l]
            for c in range(j, k):
                for r in range(j + 1, k):
                    for l in range(m):
                        b[c, r, l] -= beta[l] * b[c, j, l] * w[r, l]
        for l in range(m):
            signs[k - 1, l] = 1.0 if b[k - 1, k - 1, l] >= 0 else -1.0
        for r in range(k):
            for l in range(m):
                q[r, r, l] = 1.0
        # Backward accumulation of H_0 ⋯ H_{k−2}, touching only the trailing block.
        for j in range(k - 2, -1, -1):
            for l in range(m):
                beta[l] = 0.0
            for c in range(j, k):
                for l in range(m):
                    beta[l] += b[c, j, l] * b[c, j, l]
            for l in range(m):
                beta[l] = 2.0 / beta[l] if beta[l] > 0.0 else 0.0
            for r in range(j, k):
                for l in range(m):
                    w[r, l] = 0.0
            for c in range(j, k):
                for r in range(j, k):
                    for l in range(m):
                        w[r, l] += q[c, r, l] * b[c, j, l]
            for c in range(j, k):
                for r in range(j, k):
                    for l in range(m):
                        q[c, r, l] -= beta[l] * b[c, j, l] * w[r, l]
        for l in range(m):
            d = det[l]
            for r in range(k):
                d *= signs[r, l]
            flip = special and d < 0
            for c in range(k):
                for r in range(k):
                    v = q[c, r, l] * signs[r, l]
                    out[s0 + l, c, r] = -v if (flip and r == 0) else v


def haar_orthogonal(k, size=None, rng=None, special: bool = False) -> np.ndarray:
    """Draw Haar-distributed orthogonal matrices.

    Parameters
    ----------
    k : int
        Matrix dimension (>= 1).
    size : int or None
        Number of matrices; ``None`` returns a single ``(k, k)`` matrix.
    rng : numpy.random.Generator or int
        Source of randomness (required, for reproducibility).
    special : bool
        If True, sample from SO(k) (determinant +1) instead of O(k): the first column of
        a draw with determinant -1 is negated, which maps Haar on O(k) \\ SO(k) onto Haar
        on SO(k).

    Returns
    -------
    ndarray, shape (size, k, k) or (k, k)

    Notes
    -----
    Mezzadri (2007), Sec. 5: Q diag(sign diag R) from the QR factorisation of a standard
    Gaussian matrix is Haar on O(k); the kernel factors the transpose of the Gaussian matrix
    (also i.i.d. Gaussian) for memory-friendly loops. For k = 1 the draws are ±1 with equal probability.
    """
    k = check_int(k, "k", minimum=1)
    if rng is None:
        raise ValueError("rng is required (a numpy.random.Generator or an integer seed)")
    gen = check_rng(rng)
    n = 1 if size is None else check_int(size, "size", minimum=0)
    z = gen.standard_normal((k, k, n))
    out = np.empty((n, k, k))
    _householder_q(z, out, bool(special))
    return out[0] if size is None else out
