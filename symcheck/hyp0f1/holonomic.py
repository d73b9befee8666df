"""Holonomic gradient method (HGM) for ₀F₁(k/2; AAᵀ/4): Muirhead's Pfaffian system on a ray.

F(x) = ₀F₁(b; diag(x)), b = k/2, xᵢ = σᵢ²/4, satisfies for every i (Muirhead 1982, Thm. 7.5.6)

    xᵢ ∂ᵢ²F + b ∂ᵢF + ½ Σ_{j≠i} x_j (∂ᵢF − ∂_jF)/(xᵢ − x_j) = F.                          (1)

Zero singular values are dropped: with m ≤ k non-zero σ, F is the same series in m variables with
the same b (zonal polynomials vanish when a part exceeds the number of non-zero variables), and
(1) holds in those m variables. The system has holonomic rank 2^m: the square-free derivatives
∂_S F, S ⊆ {1..m}, determine every other derivative.

State and Pfaffian. On the ray σ(s) = s·σ, s ∈ (0, 1], put yᵢ = sσᵢ/2 (so xᵢ = yᵢ²) and

    G_S(s) = ∏_{i∈S} yᵢ · ∂_S F(x(s)) = E_Haar[∏_{i∈S} Tᵢᵢ · exp(s Σᵢ σᵢTᵢᵢ)],            (2)

(the second form: ∂/∂xᵢ = (1/2yᵢ)∂/∂yᵢ under the integral ∫ exp(2Σyᵢ Tᵢᵢ) dT). Differentiating (1)
along S∖{i} (coefficients depend on xᵢ and one other x_l each, so only first derivatives of them
appear) gives, for i ∈ S, S' = S∖{i}, the recursion (over sets of increasing size)

    Q(i, S) := yᵢ ∏_{l∈S} y_l · ∂ᵢ∂_S F
             = G_{S'} − (aᵢ/s) G_S + (1/s) Σ_{j≠i} βᵢⱼ · [Q(j, S') if j ∈ S' else G_{S'∪j}]
               + (1/s²) Σ_{l∈S'} γᵢₗ (σᵢ G_{S'} − σₗ G_{S∖l}),
    aᵢ = (2b + Σ_{j≠i} σⱼ²/(σᵢ² − σⱼ²))/σᵢ,  βᵢⱼ = σⱼ/(σᵢ² − σⱼ²),  γᵢₗ = 2σᵢ/(σᵢ² − σₗ²)²,

and then dG_S/ds = (|S|/s) G_S + Σ_{i∉S} σᵢ G_{S∪i} + Σ_{i∈S} σᵢ Q(i, S). (Checked against finite
differences of the k = 2 closed form and the k = 3 integral in the tests.)

Walsh basis and exponential integrator. The leading part Σᵢ σᵢ G_{S △ i} is diagonalised by the
Walsh–Hadamard transform W_ε = Σ_S ε^S G_S (ε ∈ {±1}^m), with eigenvalues Σᵢ εᵢσᵢ: the 2^m
asymptotic solutions e^{sΣεᵢσᵢ}. The state is integrated in that basis, rescaled by e^{sΣσ}s^d
(d = −[m(m−1)/2 + m(k−m)]/2, the power law of the dominant solution), so the linear part
L_ε = Σεᵢσᵢ − Σσ ≤ 0 is diagonal and constant and is integrated exactly, while the coupling
N(s) = (rest of the Pfaffian) − d/s = O(1/s) is explicit. Two integrators, chosen per ray
(:func:`_lawson_suits`):

* Lawson steps (Lawson 1967: the integrating factor e^{τL}, here diagonal, so each factor is a product
  of m exponentials per mode) of the Dormand–Prince 8(5,3) tableau with its embedded error estimate
  (Hairer, Nørsett & Wanner 1993, DOP853): order 8, 12 coupling evaluations a step. Where the coupling
  limits the step (it is O(k/s), so steps are nearly uniform in log s) they take 2–15 times fewer
  evaluations than the HO scheme (measured σ = σ_max·geomspace(1, 0.1, m), m = 2–10, k = m…20, rtol
  1e-13: m = 8, k = 20, σ_max = 10 took 7476 evaluations against 108 375; m = 2, k = 2, σ_max = 30, 1668
  against 3495). But the factor does not make
  the stiff modes' forced response exact, so where Σσ is large against k·m their steps are cut to
  h·Σσ = O(1) (rank one, σ = 10⁴: 46 805 steps against 3395): they are used for Σσ ≤ ``LAWSON_SUM``·k·m,
  at k = m only for σ at least ``LAWSON_GAP``·m apart (relative), where dense bands of σ stiffen
  them too, and for m ≤ ``LAWSON_MAX_M``.
* Otherwise the exponential Runge–Kutta method of Hochbruck & Ostermann (2005, eq. (5.19); stiff order 4),
  with step-doubling error control and local extrapolation (15 evaluations a step). The stiffness Σσ of
  the asymptotic solutions never limits its step.

Error estimate of a ray. Each ray runs twice, at rtol and at COARSE·rtol (:func:`_checked_ray`). The
kept HO solution is the locally extrapolated one, so the sum of the step-doubling estimates (those of the
plain order-4 method) overstates its error 10–100 times at tight rtol (the sum of DOP853's estimates:
median 31 times, at least 7, on Lawson rays at rtol ≤ 1e-11); the global error of either scales like rtol
instead (measured: the coarse run's error is 15–16 times the fine one's, medians at rtol 1e-9…1e-13; 15.3
on Lawson rays), so |v − v_c|/(COARSE − 1) estimates it. Where this was measured to hold (rtol ≤ ``TIGHT_RTOL``, at most
``TIGHT_MAX_STEPS`` steps, σ at least ``TIGHT_GAP`` apart (relative), k > m or m ≤ 3) the figure is
``SAFETY_TIGHT`` × (that, floored by the step-doubling sum / ``DOUBLING_FLOOR``, + rounding per step +
the start's truncation and 64-ulp rounding); elsewhere ``SAFETY`` × (step-doubling sum + |v − v_c|
+ the same allowances). Both safety factors are the largest ratio true error / raw estimate on
independent references (closed forms, k = 3 quadrature, mpmath series), rounded up with a margin. The
gradient's figure is always the general one.

Rounding that every run shares. Near-equal σ (a relative gap g) make the couplings O(1/g) and O(1/g²) with
small results, and the early steps' rounding then grows along the ray (~g⁻³ at k = 4) in the fine and the
coarse run alike: at gaps of 0.1–0.6 % the true error was up to 5 times the figure built from them. Rays with
a gap below ``NOISE_GAP`` (and every ray at k = m ≥ 4, where a solution vanishing at s = 0 amplifies
rounding, :func:`_start`) run ``PROBES`` more times with each coupling term's rounding imitated at ``NOISE``
(:func:`_coupling`), each run with its own signs, and the largest response scaled back to u, times
``SAFETY_NOISE``, joins both figures.

Initial values. At s₀ = ŝ/Σσᵢ (ŝ = 8 for m ≤ 10, 1.5 for m > 10, 12–16 for near-equal σ at m ≤ 6,
:func:`_start`; s₀ = 1 where Σσ ≤ ŝ) the 2^m values (2) come from the zonal series with
derivatives (Koev & Edelman 2006 branching, one variable at a time, each level carrying a
"differentiated or not" flag per variable). By (2) the part of G_S of total degree n in y is
bounded by ŝⁿ/n! (|Tᵢᵢ| ≤ 1), so truncating at partition size M leaves at most
Σ_{n ≥ 2M+2−m} ŝⁿ/n! in every component: M is chosen so this is ≤ 1e-18 (G_∅ ≥ 1).

Coincident σ. The coefficients βᵢⱼ, γᵢₗ blow up where σᵢ = σⱼ although F is analytic there, and
a ray loses digits to cancellation as two σ approach, faster at larger m (k = 3: 1e-13 at a gap of 1e-2,
7e-9 at 1e-4; k = 6, two groups of three σ (1 − g)^i at σ_max = 10, 30: figures 3e-10 – 2e-9 at g = 2–4 %,
4e-8 at 1 %, 8e-5 – 1e-4 at 0.3 %). So runs of consecutive sorted σ are spread (:func:`_clusters`): a run
starts where two are closer than ``CLUSTER_GAP``·max(1, σ) and takes in neighbours up to ``CLUSTER_JOIN``
times that, so a group whose gaps straddle CLUSTER_GAP is spread whole, not in part (in part, the member
left out sat beside the moving run: figure 1e-4 at k = 6, g = 1 %); a run of only two is spread only below
``PAIR_GAP`` (a lone pair costs a ray far fewer digits than a group, and spread it needs many more steps);
a neighbour that holds the spread below ``MIN_SPREAD`` joins the run; a run whose nodes would cross at every
allowed g₀ (below) is left as it is (its gaps are then as wide as its spread). With CLUSTER_GAP = 1e-3 (before
2026-11-28) the k = 6 groups above were refused at g = 0.1 % (their gaps straddled it) and unspread at 0.3 %;
now figures 3e-9 – 4.5e-8 at every g from 0.01 % to 4 %. At k = 3, 4 (160 random rows, gaps 0.01–5 %, against
the closed forms): worst true error / figure 0.004, largest relative figure 8e-10 (2e-9 with 1e-3), none
refused. Spreading a wide run does not always win: at small σ its spread is wide against σ (GAP_UNIT·gap per
node) and the extrapolation loses (k = 5, all σ 4(1 − g)^i: figure 1.3e-6 spread against 2.4e-8 unspread at
g = 0.7 %, 1.2e-8 against 1e-6 at 0.3 %, both against the mpmath series). So a run whose gaps are all at least
``UNSPREAD_GAP`` is also tried unspread, and the smaller figure kept (:func:`_one`). The spread is
σ(g) = σ + g·c, with c centred and equispaced inside each run (spacing
max(``SPREAD``·m, ``REL_SPREAD``·σ̄, ``GAP_UNIT``·the run's widest gap), ordered
like the run so positive g widens every gap). Let P reverse each run; P c = −c and F is symmetric,
so φ(−g) = log F(Pσ + g c). The even part φₑ(g) = [φ(g) + φ(−g)]/2 is analytic and even in g,
φₑ(g) = log F(σ) + c₁g² + c₂g⁴ + …; the HGM computes it at g = g₀, 2g₀, …, ``RICHARDSON``·g₀ (one
ray per point for exact ties, where φ is even, two otherwise), and the polynomial in g² through
those values is evaluated at g = 0 (Richardson extrapolation, error O(g₀^{2·RICHARDSON})). The error
estimate is the change from the extrapolation with one point fewer plus the ray errors times the
sum of |extrapolation weights|; a second, independent extrapolation from ``SECOND_SPREAD``·g₀ adds
``SAFETY`` times its difference from the first (:func:`_spread`). g₀ ≤ 1 is cut so no run comes closer than half
its distance to a neighbouring σ or to 0, and shrunk by up to half so no two nodes of a run cross
(:func:`_clear_of_crossings`); a spacing g₀·u below ``MIN_SPREAD`` raises ValueError. Where
Σσ ≤ ŝ the initial series alone reaches s = 1 and no spreading is needed.

Tiny σ. A σᵢ with σᵢ²/2 ≤ ``DROP_TOL`` is set to 0 (then dropped): ∂²log F/∂σᵢ² is a variance of
Tᵢᵢ ∈ [−1, 1] and ∂log F/∂σᵢ = 0 at σᵢ = 0, so this changes log F by at most σᵢ²/2.

Validity. Every non-negative σ with m ≤ ``MAX_M`` non-zero values and clusters that stay positive
when spread; cost grows like 2^m·m² per coupling evaluation times the number of steps (~ the
largest σ): the report gives the measured cost and error by k.

Threads. A row's rays are independent (the finer and coarser run of a ray; the Richardson nodes of a
cluster), and the ray kernels release the GIL, so with more than one Numba thread they run at once
(:func:`_checked_ray`, :func:`_checked_rays`): the same numbers bit for bit and the same outcome of the
step budget as in order (checked afterwards). Measured with 2 threads on this 2-core machine: a spread row
at m = 8 (σ = 10…1.25) 0.77 → 0.51 s, two clusters of three at m = 6 (σ = 30, 10) 1.60 → 1.01 s. With one
thread (the report's workers, :func:`symcheck.sweep.one_thread`, ``NUMBA_NUM_THREADS=1``) they run in order.
"""

from __future__ import annotations

import functools
import math
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, types
from numba.typed import Dict
from scipy.integrate._ivp import dop853_coefficients as _dop853

from symcheck.evidence import ROUNDING
from symcheck.hyp0f1 import series

__all__ = ["AUTO_FULL_RANK_STEP_WORK", "AUTO_LAWSON_RANK_DEFICIENT_STEP_WORK", "AUTO_LAWSON_STEP_WORK", "AUTO_MAX_M",
           "AUTO_MAX_M_LAWSON", "AUTO_RTOL_RANK_DEFICIENT", "AUTO_STEP_WORK", "CLUSTER_GAP", "MAX_M", "PROBE_LINEAR",
           "SAFETY", "SAFETY_TIGHT", "StepBudgetExceeded", "auto_affordable", "default_max_steps",
           "grad_log_hyp0f1_holonomic", "holonomic_reason", "log_hyp0f1_holonomic", "nonzero_sorted"]

#: Bound asked of the truncated initial series (absolute, relative to G_∅ ≥ 1).
INIT_TOL = 1e-18
#: Consecutive sorted σ closer than this times max(1, σ) form a cluster (spread + extrapolated).
CLUSTER_GAP = 1e-2
#: A run found at CLUSTER_GAP takes in neighbours up to CLUSTER_JOIN times as far (:func:`_clusters`).
CLUSTER_JOIN = 1.5
#: A run of only two σ is spread only where they are closer than PAIR_GAP·max(1, σ): a lone pair costs a ray
#: few digits (k = m = 8, σ_max = 30, a pair 0.3 % apart: relative figure 2e-8 as one ray), but spread at
#: 0.3–0.9 % its close nodes need > 1e5 steps (Moore's Fig. 4 draws at k = 8 ran out of the default budget).
PAIR_GAP = 1e-3
#: A run whose every gap is at least UNSPREAD_GAP·max(1, σ) is also tried unspread, with as many steps as the
#: spread took, and the answer with the smaller figure kept (:func:`_one`). Neither wins everywhere: runs of all
#: k σ (1 − g)^i at g = 0.7 %, k = 5, σ = 6: figure 6e-6 spread, 2e-7 unspread; at g = 0.3 %: 2e-8 spread, 8e-7
#: unspread (k = 6: the unspread ray runs out of steps).
UNSPREAD_GAP = 1e-3
#: A run's spacing is at least GAP_UNIT times its widest gap, so that its nodes at −n·g never cross.
GAP_UNIT = 6.0
#: The factors by which a spread's g₀ may shrink to keep its nodes from crossing (:func:`_clear_of_crossings`).
_SHRINKS = np.linspace(1.0, 0.5, 11)
#: Spreading step g₀ of a cluster with m non-zero σ: SPREAD·m (measured: a ray with m = 6 and
#: spacing 0.05 loses 5e-9 to cancellation, with spacing 0.1 under 1e-10).
SPREAD = 0.02
#: Rays with Σσ ≤ LAWSON_SUM·k·m are integrated by Lawson DOP853 steps, the others by the Hochbruck–Ostermann
#: scheme: where the two cost the same number of coupling evaluations (12 per Lawson step, 15 per
#: step-doubled HO step), measured on σ = σ_max·geomspace(1, 0.1, m), m = 2–8, k = m…20, rtol 1e-13:
#: Σσ ≈ 27–39·k·m (module docstring).
LAWSON_SUM = 30.0
#: At k = m, σ in a dense band stiffen the Lawson steps (not the HO ones): σ = σ_max(1 − jδ), j < m, took
#: 5–40 times the HO scheme's coupling evaluations at δ = 0.5 % (m = 4), 1.5 % (m = 6), 3 % (m = 8), and
#: fewer at δ = 1.5 %, 3 %, 6 % (measured σ_max = 5, 20, rtol 1e-13); at k = 2m no such band was seen down
#: to δ = 1.5 %. So at k = m Lawson steps need every relative gap ≥ LAWSON_GAP·m.
LAWSON_GAP = 0.01
#: Lawson steps only for m ≤ LAWSON_MAX_M, where their error figures were measured (SAFETY_TIGHT); at m = 12,
#: from the start ŝ = 1.5, a Lawson ray (k = m, σ = 10·geomspace(1, 0.1, 12)) did not reach s = 1 in 20 000 steps.
LAWSON_MAX_M = 10
#: Number of spread points of the Richardson extrapolation in g².
RICHARDSON = 5
#: σᵢ with σᵢ²/2 below this are set to 0 (module docstring: changes log F by ≤ σᵢ²/2).
DROP_TOL = 1e-20
_DROP_SIGMA = math.sqrt(2 * DROP_TOL)
#: Largest Σσ the method accepts: its step count grows like Σσ (~300 steps at Σσ = 1000, k = 3);
#: beyond, the asymptotic expansion is accurate and cheap.
MAX_SIGMA_SUM = 1e5
#: Largest number of non-zero σ the method accepts (rank 2^m state).
MAX_M = 12
#: Spacing of a spread cluster relative to its mean σ̄ when that is larger (rays through clusters
#: much closer than σ̄/50 get stiff or lose digits: m = 8, σ = 30 spread 0.5 apart needs > 20000 steps;
#: m = 6, σ = 100 spread 1 apart is off by 3e-6, 2 apart agrees with the asymptotic expansion to 2e-8).
REL_SPREAD = 0.02
#: Smallest admissible spacing g₀·u (below it the spread rays lose digits to cancellation).
MIN_SPREAD = 0.005
#: A ray's global error is checked against a second run at COARSE times its tolerance (:func:`_checked_ray`).
COARSE = 16.0
#: Rounding that the fine and coarse runs share. At k = m ≥ 4 a ray's value carries rounding noise that the two
#: runs can share by chance: the value moves by 1–3 standard deviations when anything changes by an ulp (the
#: start, a σ), with standard deviations 1.5e-11 (k = m = 8, σ_max = 30), 1.0e-11 and 5.3e-10 (k = m = 9,
#: σ_max = 10, 30), 1.4e-10 and 2.5e-8 (k = m = 10, σ_max = 10, 30), but 3e-14 at k = 12, m = 10
#: (σ = σ_max·geomspace(1, 0.1, m), 6–8 samples each, measured 2026-11-27), while |v − v_c| came out up to 5
#: times smaller than that deviation. Near-equal σ amplify the rounding of every early step (the coupling is
#: O(1/(s·gap)) there) by the same mechanism at any k: at k = 4, σ = μ(1 − g)^i, a relative disturbance δ of
#: the start moved log F by ~A·δ with A ≈ 7, 170, 3600, 2.7e4, 4e5 at g = 0.1, 0.03, 0.01, 0.005, 0.002 (any μ;
#: ~4 times less at k = 6), and the true error reached 1e-7 at g = 0.1–0.2 % against a figure of a fifth of it
#: (measured 2026-11-27). So for those rays (:func:`_rounding_probed`) `PROBES` more runs repeat the fine one
#: with each coupling term's rounding imitated at NOISE relative (:func:`_coupling`): rounding made ~NOISE/u
#: times larger, and the largest response |v − v_p| scaled back by u/NOISE, times `SAFETY_NOISE`, joins the
#: figures of the value and the gradient.
NOISE = 1e-12
#: Rays whose smallest relative gap (σᵢ − σᵢ₊₁)/σᵢ is below this get the rounding probe at any k (above it the
#: amplification at k = 4 stayed below ~40, rounding below ~1e-14).
NOISE_GAP = 0.05
#: Start ŝ of rays with near-equal σ (:func:`_near_equal`), by m (the others start at 8, :func:`_start`): the
#: amplification of rounding falls like ŝ^-3.3 (k = m = 4, gaps 0.14–0.6 %: ×10 from ŝ = 8 to 16, the true error
#: with it; steps 2–6 times fewer), while the initial series' tables grow (m = 5: 3.8e6 strip pairs at ŝ = 16,
#: 0.5 s; m = 6: 7.3e6 at ŝ = 16, 1.1 s once, the start 0.23 s a ray, shared by its runs (:func:`_ray_start`);
#: m = 8: 1.9e7 at ŝ = 16, 4.6 s, too many; measured 2026-11-27). At m = 6, ŝ = 16 rather than 12 cut the figure
#: of k = 6, σ = (10, 10, 10, 10/3, 10/3, 10/3) from 4.5e-9 to 1.3e-9 (σ × 3: 2.8e-8 to 3.9e-9), 3.8–6.8 s a row
#: on one thread, the same as before with the start computed once (measured 2026-11-27).
NEAR_EQUAL_START = {2: 16.0, 3: 16.0, 4: 16.0, 5: 16.0, 6: 16.0}
#: Safety factor of the rounding probe: the largest ratio true error / (u/NOISE)·|v − v_p| of single rays where
#: that term dominates (true error > 2e-12), measured 2026-11-27 at rtol 1e-13 and 1e-14 on σ = μ(1 − g)^i,
#: jittered bands and random spectra (gaps 0.1–30 %, μ = 2–500): k = 4 against the closed form 0.44 (from
#: ŝ = 16; 1.46 from ŝ = 8, which rays at m ≥ 7 keep), k = 3 0.15; against the formal series (its figure
#: < 1e-11) k = 6, m = 4 0.05 and k = m = 6 1.12 (gaps 0.4 %, 25 000–175 000 steps, errors 1e-6–2e-5). Margin 6.8.
#: Measured with one probe run; the larger of `PROBES` responses is never smaller.
SAFETY_NOISE = 10.0
#: Probe runs per probed ray, each with its own signs; the largest response counts. The probe's response and the
#: true rounding error are two draws of comparable noise, so with one run their ratio had a heavy tail: on 800
#: random k = 4 rows (σ = μ(1 − g)^i, μ = 10–200, g = 0.08–0.4 %, against the SO(4) series) true / figure had
#: median 0.012, 99 % quantile 0.18–0.25, maximum 0.44, and an adversarial sweep found 0.61 (measured
#: 2026-11-27): P(ratio > x) ≈ 0.002/x, one false figure in ~500 probe-dominated rows. The larger of two
#: independent responses makes that tail fall like x⁻², at one more run per probed ray.
PROBES = 2
#: Relative rounding of the start state (:func:`_initial_state`, float64) in units of u that the probe runs imitate
#: besides the couplings': each G_S is moved by START_ROUNDING·NOISE relative with a seeded sign. The start is
#: shared by every run of a ray, so neither the coarse run nor the coupling noise sees its rounding. Measured
#: against the same series in mpmath (30 digits, :func:`_initial_state` run on mpf objects): m = 8, ŝ = 8,
#: degree 28 (8.7e5 strip pairs): the largest relative error of a component 28.5 u, median 8 u; from the mpmath
#: start the ray at k = 9, σ = 10·0.9499^i moved by 1.7e-10 (measured 2026-11-28). m = 9, ŝ = 8, degree 28 (9.8e5
#: strip pairs): largest 31.9 u, median 10.5 u (k = m = 9, σ = 10·0.95^i: the ray from the mpmath start moved by 9.7e-7,
#: where the method's figure is inf and the contiguous route answers; measured 2026-11-29). The probe moves every
#: component by the full START_ROUNDING·NOISE, so it imitates the median component at ~3 times its size.
START_ROUNDING = 32.0
#: Largest raw response |v − v_p| of the rounding probe that is read as linear in NOISE. log F moves by A·δ + O((A·δ)²)
#: for a disturbance δ amplified A times, so at a response of 0.1 the quadratic part is ~10 % of it; beyond, the
#: probe no longer measures rounding and the ray's figures are inf. The response per unit NOISE stayed within ±25 %
#: between 0.1 and 4·NOISE where measured (responses ≤ 1e-3); rays that would reach 0.1 (k = 5–7, gaps ~0.1 %)
#: needed more than 4e5 steps when measured 2026-11-27.
PROBE_LINEAR = 0.1
#: Clusters are extrapolated a second time from spreads scaled by this factor (:func:`_spread`).
SECOND_SPREAD = 0.6
#: Safety factor of the general error estimate (value and gradient; clusters' Richardson terms; every
#: ray outside the regime of `SAFETY_TIGHT`): the largest ratio true error / raw estimate measured on the
#: independent references of tests/test_hyp0f1_error_figures.py, rounded up with a margin (the figure's
#: parts: :func:`log_hyp0f1_holonomic`). Re-measured 2026-11-26 for the rays alone (closed forms k = 2 and
#: rank one, the k = 3 quadrature, the mpmath series for m = 3–8 up to Σσ = 45…13, rtol 1e-3…1e-14,
#: 1292 runs): largest ratio 0.39 at rtol ≤ 1e-6; 0.89, 1.7, 2.8 at rtol 1e-5, 1e-4, 1e-3 (m = 5, 3–5 steps).
SAFETY = 10.0
#: The ray's value estimate in the regime where the fine run's error scales like rtol (the kept, locally
#: extrapolated solution has order 5 and the steps are set by rtol^{1/5}, so its global error is ∝ rtol and
#: the run at COARSE·rtol is COARSE times worse: measured median ratios 15–16 at rtol 1e-9…1e-13):
#: max(|v − v_c|/(COARSE − 1), err_sum/`DOUBLING_FLOOR`) + steps·u + INIT_TOL + ROUNDING·(1 + |v|)
#: (err_sum, the sum of the plain method's step-doubling estimates, is a floor where v − v_c cancels by
#: accident — measured: k = 2, σ = (300, 1), rtol 1e-10, the coarse run 4 times closer than the fine one;
#: steps·u counts rounding accumulated per step, the dominant error at rtol 1e-14 over 800–2800 steps).
#: Applied where rtol ≤ `TIGHT_RTOL`, the fine run took at most `TIGHT_MAX_STEPS` steps, the σ are
#: `TIGHT_GAP` apart, and k > m or m ≤ 3 (:func:`_tight_regime`). Largest ratio true error / raw
#: estimate measured there (the references of SAFETY, rtol 1e-9…1e-14, 564 runs, up to 5656 steps):
#: 2.0 (rank one, k = 20, σ = 1000, rtol 1e-9), 1.85 (k = 3 quadrature), 1.78 (k = 2), ≤ 1.18 (mpmath
#: series, m = 3–8); ≤ 0.62 at rtol ≤ 1e-13. Longer rays, the mpmath series with its partition limit
#: raised to 150 000 (dps 20; m = 4 at Σσ = 40, 50, m = 5 at 25, 30, m = 6 at 20, m = 8 at 16, k = m + 2
#: … 20; 56 runs, up to 7721 steps): 1.16.
#: Safety factor 5 (margin 2.5). The figure is then 1/25–1/75 of the general one (medians by rtol).
#: Lawson rays (:func:`_lawson_suits`; measured 2026-11-27 on rank one k = 3…50 and k = 2 (mpmath closed
#: forms), the k = 3 integral, the stored mpmath values for spread σ at m = 4…12, the mpmath series for
#: m = 4…6 at k = 6…20; rtol 1e-5…1e-14, 360 runs, up to 9632 steps): largest ratio 0.25 for the general
#: estimate, 1.47 for this one (257 runs in its regime; 1.2 at rtol ≤ 1e-10). At m = 7…10 (the mpmath series,
#: partition limit 150 000, Σσ = 10…18, k = m…20, rtol 1e-9…1e-14, 104 runs, up to 512 steps): 0.45 and
#: 1.36; outside the tight regime, k = m = 9 reached 3.4 against the tight estimate (rounding at the start,
#: :func:`_start`), which is why k = m keeps the general one.
SAFETY_TIGHT = 5.0
#: Most steps of a ray's coarse run, as a fraction of the fine run's, for which the runs count as set by the tolerance:
#: DOP853's steps scale like tol^(−1/8), so the run at COARSE = 16 times the tolerance takes 16^(−1/8) = 0.71 of them
#: (measured 0.70 on rays of 22–2280 steps, m = 2–8); a short ray whose one to three steps are set by the step-size
#: limits takes the same steps in both runs (ratio 1.00), the two agree to the last bit, and v − v_c says nothing:
#: k = 3, σ = (3.77, 3.19, 2.25), rtol 7.3e-10 gave a figure 1.2 times below the true error (a randomized search
#: against the mpmath series found it, 2026-11-29). Such rays take the general estimate.
TOLERANCE_LIMITED = 0.85
#: Fewest fine-run steps for that reading: with two or three steps against three or five the ratio passes while the
#: error does not scale with the tolerance (k = 3, σ = (8.43, 4.8e-3, 4.6e-4) at k + 2 for the contiguous route,
#: rtol 1e-10: 3 steps against 2, the figure 1.4 times below the true error; k = 3, σ ≈ 4.36 nearly equal, confluent,
#: rtol 1e-9: 3 against 2, 2.8 times; the same search).
TOLERANCE_LIMITED_STEPS = 10
#: Divisor of err_sum in the floor of the `SAFETY_TIGHT` estimate (err_sum is 10–100 times the true
#: error at rtol ≤ 1e-11, but ~1 times at rtol ≥ 1e-7, where the estimate is not used).
DOUBLING_FLOOR = 30.0
#: Loosest rtol of the `SAFETY_TIGHT` estimate: above it the ratio true / raw estimate grew (3.7 at 1e-7,
#: 15 at 1e-6, 92 at 1e-3; few steps, set by the step growth limit rather than rtol).
TIGHT_RTOL = 1e-9
#: Most fine-run steps of the `SAFETY_TIGHT` estimate: the references reach 7721 (mpmath series, m = 4,
#: k = 20, Σσ = 50, rtol 1e-14); rounding grows with the steps.
TIGHT_MAX_STEPS = 8000
#: Smallest relative gap (σᵢ − σᵢ₊₁)/σᵢ of a ray with the `SAFETY_TIGHT` estimate: the references reach
#: 1.7 % (k = 2, σ = (30, 29.5)). Closer σ lose digits to cancellation in 1/(σᵢ² − σⱼ²), which neither
#: v − v_c nor steps·u sees: the spread rays of k = 3, σ = 30·(1, 0.999, 0.998) (gaps ~1 %) gave a figure
#: 9 times below the true error (1.1e-11 against 9.8e-11, rtol 1e-13).
TIGHT_GAP = 0.015
#: Work units a row may cost when no step budget is given. A step costs 2^m·m² units of coupling
#: work (measured 2.5e-8 to 7e-8 s per unit here, m = 12 and m = 8) plus `STEP_OVERHEAD`, so at
#: most ~10 s per row. It was 1e8 until probed rays ran a second probe (`PROBES`): four runs instead of
#: three, so 4/3 of it keeps their reach. At 1e8 every draw of the Moore k = 8 fits' optima (the report's
#: exact check) ran out with two probes; at 1.35e8 they ran, ~0.65 s a draw (measured 2026-11-27).
STEP_WORK = 1.35e8
#: The fixed cost of one step (the exponential-integrator weights, step control, Python) in work
#: units: measured 70–90 µs per step at m = 2–4 on a loaded machine, against ~6e-8 s per unit at m = 8.
STEP_OVERHEAD = 1200
#: Largest number of non-zero σ for which "auto" runs the holonomic method, and the work units
#: it gives one row: 10 000 steps at m = 8, ~120 000 at m ≤ 4 (~2 s on an idle machine here; spread
#: σ at m = 8 need 3000–6000 steps for σ_max = 10–30 and ~9000 for σ_max = 100, measured with the start
#: at ŝ = 5, 5–25 % fewer from ŝ = 8; a row that needs more is left to the other routes' best estimate).
AUTO_MAX_M = 8
#: Largest m for which "auto" runs the holonomic method on rows whose one ray takes Lawson steps (no
#: cluster to spread, :func:`_lawson_suits`): ~2000 steps of ~3.5 ms at m = 10 within AUTO_STEP_WORK
#: (spread σ at m = k = 10 need ~620 steps for both runs at σ_max = 10, ~1160 at 30, ~2300 at 100; rank
#: deficient m = 10, k = 20 ~1400 at σ_max = 10 and rtol 1e-13; measured 2026-11-27).
AUTO_MAX_M_LAWSON = 10
AUTO_STEP_WORK = 10_000 * (STEP_OVERHEAD + (1 << 8) * 8 * 8)
#: The work units "auto" gives a row that is one Lawson ray: ~4200 steps at m = 10 (~1.8 ms each at k = 20,
#: ~3.5 ms at k = 10 on an idle machine here; rank-deficient m = 10, k = 20 needs ~2600 steps for both runs at
#: σ_max = 30 and ~3600 at 100, rtol 1e-13). Its rays are the cheap ones, so a row that fails here costs at most
#: ~8 s (measured 2026-11-27).
AUTO_LAWSON_STEP_WORK = 2.5 * AUTO_STEP_WORK
#: The work units "auto" gives a rank-deficient row (m < k) that is one Lawson ray: ~6800 steps at m = 10. Its
#: four runs at m = 10, k = 20, σ_max = 300 (the report's goal row, Σσ ≈ 1000) need between 5000 and 6000 steps
#: (3.1 s here; the figure 1.2e-10 against the goal 1e-7), more than AUTO_LAWSON_STEP_WORK's ~4240; a row that
#: runs out at m = 10 costs ~0.6 ms a step here, ~4 s (measured 2026-11-28).
AUTO_LAWSON_RANK_DEFICIENT_STEP_WORK = 4.0 * AUTO_STEP_WORK
#: The work units "auto" gives a full-rank row (k = m) of HO rays or clusters: their rays ran three times with
#: one rounding probe (:func:`_checked_ray`), and 1.6 × AUTO_STEP_WORK kept the rows that fitted two runs
#: (k = 6 two clusters σ_max = 100 and k = 8 spread σ_max = 1000 ran out at 1 ×; a row that runs out costs
#: ~6 s; measured 2026-11-27). With `PROBES` = 2 they run four times and the budget stays: it is the time
#: cap. Full-rank Lawson rows keep AUTO_LAWSON_STEP_WORK: the four runs of k = m = 10 at σ_max = 100 need
#: ~4950 steps, more than its ~4240 (three took ~3500), and gave 6e-6 where the formal series answers
#: first (measured 2026-11-27).
AUTO_FULL_RANK_STEP_WORK = 1.6 * AUTO_STEP_WORK
#: ODE tolerance "auto" asks of the method for rows with all k singular values non-zero (after the
#: safety factor its estimates on spread σ at m = 6–8 land near 3e-11–7e-11, below the 1e-10 goal; at
#: 1e-13 they were 2e-10–4e-10). These rows keep the general figure (k = m: `_tight_regime`), which grows
#: ~6 times from 1e-14 to 1e-13 (spread k = 8, σ_max = 10: 1.0e-10 → 6.3e-10; two clusters k = 6,
#: σ_max = 100: 1.8e-8 → 3.2e-8 against the goal 3.6e-8; measured 2026-11-26).
AUTO_RTOL = 1e-14
#: ODE tolerance "auto" asks for rows with fewer non-zero σ than k, where the tight figure applies: at
#: 1e-13 the report's goal rows with k > m stayed within the goal with 35–60 % fewer steps than at 1e-14,
#: and rank-deficient k = 16, σ_max = 10 then fits AUTO_STEP_WORK (figure 5.6e-11 against its goal
#: 5.9e-10; at 1e-14 it ran out of steps and auto fell back to Laplace; measured 2026-11-26).
AUTO_RTOL_RANK_DEFICIENT = 1e-13


# --------------------------------------------------------------------------- Walsh transform

class StepBudgetExceeded(RuntimeError):
    """A row of the holonomic method needs more steps than its budget (``max_steps``) allows."""


@njit(cache=True)
def _walsh(v):
    """In-place unnormalised Walsh–Hadamard transform: v_E ← Σ_S (−1)^{|S ∧ E|} v_S."""
    n = v.shape[0]
    h = 1
    while h < n:
        for i in range(0, n, 2 * h):
            for j in range(i, i + h):
                a = v[j]
                b = v[j + h]
                v[j] = a + b
                v[j + h] = a - b
        h *= 2


# --------------------------------------------------------------------------- Pfaffian coupling

@njit(cache=True)
def _coefficients(sig, b):
    """aᵢ, βᵢⱼ, γᵢₗ of the module docstring for σ of shape (m,).

    σᵢ² − σⱼ² is formed as (σᵢ − σⱼ)(σᵢ + σⱼ): the difference of the rounded squares has a relative error
    ~u/(2g) at a relative gap g, a fixed perturbation of the system that every run of a ray shares, so no
    rerun sees it (measured at k = 4, gaps 0.2–1 %: errors against the closed form 1.5–20 times smaller).
    """
    m = sig.shape[0]
    a = np.empty(m, dtype=sig.dtype)
    beta = np.zeros((m, m), dtype=sig.dtype)
    gamma = np.zeros((m, m), dtype=sig.dtype)
    for i in range(m):
        acc = 2.0 * b + 0.0 * sig[i]
        for j in range(m):
            if j != i:
                d = (sig[i] - sig[j]) * (sig[i] + sig[j])  # σᵢ² − σⱼ² to 2 ulps at any gap (σᵢ − σⱼ is exact)
                acc += sig[j] * sig[j] / d
                beta[i, j] = sig[j] / d
                gamma[i, j] = 2.0 * sig[i] / (d * d)
        a[i] = acc / sig[i]
    return a, beta, gamma


@njit(cache=True)
def _set_levels(m):
    """Subsets of {0..m−1} as bit masks ordered by size: (masks, level starts, position in level)."""
    n = 1 << m
    counts = np.zeros(m + 2, dtype=np.int64)
    for S in range(n):
        counts[_popcount(S) + 1] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    masks = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for S in range(n):
        c = _popcount(S)
        masks[fill[c]] = S
        pos[S] = fill[c] - start[c]
        fill[c] += 1
    return masks, start, pos


@njit(cache=True)
def _popcount(S):
    c = 0
    while S:
        S &= S - 1
        c += 1
    return c


class _Pfaffian:
    """Per-σ data of the coupling: coefficients, subset levels, work arrays, the absolute sums the rounding probe
    needs, and its size δ, step number and salt (:func:`_coupling`)."""

    def __init__(self, sig, b, noise=0.0, salt=0):
        m = sig.shape[0]
        n = 1 << m
        a, beta, gamma = _coefficients(sig, b)
        masks, start, pos = _set_levels(m)
        widest = int(np.max(np.diff(start)))
        dt = sig.dtype
        abs_beta, abs_gamma = np.abs(beta), np.abs(gamma)
        self.args = (sig, a, np.ascontiguousarray(beta.T), np.ascontiguousarray(gamma.T), _gamma_sums(gamma, n),
                     masks, start, pos, np.empty(n, dt), np.empty((n, m), dt), np.empty((widest, m), dt),
                     np.empty((widest, m), dt), np.ascontiguousarray(abs_beta.T), np.ascontiguousarray(abs_gamma.T),
                     abs_beta.sum(axis=1), abs_gamma @ sig, np.array([noise, 0.0, salt]))


@njit(cache=True)
def _gamma_sums(gamma, n):
    """gsum[S, i] = Σ_{l∈S} γᵢₗ."""
    m = gamma.shape[0]
    out = np.zeros((n, m), dtype=gamma.dtype)
    for S in range(n):
        for i in range(m):
            acc = 0.0 * gamma[0, 0]
            for l in range(m):
                if (S >> l) & 1:
                    acc += gamma[i, l]
            out[S, i] = acc
    return out


@njit(cache=True)
def _noise_sign(e, step, salt):
    """A deterministic pseudo-random sign for entry e at step ``step`` of probe run ``salt`` (a multiplicative
    hash, the same on every machine, compiled or not; salt > 0 remixes it, so each probe run draws its own
    signs)."""
    h = ((e + 1) * 2654435761 + (step + 1) * 2246822519) % 4294967296
    if salt > 0:
        h = ((h ^ (salt * 374761393)) * 668265263) % 4294967296
        h = ((h ^ (h >> 15)) * 1274126177) % 4294967296
    return 1.0 if (h >> 15) & 1 else -1.0


@njit(cache=True)
def _coupling(Y, s, shift, out, sig, a, betaT, gammaT, gsum, masks, start, pos, G, Q, X, P, abs_betaT, abs_gammaT,
              bsum, gsig, noise):
    """out = N(s)·Y in the Walsh basis (everything of dY/ds except the diagonal L·Y).

    The recursion runs over subset sizes; at each size the sums over j of βᵢⱼ·X(S')ⱼ and of
    γᵢₗσₗG_{S∖l} are matrix products (BLAS). G, Q, X, P are work arrays.

    With noise[0] = δ > 0 (the rounding probe of :func:`_checked_ray`), each Q(i, S) is moved by δ times the sum
    of the absolute values of the terms it adds up, each factor G counted with max|G| added (the Walsh transform
    leaves every G_S an absolute rounding error of that size; bsum = Σⱼ|βᵢⱼ|, gsig = Σₗ|γᵢₗ|σₗ): its rounding
    imitated at δ/u times its size. The signs are seeded (:func:`_noise_sign`) by the step number noise[1], set
    by :func:`_integrate`, so they stay the same within a step and the step control sees a smooth system, and by
    the probe run's salt noise[2], so the probe runs draw independent signs.
    Near-equal σ make those terms large (βᵢⱼ ~ 1/gap, γᵢₗ ~ 1/gap²) and the result small, which is where the
    rounding that every run shares comes from.
    """
    n = Y.shape[0]
    m = sig.shape[0]
    inv_n = 1.0 / n
    for S in range(n):
        G[S] = Y[S] * inv_n
    _walsh(G)  # the transform is its own inverse up to 1/n
    inv_s = 1.0 / s
    inv_s2 = inv_s * inv_s
    delta = noise[0]
    step = int(noise[1])
    salt = int(noise[2])
    gmax = 0.0 * G[0]  # G from the Walsh state carries absolute rounding ~u·max|G| in every entry
    if delta > 0.0:
        for S in range(n):
            gmax = max(gmax, abs(G[S]))
    out[0] = -shift * inv_s * G[0]
    for lev in range(1, m + 1):
        p0, p1 = start[lev - 1], start[lev]
        for r in range(p1 - p0):  # X(S')ⱼ = Q(j, S') for j ∈ S', G_{S'∪j} otherwise
            Sp = masks[p0 + r]
            for j in range(m):
                X[r, j] = Q[Sp, j] if (Sp >> j) & 1 else G[Sp | (1 << j)]
        XB = np.dot(X[: p1 - p0], betaT)
        XBa = np.dot(np.abs(X[: p1 - p0]), abs_betaT) if delta > 0.0 else XB
        c1 = start[lev + 1]
        for r in range(c1 - p1):  # σₗ G_{S∖l} for l ∈ S
            S = masks[p1 + r]
            for l in range(m):
                P[r, l] = sig[l] * G[S ^ (1 << l)] if (S >> l) & 1 else 0.0 * G[0]
        ZG = np.dot(P[: c1 - p1], gammaT)
        ZGa = np.dot(np.abs(P[: c1 - p1]), abs_gammaT) if delta > 0.0 else ZG
        for r in range(c1 - p1):
            S = masks[p1 + r]
            gs = G[S]
            acc = 0.0 * gs
            for i in range(m):
                if (S >> i) & 1:
                    Sp = S ^ (1 << i)
                    gp = G[Sp]
                    q = (-a[i] * gs + XB[pos[Sp], i]) * inv_s + (sig[i] * gp * gsum[S, i] - ZG[r, i]) * inv_s2
                    if delta > 0.0:
                        size = ((abs(a[i]) * (abs(gs) + gmax) + XBa[pos[Sp], i] + gmax * bsum[i]) * inv_s
                                + (sig[i] * abs(gsum[S, i]) * (abs(gp) + gmax) + ZGa[r, i] + gmax * gsig[i]) * inv_s2)
                        q += delta * size * _noise_sign(S * m + i, step, salt)
                    Q[S, i] = gp + q
                    acc += sig[i] * q
            out[S] = acc + (lev - shift) * inv_s * gs
    _walsh(out)


# --------------------------------------------------------------------------- exponential RK

@njit(cache=True)
def _phi123(z):
    """φ₁(z), φ₂(z), φ₃(z) (φ_j(z) = Σ_k z^k/(k+j)!), Taylor for |z| < 1, closed forms otherwise."""
    if abs(z) < 1.0:
        p1 = 0.0 * z
        p2 = 0.0 * z
        p3 = 0.0 * z
        term = 1.0 + 0.0 * z  # z^k / k!
        for k in range(22):
            p1 += term / (k + 1)
            p2 += term / ((k + 1) * (k + 2))
            p3 += term / ((k + 1) * (k + 2) * (k + 3))
            term = term * z / (k + 1)
        return p1, p2, p3
    e = np.exp(z)
    p1 = (e - 1.0) / z
    p2 = (e - 1.0 - z) / (z * z)
    p3 = (e - 1.0 - z - 0.5 * z * z) / (z * z * z)
    return p1, p2, p3


@njit(cache=True)
def _ho_weights(L, h, w):
    """Per-mode weights of the Hochbruck–Ostermann scheme for step h: rows of w (11, n).

    Rows: e^{hL}, e^{hL/2}, a21, a31, a32, a41, a42(=a43), a51, a52(=a53), a54, b1, b4, b5
    (all multiplied by h except the two exponentials); see _ho_step.
    """
    for e in range(L.shape[0]):
        z = h * L[e]
        p1, p2, p3 = _phi123(z)
        q1, q2, q3 = _phi123(0.5 * z)
        a52 = 0.5 * q2 - p3 + 0.25 * p2 - 0.5 * q3
        a54 = 0.25 * q2 - a52
        w[0, e] = np.exp(z)
        w[1, e] = np.exp(0.5 * z)
        w[2, e] = h * 0.5 * q1
        w[3, e] = h * (0.5 * q1 - q2)
        w[4, e] = h * q2
        w[5, e] = h * (p1 - 2.0 * p2)
        w[6, e] = h * p2
        w[7, e] = h * (0.5 * q1 - 2.0 * a52 - a54)
        w[8, e] = h * a52
        w[9, e] = h * a54
        w[10, e] = h * (p1 - 3.0 * p2 + 4.0 * p3)
        w[11, e] = h * (-p2 + 4.0 * p3)
        w[12, e] = h * (4.0 * p2 - 8.0 * p3)


@njit(cache=True)
def _ho_step(u, t, h, w, pf, shift, work, out):
    """One step of the exponential RK method of Hochbruck & Ostermann (2005), eq. (5.19).

    c = (0, ½, ½, 1, ½); U₂ = e^{hL/2}u + h a₂₁N₁, U₃ = e^{hL/2}u + h(a₃₁N₁ + a₃₂N₂),
    U₄ = e^{hL}u + h(a₄₁N₁ + a₄₂(N₂ + N₃)), U₅ = e^{hL/2}u + h(a₅₁N₁ + a₅₂(N₂ + N₃) + a₅₄N₄),
    u⁺ = e^{hL}u + h(b₁N₁ + b₄N₄ + b₅N₅).
    """
    N1, N2, N3, N4, N5, U = work
    _coupling(u, t, shift, N1, *pf)
    for e in range(u.shape[0]):
        U[e] = w[1, e] * u[e] + w[2, e] * N1[e]
    _coupling(U, t + 0.5 * h, shift, N2, *pf)
    for e in range(u.shape[0]):
        U[e] = w[1, e] * u[e] + w[3, e] * N1[e] + w[4, e] * N2[e]
    _coupling(U, t + 0.5 * h, shift, N3, *pf)
    for e in range(u.shape[0]):
        U[e] = w[0, e] * u[e] + w[5, e] * N1[e] + w[6, e] * (N2[e] + N3[e])
    _coupling(U, t + h, shift, N4, *pf)
    for e in range(u.shape[0]):
        U[e] = w[1, e] * u[e] + w[7, e] * N1[e] + w[8, e] * (N2[e] + N3[e]) + w[9, e] * N4[e]
    _coupling(U, t + 0.5 * h, shift, N5, *pf)
    for e in range(u.shape[0]):
        out[e] = w[0, e] * u[e] + w[10, e] * N1[e] + w[11, e] * N4[e] + w[12, e] * N5[e]


@njit(cache=True)
def _ho_try(Y, t, h, L, pf, shift, work, w_full, w_half, big, mid, out):
    """One HO step tried from Y: out = the locally extrapolated u_{h/2,h/2} + (u_{h/2,h/2} − u_h)/15, and
    (the relative step-doubling estimate ‖u_h − u_{h/2,h/2}‖∞ / (15‖u_{h/2,h/2}‖∞) of the plain order-4
    method, ‖u_{h/2,h/2}‖∞)."""
    n = Y.shape[0]
    _ho_weights(L, h, w_full)
    _ho_weights(L, 0.5 * h, w_half)
    _ho_step(Y, t, h, w_full, pf, shift, work, big)
    _ho_step(Y, t, 0.5 * h, w_half, pf, shift, work, mid)
    _ho_step(mid, t + 0.5 * h, 0.5 * h, w_half, pf, shift, work, out)
    diff = 0.0
    norm = 0.0
    for e in range(n):
        diff = max(diff, abs(out[e] - big[e]))
        norm = max(norm, abs(out[e]))
    for e in range(n):
        out[e] = out[e] + (out[e] - big[e]) / 15.0
    return diff / (15.0 * norm), norm


# --------------------------------------------------------------------------- Lawson DOP853

#: The Dormand–Prince 8(5,3) tableau (Hairer, Nørsett & Wanner 1993, §II.10), as SciPy's DOP853 holds it:
#: (A, c, b, e₅, e₃) for its 12 stages.
_TABLEAU = tuple(np.ascontiguousarray(x, dtype=float) for x in (
    _dop853.A[:_dop853.N_STAGES, :_dop853.N_STAGES], _dop853.C[:_dop853.N_STAGES], _dop853.B,
    _dop853.E5[:_dop853.N_STAGES], _dop853.E3[:_dop853.N_STAGES]))


@njit(cache=True)
def _mode_factors(sig2, x, out):
    """out[ε] = e^{x·L_ε} for every mode ε (a bit mask; L_ε = −Σ_{i∈ε} 2σᵢ): products of the m factors
    e^{−2σᵢx}, one multiplication per mode (x may be negative)."""
    out[0] = 1.0
    for i in range(sig2.shape[0]):
        f = math.exp(-sig2[i] * x)
        half = 1 << i
        for S in range(half):
            out[S + half] = out[S] * f


@njit(cache=True)
def _lawson_step(Y, t, h, sig2, tab, pf, shift, K, U, fac, out, d5, d3):
    """One Lawson step (integrating factor e^{τL}) of the DOP853 tableau: out = Y(t + h) and the relative
    error estimate ‖err₅‖²/√(‖err₅‖² + 0.01‖err₃‖²) of Hairer's DOP853 (max norm over modes / ‖out‖∞).

    Stages Uᵢ = e^{cᵢhL}Y + h Σⱼ aᵢⱼ e^{(cᵢ−cⱼ)hL} Kⱼ, Kᵢ = N(t + cᵢh)Uᵢ; out = e^{hL}Y + h Σⱼ bⱼ e^{(1−cⱼ)hL} Kⱼ.
    """
    A, C, B, E5, E3 = tab
    n = Y.shape[0]
    _coupling(Y, t, shift, K[0], *pf)
    for i in range(1, C.shape[0]):
        _mode_factors(sig2, C[i] * h, fac)
        for e in range(n):
            U[e] = fac[e] * Y[e]
        for j in range(i):
            if A[i, j] != 0.0:
                _mode_factors(sig2, (C[i] - C[j]) * h, fac)
                w = h * A[i, j]
                for e in range(n):
                    U[e] += w * fac[e] * K[j, e]
        _coupling(U, t + C[i] * h, shift, K[i], *pf)
    _mode_factors(sig2, h, fac)
    for e in range(n):
        out[e] = fac[e] * Y[e]
        d5[e] = 0.0
        d3[e] = 0.0
    for j in range(C.shape[0]):
        _mode_factors(sig2, (1.0 - C[j]) * h, fac)
        for e in range(n):
            f = h * fac[e] * K[j, e]
            out[e] += B[j] * f
            d5[e] += E5[j] * f
            d3[e] += E3[j] * f
    norm = 0.0
    e5 = 0.0
    e3 = 0.0
    for e in range(n):
        norm = max(norm, abs(out[e]))
        e5 = max(e5, abs(d5[e]))
        e3 = max(e3, abs(d3[e]))
    if not norm > 0.0:
        return np.inf, norm
    e5 /= norm
    e3 /= norm
    den = math.sqrt(e5 * e5 + 0.01 * e3 * e3)
    err = e5 * e5 / den if den > 0.0 else 0.0
    return (err if err == err else np.inf), norm


@njit(cache=True, nogil=True)
def _integrate(Y, s0, lam, L, sig2, pf, shift, tol, max_steps, lawson, tab):
    """Integrate the rescaled Walsh state Y from s₀ to 1 (in place) by Lawson DOP853 steps if ``lawson``,
    else by the HO scheme (module docstring).

    ``L`` is the diagonal linear part (used by HO), ``sig2`` = 2σ (its factors, used by Lawson), ``lam`` = Σσ
    the rescaling rate, ``pf`` the coupling data of :class:`_Pfaffian`, ``tab`` the DOP853 tableau. Returns
    (log of the accumulated scale, sum of the accepted steps' relative local error estimates, accepted steps,
    rejected steps); the error is +inf if ``max_steps`` ran out. A step is accepted where its estimate
    (:func:`_ho_try`, :func:`_lawson_step`) is ≤ ``tol``; the next step is scaled by 0.9·(tol/err)^{1/(p+1)}
    (p = 4 for HO, 7 for DOP853's estimate), within [0.2, 3] (HO) or [0.2, 4] (Lawson).
    """
    n = Y.shape[0]
    dt = Y.dtype
    out = np.empty(n, dt)
    if lawson:
        K = np.empty((tab[1].shape[0], n), dt)
        U, fac, d5, d3 = np.empty(n, dt), np.empty(n, dt), np.empty(n, dt), np.empty(n, dt)
        exponent, grow = 0.125, 4.0
    else:
        work = (np.empty(n, dt), np.empty(n, dt), np.empty(n, dt), np.empty(n, dt), np.empty(n, dt), np.empty(n, dt))
        w_full, w_half = np.empty((13, n), dt), np.empty((13, n), dt)
        big, mid = np.empty(n, dt), np.empty(n, dt)
        exponent, grow = 0.2, 3.0
    logscale = 0.0 * lam
    err_sum = 0.0
    t = s0
    h = 0.02 * s0
    accepted = 0
    rejected = 0
    while t < 1.0:
        if accepted + rejected >= max_steps:
            return logscale, np.inf, accepted, rejected
        last = t + h >= 1.0
        if last:
            h = 1.0 - t
        pf[-1][1] = accepted  # the step number of the rounding probe's signs (:func:`_coupling`)
        if lawson:
            err, norm = _lawson_step(Y, t, h, sig2, tab, pf, shift, K, U, fac, out, d5, d3)
        else:
            err, norm = _ho_try(Y, t, h, L, pf, shift, work, w_full, w_half, big, mid, out)
        if err <= tol:
            for e in range(n):
                Y[e] = out[e] / norm
            logscale += math.log(norm) + lam * h + shift * math.log((t + h) / t)
            err_sum += err
            t = 1.0 if last else t + h
            accepted += 1
        else:
            rejected += 1
        h *= min(grow, max(0.2, 0.9 * (tol / max(err, 1e-300)) ** exponent))
    return logscale, err_sum, accepted, rejected


# --------------------------------------------------------------------------- initial values

@njit(cache=True)
def _pairs(parts, m):
    """All (κ, μ) with κ/μ a horizontal strip (κᵢ₊₁ ≤ μᵢ ≤ κᵢ), κ a row of ``parts`` (≤ m parts).

    Returns (kappa_idx, mu_idx, strip = |κ| − |μ|, ψ_{κ/μ}, ℓ(κ), ℓ(μ)); ψ as in
    :mod:`symcheck.hyp0f1.series` (it does not depend on the number of variables).
    """
    n = parts.shape[0]
    degree = 0
    for r in range(n):
        degree = max(degree, parts[r].sum())
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    sizes = np.zeros(n, dtype=np.int64)
    lens = np.zeros(n, dtype=np.int64)
    npairs = 0
    for r in range(n):
        index[series._key(parts[r])] = r
        sizes[r] = parts[r].sum()
        c = 1
        for i in range(m):
            if parts[r, i] > 0:
                lens[r] += 1
            nxt = parts[r, i + 1] if i + 1 < m else 0
            c *= parts[r, i] - nxt + 1
        npairs += c
    kap_idx = np.empty(npairs, dtype=np.int64)
    mu_idx = np.empty(npairs, dtype=np.int64)
    strip = np.empty(npairs, dtype=np.int64)
    psi = np.empty(npairs, dtype=np.float64)
    kc = np.zeros(degree + 1, dtype=np.int64)
    mc = np.zeros(degree + 1, dtype=np.int64)
    mu = np.zeros(m, dtype=np.int64)
    q = 0
    for r in range(n):
        kap = parts[r]
        kc[:] = 0
        series._conjugate(kap, kc)
        for i in range(m):
            mu[i] = kap[i + 1] if i + 1 < m else 0
        while True:
            mc[:] = 0
            series._conjugate(mu, mc)
            mi = index[series._key(mu)]
            kap_idx[q] = r
            mu_idx[q] = mi
            strip[q] = sizes[r] - sizes[mi]
            psi[q] = series._psi(kap, mu, kc, mc, series.ALPHA)
            q += 1
            i = m - 1  # odometer: μᵢ runs over [κᵢ₊₁, κᵢ]
            while i >= 0:
                if mu[i] < kap[i]:
                    mu[i] += 1
                    for j in range(i + 1, m):
                        mu[j] = kap[j + 1] if j + 1 < m else 0
                    break
                i -= 1
            if i < 0:
                break
    return kap_idx, mu_idx, strip, psi, lens[kap_idx], lens[mu_idx]


@njit(cache=True)
def _series_weights(parts, b):
    """d_κ = α^{|κ|}/(c'_κ (b)_κ) for every row κ of ``parts`` (module docstring of series)."""
    n = parts.shape[0]
    out = np.empty(n)
    kc = np.zeros(parts.sum(axis=1).max() + 1, dtype=np.int64)
    for r in range(n):
        kc[:] = 0
        series._conjugate(parts[r], kc)
        size = parts[r].sum()
        norm = 1.0  # |κ|! (b)_{|κ|}
        for t in range(size):
            norm *= (t + 1.0) * (b + t)
        out[r] = series._dhat(parts[r], kc, b, series.ALPHA) / norm
    return out


@njit(cache=True, nogil=True)
def _initial_state(y, dk, kap_idx, mu_idx, strip, psi, len_k, len_mu, out):
    """out[S] = G_S = ∏_{i∈S} yᵢ ∂_S F at x = y², from the zonal series truncated at the table's degree.

    Branching one variable at a time: P_n[κ, T] = Σ_μ ψ_{κ/μ} w P_{n−1}[μ, T∖n], with
    w = y_n^{2|κ/μ|} (n ∉ T) or |κ/μ| y_n^{2|κ/μ|−1} (n ∈ T; the yₙ of (2) times ∂/∂xₙ). At the last
    variable only Σ_κ d_κ P_m[κ, T] is needed, so each μ's weights Σ_κ d_κ ψ_{κ/μ} w are gathered first
    and the 2^(m−1) columns of P_{m−1} are touched once per μ instead of once per strip pair (at m = 6,
    degree 39, 5.3 of 7.3 million pairs are at the last level: 0.21 → 0.05 s a start).
    """
    m = y.shape[0]
    npart = dk.shape[0]
    maxs = 0
    for q in range(strip.shape[0]):
        maxs = max(maxs, strip[q])
    pold = np.zeros((npart, 1), dtype=y.dtype)
    pold[0, 0] = 1.0  # P_∅ = 1 (row 0 of the lex-ordered table is the empty partition)
    ypow = np.empty(2 * maxs + 1, dtype=y.dtype)
    gv = np.zeros(npart, dtype=y.dtype)  # at the last variable: Σ_κ d_κ ψ_{κ/μ} w per μ, without ∂/∂x_m
    gd = np.zeros(npart, dtype=y.dtype)  # and with it
    for n in range(1, m + 1):
        yn = y[n - 1]
        ypow[0] = 1.0
        for j in range(1, 2 * maxs + 1):
            ypow[j] = ypow[j - 1] * yn
        half = 1 << (n - 1)
        bit = half
        last = n == m
        pnew = pold if last else np.zeros((npart, 2 * half), dtype=y.dtype)
        for q in range(strip.shape[0]):
            if len_k[q] > n or len_mu[q] > n - 1:
                continue
            st = strip[q]
            wv = psi[q] * ypow[2 * st]
            wd = psi[q] * st * ypow[2 * st - 1] if st > 0 else 0.0 * yn
            kq = kap_idx[q]
            mq = mu_idx[q]
            if last:
                gv[mq] += dk[kq] * wv
                gd[mq] += dk[kq] * wd
                continue
            for T in range(half):
                pm = pold[mq, T]
                pnew[kq, T] += wv * pm
                pnew[kq, T | bit] += wd * pm
        pold = pnew
    half = out.shape[0] >> 1
    for T in range(half):
        av = 0.0 * y[0]
        ad = 0.0 * y[0]
        for r in range(npart):
            av += gv[r] * pold[r, T]
            ad += gd[r] * pold[r, T]
        out[T] = av
        out[T | half] = ad


def _initial_degree(m: int, s_hat: float, tol: float = INIT_TOL) -> int:
    """Smallest partition size M with Σ_{n ≥ 2M+2−m} ŝⁿ/n! ≤ tol (module docstring)."""
    M = 0
    while True:
        n0 = max(2 * M + 2 - m, 0)
        if n0 + 1 > s_hat:
            log_tail = n0 * math.log(s_hat) - math.lgamma(n0 + 1) - math.log1p(-s_hat / (n0 + 1))
            if log_tail <= math.log(tol):
                return M
        M += 1


@functools.lru_cache(maxsize=4)
def _strip_pairs(m: int, degree: int):
    """Partitions (≤ m parts, size ≤ degree) and their strip pairs (cached; they do not depend on k)."""
    parts = series._enumerate_partitions(m, degree)
    return parts, _pairs(parts, m)


@functools.lru_cache(maxsize=16)
def _tables(m: int, degree: int, b: float):
    """Series weights d_κ and strip pairs of the partitions with ≤ m parts and size ≤ degree (cached)."""
    parts, pairs = _strip_pairs(m, degree)
    return _series_weights(parts, b), pairs


def _start(sig: np.ndarray) -> float:
    """ŝ = s₀Σ|σ|: as far along the ray as the series with 2^m derivatives stays cheap; further
    (:data:`NEAR_EQUAL_START`) where two σ are closer than NOISE_GAP (:func:`_near_equal`).

    For m = 9, 10 a start at ŝ = 3 amplified rounding: σ = 10·geomspace(1, 0.1, m) changed by 1e-15
    relative moved log F by 1.7e-9 (m = 9) and ~1e-6 (m = 10), against 5e-12 and 2e-11 from ŝ = 8, which
    also needs fewer steps (m = 9: 3.8 s against 5.3 s for both rays; measured 2026-11-26).

    The amplification is seen only at k = m (A square). Our explanation, consistent with these numbers but
    not proven here: at a coordinate xᵢ → 0, (1) has the exponents 0 and 1 − c, c = b − (m − 1)/2; for
    k = m, 1 − c = ½ and a solution ∝ ∏ yᵢ (e.g. ∫_{O(k)} det(T) etr(ATᵀ) dT) vanishes at 0 yet grows to
    the size of F by s = 1, so a rounding error at s₀ grows roughly like ŝ^{−m} (measured: ×47 from ŝ = 3
    to 5 and ×16 from 5 to 8 at m = 8); for k > m, 1 − c ≤ 0 and the other solutions shrink relative to F
    along the ray. The same for m = 8, k = 8, σ = 100·geomspace(1, 0.1, 8), moved by 1 ulp:
    5.9e-10 from ŝ = 5, 3.7e-11 from ŝ = 8 (2.8e-8 from ŝ = 3); at k = 9, 10, 16 ≤ 2e-12 from either.
    ŝ = 8 also saves steps where a = k/2 is large: the accepted steps are nearly uniform in log s (h ≈ 2.5e-4·s
    at k = 16, 1e-3·s at k = 8, tol 1e-13; the coupling is O(k/s)), so the start decides a large share:
    m = 8, σ = 10·geomspace(1, 0.1, 8), k = 16 needs 7032 steps from ŝ = 5, 5109 from ŝ = 8, and both rays
    of _checked_ray took 5–25 % less time from ŝ = 8 than from ŝ = 5 at m = 7, 8, k = m, m + 2, 2m,
    σ_max = 10, 30, 100 (measured 2026-11-26, the tables cached).
    """
    m = sig.shape[0]
    if _near_equal(sig) and m in NEAR_EQUAL_START:
        return NEAR_EQUAL_START[m]
    return 8.0 if m <= 10 else 1.5


def _near_equal(sig: np.ndarray) -> bool:
    """Whether two σ (sorted decreasingly) are closer than NOISE_GAP relative."""
    return bool(np.any(sig[1:] > (1.0 - NOISE_GAP) * sig[:-1]))


def _ray_start(sig: np.ndarray, k: int):
    """(s₀, the state at s₀): the 2^m values (2) from the zonal series at s₀ (:func:`_start`; s₀ = 1 where
    the series alone reaches it, :func:`_series_alone`), for σ sorted decreasingly. Every run of a ray
    (:func:`_checked_ray`) starts from the same state, so it is computed once: at m = 6 and ŝ = 16 it took
    half of a ray's time (0.23 of 0.46 s, measured 2026-11-27; 0.05 s since :func:`_initial_state` gathers
    the last level by μ)."""
    m = sig.shape[0]
    s_hat = _start(sig)
    s0 = s_hat / float(np.sum(sig))
    if _series_alone(sig):
        s_hat, s0 = float(np.sum(sig)), 1.0
    dk, pairs = _tables(m, _initial_degree(m, s_hat), 0.5 * k)
    G = np.empty(1 << m)
    _initial_state(0.5 * s0 * sig, dk, *pairs, G)
    return s0, G


def _ray(sig: np.ndarray, k: int, tol: float, max_steps: int, noise: float = 0.0, salt: int = 0, start=None,
         full_state: bool = False):
    """HGM along the ray for one vector of non-zero, pairwise distinct σ (sorted decreasingly), from
    ``start`` (:func:`_ray_start`; computed if None, not changed); with ``noise``, every coupling
    evaluation's rounding is imitated at that relative size, with signs drawn by ``salt`` (:func:`_coupling`),
    and the start's at START_ROUNDING times that size.

    Returns (log F, estimated error of log F, accepted steps, ∂ log F/∂σ (m,), steps tried: accepted and
    rejected, what ``max_steps`` limits); with ``full_state``, the whole state G_S/G_∅ at s = 1 (2^m, bit i of
    S for sig[i]) in place of the gradient. The gradient is
    G_{{i}}/G_∅ at s = 1 (module docstring, (2): G_{{i}} = E[Tᵢᵢ e^{Σσⱼ Tⱼⱼ}] = ∂F/∂σᵢ). Raises
    StepBudgetExceeded when the step budget is exhausted, RuntimeError when the state's mean G_∅ = F comes
    out ≤ 0 (rounding amplified by close σ swamped it: seen in a disturbed run of :func:`_checked_ray`,
    k = 8, σ = (10⁴, (10/3)⁴) spread, 10× the auto work).
    """
    m = sig.shape[0]
    b = 0.5 * k
    s0, G = _ray_start(sig, k) if start is None else start
    if s0 == 1.0:
        value = math.log(G[0])
        ratios = G / G[0] if full_state else G[1 << np.arange(m)] / G[0]
        return value, INIT_TOL + ROUNDING * (1.0 + abs(value)), 0, ratios, 0
    G = G.copy()
    if noise > 0.0:  # the start's own rounding, imitated (START_ROUNDING)
        G *= 1.0 + START_ROUNDING * noise * np.random.default_rng([salt, 1 << m]).choice([-1.0, 1.0], G.shape[0])
    _walsh(G)
    shift = -(m * (m - 1) / 2 + m * (k - m)) / 2
    flips = ((np.arange(1 << m)[:, None] >> np.arange(m)) & 1).astype(float)
    pf = _Pfaffian(sig, b, noise, salt).args
    logscale, err, steps, rejected = _integrate(G, s0, float(np.sum(sig)), -2.0 * (flips @ sig), 2.0 * sig, pf,
                                                shift, tol, max_steps, _lawson_suits(sig, k), _TABLEAU)
    if not np.isfinite(err):
        raise StepBudgetExceeded(f"the holonomic ray needs more than max_steps={max_steps} steps")
    g0 = np.sum(G) / G.shape[0]
    if not g0 > 0.0 or not np.isfinite(logscale):  # F > 0: rounding, amplified by close σ, swamped the state
        raise RuntimeError(f"the holonomic ray lost all accuracy (its state's mean is {g0:.3g} at s = 1)")
    value = math.log(g0) + logscale
    if full_state:  # G_S = (1/n) Σ_E (−1)^{|E ∧ S|} Y_E: the inverse Walsh transform
        _walsh(G)
        return value, err + INIT_TOL + ROUNDING * (1.0 + abs(value)), steps, G / G[0], steps + rejected
    # G_{i} = (1/n) Σ_E (−1)^{E_i} Y_E: the inverse Walsh transform at the singletons
    grad = ((1.0 - 2.0 * flips).T @ G) / G.shape[0] / g0
    return value, err + INIT_TOL + ROUNDING * (1.0 + abs(value)), steps, grad, steps + rejected


def _lawson_suits(sig: np.ndarray, k: int) -> bool:
    """Whether a ray is integrated by Lawson DOP853 steps rather than the Hochbruck–Ostermann scheme:
    m ≤ LAWSON_MAX_M, Σσ ≤ LAWSON_SUM·k·m, and for k = m every relative gap (σᵢ − σᵢ₊₁)/σᵢ at least
    LAWSON_GAP·m."""
    m = sig.shape[0]
    if m > LAWSON_MAX_M or float(np.sum(sig)) > LAWSON_SUM * k * m:
        return False
    return k > m or bool(np.all(sig[1:] <= (1.0 - LAWSON_GAP * m) * sig[:-1]))  # σ sorted decreasingly


def _clusters(sig: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each run of ≥ 2 consecutive σ (sorted decreasingly) to spread.

    A run starts where two neighbours are closer than CLUSTER_GAP·max(1, σ) and takes in neighbours up to
    CLUSTER_JOIN times that (so a cluster whose gaps straddle CLUSTER_GAP is spread whole, never in part); a
    run of two is kept only if the two are closer than PAIR_GAP·max(1, σ); then, while a neighbour outside a run
    holds the spread below MIN_SPREAD (:func:`_spread_direction`), the two are joined.
    """
    close = sig[:-1] - sig[1:] < CLUSTER_GAP * np.maximum(1.0, sig[:-1])
    near = sig[:-1] - sig[1:] < CLUSTER_JOIN * CLUSTER_GAP * np.maximum(1.0, sig[:-1])
    runs = []
    i = 0
    while i < sig.shape[0] - 1:
        j = i
        while j < sig.shape[0] - 1 and near[j]:
            j += 1
        if close[i:j].any() and (j - i >= 2 or sig[i] - sig[j] < PAIR_GAP * max(1.0, sig[i])):
            runs.append((i, j + 1))
        i = j + 1
    while runs:
        c, g0, spacing = _spread_direction(sig, runs)
        if spacing * SECOND_SPREAD >= MIN_SPREAD:
            break
        edges = [e for e in range(sig.shape[0] - 1) if not any(a <= e < b - 1 for a, b in runs)]
        limits = [0.5 * (sig[e] - sig[e + 1]) / (RICHARDSON * abs(c[e] - c[e + 1]))
                  if c[e] != c[e + 1] else np.inf for e in edges]
        if not limits or min(limits) > g0:  # held by the last σ's distance to 0: nothing to join
            break
        e = edges[int(np.argmin(limits))]
        left = next((r for r in runs if r[0] <= e < r[1]), (e, e + 1))
        right = next((r for r in runs if r[0] <= e + 1 < r[1]), (e + 1, e + 2))
        runs = sorted([r for r in runs if r not in (left, right)] + [(left[0], right[1])])
    if runs:  # a run whose nodes cross at every allowed g₀ has gaps as wide as its spread: left as it is
        c, g0, _ = _spread_direction(sig, runs)
        runs = [run for run in runs if not all(_run_crosses(sig, c, shrink * g0, run) for shrink in _SHRINKS)]
    return runs


def _spread_direction(sig: np.ndarray, runs) -> tuple[np.ndarray, float, float]:
    """Offsets c (module docstring), the step g₀ ≤ 1 and the smallest spacing g₀·u of a run.

    c is centred and equispaced inside each run with spacing u = max(SPREAD·m, REL_SPREAD·σ̄)
    (absolute for cancellation, relative for stiffness), ordered so that positive g widens every
    gap. g₀ is cut so that at g = ±RICHARDSON·g₀ no two neighbouring σ of different runs (a run and a
    single σ, or two runs, which then move towards each other) come closer than half of their present
    distance, and the last σ stays above half of itself. (Cutting by each run's own reach alone let two
    neighbouring runs meet at the outermost node: σ = 5.0188, 4.7886, 4.4867, each twice, at g = 5g₀
    divided by σᵢ² − σⱼ² = 0.)
    """
    c = np.zeros_like(sig)
    same_run = np.zeros(max(sig.shape[0] - 1, 0), dtype=bool)
    spacing = np.inf
    for i, j in runs:
        n = j - i
        unit = max(SPREAD * sig.shape[0], REL_SPREAD * float(sig[i:j].mean()),
                   GAP_UNIT * float(np.max(sig[i:j - 1] - sig[i + 1:j])))
        c[i:j] = (0.5 * (n - 1) - np.arange(n)) * unit  # sig decreasing: the first gets the largest offset
        same_run[i:j - 1] = True
        spacing = min(spacing, unit)
    g0 = 1.0
    for i in np.flatnonzero(~same_run):  # neighbours in different runs: |g|·|cᵢ − cᵢ₊₁| ≤ half their gap
        closing = RICHARDSON * abs(c[i] - c[i + 1])
        if closing > 0:
            g0 = min(g0, 0.5 * (sig[i] - sig[i + 1]) / closing)
    if c[-1] != 0:
        g0 = min(g0, 0.5 * sig[-1] / (RICHARDSON * abs(c[-1])))
    return c, g0, g0 * spacing


def _run_crosses(sig: np.ndarray, c: np.ndarray, g: float, run: tuple[int, int]) -> bool:
    """Whether a node σ − n·gg·c (n ≤ RICHARDSON, gg ∈ {g, SECOND_SPREAD·g}) brings two σ of the run closer
    than half their spacing at gg."""
    i, j = run
    gaps = sig[i:j, None] - sig[None, i:j]
    dc = c[i:j, None] - c[None, i:j]
    upper = np.triu_indices(j - i, 1)
    for gg in (g, SECOND_SPREAD * g):
        for n in range(1, RICHARDSON + 1):
            if np.min(np.abs(gaps - n * gg * dc)[upper]) < 0.5 * gg * np.min(np.abs(dc[upper])):
                return True
    return False


def _clear_of_crossings(sig: np.ndarray, c: np.ndarray, g0: float, runs) -> float:
    """g₀ shrunk (by at most half, ``_SHRINKS``) until no node σ − n·g·c (n ≤ RICHARDSON, g ∈ {g₀,
    SECOND_SPREAD·g₀}) brings two σ of a run closer than half their spacing at g.

    Only nearly (not exactly) tied σ cross on the minus side of the spread: σᵢ − σⱼ − g(cᵢ − cⱼ)
    vanishes at one g, and a ray through a node there divides by σᵢ² − σⱼ² = 0.
    """
    if all(np.all(sig[i:j] == sig[i]) for i, j in runs):
        return g0
    for shrink in _SHRINKS:
        if not any(_run_crosses(sig, c, shrink * g0, run) for run in runs):
            return shrink * g0
    raise ValueError("sigma: a cluster of nearly equal singular values cannot be spread without "
                     "its nodes crossing (holonomic method)")


def _richardson_weights(n: int) -> np.ndarray:
    """w with Σⱼ wⱼ p((j+1)²) = p(0) for every polynomial p of degree < n (nodes g = 1..n in g²)."""
    nodes = np.arange(1, n + 1, dtype=float) ** 2
    return np.linalg.solve(np.vander(nodes, n, increasing=True).T, np.eye(n)[0])


def _series_alone(sig: np.ndarray) -> bool:
    """Whether the initial series reaches s = 1 by itself (s₀ = ŝ/Σσ ≥ 1): a ray then integrates nothing."""
    return _start(sig) / float(np.sum(sig)) >= 1.0


def _needs_spreading(sig: np.ndarray) -> bool:
    return bool(_clusters(sig)) and not _series_alone(sig)


def _tight_regime(sig: np.ndarray, k: int, tol: float, steps: int, coarse_steps: int) -> bool:
    """Whether a ray's value figure is the `SAFETY_TIGHT` estimate (where the references reach it).

    k = m with m ≥ 4 is left out: there rounding at the start grows along the ray (:func:`_start`) in
    both runs alike, so v − v_c does not see it, and no independent reference reaches long rays there.
    So is a ray whose coarse run (``coarse_steps``) is not coarser (:data:`TOLERANCE_LIMITED`).
    """
    m = sig.shape[0]
    gaps_ok = bool(np.all(sig[1:] <= (1.0 - TIGHT_GAP) * sig[:-1]))  # σ sorted decreasingly
    return (tol <= TIGHT_RTOL and steps <= TIGHT_MAX_STEPS and (k > m or m <= 3) and gaps_ok
            and tolerance_limited(steps, coarse_steps))


def tolerance_limited(steps: int, coarse_steps: int) -> bool:
    """Whether a ray's steps were set by its tolerance, so that its run at COARSE times the tolerance is about COARSE
    times worse and their difference estimates the error (:data:`TOLERANCE_LIMITED`)."""
    return steps >= TOLERANCE_LIMITED_STEPS and coarse_steps <= TOLERANCE_LIMITED * steps


def _checked_ray(sig: np.ndarray, k: int, tol: float, budget: int, concurrent: bool = True,
                 value_only: bool = False):
    """A ray at ``tol`` and again at COARSE·tol: (value, error, steps used, gradient, gradient error, the
    least budget it succeeds with); the errors include their safety factors. With ``value_only``, the ray at
    ``tol`` alone, and both errors inf (the value and gradient are the same). In order, the finer run may try
    ``budget`` steps and the coarser what the finer left (``budget`` − its accepted steps). Where ``concurrent``
    and Numba has t > 1 threads, t runs go at once (:func:`_grouped`), each allowed what the earlier groups
    left, and the same condition is checked after each group (:func:`_settle`): the same numbers and the same
    budget outcome, and a row that runs out stops after the group where it does. (All four runs at once on two
    threads, each allowed the whole budget, let k = 6, σ = 10(1 − 0.003)^i run 16 s before it failed; measured
    2026-11-27.)

    Local error control does not bound the global error of a linear system whose couplings
    amplify errors (close σ: coefficients 1/(σᵢ² − σⱼ²)), and the step-doubling estimate missed
    such amplification by 10⁵ (measured: m = 7, σ = 100 ± 6 in steps of 2). The difference between
    the two runs (the coarser one's global error, ~COARSE times the finer one's) is added to the
    finer run's own estimate, times SAFETY; in :func:`_tight_regime` the value's figure is
    SAFETY_TIGHT × (that difference scaled to the finer run, floored by the step-doubling sum, plus
    rounding per step) instead (:data:`SAFETY_TIGHT`).

    Where :func:`_rounding_probed` (k = m ≥ 4, k = m + 1 ≥ 5, or near-equal σ), PROBES more runs repeat the finer
    one with each coupling term's rounding imitated at :data:`NOISE` (:func:`_coupling`) and the start's at
    START_ROUNDING·NOISE, each with its own signs, and may try what the runs before left; SAFETY_NOISE·(u/NOISE)·max|v − v_p| joins the figures of the value and the
    gradient (the shared rounding, made larger and scaled back); a response above PROBE_LINEAR makes both
    figures inf.
    """
    if value_only:
        v, _, used, g, tried = _ray(sig, k, tol, budget)
        return v, np.inf, used, g, np.inf, tried
    tols, noises, salts = [tol, COARSE * tol], [0.0, 0.0], [0, 0]
    if _rounding_probed(sig, k):
        tols += [tol] * PROBES
        noises += [NOISE] * PROBES
        salts += list(range(PROBES))
    start = _ray_start(sig, k)
    if concurrent and _threads(len(tols)) > 1 and not _series_alone(sig):
        runs, _ = _grouped(lambda i, left: (_ray, (sig, k, tols[i], left, noises[i], salts[i], start)),
                           len(tols), budget, least=4)
    else:
        runs = _serial_runs(sig, k, tols, noises, salts, budget, start)
    v, e, used, g, tried = runs[0]
    if used == 0:  # the initial series reached s = 1: nothing was integrated
        return v, SAFETY * e, used, g, SAFETY * 2.0 * e * (1.0 + np.max(np.abs(g))), 0
    vc, gc = runs[1][0], runs[1][3]
    to_rounding = SAFETY_NOISE * np.finfo(float).eps / NOISE  # the probe's response scaled to rounding
    response = max((abs(v - r[0]) for r in runs[2:]), default=0.0)
    gresponse = max((float(np.max(np.abs(g - r[3]))) for r in runs[2:]), default=0.0)
    linear = response <= PROBE_LINEAR and gresponse <= PROBE_LINEAR  # NaN responses fail too
    noise = to_rounding * response if linear else np.inf
    gnoise = to_rounding * gresponse if linear else np.inf
    gerr = SAFETY * (float(np.max(np.abs(g - gc))) + 2.0 * e * (1.0 + np.max(np.abs(g)))) + gnoise
    if _tight_regime(sig, k, tol, used, runs[1][2]):
        fixed = INIT_TOL + ROUNDING * (1.0 + abs(v))
        err_sum = e - fixed
        scaled = max(abs(v - vc) / (COARSE - 1.0), err_sum / DOUBLING_FLOOR)
        err = SAFETY_TIGHT * (scaled + used * np.finfo(float).eps + fixed) + noise
    else:
        err = SAFETY * (e + abs(v - vc)) + noise
    before = np.cumsum([0] + [r[2] for r in runs[:-1]])
    least = max(int(b) + r[4] for b, r in zip(before, runs))
    return v, err, sum(r[2] for r in runs), g, gerr, least


def _serial_runs(sig: np.ndarray, k: int, tols, noises, salts, budget: int, start, full_state: bool = False) -> list:
    """:func:`_ray` at each (tolerance, noise, salt) in turn from the same ``start``, each allowed the steps the
    earlier runs left of ``budget``; only the first where it integrated nothing (the start series reached s = 1)."""
    runs = [_ray(sig, k, tols[0], budget, noises[0], salts[0], start, full_state)]
    if runs[0][2] > 0:
        for tol, noise, salt in zip(tols[1:], noises[1:], salts[1:]):
            runs.append(_ray(sig, k, tol, budget - sum(r[2] for r in runs), noise, salt, start, full_state))
    return runs


def _rounding_probed(sig: np.ndarray, k: int) -> bool:
    """Whether a ray gets the disturbed runs of :func:`_checked_ray` (:data:`NOISE`): k = m ≥ 4 or k = m + 1 ≥ 5,
    or two σ (sorted decreasingly) closer than NOISE_GAP relative.

    At k = m + 1 the second exponent at σᵢ = 0 is 1 − c = 0 (module docstring of :func:`_start`): a logarithmic
    solution neither grows nor fades against F, and rounding is amplified much as at k = m. Unprobed, the ray at
    k = 9, σ = 10·0.9499^i (m = 8) returned 28.4131444024 with figure 3.1e-10, 4.1e-10 from the value of the
    contiguous relation and of the ray from ŝ = 24 (those two agree to 1.5e-11); its probe response at NOISE is
    3–9e-5, a figure of ~2e-7 (measured 2026-11-28)."""
    m = sig.shape[0]
    return (k - m in (0, 1) and m >= 4) or _near_equal(sig)


def _threads(tasks: int) -> int:
    """Threads for ``tasks`` independent rays: Numba's thread count (1 in the report's workers and under
    :func:`symcheck.sweep.one_thread`; ``NUMBA_NUM_THREADS`` sets it), at most ``tasks``."""
    return max(1, min(numba.get_num_threads(), tasks))


def _concurrently(calls):
    """``[f(*args) for f, args in calls]`` on :func:`_threads` threads (the ray kernels release the GIL), in
    order; each call's exception, if it raised one, in its place (after every call has ended), for the caller
    to raise in order."""
    with ThreadPoolExecutor(max_workers=_threads(len(calls))) as pool:
        futures = [pool.submit(f, *args) for f, args in calls]
    return [f.exception() or f.result() for f in futures]


def _checked_rays(rays, k: int, tol: float, budget: int, value_only: bool = False):
    """:func:`_checked_ray` of every σ in ``rays`` (``value_only`` passed on) and the steps they used together,
    sharing ``budget``.

    With one thread: in order, each with what the ones before left. With t > 1 threads: t rays at a time,
    each allowed what the earlier groups left, and StepBudgetExceeded after a group where, in order, one would
    have run out (its least budget above what the ones before left), so a row succeeds or fails exactly as
    it does in order (a ray's result does not depend on its budget unless it runs out), and a row that runs
    out costs at most t budgets of steps. (All rays at once, each allowed the whole budget, let a row of
    ten spread rays that runs out cost ten budgets: 17 s instead of 2–4 s for k = 8, σ ≈ 300 nearly
    equal, measured 2026-11-27.)
    """
    if _threads(len(rays)) <= 1:
        done, used = [], 0
        for sig in rays:
            done.append(_checked_ray(sig, k, tol, budget - used, value_only=value_only))
            used += done[-1][2]
        return done, used
    return _grouped(lambda i, left: (_checked_ray, (rays[i], k, tol, left, False, value_only)), len(rays), budget,
                    least=5)


def _grouped(make_call, count: int, budget: int, least: int):
    """Calls ``make_call(i, left)`` → (function, args) for i < ``count``, run :func:`_threads` at a time
    (:func:`_concurrently`), each allowed what the earlier groups ``left`` of ``budget``, each group checked
    by :func:`_settle` (entry ``least`` of an outcome is its least budget): (the outcomes in order, the
    steps they used together)."""
    t = _threads(count)
    done, used = [], 0
    for first in range(0, count, t):
        group = _concurrently([make_call(i, budget - used) for i in range(first, min(first + t, count))])
        used += _settle(group, budget - used, least)
        done.extend(group)
    return done, used


def _settle(outcomes, budget: int, least: int) -> int:
    """Raise as running ``outcomes`` in order would have (each allowed what the ones before left of ``budget``):
    the first exception among them, or StepBudgetExceeded at the first whose least budget (entry ``least``)
    exceeds what is left; else return the steps they used together (entry 2 of each)."""
    used = 0
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome[least] > budget - used:
            raise StepBudgetExceeded(f"the holonomic ray needs more than max_steps={budget - used} steps")
        used += outcome[2]
    return used


def _extrapolated(sig: np.ndarray, k: int, tol: float, budget: int, c: np.ndarray, g0: float, runs,
                  value_only: bool = False):
    """Richardson extrapolation to g = 0 of the even part of φ(g) = log F(σ + g c) and of its
    gradient (module docstring); returns (value, error estimate, gradient, its error, steps used), the
    Richardson change times SAFETY plus the rays' figures (:func:`_checked_ray`) times Σ|weights|. With
    ``value_only`` each ray runs once (no coarse or probe runs) and both estimates are inf."""
    exact_ties = all(np.all(sig[i:j] == sig[i]) for i, j in runs)
    mirror = np.arange(sig.shape[0])  # P: reverse each run (φ(−g) = log F(Pσ + g c))
    for i, j in runs:
        mirror[i:j] = mirror[i:j][::-1]
    even = np.empty(RICHARDSON)
    even_grad = np.empty((RICHARDSON, sig.shape[0]))
    ray_err = ray_gerr = 0.0
    rays, orders = [], []
    for n in range(1, RICHARDSON + 1):  # φ_e(g) = [φ(g) + φ(−g)]/2; φ(−g) = φ(g) for exact ties
        rays.append(sig + n * g0 * c)
        if not exact_ties:
            minus = sig - n * g0 * c
            orders.append(np.argsort(-minus, kind="stable"))
            rays.append(minus[orders[-1]].copy())
    done, used = _checked_rays(rays, k, tol, budget, value_only)
    per_node = 1 if exact_ties else 2
    for n in range(RICHARDSON):
        v_plus, e_plus, _, g_plus, ge_plus, _ = done[per_node * n]
        if exact_ties:  # log F(σ − gc) = log F(P(σ + gc)): the same value, the gradient permuted back
            v_minus, e_minus, g_minus, ge_minus = v_plus, e_plus, g_plus[mirror], ge_plus
        else:
            v_minus, e_minus, _, g_sorted, ge_minus, _ = done[per_node * n + 1]
            g_minus = np.empty_like(g_sorted)
            g_minus[orders[n]] = g_sorted
        even[n] = 0.5 * (v_plus + v_minus)
        even_grad[n] = 0.5 * (g_plus + g_minus)
        ray_err = max(ray_err, e_plus, e_minus)
        ray_gerr = max(ray_gerr, ge_plus, ge_minus)
    w = _richardson_weights(RICHARDSON)
    fewer = _richardson_weights(RICHARDSON - 1)
    value = float(w @ even)
    grad = w @ even_grad
    err = SAFETY * abs(value - float(fewer @ even[:-1])) + np.sum(np.abs(w)) * ray_err
    gerr = SAFETY * float(np.max(np.abs(grad - fewer @ even_grad[:-1]))) + np.sum(np.abs(w)) * ray_gerr
    return value, err, grad, gerr, used


def _one(sig: np.ndarray, k: int, tol: float, max_steps: int):
    """(log F, its error estimate, gradient (m,), gradient error estimate) for one row (σ sorted
    decreasingly, all > 0), safety factors included; ``max_steps`` is shared by all its rays.

    The runs of :func:`_clusters` are spread (:func:`_spread`). Where some run has every gap at least
    UNSPREAD_GAP·max(1, σ), the row is run again with those runs unspread, allowed as many steps as the first
    took (or what it left), and of the two answers (each with its own figure) the one with the smaller value
    figure is returned, with its gradient.
    """
    if not _needs_spreading(sig):  # no cluster, or the series alone reaches s = 1
        value, err, _, grad, gerr, _ = _checked_ray(sig, k, tol, max_steps)
        return value, err, grad, gerr
    runs = _clusters(sig)
    best = _spread(sig, k, tol, max_steps, runs)
    wide = [(i, j) for i, j in runs
            if np.all(sig[i:j - 1] - sig[i + 1:j] >= UNSPREAD_GAP * np.maximum(1.0, sig[i:j - 1]))]
    if wide:
        allowed = min(best[4], max_steps - best[4])
        try:
            other = _spread(sig, k, tol, allowed, [run for run in runs if run not in wide]) if allowed > 0 else None
        except (RuntimeError, ValueError):  # out of the steps allowed, or what is left cannot be spread
            other = None
        if other is not None and other[1] < best[1]:
            best = other
    return best[:4]


def _spread(sig: np.ndarray, k: int, tol: float, max_steps: int, runs):
    """(log F, figure, gradient, gradient figure, steps used) with the given runs spread (none: one ray).

    Clusters are extrapolated twice, from spreads g₀ and SECOND_SPREAD·g₀ (independent rays and
    nodes): the answer is the first, its figure the first's own plus SAFETY times the difference of the
    two results, a check on the extrapolation that the first's Richardson change cannot make. The second's
    own figure is not the first's error and is left out, so its rays run once each, without the coarse and
    probe runs that only make a figure (k = 6, near clusters at σ_max = 30: 10.3 s → 7.4 s a row, the same
    value and figure; measured 2026-11-28): with it (the maximum of the two) the figure
    was larger where the second's nodes, 0.6 times as far apart, carry more rounding (k = 6, two clusters
    of three at σ = 10, 10/3: 1.3e-8 against 1.8e-9 without). Without it the largest true error / figure
    on independent references was 0.0065 (k = 3, 4 two clusters against the closed forms, σ_max = 5–300,
    ratios 1/3–0.95; 0.02 on equal spectra at k = 2–4), and at k = 5 (σ_max = 100–1000) the answers agreed
    with the formal series to 1.4e-11 against figures ≥ 2.6e-9 (measured 2026-11-27).
    """
    if not runs:
        value, err, used, grad, gerr, _ = _checked_ray(sig, k, tol, max_steps)
        return value, err, grad, gerr, used
    c, g0, spacing = _spread_direction(sig, runs)
    g0 = _clear_of_crossings(sig, c, g0, runs)
    if spacing * SECOND_SPREAD < MIN_SPREAD:
        raise ValueError("sigma: a cluster of nearly equal singular values lies too close to another "
                         f"singular value or to 0 for the holonomic method to separate it (spacing {spacing:.1e})")
    value, err, grad, gerr, used = _extrapolated(sig, k, tol, max_steps, c, g0, runs)
    v2, _, g2, _, used2 = _extrapolated(sig, k, tol, max_steps - used, c, SECOND_SPREAD * g0, runs, value_only=True)
    return (value, err + SAFETY * abs(value - v2), grad, gerr + SAFETY * float(np.max(np.abs(grad - g2))),
            used + used2)


def default_max_steps(m: int, work: float = STEP_WORK) -> int:
    """The step budget of a row with m non-zero σ when none is given: ``work`` units at
    `STEP_OVERHEAD` + 2^m·m² units per step (:data:`STEP_WORK`: ≤ ~10 s here), at least 100 steps."""
    return max(100, int(work / (STEP_OVERHEAD + (1 << m) * m * m)))


def nonzero_sorted(row: np.ndarray) -> np.ndarray:
    """The σ of a row that the method keeps (above its drop threshold), sorted decreasingly (a new array)."""
    return np.ascontiguousarray(np.sort(row[row > _DROP_SIGMA])[::-1])


def holonomic_reason(flat: np.ndarray, k: int) -> np.ndarray:
    """Per row: '' where the holonomic method applies, else why not (the ValueError's text)."""
    out = np.full(flat.shape[0], "", dtype=object)
    for r, row in enumerate(flat):
        sig = nonzero_sorted(row)
        if sig.shape[0] > MAX_M:
            out[r] = (f"the holonomic method takes at most {MAX_M} non-zero singular values (its state has "
                      f"2^m entries); this row has {sig.shape[0]}")
        elif sig.sum() > MAX_SIGMA_SUM:
            out[r] = (f"the holonomic method takes rows with a sum of singular values up to {MAX_SIGMA_SUM:g} (its "
                      f"step count grows with it); this row sums to {sig.sum():.3g}: use method='asymptotic'")
        elif sig.shape[0] and _needs_spreading(sig):
            runs = _clusters(sig)
            spread = np.zeros(sig.shape[0], dtype=bool)
            for i, j in runs:
                spread[i:j] = True
            if SECOND_SPREAD * _spread_direction(sig, runs)[2] < MIN_SPREAD:
                out[r] = ("a cluster of nearly equal singular values lies too close to another singular value or to 0 "
                          "for the holonomic method to separate it")
            elif np.any((sig[:-1] == sig[1:]) & ~(spread[:-1] & spread[1:])):
                out[r] = ("equal singular values whose spread run would cross a close neighbour at every step "
                          "(so the system, singular at the tie, cannot be integrated there)")
    return out


def auto_affordable(flat: np.ndarray, k: int, full_rank: bool, lawson: bool) -> np.ndarray:
    """Rows "auto" hands to the holonomic method, with m = k if ``full_rank`` (run at AUTO_RTOL) else m < k
    (run at AUTO_RTOL_RANK_DEFICIENT): if ``lawson``, rows that are one Lawson ray (no cluster,
    :func:`_lawson_suits`) with m ≤ AUTO_MAX_M_LAWSON (given AUTO_LAWSON_STEP_WORK at k = m,
    AUTO_LAWSON_RANK_DEFICIENT_STEP_WORK at m < k); else the other rows
    with m ≤ AUTO_MAX_M (given AUTO_STEP_WORK). A few seconds at most a row."""
    m = np.count_nonzero(flat > _DROP_SIGMA, axis=1)
    out = (m <= (AUTO_MAX_M_LAWSON if lawson else AUTO_MAX_M)) & ((m == k) if full_rank else (m < k))
    for r in np.flatnonzero(out):
        sig = nonzero_sorted(flat[r])
        out[r] = lawson == (not _needs_spreading(sig) and _lawson_suits(sig, k))
    return out


def _evaluate(flat: np.ndarray, k: int, rtol: float, max_steps, work: float, want_grad: bool):
    value = np.zeros(flat.shape[0])
    error = np.zeros(flat.shape[0])
    grad = np.zeros_like(flat)
    gerr = np.zeros(flat.shape[0])
    reasons = holonomic_reason(flat, k)
    for r, row in enumerate(np.asarray(flat, dtype=float)):
        if reasons[r]:
            raise ValueError(f"sigma: {reasons[r]} (row {r})")
        keep = np.flatnonzero(row > _DROP_SIGMA)
        order = keep[np.argsort(-row[keep], kind="stable")]
        tiny = row[(row <= _DROP_SIGMA)]
        error[r] = 0.5 * float(np.sum(tiny**2))  # dropping σᵢ changes log F by ≤ σᵢ²/2 (module docstring)
        gerr[r] = float(np.max(tiny, initial=0.0))  # and its derivative (≤ σᵢ) by as much
        if order.size:
            budget = default_max_steps(order.size, work) if max_steps is None else max_steps
            v, e, g, ge = _one(row[order].copy(), k, rtol, budget)
            value[r] = v
            error[r] += e
            grad[r, order] = g
            gerr[r] += ge
    return (value, error, grad, gerr) if want_grad else (value, error)


def log_hyp0f1_holonomic(flat: np.ndarray, k: int, rtol: float = 1e-13, max_steps: int | None = None,
                         work: float = STEP_WORK):
    """log ₀F₁(k/2; AAᵀ/4) by the holonomic gradient method, with an error estimate.

    Parameters
    ----------
    flat : ndarray, shape (n, k)
        Validated singular values (non-negative, finite).
    k : int
    rtol : float
        Local error tolerance of the ODE solver per step (relative to the state).
    max_steps : int, optional
        Step budget of each row, shared by its rays; StepBudgetExceeded (a RuntimeError) beyond it. Default
        :func:`default_max_steps` ``(m, work)``.
    work : float
        Work units of each row when ``max_steps`` is not given (default :data:`STEP_WORK`, ~10 s).

    Returns
    -------
    value, error : ndarray, shape (n,)
        log ₀F₁ and an *estimate* of its absolute error: per ray SAFETY × (ODE step-doubling
        estimates + the difference from the run at COARSE·rtol + the initial series' truncation bound
        + 64-ulp rounding), or, where :func:`_tight_regime` holds, SAFETY_TIGHT × (that difference
        / (COARSE − 1), at least the step-doubling sum / DOUBLING_FLOOR, + steps·u + truncation bound
        + 64-ulp rounding); for clusters SAFETY × the Richardson changes plus the rays' figures times
        the sum of |extrapolation weights|, plus SAFETY × the difference from a second extrapolation; plus
        σᵢ²/2 for every dropped tiny σᵢ (module docstring).
        The safety factors were measured on independent references (:data:`SAFETY`,
        :data:`SAFETY_TIGHT`).

    Raises
    ------
    ValueError
        More than ``MAX_M`` non-zero σ, Σσ > ``MAX_SIGMA_SUM``, or a cluster that cannot be spread
        (:func:`holonomic_reason`).
    StepBudgetExceeded
        The step budget ran out.
    RuntimeError
        A ray lost all accuracy (its mean came out ≤ 0: rounding amplified by close σ).

    References
    ----------
    Nakayama, H. et al. (2011). Holonomic gradient descent and its application to the
    Fisher–Bingham integral. Adv. Appl. Math. 47, 639–658.
    Muirhead, R. J. (1982). Aspects of Multivariate Statistical Theory, Thm. 7.5.6.
    Hochbruck, M. & Ostermann, A. (2005). Explicit exponential Runge–Kutta methods for
    semilinear parabolic problems. SIAM J. Numer. Anal. 43, 1069–1090.
    Lawson, J. D. (1967). Generalized Runge–Kutta processes for stable systems with large Lipschitz
    constants. SIAM J. Numer. Anal. 4, 372–380.
    Hairer, E., Nørsett, S. P. & Wanner, G. (1993). Solving Ordinary Differential Equations I, 2nd ed.,
    §II.10 (DOP853).
    """
    return _evaluate(flat, k, rtol, max_steps, work, want_grad=False)


def grad_log_hyp0f1_holonomic(flat: np.ndarray, k: int, rtol: float = 1e-13, max_steps: int | None = None,
                              work: float = STEP_WORK):
    """Gradient in σ by the holonomic method (the ray's final state holds ∂F/∂σᵢ = G_{{i}}) and an
    estimate of its largest component error; arguments and errors as :func:`log_hyp0f1_holonomic`.

    Returns
    -------
    grad : ndarray, shape (n, k)
    error : ndarray, shape (n,)
    """
    _, _, grad, gerr = _evaluate(flat, k, rtol, max_steps, work, want_grad=True)
    return grad, gerr
