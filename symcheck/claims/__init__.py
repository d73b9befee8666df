"""Claims: every equation, bound, estimator property and paper figure the suite checks.

A :class:`Claim` names its source (paper and equation), states in one sentence what
must hold, and carries a ``check`` that computes the claim by two routes and
returns :class:`Evidence`: the printed (or fast) value, the independent value, and a
tolerance derived from an error estimate. Tests, the report and the benchmarks are
readers of the same registry, so nothing about a formula is written twice.

Two kinds of claim exist:

``"verify"``
    The statement is expected to hold. Status ``"holds"`` if the evidence says so,
    ``"fails"`` otherwise.
``"erratum"``
    The statement is that a *printed* formula is wrong and a *corrected* one is right.
    The check returns ``holds=True`` when the printed form fails and the corrected
    form holds; the status is then ``"erratum"``, otherwise ``"fails"``.

Claims live in the modules of this package (one per paper or paper part); each
module calls :func:`register` at import time, and :func:`all_claims` imports every
module of the package before returning the registry.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from symcheck.evidence import (
    BASE_SEED,
    EPS,
    FALSE_FAILURE_ALPHA,
    Evidence,
    all_of,
    bound_from_rows,
    claim_rng,
    erratum_from_rows,
    evidence_from_rows,
    z_for_alpha,
)

__all__ = [
    "BASE_SEED",
    "all_of",
    "bound_from_rows",
    "erratum_from_rows",
    "evidence_from_rows",
    "Claim",
    "ClaimResult",
    "Evidence",
    "FALSE_FAILURE_ALPHA",
    "all_claims",
    "claim_rng",
    "get_claim",
    "register",
    "z_for_alpha",
]

@dataclass(frozen=True)
class ClaimResult:
    """A claim's outcome as written to ``reports/claims.json``.

    ``printed``, ``independent``, ``corrected`` and ``tolerance`` are the numbers of the worst case
    (the one-line summary of the report); ``rows`` holds every case compared
    (:attr:`symcheck.evidence.Evidence.rows`: input, values, reference, tolerance, error and error in
    ulps), so that two runs can be compared case by case.
    """

    id: str
    source: str
    statement: str
    kind: str
    status: str
    printed: float
    independent: float
    corrected: float | None
    tolerance: float
    detail: str
    params: dict
    printed_form: str
    corrected_form: str
    seconds: float
    rows: list = field(default_factory=list)

    def to_json(self) -> dict:
        """Return a JSON-serialisable dict (non-finite floats become strings)."""

        def clean(v):
            if isinstance(v, (float, np.floating)):
                v = float(v)
                return v if math.isfinite(v) else repr(v)
            if isinstance(v, (np.integer,)):
                return int(v)
            if isinstance(v, np.ndarray):
                return [clean(x) for x in v.tolist()]
            if isinstance(v, (list, tuple)):
                return [clean(x) for x in v]
            if isinstance(v, dict):
                return {str(a): clean(b) for a, b in v.items()}
            if isinstance(v, (np.bool_,)):
                return bool(v)
            return v

        return clean(asdict(self))


@dataclass(frozen=True)
class Claim:
    """One checkable statement from a paper (or about a kernel).

    Attributes
    ----------
    id : str
        Stable dotted identifier, e.g. ``"moore.eq7.yhat"``.
    source : str
        Paper and equation, e.g. ``"Moore (2016), App. A, eq. (7)"``.
    statement : str
        One sentence a reader understands.
    check : callable
        ``check(rng) -> Evidence``.
    kind : str
        ``"verify"`` or ``"erratum"``.
    printed_form, corrected_form : str
        For errata: the formula as printed and as corrected (LaTeX or plain text).
    """

    id: str
    source: str
    statement: str
    check: Callable[[np.random.Generator], Evidence]
    kind: str = "verify"
    printed_form: str = ""
    corrected_form: str = ""

    def __post_init__(self):
        if self.kind not in ("verify", "erratum"):
            raise ValueError(f"kind must be 'verify' or 'erratum', got {self.kind!r}")

    def run(self, seed: int = BASE_SEED) -> ClaimResult:
        """Run the check with the claim's own seeded generator and return its result."""
        t0 = time.perf_counter()
        ev = self.check(claim_rng(self.id, seed))
        seconds = time.perf_counter() - t0
        if self.kind == "verify":
            status = "holds" if ev.holds else "fails"
        else:
            status = "erratum" if ev.holds else "fails"
        return ClaimResult(
            id=self.id,
            source=self.source,
            statement=self.statement,
            kind=self.kind,
            status=status,
            printed=float(ev.printed),
            independent=float(ev.independent),
            corrected=None if ev.corrected is None else float(ev.corrected),
            tolerance=float(ev.tolerance),
            detail=ev.detail,
            params=dict(ev.params),
            printed_form=self.printed_form,
            corrected_form=self.corrected_form,
            seconds=seconds,
            rows=[dict(row) for row in ev.rows],
        )


_REGISTRY: dict[str, Claim] = {}


def register(claim: Claim) -> Claim:
    """Add ``claim`` to the registry; ids must be unique."""
    if claim.id in _REGISTRY and _REGISTRY[claim.id] is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    _REGISTRY[claim.id] = claim
    return claim


def _import_all() -> None:
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


def all_claims() -> list[Claim]:
    """Import every claim module and return all claims, sorted by id."""
    _import_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def get_claim(claim_id: str) -> Claim:
    """Return the claim with id ``claim_id``."""
    _import_all()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim id {claim_id!r}") from None
