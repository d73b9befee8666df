"""Report section: Moore's experiments (Figs. 1–4) with exact baselines.

Figs. 1–3 use the scalar model r = uv + ε (and the 1×2 model of Fig. 2): exact Bayes by
quadrature, MAP, MFVI (closed form, golden-ratio threshold) and SymVI (sign-flip mixture,
exact mixture entropy by quadrature; optima of :mod:`symcheck.claims.moore_signflip`).
Fig. 4 fits R = UVᵀ/√k + noise by MAP, elementwise MFVI (= Nakajima et al. 2013's global
solution, claim ``moore.fig4.nakajima-vb``), isotropic MFVI and SymVI (O(k)-symmetrised
isotropic base) with Moore's printed A and with the corrected B = MᵀX/c.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from scipy import optimize

from symcheck.hyp0f1 import log_hyp0f1
from symcheck.hyp0f1.api import log_hyp0f1_mc
from symcheck.models.moore_mf import (
    fit_isotropic,
    fit_symvi,
    map_closed_form,
    nakajima_threshold,
    nakajima_vb,
    reconstruction_error,
    sample_problem,
)
from symcheck.models.moore_scalar import (GOLDEN, bayes_predictive_mean, elbo_meanfield, elbo_symmetrized, log_evidence,
                                          log_joint, log_marginal_u, map_predictive_mean, mfvi_optimum, mfvi_product,
                                          ring_radius)

ORDER = 35
TITLE = "Moore's experiments (Figs. 1–4) with exact baselines"

#: Fig. 4 configurations: (label, n = m, k, σ_n, matrices in full mode, in quick mode, SymVI variants).
#: Moore used n = m = 40, k = 20, σ_n = 2 and 80 matrices; one SymVI fit there takes 10–20 s with the Laplace
#: ₀F₁ and 1.5–4 min with the asymptotic one on the shared 2-core machine, so within the section's 2-minute
#: budget the full report fits one such matrix (corrected KL, Laplace only), two of n = 16, k = 8 (k/n = 1/2 as
#: in Moore's; Laplace and, started from the Laplace optimum, the asymptotic expansion) and three of k = 2 (exact
#: ₀F₁, a Bessel function). Raise the counts for a statistical comparison.
CONFIGS = (
    ("n = m = 16, k = 8, σ_n = 2", 16, 8, 2.0, 2, 0,
     (("corrected", "laplace"), ("printed", "laplace"), ("corrected", "asymptotic"))),
    ("n = m = 20, k = 2, σ_n = 3 (exact ₀F₁)", 20, 2, 3.0, 3, 1,
     (("corrected", "exact"), ("printed", "exact"), ("printed", "laplace"))),
    ("Moore's size: n = m = 40, k = 20, σ_n = 2", 40, 20, 2.0, 1, 0, (("corrected", "laplace"),)),
)
#: Draws of the Monte Carlo KL (common random numbers) and importance samples for the ₀F₁ error.
N_DRAWS = 16
N_IS = 400


def _symvi_path(rs):
    """SymVI optima along increasing r by L-BFGS-B, each started at the previous optimum (continuation)
    and at (1, 1, −1, −1); the better one is kept. Stops at the default L-BFGS-B criteria (pgtol 1e-5)."""
    out, prev = [], None
    for r in rs:
        best = None
        for x0 in ([1.0, 1.0, -1.0, -1.0], prev):
            if x0 is not None:
                res = optimize.minimize(lambda x: -elbo_symmetrized(x, r), x0, method="L-BFGS-B")
                best = res if best is None or res.fun < best.fun else best
        prev = best.x
        out.append((-best.fun, best.x))
    return out


def _scalar_figures(ctx):
    import matplotlib.pyplot as plt

    rs = np.linspace(0.05, 4.0, 12 if ctx.quick else 20)
    curves = {"Bayes": [], "MAP": [], "MFVI": [], "SymVI": []}
    bounds = {"log p(r)": [], "max eq. (2) (MFVI)": [], "max eq. (5) (SymVI)": []}
    for r, (sym, x_sym) in zip(rs, _symvi_path(rs)):
        curves["Bayes"].append(bayes_predictive_mean(r))
        curves["MAP"].append(map_predictive_mean(r))
        curves["MFVI"].append(mfvi_product(r))
        curves["SymVI"].append(x_sym[0] * x_sym[1])
        bounds["log p(r)"].append(log_evidence(r))
        bounds["max eq. (2) (MFVI)"].append(elbo_meanfield(mfvi_optimum(r), r))
        bounds["max eq. (5) (SymVI)"].append(sym)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, vals in curves.items():
        axes[0].plot(rs, vals, marker="o", ms=2.5, label=name)
    axes[0].axvline(GOLDEN, color="grey", lw=0.8, ls="--", label="φ = 1.618")
    axes[0].set_xlabel("observed r")
    axes[0].set_ylabel("predictive mean E[uv | r]")
    axes[0].set_title("Fig. 3: r = uv + ε")
    axes[0].legend(fontsize=8)
    for name, vals in bounds.items():
        axes[1].plot(rs, np.array(vals) - np.array(bounds["log p(r)"]), label=name + " − log p(r)")
    axes[1].set_xlabel("observed r")
    axes[1].set_ylabel("nats")
    axes[1].set_title("ELBO gap to the log evidence")
    axes[1].legend(fontsize=8)
    fig3 = ctx.save_figure(fig, "moore_fig3")

    # Fig. 1 (r = 1.5) and Fig. 2 (1×2 model, r = 2)
    r1 = 1.5
    g = np.linspace(-3, 3, 161)
    U, V = np.meshgrid(g, g)
    z = np.stack([U.ravel(), V.ravel()], axis=1)
    post = np.exp(log_joint(z, r1) - log_evidence(r1)).reshape(U.shape)

    def gauss(x, m, s):
        return np.exp(-0.5 * (x - m) ** 2 / s) / math.sqrt(2 * math.pi * s)

    x_mf = mfvi_optimum(r1)
    x_sym = _symvi_path([r1])[0][1]
    q_mf = gauss(U, x_mf[0], math.exp(x_mf[2])) * gauss(V, x_mf[1], math.exp(x_mf[3]))
    q_sym = 0.5 * (gauss(U, x_sym[0], math.exp(x_sym[2])) * gauss(V, x_sym[1], math.exp(x_sym[3]))
                   + gauss(U, -x_sym[0], math.exp(x_sym[2])) * gauss(V, -x_sym[1], math.exp(x_sym[3])))
    fig, axes = plt.subplots(1, 4, figsize=(16, 4))
    for ax, dens, title in zip(axes[:3], (post, q_mf, q_sym),
                               ("Fig. 1: exact p(u, v | r = 1.5)", "MFVI q(u)q(v)", "SymVI q̃ (sign flips)")):
        ax.contour(U, V, dens, levels=8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("u")
        ax.set_ylabel("v")
        ax.set_aspect("equal")
    r2 = 2.0
    ring = np.exp(log_marginal_u(np.stack([U, V], axis=-1), r2))
    axes[3].contourf(U, V, ring / ring.max(), levels=12)
    axes[3].add_patch(plt.Circle((0, 0), ring_radius(r2), fill=False, color="w", ls="--"))
    axes[3].set_title("Fig. 2: p(u | r = 2), u ∈ R^{1×2}", fontsize=10)
    axes[3].set_aspect("equal")
    fig12 = ctx.save_figure(fig, "moore_fig12")
    rows = [{"r": float(r), **{k: float(v[i]) for k, v in curves.items()},
             **{k: float(v[i]) for k, v in bounds.items()}} for i, r in enumerate(rs)]
    return fig12, fig3, rows, (x_mf, x_sym)


def _bayes_1x2(r):
    """E[u vᵀ | r] of the 1×2 model: E[r ρ²/(1 + ρ²)] over the radial marginal ∝ ρ p(u|r) (1-D quadrature)."""
    from scipy import integrate

    w = lambda t: t * math.exp(float(log_marginal_u(np.array([t, 0.0]), r)))  # noqa: E731
    num = integrate.quad(lambda t: w(t) * r * t * t / (1 + t * t), 0, np.inf, epsrel=1e-12)[0]
    return num / integrate.quad(w, 0, np.inf, epsrel=1e-12)[0]


def _kl_0f1_error(fit, k, method, rng):
    """Error of the fit's ₀F₁ in its KL term: mean over its draws of log ₀F₁ (``method`` − saddle IS), ± SE."""
    M = np.vstack([fit.params["Mu"], fit.params["Mv"]])
    c, E = fit.params["c"], fit.params["E"]
    B = np.matmul(M.T, M + math.sqrt(c) * E) / c
    if fit.params["form"] == "printed":
        B = 0.5 * (B + np.swapaxes(B, -1, -2))
    sig = np.linalg.svd(B, compute_uv=False)
    est, se = log_hyp0f1_mc(sig, k, N_IS, rng, proposal="saddle")
    d = log_hyp0f1(sig, k, method=method) - est
    return float(np.mean(d)), float(math.sqrt(np.sum(se**2)) / len(se))


def _fig4(ctx):
    results = []
    for label, n, k, s, full, quick, variants in CONFIGS:
        reps = quick if ctx.quick else full
        if reps == 0:
            continue
        rng = np.random.default_rng([ctx.seed, n, k])
        rec = {"label": label, "n": n, "k": k, "sigma_n": s, "errors": {}, "spectra": {}, "notes": [], "ranks": {},
               "failures": []}
        t0 = time.perf_counter()
        for rep in range(reps):
            p, truth = sample_problem(n, n, k, s, rng)
            iso = fit_isotropic(p, rng)
            fits = {"MAP": map_closed_form(p), "MFVI (Nakajima)": nakajima_vb(p)[0], "isotropic MFVI": iso.mean}
            objs = {}
            if not iso.converged:
                rec["failures"].append(f"isotropic MFVI: {iso.criterion}")
            for form, method in variants:
                name = f"SymVI {form} ({method})"
                # the asymptotic expansion needs large pair sums of σ: start it at the Laplace optimum
                start = objs.get(f"SymVI {form} (laplace)", iso) if method == "asymptotic" else iso
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        f = fit_symvi(p, rng, form=form, n_draws=N_DRAWS, method=method, start=start)
                except ValueError as err:
                    rec["failures"].append(f"{name}: {err}")
                    continue
                fits[name], objs[name] = f.mean, f
                if not f.converged:
                    rec["failures"].append(f"{name}: {f.criterion}")
                if method != "exact" and rep == 0:
                    rec["notes"].append((name, *_kl_0f1_error(f, k, method, rng)))
            for name, Y in fits.items():
                sv = np.linalg.svd(Y, compute_uv=False)[:k]
                rec["errors"].setdefault(name, []).append(reconstruction_error(Y, truth))
                rec["spectra"].setdefault(name, []).append(sv)
                rec["ranks"].setdefault(name, []).append(int(np.sum(sv > 1e-6 * max(sv[0], 1e-300))))
            rec["threshold"] = (nakajima_threshold(p), p.sigma2 / p.gain)
        rec["seconds"] = time.perf_counter() - t0
        rec["reps"] = reps
        results.append(rec)
    return results


def _pm(x):
    x = np.asarray(x, float)
    se = x.std(ddof=1) / math.sqrt(x.size) if x.size > 1 else math.nan
    return f"{x.mean():.4f} ± {se:.4f}"


def render(ctx) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t0 = time.perf_counter()
    fig12, fig3, scalar_rows, (x_mf, x_sym) = _scalar_figures(ctx)
    scalar_seconds = time.perf_counter() - t0
    fig4 = _fig4(ctx)
    fig, axes = plt.subplots(2, max(len(fig4), 1), figsize=(6 * max(len(fig4), 1), 9), squeeze=False)
    for j, rec in enumerate(fig4):
        for name, sv in rec["spectra"].items():
            axes[0, j].plot(np.arange(1, rec["k"] + 1), np.mean(sv, axis=0), marker="o", ms=3, label=name)
        axes[0, j].set_title(rec["label"], fontsize=10)
        axes[0, j].set_xlabel("index")
        axes[0, j].set_ylabel("singular value of E[UVᵀ/√k | R] (mean)")
        axes[0, j].legend(fontsize=7)
        names = list(rec["errors"])
        axes[1, j].boxplot([rec["errors"][k] for k in names])
        axes[1, j].set_xticks(range(1, len(names) + 1), [nm.replace(" (", "\n(") for nm in names], fontsize=6, rotation=30)
        axes[1, j].set_ylabel("‖Ŷ − UVᵀ/√k‖²_F / nm")
    fig4_name = ctx.save_figure(fig, "moore_fig4")
    ctx.write_json("moore_experiments", {
        "scalar": scalar_rows,
        "fig4": [{k: v for k, v in rec.items() if k != "spectra"} | {
            "spectra": {n: np.mean(s, axis=0).tolist() for n, s in rec["spectra"].items()}} for rec in fig4]})

    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    lines.append("### Figs. 1–3 (scalar model)\n")
    lines.append(f"MFVI collapses to the origin exactly for r ≤ φ = (1 + √5)/2 = {GOLDEN:.6f} (claim "
                 "`moore.fig13.mfvi-threshold`); Fig. 1's r = 1.5 lies below it: the MFVI optimum there is "
                 f"m = ({x_mf[0]:.1e}, {x_mf[1]:.1e}), the SymVI base mean ({x_sym[0]:.4f}, {x_sym[1]:.4f}). "
                 "The MAP collapses for r ≤ 1. SymVI's predictive mean is closer to Bayes than MFVI's and MAP's "
                 "at every r of the claim `moore.fig3.predictive-mean`; its bound is at least MFVI's and below "
                 "log p(r) (`moore.eq5.bound`).\n")
    lines.append(f"Fig. 2 (1×2 model, r = 2): p(u|r) is a ring of radius {ring_radius(2.0):.4f} (claim "
                 f"`moore.fig2.ring`); Bayes E[u vᵀ | r] = {_bayes_1x2(2.0):.4f}, while MFVI (Nakajima with "
                 f"L = M = 1, H = 2) keeps one of the two traits with E_q[u vᵀ] = {mfvi_product(2.0):.4f}.\n")
    lines.append(f"![{fig12}]({fig12})\n\n![{fig3}]({fig3})\n\n({len(scalar_rows)} values of r, {scalar_seconds:.0f} s.)\n")
    lines.append("### Fig. 4 (matrix factorisation)\n")
    lines.append("MFVI is Moore's App. A elementwise Gaussian; its optimum is Nakajima et al.'s analytic solution "
                 "(coordinate ascent reaches it: `moore.fig4.nakajima-vb`), used here directly. MAP is the "
                 "closed-form soft threshold (`moore.fig4.map-soft-threshold`). Isotropic MFVI and SymVI are fitted "
                 f"by L-BFGS (sup-norm gradient ≤ 1e-6); SymVI's KL uses {N_DRAWS} fixed draws (common random "
                 "numbers) and starts from the isotropic MFVI fit. ₀F₁: `laplace` is Moore's eq. (7) as in Listing 1; "
                 "`exact` (k = 2 only) the Bessel closed form; `asymptotic` the O(1/σ²) expansion on both cosets of "
                 "O(k). The error of each ₀F₁ in the KL term at the optimum is measured by saddle-point importance "
                 f"sampling ({N_IS} draws per coset) below. Errors are mean ± SE over the matrices.\n")
    verdicts = []
    for rec in fig4:
        failed = "; ".join(rec["failures"]) or "none"
        lines.append(f"**{rec['label']}** — {rec['reps']} matrices, {rec['seconds']:.0f} s; fits short of the "
                     f"gradient criterion: {failed}; thresholds γ_VB = {rec['threshold'][0]:.2f} (MFVI), σ_n²√k = "
                     f"{rec['threshold'][1]:.2f} (MAP).\n")
        lines.append("| method | reconstruction error | traits used (mean of k = " + str(rec["k"]) + ") |")
        lines.append("|---|---|---|")
        for name, errs in rec["errors"].items():
            lines.append(f"| {name} | {_pm(errs)} | {np.mean(rec['ranks'][name]):.2f} |")
        lines.append("")
        e = {k: np.asarray(v) for k, v in rec["errors"].items()}
        for name in [nm for nm in e if nm.startswith("SymVI")]:
            for base in ("MFVI (Nakajima)", "MAP"):
                verdicts.append(f"{rec['label']}: {name} − {base} = {_pm(e[name] - e[base])}")
        forms = [nm for nm in e if nm.startswith("SymVI printed")]
        for pr in forms:
            co = pr.replace("printed", "corrected")
            if co in e:
                verdicts.append(f"{rec['label']}: printed − corrected ({pr.split('(')[1][:-1]}) = {_pm(e[pr] - e[co])}")
        for name, bias, se in rec["notes"]:
            lines.append(f"- {name} (first matrix): its log ₀F₁ − importance sampling at the optimum, mean over the "
                         f"{N_DRAWS} draws: {bias:+.3f} ± {se:.1e} (this offset enters the KL term and the ELBO)")
        lines.append("")
    lines.append("Paired differences of reconstruction error (negative: the first is better):\n")
    lines += [f"- {v}" for v in verdicts]
    lines.append("")
    lines.append(f"![{fig4_name}]({fig4_name})\n")
    lines.append(_conclusions(fig4))
    return "\n".join(lines)


def _conclusions(fig4) -> str:
    """What survives, stated from the numbers (a difference counts when it exceeds 2 SE)."""
    out = ["### Which conclusions survive\n"]

    def sig(d):
        d = np.asarray(d)
        if d.size < 2:
            return "single matrix"
        m, se = d.mean(), d.std(ddof=1) / math.sqrt(d.size)
        return "better" if m < -2 * se else "worse" if m > 2 * se else "no resolved difference"

    for rec in fig4:
        e = {k: np.asarray(v) for k, v in rec["errors"].items()}
        for name in [nm for nm in e if nm.startswith("SymVI corrected")]:
            out.append(f"- {rec['label']}: {name} vs MFVI: {sig(e[name] - e['MFVI (Nakajima)'])}; vs MAP: "
                       f"{sig(e[name] - e['MAP'])}; traits used {np.mean(rec['ranks'][name]):.2f} of {rec['k']} "
                       f"(MFVI {np.mean(rec['ranks']['MFVI (Nakajima)']):.2f}).")
        for pr in [nm for nm in e if nm.startswith("SymVI printed")]:
            co = pr.replace("printed", "corrected")
            if co in e:
                out.append(f"- {rec['label']}: printed vs corrected KL ({pr.split('(')[1][:-1]}) changes the "
                           f"reconstruction error: {sig(e[pr] - e[co])} (printed − corrected "
                           f"{_pm(e[pr] - e[co])}).")
        sym = [nm for nm in e if nm.startswith("SymVI")]
        for a in sym:
            for b in sym:
                if a < b and a.split(" (")[0] == b.split(" (")[0]:
                    out.append(f"- {rec['label']}: {a} vs {b} (the ₀F₁ approximation): {sig(e[a] - e[b])} "
                               f"({_pm(e[a] - e[b])}).")
    out.append("")
    out.append("'better'/'worse' need a paired mean difference beyond 2 SE; with few matrices this is a "
               "statement about these matrices, not a test at the suite's 4.4 SE level.")
    return "\n".join(out)
