"""Gelberg, van der Ouderaa, van der Wilk & Gal: printed formulas, literally, with corrected twins.

App. B, eq. (11): the distance 2R between a weight vector ω and its closest equivalent mode,
as printed and as corrected. The claim comparing both with the proof's 2R = 2D‖ω‖/log|G| is
``gelberg.eq11.radius`` (:mod:`symcheck.claims.gelberg_modes`). The Sec. 5 two-weight network
is :mod:`symcheck.models.gelberg_bnn`.
"""

from __future__ import annotations

import math

__all__ = ["eq11_radius", "eq11_radius_corrected"]


def eq11_radius(di, do, dh) -> float:
    """App. B, eq. (11) as printed: 2R/‖ω‖₂ = 2(d_i + d_o + 1 + 1/d_h) / log(d_h/2)."""
    return 2 * (di + do + 1 + 1 / dh) / math.log(dh / 2)


def eq11_radius_corrected(di, do, dh) -> float:
    """App. B, eq. (11) corrected: 2R/‖ω‖₂ ≤ 4(d_i + d_o + 1 + d_o/d_h) / log(d_h/2).

    From R = D‖ω‖/log|G| with D = d_i d_h + d_h + d_h d_o + d_o and log(d_h!) ≥ (d_h/2) log(d_h/2).
    """
    return 4 * (di + do + 1 + do / dh) / math.log(dh / 2)
