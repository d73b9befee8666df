"""Confluent (cluster-symmetric) Pfaffian system for F(σ) = ₀F₁(k/2; diag(σ)²/4) at exact and near ties.

Where several σ are exactly equal, the holonomic system of :mod:`holonomic` (rank 2^m) is singular on the
diagonal σᵢ = σⱼ, and that module spreads each cluster and extrapolates. Restricted to functions symmetric inside
each cluster, Muirhead's system closes on far fewer unknowns: for cluster sizes p₁…p_r the rank is ∏(p_c + 1)
instead of 2^m (the confluent, "diagonal-region" system; Noro (2016) derives its analogue for ₁F₁ of matrix
argument). This module derives it for ₀F₁ and integrates it along the ray sσ. Values less than GAP apart (relative)
form one cluster: the system runs at the clusters' means and :mod:`tie_expansion` adds the Taylor expansion in the
deviations from them, from the moments (1) the system holds, with a proven remainder.

F(σ) = E_{T ~ Haar O(k)}[exp(Σᵢ σᵢ Tᵢᵢ)]. Write ⟨X⟩ := E[X exp(Σ σᵢ Tᵢᵢ)], tᵢ := Tᵢᵢ, b = k/2. Zero σ are
dropped (the same system in the m non-zero variables with the same b, as in :mod:`holonomic`). The non-zero σ
form r clusters of exactly equal values a_c > 0 with sizes p_c (m = Σ p_c).

Unknowns (orbit moments). For a tuple λ = (λ_1, …, λ_r) of partitions (λ_c with ≤ p_c parts)

    M(λ) = ⟨∏_c t_c^{λ_c}⟩,                                                                        (1)

the same for every monomial of the orbit because F is symmetric inside a cluster.

State. x_n = M((1^{n_1}), …, (1^{n_r})), 0 ≤ n_c ≤ p_c: ∏(p_c + 1) numbers, x_n = G_S of :mod:`holonomic` for any
square-free S with |S ∩ c| = n_c. x_0 = F and ∂F/∂σᵢ = x_{e_c} for i ∈ c, so ∂ log F/∂σᵢ = x_{e_c}/x_0.       (2)

Ray. With x_n(s) the moments at sσ,

    d x_n/ds = Σ_c a_c [(p_c − n_c) x_{n+e_c} + n_c Sq_c(n)],   Sq_c(n) = M(…, (2, 1^{n_c−1}), …).             (3)

Closing relations. Muirhead's equation (Muirhead 1982, Thm. 7.5.6; :mod:`holonomic` (1)) in σ-form, for i in
cluster c (i = the first member, by symmetry),

    E_i = ⟨t_i²⟩ + ((2b − 1)/σ_i)⟨t_i⟩ + Σ_{j≠i} g_ij − ⟨1⟩ = 0,                                            (4)

    g_ij = c3 ∂_iF + c4 ∂_jF, c3 = σ_j²/(σ_i(σ_i² − σ_j²)), c4 = −σ_j/(σ_i² − σ_j²)        (j in another cluster)
    g_ij = N/(σ_i − σ_j), N = c1 ∂_iF + c2 ∂_jF, c1 = σ_j²/(σ_i(σ_i + σ_j)), c2 = −σ_j/(σ_i + σ_j)   (same cluster)

and its derivatives R(i, α) = ∂^α E_i at the tie; N vanishes on σ_i = σ_j, and in w = σ_i − σ_j, ζ = σ_j

    ∂_i^a ∂_j^b g |tie = Σ_{l=0}^{b} C(b, l)(−1)^l/(a + l + 1) · ∂_i^{a+l+1}(∂_i + ∂_j)^{b−l} N |tie,           (5)

expanded by Leibniz with the Taylor coefficients of c1…c4 (:func:`_coef_tables`).
Homogeneity: with y_λ = s^{|λ|} M_λ(sσ), R(i, α) at sσ reads (A0 + s² A2) y = 0, A0 assembled at s = 1, A2 = the
single −⟨t^α⟩ entry.                                                                                           (6)

Which relations (square, block triangular). Every moment met has per-cluster degree ≤ p_c + 1 with at most one
cluster at p_c + 1, and total degree ≤ m + 1. The top-degree part of R(i, α) (degree |α| + 2) is ⟨t_i² t^α⟩ plus
the same-cluster g_ij with every derivative on F (coefficients c1 = ½, c2 = −½ at the tie): it moves only cluster
c's partition, with constant coefficients, so it is the single-cluster block T(p_c, D_c) (rows α_c ⊢ D_c − 2,
columns μ ⊢ D_c) times the identity on the other clusters' shapes. Each non-state unknown λ is assigned to one
cluster c(λ): the cluster at p_c + 1 if there is one, else the last cluster whose partition is not a column (1^j).
The unknowns of one block (c, λ_{−c}, D_c) are (μ, λ_{−c}) over the non-column μ ⊢ D_c; its rows are R(i, α)
with α_{−c} = λ_{−c} and α_c from a fixed square, nonsingular selection S(p_c, D_c) of the single-cluster rows
(pivoted QR, :func:`_single_cluster_rows`). The only other top-degree column such a row touches is
(1^{D_c}, λ_{−c}), a state or assigned to an earlier cluster. So ordering blocks by (total degree, cluster) makes
the chosen system block lower triangular with constant, pre-inverted diagonal blocks: one sparse sweep per
evaluation of (3) (:func:`_sweep`), no dense solve, and only as many relations assembled as there are unknowns.

Initial values. At s₀ = ŝ/Σσ (s₀ = 1 where Σσ ≤ ŝ) the zonal series with derivatives (Koev & Edelman 2006
branching, as :func:`holonomic._initial_state`) carried with one count per cluster instead of one flag per
variable (:func:`_count_state`): the variables of a cluster processed one at a time, column = number
differentiated so far in each cluster,

    P_v[κ, n] = Σ_μ ψ_{κ/μ} (w_v P_{v−1}[μ, n] + w_d P_{v−1}[μ, n − e_c]),                                    (7)

w_v = y^{2|κ/μ|}, w_d = |κ/μ| y^{2|κ/μ|−1} (y = s₀a_c/2); Σ_κ d_κ P_m[κ, n] is the sum of G_S over the
∏ C(p_c, n_c) sets S with counts n, all equal at a tie, so dividing by that gives x_n exactly.
Truncation as holonomic (INIT_TOL = 1e-18 relative to G_∅ ≥ 1).

Integration and tolerance. The rescaled state z = x e^{−sΣσ} s^{−d} (d = −[m(m−1)/2 + m(k−m)]/2, the exponent of
:mod:`formal`: F ~ e^{sΣσ} s^d, so z_∅ stays of one size along the ray) obeys dz/ds = (3)(z) − (d/s)z and is
integrated by DOP853 (Hairer, Nørsett & Wanner 1993, via SciPy) with the relative tolerance per component and an
absolute one ATOL_REL times the step tolerance times |z_∅(s₀)|. Without the factor s^{−d} (until 2026-11-29, with
ATOL_REL = 0: an absolute tolerance tied to z_∅(s₀) was far too loose by s = 1, where z_∅ had fallen like s^d) the
tiny deep components of (5, 5) at k = m = 10 needed a relative accuracy their float64 derivatives cannot give (they
cancel far below their terms) and DOP853 stalled at s₀ (FINDINGS3.md §2); scaled, with ATOL_REL = 3e-3, that ray
takes ~11 000 evaluations, and k = m = 10 equal spectra (σ = 1–300, Weyl's formula in mpmath) come out ≤ 3.5e-11 off
(ratio true / figure ≤ 0.12). The coarse run's absolute tolerance is COARSE times looser too, so v − v_c sees what
it costs (at ATOL_REL = 1e6, 1.6e-9 off at k = m = 8, σ = 30·1₈, inside the figure; a planted test). Why an
absolute tolerance needs care at k = m: there Muirhead's system has a second analytic solution at σᵢ = 0 (∝ ∏σᵢ,
e.g. ∫ det(T) etr(ATᵀ) dT) that grows to F's size by s = 1, and it lives in the small, deep components
(~(s₀σ)^{|n|}); a loose absolute tolerance lets their early errors excite it. Measured on the unscaled state at
k = m = 8 (session 21; branch wip/confluent, FINDINGS3.md): σ = 30·1₈ against the
closed form, an absolute tolerance 1e-8 of the step tolerance times |z_∅| gave the error 6.4e-7 from ŝ = 16 and
9.9e-4 from ŝ = 8, 1e-14 gave 2.8e-13 and 5.2e-12 (8–15 times faster); two clusters (100⁴, (100/3)⁴) from ŝ = 12:
1e-14 → 2.0e-5 off, 1e-17 → 1.4e-10, 1e-20 and 0 → ≤ 3e-13 (ŝ = 8 and 12 agree there).

Error figure (an estimate, SAFETY measured on references this module does not use: :mod:`closed_form_mp`'s
equal spectra, the k ≤ 4 closed forms, the mpmath series, the holonomic route; tests/test_hyp0f1_confluent.py):

    SAFETY·(|v − v_c|/(COARSE − 1) + steps·u·(1 + |v|)) + SAFETY_NOISE·(u/NOISE)·max|v − v_p| + INIT_TOL
      + ROUNDING·(1 + |v|),

v_c the run at COARSE times the step tolerance, v_p the PROBES runs with the start's components disturbed by ±NOISE
relative (the rounding probe of :mod:`holonomic`, at the start only: :func:`_run`). With a relative tolerance the
early errors that excite the k = m solution scale with it, so v − v_c sees them; errors of the start itself are
the same in both runs, and the probe sees them. (The draft also ran from a second start at k = m; without it the
worst true / figure on equal spectra k = m = 2…8, σ = 1…300 was 0.08.) The gradient's figure is the same with
the gradients' largest differences. That form holds where rtol ≤ holonomic.TIGHT_RTOL and the coarse run took
fewer steps (:func:`holonomic.tolerance_limited`); elsewhere a short
ray takes one to a few steps set by DOP853's step-size limits rather than by the tolerance, the two runs can agree
to the last bit, and the finer can be the worse (k = 4, σ ≈ 3.28 · 1₄ nearly equal, rtol 5e-3: both runs alike,
1.6e-9 off with a figure 1e-13; k = 4, rtol 5e-3: the coarse run 4e-7 closer; found by a randomized search against
the mpmath series, 2026-11-29), so there |v − v_c| + steps·τ (τ the step tolerance, each accepted step's local
error estimate below it) replaces the first term, as holonomic's general estimate does.

Regime (:func:`confluent_reason`): at least one cluster of two or more values, each less than GAP (relative) from
the next (so distinct clusters are at least GAP apart: closer values would make the cross coefficients
1/(a_c² − a_d²) of (4) large, not measured), at most MAX_M non-zero σ (beyond LARGE_M only at k = m and in at most
MAX_CLUSTERS_LARGE clusters), Σσ ≤ MAX_SIGMA_SUM, and a step budget. Near ties add :mod:`tie_expansion`'s remainder
bounds (value and gradient, the latter expanded to second order) and the rounding of the means to the figures. At
k = m the start's rounding is amplified by up to k!/∏(s₀σᵢ) (the second solution's growth; the probe sees it), so
beyond START_LATER_M non-zero σ the start moves START_LATER later (ŝ = 16 at k = m = 10: 2.3 s of the count start
and ~1.3 s for the four rays of (5, 5), σ_max 10), where the system has at most START_LATER_MAX_STATES states (many
small clusters make the count start at ŝ = 16 slow: (2, 1⁸) 22 s; from ŝ = 12 7 s, the value as close).
At m ≤ 10 the spread between starts ŝ = 12 and 16 stays below a fifth of the figure on every cluster structure
tried ((9, 1) … (2, 2, 2, 2, 2), σ_max = 10–100, worst 0.23 at (9, 1), σ_max = 10; 2026-11-29).

Assembly (:func:`_assemble`). The coefficients of (4)–(5) are sums whose terms cancel. Assembled in float64, one
cluster of 12 had 6816 coefficients where exact rational assembly has 5712 (1104 rounding residues up to 2.4e-13
where the exact value is 0, the others up to 5e-10 off, relative); amplified in the deepest components' dz/ds (a
factor 2 off at k = m = 12, 1.5e-6 at k = m = 10, against finite differences of the count start) that error drives
the k = m solution, and σ = 10·1₁₂ came out 2.2e-8 off Weyl's formula with a figure 86 times smaller (the probe
disturbs the start only, so it does not see it). So the terms are summed in double-double (:mod:`double_double`),
from Taylor tables computed at TABLE_PREC bits, and each coefficient is rounded to float64 once
(tests/test_hyp0f1_confluent_assembly.py: the exact one within an ulp, or within u² of its row's largest where its
terms cancel by more than 1e16); sweeping in mpmath instead of float64 changes nothing. Measured (2026-11-29): k = m
= 10 equal spectra σ = 1–300 ≤ 6e-11 off Weyl from ŝ = 12 (1.5e-10 before) and from ŝ = 16; σ = 10·1₁₂ from ŝ = 16
7.5e-12 off. The Taylor tables reach total order ``table_order`` (the largest α_i + α_j + 2 over the rows); until
2026-11-29 they stopped at max p_c + 3, which cut the cross-cluster terms of rows like α = (t_i⁴ in one cluster,
t_j⁵ in another): every candidate relation outside the chosen square set then failed by 0.75–2.4 of its terms at
(5, 5) (≤ 9e-9 now; the test of that file), the chosen ones reached the state's derivatives only at m ≥ 11 ((6, 5),
(5, 5, 1), (4, 4, 3), (6, 6): the deepest dz/ds off by up to 1e3·z_∅, now ≤ 1e-8·z_∅ against finite differences of
the count start), and the values of the regime moved by ≤ 7e-13 (the goal table's confluent rows).
m = 11, 12 (MAX_M = 12, beyond LARGE_M = 10) start at START_LARGE = 14 with the absolute tolerance ATOL_REL_LARGE =
1 times the step tolerance (×|z_∅(s₀)|), for cost: at k = m = 12, two clusters σ = (10⁶, (10/3)⁶), the count start
takes ~2 s at ŝ = 14 and ~8 s at ŝ = 16, and a fine ray from ŝ = 14 577 000 evaluations at ATOL_REL, 50 000 at
0.3, 39 000 at 1 (from ŝ = 12 more than 2·10⁶ at ATOL_REL, 231 000 at 0.3); starts ŝ = 12, 14, 16 and these
tolerances agree within 4e-11 (log F = 24.9023021229; saddle-point importance sampling 24.85 ± 0.04, k̂ 0.82). The
coarse run's absolute tolerance is COARSE times looser too, so the figure sees what the looser tolerance costs.
Measured 2026-11-29 against Weyl's formula, equal spectra: k = m = 12, σ = 1–100, at 0.3 ≤ 2.7e-11 off (ratio true /
figure ≤ 0.04), at 1 ≤ 3.8e-11 (σ = 10–100, ≤ 0.01; 6–11 s a row); k = m = 11 ≤ 2.3e-11 (≤ 0.006); the gradient at
k = m = 11, 12, σ = 10, 30 ≤ 1.4e-13 off (ratio ≤ 0.004); (6, 6) at σ = (2⁶, (2/3)⁶), (3⁶, 1⁶) ≤ 2.2e-15 off the
float64 series (the gradient 4.4e-14, figure 1.9e-12); (6, 5) at k = 11 from ŝ = 12, 14, 16 within 0.01 of the
smallest figure; every two-cluster structure (p, m − p) at k = m = 11, 12, σ = (3ᵖ, 1^{m−p}), within 2e-14 of the
float64 series (its bound 1.3e-12; figures 3e-12 – 3e-11; 2–18 s a row; 2026-11-29). With the float64 assembly
σ = 10·1₁₂ was 6.3e-8 off with a figure 6.8e-10 (a planted test). At k > m the rays beyond LARGE_M are too long
((6, 6) at k = 14: more than 400 000 evaluations from every start ŝ = 12–16), so m > LARGE_M is taken only at
k = m, and only in at most MAX_CLUSTERS_LARGE clusters: with many clusters of widely spread values the ray runs out
of its budget ((2, 1⁹) at k = 11, σ = s·10·3⁻ᶜ, c = 0…9: more than MAX_EVALS at s = 2, 3, after ~85 s), and its
deepest dz/ds was not confirmed there (1.8e-6·z_∅ from finite differences of the count start).
"""
from __future__ import annotations

import functools
import itertools
import math

import mpmath
import numpy as np
import scipy.linalg
from numba import njit
from scipy.integrate import solve_ivp

from symcheck.evidence import ROUNDING
from symcheck.hyp0f1 import holonomic, series, tie_expansion
from symcheck.hyp0f1.double_double import dd_add, dd_mul, dd_mul_d, dd_recip_int
from symcheck.hyp0f1.partitions import partitions

__all__ = ["ATOL_REL", "COARSE", "GAP", "MAX_M", "MAX_SIGMA_SUM", "SAFETY", "confluent_reason",
           "grad_log_hyp0f1_confluent", "log_hyp0f1_confluent", "pole_coefficients", "taylor_coefficients"]

#: A ray's global error is checked against a second run at COARSE times its step tolerance (as holonomic).
COARSE = 16.0
#: Safety factor of the figure: the largest measured ratio true error / raw estimate, with a margin.
SAFETY = 10.0
#: Start ŝ for m < k and for k = m (later: fewer steps where the small components need a relative accuracy;
#: k = m = 8, two clusters at σ_max = 100: ~20 000 evaluations from ŝ = 12, ~160 000 from ŝ = 8).
START = 8.0
START_FULL_RANK = 12.0
#: Beyond START_LATER_M non-zero σ the start moves START_LATER later (module docstring, "Integration"): from ŝ = 8 the
#: ray of (5, 5) at k = 12 ran out of 400 000 evaluations, from ŝ = 12 it took 39 000; k = m = 10 equal spectra from
#: ŝ = 12 were 1.5e-10 off, from ŝ = 16 ≤ 2.7e-11 (σ = 3–100, against Weyl's formula in mpmath).
START_LATER_M = 8
START_LATER = 4.0
#: ... but only for systems of at most START_LATER_MAX_STATES states ∏(p_c + 1): the count start's cost grows with
#: them and with ŝ. k = m = 10, (2, 1⁸) at σ = (5, 5, 4.5, …, 1): 22 s from ŝ = 16, 7.1 s from 12; (2, 2, 2, 2, 2),
#: (3, 1⁷), (2, 2, 1⁶): 12–15 s against 4.3–4.5 s; the two starts' values within 4e-13 – 6e-12, below either figure
#: (8e-12 – 2.2e-11; measured 2026-11-29).
START_LATER_MAX_STATES = 100
#: Beyond LARGE_M non-zero σ (m = 11, 12) the start is START_LARGE and the absolute tolerance ATOL_REL_LARGE (module
#: docstring, "Assembly"): at k = m = 12, σ = (10⁶, (10/3)⁶), the count start takes ~2 s at ŝ = 14 and ~8 s at 16, and
#: the fine ray from ŝ = 14 577 000 evaluations at ATOL_REL, 119 000 at 3e-2, 50 000 at 0.3, 39 000 at 1 (values
#: within 4e-12).
LARGE_M = 10
START_LARGE = 14.0
ATOL_REL_LARGE = 1.0
#: Beyond LARGE_M non-zero σ, the most clusters (singletons included) the route takes (module docstring, "Regime"):
#: one or two clusters were measured against Weyl's formula and the series; (2, 1⁹) at k = 11, σ = s·10·3⁻ᶜ, ran out
#: of MAX_EVALS at s = 1–3 (80–90 s a try).
MAX_CLUSTERS_LARGE = 2
#: Largest strip-pair table the count start may build (holonomic tables: ~48 bytes a pair).
MAX_START_PAIRS = 6e7
#: DOP853's global error on log F came out 5–50 times its local rtol: step tolerance factor, and its floor.
ODE_TOL_FACTOR = 0.03
ODE_TOL_FLOOR = 3e-14
#: DOP853's absolute tolerance relative to the step tolerance times |z_∅(s₀)| of the state scaled by s^{−d} (module
#: docstring, "Integration"): k = m = 10 equal spectra σ = 1–300 ran 1.0–2.6 times faster than with 0, as accurate.
ATOL_REL = 3e-3
#: Rounding probe (as holonomic, at the start only): relative disturbance of the start's components, number of probe
#: runs, safety factor, and the largest response read as linear in NOISE.
NOISE = 1e-12
PROBES = 2
SAFETY_NOISE = 10.0
PROBE_LINEAR = 0.1
#: The tie expansion's remainder takes E X² and E X⁴ with twice their largest value over the ray's runs only where the
#: runs agree to this (relative); else the worst cases (:func:`_moment_bound`).
MOMENT_SPREAD = 0.1
#: Largest dense table of partition tuples (∏ over clusters of the partitions per cluster).
MAX_TUPLES = 5e7
#: Most non-zero σ the route takes (module docstring, "Regime").
MAX_M = 12
#: Consecutive non-zero σ less than this apart (relative to the larger) form one cluster (its mean, and the tie
#: expansion); clusters are therefore at least GAP apart. Zeros drop.
GAP = 1e-2
#: Largest Σσ the route accepts: its steps grow with Σσ (k = m = 8, σ = 300·1₈: ~2.4 s for the five runs); the
#: formal series and the asymptotic expansion take large σ.
MAX_SIGMA_SUM = 1e4
#: Right-hand-side evaluations a ray may use (DOP853: 12 a step) before StepBudgetExceeded.
MAX_EVALS = 200_000


# ----------------------------------------------------------------------------- input

# ----------------------------------------------------------------------------- series start by cluster counts

@njit(cache=True, nogil=True)
def _count_state(yv, sizes, dk, kap_idx, mu_idx, strip, psi, len_k, len_mu, out):
    """out[col(n)] = Σ_{S: |S∩c| = n_c} G_S from the truncated zonal series, eq. (7) of the module docstring.

    ``yv`` holds one y = s₀a_c/2 per cluster, ``sizes`` the p_c; the m variables are processed cluster by cluster.
    Columns are the mixed-radix index of n (radix p_c + 1, the last cluster fastest); only the columns reachable
    so far (n_d = 0 for the clusters not yet begun, n_c ≤ number of processed members) are touched. At the last
    variable the weights Σ_κ d_κ ψ_{κ/μ} w are gathered per μ first (as holonomic._initial_state).
    """
    r = sizes.shape[0]
    m = 0
    for c in range(r):
        m += sizes[c]
    ncol = 1
    stride = np.empty(r, dtype=np.int64)
    for c in range(r - 1, -1, -1):
        stride[c] = ncol
        ncol *= sizes[c] + 1
    digits = np.empty((ncol, r), dtype=np.int64)
    for col in range(ncol):
        rem = col
        for c in range(r):
            digits[col, c] = rem // stride[c]
            rem -= digits[col, c] * stride[c]
    npart = dk.shape[0]
    maxs = 0
    for q in range(strip.shape[0]):
        maxs = max(maxs, strip[q])
    pold = np.zeros((npart, ncol))
    pold[0, 0] = 1.0
    ypow = np.empty(2 * maxs + 1)
    gv = np.zeros(npart)
    gd = np.zeros(npart)
    src = np.empty(ncol, dtype=np.int64)
    for k in range(out.shape[0]):
        out[k] = 0.0
    n = 0
    for c in range(r):
        yn = yv[c]
        ypow[0] = 1.0
        for j in range(1, 2 * maxs + 1):
            ypow[j] = ypow[j - 1] * yn
        for j in range(sizes[c]):
            n += 1
            nsrc = 0  # source columns: clusters after c untouched, n_c ≤ j
            for col in range(ncol):
                ok = digits[col, c] <= j
                for d in range(c + 1, r):
                    if digits[col, d] != 0:
                        ok = False
                if ok:
                    src[nsrc] = col
                    nsrc += 1
            last = n == m
            st_c = stride[c]
            if last:
                for q in range(strip.shape[0]):
                    if len_k[q] > n or len_mu[q] > n - 1:
                        continue
                    st = strip[q]
                    wv = psi[q] * ypow[2 * st]
                    wd = psi[q] * st * ypow[2 * st - 1] if st > 0 else 0.0
                    gv[mu_idx[q]] += dk[kap_idx[q]] * wv
                    gd[mu_idx[q]] += dk[kap_idx[q]] * wd
                for t in range(nsrc):
                    col = src[t]
                    av = 0.0
                    ad = 0.0
                    for row in range(npart):
                        pm = pold[row, col]
                        av += gv[row] * pm
                        ad += gd[row] * pm
                    out[col] += av
                    out[col + st_c] += ad
                return
            pnew = np.zeros((npart, ncol))
            for q in range(strip.shape[0]):
                if len_k[q] > n or len_mu[q] > n - 1:
                    continue
                st = strip[q]
                wv = psi[q] * ypow[2 * st]
                wd = psi[q] * st * ypow[2 * st - 1] if st > 0 else 0.0
                kq = kap_idx[q]
                mq = mu_idx[q]
                for t in range(nsrc):
                    col = src[t]
                    pm = pold[mq, col]
                    pnew[kq, col] += wv * pm
                    pnew[kq, col + st_c] += wd * pm
            pold = pnew


def count_state(values, sizes, k, s, s_hat=None):
    """State x_n (n in itertools.product order over the clusters) at sσ from the count start, eq. (7).

    Parameters
    ----------
    values, sizes : sequence
        Cluster values a_c > 0 and sizes p_c.
    k : int
        Dimension (b = k/2).
    s : float
        Point of the ray.
    s_hat : float, optional
        Size ŝ for the truncation degree (default s·Σσ, i.e. the point itself).

    Returns
    -------
    x : ndarray, shape (∏(p_c + 1),)
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    values = np.asarray(values, dtype=float)
    m = int(sizes.sum())
    if s_hat is None:
        s_hat = s * float(np.dot(values, sizes))
    degree = holonomic._initial_degree(m, max(s_hat, 1e-3))
    npairs = series._count_pairs(m, degree, MAX_START_PAIRS)
    if npairs > MAX_START_PAIRS:
        raise ValueError(f"s_hat={s_hat} needs {npairs:.3g} strip pairs at m={m} (more than {MAX_START_PAIRS:.3g})")
    dk, pairs = holonomic._tables(m, degree, 0.5 * k)
    out = np.empty(int(np.prod(sizes + 1)))
    _count_state(0.5 * s * values, sizes, dk, *pairs, out)
    div = np.array([math.prod(math.comb(int(p), int(nc)) for p, nc in zip(sizes, n))
                    for n in itertools.product(*[range(int(p) + 1) for p in sizes])], dtype=float)
    return out / div


# ----------------------------------------------------------------------------- partitions and their keys

def _path_key(parts):
    """int64 code of a partition (sorted descending): its boundary path as bits, behind a leading 1."""
    key = 1
    prev = 0
    for v in reversed(parts):
        for _ in range(v - prev):
            key = (key << 1) | 1
        key <<= 1
        prev = v
    return key


@njit(cache=True)
def _segment_key(beta, lo, hi, buf):
    """The path key (:func:`_path_key`) of the partition formed by the non-zero entries of beta[lo:hi]."""
    n = 0
    for q in range(lo, hi):
        if beta[q] > 0:
            buf[n] = beta[q]
            n += 1
    for a in range(1, n):  # insertion sort, ascending
        v = buf[a]
        b = a - 1
        while b >= 0 and buf[b] > v:
            buf[b + 1] = buf[b]
            b -= 1
        buf[b + 1] = v
    key = np.int64(1)
    prev = 0
    for q in range(n):  # smallest part first = the reversed descending partition
        v = buf[q]
        for _ in range(v - prev):
            key = (key << 1) | 1
        key <<= 1
        prev = v
    return key


# ----------------------------------------------------------------------------- coefficient Taylor tables

def _t_mul(f, g):
    """Product of truncated bivariate Taylor series (coefficient arrays, total degree < n; any number type)."""
    n = f.shape[0]
    out = np.zeros_like(f)
    for a in range(n):
        for b in range(n - a):
            if f[a, b] != 0:
                out[a:, b:] += f[a, b] * g[:n - a, :n - b]
    ii, jj = np.indices(f.shape)
    out[ii + jj >= n] = 0
    return out


def _t_inv(f):
    """Truncated bivariate Taylor series of 1/f (coefficients by increasing total degree; any number type)."""
    n = f.shape[0]
    g = np.zeros_like(f)
    for tot in range(n):
        for a in range(tot + 1):
            b = tot - a
            acc = f[0, 0] ** 0 if tot == 0 else 0 * f[0, 0]
            for i in range(a + 1):
                for j in range(b + 1):
                    if i + j > 0:
                        acc -= f[i, j] * g[a - i, b - j]
            g[a, b] = acc / f[0, 0]
    return g


#: Working precision (bits) of the Taylor tables, which are rounded to double-doubles (:func:`_dd`).
TABLE_PREC = 200


def _dd(x):
    """Object array of mpf → float64 array with a trailing axis (hi, lo), hi + lo = x to ~2⁻¹⁰⁶ relative."""
    flat = np.asarray(x, dtype=object).ravel()
    hi = np.array([float(v) for v in flat])
    lo = np.array([float(v - mpmath.mpf(h)) for v, h in zip(flat, hi)])
    return np.stack([hi, lo], axis=-1).reshape(np.shape(x) + (2,))


def taylor_coefficients(u, v, n, same, one):
    """D[w, x, y] = ∂_i^x ∂_j^y of (c1, c2) (same cluster) or (c3, c4) at (σ_i, σ_j) = (u, v), orders < n, as an
    object array in the number type of ``one`` (mpf at a working precision, or Fraction for exact values)."""
    zero = one - one
    X = np.full((n, n), zero, dtype=object)
    X[0, 0] = type(one)(u)
    X[1, 0] = one
    Y = np.full((n, n), zero, dtype=object)
    Y[0, 0] = type(one)(v)
    Y[0, 1] = one
    inv = _t_inv(X + Y) if same else _t_inv(_t_mul(X, X) - _t_mul(Y, Y))
    f1 = _t_mul(_t_mul(_t_mul(Y, Y), _t_inv(X)), inv)
    f2 = -_t_mul(Y, inv)
    fact = np.array([math.factorial(i) for i in range(n)], dtype=object)
    scale = fact[:, None] * fact[None, :]
    return np.stack([f1 * scale, f2 * scale])


def pole_coefficients(a, k, n, one):
    """E[x] = ∂^x (k − 1)/σ at σ = a, x < n (the (2b − 1)/σ_i ⟨t_i⟩ term of (4)), in the number type of ``one``."""
    return np.array([(k - 1) * (-1) ** x * math.factorial(x) * one / type(one)(a) ** (x + 1) for x in range(n)],
                    dtype=object)


def _coef_tables(u, v, n, same):
    """:func:`taylor_coefficients` as double-doubles (last axis: high, low part), computed at TABLE_PREC bits."""
    with mpmath.workprec(TABLE_PREC):
        return _dd(taylor_coefficients(u, v, n, same, mpmath.mpf(1)))


def _pole_table(a, k, n):
    """:func:`pole_coefficients` as double-doubles, computed at TABLE_PREC bits."""
    with mpmath.workprec(TABLE_PREC):
        return _dd(pole_coefficients(a, k, n, mpmath.mpf(1)))


# ----------------------------------------------------------------------------- structure (values-independent)

@functools.lru_cache(maxsize=None)
def _cluster_partitions(p):
    """Partitions with ≤ p parts and size ≤ p + 1, by size; their path keys sorted, and the column flags."""
    parts = [()]
    for n in range(1, p + 2):
        parts.extend(partitions(n, p))
    keys = np.array([_path_key(q) for q in parts], dtype=np.int64)
    order = np.argsort(keys)
    return parts, keys[order], order.astype(np.int64)


def _is_column(part):
    return all(v == 1 for v in part)


@functools.lru_cache(maxsize=None)
def _single_cluster_rows(p, D):
    """Rows α_c = (a_i, rest) ⊢ D − 2 of the single-cluster top block T(p, D) whose restriction to the non-column
    μ ⊢ D (≤ p parts) is square and nonsingular (pivoted QR), and that block's inverse order.

    T's entries are the top-degree part of (4)–(5): ⟨t_i² t^α⟩ + Σ_j ½[∂-terms of N] with every derivative on F.
    Computed numerically from the generic assembly with one cluster of size p (values and k do not enter).
    Returns (list of α_c as (a_i, rest)).
    """
    cand = []
    for ai in range(D - 1):
        for rest in partitions(D - 2 - ai, p - 1):
            cand.append((ai, rest))
    cols = [q for q in partitions(D, p) if not _is_column(q)]
    if not cols:
        return []
    colidx = {q: t for t, q in enumerate(cols)}
    T = np.zeros((len(cand), len(cols)))
    for row, (ai, rest) in enumerate(cand):
        for part, val in _top_terms(p, ai, rest).items():
            if part in colidx:
                T[row, colidx[part]] += val
    _, R, piv = scipy.linalg.qr(T.T, pivoting=True, mode="economic")
    if abs(R[len(cols) - 1, len(cols) - 1]) < 1e-10 * abs(R[0, 0]):
        raise RuntimeError(f"single-cluster top block T({p}, {D}) is rank deficient")
    return [cand[q] for q in sorted(piv[:len(cols)])]


def _top_terms(p, ai, rest):
    """Top-degree part of R(i, α) in one cluster of size p (α = (ai, rest)): {partition: coefficient}."""
    alpha = [ai] + list(rest) + [0] * (p - 1 - len(rest))
    out = {}

    def add(beta, v):
        key = tuple(sorted((x for x in beta if x > 0), reverse=True))
        out[key] = out.get(key, 0.0) + v

    beta = list(alpha)
    beta[0] += 2
    add(beta, 1.0)
    for j in range(1, p):  # same-cluster g_ij, eq. (5) with c1 = ½, c2 = −½ and no derivative on them
        a, bb = alpha[0], alpha[j]
        for l in range(bb + 1):
            wl = math.comb(bb, l) * (-1) ** l / (a + l + 1)
            for rr in range(bb - l + 1):
                X, Y = a + l + 1 + rr, bb - l - rr
                w0 = wl * math.comb(bb - l, rr)
                b1 = list(alpha)
                b1[0], b1[j] = X + 1, Y
                add(b1, 0.5 * w0)
                b2 = list(alpha)
                b2[0], b2[j] = X, Y + 1
                add(b2, -0.5 * w0)
    return out


class ConfluentSystem:
    """Structure of the confluent system for cluster sizes ``sizes`` (values-independent, cached per sizes).

    Attributes
    ----------
    nU, nS : int
        Non-state unknowns and states; moment ids 0..nU−1 are the unknowns in block order (= row order), nU + q the
        state q (itertools.product order of n).
    rows_c, rows_alpha : ndarray
        Cluster and exponent vector α (length m, cluster-major) of the relation chosen for each unknown.
    blocks : ndarray (nblocks, 2)
        Start and size of each diagonal block (in row = unknown order).
    """

    def __init__(self, sizes):
        self.sizes = tuple(int(p) for p in sizes)
        r = self.r = len(self.sizes)
        m = self.m = sum(self.sizes)
        self.first = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        cp = [_cluster_partitions(p) for p in self.sizes]
        self.cparts = [c[0] for c in cp]
        ntup = math.prod(len(q) for q in self.cparts)
        if ntup > MAX_TUPLES:
            raise ValueError(f"sizes={self.sizes}: {ntup:.3g} partition tuples (more than {MAX_TUPLES:.3g})")
        self.tstride = np.array([math.prod(len(q) for q in self.cparts[c + 1:]) for c in range(r)], dtype=np.int64)
        # per-cluster lookup: sorted keys → partition index
        self.ckeys = np.concatenate([c[1] for c in cp])
        self.cperm = np.concatenate([c[2] for c in cp])
        self.coff = np.concatenate([[0], np.cumsum([len(q) for q in self.cparts])]).astype(np.int64)
        pindex = [{q: t for t, q in enumerate(parts)} for parts in self.cparts]
        self.pindex = pindex
        # states
        self.counts = list(itertools.product(*[range(p + 1) for p in self.sizes]))
        self.nS = len(self.counts)
        # blocks: (D, c, λ_{−c}, D_c) → unknowns (μ, λ_{−c}), μ non-column ⊢ D_c
        small = [[q for q in parts if sum(q) <= p] for parts, p in zip(self.cparts, self.sizes)]
        blocks = []
        for c in range(r):
            others = [small[d] if d != c else [None] for d in range(r)]
            for lam in itertools.product(*others):
                tot = sum(sum(q) for d, q in enumerate(lam) if d != c)
                later_columns = all(_is_column(lam[d]) for d in range(c + 1, r))
                for Dc in range(2, self.sizes[c] + 2):
                    if tot + Dc > m + 1:
                        break
                    if Dc <= self.sizes[c] and not later_columns:
                        continue
                    blocks.append((tot + Dc, c, lam, Dc))
        blocks.sort(key=lambda t: (t[0], t[1]))
        tmap = np.full(ntup, -1, dtype=np.int64)
        row_c, row_alpha, bstart, bsize, bkind = [], [], [], [], []
        self.kinds = {}
        nU = 0
        for D, c, lam, Dc in blocks:
            mus = [q for q in partitions(Dc, self.sizes[c]) if not _is_column(q)]
            sel = _single_cluster_rows(self.sizes[c], Dc)
            assert len(sel) == len(mus)
            bstart.append(nU)
            bsize.append(len(mus))
            for mu in mus:
                tup = 0
                for d in range(r):
                    q = mu if d == c else lam[d]
                    tup += pindex[d][q] * self.tstride[d]
                assert tmap[tup] == -1
                tmap[tup] = nU
                nU += 1
            for ai, rest in sel:
                alpha = np.zeros(m, dtype=np.int64)
                for d in range(r):
                    f = self.first[d]
                    if d == c:
                        alpha[f] = ai
                        alpha[f + 1:f + 1 + len(rest)] = rest
                    else:
                        alpha[f:f + len(lam[d])] = lam[d]
                row_c.append(c)
                row_alpha.append(alpha)
        self.nU = nU
        for q, n in enumerate(self.counts):
            tup = sum(pindex[d][(1,) * n[d]] * self.tstride[d] for d in range(r))
            tmap[tup] = nU + q
        self.tmap = tmap
        self.rows_c = np.array(row_c, dtype=np.int64)
        self.rows_alpha = np.array(row_alpha, dtype=np.int64).reshape(-1, m)
        self.blocks = np.stack([np.array(bstart, dtype=np.int64), np.array(bsize, dtype=np.int64)], axis=1) \
            if bstart else np.zeros((0, 2), dtype=np.int64)
        self.cl = np.repeat(np.arange(r), self.sizes).astype(np.int64)
        # degrees of the moments
        deg = np.zeros(nU + self.nS, dtype=np.int64)
        for b0, bs in self.blocks:
            deg[b0:b0 + bs] = int(self.rows_alpha[b0].sum()) + 2
        deg[nU:] = [sum(n) for n in self.counts]
        self.deg = deg
        # Taylor tables of c1…c4 to total order < table_order: a row needs ∂_i^x ∂_j^y with x + y ≤ α_i + α_j + 1
        # (eq. (5); cross clusters: x + y ≤ α_i + α_j). Until 2026-11-29 the tables stopped at max p_c + 3, which
        # cut the cross terms of rows like α = (t_i^4 in c, t_j^5 in d) at p = 5 (eq. (4)–(5) with wrong coefficients
        # at total degree ≥ 10; the state's derivatives wrong at m = 11, e.g. (6, 5), and moments like
        # M((4), (2, 1, …)) wrong at m = 10).
        lead_at = self.first[self.rows_c]
        lead = self.rows_alpha[np.arange(lead_at.size), lead_at]
        rest = np.where(np.arange(m) == lead_at[:, None], 0, self.rows_alpha).max(axis=1, initial=0)
        self.table_order = int(max(max(self.sizes) + 3, int(np.max(lead + rest, initial=0)) + 2))
        # Sq_c(n) ids and the shift of (3)
        sq_state, sq_c, sq_id = [], [], []
        for q, n in enumerate(self.counts):
            for c in range(r):
                if n[c] >= 1:
                    tup = sum(pindex[d][((2,) + (1,) * (n[c] - 1)) if d == c else (1,) * n[d]] * self.tstride[d]
                              for d in range(r))
                    sq_state.append(q)
                    sq_c.append(c)
                    sq_id.append(tmap[tup])
        self.sq_state = np.array(sq_state, dtype=np.int64)
        self.sq_c = np.array(sq_c, dtype=np.int64)
        self.sq_id = np.array(sq_id, dtype=np.int64)
        assert np.all(self.sq_id >= 0) and np.all(self.sq_id < nU)
        up_state, up_c, up_to = [], [], []
        index = {n: q for q, n in enumerate(self.counts)}
        for q, n in enumerate(self.counts):
            for c in range(r):
                if n[c] < self.sizes[c]:
                    nn = list(n)
                    nn[c] += 1
                    up_state.append(q)
                    up_c.append(c)
                    up_to.append(index[tuple(nn)])
        self.up_state = np.array(up_state, dtype=np.int64)
        self.up_c = np.array(up_c, dtype=np.int64)
        self.up_to = np.array(up_to, dtype=np.int64)
        self.state_e = [index[tuple(int(c == d) for d in range(r))] for c in range(r)]

    def assemble(self, values, k):
        """Numeric relations at s = 1 for cluster values ``values`` and dimension k (eq. (4)–(6)).

        Returns an :class:`Assembled` (CSR of the off-diagonal part of A0, the A2 column per row, the inverted
        diagonal blocks).
        """
        values = np.asarray(values, dtype=float)
        r, n = self.r, self.table_order
        same = np.stack([_coef_tables(values[c], values[c], n, True) for c in range(r)])
        cross = np.zeros((r, r, 2, n, n, 2))
        for c in range(r):
            for d in range(r):
                if d != c:
                    cross[c, d] = _coef_tables(values[c], values[d], n, False)
        etab = np.stack([_pole_table(values[c], k, n) for c in range(r)])
        comb = np.array([[math.comb(a, b) for b in range(2 * n + 2)] for a in range(2 * n + 2)], dtype=float)
        sizes = np.array(self.sizes, dtype=np.int64)
        indptr, indices, data, a2col, diag, dstart = _assemble(
            self.rows_c, self.rows_alpha, self.blocks, sizes, self.first, self.cl, self.ckeys, self.cperm,
            self.coff, self.tstride, self.tmap, same, cross, etab, comb)
        inv = _invert_blocks(diag, dstart, self.blocks)
        out = Assembled(indptr, indices, data, a2col, inv, dstart)
        return out


class Assembled:
    """Numeric system of :meth:`ConfluentSystem.assemble`."""

    def __init__(self, indptr, indices, data, a2col, inv, dstart):
        self.indptr, self.indices, self.data, self.a2col, self.inv, self.dstart = \
            indptr, indices, data, a2col, inv, dstart


@functools.lru_cache(maxsize=8)
def confluent_system(sizes):
    """Cached :class:`ConfluentSystem` per cluster sizes (it holds no values, no k)."""
    return ConfluentSystem(sizes)


# ----------------------------------------------------------------------------- numeric assembly (Numba)

@njit(cache=True)
def _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf):
    tup = 0
    for d in range(sizes.shape[0]):
        key = _segment_key(beta, first[d], first[d] + sizes[d], buf)
        lo, hi = coff[d], coff[d + 1]
        pos = lo + np.searchsorted(ckeys[lo:hi], key)
        if pos >= hi or ckeys[pos] != key:
            return -1
        tup += cperm[pos] * tstride[d]
    return tmap[tup]


@njit(cache=True)
def _add(acc, absum, mark, touched, nt, mid, vh, vl):
    """acc[mid] += vh + vl in double-double (acc[:, 0] high, acc[:, 1] low parts); absum[mid] += |vh|."""
    if mid < 0:
        raise RuntimeError("relation term outside the moment set")
    if mark[mid] == 0:
        mark[mid] = 1
        touched[nt] = mid
        nt += 1
    acc[mid, 0], acc[mid, 1] = dd_add(acc[mid, 0], acc[mid, 1], vh, vl)
    absum[mid] += abs(vh)
    return nt


#: An assembled coefficient whose double-double sum is below DD_ZERO times the sum of its terms' magnitudes is an
#: exact zero (double-double sums of n terms err by ≲ n·2⁻¹⁰⁴ of that sum; exact rational assembly of one cluster
#: of 12 has 1104 such zeros, which float64 left as residues up to 2.4e-13).
DD_ZERO = 2.0 ** -80


@njit(cache=True)
def _assemble(rows_c, rows_alpha, blocks, sizes, first, cl, ckeys, cperm, coff, tstride, tmap, same, cross, etab,
              comb):
    """Rows R(i, α) (eq. (4)–(5), i = first of cluster rows_c) at s = 1: off-diagonal CSR, A2 column, diagonal
    blocks (dense, flat, row-major per block, as double-doubles: diag[:, 0] high, diag[:, 1] low parts).

    Every coefficient is a sum of terms that cancel (module docstring, "Regime"), so the terms (from the
    double-double tables ``same``, ``cross``, ``etab``; last axis hi, lo) are summed in double-double
    (:mod:`double_double`) and rounded to float64 once; sums below DD_ZERO of their terms' size are dropped."""
    nrow = rows_c.shape[0]
    m = rows_alpha.shape[1]
    nmom = tmap.max() + 1
    nU = blocks[blocks.shape[0] - 1, 0] + blocks[blocks.shape[0] - 1, 1]
    acc = np.zeros((nmom, 2))
    absum = np.zeros(nmom)
    mark = np.zeros(nmom, dtype=np.int8)
    touched = np.empty(nmom, dtype=np.int64)
    buf = np.empty(m + 1, dtype=np.int64)
    cap = max(16, nrow * 64)
    indices = np.empty(cap, dtype=np.int64)
    data = np.empty(cap)
    indptr = np.zeros(nrow + 1, dtype=np.int64)
    a2col = np.empty(nrow, dtype=np.int64)
    nb = blocks.shape[0]
    dstart = np.zeros(nb + 1, dtype=np.int64)
    for b in range(nb):
        dstart[b + 1] = dstart[b] + blocks[b, 1] * blocks[b, 1]
    diag = np.zeros((dstart[nb], 2))
    beta = np.empty(m, dtype=np.int64)
    nnz = 0
    blk = 0
    for row in range(nrow):
        while blk + 1 < nb and blocks[blk + 1, 0] <= row:
            blk += 1
        c = rows_c[row]
        alpha = rows_alpha[row]
        i = first[c]
        ai = alpha[i]
        nt = 0
        # ⟨t_i² t^α⟩
        beta[:] = alpha
        beta[i] += 2
        nt = _add(acc, absum, mark, touched, nt,
                  _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf), 1.0, 0.0)
        # (2b − 1)/σ_i ⟨t_i⟩, Leibniz
        for x in range(ai + 1):
            beta[:] = alpha
            beta[i] += 1 - x
            vh, vl = dd_mul_d(etab[c, x, 0], etab[c, x, 1], comb[ai, x])
            nt = _add(acc, absum, mark, touched, nt,
                      _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf), vh, vl)
        # j ≠ i, grouped by (cluster, exponent): one representative j, times the multiplicity
        for j in range(m):
            if j == i:
                continue
            aj = alpha[j]
            d = cl[j]
            rep = True
            mult = 0
            for jj in range(first[d], first[d] + sizes[d]):
                if jj != i and alpha[jj] == aj:
                    if jj < j:
                        rep = False
                    mult += 1
            if not rep:
                continue
            if d != c:
                for x in range(ai + 1):
                    for y in range(aj + 1):
                        w = mult * comb[ai, x] * comb[aj, y]  # exact: a product of small integers
                        beta[:] = alpha
                        beta[i] += 1 - x
                        beta[j] -= y
                        vh, vl = dd_mul_d(cross[c, d, 0, x, y, 0], cross[c, d, 0, x, y, 1], w)
                        nt = _add(acc, absum, mark, touched, nt,
                                  _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf), vh, vl)
                        beta[i] -= 1
                        beta[j] += 1
                        vh, vl = dd_mul_d(cross[c, d, 1, x, y, 0], cross[c, d, 1, x, y, 1], w)
                        nt = _add(acc, absum, mark, touched, nt,
                                  _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf), vh, vl)
            else:
                a, bb = ai, aj
                for l in range(bb + 1):
                    rh, rl = dd_recip_int(float(a + l + 1))
                    wlh, wll = dd_mul_d(rh, rl, mult * comb[bb, l] * (-1.0) ** l)
                    for rr in range(bb - l + 1):
                        X = a + l + 1 + rr
                        Y = bb - l - rr
                        w0h, w0l = dd_mul_d(wlh, wll, comb[bb - l, rr])
                        for x in range(X + 1):
                            for y in range(Y + 1):
                                wh, wl = dd_mul_d(w0h, w0l, comb[X, x])
                                wh, wl = dd_mul_d(wh, wl, comb[Y, y])
                                beta[:] = alpha
                                beta[i] = X - x + 1
                                beta[j] = Y - y
                                vh, vl = dd_mul(wh, wl, same[c, 0, x, y, 0], same[c, 0, x, y, 1])
                                nt = _add(acc, absum, mark, touched, nt,
                                          _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf),
                                          vh, vl)
                                beta[i] -= 1
                                beta[j] += 1
                                vh, vl = dd_mul(wh, wl, same[c, 1, x, y, 0], same[c, 1, x, y, 1])
                                nt = _add(acc, absum, mark, touched, nt,
                                          _moment_id(beta, sizes, first, ckeys, cperm, coff, tstride, tmap, buf),
                                          vh, vl)
        a2col[row] = _moment_id(alpha, sizes, first, ckeys, cperm, coff, tstride, tmap, buf)
        b0 = blocks[blk, 0]
        bs = blocks[blk, 1]
        if nnz + nt > cap:
            while nnz + nt > cap:
                cap *= 2
            ni = np.empty(cap, dtype=np.int64)
            nd = np.empty(cap)
            ni[:nnz] = indices[:nnz]
            nd[:nnz] = data[:nnz]
            indices, data = ni, nd
        for t in range(nt):
            mid = touched[t]
            vh, vl = acc[mid, 0], acc[mid, 1]
            zero = abs(vh) <= DD_ZERO * absum[mid]
            acc[mid, 0] = 0.0
            acc[mid, 1] = 0.0
            absum[mid] = 0.0
            mark[mid] = 0
            if b0 <= mid < b0 + bs:
                q = dstart[blk] + (row - b0) * bs + (mid - b0)
                diag[q, 0], diag[q, 1] = dd_add(diag[q, 0], diag[q, 1], vh, vl)
            elif not zero:
                if b0 + bs <= mid < nU:
                    raise RuntimeError("relation references a later unknown (ordering broken)")
                indices[nnz] = mid
                data[nnz] = vh + vl
                nnz += 1
        indptr[row + 1] = nnz
    return indptr, indices[:nnz].copy(), data[:nnz].copy(), a2col, diag, dstart


@njit(cache=True)
def _invert_blocks(diag, dstart, blocks):
    """Inverse of each diagonal block A (double-double entries, :func:`_assemble`), to float64 accuracy: X₀ the float64
    inverse of A's high part, then one Newton step X = X₀ + X₀(I − A X₀) with the residual in double-double (its
    error is ~(κ u)² where X₀'s is κ u, κ the block's condition number)."""
    inv = np.empty(diag.shape[0])
    for b in range(blocks.shape[0]):
        bs = blocks[b, 1]
        off = dstart[b]
        x0 = np.linalg.inv(diag[off:dstart[b + 1], 0].copy().reshape(bs, bs))
        res = np.empty((bs, bs))
        for i in range(bs):
            for j in range(bs):
                rh, rl = (1.0, 0.0) if i == j else (0.0, 0.0)
                for t in range(bs):
                    ph, pl = dd_mul_d(diag[off + i * bs + t, 0], diag[off + i * bs + t, 1], x0[t, j])
                    rh, rl = dd_add(rh, rl, -ph, -pl)
                res[i, j] = rh + rl
        inv[off:dstart[b + 1]] = (x0 + x0 @ res).ravel()
    return inv


@njit(cache=True, nogil=True)
def _sweep(s, x, nU, deg, indptr, indices, data, a2col, inv, dstart, blocks, y):
    """Non-state moments y (scaled, eq. (6)) from the state x at sσ: block forward substitution
    y_B = −T_B⁻¹ (A0_off y + s² A2 y) over the blocks in order. Fills y (length nU + nS)."""
    s2 = s * s
    for q in range(x.shape[0]):
        y[nU + q] = x[q] * s ** deg[nU + q]
    rhs = np.empty(64)
    for b in range(blocks.shape[0]):
        b0 = blocks[b, 0]
        bs = blocks[b, 1]
        if rhs.shape[0] < bs:
            rhs = np.empty(bs)
        for t in range(bs):
            row = b0 + t
            acc = -s2 * y[a2col[row]]
            for p in range(indptr[row], indptr[row + 1]):
                acc += data[p] * y[indices[p]]
            rhs[t] = acc
        off = dstart[b]
        for t in range(bs):
            v = 0.0
            for u in range(bs):
                v += inv[off + t * bs + u] * rhs[u]
            y[b0 + t] = -v


@njit(cache=True, nogil=True)
def _rhs(s, z, total, nU, deg, indptr, indices, data, a2col, inv, dstart, blocks, y, values, sizes, counts_c,
         sq_state, sq_c, sq_id, up_state, up_c, up_to, out):
    """dz/ds for z = x e^{−sΣσ}, eq. (3) with Sq from :func:`_sweep` (linear in z, so z can be swept directly)."""
    _sweep(s, z, nU, deg, indptr, indices, data, a2col, inv, dstart, blocks, y)
    for q in range(z.shape[0]):
        out[q] = -total * z[q]
    for t in range(up_state.shape[0]):
        c = up_c[t]
        q = up_state[t]
        out[q] += values[c] * (sizes[c] - counts_c[q, c]) * z[up_to[t]]
    for t in range(sq_state.shape[0]):
        c = sq_c[t]
        q = sq_state[t]
        sq = y[sq_id[t]] * s ** (-deg[sq_id[t]])
        out[q] += values[c] * counts_c[q, c] * sq


class Ray:
    """Right-hand side of the ray ODE (3) for one (system, values, k), counting its evaluations against a budget."""

    def __init__(self, sy, values, k, max_evals):
        self.sy = sy
        self.values = np.asarray(values, dtype=float)
        self.asm = sy.assemble(self.values, k)
        self.total = float(np.dot(self.values, sy.sizes))
        m = int(np.sum(sy.sizes))
        self.exponent = -(m * (m - 1) / 2 + m * (k - m)) / 2  # d: F ~ e^{sΣσ} s^d along the ray
        self.sizes = np.array(sy.sizes, dtype=np.int64)
        self.counts_c = np.array(sy.counts, dtype=np.int64).reshape(sy.nS, sy.r)
        self.y = np.zeros(sy.nU + sy.nS)
        self.evals = 0
        self.max_evals = max_evals
        self.terms: dict = {}
        self.slopes: list = []
        self.curvature: list | None = None

    def expand(self, d_by_cluster: list) -> int:
        """Set the terms of :mod:`tie_expansion` (2) for the deviations ``d_by_cluster`` from the cluster values
        and the gradient's slope moments; returns the order n of the remainder."""
        sy = self.sy
        n, terms = tie_expansion.expansion_terms(d_by_cluster, lambda lam: self.moment_index(lam) >= 0)
        self.terms = {j: [(self.moment_index(lam), coef) for lam, coef in t] for j, t in terms.items()}
        none = ((),) * sy.r
        self.slopes = [(c, self.moment_index(none[:c] + ((2,),) + none[c + 1:]),
                        self.moment_index(none[:c] + ((1, 1),) + none[c + 1:]))
                       for c in range(sy.r) if np.any(d_by_cluster[c] != 0.0)]
        curv = tie_expansion.gradient_terms(d_by_cluster, lambda lam: self.moment_index(lam) >= 0) \
            if self.slopes else None
        self.curvature = None if curv is None else [
            (c, [(self.moment_index(lam), coef) for lam, coef in t])
            for c, t in zip([c for c, dc in enumerate(d_by_cluster) for _ in range(dc.size)], curv)]
        return n

    def moment_index(self, lam: tuple) -> int:
        """Index in the sweep's output of the moment M(λ) (−1 where the system does not hold it)."""
        sy = self.sy
        tup = 0
        for c, q in enumerate(lam):
            if q not in sy.pindex[c]:
                return -1
            tup += sy.pindex[c][q] * int(sy.tstride[c])
        return int(sy.tmap[tup])

    def finish(self, z: np.ndarray, log_scale: float):
        """(log F + the expansion's correction, gradient per cluster, the slope α_c per cluster, the second-order
        gradient terms κ(tᵢ, X, X)/2 per entry (cluster by cluster), {j: E Xʲ}) from the state ``z`` at s = 1,
        F = z₀·exp(``log_scale``): :mod:`tie_expansion` (1), (2), (4)."""
        sy, a = self.sy, self.asm
        g = np.array([z[q] / z[0] for q in sy.state_e])
        value = math.log(z[0]) + log_scale
        alpha = np.zeros(sy.r)
        moments: dict = {}
        half = np.zeros(0)
        if self.terms or self.slopes:
            _sweep(1.0, np.ascontiguousarray(z), sy.nU, sy.deg, a.indptr, a.indices, a.data, a.a2col, a.inv,
                   a.dstart, sy.blocks, self.y)
            y = self.y / self.y[sy.nU]
            moments = {j: math.fsum(coef * y[i] for i, coef in t) for j, t in self.terms.items()}
            value += tie_expansion.correction(moments)
            for c, i2, i11 in self.slopes:
                alpha[c] = y[i2] - y[i11]
            if self.curvature is not None:
                half = np.array([0.5 * (math.fsum(coef * y[i] for i, coef in t) - g[c] * moments.get(2, 0.0))
                                 for c, t in self.curvature])
        return value, g, alpha, half, moments

    def __call__(self, s, z):
        if self.evals >= self.max_evals:
            raise holonomic.StepBudgetExceeded(
                f"the confluent ray needs more than {self.max_evals} right-hand-side evaluations")
        out = np.empty_like(z)
        a, sy = self.asm, self.sy
        _rhs(s, np.ascontiguousarray(z), self.total, sy.nU, sy.deg, a.indptr, a.indices, a.data, a.a2col, a.inv,
             a.dstart, sy.blocks, self.y, self.values, self.sizes, self.counts_c, sy.sq_state, sy.sq_c, sy.sq_id,
             sy.up_state, sy.up_c, sy.up_to, out)
        self.evals += 1
        return out


# ----------------------------------------------------------------------------- the ray and the public functions

def _step_tol(tol: float) -> float:
    """DOP853's step tolerance for a requested ``tol`` on log F: max(ODE_TOL_FACTOR·tol, ODE_TOL_FLOOR)."""
    return max(ODE_TOL_FACTOR * tol, ODE_TOL_FLOOR)


def _run(ray: Ray, s0: float, x0: np.ndarray, tol: float, noise: float = 0.0, salt: int = 0, coarse: float = 1.0):
    """DOP853 from s0 (state x0) to 1 at step tolerance ``_step_tol(tol)·coarse`` (the floor
    first, so the coarse run is always COARSE times looser than the fine one): (log F with the tie expansion's
    correction, gradient per cluster, slopes α_c, second-order gradient terms, {j: E Xʲ}, steps), :meth:`Ray.finish`. With ``noise``, the start's
    components are disturbed at that relative size (signs by ``salt``): the rounding probe. (Disturbing every sweep
    result too, as holonomic's probe does, stalls the tight per-component tolerance: k = m = 8, σ = 30·1₈ took
    > 200 000 evaluations.)"""
    d = ray.exponent
    z0 = x0 * math.exp(-s0 * ray.total - d * math.log(s0))
    if noise:
        z0 = z0 * (1.0 + noise * np.array([holonomic._noise_sign(q, -1, salt) for q in range(z0.shape[0])]))
    ray.evals = 0
    stol = _step_tol(tol) * coarse
    atol_rel = ATOL_REL_LARGE if int(np.sum(ray.sizes)) > LARGE_M else ATOL_REL
    sol = solve_ivp(lambda s, z: ray(s, z) - (d / s) * z, (s0, 1.0), z0, method="DOP853", rtol=stol,
                    atol=atol_rel * stol * abs(z0[0]))
    z1 = sol.y[:, -1]
    if not sol.success or not z1[0] > 0.0:
        raise RuntimeError(f"the confluent ray lost all accuracy ({sol.message}; F = {z1[0]:.3g} at s = 1)")
    return (*ray.finish(z1, ray.total), sol.t.shape[0] - 1)


def _start(m: int, full: bool, states: int) -> float:
    """ŝ: START (m < k) or START_FULL_RANK (k = m), plus START_LATER beyond START_LATER_M non-zero σ for at most
    START_LATER_MAX_STATES states, START_LARGE beyond LARGE_M, lowered in steps of 2 until the series table fits."""
    if m > LARGE_M:
        s_hat = START_LARGE
    else:
        later = m > START_LATER_M and states <= START_LATER_MAX_STATES
        s_hat = (START_FULL_RANK if full else START) + (START_LATER if later else 0.0)
    while s_hat > 2.0 and series._count_pairs(m, holonomic._initial_degree(m, s_hat), MAX_START_PAIRS) \
            > MAX_START_PAIRS:
        s_hat -= 2.0
    return s_hat


def _one(sig: np.ndarray, k: int, rtol: float, max_evals: int):
    """(log F, its figure, ∂ log F/∂σ in the order of ``sig``, the gradient's figure) for one row of non-zero
    σ within the regime (module docstring, "Error figure"; near ties: :mod:`tie_expansion`)."""
    vals, sizes, labels, d, slack = tie_expansion.split(sig, GAP)
    m = len(sig)
    full = m == k and m >= 2
    u = float(np.finfo(float).eps)
    sy = confluent_system(tuple(sizes))
    ray = Ray(sy, vals, k, max_evals)
    total = ray.total
    order = ray.expand([d[labels == c] for c in range(len(vals))])
    l1 = math.fsum(np.abs(d))
    perm = np.concatenate([np.flatnonzero(labels == c) for c in range(len(vals))])

    def entry_grad(gcl, alpha, half):  # ∂ log F/∂σ in the order of ``sig``: tie_expansion (4)
        out = gcl[labels] + alpha[labels] * d
        if half.size:
            out[perm] += half
        return out

    s_hat = _start(m, full, sy.nS)
    if s_hat >= total:  # the series alone reaches s = 1
        v, gcl, alpha, half, mom = ray.finish(count_state(vals, sizes, k, 1.0, total), 0.0)
        runs = [mom]
        grad = entry_grad(gcl, alpha, half)
        err = holonomic.INIT_TOL + ROUNDING * (1.0 + abs(v))
        gerr = holonomic.INIT_TOL + ROUNDING * (1.0 + float(np.max(np.abs(grad))))
    else:
        s0 = s_hat / total
        x0 = count_state(vals, sizes, k, s0, s_hat)
        v, gcl, alpha, half, mom, steps = _run(ray, s0, x0, rtol)
        grad = entry_grad(gcl, alpha, half)
        vc, gcl_c, alpha_c, half_c, mom_c, coarse_steps = _run(ray, s0, x0, rtol, coarse=COARSE)
        runs = [mom, mom_c]
        gdiff = float(np.max(np.abs(grad - entry_grad(gcl_c, alpha_c, half_c))))
        if rtol <= holonomic.TIGHT_RTOL and holonomic.tolerance_limited(steps, coarse_steps):
            raw = abs(v - vc) / (COARSE - 1.0) + steps * u * (1.0 + abs(v))
            graw = gdiff / (COARSE - 1.0) + steps * u * (1.0 + float(np.max(np.abs(grad))))
        else:  # loose rtol, or a coarse run no coarser: steps set by DOP853's step-size limits (module docstring)
            stol = _step_tol(rtol)
            raw = abs(v - vc) + steps * stol
            graw = gdiff + steps * stol * (1.0 + float(np.max(np.abs(grad))))
        resp, gresp = 0.0, 0.0
        for salt in range(1, PROBES + 1):
            vp, gcl_p, alpha_p, half_p, mom_p, _ = _run(ray, s0, x0, rtol, NOISE, salt)
            runs.append(mom_p)
            resp = max(resp, abs(v - vp))
            gresp = max(gresp, float(np.max(np.abs(grad - entry_grad(gcl_p, alpha_p, half_p)))))
        linear = resp <= PROBE_LINEAR and gresp <= PROBE_LINEAR
        err = (SAFETY * raw + SAFETY_NOISE * ((u / NOISE) * resp if linear else np.inf)
               + holonomic.INIT_TOL + ROUNDING * (1.0 + abs(v)))
        gerr = (SAFETY * graw + SAFETY_NOISE * ((u / NOISE) * gresp if linear else np.inf)
                + holonomic.INIT_TOL + ROUNDING * (1.0 + float(np.max(np.abs(grad)))))
    if l1 > 0.0:
        var, fourth, sixth = tie_expansion.moment_bounds(l1, _moment_bound(runs, 2), _moment_bound(runs, 4),
                                                         _moment_bound(runs, 6))
        kappa5 = tie_expansion.fifth_cumulant(mom) if 5 in mom else 0.0
        kappa6 = tie_expansion.sixth_cumulant(mom) if 6 in mom else 0.0
        err += tie_expansion.remainder(l1, order, var, fourth, kappa5, sixth, kappa6) + slack
        gerr += tie_expansion.gradient_remainder(l1, var, fourth, ray.curvature is not None) + slack
    return v, err, grad, gerr


def _moment_bound(runs: list, j: int) -> float:
    """Twice the largest E Xʲ of the ray's runs (:mod:`tie_expansion` (3)); inf where the runs lack it or differ by
    more than MOMENT_SPREAD (relative to the largest) or one is negative: then the remainder takes the worst case."""
    vals = np.array([mom.get(j, math.nan) for mom in runs])
    if not (np.all(vals >= 0.0) and np.ptp(vals) <= MOMENT_SPREAD * np.max(vals)):
        return math.inf
    return 2.0 * float(np.max(vals))


def confluent_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row: '' where the confluent route applies (module docstring, "Regime"), else why not."""
    out = np.full(flat.shape[0], "", dtype=object)
    for r, row in enumerate(flat):
        keep = holonomic.nonzero_sorted(row)
        vals = tie_expansion.split(keep, GAP)[0]
        if keep.size > MAX_M:
            out[r] = (f"the confluent route takes at most {MAX_M} non-zero singular values; this row has {keep.size}")
        elif LARGE_M < keep.size < k:
            out[r] = (f"the confluent route takes more than {LARGE_M} non-zero singular values only at full rank "
                      f"(k = m; its rays at k > m need too many steps); this row has {keep.size} at k = {k}")
        elif keep.size > LARGE_M and len(vals) > MAX_CLUSTERS_LARGE:
            out[r] = (f"the confluent route takes more than {LARGE_M} non-zero singular values only in at most "
                      f"{MAX_CLUSTERS_LARGE} clusters (measured there); this row has {len(vals)}")
        elif keep.sum() > MAX_SIGMA_SUM:
            out[r] = (f"the confluent route takes rows with a sum of singular values up to {MAX_SIGMA_SUM:g} (its step "
                      f"count grows with it); this row sums to {keep.sum():.3g}: use method='formal' or 'asymptotic'")
        elif len(vals) == keep.size:
            out[r] = (f"the confluent route is for equal or nearly equal non-zero singular values (clusters of "
                      f"values less than {GAP:g} apart, relative); this row has none: use method='holonomic'")
    return out


def _evaluate(flat: np.ndarray, k: int, rtol: float, max_evals: int):
    flat = np.asarray(flat, dtype=float)
    value = np.zeros(flat.shape[0])
    error = np.zeros(flat.shape[0])
    grad = np.zeros_like(flat)
    gerr = np.zeros(flat.shape[0])
    reasons = confluent_reason(flat, k)
    for r, row in enumerate(flat):
        if reasons[r]:
            raise ValueError(f"sigma: {reasons[r]} (row {r})")
        keep = np.flatnonzero(row > holonomic._DROP_SIGMA)
        tiny = row[row <= holonomic._DROP_SIGMA]
        error[r] = 0.5 * float(np.sum(tiny**2))  # dropping σᵢ changes log F by ≤ σᵢ²/2 (as holonomic)
        gerr[r] = float(np.max(tiny, initial=0.0))
        if keep.size:
            v, e, g, ge = _one(row[keep], k, rtol, max_evals)
            value[r] = v
            error[r] += e
            grad[r, keep] = g
            gerr[r] += ge
    return value, error, grad, gerr


def _check(k: int, rtol: float, max_evals: int, n: int) -> None:
    if isinstance(k, (bool, np.bool_)) or not float(k).is_integer() or k < max(1, n):
        raise ValueError(f"k must be an integer >= max(1, number of singular values), got {k!r}")
    if not 0.0 < rtol < 1e-2:
        raise ValueError(f"rtol must be in (0, 1e-2), got {rtol!r}")
    if isinstance(max_evals, (bool, np.bool_)) or not float(max_evals).is_integer() or max_evals < 1:
        raise ValueError(f"max_evals must be a positive integer, got {max_evals!r}")


def log_hyp0f1_confluent(flat: np.ndarray, k: int, rtol: float = 1e-12,
                         max_evals: int = MAX_EVALS) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(k/2; diag(σ)²/4) per row and its error figure, by the confluent system (module docstring).

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Rows of finite, non-negative singular values (validated by the caller); exactly equal values form the
        clusters (and values less than GAP apart, relative, a cluster with the tie expansion), at most MAX_M non-zero.
    k : int
        Dimension.
    rtol : float
        Tolerance of the ray (the coarse run at COARSE·rtol), in (0, 1e-2).
    max_evals : int
        Right-hand-side evaluations each run of a ray may use.

    Returns
    -------
    value, error : ndarray, shape (n,)
        log F and its figure (an estimate: module docstring, "Error figure").

    Raises
    ------
    ValueError
        A row outside the regime (:func:`confluent_reason`), or bad ``k``, ``rtol``, ``max_evals``.
    holonomic.StepBudgetExceeded
        A ray needed more than ``max_evals`` evaluations.
    RuntimeError
        A ray lost all accuracy (F ≤ 0 at s = 1).

    Examples
    --------
    >>> import numpy as np
    >>> from symcheck.hyp0f1 import closed_form
    >>> sig = np.full((1, 6), 10.0)
    >>> v, e = log_hyp0f1_confluent(sig, 6)
    >>> bool(abs(v[0] - closed_form.exact_value(sig, 6)[0][0]) <= e[0])
    True
    """
    flat = np.asarray(flat, dtype=float)
    _check(k, rtol, max_evals, flat.shape[1])
    return _evaluate(flat, int(k), rtol, int(max_evals))[:2]


def grad_log_hyp0f1_confluent(flat: np.ndarray, k: int, rtol: float = 1e-12,
                              max_evals: int = MAX_EVALS) -> tuple[np.ndarray, np.ndarray]:
    """∂ log ₀F₁/∂σ per row (eq. (2): x_{e_c}/x_0 for σᵢ in cluster c, 0 for σᵢ = 0) and the figure of its
    largest component; parameters, figure and errors as :func:`log_hyp0f1_confluent`."""
    flat = np.asarray(flat, dtype=float)
    _check(k, rtol, max_evals, flat.shape[1])
    return _evaluate(flat, int(k), rtol, int(max_evals))[2:]
