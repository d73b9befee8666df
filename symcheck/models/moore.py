"""Moore (2016), Symmetrized Variational Inference: the printed formulas and code, literally.

App. A, eq. (7) (the Laplace approximation of ₀F₁ with ŷ as printed, "+1" outside the root)
and Listing 1 (``log_bessel``) as plain NumPy, line by line, batched over leading axes. They
are the literal reading the Numba kernels of :mod:`symcheck.hyp0f1.laplace` are checked
against, and the baselines the benchmarks measure speed-ups against in the same run.
"""

from __future__ import annotations

import numpy as np

__all__ = ["eq7_printed", "listing1_log_bessel"]

#: Functions implementing a labelled result under another name (read by the report's equation index).
EQUATIONS = {"listing1_log_bessel": ("moore", "Listing 1")}


def listing1_log_bessel(svcs: np.ndarray, n: int) -> np.ndarray:
    """Moore (2016) Listing 1, ``log_bessel(svcs, n)``, in NumPy, batched over leading axes.

    ``r(u) = u/(sqrt(u²+1)+1)``, ``ys = r(2 svcs/n)``; log_num − log_denom with the
    denominator over all ordered pairs (i, j), exactly as in the listing.
    """
    u = 2.0 * svcs / n
    ys = u / (np.sqrt(u**2 + 1.0) + 1.0)
    y2 = ys**2
    y2pairs = y2[..., :, None] * y2[..., None, :]
    log_denom = 0.5 * np.sum(np.log(1 - y2pairs), axis=(-1, -2))
    log_num = np.sum(svcs * ys + n / 2.0 * np.log(1 - y2), axis=-1)
    return log_num - log_denom


def eq7_printed(sig: np.ndarray, k: int) -> np.ndarray:
    """Moore (2016) eq. (7) exactly as printed (ŷ with "+1"), as a log, batched."""
    y = 2 * sig / (k * np.sqrt(4 * sig**2 / k**2 + 1) + 1)
    y2 = y**2
    num = np.sum((k / 2) * np.log(1 - y2) + sig * y, axis=-1)
    den = 0.5 * np.sum(np.log(1 - y2[..., :, None] * y2[..., None, :]), axis=(-1, -2))
    return num - den
