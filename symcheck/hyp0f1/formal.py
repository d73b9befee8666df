"""log ₀F₁(k/2; AAᵀ/4) at large σ from the formal solution of Muirhead's system at s = ∞.

The Pfaffian system of :mod:`symcheck.hyp0f1.holonomic` (its module docstring: the state
G_S = E_Haar[∏_{i∈S} Tᵢᵢ e^{sΣσᵢTᵢᵢ}] on the ray sσ, S ⊆ {1..m} over the m non-zero σ) reads
dG/ds = M(u) G with u = 1/s and M(u) = Σ_p M_p u^p, a polynomial that the holonomic module's recursion
for Q(i, S) builds. At the irregular singular point s = ∞ it has the formal solution (Wasow 1965, ch. IV)

    G(s) = e^{λs} s^d Σ_{n≥0} gₙ s⁻ⁿ,   λ = Σσ,   d = −[m(m−1)/2 + m(k−m)]/2,   g₀ = 𝟙,

and order by order

    (M₀ − λ) gₙ = (d − n + 1) g_{n−1} − Σ_{p=1}^{n} M_p g_{n−p}.                              (1)

M₀ = Σᵢ σᵢ·(flip i) is diagonal in the Walsh basis with eigenvalues Σεᵢσᵢ; λ belongs to ε = (+, …, +)
alone (σ distinct from each other's signed sums), so (1) fixes gₙ off the constant vector 𝟙, and its
solvability (the 𝟙-component of the right-hand side is zero) fixes the 𝟙-part of g_{n−1}. The identity
coset's Laplace integral I₊ = ∫_{SO(k)} is a formal solution with the same exponent, so with
cₙ = (gₙ)_∅ and hₙ,ᵢ = (gₙ)_{{i}}

    log I₊ = L₊ + log Σₙ cₙ,    ∂ log I₊/∂σᵢ = Σₙ hₙ,ᵢ / Σₙ cₙ   (at s = 1),

L₊ the Laplace leading term of :mod:`symcheck.hyp0f1.asymptotic` (whose Wick terms are exactly
T₁ = c₁, T₂ = c₂ − c₁²/2, T₃ = c₃ − c₁c₂ + c₁³/3: tests/test_hyp0f1_formal_series.py). So this is the
asymptotic expansion carried to any order, one linear solve (a Walsh–Hadamard transform) per order.
The other coset D·SO(k), D = diag(1, …, 1, −1), is the same series at σ with its smallest entry
negated (the integral is even in each σᵢ), and log ₀F₁ = log(I₊ + I₋); where its leading term is below
``NEGLIGIBLE_MINUS`` of I₊'s, or where :mod:`~symcheck.hyp0f1.asymptotic` drops it (with its bound),
only its bound is counted.

Zero singular values (m < k non-zero). The maximum of Σᵢ σᵢTᵢᵢ is then the whole set
{diag(I_m, R): R ∈ O(k − m)}, and Laplace's method over its N = m(m−1)/2 + m(k−m) normal directions
(curvatures σᵢ + σⱼ for i < j ≤ m, and σᵢ, k − m times, against each zero) gives the leading term

    L = Σσ + (N/2) log 2π − ½ Σ_{i<j≤m} log(σᵢ + σⱼ) − ((k−m)/2) Σ_{i≤m} log σᵢ + log Vol SO(k−m) − log Vol SO(k)

(Vol SO as in :func:`symcheck.hyp0f1.asymptotic.log_vol_so`, Vol SO(1) = 1; at m = k − 1 this is both
cosets' terms together), and the same recursion in the m non-zero σ with b = k/2 gives the rest; there is
no second maximum (the sign of T_mm can be rotated away through a zero's column).

Critical points left out. Every sign pattern ε (Tᵢᵢ = εᵢ) is a critical point; the summed series hold the
maximum (and the D·SO(k) coset at m = k). The others are saddles, exponentially smaller: at σ = (30, 10, 0, 0)
the one at T₂₂ = −1 moves log ₀F₁ by 2.9e-9 where the series' terms are ~1e-12. Their size is estimated by
the Laplace magnitude with |curvatures| (:func:`_other_critical_points`, one or two flips) times
Σ|cₙ|/Σ cₙ of the summed series, and ``OTHER_SAFETY`` times that joins the figure (10 × 2.7e-9 there). The
factor Σ|cₙ|/Σ cₙ: a saddle has its own series, with terms of the same size as the maximum's whose signs
need not cancel. For rank one at odd k (I_ν, ν half-integer) the e^{−s} part's series is exactly Σ|cₙ|, and
without the factor the figure fell below the true error where the first term is large (k = 7, σ = 2:
0.27 against 0.18; k = 9, σ = 5: 4.7e-4 against 4.5e-4).

Ties. The recursion divides by σᵢ² − σⱼ² (it loses ~ε/g² at a relative gap g), so it never runs on σ
closer than ``GAP_MIN`` = 0.2 %. Runs of σ closer than that to their neighbour, equal or nearly equal, are
spread and extrapolated (:func:`_tied`): the leading term is smooth through them and is taken at σ; the rest
R comes from rows with each run spread to σ∘(1 ± jδx), x from 1 to −1 along the run, j = 1, 2, 3, δ =
``TIE_SPREAD``: the even part E(j) = [R(σ∘(1 + jδx)) + R(σ∘(1 − jδx))]/2 is analytic and even in jδ with
E(0) = R(σ), so the polynomial in (jδ)² through the three values, at 0, is the answer. At an exact tie
x ↦ −x permutes the run and the minus rows are the plus rows (three rows, not six). Measured against Weyl's
formula (k equal σ, k ≤ 16) and the k = 3, 4 closed forms: errors 1e-13 – 7e-11, ≤ 0.02 of the figure; at
δ = 0.05 or 0.1 the extrapolation's term in the figure is what covers the error (a planted test). Nearly
equal runs (relative gaps 1e-8 – 2e-3), measured 2026-11-28: 598 rows at k = 3, 4 against the closed forms,
worst true / figure 0.09 (gradient 0.03); two runs at k = 5, 6 (σ_max = 100, gaps 1e-5 – 5e-4) and two runs
with zeros at k = 8–16 (σ_max = 100, 300) against the holonomic method, within both figures (worst 0.10 of
the formal figure beyond the holonomic one). With the plus rows alone (no even part) 5 of 79 rows at k = 3,
4 fell outside their figures (a planted test).

Cost. Each order applies every M_p to one vector at once: the Q(i, S) recursion carried with
polynomial-in-u coefficients (:func:`_poly_coupling`), O(P·m²·2^m) for P = ``MAX_ORDER`` + 2 powers, so
N orders cost O(N·P·m²·2^m) and memory O(P·m·2^m) (asv ``Formal``, σ = 1000·(1 … 0.1), value and rounding
probe: m = 10 in 10 ms, 12 in 50 ms, 16 in 1.2 s and ~0.1 GB; a tie costs three such rows and a probe,
a near tie six and a probe: 2.2 s and 4.9 s at m = 16 (two clusters at σ_max 100; 3.9 s and 8.9 s before
the powers were built in turn, 2026-11-29); the rows, then their probes, run on two threads,
:func:`_in_threads`). The method takes m ≤ ``MAX_M``.

Truncation and error figure (an estimate, not a bound; it also holds the two estimates above). The orders are summed while the terms fall:
|c_{n+1}| ≤ ``RHO``·|cₙ|; summing stops at the first order n whose term is
below the rounding of the value, at the first term that does not fall (an asymptotic series turns there),
or at ``MAX_ORDER``. The series is outside its regime (figure inf) where a term turns before order
``MIN_ORDER``. (|c₁| itself is not gated: with m < k non-zero σ the first term is large and the terms
still fall to rounding, e.g. |c₁| = 0.89 and 0.59 at k = 20, σ = σ_max·(1 … 0.1) for ten σ and ten zeros,
σ_max = 200 and 300, where the terms reach 5e-14 and 3e-16 by order 13. A gate |c₁| ≤ 0.5 refused such rows;
without it the figures hold against the rank-one closed form at k = 3–64, s = 0.3–500 (worst true / figure
0.47, with the saddles' factor Σ|cₙ|/Σ cₙ above) and the holonomic method at k = 8–32 with 2–11 non-zero σ; a
test plants RHO removed, measured 2026-11-28.)
The truncation figure is ``SAFETY``·|c_{N+1}|/|Σ_{n≤N} cₙ| for the first omitted term
c_{N+1} (for the gradient: the largest first omitted component of Σ hₙ/Σ cₙ). Rounding: the recursion is
run a second time on σ in the opposite order (a different sequence of floating-point operations on
the same mathematics); ``ROUND_SAFETY`` × the difference of the two values (and gradients), plus the
leading term's rounding bound, is added. Both safety factors are measured in
tests/test_hyp0f1_formal.py against routes that share none of this code: the holonomic method
(k = 5…8), the k = 2 Bessel function, the k = 3 one-dimensional integral, the k = 4 series, and at
near-coincident σ, where the recursion's divisions by σᵢ² − σⱼ² cost digits.

References
----------
Muirhead (1982), Thm. 7.5.6 (the system); Hashiguchi, Numata, Takayama & Takemura (2013) (its Pfaffian
form); Wasow (1965), *Asymptotic expansions for ordinary differential equations*, §§ 11–12 (formal
solutions at an irregular singular point of rank one).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from symcheck.hyp0f1 import asymptotic
from symcheck.hyp0f1.holonomic import _coefficients, _concurrently, _walsh

__all__ = ["MAX_M", "MAX_ORDER", "formal_reason", "log_hyp0f1_formal"]

#: Largest number of non-zero σ (the state has 2^m entries).
MAX_M = 16
#: The recursion runs only on non-zero σ that differ pairwise by at least this fraction of the larger; closer
#: neighbours form runs that are spread (measured: at a relative gap g the recursion loses about ε/g²
#: relative, 1e-3 at g = 2e-7; from g = 2e-3 the figures hold against the k = 2–4 closed forms, and the tie
#: extrapolation's rows, gaps 0.27 % at m = 16, meet Weyl's formula to 7e-11).
GAP_MIN = 2e-3
#: Non-zero σ below this fraction of the largest are outside the method (σᵢ² of σ/max σ underflows).
MIN_RATIO = 1e-150
#: Runs of equal or nearly equal σ are spread by ±j·TIE_SPREAD·(1 … −1) relative, j = 1, 2, 3, and
#: extrapolated (:func:`_tied`).
TIE_SPREAD = 0.02
#: Safety factor of the extrapolation's figure (TIE_SAFETY·|three-point − two-point answer|; measured).
TIE_SAFETY = 4.0
#: A run must be this far (relative) from the next value outside it, so that the spread runs stay apart.
TIE_SEPARATION = GAP_MIN + 6 * TIE_SPREAD
#: Highest order summed.
MAX_ORDER = 12
#: A series whose terms turn before this order is outside the regime (figure inf).
MIN_ORDER = 3
#: The regime: each summed term at most RHO times the one before (module notes).
RHO = 0.5
#: Safety factor of the truncation figure (SAFETY·|first omitted term|; measured, module notes).
SAFETY = 4.0
#: Safety factor of the rounding figure (ROUND_SAFETY·|difference of the two orderings|; measured).
ROUND_SAFETY = 8.0
#: The D·SO(k) coset's series is not computed where its leading term is below this fraction of I₊'s;
#: then 10 × that fraction is counted in the figure.
NEGLIGIBLE_MINUS = 1e-20
#: The rounding probe moves each σᵢ by this many ulps (relative), alternately up and down.
PROBE = 4.0

#: Safety factor of the estimate of the critical points the series leave out (:func:`_other_critical_points`).
OTHER_SAFETY = 10.0

EPS = float(np.finfo(float).eps)
_LOG_2PI = float(np.log(2 * np.pi))


@njit(cache=True, nogil=True)
def _poly_coupling(x, sig, a, beta, gamma, out, Q, acc):
    """out[p, S] = (M_p x)_S for p = 0 … P (P = out.shape[0] − 1): the Pfaffian matrix of
    :mod:`symcheck.hyp0f1.holonomic` applied to x, as a polynomial in u = 1/s.

    Q[p, i, S] holds the coefficient of u^p of Q(i, S)·x for i ∈ S (holonomic module docstring; the
    entries with i ∉ S are not touched); ``acc`` (n,) is workspace. In the recursion for Q(i, S) the
    power p + 1 takes Σ_{j ∈ S∖{i}} βᵢⱼ Q(j, S ∖ {i}) at power p (plus terms in x at p + 1 = 1, 2), so
    the powers are built in turn, each pair (i, j) over runs of consecutive S that hold both, and a
    call with P powers costs in proportion to P. Every sum is taken in the same order as set by set
    (ascending j), so the result is that of the loop over S in integer order to the bit (checked at
    m = 1–16); at m = 16 a call with P = 2 takes 20 ms instead of 85, with P = 14 about the same
    (the k = 16 near-clusters row of the report's goal table, σ_max 100: 9.5 s → 6.2 s on one thread).
    """
    n = x.shape[0]
    m = sig.shape[0]
    P = out.shape[0] - 1
    for i in range(m):
        bi = 1 << i
        for top in range(bi, n, 2 * bi):
            for S in range(top, top + bi):
                Q[0, i, S] = x[S ^ bi]
    for p in range(P):
        for i in range(m):
            bi = 1 << i
            dst = Q[p + 1, i]
            for top in range(bi, n, 2 * bi):
                for S in range(top, top + bi):
                    dst[S] = 0.0
            for j in range(m):
                if j == i:
                    continue
                bj = 1 << j
                lo, hi = min(bi, bj), max(bi, bj)
                src = Q[p, j]
                bij = beta[i, j]
                # runs [base, base + lo) of the S that hold i and j: base = S0 | bi | bj, S0 free of both
                for top in range(0, n, 2 * hi):
                    for mid in range(top, top + hi, 2 * lo):
                        base = mid | bi | bj
                        for S in range(base, base + lo):
                            dst[S] += bij * src[S ^ bi]
        if p > 1:
            continue
        for i in range(m):
            bi = 1 << i
            for top in range(bi, n, 2 * bi):
                for S in range(top, top + bi):
                    acc[S] = -a[i] * x[S] if p == 0 else 0.0
            for j in range(m):
                if j == i:
                    continue
                bj = 1 << j
                lo, hi = min(bi, bj), max(bi, bj)
                # runs [base, base + lo) of S with bits i, j as wanted: base = S0 | bits, S0 free of both
                for top in range(0, n, 2 * hi):
                    for mid in range(top, top + hi, 2 * lo):
                        if p == 0:  # S ∋ i, S ∌ j
                            base = mid | bi
                            for S in range(base, base + lo):
                                acc[S] += beta[i, j] * x[S ^ bi | bj]
                        else:  # S ∋ i, j: the u² term's Σ_{l ∈ S∖{i}} γᵢₗ(σᵢ x_{S∖i} − σₗ x_{S∖l}), l = j
                            base = mid | bi | bj
                            for S in range(base, base + lo):
                                acc[S] += gamma[i, j] * (sig[i] * x[S ^ bi] - sig[j] * x[S ^ bj])
            for top in range(bi, n, 2 * bi):
                for S in range(top, top + bi):
                    Q[p + 1, i, S] += acc[S]
    if P >= 1:
        for S in range(n):
            size = 0
            T = S
            while T:
                T &= T - 1
                size += 1
            out[1, S] = size * x[S]
    for p in range(P + 1):
        if p != 1:
            for S in range(n):
                out[p, S] = 0.0
    for i in range(m):
        bi = 1 << i
        for top in range(0, n, 2 * bi):
            for S in range(top, top + bi):
                out[0, S] += sig[i] * x[S | bi]
            for S in range(top + bi, top + 2 * bi):
                out[0, S] += sig[i] * Q[0, i, S]
        for p in range(1, P + 1):
            for top in range(bi, n, 2 * bi):
                for S in range(top, top + bi):
                    out[p, S] += sig[i] * Q[p, i, S]


def _coset_series(sig: np.ndarray, k: int, scale: float):
    """Terms of the formal series for the non-zero signed σ ``sig`` (m,): (c, h, n_summed, turned).

    ``c[n]`` = cₙ and ``h[n]`` = (hₙ,ᵢ)ᵢ for n = 0 … n_summed + 1 (the last is the first omitted term);
    ``turned``: the terms stopped falling (module notes). ``scale`` is the size of the value whose
    rounding ends the summation. The recursion runs at σ/max|σ| (no σ² overflows): the formal series at
    σ is that one at s = max|σ|, so its terms are those of σ/max|σ| times max|σ|⁻ⁿ.
    """
    m = sig.shape[0]
    n = 1 << m
    top = float(np.max(np.abs(sig)))
    unit = sig / top
    a, beta, gamma = _coefficients(unit, 0.5 * k)
    d = -(m * (m - 1) / 2 + m * (k - m)) / 2
    flips = ((np.arange(n)[:, None] >> np.arange(m)) & 1).astype(float)
    eig = -2.0 * (flips @ unit)  # Σεᵢσᵢ − Σσ for the Walsh mode ε of each bit mask (σ/max|σ|)
    P = MAX_ORDER + 2  # step n uses M_p g_j for p = n − j ≤ MAX_ORDER + 2 − j
    Q = np.zeros((P + 1, m, n))
    acc = np.zeros(n)

    def apply(x, j):
        out = np.empty((P - j + 1, n))
        _poly_coupling(np.ascontiguousarray(x), unit, a, beta, gamma, out, Q, acc)
        return out

    ones = np.ones(n)
    m_ones = apply(ones, 0)
    g, mg = [ones], [m_ones]
    singles = 1 << np.arange(m)
    c = [1.0]

    def result(last, summed, turned):
        with np.errstate(over="ignore", invalid="ignore"):
            h = np.array([g[j][singles] * np.power(top, -float(j)) for j in range(last + 1)])
        return np.array(c), h, summed, turned

    for step in range(1, MAX_ORDER + 3):
        if step >= 2:  # solvability of (1) at this step fixes the 𝟙-part of g_{step−1}
            r = g[step - 1]
            mr = apply(r, step - 1)
            rhs = mr[1].sum() + sum(mg[step - p][p].sum() for p in range(2, step + 1))
            alpha = -rhs / ((step - 1) * n)
            g[step - 1] = r + alpha
            mg[step - 1] = mr + alpha * m_ones[:mr.shape[0]]
            last = step - 1  # c_last is final
            with np.errstate(over="ignore", invalid="ignore"):
                c.append(g[last][0] * np.power(top, -float(last)))
            if last >= 2:
                t_new, t_old = abs(c[last]), abs(c[last - 1])
                if not t_new <= RHO * t_old:
                    return result(last, last - 1, True)
                if SAFETY * t_new < 0.01 * EPS * scale or last == MAX_ORDER + 1:
                    return result(last, last - 1, False)
        rhs = (d - step + 1) * g[step - 1] - sum(mg[step - p][p] for p in range(1, step + 1))
        _walsh(rhs)
        rhs[0] = 0.0
        rhs[1:] /= eig[1:]
        _walsh(rhs)
        g.append(rhs / n)
        mg.append(None)
    raise AssertionError("unreachable: the loop returns at MAX_ORDER + 1")


def _coset(sig: np.ndarray, k: int, scale: float):
    """log Σ cₙ, the gradient Σ hₙ/Σ cₙ (m,), their truncation figures (inf outside the regime), and
    Σ|cₙ|/Σ cₙ over the summed terms (:func:`_other_critical_points`), for the signed non-zero σ ``sig`` in
    the order given."""
    c, h, summed, turned = _coset_series(sig, k, scale)
    total = c[:summed + 1].sum()
    with np.errstate(divide="ignore", invalid="ignore"):  # outside the regime the terms may cancel to 0
        grad = h[:summed + 1].sum(axis=0) / total
        if turned and summed < MIN_ORDER or not total > 0:
            return np.log(abs(total)), grad, np.inf, np.inf, np.inf
    nxt = c[summed + 1]
    err = SAFETY * abs(nxt) / total
    g_next = (h[:summed + 2].sum(axis=0)) / (total + nxt)
    g_err = SAFETY * np.max(np.abs(g_next - grad))
    return np.log(total), grad, err, g_err, np.abs(c[:summed + 1]).sum() / total


def _row(flat_row: np.ndarray, k: int, lead_plus: float, lead_minus: float, probe: bool):
    """One row (σ sorted decreasingly, m ≥ 1 non-zero): log ₀F₁ − lead_plus, the gradient (k,), their
    truncation figures (module notes), and the largest Σ|cₙ|/Σ cₙ of the cosets summed. ``probe`` runs
    the recursion on σ in increasing order, each σᵢ moved by PROBE ulps (alternating in sign), for the
    rounding figure."""
    m = int(np.count_nonzero(flat_row))
    sig = flat_row[:m].copy()
    order = np.arange(m)
    if probe:
        sig = sig * (1 + PROBE * EPS * (-1.0) ** order)
        order = order[::-1]
    scale = max(1.0, abs(lead_plus))
    rel = lead_minus - lead_plus
    # the D·SO(k) coset's series, where it counts, first: outside its regime it fails at once
    minus = m == k and np.isfinite(rel) and rel >= np.log(NEGLIGIBLE_MINUS)
    if minus:
        flipped = sig.copy()
        flipped[-1] = -flipped[-1]
        s_minus, g_minus, e_minus, ge_minus, amp_minus = _coset(flipped[order], k, scale)
        if not np.isfinite(e_minus):
            return s_minus + rel, np.zeros(k), np.inf, np.inf, np.inf
    s_plus, g_plus, e_plus, ge_plus, amp = _coset(sig[order], k, scale)
    grad_plus = np.zeros(k)
    grad_plus[order] = g_plus
    if m < k or not np.isfinite(rel):  # no second coset (m < k), or I₋ dropped with its bound
        return s_plus, grad_plus, e_plus, ge_plus, amp
    if not minus:
        w = np.exp(rel)
        return s_plus + np.log1p(w), grad_plus, e_plus + 10 * w, ge_plus + 20 * w, amp
    grad_minus = np.zeros(k)
    grad_minus[order] = g_minus
    grad_minus[m - 1] = -grad_minus[m - 1]
    value = np.logaddexp(s_plus, rel + s_minus)
    w_minus = np.exp(rel + s_minus - value)
    grad = (1 - w_minus) * grad_plus + w_minus * grad_minus
    return (value, grad, (1 - w_minus) * e_plus + w_minus * e_minus, (1 - w_minus) * ge_plus + w_minus * ge_minus,
            max(amp, amp_minus))


def _leading_terms(srt: np.ndarray, k: int) -> dict:
    """Leading terms of each row of ``srt`` (n, k), σ sorted decreasingly, as in
    :func:`symcheck.hyp0f1.asymptotic.expansion_terms` (``lead_plus``, ``lead_minus``, ``round_lead``,
    ``dropped``), with rows of m < k non-zero σ replaced by the Laplace term of the whole maximum set
    (module notes: no second coset there, ``lead_minus`` = −inf, nothing dropped)."""
    parts = asymptotic.expansion_terms(srt, k, 0)
    parts = {name: parts[name].copy() for name in ("lead_plus", "lead_minus", "round_lead", "dropped")}
    nonzero = np.count_nonzero(srt, axis=1)
    for r in np.flatnonzero((nonzero < k) & (nonzero > 0)):
        m = int(nonzero[r])
        sig = srt[r, :m]
        iu, ju = np.triu_indices(m, 1)
        normal = len(iu) + m * (k - m)
        log_pairs = np.log(sig[iu] + sig[ju])
        log_sig = np.log(sig)
        terms = (sig.sum(), 0.5 * normal * _LOG_2PI, -0.5 * log_pairs.sum(), -0.5 * (k - m) * log_sig.sum(),
                 asymptotic.log_vol_so(k - m) - asymptotic.log_vol_so(k))
        parts["lead_plus"][r] = sum(terms)
        parts["lead_minus"][r] = -np.inf
        parts["dropped"][r] = 0.0
        size = sum(abs(t) for t in terms) + np.abs(log_pairs).sum() + (k - m) * np.abs(log_sig).sum()
        parts["round_lead"][r] = (len(iu) + m + 8) * EPS * size
    return parts


def _other_critical_points(sig: np.ndarray, k: int) -> float:
    """Estimated relative size of the critical points of Σσᵢ Tᵢᵢ on O(k) that the summed series leave
    out (module notes): Σ over sign patterns ε with one or two flips among the m non-zero σ (not the
    single flip of the smallest at m = k, the D·SO(k) coset, which is summed) of
    exp(−2Σ_{flipped} σᵢ)·∏_{i<j≤m} ((σᵢ + σⱼ)/|εᵢσᵢ + εⱼσⱼ|)^{1/2}, the Laplace magnitude with
    |curvatures|."""
    m = sig.shape[0]
    iu, ju = np.triu_indices(m, 1)
    patterns = [(i,) for i in range(m) if not (m == k and i == m - 1)] + [(i, j) for i in range(m) for j in range(i + 1, m)]
    total = 0.0
    for flips in patterns:
        eps_ = np.ones(m)
        eps_[list(flips)] = -1.0
        with np.errstate(divide="ignore"):
            log_ratio = 0.5 * np.sum(np.log(sig[iu] + sig[ju]) - np.log(np.abs(eps_[iu] * sig[iu] + eps_[ju] * sig[ju])))
        total += np.exp(-2.0 * sig[list(flips)].sum() + log_ratio)
    return total


def formal_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row, "" where the method applies, else why not (all σ zero, more than MAX_M non-zero σ, one below
    MIN_RATIO of the largest, a run of σ closer than GAP_MIN within TIE_SEPARATION of another value, or a run
    whose spread rows (:func:`_spread_rows`) come closer than GAP_MIN)."""
    out = np.full(flat.shape[0], "", dtype=object)
    nonzero = np.count_nonzero(flat, axis=1)
    out[nonzero == 0] = "every singular value is 0 (log 0F1 = 0 exactly: use method='exact')"
    out[nonzero > MAX_M] = f"the formal series takes at most {MAX_M} non-zero singular values"
    srt = -np.sort(-flat, axis=1)
    smallest = np.min(np.where(srt > 0, srt, np.inf), axis=1)
    out[(out == "") & (nonzero > 0) & (smallest < MIN_RATIO * srt[:, 0])] = (
        f"a non-zero singular value below {MIN_RATIO:g} of the largest (the recursion's sigma_i^2 underflows)")
    gap = _relative_gaps(srt)
    in_run = gap < GAP_MIN  # equal or nearly equal neighbours: spread and extrapolated (_tied)
    has_run = np.any(in_run, axis=1)
    apart = np.min(np.where(in_run, np.inf, gap), axis=1, initial=np.inf)
    out[has_run & (apart < TIE_SEPARATION) & (out == "")] = (
        f"a run of equal or nearly equal singular values (closer than {GAP_MIN:g} relative) within "
        f"{TIE_SEPARATION:g} (relative) of another value: the spread runs would meet")
    for r in np.flatnonzero(has_run & (out == "")):
        if np.min(_relative_gaps(-np.sort(-_spread_rows(srt[r], _spread_pattern(srt[r])), axis=1))) < GAP_MIN:
            out[r] = (f"a run of nearly equal singular values whose spread rows come closer than {GAP_MIN:g} "
                      "(relative): its gaps are too close to that limit for the run's length")
    if k == 1:
        out[:] = "the formal series needs k >= 2"
    return out


def log_hyp0f1_formal(flat: np.ndarray, k: int, want_grad: bool = False):
    """log ₀F₁(k/2; AAᵀ/4) from the formal solution at s = ∞, with its error figure (module notes).

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Validated singular values, every row inside the method's domain (:func:`formal_reason`).
    k : int
    want_grad : bool
        Also return the gradient and its figure.

    Returns
    -------
    value, error : ndarray, shape (n,)
        The error is an estimate (inf outside the regime: terms that turn before MIN_ORDER).
    grad, grad_error : ndarray, shapes (n, k) and (n,)
        Only with ``want_grad``: ∂ log ₀F₁/∂σ in the order of ``flat``'s columns (0 at σᵢ = 0: the
        integral is even in each σᵢ), and the error figure of its largest component.
    """
    perm = np.argsort(-flat, axis=1, kind="stable")
    srt = np.take_along_axis(flat, perm, axis=1)
    tied = np.any(_relative_gaps(srt) < GAP_MIN, axis=1)  # a run (:func:`_spread_pattern`)
    value, error = np.empty(flat.shape[0]), np.empty(flat.shape[0])
    grad_srt, grad_error = np.empty(flat.shape), np.empty(flat.shape[0])
    if (~tied).any():
        value[~tied], error[~tied], grad_srt[~tied], grad_error[~tied] = _distinct(srt[~tied], k)
    for r in np.flatnonzero(tied):
        value[r], error[r], grad_srt[r], grad_error[r] = _tied(srt[r], k)
    grad = np.empty_like(grad_srt)
    np.put_along_axis(grad, perm, grad_srt, axis=1)
    if want_grad:
        return value, error, grad, grad_error
    return value, error


def _relative_gaps(srt: np.ndarray) -> np.ndarray:
    """(σᵢ − σᵢ₊₁)/σᵢ of rows sorted decreasingly (n, k − 1), inf where σᵢ₊₁ = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(srt[:, 1:] > 0, (srt[:, :-1] - srt[:, 1:]) / srt[:, :-1], np.inf)


def _spread_pattern(srt_row: np.ndarray) -> np.ndarray:
    """x (k,): for each run of r ≥ 2 non-zero σ, each closer than GAP_MIN (relative) to the next (equal or
    nearly equal), r points from 1 down to −1 evenly (a pattern that the reversal of the run maps to −x), 0
    elsewhere."""
    x = np.zeros(srt_row.shape[0])
    start = 0
    while start < srt_row.shape[0]:
        stop = start + 1
        while (stop < srt_row.shape[0] and srt_row[stop] > 0
               and srt_row[stop - 1] - srt_row[stop] < GAP_MIN * srt_row[stop - 1]):
            stop += 1
        if stop - start >= 2:
            x[start:stop] = np.linspace(1.0, -1.0, stop - start)
        start = stop
    return x


def _spread_rows(srt_row: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The rows (j = 1, 2, 3) σ∘(1 + jδx), δ = TIE_SPREAD, x = :func:`_spread_pattern` of the row, and, where a
    run is not exactly tied, the rows σ∘(1 − jδx) after them (:func:`_tied`)."""
    signs = (1.0,) if _exact_runs(srt_row, x) else (1.0, -1.0)
    return np.array([srt_row * (1 + sign * j * TIE_SPREAD * x) for sign in signs for j in (1, 2, 3)])


def _exact_runs(srt_row: np.ndarray, x: np.ndarray) -> bool:
    """Whether every run of the spread pattern x holds exactly equal σ."""
    inside = (x[1:] != 0) & (x[:-1] > x[1:])  # consecutive members of one run
    return bool(np.all(srt_row[1:][inside] == srt_row[:-1][inside]))


def _lead_gradient(srt: np.ndarray, k: int) -> np.ndarray:
    """∂/∂σ (n, k) of the leading term L of :func:`_leading_terms` (the I₊ term where m = k):
    1 − ½Σ_{j≠i, σⱼ>0} 1/(σᵢ + σⱼ) − (k − m)/(2σᵢ) on the non-zero σᵢ, 0 on the zeros."""
    out = np.zeros_like(srt)
    for r in range(srt.shape[0]):
        m = int(np.count_nonzero(srt[r]))
        sig = srt[r, :m]
        inv = 1.0 / (sig[:, None] + sig[None, :])
        np.fill_diagonal(inv, 0.0)
        out[r, :m] = 1.0 - 0.5 * inv.sum(axis=1) - 0.5 * (k - m) / sig
    return out


def _tied(srt_row: np.ndarray, k: int):
    """A row with runs of equal or nearly equal non-zero σ (sorted decreasingly): value, figure, gradient
    (sorted order), figure.

    The leading term L is smooth through ties and is taken at σ itself; the rest, R = V − L, from the formal
    series at σ with each run spread to σ∘(1 ± jδx), δ = TIE_SPREAD, j = 1, 2, 3 (:func:`_spread_pattern`),
    where the values are distinct. E(j) = [R(σ∘(1 + jδx)) + R(σ∘(1 − jδx))]/2 is analytic and even in jδ
    with E(0) = R(σ), so the polynomial in (jδ)² through the three values, at 0, is the answer (weights 1.5,
    −0.6, 0.1). Where every run is exactly tied, x ↦ −x permutes each run and R is symmetric, so the minus
    rows equal the plus rows and are not computed. Its figure: the rows' figures (averaged over ±) with those
    weights, plus TIE_SAFETY × its distance to the two-point answer (weights 4/3, −1/3). The gradient likewise
    (at an exact tie averaged over each run, whose components are then equal).
    """
    x = _spread_pattern(srt_row)
    rows = _spread_rows(srt_row, x)
    sides = rows.shape[0] // 3
    perm = np.argsort(-rows, axis=1, kind="stable")  # the minus rows reverse the order inside a run
    srt_rows = np.take_along_axis(rows, perm, axis=1)
    # one rounding probe, at the j = 1 row with the closest σ (where the recursion loses most), stands for all
    closest = np.min(_relative_gaps(srt_rows[::3]), axis=1)
    probe = np.zeros(rows.shape[0], bool)
    probe[3 * int(np.argmin(closest))] = True
    v, e, g_srt, ge, rv, rg = _distinct(srt_rows, k, probe=probe, return_probe=True)
    e[~probe] += rv[probe]
    ge[~probe] += rg[probe]
    stacked = np.vstack([srt_row, srt_rows])  # σ itself, then the spread rows
    lead, lead_g_all = _leading_terms(stacked, k), _lead_gradient(stacked, k)
    lead_grad = lead_g_all[0]
    g, lead_g = np.empty_like(g_srt), np.empty_like(g_srt)
    np.put_along_axis(g, perm, g_srt, axis=1)
    np.put_along_axis(lead_g, perm, lead_g_all[1:], axis=1)
    # the even parts E(j): the plus and minus rows averaged
    rest = (v - lead["lead_plus"][1:]).reshape(sides, 3).mean(axis=0)
    rest_g = (g - lead_g).reshape(sides, 3, -1).mean(axis=0)
    e, ge = e.reshape(sides, 3).mean(axis=0), ge.reshape(sides, 3).mean(axis=0)
    if sides == 1:
        for val in np.unique(srt_row[x != 0]):
            run = np.flatnonzero((srt_row == val) & (x != 0))
            rest_g[:, run] = rest_g[:, run].mean(axis=1, keepdims=True)
    w3, w2 = np.array([1.5, -0.6, 0.1]), np.array([4.0, -1.0, 0.0]) / 3
    value = lead["lead_plus"][0] + w3 @ rest
    error = np.abs(w3) @ e + TIE_SAFETY * abs(w3 @ rest - w2 @ rest) + lead["round_lead"][0]
    grad = lead_grad + w3 @ rest_g
    grad_error = (np.abs(w3) @ ge + TIE_SAFETY * np.max(np.abs(w3 @ rest_g - w2 @ rest_g)) + 8 * EPS * k
                  + lead["round_lead"][0])  # the cosets' weights (:func:`_distinct`)
    if not (np.isfinite(error) and np.isfinite(value)):
        return lead["lead_plus"][0], np.inf, np.clip(lead_grad, 0.0, 1.0), np.inf
    return value, error, grad, grad_error


def _in_threads(calls) -> list:
    """``[f(*args) for f, args in calls]``, on Numba's thread count (holonomic._concurrently: one thread in the
    report's workers; :func:`_poly_coupling`, the bulk of a row, releases the GIL), raising the first exception
    in order. The rows are independent, so the results are the same bit for bit."""
    out = _concurrently(calls)
    for outcome in out:
        if isinstance(outcome, BaseException):
            raise outcome
    return out


def _distinct(srt: np.ndarray, k: int, probe: np.ndarray | None = None, return_probe: bool = False):
    """Rows (n, k) of σ sorted decreasingly with distinct non-zero entries: value, figure, gradient (sorted
    order), figure (module notes). Rows where ``probe`` is False skip the rounding probe and leave its term
    out of their figures; ``return_probe`` also returns those terms (value, gradient) per row."""
    n_rows = srt.shape[0]
    probe = np.ones(n_rows, bool) if probe is None else probe
    round_v, round_g = np.zeros(n_rows), np.zeros(n_rows)
    parts = _leading_terms(srt, k)
    value, error = np.empty(n_rows), np.empty(n_rows)
    grad, grad_error = np.empty((n_rows, k)), np.empty(n_rows)
    lead = list(zip(parts["lead_plus"], parts["lead_minus"]))
    rows = _in_threads([(_row, (srt[r], k, *lead[r], False)) for r in range(n_rows)])
    probed = [r for r in range(n_rows) if probe[r] and np.isfinite(rows[r][2])]
    probes = dict(zip(probed, _in_threads([(_row, (srt[r], k, *lead[r], True)) for r in probed])))
    for r in range(n_rows):
        lp = lead[r][0]
        v, g, e, ge, amp = rows[r]
        v2, g2 = probes[r][:2] if r in probes else (v, g)
        value[r] = lp + v
        # the leading term's rounding, a dropped coset's bound, the critical points left out, the rounding
        # of the recursion, and the probe's own move of the value (|∂ log ₀F₁/∂σᵢ| ≤ 1)
        other = OTHER_SAFETY * (amp if np.isfinite(e) else 1.0) * _other_critical_points(
            srt[r, :np.count_nonzero(srt[r])], k)
        shared = (parts["round_lead"][r] + parts["dropped"][r] + other + 4 * EPS * abs(value[r])
                  + PROBE * EPS * srt[r].sum())
        with np.errstate(invalid="ignore"):  # NaN (a probe outside the regime) makes the figure inf below
            round_v[r], round_g[r] = ROUND_SAFETY * abs(v - v2), ROUND_SAFETY * np.max(np.abs(g - g2))
        error[r] = e + shared + round_v[r]
        grad[r] = g
        # the leading terms' rounding moves the cosets' weights e^{L₋ − L₊} (rel) and with them the gradient, by at
        # most w(1 − w)·δ·max|g₋ − g₊| ≤ δ/2 (k = 2, σ = (1e4, 1): 1.6e-13 against a figure of 9e-16 without it)
        grad_error[r] = ge + parts["dropped"][r] + 2 * other + round_g[r] + 4 * EPS + parts["round_lead"][r]
    # outside the regime the sum can overflow: the leading term stands in, with figure inf
    bad = ~np.isfinite(value)
    value[bad], error[bad | np.isnan(error)] = parts["lead_plus"][bad], np.inf
    grad[bad | ~np.isfinite(grad).all(axis=1)] = 1.0
    grad_error[~np.isfinite(error) | ~np.isfinite(grad_error)] = np.inf
    if return_probe:
        return value, error, grad, grad_error, round_v, round_g
    return value, error, grad, grad_error
