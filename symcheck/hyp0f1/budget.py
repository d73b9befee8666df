"""Error budget of every log ₀F₁ method: method × region → largest absolute error in log ₀F₁.

In the manner of Boost.Math's accuracy tables: each :class:`BudgetEntry` names a method of
:func:`symcheck.hyp0f1.api.log_hyp0f1` (with its options), a :class:`Region` (predicates on k, on
σ_max = max σᵢ, on Σσ and on the shape of the grid input) and the largest absolute error of
log ₀F₁ (≈ relative error of ₀F₁) allowed there, measured against the stored ≥ 30-digit
references of :mod:`symcheck.hyp0f1.reference_data` at *every* reference point in the region.
``tests/test_hyp0f1_budget.py`` enforces the table; the report section ``hyp0f1_budget`` prints it
with the measured worst error beside each budget.

Where the budgets come from (``source``):

``"proven"``
    The zonal series' rigorous bound (:mod:`symcheck.hyp0f1.series`): with truncation target
    rtol (tail ≤ rtol, partial sum ≥ 1) and first-order rounding γ = :func:`series.rounding_bound`
    of the largest table the region needs, the relative error of ₀F₁ is δ ≤ rtol/(1 − γ) + γ, so
    |error of log ₀F₁| ≤ δ/(1 − δ) + u·max|log ₀F₁| (rounding of the log; |log ₀F₁| ≤ Σσ). The
    table holds that bound rounded up to one significant digit (:func:`series_budget` derives it;
    the test checks the stored number against the derivation).
``"measured"``
    Every other method: no proof, so the budget is the worst error measured on the region's
    reference points, rounded *up* to one significant digit (so at most 2× the measurement), or,
    where that worst is rounding (within a few ulps of the region's largest |log ₀F₁|:
    ROUNDING_FLOOR_ULPS of tests/test_hyp0f1_budget.py; it differs between machines), a number
    above every machine's measurement within 2× that floor. It
    documents the method (e.g. how far eq. (7) of Moore 2016 is off), it is never widened to make
    a test pass, and a test fails when a method improves beyond it (re-measure:
    :func:`measure_budget_table`).

Not budgeted: ``"mc"`` (its error is its standard error, a random quantity checked by the claims),
and inputs with no ≥ 30-digit reference (k ≥ 5 with several non-zero σ beyond Σσ ≈ 5–10; k = 4 has the SO(4) series at every σ of the grid).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import mpmath
import numpy as np

from symcheck.hyp0f1 import methods, series
from symcheck.hyp0f1.api import Hyp0f1AccuracyWarning, log_hyp0f1
from symcheck.hyp0f1.reference_data import load_reference_values

__all__ = ["BUDGET", "BUDGET_SHAPES", "FIGURE_REGIONS", "BudgetEntry", "Region", "entry_errors", "figure_ratios",
           "measure_budget_table", "round_up_1sig", "series_budget"]

_U = np.finfo(float).eps / 2
_INF = math.inf
#: The shapes the budgets were measured on (the "near ties" of the stored table enter the figure table only).
BUDGET_SHAPES = ("rank one", "equal", "spread")


@dataclass(frozen=True)
class Region:
    """A set of grid inputs: k_min ≤ k ≤ k_max, lo ≤ σ_max < hi, Σσ ≤ sum_max, shape in ``shapes``."""

    k: tuple
    sigma_max: tuple = (0.0, _INF)
    shapes: tuple = BUDGET_SHAPES
    sum_max: float = _INF

    def contains(self, k: int, sigma, shape: str) -> bool:
        """Whether the input (k, σ, shape) lies in the region."""
        return (self.k[0] <= k <= self.k[1] and self.sigma_max[0] <= max(sigma) < self.sigma_max[1]
                and sum(sigma) <= self.sum_max and shape in self.shapes)

    def describe(self) -> str:
        """A short human-readable description (for the report)."""
        ks = f"k = {self.k[0]}" if self.k[0] == self.k[1] else f"k = {self.k[0]}–{self.k[1]}"
        lo, hi = self.sigma_max
        band = (f"σ_max < {hi:g}" if lo == 0 else f"σ_max ≥ {lo:g}" if hi == _INF else f"{lo:g} ≤ σ_max < {hi:g}")
        parts = [ks] + ([band] if (lo, hi) != (0.0, _INF) else [])
        if self.sum_max < _INF:
            parts.append(f"Σσ ≤ {self.sum_max:g}")
        if tuple(self.shapes) != BUDGET_SHAPES:
            parts.append(" / ".join(self.shapes))
        return ", ".join(parts)


@dataclass(frozen=True)
class BudgetEntry:
    """One row of the budget table (module docstring)."""

    label: str
    method: str
    region: Region
    budget: float
    source: str
    options: dict = field(default_factory=dict)


def round_up_1sig(x: float) -> float:
    """Smallest number with one significant digit that is ≥ ``x`` (> 0): 1.2e-5 → 2e-5."""
    exp = math.floor(math.log10(x))
    lead = math.ceil(x / 10.0 ** exp - 1e-12)  # the guard absorbs the division's rounding
    value = lead * 10.0 ** exp
    return value if value >= x else (lead + 1) * 10.0 ** exp


def series_budget(region: Region, rtol: float = 1e-14) -> float:
    """The series' proven bound over ``region`` (module docstring), before rounding.

    The degree is the one the Σσ bound alone (s^{2M+2}/(2M+2)!) needs at Σσ = ``region.sum_max``:
    every row of the region needs at most that (its degree is the least of three bounds, the first
    growing with Σσ), and the rank-one row (sum_max, 0, …) needs exactly that, its other two bounds
    being larger. γ is that of the table for (k_max, that degree) (the tables for smaller k and
    degree are sub-tables, with smaller γ).
    """
    k_max = region.k[1]
    spike = np.zeros((1, k_max))
    spike[0, 0] = region.sum_max
    degree = int(series.series_degree_needed(spike, k_max, rtol)[0])
    gamma = series.rounding_bound(k_max, degree)
    delta = rtol / (1 - gamma) + gamma
    return delta / (1 - delta) + 2 * _U * region.sum_max


_SMALL, _MODERATE, _LARGE = (0.0, 1.0), (1.0, 10.0), (10.0, _INF)
_SPREAD_EQUAL = ("equal", "spread")

#: The budget table (see the module docstring for ``source``). Budgets of "measured" entries are the
#: worst error on the stored reference points (at the commit that measured them), rounded up to one
#: significant digit.
BUDGET: list[BudgetEntry] = [
    # proven: series_budget(region) = 2.44e-13 and 1.14e-12, rounded up
    BudgetEntry("series (rtol 1e-14)", "series", Region((1, 3), sum_max=30.0), 3e-13, "proven",
                {"rtol": 1e-14}),
    BudgetEntry("series (rtol 1e-14)", "series", Region((4, 12), sum_max=10.0), 2e-12, "proven",
                {"rtol": 1e-14}),
    # measured worst errors (commit of this table, 327 reference points; the k = 4 ones beyond the zonal
    # reference by the SO(4) series, route so4_series_mp): in the comment, rounded up in the entry
    BudgetEntry("exact", "exact", Region((1, 2), (0.0, 10.0)), 4e-16, "measured"),  # 3.79e-16
    BudgetEntry("exact", "exact", Region((1, 2), _LARGE), 3e-12, "measured"),  # 2.24e-12
    BudgetEntry("exact", "exact", Region((3, 3), (0.0, 10.0)), 8e-15, "measured"),  # 7.95e-15
    BudgetEntry("exact", "exact", Region((3, 3), _LARGE), 4e-12, "measured"),  # 3.58e-12
    BudgetEntry("exact", "exact", Region((4, 4), (0.0, 10.0), ("equal", "spread")), 3e-15, "measured"),  # 2.27e-15
    BudgetEntry("exact", "exact", Region((4, 4), _LARGE, ("equal", "spread")), 3e-12, "measured"),  # 2.19e-12
    BudgetEntry("exact", "exact", Region((4, 12), (0.0, 10.0), ("rank one",)), 8e-15, "measured"),  # 7.71e-15
    BudgetEntry("exact", "exact", Region((4, 12), _LARGE, ("rank one",)), 8e-13, "measured"),  # 7.54e-13
    # holonomic: refuses equal/close σ ≤ 0.1 (clusters too near 0); k ≥ 9 costs seconds per value
    BudgetEntry("holonomic", "holonomic", Region((1, 8), (0.0, 10.0)), 1e-12, "measured"),  # 6.88e-13 (k = 4 equal, 5)
    # rounding at |log F| up to 4e4 (k = 4 equal, 1e4; 4 ulps 2.9e-11), machine-dependent: 1.77e-11 (k = 7 rank one,
    # 1e4), 2.1e-11 and 5.0e-11 (k = 4 equal, 1e4), 3.63e-11 (k = 3 equal, 1e4; AMD Zen 5, 2026-11-29): within 2× the
    # floor and above every measurement
    BudgetEntry("holonomic", "holonomic", Region((1, 8), _LARGE), 5.5e-11, "measured"),
    # formal: its regime is large σ (below ~30 its terms turn early and the figure is inf); worst errors are
    # rounding of log F ≈ 4e4 and 1e4, whose 4 ulps (2.9e-11, 7.3e-12) the budget may reach on another machine
    BudgetEntry("formal", "formal", Region((2, 8), (100.0, _INF)), 2e-11, "measured"),  # 8.21e-12 (k = 4 equal, 1e4)
    BudgetEntry("formal", "formal", Region((9, 12), (100.0, _INF)), 1e-11, "measured"),  # 1.85e-12 (k = 9 rank one, 1e4)
    # asymptotic: valid where every pair sum is large (rank one with k ≥ 3 is undefined)
    BudgetEntry("asymptotic (order 0)", "asymptotic", Region((2, 3), _LARGE, _SPREAD_EQUAL), 0.04, "measured",
                {"order": 0}),  # 0.0315
    BudgetEntry("asymptotic (order 1)", "asymptotic", Region((2, 3), _LARGE, _SPREAD_EQUAL), 3e-3, "measured",
                {"order": 1}),  # 2.06e-3
    BudgetEntry("asymptotic (order 2)", "asymptotic", Region((2, 3), _LARGE, _SPREAD_EQUAL), 3e-4, "measured",
                {"order": 2}),  # 2.66e-4
    BudgetEntry("asymptotic (order 3)", "asymptotic", Region((2, 3), _LARGE, _SPREAD_EQUAL), 6e-5, "measured",
                {"order": 3}),  # 5.35e-5
    BudgetEntry("asymptotic (order 0)", "asymptotic", Region((2, 12), _MODERATE, _SPREAD_EQUAL), 20.0, "measured",
                {"order": 0}),  # 14.0
    BudgetEntry("asymptotic (order 1)", "asymptotic", Region((2, 12), _MODERATE, _SPREAD_EQUAL), 30.0, "measured",
                {"order": 1}),  # 20.0
    BudgetEntry("asymptotic (order 2)", "asymptotic", Region((2, 12), _MODERATE, _SPREAD_EQUAL), 50.0, "measured",
                {"order": 2}),  # 46.5
    BudgetEntry("asymptotic (order 3)", "asymptotic", Region((2, 12), _MODERATE, _SPREAD_EQUAL), 300.0, "measured",
                {"order": 3}),  # 287
    # laplace: Moore (2016) eq. (7), Butler & Wood (2003)
    BudgetEntry("laplace (listing)", "laplace", Region((1, 12), _SMALL), 2e-3, "measured",
                {"variant": "listing"}),  # 1.80e-3
    BudgetEntry("laplace (listing)", "laplace", Region((1, 12), _MODERATE), 0.2, "measured",
                {"variant": "listing"}),  # 0.106
    BudgetEntry("laplace (listing)", "laplace", Region((1, 12), _LARGE), 20.0, "measured",
                {"variant": "listing"}),  # 18.7 (k = 4 equal, σ = 1e4)
    BudgetEntry("laplace (printed eq. 7)", "laplace", Region((1, 12), _SMALL), 0.04, "measured",
                {"variant": "printed"}),  # 0.0319
    BudgetEntry("laplace (printed eq. 7)", "laplace", Region((1, 12), _MODERATE), 2.0, "measured",
                {"variant": "printed"}),  # 1.27
    BudgetEntry("laplace (printed eq. 7)", "laplace", Region((1, 12), _LARGE), 30.0, "measured",
                {"variant": "printed"}),  # 24.7 (k = 4 equal, σ = 1e4)
    BudgetEntry("laplace (pairs i ≤ j)", "laplace", Region((1, 12), _SMALL), 2e-3, "measured",
                {"variant": "pairs-once"}),  # 1.80e-3
    BudgetEntry("laplace (pairs i ≤ j)", "laplace", Region((1, 12), _MODERATE), 0.9, "measured",
                {"variant": "pairs-once"}),  # 0.837 (k = 4 equal, σ = 5)
    BudgetEntry("laplace (pairs i ≤ j)", "laplace", Region((1, 12), _LARGE), 3.0, "measured",
                {"variant": "pairs-once"}),  # 2.70 (k = 4 equal, σ = 1e4)
    BudgetEntry("auto", "auto", Region((1, 12), _SMALL), 8e-16, "measured"),  # 7.09e-16 (equal σ: Weyl)
    BudgetEntry("auto", "auto", Region((1, 12), _MODERATE), 8e-15, "measured"),  # 7.95e-15
    BudgetEntry("auto", "auto", Region((1, 12), _LARGE), 4e-12, "measured"),  # 3.58e-12
]


def entry_errors(entry: BudgetEntry, table=None) -> list[tuple]:
    """|method − reference| in log ₀F₁ at every reference point of the entry's region.

    Parameters
    ----------
    entry : BudgetEntry
    table : ReferenceTable, optional
        Default: :func:`symcheck.hyp0f1.reference_data.load_reference_values`.

    Returns
    -------
    list of (ReferenceValue, float)
        Each reference point in the region and the method's absolute error there (the difference
        taken in mpmath, so the float64 rounding of the reference does not count).
    """
    table = load_reference_values() if table is None else table
    points = [e for e in table.entries if entry.region.contains(e.k, e.sigma, e.shape)]
    out = []
    for k in sorted({p.k for p in points}):
        mine = [p for p in points if p.k == k]
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)  # auto's warning: the budget judges
            values = log_hyp0f1(np.array([p.sigma for p in mine]), k, method=entry.method, **entry.options)
        with mpmath.workdps(50):
            out.extend((p, float(abs(mpmath.mpf(float(v)) - mpmath.mpf(p.log_hyp0f1))) if np.isfinite(v) else _INF)
                       for p, v in zip(mine, values))
    return out


def measure_budget_table(entries=None, table=None) -> list[dict]:
    """Worst measured error of every entry: dicts with ``entry``, ``n``, ``worst``, ``at`` (the reference point) and
    ``largest`` (the largest |log ₀F₁| among the entry's reference points, whose ulp sets the rounding floor)."""
    rows = []
    for entry in BUDGET if entries is None else entries:
        errs = entry_errors(entry, table)
        worst = max(errs, key=lambda pe: pe[1]) if errs else (None, float("nan"))
        largest = max((abs(p.value) for p, _ in errs), default=float("nan"))
        rows.append({"entry": entry, "n": len(errs), "worst": worst[1], "at": worst[0], "largest": largest})
    return rows


#: Regions of the error-figure table (:func:`figure_ratios`).
FIGURE_REGIONS = [Region((1, 3), _SMALL), Region((1, 3), _MODERATE), Region((1, 3), _LARGE),
                  Region((4, 12), _SMALL), Region((4, 12), _MODERATE), Region((4, 12), _LARGE),
                  Region((2, 3), shapes=("near ties",)), Region((4, 12), shapes=("near ties",))]


def _figure_runs():
    """(label, method, options, row filter) for auto and every registered deterministic method: with
    the options and on the rows of its first auto step where it has one (as auto runs it), else with
    its defaults on every row."""
    runs = [("auto", "auto", {}, None)]
    for name, m in methods.REGISTRY.items():
        if m.needs_rng:
            continue
        step = m.auto[0] if m.auto else None
        runs.append((name, name, dict(step.options) if step else {}, step.applies if step else None))
    return runs


def figure_ratios(table=None, regions=None) -> list[dict]:
    """Worst ratio true error / returned error figure per method and region, on the stored references.

    A ratio above 1 is a false error figure (the figure claims more accuracy than the value has).
    Each value is computed one row at a time with ``return_error=True``; rows outside a method's
    domain (ValueError) are skipped and counted.

    Returns
    -------
    list of dict
        ``method``, ``region`` (description), ``n`` (rows answered), ``skipped``, ``worst_ratio``,
        ``false_figures`` (rows with ratio > 1), ``at`` (the reference point of the worst ratio).
    """
    table = load_reference_values() if table is None else table
    regions = FIGURE_REGIONS if regions is None else regions
    out = []
    for label, method, opts, applies in _figure_runs():
        for region in regions:
            points = [e for e in table.entries if region.contains(e.k, e.sigma, e.shape)]
            ratios, skipped = [], 0
            for p in points:
                sig = np.array([p.sigma])
                if applies is not None and not bool(applies(sig, p.k)[0]):
                    skipped += 1
                    continue
                try:
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)
                        value, err = log_hyp0f1(sig, p.k, method=method, return_error=True, **opts)
                except ValueError:
                    skipped += 1
                    continue
                with mpmath.workdps(50):
                    true = float(abs(mpmath.mpf(float(value[0])) - mpmath.mpf(p.log_hyp0f1)))
                figure = float(err[0])
                ratios.append((true / figure if figure > 0 else (_INF if true > 0 else 0.0), p))
            worst = max(ratios, key=lambda rp: rp[0]) if ratios else (float("nan"), None)
            out.append({"method": label, "region": region.describe(), "n": len(ratios), "skipped": skipped,
                        "worst_ratio": worst[0], "false_figures": sum(r > 1 for r, _ in ratios), "at": worst[1]})
    return out
