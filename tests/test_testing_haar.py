"""check_haar_sampler: the laws it tests, its power on planted bugs and its false-failure rate.

Independent routes: Weyl's joint eigen-angle density of each coset of O(k), integrated by
Gauss–Chebyshev quadrature (exact for the polynomials in cos θ involved), checks the one-point
law weyl_angle_pdf/cdf and every Diaconis–Shahshahani moment the battery uses. Planted bugs
(Mezzadri 2007's QR without the sign fix, uniform Euler angles, float32 Gram–Schmidt, SO(k)
passed off as O(k)) must fail, each in the test that targets it; correct samplers (symcheck,
scipy.stats.ortho_group / special_ortho_group, QR with the sign fix) must pass. Assertions on
random outcomes use alpha = FALSE_FAILURE_ALPHA (1e-5) so they hold at any seed.
"""

from __future__ import annotations

import itertools
import json
import math
import sys

import numpy as np
import pytest
from scipy import integrate, stats

from symcheck.evidence import EPS, FALSE_FAILURE_ALPHA, ROUNDING
from symcheck.haar import haar_orthogonal
from symcheck.testing import CheckResult, check_haar_sampler
from symcheck.testing.haar import _MOMENTS, DEFAULT_N, _holm, weyl_angle_cdf, weyl_angle_pdf

KS = (2, 3, 5, 10)


# ----- subjects ------------------------------------------------------------------------------------

def qr_sign_fix(rng, n, k):
    """Mezzadri (2007) Sec. 5: Q diag(sign Rᵢᵢ) of a Gaussian matrix: Haar on O(k)."""
    q, r = np.linalg.qr(rng.standard_normal((n, k, k)))
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]


def qr_no_sign_fix(rng, n, k):
    """Planted bug, the classic mistake: Q of a Gaussian matrix as LAPACK returns it (Mezzadri 2007)."""
    return np.linalg.qr(rng.standard_normal((n, k, k)))[0]


def euler_uniform(rng, n, k):
    """Planted bug: R_z(a) R_y(b) R_z(c) with b uniform on [0, π] (Haar needs density sin(b)/2)."""
    assert k == 3
    a, b, c = rng.uniform(0, 2 * np.pi, n), rng.uniform(0, np.pi, n), rng.uniform(0, 2 * np.pi, n)

    def rot(t, i, j):
        out = np.zeros((n, 3, 3))
        out[:, i, i] = out[:, j, j] = np.cos(t)
        out[:, i, j], out[:, j, i] = -np.sin(t), np.sin(t)
        out[:, 3 - i - j, 3 - i - j] = 1.0
        return out

    return rot(a, 0, 1) @ rot(b, 2, 0) @ rot(c, 0, 1)


def gram_schmidt_float32(rng, n, k):
    """Planted bug: Gram–Schmidt (positive R diagonal, so Haar in exact arithmetic) run in float32, cast to float64."""
    # Plain products and sums only: einsum's float32 kernels gave NaN for every draw at k = 10 on one CI
    # machine (not reproduced on another CPU), which the battery then reported as non-finite, not as the
    # rounding bug planted here.
    z = rng.standard_normal((n, k, k)).astype(np.float32)
    q = np.zeros_like(z)
    for j in range(k):
        v = z[:, :, j].copy()
        for i in range(j):
            v -= q[:, :, i] * (q[:, :, i] * z[:, :, j]).sum(axis=1, keepdims=True)
        q[:, :, j] = v / np.sqrt((v * v).sum(axis=1, keepdims=True))
    return q.astype(np.float64)


def so_as_o(rng, n, k):
    """Planted bug when checked as O(k): a correct SO(k) sampler."""
    return haar_orthogonal(k, n, rng, special=True)


def signed_permutations(rng, n, k):
    """Planted bug: the hyperoctahedral group (sign flips × permutations, symcheck's other groups) as O(k).

    Its traces match the first Haar moments (E tr T = 0, E (tr T)² = E tr T² = 1: the expected number of
    fixed points), so only the eigen-angle, sphere and invariance tests can see it.
    """
    out = np.zeros((n, k, k))
    perms = np.argsort(rng.random((n, k)), axis=1)
    out[np.arange(n)[:, None], np.arange(k)[None, :], perms] = rng.choice([-1.0, 1.0], (n, k))
    return out


def half_identity(rng, n, k):
    """Planted bug: a Haar sampler that returns the identity for half of the draws (say, an unfilled buffer)."""
    t = haar_orthogonal(k, n, rng)
    t[rng.random(n) < 0.5] = np.eye(k)
    return t


def symcheck_o(rng, n, k):
    return haar_orthogonal(k, n, rng)


def symcheck_so(rng, n, k):
    return haar_orthogonal(k, n, rng, special=True)


def scipy_o(rng, n, k):
    return stats.ortho_group.rvs(dim=k, size=n, random_state=rng)


def scipy_so(rng, n, k):
    return stats.special_ortho_group.rvs(dim=k, size=n, random_state=rng)


def _seed(rng) -> int:
    return int(rng.integers(2**63))


# ----- Weyl's joint density by quadrature: the independent route ---------------------------------

def _nodes(n_free: int) -> np.ndarray:
    """Gauss–Chebyshev nodes θᵢ = π(i + ½)/m, m = N + 4: (1/m)Σ p(cos θᵢ) = (1/π)∫₀^π p(cos θ) dθ exactly for
    polynomials p of degree ≤ 2m − 1 = 2N + 7. Every integrand below has degree ≤ 2N + 6 in each cos θⱼ:
    2(N − 1) from the squared Vandermonde, ≤ 2 from the coset factor, ≤ 6 from a statistic (weight ≤ 3)
    squared, or from the pinned angle's factors in the marginal."""
    m = n_free + 4
    return np.pi * (np.arange(m) + 0.5) / m


def _coset_weight(k: int, det: int):
    """Number N of free angles and the coset factor of Weyl's density (weyl_angle_pdf Notes)."""
    if k % 2 == 0 and det > 0:
        return k // 2, lambda th: np.ones_like(th)
    if k % 2 == 1 and det > 0:
        return (k - 1) // 2, lambda th: np.sin(th / 2) ** 2
    if k % 2 == 1:
        return (k - 1) // 2, lambda th: np.cos(th / 2) ** 2
    return k // 2 - 1, lambda th: np.sin(th) ** 2


def _fixed(k: int, det: int) -> list[float]:
    """The fixed eigenvalues ±1 of the coset."""
    return {(0, 1): [], (1, 1): [1.0], (1, -1): [-1.0], (0, -1): [1.0, -1.0]}[(k % 2, det)]


def _weyl_grid(k: int, det: int, first=None):
    """Tensor grid of the free angles (first angle pinned to ``first`` if given) and Weyl's weights."""
    n_free, factor = _coset_weight(k, det)
    if n_free == 0:  # O(2) minus SO(2): eigenvalues ±1 only, a single point
        return np.zeros((1, 0)), np.ones(1)
    nodes = _nodes(n_free)
    axes = [nodes] * n_free if first is None else [np.atleast_1d(first)] + [nodes] * (n_free - 1)
    th = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, n_free)
    w = np.prod(factor(th), axis=1)
    for i, j in itertools.combinations(range(n_free), 2):
        w = w * (np.cos(th[:, i]) - np.cos(th[:, j])) ** 2
    return th, w


def _coset_expectation(f, k: int, det: int) -> tuple[float, float]:
    """E f(tr T, tr T², tr T³) over Haar on the coset {det T = det} of O(k), by Weyl's density, and its
    rounding allowance.

    Pairwise summation of M terms errs by at most γ_{⌈log₂ M⌉}·Σ|terms| (Higham 2002, Sec. 4.2), and each
    term f (a power of a sum of ≤ k cosines) carries ≤ ~k roundings of its size: the allowance is
    ROUNDING·(⌈log₂ M⌉ + k)·E|f|, E|f| under the same weights.
    """
    th, w = _weyl_grid(k, det)
    tr = [sum(e ** m for e in _fixed(k, det)) + 2 * np.sum(np.cos(m * th), axis=1) for m in (1, 2, 3)]
    values = f(*tr)
    scale = float(np.sum(w * np.abs(values)) / np.sum(w))
    return float(np.sum(w * values) / np.sum(w)), ROUNDING * (math.ceil(math.log2(w.size)) + 1 + k) * scale


def _expectation(f, k: int, special: bool) -> tuple[float, float]:
    plus, tol_plus = _coset_expectation(f, k, +1)
    if special:
        return plus, tol_plus
    minus, tol_minus = _coset_expectation(f, k, -1)
    return 0.5 * (plus + minus), 0.5 * (tol_plus + tol_minus) + ROUNDING * abs(plus + minus)


COSETS = [(k, d) for k in range(2, 10) for d in (1, -1) if not (k == 2 and d == -1)]


@pytest.mark.parametrize("k, det", COSETS)
def test_weyl_angle_pdf_is_the_marginal_of_weyls_joint_density(k, det):
    n_free, _ = _coset_weight(k, det)
    m = _nodes(n_free).size
    _, w_all = _weyl_grid(k, det)
    total = np.sum(w_all) * (np.pi / m) ** n_free  # ∫ over [0, π]^N
    theta = np.linspace(0.05, np.pi - 0.05, 13)
    marginal = np.array([np.sum(_weyl_grid(k, det, first=t)[1]) * (np.pi / m) ** (n_free - 1)
                         for t in theta]) / total
    # exact quadrature; rounding of sums of m^N positive terms
    tol = ROUNDING * m ** n_free * np.max(marginal)
    np.testing.assert_allclose(weyl_angle_pdf(theta, k, det), marginal, rtol=0, atol=tol)
    if k >= 3:  # planted: the other coset's law (the sign s flipped) is far outside the tolerance
        assert np.max(np.abs(weyl_angle_pdf(theta, k, -det) - marginal)) > 1e6 * tol


@pytest.mark.parametrize("k, det", COSETS)
def test_weyl_angle_cdf_integrates_the_pdf(k, det):
    theta = np.linspace(0.0, np.pi, 9)
    quad = [integrate.quad(weyl_angle_pdf, 0, t, args=(k, det), epsabs=1e-13, epsrel=1e-13)[0] for t in theta]
    # quad's error target 1e-13 plus rounding of the closed form (≤ k terms of size ≤ k)
    np.testing.assert_allclose(weyl_angle_cdf(theta, k, det), quad, rtol=0, atol=1e-13 + ROUNDING * k)
    assert weyl_angle_cdf(np.pi, k, det) == pytest.approx(1.0, abs=ROUNDING * k)


def test_weyl_angle_law_of_so3_is_the_rotation_angle_law():
    """SO(3): the rotation angle has density (1 − cos θ)/π (a textbook fact, independent of the kernel)."""
    theta = np.linspace(0, np.pi, 11)
    np.testing.assert_allclose(weyl_angle_pdf(theta, 3, 1), (1 - np.cos(theta)) / np.pi, atol=ROUNDING)
    np.testing.assert_allclose(weyl_angle_pdf(theta, 2, 1), np.full(11, 1 / np.pi), atol=ROUNDING)


@pytest.mark.parametrize("k", range(2, 12))
@pytest.mark.parametrize("special", [False, True])
def test_the_diaconis_shahshahani_moments_used_hold_by_weyls_density(k, special):
    """Every mean (weight w ≤ kmax) and second moment (2w ≤ kmax) the battery takes as exact.

    k ≤ 11 covers every use outside the range w ≤ k/2 of Diaconis & Shahshahani (the weights used are ≤ 6).
    """
    kmax = k - 1 if special else k
    used = 0
    for label, weight, fn, mean, second in _MOMENTS:
        if weight <= kmax:
            got, tol = _expectation(fn, k, special)
            assert abs(got - mean) <= tol, (label, got, mean, tol)
            used += 1
        if 2 * weight <= kmax:
            got, tol = _expectation(lambda a, b, c, fn=fn: fn(a, b, c) ** 2, k, special)
            assert abs(got - second) <= tol, (label, got, second, tol)
    assert used >= 1


@pytest.mark.parametrize("args, match", [
    ((np.array([0.5, 4.0]), 3, 1), "theta must lie in"),
    ((np.array([0.5, np.nan]), 3, 1), "theta contains NaN"),
    ((0.5, 1, 1), "k must be an integer >= 2"),
    ((0.5, 3, 0), "det must be"),
    ((0.5, 2, -1), "no free eigen-angles"),
])
def test_weyl_angle_law_bad_arguments(args, match):
    for fn in (weyl_angle_pdf, weyl_angle_cdf):
        with pytest.raises(ValueError, match=match):
            fn(*args)


def test_a_singular_draw_is_a_failure_not_an_error(rng):
    def singular(r, n, k):
        out = haar_orthogonal(k, n, r)
        out[0] = 0.0
        return out

    result = check_haar_sampler(singular, 3, alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    assert "orthogonality" in {row.name for row in result.failures}


def test_the_moment_range_matters():
    """Outside the range the equalities fail, and the quadrature sees it (so the test above can fail)."""
    sq = _MOMENTS[1][2]  # (tr T)²
    assert _expectation(sq, 2, special=True)[0] == pytest.approx(2.0)  # SO(2), w = 2 > k − 1: not 1
    assert _expectation(lambda a, b, c: a ** 6, 2, special=False)[0] == pytest.approx(10.0)  # O(2): not E Z⁶ = 15
    assert _expectation(lambda a, b, c: a ** 8, 3, special=False)[0] == pytest.approx(91.0)  # O(3): not E Z⁸ = 105


# ----- the battery on correct samplers and planted bugs ----------------------------------------------

CORRECT = [("symcheck O(k)", symcheck_o, False), ("symcheck SO(k)", symcheck_so, True),
           ("scipy ortho_group", scipy_o, False), ("scipy special_ortho_group", scipy_so, True),
           ("QR with sign fix", qr_sign_fix, False)]


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("name, sampler, special", CORRECT, ids=[c[0] for c in CORRECT])
def test_correct_samplers_pass(name, sampler, special, k, rng):
    result = check_haar_sampler(sampler, k, special=special, alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    assert result.passed, result.table()
    assert result.reproducer is None
    assert len(result.rows) == 7


#: (bug, sampler, special, k values, the rows that must fail at default n)
PLANTED = [
    ("QR without sign fix", qr_no_sign_fix, False, KS, {"determinant", "moments of traces"}),
    ("QR without sign fix, as SO(k), odd k", qr_no_sign_fix, True, (3, 5), {"moments of traces", "eigen-angles (Weyl)"}),
    ("QR without sign fix, as SO(k), even k", qr_no_sign_fix, True, (2, 10), {"determinant"}),
    ("uniform Euler angles", euler_uniform, False, (3,), {"determinant", "moments of traces"}),
    ("uniform Euler angles, as SO(3)", euler_uniform, True, (3,), {"moments of traces", "eigen-angles (Weyl)"}),
    ("float32 Gram-Schmidt", gram_schmidt_float32, False, KS, {"orthogonality"}),
    ("SO(k) as O(k)", so_as_o, False, KS, {"determinant"}),
    ("signed permutations", signed_permutations, False, KS, {"eigen-angles (Weyl)", "columns uniform", "rows uniform"}),
    ("identity half the time", half_identity, False, KS, {"moments of traces", "eigen-angles (Weyl)",
                                                          "invariance Q_L T Q_R"}),
]
PLANTED_CASES = [(bug, f, sp, k, rows) for bug, f, sp, ks, rows in PLANTED for k in ks]


@pytest.mark.parametrize("bug, sampler, special, k, rows", PLANTED_CASES,
                         ids=[f"{c[0]}-k{c[3]}" for c in PLANTED_CASES])
def test_planted_bugs_fail_at_the_default_n(bug, sampler, special, k, rows, rng):
    result = check_haar_sampler(sampler, k, special=special, alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    assert not result.passed
    assert rows <= {row.name for row in result.failures}, result.table()
    assert result.reproducer and "check_haar_sampler" in result.reproducer


def test_every_test_of_the_battery_is_caught_failing_somewhere():
    """Each row of the battery is among the required failures of some planted bug above."""
    required = set().union(*(rows for *_, rows in PLANTED))
    names = {row.name for row in check_haar_sampler(symcheck_o, 3, seed=0).rows}
    assert names <= required


def test_float32_output_is_held_to_float32_rounding(rng):
    """A correct sampler returning float32 passes with the dtype's eps, and fails at float64's."""
    def f32(r, n, k):
        return haar_orthogonal(k, n, r).astype(np.float32)

    seed = _seed(rng)
    assert check_haar_sampler(f32, 5, alpha=FALSE_FAILURE_ALPHA, seed=seed)
    strict = check_haar_sampler(f32, 5, alpha=FALSE_FAILURE_ALPHA, seed=seed, eps=EPS)
    assert [r.name for r in strict.failures] == ["orthogonality"]


# ----- designed false-failure rate ------------------------------------------------------------------

def _bonferroni_min(result: CheckResult) -> float:
    """m · min p over the statistical rows: the battery fails at alpha iff this is ≤ alpha (Holm's first step)."""
    ps = [r.values["p-value"] for r in result.rows if r.values["p-value"] != "-"]
    return len(ps) * min(ps)


def test_the_measured_false_failure_rate_is_within_the_design(rng):
    """100 seeds of a correct sampler at n = 300: failures ≤ the 1e-6 upper quantile of Binomial(100, alpha).

    Checked at alpha = 0.05 (where 100 runs can see a rate off by a factor 3) and at the default 1e-3.
    """
    base = _seed(rng)
    runs = [check_haar_sampler(symcheck_o, 3 + s % 2, n=300, alpha=0.05, seed=base + s) for s in range(100)]
    assert all(r.rows[0].passed for r in runs)  # the deterministic orthogonality test never fails
    minp = np.array([_bonferroni_min(r) for r in runs])
    assert [not r.passed for r in runs] == list(minp <= 0.05)  # Holm fails the battery exactly then
    for alpha in (0.05, 1e-3):
        bound = stats.binom.isf(1e-6, 100, alpha)
        assert np.sum(minp <= alpha) <= bound, (alpha, np.sort(minp)[:10])


# ----- the result, the reproducer, the adapters, bad arguments ------------------------------------

def test_result_renders_and_serialises(rng):
    result = check_haar_sampler(qr_no_sign_fix, 3, alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    text = result.table()
    assert "FAIL" in text and "moments of traces" in text and "reproducer:" in text
    data = json.loads(result.dumps())
    assert data["kind"] == "haar_sampler" and not data["passed"] and len(data["rows"]) == 7
    assert "Holm" in result.criterion and str(DEFAULT_N) in result.criterion
    with pytest.raises(AssertionError, match="determinant"):
        result.raise_if_failed()


def test_the_reproducer_reproduces_the_failure(tmp_path, monkeypatch, rng):
    (tmp_path / "user_haar_module.py").write_text(
        "import numpy as np\n\n\ndef sampler(rng, n, k):\n    return np.linalg.qr(rng.standard_normal((n, k, k)))[0]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from user_haar_module import sampler

    seed = _seed(rng)
    result = check_haar_sampler(sampler, 4, alpha=FALSE_FAILURE_ALPHA, seed=seed)
    assert result.subject == "user_haar_module:sampler"
    assert f"seed={seed}" in result.reproducer
    namespace: dict = {}
    exec(compile(result.reproducer, "reproducer", "exec"), namespace)  # noqa: S102 - our own generated text
    again = namespace["result"]
    assert [r.name for r in again.failures] == [r.name for r in result.failures]
    assert [r.values["statistic"] for r in again.rows] == [r.values["statistic"] for r in result.rows]
    sys.modules.pop("user_haar_module", None)


def test_a_lambda_gets_a_reproducer_that_says_to_define_it(rng):
    result = check_haar_sampler(lambda r, n, k: so_as_o(r, n, k), 3, alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    assert "sample = ...  #" in result.reproducer


def test_signature_n_and_a_tensor_like_output(rng, fake_tensor):
    gen = np.random.default_rng(_seed(rng))
    result = check_haar_sampler(lambda n: fake_tensor(haar_orthogonal(4, n, gen)), 4, signature="n",
                                alpha=FALSE_FAILURE_ALPHA, seed=_seed(rng))
    assert result.passed, result.table()


def test_non_finite_draws_fail_with_their_own_row(rng):
    def nan_sampler(r, n, k):
        out = haar_orthogonal(k, n, r)
        out[3, 0, 0] = np.nan
        return out

    result = check_haar_sampler(nan_sampler, 3, seed=_seed(rng))
    assert not result.passed and [r.name for r in result.rows] == ["finite entries"]
    assert "1 of" in result.rows[0].values["detail"]


def test_holm_step_down():
    thresholds, rejected = _holm([0.01, 0.04, 0.03, 0.5], 0.05)
    assert thresholds == [0.05 / 4, 0.05 / 2, 0.05 / 3, 0.05]
    assert rejected == [True, False, False, False]  # 0.03 > 0.05/3 stops the procedure
    assert _holm([0.001, 0.02, 0.2], 0.05)[1] == [True, True, False]


@pytest.mark.parametrize("kwargs, match", [
    ({"k": 1}, "k must be an integer >= 2"),
    ({"k": 2.5}, "k must be an integer"),
    ({"n": 10}, "n must be an integer >= 100"),
    ({"special": 1}, "special must be a boolean"),
    ({"alpha": 0.0}, "alpha must be a number in"),
    ({"alpha": 1.5}, "alpha must be a number in"),
    ({"alpha": True}, "alpha must be a number in"),
    ({"seed": -1}, "seed must be an integer >= 0"),
    ({"seed": "x"}, "seed must be an integer"),
    ({"signature": "rng"}, "unknown signature"),
    ({"eps": 0.0}, "eps must be a number in"),
    ({"subject": 3}, "subject must be a string"),
    ({"n": 10**9, "k": 100}, "would allocate"),
])
def test_bad_arguments_raise_naming_them(kwargs, match):
    args = {"sample": symcheck_o, "k": 3, **kwargs}
    with pytest.raises(ValueError, match=match):
        check_haar_sampler(**args)


@pytest.mark.parametrize("sampler, match", [
    (lambda r, n, k: np.zeros((n, k)), r"shape \(n, k, k\)"),
    (lambda r, n, k: np.zeros((n, k, k), dtype=complex), "real numbers"),
    (lambda r, n, k: [[1, 2], [3]], "NumPy cannot convert|shape"),
])
def test_bad_sampler_output_raises_naming_sample(sampler, match):
    with pytest.raises(ValueError, match=match):
        check_haar_sampler(sampler, 3, seed=0)


def test_sample_must_be_callable():
    with pytest.raises(ValueError, match="sample must be a callable"):
        check_haar_sampler(np.eye(3), 3)


def test_seed_none_is_recorded():
    result = check_haar_sampler(symcheck_o, 3, n=200)
    seed = int(result.criterion.rsplit("seed = ", 1)[1])
    again = check_haar_sampler(symcheck_o, 3, n=200, seed=seed)
    assert [r.values for r in again.rows] == [r.values for r in result.rows]
    assert math.isfinite(seed)
