"""The shared evidence builders of symcheck.evidence: a row beyond its tolerance turns a claim to 'fails'."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from symcheck.evidence import EPS, ROUNDING, all_of, bound_from_rows, erratum_from_rows, error_in_ulps, evidence_from_rows


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


# ----- every row is kept (claims.json can be compared case by case) -------------------------------

def test_error_in_ulps_counts_float64_spacings():
    assert error_in_ulps(0.0, 1.0) == 0.0
    assert error_in_ulps(np.spacing(1.0), 1.0) == 1.0
    assert error_in_ulps(-3 * np.spacing(1024.0), 1024.0) == 3.0  # absolute value, spacing of the reference
    assert error_in_ulps(2.0 ** -1022, 0.0) == 2.0 ** 52  # reference 0: spacings of the smallest normal
    assert np.isnan(error_in_ulps(np.nan, 1.0)) and np.isnan(error_in_ulps(1.0, np.nan))


def test_evidence_from_rows_keeps_every_row_with_its_error_in_ulps():
    one = 1.0 + np.spacing(1.0)
    ev = evidence_from_rows([("a", one, 1.0, 1e-12), ("b", 2.5, 2.0, 1.0), ("c", 4.0, 4.0, 0.0)], "x")
    assert [r["case"] for r in ev.rows] == ["a", "b", "c"]
    a, b, c = ev.rows
    assert a == {"case": "a", "value": one, "reference": 1.0, "tolerance": 1e-12, "error": np.spacing(1.0), "ulps": 1.0}
    assert b["error"] == 0.5 and b["ulps"] == 0.5 / np.spacing(2.0)
    assert c["error"] == 0.0 and c["ulps"] == 0.0
    assert ev.printed == 2.5  # the worst row (largest error / tolerance) is still the summary


def test_erratum_and_bound_rows_carry_both_errors():
    ev = erratum_from_rows([("a", 2.0, 1.0 + np.spacing(1.0), 1.0, 0.1), ("b", 3.0, 2.0, 2.0, 0.1)], "x")
    a, b = ev.rows
    assert a["error_printed"] == 1.0 and a["ulps_corrected"] == 1.0 and a["printed"] == 2.0
    assert b["error_corrected"] == 0.0 and b["ulps_printed"] == 1.0 / np.spacing(2.0)
    lo = bound_from_rows([("a", 0.5, 1.0, 0.1), ("b", 2.0, 1.0, 0.1)], "x", side="lower")
    assert [r["excess"] for r in lo.rows] == [0.5, -1.0]  # positive: beyond the bound on the forbidden side
    up = bound_from_rows([("a", 0.5, 1.0, 0.1)], "x", side="upper")
    assert up.rows[0]["excess"] == -0.5 and up.rows[0]["bound"] == 1.0


def test_all_of_keeps_the_rows_of_every_part_tagged_with_the_part():
    ok = evidence_from_rows([("a", 1.0, 1.0, 0.1), ("b", 2.0, 2.0, 0.1)], "ok")
    bad = bound_from_rows([("c", 2.0, 0.0, 0.1)], "bad")
    ev = all_of([ok, bad], "both")
    assert [(r["case"], r["part"]) for r in ev.rows] == [("a", "0"), ("b", "0"), ("c", "1")]
    nested = all_of([ok, ev], "nested")
    assert [r["part"] for r in nested.rows] == ["0", "0", "1.0", "1.0", "1.1"]


def test_a_replaced_detail_keeps_the_rows():
    ev = evidence_from_rows([("a", 1.0, 1.0, 0.1)], "x")
    assert replace(ev, detail="more").rows == ev.rows


def test_claims_json_holds_every_row_of_a_claim_and_two_runs_compare_case_by_case():
    """A claim's JSON result lists every case; a planted error in one case shows in that case only."""
    import symcheck.claims as claims_pkg

    cases = [(f"n={n}", float(n) * (1 + 1e-16), float(n), 8 * EPS * n) for n in range(1, 6)]

    def check(rng, shift=0.0):
        return evidence_from_rows([(lab, v + (shift if lab == "n=3" else 0.0), r, t) for lab, v, r, t in cases], "demo")

    claim = claims_pkg.Claim(id="demo.rows", source="test", statement="demo", check=check)
    first = json.loads(json.dumps(claim.run().to_json()))
    assert [r["case"] for r in first["rows"]] == [c[0] for c in cases]
    assert set(first["rows"][0]) == {"case", "value", "reference", "tolerance", "error", "ulps"}
    bugged = claims_pkg.Claim(id="demo.rows", source="test", statement="demo",
                              check=lambda rng: check(rng, shift=1e-9)).run().to_json()
    changed = [a["case"] for a, b in zip(first["rows"], bugged["rows"]) if a != b]
    assert changed == ["n=3"] and bugged["status"] == "fails"


def test_rounding_allowance_covers_its_derivation():
    """ROUNDING/4 = 16·eps ≥ γ₃₁ (Higham, Lemma 3.1): a 32-term float64 sum, in any order, is within
    ROUNDING/4 · Σ|terms| of the exact sum (math.fsum); ROUNDING keeps the factor 4 for both routes
    and elementary functions. Planted: an allowance of eps/16 · Σ|terms| (far below γ₃₁) is exceeded
    by some of the same sums, so the comparison can fail."""
    gamma31 = 31 * (EPS / 2) / (1 - 31 * EPS / 2)
    assert ROUNDING / EPS == 64 and gamma31 <= ROUNDING / 4
    rng = np.random.default_rng(20261122)
    worst, too_small = 0.0, 0
    for _ in range(2000):
        x = rng.standard_normal(32) * 10.0 ** rng.uniform(-3, 3, 32)
        err = abs(float(np.cumsum(x)[-1]) - math.fsum(x)) / float(np.sum(np.abs(x)))  # recursive summation
        worst = max(worst, err)
        too_small += err > EPS / 16
    assert worst <= ROUNDING / 4
    assert too_small > 0  # the check can fail: a smaller allowance is violated by some sums
