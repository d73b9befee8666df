"""Report section: how fast each kernel is beside the baseline a user would otherwise write.

Every number here was measured in this report's run, on this machine, side by side: symcheck's
kernel and its baseline are timed in the same process, on the same inputs, one after the other.
The benchmark cases are the asv suites of `benchmarks/` (their `setup` builds the inputs and warms
Numba, so compilation is never timed); this section runs a chosen subset of them directly, so the
table and `asv run` measure the same code. Each time is the best of 3 repeats of a loop long
enough to last ≥ 0.1 s (a call over 0.5 s runs twice), which is the estimate least disturbed by other
load. *Speed-up* = baseline time / symcheck time (> 1: symcheck is
faster). The section runs last, alone, after the sweeps' workers are done; the share of the CPUs other
processes used while it measured is recorded (and the load average): on a shared machine a ratio is more
trustworthy than an absolute time, since both sides see the same load. Not a test: no
number here passes or fails anything; `asv` keeps the history.
"""

from __future__ import annotations

import importlib.util
import math
import os
import platform
import time
import timeit
from pathlib import Path

ORDER = 14
TITLE = "Speed: symcheck beside the baseline a user would write"
#: Rendered first, alone: its ratios are measured on an otherwise idle machine.
TIMED = True

#: The benchmark folder of a source checkout (the report runs from one; an installed wheel has none).
BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"

#: (what is compared, asv file, class, params, symcheck method, baseline method, baseline label).
#: A baseline of None times the kernel alone (no same-run alternative exists, e.g. the holonomic
#: method by rank).
COMPARISONS = [
    ("Laplace ₀F₁ (eq. (7), 10⁴ rows)", "bench_hyp0f1", "Laplace", (20,), "time_symcheck_laplace",
     "time_numpy_listing1", "Moore's Listing 1 in NumPy"),
    ("Laplace ₀F₁ (eq. (7), 10⁴ rows)", "bench_hyp0f1", "Laplace", (64,), "time_symcheck_laplace",
     "time_numpy_listing1", "Moore's Listing 1 in NumPy"),
    ("Haar O(k) samples (10⁴)", "bench_hyp0f1", "Haar", (3,), "time_symcheck_haar", "time_scipy_ortho_group",
     "scipy.stats.ortho_group"),
    ("Haar O(k) samples (10⁴)", "bench_hyp0f1", "Haar", (20,), "time_symcheck_haar", "time_scipy_ortho_group",
     "scipy.stats.ortho_group"),
    ("Haar MC of ₀F₁ (10⁴ draws)", "bench_hyp0f1", "MonteCarlo", (10,), "time_symcheck_mc",
     "time_plain_numpy_mc", "plain NumPy MC over scipy draws"),
    ("zonal series, degree 20, k = 3", "bench_series", "Peer", (20,), "time_symcheck_series_k3",
     "time_pyhypergeomatrix_k3", "pyhypergeomatrix (if installed)"),
    ("zonal series, degree 20, k = 3", "bench_series", "Series", (3, 20), "time_series_one_row", None, None),
    ("mpmath reference, 20 digits, k = 3", "bench_series", "Reference", (3, 20), "time_reference", None, None),
    ("H^K value (K = 20, width 30, S = 16)", "bench_gelberg_digits", "EntropyHK", (20, 30, 16),
     "time_symcheck_value", "time_numpy_value", "NumPy transcription"),
    ("Gaussian KL, full covariance", "bench_kl", "GaussianKL", (100,), "time_symcheck_kl_gaussian",
     "time_numpy_inv_det", "NumPy inv + det"),
    *[(f"holonomic ₀F₁ per value, m = {m}, {shape}", "bench_hyp0f1", "Holonomic", (m, shape), "time_one_value",
       None, None) for m in (4, 6, 8) for shape in ("spread", "clustered")],
    ("₀F₁ at k = m = 10, spread σ_max = 10: the contiguous route", "bench_hyp0f1", "Contiguous", (10, 10.0),
     "time_contiguous", "time_holonomic", "the direct holonomic ray (figure ~5e-8 there)"),
    *[(f"auto ₀F₁ per value at k = 20, {shape}, σ_max = {s:g}", "bench_hyp0f1", "AutoAtMooresSize", (shape, s),
       "time_one_value", None, None) for shape in ("spread", "equal") for s in (3.0, 300.0)],
]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"_symcheck_speed_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _best_time(fn) -> float:
    """Seconds per call: best of 3 repeats of a loop lasting ≥ 0.1 s; a call over 0.1 s is timed 3 times,
    one over 0.5 s twice (a first call can be slowed by first-touch page faults: Listing 1 at k = 20 took 3.8 s
    once, 0.16 s after)."""
    start = time.perf_counter()
    fn()
    once = time.perf_counter() - start
    if once > 0.1:
        return min([once] + [timeit.timeit(fn, number=1) for _ in range(1 if once > 0.5 else 2)])
    number = max(1, math.ceil(0.1 / max(once, 1e-9)))
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def measure(comparisons=COMPARISONS) -> list[dict]:
    """Time every comparison; a case whose ``setup`` raises NotImplementedError (a missing optional
    peer, a parameter outside a method's domain) is recorded as skipped with the reason."""
    modules: dict[str, object] = {}
    rows = []
    for what, file, cls, params, ours, theirs, label in comparisons:
        row = {"what": what, "benchmark": f"{file}.{cls}.{ours}{list(params) if params else ''}",
               "baseline": label}
        try:
            bench = getattr(modules.setdefault(file, _load(file)), cls)()
            if hasattr(bench, "setup"):
                bench.setup(*params)
            row["symcheck_s"] = _best_time(lambda: getattr(bench, ours)(*params))
            if theirs is not None:
                row["baseline_s"] = _best_time(lambda: getattr(bench, theirs)(*params))
                row["speedup"] = row["baseline_s"] / row["symcheck_s"]
        except NotImplementedError as why:
            row["skipped"] = str(why)
        rows.append(row)
    return rows


def _machine() -> dict:
    import numba
    import numpy
    import scipy

    return {"python": platform.python_version(), "platform": platform.platform(), "processor": platform.machine(),
            "cpus": os.cpu_count(), "numpy": numpy.__version__, "scipy": scipy.__version__,
            "numba": numba.__version__, "load_average": list(os.getloadavg())}


def _cpu_counters() -> tuple[float | None, float]:
    """(CPU-seconds the machine has been busy, this process's CPU-seconds) now; the first is None where
    ``/proc/stat`` is missing (not Linux). Busy: user, nice, system, irq, softirq and steal time."""
    own = time.process_time()
    try:
        ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None, own
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK"), own


def _other_cpu_share(start: tuple, end: tuple, wall: float) -> float:
    """Fraction of the machine's CPUs that other processes used between two `_cpu_counters` readings
    ``wall`` seconds apart (NaN without ``/proc/stat``)."""
    if start[0] is None or end[0] is None or wall <= 0:
        return math.nan
    return max(0.0, (end[0] - start[0]) - (end[1] - start[1])) / (wall * (os.cpu_count() or 1))


def _seconds(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.3g} s"


def render(ctx) -> str:
    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    if not BENCHMARKS.is_dir():
        lines.append("*Not measured: this installation has no `benchmarks/` folder (run the report from a "
                     "source checkout).*")
        return "\n".join(lines)
    before = _machine()
    chosen = COMPARISONS if not ctx.quick else [c for c in COMPARISONS if c[2] in ("Haar", "GaussianKL")][:2]
    started, counters = time.perf_counter(), _cpu_counters()
    rows = measure(chosen)
    seconds = time.perf_counter() - started
    others = _other_cpu_share(counters, _cpu_counters(), seconds)
    after = os.getloadavg()
    ctx.write_json("speed", {"machine": before, "load_average_after": list(after), "seconds": seconds,
                             "other_cpu_share": others, "rows": rows})
    lines.append(f"Machine: {before['processor']}, {before['cpus']} CPUs, {before['platform']}; Python "
                 f"{before['python']}, NumPy {before['numpy']}, SciPy {before['scipy']}, Numba {before['numba']}. "
                 f"While this section measured ({seconds:.0f} s), other processes used "
                 + (f"{100 * others:.1f} %" if math.isfinite(others) else "an unknown share (no /proc/stat)")
                 + " of the CPUs. Load average (1, 5, 15 min) "
                 f"{', '.join(f'{x:.2f}' for x in before['load_average'])} before, "
                 f"{', '.join(f'{x:.2f}' for x in after)} after (it lags: the report's sweeps ran just before).")
    lines += ["", "| what | symcheck | baseline | baseline time | speed-up | asv case |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['what']} | skipped: {r['skipped']} | {r['baseline'] or '—'} | — | — | "
                         f"`{r['benchmark']}` |")
            continue
        base = (_seconds(r["baseline_s"]), f"{r['speedup']:.3g}×") if "baseline_s" in r else ("—", "—")
        lines.append(f"| {r['what']} | {_seconds(r['symcheck_s'])} | {r['baseline'] or '— (no same-run baseline)'} | "
                     f"{base[0]} | {base[1]} | `{r['benchmark']}` |")
    lines += ["", "The holonomic rows show its cost growing with the rank 2^m of its system (m non-zero σ); "
              "`auto` at k = 20 is Moore's Fig. 4 size. History: `asv publish` over the results `asv run` "
              "records (README, Benchmarks)."]
    return "\n".join(lines)
