"""Symmetrized posteriors: log q̃, KL[q*‖q̃], the InfoNCE entropy bound H^K and the symmetrized ELBOs.

Every function here is written against the :class:`symcheck.groups.Group` protocol only
(``validate``, ``log_order``, ``sample``, ``act``, ``symmetrized_logpdf``), so it works for
sign flips, MLP hidden-unit permutations and the orthogonal group alike. A group may
offer the optional extras ``exact_gap(mean, var)`` (a closed-form / quadrature KL gap) and
``sample_neighbours`` / ``is_neighbour`` / ``log_n_neighbours`` (for the near-identity
importance sampler); functions that need them say so.

Notation: q* = N(mean, var) is the base, q̃ = E_g[g_# q*] its symmetrization (Moore eq. (3),
Gelberg eq. (4)); H is differential entropy in nats.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from symcheck._checks import (
    as_finite_array,
    check_alloc,
    check_bool,
    check_callable,
    check_finite_result,
    check_int,
    check_positive_float,
    check_rng,
)
from symcheck._mc import mean_se
from symcheck.gaussian import entropy_gaussian, gaussian_logpdf, sample_gaussian, validate_gaussian
from symcheck.groups import Group

__all__ = [
    "chi2_to_symmetrized",
    "elbo",
    "elbo_infonce",
    "elbo_symmetrized_eq4",
    "elbo_symmetrized_eq5",
    "entropy_infonce",
    "entropy_infonce_is",
    "entropy_symmetrized",
    "infonce_bias_law",
    "sample_symmetrized",
    "symmetrization_gap",
    "symmetrized_logpdf",
]

#: Functions implementing a paper's result under another name (read by the report's equation index).
EQUATIONS = {
    "symmetrized_logpdf": ("moore", "eq. (3)"),
    "symmetrization_gap": ("moore", "eq. (5)"),
    "elbo": ("moore", "eq. (2)"),
    "elbo_symmetrized_eq4": ("moore", "eq. (4)"),
    "elbo_symmetrized_eq5": ("moore", "eq. (5)"),
    "entropy_infonce": ("gelberg", "Thm. 4.3"),
    "elbo_infonce": ("gelberg", "Thm. 4.3"),
}

_CHUNK = 2**22  # floats per block of (samples × elements × dimension) work


def _check_group(group) -> Group:
    if not isinstance(group, Group):
        raise ValueError(f"group must be a symcheck.groups.Group, got {type(group).__name__}")
    return group


def _base_entropy(mean, var) -> float:
    return entropy_gaussian(var, full=var.shape != mean.shape)


def sample_symmetrized(mean, var, group, rng, size):
    """``size`` samples of q̃: z = g·z*, z* ~ q*, g ~ uniform(G) (Moore Sec. 3, two-step sampling)."""
    group = _check_group(group)
    rng = check_rng(rng)
    mean, var = group.validate(mean, var)
    zs = sample_gaussian(mean, var, rng, size)
    return group.act(group.sample(rng, size), zs)


def symmetrized_logpdf(z, mean, var, group):
    """Exact log q̃(z) for the Gaussian base q* = N(mean, var) (Moore eq. (3); Gelberg eq. (4)).

    Dispatches to ``group.symmetrized_logpdf``: exact log-sum-exp over the group for the
    finite groups (or a factorised / permanent form, see each group), the group's own
    route for continuous groups.

    Parameters
    ----------
    z : array_like, shape ``(*batch, *E)``
    mean, var : array_like
        Base mean (event shape ``E``) and variances (shape ``E``) or full covariance.
    group : Group

    Returns
    -------
    ndarray, shape ``batch``
    """
    return _check_group(group).symmetrized_logpdf(z, mean, var)


def _mc_mean(values, names: str):
    """Mean and standard error of a flat sample (callers draw n_samples >= 2).

    ValueError naming ``names`` (the inputs the sample depends on) if either is not finite.
    """
    mean, se = mean_se(np.ravel(values))
    check_finite_result((mean, se), names, "the Monte Carlo mean or its standard error")
    return float(mean), float(se)


def symmetrization_gap(mean, var, group, rng=None, n_samples: int = 4096):
    """KL[q*‖q̃] = H(q̃) − H(q*) = I(g; z) (Moore eq. (5); Gelberg Thm. 4.1).

    Parameters
    ----------
    mean, var : array_like
        The Gaussian base.
    group : Group
    rng : numpy Generator or int, optional
        Needed only when the gap is estimated by Monte Carlo.
    n_samples : int
        Monte Carlo sample size (ignored on the exact route).

    Returns
    -------
    (value, standard_error)
        Exact route (``group.exact_gap`` exists and returns a number, e.g. sign flips by
        1-D quadrature): standard error 0. Otherwise the Monte Carlo mean of
        log q*(z) − log q̃(z), z ~ q*, with its standard error.

    Notes
    -----
    0 ≤ KL ≤ log|G| for a finite group: log q̃ ≥ log q* − log|G| pointwise.
    """
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    exact = getattr(group, "exact_gap", None)
    if exact is not None:
        val = exact(mean, var)
        if val is not None:  # a NaN is never "exact": a group's route must give a number
            return float(check_finite_result(val, "mean, var", f"the exact KL gap of {group.name}")), 0.0
    if rng is None:
        raise ValueError("rng is required: this group's gap is estimated by Monte Carlo")
    rng = check_rng(rng)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    z = sample_gaussian(mean, var, rng, n_samples, "n_samples")
    return _mc_mean(gaussian_logpdf(z, mean, var) - group.symmetrized_logpdf(z, mean, var), "mean, var")


def entropy_symmetrized(mean, var, group, rng=None, n_samples: int = 4096):
    """H(q̃) = H(q*) + KL[q*‖q̃] with its standard error (see :func:`symmetrization_gap`)."""
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    gap, se = symmetrization_gap(mean, var, group, rng, n_samples)
    return float(check_finite_result(_base_entropy(mean, var) + gap, "mean, var", "H(q̃)")), se


def chi2_to_symmetrized(mean, var, group, rng=None, n_samples: int = 4096):
    """χ²(q*‖q̃) = E_{q*}[q*/q̃] − 1, the constant of the H^K bias law (:func:`infonce_bias_law`).

    Exact (quadrature) where the group offers ``exact_chi2``; otherwise Monte Carlo over
    z ~ q* with standard error (heavy-tailed when the modes are far apart: the ratio
    q*/q̃ ≤ |G| bounds it for finite groups).
    """
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    exact = getattr(group, "exact_chi2", None)
    if exact is not None:
        val = exact(mean, var)
        if val is not None:
            return float(val), 0.0
    if rng is None:
        raise ValueError("rng is required: this group's chi2 is estimated by Monte Carlo")
    rng = check_rng(rng)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    z = sample_gaussian(mean, var, rng, n_samples, "n_samples")
    r = np.exp(gaussian_logpdf(z, mean, var) - group.symmetrized_logpdf(z, mean, var))
    m, se = _mc_mean(r, "mean, var")
    return m - 1.0, se


def infonce_bias_law(chi2: float, K) -> np.ndarray:
    """First-order bias of Gelberg's H^K: H(q̃) − E[H^K] ≈ χ²(q*‖q̃) / (2K).

    Derivation (ours; the paper states only the limit). Write the InfoNCE mixture as
    m_K(ω) = q̃(ω)[1 + (ρ−1)/K + ((K−1)/K)(X̄−1)] with ρ = q*(ω)/q̃(ω) and X̄ the mean of
    the K−1 i.i.d. ratios X_j = q*(g_j·ω)/q̃(ω), E[X_j | ω] = 1. Expanding
    log(1 + u) = u − u²/2 + O(u³) and averaging over g's and ω ~ q*:
    E[log m_K] − E[log q̃] = (E ρ − 1)/K − E[Var(X | ω)]/(2K) + O(K⁻²). Both expectations
    equal χ² = ∫ q*²/q̃ − 1 (the second by the substitution ω' = g·ω and the invariance
    of q̃), so the bias is χ²/(2K) + O(K⁻²).

    Valid when K ≫ χ² (for well separated modes χ² → |G| − 1, so for large groups the
    law applies only at K ≫ |G|; below that the bias is ≈ log|G| − log K).
    """
    chi2 = check_positive_float(chi2, "chi2", allow_zero=True)
    K = np.asarray(K, dtype=np.float64)
    if np.any(K < 1):
        raise ValueError("K must be >= 1")
    return chi2 / (2.0 * K)


def _check_K(K):
    return check_int(K, "K", minimum=1)


def entropy_infonce(mean, var, group, K, n_samples, rng, replace: bool = True, control_variate: bool = False):
    """Gelberg et al.'s InfoNCE entropy estimator Ĥ^K (Thm. 4.3, Sec. 4), with standard error.

    Ĥ^K = −(1/S) Σ_i log( (1/K) [ q*(ω_i) + Σ_{j=1}^{K−1} q*(g_{ij}⁻¹·ω_i) ] ),
    ω_i ~ q*, g_{ij} ~ uniform(G): the identity is always one of the K terms. Its
    expectation H^K satisfies H^K ≤ H(q̃) and H^K → H(q̃) as K → ∞ (Thm. 4.3).

    Parameters
    ----------
    mean, var : array_like
        The Gaussian base.
    group : Group
    K : int
        Number of mixture terms (K ≥ 1; K = 1 gives H(q*) exactly in expectation).
    n_samples : int
        S, the number of base samples ω_i.
    rng : numpy Generator or int
    replace : bool
        ``True`` (the paper's estimator): the K−1 elements are i.i.d. uniform.
        ``False`` (stratified variant, finite enumerable groups with K ≤ |G|): the K−1
        elements are distinct non-identity elements drawn without replacement. This is
        still a lower bound — by the same translation argument as App. E, E[Ĥ^K] is the
        average entropy of a random K-component sub-mixture of q̃, ≤ H(q̃) by concavity —
        and it is exact at K = |G|.
    control_variate : bool
        Add the zero-mean control variate log q*(ω_i) + H(q*) to each term (H(q*) in closed
        form). Same expectation H^K, hence the same bound; the terms become
        −log((1/K)[1 + Σ_j q*(g·ω_i)/q*(ω_i)]) + H(q*) ∈ (−∞, log K + H(q*)], which removes the
        O(√D) spread of −log q*(ω_i) (the variance-reduction study of the report).

    Returns
    -------
    (estimate, standard_error)
        Fresh elements are drawn for every ω_i (unlike the paper's shared K−1 elements
        per mini-batch), so the S terms are i.i.d. and the standard error is the sample
        standard deviation over √S.
    """
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    K = _check_K(K)
    check_alloc(K * max(mean.size, 1), "K")
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    check_alloc(n_samples, "n_samples")
    rng = check_rng(rng)
    replace = check_bool(replace, "replace")
    control_variate = check_bool(control_variate, "control_variate")
    terms = np.empty(n_samples)
    h0 = _base_entropy(mean, var)
    els = None
    if not replace:
        els = group.elements()
        if K > els.shape[0]:
            raise ValueError(f"K={K} exceeds |G|={els.shape[0]}: cannot draw K-1 distinct non-identity elements")
    per = max(1, _CHUNK // (max(K - 1, 1) * max(mean.size, 1)))
    for start in range(0, n_samples, per):
        s = min(per, n_samples - start)
        w = sample_gaussian(mean, var, rng, s)
        l0 = gaussian_logpdf(w, mean, var)  # (s,)
        if K == 1:
            terms[start: start + s] = h0 if control_variate else -l0
            continue
        if replace:
            g = group.sample(rng, s * (K - 1))
        else:
            # distinct non-identity elements per sample: a random (K−1)-subset of 1..|G|−1
            idx = np.argsort(rng.random((s, els.shape[0] - 1)), axis=1)[:, : K - 1] + 1
            g = els[idx.reshape(-1)]
        gw = group.act(g, np.repeat(w, K - 1, axis=0))  # (s·(K−1), *E)
        lg = gaussian_logpdf(gw, mean, var).reshape(s, K - 1)
        lse = logsumexp(np.concatenate([l0[:, None], lg], axis=1), axis=1)
        terms[start: start + s] = math.log(K) - lse + (l0 + h0 if control_variate else 0.0)
    return _mc_mean(terms, "mean, var")


def entropy_infonce_is(mean, var, group, K, n_samples, rng, rho: float = 0.5, control_variate: bool = False):
    """Near-identity importance-sampled variant of Ĥ^K (Gelberg Sec. 5's suggestion).

    Ĥ^K_IS = −(1/S) Σ_i log( (1/K)[ q*(ω_i) + Σ_{j=1}^{K−1} w(g_j) q*(g_j·ω_i) ] ),
    g_j ~ r = ρ·uniform(G) + (1−ρ)·uniform(N), N the group's "neighbours" of the identity
    (single transpositions of one layer, single block flips), and w(g) = 1/(|G| r(g)) so that
    each weighted term is unbiased for q̃(ω_i).

    Whether this keeps the lower-bound property of Thm. 4.3 is not proved (r is not
    translation-invariant, which the App. E argument uses); the report measures it against
    the exact H(q̃). Needs ``group.sample_neighbours``, ``is_neighbour`` and ``log_n_neighbours``.
    ``control_variate`` as in :func:`entropy_infonce`.

    Returns
    -------
    (estimate, standard_error)
    """
    group = _check_group(group)
    for attr in ("sample_neighbours", "is_neighbour", "log_n_neighbours"):
        if not hasattr(group, attr):
            raise ValueError(f"group {group.name} has no near-identity neighbourhood ({attr}) for importance sampling")
    mean, var = group.validate(mean, var)
    K = _check_K(K)
    check_alloc(K * max(mean.size, 1), "K")
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    check_alloc(n_samples, "n_samples")
    rng = check_rng(rng)
    control_variate = check_bool(control_variate, "control_variate")
    rho = check_positive_float(rho, "rho")
    if not rho <= 1:
        raise ValueError(f"rho must be in (0, 1], got {rho}")
    terms = np.empty(n_samples)
    h0 = _base_entropy(mean, var)
    per = max(1, _CHUNK // (max(K - 1, 1) * max(mean.size, 1)))
    for start in range(0, n_samples, per):
        s = min(per, n_samples - start)
        w = sample_gaussian(mean, var, rng, s)
        l0 = gaussian_logpdf(w, mean, var)
        if K == 1:
            terms[start: start + s] = h0 if control_variate else -l0
            continue
        m = s * (K - 1)
        from_uniform = rng.random(m) < rho
        g = group.sample(rng, m)
        n_nb = int(np.count_nonzero(~from_uniform))
        if n_nb:
            g[~from_uniform] = group.sample_neighbours(rng, n_nb)
        log_w = _is_log_weights(group, g, rho)
        gw = group.act(g, np.repeat(w, K - 1, axis=0))
        lg = (gaussian_logpdf(gw, mean, var) + log_w).reshape(s, K - 1)
        lse = logsumexp(np.concatenate([l0[:, None], lg], axis=1), axis=1)
        terms[start: start + s] = math.log(K) - lse + (l0 + h0 if control_variate else 0.0)
    return _mc_mean(terms, "mean, var")


def _is_log_weights(group, g, rho):
    """log w(g) = −log(|G| r(g)), r = ρ·uniform(G) + (1−ρ)·uniform(neighbours); so E_r[w(g) f(g)] = E_uniform f(g)."""
    log_G = group.log_order()
    log_r = np.full(np.asarray(g).shape[0], math.log(rho) - log_G)
    if rho < 1:
        nb = group.is_neighbour(g)
        log_r[nb] = np.logaddexp(math.log(rho) - log_G, math.log1p(-rho) - group.log_n_neighbours())
    return -log_G - log_r


# ----- ELBOs ----------------------------------------------------------------------------


def _log_joint_values(log_joint, z, name="log_joint"):
    v = as_finite_array(check_callable(log_joint, name)(z), f"{name} (its values at points drawn from N(mean, var))")
    if v.shape != (z.shape[0],):
        raise ValueError(f"{name} must map a batch (S, ...) of points to shape (S,), got {v.shape}")
    return v


_ELBO_NAMES = "log_joint, mean, var"


def elbo(log_joint, mean, var, n_samples, rng):
    """Plain ELBO, Moore eq. (2): E_{q*}[log p(x, z)] + H(q*). Returns (estimate, SE).

    ``log_joint(z)`` maps a batch ``(S, *E)`` of points to ``(S,)`` values of log p(x, z).
    """
    check_callable(log_joint, "log_joint")
    mean, var = validate_gaussian(mean, var)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    z = sample_gaussian(mean, var, check_rng(rng), n_samples, "n_samples")
    m, se = _mc_mean(_log_joint_values(log_joint, z), _ELBO_NAMES)
    return float(check_finite_result(m + _base_entropy(mean, var), _ELBO_NAMES, "the ELBO")), se


def elbo_symmetrized_eq4(log_joint, mean, var, group, n_samples, rng):
    """Symmetrized ELBO, Moore eq. (4): E_{z*~q*}[log p(x, z*) − log q̃(z*)]. Returns (estimate, SE).

    Needs a G-invariant log joint (the derivation drops the expectation over T).
    """
    check_callable(log_joint, "log_joint")
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    z = sample_gaussian(mean, var, check_rng(rng), n_samples, "n_samples")
    return _mc_mean(_log_joint_values(log_joint, z) - group.symmetrized_logpdf(z, mean, var), _ELBO_NAMES)


def elbo_symmetrized_eq5(log_joint, mean, var, group, n_samples, rng, gap_samples: int = 4096):
    """Symmetrized ELBO, Moore eq. (5): E_{q*}[log p(x, z*)] + H(q*) + KL[q*‖q̃].

    Equals Gelberg's L^G_VI = L_VI + I(g; ω) (Thm. 4.1). The KL term is exact where the
    group offers it, otherwise Monte Carlo (independent draws); the SEs add in quadrature.
    """
    check_callable(log_joint, "log_joint")
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    rng = check_rng(rng)
    gap_samples = check_int(gap_samples, "gap_samples", minimum=2)
    check_alloc(gap_samples * mean.size, "gap_samples")
    base, se1 = elbo(log_joint, mean, var, n_samples, rng)
    gap, se2 = symmetrization_gap(mean, var, group, rng, gap_samples)
    return float(check_finite_result(base + gap, _ELBO_NAMES, "the ELBO")), math.hypot(se1, se2)


def elbo_infonce(log_joint, mean, var, group, K, n_samples, rng):
    """Gelberg's L̂^K_VI = L̂_VI − H(q*) + Ĥ^K (Sec. 4), i.e. E_{q*}[log p(x, ω)] + Ĥ^K.

    In expectation L^K_VI ≤ L^G_VI (Thm. 4.3 with Thm. 4.1). Returns (estimate, SE).
    """
    check_callable(log_joint, "log_joint")
    group = _check_group(group)
    mean, var = group.validate(mean, var)
    rng = check_rng(rng)
    K = _check_K(K)
    n_samples = check_int(n_samples, "n_samples", minimum=2)
    z = sample_gaussian(mean, var, rng, n_samples, "n_samples")
    m1, se1 = _mc_mean(_log_joint_values(log_joint, z), _ELBO_NAMES)
    hk, se2 = entropy_infonce(mean, var, group, K, n_samples, rng)
    return float(check_finite_result(m1 + hk, _ELBO_NAMES, "the ELBO")), math.hypot(se1, se2)
