"""The log ₀F₁ checkers of `symcheck.testing` pass correct subjects and catch planted bugs.

Correct subjects: symcheck's rigorous zonal series (error bound ≤ its rtol) and `auto`; planted bugs: Moore's
printed eq. (7) and Listing 1, ₀F₁(k; ·) for ₀F₁(k/2; ·), AAᵀ for AAᵀ/4, float32 rounding, a truncated series,
a NaN, an exception, a wrong shape. Every expected verdict follows from the references (mpmath, ≥ 30 digits),
never from the code under test.
"""

import math
import warnings

import numpy as np
import pytest

import symcheck
from symcheck.hyp0f1.reference_data import load_reference_values
from symcheck.models.moore import listing1_log_bessel
from symcheck.testing import (assert_log_hyp0f1, check_grad_log_hyp0f1, check_log_hyp0f1)
from symcheck.testing.hyp0f1 import reference_inputs


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", symcheck.Hyp0f1AccuracyWarning)
        yield


def series(sigma, k):
    return symcheck.log_hyp0f1(np.asarray(sigma, float), k, method="series", rtol=1e-14, max_degree=400)


def auto(sigma, k):
    return symcheck.log_hyp0f1(np.asarray(sigma, float), k)


SMALL = {"max_k": 6, "max_sigma": 1.0}  # where the series converges fast: a quick correct subject


def test_series_passes_with_its_claimed_accuracy():
    result = check_log_hyp0f1(series, rtol=1e-12, **SMALL)
    assert result, result.table()
    assert all(row.values["failed calls"] == 0 for row in result.rows)


def test_auto_passes_its_contract_on_the_whole_table():
    result = check_log_hyp0f1(auto, rtol=1e-10)
    assert result, result.table()
    assert sum(row.values["n"] for row in result.rows) == len(load_reference_values().entries)  # every entry


@pytest.mark.parametrize("name, subject", [
    ("Moore eq. (7) as printed", lambda s, k: symcheck.log_hyp0f1(np.asarray(s), k, method="laplace",
                                                                 variant="printed")),
    ("Moore Listing 1", lambda s, k: listing1_log_bessel(np.asarray(s)[None], k)[0]),
    ("0F1(k; .) for 0F1(k/2; .)", lambda s, k: symcheck.log_hyp0f1(np.r_[s, np.zeros(k)], 2 * k)),
    ("AA' for AA'/4", lambda s, k: series(2.0 * np.asarray(s), k)),
    ("float32 result", lambda s, k: np.float32(series(s, k))),
    ("truncated series", lambda s, k: symcheck.log_hyp0f1(np.asarray(s), k, method="series", rtol=1e-4)),
])
def test_planted_bugs_fail(name, subject):
    result = check_log_hyp0f1(subject, rtol=1e-10, **SMALL)
    assert not result, f"{name} was not caught"
    assert result.reproducer and "reference log 0F1" in result.reproducer


def test_laplace_is_caught_at_1e_10_but_meets_a_loose_claim_at_large_sigma():
    laplace = lambda s, k: symcheck.log_hyp0f1(np.asarray(s), k, method="laplace")  # noqa: E731
    assert not check_log_hyp0f1(laplace, rtol=1e-10, max_k=3)
    # Laplace's relative error of F is O(1/σ): for σ ≥ 1e3 (k ≤ 3) it is below 1e-2 of max(1, log F)
    big = check_log_hyp0f1(laplace, rtol=1e-2, max_k=3)
    assert all(row.passed for row in big.rows if "σ_max > 1000" in row.name), big.table()


def test_failed_calls_are_rows_not_crashes():
    def flaky(sigma, k):
        if k == 4:
            raise RuntimeError("k = 4 not supported")
        if k == 5:
            return math.nan
        if k == 6:
            return np.zeros(2)
        return series(sigma, k)
    result = check_log_hyp0f1(flaky, **SMALL)
    assert not result
    bad = {row.name.split(",")[0] for row in result.failures}
    assert bad == {"k 3–5", "k 6–8"}
    texts = " ".join(str(row.values["subject"]) for row in result.failures)
    assert "raised RuntimeError" in texts or "returned NaN" in texts or "shape" in texts


def test_assert_form_names_the_worst_input_and_the_reference():
    with pytest.raises(AssertionError, match=r"worst input=k=\d"):
        assert_log_hyp0f1(lambda s, k: series(s, k) + 1e-6, **SMALL)
    assert_log_hyp0f1(series, **SMALL)


def test_matrix_signature_and_batching():
    via_svd = lambda A: series(np.linalg.svd(A, compute_uv=False), A.shape[0])  # noqa: E731
    assert check_log_hyp0f1(via_svd, signature="matrix", rtol=1e-12, **SMALL)
    # the matrix is not diagonal: a subject reading the diagonal as σ is caught
    diag = lambda A: series(np.abs(np.diagonal(A)), A.shape[0])  # noqa: E731
    assert not check_log_hyp0f1(diag, signature="matrix", **SMALL)
    batched = lambda S, k: np.array([series(s, k) for s in S])  # noqa: E731
    assert check_log_hyp0f1(batched, batched=True, rtol=1e-12, **SMALL)


def test_tensor_like_results_are_converted(fake_tensor):
    assert check_log_hyp0f1(lambda s, k: fake_tensor(series(s, k)), rtol=1e-12, **SMALL)


@pytest.mark.parametrize("bad, match", [
    ({"rtol": -1.0}, "rtol"), ({"signature": "A"}, "signature"), ({"max_k": 0}, "max_k"),
    ({"max_sigma": 1e-9}, "no stored reference"),
])
def test_bad_arguments_name_themselves(bad, match):
    with pytest.raises(ValueError, match=match):
        check_log_hyp0f1(series, **bad)


def test_gradient_checker():
    grad = lambda s, k: symcheck.grad_log_hyp0f1(np.asarray(s, float), k)  # noqa: E731
    ok = check_grad_log_hyp0f1(grad, rtol=1e-8, max_k=6, max_sigma=30)
    assert ok, ok.table()
    fd = lambda s, k: np.array([(auto(s + 1e-3 * np.eye(k)[i], k) - auto(s, k)) / 1e-3  # noqa: E731
                                for i in range(k)])
    assert not check_grad_log_hyp0f1(fd, rtol=1e-8, max_k=6, max_sigma=30)  # forward difference: O(h) error
    flipped = lambda s, k: grad(s, k)[::-1]  # noqa: E731
    assert not check_grad_log_hyp0f1(flipped, rtol=1e-8, max_k=6, max_sigma=30)


# ----- regions and extra inputs ---------------------------------------------------------------------

def test_regions_restrict_the_inputs_and_a_planted_bug_still_fails_there():
    result = check_log_hyp0f1(series, rtol=1e-12, regions="k<=3, sigma<=1")
    assert result, result.table()
    assert all(row.name.startswith("k 1–2") or row.name.startswith("k 3–5") for row in result.rows)
    assert all(int(row.values["worst input"].split(",")[0][2:]) <= 3 for row in result.rows)
    union = check_log_hyp0f1(series, rtol=1e-12, regions=["k=1, sigma<=1", "k=2, shape=equal, sigma<=1"])
    assert sum(r.values["n"] for r in union.rows) == sum(1 for e in reference_inputs(2, 1.0)
                                                         if e.k == 1 or e.shape == "equal")
    laplace = lambda s, k: symcheck.log_hyp0f1(np.asarray(s), k, method="laplace")  # noqa: E731
    assert not check_log_hyp0f1(laplace, rtol=1e-10, regions="k<=3, sigma<=30")


@pytest.mark.parametrize("regions, match", [("k<<3", "regions: .k<<3. needs a number"), ("size<=3", "cannot read"), ("shape=round", "shape"), ("k<=x", "number"),
                                            ([], "non-empty"), ("k>12", "no stored reference")])
def test_bad_regions_name_themselves(regions, match):
    with pytest.raises(ValueError, match=match):
        check_log_hyp0f1(series, regions=regions)


def test_extra_inputs_are_reported_against_symcheck_auto_but_not_judged():
    extra = [np.array([2.0, 0.7, 0.1]), np.array([5.0, 5.0])]
    result = check_log_hyp0f1(series, rtol=1e-12, extra_inputs=extra, **SMALL)
    assert result and result.rows[-1].name == "not judged" and result.rows[-1].values["n"] == 2
    assert result.rows[-1].values["max error"] < 1e-12 and "reference error" in result.rows[-1].values
    wrong_on_extras = lambda s, k: series(s, k) + (1.0 if np.max(s) > 1.5 else 0.0)  # noqa: E731
    reported = check_log_hyp0f1(wrong_on_extras, rtol=1e-12, extra_inputs=extra, **SMALL)
    assert reported and reported.rows[-1].values["max error"] == pytest.approx(1.0)
    grad = check_grad_log_hyp0f1(lambda s, k: symcheck.grad_log_hyp0f1(np.asarray(s, float), k), rtol=1e-8,
                                 regions="k<=2, sigma<=30", extra_inputs=extra)
    assert grad and grad.rows[-1].name == "not judged", grad.table()
    with pytest.raises(ValueError, match=r"extra_inputs\[1\]"):
        check_log_hyp0f1(series, extra_inputs=[np.ones(2), np.array([1.0, -1.0])])
