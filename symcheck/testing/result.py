"""The result every checker of `symcheck.testing` returns: a verdict with its evidence table.

A checker runs a user's function (the *subject*) against symcheck's independent references and
returns a `CheckResult`: one `CheckRow` per region (a range of k, σ and spectrum shape for a ₀F₁,
one statistical test for a sampler, one covariance family for a KL), each with its own pass/fail
and the numbers that decided it. `bool(result)` is the verdict, `result.table()` the plain-text
table `symcheck verify` prints, `result.to_json()` the machine-readable form, and
`result.reproducer` a short script a maintainer can paste into their issue tracker when the
subject fails.

The deterministic checkers compare the subject with a reference input by input; `group_rows`
turns those comparisons into rows (one per region or family, plus a row of the inputs reported
but not judged) and `worst_failure` picks the input the reproducer shows.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["NOT_JUDGED", "CheckResult", "CheckRow", "excess", "group_rows", "worst_failure"]

#: Row name of the inputs that are reported but not judged (extra inputs without a reference to the asked accuracy).
NOT_JUDGED = "not judged"


def _cell(value) -> str:
    """One table cell: floats in 3 significant digits, everything else as `str`."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "NO"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.3g}"
    return str(value)


def _plain(value):
    """`value` as JSON-serialisable Python (numpy scalars and arrays to floats and lists)."""
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
        The region ("k 3–5, σ_max ≤ 1, spread") or the test ("E[(tr T)^j], j ≤ k").
    passed : bool
        Whether the subject meets the criterion on this row.
    values : dict
        The numbers that decided it, in table-column order (e.g. n, max error, median error, max
        ulps, worst input, reference, tolerance; or a statistic, its null distribution and p-value).
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
        What was checked ("log_hyp0f1", "haar_sampler", "kl_gaussian", …).
    subject : str
        The subject's name (module:function, or its repr).
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
        """The evidence as a plain-text table (what `symcheck verify` prints)."""
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
        """The evidence table as Markdown (a failing row's mark in bold; a `|` inside a cell escaped)."""
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
        """`to_json` as a JSON string."""
        return json.dumps(self.to_json(), indent=1)

    def raise_if_failed(self) -> None:
        """Raise AssertionError naming each failing row and its numbers (for the `assert_*` forms)."""
        if self.passed:
            return
        lines = [f"{self.kind} of {self.subject} fails ({self.criterion}):"]
        for row in self.failures:
            detail = ", ".join(f"{k}={_cell(v)}" for k, v in row.values.items())
            lines.append(f"  {row.name}: {detail}")
        if self.reproducer:
            lines += ["reproducer:", self.reproducer]
        raise AssertionError("\n".join(lines))


def excess(error: float, tolerance: float, problem: str = "") -> float:
    """error / tolerance of one input: inf for a subject's problem, or for an error above a zero tolerance."""
    if problem or not math.isfinite(error):
        return math.inf
    if tolerance > 0:
        return error / tolerance
    return 0.0 if error == 0 else math.inf


def worst_failure(errors, tolerances, problems, judged=None) -> int | None:
    """Index of the judged input furthest outside its tolerance, or None when every judged input passes."""
    failing = [i for i, (e, t, p) in enumerate(zip(errors, tolerances, problems))
               if (judged is None or judged[i]) and excess(e, t, p) > 1.0]
    return max(failing, key=lambda i: excess(errors[i], tolerances[i], problems[i])) if failing else None


def group_rows(groups, labels, errors, tolerances, references, values, problems, judged=None) -> tuple[CheckRow, ...]:
    """Rows of a deterministic check from its per-input comparisons.

    Parameters
    ----------
    groups : sequence of str
        Row name of each input (its region or family); rows keep first-seen order.
    labels : sequence of str
        Each input in words (shown as the worst input of its row).
    errors : sequence of float
        |subject − reference| (inf where the subject had a problem).
    tolerances : sequence of float
        The whole allowance of each input (the user's tolerance plus the reference's error).
    references, values : sequence of float
        The reference and the subject's value shown for each input (NaN where there is none).
    problems : sequence of str
        What went wrong in the subject's call ("raised …", "returned NaN"), "" when nothing did.
    judged : sequence of bool, optional
        False for inputs that are reported but not judged (no reference to the asked accuracy);
        they pass, in one row named `NOT_JUDGED` whose columns show how far the subject is from
        the best available reference and how far that reference can be trusted.

    Returns
    -------
    tuple of CheckRow
        Per row: n, max and median error, max ulps (error in units in the last place of the
        reference), failed calls, and at the worst input (largest error / tolerance) the input,
        reference, subject's answer (or its problem) and tolerance.
    """
    judged = [True] * len(groups) if judged is None else list(judged)
    order: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        order.setdefault(g if judged[i] else NOT_JUDGED, []).append(i)
    if NOT_JUDGED in order:  # the unjudged inputs last
        order[NOT_JUDGED] = order.pop(NOT_JUDGED)
    rows = []
    for name, idx in order.items():
        good = np.array([errors[i] for i in idx if not problems[i]], dtype=float)
        worst = max(idx, key=lambda i: excess(errors[i], tolerances[i], problems[i]))
        ulps = [errors[i] / float(np.spacing(abs(references[i]))) for i in idx
                if not problems[i] and math.isfinite(references[i]) and references[i] != 0]
        passed = name == NOT_JUDGED or all(excess(errors[i], tolerances[i], problems[i]) <= 1.0 for i in idx)
        rows.append(CheckRow(name, passed, {
            "n": len(idx), "max error": float(good.max()) if good.size else math.nan,
            "median error": float(np.median(good)) if good.size else math.nan,
            "max ulps": max(ulps, default=math.nan), "failed calls": sum(bool(problems[i]) for i in idx),
            "worst input": labels[worst], "reference": references[worst],
            "subject": problems[worst] or values[worst],
            ("reference error" if name == NOT_JUDGED else "tolerance"): tolerances[worst]}))
    return tuple(rows)
