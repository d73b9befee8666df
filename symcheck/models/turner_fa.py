"""Two-latent factor analysis of Turner, Berkes & Sahani, Sec. 3.2, eqs. (40)–(49).

    x_k ~ N(0, 1),  y | x ~ N(w₁ x₁ + w₂ x₂, σ_y² I₂),  w_k = w_k [cos θ_k, sin θ_k]ᵀ,

learned by maximum likelihood, by variational (mean-field, ``q(x) = q(x₁) q(x₂)``) EM,
and by zero-temperature EM (the log joint at the MAP latents).

Learning is studied in the infinite-data limit used by the paper's figures: the data
enter only through their second moment ``S = E[y yᵀ]``, set to the true model's
covariance ``Σ_y(θ*)`` so that the true parameters are the ML parameters. The three
objectives per datum are then

* log likelihood ``L(θ) = −½ (log det 2πΣ_y(θ) + tr(Σ_y(θ)⁻¹ S))``;
* free energy ``F(θ) = L(θ) − KL(θ)``: the KL of the optimal mean-field ``q`` from
  the posterior does not depend on ``y`` (Gaussian posterior), so the average free
  energy is the likelihood minus that KL;
* zero-temperature objective ``E_y log p(x̂(y), y)`` with ``x̂(y)`` the posterior mean
  (= MAP), eq. (49), which is quadratic in ``y`` and averaged exactly through ``S``.

The ``eqNN_*`` functions implement the printed equations literally; ``fa_*`` are the
dense routes (joint Gaussian of ``[x, y]`` built from ``W``, the posterior as a stacked least-squares problem, the KL of
:func:`symcheck.kl.optimal_factored_gaussian`).

Domain: all parameters finite, ``σ_y² > 0``; magnitudes may be any real number (only
``w_k²`` and the signs of the weight vectors enter).

References
----------
R. E. Turner, P. Berkes, M. Sahani, *Technical report for Biases in Variational
Learning*, Gatsby Unit, Sec. 3.2.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import optimize

from symcheck._checks import as_finite_array, check_choice, check_positive_definite, check_positive_float
from symcheck.certify import brent_argmax_tolerance
from symcheck.evidence import EPS, ROUNDING
from symcheck.kl import optimal_factored_gaussian

__all__ = [
    "FIG5_SIGMA_Y2",
    "FIG5_THETA2",
    "THETA2_BOUNDS",
    "W_BOUNDS",
    "check_fa_params",
    "eq43_observation_covariance",
    "eq45_posterior_mean",
    "eq46_posterior_precision",
    "eq47_factor_variances",
    "eq48_kl",
    "eq48_kl_corrected",
    "eq49_log_joint",
    "fa_expected_zero_temperature",
    "fa_joint_covariance",
    "fa_learn",
    "fa_learn_with_tolerance",
    "fa_mean_field_kl",
    "fa_objective",
    "fa_posterior",
    "fa_regression_matrix",
    "fa_true_params",
    "fa_weights",
    "fig5_biases",
]


def check_fa_params(w1, w2, theta1, theta2, sigma_y2) -> tuple[float, float, float, float, float]:
    """Validate the FA parameters (finite reals, ``sigma_y2 > 0``); return them as floats."""
    out = []
    for name, v in (("w1", w1), ("w2", w2), ("theta1", theta1), ("theta2", theta2)):
        arr = as_finite_array(v, name)
        if arr.ndim != 0:
            raise ValueError(f"{name} must be a scalar, got shape {arr.shape}")
        out.append(float(arr))
    out.append(check_positive_float(sigma_y2, "sigma_y2"))
    return tuple(out)


def fa_weights(w1, w2, theta1, theta2) -> np.ndarray:
    """The 2×2 loading matrix ``W = [w₁, w₂]`` with columns ``w_k [cos θ_k, sin θ_k]ᵀ`` (eq. (41))."""
    w1, w2, t1, t2, _ = check_fa_params(w1, w2, theta1, theta2, 1.0)
    return np.array([[w1 * np.cos(t1), w2 * np.cos(t2)], [w1 * np.sin(t1), w2 * np.sin(t2)]])


def _as_obs(y) -> np.ndarray:
    arr = np.atleast_2d(as_finite_array(y, "y", ndim_min=1))
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"y must have shape (2,) or (N, 2), got {np.shape(y)}")
    return arr


# ---------------------------------------------------------------------------
# Dense routes
# ---------------------------------------------------------------------------


def fa_joint_covariance(w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    """Covariance of ``[x₁, x₂, y₁, y₂]``: ``[[I, Wᵀ], [W, W Wᵀ + σ_y² I]]`` from ``y = W x + σ_y ε``."""
    *_, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    W = fa_weights(w1, w2, theta1, theta2)
    A = np.zeros((4, 4))  # [x; y] = A [e_x; e_y]
    A[:2, :2] = np.eye(2)
    A[2:, :2] = W
    A[2:, 2:] = np.sqrt(sy2) * np.eye(2)
    return A @ A.T


def fa_regression_matrix(w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    """The stacked 4×2 matrix ``A = [W/σ_y; I]`` of the posterior as a least-squares problem.

    ``−2 log p(x | y) = |A x − [y/σ_y; 0]|² + const`` (likelihood rows, then the prior rows),
    so the posterior precision is ``AᵀA`` and ``cond(AᵀA) = cond(A)²``.
    """
    *_, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    return np.vstack([fa_weights(w1, w2, theta1, theta2) / np.sqrt(sy2), np.eye(2)])


def fa_posterior(y, w1, w2, theta1, theta2, sigma_y2) -> tuple[np.ndarray, np.ndarray]:
    """Exact posterior as the stacked least-squares problem of :func:`fa_regression_matrix`.

    With ``A = QR``: mean ``R⁻¹Qᵀ[y/σ_y; 0]``, covariance ``R⁻¹R⁻ᵀ``. Built from ``W`` alone
    (none of eqs. (45)–(46)); the QR route keeps the relative error at ``eps·cond(A)``
    where Gaussian conditioning of the joint would cancel catastrophically as σ_y² → 0.
    Returns the means ``(N, 2)`` and the covariance ``(2, 2)``.
    """
    Y = _as_obs(y)
    *_, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    A = fa_regression_matrix(w1, w2, theta1, theta2, sy2)
    Q, R = np.linalg.qr(A)
    Rinv = np.linalg.solve(R, np.eye(2))
    B = np.hstack([Y / np.sqrt(sy2), np.zeros_like(Y)])
    means = (B @ Q) @ Rinv.T
    cov = Rinv @ Rinv.T
    return means, 0.5 * (cov + cov.T)


def fa_mean_field_kl(w1, w2, theta1, theta2, sigma_y2) -> float:
    """``min_q KL[q(x₁)q(x₂) ‖ p(x | y)]`` from the dense posterior covariance (independent of ``y``)."""
    _, cov = fa_posterior(np.zeros(2), w1, w2, theta1, theta2, sigma_y2)
    return optimal_factored_gaussian(np.zeros(2), cov)[2]


def _avg_log_likelihood(S, C) -> float:
    _, logdet = np.linalg.slogdet(2 * np.pi * C)
    return float(-0.5 * (logdet + np.trace(np.linalg.solve(C, S))))


def fa_expected_zero_temperature(S, w1, w2, theta1, theta2, sigma_y2) -> float:
    """``E_y log p(x̂(y), y)`` for ``y ~`` any law with second moment ``S``; ``x̂ = K y`` the posterior mean.

    ``log p(x, y) = −log 2π − log 2πσ_y² − ½(|x|² + |y − Wx|²/σ_y²)``; with ``x̂ = K y``
    the bracket is ``yᵀ(KᵀK + (I − WK)ᵀ(I − WK)/σ_y²) y``, whose mean is a trace with ``S``.
    """
    S = check_positive_definite(S, "S", size=2)
    *_, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    W = fa_weights(w1, w2, theta1, theta2)
    C = fa_joint_covariance(w1, w2, theta1, theta2, sy2)
    K = np.linalg.solve(C[2:, 2:], C[2:, :2]).T  # posterior mean = K y (Gaussian conditioning)
    R = np.eye(2) - W @ K
    Q = K.T @ K + R.T @ R / sy2
    return float(-np.log(2 * np.pi) - np.log(2 * np.pi * sy2) - 0.5 * np.trace(Q @ S))


def fa_objective(kind, S, w1, w2, theta1, theta2, sigma_y2) -> float:
    """Average objective per datum for data with second moment ``S``.

    ``kind``: ``"likelihood"`` (log likelihood), ``"free_energy"`` (log likelihood minus
    the mean-field KL, dense) or ``"zero_temperature"`` (log joint at the MAP latents).
    """
    check_choice(kind, "kind", ("likelihood", "free_energy", "zero_temperature"))
    if kind == "zero_temperature":
        return fa_expected_zero_temperature(S, w1, w2, theta1, theta2, sigma_y2)
    S = check_positive_definite(S, "S", size=2)
    C = fa_joint_covariance(w1, w2, theta1, theta2, sigma_y2)[2:, 2:]
    ll = _avg_log_likelihood(S, C)
    if kind == "likelihood":
        return ll
    return ll - fa_mean_field_kl(w1, w2, theta1, theta2, sigma_y2)


def fa_learn(kind, parameter, true_params, bounds, xatol=1e-10) -> float:
    """Learn one FA parameter by maximising an objective, the others fixed at their true values.

    Parameters
    ----------
    kind : {"likelihood", "free_energy", "zero_temperature"}
        The objective (see :func:`fa_objective`).
    parameter : {"theta2", "w2"}
        The parameter learned.
    true_params : mapping
        ``w1, w2, theta1, theta2, sigma_y2`` of the data-generating model; the data's second
        moment is its covariance (infinite data), so these are also the ML values.
    bounds : (float, float)
        Search interval (bounded Brent, ``xatol``).

    Returns
    -------
    float
        The maximiser. Its accuracy is limited by the flatness of the objective: Brent
        stops within ``xatol``, and values of the objective closer than ``eps·|F|`` are
        indistinguishable, an uncertainty ``≈ sqrt(2 eps |F| / |F''|)`` in the argmax.
    """
    check_choice(parameter, "parameter", ("theta2", "w2"))
    p = dict(true_params)
    S = fa_joint_covariance(p["w1"], p["w2"], p["theta1"], p["theta2"], p["sigma_y2"])[2:, 2:]
    lo, hi = (float(b) for b in bounds)
    if not lo < hi:
        raise ValueError(f"bounds must be increasing, got {bounds}")

    def negobj(v):
        q = dict(p, **{parameter: v})
        return -fa_objective(kind, S, q["w1"], q["w2"], q["theta1"], q["theta2"], q["sigma_y2"])

    res = optimize.minimize_scalar(negobj, bounds=(lo, hi), method="bounded", options={"xatol": xatol})
    return float(res.x)


#: Search interval for θ₂ in Figs. 3–5 (between parallel and orthogonal to w₁ at θ₁ = 0).
THETA2_BOUNDS = (0.0, np.pi / 2)


def fa_true_params(theta2=np.pi / 8, sigma_y2=0.43, w2=1.0) -> dict:
    """The true/ML parameters of Figs. 3–7: ``w₁ = 1``, ``θ₁ = 0`` and the given ``θ₂, σ_y², w₂``."""
    return {"w1": 1.0, "w2": w2, "theta1": 0.0, "theta2": theta2, "sigma_y2": sigma_y2}


def fa_learn_with_tolerance(kind, parameter, true_params, bounds) -> tuple[float, float]:
    """:func:`fa_learn` (``xatol = 1e-10``) and the accuracy of the learned value.

    The accuracy is :func:`symcheck.certify.brent_argmax_tolerance` with evaluation noise
    ``64·eps·cond(Σ_y)`` at the maximiser and step ``1e-4·(hi − lo)``; a maximiser within that
    step of a bound gets Brent's own accuracy ``2(√eps·|x| + 1e-10)``.
    """
    p = dict(true_params)
    x = fa_learn(kind, parameter, p, bounds)
    S = fa_joint_covariance(**p)[2:, 2:]

    def f(v):
        q = dict(p, **{parameter: v})
        return fa_objective(kind, S, q["w1"], q["w2"], q["theta1"], q["theta2"], q["sigma_y2"])

    q = dict(p, **{parameter: x})
    noise = ROUNDING * np.linalg.cond(fa_joint_covariance(**q)[2:, 2:])
    h = 1e-4 * (bounds[1] - bounds[0])
    if x - h <= bounds[0] or x + h >= bounds[1]:  # maximiser on the boundary
        return x, 2 * (np.sqrt(EPS) * abs(x) + 1e-10)
    return x, brent_argmax_tolerance(f, x, 1e-10, noise, h)


# ---------------------------------------------------------------------------
# Printed equations, implemented literally
# ---------------------------------------------------------------------------


def eq43_observation_covariance(w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    r"""Eq. (43): :math:`\Sigma_y` with entries :math:`w_1^2\cos^2\theta_1 + w_2^2\cos^2\theta_2 + \sigma_y^2`,
    :math:`w_1^2\sin\theta_1\cos\theta_1 + w_2^2\sin\theta_2\cos\theta_2`, :math:`w_1^2\sin^2\theta_1 + w_2^2\sin^2\theta_2 + \sigma_y^2`."""
    w1, w2, t1, t2, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    off = w1**2 * np.sin(t1) * np.cos(t1) + w2**2 * np.sin(t2) * np.cos(t2)
    return np.array(
        [
            [w1**2 * np.cos(t1) ** 2 + w2**2 * np.cos(t2) ** 2 + sy2, off],
            [off, w1**2 * np.sin(t1) ** 2 + w2**2 * np.sin(t2) ** 2 + sy2],
        ]
    )


def eq46_posterior_precision(w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    r"""Eq. (46): :math:`\Sigma_{x|y}^{-1} = \frac1{\sigma_y^2}\begin{bmatrix}w_1^2+\sigma_y^2 & w_1w_2\cos(\theta_1-\theta_2)\\
    w_1w_2\cos(\theta_1-\theta_2) & w_2^2+\sigma_y^2\end{bmatrix}`."""
    w1, w2, t1, t2, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    c = w1 * w2 * np.cos(t1 - t2)
    return np.array([[w1**2 + sy2, c], [c, w2**2 + sy2]]) / sy2


def eq45_posterior_mean(y, w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    r"""Eq. (45): :math:`\mu_{x|y} = \frac1{\sigma_y^2}\Sigma_{x|y}[y_1w_1\cos\theta_1 + y_2w_1\sin\theta_1,\
    y_1w_2\cos\theta_2 + y_2w_2\sin\theta_2]^T`, one row per ``y``."""
    Y = _as_obs(y)
    w1, w2, t1, t2, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    rhs = np.stack([Y[:, 0] * w1 * np.cos(t1) + Y[:, 1] * w1 * np.sin(t1), Y[:, 0] * w2 * np.cos(t2) + Y[:, 1] * w2 * np.sin(t2)])
    return np.linalg.solve(eq46_posterior_precision(w1, w2, t1, t2, sy2), rhs / sy2).T


def eq47_factor_variances(w1, w2, sigma_y2) -> np.ndarray:
    r"""Eq. (47): variances :math:`\frac{\sigma_y^2}{\sigma_y^2+w_1^2}`, :math:`\frac{\sigma_y^2}{\sigma_y^2+w_2^2}` of ``q(x₁), q(x₂)``."""
    w1, w2, _, _, sy2 = check_fa_params(w1, w2, 0.0, 0.0, sigma_y2)
    return np.array([sy2 / (sy2 + w1**2), sy2 / (sy2 + w2**2)])


def _kl_log_ratio(w1, w2, theta1, theta2, sigma_y2) -> float:
    w1, w2, t1, t2, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    num = (sy2 + w1**2) * (sy2 + w2**2)
    # the denominator is σ_y⁴ det Σ_{x|y}⁻¹ = σ_y⁴ + σ_y²(w₁² + w₂²) + w₁²w₂² sin²Δθ > 0; written
    # this way it does not cancel when σ_y² → 0 and Δθ → 0
    den = sy2**2 + sy2 * (w1**2 + w2**2) + (w1 * w2 * np.sin(t1 - t2)) ** 2
    return float(np.log(num / den))


def eq48_kl(w1, w2, theta1, theta2, sigma_y2) -> float:
    r"""Eq. (48) as printed:
    :math:`\mathrm{KL} = \log\frac{(\sigma_y^2+w_1^2)(\sigma_y^2+w_2^2)}{(\sigma_y^2+w_1^2)(\sigma_y^2+w_2^2) - w_1^2w_2^2\cos^2(\theta_1-\theta_2)}`.

    (The denominator is evaluated as ``σ_y⁴ + σ_y²(w₁²+w₂²) + w₁²w₂² sin²(θ₁−θ₂)``, the same
    number without cancellation.) See :func:`eq48_kl_corrected`.
    """
    return _kl_log_ratio(w1, w2, theta1, theta2, sigma_y2)


def eq48_kl_corrected(w1, w2, theta1, theta2, sigma_y2) -> float:
    r"""Eq. (48) corrected: one half of the printed log ratio,
    :math:`\mathrm{KL} = \tfrac12\log\frac{(\sigma_y^2+w_1^2)(\sigma_y^2+w_2^2)}{(\sigma_y^2+w_1^2)(\sigma_y^2+w_2^2) - w_1^2w_2^2\cos^2(\theta_1-\theta_2)}`.

    Derivation: eq. (29) gives ``KL = ½ log det Σ_{x|y} − ½ Σ_k log σ_k²`` with
    ``σ_k² = 1/(Σ_{x|y}⁻¹)_kk``, i.e. ``½ log(Π_k (Σ⁻¹)_kk / det Σ⁻¹)``; with (46) this is
    one half of the printed expression. Valid for all finite parameters with ``σ_y² > 0``.
    """
    return 0.5 * _kl_log_ratio(w1, w2, theta1, theta2, sigma_y2)


def eq49_log_joint(x, y, w1, w2, theta1, theta2, sigma_y2) -> np.ndarray:
    r"""Eq. (49): :math:`\log p(x, y) = -\log 2\pi - \log 2\pi\sigma_y^2 - \tfrac12\big(x_1^2 + x_2^2
    + \tfrac1{\sigma_y^2}(y_1 - w_1\cos\theta_1x_1 - w_2\cos\theta_2x_2)^2
    + \tfrac1{\sigma_y^2}(y_2 - w_1\sin\theta_1x_1 - w_2\sin\theta_2x_2)^2\big)`, one value per row."""
    w1, w2, t1, t2, sy2 = check_fa_params(w1, w2, theta1, theta2, sigma_y2)
    X, Y = np.atleast_2d(as_finite_array(x, "x", ndim_min=1)), _as_obs(y)
    if X.shape != Y.shape:
        raise ValueError(f"x must have the shape of y {Y.shape}, got {X.shape}")
    x1, x2 = X.T
    r1 = Y[:, 0] - w1 * np.cos(t1) * x1 - w2 * np.cos(t2) * x2
    r2 = Y[:, 1] - w1 * np.sin(t1) * x1 - w2 * np.sin(t2) * x2
    return -np.log(2 * np.pi) - np.log(2 * np.pi * sy2) - 0.5 * (x1**2 + x2**2 + r1**2 / sy2 + r2**2 / sy2)


#: Search interval for w₂ in Figs. 6–7.
W_BOUNDS = (0.0, 3.0)

#: Fig. 5 of the paper: the true θ₂ and the observation noises σ_y² of the bias map.
FIG5_THETA2 = (np.pi / 16, np.pi / 8, np.pi / 4, 3 * np.pi / 8)
FIG5_SIGMA_Y2 = (0.03, 0.1, 0.3, 1.0, 3.0)


def fig5_biases(theta2=FIG5_THETA2, sigma_y2=FIG5_SIGMA_Y2):
    """Learned θ₂ − true θ₂ for zero-temperature EM and the free energy, with accuracies; rows (θ₂, σ_y², bz, bf, tol)."""
    rows = []
    for t2, sy2 in itertools.product(theta2, sigma_y2):
        p = fa_true_params(t2, sy2)
        vz, tz = fa_learn_with_tolerance("zero_temperature", "theta2", p, THETA2_BOUNDS)
        vf, tf = fa_learn_with_tolerance("free_energy", "theta2", p, THETA2_BOUNDS)
        rows.append((t2, sy2, vz - t2, vf - t2, tz + tf))
    return rows
