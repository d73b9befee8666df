"""Haar-distributed samples on the orthogonal groups O(k) and SO(k).

A matrix Z of i.i.d. N(0, 1) entries has QR factorisation Z = QR; with the signs of R's
diagonal moved into Q (Q ← Q diag(sign Rᵢᵢ)) the factor Q is Haar on O(k)
(Mezzadri 2007, "How to generate random matrices from the classical compact groups",
Notices AMS 54, 592–604, Sec. 5).

The factorisation itself need not be computed (Stewart 1980, "The efficient generation of
random orthogonal matrices with an application to condition estimators", SIAM J. Numer.
Anal. 17, 403–409): in Householder QR of a Gaussian Z, the part of column j that step j
reflects (rows j..k−1, after the reflections of the earlier columns) is again a standard
Gaussian vector of length k − j, independent of everything before, because those
reflections depend only on earlier columns and are orthogonal. So Q = H₀ ⋯ H_{k−2} D is
drawn from k(k+1)/2 independent normals: xⱼ ~ N(0, I_{k−j}), vⱼ = xⱼ − αⱼe₁ with
αⱼ = −sign(xⱼ₀)‖xⱼ‖ (= Rⱼⱼ), D = diag(sign αⱼ) and sign of the last 1-vector for D_{k−1}.
This halves both the normals and the arithmetic of QR-then-accumulate. The accumulation
is a Numba kernel over blocks of samples with the sample index innermost, so every
arithmetic loop is a contiguous per-sample update that vectorises without re-association.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from symcheck._checks import check_alloc, check_bool, check_int, check_rng

__all__ = ["haar_orthogonal"]

#: Samples processed together: the innermost loops run over them.
_LANES = 32


@njit(cache=True, parallel=True)
def _householder_q(x, out, special):
    """Write Haar matrices into out (n, k, k) from i.i.d. normals x (k(k+1)/2, n).

    Rows off_j .. off_j + k − j − 1 of x hold the Gaussian vector xⱼ of step j (see the
    module notes); the orthogonal factor is accumulated backwards, H_{k−2} first, touching
    only the trailing block.
    """
    n = x.shape[1]
    k = out.shape[1]
    nblocks = (n + _LANES - 1) // _LANES
    for blk in prange(nblocks):
        s0 = blk * _LANES
        m = min(_LANES, n - s0)
        v = np.zeros((k, k, m))  # v[c, j, :] = component c of the Householder vector of step j
        q = np.zeros((k, k, m))
        w = np.empty((k, m))
        beta = np.empty((k, m))
        signs = np.empty((k, m))
        det = np.ones(m)
        off = 0
        for j in range(k):
            for l in range(m):
                norm2 = 0.0
                for c in range(k - j):
                    xc = x[off + c, s0 + l]
                    v[j + c, j, l] = xc
                    norm2 += xc * xc
                x0 = v[j, j, l]
                if j == k - 1:
                    signs[j, l] = 1.0 if x0 >= 0 else -1.0
                    continue
                alpha = -np.sqrt(norm2) if x0 >= 0 else np.sqrt(norm2)  # R[j, j]
                signs[j, l] = 1.0 if alpha > 0 else -1.0
                v[j, j, l] = x0 - alpha
                vnorm2 = norm2 - x0 * x0 + v[j, j, l] * v[j, j, l]
                if vnorm2 > 0.0:
                    beta[j, l] = 2.0 / vnorm2
                    det[l] = -det[l]
                else:
                    beta[j, l] = 0.0
            off += k - j
        for r in range(k):
            for l in range(m):
                q[r, r, l] = 1.0
        for j in range(k - 2, -1, -1):
            for r in range(j, k):
                for l in range(m):
                    w[r, l] = 0.0
            for c in range(j, k):
                for r in range(j, k):
                    for l in range(m):
                        w[r, l] += q[c, r, l] * v[c, j, l]
            for c in range(j, k):
                for r in range(j, k):
                    for l in range(m):
                        q[c, r, l] -= beta[j, l] * v[c, j, l] * w[r, l]
        for l in range(m):
            d = det[l]
            for r in range(k):
                d *= signs[r, l]
            flip = special and d < 0
            for c in range(k):
                for r in range(k):
                    val = q[c, r, l] * signs[r, l]
                    out[s0 + l, c, r] = -val if (flip and r == 0) else val


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
    Gaussian matrix is Haar on O(k); Stewart (1980) draws the same Q from k(k+1)/2 normals
    without computing R (module notes). For k = 1 the draws are ±1 with equal probability.
    """
    k = check_int(k, "k", minimum=1)
    if rng is None:
        raise ValueError("rng is required (a numpy.random.Generator or an integer seed)")
    gen = check_rng(rng)
    n = 1 if size is None else check_int(size, "size", minimum=0)
    special = check_bool(special, "special")
    check_alloc(n * k * k + n * k * (k + 1) // 2, "k, size")
    x = gen.standard_normal((k * (k + 1) // 2, n))
    out = np.empty((n, k, k))
    _householder_q(x, out, special)
    return out[0] if size is None else out
