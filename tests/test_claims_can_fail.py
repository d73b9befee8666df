"""Planted wrong formulas: every claim module's checks must notice them.

Each test monkeypatches the function a claim checks — a printed term times a factor, a flipped
sign, an off-by-one order, a dropped factor, a wrong group action — and asserts that the claim's
status changes ("holds" → "fails", "erratum" → "fails"). A check that cannot be made to fail by
a plausible wrong formula is not evidence. The unpatched claims are run by ``test_claims.py``.
"""

import math

import mpmath
import numpy as np
import pytest

import symcheck.claims.gelberg as gelberg
import symcheck.claims.gelberg_modes as gelberg_modes
import symcheck.claims.louizos as louizos
import symcheck.claims.hyp0f1_series as hyp0f1_series
import symcheck.claims.moore_elbo as moore_elbo
import symcheck.claims.moore_laplace as moore_laplace
import symcheck.claims.moore_orthogonal as moore_orthogonal
import symcheck.claims.moore_signflip as moore_signflip
import symcheck.claims.turner_fa as turner_fa
import symcheck.claims.turner_factored as turner_factored
import symcheck.models.gelberg as gelberg_eqs
import symcheck.models.gelberg_interpolation as gelberg_interpolation
import symcheck.models.louizos as lw_model
import symcheck.models.moore_scalar as moore_scalar
import symcheck.models.turner_fa as fa_model
import symcheck.models.turner_factored as tbs
import symcheck.models.turner_ica as ica_model
import symcheck.models.turner_lds as lds_model
import symcheck.signflip_exact as signflip_exact
from symcheck.claims import get_claim
from symcheck.gaussian import gaussian_logpdf
from symcheck.groups import MLPPermutation, SignFlip
from symcheck.hyp0f1 import closed_form, log_hyp0f1, series
from symcheck.models.gelberg_bnn import TwoReLUNet


def assert_fails(claim_id):
    result = get_claim(claim_id).run()
    assert result.status == "fails", f"{claim_id} still reports {result.status!r} with a planted error:\n{result.detail}"


def scaled(fn, factor):
    """``fn`` with its result multiplied by ``factor``."""
    return lambda *a, **kw: fn(*a, **kw) * factor


def scaled_estimate(fn, factor):
    """``fn`` returning (estimate, standard error) with the estimate multiplied by ``factor``."""

    def planted(*a, **kw):
        value, se = fn(*a, **kw)
        return value * factor, se

    return planted


@pytest.fixture
def fresh_signflip_optima():
    """moore_signflip caches its optima per (objective, r): clear around a planted objective."""
    moore_signflip._maximise.cache_clear()
    yield
    moore_signflip._maximise.cache_clear()


# ----- Gelberg, Sec. 3 / Thm. 3.1 / App. B -------------------------------------------------


def test_thm31_catches_wrong_sharp_constant(monkeypatch):
    # 2/√d_h instead of 2/√(d_h − 1): the simplex exceeds it
    monkeypatch.setattr(gelberg_modes, "_sharp", lambda dh: 2.0 / math.sqrt(dh))
    assert_fails("gelberg.thm31.closest-equivalent-mode")


def test_thm31_catches_action_that_leaves_outgoing_weights(monkeypatch):
    # a "permutation" that moves rows of W₁ and b₁ but not the columns of W₂
    class Incoming(MLPPermutation):
        def act(self, g, z):
            out = super().act(g, z)
            di, dh, do = self.layer_sizes
            w2 = slice(di * dh, di * dh + dh * do)
            out[..., w2] = np.broadcast_to(z, out.shape)[..., w2]
            return out

    monkeypatch.setattr(gelberg_modes, "MLPPermutation", Incoming)
    assert_fails("gelberg.thm31.closest-equivalent-mode")


def test_thm31_catches_a_bound_faster_than_the_truth(monkeypatch):
    # an O((d_i + d_o)/d_h) bound instead of O((d_i + d_o)/log d_h): below the sharp value for wide layers
    monkeypatch.setattr(gelberg_modes, "_two_r", lambda di, do, dh: 2 * (di + do + 1) / dh)
    assert_fails("gelberg.thm31.closest-equivalent-mode")


def test_eq11_catches_corrected_radius_without_its_factor_two(monkeypatch):
    monkeypatch.setattr(gelberg_eqs, "eq11_radius_corrected", lambda di, do, dh: 2 * (di + do + 1 + do / dh) / math.log(dh / 2))
    assert_fails("gelberg.eq11.radius")


def test_mode_seeking_threshold_catches_halved_entropy_gradient(monkeypatch):
    # d/d log s of −H(q) is −1; with −½ (entropy of s instead of s²) the fit and its threshold move
    original = gelberg_interpolation.interpolation_kl

    def planted(p, a, sigma):
        kl, grad = original(p, a, sigma)
        return kl, grad + np.array([0.0, 0.5])

    monkeypatch.setattr(gelberg_interpolation, "interpolation_kl", planted)
    assert_fails("gelberg.sec3.mode-seeking-threshold")


# ----- Gelberg, Sec. 4 / App. D–E ----------------------------------------------------------


def test_thm41_catches_wrong_mutual_information(monkeypatch):
    monkeypatch.setattr(gelberg, "symmetrization_gap", scaled_estimate(gelberg.symmetrization_gap, 1.2))
    assert_fails("gelberg.thm41.identity")


def test_thm41_catches_a_likelihood_that_is_not_invariant(monkeypatch):
    # Thm. 4.1 needs a G-invariant model: a tilt 2·w₁ of the log joint breaks it
    original = TwoReLUNet.log_joint
    monkeypatch.setattr(TwoReLUNet, "log_joint", lambda self, w: original(self, w) + 2.0 * np.asarray(w)[..., 0])
    assert_fails("gelberg.thm41.identity")


def test_eq17_catches_wrong_corrected_mutual_information(monkeypatch):
    monkeypatch.setattr(gelberg, "symmetrization_gap", scaled_estimate(gelberg.symmetrization_gap, 1.001))
    assert_fails("gelberg.eq17.mi-definition")


@pytest.mark.parametrize("group, claim_id", [(MLPPermutation, "gelberg.thm43.upper-bound-mlp"),
                                             (SignFlip, "gelberg.thm43.stratified-bound")])
def test_entropy_bounds_catch_q_g_summed_instead_of_averaged(monkeypatch, group, claim_id):
    # log q^G without the − log|G|: H^K lies above H(q^G) by about log|G|
    monkeypatch.setattr(group, "log_order", lambda self: 0.0)
    assert_fails(claim_id)


def test_eq4_sampling_catches_draws_without_the_group_action(monkeypatch):
    # ω ~ q instead of g·ω: E[q/q^G] = 1 + χ²(q‖q^G) > 1
    monkeypatch.setattr(gelberg, "sample_symmetrized", lambda mean, var, G, rng, n: gelberg.sample_gaussian(mean, var, rng, n))
    assert_fails("gelberg.eq4.sampling")


def test_cor42_catches_a_vanishing_gap(monkeypatch):
    monkeypatch.setattr(gelberg, "symmetrization_gap", scaled_estimate(gelberg.symmetrization_gap, 0.0))
    assert_fails("gelberg.cor42.equality-iff-invariant")


def test_elbo_chain_catches_l_k_above_l_g(monkeypatch):
    # L^K 10% less negative: above L^G by far more than z·SE
    monkeypatch.setattr(gelberg, "elbo_infonce", scaled_estimate(gelberg.elbo_infonce, 0.9))
    assert_fails("gelberg.thm43.elbo-chain")


def test_elbo_hat_sign_catches_a_wrong_independent_elbo(monkeypatch):
    # E_q[log p(Y, ω)] + H(q) off by 1%: the corrected estimator no longer matches it
    monkeypatch.setattr(gelberg, "elbo", scaled_estimate(gelberg.elbo, 1.01))
    assert_fails("gelberg.sec4.elbo-hat-sign")


# ----- ₀F₁ series and reference --------------------------------------------------------


def test_series_closed_forms_catch_early_truncation(monkeypatch):
    # the series stopped three degrees early while reporting the bound of the full degree
    original = series.log_hyp0f1_series

    def planted(sig, k, *args, **kwargs):
        val, bound = original(sig, k, *args, **kwargs)
        flat = np.asarray(sig, dtype=float).reshape(-1, k)
        deg = series.series_degree_needed(flat, k, 1e-14)
        short = np.array([series.log_hyp0f1_series_truncated(row, k, max(int(d) - 3, 0))[0] for row, d in zip(flat, deg)])
        return short.reshape(np.shape(val)), bound

    monkeypatch.setattr(series, "log_hyp0f1_series", planted)
    assert_fails("hyp0f1.series.closed-forms")


def test_reference_closed_forms_catch_wrong_bessel_order(monkeypatch):
    # rank-one closed form with I_{k/2} instead of I_{k/2−1}
    original = hyp0f1_series.closed_form_mp

    def planted(sig, k):
        if k <= 2:
            return original(sig, k)
        t, nu = mpmath.mpf(float(max(sig))), mpmath.mpf(k) / 2
        return mpmath.gamma(mpmath.mpf(k) / 2) * (t / 2) ** (-nu + 1) * mpmath.besseli(nu, t)

    monkeypatch.setattr(hyp0f1_series, "closed_form_mp", planted)
    assert_fails("hyp0f1.series.reference-closed-forms")


@pytest.mark.parametrize("claim_id", ["hyp0f1.series.vs-reference", "hyp0f1.series.vs-reference-large-k"])
def test_series_vs_reference_catches_a_1e10_offset(monkeypatch, claim_id):
    original = series.log_hyp0f1_series
    monkeypatch.setattr(series, "log_hyp0f1_series",
                        lambda sig, k, *a, **kw: (lambda v, b: (v + 1e-10, b))(*original(sig, k, *a, **kw)))
    assert_fails(claim_id)


@pytest.mark.parametrize("claim_id", ["hyp0f1.series.reference-o3-quadrature", "hyp0f1.series.truncation-bound"])
def test_reference_checks_catch_a_reference_at_a_shifted_argument(monkeypatch, claim_id):
    original = hyp0f1_series.hyp0f1_reference
    monkeypatch.setattr(hyp0f1_series, "hyp0f1_reference",
                        lambda sig, k, dps: original(1.001 * np.asarray(sig, dtype=float), k, dps=dps))
    assert_fails(claim_id)


def test_truncation_bound_catches_a_moment_constant_10_percent_small(monkeypatch):
    # c = 0.9·σ_max²/2 in the moment bound: below the true tail of k equal σ (Bessel determinants)
    original = series.gaussian_proxy
    monkeypatch.setattr(series, "gaussian_proxy", lambda flat: 0.9 * original(flat))
    assert_fails("hyp0f1.series.truncation-bound")


def test_trace_moments_catch_moments_of_the_next_dimension(monkeypatch):
    # Bessel determinants of O(k + 1) in place of O(k): the Gaussian moments would hold one m further
    original = hyp0f1_series.equal_spectrum_mp
    monkeypatch.setattr(hyp0f1_series, "equal_spectrum_mp", lambda s, k: original(s, k + 1))
    assert_fails("hyp0f1.series.trace-moments")


def test_series_gradient_catches_a_1e9_relative_error(monkeypatch):
    monkeypatch.setattr(closed_form, "grad_log_hyp0f1_exact", scaled(closed_form.grad_log_hyp0f1_exact, 1 + 1e-9))
    assert_fails("hyp0f1.series.gradient-closed-forms")


# ----- Moore, Sec. 3.1 (sign flip) ---------------------------------------------------------


def test_kl_modes_catches_gap_without_factor_two_in_the_flip(monkeypatch):
    # log q*(−z) − log q*(z) taken as −t instead of −2t: still log 2 for separated modes, slope s/4 near 0
    monkeypatch.setattr(signflip_exact, "signflip_gap_1d",
                        lambda s: math.log(2.0) + signflip_exact._normal_expectation(lambda t: -np.logaddexp(0.0, -t), s))
    assert_fails("moore.eq5.kl-log-modes")


def test_eq5_bound_catches_subtracted_kl(monkeypatch, fresh_signflip_optima):
    # eq. (5) with − KL instead of + KL: its maximum falls below that of eq. (2) where MFVI leaves the origin
    original = moore_scalar.signflip_gap_1d
    monkeypatch.setattr(moore_scalar, "signflip_gap_1d", lambda s: -original(s))
    assert_fails("moore.eq5.bound")


def test_eq5_two_forms_catches_half_the_kl(monkeypatch):
    # eq. (5) with KL[q*‖q̃]/2: the closed form leaves the MC estimate of eq. (4)
    monkeypatch.setattr(moore_scalar, "signflip_gap_1d", scaled(moore_scalar.signflip_gap_1d, 0.5))
    assert_fails("moore.eq5.two-forms")


def test_footnote_catches_evidence_counted_twice(monkeypatch, fresh_signflip_optima):
    # log p(r) + log 2 (each mode's evidence counted separately): L_MF + log 2 no longer exceeds it
    monkeypatch.setattr(moore_signflip, "log_evidence", lambda r, f=moore_signflip.log_evidence: f(r) + math.log(2))
    assert_fails("moore.fn1.symmetry-counting")


def test_signflip_density_catches_sampling_without_the_flip(monkeypatch):
    # z = z* (no random sign): the samples do not follow the mixture ½(q*(z) + q*(−z))
    monkeypatch.setattr(moore_signflip, "sample_symmetrized",
                        lambda mean, var, G, rng, n: np.asarray(mean) + np.sqrt(var) * rng.standard_normal((n, 1)))
    assert_fails("moore.sec31.signflip-density")


def test_fig3_catches_prior_mean_as_bayes_prediction(monkeypatch, fresh_signflip_optima):
    # E[uv | r] replaced by the prior mean 0: the collapsed MFVI/MAP are then the closer ones
    monkeypatch.setattr(moore_signflip, "bayes_predictive_mean", lambda r: 0.0)
    assert_fails("moore.fig3.predictive-mean")


# ----- Moore, App. A ---------------------------------------------------------------------


def test_exact_at_zero_catches_a_constant_factor(monkeypatch):
    monkeypatch.setattr(moore_laplace, "log_hyp0f1_laplace",
                        lambda sig, k, variant="listing": 0.5 * math.log(2.0) + 0 * np.sum(sig, axis=-1))
    assert_fails("moore.eq7.exact-at-zero")


def test_yhat_catches_listing_equal_to_printed(monkeypatch):
    original = moore_laplace.grad_log_hyp0f1_laplace
    monkeypatch.setattr(moore_laplace, "grad_log_hyp0f1_laplace", lambda sig, k, variant="listing": original(sig, k, "printed"))
    assert_fails("moore.eq7.yhat")


def test_pair_product_catches_corrected_form_equal_to_printed(monkeypatch):
    # the i ≤ j form computed with the ordered-pair product: its log-error grows like the printed one
    original = moore_laplace.log_hyp0f1_laplace
    monkeypatch.setattr(moore_laplace, "log_hyp0f1_laplace", lambda sig, k, variant="listing": original(sig, k, "listing"))
    assert_fails("moore.eq7.pair-product")


def test_svd_gradient_catches_unnormalised_columns(monkeypatch):
    # the gradient (A vᵢ) vᵢᵀ without the division by ‖A vᵢ‖ = σᵢ
    monkeypatch.setattr(moore_laplace.np.linalg, "norm", lambda x, *a, **kw: 1.0)
    assert_fails("moore.appA.svd-gradient")


def test_accuracy_k20_catches_asymptotic_without_its_constant(monkeypatch):
    # the order-1 asymptotic missing its − log 2 term: off the importance-sampling estimate by log 2
    import symcheck.hyp0f1.api as api

    original = api.log_hyp0f1
    monkeypatch.setattr(api, "log_hyp0f1", lambda *a, **kw: original(*a, **kw) + math.log(2))
    assert_fails("moore.eq7.accuracy-k20")


def test_symmetric_base_catches_poster_density(monkeypatch):
    # the poster's general-Σ form (f(T) dropped, A = ½Σ⁻¹(MᵀX + XᵀM)): at M = 0 it gives q̃ = q*, KL = 0
    def poster(X, M, var):
        s = np.broadcast_to(np.asarray(var, dtype=float), (M.shape[-1],))
        A = 0.5 * (np.swapaxes(M, -1, -2) @ X + np.swapaxes(X, -1, -2) @ M) / s[:, None]
        k = A.shape[-1]
        r = np.trace(A, axis1=-2, axis2=-1) - log_hyp0f1(np.linalg.svd(A, compute_uv=False), k)
        return gaussian_logpdf(X, M, np.broadcast_to(s, M.shape)) - r

    monkeypatch.setattr(moore_orthogonal, "orthogonal_logpdf", poster)
    assert_fails("moore.appA.symmetric-base")


def test_symmetrised_a_catches_corrected_equal_to_printed(monkeypatch):
    original = moore_orthogonal.moore_r
    monkeypatch.setattr(moore_orthogonal, "moore_r",
                        lambda X, M, c, form="corrected", **kw: original(X, M, c, form="printed", **kw))
    assert_fails("moore.appA.symmetrised-A")


def test_poster_general_sigma_catches_a_wrong_corrected_density(monkeypatch):
    original = moore_orthogonal.orthogonal_logpdf
    monkeypatch.setattr(moore_orthogonal, "orthogonal_logpdf", lambda x, m, s, **kw: original(x, m, 1.01 * s, **kw))
    assert_fails("moore.appA.poster-general-sigma")


def test_listing1_kl_catches_the_symmetrised_a_in_the_corrected_r(monkeypatch):
    original = moore_orthogonal.moore_r
    monkeypatch.setattr(moore_orthogonal, "moore_r",
                        lambda X, M, c, form="corrected", **kw: original(X, M, c, form="printed", **kw))
    assert_fails("moore.appA.listing1-kl")


def test_sampling_catches_the_symmetrised_a_in_the_corrected_r(monkeypatch):
    original = moore_orthogonal.moore_r
    monkeypatch.setattr(moore_orthogonal, "moore_r",
                        lambda X, M, c, form="corrected", **kw: original(X, M, c, form="printed", **kw))
    assert_fails("moore.appA.sampling-interpretation")


def test_wasted_rotations_catches_a_mean_of_full_rank_always(monkeypatch):
    original = moore_orthogonal._mean_with_rank
    monkeypatch.setattr(moore_orthogonal, "_mean_with_rank", lambda rank, norm, Q, R: original(R.shape[0], norm, Q, R))
    assert_fails("moore.appA.wasted-rotations")


def test_fg_factorisation_catches_a_wrong_reference_variance(monkeypatch):
    original = moore_orthogonal._log_ratio
    monkeypatch.setattr(moore_orthogonal, "_log_ratio", lambda X, M, V: original(X, M, 1.1 * np.asarray(V)))
    assert_fails("moore.appA.fg-factorisation")


def test_single_row_catches_a_wrong_noise_variance(monkeypatch):
    original = moore_orthogonal.orthogonal_logpdf
    monkeypatch.setattr(moore_orthogonal, "orthogonal_logpdf", lambda x, m, c, **kw: original(x, m, 1.01 * c, **kw))
    assert_fails("moore.appA.single-row-noncentral-chi")


def test_invariance_catches_a_density_that_sees_the_orientation(monkeypatch):
    original = moore_orthogonal.orthogonal_logpdf
    monkeypatch.setattr(moore_orthogonal, "orthogonal_logpdf",
                        lambda X, M, var, **kw: original(X, M, var, **kw) + 1e-6 * np.asarray(X)[..., 0, 0])
    assert_fails("moore.appA.invariance")


def test_nonisotropic_mc_catches_an_offset_estimate(monkeypatch):
    original = moore_orthogonal.orthogonal_logpdf_mc
    monkeypatch.setattr(moore_orthogonal, "orthogonal_logpdf_mc",
                        lambda *a, **kw: (lambda est, se: (est + 0.05, se))(*original(*a, **kw)))
    assert_fails("moore.appA.nonisotropic-mc")


def test_mixture_forms_catches_a_wrong_covariance(monkeypatch):
    original = moore_orthogonal.gaussian_logpdf
    monkeypatch.setattr(moore_orthogonal, "gaussian_logpdf", lambda z, m, v: original(z, m, 1.001 * np.asarray(v)))
    assert_fails("moore.appA.mixture-forms")


def test_printed_kl_not_a_bound_catches_corrected_equal_to_printed(monkeypatch):
    original = moore_elbo.moore_kl
    monkeypatch.setattr(moore_elbo, "moore_kl",
                        lambda M, c, n, rng, form="corrected", **kw: original(M, c, n, rng, form="printed", **kw))
    assert_fails("moore.eq5.printed-kl-not-a-bound")


# ----- Louizos & Welling ------------------------------------------------------------------


def test_logdet_term_catches_swapped_exponents(monkeypatch):
    def swapped(U0, V0, U1, V1):
        n, p = U0.shape[0], V0.shape[0]
        ld = lambda A: np.linalg.slogdet(A)[1]  # noqa: E731
        return n * ld(U1) + p * ld(V1) - n * ld(U0) - p * ld(V0)

    monkeypatch.setattr(lw_model, "eq3_logdet", swapped)
    assert_fails("louizos.eq3.logdet-term")


@pytest.mark.parametrize("claim_id, name, plant", [
    ("louizos.eq1.trace-term", "eq1_trace", lambda f: scaled(f, 1 + 1e-8)),
    ("louizos.eq2.mahalanobis-term", "eq2_mahalanobis", lambda f: scaled(f, 1 + 1e-8)),
    ("louizos.sec1.gaussian-kl", "sec1_gaussian_kl", lambda f: lambda m0, S0, m1, S1: f(m0, S0, m1, S1) + m0.size / 2),
])
def test_louizos_terms_catch_planted_formulas(monkeypatch, claim_id, name, plant):
    monkeypatch.setattr(lw_model, name, plant(getattr(lw_model, name)))
    assert_fails(claim_id)


def test_vec_kronecker_catches_row_major_vec(monkeypatch):
    monkeypatch.setattr(louizos, "_vec", lambda M: np.asarray(M).reshape(-1))
    assert_fails("louizos.sec1.vec-kronecker")


def test_matrix_normal_kl_catches_missing_half(monkeypatch):
    monkeypatch.setattr(lw_model, "eq4_kl", scaled(lw_model.eq4_kl, 2.0))
    assert_fails("louizos.eq4.matrix-normal-kl")


def test_thm43_upper_bound_catches_an_entropy_above_h_qtilde(monkeypatch):
    original = gelberg.signflip_infonce_expectation_1d
    monkeypatch.setattr(gelberg, "signflip_infonce_expectation_1d", lambda s, K: original(s, K) + 0.01)
    assert_fails("gelberg.thm43.upper-bound")


def test_thm43_monotone_catches_a_decreasing_sequence(monkeypatch):
    original = gelberg.signflip_infonce_expectation_1d
    monkeypatch.setattr(gelberg, "signflip_infonce_expectation_1d", lambda s, K: original(s, K) - 1e-3 * K)
    assert_fails("gelberg.thm43.monotone-in-K")


def test_thm43_bias_law_catches_a_wrong_chi2(monkeypatch):
    monkeypatch.setattr(gelberg, "signflip_chi2_1d", scaled(gelberg.signflip_chi2_1d, 1.1))
    assert_fails("gelberg.thm43.bias-law")


def test_kl_nonneg_catches_a_negative_kl(monkeypatch):
    monkeypatch.setattr(moore_orthogonal, "moore_kl", scaled_estimate(moore_orthogonal.moore_kl, -1.0))
    assert_fails("moore.appA.kl-nonneg")


# ----- Turner, Secs. 1–2 -----------------------------------------------------------------


def test_ar1_factor_variance_catches_a_1e5_relative_error(monkeypatch):
    # the minimiser radius comes from the gradient at the numerical optimum, not from the excess
    # of the tested point: a variance off by 1e-5 is outside it
    monkeypatch.setattr(tbs, "eq11_variance", scaled(tbs.eq11_variance, 1 + 1e-5))
    assert_fails("turner.eq11.ar1-factor-variance")


def test_eq3_catches_marginal_instead_of_conditional_variance(monkeypatch):
    monkeypatch.setattr(tbs, "eq3_optimum_corrected", lambda mu, Sigma: (np.asarray(mu, float), np.diag(Sigma)))
    assert_fails("turner.eq3.optimal-factored")


_TBS_PLANTS = [
    # (claim, module attribute, planted replacement built from the original)
    ("turner.eq1.factored-kl", "eq1_kl_corrected", lambda f: scaled(f, 1 + 1e-6)),
    ("turner.eq2.second-moment", "eq2_second_moment", lambda f: scaled(f, 1.05)),  # MC resolution ~1%
    ("turner.eq4.two-axis-covariance", "eq4_covariance", lambda f: scaled(f, 2.0)),  # e_i taken as unit vectors
    ("turner.eq5.factor-variance", "eq5_variance_corrected", lambda f: scaled(f, 1.01)),
    ("turner.eq7.ar1-stationary-variance", "eq7_stationary_variance", lambda f: scaled(f, 1 + 1e-9)),
    ("turner.eq10.ar1-pair", "eq10_covariance", lambda f: scaled(f, 1 + 1e-9)),
    ("turner.eq15.binary-joint", "eq15_joint", lambda f: scaled(f, 1 + 1e-9)),
    ("turner.eq16.binary-factored-kl", "eq16_kl", lambda f: scaled(f, 1 + 1e-9)),
    ("turner.eq18.symmetry-breaking", "eq18_limits", lambda f: lambda: (np.eye(2) / 2, np.eye(2) / 2)),
    ("turner.sec2.1.ar1-as-two-axis", "sec21_axis_variances", lambda f: lambda s2, lam: f(s2, lam)[::-1]),
    ("turner.sec2.1.variance-ratio", "sec21_variance_ratio", lambda f: lambda lam: 1.0 - abs(lam)),
    ("turner.sec2.1.compact-limit", "eq4_covariance", lambda f: scaled(f, 2.0)),
]


@pytest.mark.parametrize("claim_id, name, plant", _TBS_PLANTS, ids=[p[0] for p in _TBS_PLANTS])
def test_turner_sec12_claims_catch_planted_formulas(monkeypatch, claim_id, name, plant):
    monkeypatch.setattr(tbs, name, plant(getattr(tbs, name)))
    assert_fails(claim_id)


def test_slow_dynamics_catches_a_wrong_model(monkeypatch):
    # the pair covariance of λ² instead of λ: the ratio is then 1 − λ⁴ ≈ 4Δ, not 2Δ
    original = turner_factored.ar1_joint_covariance
    monkeypatch.setattr(turner_factored, "ar1_joint_covariance", lambda s2, lam, T=2: original(s2, lam * lam, T))
    assert_fails("turner.sec2.1.slow-dynamics-2delta")


def test_fig1_catches_marginal_instead_of_conditional_variances(monkeypatch):
    monkeypatch.setattr(turner_factored, "_conditional_variances", lambda cov: np.diag(cov).copy())
    assert_fails("turner.fig1.conditional-width")


def test_breaking_threshold_catches_a_shifted_threshold(monkeypatch):
    # the KL at 2Δ: the threshold moves to about Δ_c/2, so at 0.9·Δ_c the symmetric point is still the minimum
    original = turner_factored.binary_chain_factored_kl
    monkeypatch.setattr(turner_factored, "binary_chain_factored_kl", lambda rho, delta: original(rho, 2 * delta))
    assert_fails("turner.sec2.2.breaking-threshold")


def test_fig5_catches_a_zero_temperature_bias_off_the_variational_one(monkeypatch):
    original = fa_model.fa_learn_with_tolerance
    monkeypatch.setattr(fa_model, "fa_learn_with_tolerance", lambda objective, *a, **kw: (
        lambda v, t: (v + 0.01 * (objective == "zero_temperature"), t))(*original(objective, *a, **kw)))
    assert_fails("turner.fig5.zero-temperature-bias-map")


def test_fig8_catches_a_variational_covariance_wider_than_the_posterior(monkeypatch):
    original = ica_model.ica_variational_fit
    monkeypatch.setattr(ica_model, "ica_variational_fit",
                        lambda *a, **kw: (lambda f: dict(f, Sigma=10.0 * np.asarray(f["Sigma"])))(original(*a, **kw)))
    assert_fails("turner.fig8.ica-posterior-multimodal-q-compact")


def test_eq17_catches_wrong_odds(monkeypatch):
    # Δ in place of the odds Δ/(1 − Δ)
    monkeypatch.setattr(tbs, "eq17_rhs", lambda rho, delta: 1.0 / (1.0 + delta ** (2.0 * rho - 1.0)))
    assert_fails("turner.eq17.fixed-point")


# ----- Turner, Sec. 3 --------------------------------------------------------------------


def test_eq47_numerical_route_alone_catches_a_1e6_relative_error(monkeypatch):
    # both the printed variances and the dense optimum off by the same 1e-6: only the BFGS route can tell
    monkeypatch.setattr(fa_model, "eq47_factor_variances", scaled(fa_model.eq47_factor_variances, 1 + 1e-6))
    original = turner_fa.optimal_factored_gaussian

    def planted(*args, **kwargs):
        means, variances, kl = original(*args, **kwargs)
        return means, variances * (1 + 1e-6), kl

    monkeypatch.setattr(turner_fa, "optimal_factored_gaussian", planted)
    assert_fails("turner.eq47.fa-factor-variances")


def test_eq48_catches_corrected_kl_with_a_third(monkeypatch):
    monkeypatch.setattr(fa_model, "eq48_kl_corrected", lambda *p: fa_model.eq48_kl(*p) / 3)
    assert_fails("turner.eq48.fa-kl")


def test_kl_vs_noise_catches_inverted_noise(monkeypatch):
    # KL evaluated at 1/σ_y²: it then decreases as the noise shrinks
    original = fa_model.fa_mean_field_kl
    monkeypatch.setattr(fa_model, "fa_mean_field_kl", lambda w1, w2, t1, t2, s: original(w1, w2, t1, t2, 1 / s))
    assert_fails("turner.sec32.kl-grows-as-noise-shrinks")


@pytest.mark.parametrize("kind, claim_id", [
    ("free_energy", "turner.fig3.theta2-bias-towards-orthogonal"),
    ("free_energy", "turner.fig4.theta2-bias-vs-angle"),
    ("free_energy", "turner.sec32.theta2-bias-vs-noise"),
    ("free_energy", "turner.fig6.w2-bias-towards-zero"),
    ("free_energy", "turner.fig7.w2-bias-vs-noise-and-angle"),
    ("zero_temperature", "turner.fig3.zero-temperature-theta2"),
])
def test_fa_learning_claims_catch_an_objective_replaced_by_the_likelihood(monkeypatch, kind, claim_id):
    # the objective learns like the likelihood (no variational bias): the claimed biases vanish
    original = fa_model.fa_learn_with_tolerance
    monkeypatch.setattr(fa_model, "fa_learn_with_tolerance",
                        lambda k, *a: original("likelihood" if k == kind else k, *a))
    assert_fails(claim_id)


def test_zero_temperature_w2_catches_a_penalised_objective(monkeypatch):
    # a planted − 0.01 w2² in E log p(x̂, y): a finite maximiser, no monotone increase
    original = fa_model.fa_objective
    monkeypatch.setattr(fa_model, "fa_objective", lambda kind, S, w1, w2, *a: original(kind, S, w1, w2, *a)
                        - (0.01 * w2**2 if kind == "zero_temperature" else 0.0))
    assert_fails("turner.fig6.zero-temperature-w2-diverges")


def test_eq29_catches_missing_half(monkeypatch):
    monkeypatch.setattr(lds_model, "eq29_kl_volume_ratio", scaled(lds_model.eq29_kl_volume_ratio, 2.0))
    assert_fails("turner.eq29.lds-kl-volume-ratio")


def test_eq33_catches_lambda_cubed(monkeypatch):
    def planted(lam, sx2, sy2):
        return (1 - lam**2) * ((2 * sx2 + sy2) ** 2 - lam**3 * sy2**2)

    monkeypatch.setattr(lds_model, "eq33_gamma_corrected", planted)
    assert_fails("turner.eq33.lds-gamma")


def test_q2_beats_q3_catches_q2_factorised_like_q3(monkeypatch):
    monkeypatch.setitem(lds_model.FACTORISATIONS, "q2", lds_model.FACTORISATIONS["q3"])
    assert_fails("turner.sec32.q2-beats-q3")


def test_lds_fig2_catches_free_energies_learning_like_the_likelihood(monkeypatch):
    original = lds_model.lds_learn
    monkeypatch.setattr(lds_model, "lds_learn",
                        lambda kind, *a, **kw: original("likelihood" if kind in ("q1", "q2", "q3") else kind, *a, **kw))
    assert_fails("turner.fig2.lds-free-energy-biases")


def test_ica_fig9_catches_free_energy_equal_to_the_likelihood(monkeypatch):
    original = ica_model.ica_expected_objectives

    def planted(*args, **kwargs):
        likelihood, _ = original(*args, **kwargs)
        return likelihood, likelihood

    monkeypatch.setattr(ica_model, "ica_expected_objectives", planted)
    assert_fails("turner.fig9.ica-free-energy-peaks-at-zero-sparseness")


def test_eq55_catches_kurtosis_off_by_one_percent(monkeypatch):
    monkeypatch.setattr(ica_model, "eq55_excess_kurtosis", scaled(ica_model.eq55_excess_kurtosis, 1.01))
    assert_fails("turner.eq55.ica-kurtosis")


def test_eq66_catches_evidence_off_at_gaussian_sources(monkeypatch):
    """The equality F = log p(y) at σ² = 1 (Gaussian sources) is one of the claim's conditions."""
    original = ica_model.ica_log_evidence
    monkeypatch.setattr(ica_model, "ica_log_evidence", lambda *a, **kw: original(*a, **kw) + 1e-9)
    assert_fails("turner.eq66.ica-free-energy")


def test_eq48_large_w2_catches_a_nonzero_kl_without_the_second_weight(monkeypatch):
    original = fa_model.fa_mean_field_kl

    def planted(w1, w2, *rest):
        return original(w1, w2, *rest) + (1e-12 if w2 == 0 else 0.0)

    monkeypatch.setattr(fa_model, "fa_mean_field_kl", planted)
    assert_fails("turner.eq48.limit-large-w2")


def test_elbo_chain_catches_2d_evidence_off(monkeypatch):
    # the two quadratures of log p(Y|X) must agree to 1e-8; a 2-D route off by 1e-6 fails the claim even after
    # the evidence was computed (and cached) by an earlier run
    from symcheck.models.gelberg_bnn import TwoReLUNet

    assert get_claim("gelberg.thm43.elbo-chain").run(1).status == "holds"
    real = TwoReLUNet.log_evidence
    monkeypatch.setattr(TwoReLUNet, "log_evidence",
                        lambda self, method="2d": real(self, method) + (1e-6 if method == "2d" else 0.0))
    assert_fails("gelberg.thm43.elbo-chain")
