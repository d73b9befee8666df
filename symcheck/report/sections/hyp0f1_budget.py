"""Report section: the error budget of every ₀F₁ method (method × region → max error), as enforced.

Each row of `symcheck.hyp0f1.budget.BUDGET` is a method of `log_hyp0f1` with its options, a
region (k, σ_max = max σᵢ, Σσ, shape of the input: `rank one` (σ_max, 0, …), `equal`, `spread`
σᵢ = σ_max (k − i)/k) and the largest absolute error of log ₀F₁ allowed there. The stored table's fourth
shape, `near ties` (two clusters of consecutive values 0.1 % of σ_max apart), enters the table of error figures
only. Budgets marked
*proven* are the zonal series' rigorous truncation-plus-rounding bound, rounded up; *measured* ones
are the worst error found on the region's reference points, rounded up to one significant digit
(at most ×2), or, where that worst is rounding (within a few ulps of the region's largest value, and
machine-dependent), a number above every machine's measurement within twice that rounding floor; so
they document the method (how far eq. (7) of Moore 2016 is off, for instance) rather than promise
anything beyond the grid. `tests/test_hyp0f1_budget.py` enforces every row at every stored reference
point, and fails when a measured budget is more than twice the worst error or the rounding floor (it
must then be re-measured, not kept wide). References: the stored ≥ 30-digit values of
`symcheck.hyp0f1.reference_data`, whose provenance banner is printed below.
"""

from __future__ import annotations

from symcheck.hyp0f1.budget import figure_ratios, measure_budget_table, series_budget
from symcheck.hyp0f1.reference_data import load_reference_values
from symcheck.sweep import seeded_tasks

ORDER = 12
TITLE = "₀F₁ error budget: method × region → max error"
#: Seconds of a typical sweep task (the budget table ~17 s, the figure ratios ~19 s): the report starts longer
#: sweeps first.
TASK_SECONDS = 18.0
#: Its tasks start once the report's own claims are done: the claims compile the same ₀F₁ kernels (series tables,
#: holonomic, Laplace), and the first tasks of this sweep and of the accuracy sweep compiled them again (18 s and
#: 10 s of a cold run, measured), beside the claims.
AFTER_CLAIMS = True


def _options(opts: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in opts.items()) or "—"


def _row_json(row: dict) -> dict:
    entry, at = row["entry"], row["at"]
    return {"label": entry.label, "method": entry.method, "options": entry.options,
            "region": entry.region.describe(), "budget": entry.budget, "source": entry.source,
            "derived_bound": series_budget(entry.region, entry.options["rtol"]) if entry.source == "proven" else None,
            "n_points": row["n"], "measured_max": row["worst"],
            "worst_at": _at_json(at)}


def _at_json(at) -> dict | None:
    return None if at is None else {"k": at.k, "shape": at.shape, "sigma": list(at.sigma)}


def budget_part(args: dict, rng) -> list[dict]:
    """One table of the section (a cached sweep task; deterministic, ``rng`` unused): ``args["part"]`` is
    ``"budget"`` (every budget row at the stored reference points) or ``"figures"`` (worst true error /
    returned figure per method and region), as JSON values."""
    table = load_reference_values()
    if args["part"] == "budget":
        return [_row_json(r) for r in measure_budget_table(table=table)]
    return [{**{k: v for k, v in f.items() if k != "at"}, "at": _at_json(f["at"])} for f in figure_ratios(table)]


def sweeps(ctx) -> list:
    """The section's cached sweep, one task per table (the report runs it in one pool with the other sections')."""
    return [("hyp0f1_budget", budget_part, seeded_tasks([{"part": "figures"}, {"part": "budget"}], ctx.seed + 14))]


def render(ctx) -> str:
    table = load_reference_values()
    figures, rows = ctx.sweep(sweeps(ctx)[0])
    ctx.write_json("hyp0f1_budget", {"banner": table.banner, "rows": rows, "figure_ratios": figures})

    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    lines.append("| method | options | region | points | budget | source | measured max | used | worst input |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        at = r["worst_at"]
        where = "—" if at is None else f"k={at['k']}, {at['shape']}, σ_max={max(at['sigma']):.3g}"
        source = r["source"] if r["derived_bound"] is None else f"proven (bound {r['derived_bound']:.2e})"
        used = r["measured_max"] / r["budget"]
        lines.append(f"| {r['label']} | {_options(r['options'])} | {r['region']} | {r['n_points']} | "
                     f"{r['budget']:.2g} | {source} | {r['measured_max']:.2e} | {used:.0%} | {where} |")
    lines.append("")
    lines.append("*used* = measured max / budget (≤ 100 % is enforced; measured budgets are ≥ 50 % used). Not "
                 "budgeted: `mc` (its error is its standard error, checked by the claims), the holonomic method "
                 "for k ≥ 9 (seconds per value), the asymptotic expansion where a pair sum σᵢ + σⱼ is small (rank one with k ≥ 3, σ_max < 1), "
                 "and every input without a ≥ 30-digit reference (several non-zero σ with k ≥ 5 beyond Σσ ≈ 5–10; k = 4 has the SO(4) series at every σ of the grid).")
    lines.append("")
    lines.append("### Do the returned error figures hold? Worst true error / returned error figure")
    lines.append("")
    lines.append("Every registered method (and auto) at every stored reference point of the region, one row at a "
                 "time with `return_error=True`, with the options auto uses where auto runs the method (else its "
                 "defaults). A ratio above 1 is a false figure; `tests/test_hyp0f1_error_figures.py` enforces "
                 "≤ 1 on a larger set of independent references (equal spectra to k = 64) with a planted defect "
                 "per route. Ratios far below 1 mean the figure is conservative (rounding allowances, safety "
                 "factors); an infinite figure (ratio 0) is the method saying it has no estimate there.")
    lines.append("")
    lines.append("| method | region | rows answered | not run (outside domain / auto's scope) | worst ratio | "
                 "false figures | worst input |")
    lines.append("|---|---|---|---|---|---|---|")
    for f in figures:
        at = f["at"]
        where = "—" if at is None else f"k={at['k']}, {at['shape']}, σ_max={max(at['sigma']):.3g}"
        lines.append(f"| {f['method']} | {f['region']} | {f['n']} | {f['skipped']} | {f['worst_ratio']:.2g} | "
                     f"{f['false_figures']} | {where} |")
    lines.append("")
    banner = table.banner
    routes = {}
    for e in table.entries:
        routes[e.route] = routes.get(e.route, 0) + 1
    lines.append(f"### Reference data ({len(table.entries)} values, "
                 + ", ".join(f"{n} by `{name}`" for name, n in routes.items()) + ")\n")
    for key in ("generator", "regenerate", "symcheck", "git commit", "mpmath", "numpy", "dps", "generated (UTC)",
                "digits"):
        lines.append(f"- **{key}**: `{banner[key]}`")
    for name, text in banner["routes"].items():
        lines.append(f"- **route `{name}`**: {text}")
    lines.append("\nRaw numbers: [`hyp0f1_budget.json`](hyp0f1_budget.json).")
    return "\n".join(lines)
