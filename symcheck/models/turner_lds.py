"""Two-chain linear dynamical system of Turner, Berkes & Sahani, Sec. 3.1, eqs. (19)–(39).

Two independent AR(1) chains ``k = 1, 2`` over two time steps ``t = 1, 2``,

    x_{k,1} ~ N(0, σ_x² / (1 − λ²)),   x_{k,2} | x_{k,1} ~ N(λ x_{k,1}, σ_x²),
    y_t | x ~ N(x_{1,t} + x_{2,t}, σ_y²),

with the latent vector ordered as in the paper, ``x = [x11, x21, x12, x22]``
(``x_{kt}``: chain ``k``, time ``t``).

Two kinds of function live here:

* ``eqNN_*``: the printed equation, implemented literally (docstring quotes it);
  a ``*_corrected`` twin exists where the printed form does not hold.
* the brute-force routes that the claims compare against: the joint Gaussian of
  ``[x, y]`` built densely from the generative factors (:func:`lds_joint_covariance`),
  the exact posterior by Gaussian conditioning (:func:`lds_posterior`), the log
  likelihood and the log joint evaluated factor by factor, and the expected
  complete-data log likelihood that EM's M-step maximises
  (:func:`lds_expected_complete_log_likelihood`).

Domain: ``|λ| < 1``, ``σ_x² > 0``, ``σ_y² > 0``; anything else raises ``ValueError``
naming the argument.

References
----------
R. E. Turner, P. Berkes, M. Sahani, *Technical report for Biases in Variational
Learning*, Gatsby Unit, Sec. 3.1.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, stats

from symcheck._checks import as_finite_array, check_choice, check_positive_definite, check_positive_float
from symcheck.kl import optimal_factored_gaussian

__all__ = [
    "FACTORISATIONS",
    "FIG2",
    "FIG2_BOUNDS",
    "check_lds_params",
    "eq23_observation_covariance",
    "eq24_log_likelihood",
    "eq25_log_joint_exponent",
    "eq27_posterior_mean",
    "eq27_posterior_precision",
    "eq29_kl_volume_ratio",
    "eq30_kl1",
    "eq31_kl2",
    "eq32_kl3",
    "eq33_gamma",
    "eq33_gamma_corrected",
    "eq34_lambda_update",
    "eq35_sigma_x2_update",
    "eq36_sigma_y2_update",
    "eq36_sigma_y2_update_corrected",
    "eq37_map_iteration",
    "eq38_fixed_point",
    "eq39_map_latents",
    "lds_expected_complete_log_likelihood",
    "lds_joint_covariance",
    "lds_log_joint",
    "lds_learn",
    "lds_log_likelihood",
    "lds_objective",
    "lds_posterior",
]

#: Blocks of the variational factorisations of Sec. 3.1 (indices into
#: ``x = [x11, x21, x12, x22]``): ``q1`` fully factored, ``q2`` factored over
#: chains ``q(x11, x12) q(x21, x22)``, ``q3`` factored over time ``q(x11, x21) q(x12, x22)``.
FACTORISATIONS = {
    "q1": ((0,), (1,), (2,), (3,)),
    "q2": ((0, 2), (1, 3)),
    "q3": ((0, 1), (2, 3)),
}


def check_lds_params(lam, sigma_x2, sigma_y2) -> tuple[float, float, float]:
    """Validate the LDS parameters; return them as floats.

    Raises
    ------
    ValueError
        If ``lam`` is not a finite number with ``|lam| < 1`` (the stationary
        variance σ_x²/(1 − λ²) of eq. (19) must exist), or ``sigma_x2`` /
        ``sigma_y2`` is not a finite positive number.
    """
    lam_arr = as_finite_array(lam, "lam")
    if lam_arr.ndim != 0:
        raise ValueError(f"lam must be a scalar, got shape {lam_arr.shape}")
    lam = float(lam_arr)
    if not abs(lam) < 1.0:
        raise ValueError(f"lam must satisfy |lam| < 1 (stationary AR(1) chain), got {lam}")
    return lam, check_positive_float(sigma_x2, "sigma_x2"), check_positive_float(sigma_y2, "sigma_y2")


def _as_observations(y) -> np.ndarray:
    """Return observations as an ``(N, 2)`` array of ``[y1, y2]`` rows."""
    arr = as_finite_array(y, "y", ndim_min=1)
    arr = np.atleast_2d(arr)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"y must have shape (2,) or (N, 2), got {np.shape(y)}")
    return arr


def _as_latents(x) -> np.ndarray:
    arr = np.atleast_2d(as_finite_array(x, "x", ndim_min=1))
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"x must have shape (4,) or (N, 4), got {np.shape(x)}")
    return arr


def _as_moments(means, second_moments, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate posterior moments: means ``(N, 4)`` and ``E[x xᵀ]`` of shape ``(N, 4, 4)``."""
    m = _as_latents(means)
    s = as_finite_array(second_moments, "second_moments", ndim_min=2)
    if s.ndim == 2:
        s = s[None]
    if s.shape != (m.shape[0], 4, 4):
        raise ValueError(f"second_moments must have shape (N, 4, 4) matching means, got {s.shape}")
    if n is not None and m.shape[0] != n:
        raise ValueError(f"means must have one row per observation ({n}), got {m.shape[0]}")
    return m, s


# ---------------------------------------------------------------------------
# Brute-force routes
# ---------------------------------------------------------------------------


def lds_joint_covariance(lam, sigma_x2, sigma_y2) -> np.ndarray:
    """Covariance of ``z = [x11, x21, x12, x22, y1, y2]``, built from the generative factors.

    Writes ``z = A e`` with ``e`` six independent standard normals
    (``x_{k1} = σ_∞ e``, ``x_{k2} = λ x_{k1} + σ_x e'``, ``y_t = x_{1t} + x_{2t} + σ_y ε_t``,
    eqs. (19)–(21)) and returns ``A Aᵀ``: no closed form of the paper is used.
    """
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    s_inf = np.sqrt(sx2 / (1.0 - lam**2))
    sx, sy = np.sqrt(sx2), np.sqrt(sy2)
    A = np.zeros((6, 6))
    # noise columns: 0 -> chain 1 start, 1 -> chain 2 start, 2, 3 -> innovations, 4, 5 -> obs
    A[0, 0] = s_inf  # x11
    A[1, 1] = s_inf  # x21
    A[2] = lam * A[0]  # x12 = λ x11 + σ_x e
    A[2, 2] = sx
    A[3] = lam * A[1]
    A[3, 3] = sx
    A[4] = A[0] + A[1]  # y1 = x11 + x21 + σ_y ε
    A[4, 4] = sy
    A[5] = A[2] + A[3]
    A[5, 5] = sy
    return A @ A.T


def lds_posterior(y, lam, sigma_x2, sigma_y2) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior ``p(x | y)`` by Gaussian conditioning of the dense joint.

    Returns the means ``(N, 4)`` and the covariance ``(4, 4)`` (the same for every ``y``).
    """
    Y = _as_observations(y)
    C = lds_joint_covariance(lam, sigma_x2, sigma_y2)
    Cxx, Cxy, Cyy = C[:4, :4], C[:4, 4:], C[4:, 4:]
    gain = np.linalg.solve(Cyy, Cxy.T).T
    return Y @ gain.T, Cxx - gain @ Cxy.T


def lds_log_likelihood(y, lam, sigma_x2, sigma_y2) -> float:
    """Total log likelihood ``Σ_n log p(y_n | θ)`` from the marginal of the dense joint."""
    Y = _as_observations(y)
    C = lds_joint_covariance(lam, sigma_x2, sigma_y2)
    return float(np.sum(stats.multivariate_normal(np.zeros(2), C[4:, 4:]).logpdf(Y)))


def lds_log_joint(x, y, lam, sigma_x2, sigma_y2) -> np.ndarray:
    """``log p(x, y | θ)`` as the sum of the log densities of eqs. (19)–(21), per row."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    X, Y = _as_latents(x), _as_observations(y)
    norm = stats.norm.logpdf
    s_inf = np.sqrt(sx2 / (1 - lam**2))
    out = norm(X[:, 0], 0.0, s_inf) + norm(X[:, 1], 0.0, s_inf)
    out += norm(X[:, 2], lam * X[:, 0], np.sqrt(sx2)) + norm(X[:, 3], lam * X[:, 1], np.sqrt(sx2))
    out += norm(Y[:, 0], X[:, 0] + X[:, 1], np.sqrt(sy2)) + norm(Y[:, 1], X[:, 2] + X[:, 3], np.sqrt(sy2))
    return out


def lds_expected_complete_log_likelihood(y, means, second_moments, lam, sigma_x2, sigma_y2) -> float:
    """EM's M-step objective ``Σ_n E_q[log p(x_n, y_n | θ)]``, densely.

    With ``z = [x; y]`` and ``C(θ)`` from :func:`lds_joint_covariance`,
    ``E_q log N(z; 0, C) = −½ (log det 2πC + tr(C⁻¹ E_q[z zᵀ]))``; only the moments
    ``E_q[x]`` and ``E_q[x xᵀ]`` of ``q`` enter, whatever its factorisation.
    """
    Y = _as_observations(y)
    m, s = _as_moments(means, second_moments, Y.shape[0])
    C = lds_joint_covariance(lam, sigma_x2, sigma_y2)
    Z = np.zeros((Y.shape[0], 6, 6))
    Z[:, :4, :4] = s
    Z[:, :4, 4:] = m[:, :, None] * Y[:, None, :]
    Z[:, 4:, :4] = np.swapaxes(Z[:, :4, 4:], 1, 2)
    Z[:, 4:, 4:] = Y[:, :, None] * Y[:, None, :]
    _, logdet = np.linalg.slogdet(2 * np.pi * C)
    Cinv = np.linalg.inv(C)
    return float(-0.5 * (Y.shape[0] * logdet + np.einsum("ij,nji->", Cinv, Z)))


OBJECTIVES = ("likelihood", "q1", "q2", "q3", "zero_temperature")


def lds_objective(kind, S, lam, sigma_x2, sigma_y2) -> float:
    """Average objective per observed pair ``y = [y1, y2]`` for data with second moment ``S``.

    ``kind``: ``"likelihood"`` (log likelihood), ``"q1"``, ``"q2"``, ``"q3"`` (free energy of
    that factorisation: the likelihood minus the optimal KL, which does not depend on ``y``),
    or ``"zero_temperature"`` (``E_y log p(x̂(y), y)`` with ``x̂`` the posterior mean = MAP, an
    expectation of a quadratic form in ``y``, evaluated through ``S``). All dense.
    """
    check_choice(kind, "kind", OBJECTIVES)
    S = check_positive_definite(S, "S", size=2)
    C = lds_joint_covariance(lam, sigma_x2, sigma_y2)
    Cy = C[4:, 4:]
    if kind == "zero_temperature":
        K = np.linalg.solve(Cy, C[4:, :4]).T  # x̂ = K y
        A = np.vstack([K, np.eye(2)])  # [x̂; y] = A y
        return float(-0.5 * (np.linalg.slogdet(2 * np.pi * C)[1] + np.trace(np.linalg.solve(C, A @ S @ A.T))))
    ll = float(-0.5 * (np.linalg.slogdet(2 * np.pi * Cy)[1] + np.trace(np.linalg.solve(Cy, S))))
    if kind == "likelihood":
        return ll
    _, post = lds_posterior(np.zeros(2), lam, sigma_x2, sigma_y2)
    return ll - optimal_factored_gaussian(np.zeros(4), 0.5 * (post + post.T), FACTORISATIONS[kind])[2]


def lds_learn(kind, parameter, true_params, bounds, xatol=1e-10) -> float:
    """Learn one of ``"lam"``, ``"sigma_x2"``, ``"sigma_y2"`` by maximising :func:`lds_objective`.

    The others stay at ``true_params = (λ, σ_x², σ_y²)``, and the data's second moment is the
    true ``Σ_Y`` (infinite data), so the ML estimate is the true value (Fig. 2 of the paper).
    Bounded Brent on ``bounds`` with ``xatol``.
    """
    names = ("lam", "sigma_x2", "sigma_y2")
    check_choice(parameter, "parameter", names)
    true = check_lds_params(*true_params)
    S = lds_joint_covariance(*true)[4:, 4:]
    j = names.index(parameter)

    def neg(v):
        p = list(true)
        p[j] = v
        return -lds_objective(kind, S, *p)

    lo, hi = (float(b) for b in bounds)
    if not lo < hi:
        raise ValueError(f"bounds must be increasing, got {bounds}")
    return float(optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded", options={"xatol": xatol}).x)


# ---------------------------------------------------------------------------
# Printed equations, implemented literally
# ---------------------------------------------------------------------------


def eq23_observation_covariance(lam, sigma_x2, sigma_y2) -> np.ndarray:
    r"""Eq. (23): :math:`\Sigma_Y = I\sigma_y^2 + 2\frac{\sigma_x^2}{1-\lambda^2}\begin{bmatrix}1&\lambda\\\lambda&1\end{bmatrix}`."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return np.eye(2) * sy2 + 2 * sx2 / (1 - lam**2) * np.array([[1.0, lam], [lam, 1.0]])


def eq24_log_likelihood(y, lam, sigma_x2, sigma_y2) -> float:
    r"""Eq. (24): :math:`\log p(Y|\theta) = -\frac N2\big(\log\det 2\pi\Sigma_y + \mathrm{tr}(\Sigma_y^{-1}\frac1N\sum_n y_n y_n^T)\big)`."""
    Y = _as_observations(y)
    S = eq23_observation_covariance(lam, sigma_x2, sigma_y2)
    N = Y.shape[0]
    _, logdet = np.linalg.slogdet(2 * np.pi * S)
    return float(-N / 2 * (logdet + np.trace(np.linalg.solve(S, Y.T @ Y / N))))


def eq25_log_joint_exponent(x, y, lam, sigma_x2, sigma_y2) -> np.ndarray:
    r"""Eq. (25): the exponent of :math:`p(Y, X|\theta) = \frac1Z\exp(\cdot)`, i.e. :math:`\log p + \log Z`.

    .. math::
        -\tfrac12(\tfrac1{\sigma_y^2}+\tfrac1{\sigma_x^2})(x_{11}^2+x_{21}^2+x_{12}^2+x_{22}^2)
        - \tfrac1{2\sigma_y^2}(y_1^2+y_2^2) + \tfrac{\lambda}{\sigma_x^2}(x_{11}x_{12}+x_{21}x_{22})
        + \tfrac1{\sigma_y^2}(y_1(x_{11}+x_{21}) + y_2(x_{12}+x_{22}) - x_{11}x_{21} - x_{12}x_{22})

    ``Z`` does not depend on ``x`` or ``y``, so only differences of this exponent are
    comparable with ``log p(x, y)``.
    """
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    X, Y = _as_latents(x), _as_observations(y)
    x11, x21, x12, x22 = X.T
    y1, y2 = Y.T
    return (
        -0.5 * (1 / sy2 + 1 / sx2) * (x11**2 + x21**2 + x12**2 + x22**2)
        - (y1**2 + y2**2) / (2 * sy2)
        + lam / sx2 * (x11 * x12 + x21 * x22)
        + (y1 * (x11 + x21) + y2 * (x12 + x22) - x11 * x21 - x12 * x22) / sy2
    )


def eq27_posterior_precision(lam, sigma_x2, sigma_y2) -> np.ndarray:
    """Eq. (27), left: the 4×4 posterior precision ``Σ_{x|y}⁻¹`` as printed."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    a, b, c = 1 / sy2 + 1 / sx2, 1 / sy2, -lam / sx2
    return np.array([[a, b, c, 0.0], [b, a, 0.0, c], [c, 0.0, a, b], [0.0, c, b, a]])


def eq27_posterior_mean(y, lam, sigma_x2, sigma_y2) -> np.ndarray:
    r"""Eq. (27), right: :math:`\mu_{x|y} = \frac1{\sigma_y^2}\Sigma_{x|y}[y_1, y_1, y_2, y_2]^T`, one row per ``y``."""
    Y = _as_observations(y)
    P = eq27_posterior_precision(lam, sigma_x2, sigma_y2)
    rhs = np.stack([Y[:, 0], Y[:, 0], Y[:, 1], Y[:, 1]]) / float(sigma_y2)
    return np.linalg.solve(P, rhs).T


def eq29_kl_volume_ratio(posterior_cov, factor_covs) -> float:
    r"""Eq. (29): :math:`\mathrm{KL}_i = \tfrac12\log\det\Sigma_{x|y} - \tfrac12\sum_a\log\det\Sigma_{ia}`.

    Valid only for factors that match the posterior's precision blocks (the KL-optimal ones).
    """
    _, ld = np.linalg.slogdet(np.asarray(posterior_cov, dtype=float))
    return float(0.5 * ld - 0.5 * sum(np.linalg.slogdet(np.atleast_2d(S))[1] for S in factor_covs))


def eq33_gamma(lam, sigma_x2, sigma_y2) -> float:
    r"""Eq. (33) as printed: :math:`\gamma = (1-\lambda^2)\big((2\sigma_x^2+\sigma_y^2)^2 - \lambda\sigma_y^4\big)`."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return (1 - lam**2) * ((2 * sx2 + sy2) ** 2 - lam * sy2**2)


def eq33_gamma_corrected(lam, sigma_x2, sigma_y2) -> float:
    r"""Eq. (33) corrected: :math:`\gamma = (1-\lambda^2)\big((2\sigma_x^2+\sigma_y^2)^2 - \lambda^2\sigma_y^4\big)`.

    Derivation: the precision (27) has eigenvalues ``a ± b ± c`` (chain-symmetric /
    antisymmetric × time-symmetric / antisymmetric modes), so
    ``det Σ⁻¹ = ((a+b)² − c²)((a−b)² − c²)``; multiplying by ``(σ_x²σ_y²)⁴`` gives
    ``σ_y⁴ (1 − λ²)((2σ_x² + σ_y²)² − λ²σ_y⁴) = σ_y⁴ γ``.
    """
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return (1 - lam**2) * ((2 * sx2 + sy2) ** 2 - lam**2 * sy2**2)


def eq30_kl1(lam, sigma_x2, sigma_y2, gamma=eq33_gamma) -> float:
    r"""Eq. (30): :math:`\mathrm{KL}_1 = \tfrac12\log\frac{(\sigma_y^2+\sigma_x^2)^4}{\sigma_y^4\gamma}` (fully factored ``q1``).

    ``gamma`` is the function giving γ: the printed eq. (33) by default, or
    :func:`eq33_gamma_corrected`.
    """
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return 0.5 * np.log((sy2 + sx2) ** 4 / (sy2**2 * gamma(lam, sx2, sy2)))


def eq31_kl2(lam, sigma_x2, sigma_y2, gamma=eq33_gamma) -> float:
    r"""Eq. (31): :math:`\mathrm{KL}_2 = \tfrac12\log\frac{((\sigma_y^2+\sigma_x^2)^2-\lambda^2\sigma_y^4)^2}{\sigma_y^4\gamma}` (over chains, ``q2``)."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return 0.5 * np.log(((sy2 + sx2) ** 2 - lam**2 * sy2**2) ** 2 / (sy2**2 * gamma(lam, sx2, sy2)))


def eq32_kl3(lam, sigma_x2, sigma_y2, gamma=eq33_gamma) -> float:
    r"""Eq. (32): :math:`\mathrm{KL}_3 = \tfrac12\log\frac{(\sigma_y^2+2\sigma_x^2)^2}{\gamma}` (over time, ``q3``)."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    return 0.5 * np.log((sy2 + 2 * sx2) ** 2 / gamma(lam, sx2, sy2))


def eq34_lambda_update(second_moments, sigma_x2) -> float:
    r"""Eq. (34): :math:`\lambda = -\frac1a + \mathrm{sign}(a)\sqrt{1+\frac1{a^2}}`,
    :math:`a = \frac1{N\sigma_x^2}\sum_n(\langle x_{11}x_{12}\rangle + \langle x_{21}x_{22}\rangle)`.

    ``second_moments``: ``E_q[x xᵀ]`` per sequence, shape ``(N, 4, 4)``. ``a = 0`` gives λ = 0
    (the limit of the formula).
    """
    s = as_finite_array(second_moments, "second_moments", ndim_min=2)
    s = s[None] if s.ndim == 2 else s
    if s.shape[1:] != (4, 4):
        raise ValueError(f"second_moments must have shape (N, 4, 4), got {s.shape}")
    sx2 = check_positive_float(sigma_x2, "sigma_x2")
    a = np.sum(s[:, 0, 2] + s[:, 1, 3]) / (s.shape[0] * sx2)
    if a == 0:
        return 0.0
    return float(-1 / a + np.sign(a) * np.sqrt(1 + 1 / a**2))


def eq35_sigma_x2_update(second_moments, lam) -> float:
    r"""Eq. (35): :math:`\sigma_x^2 = \frac1{4N}\sum_n(\langle x_{11}^2\rangle+\langle x_{21}^2\rangle+\langle x_{12}^2\rangle+\langle x_{22}^2\rangle - 2\lambda(\langle x_{11}x_{12}\rangle+\langle x_{21}x_{22}\rangle))`."""
    s = as_finite_array(second_moments, "second_moments", ndim_min=2)
    s = s[None] if s.ndim == 2 else s
    if s.shape[1:] != (4, 4):
        raise ValueError(f"second_moments must have shape (N, 4, 4), got {s.shape}")
    lam, _, _ = check_lds_params(lam, 1.0, 1.0)
    tot = np.trace(s, axis1=1, axis2=2) - 2 * lam * (s[:, 0, 2] + s[:, 1, 3])
    return float(np.sum(tot) / (4 * s.shape[0]))


def _sigma_y2_update(y, means, second_moments, cross_sign: float) -> float:
    Y = _as_observations(y)
    m, s = _as_moments(means, second_moments, Y.shape[0])
    y1, y2 = Y.T
    inner = (
        np.trace(s, axis1=1, axis2=2)
        + y1**2
        + y2**2
        - 2 * (y1 * (m[:, 0] + m[:, 1]) + y2 * (m[:, 2] + m[:, 3]))
        + cross_sign * 2 * (s[:, 0, 1] + s[:, 2, 3])
    )
    return float(np.sum(inner) / (2 * Y.shape[0]))


def eq36_sigma_y2_update(y, means, second_moments) -> float:
    r"""Eq. (36) as printed:
    :math:`\sigma_y^2 = \frac1{2N}\sum_n(\sum\langle x^2\rangle + y_1^2 + y_2^2
    - 2(y_1(\langle x_{11}\rangle+\langle x_{21}\rangle) + y_2(\langle x_{12}\rangle+\langle x_{22}\rangle)
    + \langle x_{11}x_{21}\rangle + \langle x_{12}x_{22}\rangle))`.

    The cross moments ``⟨x_{1t}x_{2t}⟩`` enter with a minus sign here; see
    :func:`eq36_sigma_y2_update_corrected`.
    """
    return _sigma_y2_update(y, means, second_moments, cross_sign=-1.0)


def eq36_sigma_y2_update_corrected(y, means, second_moments) -> float:
    r"""Eq. (36) corrected: the cross moments enter with a plus sign,
    :math:`\sigma_y^2 = \frac1{2N}\sum_n\sum_t\langle(y_t - x_{1t} - x_{2t})^2\rangle`, i.e.
    :math:`\ldots - 2(y_1(\ldots) + y_2(\ldots)) + 2(\langle x_{11}x_{21}\rangle + \langle x_{12}x_{22}\rangle)`.

    Derivation: ``(y − x₁ − x₂)² = y² + x₁² + x₂² − 2y(x₁ + x₂) + 2x₁x₂`` (the sign the
    log joint (25) itself carries: ``−x₁₁x₂₁/σ_y²`` in the exponent).
    """
    return _sigma_y2_update(y, means, second_moments, cross_sign=+1.0)


def eq37_map_iteration(lam, sigma_x2, sigma_y2) -> tuple[np.ndarray, np.ndarray]:
    r"""Eq. (37): the linear MAP update ``x⁽ⁱ⁺¹⁾ = W x⁽ⁱ⁾ + γ(y)``.

    Returns ``W`` (4×4) and the matrix ``G`` (4×2) with ``γ(y) = G y``:
    :math:`W = \frac1{\sigma_x^2+\sigma_y^2}\begin{bmatrix}0&-\sigma_x^2&\lambda\sigma_y^2&0\\-\sigma_x^2&0&0&\lambda\sigma_y^2\\
    \lambda\sigma_y^2&0&0&-\sigma_x^2\\0&\lambda\sigma_y^2&-\sigma_x^2&0\end{bmatrix}`,
    :math:`\gamma = \frac{\sigma_x^2}{\sigma_x^2+\sigma_y^2}[y_1,y_1,y_2,y_2]^T`.
    """
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    u, v = -sx2, lam * sy2
    W = np.array([[0, u, v, 0], [u, 0, 0, v], [v, 0, 0, u], [0, v, u, 0]]) / (sx2 + sy2)
    G = sx2 / (sx2 + sy2) * np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    return W, G


def eq38_fixed_point(y, lam, sigma_x2, sigma_y2) -> np.ndarray:
    r"""Eq. (38): the fixed point of (37) as the eigenvalue-one eigenvector of
    :math:`M = \begin{bmatrix}W & \gamma\\ 0^T & 1\end{bmatrix}`, scaled so its last entry is 1.

    ``y`` is a single observation ``[y1, y2]``. Returns the first four entries.
    """
    Y = _as_observations(y)
    if Y.shape[0] != 1:
        raise ValueError(f"y must be a single observation of shape (2,), got {np.shape(y)}")
    W, G = eq37_map_iteration(lam, sigma_x2, sigma_y2)
    M = np.zeros((5, 5))
    M[:4, :4], M[:4, 4], M[4, 4] = W, G @ Y[0], 1.0
    vals, vecs = np.linalg.eig(M)
    v = vecs[:, np.argmin(np.abs(vals - 1.0))].real
    return v[:4] / v[4]


def eq39_map_latents(y, lam, sigma_x2, sigma_y2) -> np.ndarray:
    r"""Eq. (39): :math:`e_{\lambda=1} = \frac{\sigma_x^2}{Z}[(2\sigma_x^2+\sigma_y^2)y_1+\lambda\sigma_y^2y_2,\ \cdot,\
    (2\sigma_x^2+\sigma_y^2)y_2+\lambda\sigma_y^2y_1,\ \cdot]^T`,
    :math:`Z = 4\sigma_x^4 - \lambda^2\sigma_y^4 + 4\sigma_x^2\sigma_y^2 + \sigma_y^4`; one row per ``y``."""
    lam, sx2, sy2 = check_lds_params(lam, sigma_x2, sigma_y2)
    Y = _as_observations(y)
    Z = 4 * sx2**2 - lam**2 * sy2**2 + 4 * sx2 * sy2 + sy2**2
    u1 = (2 * sx2 + sy2) * Y[:, 0] + lam * sy2 * Y[:, 1]
    u2 = (2 * sx2 + sy2) * Y[:, 1] + lam * sy2 * Y[:, 0]
    return sx2 / Z * np.stack([u1, u1, u2, u2], axis=1)


#: Fig. 2 of the paper: λ = 0.9, σ_x² = 1 − λ² = 0.19, σ_y² = 0.43.
FIG2 = (0.9, 0.19, 0.43)
#: Search intervals of each parameter learned in Fig. 2 (λ below 1: the chain stays stationary).
FIG2_BOUNDS = {"lam": (0.0, 0.999), "sigma_x2": (0.01, 2.0), "sigma_y2": (0.01, 3.0)}
