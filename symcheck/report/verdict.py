"""One-line verdicts of claim results, derived from the recorded evidence (never hand-written).

A result is the JSON form of :class:`symcheck.claims.ClaimResult` (``ClaimResult.to_json()``,
as in ``claims.json``): ``status``, ``printed``, ``corrected``, ``independent`` and
``tolerance`` at the case the check reports. Non-finite numbers arrive as the strings
``"inf"``, ``"-inf"`` or ``"nan"``.

Where the reported values are an equality test (|value − independent| against the tolerance)
the verdict states by how much each form misses. One-sided checks (``bound_from_rows``: the
result's ``params`` carry ``side`` and ``strict``) are stated as inequalities with their margin
in tolerances; a compound check (``all_of``: ``params["parts"]``) is stated by its reported part
and the number of conditions. Where the reported numbers still do not show the verdict by
themselves, the line says so instead of pretending they do.
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


def _bound(name: str, value: float, bound: float, tol: float, side: str, strict: bool) -> tuple[bool, str]:
    """Whether ``value`` satisfies the one-sided relation of ``bound_from_rows`` and the phrase saying so."""
    over = (value - bound) if side == "upper" else (bound - value)  # > 0: on the wrong side of the bound
    if math.isnan(over):
        return False, f"{name} {fmt(value)} vs bound {fmt(bound)}: not comparable"
    ratio = over / tol if tol > 0 else (0.0 if over == 0 else math.copysign(math.inf, over))

    def in_tol(r: float) -> str:
        return "exact comparison" if tol == 0 else f"{abs(r):.2g}× tol"

    sym = ("<" if side == "upper" else ">") if strict else ("≤" if side == "upper" else "≥")
    if strict:
        if ratio < -1:
            return True, f"{name} {fmt(value)} {sym} bound {fmt(bound)} by {-over:.2g} ({in_tol(ratio)})"
        if over >= 0:
            return False, f"{name} {fmt(value)} not {sym} bound {fmt(bound)} ({over:.2g} on the wrong side)"
        return False, f"{name} {fmt(value)} not {sym} bound {fmt(bound)} by more than tol (margin {-over:.2g}, " \
                      f"{in_tol(ratio)})"
    if ratio <= 0:
        return True, f"{name} {fmt(value)} {sym} bound {fmt(bound)} (margin {-over:.2g}, {in_tol(ratio)})"
    if ratio <= 1:
        return True, f"{name} {fmt(value)} {sym} bound {fmt(bound)} within tol (over by {over:.2g}, {in_tol(ratio)})"
    return False, f"{name} {fmt(value)} beyond bound {fmt(bound)} by {over:.2g} ({in_tol(ratio)})"


def _one_sided(result: Mapping, p: float, i: float, c: float, tol: float) -> str | None:
    """Verdict of a bound or compound claim from its ``params``, or None for an equality check."""
    params = result.get("params") or {}
    parts = params.get("parts")
    head = parts[0] if parts else params
    if "side" not in head:
        return None
    ok, phrase = _bound("printed" if result.get("kind") == "erratum" else "value", p, i, tol,
                        head["side"], bool(head.get("strict")))
    extra = f"; {len(parts)} conditions in all" if parts else ""
    if result.get("kind") == "erratum" and math.isfinite(c):
        extra = f"; corrected {fmt(c)}" + extra
    status = result["status"]
    if status in ("holds", "erratum") and ok:
        return phrase + extra + (" (each holds: see evidence)" if parts else "")
    if status == "fails":
        return "FAILS: " + phrase + extra + (" (the first failing condition)" if parts and not ok else "")
    return None


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
    one_sided = _one_sided(result, p, i, c, tol)
    if one_sided is not None:
        return one_sided
    _, rp = _miss(p, i, tol)
    _, rc = _miss(c, i, tol)
    if status == "erratum":
        if rp > 1 and rc <= 1:
            return f"{_misses_by('printed', p, i, tol)}; corrected within tol ({rc:.2g}× tol)"
        parts = (result.get("params") or {}).get("parts")
        if parts and rp <= 1:  # a printed *statement* refuted by conditions that hold (e.g. "unlike …")
            d, _ = _miss(p, i, tol)
            return (f"the printed statement is contradicted by {len(parts)} conditions that hold; the first agrees "
                    f"within tol (|diff| = {d:.2g}, {rp:.2g}× tol; each holds: see evidence)")
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
