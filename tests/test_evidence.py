"""The shared evidence builders of symcheck.evidence: a row beyond its tolerance turns a claim to 'fails'."""

from __future__ import annotations

import pytest

from symcheck.evidence import all_of, bound_from_rows, erratum_from_rows, evidence_from_rows


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


def test_tolerance_zero_compares_exactly():
    assert evidence_from_rows([("a", 1.0, 1.0, 0.0)], "x").holds
    assert not evidence_from_rows([("a", 1.0, 1.0 + 1e-16 * 2, 0.0)], "x").holds
    assert bound_from_rows([("a", 0.5, 0.4, 0.0)], "x", "lower", strict=True).holds
    assert not bound_from_rows([("a", 0.4, 0.4, 0.0)], "x", "lower", strict=True).holds


@pytest.mark.parametrize("side, value, holds", [
    ("upper", -0.2, True), ("upper", -0.05, False), ("upper", 0.05, False),
    ("lower", 0.2, True), ("lower", 0.05, False), ("lower", -0.05, False),
])
def test_strict_bound_needs_the_value_beyond_the_bound_by_more_than_the_tolerance(side, value, holds):
    assert bound_from_rows([("a", value, 0.0, 0.1)], "x", side, strict=True).holds is holds


def test_all_of_holds_only_when_every_part_holds_and_reports_the_failing_part():
    ok = evidence_from_rows([("a", 1.0, 1.0, 0.1)], "ok")
    bad = bound_from_rows([("b", 2.0, 0.0, 0.1)], "bad")
    assert all_of([ok, ok], "both").holds
    ev = all_of([ok, bad], "both", corrected=3.0)
    assert not ev.holds and ev.printed == 2.0 and ev.corrected == 3.0
    assert "ok" in ev.detail and "bad" in ev.detail and len(ev.params["parts"]) == 2


@pytest.mark.parametrize("value, tol", [(float("nan"), 1.0), (0.0, float("nan")), (0.5, float("nan"))])
def test_a_nan_value_or_tolerance_fails_in_any_position(value, tol):
    rows = [("ok", 0.0, 0.0, 1.0), ("nan", value, 0.0, tol)]
    assert not evidence_from_rows(rows, "x").holds and not evidence_from_rows(rows[::-1], "x").holds
    assert not bound_from_rows(rows, "x").holds and not bound_from_rows(rows, "x", side="lower", strict=True).holds
