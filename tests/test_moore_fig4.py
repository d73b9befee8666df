"""Moore Fig. 4 as a cached report task (symcheck/experiments/moore_fig4.py) and the section's verdicts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from symcheck.experiments import moore_fig4
from symcheck.models import moore_mf
from symcheck.report.sections import moore_experiments

ARGS = {"n": 8, "k": 2, "sigma_n": 1.0, "variants": [["corrected", "exact"], ["printed", "laplace"]],
        "measure_0f1": True}


@pytest.fixture(scope="module")
def result():
    return moore_fig4.fit_matrix(ARGS, np.random.default_rng(4))


def test_fit_matrix_returns_json_values_and_is_deterministic(result):
    assert json.loads(json.dumps(result)) == result
    again = moore_fig4.fit_matrix(ARGS, np.random.default_rng(4))
    assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in result.items() if k != "seconds"}


def test_fit_matrix_has_every_method(result):
    names = {"MAP", "MFVI (Nakajima)", "isotropic MFVI", "SymVI corrected (exact)", "SymVI printed (laplace)"}
    assert set(result["errors"]) == names and set(result["spectra"]) == names
    assert set(result["offsets"]) == {"SymVI printed (laplace)"}  # exact needs no offset
    assert all(len(v) == 3 and 0 <= v[2] <= 1 for v in result["offsets"].values())  # mean, SE, share trusted
    assert all(len(sv) == 2 for sv in result["spectra"].values())


def test_fit_matrix_errors_are_the_recomputed_errors(result):
    """The recorded MAP and MFVI errors are those of the closed forms on the same drawn problem."""
    p, truth = moore_mf.sample_problem(8, 8, 2, 1.0, np.random.default_rng(4))
    assert result["errors"]["MAP"] == moore_mf.reconstruction_error(moore_mf.map_closed_form(p), truth)
    assert result["errors"]["MFVI (Nakajima)"] == moore_mf.reconstruction_error(moore_mf.nakajima_vb(p)[0], truth)


@pytest.mark.parametrize("bad, name", [({"k": 0}, "k"), ({"n": -1}, "n"), ({"sigma_n": math.nan}, "sigma_n"),
                                       ({"variants": [["sideways", "exact"]]}, "form"),
                                       ({"variants": [["corrected", "mc"]]}, "method")])
def test_bad_arguments_name_the_argument(bad, name):
    with pytest.raises(ValueError, match=name):
        moore_fig4.fit_matrix(dict(ARGS, **bad), np.random.default_rng(0))


def test_verdict_resolves_a_shift_and_not_noise():
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(40)
    assert moore_experiments._sig(noise - 1.0) == "better"
    assert moore_experiments._sig(noise + 1.0) == "worse"
    assert moore_experiments._sig(noise - noise.mean()) == "no resolved difference"
    assert moore_experiments._sig([np.nan, -1.0]) == "single matrix"  # NaN pairs (refused fits) are skipped


@pytest.fixture
def shared(monkeypatch):
    """The report's configurations plus a second one on the first 12 of Moore's-size matrices (same n, k, σ_n)
    with variants of its own, as the report had when only those 12 had asymptotic fits."""
    moore = [c for c in moore_experiments.CONFIGS if c[2] == 20][0]
    few = ("first 12", *moore[1:4], 12, 0, (("corrected", "asymptotic, order 2"), ("printed", "exact")))
    monkeypatch.setattr(moore_experiments, "CONFIGS", moore_experiments.CONFIGS + (few,))
    return moore, few


def test_fig4_tasks_keep_earlier_matrices_when_counts_grow(monkeypatch, shared):
    """Seeds are spawned per matrix index: a larger count keeps the first tasks' matrices, and their arguments
    (and cache keys) unless a matrix newly falls in a second configuration sharing it, which appends that
    configuration's variants (matrices 12-14 of Moore's size here)."""
    few = moore_experiments.fig4_tasks(7, quick=False)
    more_configs = tuple(c[:4] + (c[4] + 3,) + c[5:] for c in moore_experiments.CONFIGS)
    monkeypatch.setattr(moore_experiments, "CONFIGS", more_configs)
    more = moore_experiments.fig4_tasks(7, quick=False)
    gained = 0
    for (_, a), (_, b) in zip(few, more):
        assert len(b) == len(a) + 3
        assert all(x.seed.spawn_key == y.seed.spawn_key and x.seed.entropy == y.seed.entropy for x, y in zip(a, b))
        for x, y in zip(a, b):
            old, new = x.args["variants"], y.args["variants"]
            assert x.args | {"variants": None} == y.args | {"variants": None} and new[:len(old)] == old
            gained += new != old
    assert gained == 3  # matrices 12-14 of the 40-matrix configuration, now also in the 15-matrix one


def test_summary_counts_only_corrected_fits_as_surviving():
    """'What survives the correction' counts corrected-KL fits alone; the bound line reads printed − corrected.

    Synthetic record (20 matrices): the corrected fit beats MFVI and MAP by 0.1 with noise 0.01, the printed fit
    is worse than both and sits 5 nats lower on eq. (5); a summary that counted the printed fit as surviving, or
    flipped the sign of the bound difference, gives other numbers.
    """
    rng = np.random.default_rng(3)
    n = 20
    base = 1.0 + 0.01 * rng.standard_normal(n)
    rec = {"label": "synthetic (n = 1)", "k": 3,
           "errors": {"MAP": list(base), "MFVI (Nakajima)": list(base), "isotropic MFVI": list(base),
                      "SymVI corrected (exact)": list(base - 0.1), "SymVI printed (exact)": list(base + 0.1)},
           "ranks": {"MAP": [1] * n, "MFVI (Nakajima)": [1] * n, "isotropic MFVI": [1] * n,
                     "SymVI corrected (exact)": [3] * n, "SymVI printed (exact)": [2] * n},
           "elbo": {"SymVI corrected (exact)": list(-100 + rng.standard_normal(n)),
                    "SymVI printed (exact)": list(-105 + rng.standard_normal(n))}, "moved": {}}
    lines = moore_experiments._plain([rec])
    survive = [ln for ln in lines if "What survives" in ln]
    assert len(survive) == 1
    assert "(a) in 1 of 1 fits; (b) better than MFVI in 1 of 1, better than MAP in 1 of 1" in survive[0]
    bound = [ln for ln in lines if "by the symmetrized bound eq. (5)" in ln][0]
    assert "1 of 1 pairs resolved below zero: the printed KL optimises a different objective" in bound
    m = float(bound.split("from ")[1].split(" to")[0])
    assert -6.5 < m < -3.5  # printed − corrected ≈ −5 nats (SE of the mean ≈ 0.3)


def test_failure_summary_reads_the_fits_own_records():
    """A fit stopped early (maxiter = 3) is short of the criterion; the section groups it by L-BFGS's stop message
    and reports its gradient, and a refusal without an L-BFGS record is counted apart (not parsed as a stop)."""
    p, _ = moore_mf.sample_problem(6, 5, 2, 1.0, np.random.default_rng(1))
    fit = moore_mf.fit_isotropic(p, np.random.default_rng(2), maxiter=3)
    assert not fit.converged
    gmax = float(fit.criterion.split("sup-norm gradient ")[1].split()[0])
    assert gmax > moore_mf.GTOL  # the record states the gradient that missed the criterion
    text = moore_experiments._failure_summary([f"matrix 0: isotropic MFVI: {fit.criterion}",
                                               "matrix 1: SymVI corrected (exact): k: must be ≥ 1"])
    assert text.startswith("1 stopped with ") and f"sup-norm gradient up to {gmax:.1e}" in text
    assert text.endswith("1 refused or without an L-BFGS record")


def test_bound_line_draws_its_conclusion_only_from_resolved_pairs():
    assert moore_experiments._bound_line([]) == "- No printed/corrected pair was fitted."
    mixed = moore_experiments._bound_line([(-5.0, 0.5), (-0.1, 0.2)])  # the second is within 3 SE of zero
    assert "1 of 2 pairs resolved below zero." in mixed and "different objective" not in mixed


def test_a_variant_appended_to_a_shared_matrix_leaves_the_earlier_fits_unchanged(result):
    """The premise of sharing matrices between configurations: fitting one more variant after the others draws
    from the generator after them, so the earlier fits (and the baselines) are the same as without it, and
    `_own` recovers the configuration's own record exactly. A variant inserted *before* would change them."""
    extra = ["corrected", "laplace"]
    shared = moore_fig4.fit_matrix(ARGS | {"variants": ARGS["variants"] + [extra]}, np.random.default_rng(4))
    own = moore_experiments._own(shared, ARGS["variants"] + [extra], ARGS["variants"])
    strip = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert strip(own) == strip(result) and set(own["seconds"]) == set(result["seconds"])
    first = moore_fig4.fit_matrix(ARGS | {"variants": [extra] + ARGS["variants"]}, np.random.default_rng(4))
    assert strip(moore_experiments._own(first, [extra] + ARGS["variants"], ARGS["variants"])) != strip(result)


def test_configurations_on_the_same_matrices_share_their_tasks(shared):
    """Configurations with the same (n, k, σ_n) fit each matrix once: the first 12 tasks carry both
    configurations' variants (the first configuration's first), the rest only the first's, and both
    configurations hold the same task objects, with the seeds a configuration alone would get."""
    configs = moore_experiments.fig4_tasks(7, quick=False)
    by_label = {c[0]: (c, tasks) for c, tasks in configs}
    (full, full_tasks), (few, few_tasks) = (by_label[c[0]] for c in shared)
    assert full[1:4] == few[1:4] and (len(full_tasks), len(few_tasks)) == (40, 12)
    assert all(a is b for a, b in zip(full_tasks, few_tasks))
    both = [list(v) for v in full[4]] + [list(v) for v in few[4] if v not in full[4]]
    assert all(t.args["variants"] == (both if i < 12 else [list(v) for v in full[4]]) for i, t in enumerate(full_tasks))
    alone = moore_experiments.seeded_tasks([full_tasks[0].args] * 40, full_tasks[0].seed.entropy)
    assert [t.seed.spawn_key for t in alone] == [t.seed.spawn_key for t in full_tasks]
    assert len({id(t) for _, tasks in configs for t in tasks}) == 40 + 80 + 40  # 12 shared, not 52


def test_a_fit_restarted_on_the_same_draws_stays_and_on_fresh_draws_moves():
    """``draws`` is what makes two routes' optima comparable: the same route restarted at its optimum on its own
    draws stays there (up to the gradient criterion), while fresh draws move it by Monte Carlo noise."""
    p, _ = moore_mf.sample_problem(8, 8, 3, 1.0, np.random.default_rng(2))
    iso = moore_mf.fit_isotropic(p, np.random.default_rng(3))
    a = moore_mf.fit_symvi(p, np.random.default_rng(4), method="laplace", n_draws=4, start=iso)
    same = moore_mf.fit_symvi(p, np.random.default_rng(5), method="laplace", n_draws=4, start=a, draws=a.params["E"])
    fresh = moore_mf.fit_symvi(p, np.random.default_rng(5), method="laplace", n_draws=4, start=a)
    moved = lambda f: np.linalg.norm(f.mean - a.mean) / np.linalg.norm(a.mean)  # noqa: E731
    assert moved(same) < 1e-5 < 1e-3 < moved(fresh)
    with pytest.raises(ValueError, match="draws must have shape"):
        moore_mf.fit_symvi(p, np.random.default_rng(5), method="laplace", n_draws=4, draws=a.params["E"][:3])
    with pytest.raises(ValueError, match="draws must be finite"):
        moore_mf.fit_symvi(p, np.random.default_rng(5), method="laplace", n_draws=4, draws=a.params["E"] * np.nan)


def test_a_tighter_route_starts_on_the_previous_routes_draws_and_its_figures_hold():
    """At k = 2 (exact ₀F₁ known): the order-2 fit starts at the order-1 fit (same draws) and records how far it
    moved; the figures it records are those of its route at the optimum, and each finite one covers the true
    error of the order-2 value there against the Bessel closed form."""
    args = ARGS | {"variants": [["corrected", "laplace"], ["corrected", "asymptotic"],
                                ["corrected", "asymptotic, order 2"]], "sigma_n": 0.3}
    res = moore_fig4.fit_matrix(args, np.random.default_rng(6))
    assert set(res["moved"]) == {"SymVI corrected (asymptotic)", "SymVI corrected (asymptotic, order 2)"}
    assert res["moved"]["SymVI corrected (asymptotic, order 2)"] < res["moved"]["SymVI corrected (asymptotic)"]
    med, share, gmed, gmax = res["figures"]["SymVI corrected (asymptotic, order 2)"]
    assert 0 < share <= 1 and 0 < gmed <= gmax <= 1
    assert res["figures"]["SymVI corrected (laplace)"][:2] == [math.inf, 0.0]  # Laplace returns no figure
    # the figures hold on one optimum's draws, route by route
    p, _ = moore_mf.sample_problem(8, 8, 2, 0.3, np.random.default_rng(1))
    iso = moore_mf.fit_isotropic(p, np.random.default_rng(2))
    fit = moore_mf.fit_symvi(p, np.random.default_rng(3), method="asymptotic", options={"order": 2}, start=iso)
    sig = moore_fig4._optimum_sigma(fit)
    from symcheck.hyp0f1 import log_hyp0f1
    value, error = log_hyp0f1(sig, 2, method="asymptotic", order=2, return_error=True)
    exact = log_hyp0f1(sig, 2, method="exact")
    ok = np.isfinite(error)
    assert ok.any() and np.all(np.abs(value - exact)[ok] <= error[ok])
    assert moore_fig4.kl_0f1_figures(fit, 2, "asymptotic, order 2")[0] == float(np.median(error))


def test_route_line_reports_a_changed_verdict():
    """The summary compares each repeated fit's verdicts with its first route's: equal errors read 'unchanged';
    an order-2 fit made worse than MAP reads as a change."""
    rng = np.random.default_rng(8)
    n = 20
    base = 1.0 + 0.01 * rng.standard_normal(n)
    rec = {"label": "synthetic (n = 1)", "k": 3,
           "errors": {"MAP": list(base), "MFVI (Nakajima)": list(base + 0.2), "isotropic MFVI": list(base),
                      "SymVI corrected (asymptotic)": list(base - 0.1),
                      "SymVI corrected (asymptotic, order 2)": list(base - 0.1)},
           "ranks": {nm: [3] * n for nm in ("MAP", "MFVI (Nakajima)", "isotropic MFVI", "SymVI corrected (asymptotic)",
                                            "SymVI corrected (asymptotic, order 2)")},
           "elbo": {}, "moved": {"SymVI corrected (asymptotic, order 2)": [1e-4] * n}}
    line = [ln for ln in moore_experiments._plain([rec]) if ln.startswith("- ₀F₁ route")][0]
    assert "moves Ŷ by ≤ 0.01%, verdicts unchanged" in line
    rec["errors"]["SymVI corrected (asymptotic, order 2)"] = list(base + 0.1)
    line = [ln for ln in moore_experiments._plain([rec]) if ln.startswith("- ₀F₁ route")][0]
    assert ("(vs MFVI better, vs MAP better, all traits used) → (vs MFVI better, vs MAP worse, all traits used)"
            in line)


def test_exactness_lines_read_the_records():
    """The paragraph on the exact ₀F₁ quotes the records: σ range, order-2 figure, largest move, Laplace's move;
    a configuration without both asymptotic orders gets none."""
    n = 4
    rec = {"k": 20, "errors": {"SymVI corrected (asymptotic)": [0.5] * n,
                               "SymVI corrected (asymptotic, order 2)": [0.5 + 1e-5] * n},
           "figures": {"SymVI corrected (asymptotic)": [[0.2, 0.9, 0.01, 0.9]] * n,
                       "SymVI corrected (asymptotic, order 2)": [[0.03, 0.75, 0.002, 0.9]] * n},
           "sigma": {"SymVI corrected (asymptotic, order 2)": [[2.5, 150.0], [3.0, 170.0]] * 2},
           "moved": {"SymVI corrected (asymptotic)": [0.2, 0.23, 0.1, 0.1],
                     "SymVI corrected (asymptotic, order 2)": [1e-4, 2e-3, 1e-4, 1e-4]},
           "offsets": {"SymVI corrected (laplace)": [11.0, 12.0, 11.5, 11.5]}}
    text = moore_experiments._exactness_lines(rec)[0]
    for part in ("from 2.5 to 170", "0.03 nats at order 2", "75% of the draws", "figure 0.2) to order 2",
                 "at most 0.20%", "+1.0e-05 ± 0.0e+00", "offset +11.5 nats) moves it by up to 23%"):
        assert part in text, part
    del rec["moved"]["SymVI corrected (asymptotic, order 2)"]
    assert moore_experiments._exactness_lines(rec) == []


def test_exact_check_at_small_k_covers_every_route():
    """At k = 3 the holonomic check runs at the corrected fits' optima: every route's offset against it, and
    the asymptotic figures hold there (ratio ≤ 1); the section quotes them."""
    args = ARGS | {"k": 3, "variants": [["corrected", "laplace"], ["corrected", "asymptotic"],
                                        ["corrected", "asymptotic, order 2"]], "sigma_n": 0.3}
    res = moore_fig4.fit_matrix(args, np.random.default_rng(6))
    assert set(res["exact"]) == {"SymVI corrected (laplace)", "SymVI corrected (asymptotic, order 2)"}
    check = res["exact"]["SymVI corrected (asymptotic, order 2)"]
    assert check["reference_error"] < 1e-8
    assert set(check) == {"reference_error", "laplace", "asymptotic", "asymptotic, order 2"}
    assert all(not v[1] > 1 for r, v in check.items() if r != "reference_error")
    assert abs(check["laplace"][0]) > 10 * abs(check["asymptotic, order 2"][0])
    rec = {"k": 3, "exact": {nm: [c] for nm, c in res["exact"].items()}}
    text = moore_experiments._exact_check_lines(rec)[0]
    assert "1 matrices" in text and "asymptotic, order 2" in text and "Laplace returns none" in text


def test_an_isotropic_variance_past_float64_is_a_valueerror():
    """An L-BFGS trial step to log c ≥ log(float64 max) raised OverflowError from math.exp and stopped the whole
    report (regeneration of 2026-11-30); it is a ValueError naming log c, which fit_matrix records as the fit's failure."""
    p, _ = moore_mf.sample_problem(6, 5, 2, 1.0, np.random.default_rng(1))
    x = np.concatenate([np.zeros((6 + 5) * 2), [800.0]])
    with pytest.raises(ValueError, match="log c"):
        moore_mf._isotropic_value_grad(x, p)
    x[-1] = 5.0
    assert np.isfinite(moore_mf._isotropic_value_grad(x, p)[0])
