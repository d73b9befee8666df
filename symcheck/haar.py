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


@njit(cache=True, parallel=True)
def _householder_q(z, special):
    """Overwrite each z[s] (k×k, i.i.d. normal) with its sign-corrected Q factor."""
    n, k, _ = z.shape
    for s in prange(n):
        a = z[s]
        vs = np.zeros((k, k))  # column j holds the Householder vector of step j (rows j..k-1)
        signs = np.ones(k)
        det = 1.0
        for j in range(k - 1):
            norm2 = 0.0
            for i in range(j, k):
                norm2 += a[i, j] * a[i, j]
            norm = np.sqrt(norm2)
            x0 = a[j, j]
            alpha = -norm if x0 >= 0 else norm  # R[j, j] = alpha
            # v = x - alpha e1, so that (I - 2 v vᵀ / vᵀv) x = alpha e1
            v0 = x0 - alpha
            vnorm2 = norm2 - x0 * x0 + v0 * v0
            signs[j] = 1.0 if alpha > 0 else -1.0
            if vnorm2 == 0.0:
                continue
            det = -det
            vs[j, j] = v0
            for i in range(j + 1, k):
                vs[i, j] = a[i, j]
            beta = 2.0 / vnorm2
            for c in range(j + 1, k):
                dot = 0.0
                for i in range(j, k):
                    dot += vs[i, j] * a[i, c]
                dot *= beta
                for i in range(j, k):
                    a[i, c] -= dot * vs[i, j]
        signs[k - 1] = 1.0 if a[k - 1, k - 1] >= 0 else -1.0
        # Accumulate Q = H_0 H_1 ... H_{k-2} applied to the identity, backwards.
        for r in range(k):
            for c in range(k):
                a[r, c] = 1.0 if r == c else 0.0
        for j in range(k - 2, -1, -1):
            vnorm2 = 0.0
            for i in range(j, k):
                vnorm2 += vs[i, j] * vs[i, j]
            if vnorm2 == 0.0:
                continue
            beta = 2.0 / vnorm2
            for c in range(j, k):
                dot = 0.0
                for i in range(j, k):
                    dot += vs[i, j] * a[i, c]
                dot *= beta
                for i in range(j, k):
                    a[i, c] -= dot * vs[i, j]
        for c in range(k):
            det *= signs[c]
            for r in range(k):
                a[r, c] *= signs[c]
        if special and det < 0:
            for r in range(k):
                a[r, 0] = -a[r, 0]


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
    Gaussian matrix is Haar on O(k). For k = 1 the draws are ±1 with equal probability.
    """
    k = check_int(k, "k", minimum=1)
    if rng is None:
        raise ValueError("rng is required (a numpy.random.Generator or an integer seed)")
    gen = check_rng(rng)
    n = 1 if size is None else check_int(size, "size", minimum=0)
    z = gen.standard_normal((n, k, k))
    _householder_q(z, bool(special))
    return z[0] if size is None else z
