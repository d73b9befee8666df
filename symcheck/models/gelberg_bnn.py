"""Gelberg et al.'s tractable BNN (Sec. 5): f^ω(x) = ReLU(w₁x) + ReLU(w₂x), ω = (w₁, w₂).

Data follow f_α(x) = α|x|, whose two equivalent posterior modes are (α, −α) and (−α, α);
the symmetry group is the swap (w₁, w₂) → (w₂, w₁). The likelihood is Gaussian with noise
standard deviation ``noise_sd`` and the prior is N(0, prior_sd² I) (G-invariant).

The evidence p(Y | X) is computed two ways:

``"2d"``
    nested adaptive quadrature over the four quadrants of the (w₁, w₂) plane, split at the
    kinks (wᵢ = 0) and at the modes, with the log joint shifted by its maximum;
``"1d"``
    on each quadrant the likelihood depends on a = ReLU(w₁)+ReLU(w₂) (the x > 0 data) and
    b = ReLU(−w₁)+ReLU(−w₂) (the x < 0 data) only, so the mixed-sign quadrants factor into
    products of 1-D integrals, and on the same-sign quadrants the prior of u = |w₁ + w₂|
    restricted to the quadrant is N(u; 0, 2σ_p²)(2Φ(u/(√2 σ_p)) − 1): 1-D integrals again.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import integrate, optimize
from scipy.special import logsumexp, ndtr

from symcheck._checks import as_finite_array, check_choice, check_int, check_positive_float, check_rng
from symcheck.groups import IndexPermutationGroup

__all__ = ["TwoReLUNet"]

_LOG_2PI = math.log(2 * math.pi)


class TwoReLUNet:
    """The two-weight ReLU network with Gaussian likelihood and prior.

    Parameters
    ----------
    x, y : array_like, shape ``(N,)``
        Inputs and targets (no input may be exactly 0: it carries no information and is dropped).
    noise_sd, prior_sd : float
        Likelihood and prior standard deviations.

    Attributes
    ----------
    group : IndexPermutationGroup
        {identity, swap}: the log joint is invariant under it (Gelberg Prop. 2.2).
    """

    def __init__(self, x, y, noise_sd: float = 1.0, prior_sd: float = 1.0):
        x = as_finite_array(x, "x", ndim_min=1)
        y = as_finite_array(y, "y", ndim_min=1)
        if x.shape != y.shape or x.ndim != 1:
            raise ValueError(f"x and y must be 1-D of equal length, got {x.shape} and {y.shape}")
        self.noise_sd = check_positive_float(noise_sd, "noise_sd")
        self.prior_sd = check_positive_float(prior_sd, "prior_sd")
        keep = x != 0
        self.x, self.y = x[keep], y[keep]
        self.group = IndexPermutationGroup([[0, 1], [1, 0]])
        # sufficient statistics of the two half-lines: Σ x², Σ x y, Σ y², count
        pos, neg = self.x > 0, self.x < 0
        ax, ay = np.abs(self.x), self.y
        self._stats = {
            side: (float(np.sum(ax[m] ** 2)), float(np.sum(ax[m] * ay[m])), float(np.sum(ay[m] ** 2)), int(m.sum()))
            for side, m in (("+", pos), ("-", neg))
        }

    @classmethod
    def synthetic(cls, alpha: float, n: int, rng, noise_sd: float = 1.0, prior_sd: float = 1.0, noise: bool = False):
        """Gelberg's data: x ~ uniform[−10, 10], y = α|x| (plus N(0, noise_sd²) if ``noise``)."""
        rng = check_rng(rng)
        n = check_int(n, "n", minimum=1)
        alpha = float(alpha)
        x = rng.uniform(-10, 10, n)
        y = alpha * np.abs(x) + (noise_sd * rng.standard_normal(n) if noise else 0.0)
        return cls(x, y, noise_sd, prior_sd)

    # ----- densities --------------------------------------------------------------------

    def _log_half_lik(self, side, a):
        """log Π_{x on side} N(y; a|x|, σ²) as a function of the slope a ≥ 0 (vectorised)."""
        sxx, sxy, syy, n = self._stats[side]
        s2 = self.noise_sd**2
        a = np.asarray(a, dtype=np.float64)
        return -0.5 * (syy - 2 * a * sxy + a * a * sxx) / s2 - 0.5 * n * (_LOG_2PI + math.log(s2))

    def log_likelihood(self, w):
        """log p(Y | X, ω) for a batch ``w`` of shape ``(S, 2)``; returns ``(S,)``."""
        w = np.asarray(w, dtype=np.float64)
        if w.ndim != 2 or w.shape[1] != 2:
            raise ValueError(f"w must have shape (S, 2), got {w.shape}")
        a = np.maximum(w[:, 0], 0) + np.maximum(w[:, 1], 0)
        b = np.maximum(-w[:, 0], 0) + np.maximum(-w[:, 1], 0)
        return self._log_half_lik("+", a) + self._log_half_lik("-", b)

    def log_prior(self, w):
        """log N(ω; 0, σ_p² I) for a batch ``(S, 2)``."""
        w = np.asarray(w, dtype=np.float64)
        s2 = self.prior_sd**2
        return -0.5 * np.sum(w * w, axis=-1) / s2 - (_LOG_2PI + math.log(s2))

    def log_joint(self, w):
        """log p(Y, ω | X) = log-likelihood + log prior, batched ``(S, 2) → (S,)``."""
        return self.log_likelihood(w) + self.log_prior(w)

    def forward(self, w, x):
        """f^ω(x) = ReLU(w₁x) + ReLU(w₂x) for ``w`` of shape ``(S, 2)`` and ``x`` of shape ``(n,)``."""
        w = np.asarray(w, dtype=np.float64)
        x = np.asarray(x, dtype=np.float64)
        return np.maximum(w[:, :1] * x, 0) + np.maximum(w[:, 1:2] * x, 0)

    # ----- evidence ---------------------------------------------------------------------

    def _slope_peak(self, side):
        sxx, sxy, _, _ = self._stats[side]
        return max(sxy / sxx, 0.0) if sxx > 0 else 0.0

    def log_evidence(self, method: str = "2d") -> float:
        """log p(Y | X) by 2-D quadrature (``"2d"``) or the 1-D decomposition (``"1d"``).

        Accurate to the quadrature tolerance (relative 1e-10) when the posterior width
        σ/√Σx² is ≳ 1e-6 of the prior scale; the integrand is shifted by the log joint's
        maximum over the breakpoints, so no underflow for N up to ~1e5.
        """
        check_choice(method, "method", {"2d", "1d"})
        return self._log_evidence_2d() if method == "2d" else self._log_evidence_1d()

    def _log_evidence_2d(self):
        ap, an = self._slope_peak("+"), self._slope_peak("-")
        sp = self.prior_sd
        wp = self.noise_sd / math.sqrt(max(self._stats["+"][0], 1e-300))  # posterior widths of the slopes
        wn = self.noise_sd / math.sqrt(max(self._stats["-"][0], 1e-300))
        width = min(wp, wn)
        R = 40 * sp
        # breakpoints: the kink at 0, the modes, and ±10 posterior widths around them, so that
        # no Gauss–Kronrod panel is much wider than the peak it contains
        brk = sorted({0.0, ap, -an, ap / 2, -an / 2, ap - 10 * wp, ap + 10 * wp, -an - 10 * wn, -an + 10 * wn})
        cands = np.array([[u, v] for u in brk + [0.0] for v in brk + [0.0]])
        shift = float(np.max(self.log_joint(cands)))
        (pxx, pxy, pyy, pn), (nxx, nxy, nyy, nn) = self._stats["+"], self._stats["-"]
        s2, v2 = self.noise_sd**2, self.prior_sd**2
        const = -0.5 * (pn + nn) * (_LOG_2PI + math.log(s2)) - (_LOG_2PI + math.log(v2)) - shift

        def f(w2, w1):  # scalar log joint (same formula as log_joint, without array overhead)
            a = (w1 if w1 > 0 else 0.0) + (w2 if w2 > 0 else 0.0)
            b = (-w1 if w1 < 0 else 0.0) + (-w2 if w2 < 0 else 0.0)
            q = (pyy - 2 * a * pxy + a * a * pxx + nyy - 2 * b * nxy + b * b * nxx) / s2 + (w1 * w1 + w2 * w2) / v2
            return math.exp(const - 0.5 * q)

        def inner(w1):
            total = 0.0
            edges = [-R] + [b for b in brk if -R < b < R] + [R]
            for lo, hi in zip(edges[:-1], edges[1:]):
                total += integrate.quad(f, lo, hi, args=(w1,), epsabs=0, epsrel=1e-10, limit=200,
                                        points=[p for p in (lo + width, hi - width) if lo < p < hi])[0]
            return total

        total = 0.0
        edges = [-R] + [b for b in brk if -R < b < R] + [R]
        for lo, hi in zip(edges[:-1], edges[1:]):
            total += integrate.quad(inner, lo, hi, epsabs=0, epsrel=1e-8, limit=200)[0]
        return math.log(total) + shift

    def _log_evidence_1d(self):
        sp = self.prior_sd
        lp1 = lambda t: -0.5 * t * t / sp**2 - 0.5 * (_LOG_2PI + 2 * math.log(sp))  # noqa: E731
        # prior density of u = |w1 + w2| restricted to a same-sign quadrant (u ≥ 0)
        lsum = lambda u: (-0.25 * u * u / sp**2 - 0.5 * (_LOG_2PI + math.log(2 * sp**2))  # noqa: E731
                          + math.log(max(2 * ndtr(u / (math.sqrt(2) * sp)) - 1, 1e-300)))

        def log_int(logf, peak):
            # log ∫_0^{40σ_p} exp(logf(t)) dt (the rest is < e^{-800} of the prior mass): shifted by
            # the maximum of logf (grid + bounded refinement; logf is concave or log-concave here),
            # split at the maximiser and at the likelihood peak
            top = 40 * sp
            grid = np.unique(np.concatenate([np.linspace(0, top, 4001)[1:], [peak] if peak > 0 else []]))
            vals = np.array([logf(t) for t in grid])
            i = int(np.argmax(vals))
            lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
            res = optimize.minimize_scalar(lambda t: -logf(t), bounds=(lo, hi), method="bounded",
                                           options={"xatol": 1e-12 * max(hi, 1e-300)})
            tmax, c = (float(res.x), -float(res.fun)) if -res.fun > vals[i] else (float(grid[i]), float(vals[i]))
            g = lambda t: math.exp(logf(t) - c)  # noqa: E731
            pts = sorted({t for t in (0.0, tmax, peak, top) if 0 <= t <= top})
            val = sum(integrate.quad(g, a, b, epsabs=0, epsrel=1e-12, limit=200)[0]
                      for a, b in zip(pts[:-1], pts[1:]) if b > a)
            return math.log(val) + c

        Lp = lambda t: float(self._log_half_lik("+", t))  # noqa: E731
        Ln = lambda t: float(self._log_half_lik("-", t))  # noqa: E731
        ap, an = self._slope_peak("+"), self._slope_peak("-")
        mixed = log_int(lambda t: Lp(t) + lp1(t), ap) + log_int(lambda t: Ln(t) + lp1(t), an)
        # same-sign quadrants: the u → 0 end has prior density 0, so split also near the peak
        pp = log_int(lambda u: Lp(u) + (lsum(u) if u > 0 else -1e300), ap) + Ln(0.0)
        nn = log_int(lambda u: Ln(u) + (lsum(u) if u > 0 else -1e300), an) + Lp(0.0)
        return float(logsumexp([mixed + math.log(2.0), pp, nn]))
