"""Report section: Gelberg et al.'s experiments re-run with exact objectives and a grid ground truth.

* Fig. 3 / App. A Fig. 5: the reverse-KL Gaussian fit of ½N(0, σ²) + ½N(α, σ²) from the
  component, α⁻¹‖μ*‖, det Σ*/σ^{2d} and the KL against α/σ, with the fit from the midpoint.
* Fig. 4: the exact posterior of the two-ReLU BNN on a grid and the MFVI / SGM (K = 2) optima.
* Tables 2–3: test MSE and normalised L, L^G over data sets (mean ± SE) for σ = 1 and 3.

Settings, objectives and convergence criteria: `symcheck.claims.gelberg_experiments`.
"""

from __future__ import annotations

import numpy as np

from symcheck.claims.gelberg_experiments import ALPHAS, NOISES, SEEDS, interpolation_fit, paired, runs
from symcheck.models import gelberg_experiments as ge

ORDER = 50
TITLE = "Gelberg et al.: mode interpolation and the tractable BNN (Figs. 3–4, Tables 2–3)"


def _fig3(plt, quick):
    ratios = np.linspace(0.5, 9.0, 12 if quick else 52)
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    rows = []
    for sigma in (0.25, 0.5, 1.0, 2.0):
        fits = [interpolation_fit(r * sigma, sigma) for r in ratios]
        mids = [interpolation_fit(r * sigma, sigma, "midpoint") for r in ratios]
        axes[0].plot(ratios * sigma, [f["ratio"] for f in fits], label=f"σ = {sigma}")
        axes[1].plot(ratios * sigma, [f["var_ratio"] for f in fits], label=f"σ = {sigma}")
        line, = axes[2].plot(ratios * sigma, [f["kl"] for f in fits], label=f"σ = {sigma}, from component")
        axes[2].plot(ratios * sigma, [f["kl"] for f in mids], ls=":", color=line.get_color(), label=f"σ = {sigma}, from midpoint")
        rows += [{"sigma": sigma, "alpha": float(r * sigma), **f, "kl_midpoint": m["kl"]} for r, f, m in zip(ratios, fits, mids)]
    for ax, lab in zip(axes, ("α⁻¹‖μ*‖", "det Σ* / σ^{2d}", "KL (up to a constant)")):
        ax.set_xscale("log")
        ax.set_xlabel("α")
        ax.set_ylabel(lab)
    axes[0].legend(fontsize=8)
    axes[2].legend(fontsize=6)
    return fig, rows


def _fig4(plt, quick):
    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, noise in zip(axes, NOISES):
        a = 0.1
        train, _ = ge.bnn_dataset(a, SEEDS[0], noise_sd=noise)
        g = ge.grid_posterior(train, n=201 if quick else 401)
        ax.contourf(g["w"], g["w"], g["density"].T, levels=20, cmap="Greys")
        r = ge.table_run(a, SEEDS[0], noise)
        for kind, col in (("mfvi", "tab:red"), ("sgm2", "tab:blue")):
            m, sd = r[kind]["mean"], np.sqrt(r[kind]["var"])
            t = np.linspace(0, 2 * np.pi, 100)
            pts = [(m, sd)] if kind == "mfvi" else [(m, sd), (m[::-1], sd[::-1])]
            for j, (mm, ss) in enumerate(pts):
                ax.plot(mm[0] + 2 * ss[0] * np.cos(t), mm[1] + 2 * ss[1] * np.sin(t), color=col,
                        label=(("MFVI" if kind == "mfvi" else "SGM (K = 2), both components") + " (2 sd)") if j == 0 else None)
        ax.set_title(f"α = {a}, σ = {noise}: exact posterior (grid)")
        ax.set_xlabel("w₁")
        ax.set_ylabel("w₂")
        ax.set_aspect("equal")
        ax.legend(fontsize=8, loc="upper right")
    return fig


def render(ctx) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seeds = SEEDS[:1] if ctx.quick else SEEDS
    alphas = ALPHAS[:2] if ctx.quick else ALPHAS
    out = [__doc__.split("\n\n", 1)[1].strip(), ""]

    fig, rows3 = _fig3(plt, ctx.quick)
    name3 = ctx.save_figure(fig, "gelberg_fig3")
    ctx.write_json("gelberg_fig3", rows3)
    worst_grad = max(r["grad"] for r in rows3)
    out.append("### Fig. 3: mode interpolation\n")
    out.append("BFGS on the exact (Gauss–Hermite) KL of the 1-D reduction, stopped at gradient norm ≤ 1e-10 (largest final "
               f"gradient over the curves: {worst_grad:.1e}). Solid: fit from the component (0, σ²) as in the paper; dotted "
               "(right): from the midpoint. The curves for different σ coincide in α/σ (α* ∝ σ). Between α* ≈ 4.8σ and "
               "α_g ≈ 5.6σ the component fit is only a local optimum: the midpoint solution has the lower KL "
               "(claim `gelberg.fig3.stuck-above-threshold`). The interpolating solution's variance grows with α "
               f"(claim `gelberg.fig3.interpolation-inflates-variance`).\n\n![{name3}]({name3})\n")

    name4 = ctx.save_figure(_fig4(plt, ctx.quick), "gelberg_fig4")
    out.append("### Fig. 4: exact posterior and the VI optima\n")
    out.append("Exact posterior by trapezoid quadrature on a grid containing the kinks (discretisation error estimated by "
               "halving the step: claim `gelberg.sec5.grid-ground-truth`). With σ = 3 the MFVI optimum sits at the midpoint "
               "between the two equivalent modes, SGM's component moves to a mode; with σ = 1 both sit at a mode.\n\n"
               f"![{name4}]({name4})\n")

    table = []
    out.append("### Tables 2–3\n")
    out.append(f"{len(seeds)} data sets per cell (seeds {', '.join(map(str, seeds))}), mean ± SE over data sets. Predictive "
               "means are exact expectations (the paper's 1000 samples → ∞); ELBOs are exact and divided by N = 100. "
               "Every fit is a BFGS optimum certified by `minimiser_radius` (gradient and Hessian bounds).\n")
    out.append("| σ | α | MSE exact | MSE MFVI | MSE SGM | L/N MFVI | L^G/N MFVI | L/N SGM | L^G/N SGM | log p/N |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for noise in NOISES:
        for a in alphas:
            rs = runs(a, noise, seeds)
            cell = {"sigma": noise, "alpha": a}
            for key, f in (("mse_exact", lambda r: r["exact"]["mse"]), ("mse_mfvi", lambda r: r["mfvi"]["mse"]),
                           ("mse_sgm", lambda r: r["sgm2"]["mse"]), ("L_mfvi", lambda r: r["mfvi"]["L"] / r["n"]),
                           ("LG_mfvi", lambda r: r["mfvi"]["LG"] / r["n"]), ("L_sgm", lambda r: r["sgm2"]["L"] / r["n"]),
                           ("LG_sgm", lambda r: r["sgm2"]["LG"] / r["n"]), ("logp", lambda r: r["log_evidence"] / r["n"])):
                cell[key] = paired(rs, f) if len(rs) > 1 else (f(rs[0]), float("nan"))
            table.append(cell)
            out.append(f"| {noise} | {a} | " + " | ".join(
                f"{cell[k][0]:.3e} ± {cell[k][1]:.1e}" if k.startswith("mse") else f"{cell[k][0]:.4f} ± {cell[k][1]:.4f}"
                for k in ("mse_exact", "mse_mfvi", "mse_sgm", "L_mfvi", "LG_mfvi", "L_sgm", "LG_sgm", "logp")) + " |")
    ctx.write_json("gelberg_tables", table)
    out.append("\nL ≤ L^G ≤ log p(Y|X) in every cell; SGM's L^G is higher where MFVI interpolates (σ = 3, α ≤ 0.15), "
               "and equal where both find a mode. Test MSE against the noise-free f_α is not a measure of posterior fit: "
               "at σ = 3, α = 0.05 the exact posterior's predictive mean has the largest MSE and SGM's is above MFVI's. "
               "The paper's likelihood noise is not given, so its numbers cannot be compared cell by cell.\n")
    out.append("Table 1 (MNIST): see the section \"Gelberg et al.: Table 1 stand-in on the digits\" (`gelberg_digits`).")
    plt.close("all")
    return "\n".join(out)
