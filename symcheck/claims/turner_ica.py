"""Claims on Turner, Berkes & Sahani, Sec. 3.3: ICA with binary variance switches, eqs. (50)–(71), Fig. 9.

Closed forms are implemented literally in :mod:`symcheck.models.turner_ica`; the independent
routes enumerate the four switch states, evaluate the log joint from the generative
densities (scipy), integrate over ``q(x)`` with a tensor Gauss–Hermite rule (exact for the
quadratic integrands), integrate moments with ``scipy.integrate.quad``, condition dense
Gaussians, fit the exactly-quadratic ``⟨log p⟩_{q(s)}`` by least squares, and differentiate
with ``mpmath.diff`` at 30 digits.

Parameter cases: random ``σ² ∈ (0, 2)`` plus the edges ``σ² → 0`` (1e-4), ``σ² → 2`` (2 − 1e-4),
``σ² = 1`` (Gaussian sources, γ = 0) and ``σ_y² → 0`` (1e-6).

Tolerances: float64 sums of O(10) terms get `ROUNDING` (64·eps, derived in `symcheck.evidence`)
times the total size of the terms; 2×2 solves add the condition number; ``quad`` contributes its
own error estimate.
"""

from __future__ import annotations

from dataclasses import replace

import mpmath
import numpy as np
from scipy import integrate, special, stats

from symcheck.claims import Claim, all_of, bound_from_rows, erratum_from_rows, evidence_from_rows, register
from symcheck.evidence import ROUNDING
from symcheck.models import turner_ica as ica

EPS = np.finfo(float).eps
SOURCE = "Turner, Berkes & Sahani, Sec. 3.3"


def _cases(rng):
    """(label, (σ², σ_y², y))."""
    out = [(f"random {i}", (rng.uniform(0.05, 1.95), rng.uniform(0.05, 2.0), rng.normal() * 2)) for i in range(3)]
    out += [
        ("sigma2 -> 0", (1e-4, 0.3, 1.2)),
        ("sigma2 -> 2", (2 - 1e-4, 0.3, -0.7)),
        ("sigma2 = 1 (gamma = 0)", (1.0, 0.5, 0.9)),
        ("sigma_y2 -> 0", (0.4, 1e-6, 1.5)),
    ]
    return out


def _random_q(rng, sigma2, sigma_y2, y):
    """A random q(x) = N(mu, Sigma) near the posterior scale and a random (unfactored) q(s) table."""
    scale = min(1.0, np.sqrt(sigma_y2) + 0.1)
    mu = np.array([y / 2, y / 2]) + rng.normal(size=2) * scale
    L = np.tril(rng.normal(size=(2, 2))) * scale * 0.5
    L[np.diag_indices(2)] = np.abs(L[np.diag_indices(2)]) + 0.2 * scale
    q = rng.dirichlet(np.ones(4)).reshape(2, 2)
    return q, mu, L @ L.T


# ---------------------------------------------------------------------------------------
# eqs. (53)–(55): variance and kurtosis of the sources
# ---------------------------------------------------------------------------------------


def _moment(k, sigma2):
    """E[x^k] of the source by quad, one Gaussian component at a time; returns (value, error estimate)."""
    val = err = 0.0
    for v in (sigma2, 2 - sigma2):
        sd = np.sqrt(v)
        r, e = integrate.quad(lambda x: x**k * stats.norm.pdf(x, 0, sd), -40 * sd, 40 * sd, points=[0.0],
                              epsabs=0, epsrel=1e-13, limit=200)
        val += 0.5 * r
        err += 0.5 * e
    return val, err


SIGMA2_GRID = (1e-4, 0.1, 0.5, 1.0, 1.3, 1.9, 2 - 1e-4)


def _check_eq53(rng):
    rows = []
    for s2 in SIGMA2_GRID:
        m2, e2 = _moment(2, s2)
        rows.append((f"sigma2 = {s2}", ica.eq53_variance(s2), m2, 10 * e2 + ROUNDING))
    return evidence_from_rows(rows, "⟨x²⟩ (53) vs quad over the two-component source density")


register(Claim(
    id="turner.eq53.ica-unit-variance",
    source=f"{SOURCE}, eqs. (50)–(53)",
    statement="Each source x_k = mixture ½N(0, σ²) + ½N(0, 2 − σ²) has unit variance for every σ² ∈ (0, 2).",
    check=_check_eq53,
))


def _check_eq55(rng):
    rows = []
    for s2 in SIGMA2_GRID:
        m2, e2 = _moment(2, s2)
        m4, e4 = _moment(4, s2)
        kurt = m4 / m2**2 - 3
        tol = 10 * (e4 / m2**2 + 2 * m4 * e2 / m2**3) + ROUNDING * 10
        rows.append((f"sigma2 = {s2}, left side", ica.eq55_excess_kurtosis_moments(s2), kurt, tol))
        rows.append((f"sigma2 = {s2}, right side", ica.eq55_excess_kurtosis(s2), kurt, tol))
    return evidence_from_rows(rows, "excess kurtosis (54)–(55), both printed sides, vs ⟨x⁴⟩/⟨x²⟩² − 3 by quad")


register(Claim(
    id="turner.eq55.ica-kurtosis",
    source=f"{SOURCE}, eqs. (54)–(55)",
    statement="The sources' excess kurtosis is (3/2)(σ⁴ + (2 − σ²)²) − 3 = 3(1 − σ²)², between 0 (σ² = 1) and 3 (σ² → 0 or 2).",
    check=_check_eq55,
))


# ---------------------------------------------------------------------------------------
# eqs. (56)–(61): log joint, exact posterior, evidence
# ---------------------------------------------------------------------------------------


def _check_eq56(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        x = rng.normal(size=(4, 2))
        s = ica.SWITCH_STATES
        lit = ica.eq56_log_joint(x, s, y, s2, sy2)
        direct = ica.ica_log_joint(x, s, y, s2, sy2)
        g = abs(ica.eq56_gamma(s2))
        size = np.max(np.sum(x**2, axis=1) * (2 * g + 1 / s2 + 1 / (2 - s2) + 2 / sy2) + (y**2 + 2 * abs(y) * np.abs(x).sum(1)) / sy2) + 10
        rows.append((label, float(np.max(np.abs(lit - direct))), 0.0, ROUNDING * size))
    return evidence_from_rows(rows, "log joint (56) vs sum of log densities (50)–(52), all four switch states")


register(Claim(
    id="turner.eq56.ica-log-joint",
    source=f"{SOURCE}, eq. (56)",
    statement="The log joint is the printed quadratic in x with precision 2γs_k + 1/σ² + 1/σ_y², γ = (σ² − 1)/(σ²(2 − σ²)).",
    check=_check_eq56,
))


def _check_eq58(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        for s in ica.SWITCH_STATES:
            v = (1 - s) * s2 + s * (2 - s2)
            # dense joint of [x1, x2, y] given s, then conditioning on y
            A = np.array([[np.sqrt(v[0]), 0, 0], [0, np.sqrt(v[1]), 0], [np.sqrt(v[0]), np.sqrt(v[1]), np.sqrt(sy2)]])
            C = A @ A.T
            gain = C[:2, 2] / C[2, 2]
            cov = C[:2, :2] - np.outer(gain, C[2, :2])
            mean = gain * y
            P, Cp, m = ica.eq58_component(s, y, s2, sy2)
            # dense side: the Schur complement cancels by C_yy / min diag(cov); literal side: the diagonal
            # 2γs + 1/σ² + 1/σ_y² is a sum of terms of size up to 2|γ| + 1/σ² + 1/σ_y² (it cancels as σ² → 0),
            # and inverting P turns an absolute error δ in P into ‖Σ‖²δ
            kappa = np.linalg.cond(P) + C[2, 2] / np.min(np.diag(cov))
            lit = np.max(np.abs(Cp)) ** 2 * (2 * abs(ica.eq56_gamma(s2)) + 1 / s2 + 1 / sy2)
            rows.append((f"{label}, s = {s.astype(int)}: covariance", float(np.max(np.abs(Cp - cov))), 0.0,
                         ROUNDING * (kappa * np.max(np.abs(C)) + lit)))
            rows.append((f"{label}, s = {s.astype(int)}: mean", float(np.max(np.abs(m - mean))), 0.0,
                         ROUNDING * (kappa * (abs(y) + np.max(np.abs(mean))) + lit * 2 * abs(y) / sy2)))
    return evidence_from_rows(rows, "component posterior (58) vs conditioning the dense Gaussian of [x1, x2, y] given s")


register(Claim(
    id="turner.eq58.ica-posterior-components",
    source=f"{SOURCE}, eqs. (57)–(58)",
    statement="Given the switches, p(x | s, y) is Gaussian with the printed precision Σ(s)⁻¹ and mean (y/σ_y²)Σ(s)[1, 1]ᵀ.",
    check=_check_eq58,
))


def _log_pi_tilde_tol(ys, s2, sy2):
    """Float error of log π̃ (60) plus the prefactor of (59)/(61), the largest over ``ys`` and s.

    ½μᵀΣ⁻¹μ ≈ y²/(2σ_y²) is computed through Σ(s) = inv(P(s)), with relative error eps·cond(P);
    it then cancels against −y²/(2σ_y²), so the absolute error is 64·eps·cond(P)·(½μᵀPμ + 10).
    """
    tol = 0.0
    for s in ica.SWITCH_STATES:
        P, _, m = ica.eq58_component(s, ys, s2, sy2)
        quad = 0.5 * np.einsum("...i,ij,...j->...", m, P, m)
        tol = max(tol, ROUNDING * np.linalg.cond(P) * (float(np.max(np.abs(quad))) + np.max(ys**2) / sy2 + 10))
    return tol


def _check_eq59(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        ys = np.array([y, -2 * y, 0.1])
        lit = ica.eq59_switch_posterior(ys, s2, sy2)
        enum = ica.ica_switch_posterior(ys, s2, sy2)
        rows.append((label, float(np.max(np.abs(lit - enum))), 0.0, _log_pi_tilde_tol(ys, s2, sy2)))
    return evidence_from_rows(rows, "switch posterior (59)–(60) vs enumeration p(s|y) ∝ N(y; 0, v1 + v2 + σ_y²)")


register(Claim(
    id="turner.eq59.ica-switch-posterior",
    source=f"{SOURCE}, eqs. (59)–(60)",
    statement="The posterior over the switches is π(s) ∝ π̃(s) (printed eq. (60)); the normalisation of (59) cancels any constant.",
    check=_check_eq59,
))


def _check_eq61(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        rows.append((label, float(ica.eq61_log_evidence(y, s2, sy2)), float(ica.eq61_log_evidence_corrected(y, s2, sy2)),
                     float(ica.ica_log_evidence(y, s2, sy2)), _log_pi_tilde_tol(np.array([y]), s2, sy2)))
    return erratum_from_rows(rows, "log p(y): (61) printed / corrected vs enumeration log Σ_s ¼ N(y; 0, v1 + v2 + σ_y²)")


register(Claim(
    id="turner.eq61.ica-evidence",
    source=f"{SOURCE}, eq. (61)",
    statement=("The evidence is p(y) = (4(2π)^{3/2}σ_y)⁻¹ exp(−y²/2σ_y²) Σ_s π̃(s); the printed prefactor (4√(2πσ_y²))⁻¹ "
               "keeps one of the three (2π)^{-1/2} factors, making the printed p(y) 2π times too large."),
    check=_check_eq61,
    kind="erratum",
    printed_form=r"p(y) = \frac{1}{4\sqrt{2\pi\sigma_y^2}}\exp\left(-\frac{y^2}{2\sigma_y^2}\right)\sum_{s_1,s_2}\tilde\pi(s)  (61)",
    corrected_form=r"p(y) = \frac{1}{4(2\pi)^{3/2}\sigma_y}\exp\left(-\frac{y^2}{2\sigma_y^2}\right)\sum_{s_1,s_2}\tilde\pi(s)  (or \tilde\pi with (\det\Sigma_s)^{1/2})",
))


# ---------------------------------------------------------------------------------------
# eqs. (62)–(69): variational updates and free energy
# ---------------------------------------------------------------------------------------


def _gauss_hermite(mu, Sigma, n=5):
    t, w = special.roots_hermitenorm(n)
    w = w / w.sum()
    Z = np.stack(np.meshgrid(t, t, indexing="ij"), axis=-1).reshape(-1, 2)
    return mu + Z @ np.linalg.cholesky(Sigma).T, np.outer(w, w).reshape(-1)


def _check_eq63(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        q = _random_q(rng, s2, sy2, y)[0]
        Es = np.array([q[1].sum(), q[:, 1].sum()])
        Sig, mu = ica.eq63_q_x(Es, y, s2, sy2)
        # independent: ⟨log p(x, s, y)⟩_{q(s)} (direct densities, enumerated) is exactly quadratic in x;
        # fit −½xᵀΛx + bᵀx + c by least squares on 12 points, then Σ = Λ⁻¹, μ = Λ⁻¹b
        X = rng.normal(size=(12, 2)) * np.sqrt(np.diag(Sig)) * 3 + mu
        f = sum(qs * ica.ica_log_joint(X, s, y, s2, sy2) for qs, s in zip(q.reshape(-1), ica.SWITCH_STATES))
        D = np.column_stack([-0.5 * X[:, 0] ** 2, -0.5 * X[:, 1] ** 2, -X[:, 0] * X[:, 1], X[:, 0], X[:, 1], np.ones(len(X))])
        coef, *_ = np.linalg.lstsq(D, f, rcond=None)
        Lam = np.array([[coef[0], coef[2]], [coef[2], coef[1]]])
        Sig_fit = np.linalg.inv(Lam)
        mu_fit = Sig_fit @ coef[3:5]
        # least squares: relative error ~ eps·cond(D)·(|f| / |residual scale|); then an inverse with cond(Λ)
        kappa = np.linalg.cond(D) * np.max(np.abs(f)) / max(np.min(np.abs(coef[:2])) * np.min(np.sum(X**2, 1)), EPS) + np.linalg.cond(Lam)
        rows.append((f"{label}: covariance", float(np.max(np.abs(Sig - Sig_fit))), 0.0, ROUNDING * kappa * np.max(np.abs(Sig))))
        rows.append((f"{label}: mean", float(np.max(np.abs(mu - mu_fit))), 0.0, ROUNDING * kappa * (np.max(np.abs(mu)) + 1)))
    ev = evidence_from_rows(rows, "q(x) of (63) vs least-squares fit of the quadratic ⟨log p(x,s,y)⟩_{q(s)} (direct densities)")
    # and it maximises the free energy over Gaussians q(x) for that q(s) (quadrature, no closed form):
    # random perturbations of the mean and Cholesky factor never increase it
    s2, sy2, y = _cases(rng)[0][1]
    q, _, _ = _random_q(rng, s2, sy2, y)
    Es = np.array([q[1].sum(), q[:, 1].sum()])
    Sig, mu = ica.eq63_q_x(Es, y, s2, sy2)
    F0 = ica.ica_free_energy_quadrature(q, mu, Sig, y, s2, sy2)
    L = np.linalg.cholesky(Sig)
    worst = -np.inf
    for _ in range(20):
        dL = np.tril(rng.normal(size=(2, 2))) * 1e-2 * np.max(np.abs(L))
        F1 = ica.ica_free_energy_quadrature(q, mu + rng.normal(size=2) * 1e-2, (L + dL) @ (L + dL).T, y, s2, sy2)
        worst = max(worst, F1 - F0)
    optimal = bound_from_rows([("20 random perturbations of mean and Cholesky factor", worst, 0.0, ROUNDING * (abs(F0) + 10))],
                              "max F(perturbed q(x)) − F(q(x) of (63)) (quadrature) vs 0", side="upper")
    return all_of([ev, optimal], "q(x) of (63): the fit of the quadratic, and optimality")


register(Claim(
    id="turner.eq63.ica-q-x-update",
    source=f"{SOURCE}, eqs. (62)–(63)",
    statement=("For fixed q(s), the optimal q(x) ∝ exp⟨log p⟩_{q(s)} is N(μ_q, Σ_q) with the printed precision "
               "(2⟨s_k⟩γ + 1/σ_y² + 1/σ² on the diagonal) and μ_q = (y/σ_y²)Σ_q[1, 1]ᵀ."),
    check=_check_eq63,
))


def _check_eq65(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        _, mu, Sig = _random_q(rng, s2, sy2, y)
        X, w = _gauss_hermite(mu, Sig)
        # E_{q(x)} log p(x, s, y) by quadrature (exact: quadratic in x), then normalise over the four states
        e = np.array([w @ ica.ica_log_joint(X, s, y, s2, sy2) for s in ica.SWITCH_STATES])
        q_ref = np.exp(e - special.logsumexp(e)).reshape(2, 2)
        ex2 = np.diag(Sig) + mu**2
        q_lit = ica.eq65_q_s(ex2, s2)
        size = np.max(np.abs(e)) + 10
        rows.append((label, float(np.max(np.abs(q_lit - q_ref))), 0.0, ROUNDING * size))
    return evidence_from_rows(rows, "q(s) table (65) vs normalised exp of Gauss–Hermite E_q(x) log p(x, s, y) (direct)")


register(Claim(
    id="turner.eq65.ica-q-s-update",
    source=f"{SOURCE}, eqs. (64)–(65)",
    statement="For fixed q(x), the optimal q(s1, s2) ∝ exp⟨log p⟩_{q(x)} is the printed 2×2 table in ⟨x_k²⟩ and γ.",
    check=_check_eq65,
))


def _check_eq65_factorises(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        _, mu, Sig = _random_q(rng, s2, sy2, y)
        q = ica.eq65_q_s(np.diag(Sig) + mu**2, s2)
        # rank one  <=>  q00 q11 = q01 q10  <=>  q = outer(q(s1), q(s2))
        outer = np.outer(q.sum(1), q.sum(0))
        rows.append((label, float(np.max(np.abs(q - outer))), 0.0, ROUNDING))
    return evidence_from_rows(rows, "max |q(s1, s2) − q(s1) q(s2)| for the table (65)")


register(Claim(
    id="turner.eq65.ica-q-s-factorises",
    source=f"{SOURCE}, after eq. (65)",
    statement="The optimal q(s) under q(x, s) = q(x)q(s) factorises, q(s) = q(s1)q(s2).",
    check=_check_eq65_factorises,
))


def _check_eq66(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        q, mu, Sig = _random_q(rng, s2, sy2, y)
        lit = float(ica.eq66_free_energy(q, mu, Sig, y, s2, sy2))
        quad = ica.ica_free_energy_quadrature(q, mu, Sig, y, s2, sy2)
        g = abs(ica.eq56_gamma(s2))
        ex2 = np.max(np.diag(Sig) + mu**2)
        size = ex2 * (2 * g + 1 / s2 + 1 / (2 - s2) + 2 / sy2) + (y**2 + 2 * abs(y) * np.max(np.abs(mu))) / sy2 + 20
        rows.append((label, lit, quad, ROUNDING * size * 10))  # ~10 terms, each at most `size`
    ev = evidence_from_rows(rows, "free energy (66)–(69) (⟨s_k⟩ read for s_k in (67)) vs Gauss–Hermite of log p − log q (direct)")
    # consequences: F ≤ log p(y) always, with equality at σ² = 1 (Gaussian sources) after the updates
    s2, sy2, y = 0.4, 0.3, 1.1
    fit = ica.ica_variational_fit(np.array(y), s2, sy2, init_s=(0.9, 0.2))
    gap = float(ica.ica_log_evidence(y, s2, sy2) - fit["free_energy"])
    fit1 = ica.ica_variational_fit(np.array(y), 1.0, sy2)
    gap1 = float(ica.ica_log_evidence(y, 1.0, sy2) - fit1["free_energy"])
    below = bound_from_rows([("σ² = 0.4, fixed point from (0.9, 0.2)", gap, 0.0, 0.0)],
                            "log p(y) − F at a fixed point vs 0", side="lower", strict=True)
    exact = evidence_from_rows([("σ² = 1 (Gaussian sources)", gap1, 0.0, ROUNDING * 20)],
                               "log p(y) − F at the fixed point vs 0 (exact)")
    return all_of([ev, below, exact], "free energy (66)–(69), F < log p(y), equality at σ² = 1")


register(Claim(
    id="turner.eq66.ica-free-energy",
    source=f"{SOURCE}, eqs. (66)–(69)",
    statement=("The free energy is ⟨log p⟩ + H(q(x)) + H(q(s)) with the average log joint (67) (its unbracketed s_k read as ⟨s_k⟩), "
               "H(q(x)) = ½(log det 2πΣ_q + 2) and H(q(s)) = −Σ q log q; it is below log p(y) and equal to it for Gaussian sources."),
    check=_check_eq66,
))


def _check_eq67(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        q, mu, Sig = _random_q(rng, s2, sy2, y)
        X, w = _gauss_hermite(mu, Sig)
        # Σ_s q(s) E_q(x) log p(x, s, y): direct densities, four states, Gauss–Hermite (exact, quadratic)
        ref = sum(qs * float(w @ ica.ica_log_joint(X, st, y, s2, sy2)) for qs, st in zip(q.reshape(-1), ica.SWITCH_STATES))
        lit = float(ica.eq67_average_log_joint(q, mu, Sig, y, s2, sy2))
        g = abs(ica.eq56_gamma(s2))
        ex2 = np.max(np.diag(Sig) + mu**2)
        size = ex2 * (2 * g + 1 / s2 + 1 / (2 - s2) + 2 / sy2) + (y**2 + 2 * abs(y) * np.max(np.abs(mu))) / sy2 + 20
        rows.append((label, lit, ref, ROUNDING * size * 10))  # ~10 terms, each at most `size`
    return evidence_from_rows(rows, "average log joint (67), s_k read as ⟨s_k⟩, vs Σ_s q(s) E_q(x) log p(x, s, y) by Gauss–Hermite")


register(Claim(
    id="turner.eq67.ica-average-log-joint",
    source=f"{SOURCE}, eq. (67)",
    statement=("Under q(x)q(s) the average log joint is (56) with s_k → ⟨s_k⟩ and x-monomials → their q(x) moments (the printed "
               "quadratic terms keep an unbracketed s_k, to be read as ⟨s_k⟩); it holds for any q(s), factored or not."),
    check=_check_eq67,
))


def _check_eq68_69(rng):
    rows = []
    for label, (s2, sy2, y) in _cases(rng):
        q, mu, Sig = _random_q(rng, s2, sy2, y)
        rows.append((f"{label}: H(q(x))", float(ica.eq68_entropy_x(Sig)), float(stats.multivariate_normal(mu, Sig).entropy()),
                     ROUNDING * (np.linalg.cond(Sig) + 10)))
        rows.append((f"{label}: H(q(s))", float(ica.eq69_entropy_s(q)), float(stats.entropy(q.reshape(-1))), ROUNDING * 4))
    return evidence_from_rows(rows, "entropies (68), (69) vs scipy.stats")


register(Claim(
    id="turner.eq68.ica-entropies",
    source=f"{SOURCE}, eqs. (68)–(69)",
    statement="H(q(x)) = ½(log det 2πΣ_q + 2) for the bivariate Gaussian and H(q(s)) = −Σ_s q(s) log q(s).",
    check=_check_eq68_69,
))


# ---------------------------------------------------------------------------------------
# eqs. (70)–(71): the M-step gradient
# ---------------------------------------------------------------------------------------


def _mp_gamma(u):
    return (u - 1) / (u * (2 - u))


def _check_eq71(rng):
    rows = []
    with mpmath.workdps(30):
        for s2 in (1e-3, 0.3, 1.0, 1.5, 1.999):
            ref = float(mpmath.diff(_mp_gamma, mpmath.mpf(s2)))
            printed, corrected = ica.eq71_dgamma(s2), ica.eq71_dgamma_corrected(s2)
            rows.append((f"sigma2 = {s2}", printed, corrected, ref, 16 * EPS * abs(ref)))
    return erratum_from_rows(rows, "dγ/dσ²: (71) printed / corrected vs mpmath.diff of γ = (σ²−1)/(σ²(2−σ²)) at 30 digits")


register(Claim(
    id="turner.eq71.ica-dgamma",
    source=f"{SOURCE}, eq. (71)",
    statement="dγ/dσ² = ½(1/(2 − σ²)² + 1/σ⁴), half the printed value (γ = ½(1/(2 − σ²) − 1/σ²)).",
    check=_check_eq71,
    kind="erratum",
    printed_form=r"\frac{d\gamma}{d\sigma^2} = \frac{1}{(2-\sigma^2)^2} + \frac{1}{\sigma^4}  (71)",
    corrected_form=r"\frac{d\gamma}{d\sigma^2} = \frac12\left(\frac{1}{(2-\sigma^2)^2} + \frac{1}{\sigma^4}\right)",
))


def _mp_avg_log_joint(u, Es, Ex2):
    """⟨log p(x, s, y)⟩ as a function of σ² = u, terms depending on u only, from the generative
    densities: Σ_k Σ_{s_k} q(s_k)(−½ log v(s_k) − ⟨x_k²⟩/(2v(s_k))), v(0) = u, v(1) = 2 − u."""
    total = mpmath.mpf(0)
    for e, x2 in zip(Es, Ex2):
        for p, v in ((1 - e, u), (e, 2 - u)):
            total += p * (-mpmath.log(v) / 2 - x2 / (2 * v))
    return total


def _check_eq70(rng):
    rows = []
    with mpmath.workdps(30):
        for label, (s2, sy2, y) in _cases(rng):
            Es = np.array([0.85, 0.1])  # asymmetric: ⟨s1⟩ + ⟨s1⟩ ≠ ⟨s1⟩ + ⟨s2⟩
            Ex2 = np.abs(rng.normal(size=2)) + 0.2
            ref = 2 * float(mpmath.diff(lambda u: _mp_avg_log_joint(u, [mpmath.mpf(e) for e in Es], [mpmath.mpf(x) for x in Ex2]),
                                        mpmath.mpf(s2)))
            # printed (70) with the *corrected* (71), to isolate the ⟨s1⟩ + ⟨s1⟩ misprint
            printed = float(ica.eq70_gradient(Es, Ex2, s2, dgamma=ica.eq71_dgamma_corrected))
            corrected = float(ica.eq70_gradient_corrected(Es, Ex2, s2))
            size = 2 / s2 + 4 / (s2 * (2 - s2)) + np.sum(Ex2) * (2 * ica.eq71_dgamma(s2) + 1 / s2**2)
            rows.append((label, printed, corrected, ref, ROUNDING * size))
    ev = erratum_from_rows(rows, "2 d⟨log p⟩/dσ²: (70) printed / corrected vs mpmath.diff of the average log joint (generative densities)")
    s2 = 0.6
    both_printed = float(ica.eq70_gradient(np.array([0.85, 0.1]), np.array([1.0, 0.5]), s2))
    with mpmath.workdps(30):
        ref = 2 * float(mpmath.diff(lambda u: _mp_avg_log_joint(u, [mpmath.mpf("0.85"), mpmath.mpf("0.1")], [1, mpmath.mpf("0.5")]), s2))
    return replace(ev, detail=ev.detail + f"; with the printed (71) too, at σ² = 0.6: {both_printed:.6g} vs {ref:.6g}")


register(Claim(
    id="turner.eq70.ica-gradient",
    source=f"{SOURCE}, eq. (70)",
    statement=("2 d⟨log p⟩/dσ² = −2/σ² + (⟨s1⟩ + ⟨s2⟩)·2/(σ²(2 − σ²)) − Σ_k ⟨x_k²⟩(2⟨s_k⟩ dγ/dσ² − 1/σ⁴); "
               "the printed (⟨s1⟩ + ⟨s1⟩) is wrong whenever ⟨s1⟩ ≠ ⟨s2⟩."),
    check=_check_eq70,
    kind="erratum",
    printed_form=(r"2\frac{d\log p}{d\sigma^2} = -\frac{2}{\sigma^2} + (\langle s_1\rangle + \langle s_1\rangle)\frac{2}{\sigma^2(2-\sigma^2)}"
                  r" - \langle x_1^2\rangle(2\langle s_1\rangle\gamma' - \sigma^{-4}) - \langle x_2^2\rangle(2\langle s_2\rangle\gamma' - \sigma^{-4})  (70)"),
    corrected_form=(r"2\frac{d\log p}{d\sigma^2} = -\frac{2}{\sigma^2} + (\langle s_1\rangle + \langle s_2\rangle)\frac{2}{\sigma^2(2-\sigma^2)}"
                    r" - \langle x_1^2\rangle(2\langle s_1\rangle\gamma' - \sigma^{-4}) - \langle x_2^2\rangle(2\langle s_2\rangle\gamma' - \sigma^{-4}),"
                    r"\ \gamma' = \tfrac12((2-\sigma^2)^{-2} + \sigma^{-4})"),
))


# ---------------------------------------------------------------------------------------
# Fig. 9
# ---------------------------------------------------------------------------------------


def _check_fig9(rng):
    sigma2_true, sigma_y2 = 0.3, 0.2
    grid = np.round(np.arange(0.05, 1.0001, 0.05), 10)
    L, F = ica.ica_expected_objectives(grid, sigma2_true, sigma_y2)
    iL, iF = int(np.argmax(L)), int(np.argmax(F))
    # quadrature error of the y-expectation: compare 30 and 40 nodes at the two peaks
    L40, F40 = ica.ica_expected_objectives(grid[[iL, -1]], sigma2_true, sigma_y2, n_nodes=40)
    qerr = float(max(abs(L40[0] - L[iL]), abs(F40[1] - F[-1]))) + ROUNDING * 10
    gap_L = float(L[iL] - np.max(np.delete(L, iL)))
    gap_F = float(F[iF] - np.max(np.delete(F, iF)))
    parts = [
        evidence_from_rows([("free-energy peak vs σ² = 1", grid[iF], 1.0, 0.0), ("F vs L at σ² = 1", F[-1], L[-1], qerr)],
                           "free energy peaks at zero sparseness, where it equals the likelihood"),
        bound_from_rows([("|likelihood peak − σ²_true| vs 1e-9", abs(grid[iL] - sigma2_true), 1e-9, 0.0)],
                        "likelihood peaks at the true σ²", strict=True),
        bound_from_rows([("likelihood", gap_L, 0.0, 2 * qerr), ("free energy", gap_F, 0.0, 2 * qerr)],
                        "peak minus the next grid value vs 0 (twice the quadrature error)", "lower", strict=True),
        bound_from_rows([(f"σ²={g}", f, lv, qerr) for g, f, lv in zip(grid, F, L)], "F vs L on the grid"),
    ]
    return all_of(parts, f"σ²_true = {sigma2_true} (excess kurtosis {3 * (1 - sigma2_true) ** 2:.2f}), σ_y² = {sigma_y2}, "
                         f"σ² grid 0.05..1; F − L at σ²_true: {F[iL] - L[iL]:.4f}; quadrature error {qerr:.2g}",
                  {"sigma2_true": sigma2_true, "sigma_y2": sigma_y2})


register(Claim(
    id="turner.fig9.ica-free-energy-peaks-at-zero-sparseness",
    source=f"{SOURCE}, Fig. 9",
    statement=("With infinite data from a sparse model (σ² = 0.3, σ_y² = 0.2) the average likelihood peaks at the true sparseness "
               "while the average variational free energy peaks at σ² = 1, zero sparseness (the Gaussian model)."),
    check=_check_fig9,
))
