"""One-line verdicts of claim results, derived from the recorded evidence (never hand-written).

A result is the JSON form of :class:`symcheck.claims.ClaimResult` (``ClaimResult.to_json()``,
as in ``claims.json``): ``status``, ``printed``, ``corrected``, ``independent`` and
``tolerance`` at the case the check reports. Non-finite numbers arrive as the strings
``"inf"``, ``"-inf"`` or ``"nan"``.

Where the reported values are an equality test (|value − independent| against the tolerance)
the verdict states by how much each form misses. Some checks are inequalities (a bound) or
report a different worst case than the one that decides; the numbers then do not show the
verdict by themselves, and the line says so instead of pretending they do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["fmt", "number", "verdict"]


def number(value) -> float:
    """Return a recorded value as a float (``None`` → NaN; ``"inf"``, ``"nan"`` strings parsed)."""
    if value is None:
        return math.nan
    return float(value)


def fmt(value, digits: int = 4) -> str:
    """Format a recorded value compactly (``digits`` significant figures; blank for ``None``)."""
    if value is None:
        return ""
    x = number(value)
    return f"{x:.{digits}g}" if math.isfinite(x) else str(x)


def _miss(value: float, independent: float, tol: float) -> tuple[float, float]:
    """|value − independent| and its ratio to the tolerance (inf where not finite)."""
    d = abs(value - independent)
    if not math.isfinite(d):
        return math.inf, math.inf
    return d, (d / tol if tol > 0 else (0.0 if d == 0 else math.inf))


def _misses_by(name: str, value: float, independent: float, tol: float) -> str:
    if not math.isfinite(value):
        return f"{name} form gives {value}"
    d, ratio = _miss(value, independent, tol)
    return f"{name} misses by {d:.2g} ({ratio:.2g}× tol)"


def verdict(result: Mapping) -> str:
    """Return the one-line verdict of a claim result.

    Parameters
    ----------
    result : mapping
        ``ClaimResult.to_json()`` of one claim.

    Returns
    -------
    str
        E.g. ``"printed misses by 0.056 (5.5e+05× tol); corrected within tol (0.0062× tol)"``
        for an erratum, ``"agrees within tol (|diff| = 3e-16, 0.02× tol)"`` for a claim that holds.
    """
    status = result["status"]
    p, i = number(result["printed"]), number(result["independent"])
    c, tol = number(result.get("corrected")), number(result["tolerance"])
    _, rp = _miss(p, i, tol)
    _, rc = _miss(c, i, tol)
    if status == "erratum":
        if rp > 1 and rc <= 1:
            return f"{_misses_by('printed', p, i, tol)}; corrected within tol ({rc:.2g}× tol)"
        return (f"printed fails, corrected holds; not |diff| ≤ tol at the reported case (printed {fmt(p)}, "
                f"corrected {fmt(c)}, independent {fmt(i)}): see evidence")
    if status == "holds":
        if rp <= 1:
            d, _ = _miss(p, i, tol)
            return f"agrees within tol (|diff| = {d:.2g}, {rp:.2g}× tol)"
        return (f"holds; not |diff| ≤ tol at the reported case (value {fmt(p)}, independent {fmt(i)}): "
                "see evidence")
    if result.get("kind") == "erratum":
        why = "printed form agrees" if rp <= 1 else "corrected form misses"
        return f"FAILS: {why} ({_misses_by('printed', p, i, tol)}; corrected {rc:.2g}× tol)"
    return f"FAILS: {_misses_by('value', p, i, tol)}"
