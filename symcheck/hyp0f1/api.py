"""Public entry points for log ₀F₁(k/2; AAᵀ/4): one dispatcher over the methods.

₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(A Tᵀ) dT over the Haar probability measure on the
full orthogonal group O(k) (Muirhead 1982, Thm. 7.4.1; Moore 2016, App. A). It depends
on the k×k matrix A only through its singular values σ, so every function here takes
``sigma`` of shape ``(..., k)`` and is batched over the leading axes.
"""

from __future__ import annotations

import numpy as np

import warnings
from dataclasses import dataclass

from symcheck._checks import as_sigma, check_bool, check_choice, check_int, check_positive_float, check_rng
from symcheck.hyp0f1 import asymptotic, closed_form, holonomic, laplace, montecarlo, series

__all__ = ["METHODS", "Hyp0f1AccuracyWarning", "Hyp0f1Info", "grad_log_hyp0f1", "log_hyp0f1", "log_hyp0f1_mc"]

METHODS = ("auto", "laplace", "series", "mc", "exact", "asymptotic", "holonomic")
EPS = float(np.finfo(float).eps)

#: Relative tolerance the "auto" method asks of the series.
AUTO_SERIES_RTOL = 1e-14
#: Largest series degree (in the eigenvalues σ²/4) "auto" is willing to sum.
AUTO_SERIES_MAX_DEGREE = 60


def _take(options: dict, allowed: dict, method: str) -> dict:
    unknown = set(options) - set(allowed)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for method {method!r}; "
                         f"allowed: {sorted(allowed) or 'none'}")
    return {**allowed, **options}


#: Relative accuracy "auto" aims at: |error of log ₀F₁| ≤ AUTO_RTOL·max(1, |log ₀F₁|).
AUTO_RTOL = 1e-10
#: Above this relative error estimate "auto" warns (:class:`Hyp0f1AccuracyWarning`).
WARN_RTOL = 1e-6
#: Largest number of non-zero σ for which "auto" runs the holonomic method (its cost grows like
#: 2^m·m² per step: ~0.1–2 s per value at m = 8, ~20 s at m = 10; measured in the report).
AUTO_HOLONOMIC_MAX_M = 8
#: Step budget per ray of the holonomic method in "auto" (≈ 2 s at m = 8; a ray that needs more
#: is abandoned and the answer falls back to the best estimate of the other routes).
AUTO_HOLONOMIC_MAX_STEPS = 3000
#: Estimated relative error of the Bessel/cosh closed forms (scipy's ive/i0e: a few ulp) and of
#: the k = 3 quadrature, which is asked for this relative accuracy (closed_form.K3_EPSREL).
_BESSEL_ULPS = 8


class Hyp0f1AccuracyWarning(UserWarning):
    """No method available to ``log_hyp0f1(method="auto")`` reached 1e-6 for some input rows."""


@dataclass(frozen=True)
class Hyp0f1Info:
    """Per-row provenance of a log ₀F₁ value.

    Attributes
    ----------
    method : ndarray of str
        The method that produced the row (for ``"auto"``: the one it chose).
    error : ndarray of float
        Bound or estimate of the absolute error of log ₀F₁ (≈ the relative error of ₀F₁);
        ``inf`` where the method has none (the Laplace approximation).
    rigorous : ndarray of bool
        True where ``error`` is a proven bound (the series: truncation bound plus float64
        rounding), False where it is an estimate.
    """

    method: np.ndarray
    error: np.ndarray
    rigorous: np.ndarray


def log_hyp0f1(sigma, k, method: str = "auto", *, return_error: bool = False, return_info: bool = False,
               **options):
    """Return log ₀F₁(k/2; AAᵀ/4) for singular values ``sigma`` of A.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
        Singular values of A (non-negative, finite; zeros allowed). Batched over leading axes.
    k : int
        Dimension of the orthogonal group O(k) (>= 1).
    method : {"auto", "series", "exact", "holonomic", "asymptotic", "laplace", "mc"}
        ``"series"``
            Exact zonal-polynomial series (Koev & Edelman 2006), float64, truncated where a
            rigorous bound on the tail is below ``rtol`` (default 1e-14) relative to the sum.
            Options ``rtol``, ``max_degree`` (ValueError if not reached). Error: rigorous.
        ``"exact"``
            Closed forms: k = 1 (cosh), k = 2 (Bessel I₀), k = 3 (a one-dimensional integral
            over the quaternion parametrisation, adaptive quadrature to 1e-14, ~10 ms per value),
            rank-one A in any k (Bessel I_{k/2-1}). ValueError for other inputs. Error: estimate
            (a few ulp of the Bessel functions, the quadrature's target accuracy).
        ``"holonomic"``
            Holonomic gradient method: Muirhead's PDE system as a Pfaffian system of rank 2^m
            (m non-zero σ ≤ 12) integrated along the ray sσ from the series at a small s
            (:mod:`symcheck.hyp0f1.holonomic`). Options ``rtol`` (ODE tolerance, default 1e-13)
            and ``max_steps``. Error: estimate.
        ``"asymptotic"``
            Laplace's method on the group O(k) around both saddle cosets with ``order``
            (0 … 3, default 1) correction terms; error O(1/min_{i<j}(σᵢ+σⱼ)^{order+1}), estimated
            by the first omitted term. Valid only when every pair sum is large.
        ``"laplace"``
            Butler & Wood (2003) Laplace approximation as in Moore (2016) eq. (7). Option
            ``variant``: ``"listing"`` (default; ŷᵢ as coded in Moore's Listing 1), ``"printed"``
            or ``"pairs-once"``. Exact at σ = 0; no error bound (``inf``; the report measures it).
        ``"mc"``
            Haar Monte Carlo over O(k). Options ``n_samples`` (default 10⁴) and ``rng``
            (required). Error: one standard error (delta method), an estimate.
        ``"auto"``
            Per input row, the first route that reaches AUTO_RTOL = 1e-10 relative to
            max(1, |log ₀F₁|): closed forms (k ≤ 2, rank one); the series (degree ≤ 60); the k = 3
            integral; the asymptotic expansion at order 3 where its estimate is small enough;
            the holonomic method (m ≤ 8 non-zero σ, ≤ 3000 steps per ray). Where none does,
            the answer with the smallest error estimate among those tried, and a
            :class:`Hyp0f1AccuracyWarning` where that estimate exceeds 1e-6 relative.
    return_error : bool
        Also return the error (bound or estimate) of every value: absolute in log ₀F₁.
    return_info : bool
        Also return a :class:`Hyp0f1Info` (method, error, rigorous flag per row).

    Returns
    -------
    value : ndarray, shape sigma.shape[:-1]
        log ₀F₁ (float64).
    error : ndarray, shape sigma.shape[:-1]
        Only with ``return_error``.
    info : Hyp0f1Info
        Only with ``return_info`` (after ``error`` if both are asked for).

    References
    ----------
    Moore, D. A. (2016). Symmetrized Variational Inference, App. A, eq. (7), Listing 1.
    Butler, R. W. & Wood, A. T. A. (2003). Laplace approximations for Bessel functions of
    matrix argument. J. Comput. Appl. Math. 155, 359–382.
    Koev, P. & Edelman, A. (2006). The efficient evaluation of the hypergeometric function
    of a matrix argument. Math. Comp. 75, 833–846.
    Nakayama, H. et al. (2011). Holonomic gradient descent and its application to the
    Fisher–Bingham integral. Adv. Appl. Math. 47, 639–658.
    """
    check_choice(method, "method", METHODS)
    want_error = check_bool(return_error, "return_error")
    want_info = check_bool(return_info, "return_info")
    sig, k = as_sigma(sigma, k)
    flat = sig.reshape(-1, k)
    if method == "auto":
        _take(options, {}, method)
        value, error, names = _auto(flat, k)
    else:
        value, error = _run(method, flat, k, options, want_error or want_info)
        names = None
    shape = sig.shape[:-1]
    out = [value.reshape(shape)]
    if want_error or want_info:
        error = error.reshape(shape)
    if want_error:
        out.append(error)
    if want_info:
        names = np.full(shape, method, dtype=object) if names is None else names.reshape(shape)
        out.append(Hyp0f1Info(method=names, error=error, rigorous=(names == "series")))
    return out[0] if len(out) == 1 else tuple(out)


def _closed_form_error(value: np.ndarray, flat: np.ndarray, k: int) -> np.ndarray:
    """Estimated error of the closed forms: a few ulp of the Bessel/cosh values, and the target
    accuracy of the k = 3 quadrature where it is used."""
    err = _BESSEL_ULPS * EPS * (1.0 + np.abs(value))
    if k == 3:
        err = err + np.where(np.count_nonzero(flat, axis=1) > 1, closed_form.K3_EPSREL, 0.0)
    return err


def _run(method: str, flat: np.ndarray, k: int, options: dict, need_error: bool = True):
    """(value, error) of one named method on validated rows ``flat`` (n, k); the Laplace error
    (0 at σ = 0, else unknown) only if ``need_error`` (it costs a pass over a hot path's input)."""
    if method == "laplace":
        opts = _take(options, {"variant": "listing"}, method)
        value = laplace.log_hyp0f1_laplace(flat, k, variant=opts["variant"])
        return value, (np.where(np.all(flat == 0, axis=1), 0.0, np.inf) if need_error else None)
    if method == "series":
        opts = _take(options, {"rtol": 1e-14, "max_degree": 200}, method)
        value, rel = series.log_hyp0f1_series(flat, k, rtol=opts["rtol"], max_degree=opts["max_degree"])
        return value, rel + EPS * np.abs(value)
    if method == "mc":
        opts = _take(options, {"n_samples": 10_000, "rng": None}, method)
        if opts["rng"] is None:
            raise ValueError("rng is required for method 'mc' (a numpy.random.Generator or an integer seed)")
        return log_hyp0f1_mc(flat, k, opts["n_samples"], opts["rng"])
    if method == "exact":
        _take(options, {}, method)
        value = closed_form.log_hyp0f1_exact(flat, k)
        return value, _closed_form_error(value, flat, k)
    if method == "holonomic":
        opts = _take(options, {"rtol": 1e-13, "max_steps": 100_000}, method)
        rtol = check_positive_float(opts["rtol"], "rtol")
        if rtol >= 1e-2:
            raise ValueError(f"rtol: must be below 1e-2, got {rtol}")
        max_steps = check_int(opts["max_steps"], "max_steps", minimum=1)
        try:
            return holonomic.log_hyp0f1_holonomic(flat, k, rtol=rtol, max_steps=max_steps)
        except RuntimeError as exc:
            raise ValueError(f"max_steps: {exc}; raise max_steps or use method='auto'") from None
    opts = _take(options, {"order": 1}, method)  # asymptotic
    order = check_choice(opts["order"], "order", tuple(range(asymptotic.MAX_ORDER + 1)))
    with np.errstate(invalid="ignore"):
        value, error = asymptotic.log_hyp0f1_asymptotic(flat, k, order=order, return_error=True)
    if not np.all(np.isfinite(value)):
        raise ValueError("sigma: the asymptotic expansion is undefined where two singular values are 0 "
                         "(a pair sum sigma_i + sigma_j vanishes); use method='auto'")
    return value, error


def _good(value: np.ndarray, error: np.ndarray, rtol: float) -> np.ndarray:
    return np.isfinite(value) & (error <= rtol * np.maximum(1.0, np.abs(value)))


def _route(flat: np.ndarray, k: int) -> dict:
    """Rows of ``flat`` (n, k) for the cheap exact routes of "auto": boolean masks."""
    n = flat.shape[0]
    closed = np.ones(n, bool) if k <= 2 else np.count_nonzero(flat, axis=1) <= 1
    use_series = np.zeros(n, bool)
    rest = ~closed
    if rest.any():
        use_series[rest] = series.series_degree_needed(flat[rest], k, AUTO_SERIES_RTOL) <= AUTO_SERIES_MAX_DEGREE
    rest &= ~use_series
    exact = closed | (rest if k == 3 else np.zeros(n, bool))
    return {"exact": exact, "series": use_series, "rest": rest & ~exact}


def _auto(flat: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, error, method name) per row: the routes of :func:`log_hyp0f1`'s "auto", in order."""
    n = flat.shape[0]
    value = np.full(n, np.nan)
    error = np.full(n, np.inf)
    names = np.full(n, "", dtype=object)
    masks = _route(flat, k)
    for name, opts in (("exact", {}), ("series", {"rtol": AUTO_SERIES_RTOL, "max_degree": AUTO_SERIES_MAX_DEGREE})):
        rows = masks[name]
        if rows.any():
            value[rows], error[rows] = _run(name, flat[rows], k, opts)
            names[rows] = name
    rest = np.flatnonzero(masks["rest"])
    if rest.size:  # the asymptotic expansion at the order with the smallest estimate
        with np.errstate(invalid="ignore"):
            v, e, _ = asymptotic.log_hyp0f1_asymptotic_best(flat[rest], k)
        ok = np.isfinite(v) & np.isfinite(e)
        value[rest[ok]], error[rest[ok]] = v[ok], e[ok]
        names[rest[ok]] = "asymptotic"
        todo = rest[~_good(value[rest], error[rest], AUTO_RTOL)]
        for r in todo:  # holonomic where the state is small enough; keep the better estimate
            if np.count_nonzero(flat[r]) > AUTO_HOLONOMIC_MAX_M or flat[r].sum() > holonomic.MAX_SIGMA_SUM:
                continue
            try:
                v, e = holonomic.log_hyp0f1_holonomic(flat[r:r + 1], k, max_steps=AUTO_HOLONOMIC_MAX_STEPS)
            except (ValueError, RuntimeError):  # a cluster it cannot spread, or the step budget
                continue
            if e[0] < error[r]:
                value[r], error[r], names[r] = v[0], e[0], "holonomic"
        missing = rest[~np.isfinite(value[rest])]
        if missing.size:  # no estimate from any route: Laplace (eq. (7)), error unknown
            value[missing] = laplace.log_hyp0f1_laplace(flat[missing], k, variant="listing")
            names[missing] = "laplace"
    bad = ~_good(value, error, WARN_RTOL)
    if bad.any():
        warnings.warn(f"log_hyp0f1(method='auto'): {np.count_nonzero(bad)} of {n} rows have no method reaching "
                      f"{WARN_RTOL:g} relative accuracy (worst estimated error {np.max(error[bad]):.3g}, method "
                      f"{names[bad][np.argmax(error[bad])]}); see return_info=True", Hyp0f1AccuracyWarning,
                      stacklevel=3)
    return value, error, names


def log_hyp0f1_mc(sigma, k, n_samples: int, rng, proposal: str = "haar") -> tuple[np.ndarray, np.ndarray]:
    """Haar Monte Carlo estimate of log ₀F₁(k/2; AAᵀ/4) and its standard error.

    See :func:`symcheck.hyp0f1.montecarlo.log_hyp0f1_mc` for the estimator.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
    k : int
    n_samples : int
        Number of Haar draws per input row (>= 2).
    rng : numpy.random.Generator or int
    proposal : {"haar", "saddle"}
        ``"haar"``: Haar draws (small to moderate σ). ``"saddle"``: importance sampling
        around the maximum of each coset of O(k) (large σ; ``n_samples`` per coset).

    Returns
    -------
    estimate, standard_error : ndarray, shape sigma.shape[:-1]
        log of the sample mean, and its delta-method standard error (SE of the mean
        divided by the mean).
    """
    sig, k = as_sigma(sigma, k)
    n = check_int(n_samples, "n_samples", minimum=2)
    gen = check_rng(rng)
    check_choice(proposal, "proposal", ("haar", "saddle"))
    return montecarlo.log_hyp0f1_mc(sig, k, n, gen, proposal=proposal)


def grad_log_hyp0f1(sigma, k, method: str = "auto", **options) -> np.ndarray:
    """Gradient of log ₀F₁(k/2; AAᵀ/4) with respect to the singular values σ.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
    k : int
    method : {"auto", "laplace", "series", "exact", "asymptotic"}
        ``"laplace"``: analytic derivative of the Laplace approximation (option ``variant``).
        ``"series"``: exact term-wise derivative of the truncated series (options ``rtol``,
        ``max_degree``). ``"exact"``: derivative of the closed forms. ``"asymptotic"``: central
        differences of the expansion (option ``order``). ``"auto"``: :func:`_auto_grad`.

    Returns
    -------
    ndarray, shape sigma.shape
    """
    check_choice(method, "method", ("auto", "laplace", "series", "exact", "asymptotic"))
    sig, k = as_sigma(sigma, k)
    if method == "laplace":
        opts = _take(options, {"variant": "listing"}, method)
        return laplace.grad_log_hyp0f1_laplace(sig, k, variant=opts["variant"])
    if method == "series":
        opts = _take(options, {"rtol": 1e-14, "max_degree": 200}, method)
        return series.grad_log_hyp0f1_series(sig, k, rtol=opts["rtol"], max_degree=opts["max_degree"])
    if method == "asymptotic":
        opts = _take(options, {"order": 1}, method)
        order = check_choice(opts["order"], "order", tuple(range(asymptotic.MAX_ORDER + 1)))
        return asymptotic.grad_log_hyp0f1_asymptotic(sig, k, order=order)
    _take(options, {}, method)
    if method == "exact":
        return closed_form.grad_log_hyp0f1_exact(sig, k)
    return _auto_grad(sig.reshape(-1, k), k).reshape(sig.shape)


#: The gradient's fallback: the asymptotic expansion at order 1 where its O(1/σ) correction is at
#: most this (measured against importance sampling in the report: its error is then ≲ 0.2, while
#: eq. (7) is off by 0.1–4 in the same region for k = 4–20), else the Laplace approximation.
AUTO_ASYMPTOTIC_MAX_CORRECTION = 0.75


def _auto_grad(flat: np.ndarray, k: int) -> np.ndarray:
    """Gradient by the exact routes of "auto" (closed forms, series, k = 3 integral); elsewhere the
    asymptotic expansion at order 3 where its estimate is ≤ WARN_RTOL, else at order 1 where its
    correction is ≤ AUTO_ASYMPTOTIC_MAX_CORRECTION, else the Laplace approximation (the holonomic
    method has no gradient yet). The last two carry no error estimate: rows taking them raise one
    :class:`Hyp0f1AccuracyWarning` per call, as :func:`log_hyp0f1` does for values."""
    out = np.empty_like(flat)
    masks = _route(flat, k)
    if masks["exact"].any():
        out[masks["exact"]] = closed_form.grad_log_hyp0f1_exact(flat[masks["exact"]], k)
    if masks["series"].any():
        out[masks["series"]] = series.grad_log_hyp0f1_series(flat[masks["series"]], k, rtol=AUTO_SERIES_RTOL,
                                                             max_degree=AUTO_SERIES_MAX_DEGREE)
    rest = np.flatnonzero(masks["rest"])
    if rest.size:
        rows = flat[rest]
        with np.errstate(all="ignore"):
            v, e = asymptotic.log_hyp0f1_asymptotic(rows, k, order=asymptotic.MAX_ORDER, return_error=True)
            corr = (asymptotic.log_hyp0f1_asymptotic(rows, k, order=1)
                    - asymptotic.log_hyp0f1_asymptotic(rows, k, order=0))
        high = np.isfinite(e) & (e <= WARN_RTOL * np.maximum(1.0, np.abs(v)))
        low = ~high & (np.abs(corr) <= AUTO_ASYMPTOTIC_MAX_CORRECTION)
        for order, sel in ((asymptotic.MAX_ORDER, high), (1, low)):
            if sel.any():
                out[rest[sel]] = asymptotic.grad_log_hyp0f1_asymptotic(rows[sel], k, order=order)
        lap = ~high & ~low
        if lap.any():
            out[rest[lap]] = laplace.grad_log_hyp0f1_laplace(rows[lap], k, variant="listing")
        rough = int(np.count_nonzero(low)) + int(np.count_nonzero(lap))
        if rough:
            warnings.warn(f"grad_log_hyp0f1(method='auto'): {rough} of {flat.shape[0]} rows by the order-1 expansion "
                          f"({np.count_nonzero(low)}) or the Laplace approximation ({np.count_nonzero(lap)}), whose "
                          "gradients have no error estimate; log_hyp0f1(..., return_error=True) gives the value's error "
                          "there", Hyp0f1AccuracyWarning, stacklevel=3)
    return out
