"""The "₀F₁ to 1e-10" report section judges rows by a second route, and can fail.

A planted error of 1e-8 in auto's value (well above the goal, below what a coarse check sees)
must turn a verified row into a disagreement; an honest row stays verified.
"""

import numpy as np

from symcheck.hyp0f1 import api
from symcheck.report.sections import hyp0f1_goal


def _row(sig, k):
    return hyp0f1_goal.goal_row({"sigma": sig.tolist(), "k": k, "shape": "spread"})


def test_honest_rows_are_verified_by_a_different_route():
    for sig, k in ((np.array([4.0, 2.5, 1.0]), 3), (np.array([40.0, 25.0, 10.0]), 3), (np.array([3.0, 1.0]), 2)):
        row = _row(sig, k)
        assert row["verdict"] == "verified" and row["check"] not in ("none", row["method"])


def test_a_planted_error_is_a_disagreement(monkeypatch):
    def off(sigma, k, **kw):
        value, err, info = api.log_hyp0f1(sigma, k, **kw)
        return value + 1e-8, err, info

    monkeypatch.setattr(hyp0f1_goal, "log_hyp0f1", off)
    row = _row(np.array([4.0, 2.5, 1.0]), 3)
    assert row["verdict"] == "DISAGREES"


def test_rows_beyond_reach_say_why():
    row = _row(np.linspace(30.0, 10.0, 12), 12)
    assert not row["goal_met"] and "holonomic: auto runs it only for at most" in row["why"] and row["warned"]
    assert "series: the series needs degree" in row["why"]
