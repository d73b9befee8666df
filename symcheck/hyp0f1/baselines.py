"""Plain NumPy transcriptions of the papers' formulas and code, line by line.

They serve twice: as the literal reading the Numba kernels are checked against, and as
the baselines the benchmarks measure speed-ups against in the same run.
"""

from __future__ import annotations

import numpy as np

__all__ = ["listing1_log_bessel", "eq7_printed"]


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
