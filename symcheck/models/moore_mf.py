"""Moore's matrix factorisation experiment (Sec. 2, Sec. 3.2, Fig. 4) with exact baselines.

Model (Moore, Sec. 2), with a gain g (Moore: g = 1/√k)::

    U (n×k), V (m×k) ~ N(0, I),   R ~ N(g·UVᵀ, σ_n² I).

Posterior approximations, each giving the predictive mean E[gUVᵀ | R] and an ELBO:

* MAP of (U, V) — closed form: soft-thresholding of R's singular values at σ_n²/g
  (:func:`map_closed_form`), and L-BFGS on (U, V) (:func:`fit_map`);
* MFVI: Moore App. A's "elementwise (mean-field) Gaussian" q(X) = Πᵢⱼ N(xᵢⱼ; mᵢⱼ, sᵢⱼ) on
  X = [U; V] — its global optimum by Nakajima, Sugiyama, Babacan & Tomioka (2013)
  (:func:`nakajima_vb`); the coordinate-ascent fit with a certified distance to a local
  maximum is in `symcheck.models.moore_mfvi`;
* isotropic MFVI q* = N(M, cI) (:func:`fit_isotropic`);
* SymVI: q̃ = q* mixed over O(k), ELBO = ELBO(q*) + KL[q*‖q̃] (Moore eq. (5)), the KL by
  Monte Carlo with fixed draws (common random numbers) and symcheck's ₀F₁, with Moore's
  printed A or the corrected B = MᵀX/c (:func:`fit_symvi`).

Nakajima et al. (2013) treat V = BAᵀ + E (L×M), A ~ N(0, c_a²), B ~ N(0, c_b²), noise σ²,
with the *matrix-wise* factorisation q(A)q(B). Moore's model is theirs with B = √g U,
A = √g V (c_a² = c_b² = g, L = n, M = m, H = k). Their global solution is column-wise
independent with isotropic column covariances (their Sec. 3), so it lies inside the
elementwise family: the elementwise (Moore's) MFVI optimum is the matrix-wise one.

References
----------
D. A. Moore (2016), *Symmetrized Variational Inference*, Sec. 2, 3.2, Fig. 4, App. A.
S. Nakajima, M. Sugiyama, S. D. Babacan, R. Tomioka (2013), *Global analytic solution of
fully-observed variational Bayesian matrix factorization*, JMLR 14, 1–37, Thm. 2 / Cor. 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from symcheck._checks import as_finite_array, check_choice, check_int, check_positive_float, check_rng
from symcheck.hyp0f1 import log_hyp0f1_and_grad

__all__ = [
    "FitResult",
    "MFProblem",
    "elbo_factorised",
    "fit_isotropic",
    "fit_map",
    "fit_symvi",
    "map_closed_form",
    "nakajima_threshold",
    "nakajima_vb",
    "reconstruction_error",
    "sample_problem",
    "symvi_kl",
]

_LOG_2PI = math.log(2 * math.pi)
#: KL forms of :func:`symvi_kl`: Moore's printed symmetrised A, or the corrected B = MᵀX/c.
FORMS = ("corrected", "printed")


@dataclass(frozen=True)
class MFProblem:
    """Observed R (n×m) of Moore's model with k traits, noise variance ``sigma2`` and gain ``gain``."""

    R: np.ndarray
    k: int
    sigma2: float
    gain: float

    def __post_init__(self):
        R = as_finite_array(self.R, "R")
        if R.ndim != 2:
            raise ValueError(f"R must be a 2-D matrix, got shape {R.shape}")
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=1))
        object.__setattr__(self, "sigma2", check_positive_float(self.sigma2, "sigma2"))
        object.__setattr__(self, "gain", check_positive_float(self.gain, "gain"))

    @property
    def n(self) -> int:
        return self.R.shape[0]

    @property
    def m(self) -> int:
        return self.R.shape[1]


@dataclass
class FitResult:
    """A fitted approximation: predictive mean E[gUVᵀ|R], ELBO (NaN for MAP) and convergence record."""

    mean: np.ndarray
    elbo: float
    iterations: int
    converged: bool
    criterion: str
    params: dict = field(default_factory=dict)


def sample_problem(n: int, m: int, k: int, sigma_n: float, rng, gain: float | None = None):
    """Draw U, V ~ N(0, I) and R = g·UVᵀ + σ_n E (Moore Sec. 2); return (problem, truth g·UVᵀ)."""
    n, m, k = check_int(n, "n", minimum=1), check_int(m, "m", minimum=1), check_int(k, "k", minimum=1)
    sigma_n = check_positive_float(sigma_n, "sigma_n")
    g = 1.0 / math.sqrt(k) if gain is None else check_positive_float(gain, "gain")
    gen = check_rng(rng)
    U, V = gen.standard_normal((n, k)), gen.standard_normal((m, k))
    truth = g * U @ V.T
    return MFProblem(truth + sigma_n * gen.standard_normal((n, m)), k, sigma_n**2, g), truth


def reconstruction_error(mean, truth) -> float:
    """Mean squared error per entry, ‖mean − truth‖²_F/(nm) (Moore Fig. 4b's "reconstruction")."""
    return float(np.mean((np.asarray(mean) - np.asarray(truth)) ** 2))


# =====================================================================================
# closed forms: MAP and Nakajima's global VB solution
# =====================================================================================


def map_closed_form(problem: MFProblem) -> np.ndarray:
    """MAP of g·UVᵀ: R's top-k singular values γ shrunk to max(γ − σ²/g, 0).

    With B = √g U, A = √g V the prior term is (‖A‖² + ‖B‖²)/(2g) ≥ ‖BAᵀ‖_*/g (equality for
    balanced factors), so the MAP of BAᵀ minimises ‖R − BAᵀ‖²/(2σ²) + ‖BAᵀ‖_*/g over rank ≤ k:
    singular-value soft-thresholding at σ²/g (σ²√k in Moore's scaling).
    """
    W, gam, Zt = np.linalg.svd(problem.R, full_matrices=False)
    h = min(problem.k, gam.size)
    shrunk = np.maximum(gam[:h] - problem.sigma2 / problem.gain, 0.0)
    return (W[:, :h] * shrunk) @ Zt[:h]


def nakajima_threshold(problem: MFProblem) -> float:
    """Nakajima et al. (2013) Thm. 2 threshold γ_VB: components with γ_h ≤ γ_VB are zeroed.

    γ_VB² = σ²[(L+M)/2 + σ²/(2c_a²c_b²) + √(((L+M)/2 + σ²/(2c_a²c_b²))² − LM)], with
    L, M = n, m and c_a²c_b² = g² in Moore's model.
    """
    s2, cc = problem.sigma2, problem.gain**2
    a = 0.5 * (problem.n + problem.m) + s2 / (2 * cc)
    return math.sqrt(s2 * (a + math.sqrt(a * a - problem.n * problem.m)))


def nakajima_vb(problem: MFProblem) -> tuple[np.ndarray, np.ndarray]:
    """Global VB solution (Nakajima et al. 2013, Thm. 2): (predictive mean, its top-k singular values).

    For γ_h > γ_VB (:func:`nakajima_threshold`) the estimate is
    γ̂_h = γ_h (1 − σ²/(2γ_h²) (L + M + √((M − L)² + 4γ_h²/(c_a²c_b²)))), else 0.
    """
    W, gam, Zt = np.linalg.svd(problem.R, full_matrices=False)
    h = min(problem.k, gam.size)
    gam = gam[:h]
    s2, L, M = problem.sigma2, problem.n, problem.m
    breve = gam * (1 - s2 / (2 * gam**2) * (L + M + np.sqrt((M - L) ** 2 + 4 * gam**2 / problem.gain**2)))
    hat = np.where(gam > nakajima_threshold(problem), breve, 0.0)
    return (W[:, :h] * hat) @ Zt[:h], hat


# =====================================================================================
# ELBO of a factorised Gaussian
# =====================================================================================


def elbo_factorised(Mu, Mv, Su, Sv, problem: MFProblem) -> float:
    """Moore eq. (2) for q = Πᵢⱼ N(uᵢⱼ; Muᵢⱼ, Suᵢⱼ) Πₗⱼ N(vₗⱼ; Mvₗⱼ, Svₗⱼ), in closed form.

    E‖R − gUVᵀ‖² = ‖R − gMuMvᵀ‖² + g² Σⱼ (aⱼbⱼ − a⁰ⱼb⁰ⱼ) with aⱼ = Σᵢ(Mu² + Su)ᵢⱼ, a⁰ⱼ = Σᵢ Muᵢⱼ²
    (bⱼ, b⁰ⱼ likewise for V): entries of one column are independent. ``Su``/``Sv`` broadcast
    against ``Mu``/``Mv`` (a scalar is the isotropic q = N(M, cI)).
    """
    n, m, k = problem.n, problem.m, problem.k
    Su, Sv = np.broadcast_to(Su, Mu.shape), np.broadcast_to(Sv, Mv.shape)
    a0, b0 = np.sum(Mu * Mu, axis=0), np.sum(Mv * Mv, axis=0)
    a, b = a0 + Su.sum(axis=0), b0 + Sv.sum(axis=0)
    fit = np.sum((problem.R - problem.gain * Mu @ Mv.T) ** 2) + problem.gain**2 * np.sum(a * b - a0 * b0)
    e_log_joint = (-0.5 * (np.sum(a) + np.sum(b)) - 0.5 * (n + m) * k * _LOG_2PI
                   - 0.5 * n * m * math.log(2 * math.pi * problem.sigma2) - 0.5 * fit / problem.sigma2)
    entropy = 0.5 * (np.sum(np.log(Su)) + np.sum(np.log(Sv))) + 0.5 * (n + m) * k * (1 + _LOG_2PI)
    return float(e_log_joint + entropy)


#: log of the largest float64: e^{log c} overflows beyond it.
_LOG_FLOAT_MAX = math.log(np.finfo(float).max)


def _split(x, problem):
    n, m, k = problem.n, problem.m, problem.k
    return x[:n * k].reshape(n, k), x[n * k:(n + m) * k].reshape(m, k)


def _isotropic_value_grad(x, problem):
    """ELBO of q = N([Mu; Mv], cI) and its gradient in (Mu, Mv, log c); x = (Mu, Mv, log c) flat."""
    Mu, Mv = _split(x, problem)
    if not x[-1] < _LOG_FLOAT_MAX:  # an optimiser's trial step past float64: a ValueError the fits record
        raise ValueError(f"log c = {x[-1]:.6g}: the isotropic variance c = e^(log c) overflows float64")
    c = math.exp(x[-1])
    g, s2, n, m, k = problem.gain, problem.sigma2, problem.n, problem.m, problem.k
    val = elbo_factorised(Mu, Mv, c, c, problem)
    res = problem.R - g * Mu @ Mv.T
    # fit = ‖res‖² + g²(c m‖Mu‖² + c n‖Mv‖² + nmkc²)
    gu = -Mu + (g * res @ Mv - g * g * c * m * Mu) / s2
    gv = -Mv + (g * res.T @ Mu - g * g * c * n * Mv) / s2
    dfit_dc = g * g * (m * np.sum(Mu * Mu) + n * np.sum(Mv * Mv) + 2 * n * m * k * c)
    gc = c * (-0.5 * (n + m) * k - 0.5 * dfit_dc / s2) + 0.5 * (n + m) * k
    return val, np.concatenate([gu.ravel(), gv.ravel(), [gc]])


# =====================================================================================
# Moore's KL[q*‖q̃] for the isotropic base, with its pathwise gradient
# =====================================================================================


def symvi_kl(M, log_c, E, form: str = "corrected", method: str = "auto", options: dict | None = None):
    """Monte Carlo KL[q*‖q̃] of Moore eq. (6) over fixed draws, and its gradient in (M, log c).

    Parameters
    ----------
    M : ndarray, shape (N, k)
        Mean of the isotropic base q* = N(M, cI) (N = n + m stacked rows of U and V).
    log_c : float
        log of the isotropic variance c.
    E : ndarray, shape (S, N, k)
        Standard normal draws; X_s = M + √c E_s (common random numbers across calls).
    form : {"corrected", "printed"}
        ``"corrected"``: r(X) = tr B − log ₀F₁(k/2; BBᵀ/4), B = MᵀX/c (= log q*(X) − log q̃(X));
        ``"printed"``: Moore App. A / Listing 1 with A = (B + Bᵀ)/2 in place of B.
    method : str
        ₀F₁ method (:func:`symcheck.log_hyp0f1`); the gradient uses the same method.
    options : dict, optional
        The method's options (e.g. ``{"order": 2}`` for ``"asymptotic"``).

    Returns
    -------
    kl : float
        (1/S) Σₛ r(Xₛ).
    grad_M : ndarray, shape (N, k)
    grad_log_c : float

    Notes
    -----
    With G = ∂r/∂B = I − W diag(∂ log ₀F₁/∂σ) Zᵀ (B = W diag σ Zᵀ; symmetrised for the printed
    form) and dB = (dMᵀX + MᵀdM)/c: ∂r/∂M = (X Gᵀ + M G)/c, and ∂B/∂log c = −MᵀM/c − ½MᵀE/√c.
    """
    check_choice(form, "form", FORMS)
    c = math.exp(log_c)
    k = M.shape[1]
    X = M + math.sqrt(c) * E
    B = np.matmul(M.T, X) / c
    if form == "printed":
        B = 0.5 * (B + np.swapaxes(B, -1, -2))
    W, sig, Zt = np.linalg.svd(B)
    log_f, grad_log_f = log_hyp0f1_and_grad(sig, k, method=method, **(options or {}))
    r = np.trace(B, axis1=-2, axis2=-1) - log_f
    G = np.eye(k) - np.matmul(W * grad_log_f[..., None, :], Zt)
    if form == "printed":
        G = 0.5 * (G + np.swapaxes(G, -1, -2))
    grad_M = np.mean(np.matmul(X, np.swapaxes(G, -1, -2)) + np.matmul(M, G), axis=0) / c
    dB = -(M.T @ M) / c - 0.5 * np.matmul(M.T, E) / math.sqrt(c)
    grad_log_c = float(np.mean(np.sum(G * dB, axis=(-2, -1))))
    return float(np.mean(r)), grad_M, grad_log_c


# =====================================================================================
# fits
# =====================================================================================

#: L-BFGS stopping rule used by every gradient fit: projected gradient ≤ GTOL (sup norm).
GTOL = 1e-6


def _lbfgs(fun, x0, gtol, maxiter, what="L-BFGS"):
    """Minimise ``fun`` (value, gradient) by L-BFGS-B to sup-norm gradient ≤ ``gtol``.

    Returns ``(res, gmax, record)``: SciPy's result, the final sup-norm gradient and a one-line
    convergence record (``what``, iterations, gradient against the criterion, SciPy's stop message).
    With ``ftol = 0`` the message "RELATIVE REDUCTION OF F <= FACTR*EPSMCH" means that an
    iteration no longer decreased the objective at all in float64.
    """
    res = optimize.minimize(fun, x0, jac=True, method="L-BFGS-B",
                            options={"gtol": gtol, "ftol": 0.0, "maxiter": maxiter, "maxfun": 4 * maxiter, "maxcor": 30})
    gmax = float(np.max(np.abs(res.jac)))
    record = f"{what}, {res.nit} iterations, sup-norm gradient {gmax:.1e} (criterion ≤ {gtol:g}; {res.message})"
    return res, gmax, record


def fit_map(problem: MFProblem, rng, gtol: float = GTOL, maxiter: int = 20000) -> FitResult:
    """MAP of (U, V) by L-BFGS from a random start (scale 0.1); stops at sup-norm gradient ≤ ``gtol``."""
    gen = check_rng(rng)
    g, s2 = problem.gain, problem.sigma2

    def fun(x):
        U, V = _split(x, problem)
        res = problem.R - g * U @ V.T
        val = 0.5 * (np.sum(U * U) + np.sum(V * V)) + 0.5 * np.sum(res * res) / s2
        return val, np.concatenate([(U - g * res @ V / s2).ravel(), (V - g * res.T @ U / s2).ravel()])

    x0 = 0.1 * gen.standard_normal((problem.n + problem.m) * problem.k)
    res, gmax, record = _lbfgs(fun, x0, gtol, maxiter)
    U, V = _split(res.x, problem)
    return FitResult(g * U @ V.T, math.nan, int(res.nit), gmax <= gtol, record, {"U": U, "V": V})


def fit_isotropic(problem: MFProblem, rng, gtol: float = GTOL, maxiter: int = 20000) -> FitResult:
    """Isotropic MFVI q = N([Mu; Mv], cI) by L-BFGS on the closed-form ELBO (:func:`elbo_factorised`)."""
    gen = check_rng(rng)
    x0 = np.concatenate([gen.standard_normal((problem.n + problem.m) * problem.k), [math.log(0.5)]])
    res, gmax, record = _lbfgs(lambda x: tuple(-t for t in _isotropic_value_grad(x, problem)), x0, gtol, maxiter)
    Mu, Mv = _split(res.x, problem)
    return FitResult(problem.gain * Mu @ Mv.T, -float(res.fun), int(res.nit), gmax <= gtol, record,
                     {"Mu": Mu, "Mv": Mv, "c": math.exp(res.x[-1])})


def fit_symvi(problem: MFProblem, rng, form: str = "corrected", n_draws: int = 16, method: str = "auto",
              gtol: float = GTOL, maxiter: int = 5000, start: FitResult | None = None,
              options: dict | None = None, draws: np.ndarray | None = None) -> FitResult:
    """SymVI (Moore eq. (5)): isotropic base q* = N(M, cI) on X = [U; V], mixed over O(k).

    Maximises ELBO(q*) + KL[q*‖q̃] with the KL of :func:`symvi_kl` over ``n_draws`` fixed draws
    (common random numbers: a deterministic objective, its exact gradient, L-BFGS to sup-norm
    gradient ≤ ``gtol``). Starts from ``start`` (e.g. the isotropic MFVI fit) if given, else
    from random means. ``elbo`` is the objective at the optimum (the sampled eq. (5)). ``method`` and
    ``options`` choose the ₀F₁ route of the KL (:func:`symvi_kl`); ``draws`` (shape (n_draws, n + m, k))
    are the KL's standard normal draws, e.g. another fit's ``params["E"]`` to compare two ₀F₁ routes on
    the same objective (default: drawn from ``rng``).
    E_q̃[gUVᵀ] = E_q*[gUVᵀ] = gMuMvᵀ, as UVᵀ is O(k)-invariant.
    """
    check_choice(form, "form", FORMS)
    gen = check_rng(rng)
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    N, k = problem.n + problem.m, problem.k
    if draws is None:
        E = gen.standard_normal((n_draws, N, k))
    else:
        E = np.asarray(draws, dtype=float)
        if E.shape != (n_draws, N, k):
            raise ValueError(f"draws must have shape {(n_draws, N, k)} (n_draws, n + m, k), got {E.shape}")
        if not np.all(np.isfinite(E)):
            raise ValueError("draws must be finite")
    if start is None:
        x0 = np.concatenate([gen.standard_normal(N * k), [math.log(0.5)]])
    else:
        x0 = np.concatenate([start.params["Mu"].ravel(), start.params["Mv"].ravel(), [math.log(start.params["c"])]])

    def fun(x):
        val, grad = _isotropic_value_grad(x, problem)
        kl, gM, gc = symvi_kl(x[:-1].reshape(N, k), x[-1], E, form, method, options)
        return -(val + kl), -(grad + np.concatenate([gM.ravel(), [gc]]))

    res, gmax, record = _lbfgs(fun, x0, gtol, maxiter, what=f"L-BFGS on {n_draws} fixed draws")
    Mu, Mv = _split(res.x, problem)
    kl = symvi_kl(res.x[:-1].reshape(N, k), res.x[-1], E, form, method, options)[0]
    return FitResult(problem.gain * Mu @ Mv.T, -float(res.fun), int(res.nit), gmax <= gtol, record,
                     {"Mu": Mu, "Mv": Mv, "c": math.exp(res.x[-1]), "kl": kl, "form": form, "E": E})
