"""Public entry points for log ₀F₁(k/2; AAᵀ/4): one dispatcher over the methods.

₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(A Tᵀ) dT over the Haar probability measure on the
full orthogonal group O(k) (Muirhead 1982, Thm. 7.4.1; Moore 2016, App. A). It depends
on the k×k matrix A only through its singular values σ, so every function here takes
``sigma`` of shape ``(..., k)`` and is batched over the leading axes.
"""

from __future__ import annotations

import numpy as np

from symcheck._checks import as_sigma, check_bool, check_choice, check_int, check_rng
from symcheck.hyp0f1 import asymptotic, closed_form, laplace, montecarlo, series

__all__ = ["METHODS", "grad_log_hyp0f1", "log_hyp0f1", "log_hyp0f1_mc"]

METHODS = ("auto", "laplace", "series", "mc", "exact", "asymptotic")

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


def log_hyp0f1(sigma, k, method: str = "auto", **options) -> np.ndarray:
    """Return log ₀F₁(k/2; AAᵀ/4) for singular values ``sigma`` of A.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
        Singular values of A (non-negative, finite; zeros allowed). Batched over leading axes.
    k : int
        Dimension of the orthogonal group O(k) (>= 1).
    method : {"auto", "laplace", "series", "mc", "exact"}
        ``"laplace"``
            Butler & Wood (2003) Laplace approximation as in Moore (2016) eq. (7).
            Option ``variant``: ``"listing"`` (default; eq. (7) with ŷᵢ as coded in Moore's
            Listing 1), ``"printed"`` (ŷᵢ exactly as printed in eq. (7)) or ``"pairs-once"``
            (listing ŷ, denominator over pairs i ≤ j: bounded error as σ → ∞). All exact at
            σ = 0; measured errors are in the report.
        ``"series"``
            Exact zonal-polynomial series (Koev & Edelman 2006), float64, truncated where a
            rigorous bound on the tail is below ``rtol`` (default 1e-14) relative to the sum.
            Options ``rtol``, ``max_degree`` (raise ValueError if not reached),
            ``return_error`` (also return the relative truncation bound).
        ``"mc"``
            Haar Monte Carlo over O(k). Options ``n_samples`` (default 10⁴) and ``rng``
            (required). Use :func:`log_hyp0f1_mc` for the standard error.
        ``"exact"``
            Closed forms: k = 1 (cosh), k = 2 (Bessel I₀), k = 3 (a one-dimensional integral
            over the quaternion parametrisation, adaptive quadrature, ~10 ms per value),
            rank-one A in any k (Bessel I_{k/2-1}). ValueError for other inputs.
        ``"asymptotic"``
            Laplace's method on the group O(k) around both saddle cosets, with the O(1/σ)
            correction (option ``order``: 0 or 1, default 1); relative error
            O(1/min_{i<j}(σᵢ+σⱼ)^{order+1}). Valid only when every pair sum is large.
        ``"auto"``
            Per input row: the closed forms for k ≤ 2 and rank one; else ``"series"`` where it
            reaches 1e-14 within degree 60; else, for k = 3, the exact one-dimensional
            integral; else ``"asymptotic"`` (order 1) where its O(1/σ) correction is ≤ 0.75;
            else ``"laplace"`` (listing). The report measures the error of each branch.

    Returns
    -------
    ndarray, shape sigma.shape[:-1]
        log ₀F₁ (float64). With ``method="series", return_error=True`` a pair
        ``(value, relative_error_bound)``.

    References
    ----------
    Moore, D. A. (2016). Symmetrized Variational Inference, App. A, eq. (7), Listing 1.
    Butler, R. W. & Wood, A. T. A. (2003). Laplace approximations for Bessel functions of
    matrix argument. J. Comput. Appl. Math. 155, 359–382.
    Koev, P. & Edelman, A. (2006). The efficient evaluation of the hypergeometric function
    of a matrix argument. Math. Comp. 75, 833–846.
    """
    check_choice(method, "method", METHODS)
    sig, k = as_sigma(sigma, k)
    if method == "laplace":
        opts = _take(options, {"variant": "listing"}, method)
        return laplace.log_hyp0f1_laplace(sig, k, variant=opts["variant"])
    if method == "series":
        opts = _take(options, {"rtol": 1e-14, "max_degree": 200, "return_error": False}, method)
        val, err = series.log_hyp0f1_series(sig, k, rtol=opts["rtol"], max_degree=opts["max_degree"])
        return (val, err) if check_bool(opts["return_error"], "return_error") else val
    if method == "mc":
        opts = _take(options, {"n_samples": 10_000, "rng": None}, method)
        if opts["rng"] is None:
            raise ValueError("rng is required for method 'mc' (a numpy.random.Generator or an integer seed)")
        return log_hyp0f1_mc(sig, k, opts["n_samples"], opts["rng"])[0]
    if method == "exact":
        _take(options, {}, method)
        return closed_form.log_hyp0f1_exact(sig, k)
    if method == "asymptotic":
        opts = _take(options, {"order": 1}, method)
        check_choice(opts["order"], "order", (0, 1))
        with np.errstate(invalid="ignore"):
            out = asymptotic.log_hyp0f1_asymptotic(sig, k, order=opts["order"])
        if not np.all(np.isfinite(out)):
            raise ValueError("sigma: the asymptotic expansion is undefined where two singular values are 0 "
                             "(a pair sum sigma_i + sigma_j vanishes); use method='auto'")
        return out
    _take(options, {}, method)
    return _auto(sig, k)


#: "auto" uses the asymptotic expansion when its O(1/σ) correction is at most this (in log ₀F₁).
#: Measured against importance sampling (report): its error is then ~0.3·correction² ≲ 0.2,
#: while eq. (7) is off by 0.1–4 in the same region for k = 4–20.
AUTO_ASYMPTOTIC_MAX_CORRECTION = 0.75


def _route(flat: np.ndarray, k: int) -> dict:
    """Split rows of ``flat`` (n, k) among the "auto" methods; return boolean masks.

    Order: fast closed forms (k ≤ 2, rank one) → float64 series (degree ≤ 60) → k = 3
    one-dimensional integral → asymptotic (where its first-order correction is small) →
    Laplace (listing).
    """
    n = flat.shape[0]
    fast_exact = np.ones(n, bool) if k <= 2 else np.count_nonzero(flat, axis=1) <= 1
    use_series = np.zeros(n, bool)
    rest = ~fast_exact
    if rest.any():
        use_series[rest] = series.series_degree_needed(flat[rest], k, AUTO_SERIES_RTOL) <= AUTO_SERIES_MAX_DEGREE
    rest &= ~use_series
    exact = fast_exact | (rest if k == 3 else np.zeros(n, bool))
    rest &= ~exact
    use_asym = np.zeros(n, bool)
    if rest.any():
        with np.errstate(all="ignore"):
            corr = (asymptotic.log_hyp0f1_asymptotic(flat[rest], k, order=1)
                    - asymptotic.log_hyp0f1_asymptotic(flat[rest], k, order=0))
        use_asym[rest] = np.abs(corr) <= AUTO_ASYMPTOTIC_MAX_CORRECTION
    return {"exact": exact, "series": use_series, "asymptotic": use_asym, "laplace": rest & ~use_asym}


def _auto(sig: np.ndarray, k: int, grad: bool = False) -> np.ndarray:
    flat = sig.reshape(-1, k)
    out = np.empty_like(flat) if grad else np.empty(flat.shape[0])
    masks = _route(flat, k)
    if masks["exact"].any():
        fn = closed_form.grad_log_hyp0f1_exact if grad else closed_form.log_hyp0f1_exact
        out[masks["exact"]] = fn(flat[masks["exact"]], k)
    if masks["series"].any():
        rows = flat[masks["series"]]
        if grad:
            out[masks["series"]] = series.grad_log_hyp0f1_series(rows, k, rtol=AUTO_SERIES_RTOL,
                                                                 max_degree=AUTO_SERIES_MAX_DEGREE)
        else:
            out[masks["series"]] = series.log_hyp0f1_series(rows, k, rtol=AUTO_SERIES_RTOL,
                                                            max_degree=AUTO_SERIES_MAX_DEGREE)[0]
    if masks["asymptotic"].any():
        fn = asymptotic.grad_log_hyp0f1_asymptotic if grad else asymptotic.log_hyp0f1_asymptotic
        out[masks["asymptotic"]] = fn(flat[masks["asymptotic"]], k, order=1)
    if masks["laplace"].any():
        fn = laplace.grad_log_hyp0f1_laplace if grad else laplace.log_hyp0f1_laplace
        out[masks["laplace"]] = fn(flat[masks["laplace"]], k, variant="listing")
    return out.reshape(sig.shape if grad else sig.shape[:-1])


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
    method : {"auto", "laplace", "series", "exact"}
        ``"laplace"``: analytic derivative of the Laplace approximation (option ``variant``).
        ``"series"``: exact term-wise derivative of the truncated series (options ``rtol``,
        ``max_degree``). ``"exact"``: derivative of the closed forms. ``"auto"``: as in
        :func:`log_hyp0f1`.

    Returns
    -------
    ndarray, shape sigma.shape
    """
    check_choice(method, "method", ("auto", "laplace", "series", "exact"))
    sig, k = as_sigma(sigma, k)
    if method == "laplace":
        opts = _take(options, {"variant": "listing"}, method)
        return laplace.grad_log_hyp0f1_laplace(sig, k, variant=opts["variant"])
    if method == "series":
        opts = _take(options, {"rtol": 1e-14, "max_degree": 200}, method)
        return series.grad_log_hyp0f1_series(sig, k, rtol=opts["rtol"], max_degree=opts["max_degree"])
    _take(options, {}, method)
    if method == "exact":
        return closed_form.grad_log_hyp0f1_exact(sig, k)
    return _auto(sig, k, grad=True)
