"""The shared evidence builders of symcheck.evidence: a row beyond its tolerance turns a claim to 'fails'."""

from __future__ import annotations

import pytest

from symcheck.evidence import bound_from_rows, erratum_from_rows, evidence_from_rows


def test_evidence_from_rows_holds_within_and_fails_beyond_tolerance():
    rows = [("a", 1.0, 1.0 + 1e-3, 2e-3), ("b", 2.0, 2.0, 1e-12)]
    ev = evidence_from_rows(rows, "x")
    assert ev.holds and ev.params["cases"] == ["a", "b"] and "worst case a" in ev.detail
    assert not evidence_from_rows(rows + [("c", 3.0, 3.1, 0.05)], "x").holds


def test_erratum_needs_printed_wrong_and_corrected_right_everywhere():
    assert erratum_from_rows([("a", 2.0, 1.0, 1.0, 0.1)], "x").holds
    assert not erratum_from_rows([("a", 2.0, 1.0, 1.0, 0.1), ("b", 1.0, 1.0, 1.0, 0.1)], "x").holds  # printed right at b
    assert not erratum_from_rows([("a", 2.0, 1.5, 1.0, 0.1)], "x").holds  # corrected wrong


@pytest.mark.parametrize("side, values, holds", [
    ("upper", [-1.0, 0.05], True), ("upper", [-1.0, 0.2], False),
    ("lower", [1.0, -0.05], True), ("lower", [1.0, -0.2], False),
])
def test_bound_from_rows_is_one_sided(side, values, holds):
    ev = bound_from_rows([(f"r{i}", v, 0.0, 0.1) for i, v in enumerate(values)], "x", side)
    assert ev.holds is holds
    assert ev.printed == values[1]  # the row closest to violating the bound is reported


def test_bound_from_rows_refuses_an_unknown_side():
    with pytest.raises(ValueError, match="side"):
        bound_from_rows([("a", 0.0, 0.0, 1.0)], "x", "both")
