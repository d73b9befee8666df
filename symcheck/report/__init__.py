"""Generate the accuracy report: HTML pages, ``README.md`` (Markdown) and JSON.

The report has a fixed frame (provenance stamp, errata, claims by paper) and a list of
*sections*: each module in :mod:`symcheck.report.sections` defines ``ORDER`` (int),
``TITLE`` (str) and ``render(ctx) -> str`` (Markdown; inline ``$…$`` LaTeX is rendered as
MathML in the HTML). A section may write PNG plots and JSON beside it through ``ctx``.
Adding a section is adding a module; nothing else changes. Optional: ``sweeps(ctx)`` (the section's
cached sweeps as ``(name, fn, tasks)``, which ``render`` fetches with ``ctx.sweep``: the report runs
every section's sweeps in one pool while it runs the claims and the other sections), ``TASK_SECONDS``
(a typical task's cost: longer sweeps start first), ``AFTER_CLAIMS = True`` (its sweeps run the claims, or
the kernels the claims compile: their tasks start once the report's own claims have compiled them, while the
other sweeps' tasks keep the pool busy) and ``TIMED = True`` (the section
measures speed: it renders last, alone on an idle machine, with the kernels the sweeps compiled already in
Numba's cache).

Files of one report (all in one folder):

* ``index.html`` (errata first, one-line verdicts, evidence one click away), ``paper-<prefix>.html``
  (every claim of one paper), ``section-<name>.html``, ``report.css``;
* ``README.md``: the same in Markdown; ``claims.json``: every claim result, with every case it
  compared (``rows``: input, values, reference, tolerance, error, error in ulps);
  ``provenance.json``: the stamp of this run; ``report.json``: the manifest (each part's
  Markdown, files and provenance), which lets ``only=`` re-render some sections and keep the rest;
* the sections' plots and data.

Everything is generated in a staging folder and moved into place file by file
(:func:`os.replace`) only when the whole report is complete: an interrupted run leaves the
previous report as it was.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import tempfile
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import ModuleType
from typing import Callable

from symcheck.claims import BASE_SEED, Claim, ClaimResult, all_claims
from symcheck.provenance import provenance
from symcheck.report import sections as _sections_pkg
from symcheck.report.cache import ResultCache
from symcheck.report.stamps import part_stamp
from symcheck.report.verdict import number
from symcheck.sweep import one_thread

__all__ = ["REPORT_EXTRA", "ReportContext", "build_report", "check_only", "load_sections", "require_report_extra",
           "section_name"]

#: What the report needs beyond the core (the ``report`` extra): import name → distribution. Templates
#: (jinja2), section Markdown → HTML (markdown-it-py, mdit-py-plugins), LaTeX → MathML (latex2mathml),
#: progress bars (tqdm), plots (matplotlib). The core, the claims and ``symcheck claims``/``check`` need
#: none of them, so they are imported only where the report is built.
REPORT_EXTRA = {"jinja2": "jinja2", "markdown_it": "markdown-it-py", "mdit_py_plugins": "mdit-py-plugins",
                "latex2mathml": "latex2mathml", "tqdm": "tqdm", "matplotlib": "matplotlib"}

#: The manifest of a report folder (see the module docstring).
MANIFEST = "report.json"
#: Files moved into place last, so a reader never sees entry pages pointing at missing files.
_ENTRY_FILES = ("claims.json", "provenance.json", MANIFEST, "index.html", "README.md")


@dataclass
class ReportContext:
    """What a section gets: where to write, the seed, where sweeps run, and the claim results.

    ``scheduler`` (a Dask scheduler address) and ``workers`` (local pool size) are passed to
    :func:`symcheck.sweep.run_sweep` by sections that sweep; results do not depend on them.
    ``cache`` keeps the results of expensive sweeps (:mod:`symcheck.report.cache`).
    """

    out_dir: Path
    seed: int
    quick: bool
    results: list[ClaimResult] = field(default_factory=list)
    scheduler: str | None = None
    workers: int | None = None
    cache: ResultCache = field(default_factory=lambda: ResultCache(None))

    def sweep(self, job: tuple) -> list:
        """Results of a section's cached sweep ``job = (name, fn, tasks)`` (:meth:`ResultCache.sweep`)."""
        name, fn, tasks = job
        return self.cache.sweep(name, fn, tasks, scheduler=self.scheduler, processes=self.workers)

    def save_figure(self, fig, name: str) -> str:
        """Save a matplotlib figure as ``<out_dir>/<name>.png`` (150 dpi); return its relative path."""
        import matplotlib.pyplot as plt

        path = self.out_dir / f"{name}.png"
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        return path.name

    def write_json(self, name: str, obj) -> str:
        """Write ``obj`` as ``<out_dir>/<name>.json``; return its relative path."""
        path = self.out_dir / f"{name}.json"
        path.write_text(json.dumps(obj, indent=1, sort_keys=False) + "\n")
        return path.name


def require_report_extra() -> None:
    """Raise ``ImportError`` naming every missing package of :data:`REPORT_EXTRA` and how to install them."""
    missing = []
    for module, dist in REPORT_EXTRA.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(dist)
    if missing:
        raise ImportError(f"the report needs the 'report' extra (missing: {', '.join(missing)}); "
                          "install it with: pip install 'symcheck[report]'")


def section_name(mod: ModuleType) -> str:
    """Return a section's name: its module name without the package (``"estimators"``)."""
    return mod.__name__.rsplit(".", 1)[-1]


def load_sections() -> list[ModuleType]:
    """Import every module of :mod:`symcheck.report.sections`, sorted by ``(ORDER, name)``."""
    mods = [importlib.import_module(f"{_sections_pkg.__name__}.{info.name}")
            for info in pkgutil.iter_modules(_sections_pkg.__path__)]
    return sorted(mods, key=lambda m: (m.ORDER, m.__name__))


def _result_from_json(d: dict) -> ClaimResult:
    """Rebuild a :class:`ClaimResult` from its ``to_json()`` form (non-finite strings back to floats)."""
    floats = {"printed", "independent", "tolerance", "seconds"}
    kw = {f.name: (number(d[f.name]) if f.name in floats else d[f.name]) for f in fields(ClaimResult)
          if f.name in d}  # claims.json of an older symcheck has no ``rows``
    kw["corrected"] = None if d["corrected"] is None else number(d["corrected"])
    return ClaimResult(**kw)


def _read_manifest(out: Path) -> dict:
    """The manifest of the report in ``out`` (empty if there is none)."""
    try:
        return json.loads((out / MANIFEST).read_text())
    except FileNotFoundError:
        return {}


def _files_in(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.is_file()}


def _publish(stage: Path, out: Path, previous_files: list[str]) -> None:
    """Move every file of ``stage`` into ``out`` (entry pages last); drop files the new report lacks.

    Only files listed by the previous manifest are ever removed, never anything else in ``out``.
    """
    files = _files_in(stage)
    new = sorted(files - set(_ENTRY_FILES)) + [n for n in _ENTRY_FILES if n in files]
    for name in new:
        os.replace(stage / name, out / name)
    for name in set(previous_files) - set(new):
        (out / name).unlink(missing_ok=True)


def check_only(out_dir, only: list[str] | None, sections: list[ModuleType] | None = None) -> None:
    """Check the ``only`` argument of :func:`build_report` before anything runs.

    Parameters
    ----------
    out_dir : path
        The report folder.
    only : list of str or None
        Section names to re-render (``None``: the whole report).
    sections : list of module, optional
        The section modules (default: :func:`load_sections`).

    Raises
    ------
    ValueError
        ``"only: …"`` if ``only`` is empty, names an unknown section, or is given for a folder
        holding a report without a manifest (an older symcheck's), whose parts cannot be kept.
    """
    if only is None:
        return
    known = [section_name(m) for m in (load_sections() if sections is None else sections)]
    unknown = [n for n in only if n not in known]
    if not only or unknown:
        problem = "give at least one section name" if not only else f"unknown section(s) {', '.join(unknown)}"
        raise ValueError(f"only: {problem}; known sections: {', '.join(known)}")
    out = Path(out_dir)
    if (out / "README.md").exists() and not (out / MANIFEST).exists():
        raise ValueError(f"only: {out} holds a report without {MANIFEST} (written by an older symcheck), so its "
                         "claims and sections cannot be kept; run the full report once first")


def build_report(out_dir="reports", seed: int = BASE_SEED, quick: bool = False, only: list[str] | None = None,
                 claims: list[Claim] | None = None, sections: list[ModuleType] | None = None,
                 progress: bool | None = None, scheduler: str | None = None, workers: int | None = None,
                 cache: bool = True) -> Path:
    """Run the claims and sections and write the report (HTML, Markdown, JSON, plots) to ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Output folder (created if missing). Files of an earlier report there are replaced;
        other files are left alone.
    seed : int
        Base seed of every claim and sweep (non-negative).
    quick : bool
        Smaller grids (for smoke tests); the committed report uses ``quick=False``.
    only : list of str, optional
        Re-render only these sections (names as in :func:`section_name`) and keep the claims and
        the other sections of the report already in ``out_dir`` (those missing there are left out).
    claims : list of Claim, optional
        The claims to run (default: the whole registry).
    sections : list of module, optional
        The section modules (default: :func:`load_sections`).
    progress : bool, optional
        Show progress bars with count and ETA on stderr (default: only on a terminal).
    scheduler : str, optional
        Address of a Dask distributed scheduler on which the sections run their sweeps
        (default: a local process pool); the results are the same bit for bit.
    workers : int, optional
        Size of the local process pool of the sweeps (default: the number of CPUs).
    cache : bool
        Reuse and store the results of expensive sweeps in ``<out_dir>/cache``
        (:mod:`symcheck.report.cache`; entries of a swept name that this run did not use are
        deleted, except in quick mode). ``False``: compute everything and store nothing.

    Returns
    -------
    pathlib.Path
        The output folder.

    Raises
    ------
    ValueError
        If ``seed`` is negative, or ``only`` is refused by :func:`check_only`.
    ImportError
        If a package of the ``report`` extra is missing (:func:`require_report_extra`).
    """
    if seed < 0:
        raise ValueError(f"seed: must be a non-negative integer, got {seed}")
    require_report_extra()
    mods = load_sections() if sections is None else list(sections)
    check_only(out_dir, only, mods)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    previous = _read_manifest(out)
    prov = provenance(seed)  # stamped before anything is written: the report's own files do not mark git dirty
    disable = None if progress is None else not progress
    t0, cpu0 = time.perf_counter(), _cpu_seconds()
    with tempfile.TemporaryDirectory(prefix=".staging-", dir=out) as tmp:
        stage = Path(tmp)
        results_cache = ResultCache(out / "cache" if cache else None, commit=prov["git commit"])
        ctx = ReportContext(out_dir=stage, seed=seed, quick=quick, scheduler=scheduler, workers=workers,
                            cache=results_cache)
        if only is None:
            def run_claims():
                ctx.results = _run_claims(all_claims() if claims is None else list(claims), seed, disable)
            claims_stamp = part_stamp(prov, quick=False)  # claims have no quick mode
        else:  # keep the claim results of the report in out (if it has any)
            def run_claims():
                ctx.results = [_result_from_json(d) for d in json.loads((out / "claims.json").read_text())] \
                    if claims_stamp else []
            claims_stamp = previous.get("claims")
        parts = _render_sections(mods, ctx, only, previous, out, part_stamp(prov, quick), disable, run_claims)
        prov["seconds"] = str(round(time.perf_counter() - t0, 1))
        prov["CPU seconds"] = str(round(_cpu_seconds() - cpu0, 1))
        _write_pages(stage, [r.to_json() for r in ctx.results], parts, prov, claims_stamp)
        _publish(stage, out, previous.get("files", []))
    if not quick:
        results_cache.prune()
    return out


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its children that have ended (the pool's workers,
    once it shuts down; a Dask cluster's workers are not counted). Without the POSIX ``resource`` module
    (Windows): this process's alone."""
    try:
        import resource
    except ImportError:
        return time.process_time()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_claims(claims: list[Claim], seed: int, disable) -> list[ClaimResult]:
    """Run the claims with a progress bar (count, ETA)."""
    from tqdm.auto import tqdm

    results = []
    with tqdm(claims, desc="claims", unit="claim", disable=disable, leave=False) as bar:
        for claim in bar:
            bar.set_postfix_str(claim.id, refresh=False)
            results.append(claim.run(seed))
    return results


def _render_sections(mods, ctx: ReportContext, only, previous: dict, out: Path, stamp: dict, disable,
                     run_claims: Callable[[], None]) -> list[dict]:
    """Run the claims and render the sections into ``ctx.out_dir``; with ``only``, copy the others from the
    report in ``out``.

    Order of work: every section's cached sweeps (its ``sweeps(ctx)``) are keyed here and start in one pool in a
    background thread (:meth:`ResultCache.missing`, :meth:`ResultCache.compute`; each sweep's first task, then
    the others, longest first by the sections' ``TASK_SECONDS``; the tasks of sections marked ``AFTER_CLAIMS``
    once this process's claims are done) while this process runs the claims and renders
    the sections without sweeps, on one BLAS and Numba thread (:func:`symcheck.sweep.one_thread`); then the
    sections with sweeps, which find their results computed; last, the sections marked ``TIMED`` (they measure
    speed), alone on an idle machine and after the sweeps' workers have compiled the kernels they share (first,
    they compiled them alone, one core idle: ~25 s of a cold run).
    Results do not depend on this order (every task has its own seed).

    Returns the manifest entry of each section, in the order of ``mods``: name, title, order, Markdown,
    files, provenance. Markdown that the HTML pages would show raw (a table that does not parse, reST
    markup) is reported as a :class:`~symcheck.report.unrendered.ReportMarkdownWarning` naming the section.
    """
    from tqdm.auto import tqdm

    from symcheck.report.unrendered import ReportMarkdownWarning, markdown_problems

    kept = {s["name"]: s for s in previous.get("sections", [])}
    chosen = [m for m in mods if only is None or section_name(m) in only]
    timed = [m for m in chosen if getattr(m, "TIMED", False)]
    sweeping = [m for m in chosen if hasattr(m, "sweeps") and m not in timed]
    plain = [m for m in chosen if m not in timed and m not in sweeping]
    parts: dict = {}
    with tqdm(total=len(chosen), desc="sections", unit="section", disable=disable, leave=False) as bar:
        def render(mod):
            name = section_name(mod)
            bar.set_postfix_str(name, refresh=False)
            before = _files_in(ctx.out_dir)
            markdown = mod.render(ctx).rstrip()
            for problem in markdown_problems(markdown):
                warnings.warn(f"section {name}: {problem}", ReportMarkdownWarning, stacklevel=3)
            parts[name] = {"name": name, "title": mod.TITLE, "order": mod.ORDER, "markdown": markdown,
                           "files": sorted(_files_in(ctx.out_dir) - before), "provenance": stamp}
            bar.update()

        jobs, after_claims = [], set()
        for mod in sorted(sweeping, key=lambda m: -getattr(m, "TASK_SECONDS", 1.0)):
            for job in mod.sweeps(ctx):
                jobs.append(job)
                if getattr(mod, "AFTER_CLAIMS", False):
                    after_claims.add(job[0])
        todo = ctx.cache.missing(jobs)  # keyed here: a key computed while this thread imports could differ
        claims_done = threading.Event()
        with ThreadPoolExecutor(max_workers=1) as background:
            prefetched = background.submit(ctx.cache.compute, todo, scheduler=ctx.scheduler, processes=ctx.workers,
                                           hold=(claims_done, after_claims))
            with one_thread():  # beside the pool's single-threaded workers
                try:
                    run_claims()
                finally:
                    claims_done.set()
                for mod in plain:
                    render(mod)
            prefetched.result()
        for mod in sweeping:
            render(mod)
        for mod in timed:
            render(mod)
    out_parts = []
    for mod in mods:
        name = section_name(mod)
        if name in parts:
            out_parts.append(parts[name])
        elif name in kept:
            for f in kept[name]["files"]:
                shutil.copy2(out / f, ctx.out_dir / f)
            out_parts.append(kept[name])
    return out_parts


def _write_pages(stage: Path, claim_json: list[dict], parts: list[dict], prov: dict, claims_stamp) -> None:
    """Write claims.json, provenance.json, README.md, the HTML pages and the manifest into ``stage``."""
    from symcheck.report.html import render_pages
    from symcheck.report.markdown_page import render_markdown

    if claims_stamp:
        (stage / "claims.json").write_text(json.dumps(claim_json, indent=1) + "\n")
    (stage / "provenance.json").write_text(json.dumps(prov, indent=1) + "\n")
    (stage / "README.md").write_text(render_markdown(claim_json, parts, prov, claims_stamp))
    for name, text in render_pages(claim_json, parts, prov, claims_stamp).items():
        (stage / name).write_text(text)
    manifest = {"provenance": prov, "claims": claims_stamp, "sections": parts,
                "files": sorted(_files_in(stage) | {MANIFEST})}
    (stage / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
