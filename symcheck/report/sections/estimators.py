"""Report section: bias and variance of the symmetrized-entropy estimators.

* Bias of Gelberg's H^K versus K, against the exact H(q̃), compared with the law
  χ²(q*‖q̃)/(2K) derived in :func:`symcheck.symmetrize.infonce_bias_law`.
* Spread (per-sample standard deviation) of Ĥ^K and of Moore's Monte Carlo estimate of
  H(q̃) = H(q*) + E_{q*}[log q* − log q̃] (Moore Sec. 3.1, eq. (6)) versus the MLP width
  and the number of sign-flip blocks (symmetric modes).
* Variance reduction: stratified (without replacement) and near-identity importance sampled
  H^K, checked for the bound property against the exact H(q̃).
"""

from __future__ import annotations

import math

import numpy as np

from symcheck.evidence import z_for_alpha
from symcheck.gaussian import gaussian_logpdf, sample_gaussian
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.signflip_exact import signflip_chi2_1d, signflip_gap_1d, signflip_infonce_expectation_1d
from symcheck.sweep import seeded_tasks
from symcheck.symmetrize import (
    chi2_to_symmetrized,
    entropy_infonce,
    entropy_infonce_is,
    entropy_symmetrized,
    infonce_bias_law,
)

ORDER = 40
TITLE = "Symmetrized entropy estimators: bias and variance"
#: Seconds of a typical sweep task (0.01–0.6 s): the report starts longer sweeps first.
TASK_SECONDS = 0.1

Z = z_for_alpha()


def _fmt(x, se=None, digits=4):
    return f"{x:.{digits}f}" if se is None else f"{x:.{digits}f} ± {se:.{digits}f}"


def _bias_exact_signflip(Ks):
    rows = []
    for s in (0.25, 1.0, 4.0):
        gap, chi2 = signflip_gap_1d(s), signflip_chi2_1d(s)
        for K in Ks:
            b = gap - signflip_infonce_expectation_1d(s, K)
            rows.append({"s": s, "K": K, "bias": b, "law": float(infonce_bias_law(chi2, K)), "chi2": chi2})
    return rows


def _mlp_case(width, rng, scale=0.6, var=0.3):
    G = MLPPermutation([1, width, 1])
    mean = scale * rng.normal(size=G.dim)
    return G, mean, np.full(G.dim, var)


def _mlp_bias(width, S, Ks, rng):
    """Monte Carlo bias H(q̃) − Ĥ^K of one MLP width for every K, with the law χ²/(2K)."""
    G, mean, var = _mlp_case(width, rng)
    H, seH = entropy_symmetrized(mean, var, G, rng, 4 * S)
    chi2, sechi = chi2_to_symmetrized(mean, var, G, rng, 4 * S)
    rows = []
    for K in Ks:
        est, se = entropy_infonce(mean, var, G, K, S, rng, control_variate=True)
        rows.append({"width": width, "K": K, "bias": H - est, "se": math.hypot(se, seH),
                     "law": float(infonce_bias_law(max(chi2, 0.0), K)), "chi2": chi2, "chi2_se": sechi,
                     "log_order": G.log_order()})
    return rows


def _spread(G, mean, var, S, rng):
    """Per-sample sd of Moore's KL terms (eq. (6)) and of Ĥ^8 with and without the control variate."""
    z = sample_gaussian(mean, var, rng, S)
    kl_terms = gaussian_logpdf(z, mean, var) - G.symmetrized_logpdf(z, mean, var)  # Moore eq. (6) MC terms
    _, se_plain = entropy_infonce(mean, var, G, 8, S, rng)
    _, se_cv = entropy_infonce(mean, var, G, 8, S, rng, control_variate=True)
    return {"moore_sd": float(kl_terms.std(ddof=1)), "infonce_sd": se_plain * math.sqrt(S),
            "infonce_cv_sd": se_cv * math.sqrt(S), "log_order": G.log_order(), "K": 8}


def _signflip_case(B, rng):
    return SignFlip((3, B), blocks="columns"), rng.normal(size=(3, B)) * 0.6, np.full((3, B), 0.3)


def _reduction(name, S, rng):
    """Ĥ^K − H(q̃) of the paper's estimator and its variance-reduced variants, K = 2, 4, 8."""
    G, mean, var = _mlp_case(4, rng) if name == "MLP 1-4-1" else _signflip_case(4, rng)
    H, seH = entropy_symmetrized(mean, var, G, rng, 4 * S)
    rows = []
    for K in (2, 4, 8):
        for method in ("paper", "control variate", "stratified + CV", "IS near identity + CV"):
            if method == "paper":
                est, se = entropy_infonce(mean, var, G, K, S, rng)
            elif method == "control variate":
                est, se = entropy_infonce(mean, var, G, K, S, rng, control_variate=True)
            elif method == "stratified + CV":
                est, se = entropy_infonce(mean, var, G, K, S, rng, replace=False, control_variate=True)
            else:
                est, se = entropy_infonce_is(mean, var, G, K, S, rng, rho=0.5, control_variate=True)
            d, sed = est - H, math.hypot(se, seH)
            rows.append({"case": name, "K": K, "method": method, "est_minus_H": d, "se": sed,
                         "sd": se * math.sqrt(S), "bound_violated": bool(d > Z * sed)})
    return rows


def _study(args, rng):
    """One task of the section's sweep (run by :func:`symcheck.sweep.run_sweep`, own seed per task)."""
    study = args[0]
    if study == "bias":
        return {"study": study, "rows": _mlp_bias(*args[1:], rng)}
    if study == "spread":
        group, size, S = args[1:]
        G, mean, var = _mlp_case(size, rng) if group == "MLP" else _signflip_case(size, rng)
        return {"study": study, "row": {"group": group, "size": size, **_spread(G, mean, var, S, rng)}}
    return {"study": study, "rows": _reduction(args[1], args[2], rng)}


def _tasks(quick: bool, seed: int):
    """The Monte Carlo tasks of the section (bias per MLP width, spread per group, reduction per case)."""
    S = 1000 if quick else 4000
    mlp_Ks = [2, 8, 32] if quick else [2, 8, 32, 128]
    args = [("bias", width, S, mlp_Ks) for width in (3, 4, 5)]
    args += [("spread", "MLP", width, S) for width in ([2, 3, 4, 5, 6] if quick else [2, 3, 4, 5, 6, 7, 8])]
    args += [("spread", "SignFlip columns", B, S) for B in ([1, 2, 4, 8] if quick else [1, 2, 4, 8, 16, 32])]
    args += [("reduction", name, S) for name in ("MLP 1-4-1", "SignFlip 4 columns")]
    return S, mlp_Ks, seeded_tasks(args, seed + 40)


def sweeps(ctx) -> list:
    """The section's cached sweep (the report runs it in one pool with the other sections': ~1.5 s of work,
    which a pool of its own took longer to start)."""
    return [("estimators", _study, _tasks(ctx.quick, ctx.seed)[2])]


def render(ctx) -> str:
    S, mlp_Ks, _ = _tasks(ctx.quick, ctx.seed)
    results = ctx.sweep(sweeps(ctx)[0])
    out = []
    data = {}

    # ---- 1. bias of H^K vs K: exact (sign flip) --------------------------------------
    Ks = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    rows = _bias_exact_signflip(Ks)
    data["bias_signflip_exact"] = rows
    out.append("### Bias of H^K versus K\n")
    out.append("Whole-point sign flip of q* = N(μ, Σ) (depends only on s = μᵀΣ⁻¹μ); E[H^K] and H(q̃) by "
               "quadrature (binomial sum over the flips), so the bias is exact. The law χ²(q*‖q̃)/(2K) "
               "is derived in `symmetrize.infonce_bias_law` (second-order expansion of E log m_K).\n")
    out.append("| s | χ² | " + " | ".join(f"K={K}" for K in Ks) + " |")
    out.append("|---|---|" + "---|" * len(Ks))
    for s in (0.25, 1.0, 4.0):
        rr = [r for r in rows if r["s"] == s]
        out.append(f"| {s} | {rr[0]['chi2']:.4f} | " + " | ".join(f"{r['bias']:.2e} (law {r['law']:.2e})" for r in rr) + " |")

    # MLP groups: MC bias against the exact-density H(q̃)
    mlp_rows = [row for r in results if r["study"] == "bias" for row in r["rows"]]
    data["bias_mlp_mc"] = mlp_rows
    out.append("\nMLP 1-d-1 hidden-unit permutations (|G| = d!), unit means ~ N(0, 0.6²), variances 0.3: "
               f"bias H(q̃) − Ĥ^K (Monte Carlo, S = {S}, control-variate form; H(q̃) = H(q*) + KL with KL by Monte "
               "Carlo of the exact permanent log density) vs χ²/(2K).\n")
    out.append("| width | log\\|G\\| | χ² | K | bias | law χ²/(2K) |")
    out.append("|---|---|---|---|---|---|")
    for r in mlp_rows:
        out.append(f"| {r['width']} | {r['log_order']:.2f} | {_fmt(r['chi2'], r['chi2_se'], 2)} | {r['K']} | "
                   f"{_fmt(r['bias'], r['se'])} | {r['law']:.4f} |")
    out.append("\nThe 1/K law holds once K ≫ χ²; for K ≲ χ² (≈ |G| when modes separate) the bias is closer to "
               "log|G| − log K, as the separated-mode limit predicts.\n")

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
        for s in (0.25, 1.0, 4.0):
            rr = [r for r in rows if r["s"] == s]
            ax[0].loglog([r["K"] for r in rr], [r["bias"] for r in rr], "o-", label=f"exact, s={s}")
        for i, s in enumerate((0.25, 1.0, 4.0)):
            rr = [r for r in rows if r["s"] == s]
            ax[0].loglog([r["K"] for r in rr], [r["law"] for r in rr], "k:", lw=1, label="law χ²/(2K)" if i == 0 else None)
        ax[0].set_xlabel("K")
        ax[0].set_ylabel("H(q̃) − E[H^K]")
        ax[0].set_title("sign flip (exact)")
        ax[0].legend(fontsize=9)
        for width in (3, 4, 5):
            rr = [r for r in mlp_rows if r["width"] == width]
            ax[1].errorbar([r["K"] for r in rr], [r["bias"] for r in rr], yerr=[Z * r["se"] for r in rr],
                           fmt="o-", label=f"width {width}")
        for i, width in enumerate((3, 4, 5)):
            rr = [r for r in mlp_rows if r["width"] == width]
            ax[1].plot([r["K"] for r in rr], [r["law"] for r in rr], "k:", lw=1, label="law χ²/(2K)" if i == 0 else None)
        # the law is far off where K ≲ χ² (see the text): keep the measured biases readable, let it leave the frame
        top = max(r["bias"] + Z * r["se"] for r in mlp_rows)
        ax[1].set_ylim(min(0.0, min(r["bias"] - Z * r["se"] for r in mlp_rows)), 1.3 * top)
        ax[1].set_xscale("log")
        ax[1].set_xticks(mlp_Ks, labels=[str(K) for K in mlp_Ks])
        ax[1].minorticks_off()
        ax[1].set_xlabel("K")
        ax[1].set_ylabel("H(q̃) − Ĥ^K")
        ax[1].set_title(f"MLP 1-d-1 (Monte Carlo, ±{Z:.2f} SE)")
        ax[1].legend(fontsize=9)
        out.append(f"![bias of H^K]({ctx.save_figure(fig, 'estimators_bias')})\n")
    except ImportError:  # matplotlib is an optional extra
        out.append("(matplotlib not installed: plots skipped)\n")

    # ---- 2. variance vs width / number of modes ---------------------------------------
    var_rows = [r["row"] for r in results if r["study"] == "spread"]
    data["variance"] = var_rows
    out.append("### Variance versus width and number of symmetric modes\n")
    out.append(f"Per-sample standard deviation (S = {S}; the SE of an S-sample estimate is this over √S) of "
               "Moore's Monte Carlo estimate of KL[q*‖q̃] (terms log q*(z*) − log q̃(z*), exact log q̃: "
               "permanent / factorised sign flips; H(q̃) = H(q*) + KL) and of Gelberg's Ĥ^K, K = 8, in the "
               "paper's form and with the control variate log q*(ω) + H(q*). The plain Ĥ^K inherits the "
               "O(√D) spread of −log q*(ω); the control variate removes it, leaving a spread comparable to "
               "Moore's exact-density estimator.\n")
    out.append("| group | width / blocks | log\\|G\\| | sd Moore KL | sd Ĥ^8 (paper) | sd Ĥ^8 (control variate) |")
    out.append("|---|---|---|---|---|---|")
    for r in var_rows:
        out.append(f"| {r['group']} | {r['size']} | {r['log_order']:.2f} | {r['moore_sd']:.4f} | "
                   f"{r['infonce_sd']:.4f} | {r['infonce_cv_sd']:.4f} |")
    try:
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(10, 4.8))
        for grp, mk in (("MLP", "o"), ("SignFlip columns", "s")):
            rr = [r for r in var_rows if r["group"] == grp]
            x = [r["log_order"] for r in rr]
            ax.plot(x, [r["moore_sd"] for r in rr], mk + "-", label=f"{grp}: Moore KL")
            ax.plot(x, [r["infonce_sd"] for r in rr], mk + "--", label=f"{grp}: Ĥ^8 paper")
            ax.plot(x, [r["infonce_cv_sd"] for r in rr], mk + ":", label=f"{grp}: Ĥ^8 control variate")
        ax.set_xlabel("log |G|")
        ax.set_ylabel("per-sample sd")
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.02, 1.0))  # outside: no point is hidden
        out.append(f"\n![variance]({ctx.save_figure(fig, 'estimators_variance')})\n")
    except ImportError:
        pass

    # ---- 3. variance reduction ---------------------------------------------------------
    vr_rows = [row for r in results if r["study"] == "reduction" for row in r["rows"]]
    data["variance_reduction"] = vr_rows
    out.append("\n### Variance reduction\n")
    out.append("Ĥ^K − H(q̃) (H(q̃) = H(q*) + KL, KL by Monte Carlo of the exact density, 4S samples) and the "
               "per-sample sd. *Control variate* (CV): add log q*(ω) + H(q*) (mean 0) to each term: same "
               "expectation, so still a lower bound. *Stratified*: "
               "the K−1 elements are distinct non-identity elements (without replacement); it remains a lower "
               "bound (E[Ĥ^K] is the average entropy of a random K-component sub-mixture of q̃, ≤ H(q̃) by "
               "concavity; exact at K = |G|). *IS near identity* (Gelberg Sec. 5's suggestion): proposal "
               "½·uniform + ½·uniform(single transpositions / single flips) with weights 1/(|G| r(g)); no "
               "bound is proved. A row is flagged when the estimate exceeds H(q̃) by more than 4.42 SE.\n")
    out.append("| case | K | method | Ĥ^K − H(q̃) | per-sample sd | exceeds H(q̃)? |")
    out.append("|---|---|---|---|---|---|")
    for r in vr_rows:
        out.append(f"| {r['case']} | {r['K']} | {r['method']} | {_fmt(r['est_minus_H'], r['se'])} | {r['sd']:.4f} | "
                   f"{'**yes**' if r['bound_violated'] else 'no'} |")
    out.append("\nReading the tables: the control variate is the variance reduction that matters (the per-sample "
               "sd drops 3–6× here, and it grows no faster than Moore's exact-density KL with |G|); stratified "
               "sampling lowers the *bias* visibly once K is a sizeable fraction of |G| and keeps the bound; "
               "near-identity importance sampling changes little at these sizes and, while no violation was "
               "measured, carries no proof of the bound. A tiny spread at large |G| (many flip blocks) is not "
               "precision: all K−1 sampled components miss q*, so Ĥ^K ≈ H(q*) + log K, biased by ≈ log|G| − log K.\n")
    ctx.write_json("estimators", data)
    return "\n".join(out)
