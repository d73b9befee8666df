"""The float64 zonal series on rank-deficient rows: tables in the m non-zero σ, b = k/2.

Expected values come from independent routes: the rank-one closed form (scalar Bessel I_{k/2−1},
float64 and mpmath), the mpmath reference (monomial coefficients from Muirhead's PDE system, no
zonal polynomial; its ≤ m-part subsystem is itself checked against the full k-part system), and
the holonomic method (an ODE along a ray). Tolerances are the sums of the routes' error figures;
the series' figure must also cover its true error (against 30-digit references). Full-rank rows
must match the code before the change (run from git in a subprocess).
"""

import json
import math
import os
import shutil
import subprocess
import sys

import mpmath
import numpy as np
import pytest

import symcheck
from symcheck.hyp0f1 import closed_form, closed_form_mp, methods, series
from symcheck.hyp0f1.reference import hyp0f1_reference

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The last commit before the series summed rank-deficient rows in m variables.
BEFORE = "7d9a862c8a1449e338251dcf4b166200ca49ad09"
#: Relative error of the 30-digit mpmath routes (reference: ≤ 10^-(dps−2), tests/test_hyp0f1_reference.py).
REF_REL = 1e-28
SERIES = methods.get("series")
MAX_DEGREE = 400
U = np.finfo(float).eps / 2


def _padded(nonzero, k):
    return np.r_[np.asarray(nonzero, dtype=float), np.zeros(k - len(nonzero))]


def _log_ref(sig, k, dps=30):
    with mpmath.workdps(dps + 10):
        return mpmath.log(hyp0f1_reference(sig, k, dps=dps))


# --------------------------------------------------------------------------- full rank unchanged

_BEFORE_SCRIPT = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import series_before as old
out = []
for k, rows in json.loads(sys.argv[2]):
    s = np.array(rows, dtype=float)
    v, e = old.log_hyp0f1_series(s, k)
    g, ge = old.grad_log_hyp0f1_series_with_error(s, k)
    tv, te = old.log_hyp0f1_series_truncated(s, k, 12)
    out.append([x.tolist() for x in (v, e, g, ge, tv, te)])
print(json.dumps(out))
"""


def _full_rank_cases():
    gen = np.random.default_rng(20261126)
    return [(1, gen.uniform(0.1, 30.0, (4, 1))), (2, gen.uniform(0.1, 12.0, (4, 2))), (3, gen.uniform(0.1, 5.0, (4, 3))),
            (5, gen.uniform(0.1, 2.0, (3, 5))), (8, gen.uniform(0.1, 0.8, (3, 8))), (20, gen.uniform(0.01, 0.2, (2, 20)))]


def _now(s, k):
    v, e = series.log_hyp0f1_series(s, k)
    g, ge = series.grad_log_hyp0f1_series_with_error(s, k)
    tv, te = series.log_hyp0f1_series_truncated(s, k, 12)
    return [x.tolist() for x in (v, e, g, ge, tv, te)]


def test_full_rank_rows_match_before(tmp_path):
    """Full-rank rows against the module at BEFORE: at a fixed degree the values are bit-identical and
    the error figure can only have shrunk (a tail bound was added since, as a minimum: the moment bound);
    at rtol = 1e-14 that bound may pick a lower degree, so values and gradients agree within the sum of
    the two error figures (each a proven bound)."""
    if shutil.which("git") is None:
        pytest.skip("git is not available")
    src = subprocess.run(["git", "-C", ROOT, "show", f"{BEFORE}:symcheck/hyp0f1/series.py"], capture_output=True,
                         text=True)
    if src.returncode != 0:
        pytest.skip(f"commit {BEFORE} is not in this checkout's history")
    path = tmp_path / "series_before.py"
    path.write_text(src.stdout)
    cases = _full_rank_cases()
    env = dict(os.environ, PYTHONPATH=ROOT, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONDONTWRITEBYTECODE="1")
    run = subprocess.run([sys.executable, "-c", _BEFORE_SCRIPT, str(tmp_path), json.dumps([(k, s.tolist()) for k, s in cases])],
                         env=env, capture_output=True, text=True, check=True)
    before = json.loads(run.stdout)
    for (k, s), old in zip(cases, before):
        v, e, g, ge, tv, te = (np.array(x) for x in _now(s, k))
        ov, oe, og, oge, otv, ote = (np.array(x) for x in old)  # floats round-trip exactly through JSON
        assert np.array_equal(tv, otv) and np.all(te <= ote), f"k={k}"
        assert np.all(np.abs(v - ov) <= e + oe), f"k={k}"
        assert np.all(np.abs(g - og).max(axis=1) <= ge + oge), f"k={k}"


def test_grouping_keeps_each_row_as_if_alone(rng):
    """A batch mixing ranks gives every row bit for bit what it gives alone, in the input order."""
    k = 6
    sig = rng.uniform(0.2, 1.5, (7, k))
    sig[1, 2:] = 0.0
    sig[2, [0, 3]] = 0.0
    sig[3, :] = 0.0
    sig[5, 1:] = 0.0
    val, err = series.log_hyp0f1_series(sig, k)
    grad, gerr = series.grad_log_hyp0f1_series_with_error(sig, k)
    for r in range(sig.shape[0]):
        v1, e1 = series.log_hyp0f1_series(sig[r:r + 1], k)
        g1, ge1 = series.grad_log_hyp0f1_series_with_error(sig[r:r + 1], k)
        assert (val[r], err[r]) == (v1[0], e1[0]) and np.array_equal(grad[r], g1[0]) and gerr[r] == ge1[0]
    assert val[3] == 0.0 and err[3] == 0.0 and np.all(grad[3] == 0.0)


# --------------------------------------------------------------------------- rank one: closed form

@pytest.mark.parametrize("k", [5, 9, 16, 33, 64])
def test_rank_one_matches_closed_form(k):
    """m = 1 against the scalar ₀F₁(k/2; σ²/4) (float64 Bessel route and 30-digit mpmath)."""
    rows = np.array([_padded([s], k) for s in (0.3, 4.0, 35.0, 120.0)])
    rows[2] = np.roll(rows[2], k // 2)  # the non-zero σ anywhere in the row
    val, fig = SERIES.evaluate(rows, k, rtol=1e-14, max_degree=MAX_DEGREE)
    exact, exact_fig = closed_form.exact_value(rows, k)
    assert np.all(np.abs(val - exact) <= fig + exact_fig)
    for r in range(rows.shape[0]):
        with mpmath.workdps(40):
            truth = mpmath.log(closed_form_mp.closed_form_mp(rows[r], k))
            assert abs(val[r] - truth) <= fig[r] + REF_REL * (1 + abs(truth))  # the figure covers the true error
    assert np.all(fig <= 1e-12 * np.maximum(1.0, val))


# --------------------------------------------------------------------------- rank 2-4: mpmath and holonomic

def _rank_rows(k, gen):
    """Rank 2, 3, 4 rows (zeros scattered), Σσ up to the reference's and the tables' reach."""
    rows = []
    for m, top in ((2, 60.0), (2, 8.0), (3, 25.0), (4, 12.0)):
        nonzero = gen.uniform(0.1, 1.0, m)
        row = _padded(nonzero * top / nonzero.sum(), k)
        rows.append(gen.permutation(row))
    return np.array(rows)


@pytest.mark.parametrize("k", [8, 12, 20, 40])
def test_rank_two_to_four_match_mpmath(k):
    gen = np.random.default_rng(k)
    rows = _rank_rows(k, gen)
    val, fig = SERIES.evaluate(rows, k, rtol=1e-14, max_degree=MAX_DEGREE)
    # the reference's ≤ m-part subsystem at its deepest here (Σσ = 60): 30 digits agree with 40
    assert abs(_log_ref(rows[0], k) - _log_ref(rows[0], k, dps=40)) <= REF_REL * (1 + abs(val[0]))
    for r, row in enumerate(rows):
        truth = _log_ref(row, k)
        # the figure bounds the true error (the reference's own is ≤ REF_REL relative)
        assert abs(val[r] - truth) <= fig[r] + REF_REL * (1 + abs(truth)), (k, row[row > 0])
    assert np.all(fig <= 1e-10 * np.maximum(1.0, np.abs(val)))


@pytest.mark.parametrize("k,nonzero", [(8, [6.0, 2.5]), (20, [9.0, 4.0, 1.5]), (40, [5.0, 3.0, 2.0, 0.5])])
def test_rank_deficient_match_holonomic(k, nonzero):
    row = _padded(nonzero, k)[None]
    val, fig = SERIES.evaluate(row, k, rtol=1e-14, max_degree=MAX_DEGREE)
    hol, hol_fig = methods.get("holonomic").evaluate(row, k)
    assert abs(val[0] - hol[0]) <= fig[0] + hol_fig[0]


def test_reference_subsystem_matches_full_system():
    """The reference's ≤ m-part subsystem against its full k-part system: zeros replaced by 1e-40,
    which moves log ₀F₁ by at most Σ 1e-40 (|∂ log ₀F₁/∂σⱼ| ≤ 1)."""
    k = 6
    sig = _padded([2.0, 1.0, 0.5], k)
    with mpmath.workdps(40):
        sub = mpmath.log(hyp0f1_reference(sig, k, dps=30))
        full = mpmath.log(hyp0f1_reference(np.where(sig > 0, sig, 1e-40), k, dps=30))
        assert abs(sub - full) <= 3e-40 + 2 * REF_REL * (1 + abs(full))


def test_truncation_bound_covers_low_degrees():
    """At degrees below the target the truncation bound dominates and must still cover the error."""
    k = 20
    row = _padded([7.0, 3.0, 1.0], k)
    truth = _log_ref(row, k)
    need = int(series.series_degree_needed(row[None], k, 1e-14)[0])
    for degree in range(max(need - 12, 0), need + 1, 3):
        val, rel = series.log_hyp0f1_series_truncated(row, k, degree)
        # |F − F̂|/F̂ against the relative bound, plus the rounding of the stored log
        assert abs(math.expm1(float(truth - float(val)))) <= rel + 2 * U * (1 + abs(float(val))), degree


# --------------------------------------------------------------------------- planted bugs fail

@pytest.fixture
def fresh_tables():
    series._TABLES.clear()
    yield
    series._TABLES.clear()


def _planted_misses(k, nonzero):
    row = _padded(nonzero, k)
    val, fig = SERIES.evaluate(row[None], k, rtol=1e-14, max_degree=MAX_DEGREE)
    truth = _log_ref(row, k)
    return abs(val[0] - truth) > fig[0] + REF_REL * (1 + abs(truth))


def test_planted_b_equal_to_half_m_fails(monkeypatch, fresh_tables):
    """Tables built with b = m/2 (the number of non-zero σ) instead of k/2."""
    real = series._tables_for
    monkeypatch.setattr(series, "_tables_for", lambda n_vars, degree, b: real(n_vars, degree, 0.5 * n_vars))
    assert _planted_misses(12, [4.0, 2.0, 1.0])


def test_planted_dropped_partitions_fail(monkeypatch, fresh_tables):
    """Partitions with exactly m parts dropped as well (only those with > m parts may go)."""
    real = series._enumerate_partitions

    def fewer(n_vars, degree):
        parts = real(n_vars, degree)
        return np.ascontiguousarray(parts[parts[:, n_vars - 1] == 0]) if n_vars > 1 else parts

    monkeypatch.setattr(series, "_enumerate_partitions", fewer)
    assert _planted_misses(12, [4.0, 2.0, 1.0])


def test_planted_bugs_pass_unplanted(fresh_tables):
    assert not _planted_misses(12, [4.0, 2.0, 1.0])


# --------------------------------------------------------------------------- gradient

def _h():
    return 2.0 ** -20  # σ ± h is exact in float64 for the σ below


@pytest.mark.parametrize("k,nonzero", [(8, [3.0, 2.5]), (20, [4.0, 2.5, 1.5]), (12, [2.0, 1.5, 1.0, 0.5])])
def test_gradient_vs_mpmath_central_differences(k, nonzero):
    """Non-zero components against central differences of the 30-digit reference.

    log ₀F₁ is the cumulant generating function of diag T under Haar measure, so ∂³/∂σᵢ³ log ₀F₁
    is a third cumulant of Tᵢᵢ ∈ [−1, 1] under a tilted measure: |·| ≤ E|X − EX|³ ≤ 2 Var X ≤ 2.
    The central difference's error is then ≤ h²/6 · 2 = h²/3, plus 2·REF_REL·(1 + |log F|)/(2h)
    from the reference values.
    """
    row = _padded(nonzero, k)
    grad, gfig = SERIES.gradient(row[None], k, rtol=1e-14, max_degree=MAX_DEGREE)
    h = _h()
    for i in range(len(nonzero)):
        e = np.zeros(k)
        e[i] = h
        up, down = _log_ref(row + e, k), _log_ref(row - e, k)
        fd = (up - down) / (2 * h)
        tol = h * h / 3 + REF_REL * (1 + abs(up)) / h + gfig[0]
        assert abs(grad[0, i] - fd) <= tol, i
    assert np.all(grad[0, len(nonzero):] == 0.0)


def test_zero_component_gradient_is_zero_by_symmetry():
    """The claim ∂ log ₀F₁/∂σⱼ = 0 at σⱼ = 0, checked on the reference: f(t) = log ₀F₁(σ + t eⱼ) is even,
    so g = (4f(h) − f(2h) − 3f(0))/(2h) = f'(0) − h³f''''(ξ)/4 (a fourth cumulant of Tⱼⱼ ∈ [−1, 1],
    in [−3, 4]): |f'(0)| ≤ |g| + h³. A linear term would show as g ≈ f'(0)."""
    k, j = 10, 5
    row = _padded([3.0, 2.0, 1.0], k)
    h = 2.0 ** -7
    f = []
    for t in (0.0, h, 2 * h):
        r = row.copy()
        r[j] = t
        f.append(_log_ref(r, k))
    g = (4 * f[1] - f[2] - 3 * f[0]) / (2 * h)
    assert abs(g) <= h ** 3 + 8 * REF_REL * (1 + abs(f[0])) / h
    grad = series.grad_log_hyp0f1_series(row, k)
    assert np.all(grad[3:] == 0.0)  # exactly, as the truncated sum's derivative is


# --------------------------------------------------------------------------- feasibility and auto

def test_feasible_in_the_number_of_nonzero_sigma():
    k = 20
    full, rank2 = np.full((1, k), 4.0), _padded([30.0, 20.0], k)[None]
    assert series.series_degree_needed(full, k, 1e-14)[0] == series.UNREACHABLE
    need = int(series.series_degree_needed(rank2, k, 1e-14)[0])
    assert series.max_feasible_degree(k) < need <= series.max_feasible_degree(2)
    assert series.rounding_bound(k, need, n_vars=2) == series.rounding_bound(2, need)  # K depends on n_vars, not b
    reason = SERIES.domain(np.vstack([full, rank2]), k, {"rtol": 1e-14, "max_degree": 60})
    assert "20 non-zero sigma" in reason[0] and "feasible ≤ 388 for 2 non-zero sigma" in reason[1]
    with pytest.raises(ValueError, match="max_degree"):
        series.log_hyp0f1_series(rank2, k, max_degree=60)
    with pytest.raises(ValueError, match="n_vars"):
        series.rounding_bound(k, 10, n_vars=k + 1)


def test_auto_answers_rank_two_by_the_series():
    """σ = (30, 20, 0, …, 0), k = 20: before, the Laplace approximation with a figure of 27 nats."""
    k = 20
    row = _padded([30.0, 20.0], k)
    value, err, info = symcheck.log_hyp0f1(row, k, return_error=True, return_info=True)
    assert np.asarray(info.method).ravel()[0] == "series"
    assert err <= methods.AUTO_RTOL * max(1.0, abs(value))
    truth = _log_ref(row, k)
    assert abs(value - truth) <= err + REF_REL * (1 + abs(truth))
    grad, gerr, ginfo = symcheck.grad_log_hyp0f1(row, k, return_error=True, return_info=True)
    assert np.all(grad[2:] == 0.0) and gerr <= 1e-10
