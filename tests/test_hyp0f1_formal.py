"""The formal-series method (:mod:`symcheck.hyp0f1.formal`) against routes that share none of its code.

* k = 2, 3, 4: the closed forms (Bessel functions; the one-dimensional integral; the SO(4) series),
  on seeded random spectra (spread, near the GAP_MIN limit, one or two zeros), value and gradient;
* k = 2: the series itself is the Hankel expansion of I₀(σ₁ + σ₂), term by term;
* k = 5…7 at the edge of the regime (σ_max = 30–100), and k = 8–16 with 4–8 non-zero σ: the holonomic
  method;
* k = 10, σ_max = 1000 (a goal-table row auto now answers with it): the asymptotic expansion (Wick terms)
  within the latter's figure;
* ties (runs of equal σ, spread and extrapolated): Weyl's formula for equal σ, the k = 3, 4 closed forms,
  and the holonomic method at two clusters, k = 5, 6;
* near ties (runs of σ closer than GAP_MIN but not equal, spread both ways and the even part extrapolated):
  the k = 3, 4 closed forms, value and gradient, and the holonomic method (two runs at k = 5; two runs and
  seven zeros at k = 12).

A check passes when |value − reference| ≤ the two figures together. The planted errors (a smaller safety
factor, a 1 % error in the system's γ coefficients, the other critical points left out, the GAP_MIN limit
removed, the minus rows of a near tie left out) must each break one.
"""

import functools

import numpy as np
import pytest

from symcheck.hyp0f1 import formal, grad_log_hyp0f1, holonomic, log_hyp0f1

SEEDS = (0, 1)


def _random_rows(k, rng, n=None):
    n = n if n is not None else (60 if k == 4 else 120)  # k = 4's closed form (the SO(4) series) is the slow one
    rows = []
    for i in range(n):
        smax = 10 ** rng.uniform(0.7, 4)
        kind = i % 4
        if kind == 0:
            s = smax * rng.uniform(0.05, 1, k)
        elif kind == 1:  # close pairs just above GAP_MIN
            s = smax * np.geomspace(1, 0.3, k)
            s[1] = s[0] * (1 - formal.GAP_MIN * rng.uniform(1.05, 3))
        elif kind == 2:
            s = smax * np.geomspace(1, rng.uniform(0.01, 0.9), k)
        else:  # one zero, or (k ≥ 3) two: the leading term of a whole maximum set
            s = smax * rng.uniform(0.05, 1, k)
            s[-1 - (i // 4) % (k - 1):] = 0.0
        rows.append(s)
    flat = np.array(rows)
    return flat[formal.formal_reason(flat, k) == ""]


@functools.lru_cache(maxsize=None)
def _closed_form_references(k, seed):
    """The rows and their closed-form values and gradients (computed once: the planted tests change only the
    formal method)."""
    flat = _random_rows(k, np.random.default_rng(seed))
    ref, ref_e = log_hyp0f1(flat, k, method="exact", return_error=True)
    gref, gref_e = grad_log_hyp0f1(flat, k, method="exact", return_error=True)
    return flat, ref, ref_e, gref, gref_e


def _exact_violations(k, seed):
    flat, ref, ref_e, gref, gref_e = _closed_form_references(k, seed)
    v, e, g, ge = formal.log_hyp0f1_formal(flat, k, want_grad=True)
    fin = np.isfinite(e)
    bad_v = fin & (np.abs(v - ref) > e + ref_e)
    bad_g = np.isfinite(ge) & (np.max(np.abs(g - gref), axis=1) > ge + gref_e)
    return flat, fin, e, v, bad_v, bad_g


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_figure_holds_against_closed_forms(k, seed):
    flat, fin, e, v, bad_v, bad_g = _exact_violations(k, seed)
    assert not bad_v.any(), flat[bad_v]
    assert not bad_g.any(), flat[bad_g]
    # not vacuous: most rows are in the regime, and most of those meet 1e-10 relative
    assert fin.mean() > 0.6
    assert np.mean(e[fin] <= 1e-10 * np.maximum(1, np.abs(v[fin]))) > 0.6


def test_k2_terms_are_hankel_coefficients():
    """For k = 2, I₊ = ∫_{SO(2)} e^{(σ₁+σ₂)cos θ} dθ/2π·… is I₀(z), z = σ₁ + σ₂, whose Hankel series
    e^z/√(2πz)·Σ aₙ z⁻ⁿ has aₙ = ((2n − 1)!!)²/(n! 8ⁿ) (DLMF 10.40.1)."""
    for sig in ([300.0, 41.0], [1000.0, 999.0 * (1 - 2 * formal.GAP_MIN)], [25.0, 3.0]):
        sig = np.array(sig)
        c = formal._coset_series(sig, 2, 1e4)[0]
        z = sig.sum()
        a = [1.0]
        for n in range(1, len(c)):
            a.append(a[-1] * (2 * n - 1) ** 2 / (n * 8 * z))
        # rounding: terms of size ≤ 1 built through divisions by σ₁² − σ₂², which lose ~ε/g² (g the relative
        # gap, module notes); 16 of those
        gap = (sig[0] - sig[1]) / sig[0]
        np.testing.assert_allclose(c, a, rtol=1e-12, atol=16 * formal.EPS / gap ** 2)


@pytest.mark.parametrize("k, sig", [
    (5, 30 * np.geomspace(1, 0.1, 5)),
    (6, np.array([29.1, 26.0, 22.3, 17.7, 12.0, 5.4])),
    (7, np.array([29.7, 27.4, 24.4, 20.0, 16.1, 11.0, 6.2])),
    (7, 100 * np.geomspace(1, 0.1, 7)),
])
def test_figure_holds_against_holonomic(k, sig):
    v, e = formal.log_hyp0f1_formal(sig[None], k)
    assert np.isfinite(e[0])
    ref, ref_e = log_hyp0f1(sig, k, method="holonomic", return_error=True)
    assert abs(v[0] - ref) <= e[0] + ref_e


@pytest.mark.parametrize("k, sig", [
    (8, 10 ** np.linspace(3, 2, 4)),
    (12, 10 ** np.linspace(3, 2, 6)),
    (16, 10 ** np.linspace(3, 2, 8)),
])
def test_rank_deficient_against_holonomic(k, sig):
    """m < k non-zero σ: the Laplace term of the whole maximum set O(k − m) (module notes)."""
    flat = np.zeros((1, k))
    flat[0, :len(sig)] = sig
    v, e = formal.log_hyp0f1_formal(flat, k)
    # with auto's work allowance for one Lawson ray (the default runs out of steps at k = 16)
    ref, ref_e = log_hyp0f1(flat[0], k, method="holonomic", work=holonomic.AUTO_LAWSON_STEP_WORK, return_error=True)
    assert abs(v[0] - ref) <= e[0] + ref_e
    assert e[0] < 1e-10 * abs(v[0])


def test_at_moores_spread_row_it_meets_the_goal_and_agrees_with_wick():
    """k = 10, σ = 1000·(1 … 0.1): the formal series meets the goal with a gradient to 1e-10 and agrees with the
    order-3 Wick expansion within both figures; auto (which answers there from the expansion since its order-3
    figure extrapolates T₄) meets the goal too and agrees with it."""
    k = 10
    sig = 1000 * np.geomspace(1, 0.1, k)
    v, e = log_hyp0f1(sig, k, method="formal", return_error=True)
    assert e <= 1e-10 * abs(v)
    wick, wick_e = log_hyp0f1(sig, k, method="asymptotic", order=3, return_error=True)
    assert abs(v - wick) <= e + wick_e
    g, ge = grad_log_hyp0f1(sig, k, method="formal", return_error=True)
    gw, gwe = grad_log_hyp0f1(sig, k, method="asymptotic", order=3, return_error=True)
    assert np.max(np.abs(g - gw)) <= ge + gwe
    assert ge < 1e-10
    va, ea = log_hyp0f1(sig, k, return_error=True)
    assert ea <= 1e-10 * abs(va)
    assert abs(va - v) <= ea + e


def _rank_one_rows(k):
    """σ = (s, 0, …, 0): ₀F₁ = Γ(k/2)(s/2)^{1−k/2} I_{k/2−1}(s), the closed form (method="exact")."""
    flat = np.zeros((80, k))
    flat[:, 0] = np.geomspace(2.0, 500.0, 80)
    return flat


@functools.lru_cache(maxsize=None)
def _rank_one_references(k):
    return log_hyp0f1(_rank_one_rows(k), k, method="exact", return_error=True)


def _rank_one_violations(k):
    flat = _rank_one_rows(k)
    ref, ref_e = _rank_one_references(k)
    v, e = formal.log_hyp0f1_formal(flat, k)
    return np.isfinite(e), np.isfinite(e) & (np.abs(v - ref) > e + ref_e)


@pytest.mark.parametrize("k", [7, 9, 12, 20, 32])
def test_rank_one_with_a_large_first_term_against_the_closed_form(k):
    """With m < k non-zero σ the first term is large (c₁ = −(4ν² − 1)/(8s), ν = k/2 − 1, the Hankel
    coefficient of I_ν) and the terms may still fall to rounding: the series answers there without a gate on
    |c₁| and its figure holds, also at odd k, where the saddle T₁₁ = −1 (the e^{−s} part of I_ν) matters at
    small s."""
    finite, bad = _rank_one_violations(k)
    assert not bad.any(), _rank_one_rows(k)[bad, 0]
    c1 = np.array([formal._coset_series(row[:1], k, 1.0)[0][1] for row in _rank_one_rows(k)])
    nu = k / 2 - 1
    # m = 1: c₁ comes from a two-entry Walsh solve and a few products, the reference from four operations,
    # each rounding once (measured: 1 ulp)
    np.testing.assert_allclose(c1, -(4 * nu ** 2 - 1) / (8 * _rank_one_rows(k)[:, 0]), rtol=8 * formal.EPS)
    assert np.sum(finite & (np.abs(c1) > 0.5)) >= 5  # rows a gate |c₁| ≤ 0.5 refused (10–16 of them)


def test_planted_regime_removed_is_caught(monkeypatch):
    """Terms that do not fall (RHO removed): at small s the figures are false (measured true / figure
    up to 2.4 at k = 20, 6.4 at k = 32)."""
    monkeypatch.setattr(formal, "RHO", np.inf)
    assert any(_rank_one_violations(k)[1].any() for k in (20, 32))


def test_planted_saddle_without_its_series_factor_is_caught(monkeypatch):
    """The saddles' estimate without the factor Σ|cₙ|/Σ cₙ: at odd k and small s the figure falls below the
    true error (measured without it: k = 7, s = 2: 0.27 against 0.18; k = 9, s = 5: 4.7e-4 against 4.5e-4)."""
    assert not any(_rank_one_violations(k)[1].any() for k in (7, 9))
    true_coset = formal._coset
    monkeypatch.setattr(formal, "_coset", lambda *args: true_coset(*args)[:4] + (1.0,))
    assert any(_rank_one_violations(k)[1].any() for k in (7, 9))


def test_moores_size_rank_deficient_row_against_holonomic():
    """k = 20, σ = 300·(1 … 0.1) for 20 σ, the first ten kept and ten zeros (asv ``AutoAtMooresSize``):
    |c₁| = 0.59 and the terms fall to 3e-16 by order 13. auto answers from the series and meets the goal;
    the holonomic method (with a budget far above auto's: 9 s) agrees within both figures."""
    k = 20
    sig = np.r_[300 * np.geomspace(1, 0.1, k)[:10], np.zeros(10)]
    v, e = log_hyp0f1(sig, k, method="formal", return_error=True)
    assert e <= 1e-10 * abs(v)
    ref, ref_e = log_hyp0f1(sig, k, method="holonomic", rtol=1e-13, max_steps=10 ** 6, return_error=True)
    assert abs(v - ref) <= e + ref_e
    va, ea = log_hyp0f1(sig, k, return_error=True)
    assert ea <= 1e-10 * abs(va) and abs(va - v) <= ea + e


TIED_ROWS = ([(k, np.full(k, mu)) for k in (2, 3, 4, 6, 8) for mu in (30.0, 100.0, 1000.0, 1e4)]
              + [(4, np.array([300.0, 300.0, 100.0, 100.0])), (4, np.array([1e3, 1e3, 1e3, 40.0])),
                 (3, np.array([50.0, 50.0, 20.0])), (3, np.array([80.0, 30.0, 30.0])), (4, np.array([60.0, 60.0, 0.0, 0.0]))])


def _tied_violations():
    out = []
    for k, sig in TIED_ROWS:
        v, e, g, ge = formal.log_hyp0f1_formal(sig[None], k, want_grad=True)
        ref, ref_e = log_hyp0f1(sig, k, method="exact", return_error=True)
        gref, gref_e = grad_log_hyp0f1(sig, k, method="exact", return_error=True)
        out.append((np.isfinite(e[0]), abs(v[0] - ref) > e[0] + ref_e, np.max(np.abs(g[0] - gref)) > ge[0] + gref_e,
                    e[0] <= 1e-10 * abs(ref)))
    return np.array(out)


def test_ties_against_closed_forms():
    """Equal σ (Weyl's formula, any k), and runs of equal σ at k = 3, 4 (the closed forms): the tied row is
    spread three times and extrapolated (:func:`symcheck.hyp0f1.formal._tied`)."""
    finite, bad_v, bad_g, goal = _tied_violations().T
    assert not bad_v.any() and not bad_g.any()
    assert finite.sum() >= len(TIED_ROWS) - 3 and goal.sum() >= len(TIED_ROWS) - 4  # all but k ≥ 8 at σ = 30


@pytest.mark.parametrize("k, sig", [(6, np.r_[np.full(3, 100.0), np.full(3, 100 / 3)]),
                                    (5, np.r_[np.full(2, 100.0), np.full(3, 100 / 3)])])
def test_two_clusters_against_holonomic(k, sig):
    v, e = formal.log_hyp0f1_formal(sig[None], k)
    # with auto's work allowance for full-rank rays (the default runs out of steps at k = 6)
    ref, ref_e = log_hyp0f1(sig, k, method="holonomic", work=holonomic.AUTO_FULL_RANK_STEP_WORK, return_error=True)
    assert np.isfinite(e[0]) and abs(v[0] - ref) <= e[0] + ref_e


def test_planted_extrapolation_figure_left_out_is_caught(monkeypatch):
    """At a wider spread the extrapolation's own error matters, and only its term in the figure covers it."""
    monkeypatch.setattr(formal, "TIE_SPREAD", 0.05)
    assert not _tied_violations()[:, 1].any()
    monkeypatch.setattr(formal, "TIE_SAFETY", 0.0)
    assert _tied_violations()[:, 1].any()


def test_planted_leading_term_of_a_spread_row_is_caught(monkeypatch):
    """The leading term must be taken at the tie itself, not at the nearest spread row."""
    true_terms = formal._leading_terms

    def planted(srt, k):
        parts = true_terms(srt, k)
        if srt.shape[0] == 4:  # the tie and its three spread rows (formal._tied)
            parts["lead_plus"] = parts["lead_plus"].copy()
            parts["lead_plus"][0] = parts["lead_plus"][1]
        return parts

    monkeypatch.setattr(formal, "_leading_terms", planted)
    assert _tied_violations()[:, 1].any()


def _near_tie_rows(rng, n=60):
    """k = 3, 4 rows with a run of nearly equal σ, relative gaps 1e-8 to GAP_MIN (at k = 4 half of them two
    runs, half one run of three); a third of them with an exact tie beside the near one."""
    rows = []
    for i in range(n):
        k = 3 + i % 2
        s, g = 10 ** rng.uniform(0.7, 3), 10 ** rng.uniform(-8, np.log10(formal.GAP_MIN))
        if k == 3:
            sig = np.array([s, s * (1 - g), s * rng.uniform(0.1, 0.8)])
        elif i % 4 == 1:
            sig = np.array([s, s * (1 - g), s / 3, s / 3 * (1 - g * rng.uniform(0, 2))])
        else:
            sig = np.array([s, s * (1 - g), s * (1 - g * rng.uniform(1, 2)), s * rng.uniform(0.1, 0.8)])
        if i % 3 == 0 and k == 4:
            sig[3] = sig[2] if i % 4 == 1 else sig[3]
            sig[1] = sig[0] if i % 4 != 1 else sig[1]
        rows.append((k, sig))
    return rows


@functools.lru_cache(maxsize=None)
def _near_tie_references(seed):
    out = []
    for k, sig in _near_tie_rows(np.random.default_rng(seed)):
        ref, ref_e = log_hyp0f1(sig, k, method="exact", return_error=True)
        gref, gref_e = grad_log_hyp0f1(sig, k, method="exact", return_error=True)
        out.append((k, sig, ref, ref_e, gref, gref_e))
    return out


def _near_tie_violations(seed):
    """Per row: inside the domain, figure finite, value outside both figures, gradient outside both figures."""
    out = []
    for k, sig, ref, ref_e, gref, gref_e in _near_tie_references(seed):
        if formal.formal_reason(sig[None], k)[0]:
            out.append((False, False, False, False))
            continue
        v, e, g, ge = formal.log_hyp0f1_formal(sig[None], k, want_grad=True)
        out.append((True, np.isfinite(e[0]), abs(v[0] - ref) > e[0] + ref_e,
                    np.max(np.abs(g[0] - gref)) > ge[0] + gref_e))
    return np.array(out)


@pytest.mark.parametrize("seed", SEEDS)
def test_near_ties_against_closed_forms(seed):
    """Runs of nearly equal σ (not equal) are spread both ways and the even part extrapolated
    (:func:`symcheck.hyp0f1.formal._tied`): value and gradient within the figures of both routes."""
    inside, finite, bad_v, bad_g = _near_tie_violations(seed).T
    assert not bad_v.any() and not bad_g.any()
    # measured: every row inside the domain, 50 and 51 of 60 with finite figures (the others k = 4 rows with
    # σ₃ ≤ 25, where the terms turn before order 3 at an exact tie as well: figure inf)
    assert inside.all() and finite.sum() >= 45


def test_planted_near_tie_without_its_minus_rows_is_caught(monkeypatch):
    """Without the rows σ∘(1 − jδx) the extrapolated function is not even in jδ, and the polynomial in (jδ)²
    misses its odd part (measured: 5 of 79 rows outside their figures)."""
    true_rows = formal._spread_rows
    monkeypatch.setattr(formal, "_spread_rows", lambda srt_row, x: true_rows(srt_row, x)[:3])
    assert any(_near_tie_violations(seed)[:, 2].any() for seed in SEEDS)


@pytest.mark.parametrize("k, sig", [
    (5, np.r_[100 * (1 - 1e-4) ** np.arange(2), 100 / 3 * (1 - 1e-4) ** np.arange(3)]),
    (12, np.r_[100 * (1 - 1e-4) ** np.arange(3), 100 / 3 * (1 - 1e-4) ** np.arange(2), np.zeros(7)]),
])
def test_near_clusters_against_holonomic(k, sig):
    v, e = formal.log_hyp0f1_formal(sig[None], k)
    # with auto's work allowance for full-rank rays
    ref, ref_e = log_hyp0f1(sig, k, method="holonomic", work=holonomic.AUTO_FULL_RANK_STEP_WORK, return_error=True)
    assert np.isfinite(e[0]) and abs(v[0] - ref) <= e[0] + ref_e


@pytest.mark.parametrize("sig, why", [
    (np.zeros(4), "every singular value is 0"),
    (np.array([30.0, 29.97, 28.0, 5.0]), "would meet"),
    (np.array([30.0, 30.0, 29.0, 5.0]), "would meet"),
    (100 * (1 - 0.0015) ** np.arange(16), "too close to that limit"),
])
def test_domain(sig, why):
    with pytest.raises(ValueError, match=why):
        log_hyp0f1(sig, sig.shape[0], method="formal")


@pytest.mark.parametrize("sig", [[1e10, 3e9, 1e9], [1e150, 1e149, 0.0], [5e307, 1e307, 1e306]])
def test_extreme_sigma_against_the_closed_form(sig):
    """The recursion runs at σ/max σ and scales its terms by max σ⁻ⁿ, so σ² never overflows."""
    sig = np.array(sig)
    v, e = log_hyp0f1(sig, 3, method="formal", return_error=True)
    ref, ref_e = log_hyp0f1(sig, 3, method="exact", return_error=True)
    assert np.isfinite(e) and abs(v - ref) <= e + ref_e


def test_domain_extremes():
    with pytest.raises(ValueError, match="underflows"):
        log_hyp0f1(np.array([1e5, 1e-160, 0.0]), 3, method="formal")
    # outside the regime (tiny σ): a finite value with figure inf, never NaN
    v, e = log_hyp0f1(np.array([1e-300, 1e-301, 1e-302]), 3, method="formal", return_error=True)
    assert np.isfinite(v) and e == np.inf


def test_domain_size():
    sig = 1000 * np.geomspace(1, 0.1, formal.MAX_M + 1)
    with pytest.raises(ValueError, match="at most 16 non-zero"):
        log_hyp0f1(sig, formal.MAX_M + 1, method="formal")


# ---------------------------------------------------------------------------------- planted errors

def test_planted_small_safety_factor_is_caught(monkeypatch):
    monkeypatch.setattr(formal, "SAFETY", 0.5)
    assert any(_exact_violations(k, 0)[4].any() for k in (2, 3, 4))


def test_planted_coefficient_error_is_caught(monkeypatch):
    true_coefficients = formal._coefficients

    def planted(sig, b):
        a, beta, gamma = true_coefficients(sig, b)
        return a, beta, 1.01 * gamma

    monkeypatch.setattr(formal, "_coefficients", planted)
    assert _exact_violations(4, 0)[4].any()


def test_planted_other_critical_points_left_out_is_caught(monkeypatch):
    """At σ = (30, 10, 0, 0) the series' terms are ~1e-12 but the saddle at T₂₂ = −1 adds ~e^{−20}."""
    sig = np.array([30.0, 10.0, 0.0, 0.0])
    ref, ref_e = log_hyp0f1(sig, 4, method="exact", return_error=True)
    v, e = formal.log_hyp0f1_formal(sig[None], 4)
    assert abs(v[0] - ref) <= e[0] + ref_e
    monkeypatch.setattr(formal, "OTHER_SAFETY", 0.0)
    v, e = formal.log_hyp0f1_formal(sig[None], 4)
    assert abs(v[0] - ref) > e[0] + ref_e


def test_planted_gap_limit_removed_is_caught(monkeypatch):
    """Below GAP_MIN the recursion loses ~ε/g² and the rounding probe does not see all of it."""
    monkeypatch.setattr(formal, "GAP_MIN", 0.0)
    rng = np.random.default_rng(0)
    base = 10 ** rng.uniform(1.5, 3.5, 40)
    flat = np.stack([base, base * (1 - 10 ** rng.uniform(-9, -6, 40))], axis=1)
    v, e = formal.log_hyp0f1_formal(flat, 2)
    ref, ref_e = log_hyp0f1(flat, 2, method="exact", return_error=True)
    assert np.any(np.isfinite(e) & (np.abs(v - ref) > e + ref_e))
