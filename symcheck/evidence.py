"""Seeds, the false-failure budget and the Evidence a check returns: the leaf every check shares.

Nothing here imports the claim registry or any kernel, so tests, report sections and sweeps
draw their seeds and normal quantiles from the same place as the claims
(:mod:`symcheck.claims` re-exports every name).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np
from scipy import stats

__all__ = [
    "BASE_SEED",
    "EPS",
    "Evidence",
    "FALSE_FAILURE_ALPHA",
    "ROUNDING",
    "all_of",
    "bound_from_rows",
    "claim_rng",
    "erratum_from_rows",
    "error_in_ulps",
    "evidence_from_rows",
    "gamma",
    "z_for_alpha",
]

#: Seed from which every claim derives its own stream (with the claim id).
BASE_SEED = 20261122

#: Two-sided false-failure probability allowed per Monte Carlo assertion.
#: With the ~10^2 statistical assertions of the suite, the chance that any
#: one fails by bad luck on a fresh seed is below 1e-3; with the fixed seeds
#: the outcome is reproducible.
FALSE_FAILURE_ALPHA = 1e-5


def z_for_alpha(alpha: float = FALSE_FAILURE_ALPHA, two_sided: bool = True) -> float:
    """Return the normal quantile z with P(|Z| > z) = alpha (or P(Z > z) one-sided).

    With ``alpha = 1e-5`` two-sided this is z = 4.42.
    """
    return float(stats.norm.isf(alpha / 2 if two_sided else alpha))


def claim_rng(claim_id: str, seed: int = BASE_SEED) -> np.random.Generator:
    """Return the reproducible random generator of one claim (seed and CRC32 of its id)."""
    return np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(claim_id.encode())]))


@dataclass(frozen=True)
class Evidence:
    """What a claim's check found.

    Attributes
    ----------
    printed : float
        The value of the printed formula (or of the fast kernel) at the worst input.
    independent : float
        The value of the independent route (brute force, quadrature, mpmath, MC) there.
    tolerance : float
        The derived tolerance the comparison used.
    holds : bool
        For a ``"verify"`` claim: the statement holds. For an ``"erratum"`` claim: the
        printed form fails and the corrected form holds.
    detail : str
        Worst input, parameters, standard errors: what a reader needs to judge.
    params : mapping
        Machine-readable parameters of the evaluation.
    corrected : float or None
        For errata, the corrected form's value at the same input.
    rows : tuple of dict
        Every case compared, not only the worst: the input label (``case``), the values, the
        reference, the tolerance and the error, absolute and in ulps of the reference
        (:func:`error_in_ulps`), so that two runs (commits, platforms) can be compared case by
        case. The keys depend on the builder: see :func:`evidence_from_rows`,
        :func:`erratum_from_rows`, :func:`bound_from_rows`; :func:`all_of` tags each row with the
        index of its ``part``.
    """

    printed: float
    independent: float
    tolerance: float
    holds: bool
    detail: str = ""
    params: Mapping = field(default_factory=dict)
    corrected: float | None = None
    rows: tuple = ()


#: float64 machine epsilon, 2⁻⁵² (the unit roundoff is u = EPS/2).
EPS = np.finfo(float).eps

#: Rounding allowance of one float64 evaluation, relative to the size of its terms: 64·EPS ≈ 1.4e-14.
#:
#: Derivation (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed. (2002), Lemma 3.1 and
#: Sec. 4.2): a sum of n float64 terms, in any order, is off by at most γ_{n−1}·Σ|terms| with
#: γ_m = m·u/(1 − m·u) and u = EPS/2; a product of n terms by γ_{n−1} times its value. The values
#: compared by the checks take at most ~32 terms or chained operations each, so γ ≤ 32u·(1 + 1e-14)
#: ≈ 16·EPS; both routes of a comparison carry such an error (factor 2), and the elementary functions
#: of either route (exp, log, sqrt, lgamma: ≤ 1 ulp per call in numpy/scipy) are covered by a further
#: factor 2: 64·EPS. Multiply it by the size of the terms (Σ|terms|, or the largest |term| times
#: their count) and, for values obtained through a linear solve or a factorisation (backward stable:
#: relative error ~ cond·EPS), by the condition number. It allows for rounding only: truncation,
#: quadrature and Monte Carlo errors are added separately.
ROUNDING = 64 * EPS


def gamma(n: int, unit: float = EPS / 2) -> float:
    """Higham's γₙ = n·u/(1 − n·u): the relative error bound of an n-term product or sum in a format of
    unit roundoff ``unit`` (default float64's u = 2⁻⁵³; Higham 2002, Lemma 3.1)."""
    return n * unit / (1.0 - n * unit)


def error_in_ulps(error, reference) -> float:
    """``|error|`` in units in the last place of ``reference``: ``|error| / spacing(|reference|)``.

    The spacing is numpy's gap between ``|reference|`` and the next float64 (2⁻⁵² relative, ``EPS``
    times the reference's power of two); a reference of 0 counts the error in spacings of the
    smallest normal float64 (a subnormal gap would turn rounding-level errors into ~1e300 ulps).
    NaN in either argument gives NaN.
    """
    error, reference = float(error), float(reference)
    if math.isnan(error) or math.isnan(reference):
        return math.nan
    return abs(error) / float(np.spacing(max(abs(reference), np.finfo(float).tiny)))


def _row(case, **numbers) -> dict:
    """One row of :attr:`Evidence.rows`: the case label and its numbers as floats."""
    return {"case": case, **{k: float(v) for k, v in numbers.items()}}


def _in_tolerances(excess, tolerance) -> float:
    """``excess / tolerance``; a tolerance of 0 asks for exact arithmetic (0 at equality, ±inf otherwise).

    A NaN excess or tolerance (an unresolved value or error bound) counts as +inf: that row fails.
    """
    if math.isnan(excess) or math.isnan(tolerance):
        return math.inf
    if tolerance > 0:
        return excess / tolerance
    return 0.0 if excess == 0 else math.copysign(math.inf, excess)


def evidence_from_rows(rows, what: str, params=None) -> Evidence:
    """Evidence for a verify claim from rows ``(label, value, reference, tolerance)``.

    Holds when every ``|value − reference| ≤ tolerance`` (a tolerance of 0: exactly equal); reports
    the row with the largest ratio of error to tolerance. :attr:`Evidence.rows` keeps every row as
    ``case, value, reference, tolerance, error`` (``|value − reference|``) and ``ulps`` (that error
    in ulps of the reference).
    """
    ratios = [_in_tolerances(abs(v - r), t) for _, v, r, t in rows]
    i = int(np.argmax(ratios))
    label, v, r, t = rows[i]
    detail = (f"{what}; worst case {label}: value {float(v)!r}, independent {float(r)!r}, "
              f"|diff|/tol = {ratios[i]:.3g} over {len(rows)} cases")
    table = tuple(_row(lab, value=v_, reference=r_, tolerance=t_, error=abs(v_ - r_), ulps=error_in_ulps(v_ - r_, r_))
                  for lab, v_, r_, t_ in rows)
    return Evidence(printed=float(v), independent=float(r), tolerance=float(t), holds=bool(max(ratios) <= 1.0),
                    detail=detail, params=dict(params or {}, cases=[row[0] for row in rows]), rows=table)


def erratum_from_rows(rows, what: str, params=None) -> Evidence:
    """Evidence for an erratum from rows ``(label, printed, corrected, reference, tolerance)``.

    Holds when the printed form misses the reference by more than the tolerance in every
    case and the corrected form is within it in every case. Reports the case where the
    corrected form is closest to failing. :attr:`Evidence.rows` keeps every row as ``case, printed,
    corrected, reference, tolerance`` and the errors of both forms, absolute (``error_printed``,
    ``error_corrected``) and in ulps of the reference (``ulps_printed``, ``ulps_corrected``).
    """
    printed_fails = all(abs(p - r) > t for _, p, _, r, t in rows)
    corrected_ratios = [abs(c - r) / t for _, _, c, r, t in rows]
    i = int(np.argmax(corrected_ratios))
    label, p, c, r, t = rows[i]
    pr = min(_in_tolerances(abs(row[1] - row[3]), row[4]) for row in rows)
    detail = (f"{what}; worst case {label}: printed {float(p)!r}, corrected {float(c)!r}, independent {float(r)!r}; "
              f"smallest printed |diff|/tol = {pr:.3g}, largest corrected |diff|/tol = {corrected_ratios[i]:.3g} "
              f"over {len(rows)} cases")
    table = tuple(_row(lab, printed=p_, corrected=c_, reference=r_, tolerance=t_, error_printed=abs(p_ - r_),
                       error_corrected=abs(c_ - r_), ulps_printed=error_in_ulps(p_ - r_, r_),
                       ulps_corrected=error_in_ulps(c_ - r_, r_))
                  for lab, p_, c_, r_, t_ in rows)
    return Evidence(printed=float(p), corrected=float(c), independent=float(r), tolerance=float(t),
                    holds=bool(printed_fails and max(corrected_ratios) <= 1.0), detail=detail,
                    params=dict(params or {}, cases=[row[0] for row in rows]), rows=table)


def bound_from_rows(rows, what: str, side: str = "upper", params=None, strict: bool = False) -> Evidence:
    """Evidence for a one-sided claim from rows ``(label, value, bound, tolerance)``.

    ``side="upper"``: holds when every ``value ≤ bound + tolerance`` (the value may not exceed the
    bound by more than its error); ``side="lower"``: when every ``value ≥ bound − tolerance``.
    ``strict=True`` asks for the conclusive version: every value beyond the bound on the other side
    by more than its error (``value < bound − tolerance``, or ``value > bound + tolerance``), as when
    a claim is that a quantity is smaller, or that a printed bound is violated. A tolerance of 0
    compares exactly. Reports the row closest to violating (largest excess over the bound, in tolerances).
    :attr:`Evidence.rows` keeps every row as ``case, value, bound, tolerance``, ``excess`` (how far
    the value lies beyond the bound on the forbidden side: ``value − bound`` for ``"upper"``,
    ``bound − value`` for ``"lower"``; negative inside) and ``ulps`` (``|value − bound|`` in ulps of
    the bound).
    """
    if side not in ("upper", "lower"):
        raise ValueError(f"side must be 'upper' or 'lower', got {side!r}")
    sign = 1.0 if side == "upper" else -1.0
    excess = [_in_tolerances(sign * (v - b), t) for _, v, b, t in rows]
    i = int(np.argmax(excess))
    label, v, b, t = rows[i]
    relation = {("upper", False): "≤ bound within tolerance", ("lower", False): "≥ bound within tolerance",
                ("upper", True): "< bound by more than tolerance", ("lower", True): "> bound by more than tolerance"}
    holds = max(excess) < -1.0 if strict else max(excess) <= 1.0
    detail = (f"{what}; value {relation[side, strict]}; closest case {label}: value {float(v)!r}, bound "
              f"{float(b)!r}, excess/tol = {excess[i]:.3g} over {len(rows)} cases")
    table = tuple(_row(lab, value=v_, bound=b_, tolerance=t_, excess=sign * (v_ - b_), ulps=error_in_ulps(v_ - b_, b_))
                  for lab, v_, b_, t_ in rows)
    return Evidence(printed=float(v), independent=float(b), tolerance=float(t), holds=bool(holds),
                    detail=detail, params=dict(params or {}, cases=[row[0] for row in rows], side=side, strict=strict),
                    rows=table)


def all_of(parts, what: str, params=None, corrected=None) -> Evidence:
    """Evidence for a compound claim: holds when every part (the Evidence of one condition) holds.

    For conditions of different kinds that cannot share one table of rows — a comparison and a
    one-sided bound, or a printed form that must exceed a reference while the corrected one stays
    within its own tolerance. Reports the numbers of the first part that fails (of the first part
    when all hold); ``corrected`` is the corrected form's value for an erratum. The rows of every
    part are kept, each tagged with the index of its ``part`` (``"1.0"``: part 0 of part 1, when parts nest).
    """
    parts = list(parts)
    failing = [p for p in parts if not p.holds]
    head = (failing or parts)[0]
    return replace(head, holds=not failing, detail=f"{what}: " + " | ".join(p.detail for p in parts),
                   params=dict(params or {}, parts=[dict(p.params) for p in parts]),
                   corrected=head.corrected if corrected is None else float(corrected),
                   rows=tuple(dict(row, part=f"{i}.{row['part']}" if "part" in row else str(i))
                              for i, p in enumerate(parts) for row in p.rows))
