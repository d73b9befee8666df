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


def test_fig4_tasks_keep_earlier_matrices_when_counts_grow(monkeypatch):
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
                    "SymVI printed (exact)": list(-105 + rng.standard_normal(n))}}
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


def test_configurations_on_the_same_matrices_share_their_tasks():
    """Moore's-size configurations (same n, k, σ_n) fit each matrix once: the first 12 tasks carry both
    configurations' variants (the first configuration's first), the rest only the first's, and both
    configurations hold the same task objects, with the seeds a configuration alone would get."""
    configs = moore_experiments.fig4_tasks(7, quick=False)
    by_label = {c[0]: (c, tasks) for c, tasks in configs}
    (full, full_tasks), (few, few_tasks) = (by_label[c[0]] for c in moore_experiments.CONFIGS[2:4])
    assert full[1:4] == few[1:4] and (len(full_tasks), len(few_tasks)) == (40, 12)
    assert all(a is b for a, b in zip(full_tasks, few_tasks))
    both = [list(v) for v in full[4]] + [list(v) for v in few[4] if v not in full[4]]
    assert all(t.args["variants"] == (both if i < 12 else [list(v) for v in full[4]]) for i, t in enumerate(full_tasks))
    alone = moore_experiments.seeded_tasks([full_tasks[0].args] * 40, full_tasks[0].seed.entropy)
    assert [t.seed.spawn_key for t in alone] == [t.seed.spawn_key for t in full_tasks]
    assert len({id(t) for _, tasks in configs for t in tasks}) == 40 + 80 + 40  # 12 shared, not 52
