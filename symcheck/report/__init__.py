"""Generate the accuracy report under ``reports/``.

The report has a fixed frame (provenance stamp, claim tables, errata) and a list
of *sections*: each module in :mod:`symcheck.report.sections` defines ``ORDER``
(int), ``TITLE`` (str) and ``render(ctx) -> str`` (Markdown for ``reports/README.md``;
it may write PNG plots and JSON beside it through ``ctx``). Adding a section is
adding a module; nothing else changes.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from symcheck.claims import BASE_SEED, ClaimResult, all_claims
from symcheck.report.provenance import provenance
from symcheck.report import sections as _sections_pkg

__all__ = ["ReportContext", "build_report"]


@dataclass
class ReportContext:
    """What a section gets: where to write, the seed, and the claim results."""

    out_dir: Path
    seed: int
    quick: bool
    results: list[ClaimResult] = field(default_factory=list)

    def save_figure(self, fig, name: str) -> str:
        """Save a matplotlib figure as ``<out_dir>/<name>.png``; return its relative path."""
        path = self.out_dir / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
        import matplotlib.pyplot as plt

        plt.close(fig)
        return path.name

    def write_json(self, name: str, obj) -> str:
        """Write ``obj`` as ``<out_dir>/<name>.json``; return its relative path."""
        path = self.out_dir / f"{name}.json"
        path.write_text(json.dumps(obj, indent=1, sort_keys=False) + "\n")
        return path.name


def _fmt(x) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _claims_markdown(results: list[ClaimResult]) -> str:
    def row(r: ClaimResult) -> str:
        cells = [r.id, r.source, r.statement, _fmt(r.printed), _fmt(r.independent), _fmt(r.tolerance), r.detail]
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    head = "| id | source | statement | printed / fast | independent | tolerance | detail |\n|---|---|---|---|---|---|---|"
    out = []
    errata = [r for r in results if r.status == "erratum"]
    failed = [r for r in results if r.status == "fails"]
    verified = [r for r in results if r.status == "holds"]
    out.append(f"{len(results)} claims: {len(verified)} verified, {len(errata)} errata, {len(failed)} failing.\n")
    out.append("### Errata\n")
    if errata:
        out.append("| id | source | printed form | corrected form | printed value | corrected value | independent | evidence |")
        out.append("|---|---|---|---|---|---|---|---|")
        for r in errata:
            cells = [r.id, r.source, r.printed_form, r.corrected_form, _fmt(r.printed), _fmt(r.corrected),
                     _fmt(r.independent), r.detail]
            out.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    else:
        out.append("None found.")
    out.append("\n### Failing claims\n")
    if failed:
        out.append(head)
        out.extend(row(r) for r in failed)
    else:
        out.append("None.")
    out.append("\n### Verified claims\n")
    out.append(head)
    out.extend(row(r) for r in verified)
    return "\n".join(out) + "\n"


def _load_sections():
    mods = []
    for info in pkgutil.iter_modules(_sections_pkg.__path__):
        mods.append(importlib.import_module(f"{_sections_pkg.__name__}.{info.name}"))
    return sorted(mods, key=lambda m: (m.ORDER, m.__name__))


def build_report(out_dir="reports", seed: int = BASE_SEED, quick: bool = False, claims: bool = True,
                 only: list[str] | None = None, log=print) -> Path:
    """Run every claim and section and write ``out_dir/README.md``, ``claims.json`` and plots.

    Parameters
    ----------
    out_dir : path
        Output folder (created if missing).
    seed : int
        Base seed of every claim and sweep.
    quick : bool
        Smaller grids (for smoke tests); the committed report uses ``quick=False``.
    claims : bool
        Run the claim registry (``False`` only renders the sections).
    only : list of str, optional
        Render only the sections whose module names are listed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ctx = ReportContext(out_dir=out, seed=seed, quick=quick)
    # stamp before anything is written, so the report's own files do not mark the tree dirty
    prov = provenance(seed)
    t0 = time.perf_counter()
    if claims:
        for claim in all_claims():
            log(f"claim {claim.id} ...")
            ctx.results.append(claim.run(seed))
        (out / "claims.json").write_text(json.dumps([r.to_json() for r in ctx.results], indent=1) + "\n")
    parts = []
    for mod in _load_sections():
        name = mod.__name__.rsplit(".", 1)[-1]
        if only and name not in only:
            continue
        log(f"section {name} ...")
        parts.append(f"## {mod.TITLE}\n\n{mod.render(ctx).rstrip()}\n")
    prov["seconds"] = round(time.perf_counter() - t0, 1)
    (out / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")
    lines = [
        "# symcheck report",
        "",
        "Generated by `symcheck report`; do not edit by hand. Regenerate after any kernel or claim changes.",
        "",
        "## Provenance",
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in prov.items()]
    lines.append("")
    if claims:
        lines += ["## Claims", "", "Machine-readable: [`claims.json`](claims.json).", "", _claims_markdown(ctx.results)]
    lines += parts
    (out / "README.md").write_text("\n".join(lines).rstrip() + "\n")
    return out
