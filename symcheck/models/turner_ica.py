"""ICA with binary variance switches, Turner, Berkes & Sahani, Sec. 3.3, eqs. (50)–(71).

Two latent sources, each a two-component scale mixture with unit variance, and one
noisy observation of their sum:

    p(s_k = 1) = ½,  x_k | s_k ~ N(0, (1 − s_k) σ² + s_k (2 − σ²)),  y | x ~ N(x₁ + x₂, σ_y²).

``σ² ∈ (0, 2)`` sets the sparseness: excess kurtosis ``3(1 − σ²)²``, zero at ``σ² = 1``
(the Gaussian model). The variational family is ``q(x, s) = q(x) q(s)`` with ``q(x)`` a
full-covariance Gaussian and ``q(s)`` any distribution on the four switch states.

The ``eqNN_*`` functions implement the printed equations literally (broadcasting over
observations where useful); ``ica_*`` are the brute-force routes: the evidence and the
switch posterior by enumeration of the four switch states, the log joint from the
generative densities, and the free energy by Gauss–Hermite quadrature over ``q(x)``.
:func:`ica_variational_fit` iterates the updates (63) and (65) to a fixed point.

Domain: ``0 < σ² < 2`` (``sigma2``), ``σ_y² > 0`` (``sigma_y2``), finite ``y``;
anything else raises ``ValueError`` naming the argument.

References
----------
R. E. Turner, P. Berkes, M. Sahani, *Technical report for Biases in Variational
Learning*, Gatsby Unit, Sec. 3.3.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize, special, stats

from symcheck._checks import as_finite_array, check_int, check_positive_float

__all__ = [
    "FIG8",
    "SWITCH_STATES",
    "check_ica_params",
    "eq53_variance",
    "eq55_excess_kurtosis",
    "eq55_excess_kurtosis_moments",
    "eq56_gamma",
    "eq56_log_joint",
    "eq58_component",
    "eq59_switch_posterior",
    "eq60_log_pi_tilde",
    "eq61_log_evidence",
    "eq61_log_evidence_corrected",
    "eq63_q_x",
    "eq65_q_s",
    "eq66_free_energy",
    "eq67_average_log_joint",
    "eq68_entropy_x",
    "eq69_entropy_s",
    "eq70_gradient",
    "eq70_gradient_corrected",
    "eq71_dgamma",
    "eq71_dgamma_corrected",
    "ica_expected_objectives",
    "ica_free_energy_quadrature",
    "ica_log_evidence",
    "ica_log_joint",
    "ica_switch_posterior",
    "ica_posterior_logpdf",
    "ica_variational_fit",
    "posterior_modes",
]

#: The four switch states ``(s1, s2)`` in the order used throughout (row-major ``q(s1, s2)``).
SWITCH_STATES = np.array(list(itertools.product((0, 1), repeat=2)), dtype=float)


def check_ica_params(sigma2, sigma_y2) -> tuple[float, float]:
    """Validate ``0 < sigma2 < 2`` and ``sigma_y2 > 0``; return them as floats."""
    s2 = check_positive_float(sigma2, "sigma2")
    if not s2 < 2.0:
        raise ValueError(f"sigma2 must lie in (0, 2) (the second variance 2 - sigma2 must be positive), got {s2}")
    return s2, check_positive_float(sigma_y2, "sigma_y2")


def _variances(s, sigma2):
    """Eq. (51): the variance ``(1 − s) σ² + s (2 − σ²)`` of ``x_k`` given ``s_k``."""
    return (1 - s) * sigma2 + s * (2 - sigma2)


def _as_y(y) -> np.ndarray:
    return as_finite_array(y, "y")


# ---------------------------------------------------------------------------
# Brute-force routes
# ---------------------------------------------------------------------------


def ica_log_evidence(y, sigma2, sigma_y2) -> np.ndarray:
    """``log p(y)`` by enumerating the switches: ``log Σ_s ¼ N(y; 0, v₁(s₁) + v₂(s₂) + σ_y²)``."""
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    y = _as_y(y)
    var = _variances(SWITCH_STATES, s2).sum(axis=1) + sy2
    terms = np.log(0.25) + stats.norm.logpdf(y[..., None], 0.0, np.sqrt(var))
    return special.logsumexp(terms, axis=-1)


def ica_switch_posterior(y, sigma2, sigma_y2) -> np.ndarray:
    """``p(s | y)`` over :data:`SWITCH_STATES` by enumeration (last axis of length 4)."""
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    y = _as_y(y)
    var = _variances(SWITCH_STATES, s2).sum(axis=1) + sy2
    terms = stats.norm.logpdf(y[..., None], 0.0, np.sqrt(var))
    return np.exp(terms - special.logsumexp(terms, axis=-1, keepdims=True))


def ica_log_joint(x, s, y, sigma2, sigma_y2) -> np.ndarray:
    """``log p(x, s, y)`` summed from the generative densities (50)–(52); broadcasts.

    ``x`` and ``s`` have a last axis of length 2.
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    x, s, y = as_finite_array(x, "x"), as_finite_array(s, "s"), _as_y(y)
    v = _variances(s, s2)
    out = 2 * np.log(0.5) + stats.norm.logpdf(x[..., 0], 0.0, np.sqrt(v[..., 0]))
    out = out + stats.norm.logpdf(x[..., 1], 0.0, np.sqrt(v[..., 1]))
    return out + stats.norm.logpdf(y, x[..., 0] + x[..., 1], np.sqrt(sy2))


def ica_free_energy_quadrature(q_s, mu, Sigma, y, sigma2, sigma_y2, n_nodes: int = 6) -> float:
    """Free energy ``E_q[log p(x, s, y) − log q(x) − log q(s)]`` by quadrature, for one ``y``.

    ``q_s``: the 2×2 table ``q(s1, s2)``; ``q(x) = N(mu, Sigma)``. The ``x`` expectation uses
    the ``n_nodes²`` tensor Gauss–Hermite rule through the Cholesky factor of ``Sigma``; the
    integrands are quadratic in ``x``, which the rule integrates exactly for ``n_nodes ≥ 2``.
    Nothing of eqs. (66)–(69) is used.
    """
    n_nodes = check_int(n_nodes, "n_nodes", minimum=2)
    q = as_finite_array(q_s, "q_s").reshape(-1)
    if q.size != 4 or np.any(q < 0) or abs(q.sum() - 1) > 1e-12:
        raise ValueError("q_s must be a 2x2 table of probabilities summing to 1")
    mu = as_finite_array(mu, "mu")
    L = np.linalg.cholesky(as_finite_array(Sigma, "Sigma"))
    t, w = special.roots_hermitenorm(n_nodes)
    w = w / w.sum()
    Z = np.stack(np.meshgrid(t, t, indexing="ij"), axis=-1).reshape(-1, 2)
    Wt = np.outer(w, w).reshape(-1)
    X = mu + Z @ L.T
    log_qx = stats.multivariate_normal(mu, L @ L.T).logpdf(X)
    total = -float(Wt @ log_qx)
    for qs, s in zip(q, SWITCH_STATES):
        if qs > 0:
            total += qs * (float(Wt @ ica_log_joint(X, s, y, sigma2, sigma_y2)) - np.log(qs))
    return total


def ica_variational_fit(y, sigma2, sigma_y2, init_s=(0.5, 0.5), n_iter: int = 500, tol: float = 1e-13):
    """Iterate the updates (63) and (65) from ``⟨s⟩ = init_s`` to a fixed point, for every ``y``.

    Parameters
    ----------
    y : array_like
        Observations (any shape); each is fitted independently (vectorised).
    init_s : (float, float)
        Starting ``⟨s₁⟩, ⟨s₂⟩``. Equal values stay equal (the updates preserve the
        ``1 ↔ 2`` symmetry), so symmetry-broken solutions need an asymmetric start.
    n_iter, tol : int, float
        At most ``n_iter`` sweeps; stops when ``⟨s⟩`` moves by less than ``tol``.

    Returns
    -------
    dict
        ``Es`` (…, 2), ``mu`` (…, 2), ``Sigma`` (…, 2, 2), ``q_s`` (…, 2, 2), ``free_energy`` (…)
        from eq. (66) at the fixed point, and ``converged`` (bool array).
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    n_iter = check_int(n_iter, "n_iter", minimum=1)
    y = _as_y(y)
    init = as_finite_array(init_s, "init_s")
    if init.shape != (2,) or np.any(init < 0) or np.any(init > 1):
        raise ValueError(f"init_s must be two probabilities, got {init_s!r}")
    Es = np.broadcast_to(init, y.shape + (2,)).copy()
    converged = np.zeros(y.shape, dtype=bool)
    for _ in range(n_iter):
        Sigma, mu = eq63_q_x(Es, y, s2, sy2)
        ex2 = np.diagonal(Sigma, axis1=-2, axis2=-1) + mu**2
        qs = eq65_q_s(ex2, s2)
        new = np.stack([qs[..., 1, :].sum(-1), qs[..., :, 1].sum(-1)], axis=-1)
        step = np.max(np.abs(new - Es), axis=-1)
        Es = new
        converged = step < tol
        if np.all(converged):
            break
    Sigma, mu = eq63_q_x(Es, y, s2, sy2)
    ex2 = np.diagonal(Sigma, axis1=-2, axis2=-1) + mu**2
    qs = eq65_q_s(ex2, s2)
    F = eq66_free_energy(qs, mu, Sigma, y, s2, sy2)
    return {"Es": Es, "mu": mu, "Sigma": Sigma, "q_s": qs, "free_energy": F, "converged": converged}


#: Starting points of :func:`ica_expected_objectives`: the symmetric start and four corners,
#: so that symmetry-broken fixed points are found too.
FIT_INITS = ((0.5, 0.5), (0.99, 0.01), (0.01, 0.99), (0.01, 0.01), (0.99, 0.99))


def ica_expected_objectives(sigma2_grid, sigma2_true, sigma_y2, n_nodes: int = 30, inits=FIT_INITS):
    """Average log likelihood and average optimal free energy per datum, infinite data (Fig. 9).

    The data law ``p(y | σ²_true)`` is a mixture of four zero-mean Gaussians (one per switch
    state); the expectation over ``y`` uses ``n_nodes`` Gauss–Hermite nodes per component. For
    each ``σ²`` the free energy of every node is the best fixed point of
    :func:`ica_variational_fit` over the starting points ``inits``.

    Returns
    -------
    loglik, free_energy : ndarray
        One value per entry of ``sigma2_grid``.
    """
    s2t, sy2 = check_ica_params(sigma2_true, sigma_y2)
    n_nodes = check_int(n_nodes, "n_nodes", minimum=2)
    grid = np.atleast_1d(as_finite_array(sigma2_grid, "sigma2_grid"))
    t, w = special.roots_hermitenorm(n_nodes)
    w = w / w.sum()
    sd = np.sqrt(_variances(SWITCH_STATES, s2t).sum(axis=1) + sy2)
    ys = (sd[:, None] * t).ravel()
    ws = np.repeat(np.full(4, 0.25), n_nodes) * np.tile(w, 4)
    loglik, free = np.empty(grid.size), np.empty(grid.size)
    for i, s2 in enumerate(grid):
        loglik[i] = ws @ ica_log_evidence(ys, s2, sy2)
        best = np.max([ica_variational_fit(ys, s2, sy2, init_s=x0, n_iter=300, tol=1e-10)["free_energy"] for x0 in inits], axis=0)
        free[i] = ws @ best
    return loglik, free


# ---------------------------------------------------------------------------
# Printed equations, implemented literally
# ---------------------------------------------------------------------------


def eq53_variance(sigma2) -> float:
    r"""Eq. (53): :math:`\langle x_1^2\rangle = \tfrac12\sigma^2 + \tfrac12(2-\sigma^2) = 1`."""
    s2, _ = check_ica_params(sigma2, 1.0)
    return 0.5 * s2 + 0.5 * (2 - s2)


def eq55_excess_kurtosis_moments(sigma2) -> float:
    r"""Eq. (55), left: :math:`\tfrac32(\sigma^4 + (2-\sigma^2)^2) - 3` (``⟨x⁴⟩ − 3`` of eq. (54))."""
    s2, _ = check_ica_params(sigma2, 1.0)
    return 1.5 * (s2**2 + (2 - s2) ** 2) - 3


def eq55_excess_kurtosis(sigma2) -> float:
    r"""Eq. (55), right: :math:`K = 3(1-\sigma^2)^2`."""
    s2, _ = check_ica_params(sigma2, 1.0)
    return 3 * (1 - s2) ** 2


def eq56_gamma(sigma2) -> float:
    r"""Eq. (56): :math:`\gamma = \frac{\sigma^2-1}{\sigma^2(2-\sigma^2)}`."""
    s2, _ = check_ica_params(sigma2, 1.0)
    return (s2 - 1) / (s2 * (2 - s2))


def eq56_log_joint(x, s, y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (56): the log joint as printed,

    .. math::
        -\log 4 - \tfrac32\log 2\pi - \tfrac12\log\sigma_y^2 - \tfrac12(s_1+s_2)\log(2-\sigma^2)
        - \tfrac12(2-s_1-s_2)\log\sigma^2
        - \tfrac12x_1^2(2\gamma s_1 + \tfrac1{\sigma^2} + \tfrac1{\sigma_y^2})
        - \tfrac12x_2^2(2\gamma s_2 + \tfrac1{\sigma^2} + \tfrac1{\sigma_y^2})
        - \frac{x_1x_2}{\sigma_y^2} + \frac{y}{\sigma_y^2}(x_1+x_2) - \frac{y^2}{2\sigma_y^2}
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    x, s, y = as_finite_array(x, "x"), as_finite_array(s, "s"), _as_y(y)
    g = eq56_gamma(s2)
    x1, x2, s1, sw2 = x[..., 0], x[..., 1], s[..., 0], s[..., 1]
    return (
        -np.log(4)
        - 1.5 * np.log(2 * np.pi)
        - 0.5 * np.log(sy2)
        - 0.5 * (s1 + sw2) * np.log(2 - s2)
        - 0.5 * (2 - s1 - sw2) * np.log(s2)
        - 0.5 * x1**2 * (2 * g * s1 + 1 / s2 + 1 / sy2)
        - 0.5 * x2**2 * (2 * g * sw2 + 1 / s2 + 1 / sy2)
        - x1 * x2 / sy2
        + y / sy2 * (x1 + x2)
        - y**2 / (2 * sy2)
    )


def _precision(d1, d2, sy2):
    """The symmetric 2×2 matrices ``[[d1, 1/σ_y²], [1/σ_y², d2]]`` (broadcast), and their inverses."""
    P = np.empty(np.broadcast_shapes(np.shape(d1), np.shape(d2)) + (2, 2))
    P[..., 0, 0], P[..., 1, 1], P[..., 0, 1], P[..., 1, 0] = d1, d2, 1 / sy2, 1 / sy2
    det = d1 * d2 - 1 / sy2**2
    C = np.empty_like(P)
    C[..., 0, 0], C[..., 1, 1] = d2 / det, d1 / det
    C[..., 0, 1] = C[..., 1, 0] = -1 / (sy2 * det)
    return P, C


def eq58_component(s, y, sigma2, sigma_y2):
    r"""Eq. (58): the posterior component given ``s``,
    :math:`\Sigma(s)^{-1} = \begin{bmatrix}2s_1\gamma + \frac1{\sigma_y^2} + \frac1{\sigma^2} & \frac1{\sigma_y^2}\\
    \frac1{\sigma_y^2} & 2s_2\gamma + \frac1{\sigma_y^2} + \frac1{\sigma^2}\end{bmatrix}`,
    :math:`\mu(s) = \frac{y}{\sigma_y^2}\Sigma(s)[1, 1]^T`.

    Returns ``(precision, covariance, mean)``.
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    s, y = as_finite_array(s, "s"), _as_y(y)
    g = eq56_gamma(s2)
    P, C = _precision(2 * s[..., 0] * g + 1 / sy2 + 1 / s2, 2 * s[..., 1] * g + 1 / sy2 + 1 / s2, sy2)
    mean = (np.asarray(y)[..., None] / sy2) * C.sum(axis=-1)
    return P, C, mean


def eq60_log_pi_tilde(s, y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (60), in log space: :math:`\log\tilde\pi(s)` with
    :math:`\tilde\pi(s) = (2-\sigma^2)^{-\frac12(s_1+s_2)}(\sigma^2)^{-\frac12(2-s_1-s_2)}
    (\det 2\pi\Sigma_s)^{1/2}\exp(\tfrac12\mu(s)^T\Sigma_s^{-1}\mu(s))`."""
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    s = as_finite_array(s, "s")
    P, C, mean = eq58_component(s, y, s2, sy2)
    _, logdet = np.linalg.slogdet(2 * np.pi * C)
    quad = np.einsum("...i,...ij,...j->...", mean, P, mean)
    return -0.5 * (s[..., 0] + s[..., 1]) * np.log(2 - s2) - 0.5 * (2 - s[..., 0] - s[..., 1]) * np.log(s2) + 0.5 * logdet + 0.5 * quad


def _log_prefactor(y, sy2):
    """``log[1/(4 sqrt(2πσ_y²)) exp(−y²/(2σ_y²))]``, the prefactor printed in (59) and (61)."""
    return -np.log(4) - 0.5 * np.log(2 * np.pi * sy2) - y**2 / (2 * sy2)


def eq61_log_evidence(y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (61) as printed, in log space:
    :math:`p(y) = \frac1{4\sqrt{2\pi\sigma_y^2}}\exp(-\frac{y^2}{2\sigma_y^2})\sum_{s_1,s_2}\tilde\pi(s)`.

    See :func:`eq61_log_evidence_corrected`.
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    y = _as_y(y)
    lpt = eq60_log_pi_tilde(SWITCH_STATES, y[..., None], s2, sy2)
    return _log_prefactor(y, sy2) + special.logsumexp(lpt, axis=-1)


def eq61_log_evidence_corrected(y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (61) corrected: :math:`p(y) = \frac1{4(2\pi)^{3/2}\sigma_y}\exp(-\frac{y^2}{2\sigma_y^2})\sum_s\tilde\pi(s)`.

    Derivation: the constant of the log joint (56) is ``−log 4 − (3/2) log 2π − ½ log σ_y²``
    (three Gaussians, for ``x₁``, ``x₂`` and ``y``), and integrating ``x`` out produces the
    ``(det 2πΣ_s)^{1/2}`` already inside π̃ (60). The printed prefactor keeps only one of the
    three ``(2π)^{-1/2}``, so the printed ``p(y)`` is ``2π`` times too large (equivalently,
    π̃ should carry ``(det Σ_s)^{1/2}``). The posterior (59) is unaffected: the factor cancels.
    """
    return eq61_log_evidence(y, sigma2, sigma_y2) - np.log(2 * np.pi)


def eq59_switch_posterior(y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (59): :math:`\pi(s) = \frac1{p(y)}\tilde\pi(s)\frac1{4\sqrt{2\pi\sigma_y^2}}\exp(-\frac{y^2}{2\sigma_y^2})`,
    with ``p(y)`` from the printed eq. (61); last axis over :data:`SWITCH_STATES`."""
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    y = _as_y(y)
    lpt = eq60_log_pi_tilde(SWITCH_STATES, y[..., None], s2, sy2)
    return np.exp(lpt + _log_prefactor(y, sy2)[..., None] - eq61_log_evidence(y, s2, sy2)[..., None])


def eq63_q_x(Es, y, sigma2, sigma_y2):
    r"""Eq. (63): ``q(x) = N(μ_q, Σ_q)`` given ``⟨s⟩``,
    :math:`\Sigma_q^{-1} = \begin{bmatrix}2\langle s_1\rangle\gamma + \frac1{\sigma_y^2} + \frac1{\sigma^2} & \frac1{\sigma_y^2}\\
    \frac1{\sigma_y^2} & 2\langle s_2\rangle\gamma + \frac1{\sigma_y^2} + \frac1{\sigma^2}\end{bmatrix}`,
    :math:`\mu_q = \frac{y}{\sigma_y^2}\Sigma_q[1,1]^T`.

    ``Es`` has a last axis ``(⟨s₁⟩, ⟨s₂⟩)`` and broadcasts with ``y``. Returns ``(Σ_q, μ_q)``.
    """
    _, C, mean = eq58_component(Es, y, sigma2, sigma_y2)
    return C, mean


def eq65_q_s(Ex2, sigma2) -> np.ndarray:
    r"""Eq. (65): the table :math:`q(s_1, s_2) = \frac1{Z_S}\begin{bmatrix}\frac1{\sigma^2} &
    \frac{e^{-\gamma\langle x_2^2\rangle}}{\sqrt{\sigma^2(2-\sigma^2)}}\\
    \frac{e^{-\gamma\langle x_1^2\rangle}}{\sqrt{\sigma^2(2-\sigma^2)}} &
    \frac{e^{-\gamma(\langle x_1^2\rangle+\langle x_2^2\rangle)}}{2-\sigma^2}\end{bmatrix}` (rows ``s₁``, columns ``s₂``).

    ``Ex2`` has a last axis ``(⟨x₁²⟩, ⟨x₂²⟩)``; computed in log space and normalised.
    """
    s2, _ = check_ica_params(sigma2, 1.0)
    ex2 = as_finite_array(Ex2, "Ex2")
    g = eq56_gamma(s2)
    a1, a2 = ex2[..., 0], ex2[..., 1]
    logt = np.empty(ex2.shape[:-1] + (2, 2))
    logt[..., 0, 0] = -np.log(s2)
    logt[..., 0, 1] = -0.5 * np.log(s2 * (2 - s2)) - g * a2
    logt[..., 1, 0] = -0.5 * np.log(s2 * (2 - s2)) - g * a1
    logt[..., 1, 1] = -np.log(2 - s2) - g * (a1 + a2)
    return np.exp(logt - special.logsumexp(logt, axis=(-2, -1), keepdims=True))


def eq67_average_log_joint(q_s, mu, Sigma, y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (67): the average log joint, reading the printed unbracketed ``s_k`` in the
    quadratic terms as ``⟨s_k⟩`` (the left side is the average under ``q(s)q(x)``):

    .. math::
        -\log 4 - \tfrac32\log 2\pi - \tfrac12\log\sigma_y^2 - \tfrac12(\langle s_1\rangle+\langle s_2\rangle)\log(2-\sigma^2)
        - \tfrac12(2-\langle s_1\rangle-\langle s_2\rangle)\log\sigma^2
        - \tfrac12\langle x_1^2\rangle(2\gamma\langle s_1\rangle + \tfrac1{\sigma^2} + \tfrac1{\sigma_y^2})
        - \tfrac12\langle x_2^2\rangle(2\gamma\langle s_2\rangle + \tfrac1{\sigma^2} + \tfrac1{\sigma_y^2})
        - \frac{\langle x_1x_2\rangle}{\sigma_y^2} + \frac{y}{\sigma_y^2}(\langle x_1\rangle+\langle x_2\rangle) - \frac{y^2}{2\sigma_y^2}
    """
    s2, sy2 = check_ica_params(sigma2, sigma_y2)
    q = as_finite_array(q_s, "q_s")
    mu, Sigma, y = as_finite_array(mu, "mu"), as_finite_array(Sigma, "Sigma"), _as_y(y)
    g = eq56_gamma(s2)
    e1, e2 = q[..., 1, :].sum(-1), q[..., :, 1].sum(-1)
    x11 = Sigma[..., 0, 0] + mu[..., 0] ** 2
    x22 = Sigma[..., 1, 1] + mu[..., 1] ** 2
    x12 = Sigma[..., 0, 1] + mu[..., 0] * mu[..., 1]
    return (
        -np.log(4)
        - 1.5 * np.log(2 * np.pi)
        - 0.5 * np.log(sy2)
        - 0.5 * (e1 + e2) * np.log(2 - s2)
        - 0.5 * (2 - e1 - e2) * np.log(s2)
        - 0.5 * x11 * (2 * g * e1 + 1 / s2 + 1 / sy2)
        - 0.5 * x22 * (2 * g * e2 + 1 / s2 + 1 / sy2)
        - x12 / sy2
        + y / sy2 * (mu[..., 0] + mu[..., 1])
        - y**2 / (2 * sy2)
    )


def eq68_entropy_x(Sigma) -> np.ndarray:
    r"""Eq. (68): :math:`H(q(x)) = \tfrac12(\log\det 2\pi\Sigma_q + 2)`."""
    Sigma = as_finite_array(Sigma, "Sigma", ndim_min=2)
    return 0.5 * (np.linalg.slogdet(2 * np.pi * Sigma)[1] + 2)


def eq69_entropy_s(q_s) -> np.ndarray:
    r"""Eq. (69): :math:`H(q(s)) = -\sum_{s_1,s_2} q(s_1,s_2)\log q(s_1,s_2)` (``0 log 0 = 0``)."""
    q = as_finite_array(q_s, "q_s", ndim_min=2)
    return -np.sum(special.xlogy(q, q), axis=(-2, -1))


def eq66_free_energy(q_s, mu, Sigma, y, sigma2, sigma_y2) -> np.ndarray:
    r"""Eq. (66): :math:`F = \langle\log p(x, s, y)\rangle + H(q(x)) + H(q(s))`, from (67)–(69)."""
    return eq67_average_log_joint(q_s, mu, Sigma, y, sigma2, sigma_y2) + eq68_entropy_x(Sigma) + eq69_entropy_s(q_s)


def eq71_dgamma(sigma2) -> float:
    r"""Eq. (71) as printed: :math:`\frac{d\gamma}{d\sigma^2} = \frac1{(2-\sigma^2)^2} + \frac1{\sigma^4}`."""
    s2, _ = check_ica_params(sigma2, 1.0)
    return 1 / (2 - s2) ** 2 + 1 / s2**2


def eq71_dgamma_corrected(sigma2) -> float:
    r"""Eq. (71) corrected: :math:`\frac{d\gamma}{d\sigma^2} = \tfrac12\Big(\frac1{(2-\sigma^2)^2} + \frac1{\sigma^4}\Big)`.

    Derivation: partial fractions give ``γ = ½(1/(2 − σ²) − 1/σ²)``.
    """
    return 0.5 * eq71_dgamma(sigma2)


def _eq70(Es, Ex2, sigma2, dgamma, s_sum) -> float:
    s2, _ = check_ica_params(sigma2, 1.0)
    Es, Ex2 = as_finite_array(Es, "Es"), as_finite_array(Ex2, "Ex2")
    dg = dgamma(s2)
    return (
        -2 / s2
        + s_sum(Es) * 2 / (s2 * (2 - s2))
        - Ex2[..., 0] * (2 * Es[..., 0] * dg - 1 / s2**2)
        - Ex2[..., 1] * (2 * Es[..., 1] * dg - 1 / s2**2)
    )


def eq70_gradient(Es, Ex2, sigma2, dgamma=eq71_dgamma):
    r"""Eq. (70) as printed: :math:`2\frac{d\langle\log p\rangle}{d\sigma^2} = -\frac2{\sigma^2}
    + (\langle s_1\rangle + \langle s_1\rangle)\frac2{\sigma^2(2-\sigma^2)}
    - \langle x_1^2\rangle(2\langle s_1\rangle\frac{d\gamma}{d\sigma^2} - \frac1{\sigma^4})
    - \langle x_2^2\rangle(2\langle s_2\rangle\frac{d\gamma}{d\sigma^2} - \frac1{\sigma^4})`.

    ``dgamma``: the function giving dγ/dσ² (printed eq. (71) by default).
    """
    return _eq70(Es, Ex2, sigma2, dgamma, lambda e: e[..., 0] + e[..., 0])


def eq70_gradient_corrected(Es, Ex2, sigma2, dgamma=eq71_dgamma_corrected):
    r"""Eq. (70) corrected: ``(⟨s₁⟩ + ⟨s₂⟩)`` in the second term (printed ``⟨s₁⟩ + ⟨s₁⟩``), with the
    corrected dγ/dσ² of eq. (71) by default.

    Derivation: ``d/dσ²`` of ``−½(⟨s₁⟩+⟨s₂⟩) log(2−σ²) − ½(2−⟨s₁⟩−⟨s₂⟩) log σ²`` is
    ``½(⟨s₁⟩+⟨s₂⟩)(1/(2−σ²) + 1/σ²) − 1/σ²``, and ``1/(2−σ²) + 1/σ² = 2/(σ²(2−σ²))``.
    """
    return _eq70(Es, Ex2, sigma2, dgamma, lambda e: e[..., 0] + e[..., 1])


#: Fig. 8 of the paper: the prior variance σ², noise σ_y² and the one observation y.
FIG8 = {"sigma2": 0.1, "sigma_y2": 0.05, "y": 2.0}


def ica_posterior_logpdf(x, y, sigma2, sigma_y2):
    """log p(x | y) of the ICA model by enumerating the four switch states (``x`` has last axis 2)."""
    x = np.asarray(x, dtype=float)
    terms = np.stack([ica_log_joint(x, s, y, sigma2, sigma_y2) for s in SWITCH_STATES], axis=-1)
    return special.logsumexp(terms, axis=-1) - float(ica_log_evidence(y, sigma2, sigma_y2))


def posterior_modes(y, sigma2, sigma_y2, half_width=4.0, n=201):
    """Local maxima of p(x | y): grid points above their 8 neighbours, refined by Nelder–Mead."""
    g = np.linspace(-half_width, half_width, n)
    X = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1)
    lp = ica_posterior_logpdf(X, y, sigma2, sigma_y2)
    inner = lp[1:-1, 1:-1]
    is_max = np.ones_like(inner, dtype=bool)
    for di, dj in itertools.product((-1, 0, 1), repeat=2):
        if di or dj:
            is_max &= inner > lp[1 + di:n - 1 + di, 1 + dj:n - 1 + dj]
    modes = []
    for i, j in zip(*np.nonzero(is_max)):
        res = optimize.minimize(lambda z: -ica_posterior_logpdf(z, y, sigma2, sigma_y2), X[i + 1, j + 1],
                                method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14})
        if not any(np.linalg.norm(res.x - m) < 1e-6 for m in modes):
            modes.append(res.x)
    return modes
