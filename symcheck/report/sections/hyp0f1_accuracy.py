"""Report section: accuracy and cost of every ₀F₁ method over a grid of k and σ.

Reference per input: the closed form where one exists (k ≤ 2, k = 3 by its 1-D integral, k = 4 by its positive
series, rank one); otherwise the
float64 zonal series where its rigorous truncation bound is ≤ 1e-15 within the degree
cap below (its agreement with the mpmath reference is itself a claim,
`hyp0f1.series.*`). Beyond both, for k ≤ 20 and σ large enough for it to be efficient
(every pair sum ≥ 5), saddle-point importance sampling gives an unbiased reference with a
standard error (claim `hyp0f1.mc.saddle-unbiased`) where the Pareto tail index of its weights lets
that standard error be trusted (`symcheck._mc.khat_trusted`); those rows are tabulated separately,
with the SE beside each error. Elsewhere there is no trustworthy reference and the report
says so. Errors are absolute errors in log ₀F₁ (= relative errors of ₀F₁ to first order).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from symcheck.hyp0f1 import closed_form, methods, series
from symcheck._mc import khat_trusted
from symcheck.hyp0f1.api import Hyp0f1AccuracyWarning, log_hyp0f1, log_hyp0f1_mc
from symcheck.sweep import seeded_tasks

ORDER = 10
TITLE = "₀F₁(k/2; AAᵀ/4): accuracy and cost of each method"
#: Seconds of a typical sweep task (up to 35 s (k = 8)): the report starts longer sweeps first.
TASK_SECONDS = 10.0
#: Its tasks start once the report's own claims have compiled the ₀F₁ kernels it shares with them
#: (:data:`symcheck.report.sections.hyp0f1_budget.AFTER_CLAIMS`).
AFTER_CLAIMS = True

def report_methods() -> dict:
    """Label → options of every route the section compares: each registered method's labelled
    variants (:mod:`symcheck.hyp0f1.methods`; random methods are shown separately), and auto."""
    out = {label: {"method": name, **opts} for name, m in methods.REGISTRY.items() if not m.needs_rng
           for label, opts in m.variants.items()}
    out["auto"] = {"method": "auto"}
    return out


REGIONS = [(0.0, 1.0, "σ_max < 1"), (1.0, 10.0, "1 ≤ σ_max < 10"), (10.0, 100.0, "10 ≤ σ_max < 100"),
           (100.0, np.inf, "σ_max ≥ 100")]


def _series_cap(k: int) -> int:
    """Largest degree the report sums for a reference (partition counts grow fast with k)."""
    return 150 if k <= 3 else 100 if k <= 5 else 60 if k <= 8 else 40 if k <= 20 else 25


def _shapes(k: int, s: float) -> dict:
    i = np.arange(k)
    out = {"rank one": np.r_[s, np.zeros(k - 1)], "equal": np.full(k, s)}
    if k > 1:
        out["spread"] = s * np.geomspace(1.0, 0.1, k) * (1 + 0.01 * i)
    return out


def _reference(sig: np.ndarray, k: int):
    if closed_form.has_closed_form(sig[None, :], k)[0]:
        return float(log_hyp0f1(sig, k, method="exact")), "closed form"
    if series.series_degree_needed(sig[None, :], k, 1e-15)[0] <= _series_cap(k):
        return float(log_hyp0f1(sig, k, method="series", rtol=1e-15, max_degree=_series_cap(k))), "series"
    return np.nan, "none"


#: Importance-sampling reference: draws per coset, and the largest k it is run for.
_IS_DRAWS, _IS_MAX_K, _IS_MIN_PAIR = 4000, 20, 5.0


def _is_references(rows, rng, quick):
    """Saddle-point IS reference (estimate, SE) for rows the exact routes cannot reach, kept only where the
    weights' Pareto tail index k̂ lets the SE be trusted (:func:`symcheck._mc.khat_trusted`); the k̂ of
    every IS run is recorded (``is_khat``)."""
    n = 1000 if quick else _IS_DRAWS
    for r in rows:
        sig = np.sort(np.array(r["sigma"]))
        if r["ref_kind"] != "none" or r["k"] > _IS_MAX_K or sig[0] + sig[1] < _IS_MIN_PAIR:
            continue
        est, se, khat = log_hyp0f1_mc(sig, r["k"], n, rng, proposal="saddle", return_khat=True)
        r["is_khat"] = float(khat)
        if np.isfinite(se) and khat_trusted(khat, n):
            r["is_reference"], r["is_se"] = float(est), float(se)


def _evaluate(sig: np.ndarray, k: int, opts: dict) -> float:
    try:
        with np.errstate(all="ignore"):
            return float(log_hyp0f1(sig, k, **opts))
    except ValueError:
        return np.nan  # outside the method's range (e.g. series beyond its degree cap)


def _grid(quick: bool):
    ks = [1, 2, 3, 5, 8] if quick else [1, 2, 3, 4, 5, 8, 12, 16, 20, 32, 48, 64]
    scales = np.geomspace(1e-3, 1e4, 6 if quick else 15)
    return ks, scales


def _mc_rows(rows, k, rng, quick):
    """Haar MC estimate, SE and the weights' Pareto tail index k̂ for every row of one k (shared draws)."""
    sig = np.array([r["sigma"] for r in rows])
    n = 500 if quick else (4000 if k <= 20 else 1000)
    est, se, khat = log_hyp0f1_mc(sig, k, n, rng, return_khat=True)
    for r, e, s, kh in zip(rows, est, se, khat):
        r["mc"] = float(e)
        r["mc_se"] = float(s)
        r["mc_khat"] = float(kh)
        r["mc_n"] = n


def accuracy_rows(args: dict, rng) -> list[dict]:
    """The rows of one k (a cached sweep task): every method's value and error against the reference,
    the Haar MC estimate, and the importance-sampling reference where no exact one exists."""
    k, quick = args["k"], args["quick"]
    routes = report_methods()
    rows = []
    with warnings.catch_warnings():  # auto's accuracy warnings are what this section measures
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)
        for s in args["scales"]:
            for shape, sig in _shapes(k, s).items():
                ref, kind = _reference(sig, k)
                vals = {name: _evaluate(sig, k, opts) for name, opts in routes.items()}
                errs = {name: v - ref for name, v in vals.items()}
                rows.append({"k": k, "shape": shape, "sigma": sig.tolist(), "reference": ref, "ref_kind": kind,
                             "errors": errs, "values": {n: e + ref if np.isfinite(ref) else vals[n]
                                                        for n, e in errs.items()}})
        _mc_rows(rows, k, rng, quick)
        _is_references(rows, rng, quick)
    return rows


#: Timing: batches grow ×4 from 8 values until one takes ≥ this many seconds (or all 2000 values ran).
_TIMING_SECONDS = 0.1


def _time_per_value(fn, sig: np.ndarray) -> tuple[float, int]:
    """Seconds per value of ``fn`` on the first n rows of ``sig``, n the first batch size (8, 32, …)
    whose call takes ≥ :data:`_TIMING_SECONDS`, or all rows; and that n. Each batch is run once
    untimed first (JIT compilation and per-degree tables are one-time costs, not per-value ones)."""
    n = 8
    while True:
        fn(sig[:n])
        t0 = time.perf_counter()
        fn(sig[:n])
        dt = time.perf_counter() - t0
        if dt >= _TIMING_SECONDS or n >= sig.shape[0]:
            return dt / n, n
        n = min(4 * n, sig.shape[0])


def timing_rows(args: dict, rng) -> list[dict]:
    """The cost table's rows at one k (a cached sweep task): µs per value of every report method and of Monte
    Carlo (1000 draws) on 2000 random σ ∈ [0, 2)^k drawn from ``rng``."""
    k = args["k"]
    sig = 2.0 * rng.random((2000, k))
    out = []
    for name, opts in report_methods().items():
        if opts["method"] == "series" and k > 3:
            opts = dict(opts, max_degree=40)
        try:
            with warnings.catch_warnings():  # a timing: the accuracy is the other tables' business
                warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)
                dt, n = _time_per_value(lambda x, o=opts: log_hyp0f1(x, k, **o), sig)
            out.append({"k": k, "method": name, "us_per_value": dt * 1e6, "values": n})
        except ValueError as err:
            out.append({"k": k, "method": name, "us_per_value": np.nan, "note": str(err)[:80]})
    dt, n = _time_per_value(lambda x: log_hyp0f1_mc(x, k, 1000, rng), sig[:200])
    out.append({"k": k, "method": "mc (1000 draws)", "us_per_value": dt * 1e6, "values": n})
    return out


def _plots(ctx, rows) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for k, shape in ((2, "spread"), (3, "spread"), (5, "equal"), (8, "spread"), (20, "spread")):
        sel = [r for r in rows if r["k"] == k and r["shape"] == shape
               and (np.isfinite(r["reference"]) or "is_reference" in r)]
        if not sel:
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        smax = np.array([max(r["sigma"]) for r in sel])
        ref = np.array([r["reference"] if np.isfinite(r["reference"]) else r["is_reference"] for r in sel])
        by_is = np.array([not np.isfinite(r["reference"]) for r in sel])
        for name in report_methods():
            err = np.abs(np.array([r["values"][name] for r in sel]) - ref)
            ax.loglog(smax, np.maximum(err, 1e-17), marker="o", ms=3, label=name)
        ax.loglog(smax, [r["mc_se"] for r in sel], "k:", label="Haar MC standard error")
        if by_is.any():
            ax.loglog(smax[by_is], [r["is_se"] for r in sel if "is_reference" in r and not np.isfinite(r["reference"])],
                      "k--", label="IS reference standard error")
        ax.set_xlabel("σ_max")
        ax.set_ylabel("|error| in log ₀F₁")
        kinds = sorted({r["ref_kind"] if np.isfinite(r["reference"]) else "importance sampling" for r in sel})
        ax.set_title(f"k = {k}, {shape} singular values (reference: {', '.join(kinds)})", fontsize=9)
        ax.legend(fontsize=7)
        names.append(ctx.save_figure(fig, f"hyp0f1_error_k{k}_{shape}"))
    return names


def _mc_usable_line(rows) -> str:
    """Where Haar Monte Carlo's standard error can be trusted on this grid, and how its errors compare with it
    (inputs with an exact reference): within 4 SE where k̂ trusts the SE, and how far off elsewhere."""
    ref = [r for r in rows if np.isfinite(r["reference"]) and np.isfinite(r["mc"])]
    trusted = [r for r in ref if khat_trusted(r["mc_khat"], r["mc_n"])]
    within = sum(abs(r["mc"] - r["reference"]) <= 4 * r["mc_se"] for r in trusted)
    other = [r for r in ref if r not in trusted]
    text = (f"- **mc** (Haar draws): the estimate of ₀F₁ is unbiased, but its standard error means something only "
            f"where the weights' Pareto tail index k̂ is safely below ½ (`symcheck._mc.khat_trusted`): on this grid "
            f"{len(trusted)} of {len(ref)} inputs with a reference, whose errors are within 4 SE in {within}")
    if other:
        ratio = max(abs(r["mc"] - r["reference"]) / r["mc_se"] if r["mc_se"] > 0 else np.inf for r in other)
        worst = max(other, key=lambda r: abs(r["mc"] - r["reference"]))
        text += (f"; on the other {len(other)} (k̂ up to {max(r['mc_khat'] for r in other):.2g}) the error reaches "
                 f"{ratio:.3g} SE and {abs(worst['mc'] - worst['reference']):.3g} nats (k = {worst['k']}, "
                 f"{worst['shape']}, σ_max = {max(worst['sigma']):.3g}); `method=\"mc\"` returns an inf figure there")
    untrusted_is = sum("is_khat" in r and "is_reference" not in r for r in rows)
    return text + (f". Importance sampling was refused as a reference on {untrusted_is} inputs for the same reason."
                   if untrusted_is else ".")


def render(ctx) -> str:
    with warnings.catch_warnings():  # auto's accuracy warnings are what this section measures
        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)
        return _render(ctx)


def sweeps(ctx) -> list:
    """The section's cached sweep, one task per k (the report runs it in one pool with the other sections')."""
    ks, scales = _grid(ctx.quick)
    args = [{"k": k, "scales": scales.tolist(), "quick": ctx.quick} for k in ks]
    return [("hyp0f1_accuracy", accuracy_rows, seeded_tasks(args, ctx.seed + 10)),
            ("hyp0f1_accuracy_cost", timing_rows, seeded_tasks([{"k": 3}, {"k": 20}], ctx.seed + 13))]


def _render(ctx) -> str:
    ks, scales = _grid(ctx.quick)
    rows_job, cost_job = sweeps(ctx)
    rows = [r for rows_k in ctx.sweep(rows_job) for r in rows_k]
    timings = [t for rows_k in ctx.sweep(cost_job) for t in rows_k]
    ctx.write_json("hyp0f1_accuracy", {"rows": rows, "timings": timings})

    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    n_ref = sum(np.isfinite(r["reference"]) for r in rows)
    lines.append(f"Grid: k ∈ {ks}, σ scale from {scales[0]:.0e} to {scales[-1]:.0e} ({len(scales)} points), shapes "
                 f"rank one / equal / spread; {len(rows)} inputs, {n_ref} with a trustworthy reference. "
                 f"Raw numbers: [`hyp0f1_accuracy.json`](hyp0f1_accuracy.json). "
                 + ctx.cache.records["hyp0f1_accuracy"].summary())
    lines.append("")
    lines.append("### Error per region (inputs with a reference)\n")
    lines.append("| method | region | n | max abs error | RMS error | worst input (k, shape, σ_max) |")
    lines.append("|---|---|---|---|---|---|")
    for name in list(report_methods()) + ["mc"]:
        for lo, hi, label in REGIONS:
            sel = [r for r in rows if np.isfinite(r["reference"]) and lo <= max(r["sigma"]) < hi]
            if name == "mc":
                errs = np.array([r["mc"] - r["reference"] for r in sel])
            else:
                errs = np.array([r["errors"][name] for r in sel])
            ok = np.isfinite(errs)
            if not ok.any():
                lines.append(f"| {name} | {label} | 0 | — | — | not applicable in this region |")
                continue
            e = np.abs(errs[ok])
            worst = [r for r, o in zip(sel, ok) if o][int(np.argmax(e))]
            lines.append(f"| {name} | {label} | {ok.sum()} | {e.max():.2e} | {np.sqrt(np.mean(e**2)):.2e} | "
                         f"k={worst['k']}, {worst['shape']}, {max(worst['sigma']):.3g} |")
    lines.append("")
    is_rows = [r for r in rows if "is_reference" in r]
    if is_rows:
        lines.append("### Large σ beyond the exact routes (reference: saddle-point importance sampling)\n")
        names = ["laplace (listing)", "laplace (pairs i≤j)", "asymptotic (order 1)", "auto"]
        lines.append("| k | shape | σ_max | IS SE | " + " | ".join(f"{n} error" for n in names) + " |")
        lines.append("|---|---|---|---|" + "---|" * len(names))
        for r in is_rows:
            errs = [r["values"][n] - r["is_reference"] for n in names]
            lines.append(f"| {r['k']} | {r['shape']} | {max(r['sigma']):.3g} | {r['is_se']:.1e} | "
                         + " | ".join(f"{e:.3g}" for e in errs) + " |")
        lines.append("")
    missing = [r for r in rows if not np.isfinite(r["reference"]) and "is_reference" not in r]
    if missing:
        kmin = min(r["k"] for r in missing)
        refused = sum("is_khat" in r for r in missing)
        lines.append(f"**No trustworthy reference** for {len(missing)} inputs (k ≥ {kmin}, more than one non-zero "
                     "singular value, beyond the series cap, and either k > 20, two small singular values, or "
                     f"importance sampling whose weights' k̂ refused it ({refused} inputs)): "
                     "no closed form exists, the series needs more terms than the cap, and importance sampling "
                     "was not run, is not efficient, or cannot be trusted there. The tables cannot judge any method on them; the "
                     "asymptotic expansion's error is O(1/σ^{order+1}) by derivation where all pair sums are large, "
                     "and the section \"₀F₁ to 1e-10\" checks the order-3 expansion and the holonomic method "
                     "against each other up to k = 12.")
        lines.append("")
    lines.append("### Where each method is usable\n")
    lines.append("- **exact** (closed forms): k = 1, k = 2 and rank-one A, any σ, full float64 accuracy; k = 3 by a "
                 "one-dimensional integral to 1e-14; k = 4 by a positive series to ~1e-13 relative (proven bound), "
                 "Σσ up to ~4e4.")
    lines.append("- **holonomic**: up to m = 10 non-zero σ where the row is one Lawson ray, m = 8 with clusters; "
                 "seconds per value (section \"₀F₁ to 1e-10\").")
    lines.append("- **series**: any k while its rigorous bound converges within the degree cap (small to moderate "
                 "σ, shrinking with k); accuracy ≤ 1e-14 relative there.")
    lines.append("- **laplace**: every k and σ at O(k²) cost; exact at 0; the printed eq. (7) and Listing 1 forms "
                 "drift with log σ (see errata); the i ≤ j form stays within a bounded constant.")
    lines.append("- **asymptotic**: σ large with at most one small singular value; O(1/σ^{order+1}) with orders 0–3 "
                 "(order 3 and the holonomic method: section \"₀F₁ to 1e-10\"; orders 0–1 here).")
    lines.append(_mc_usable_line(rows))
    lines.append("")
    lines.append("### Cost (µs per σ-vector, this machine)\n")
    lines.append(f"Random σ ∈ [0, 2)^k; one batch per method, of the first size (8, 32, 128, …, 2000) that takes "
                 f"≥ {_TIMING_SECONDS} s, timed on its second call (one-time compilation and tables excluded), all "
                 "methods of one k in one task of the run that computed it, beside the report's other sweep tasks "
                 "(so their ratios compare like with like; the speed section times on an idle machine). "
                 + ctx.cache.records["hyp0f1_accuracy_cost"].summary() + " Speed comparisons against baselines are "
                 "in the speed section and the benchmarks (`asv`).\n")
    lines.append("| k | method | µs / value | values timed |")
    lines.append("|---|---|---|---|")
    for t in timings:
        lines.append(f"| {t['k']} | {t['method']} | {t['us_per_value']:.3g} | {t.get('values', '—')} |")
    lines.append("")
    for name in _plots(ctx, rows):
        lines.append(f"![{name}]({name})")
    return "\n".join(lines)
