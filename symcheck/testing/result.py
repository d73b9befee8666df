"""The result every checker of :mod:`symcheck.testing` returns: a verdict with its evidence table.

A checker runs a user's function (the *subject*) against symcheck's independent references and
returns a :class:`CheckResult`: one :class:`CheckRow` per region (a range of k, σ and spectrum
shape for a ₀F₁, one statistical test for a sampler, one covariance family for a KL), each with
its own pass/fail and the numbers that decided it. ``bool(result)`` is the verdict,
``result.table()`` the plain-text table ``symcheck verify`` prints, ``result.to_json()`` the
machine-readable form, and ``result.reproducer`` a short script a maintainer can paste into their
issue tracker when the subject fails.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CheckResult", "CheckRow"]


def _cell(value) -> str:
    """One table cell: floats in 3 significant digits, everything else as ``str``."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "NO"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.3g}"
    return str(value)


def _plain(value):
    """``value`` as JSON-serialisable Python (numpy scalars and arrays to floats and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    return value


@dataclass(frozen=True)
class CheckRow:
    """One region or one test of a check.

    Parameters
    ----------
    name : str
        The region (``"k=3..5, σ≤1, spread"``) or the test (``"E[(tr T)^j], j ≤ k"``).
    passed : bool
        Whether the subject meets the criterion on this row.
    values : dict
        The numbers that decided it, in table-column order (e.g. ``n``, ``max error``, ``median
        error``, ``max ulps``, ``worst input``, ``reference``, ``tolerance``; or a statistic, its
        null distribution and p-value).
    """

    name: str
    passed: bool
    values: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one checker on one subject, with the evidence.

    Parameters
    ----------
    kind : str
        What was checked (``"log_hyp0f1"``, ``"haar_sampler"``, ``"kl_gaussian"``, …).
    subject : str
        The subject's name (``module:function`` or its ``repr``).
    rows : tuple of CheckRow
        One row per region or test.
    criterion : str
        What passing means, in one sentence (the tolerance and where it comes from, or the designed
        false-failure rate of a statistical battery).
    reproducer : str or None
        Python source that reproduces the worst failure, when there is one.
    """

    kind: str
    subject: str
    rows: tuple[CheckRow, ...]
    criterion: str
    reproducer: str | None = None

    @property
    def passed(self) -> bool:
        """True when every row passes."""
        return all(row.passed for row in self.rows)

    def __bool__(self) -> bool:
        return self.passed

    @property
    def failures(self) -> tuple[CheckRow, ...]:
        """The rows that fail."""
        return tuple(row for row in self.rows if not row.passed)

    def columns(self) -> list[str]:
        """The value columns of the table, in first-seen order over the rows."""
        seen: dict[str, None] = {}
        for row in self.rows:
            for key in row.values:
                seen.setdefault(key, None)
        return list(seen)

    def table(self) -> str:
        """The evidence as a plain-text table (what ``symcheck verify`` prints)."""
        cols = self.columns()
        header = ["", "pass", *cols]
        body = [[row.name, _cell(bool(row.passed)), *(_cell(row.values.get(c, "")) for c in cols)]
                for row in self.rows]
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        lines = [f"{self.kind} of {self.subject}: {'PASS' if self.passed else 'FAIL'}",
                 f"criterion: {self.criterion}", ""]
        for line in [header, ["-" * w for w in widths], *body]:
            lines.append("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())
        if self.reproducer:
            lines += ["", "reproducer:", *("    " + r for r in self.reproducer.splitlines())]
        return "\n".join(lines)

    def markdown(self) -> str:
        """The evidence table as Markdown (a failing row's mark in bold; ``|`` inside cells escaped)."""
        cols = self.columns()
        lines = ["| row | pass | " + " | ".join(cols) + " |", "|---" * (len(cols) + 2) + "|"]
        for row in self.rows:
            cells = [row.name, "yes" if row.passed else "**NO**", *(_cell(row.values.get(c, "")) for c in cols)]
            lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_json(self) -> dict:
        """The result as JSON-serialisable data (non-finite floats as strings)."""
        return {"kind": self.kind, "subject": self.subject, "passed": self.passed,
                "criterion": self.criterion, "reproducer": self.reproducer,
                "rows": [{"name": r.name, "passed": bool(r.passed), "values": _plain(r.values)}
                         for r in self.rows]}

    def dumps(self) -> str:
        """:meth:`to_json` as a JSON string."""
        return json.dumps(self.to_json(), indent=1)

    def raise_if_failed(self) -> None:
        """Raise ``AssertionError`` naming each failing row and its numbers (for ``assert_*``)."""
        if self.passed:
            return
        lines = [f"{self.kind} of {self.subject} fails ({self.criterion}):"]
        for row in self.failures:
            detail = ", ".join(f"{k}={_cell(v)}" for k, v in row.values.items())
            lines.append(f"  {row.name}: {detail}")
        if self.reproducer:
            lines += ["reproducer:", self.reproducer]
        raise AssertionError("\n".join(lines))
