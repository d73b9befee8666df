"""Claims of Gelberg et al., *Permutation Invariant Posteriors for BNNs*: Eq. (4), Thm. 4.1,
Cor. 4.2, Thm. 4.3 (the InfoNCE entropy bound H^K), Sec. 4 estimators, App. E (Sec. 3 and
Thm. 3.1 are in :mod:`symcheck.claims.gelberg_modes`).

Independent routes: exact expectations of H^K for the sign-flip group (binomial sum +
1-D quadrature), brute-force enumeration over all K-tuples of group elements, the evidence
of the two-weight ReLU network by 1-D and 2-D quadrature, and direct 1-D quadrature of
differential entropies. Monte Carlo comparisons use z = z_for_alpha() standard errors.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from scipy import integrate
from scipy.special import logsumexp

from symcheck._mc import mean_se
from symcheck.claims import (Claim, all_of, bound_from_rows, erratum_from_rows, evidence_from_rows, register,
                             z_for_alpha)
from symcheck.gaussian import entropy_gaussian, gaussian_logpdf, sample_gaussian
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.models.gelberg_bnn import TwoReLUNet
from symcheck.signflip_exact import signflip_chi2_1d, signflip_gap_1d, signflip_infonce_expectation_1d
from symcheck.symmetrize import chi2_to_symmetrized, elbo, elbo_infonce, sample_symmetrized, symmetrization_gap

Z = z_for_alpha()
#: float budget of the 1-D adaptive quadratures (epsrel 1e-13 on O(10) values, a few hundred panels)
QUAD_TOL = 1e-10

_SRC43 = "Gelberg et al., Thm. 4.3 (App. E proof)"


# ----- Thm. 4.3 on the sign-flip group, exact expectations --------------------------------

_S_CASES = (0.25, 1.0, 4.0)  # s = μᵀΣ⁻¹μ: overlapping, intermediate, nearly separated modes
_KS = tuple(range(1, 33)) + (48, 64, 128)


def _exact_hk_minus_h(s):
    """(E[H^K] − H(q̃)) for K in _KS, whole-point sign flip (q* with μᵀΣ⁻¹μ = s)."""
    gap = signflip_gap_1d(s)
    return np.array([signflip_infonce_expectation_1d(s, K) - gap for K in _KS])


def _check_upper_bound(rng):
    rows = [(f"s={s}, K={K}", d, 0.0, QUAD_TOL) for s in _S_CASES for K, d in zip(_KS, _exact_hk_minus_h(s))]
    return bound_from_rows(rows, "E[H^K] − H(q̃) ≤ 0, both sides by 1-D quadrature (binomial sum over the number of "
                                 "flips among the K−1 elements)", "upper", {"s": list(_S_CASES), "K_max": _KS[-1]})


register(Claim(
    id="gelberg.thm43.upper-bound",
    source=_SRC43,
    statement="E[H^K] ≤ H(q^G) for every K (sign-flip group, exact expectations).",
    check=_check_upper_bound,
))


def _check_monotone(rng):
    rows = [(f"s={s}, K={K}→{K2}", d, 0.0, 2 * QUAD_TOL) for s in _S_CASES
            for K, K2, d in zip(_KS, _KS[1:], np.diff(_exact_hk_minus_h(s)))]
    return bound_from_rows(rows, "E[H^(K')] − E[H^K] ≥ 0 for consecutive K (exact expectations, 1-D quadrature; "
                                 "tolerance twice the quadrature budget)", "lower", {"s": list(_S_CASES)})


register(Claim(
    id="gelberg.thm43.monotone-in-K",
    source=_SRC43,
    statement="E[H^K] is non-decreasing in K (sign-flip group, exact expectations, K = 1..128).",
    check=_check_monotone,
))


def _check_bias_law(rng):
    # K·bias = c + d/K + O(K⁻²); Richardson c_R(K) = 2·(2K)b(2K) − K b(K) = c + O(K⁻²).
    # Tolerance: |c_R(400) − c_R(200)| (the Richardson error estimate; the O(K⁻²) term at 400
    # is ≈ a quarter of it) plus quadrature error amplified by 2K.
    s = 1.0
    gap = signflip_gap_1d(s)
    chi2 = signflip_chi2_1d(s)
    b = {K: gap - signflip_infonce_expectation_1d(s, K) for K in (200, 400, 800)}
    cR = {K: 2 * (2 * K) * b[2 * K] - K * b[K] for K in (200, 400)}
    tol = abs(cR[400] - cR[200]) + 4 * 800 * QUAD_TOL
    return evidence_from_rows([("s = μ²/σ² = 1", cR[400], chi2 / 2, tol)],
                              f"Richardson limit of K·bias (K·bias at K=200,400,800 = {200*b[200]:.6f}, {400*b[400]:.6f}, "
                              f"{800*b[800]:.6f}) vs χ²(q*‖q̃)/2, χ² by quadrature of E[2σ(2t)] − 1",
                              {"s": s, "K": [200, 400, 800]})


register(Claim(
    id="gelberg.thm43.bias-law",
    source="Derived here from Gelberg et al., Thm. 4.3: H(q^G) − E[H^K] = χ²(q‖q^G)/(2K) + O(K⁻²)",
    statement="The bias of H^K decays as χ²(q‖q^G)/(2K), with χ² = E_q[q/q^G] − 1; hence H^K → H(q^G).",
    check=_check_bias_law,
))


# ----- Thm. 4.3 on an MLP permutation group, brute force over all K-tuples ---------------


def _check_mlp_bound_bruteforce(rng):
    # For each ω ~ q, E_{g's}[log m_K(ω)] is computed exactly by enumerating all |G|^{K−1}
    # tuples; D(ω) = log q^G(ω) − E_g log m_K(ω) has mean H^K − H(q^G) (≤ 0 by Thm. 4.3).
    G = MLPPermutation([1, 3, 1])  # |G| = 6, D = 10
    mean = rng.normal(size=G.dim)
    var = np.full(G.dim, 0.3)
    els = G.elements()
    n = 600
    w = sample_gaussian(mean, var, rng, n)
    l_all = gaussian_logpdf(G.act(els, w[:, None, :]), mean, var)  # (n, |G|): log q(g·ω)
    l_id = l_all[:, 0]
    log_qg = logsumexp(l_all, axis=1) - G.log_order()
    rows = []
    for K in (2, 3, 4):
        acc = np.zeros(n)
        tuples = list(itertools.product(range(els.shape[0]), repeat=K - 1))
        for t in tuples:
            acc += logsumexp(np.concatenate([l_id[:, None], l_all[:, list(t)]], axis=1), axis=1) - math.log(K)
        D = log_qg - acc / len(tuples)
        m, se = float(D.mean()), float(D.std(ddof=1) / math.sqrt(n))
        rows.append((f"K={K}, SE {se:.1e}", m, 0.0, Z * se))
    return bound_from_rows(rows, "MLP 1-3-1 (|G| = 6): E[H^K] − H(q^G) (exact over g-tuples, MC over ω, common ω) vs 0; "
                                 "no significant violation (z·SE)", params={"layer_sizes": [1, 3, 1], "n": n})


register(Claim(
    id="gelberg.thm43.upper-bound-mlp",
    source=_SRC43,
    statement="H^K ≤ H(q^G) for an MLP permutation group (all K-tuples enumerated, K = 2, 3, 4).",
    check=_check_mlp_bound_bruteforce,
))


# ----- Eq. (4): sampling interpretation ------------------------------------------------


def _check_sampling(rng):
    # E_{ω ~ q^G}[q(ω)/q^G(ω)] = 1 for the density q^G of Eq. (4); ratio ∈ [0, |G|] has finite variance.
    G = MLPPermutation([2, 3, 1])
    mean, var = rng.normal(size=G.dim), rng.uniform(0.2, 0.6, size=G.dim)
    z = sample_symmetrized(mean, var, G, rng, 20000)
    r = np.exp(gaussian_logpdf(z, mean, var) - G.symmetrized_logpdf(z, mean, var))
    m, se = float(r.mean()), float(r.std(ddof=1) / math.sqrt(r.size))
    return evidence_from_rows([(f"MLP 2-3-1, SE {se:.1e}", m, 1.0, Z * se)],
                              "mean of q/q^G over 20000 draws g·ω, ω ~ q, vs 1 (tolerance z·SE)")


register(Claim(
    id="gelberg.eq4.sampling",
    source="Gelberg et al., Eq. (4) and Sec. 4 (q^G = E_g[g_# q])",
    statement="ω = g·ω', ω' ~ q, g ~ uniform(G) has density q^G(ω) = (1/|G|) Σ_g q(g⁻¹·ω).",
    check=_check_sampling,
))


# ----- Thm. 4.1, Cor. 4.2 and the ELBO chain on the tractable BNN ------------------------


def _bnn():
    """Sec. 5 setting, scaled down: α = 0.2, N = 20 points, noise sd 0.5, prior N(0, 1)."""
    return TwoReLUNet.synthetic(0.2, 20, np.random.default_rng(5), noise_sd=0.5, prior_sd=1.0)


def _check_thm41(rng):
    model = _bnn()
    G = model.group
    mean, var = np.array([0.15, -0.1]), np.array([0.08, 0.05]) ** 2
    n = 20000
    # route 1 (Eq. (12), definition): E_{ω' ~ q^G}[log p(Y, ω') − log q^G(ω')], ω' = g·ω (Eq. (4)
    # sampling); route 2 (Eq. (5)): L_VI = E_q[log p(Y, ω) − log q(ω)] on the same ω (common random
    # numbers: the log-joint, whose SE is ~0.08, cancels in the paired difference exactly when the
    # model is G-invariant, as the theorem assumes), plus I(g; ω) = H(q^G) − H(q) on independent draws
    w = sample_gaussian(mean, var, rng, n)
    wg = G.act(G.sample(rng, n), w)
    v1 = model.log_joint(wg) - G.symmetrized_logpdf(wg, mean, var)
    v2 = model.log_joint(w) - gaussian_logpdf(w, mean, var)
    lg, se1 = mean_se(v1)
    L, se2 = mean_se(v2)
    d, se_d = mean_se(v1 - v2)
    gap, se3 = symmetrization_gap(mean, var, G, rng, n)
    return evidence_from_rows([(f"paired SE {se_d:.1e}, I SE {se3:.1e}", d, gap, Z * math.hypot(se_d, se3))],
                              f"two-ReLU BNN: paired L^G − L_VI (L^G by sampling q^G = {lg:.5f} ± {se1:.5f}, L_VI = "
                              f"{L:.5f} ± {se2:.5f}) vs I(g;ω)")


register(Claim(
    id="gelberg.thm41.identity",
    source="Gelberg et al., Thm. 4.1, Eq. (5) (App. D)",
    statement="L^G_VI = L_VI + H(q^G) − H(q) = L_VI + I(g; ω).",
    check=_check_thm41,
))


def _check_cor42(rng):
    model = _bnn()
    G = model.group
    n = 20000
    # non-invariant q: gap > 0 (the evidence)
    gap, se = symmetrization_gap(np.array([0.2, -0.2]), np.array([0.2, 0.2]) ** 2, G, rng, n)
    # invariant q (equal means and variances in both coordinates): q^G = q pointwise, so the gap is 0
    # up to rounding — an identity of the construction, reported but not counted as evidence
    inv_gap, _ = symmetrization_gap(np.array([0.1, 0.1]), np.array([0.01, 0.01]), G, rng, n)
    return bound_from_rows([(f"non-invariant q, SE {se:.1e}", gap, 0.0, Z * se)],
                           f"L^G − L vs 0 (z·SE); invariant q: L^G − L = {inv_gap:.3e} (q^G = q identically: by "
                           "construction, not counted)", "lower", strict=True)


register(Claim(
    id="gelberg.cor42.equality-iff-invariant",
    source="Gelberg et al., Cor. 4.2, Eqs. (6)–(7)",
    statement=("L^G_VI ≥ L_VI, strictly for a q that is not G-invariant (equality for invariant q is the identity "
               "q^G = q)."),
    check=_check_cor42,
))


@functools.lru_cache(maxsize=4)
def _bnn_evidence(route) -> tuple[float, float]:
    """log p(Y|X) of `_bnn` by the 1-D and the 2-D quadrature (0.7 s, the same at every seed: computed once per
    process). ``route`` is the method that computes them, so a patched method (a planted error) is a new key."""
    model = _bnn()
    return route(model, "1d"), route(model, "2d")


def _check_elbo_chain(rng):
    model = _bnn()
    G = model.group
    logp, logp2 = _bnn_evidence(TwoReLUNet.log_evidence)
    mean, var = np.array([0.2, -0.2]), np.array([0.03, 0.03]) ** 2
    n = 20000
    L, sL = elbo(model.log_joint, mean, var, n, rng)
    gap, sgap = symmetrization_gap(mean, var, G, rng, n)
    LG, sG = L + gap, math.hypot(sL, sgap)
    LK, sK = elbo_infonce(model.log_joint, mean, var, G, 2, n, rng)
    # the chain is on expectations; each estimate may exceed its neighbour by z·SE
    chain = [("L_VI vs L^K (K=2)", L, LK, Z * math.hypot(sL, sK)), ("L^K vs L^G", LK, LG, Z * math.hypot(sK, sG)),
             ("L^G vs log p(Y|X)", LG, logp, Z * sG)]
    # L^K − L = Ĥ^K − H(q) must itself be > 0 here (separated modes): strictness has power
    return all_of([bound_from_rows(chain, "each estimate vs the next in the chain"),
                   evidence_from_rows([("log p(Y|X)", logp, logp2, 1e-8 * max(1.0, abs(logp)))],
                                      "1-D vs 2-D quadrature of the evidence")],
                  "two-ReLU BNN (α = 0.2, N = 20)", {"alpha": 0.2, "N": 20, "noise_sd": 0.5})


register(Claim(
    id="gelberg.thm43.elbo-chain",
    source="Gelberg et al., Thm. 4.1, Thm. 4.3 and Sec. 4 (L^K_VI ≤ L^G_VI), tractable BNN of Sec. 5",
    statement="L_VI ≤ L^K_VI ≤ L^G_VI ≤ log p(Y|X) on the two-weight ReLU network (evidence by quadrature).",
    check=_check_elbo_chain,
))


# ----- Errata -----------------------------------------------------------------------------


def _check_elbo_hat_sign(rng):
    model = _bnn()
    logp = model.log_evidence("1d")
    mean, var = np.array([0.2, -0.2]), np.array([0.03, 0.03]) ** 2
    S = 20000
    w = sample_gaussian(mean, var, rng, S)
    ll = model.log_likelihood(w)
    sp2 = model.prior_sd**2
    kl = float(0.5 * np.sum(var / sp2 + mean**2 / sp2 - 1 - np.log(var / sp2)))  # KL(q‖prior), closed form
    se = float(ll.std(ddof=1) / math.sqrt(S))
    printed = float(ll.mean()) + kl  # N/M = 1 (full batch)
    corrected = float(ll.mean()) - kl
    # independent: Moore eq. (2) form E_q[log p(Y, ω)] + H(q), fresh draws
    L2, se2 = elbo(model.log_joint, mean, var, S, rng)
    return all_of([bound_from_rows([("printed (+KL)", printed, logp, Z * se)],
                                   "printed estimate vs log p(Y|X): above it, impossible for an ELBO", "lower", strict=True),
                   bound_from_rows([("corrected (−KL)", corrected, logp, Z * se)], "corrected estimate vs log p(Y|X)"),
                   evidence_from_rows([("corrected (−KL)", corrected, L2, Z * math.hypot(se, se2))],
                                      "corrected estimate vs E_q[log p(Y,ω)] + H(q) (fresh draws)")],
                  f"two-ReLU BNN, q at a mode, KL(q‖p) = {kl:.4f} closed form", corrected=corrected)


register(Claim(
    id="gelberg.sec4.elbo-hat-sign",
    source="Gelberg et al., Sec. 4 (estimator of L_VI)",
    statement="The Monte Carlo estimator of L_VI subtracts the prior KL term.",
    kind="erratum",
    printed_form=r"\hat L_{VI} = \frac{N}{M}\frac{1}{S}\sum_i \log p(Y_B|X_B,\omega_i) + KL(q_\theta\|p)",
    corrected_form=r"\hat L_{VI} = \frac{N}{M}\frac{1}{S}\sum_i \log p(Y_B|X_B,\omega_i) - KL(q_\theta\|p)",
    check=_check_elbo_hat_sign,
))


def _entropy_1d_quad(f_logpdf, cuts):
    """−∫ f log f over the real line by adaptive quadrature split at ``cuts``."""
    edges = [-np.inf] + sorted(cuts) + [np.inf]
    g = lambda x: (lambda lf: -math.exp(lf) * lf if lf > -745 else 0.0)(f_logpdf(x))  # noqa: E731
    return sum(integrate.quad(g, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0] for a, b in zip(edges[:-1], edges[1:]))


def _check_eq17(rng):
    # 1-D Gaussian q = N(1, 1) mixed over sign flips: joint q^G(g, ω) = q(g⁻¹ω)/2.
    mu, v = 1.0, 1.0
    G = SignFlip()
    m, var = np.array([mu]), np.array([v])
    lq = lambda x: float(G.symmetrized_logpdf(np.array([[x]]), m, var)[0])  # noqa: E731
    # printed E[q(ω|g)/q^G(ω)], two routes: 1 + χ²(q‖q^G) (chi2_to_symmetrized), and the expectation
    # over the joint by direct quadrature, Σ_g ½ ∫ q(g⁻¹ω)²/q^G(ω) dω = ∫ q(ω)²/q^G(ω) dω
    chi2, _ = chi2_to_symmetrized(m, var, G)
    printed = 1.0 + chi2
    lgauss = lambda x: -0.5 * (x - mu) ** 2 / v - 0.5 * math.log(2 * math.pi * v)  # noqa: E731
    printed_quad = sum(integrate.quad(lambda x: math.exp(2 * lgauss(x) - lq(x)), a, b, epsabs=1e-14, epsrel=1e-12,
                                      limit=200)[0] for a, b in ((-np.inf, 0.0), (0.0, mu), (mu, np.inf)))
    corrected, _ = symmetrization_gap(m, var, G)  # E[log q(ω|g)/q^G(ω)]
    # independent: I(g; ω) = H(ω) − H(ω|g) = H(q^G) − H(q), H(q^G) by direct quadrature of −∫ q^G log q^G
    indep = _entropy_1d_quad(lq, [-mu, 0.0, mu]) - entropy_gaussian(var)
    return all_of([erratum_from_rows([("q = N(1, 1), G = sign flip", printed, corrected, indep, QUAD_TOL)],
                                     "printed E[p(x|y)/p(x)] = 1 + χ² / corrected E[log p(x|y)/p(x)] vs H(q^G) − H(q) by "
                                     "direct quadrature"),
                   evidence_from_rows([("printed E[p(x|y)/p(x)]", printed, printed_quad, QUAD_TOL)],
                                      "1 + χ² vs quadrature over the joint")],
                  "(the printed form cannot hold for any q: E[ratio] = 1 + χ² ≥ 1, while I ≤ log 2 for a two-element "
                  "group)")


register(Claim(
    id="gelberg.eq17.mi-definition",
    source="Gelberg et al., App. E, Eq. (17)",
    statement="Mutual information is the expected log density ratio.",
    kind="erratum",
    printed_form=r"I(x;y) = E_{p(x,y)}\left(\frac{p(x|y)}{p(x)}\right)",
    corrected_form=r"I(x;y) = E_{p(x,y)}\left(\log\frac{p(x|y)}{p(x)}\right)",
    check=_check_eq17,
))


def _check_stratified_bound(rng):
    # Stratified H^K (K−1 distinct non-identity elements): E over all (K−1)-subsets enumerated,
    # MC over ω with common ω: D(ω) = log q^G(ω) − E_subsets log m_K(ω), mean ≤ 0; at K = |G| D ≡ 0.
    G = SignFlip((2, 3), blocks="columns")  # |G| = 8
    mean, var = rng.normal(size=(2, 3)) * 0.7, np.full((2, 3), 0.3)
    els = G.elements()
    n = 2000
    w = sample_gaussian(mean, var, rng, n)
    l_all = gaussian_logpdf(G.act(els, w[:, None]), mean, var)  # (n, 8), identity first
    log_qg = logsumexp(l_all, axis=1) - G.log_order()
    rows = []
    for K in (2, 3, 4, 8):
        subsets = list(itertools.combinations(range(1, 8), K - 1))
        acc = np.zeros(n)
        for t in subsets:
            acc += logsumexp(l_all[:, [0, *t]], axis=1) - math.log(K)
        D = log_qg - acc / len(subsets)
        m, se = float(D.mean()), float(D.std(ddof=1) / math.sqrt(n))
        if K < 8:
            rows.append((f"K={K}, SE {se:.1e}", m, 0.0, Z * se))
        else:
            exact_full = float(np.max(np.abs(D)))
    return bound_from_rows(rows, "sign flips of 3 columns (|G| = 8): E[H^K_strat] − H(q^G) (all subsets, MC over ω) vs 0 "
                                 f"(z·SE); at K = |G| max |D(ω)| = {exact_full:.2e} (the estimator is then log q^G itself: "
                                 "by construction, not counted)")


register(Claim(
    id="gelberg.thm43.stratified-bound",
    source="Variance reduction suggested in Gelberg et al., Sec. 5 (stratified sampling); bound proved here as in App. E",
    statement=("H^K with K−1 distinct non-identity elements (without replacement) is still ≤ H(q^G) (K = 2, 3, 4 of "
               "|G| = 8; at K = |G| it is H(q^G) by construction)."),
    check=_check_stratified_bound,
))
