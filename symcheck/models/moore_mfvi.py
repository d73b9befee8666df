"""Moore's elementwise MFVI by coordinate ascent, with a certified distance to a local maximum.

The elementwise (mean-field) Gaussian q(U, V) = Πᵢⱼ N(uᵢⱼ; Muᵢⱼ, Suᵢⱼ) Πₗⱼ N(vₗⱼ; Mvₗⱼ, Svₗⱼ) of
Moore's matrix factorisation (Sec. 2, App. A; the model in `symcheck.models.moore_mf`) is fitted
by closed-form coordinate ascent (CAVI), one column of U or V at a time. After the first sweep every
variance column is constant (Suᵢⱼ = suⱼ, Svₗⱼ = svⱼ), so the iterates live in
x = (Mu, Mv, t, w) with t = log su, w = log sv, where the ELBO is, up to a constant,

    F(x) = −½Σⱼ(aⱼ + bⱼ) − [‖R − gMuMvᵀ‖² + g²Σⱼ(aⱼbⱼ − a⁰ⱼb⁰ⱼ)]/(2σ²) + ½Σⱼ(n tⱼ + m wⱼ),

aⱼ = a⁰ⱼ + n suⱼ, a⁰ⱼ = ‖Mu[:, j]‖² (bⱼ, b⁰ⱼ likewise for V). A stationary point of F is one of the
full elementwise ELBO (the derivative in Suᵢⱼ, ½(1/suⱼ − 1 − g²bⱼ/σ²), does not depend on i), and a
strict local maximum of F is one of the full ELBO (the zero-sum directions of a variance column
couple to nothing else and have curvature −½/suⱼ² < 0).

**Why a certificate.** Coordinate ascent slows down critically where two singular values of R that
it keeps are close (the columns' rotation is then an almost-flat direction of F) or one is close to
Nakajima et al.'s threshold γ_VB (the VB solution bifurcates there, γ̂ → 0 continuously), and the
slow components are not monotone: they overshoot while the fast ones decay. A small change per sweep
does not mean a small distance to the limit: at seed 6 of `moore.fig4.nakajima-vb` a geometric
tail bound with the rate taken from the last 20 sweep ratios (0.959; the slow component's rate is
0.9959) allowed 2e-5 where the iterate was 1.1e-3 from the fixed point. Here nothing assumes a rate:

* `local_maximum` runs damped Newton's method on F from a coordinate-ascent iterate (it climbs,
  so it cannot end at a saddle) and certifies the point it reaches by the Newton–Kantorovich
  theorem (`certify_maximum`): a strict local maximum x* of F lies within a proven radius, with the
  gradient evaluated in extended precision and the curvature bounded below by Cholesky
  factorisations whose rounding is accounted for;
* `fit_mfvi` runs coordinate ascent from a random start and, after 64, 128, 256, … sweeps, Newton's
  method from its iterate, until a maximum is certified to the requested tolerance (and is not
  below the iterate, which coordinate ascent could then never reach); it returns that maximum and
  the certified distance of the coordinate-ascent iterate to it.

References
----------
D. A. Moore (2016), *Symmetrized Variational Inference*, Sec. 2, App. A.
J. M. Ortega, W. C. Rheinboldt (1970), *Iterative Solution of Nonlinear Equations in Several
Variables*, Thm. 12.6.2 (Kantorovich).
N. J. Higham (2002), *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm. 10.3
(backward error of Cholesky).
S. Banach (1938), Über homogene Polynome in (L²), Studia Math. 7: for a symmetric multilinear
form on a real Hilbert space, ‖T‖ = sup over unit h of |T(h, …, h)|.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import linalg

from symcheck._checks import check_int, check_positive_float, check_rng
from symcheck.evidence import EPS, ROUNDING, gamma
from symcheck.models.moore_mf import FitResult, MFProblem, elbo_factorised

__all__ = [
    "MFVICertificate",
    "certify_maximum",
    "elbo_gradient",
    "elbo_hessian",
    "fit_mfvi",
    "local_maximum",
    "pack",
    "sweep",
    "third_derivative_bound",
    "unpack",
]

#: The rounding allowance of `symcheck.evidence.ROUNDING` for sums evaluated in numpy's long double
#: (x87 extended precision on x86-64; equal to float64, and to ROUNDING, where that is all there is).
_ROUNDING_LD = ROUNDING * float(np.finfo(np.longdouble).eps) / EPS
#: Unit roundoff of numpy's long double (u = eps/2).
_UNIT_LD = float(np.finfo(np.longdouble).eps) / 2
#: Cholesky tries these fractions of the estimated smallest curvature as a proven lower bound.
_CURVATURE_FRACTIONS = (0.9, 0.5, 0.1, 0.01)


def pack(Mu, Mv, t, w, dtype=float) -> np.ndarray:
    """x = (Mu row-major, Mv row-major, t = log su, w = log sv) as one flat vector of `dtype`."""
    return np.concatenate([np.ravel(Mu), np.ravel(Mv), np.ravel(t), np.ravel(w)]).astype(dtype)


def unpack(x, problem: MFProblem):
    """Inverse of `pack`: (Mu (n×k), Mv (m×k), t (k), w (k)), views of `x`."""
    n, m, k = problem.n, problem.m, problem.k
    return (x[:n * k].reshape(n, k), x[n * k:(n + m) * k].reshape(m, k),
            x[(n + m) * k:(n + m + 1) * k], x[(n + m + 1) * k:])


def elbo_gradient(x, problem: MFProblem) -> tuple[np.ndarray, float]:
    """∇F at x, evaluated in long double, and a bound on the error of the returned value.

    ∂F/∂Mu = −Mu + (g/σ²)E Mv − (g²m/σ²) Mu diag(sv), E = R − gMuMvᵀ;
    ∂F/∂tⱼ = (n/2)(1 − suⱼ(1 + g²bⱼ/σ²)); V and w likewise (n ↔ m, a ↔ b).

    Returns
    -------
    grad : ndarray of long double
    error : float
        Along any path from the inputs to a component there are at most N = n + m + k + 8 roundings
        (E's k-term products and subtraction, the m- or n-term product with Mv or Mu, the scalings,
        the final sums, exp to within an ulp), so each component is off by at most γ_N = Nu/(1 − Nu)
        times the sum of its terms' magnitudes (Higham Lemma 3.1 and Sec. 3.1), u the long-double
        unit roundoff; the bound is the Euclidean norm of those.
    """
    n, m, k = problem.n, problem.m, problem.k
    x = np.asarray(x, dtype=np.longdouble)
    Mu, Mv, t, w = unpack(x, problem)
    g, s2 = np.longdouble(problem.gain), np.longdouble(problem.sigma2)
    R = problem.R.astype(np.longdouble)
    su, sv = np.exp(t), np.exp(w)
    E = R - g * (Mu @ Mv.T)
    a = np.sum(Mu * Mu, axis=0) + n * su
    b = np.sum(Mv * Mv, axis=0) + m * sv
    gu = -Mu + (g / s2) * (E @ Mv) - (g * g * m / s2) * Mu * sv
    gv = -Mv + (g / s2) * (E.T @ Mu) - (g * g * n / s2) * Mv * su
    gt = 0.5 * n * (1 - su * (1 + g * g * b / s2))
    gw = 0.5 * m * (1 - sv * (1 + g * g * a / s2))
    absE = np.abs(R) + g * (np.abs(Mu) @ np.abs(Mv).T)
    tu = np.abs(Mu) * (1 + g * g * m * sv / s2) + (g / s2) * (absE @ np.abs(Mv))
    tv = np.abs(Mv) * (1 + g * g * n * su / s2) + (g / s2) * (absE.T @ np.abs(Mu))
    tt = 0.5 * n * (1 + su * (1 + g * g * b / s2))
    tw = 0.5 * m * (1 + sv * (1 + g * g * a / s2))
    size = float(np.linalg.norm(pack(tu, tv, tt, tw).astype(float)))
    return pack(gu, gv, gt, gw, dtype=np.longdouble), gamma(n + m + k + 8, _UNIT_LD) * size


def elbo_hessian(x, problem: MFProblem) -> tuple[np.ndarray, float]:
    """∇²F at x (float64, dense, in the order of `pack`) and a bound on its error (Frobenius).

    Blocks (δ the Kronecker delta, E = R − gMuMvᵀ, su = eᵗ, sv = eʷ):

    * Mu–Mu: −I_n ⊗ (diag(1 + g²m svⱼ/σ²) + (g²/σ²) MvᵀMv); Mv–Mv likewise with n, su, MuᵀMu;
    * Mu_ij–Mv_lj': (g/σ²)(E_il δ_jj' − g Mv_lj Mu_ij');
    * Mu_ij–w_j': −(g²m/σ²) Mu_ij svⱼ δ_jj'; Mv_lj–t_j': −(g²n/σ²) Mv_lj suⱼ δ_jj';
    * t–t: −diag((n/2) suⱼ(1 + g²bⱼ/σ²)); w–w: −diag((m/2) svⱼ(1 + g²aⱼ/σ²)); t–w: −diag(g²nm suⱼsvⱼ/(2σ²)).

    The error bound is `ROUNDING` × (n + m + k) × (‖H‖_F + the Frobenius norm of the Mu–Mv block with
    |E| replaced by |R| + g|Mu||Mv|ᵀ): every entry is a sum of at most n + m + k terms, and only E
    subtracts terms that may cancel.
    """
    n, m, k, g, s2 = problem.n, problem.m, problem.k, problem.gain, problem.sigma2
    Mu, Mv, t, w = (np.asarray(v, dtype=float) for v in unpack(x, problem))
    su, sv = np.exp(t), np.exp(w)
    a = np.sum(Mu * Mu, axis=0) + n * su
    b = np.sum(Mv * Mv, axis=0) + m * sv
    nu, nv = n * k, m * k
    N = nu + nv + 2 * k
    H = np.zeros((N, N))
    E = problem.R - g * Mu @ Mv.T
    eye = np.eye(k)
    Ku = np.diag(1 + g * g * m * sv / s2) + (g * g / s2) * Mv.T @ Mv
    Kv = np.diag(1 + g * g * n * su / s2) + (g * g / s2) * Mu.T @ Mu
    H[:nu, :nu] = -np.kron(np.eye(n), Ku)
    H[nu:nu + nv, nu:nu + nv] = -np.kron(np.eye(m), Kv)
    H[:nu, nu:nu + nv] = ((g / s2) * (E[:, None, :, None] * eye[None, :, None, :]
                                      - g * Mv.T[None, :, :, None] * Mu[:, None, None, :])).reshape(nu, nv)
    H[nu:nu + nv, :nu] = H[:nu, nu:nu + nv].T
    it, iw = nu + nv, nu + nv + k
    Huw = -(g * g * m / s2) * (Mu[:, :, None] * (sv * eye)[None, :, :]).reshape(nu, k)
    Hvt = -(g * g * n / s2) * (Mv[:, :, None] * (su * eye)[None, :, :]).reshape(nv, k)
    H[:nu, iw:], H[iw:, :nu] = Huw, Huw.T
    H[nu:nu + nv, it:iw], H[it:iw, nu:nu + nv] = Hvt, Hvt.T
    H[it:iw, it:iw] = np.diag(-0.5 * n * su * (1 + g * g * b / s2))
    H[iw:, iw:] = np.diag(-0.5 * m * sv * (1 + g * g * a / s2))
    H[it:iw, iw:] = H[iw:, it:iw] = np.diag(-(g * g * n * m / (2 * s2)) * su * sv)
    absE = np.abs(problem.R) + g * np.abs(Mu) @ np.abs(Mv).T
    uv_abs = (g / s2) * (math.sqrt(k) * np.linalg.norm(absE) + g * np.linalg.norm(Mu) * np.linalg.norm(Mv))
    return H, ROUNDING * (n + m + k) * (float(np.linalg.norm(H)) + math.sqrt(2) * uv_abs)


def third_derivative_bound(x, problem: MFProblem, r: float) -> float:
    """Bound on ‖D³F‖ (symmetric trilinear norm) over the ball of radius `r` around x.

    It is a Lipschitz constant of ∇²F on that ball. F's terms and the sup of |D³(term)[h, h, h]|
    over unit h = (δu, δv, δt, δw) (which is the norm of a symmetric form: Banach), at any point of
    the ball (where ‖Mu‖₂ ≤ ‖Mu(x)‖₂ + r, ‖Mu[:, j]‖ ≤ ‖Mu(x)[:, j]‖ + r, suⱼ ≤ suⱼ(x)eʳ):

    * −‖E‖²/(2σ²): along h, E(s) = E + sA + s²B with A = −g(δu Mvᵀ + Mu δvᵀ), B = −g δu δvᵀ; the
      third s-derivative of ‖E(s)‖² is 12⟨A, B⟩, and |⟨A, B⟩| ≤ g²√(‖Mu‖₂² + ‖Mv‖₂²)/2:
      3g²√(‖Mu‖₂² + ‖Mv‖₂²)/σ²;
    * −g²m Σⱼ ‖Mu[:, j]‖² svⱼ/(2σ²): the third derivative of ‖u + sδu‖²e^{w + sδw} is
      eʷ(‖u‖²δw³ + 6⟨u, δu⟩δw² + 6‖δu‖²δw), so (g²m/(2σ²)) max sv (û² + 6û + 6), û = max ‖Mu[:, j]‖;
      likewise for V with n, su;
    * −(n/2)Σ suⱼ − (m/2)Σ svⱼ: max(n max su, m max sv)/2 (Σ|δtⱼ|³ + Σ|δwⱼ|³ ≤ 1);
    * −g²nm Σⱼ suⱼsvⱼ/(2σ²): (g²nm/(2σ²)) max su · max sv · 2√2 (Σ|δtⱼ + δwⱼ|³ ≤ (2‖h‖²)^{3/2});
    * the quadratic −½Σ(a⁰ + b⁰) and the linear ½Σ(nt + mw) contribute nothing.
    """
    if not r <= 1:  # a valid (infinite) bound: no certificate needs a ball this large
        return math.inf
    n, m, g, s2 = problem.n, problem.m, problem.gain, problem.sigma2
    Mu, Mv, t, w = (np.asarray(v, dtype=float) for v in unpack(x, problem))
    grow = math.exp(r)
    su, sv = float(np.max(np.exp(t))) * grow, float(np.max(np.exp(w))) * grow
    nu, nv = float(np.linalg.norm(Mu, 2)) + r, float(np.linalg.norm(Mv, 2)) + r
    cu, cv = float(np.max(np.linalg.norm(Mu, axis=0))) + r, float(np.max(np.linalg.norm(Mv, axis=0))) + r
    c = g * g / (2 * s2)
    return (3 * g * g * math.hypot(nu, nv) / s2
            + c * m * sv * (cu * cu + 6 * cu + 6) + c * n * su * (cv * cv + 6 * cv + 6)
            + 0.5 * max(n * su, m * sv)
            + c * n * m * su * sv * 2 * math.sqrt(2))


@dataclass(frozen=True)
class MFVICertificate:
    """What `certify_maximum` proved about a point x₀ (NaN radii: nothing was proved).

    Attributes
    ----------
    radius : float
        A stationary point x* of F, a strict local maximum, lies within this Euclidean distance of
        x₀ (the Kantorovich radius r*).
    mean_radius : float
        Bound on ‖gMu Mvᵀ − gMu* Mv*ᵀ‖_F at x₀: g(r*√(‖Mu‖₂² + ‖Mv‖₂²) + r*²/2).
    uniqueness_radius : float
        x* is the only stationary point of F within this distance of x₀.
    grad : float
        ‖∇F(x₀)‖ plus its error bound.
    curvature : float
        Proven lower bound μ on the smallest eigenvalue of −∇²F(x₀) (≤ 0: not proven negative definite).
    lipschitz : float
        Lipschitz constant of ∇²F used on the ball of radius 2‖∇F‖/μ.
    h : float
        Kantorovich's βLη, which must be below ½.
    """

    radius: float
    mean_radius: float
    uniqueness_radius: float
    grad: float
    curvature: float
    lipschitz: float
    h: float

    @property
    def proven(self) -> bool:
        """Whether a strict local maximum was certified."""
        return math.isfinite(self.radius)


def _curvature_lower_bound(negH: np.ndarray, error: float):
    """Proven lower bound on λ_min(negH) (the true matrix is within `error` in Frobenius norm), and
    the Cholesky factor of negH (`scipy.linalg.cho_factor`; None when it does not exist).

    An estimate μ̂ of λ_min by inverse iteration (a Rayleigh quotient of negH⁻¹, so μ̂ ≥ λ_min) is
    tried at the fractions `_CURVATURE_FRACTIONS`: if Cholesky of negH − cI completes in float64 with
    factor R̂, then R̂ᵀR̂ = negH − cI + Δ with ‖Δ‖₂ ≤ γ_{N+1}‖R̂‖_F² (Higham Thm. 10.3), so
    λ_min(negH) ≥ c − γ_{N+1}‖R̂‖_F² − `error`. The bound is −inf when negH is not positive definite.
    """
    N = negH.shape[0]
    try:
        factor = linalg.cho_factor(negH, check_finite=True)
    except linalg.LinAlgError:
        return -math.inf, None
    v = np.ones(N) / math.sqrt(N)
    rayleigh = 0.0
    for _ in range(60):
        y = linalg.cho_solve(factor, v)
        new = float(v @ y)
        v = y / np.linalg.norm(y)
        if abs(new - rayleigh) <= 1e-6 * new:
            rayleigh = new
            break
        rayleigh = new
    mu_hat = 1 / rayleigh
    gamma_n = gamma(N + 1)
    for frac in _CURVATURE_FRACTIONS:
        c = frac * mu_hat
        try:
            Rf = linalg.cholesky(negH - c * np.eye(N), lower=False, check_finite=True)
        except linalg.LinAlgError:
            continue
        bound = c - gamma_n * float(np.sum(Rf * Rf)) - error
        if bound > 0:
            return bound, factor
    return 0.0, factor


def _newton_step_bound(H, factor, G, gerr: float, herr: float, beta: float) -> float:
    """η ≥ ‖H₀⁻¹G₀‖ for the true Hessian H₀ and gradient G₀, from the computed H, G and a solve.

    ŷ solves (−H)ŷ = G in float64; the residual ρ = G + Hŷ is formed in long double (error at most
    `ROUNDING` for long double × N × ‖|H||ŷ| + |G|‖). Then ‖(−H₀)⁻¹G₀ − ŷ‖ ≤ β‖G₀ + H₀ŷ‖
    ≤ β(‖ρ‖ + its error + `herr`·‖ŷ‖ + `gerr`), with β ≥ ‖H₀⁻¹‖.
    """
    y = linalg.cho_solve(factor, G.astype(float), check_finite=False)
    resid = G + H.astype(np.longdouble) @ y.astype(np.longdouble)
    resid_err = _ROUNDING_LD * H.shape[0] * float(np.linalg.norm(np.abs(H) @ np.abs(y) + np.abs(G.astype(float))))
    ynorm = float(np.linalg.norm(y))
    return ynorm + beta * (float(np.linalg.norm(resid.astype(float))) + resid_err + herr * ynorm + gerr)


def certify_maximum(x, problem: MFProblem) -> MFVICertificate:
    """Certified distance from x to a strict local maximum of F (Newton–Kantorovich).

    With H₀ = ∇²F(x₀) negative definite, β = 1/μ ≥ ‖H₀⁻¹‖ (μ from `_curvature_lower_bound`,
    including the Hessian's error and, for a long-double x, the change of ∇²F between x and its
    float64 rounding), η ≥ ‖H₀⁻¹∇F(x₀)‖ (`_newton_step_bound`) and L a Lipschitz constant of ∇²F
    on the ball of radius 2η (`third_derivative_bound`): if h = βLη < ½, a zero x* of ∇F lies
    within r* = (1 − √(1 − 2h))/(βL) ≤ 2η of x₀ (Ortega & Rheinboldt 12.6.2), the only one within
    (1 + √(1 − 2h))/(βL); and ‖∇²F(x*) − H₀‖ ≤ L r* < μ, so ∇²F(x*) is negative definite: x* is a
    strict local maximum. No convergence rate of the method that produced x₀ enters.
    """
    xl = np.asarray(x, dtype=np.longdouble)
    xf = xl.astype(float)
    G, gerr = elbo_gradient(xl, problem)
    H, herr = elbo_hessian(xf, problem)
    shift = float(np.linalg.norm((xl - xf.astype(np.longdouble)).astype(float)))
    herr += third_derivative_bound(xf, problem, shift) * shift
    mu, factor = _curvature_lower_bound(-H, herr)
    grad = float(np.linalg.norm(G.astype(float))) + gerr
    nan = math.nan
    if not mu > 0:
        return MFVICertificate(nan, nan, nan, grad, mu, nan, nan)
    beta = 1 / mu
    eta = _newton_step_bound(H, factor, G, gerr, herr, beta)
    L = third_derivative_bound(xf, problem, 2 * eta)
    h = beta * L * eta
    if not h < 0.5:
        return MFVICertificate(nan, nan, nan, grad, mu, L, h)
    root = math.sqrt(1 - 2 * h)
    r = 2 * eta / (1 + root)  # = (1 − √(1 − 2h))/(βL), without the cancellation
    Mu, Mv, _, _ = unpack(xf, problem)
    mean_r = problem.gain * (r * math.hypot(float(np.linalg.norm(Mu, 2)), float(np.linalg.norm(Mv, 2))) + 0.5 * r * r)
    return MFVICertificate(r, mean_r, (1 + root) / (beta * L), grad, mu, L, h)


def local_maximum(x0, problem: MFProblem, max_steps: int = 60):
    """Damped Newton's method on F from x0, then `certify_maximum` at the point it reaches.

    Each step solves (−∇²F + λI)δ = ∇F by Cholesky, with λ = 0 (Newton's direction) where −∇²F is
    positive definite, else the smallest λ of 1e-8, 1e-7, … (times the largest diagonal entry) that
    makes it so, and backtracks along δ (steps 1, ½, ¼, …) until F rises by at least 1e-4 of the
    predicted increase (Armijo), less a rounding allowance of F. So the iteration climbs and cannot
    settle on a saddle or a minimum, and near a maximum it takes full Newton steps. x is kept in
    long double and the gradient is evaluated in long double (the Hessian and the solve in float64:
    iterative refinement), so the gradient can fall far below float64 rounding. Stops when the
    gradient is below its own error bound, when no step along δ raises F, after three damped or
    shortened steps in a row that neither halved the smallest gradient so far nor raised F beyond
    rounding, or after `max_steps`.

    Returns
    -------
    x : ndarray of long double
        The last iterate.
    certificate : MFVICertificate
    """
    x = np.asarray(x0, dtype=np.longdouble).copy()
    best, stalled = math.inf, 0
    f_x = _elbo(x, problem)
    allowance = ROUNDING * (problem.n + problem.m) * problem.k * abs(f_x)
    for _ in range(max_steps):
        G, gerr = elbo_gradient(x, problem)
        gnorm = float(np.linalg.norm(G.astype(float)))
        if gnorm <= gerr:  # the certificate counts ‖∇F‖ + its error: no further step can shrink it much
            break
        if gnorm <= 0.5 * best:
            best, stalled = gnorm, 0
        H, _ = elbo_hessian(x.astype(float), problem)
        factor, lam = _damped_cholesky(-H, 0.0)
        step = linalg.cho_solve(factor, G.astype(float), check_finite=False)
        gain = float(G.astype(float) @ step)  # predicted increase per unit step length
        for halvings in range(40):
            alpha = 0.5**halvings
            trial = x + (alpha * step).astype(np.longdouble)
            f_new = _elbo(trial, problem)
            if f_new >= f_x + 1e-4 * alpha * gain - allowance:
                break
        else:
            break
        # a full Newton step counts as progress (near a flat maximum F may change below its rounding
        # allowance and the gradient may grow for a step while the iteration converges)
        stalled = 0 if (f_new > f_x + allowance or (lam == 0 and halvings == 0)) else stalled + 1
        x, f_x = trial, f_new
        if stalled == 3:
            break
    return x, certify_maximum(x, problem)


def _scale(H) -> float:
    return float(np.max(np.abs(np.diag(H))))


def _damped_cholesky(A, lam: float):
    """Cholesky factor of A + λ'I for the smallest λ' ≥ λ in {λ, 1e-8·s, 1e-7·s, …} that is positive definite."""
    s = max(_scale(A), 1.0)
    while True:
        try:
            return linalg.cho_factor(A + lam * np.eye(A.shape[0]), check_finite=False), lam
        except linalg.LinAlgError:
            lam = max(10 * lam, 1e-8 * s)


def _elbo(x, problem: MFProblem) -> float:
    """F at x (float64): the full elementwise ELBO with every variance of a column equal."""
    Mu, Mv, t, w = unpack(np.asarray(x, dtype=float), problem)
    return elbo_factorised(Mu, Mv, np.exp(t), np.exp(w), problem)


def sweep(problem: MFProblem, Mu, Mv, Su, Sv, res, count: int = 1) -> None:
    """`count` coordinate-ascent sweeps in place (columns j = 1..k, U then V); `res` = R − gMuMvᵀ, kept current.

    Column j of U given everything else (entries of a column are conditionally independent):
    precision pⱼ = 1 + g²bⱼ/σ², bⱼ = Σₗ(Mvₗⱼ² + Svₗⱼ); mean Mu[:, j] = (g/σ²pⱼ)(R − gΣ_{j'≠j}
    Mu[:, j']Mv[:, j']ᵀ)Mv[:, j]; likewise for V. Each update maximises the ELBO exactly in its
    block, so the ELBO never decreases. The loops run compiled (`_sweeps`).

    Raises
    ------
    ValueError
        If one of `Mu`, `Mv`, `Su`, `Sv`, `res` is not a float64 array of the problem's shape, or
        `count` < 1.
    """
    count = check_int(count, "count", minimum=1)
    n, m, k = problem.n, problem.m, problem.k
    for name, arr, shape in (("Mu", Mu, (n, k)), ("Mv", Mv, (m, k)), ("Su", Su, (n, k)), ("Sv", Sv, (m, k)),
                             ("res", res, (n, m))):
        if not (isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == shape):
            raise ValueError(f"{name} must be a float64 array of shape {shape}")
    _sweeps(float(problem.gain), float(problem.sigma2), Mu, Mv, Su, Sv, res, count)


@njit(cache=True)
def _sweeps(g, s2, Mu, Mv, Su, Sv, res, count):
    """The loops of `sweep`: the operations of its vectorised form res ± g·(Mu[i, j]Mv[l, j]), then column j
    of U given V and of V given U (`_column`, V's through the transposed residual), with every sum in index
    order (NumPy's pairwise sums and BLAS products round differently: the iterates agree to rounding)."""
    n, k = Mu.shape
    m = Mv.shape[0]
    for _ in range(count):
        for j in range(k):
            for i in range(n):
                for l in range(m):
                    res[i, l] += g * (Mu[i, j] * Mv[l, j])
            _column(g, s2, res, Mv, Sv, Mu, Su, j)
            _column(g, s2, res.T, Mu, Su, Mv, Sv, j)
            for i in range(n):
                for l in range(m):
                    res[i, l] -= g * (Mu[i, j] * Mv[l, j])


@njit(cache=True)
def _column(g, s2, r, other_mean, other_var, mean, var, j):
    """Column j of one factor given the other, in place: pⱼ = 1 + g²Σₗ(other_meanₗⱼ² + other_varₗⱼ)/σ²,
    var[:, j] = 1/pⱼ, mean[i, j] = Σₗ(g·rᵢₗ)·other_meanₗⱼ/(σ²pⱼ); ``r`` is the residual without column j, rows
    indexed like ``mean``'s (R − gΣ_{j'≠j}… for U, its transpose for V)."""
    b = 0.0
    for l in range(other_mean.shape[0]):
        b += other_mean[l, j] * other_mean[l, j] + other_var[l, j]
    p = 1 + g * g * b / s2
    for i in range(mean.shape[0]):
        acc = 0.0
        for l in range(other_mean.shape[0]):
            acc += (g * r[i, l]) * other_mean[l, j]
        var[i, j] = 1 / p
        mean[i, j] = acc / (s2 * p)


def fit_mfvi(problem: MFProblem, rng, tol: float = 1e-10, max_sweeps: int = 200000,
             first_try: int = 64) -> FitResult:
    """Elementwise MFVI: coordinate ascent from a random start, finished by Newton's method to a certified maximum.

    Starts from Mu, Mv ~ N(0, 1) entrywise and unit variances and runs coordinate-ascent sweeps
    (`sweep`). After `first_try` sweeps, and again each time the number of sweeps has doubled,
    `local_maximum` runs Newton's method from the current iterate x_T. The fit stops at the
    first maximum x* that is

    * certified (`certify_maximum`): the bound on the distance between Newton's last iterate's
      predictive mean and the exact maximum's (its mean radius) is ≤ `tol`·(1 + ‖R‖_F), and
    * not below the iterate: F(x*) ≥ F(x_T) − rounding (coordinate ascent never decreases F, so it
      cannot be heading for a maximum lower than where it is).

    Coordinate ascent alone slows down critically where two kept singular values of R are close or
    one is close to γ_VB (measured on 80 draws of the 20×20, k = 4, σ_n = 1 problem: 630 to 95,000
    sweeps to come within 1e-6·(1 + ‖R‖_F) of Nakajima's solution, and one draw not within 1e-4 after
    1e5 sweeps), and no rate-based stopping rule is safe there (see the module docstring); Newton's
    method converges quadratically once in the maximum's neighbourhood, and the certificate does not
    depend on how the point was reached. After `max_sweeps` without such a maximum the fit returns
    the last iterate with `converged` False and NaN radii (nothing proved: every comparison with them
    fails).

    Returns
    -------
    FitResult
        `mean`: gMu*Mv*ᵀ at the certified maximum; `elbo`: F there (the full elementwise ELBO);
        `iterations`: coordinate-ascent sweeps. `params`: `Mu`, `Mv`, `su`, `sv` (the
        maximum; su, sv: the variance of every entry of a column), `radius` (certified bound on
        ‖mean − the maximum's exact mean‖_F), `certificate` (`MFVICertificate`),
        `ascent_mean` (the coordinate-ascent iterate x_T's gMuMvᵀ), `ascent_distance` (bound on
        its distance to the maximum's exact mean), `newton_runs`.
    """
    gen = check_rng(rng)
    tol = check_positive_float(tol, "tol")
    max_sweeps = check_int(max_sweeps, "max_sweeps", minimum=1)
    first_try = check_int(first_try, "first_try", minimum=1)
    n, m, k, g = problem.n, problem.m, problem.k, problem.gain
    Mu, Mv = gen.standard_normal((n, k)), gen.standard_normal((m, k))
    Su, Sv = np.ones((n, k)), np.ones((m, k))
    goal = tol * (1 + np.linalg.norm(problem.R))
    res = problem.R - g * Mu @ Mv.T
    done, next_try, runs, found = 0, first_try, 0, None
    while done < max_sweeps:
        stop = min(next_try, max_sweeps)
        sweep(problem, Mu, Mv, Su, Sv, res, stop - done)
        done, next_try, runs = stop, 2 * stop, runs + 1
        x, cert = local_maximum(pack(Mu, Mv, np.log(Su[0]), np.log(Sv[0])), problem)
        if not cert.mean_radius <= goal:
            continue
        Mx, Vx, t, w = unpack(x.astype(float), problem)
        f_star = _elbo(x, problem)
        f_ascent = elbo_factorised(Mu, Mv, Su, Sv, problem)
        if f_star >= f_ascent - ROUNDING * (n + m) * k * (abs(f_star) + abs(f_ascent)):
            found = (Mx, Vx, t, w, cert, f_star)
            break
    ascent = g * Mu @ Mv.T
    if found is None:
        return FitResult(ascent, elbo_factorised(Mu, Mv, Su, Sv, problem), done, False,
                         f"coordinate ascent, {done} sweeps, {runs} Newton run(s): no certified maximum",
                         {"Mu": Mu, "Mv": Mv, "su": Su[0], "sv": Sv[0], "radius": math.nan, "certificate": None,
                          "ascent_mean": ascent, "ascent_distance": math.nan, "newton_runs": runs})
    Mx, Vx, t, w, cert, f_star = found
    mean = g * Mx @ Vx.T
    rounding = ROUNDING * k * g * float(np.linalg.norm(np.abs(Mx) @ np.abs(Vx).T))
    radius = cert.mean_radius + rounding
    return FitResult(mean, f_star, done, True,
                     f"coordinate ascent, {done} sweeps, then Newton ({runs} run(s)) to a certified strict local "
                     f"maximum: ‖mean − exact‖_F ≤ {radius:.1e} (goal ≤ {goal:.1e} = tol·(1+‖R‖))",
                     {"Mu": Mx, "Mv": Vx, "su": np.exp(t), "sv": np.exp(w), "radius": radius, "certificate": cert,
                      "ascent_mean": ascent, "ascent_distance": float(np.linalg.norm(ascent - mean)) + radius,
                      "newton_runs": runs})
