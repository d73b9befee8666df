"""Is a user's Gaussian KL right? A checker against 50-digit references on exact float64 inputs.

`check_kl_gaussian(fn)` calls `fn(m0, S0, m1, S1)` on families of Gaussian pairs and compares it
with KL[N(m0, S0) ‖ N(m1, S1)] = ½(tr(S1⁻¹S0) + δᵀS1⁻¹δ − d + log|S1| − log|S0|), δ = m1 − m0,
evaluated on the exact float64 inputs by one of two routes independent of float64 code:

- d ≤ 60: mpmath at 50 digits (LU inverse and determinants);
- d = 64 to 200: covariances built with a known eigendecomposition S = P Q Λ Qᵀ Pᵀ (Q a block
  Hadamard matrix scaled to be orthogonal, P a signed permutation, Λ = diag(n)·2⁻ᵉ with integer
  n), so that every entry of S is exact in float64 and
  KL = ½(Σₗₘ W²ₗₘ λ0ₘ/λ1ₗ − d + Σ log λ1 − Σ log λ0 + Σₗ (Q1ᵀP1ᵀδ)ₗ²/λ1ₗ), W = QᵀP1ᵀP0Q,
  in exact rational arithmetic but for the logarithms (mpmath, 50 digits).

Families: well-conditioned (κ ≤ 10), ill-conditioned (κ up to 1e8, d = 8 and 64), high dimension
(d = 60, 128, 200), high dimension with small variances (S ~ 1e-6: |S| underflows float64 though
the KL is moderate), near-identical (KL ~ 1e-12, d = 3, 10, 200), diagonal, far apart (KL ~ 1e4).
An input passes when

    |KL_user − KL_ref| ≤ atol + rtol·KL_ref + floor + 1e-40·(1 + KL_ref),

the last term the reference's own error, and the floor what a backward-stable float64 evaluation
cannot avoid: the first-order change of the KL when each covariance moves by the backward error
of its Cholesky factorisation, |E| ≤ γ_{d+1}|L||Lᵀ| (Higham 2002, Thm 10.3), plus the rounding of
δ and of the result (`float64_floor`). Near-identical pairs have almost no floor (the KL is
stationary where S0 = S1), so the textbook sum of O(d) terms, whose rounding error is about d·ε,
fails there at the default rtol: an evaluation through S1⁻¹(S0 − S1) and log1p passes (as
`symcheck.kl.kl_gaussian` does). A user who accepts the textbook formula's absolute accuracy says
so with atol (about d·1e-15).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np

from symcheck._checks import check_callable, check_int
from symcheck.kl import random_spd
from symcheck.evidence import gamma
from symcheck.testing.adapters import call_subject, float_repr_array, import_line, subject_name
from symcheck.testing.result import CheckResult, group_rows, worst_failure

__all__ = ["assert_kl_gaussian", "check_kl_gaussian", "float64_floor", "kl_gaussian_mp", "kl_gaussian_pairs"]

#: Digits of the KL references.
DPS = 50
#: Relative error allowed for the references (50 digits, cancellation of at most 1e8-conditioned terms).
REFERENCE_RTOL = 1e-40
_U = float(np.finfo(float).eps) / 2
#: Relative size of the perturbation of the near-identical family.
_NEAR = 1e-6


def kl_gaussian_mp(m0, S0, m1, S1) -> mpmath.mpf:
    """KL[N(m0, S0) ‖ N(m1, S1)] at `DPS` digits by mpmath (inverse and determinants by LU)."""
    with mpmath.workdps(DPS):
        d = len(m0)
        A0, A1 = mpmath.matrix(S0.tolist()), mpmath.matrix(S1.tolist())
        delta = mpmath.matrix([mpmath.mpf(b) - mpmath.mpf(a) for a, b in zip(m0, m1)])
        inv = mpmath.inverse(A1)
        trace = mpmath.fsum(inv[i, j] * A0[j, i] for i in range(d) for j in range(d))
        y = inv * delta
        maha = mpmath.fsum(delta[i] * y[i] for i in range(d))
        return (trace + maha - d + mpmath.log(mpmath.det(A1)) - mpmath.log(mpmath.det(A0))) / 2


# ----- covariances with an exact eigendecomposition (d = 64 to 200) ---------------------------------

def _block_hadamard(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Block-diagonal ±1 Sylvester–Hadamard matrix H for d = Σ powers of two, and each index's block size b
    (Q = H/√b blockwise is orthogonal)."""
    H = np.zeros((d, d), dtype=np.int64)
    bsize = np.empty(d, dtype=np.int64)
    start = 0
    for bit in range(d.bit_length() - 1, -1, -1):
        if d >> bit & 1:
            b = 1 << bit
            block = np.ones((1, 1), dtype=np.int64)
            while block.shape[0] < b:
                block = np.block([[block, block], [block, -block]])
            H[start:start + b, start:start + b] = block
            bsize[start:start + b] = b
            start += b
    return H, bsize


def _dyadic_spectrum(rng, d: int, cond: float) -> np.ndarray:
    """Integers n log-uniform on [κ^−½, κ^½]·2³⁰, both ends attained (eigenvalues n·2⁻ᵉ: κ ≤ cond)."""
    u = rng.uniform(-0.5, 0.5, d)
    u[:2] = (-0.5, 0.5)
    return np.maximum(1, np.round(np.exp(u * math.log(cond)) * 2.0 ** 30)).astype(np.int64)


def _structured_cov(H, bsize, n, perm, signs, exponent: int) -> np.ndarray:
    """S = P Q diag(n·2⁻ᵉ) Qᵀ Pᵀ, computed exactly: an integer product, then divisions by powers of two."""
    S_int = (H * n) @ H.T  # |entries| ≤ b·max n < 2^53: exact
    if np.abs(S_int).max() >= 2**53:
        raise ValueError("internal: structured covariance not exact in float64")
    S = S_int.astype(float) / bsize[:, None] * 2.0 ** -exponent
    return S[np.ix_(perm, perm)] * np.outer(signs, signs)


def _structured_kl(H, bsize, n0, n1, p0, p1, m0, m1, exponent: int) -> mpmath.mpf:
    """The KL of two structured Gaussians (module notes): rationals, then the logarithms at `DPS` digits."""
    d = len(n0)
    P0 = np.zeros((d, d), dtype=np.int64)
    P0[np.arange(d), p0[0]] = p0[1]
    P1 = np.zeros((d, d), dtype=np.int64)
    P1[np.arange(d), p1[0]] = p1[1]
    W2 = (H.T @ (P1.T @ P0) @ H) ** 2  # W_lm/√(b_l b_m) = (Qᵀ P1ᵀ P0 Q)_lm; integers
    trace = Fraction(0)
    for b in np.unique(bsize):  # Σ_m W²_lm n0_m / b_m, by the block size of m
        cols = bsize == b
        rows = W2[:, cols].astype(object).dot(n0[cols].astype(object))
        trace += sum(Fraction(int(r), int(b) * int(bl) * int(nl)) for r, bl, nl in zip(rows, bsize, n1))
    delta = [Fraction(float(b)) - Fraction(float(a)) for a, b in zip(m0, m1)]  # exact
    scale = max(f.denominator for f in delta)
    pv = np.empty(d, dtype=object)
    pv[p1[0]] = [int(sg) * int(f * scale) for sg, f in zip(p1[1], delta)]  # P1ᵀδ·scale, integers
    u = H.T.astype(object).dot(pv)  # (Q1ᵀP1ᵀδ)_l = u_l / (scale·√b_l)
    maha = sum(Fraction(int(ul) * int(ul) * 2**exponent, int(bl) * int(nl) * scale * scale)
               for ul, bl, nl in zip(u, bsize, n1))
    exact = trace + maha - d
    with mpmath.workdps(DPS):
        logdet = mpmath.fsum(mpmath.log(int(a)) - mpmath.log(int(b)) for a, b in zip(n1, n0))
        return (mpmath.mpf(exact.numerator) / exact.denominator + logdet) / 2


def _structured_pair(rng, d: int, cond: float, *, near: bool = False, exponent: int = 30,
                     mean_scale: float = 1.0):
    """(m0, S0, m1, S1) with exact eigendecompositions, and its reference KL."""
    H, bsize = _block_hadamard(d)
    n0 = _dyadic_spectrum(rng, d, cond)
    p0 = (rng.permutation(d), rng.choice(np.array([-1, 1], dtype=np.int64), d))
    if near:
        n1 = np.maximum(1, np.round(n0 * (1.0 + _NEAR * rng.standard_normal(d)))).astype(np.int64)
        p1 = p0
    else:
        n1 = _dyadic_spectrum(rng, d, cond)
        p1 = (rng.permutation(d), rng.choice(np.array([-1, 1], dtype=np.int64), d))
    m0 = mean_scale * rng.standard_normal(d)
    m1 = m0 + (_NEAR if near else 1.0) * mean_scale * rng.standard_normal(d)
    S0, S1 = (_structured_cov(H, bsize, n, *p, exponent) for n, p in ((n0, p0), (n1, p1)))
    return (m0, S0, m1, S1), _structured_kl(H, bsize, n0, n1, p0, p1, m0, m1, exponent)


def kl_gaussian_pairs(seed: int = 0) -> list[tuple[str, str, tuple, mpmath.mpf]]:
    """The inputs of `check_kl_gaussian` with their references: (family, label, (m0, S0, m1, S1), KL).

    Computed once per seed (about 10 s: mpmath at d = 60, exact rationals at d = 200); every call
    returns fresh copies of the arrays.
    """
    return [(f, label, tuple(a.copy() for a in pair), ref) for f, label, pair, ref in _pairs(check_int(seed, "seed", minimum=0))]


@functools.lru_cache(maxsize=4)
def _pairs(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    out = []

    def dense(family, label, pair):
        out.append((family, label, pair, kl_gaussian_mp(*pair)))

    for d in (1, 2, 5, 20):
        for _ in range(2):
            dense("well-conditioned (κ ≤ 10)", f"d={d}", (rng.standard_normal(d), random_spd(rng, d, 10.0),
                                                          rng.standard_normal(d), random_spd(rng, d, 10.0)))
    for cond in (1e4, 1e6, 1e8):
        dense("ill-conditioned (κ ≤ 1e8)", f"d=8, κ={cond:g}", (rng.standard_normal(8), random_spd(rng, 8, cond),
                                                                rng.standard_normal(8), random_spd(rng, 8, cond)))
    pair, ref = _structured_pair(rng, 64, 1e8)
    out.append(("ill-conditioned (κ ≤ 1e8)", "d=64, κ=1e8, exact eigenbasis", pair, ref))
    dense("high dimension (d = 60 to 200)", "d=60, κ ≤ 100", (rng.standard_normal(60), random_spd(rng, 60, 100.0),
                                                               rng.standard_normal(60), random_spd(rng, 60, 100.0)))
    for d, cond in ((128, 10.0), (200, 100.0)):
        pair, ref = _structured_pair(rng, d, cond)
        out.append(("high dimension (d = 60 to 200)", f"d={d}, κ={cond:g}, exact eigenbasis", pair, ref))
    # posterior-sized variances: |S| ~ 1e-360 (d = 60) or 2^-9000 (d = 200) underflows float64
    dense("high dimension, small variances (S ~ 1e-6)", "d=60",
          (rng.standard_normal(60) * 1e-3, 1e-6 * random_spd(rng, 60, 10.0), rng.standard_normal(60) * 1e-3,
           1e-6 * random_spd(rng, 60, 10.0)))
    pair, ref = _structured_pair(rng, 200, 10.0, exponent=50, mean_scale=1e-3)
    out.append(("high dimension, small variances (S ~ 1e-6)", "d=200, exact eigenbasis", pair, ref))
    for d in (3, 10):
        S = random_spd(rng, d, 10.0)
        E = _NEAR * rng.standard_normal((d, d))
        m = rng.standard_normal(d)
        dense("near-identical (KL ~ 1e-12)", f"d={d}", (m, S, m + _NEAR * rng.standard_normal(d), S + (E + E.T) / 2))
    pair, ref = _structured_pair(rng, 200, 10.0, near=True)
    out.append(("near-identical (KL ~ 1e-12)", "d=200, exact eigenbasis", pair, ref))
    for d in (4, 30):
        dense("diagonal", f"d={d}", (rng.standard_normal(d), np.diag(rng.uniform(0.1, 3, d)), rng.standard_normal(d),
                                     np.diag(rng.uniform(0.1, 3, d))))
    dense("far apart (KL ~ 1e4)", "d=5", (np.zeros(5), np.eye(5), np.full(5, 60.0), np.eye(5)))
    return tuple(out)


def float64_floor(m0, S0, m1, S1, kl: float) -> float:
    """What a backward-stable float64 evaluation of the KL cannot avoid, as an absolute error.

    ∂KL/∂S0 = G0 = ½S1⁻¹(S0 − S1)S0⁻¹, ∂KL/∂S1 = G1 = ½S1⁻¹(S1 − S0 − δδᵀ)S1⁻¹, ∂KL/∂δ = S1⁻¹δ.
    The Cholesky backward error E of S = LLᵀ is symmetric with |E| ≤ γ_{d+1}|L||Lᵀ| (Higham 2002,
    Thm 10.3), so |tr(G E)| = |tr(sym(G) E)| ≤ γ_{d+1}·Σ|sym G|∘(|L||Lᵀ|), and also
    ≤ ‖sym G‖_*·γ_{d+1}·min(tr S, ‖|L|‖₁‖|L|‖_∞); the smaller is used. δ and the result round at u
    relative. Twice the sum covers second-order terms and the float64 evaluation of this bound.
    """
    d = len(m0)
    delta = m1 - m0
    inv1 = np.linalg.solve(S1, np.eye(d))
    G0 = 0.5 * np.linalg.solve(S0, (S0 - S1) @ inv1).T  # S1⁻¹(S0 − S1)S0⁻¹ (S0, S1 symmetric)
    G1 = 0.5 * inv1 @ (S1 - S0 - np.outer(delta, delta)) @ inv1
    cov = 0.0
    for G, S in ((G0, S0), (G1, S1)):
        sym = 0.5 * (G + G.T)
        absL = np.abs(np.linalg.cholesky(S))
        componentwise = float(np.sum(np.abs(sym) * (absL @ absL.T)))
        normwise = float(np.sum(np.abs(np.linalg.eigvalsh(sym)))) * min(
            float(np.trace(S)), float(np.max(absL.sum(axis=0)) * np.max(absL.sum(axis=1))))
        cov += gamma(d + 1) * min(componentwise, normwise)
    return float(2.0 * (cov + _U * np.linalg.norm(inv1 @ delta) * np.linalg.norm(delta)) + _U * abs(kl))


def check_kl_gaussian(fn, *, rtol: float = 1e-10, atol: float = 0.0, seed: int = 0,
                      subject: str | None = None) -> CheckResult:
    """Check a user's KL[N(m0, S0) ‖ N(m1, S1)] against 50-digit references (module notes).

    Parameters
    ----------
    fn : callable
        `fn(m0, S0, m1, S1)` with means (d,) and covariance matrices (d, d), returning the KL.
    rtol, atol : float
        Claimed accuracy beyond the float64 floor of the module notes.
    seed : int
        Seed of the random pairs.
    subject : str, optional
        Name shown in the table (default: module:qualname of `fn`).

    Returns
    -------
    CheckResult
        Kind "kl_gaussian"; one row per family: n, max and median error, max ulps, failed calls,
        and at the worst input the input, the reference, the subject's answer and the tolerance.
    """
    check_callable(fn, "fn")
    check_int(seed, "seed", minimum=0)
    for value, name in ((rtol, "rtol"), (atol, "atol")):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    cases = kl_gaussian_pairs(seed)
    outcomes = call_subject(fn, [pair for _, _, pair, _ in cases], ())
    problems = [o.problem for o in outcomes]
    values = [float(o.value) if o.ok else math.nan for o in outcomes]
    with mpmath.workdps(DPS):
        errors = [math.inf if p else float(abs(mpmath.mpf(v) - ref)) for p, v, (*_, ref) in zip(problems, values, cases)]
    references = [float(ref) for *_, ref in cases]
    tols = [atol + rtol * abs(r) + float64_floor(*pair, r) + REFERENCE_RTOL * (1 + abs(r))
            for (_, _, pair, _), r in zip(cases, references)]
    criterion = (f"|KL_user − KL_ref| ≤ atol + rtol·KL + floor, atol = {atol:g}, rtol = {rtol:g}; floor: the "
                 "first-order change of the KL under the Cholesky backward error γ_{d+1}·|L||Lᵀ| of each "
                 "covariance, plus the rounding of m1 − m0 and of the result (what a backward-stable float64 "
                 "evaluation cannot avoid: almost nothing for near-identical pairs, where a formula summing O(d) "
                 f"terms fails unless atol allows about d·1e-15); KL_ref at {DPS} digits on the exact inputs "
                 f"(mpmath LU for d ≤ 60, exact eigenbases for d ≥ 64); {len(cases)} pairs, seed {seed}")
    i = worst_failure(errors, tols, problems)
    reproducer = None
    if i is not None:
        m0, S0, m1, S1 = cases[i][2]
        reproducer = "\n".join([
            "import numpy as np", import_line(fn), f"m0 = {float_repr_array(m0)}", f"S0 = {float_repr_array(S0)}",
            f"m1 = {float_repr_array(m1)}", f"S1 = {float_repr_array(S1)}",
            f"print(fn(m0, S0, m1, S1))  # {problems[i] or 'returns ' + repr(values[i])}",
            f"# reference KL = {mpmath.nstr(cases[i][3], 20)} ({DPS} digits); allowed error {tols[i]:.3g}"])
    rows = group_rows([c[0] for c in cases], [c[1] for c in cases], errors, tols, references, values, problems)
    return CheckResult("kl_gaussian", subject or subject_name(fn), rows, criterion, reproducer)


def assert_kl_gaussian(fn, **options) -> CheckResult:
    """`check_kl_gaussian`, raising AssertionError (naming the failing families) on failure."""
    result = check_kl_gaussian(fn, **options)
    result.raise_if_failed()
    return result
