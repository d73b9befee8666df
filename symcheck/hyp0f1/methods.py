"""The registry of log ₀F₁ methods: one declaration per method, read by every part of symcheck.

A :class:`Method` declares everything the rest of the package needs to know about a way of
computing log ₀F₁(k/2; AAᵀ/4) from the singular values σ of A:

* ``evaluate(flat, k, **options) -> (value, error)`` and, where it has one,
  ``gradient(flat, k, **options) -> (grad, error)``: rows ``flat`` of shape (n, k), already
  validated (finite, σ ≥ 0); ``error`` is the absolute error figure of log ₀F₁ per row (for the
  gradient: of its largest component);
* optionally ``gradient_only(flat, k, **options) -> grad``: the same gradient without its error
  figure, where the figure costs more than the gradient (the asymptotic expansion's figure needs the
  next order's finite differences); ``grad_log_hyp0f1`` uses it when the caller asks for neither the
  figure nor the info (an optimiser's inner loop);
* optionally ``value_only(flat, k, **options) -> value``: the same values without their error figure,
  where the figure costs more than the value (the asymptotic expansion's figure needs the next term);
  ``log_hyp0f1`` uses it likewise;
* optionally ``value_and_gradient_only(flat, k, **options) -> (value, grad)``: the numbers of
  ``value_only`` (else ``evaluate``) and ``gradient_only`` (else ``gradient``), bit for bit, from work
  done once for both (the asymptotic expansion's terms, the Laplace saddle point);
  ``log_hyp0f1_and_grad`` uses it;
* ``rigorous``: whether ``error`` is a proven bound (else an estimate whose safety factor is
  measured on references the method does not use, documented in the method's module);
* ``defaults`` and ``check_options`` (the options it accepts and their validation);
* ``domain(flat, k, options)``: per row, ``""`` where the method applies, else the reason it
  does not (the text of the ValueError a call raises, and of the report's "why not" column);
* ``auto``: the steps at which ``log_hyp0f1(method="auto")`` tries it (:class:`AutoStep`);
* ``variants``: labelled option sets that the accuracy report, the budget and the benchmarks show.

:func:`symcheck.hyp0f1.api.log_hyp0f1` and ``grad_log_hyp0f1`` dispatch through :data:`REGISTRY`;
``auto`` runs the :class:`AutoStep` of every registered method in rank order; the budget table
(:mod:`symcheck.hyp0f1.budget`), the report sections ``hyp0f1_accuracy`` and ``hyp0f1_goal``, the
benchmarks and :mod:`symcheck.testing` list the methods from here. Adding a method is a module with
its kernels plus one :func:`register` call (``tests/test_hyp0f1_methods.py`` registers a toy one
and finds it everywhere).
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from symcheck._checks import check_choice, check_int, check_positive_float, check_rng
from symcheck._mc import khat_trusted
from symcheck.hyp0f1 import (asymptotic, closed_form, confluent, contiguous, formal, holonomic, laplace, montecarlo,
                             near_equal, series)

__all__ = ["AUTO_RTOL", "AUTO_SERIES_GOAL_RTOL", "AUTO_SERIES_MAX_DEGREE", "AUTO_SERIES_RANK_MAX_DEGREE", "AUTO_SERIES_RTOL", "AutoStep", "Method", "REGISTRY", "get",
           "names", "register", "unregister"]

EPS = float(np.finfo(float).eps)
#: Relative accuracy "auto" aims at: |error of log ₀F₁| ≤ AUTO_RTOL·max(1, |log ₀F₁|).
AUTO_RTOL = 1e-10
#: Relative tolerance the "auto" method asks of the series.
AUTO_SERIES_RTOL = 1e-14
#: Relative tolerance of auto's second series step, for rows whose degree at AUTO_SERIES_RTOL is not
#: feasible: enough for AUTO_RTOL (a relative error δ of ₀F₁ is ≤ δ/(1 − δ) in its log), with a
#: factor 10 for the rounding. At k = 20 it reaches σ_max ≈ 3 (degree ≤ 32).
AUTO_SERIES_GOAL_RTOL = 1e-11
#: Largest series degree (in the eigenvalues σ²/4) "auto" is willing to sum.
AUTO_SERIES_MAX_DEGREE = 60
#: Largest series degree "auto" sums for rows with fewer than k non-zero σ. Their tables have m < k
#: variables (:mod:`symcheck.hyp0f1.series`), so feasibility caps the degree first for every m ≥ 2
#: (388 for m = 2, 88 for m = 3, 53 for m = 4); the largest such tables take ≈ 3 s to build once
#: (cached) and then ≤ 11 ms per row for the gradient (measured on 2 cores).
AUTO_SERIES_RANK_MAX_DEGREE = 400


@dataclass(frozen=True)
class AutoStep:
    """One step of ``log_hyp0f1(method="auto")``'s routing (module docstring).

    Attributes
    ----------
    rank : float
        Steps run in increasing rank; a row stops once its error figure meets AUTO_RTOL.
    applies : callable (flat, k) -> bool mask
        Cheap test of the rows this step is tried on (before the method's ``domain``).
    options : dict
        Options passed to the method.
    row_by_row : bool
        Evaluate one row at a time and skip a row whose evaluation raises ValueError or
        RuntimeError (expensive methods with a per-row budget).
    fallback : bool
        Only for rows that no earlier step gave a finite value.
    scope : str
        ``applies`` in words, for the report's "why not" column (empty: every row).
    """

    rank: float
    applies: Callable
    options: dict = field(default_factory=dict)
    row_by_row: bool = False
    fallback: bool = False
    scope: str = ""


@dataclass(frozen=True)
class Method:
    """One way of computing log ₀F₁ (module docstring)."""

    name: str
    summary: str
    evaluate: Callable
    rigorous: bool
    error_kind: str
    domain: Callable
    gradient: Callable | None = None
    gradient_only: Callable | None = None
    value_only: Callable | None = None
    value_and_gradient_only: Callable | None = None
    defaults: dict = field(default_factory=dict)
    check_options: Callable | None = None
    auto: tuple = ()
    variants: dict = field(default_factory=dict)
    needs_rng: bool = False


#: The registered methods by name (insertion order is the order of the reports).
REGISTRY: dict[str, Method] = {}


def register(method: Method) -> Method:
    """Add ``method`` to :data:`REGISTRY` (ValueError if the name is taken or is "auto")."""
    if method.name == "auto" or method.name in REGISTRY:
        raise ValueError(f"a log 0F1 method named {method.name!r} is already registered")
    REGISTRY[method.name] = method
    return method


def unregister(name: str) -> Method:
    """Remove and return the method ``name`` (for tests that register a toy method)."""
    return REGISTRY.pop(name)


def get(name: str) -> Method:
    """The registered method ``name`` (ValueError naming the choices otherwise)."""
    check_choice(name, "method", tuple(REGISTRY))
    return REGISTRY[name]


def names(with_gradient: bool = False) -> tuple:
    """Names of the registered methods (only those with a gradient if ``with_gradient``)."""
    return tuple(n for n, m in REGISTRY.items() if m.gradient is not None or not with_gradient)


def _everywhere(flat: np.ndarray, k: int, options: dict | None = None) -> np.ndarray:
    return np.full(flat.shape[0], "", dtype=object)


def _rows(flat: np.ndarray, k: int) -> np.ndarray:
    return np.ones(flat.shape[0], dtype=bool)


# --------------------------------------------------------------------------- exact (closed forms)

def _exact_cheap(flat: np.ndarray, k: int) -> np.ndarray:
    """Closed forms that cost microseconds to milliseconds: k ≤ 2, rank one, k equal σ."""
    if k <= 2:
        return np.ones(flat.shape[0], dtype=bool)
    return closed_form.has_closed_form(flat, k) & ((np.count_nonzero(flat, axis=1) <= 1)
                                                    | closed_form.weyl.is_equal_full_rank(flat))


register(Method(
    name="exact",
    summary="closed forms: k = 1, 2, 3 (a one-dimensional integral), 4 (a positive series), rank one, k equal σ "
            "(Weyl's formula)",
    evaluate=lambda flat, k: closed_form.exact_value(flat, k),
    gradient=lambda flat, k: closed_form.exact_gradient(flat, k),
    rigorous=False,
    error_kind="estimate (rounding allowance measured against mpmath)",
    domain=lambda flat, k, options=None: closed_form.closed_form_reason(flat, k),
    auto=(AutoStep(10, _exact_cheap, scope="k ≤ 2, rank one or all k singular values equal"),
          AutoStep(30, lambda flat, k: (k in (3, 4)) & closed_form.has_closed_form(flat, k),
                   scope="k = 3; k = 4 with Σσ up to ~4e4")),
))


# --------------------------------------------------------------------------- near an equal spectrum

#: "auto" tries the near-equal route on rows whose proven band ‖d‖₁²/4 is at most this fraction of
#: max(1, Σσ) (Σσ bounds log ₀F₁ from above): a figure larger than that is of no use, and the rest of the
#: rows are spared the closed form's ~0.1–3 ms.
NEAR_EQUAL_USEFUL = 1e-2
#: ... and leaves rows to the series (rank 20) where it needs at most this degree at AUTO_SERIES_RTOL: there the
#: series costs < 1 ms at any k and bounds the error relative to ₀F₁, while the band is absolute, poor relative
#: to a small log ₀F₁: at k = 4, σ = 0.0108·(1 − 3e-4)^i the band gave 4.2e-11 against log ₀F₁ = 5.8e-5, the
#: series 4.2e-14 (degree 3; degree 13 at σ ≈ 1, 31 at k = 6, σ ≈ 3; measured 2026-11-27).
NEAR_EQUAL_SERIES_DEGREE = 16


def _near_equal_useful(flat: np.ndarray, k: int) -> np.ndarray:
    with np.errstate(over="ignore"):  # Σσ of σ near the float64 limit: inf, and the band is inf too
        out = near_equal.band(flat) <= NEAR_EQUAL_USEFUL * np.maximum(1.0, flat.sum(axis=1))
    if out.any():
        out[out] = series.series_degree_needed(flat[out], k, AUTO_SERIES_RTOL) > NEAR_EQUAL_SERIES_DEGREE
    return out


register(Method(
    name="near-equal",
    summary="the equal-spectrum closed form at the mean σ with a proven band ‖σ − mean‖₁²/4 (convexity and "
            "Popoviciu's variance bound), or where narrower its second-order expansion (the curvature from "
            "Muirhead's equation at the tie) with a proven cubic remainder",
    evaluate=lambda flat, k: near_equal.log_hyp0f1_near_equal(flat, k),
    gradient=lambda flat, k: near_equal.log_hyp0f1_near_equal(flat, k, want_grad=True)[2:],
    rigorous=False,
    error_kind="bound of the perturbation plus the closed form's estimate (rounding allowance measured against mpmath)",
    domain=lambda flat, k, options=None: near_equal.near_equal_reason(flat, k),
    auto=(AutoStep(12, _near_equal_useful, scope=f"‖σ − mean‖₁²/4 ≤ {NEAR_EQUAL_USEFUL:g}·max(1, Σσ), where the "
                                                 f"series needs degree > {NEAR_EQUAL_SERIES_DEGREE}"),),
))


# --------------------------------------------------------------------------- series

def _series_options(opts: dict) -> dict:
    rtol = check_positive_float(opts["rtol"], "rtol")
    if rtol >= 1:
        raise ValueError(f"rtol must be < 1, got {rtol}")
    return {"rtol": rtol, "max_degree": check_int(opts["max_degree"], "max_degree", minimum=0)}


def _series_value(flat, k, rtol=1e-14, max_degree=200):
    value, rel = series.log_hyp0f1_series(flat, k, rtol=rtol, max_degree=max_degree)
    # a relative error δ of ₀F₁ is an error ≤ δ/(1 − δ) of its log; the log's rounding adds u·|log F|
    return value, rel / (1.0 - rel) + EPS * np.abs(value)


def _series_domain(flat, k, options=None):
    opts = {"rtol": 1e-14, "max_degree": 200, **(options or {})}
    need = series.series_degree_needed(flat, k, opts["rtol"])
    out = np.full(flat.shape[0], "", dtype=object)
    for r in np.flatnonzero(need > opts["max_degree"]):
        m = max(int(np.count_nonzero(flat[r] > 0)), 1)  # the tables' number of variables
        feasible = series.max_feasible_degree(m)
        out[r] = (f"the series needs degree {'> ' + str(feasible) if need[r] == series.UNREACHABLE else need[r]}"
                  f" for rtol={opts['rtol']:g} (max_degree={opts['max_degree']}, feasible ≤ {feasible} for "
                  f"{m} non-zero sigma at k={k})")
    return out


def _rank_deficient(flat: np.ndarray, k: int) -> np.ndarray:
    return np.count_nonzero(flat > 0, axis=1) < k


register(Method(
    name="series",
    summary="zonal-polynomial series (Koev & Edelman 2006), float64, rigorous truncation and rounding bound",
    evaluate=_series_value,
    gradient=lambda flat, k, rtol=1e-14, max_degree=200: series.grad_log_hyp0f1_series_with_error(
        flat, k, rtol=rtol, max_degree=max_degree),
    rigorous=True,
    error_kind="bound (truncation + first-order rounding)",
    domain=_series_domain,
    defaults={"rtol": 1e-14, "max_degree": 200},
    check_options=_series_options,
    auto=(AutoStep(20, _rows, {"rtol": AUTO_SERIES_RTOL, "max_degree": AUTO_SERIES_MAX_DEGREE}),
          AutoStep(21, _rows, {"rtol": AUTO_SERIES_GOAL_RTOL, "max_degree": AUTO_SERIES_MAX_DEGREE}),
          AutoStep(25, _rank_deficient, {"rtol": AUTO_SERIES_RTOL, "max_degree": AUTO_SERIES_RANK_MAX_DEGREE},
                   scope="fewer than k non-zero singular values (tables in the m non-zero σ)")),
    variants={"series (float64)": {"rtol": 1e-14, "max_degree": AUTO_SERIES_MAX_DEGREE}},
))


# --------------------------------------------------------------------------- asymptotic expansion

def _asymptotic_options(opts: dict) -> dict:
    order = opts["order"]
    if isinstance(order, str) and order == "best":
        return {"order": order}
    if isinstance(order, str):
        raise ValueError(f"order must be an integer 0..{asymptotic.MAX_ORDER} or 'best', got {order!r}")
    order = check_int(order, "order", minimum=0)
    if order > asymptotic.MAX_ORDER:
        raise ValueError(f"order must be an integer 0..{asymptotic.MAX_ORDER} or 'best', got {order}")
    return {"order": order}


def _asymptotic_domain(flat, k, options=None):
    out = np.full(flat.shape[0], "", dtype=object)
    if k >= 2:
        out[np.sum(flat == 0, axis=1) >= 2] = ("the asymptotic expansion is undefined where two singular values "
                                               "are 0 (a pair sum sigma_i + sigma_j vanishes)")
    return out


def _asymptotic_value(flat, k, order=1):
    with np.errstate(invalid="ignore"):
        if order == "best":  # per row the order with the smallest error estimate
            return asymptotic.log_hyp0f1_asymptotic_best(flat, k)[:2]
        return asymptotic.log_hyp0f1_asymptotic(flat, k, order=order, return_error=True)


def _asymptotic_value_only(flat, k, order=1):
    """The value of `_asymptotic_value` without the next term that only its figure needs (the same
    numbers: each term is evaluated on its own; 'best' needs the figures)."""
    if order == "best":
        return _asymptotic_value(flat, k, order)[0]
    with np.errstate(invalid="ignore"):
        return asymptotic.log_hyp0f1_asymptotic(flat, k, order=order)


def _asymptotic_gradient_only(flat, k, order=1):
    """The gradient of `grad_log_hyp0f1_asymptotic_with_error` at a fixed order, without the next
    order's differences that only its figure needs (the same numbers; 'best' needs the figures)."""
    if order == "best":
        return asymptotic.grad_log_hyp0f1_asymptotic_with_error(flat, k, order=order)[0]
    return asymptotic.grad_log_hyp0f1_asymptotic(flat, k, order=order)


def _asymptotic_value_and_gradient_only(flat, k, order=1):
    """`_asymptotic_value_only` and `_asymptotic_gradient_only` together (at orders 0 and 1 from one
    evaluation of the terms; 'best' needs the figures)."""
    if order == "best":
        return _asymptotic_value_only(flat, k, order), _asymptotic_gradient_only(flat, k, order)
    return asymptotic.log_hyp0f1_asymptotic_and_grad(flat, k, order=order)


register(Method(
    name="asymptotic",
    summary="Laplace's method on O(k) around both cosets with 0–3 correction terms (large pair sums σᵢ + σⱼ)",
    evaluate=_asymptotic_value,
    gradient=lambda flat, k, order=1: asymptotic.grad_log_hyp0f1_asymptotic_with_error(flat, k, order=order),
    gradient_only=_asymptotic_gradient_only,
    value_only=_asymptotic_value_only,
    value_and_gradient_only=_asymptotic_value_and_gradient_only,
    rigorous=False,
    error_kind="estimate (first omitted term × a measured safety factor; inf outside the asymptotic regime)",
    domain=_asymptotic_domain,
    defaults={"order": 1},
    check_options=_asymptotic_options,
    auto=(AutoStep(40, _rows, {"order": "best"}),),
    variants={f"asymptotic (order {o})": {"order": o} for o in range(asymptotic.MAX_ORDER + 1)},
))


# --------------------------------------------------------------------------- formal series at s = ∞

def _formal_rows(flat: np.ndarray, k: int) -> np.ndarray:
    nonzero = np.count_nonzero(flat, axis=1)
    return (nonzero >= 1) & (nonzero <= formal.MAX_M) & (k >= 2)


register(Method(
    name="formal",
    summary="the asymptotic expansion to any order: the formal solution of Muirhead's Pfaffian system at s = ∞ "
            "(non-zero σ 0.2 % apart, or runs of equal or nearly equal σ: spread and extrapolated; any number of "
            "zeros)",
    evaluate=lambda flat, k: formal.log_hyp0f1_formal(flat, k),
    gradient=lambda flat, k: formal.log_hyp0f1_formal(flat, k, want_grad=True)[2:],
    rigorous=False,
    error_kind=("estimate (first omitted term × a measured safety factor, plus a rounding probe; inf outside "
                "the asymptotic regime)"),
    domain=lambda flat, k, options=None: formal.formal_reason(flat, k),
    auto=(AutoStep(45, _formal_rows, scope=f"non-zero σ {formal.GAP_MIN:g} apart (relative) or in runs of equal "
                                           f"or nearly equal values, 1 to {formal.MAX_M} of them"),),
))


# --------------------------------------------------------------------------- holonomic gradient method

def _holonomic_options(opts: dict) -> dict:
    rtol = check_positive_float(opts["rtol"], "rtol")
    if rtol >= 1e-2:
        raise ValueError(f"rtol: must be below 1e-2, got {rtol}")
    steps = opts["max_steps"]
    return {"rtol": rtol, "max_steps": None if steps is None else check_int(steps, "max_steps", minimum=1),
            "work": check_positive_float(opts["work"], "work")}


def _holonomic_scope(full_rank: bool, lawson: bool) -> str:
    m = holonomic.AUTO_MAX_M_LAWSON if lawson else holonomic.AUTO_MAX_M
    rows = (f"k ≤ {m}, every singular value non-zero (rank 2^k)" if full_rank
            else f"1 to {m} non-zero singular values, fewer than k (rank 2^m)")
    return rows + ("; one Lawson ray (no cluster)" if lawson else "; clusters or HO rays")


def _holonomic_auto_work(full_rank: bool, lawson: bool) -> float:
    """The work units "auto" gives a holonomic row of each kind (holonomic.AUTO_*_STEP_WORK)."""
    if lawson:
        return holonomic.AUTO_LAWSON_STEP_WORK if full_rank else holonomic.AUTO_LAWSON_RANK_DEFICIENT_STEP_WORK
    return holonomic.AUTO_FULL_RANK_STEP_WORK if full_rank else holonomic.AUTO_STEP_WORK


def _holonomic_call(fn, flat, k, rtol, max_steps, work):
    try:
        return fn(flat, k, rtol=rtol, max_steps=max_steps, work=work)
    except holonomic.StepBudgetExceeded as exc:
        raise ValueError(f"max_steps: {exc}; raise max_steps or work, or use method='auto'") from None
    except RuntimeError as exc:  # a ray that lost all accuracy (holonomic._ray)
        raise ValueError(f"sigma: {exc}; use method='auto'") from None


register(Method(
    name="holonomic",
    summary="holonomic gradient method: Muirhead's system as a rank-2^m Pfaffian ODE along the ray sσ",
    evaluate=lambda flat, k, rtol=1e-13, max_steps=None, work=holonomic.STEP_WORK: _holonomic_call(
        holonomic.log_hyp0f1_holonomic, flat, k, rtol, max_steps, work),
    gradient=lambda flat, k, rtol=1e-13, max_steps=None, work=holonomic.STEP_WORK: _holonomic_call(
        holonomic.grad_log_hyp0f1_holonomic, flat, k, rtol, max_steps, work),
    rigorous=False,
    error_kind=("estimate (step doubling or DOP853's embedded estimate, a run at 16 × rtol, initial series, "
                "Richardson; × measured safety factors)"),
    domain=lambda flat, k, options=None: holonomic.holonomic_reason(flat, k),
    defaults={"rtol": 1e-13, "max_steps": None, "work": holonomic.STEP_WORK},
    check_options=_holonomic_options,
    auto=tuple(
        AutoStep(rank, functools.partial(holonomic.auto_affordable, full_rank=full_rank, lawson=lawson),
                 {"rtol": holonomic.AUTO_RTOL if full_rank else holonomic.AUTO_RTOL_RANK_DEFICIENT,
                  "work": _holonomic_auto_work(full_rank, lawson)},
                 row_by_row=True, scope=_holonomic_scope(full_rank, lawson))
        for rank, full_rank, lawson in ((50, False, True), (50.5, False, False), (51, True, True), (51.5, True, False))),
))


# --------------------------------------------------------------------------- confluent system (exact and near ties)

#: Right-hand-side evaluations "auto" lets each run of a confluent ray use (five runs a row; ~40 µs an evaluation
#: at m = 8: a few seconds at most a row). k = m = 8, two clusters at σ_max = 100 needs ~20 000 from ŝ = 12 and
#: ~160 000 from the second start ŝ = 8, so auto leaves such rows to the formal series (measured 2026-11-28).
AUTO_CONFLUENT_EVALS = 40_000
#: Beyond confluent.LARGE_M non-zero σ (m = 11, 12): two clusters of six at k = 12, σ_max = 10 and 30, need 39 000 and
#: 49 000 evaluations a run (~36 µs each; 8–9.5 s a row with the count start, measured 2026-11-29).
AUTO_CONFLUENT_EVALS_LARGE = 80_000


def _confluent_options(opts: dict) -> dict:
    rtol = check_positive_float(opts["rtol"], "rtol")
    if rtol >= 1e-2:
        raise ValueError(f"rtol: must be below 1e-2, got {rtol}")
    return {"rtol": rtol, "max_evals": check_int(opts["max_evals"], "max_evals", minimum=1)}


def _confluent_call(fn, flat, k, rtol, max_evals):
    try:
        return fn(flat, k, rtol=rtol, max_evals=max_evals)
    except holonomic.StepBudgetExceeded as exc:
        raise ValueError(f"max_evals: {exc}; raise max_evals, or use method='auto'") from None
    except RuntimeError as exc:  # a ray that lost all accuracy (confluent._run)
        raise ValueError(f"sigma: {exc}; use method='auto'") from None


def _tied_rows(flat: np.ndarray, k: int) -> np.ndarray:
    """Rows in the confluent regime (a tie or near tie among at most confluent.MAX_M non-zero σ) with at most
    confluent.LARGE_M non-zero σ."""
    return (confluent.confluent_reason(flat, k) == "") & (_nonzero_count(flat) <= confluent.LARGE_M)


def _tied_rows_large(flat: np.ndarray, k: int) -> np.ndarray:
    """Rows in the confluent regime with more than confluent.LARGE_M non-zero σ."""
    return (confluent.confluent_reason(flat, k) == "") & (_nonzero_count(flat) > confluent.LARGE_M)


def _nonzero_count(flat: np.ndarray) -> np.ndarray:
    """Non-zero σ per row as the confluent route counts them (holonomic.nonzero_sorted)."""
    return np.array([holonomic.nonzero_sorted(row).size for row in flat], dtype=np.int64)


register(Method(
    name="confluent",
    summary="the confluent Pfaffian system at ties: rank ∏(p_c + 1) for clusters of sizes p_c, along the ray sσ; "
            "near ties by its Taylor expansion about the clusters' means, with a proven remainder",
    evaluate=lambda flat, k, rtol=1e-12, max_evals=confluent.MAX_EVALS: _confluent_call(
        confluent.log_hyp0f1_confluent, flat, k, rtol, max_evals),
    gradient=lambda flat, k, rtol=1e-12, max_evals=confluent.MAX_EVALS: _confluent_call(
        confluent.grad_log_hyp0f1_confluent, flat, k, rtol, max_evals),
    rigorous=False,
    error_kind=("estimate (a run at 16 × rtol, a rounding probe, initial series; × measured safety factors; "
                "near ties: plus the expansion's proven remainder)"),
    domain=lambda flat, k, options=None: confluent.confluent_reason(flat, k),
    defaults={"rtol": 1e-12, "max_evals": confluent.MAX_EVALS},
    check_options=_confluent_options,
    auto=(AutoStep(49, _tied_rows, {"rtol": 1e-12, "max_evals": AUTO_CONFLUENT_EVALS}, row_by_row=True,
                   scope=f"equal or nearly equal non-zero σ (clusters of values less than {confluent.GAP:g} apart, "
                         f"relative), 2 to {confluent.LARGE_M} non-zero"),
          AutoStep(49, _tied_rows_large, {"rtol": 1e-12, "max_evals": AUTO_CONFLUENT_EVALS_LARGE}, row_by_row=True,
                   scope=f"equal or nearly equal non-zero σ (clusters of values less than {confluent.GAP:g} apart, "
                         f"relative), {confluent.LARGE_M + 1} to {confluent.MAX_M} non-zero at k = m in at most "
                         f"{confluent.MAX_CLUSTERS_LARGE} clusters")),
))


# --------------------------------------------------------------------------- k = m from k + 2 (Sekiguchi–Debiard)

#: The contiguous route's work units, called directly and by auto: g's four runs at k + 2 (rank-deficient, m < k + 2).
_CONTIGUOUS_WORK = contiguous.WORK


def _contiguous_rows(flat: np.ndarray, k: int) -> np.ndarray:
    """Rows in the contiguous route's regime (m ≤ contiguous.MAX_M non-zero σ, distinct: contiguous_reason)."""
    return contiguous.contiguous_reason(flat, k) == ""


register(Method(
    name="contiguous",
    summary="F_k from the function at k + 2: F_k ∝ det(B + diag(σᵢ∂ᵢ)) F_{k+2}(σ, 0, 0) (the Sekiguchi–Debiard "
            "operator) on the state of one stable holonomic ray at k + 2 (distinct σ, m ≤ 10; no gradient); needed at "
            "k = m, m + 1, a second route beside the direct ray at k ≥ m + 2",
    evaluate=lambda flat, k, rtol=1e-13, max_steps=None, work=_CONTIGUOUS_WORK: _holonomic_call(
        contiguous.log_hyp0f1_contiguous, flat, k, rtol, max_steps, work),
    rigorous=False,
    error_kind="estimate (g's ray at 16 × rtol and with its rounding imitated, through the relation; × a measured "
               "safety factor)",
    domain=lambda flat, k, options=None: contiguous.contiguous_reason(flat, k),
    defaults={"rtol": 1e-13, "max_steps": None, "work": _CONTIGUOUS_WORK},
    check_options=_holonomic_options,
    auto=(AutoStep(50.8, _contiguous_rows, {"rtol": 1e-13, "work": _CONTIGUOUS_WORK}, row_by_row=True,
                   scope=f"m ≤ {contiguous.MAX_M} non-zero σ {contiguous.GAP:g} apart (relative), "
                         "g's ray at k + 2 one Lawson ray"),),
))


# --------------------------------------------------------------------------- Laplace (Moore eq. (7))

def _laplace_options(opts: dict) -> dict:
    return {"variant": check_choice(opts["variant"], "variant", tuple(laplace.VARIANTS))}


def _laplace_value(flat, k, variant="listing"):
    value = laplace.log_hyp0f1_laplace(flat, k, variant=variant)
    return value, np.where(np.all(flat == 0, axis=1), 0.0, np.inf)


def _laplace_grad(flat, k, variant="listing"):
    grad = laplace.grad_log_hyp0f1_laplace(flat, k, variant=variant)
    return grad, np.where(np.all(flat == 0, axis=1), 0.0, np.inf)


def _laplace_value_and_grad(flat, k, variant="listing"):
    """Both from one pass of the kernel (its value does not depend on whether it also differentiates)."""
    return laplace.log_hyp0f1_laplace_and_grad(flat, k, variant=variant)


register(Method(
    name="laplace",
    summary="Butler & Wood (2003) Laplace approximation as in Moore (2016) eq. (7) and Listing 1 (no error bound)",
    evaluate=_laplace_value,
    gradient=_laplace_grad,
    value_and_gradient_only=_laplace_value_and_grad,
    rigorous=False,
    error_kind="none (inf; exact at σ = 0)",
    domain=_everywhere,
    defaults={"variant": "listing"},
    check_options=_laplace_options,
    auto=(AutoStep(100, _rows, {"variant": "listing"}, fallback=True),),
    variants={"laplace (listing)": {"variant": "listing"}, "laplace (printed eq. 7)": {"variant": "printed"},
              "laplace (pairs i≤j)": {"variant": "pairs-once"}},
))


# --------------------------------------------------------------------------- Haar Monte Carlo

def _mc_options(opts: dict) -> dict:
    if opts["rng"] is None:
        raise ValueError("rng is required for method 'mc' (a numpy.random.Generator or an integer seed)")
    return {"n_samples": check_int(opts["n_samples"], "n_samples", minimum=2), "rng": check_rng(opts["rng"]),
            "proposal": check_choice(opts["proposal"], "proposal", ("haar", "saddle"))}


def _mc_evaluate(flat, k, n_samples, rng, proposal):
    """The Monte Carlo estimate and its standard error, or inf where the weights' Pareto tail index is not
    safely below KHAT_RELIABLE (:func:`symcheck._mc.khat_trusted`): there the standard error understates the
    error (Haar draws at k = 20, rank-deficient
    σ_max = 100: 87 nats low with a standard error of 0.95, k̂ = 6.3)."""
    value, se, khat = montecarlo.log_hyp0f1_mc(flat, k, n_samples, rng, proposal=proposal, return_khat=True)
    return value, np.where(khat_trusted(khat, n_samples), se, np.inf)


register(Method(
    name="mc",
    summary="Haar Monte Carlo over O(k) (Rao–Blackwellised), or saddle-point importance sampling",
    evaluate=lambda flat, k, n_samples=10_000, rng=None, proposal="haar": _mc_evaluate(flat, k, n_samples, rng, proposal),
    rigorous=False,
    error_kind="one standard error (delta method; a random estimate); inf unless the weights' Pareto k̂ is safely below 0.5",
    domain=_everywhere,
    defaults={"n_samples": 10_000, "rng": None, "proposal": "haar"},
    check_options=_mc_options,
    needs_rng=True,
))


def auto_steps() -> list[tuple[Method, AutoStep]]:
    """Every registered method's auto steps, in rank order."""
    steps = [(m, st) for m in REGISTRY.values() for st in m.auto]
    return sorted(steps, key=lambda ms: ms[1].rank)


def resolve_options(method: Method, options: dict) -> dict:
    """The method's defaults updated by ``options``, validated (ValueError naming unknown options)."""
    unknown = set(options) - set(method.defaults)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for method {method.name!r}; "
                         f"allowed: {sorted(method.defaults) or 'none'}")
    merged = {**method.defaults, **options}
    return method.check_options(merged) if method.check_options is not None else merged

