"""Is a user's sampler Haar on O(k) or SO(k)? A battery of tests with a designed false-failure rate.

`check_haar_sampler(sample, k)` draws n matrices from the user's sampler and runs one deterministic
test and up to six statistical tests, each against a law that holds exactly for Haar measure:

1. **orthogonality** (deterministic): max over the draws of max |(TᵀT − I)ᵢⱼ| is at most
   64·k²·eps (eps of the returned dtype): Householder QR returns columns within γ̃_{k²} = c·k²·u of
   an exactly orthogonal matrix (Higham 2002, *Accuracy and Stability of Numerical Algorithms*,
   2nd ed., Thm 19.4; u = eps/2) and forming TᵀT adds γ_k; the allowance takes c ≤ 64.
   Correct samplers measure ≤ 2.5·k·eps (symcheck, scipy, NumPy QR; k = 2..20, 4000 draws).
2. **determinant balance**: Haar on O(k) gives det T = ±1 with probability 1/2 each, so the
   number of det = +1 draws is Binomial(n, 1/2) (exact two-sided binomial test). For SO(k) every
   draw must have det T = +1 (deterministic).
3. **moments of traces** (Diaconis & Shahshahani 1994, "On the eigenvalues of random matrices",
   J. Appl. Probab. 31A, 49–62, Thm 4; Diaconis & Evans 2001, Trans. AMS 353, 2615–2633): for Haar
   T on O(k) and a_j ≥ 0 of small weight w = Σ j·a_j, E[Π (tr T^j)^{a_j}] = E[Π (√j·Z_j + η_j)^{a_j}],
   Z_j i.i.d. N(0, 1), η_j = 1 for even j and 0 for odd j; proven there for w ≤ k/2. The battery
   uses the means of tr T, (tr T)², (tr T)³, tr T², tr T³ (weights 1, 2, 3, 2, 3) where w ≤ k
   (O(k)) or w ≤ k − 1 (SO(k): E over SO(k) is E over O(k) of f·(1 + det T), and det appears in
   the degree-w tensor power of the standard representation only for w ≥ k), each by the z-score
   of its sample mean, with the exact variance where 2w is in that range too and the sample
   variance otherwise. Every equality this takes beyond w ≤ k/2 (k ≤ 11; weights ≤ 6) is confirmed
   exactly by Gauss–Chebyshev quadrature of Weyl's density in tests/test_testing_haar.py.
4. **eigen-angles** (Weyl's integration formula; H. Weyl 1939, *The Classical Groups*, Ch. VII;
   per coset as in Katz & Sarnak 1999, *Random Matrices, Frobenius Eigenvalues, and Monodromy*,
   Sec. 5.0): the eigenvalues of T are e^{±iθⱼ}, θⱼ ∈ [0, π], plus fixed eigenvalues +1 (k odd,
   det +1), −1 (k odd, det −1) or both (k even, det −1). The density of one of the N free angles
   picked uniformly at random is R₁(θ)/N with the one-point function
   R₁(θ) = [(k − 1) + s·sin((k − 1)θ)/sin θ]/(2π), s = det T·(−1)^k
   (weyl_angle_cdf). One free angle per draw, chosen by the battery's own generator, is mapped
   through the cumulative distribution of its coset (probability integral transform) and the n
   values are tested for uniformity (Kolmogorov–Smirnov). Draws without free angles (k = 2,
   det −1) are left out.
5. **columns uniform on the sphere**: T e_j is uniform on S^{k−1}, so x = uᵀ T e_j for a fixed
   unit vector u has (1 + x)/2 ~ Beta((k − 1)/2, (k − 1)/2). Draw i uses column j = i mod k, so the
   n values are i.i.d. (Kolmogorov–Smirnov).
6. **rows uniform on the sphere**: the same for the rows, eⱼᵀ T u.
7. **invariance**: Haar measure is invariant under T → Q_L T Q_R for fixed Q_L, Q_R in the group.
   The draws are split into two halves; the two-sample Kolmogorov–Smirnov test compares
   tr(R T) over the first half with tr(R Q_L T Q_R) over the second (R a fixed Gaussian matrix,
   Q_L, Q_R fixed Haar draws of symcheck's own sampler; u, R, Q_L, Q_R are drawn once per k from
   symcheck.evidence.BASE_SEED, so the power against a given sampler does not depend on the seed).

**Designed false-failure rate.** The m statistical tests (6 for O(k), 5 for SO(k)) are combined
by Holm's step-down procedure (Holm 1979, Scand. J. Statist. 6, 65–70) at level alpha: under
Haar measure the probability that any of them fails is at most alpha, whatever their
dependence. Inside the moments test the statistics are combined by Bonferroni (p = S·min pᵢ).
The p-values are exact (binomial) or those of the Kolmogorov–Smirnov laws, except the moments',
which take the sample mean as normal: the tails of the skewed (tr T)² are then up to ~1.2× too
small at the Holm levels for n = 2000 (compared with χ²_n), on a 1/S share of one test's budget;
the measured false-failure rate is in tests/test_testing_haar.py. The deterministic tests do not
spend alpha.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from symcheck._checks import as_finite_array, check_alloc, check_bool, check_callable, check_choice, check_int
from symcheck.evidence import BASE_SEED, EPS, ROUNDING
from symcheck.haar import haar_orthogonal
from symcheck.testing.adapters import subject_name, to_real_array
from symcheck.testing.result import CheckResult, CheckRow

__all__ = ["DEFAULT_N", "MIN_N", "SIGNATURES", "battery_directions", "check_haar_sampler", "weyl_angle_cdf",
           "weyl_angle_pdf"]

#: Draws of the battery by default: every planted bug of the tests is caught at it (see the module notes).
DEFAULT_N = 2000
#: Fewest draws accepted: the normal law of the moment means needs some hundreds.
MIN_N = 100
#: How the battery calls the sampler: sample(rng, n, k) with a numpy Generator, or sample(n).
SIGNATURES = ("rng, n, k", "n")

#: The moment statistics: label, weight w = Σ j a_j, function of (tr T, tr T², tr T³), and the
#: first two moments of the Gaussian stand-ins (Z, √2 Z' + 1, √3 Z''):
#: E Z = 0, E Z² = 1; E Z² = 1, E Z⁴ = 3; E Z³ = 0, E Z⁶ = 15;
#: E(√2 Z + 1) = 1, E(√2 Z + 1)² = 3; E √3 Z = 0, E 3 Z² = 3.
_MOMENTS = (
    ("tr T", 1, lambda t1, t2, t3: t1, 0.0, 1.0),
    ("(tr T)^2", 2, lambda t1, t2, t3: t1 * t1, 1.0, 3.0),
    ("(tr T)^3", 3, lambda t1, t2, t3: t1 ** 3, 0.0, 15.0),
    ("tr T^2", 2, lambda t1, t2, t3: t2, 1.0, 3.0),
    ("tr T^3", 3, lambda t1, t2, t3: t3, 0.0, 3.0),
)


# ----- Weyl's eigen-angle law per coset --------------------------------------------------------

def _sin_ratio_integral(theta: np.ndarray, b: int) -> np.ndarray:
    """∫₀^θ sin(b t)/sin t dt for an integer b ≥ 1, in closed form.

    sin((2M+1)t)/sin t = 1 + 2 Σ_{r=1}^{M} cos(2rt) and sin(2Mt)/sin t = 2 Σ_{r=1}^{M} cos((2r−1)t)
    (Dirichlet kernels), integrated term by term.
    """
    m = b // 2
    if b % 2:
        r = np.arange(1, m + 1)
        return theta + np.sum(np.sin(np.multiply.outer(theta, 2 * r)) / r, axis=-1)
    r = 2 * np.arange(1, m + 1) - 1
    return 2 * np.sum(np.sin(np.multiply.outer(theta, r)) / r, axis=-1)


def _coset(k: int, det) -> tuple[np.ndarray, np.ndarray]:
    """s = det·(−1)^k and the number N of free eigen-angles of a draw of O(k) with determinant det."""
    s = np.asarray(det, dtype=float) * (-1.0) ** k
    free = (k - 1 + s) / 2 if k % 2 == 0 else np.full_like(s, (k - 1) / 2)
    return s, free


def _angle_law_args(theta, k, det):
    """Validated (theta, k, s, N) of weyl_angle_pdf / weyl_angle_cdf."""
    k = check_int(k, "k", minimum=2)
    theta = as_finite_array(theta, "theta")
    if theta.size and (theta.min() < 0 or theta.max() > np.pi):
        raise ValueError("theta must lie in [0, pi] (eigen-angles of a conjugate pair, taken non-negative)")
    d = as_finite_array(det, "det")
    if not np.all(np.abs(d) == 1):
        raise ValueError("det must be +1 or -1 (the coset of O(k)), or an array of them")
    s, free = _coset(k, d)
    if np.any(free == 0):
        raise ValueError("k=2 with det=-1 has no free eigen-angles (its eigenvalues are +1 and -1)")
    return theta, k, s, free


def weyl_angle_pdf(theta, k, det):
    """Density of one free eigen-angle of Haar T on the coset {det T = det} of O(k), picked at random.

    Parameters
    ----------
    theta : array_like
        Angles in [0, π].
    k : int
        Dimension (≥ 2).
    det : +1 or -1, or an array of them (broadcast against theta)
        The coset: SO(k) (+1) or O(k) minus SO(k) (−1); k = 2 with det −1 has no free angle.

    Returns
    -------
    ndarray
        R₁(θ)/N with R₁(θ) = [(k − 1) + s·sin((k − 1)θ)/sin θ]/(2π), s = det·(−1)^k, and N the number
        of free angles (k/2 for SO(k), k even; k/2 − 1 for det −1, k even; (k − 1)/2 for k odd).

    Notes
    -----
    Weyl's integration formula (Weyl 1939, Ch. VII) gives the joint density of the free angles,
    proportional to Π_{i<j}(cos θᵢ − cos θⱼ)² times Π sin²(θⱼ/2) (SO(2N+1)), 1 (SO(2N)),
    Π cos²(θⱼ/2) (det −1, k = 2N+1) or Π sin²θⱼ (det −1, k = 2N+2). Its one-point function is the
    diagonal of the determinantal kernel S_{k−1}(x − y) + s·S_{k−1}(x + y) with
    S_b(x) = sin(bx/2)/(2π sin(x/2)) (Katz & Sarnak 1999, Sec. 5.0), which gives R₁ above. The tests
    check it against a direct integration of the joint density.
    """
    theta, k, s, free = _angle_law_args(theta, k, det)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.sin(theta) == 0, np.where(np.cos(theta) > 0, k - 1.0, (-1.0) ** k * (k - 1)),
                         np.sin((k - 1) * theta) / np.sin(theta))
        return ((k - 1) + s * ratio) / (2 * np.pi * free)


def weyl_angle_cdf(theta, k, det):
    """Cumulative distribution of weyl_angle_pdf: (1/N)∫₀^θ R₁(t) dt, in closed form.

    Parameters are those of weyl_angle_pdf; returns values in [0, 1] (1 at θ = π).
    """
    theta, k, s, free = _angle_law_args(theta, k, det)
    out = ((k - 1) * theta + s * _sin_ratio_integral(theta, k - 1)) / (2 * np.pi * free)
    return np.clip(out, 0.0, 1.0)


def _free_angles_cos(T: np.ndarray, det: np.ndarray) -> np.ndarray:
    """cos θⱼ of the free eigen-angles of each draw, shape (n, ⌊k/2⌋), NaN-padded where fewer.

    The symmetric part (T + Tᵀ)/2 of an orthogonal T has eigenvalues Re λ = cos θ: each free angle
    twice, and the fixed eigenvalues ±1 at the ends of the ascending order, which are dropped.
    """
    n, k, _ = T.shape
    c = np.linalg.eigvalsh(0.5 * (T + np.swapaxes(T, 1, 2)))
    lo = (det < 0).astype(int)  # a fixed −1: det −1 (k odd or even)
    hi = (((det > 0) & (k % 2 == 1)) | ((det < 0) & (k % 2 == 0))).astype(int)  # a fixed +1
    out = np.full((n, k // 2), np.nan)
    for a in (0, 1):
        for b in (0, 1):
            rows = (lo == a) & (hi == b)
            if not rows.any():
                continue
            kept = c[rows, a:k - b]
            pairs = kept.shape[1] // 2
            out[rows, :pairs] = 0.5 * (kept[:, 0:2 * pairs:2] + kept[:, 1:2 * pairs:2])
    return out


# ----- the tests ---------------------------------------------------------------------------------

def _holm(pvalues: list[float], alpha: float) -> tuple[list[float], list[bool]]:
    """Holm's step-down thresholds α/(m − rank) and rejections for p-values in their given order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    thresholds, rejected = [0.0] * m, [False] * m
    stopped = False
    for rank, i in enumerate(order):
        thresholds[i] = alpha / (m - rank)
        stopped = stopped or pvalues[i] > thresholds[i]
        rejected[i] = not stopped
    return thresholds, rejected


def _orthogonality(T: np.ndarray, eps: float) -> tuple[dict, bool, str]:
    k = T.shape[1]
    err = np.abs(np.swapaxes(T, 1, 2) @ T - np.eye(k)).max(axis=(1, 2))
    worst = int(np.argmax(err))
    bound = ROUNDING * k * k * (eps / EPS)  # 64·k²·eps of the returned dtype (module notes)
    values = {"statistic": float(err[worst]), "null law": "deterministic: max |T'T - I| <= 64 k^2 eps",
              "p-value": "-", "threshold": bound,
              "detail": f"worst draw {worst}; eps {eps:.3g} of the returned dtype"}
    snippet = (f"err = np.abs(np.swapaxes(T, 1, 2) @ T - np.eye({k})).max(axis=(1, 2))\n"
               f"print(err.max(), 'at draw', err.argmax(), '> bound', {bound!r})")
    return values, bool(err[worst] <= bound), snippet


def _determinant(det: np.ndarray, special: bool) -> tuple[dict, float | None, bool, str]:
    n = det.size
    plus = int(np.count_nonzero(det > 0))
    snippet = "d = np.linalg.det(T)\nprint((d > 0).mean(), 'of the draws have det +1')"
    if special:
        values = {"statistic": plus / n, "null law": "deterministic: det T = +1 for every draw",
                  "p-value": "-", "threshold": 1.0, "detail": f"{n - plus} of {n} draws have det -1"}
        return values, None, plus == n, snippet + "  # SO(k): all of them"
    p = float(stats.binomtest(plus, n, 0.5).pvalue)
    values = {"statistic": plus / n, "null law": f"Binomial({n}, 1/2) / {n}", "p-value": p,
              "detail": f"{plus} of {n} draws have det +1 (exact two-sided binomial test)"}
    return values, p, True, snippet + "  # Haar O(k): 1/2 within a few 0.5/sqrt(n)"


def _moments(T: np.ndarray, special: bool) -> tuple[dict, float, str]:
    n, k, _ = T.shape
    kmax = k - 1 if special else k
    T2 = T @ T
    t1 = np.trace(T, axis1=1, axis2=2)
    t2 = np.einsum("nij,nji->n", T, T)
    t3 = np.einsum("nij,nji->n", T2, T)
    rows = []
    for label, weight, fn, mean, second in _MOMENTS:
        if weight > kmax:
            continue
        x = fn(t1, t2, t3)
        exact = 2 * weight <= kmax
        sd = math.sqrt(second - mean * mean) if exact else float(np.std(x, ddof=1))
        diff = float(np.mean(x)) - mean
        if sd > 0:
            z = diff * math.sqrt(n) / sd
        else:  # a sample without spread: exactly right or certainly wrong
            z = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        rows.append((label, weight, float(np.mean(x)), mean, z, exact))
    pmin = min(2 * float(stats.norm.sf(abs(r[4]))) for r in rows)
    p = min(1.0, len(rows) * pmin)
    worst = max(rows, key=lambda r: abs(r[4]))
    tested = ", ".join(f"{r[0]} ({'exact' if r[5] else 'sample'} var.)" for r in rows)
    values = {"statistic": abs(worst[4]),
              "null law": f"max |z| of {len(rows)} N(0,1), Bonferroni",
              "p-value": p,
              "detail": f"worst {worst[0]}: mean {worst[2]:.4g}, Haar {worst[3]:g} (z = {worst[4]:.3g}); "
                        f"D-S range w <= {kmax}; tested: {tested}"}
    snippet = {"tr T": "x = np.trace(T, axis1=1, axis2=2)",
               "(tr T)^2": "x = np.trace(T, axis1=1, axis2=2) ** 2",
               "(tr T)^3": "x = np.trace(T, axis1=1, axis2=2) ** 3",
               "tr T^2": "x = np.trace(T @ T, axis1=1, axis2=2)",
               "tr T^3": "x = np.trace(T @ T @ T, axis1=1, axis2=2)"}[worst[0]]
    snippet += (f"\nprint(x.mean(), '+-', x.std() / np.sqrt(len(x)))"
                f"  # Haar: {worst[3]:g} (Diaconis-Shahshahani)")
    return values, p, snippet


def _angles(T: np.ndarray, det: np.ndarray, pick: np.random.Generator) -> tuple[dict, float, str]:
    n, k, _ = T.shape
    coset = np.where(det > 0, 1.0, -1.0)  # a singular draw (det 0: not orthogonal) counts as det −1
    cosines = _free_angles_cos(T, coset)
    _, free = _coset(k, coset)
    keep = free > 0
    idx = np.floor(pick.random(n) * np.maximum(free, 1)).astype(int)
    c = cosines[np.arange(n), np.minimum(idx, k // 2 - 1)][keep]
    u = weyl_angle_cdf(np.arccos(np.clip(c, -1.0, 1.0)), k, coset[keep])
    if u.size == 0:  # every draw is a reflection of O(2): nothing to test here (the determinant test fails)
        statistic, p = "-", 1.0
    else:
        res = stats.kstest(u, "uniform")
        statistic, p = float(res.statistic), float(res.pvalue)
    values = {"statistic": statistic, "null law": f"Kolmogorov, n = {u.size}", "p-value": p,
              "detail": "one free eigen-angle per draw through the cumulative law of its coset (Weyl); "
                        f"{n - u.size} draws without free angles left out"}
    snippet = ("d = np.sign(np.linalg.det(T))\n"
               "theta = np.abs(np.angle(np.linalg.eigvals(T)))  # each free angle twice, fixed +-1 at 0 or pi\n"
               "# the free angles of draws with det d follow weyl_angle_pdf(theta, k, d)")
    return values, p, snippet


def _sphere(T: np.ndarray, u: np.ndarray, rows: bool) -> tuple[dict, float, str]:
    n, k, _ = T.shape
    j = np.arange(n) % k
    x = (T[np.arange(n), j, :] if rows else T[np.arange(n), :, j]) @ u
    a = (k - 1) / 2
    res = stats.kstest((1 + np.clip(x, -1.0, 1.0)) / 2, stats.beta(a, a).cdf)
    what = "row" if rows else "column"
    values = {"statistic": float(res.statistic), "null law": f"Kolmogorov, n = {n}", "p-value": float(res.pvalue),
              "detail": f"(1 + u'x)/2 ~ Beta({a:g}, {a:g}) for {what} i mod k of draw i, u a fixed unit vector"}
    index = "T[i, i % k, :] @ u" if rows else "u @ T[i, :, i % k]"
    snippet = (f"u = battery_directions(k, special)[0]\n"
               f"x = np.array([{index} for i in range(len(T))])\n"
               f"print(scipy.stats.kstest((1 + x) / 2, scipy.stats.beta({a:g}, {a:g}).cdf))")
    return values, float(res.pvalue), snippet


def _invariance(T: np.ndarray, R: np.ndarray, QL: np.ndarray, QR: np.ndarray) -> tuple[dict, float, str]:
    a = np.einsum("ij,nji->n", R, T[0::2])
    b = np.einsum("ij,nji->n", R, QL @ T[1::2] @ QR)
    res = stats.ks_2samp(a, b)
    values = {"statistic": float(res.statistic), "null law": f"two-sample Kolmogorov, {a.size} and {b.size}",
              "p-value": float(res.pvalue),
              "detail": "tr(R T) over the even draws against tr(R Q_L T Q_R) over the odd ones (R, Q_L, Q_R fixed)"}
    snippet = ("# Haar: T and Q_L T Q_R have the same law for fixed group elements Q_L, Q_R\n"
               "u, R, QL, QR = battery_directions(k, special)\n"
               "print(scipy.stats.ks_2samp(np.einsum('ij,nji->n', R, T[0::2]), "
               "np.einsum('ij,nji->n', R, QL @ T[1::2] @ QR)))")
    return values, float(res.pvalue), snippet


# ----- the checker -------------------------------------------------------------------------------

def _as_array(out) -> np.ndarray:
    """The sampler's output as a real NumPy array in its dtype; ValueError naming `sample` otherwise."""
    try:
        return to_real_array(out)
    except TypeError as err:
        raise ValueError(f"sample must return an array of shape (n, k, k) of real numbers; it {err}") from None


def _reproducer(subject: str, importable: bool, signature: str, k: int, n: int, special: bool, alpha: float,
                seed: int, failing: list[tuple[str, str]]) -> str:
    module, _, qual = subject.partition(":")
    head = ["import numpy as np", "import scipy.stats", "import symcheck",
            "from symcheck.testing import check_haar_sampler"]
    if importable and qual and "." not in qual:
        head.append(f"from {module} import {qual} as sample")
    else:
        head.append(f"sample = ...  # {subject}: define it as in your code")
    call = (f"result = check_haar_sampler(sample, k={k}, n={n}, special={special}, alpha={alpha!r}, "
            f"seed={seed}, signature={signature!r})")
    draw = (f"T = np.asarray(sample(np.random.default_rng({seed}), {n}, {k}))" if signature == "rng, n, k"
            else f"T = np.asarray(sample({n}))  # the sampler's own randomness: the draws differ per run")
    lines = [*head, call, "print(result.table())", "", "# the failing test(s) by hand:",
             "from symcheck.testing.haar import battery_directions, weyl_angle_cdf",
             f"k, special = {k}, {special}", draw]
    for name, snippet in failing:
        lines += [f"# {name}", *snippet.splitlines()]
    return "\n".join(lines)


def battery_directions(k: int, special: bool):
    """The battery's fixed unit vector u, Gaussian matrix R and group elements Q_L, Q_R for this k.

    Drawn from BASE_SEED, not from the run's seed: the power of the sphere and invariance tests
    against a given sampler is then a property of the sampler and n alone.
    """
    gen = np.random.default_rng([BASE_SEED, k])
    u = gen.standard_normal(k)
    R = gen.standard_normal((k, k))
    QL, QR = haar_orthogonal(k, 2, gen, special=special)
    return u / np.linalg.norm(u), R, QL, QR


def check_haar_sampler(sample, k, n=DEFAULT_N, special=False, alpha=1e-3, seed=None, signature="rng, n, k",
                       eps=None, subject=None) -> CheckResult:
    """Check that a sampler draws Haar-distributed matrices on O(k) (or SO(k) with special=True).

    Parameters
    ----------
    sample : callable
        The sampler under test. With signature "rng, n, k" (default) it is called once as
        sample(rng, n, k), rng a numpy.random.Generator seeded by seed, and must return n matrices
        of shape (k, k) as an array of shape (n, k, k) (NumPy, JAX, PyTorch or anything np.asarray
        converts). With signature "n" it is called as sample(n) and draws its own randomness (the
        run is then reproducible only as far as the sampler is). Wrap other signatures, e.g.
        lambda rng, n, k: scipy.stats.ortho_group.rvs(dim=k, size=n, random_state=rng).
    k : int
        Matrix dimension, at least 2.
    n : int
        Number of draws (at least MIN_N = 100; default DEFAULT_N = 2000).
    special : bool
        Check SO(k) (det T = +1 always) instead of O(k).
    alpha : float
        Designed false-failure rate: the probability that a correct Haar sampler fails the battery
        is at most alpha (Holm over the statistical tests; module notes), in (0, 1).
    seed : int or None
        Seed of the sampler's generator, numpy.random.default_rng(seed), and of the eigen-angle
        picked per draw, numpy.random.default_rng([seed, 1]). None draws a fresh one; it is recorded
        in the criterion and the reproducer.
    signature : {"rng, n, k", "n"}
        How sample is called (above).
    eps : float or None
        Unit of the orthogonality bound 64·k²·eps; None takes the machine epsilon of the returned
        floating dtype (float64 for integer output), so float32 output is held to float32 rounding.
    subject : str or None
        The sampler's name in the table; None uses its module:qualname.

    Returns
    -------
    CheckResult
        kind "haar_sampler"; one row per test (statistic, null law, p-value, Holm threshold, detail);
        a reproducer when a test fails.

    Raises
    ------
    ValueError
        For a bad argument (naming it), or when sample returns something that is not a real array of
        shape (n, k, k).

    Notes
    -----
    The tests and their laws are in the module notes: orthogonality to 64·k²·eps (Higham 2002,
    Thm 19.4), the determinant balance, the moments of tr T^j (Diaconis & Shahshahani 1994), the
    eigen-angles against Weyl's density per coset, columns and rows uniform on the sphere, and
    invariance under fixed left and right rotations. The classic mistake they catch is QR of a
    Gaussian matrix without the sign fix Q diag(sign Rᵢᵢ) (Mezzadri 2007, "How to generate random
    matrices from the classical compact groups", Notices AMS 54, 592–604).

    Examples
    --------
    >>> import numpy as np
    >>> from symcheck.testing import check_haar_sampler
    >>> def qr_sampler(rng, n, k):
    ...     q, r = np.linalg.qr(rng.standard_normal((n, k, k)))
    ...     return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]
    >>> bool(check_haar_sampler(qr_sampler, 4, seed=1))
    True
    """
    check_callable(sample, "sample")
    k = check_int(k, "k", minimum=2)
    n = check_int(n, "n", minimum=MIN_N)
    check_alloc(3 * n * k * k, "n, k")
    special = check_bool(special, "special")
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.floating, np.integer)) \
            or not 0 < float(alpha) < 1:
        raise ValueError(f"alpha must be a number in (0, 1) (the designed false-failure rate), got {alpha!r}")
    alpha = float(alpha)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)
    seed = check_int(seed, "seed", minimum=0)
    signature = check_choice(signature, "signature", SIGNATURES)
    if eps is not None:
        if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, (int, float, np.floating)) \
                or not 0 < float(eps) < 1:
            raise ValueError(f"eps must be a number in (0, 1) (the unit of the orthogonality bound), got {eps!r}")
        eps = float(eps)
    if subject is not None and not isinstance(subject, str):
        raise ValueError(f"subject must be a string or None, got {type(subject).__name__}")
    name = subject or subject_name(sample)
    importable = subject is None and "<" not in name

    raw = _as_array(sample(np.random.default_rng(seed), n, k) if signature == "rng, n, k" else sample(n))
    if raw.shape != (n, k, k):
        raise ValueError(f"sample must return an array of shape (n, k, k) = ({n}, {k}, {k}); got shape {raw.shape}")
    if raw.dtype.kind not in "fiu":
        raise ValueError(f"sample must return real numbers; got dtype {raw.dtype}")
    if eps is None:
        eps = float(np.finfo(raw.dtype).eps) if raw.dtype.kind == "f" else EPS
    T = raw.astype(np.float64)
    group = f"SO({k})" if special else f"O({k})"
    design = (f"Haar on {group}: orthogonality to 64 k^2 eps and (SO) det = +1 are deterministic; the "
              f"statistical tests fail a correct sampler with probability <= alpha = {alpha:g} together "
              f"(Holm); n = {n}, seed = {seed}")
    if not np.all(np.isfinite(T)):
        bad = int(np.count_nonzero(~np.all(np.isfinite(T), axis=(1, 2))))
        row = CheckRow("finite entries", False, {"statistic": bad, "null law": "deterministic: every entry finite",
                                                  "detail": f"{bad} of {n} draws have NaN or inf entries"})
        snippet = "print(np.count_nonzero(~np.isfinite(T).all(axis=(1, 2))), 'draws with NaN or inf')"
        return CheckResult("haar_sampler", name, (row,), design,
                           _reproducer(name, importable, signature, k, n, special, alpha, seed,
                                       [("finite entries", snippet)]))

    u, R, QL, QR = battery_directions(k, special)
    det = np.linalg.det(T)

    ortho_values, ortho_ok, ortho_snippet = _orthogonality(T, eps)
    det_values, det_p, det_ok, det_snippet = _determinant(det, special)
    tests = [("orthogonality", ortho_values, None, ortho_ok, ortho_snippet),
             ("determinant", det_values, det_p, det_ok, det_snippet)]
    for name_, (values, p, snippet) in (("moments of traces", _moments(T, special)),
                                        ("eigen-angles (Weyl)", _angles(T, det, np.random.default_rng([seed, 1]))),
                                        ("columns uniform", _sphere(T, u, rows=False)),
                                        ("rows uniform", _sphere(T, u, rows=True)),
                                        ("invariance Q_L T Q_R", _invariance(T, R, QL, QR))):
        tests.append((name_, values, p, True, snippet))
    statistical = [i for i, t in enumerate(tests) if t[2] is not None]
    thresholds, rejected = _holm([tests[i][2] for i in statistical], alpha)
    passed = [t[3] for t in tests]
    for i, thr, rej in zip(statistical, thresholds, rejected):
        tests[i][1]["threshold"] = thr
        passed[i] = not rej
    rows = tuple(CheckRow(t[0], ok, {key: t[1][key] for key in ("statistic", "null law", "p-value", "threshold",
                                                                 "detail")})
                 for t, ok in zip(tests, passed))
    failing = [(t[0], t[4]) for t, ok in zip(tests, passed) if not ok]
    reproducer = (_reproducer(name, importable, signature, k, n, special, alpha, seed, failing)
                  if failing else None)
    return CheckResult("haar_sampler", name, rows, design, reproducer)
