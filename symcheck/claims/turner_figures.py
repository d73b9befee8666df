"""Claims on the captions of Turner, Berkes & Sahani's Figs. 5 and 8 (the other figures' captions
are checked in :mod:`symcheck.claims.turner_lds`, :mod:`symcheck.claims.turner_fa` and
:mod:`symcheck.claims.turner_ica`).

Fig. 5: zero-temperature EM learning θ₂ (θ₁ = 0, w₁ = w₂ = 1, infinite data) on a grid of true
θ₂ and σ_y², against the mean-field free energy with the correct KL; maximisers by bounded Brent,
accuracy by :func:`symcheck.certify.brent_argmax_tolerance` (through
:func:`symcheck.models.turner_fa.fa_learn_with_tolerance`).

Fig. 8: the ICA model of Sec. 3.3 with one observation of two sparse sources. The exact posterior
p(x | y) is the four-component Gaussian mixture over the switch states (enumeration); its local
maxima are counted on a grid and refined by Nelder–Mead; the variational q(x) is the fixed point
of the updates (63), (65) (:func:`symcheck.models.turner_ica.ica_variational_fit`).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from symcheck.claims import Claim, all_of, bound_from_rows, evidence_from_rows, register
from symcheck.models import turner_ica as ica
from symcheck.models.turner_fa import FIG5_SIGMA_Y2, FIG5_THETA2, fig5_biases
from symcheck.models.turner_ica import FIG8, posterior_modes

SOURCE = "Turner, Berkes & Sahani"

def _check_fig5(rng):
    rows = fig5_biases()
    labels = [f"θ₂={t2:.3f}, σ_y²={sy2}" for t2, sy2, *_ in rows]
    # corrected: identical to the variational bias
    same = evidence_from_rows([(lab, bz, bf, t) for lab, (_, _, bz, bf, t) in zip(labels, rows)],
                              "zero-temperature vs free-energy bias of θ₂, within the Brent accuracies")
    steps = [(f"{labels[i + 1]} − σ_y²={r[0][1]}", r[1][2] - r[0][2], 0.0, r[0][4] + r[1][4])
             for i, r in enumerate(zip(rows, rows[1:])) if r[0][0] == r[1][0]]
    monotone = bound_from_rows(steps, "zero-temperature bias increasing in σ_y² at every θ₂", side="lower", strict=True)
    large = max(abs(bz) for _, _, bz, _, _ in rows)
    return all_of([same, monotone], f"largest |bias| {large:.3f} rad",
                  {"theta2": list(FIG5_THETA2), "sigma_y2": list(FIG5_SIGMA_Y2)}, corrected=same.printed)


register(Claim(
    id="turner.fig5.zero-temperature-bias-map",
    source=f"{SOURCE}, Fig. 5",
    statement=("The zero-temperature EM bias in θ₂ equals the mean-field bias at every (θ₂, σ_y²) and grows monotonically "
               "with σ_y²; it is not a different, complex function of the noise."),
    kind="erratum",
    printed_form="The bias is often very large and it depends on the observation noise (in a complex manner), unlike the case with the variational method.",
    corrected_form="Zero-temperature and (correct) variational biases coincide and increase monotonically with σ_y².",
    check=_check_fig5,
))


# ----- Fig. 8 -----------------------------------------------------------------------------------

def _check_fig8(rng):
    p = FIG8
    modes = posterior_modes(p["y"], p["sigma2"], p["sigma_y2"])
    fits = [ica.ica_variational_fit(p["y"], p["sigma2"], p["sigma_y2"], init_s=x0) for x0 in ica.FIT_INITS]
    best = max(fits, key=lambda f: float(f["free_energy"]))
    Sigma_q = best["Sigma"].reshape(2, 2)
    # exact posterior covariance: moments of the four-component mixture (components by Gaussian conditioning)
    w = ica.ica_switch_posterior(p["y"], p["sigma2"], p["sigma_y2"]).reshape(-1)
    means, covs = [], []
    for s in ica.SWITCH_STATES:
        v = np.where(s == 1, 2 - p["sigma2"], p["sigma2"])
        C = np.diag(v)
        k = C.sum(axis=1) / (v.sum() + p["sigma_y2"])
        means.append(k * p["y"])
        covs.append(C - np.outer(k, C.sum(axis=0)))
    mean = sum(wi * m for wi, m in zip(w, means))
    cov = sum(wi * (c + np.outer(m - mean, m - mean)) for wi, c, m in zip(w, covs, means))
    ratio = float(np.linalg.det(Sigma_q) / np.linalg.det(cov))
    marg = np.diag(Sigma_q) / np.diag(cov)
    # sanity of the mixture moments: against a Monte Carlo draw from the mixture (z = 4.42 SE on each variance)
    n = 20000
    comp = rng.choice(w.size, size=n, p=w / w.sum())
    draws = np.array(means)[comp] + np.einsum("nij,nj->ni", np.linalg.cholesky(np.array(covs))[comp], rng.standard_normal((n, 2)))
    var_mc = draws.var(axis=0, ddof=1)
    se = np.sqrt(2 / (n - 1)) * var_mc * np.sqrt(1 + np.max(stats.kurtosis(draws, axis=0)) / 2)
    mc = evidence_from_rows([(f"Var x_{i + 1}", var_mc[i], cov[i, i], 4.42 * se[i]) for i in range(2)],
                            f"mixture variances vs Monte Carlo ({n} draws, 4.42 SE)")
    multimodal = bound_from_rows([("local maxima of p(x|y)", len(modes), 2, 0)],
                                 "p(x|y) has local maxima at " + ", ".join(f"({m[0]:.3f}, {m[1]:.3f})" for m in modes),
                                 side="lower")
    compact = bound_from_rows([(f"Var_q x_{i + 1} / posterior Var x_{i + 1}", marg[i], 1.0, 0.0) for i in range(2)],
                              f"variational q(x) (best of {len(fits)} starts) narrower than the exact posterior "
                              f"marginals (det ratio {ratio:.3g})", strict=True)
    converged = evidence_from_rows([("fixed point of (63), (65) converged", float(np.all(best["converged"])), 1.0, 0.0)],
                                   "variational fit")
    return all_of([compact, multimodal, converged, mc],
                  f"σ² = {p['sigma2']}, σ_y² = {p['sigma_y2']}, y = {p['y']}", dict(p, n_modes=len(modes)))


register(Claim(
    id="turner.fig8.ica-posterior-multimodal-q-compact",
    source=f"{SOURCE}, Sec. 3.3, Fig. 8",
    statement=("For a sparse over-complete ICA model (σ² = 0.1, σ_y² = 0.05, y = 2, one observation of two sources) the exact posterior has several "
               "modes, while the variational q(x) is a single Gaussian whose marginal variances are smaller than the posterior's."),
    check=_check_fig8,
))
