"""Moore's Fig. 4 on one random matrix: every fit of the comparison, as a cached report task.

:func:`fit_matrix` draws one problem R = UVᵀ/√k + σ_n E (Moore Sec. 2) from its own generator
and fits MAP (closed-form soft threshold), MFVI (Nakajima et al.'s 2013 global solution, which
elementwise coordinate ascent reaches: claim ``moore.fig4.nakajima-vb``), isotropic MFVI and
SymVI with the O(k)-symmetrised isotropic base, each requested (KL form, ₀F₁ method) pair
(:mod:`symcheck.models.moore_mf`). It returns JSON values only, so the report's result cache
(:mod:`symcheck.report.cache`) can keep it; the cache keys on this module's import closure,
so a change to the models or kernels reruns the fits, a change to the report's prose does not.

References
----------
D. A. Moore (2016), *Symmetrized Variational Inference*, Sec. 2, 3.2, Fig. 4, App. A.
S. Nakajima, M. Sugiyama, S. D. Babacan, R. Tomioka (2013), JMLR 14, 1–37, Thm. 2.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from symcheck._checks import check_choice, check_int, check_positive_float
from symcheck._mc import khat_trusted
from symcheck.hyp0f1 import grad_log_hyp0f1, log_hyp0f1
from symcheck.hyp0f1.api import log_hyp0f1_mc
from symcheck.models.moore_mf import (
    FORMS,
    fit_isotropic,
    elbo_factorised,
    fit_symvi,
    map_closed_form,
    nakajima_threshold,
    nakajima_vb,
    reconstruction_error,
    sample_problem,
    symvi_kl,
)

__all__ = ["EXACT_AT", "EXACT_MAX_K", "METHODS", "N_DRAWS", "N_IS", "STARTS", "fit_matrix", "kl_0f1_exact",
           "kl_0f1_figures", "kl_0f1_offset", "variant_name"]

#: ₀F₁ routes a SymVI fit may use, by label: (method of :func:`symcheck.log_hyp0f1`, its options). Each has a
#: gradient; "asymptotic" is the expansion to O(1/σ) (error O(1/σ²)), "asymptotic, order 2" to O(1/σ²).
METHODS = {"exact": ("exact", {}), "laplace": ("laplace", {}), "asymptotic": ("asymptotic", {"order": 1}),
           "asymptotic, order 2": ("asymptotic", {"order": 2})}
#: Up to this k the holonomic method gives log ₀F₁ at every draw of an optimum (a second or so per value at
#: k = 8), which checks each route's value and figure there exactly (:func:`kl_0f1_exact`); it is run at the
#: optima of these corrected-KL fits.
EXACT_MAX_K = 8
EXACT_AT = ("laplace", "asymptotic, order 2")
#: Where a SymVI fit starts: the fit of the same form with this route if there is one (the expansion needs
#: large pair sums of σ, which the isotropic MFVI start may not have; the order-2 fit also reuses the order-1
#: fit's draws, so the two optima differ only by the ₀F₁ route), else the isotropic MFVI fit.
STARTS = {"asymptotic": "laplace", "asymptotic, order 2": "asymptotic"}
#: Draws of SymVI's Monte Carlo KL (common random numbers) and importance samples per coset for
#: measuring the ₀F₁ error at the optimum.
N_DRAWS = 16
N_IS = 400
#: A singular value counts as a used trait above this fraction of the largest.
RANK_RTOL = 1e-6


def variant_name(form: str, method: str) -> str:
    """Label of a SymVI fit, e.g. ``"SymVI corrected (laplace)"``."""
    return f"SymVI {form} ({method})"


def _optimum_sigma(fit) -> np.ndarray:
    """Singular values of B (the printed form: of (B + Bᵀ)/2) at each of a SymVI fit's draws, at its optimum."""
    M = np.vstack([fit.params["Mu"], fit.params["Mv"]])
    c, E = fit.params["c"], fit.params["E"]
    B = np.matmul(M.T, M + math.sqrt(c) * E) / c
    if fit.params["form"] == "printed":
        B = 0.5 * (B + np.swapaxes(B, -1, -2))
    return np.linalg.svd(B, compute_uv=False)


def kl_0f1_offset(fit, k: int, route: str, rng) -> tuple[float, float, float]:
    """Error of a SymVI fit's ₀F₁ inside its KL term at the optimum, measured.

    Mean over the fit's draws of log ₀F₁(``route``, a label of :data:`METHODS`) − log ₀F₁(saddle-point
    importance sampling, :data:`N_IS` draws per coset), the standard error of that mean, and the share of
    draws whose importance weights let their standard error be trusted (Pareto k̂,
    :func:`symcheck._mc.khat_trusted`; where it is not, the sampling estimate tends to fall below
    ₀F₁ by more than its SE says). The offset enters the KL term and the ELBO one for one.
    """
    sig = _optimum_sigma(fit)
    method, options = METHODS[route]
    est, se, khat = log_hyp0f1_mc(sig, k, N_IS, rng, proposal="saddle", return_khat=True)
    d = log_hyp0f1(sig, k, method=method, **options) - est
    return (float(np.mean(d)), float(math.sqrt(np.sum(se**2)) / len(se)),
            float(np.mean(khat_trusted(khat, N_IS))))


def kl_0f1_exact(fit, k: int) -> dict | None:
    """Each non-exact route's ₀F₁ at a fit's optimum against the holonomic method (an independent algorithm).

    Returns ``{"reference_error": largest holonomic figure over the draws, route: [mean over the draws of
    route − holonomic, largest (|route − holonomic| − reference figure) / route's figure over the draws where
    that figure is finite (nan if none)]}`` for the routes of :data:`METHODS` other than "exact", or None
    where the holonomic method refuses the draws (beyond its step budget).
    """
    sig = _optimum_sigma(fit)
    try:
        ref, ref_error = log_hyp0f1(sig, k, method="holonomic", return_error=True)
    except ValueError:
        return None
    out = {"reference_error": float(np.max(ref_error))}
    for route, (method, options) in METHODS.items():
        if route == "exact":
            continue
        value, error = log_hyp0f1(sig, k, method=method, return_error=True, **options)
        finite = np.isfinite(error)
        ratio = (np.abs(value - ref) - ref_error)[finite] / error[finite]
        out[route] = [float(np.mean(value - ref)), float(np.max(ratio)) if ratio.size else math.nan]
    return out


def kl_0f1_figures(fit, k: int, route: str) -> list[float]:
    """The error figures the fit's own ₀F₁ route returns at its optimum's draws.

    Returns [median over the draws of the figure of log ₀F₁, fraction of draws where it is finite,
    median and max of the figure of its gradient (of its largest component error)], in nats: estimates
    for the asymptotic expansion (:func:`symcheck.hyp0f1.asymptotic.asymptotic_error_estimate`), ``inf``
    for the value where a draw lies outside the route's regime (the gradient's figure is then its cap,
    max(g, 1 − g) ≤ 1). The value's figure is how far the KL term may be off; the gradient's, how far
    the fit's stationarity condition may be.
    """
    sig = _optimum_sigma(fit)
    method, options = METHODS[route]
    value_error = log_hyp0f1(sig, k, method=method, return_error=True, **options)[1]
    grad_error = grad_log_hyp0f1(sig, k, method=method, return_error=True, **options)[1]
    return [float(np.median(value_error)), float(np.mean(np.isfinite(value_error))),
            float(np.median(grad_error)), float(np.max(grad_error))]


def _check_args(args: dict) -> tuple[int, int, float, list, bool]:
    n = check_int(args["n"], "n", minimum=1)
    k = check_int(args["k"], "k", minimum=1)
    s = check_positive_float(args["sigma_n"], "sigma_n")
    variants = []
    for form, method in args["variants"]:
        variants.append((check_choice(form, "form", FORMS), check_choice(method, "method", tuple(METHODS))))
    return n, k, s, variants, bool(args.get("measure_0f1", False))


def fit_matrix(args: dict, rng) -> dict:
    """All Fig. 4 fits of one random n×n matrix with k traits (a :func:`symcheck.sweep.run_sweep` task).

    Parameters
    ----------
    args : dict
        ``n``, ``k``, ``sigma_n``; ``variants``: list of [form, route] SymVI fits (form in
        :data:`symcheck.models.moore_mf.FORMS`, route a label of :data:`METHODS`); ``measure_0f1``:
        also measure each non-exact ₀F₁'s error in the KL term (:func:`kl_0f1_offset`).
    rng : numpy.random.Generator
        The task's generator: draws the problem, the fits' starts and SymVI's draws.

    Returns
    -------
    dict of JSON values
        ``errors``, ``spectra`` (top k singular values of the predictive mean), ``ranks``,
        ``iterations``, ``seconds`` per method name; ``elbo``: isotropic MFVI's ELBO and, per
        SymVI fit, Moore eq. (5) at its optimum with the *corrected* KL (the printed form's fit
        is scored by the bound it actually attains; same draws and ₀F₁ method); ``failures``
        (fits short of their criterion, or refused); ``offsets`` {name: [mean, SE, share of draws with a
        trusted IS standard error]} and
        ``figures`` {name: :func:`kl_0f1_figures`} of each non-exact ₀F₁ at its optimum, with ``sigma``
        {name: [smallest, largest] singular value of B over its draws} there, and ``exact``
        {name: :func:`kl_0f1_exact`} at the optima of :data:`EXACT_AT` up to :data:`EXACT_MAX_K`; ``moved``
        {name: ‖Ŷ − Ŷ_start‖_F / ‖Ŷ_start‖_F} for fits started from another SymVI fit (:data:`STARTS`):
        how far the predictive mean moves when only the ₀F₁ route changes; ``thresholds``
        [γ_VB, σ_n²√k].

    Notes
    -----
    A fit whose route has an entry in :data:`STARTS` starts from that route's fit of the same form,
    on its draws, when there is one; every other SymVI fit starts from the isotropic MFVI fit.
    """
    n, k, s, variants, measure = _check_args(args)
    p, truth = sample_problem(n, n, k, s, rng)
    t0 = time.perf_counter()
    iso = fit_isotropic(p, rng)
    out = {"errors": {}, "spectra": {}, "ranks": {}, "iterations": {"isotropic MFVI": iso.iterations},
           "seconds": {"isotropic MFVI": time.perf_counter() - t0}, "elbo": {"isotropic MFVI": iso.elbo},
           "failures": [], "offsets": {}, "figures": {}, "sigma": {}, "moved": {}, "exact": {},
           "thresholds": [nakajima_threshold(p), p.sigma2 / p.gain]}
    if not iso.converged:
        out["failures"].append(f"isotropic MFVI: {iso.criterion}")
    means = {"MAP": map_closed_form(p), "MFVI (Nakajima)": nakajima_vb(p)[0], "isotropic MFVI": iso.mean}
    fits = {}
    for form, route in variants:
        name = variant_name(form, route)
        method, options = METHODS[route]
        start = fits.get(variant_name(form, STARTS.get(route, "")), iso)
        draws = start.params["E"] if route in STARTS and start is not iso else None
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # auto's accuracy warnings: the offset below measures the error
                fit = fit_symvi(p, rng, form=form, n_draws=N_DRAWS, method=method, start=start, options=options,
                                draws=draws)
        except ValueError as err:
            out["failures"].append(f"{name}: {err}")
            continue
        out["seconds"][name], out["iterations"][name] = time.perf_counter() - t0, fit.iterations
        fits[name], means[name] = fit, fit.mean
        if start is not iso:
            out["moved"][name] = float(np.linalg.norm(fit.mean - start.mean) / np.linalg.norm(start.mean))
        Mu, Mv, c = fit.params["Mu"], fit.params["Mv"], fit.params["c"]
        kl = symvi_kl(np.vstack([Mu, Mv]), math.log(c), fit.params["E"], "corrected", method, options)[0]
        out["elbo"][name] = elbo_factorised(Mu, Mv, c, c, p) + kl
        if not fit.converged:
            out["failures"].append(f"{name}: {fit.criterion}")
        if measure and route != "exact":
            out["offsets"][name] = list(kl_0f1_offset(fit, k, route, rng))
            out["figures"][name] = kl_0f1_figures(fit, k, route)
            sig = _optimum_sigma(fit)
            out["sigma"][name] = [float(np.min(sig)), float(np.max(sig))]
            if k <= EXACT_MAX_K and form == "corrected" and route in EXACT_AT:
                exact = kl_0f1_exact(fit, k)
                if exact is not None:
                    out["exact"][name] = exact
    for name, Y in means.items():
        sv = np.linalg.svd(Y, compute_uv=False)[:k]
        out["errors"][name] = reconstruction_error(Y, truth)
        out["spectra"][name] = sv.tolist()
        out["ranks"][name] = int(np.sum(sv > RANK_RTOL * max(sv[0], 1e-300)))
    return out
