"""A ₀F₁ method is one registry entry: a toy method registered here is seen by log_hyp0f1 (by
name and by auto), grad_log_hyp0f1, the budget's error-figure table, the accuracy report section
and the asv benchmarks, with no other file touched."""

from __future__ import annotations

import dataclasses
import importlib
import sys

import numpy as np
import pytest

from symcheck.hyp0f1 import api, budget, closed_form, methods
from symcheck.hyp0f1.api import grad_log_hyp0f1, log_hyp0f1, log_hyp0f1_and_grad, method_names
from symcheck.report.sections import hyp0f1_accuracy


def _toy_value(flat, k, shift=0.0, claimed=1e-3):
    """k = 1 only: log cosh σ plus an optional planted shift, with a claimed relative error figure."""
    value = np.logaddexp(flat[:, 0], -flat[:, 0]) - np.log(2.0)
    return value + shift, claimed * (1.0 + np.abs(value))


def _toy_domain(flat, k, options=None):
    return np.full(flat.shape[0], "" if k == 1 else "the toy method only knows k = 1", dtype=object)


@pytest.fixture
def toy():
    m = methods.register(methods.Method(
        name="toy", summary="log cosh (k = 1)", evaluate=_toy_value, rigorous=False, error_kind="estimate",
        domain=_toy_domain,
        gradient=lambda flat, k, shift=0.0, claimed=1e-3: (np.tanh(flat), np.full(flat.shape[0], claimed)),
        defaults={"shift": 0.0, "claimed": 1e-3},
        auto=(methods.AutoStep(5, lambda flat, k: np.full(flat.shape[0], k == 1), {"claimed": 1e-13}),),
        variants={"toy (plain)": {"shift": 0.0}}))
    yield m
    methods.unregister("toy")


def test_toy_is_a_method_of_log_hyp0f1(toy):
    assert "toy" in method_names()
    value, err, info = log_hyp0f1(np.array([0.5]), 1, method="toy", return_error=True, return_info=True)
    assert abs(float(value) - np.log(np.cosh(0.5))) < 1e-15 and info.method == "toy"
    assert float(err) == pytest.approx(1e-3 * (1 + np.log(np.cosh(0.5))))
    grad, gerr = grad_log_hyp0f1(np.array([0.5]), 1, method="toy", return_error=True)
    assert abs(float(grad[0]) - np.tanh(0.5)) < 1e-15
    with pytest.raises(ValueError, match="sigma: the toy method only knows k = 1"):
        log_hyp0f1(np.array([0.5, 0.2]), 2, method="toy")
    with pytest.raises(ValueError, match="unknown option"):
        log_hyp0f1(np.array([0.5]), 1, method="toy", rtol=1e-3)
    log_hyp0f1(np.array([0.5]), 1, method="toy", shift=1.0)  # declared options are accepted


def test_auto_routes_through_the_toy_in_rank_order(toy):
    """Rank 5 runs before the closed forms (rank 10); with a figure below the goal the toy keeps the row,
    and only k = 1 rows (its ``applies``) go to it."""
    _, err, info = log_hyp0f1(np.array([[0.5], [2.0]]), 1, return_error=True, return_info=True)
    assert list(info.method) == ["toy", "toy"] and np.all(err <= 1e-12)
    _, _, info = log_hyp0f1(np.array([0.5, 0.2]), 2, return_error=True, return_info=True)
    assert info.method == "exact"
    grad, _, ginfo = grad_log_hyp0f1(np.array([0.5]), 1, return_error=True, return_info=True)
    assert ginfo.method == "toy" and abs(float(grad[0]) - np.tanh(0.5)) < 1e-15


def test_the_budget_figure_table_lists_the_toy(toy):
    rows = [r for r in budget.figure_ratios(regions=[budget.Region((1, 1))]) if r["method"] == "toy"]
    assert len(rows) == 1 and rows[0]["n"] > 0 and rows[0]["false_figures"] == 0


def test_a_planted_toy_error_shows_as_a_false_figure(toy, monkeypatch):
    """The same table catches a toy whose value is off by more than its figure."""
    monkeypatch.setitem(toy.auto[0].options, "shift", 1e-2)  # the table runs the toy as auto does
    rows = [r for r in budget.figure_ratios(regions=[budget.Region((1, 1))]) if r["method"] == "toy"]
    assert rows[0]["false_figures"] == rows[0]["n"] > 0


def test_the_accuracy_section_compares_the_toy(toy):
    assert hyp0f1_accuracy.report_methods()["toy (plain)"] == {"method": "toy", "shift": 0.0}
    rows = hyp0f1_accuracy.accuracy_rows({"k": 1, "scales": [0.5], "quick": True}, np.random.default_rng(0))
    assert abs(rows[0]["errors"]["toy (plain)"]) < 1e-15


def test_the_benchmarks_time_the_toy(toy):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    try:
        bench = importlib.import_module("benchmarks.bench_hyp0f1")
        bench = importlib.reload(bench)  # params are read from the registry at import
    finally:
        sys.path.pop(0)
    assert "toy" in bench.Methods.params[0]
    b = bench.Methods()
    with pytest.raises(NotImplementedError):  # outside its domain: asv skips the case
        b.setup("toy", 3)


def test_every_registered_method_declares_its_contract():
    for m in methods.REGISTRY.values():
        assert m.summary and m.error_kind and callable(m.evaluate) and callable(m.domain)
        assert set(m.defaults) >= set().union(*[set(o) for o in m.variants.values()] or [set()])
        for step in m.auto:
            assert set(step.options) <= set(m.defaults)
    assert closed_form.has_closed_form(np.array([[1.0]]), 1)[0]


# --- value and gradient in one call --------------------------------------------------------

#: Inputs for the one-call check: per k, unsorted rows at small and large σ (each method is checked on
#: the rows its domain accepts), a row with a zero and, at large σ, one whose second coset is dropped.
_PAIR_CASES = {2: np.array([[0.3, 0.8], [1.7, 0.0], [40.0, 55.0]]),
               5: np.array([[0.4, 0.1, 0.3, 0.2, 0.0], [22.0, 40.0, 25.0, 30.0, 21.0],
                            [360.0, 330.0, 325.0, 322.0, 321.0], [45.0, 60.0, 50.0, 41.0, 40.0]])}


def _one_call_is_the_two(method: str, **options) -> bool:
    """``log_hyp0f1_and_grad`` equals ``log_hyp0f1`` and ``grad_log_hyp0f1`` to the bit on every case
    row that ``method`` accepts (True where it accepts none)."""
    for k, sig in _PAIR_CASES.items():
        if method != "auto":
            m = methods.get(method)
            sig = sig[m.domain(sig, k, methods.resolve_options(m, options)) == ""]
            if not sig.size:
                continue
        value, grad = log_hyp0f1_and_grad(sig, k, method, **options)
        if not (np.array_equal(value, log_hyp0f1(sig, k, method, **options))
                and np.array_equal(grad, grad_log_hyp0f1(sig, k, method, **options))):
            return False
    return True


@pytest.mark.parametrize("method", ["auto"] + [n for n in methods.names(with_gradient=True) if n != "holonomic"])
def test_value_and_gradient_in_one_call_are_the_two_calls(method):
    """Every method with a gradient (and each of its labelled variants), whether or not it shares work
    between the two (``value_and_gradient_only``): the same numbers, bit for bit. (Holonomic: no shared
    route, and seconds per row.)"""
    variants = [{}] if method == "auto" else [{}, *methods.get(method).variants.values()]
    for options in variants:
        assert _one_call_is_the_two(method, **options), options


def test_a_planted_shared_route_is_caught(monkeypatch):
    """A ``value_and_gradient_only`` whose gradient is off by one ulp, or which returns the
    gradient of another order, fails the check above."""
    assert _one_call_is_the_two("asymptotic")
    hook = methods.get("asymptotic").value_and_gradient_only
    for planted in (lambda flat, k, order=1: (hook(flat, k, order)[0], np.nextafter(hook(flat, k, order)[1], 2.0)),
                    lambda flat, k, order=1: (hook(flat, k, order)[0], hook(flat, k, 1 - order)[1])):
        monkeypatch.setitem(methods.REGISTRY, "asymptotic",
                            dataclasses.replace(methods.get("asymptotic"), value_and_gradient_only=planted))
        assert not _one_call_is_the_two("asymptotic")


def test_value_and_gradient_in_one_call_refuses_bad_input():
    """The one call validates as the two do: ValueError naming the argument."""
    with pytest.raises(ValueError, match="sigma"):
        log_hyp0f1_and_grad([1.0, -0.5], 2, "laplace")
    with pytest.raises(ValueError, match="method"):
        log_hyp0f1_and_grad([1.0, 0.5], 2, "mc", rng=0)
    with pytest.raises(ValueError, match="unknown option"):
        log_hyp0f1_and_grad([1.0, 0.5], 2, "laplace", order=1)
    with pytest.raises(ValueError, match="sigma"):  # outside the method's domain
        log_hyp0f1_and_grad([0.0, 0.0, 1.0], 3, "asymptotic")


def test_value_and_gradient_in_one_call_run_autos_routes_once(monkeypatch):
    """auto's one call runs its routes once for both (the gradient reads the value's choice), where the two calls
    run them twice; the numbers are the two calls' (test above)."""
    calls = []
    real = api._auto
    monkeypatch.setattr(api, "_auto", lambda flat, k: calls.append(1) or real(flat, k))
    sig = np.array([[3.0, 1.0, 0.5], [30.0, 20.0, 0.0]])
    log_hyp0f1_and_grad(sig, 3)
    assert len(calls) == 1
    log_hyp0f1(sig, 3), grad_log_hyp0f1(sig, 3)
    assert len(calls) == 3
