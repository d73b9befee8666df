"""The "₀F₁ to 1e-10" report section judges rows by a second route, and can fail.

A planted error of 1e-8 in auto's value (well above the goal, below what a coarse check sees)
must turn a verified row into a disagreement; an honest row stays verified.
"""

import numpy as np

import symcheck

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
    assert not row["goal_met"] and "holonomic: auto runs it only for k ≤ 8" in row["why"] and row["warned"]
    assert "series: the series needs degree" in row["why"]


def test_monte_carlo_runs_the_proposal_the_pilot_finds_sharper(monkeypatch):
    # Equal small σ: Haar draws have ~70× the saddle proposal's precision; spread σ ≥ 10: the reverse
    # (measured at 20 000 draws: SE 9e-5 vs 6e-3, and 0.86 vs 1e-3). Both proposals are run at full size
    # here as the independent route to which is sharper.
    from symcheck.hyp0f1.montecarlo import log_hyp0f1_mc

    for sig, k in ((np.full(8, 1.0), 8), (np.linspace(50.0, 10.0, 8), 8)):
        full = {p: float(log_hyp0f1_mc(sig, k, hyp0f1_goal.MC_SAMPLES, np.random.default_rng(1), proposal=p)[1])
                for p in ("haar", "saddle")}
        sharper = "Haar" if full["haar"] < full["saddle"] else "saddle-point"
        assert hyp0f1_goal._monte_carlo(sig, k, 5)[2].startswith(sharper)
    # planted: a pilot that ranks by the larger standard error picks the blunter proposal
    real = hyp0f1_goal.log_hyp0f1_mc

    def inverted(sig, k, n, rng, proposal, return_khat=False):
        v, se, *khat = real(sig, k, n, rng, proposal=proposal, return_khat=return_khat)
        return (v, (1.0 / se if n == hyp0f1_goal.MC_PILOT else se), *khat)

    monkeypatch.setattr(hyp0f1_goal, "log_hyp0f1_mc", inverted)
    assert hyp0f1_goal._monte_carlo(np.full(8, 1.0), 8, 5)[2].startswith("saddle-point")


def test_a_row_reuses_what_auto_tried(monkeypatch):
    # k = 16, 7 spread σ from 1e4 to 1e3, one 0.5 and 8 zeros: auto runs the holonomic method to its budget
    # (~3 s) and answers otherwise (the formal series with the 0.5 deflated); the row's "why not" reads the
    # holonomic outcome from auto's attempts instead of running it again, and the row is the same as with every
    # route run again. (The goal grid's rank-deficient σ_max = 1e4 row, used here before, is now met by the
    # formal series.)
    import contextlib

    from symcheck.hyp0f1 import holonomic

    sig = np.r_[1e4 * np.geomspace(1, 0.1, 7), 0.5, np.zeros(8)]
    real, calls = holonomic.log_hyp0f1_holonomic, []

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(holonomic, "log_hyp0f1_holonomic", counting)
    shared = hyp0f1_goal.goal_row({"sigma": sig.tolist(), "k": 16, "shape": "rank-deficient"})
    assert len(calls) == 1 and shared["method"] != "holonomic" and "holonomic" in shared["why"]
    monkeypatch.setattr(hyp0f1_goal, "auto_attempts", lambda: contextlib.nullcontext({}))  # planted: nothing shared
    again = hyp0f1_goal.goal_row({"sigma": sig.tolist(), "k": 16, "shape": "rank-deficient"})
    assert len(calls) == 3
    assert {k: v for k, v in shared.items() if k != "seconds"} == {k: v for k, v in again.items() if k != "seconds"}


def test_auto_attempts_records_each_step_per_row():
    # Two rows: the first reached by the series, the second (σ = 1000) by no series step (its degree bound
    # refuses), so it goes on to later steps; each recorded value is what that method returns on its own.
    from symcheck.hyp0f1 import methods

    flat = np.array([[2.0, 1.0, 0.5], [1000.0, 500.0, 100.0]])
    with api.auto_attempts() as log:
        api.log_hyp0f1(flat, 3)
    steps = list(methods.auto_steps())
    assert log and {r for _, r in log} == {0, 1}
    for (i, r), outcome in log.items():
        m, step = steps[i]
        if outcome[0] == "value":
            v, e = m.evaluate(flat[r:r + 1], 3, **methods.resolve_options(m, step.options))
            assert (outcome[1], outcome[2]) == (float(v[0]), float(e[0]))
    with api.auto_attempts() as outer:
        pass
    api.log_hyp0f1(flat, 3)
    assert outer == {}  # nothing is collected outside the block


def test_monte_carlo_with_a_heavy_tail_is_not_a_second_route(monkeypatch):
    """Rank-deficient k = 20, σ_max = 100: the Haar weights' tail index is far above 0.5 and the row says
    that no Monte Carlo is reliable. Planted (the k̂ guard off): the Haar estimate comes back > 50 nats below
    the holonomic value (two integrators agree on it to 1e-9) with 4 standard errors under 5 — a false figure."""
    sig = hyp0f1_goal._shapes(20, 100.0)["rank-deficient"]
    assert hyp0f1_goal._monte_carlo(sig, 20, 5).startswith("no reliable Monte Carlo")
    monkeypatch.setattr(hyp0f1_goal, "khat_trusted", lambda khat, n: not np.isnan(khat))  # planted: any tail
    value, four_se, name = hyp0f1_goal._monte_carlo(sig, 20, 5)
    assert name.startswith("Haar") and four_se < 5.0
    holonomic_value = float(symcheck.log_hyp0f1(sig, 20, method="holonomic", work=1e9))
    assert holonomic_value - value > 50.0


def test_the_slow_mpmath_series_verifies_what_no_cheaper_route_reaches(monkeypatch):
    """k = 5, two loose clusters at σ_max = 7 (0.5 % apart inside each; not a grid row): auto's series meets the
    goal with its proven bound, but no registered method other than the series reaches it (the confluent route's
    remainder for the cluster of two is 1e-8 there; k = 8, σ_max = 3, this test's row before 2026-11-29, is now
    verified by it), and the cheap mpmath series stops at MP_SERIES_MAX_PARTITIONS (34 412 partitions needed). The
    slow mpmath series (20 digits, no float64 code) verifies it; planted without it, the row is only checked by Monte
    Carlo, never verified."""
    sig = hyp0f1_goal._shapes(5, 7.0)["loose clusters"]
    row = hyp0f1_goal.goal_row({"sigma": sig.tolist(), "k": 5, "shape": "loose clusters"})
    assert row["check"] == "mpmath series (20 digits)" and row["verdict"] == "verified"
    monkeypatch.setattr(hyp0f1_goal, "MP_SERIES_SLOW_PARTITIONS", hyp0f1_goal.MP_SERIES_MAX_PARTITIONS)
    monkeypatch.setattr(hyp0f1_goal, "_monte_carlo", lambda sig, k, seed: None)
    monkeypatch.setattr(hyp0f1_goal, "_registered_routes", lambda steps, method: iter(()))  # none reached it
    row = hyp0f1_goal.goal_row({"sigma": sig.tolist(), "k": 5, "shape": "loose clusters"})
    assert row["verdict"] != "verified"


def test_random_inputs_are_what_the_section_says():
    """The random spectra: the four shapes in turn, k in 3…k_max, σ sorted decreasingly with the largest = σ_max in
    [0.3, 3000], m = k except the rank-deficient (1 ≤ m < k), exact ties in "clusters", near clusters within 1 %
    (relative) of a tie; the same seed gives the same inputs and another seed others."""
    rows = hyp0f1_goal._random_inputs(40, 99, 20)
    assert rows == hyp0f1_goal._random_inputs(40, 99, 20) and rows != hyp0f1_goal._random_inputs(40, 98, 20)
    for i, row in enumerate(rows):
        sig, k = np.array(row["sigma"]), row["k"]
        m = np.count_nonzero(sig)
        assert row["shape"] == hyp0f1_goal.RANDOM_SHAPES[i % 4] and 3 <= k <= 20 and sig.size == k
        assert np.all(np.diff(sig) <= 0) and 0.3 <= sig[0] <= 3000.0
        assert (1 <= m < k) if row["shape"] == "rank-deficient" else m == k
        if row["shape"] == "clusters":
            assert np.unique(sig).size < k or k <= 5  # 1–5 clusters: some value repeats once k > 5
        if row["shape"] == "near clusters" and np.unique(sig).size == k and k > 5:
            gaps = -np.diff(sig) / sig[:-1]
            assert gaps.min() <= 2.1e-2  # two members of one cluster, each moved by at most 1 %
