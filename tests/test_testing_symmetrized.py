"""The symmetrized-KL checker of `symcheck.testing` passes correct subjects and catches planted bugs.

Sign flip: symcheck's exact gap and log q̃ pass; a plain Monte Carlo estimator passes where the
modes overlap (s < 10) at several seeds and is caught where they separate (its sample SE cannot
see events of probability Φ(−√s)). Planted: the variance ignored, variance for standard deviation,
the constant log 2, log 2 missing from log q̃ (the ½ of the mixture dropped), q* returned for q̃,
an SE ten times too small, a bias of 0.02.

O(k) (Moore App. A): a log q̃ by Haar quadrature (two-point mixture for k = 1, adaptive O(2) for
k = 2, O(3) Euler grids for k = 3; independent of ₀F₁) passes, which checks the references; r_θ
and the Monte Carlo KL of the corrected form pass (several seeds); App. A / Listing 1 as printed
(symmetrised A; Listing 1 also with the Laplace ₀F₁) fail, and so does the printed KL.

Hidden-unit permutations (Gelberg Def. 2.1): log q̃ written in MLP terms (unpack, permute, SciPy
logsumexp) and symcheck's log-space permanent both pass against the mpmath n! sums; a plain Monte
Carlo KL and symcheck's `symmetrization_gap` pass at seeds 0-4; the reference meets its limits
(KL = 0 when q* is invariant, log n! when the orbits are far apart). Planted: |G| = n instead of n!,
W₂'s columns left in place, log-sum-exp without the max shift (overflow: a failing row, no crash),
an SE understated ×3, a bias of 0.05.
"""

import itertools
import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy.special import logsumexp

import symcheck
from symcheck.gaussian import gaussian_logpdf
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.haar_quadrature import o2_log_integral, o3_log_integral
from symcheck.orthogonal import moore_kl, moore_r, orthogonal_logpdf
from symcheck.signflip_exact import signflip_gap_1d
from symcheck.symmetrize import symmetrization_gap
from symcheck.testing import assert_symmetrized_kl, check_symmetrized_kl, symmetrized

ORTHO = {"group": "orthogonal"}


# ----- sign flip ------------------------------------------------------------------------------------

def exact_gap(mean, var):
    return signflip_gap_1d(float(np.sum(mean * mean / var)))


def logq(z, mean, var):
    return SignFlip().symmetrized_logpdf(z, mean, var)


def mc_gap(seed, n=20_000):
    """A plain Monte Carlo estimator E_q*[log q*(z) − log q̃(z)] with its sample SE."""
    rng = np.random.default_rng(seed)

    def estimate(mean, var):
        z = mean + np.sqrt(var) * rng.standard_normal((n, mean.size))
        vals = np.log(2.0) - np.logaddexp(0.0, -2.0 * (z * mean / var).sum(axis=1))
        return vals.mean(), vals.std(ddof=1) / math.sqrt(n)
    return estimate


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_signflip_exact_routes_pass(seed):
    result = check_symmetrized_kl(exact_gap, rtol=1e-8, seed=seed)
    assert result, result.table()
    assert check_symmetrized_kl(logq, quantity="log_qtilde", rtol=1e-12, seed=seed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_plain_mc_holds_where_modes_overlap_and_is_caught_where_they_separate(seed):
    """For s = 30, 200 the gap log 2 − KL comes from t < 0, of probability ~Φ(−√s) (2.7e-8 at s = 30),
    which 2·10⁴ draws never see: the estimate sits at log 2 with an SE ~1e-11, 6.5e-8 from the truth."""
    result = check_symmetrized_kl(mc_gap(seed), estimator="mc", seed=seed)
    verdict = {row.name: row.passed for row in result.rows}
    assert verdict == {"overlapping (s < 1)": True, "s 1–10": True, "separated (s > 10)": False}, result.table()
    assert "4.5·√(SE² + SE_ref²)" in result.criterion and "6.8e-6 per family" in result.criterion


@pytest.mark.parametrize("name, subject, options", [
    ("variance ignored", lambda m, v: exact_gap(m, np.ones_like(v)), {}),
    ("variance for standard deviation", lambda m, v: exact_gap(m, v * v), {}),
    ("the separated-modes limit log 2", lambda m, v: math.log(2.0), {}),
    ("log 2 missing (the ½ of the mixture)", lambda z, m, v: logq(z, m, v) + math.log(2.0),
     {"quantity": "log_qtilde"}),
    ("q* for q̃", lambda z, m, v: gaussian_logpdf(z, m, v), {"quantity": "log_qtilde"}),
    ("SE ten times too small", lambda m, v: (lambda e: (e[0], e[1] / 10))(mc_gap(5)(m, v)), {"estimator": "mc"}),
    ("bias 0.02", lambda m, v: (lambda e: (e[0] + 0.02, e[1]))(mc_gap(6)(m, v)), {"estimator": "mc"}),
])
def test_signflip_planted_bugs_fail_where_modes_overlap(name, subject, options):
    result = check_symmetrized_kl(subject, **options)
    overlap = {r.name for r in result.failures} & {"overlapping (s < 1)", "s 1–10"}
    assert overlap, f"{name} was not caught: {result.table()}"


# ----- O(k), Moore App. A ---------------------------------------------------------------------------

def quadrature_logq(X, M, c):
    """log q̃ = log ∫_{O(k)} N(X Tᵀ; M, cI) dT by quadrature over O(k), no ₀F₁: k = 1 the two-point
    mixture, k = 2 adaptive quadrature on both cosets, k = 3 Euler grids on SO(3) ∪ −SO(3)."""
    k = M.shape[1]
    V = np.full(M.shape, c)
    if k == 1:
        return np.logaddexp(gaussian_logpdf(X, M, V), gaussian_logpdf(-X, M, V)) - math.log(2)
    if k == 2:
        return np.array([o2_log_integral(lambda T, x=x: float(gaussian_logpdf(x @ T.T, M, V)))[0] for x in X])
    return np.array([o3_log_integral(lambda T, x=x: gaussian_logpdf(np.matmul(x, np.swapaxes(T, -1, -2)), M, V))[0]
                     for x in X])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_orthogonal_log_qtilde_by_quadrature_passes_every_family(seed):
    """Independent of ₀F₁ and of the corrected App. A algebra: this checks the references themselves."""
    result = check_symmetrized_kl(quadrature_logq, quantity="log_qtilde", rtol=1e-10, seed=seed, **ORTHO)
    assert result, result.table()
    assert {r.name.split(",")[0] for r in result.rows} == {"k=1", "k=2", "k=3"}
    assert check_symmetrized_kl(lambda X, M, c: moore_r(X, M, c), quantity="r", seed=seed, **ORTHO)


def test_orthogonal_pointwise_planted_bugs_fail():
    printed_logq = lambda X, M, c: (gaussian_logpdf(X, M, np.full(M.shape, c))  # noqa: E731
                                    - moore_r(X, M, c, form="printed"))
    assert not check_symmetrized_kl(printed_logq, quantity="log_qtilde", **ORTHO)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", symcheck.Hyp0f1AccuracyWarning)
        for method in ("auto", "laplace"):  # App. A as printed; Listing 1 (printed A, Laplace ₀F₁)
            result = check_symmetrized_kl(lambda X, M, c: moore_r(X, M, c, form="printed", method=method,
                                                                  **({"variant": "listing"} if method == "laplace"
                                                                     else {})), quantity="r", **ORTHO)
            failing_k = {r.name.split(",")[0] for r in result.failures}
            # k = 1: A = B (1×1), so only Listing 1's Laplace ₀F₁ can fail there
            assert failing_k == ({"k=1", "k=2", "k=3"} if method == "laplace" else {"k=2", "k=3"}), result.table()
    one_point = check_symmetrized_kl(zero_r, quantity="r", **ORTHO)
    assert "# one point" in one_point.reproducer and "print(fn(X, M, c))" in one_point.reproducer
    exec(compile(one_point.reproducer, "reproducer", "exec"), {})  # noqa: S102 - our own generated text


def zero_r(X, M, c):
    """A planted r_θ that is 0 everywhere (importable by the reproducer)."""
    return np.zeros(len(X))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_orthogonal_mc_kl_corrected_passes_printed_fails(seed):
    gen = np.random.default_rng(1000 + seed)
    result = check_symmetrized_kl(lambda M, c: moore_kl(M, c, 4000, gen), estimator="mc", seed=seed, **ORTHO)
    assert result, result.table()
    printed = check_symmetrized_kl(lambda M, c: moore_kl(M, c, 4000, gen, form="printed"), estimator="mc",
                                   seed=seed, **ORTHO)
    failing = {r.name for r in printed.failures}
    assert len(failing) >= 3 and not any(name.startswith("k=1") for name in failing), printed.table()


def test_orthogonal_exact_kl_is_judged_within_the_reference_se():
    """k = 1 exactly; k = 2 by 4·10⁵ draws (SE ~0.001, against 4.5·SE_ref ~0.02 allowed)."""
    def kl(M, c):
        if M.shape[1] == 1:
            return exact_gap(M.ravel(), np.full(M.size, c))
        return moore_kl(M, c, 400_000, 7)[0]
    result = check_symmetrized_kl(kl, max_k=2, **ORTHO)
    assert result, result.table()
    assert "4.5·SE_ref" in result.criterion and len(result.rows) == 5
    biased = check_symmetrized_kl(lambda M, c: kl(M, c) + 0.1, max_k=2, **ORTHO)
    assert len(biased.failures) == 5


def test_bad_arguments_name_themselves():
    for options, name in (({"group": "cyclic"}, "group"), ({"group": "permutation", "max_k": 2}, "max_k"),
                          ({"quantity": "r"}, "quantity"),
                          ({"estimator": "exact-ish"}, "estimator"),
                          ({"estimator": "mc", "quantity": "log_qtilde"}, "estimator"),
                          ({"rtol": math.nan}, "rtol"), ({"max_k": 2}, "max_k"), ({"n_reference": 10}, "n_reference"),
                          ({"group": "orthogonal", "max_k": 0}, "max_k")):
        with pytest.raises(ValueError, match=name):
            check_symmetrized_kl(exact_gap, **options)
    with pytest.raises(AssertionError, match="reproducer"):
        assert_symmetrized_kl(lambda m, v: 0.0)


# ----- hidden-unit permutations (Gelberg Def. 2.1) -------------------------------------------------

PERM = {"group": "permutation"}


def mlp_sizes(mean, blocks):
    """(d₀, n, d₂) of the one-hidden-layer MLP whose unit blocks `blocks` are: row j holds W₁[j, :],
    b₁[j], W₂[:, j]; the d₂ output biases are the coordinates in no block."""
    n, p = blocks.shape
    d2 = mean.size - n * p
    return p - 1 - d2, n, d2


def unit_logs(z, mean, var, blocks, move_outgoing=True):
    """log q*(τ·z) for all n! unit permutations τ, written as a user would, in MLP terms: unpack z,
    permute the rows of W₁, the entries of b₁ and (unless `move_outgoing` is False, a planted bug)
    the columns of W₂, flatten again."""
    d0, n, d2 = mlp_sizes(mean, blocks)
    W1, W2 = z[:, :n * d0].reshape(-1, n, d0), z[:, n * d0:n * (d0 + d2)].reshape(-1, d2, n)
    b1, b2 = z[:, n * (d0 + d2):n * (d0 + d2 + 1)], z[:, n * (d0 + d2 + 1):]
    logs = []
    for tau in itertools.permutations(range(n)):
        t = list(tau)
        W2t = W2[:, :, t] if move_outgoing else W2
        x = np.concatenate([W1[:, t].reshape(len(z), -1), W2t.reshape(len(z), -1), b1[:, t], b2], axis=1)
        logs.append(-0.5 * np.sum((x - mean) ** 2 / var + np.log(2 * np.pi * var), axis=1))
    return np.stack(logs, axis=1)


def perm_logq(z, mean, var, blocks):
    """log q̃ by a max-shifted log-sum-exp over the n! permutations (SciPy)."""
    return logsumexp(unit_logs(z, mean, var, blocks), axis=1) - math.lgamma(blocks.shape[0] + 1)


def perm_logq_over_n(z, mean, var, blocks):
    """Planted: the mixture divided by n instead of n! (the wrong |G|)."""
    return logsumexp(unit_logs(z, mean, var, blocks), axis=1) - math.log(blocks.shape[0])


def perm_logq_w2_fixed(z, mean, var, blocks):
    """Planted: the outgoing weights W₂[:, j] stay when unit j moves."""
    return logsumexp(unit_logs(z, mean, var, blocks, move_outgoing=False), axis=1) - math.lgamma(blocks.shape[0] + 1)


def perm_logq_no_shift(z, mean, var, blocks):
    """Planted: log Σ exp without the max shift (exp overflows where log q* > 709)."""
    with np.errstate(over="ignore"):
        return np.log(np.sum(np.exp(unit_logs(z, mean, var, blocks)), axis=1)) - math.lgamma(blocks.shape[0] + 1)


def perm_logq_symcheck(z, mean, var, blocks):
    """symcheck's own kernel: MLPPermutation's log-space permanent (a third route)."""
    d0, n, d2 = mlp_sizes(mean, blocks)
    return MLPPermutation((d0, n, d2)).symmetrized_logpdf(z, mean, var)


def perm_mc(seed, logq=perm_logq, n=4000):
    """A plain Monte Carlo KL estimator E_q*[log q*(z) − log q̃(z)] with its sample SE (draws in chunks of 10⁴)."""
    rng = np.random.default_rng(seed)

    def estimate(mean, var, blocks):
        vals = []
        for size in [10_000] * (n // 10_000) + [n % 10_000] * (n % 10_000 > 0):
            z = mean + np.sqrt(var) * rng.standard_normal((size, mean.size))
            vals.append(gaussian_logpdf(z, mean, var) - logq(z, mean, var, blocks))
        vals = np.concatenate(vals)
        return vals.mean(), vals.std(ddof=1) / math.sqrt(n)
    return estimate


@pytest.mark.parametrize("seed", range(5))
def test_permutation_log_qtilde_by_two_routes_passes(seed):
    """Brute force in MLP terms (SciPy logsumexp) and symcheck's permanent, against mpmath's n! sums."""
    for subject in (perm_logq, perm_logq_symcheck):
        result = check_symmetrized_kl(subject, quantity="log_qtilde", rtol=1e-12, seed=seed, **PERM)
        assert result, result.table()
    assert {r.name.split(" ")[0] for r in result.rows} == {"n=2", "n=3", "n=4"}


@pytest.mark.parametrize("seed", range(5))
def test_permutation_mc_kl_passes(seed):
    """A plain estimator in MLP terms, and symcheck's `symmetrization_gap` (the permanent route)."""
    result = check_symmetrized_kl(perm_mc(2000 + seed), estimator="mc", seed=seed, **PERM)
    assert result, result.table()
    rng = np.random.default_rng(2100 + seed)
    own = lambda m, v, b: symmetrization_gap(m, v, MLPPermutation(mlp_sizes(m, b)), rng, 4000)  # noqa: E731
    result = check_symmetrized_kl(own, estimator="mc", seed=seed, **PERM)
    assert result, result.table()


def test_permutation_exact_kl_is_judged_within_the_reference_se():
    """An 'exact' subject (a plain Monte Carlo mean over 10⁵ draws, SE 0.6–1.2 SE_ref) passes at 4.5·SE_ref;
    0.05 off (≥ 2.5 times the largest 4.5·SE_ref) fails every family."""
    plain, values = perm_mc(11, n=100_000), {}

    def kl(mean, var, blocks):  # one estimate per family, reused by the biased subject
        key = mean.tobytes()
        if key not in values:
            values[key] = plain(mean, var, blocks)[0]
        return values[key]
    result = check_symmetrized_kl(kl, **PERM)
    assert result, result.table()
    assert "4.5·SE_ref" in result.criterion
    biased = check_symmetrized_kl(lambda m, v, b: kl(m, v, b) + 0.05, **PERM)
    assert len(biased.failures) == len(result.rows), biased.table()


def test_permutation_planted_bugs_fail():
    over_n = check_symmetrized_kl(perm_logq_over_n, quantity="log_qtilde", **PERM)
    assert {r.name.split(" ")[0] for r in over_n.failures} == {"n=3", "n=4"}, over_n.table()  # 2 = 2!
    w2 = check_symmetrized_kl(perm_logq_w2_fixed, quantity="log_qtilde", **PERM)
    assert len(w2.failures) == len(w2.rows), w2.table()
    for options, subject in (({"quantity": "log_qtilde"}, perm_logq_no_shift),
                             ({"estimator": "mc"}, perm_mc(7, logq=perm_logq_no_shift))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the subject's own overflow
            result = check_symmetrized_kl(subject, **options, **PERM)
        assert [r.name for r in result.failures] == ["n=3 (MLP 3-3-2, D=20), narrow, δ²=1"], result.table()
        assert "returned" in result.reproducer
    mc_over_n = check_symmetrized_kl(perm_mc(8, logq=perm_logq_over_n), estimator="mc", **PERM)
    assert {r.name.split(" ")[0] for r in mc_over_n.failures} == {"n=3", "n=4"}, mc_over_n.table()


def test_permutation_understated_se_is_caught():
    """An SE ÷ 3 judges each family at 4.5/3 = 1.5 of the estimate's actual SE, so one check catches it
    with probability ≤ 1 − 0.87⁷ = 0.63; measured for a 1000-draw estimator: 0.55 per check over seeds 0-399
    (module notes of `symcheck.testing.symmetrized`), so it escapes all of seeds 0-4 with probability
    0.45⁵ ≈ 0.02. The seeds are fixed, so this test is deterministic."""
    def understated(seed):
        honest = perm_mc(seed, n=1000)
        return lambda m, v, b: (lambda e: (e[0], e[1] / 3))(honest(m, v, b))
    caught = [not check_symmetrized_kl(understated(3000 + s), estimator="mc", seed=s, **PERM) for s in range(5)]
    assert any(caught), caught
    assert all(check_symmetrized_kl(perm_mc(3000 + s, n=1000), estimator="mc", seed=s, **PERM) for s in range(5))


def test_permutation_reproducer_runs_as_printed():
    result = check_symmetrized_kl(perm_logq_over_n, quantity="log_qtilde", **PERM)
    assert "blocks = np.array([[" in result.reproducer and "print(fn(z, mean, var, blocks))" in result.reproducer
    exec(compile(result.reproducer, "reproducer", "exec"), {})  # noqa: S102 - our own generated text


def test_permutation_kl_reference_meets_its_limits():
    """q* fixed by every permutation: KL = 0; orbits far apart (δ² = 400): KL = log n! − O(e^{−δ²/8});
    unit means equal but unit variances not: KL > 0 (a fixed mean alone does not make q* invariant)."""
    rng = np.random.default_rng(0)
    for layout in ((2, 2, 1), (3, 3, 2), (4, 4, 2)):
        mean, var, blocks = symmetrized._permutation_base(layout, "separated", 1.0, rng)
        coincide = mean.copy(), var.copy()
        for a in coincide:
            a[blocks] = a[blocks[0]]
        ref, err, se = symmetrized._permutation_kl_reference(*coincide, blocks, rng, 20_000)
        assert abs(ref) <= err + 4.5 * se and err < 1e-10, (ref, err, se)
        log_order = math.lgamma(layout[1] + 1)
        far = symmetrized._permutation_base(layout, "separated", 400.0, rng)
        ref, err, se = symmetrized._permutation_kl_reference(*far, rng, 20_000)
        assert abs(ref - log_order) <= err + 4.5 * se + 1e-12, (ref - log_order, err, se)
        mixed = coincide[0], var * np.where(np.isin(np.arange(var.size), blocks[0]), 2.0, 1.0)
        ref, err, se = symmetrized._permutation_kl_reference(*mixed, blocks, rng, 20_000)
        assert ref > 0.05 and ref - 4.5 * se > 0, (ref, se)


def test_permutation_reference_rounding_bound_holds():
    """The float64 r(z) = log q*(z) − log q̃(z) of the KL reference is within its derived bound of the
    mpmath value (30 digits, the n! terms written out), in every family, the narrow one included."""
    rng = np.random.default_rng(5)
    for layout, kind, target in symmetrized.PERMUTATION_FAMILIES:
        mean, var, blocks = symmetrized._permutation_base(layout, kind, target, rng)
        z = mean + np.sqrt(var) * rng.standard_normal((4, mean.size))
        r, _, bound = symmetrized._permutation_r(z, mean, var, blocks)
        logq = symmetrized._permutation_logq_mp(z, mean, var, blocks)
        with mpmath.workdps(30):
            for row, value, b, lq in zip(z, r, bound, logq):
                logp = -mpmath.fsum((mpmath.mpf(float(x)) - mpmath.mpf(float(m))) ** 2 / mpmath.mpf(float(v))
                                    + mpmath.log(2 * mpmath.pi * mpmath.mpf(float(v)))
                                    for x, m, v in zip(row, mean, var)) / 2
                error = abs(mpmath.mpf(float(value)) - (logp - lq))
                assert error <= b and b < 1e-10, (kind, float(error), b)
