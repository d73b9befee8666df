"""Claim: Moore's symmetrized ELBO (eq. (5)) with App. A's KL term is not an evidence bound.

Model of Moore's Fig. 2: r = u vᵀ + ε with u, v ∈ R^{1×2}, u, v ~ N(0, I), ε ~ N(0, σ²),
σ² = 1, observed r = 2. Latent X = [u; v] (N = 2 rows, k = 2 columns); the posterior is
invariant under X ↦ X Tᵀ, T ∈ O(2). Base q* = N(M, cI).

Routes:

* evidence: u·v | u ~ N(0, |u|²) and |u|² ~ χ²₂, so p(r) = ∫₀^∞ ½e^{−t/2} N(r; 0, σ² + t) dt
  (1-D adaptive quadrature);
* the bound (5): E_{q*}[log p(r, X)] + H(q*) + KL[q*‖q̃], with, in closed form,
  E[log p(r | X)] = −½ log 2πσ² − (r² − 2r m_u·m_v + E[(u·v)²])/(2σ²),
  E[(u·v)²] = (m_u·m_v)² + c(|m_u|² + |m_v|²) + k c²,
  E[log N(X; 0, I)] = −(Nk/2) log 2π − ½(‖M‖² + Nk c),  H(q*) = (Nk/2) log(2πe c),
  and KL[q*‖q̃] = E_{q*}[r_θ(X)] by Monte Carlo (eq. (6)) with r_θ either as printed
  (A = (MᵀX + XᵀM)/(2c), with the exact ₀F₁) or corrected (B = MᵀX/c).

q* is fixed at M = [[1.14, −0.09], [1.03, 0.48]], c = 0.32: near the maximiser of the
corrected bound (found once by Nelder–Mead; any q* for which the printed value exceeds
log p(r) shows the failure, and the corrected value must stay below log p(r) for every q*).
"""

from __future__ import annotations

import numpy as np

from symcheck.claims import Claim, all_of, bound_from_rows, register, z_for_alpha
from symcheck.models.moore_scalar import base_terms_1x2, log_evidence_1x2
from symcheck.orthogonal import moore_kl

R_OBS, NOISE_VAR = 2.0, 1.0
M_STAR = np.array([[1.14, -0.09], [1.03, 0.48]])
C_STAR = 0.32


def _check(rng):
    z = z_for_alpha()
    logp = log_evidence_1x2(R_OBS, NOISE_VAR)
    base = base_terms_1x2(M_STAR, C_STAR, R_OBS, NOISE_VAR)
    seed = int(rng.integers(2**63))
    # common random numbers: the two KL estimates use the same draws X ~ q*
    kl_p, se_p = moore_kl(M_STAR, C_STAR, 20_000, seed, form="printed", method="exact")
    kl_c, se_c = moore_kl(M_STAR, C_STAR, 20_000, seed, form="corrected", method="exact")
    printed, corrected = base + kl_p, base + kl_c
    # the printed bound must exceed log p(r) conclusively (by more than z SE), the corrected one may not exceed it
    exceeds = bound_from_rows([(f"printed KL, SE {se_p:.1e}", printed, logp, z * se_p)],
                              "bound (5) with the printed KL vs log p(r=2) (quadrature)", side="lower", strict=True)
    below = bound_from_rows([(f"corrected KL, SE {se_c:.1e}", corrected, logp, z * se_c)],
                            "bound (5) with the corrected KL vs log p(r=2)")
    return all_of([exceeds, below], f"q* = N(M, cI), M = {M_STAR.tolist()}, c = {C_STAR}, 20000 common draws",
                  {"r": R_OBS, "noise_var": NOISE_VAR, "M": M_STAR.tolist(), "c": C_STAR, "n_samples": 20_000},
                  corrected=corrected)


register(Claim(
    id="moore.eq5.printed-kl-not-a-bound",
    source="Moore (2016), eq. (5) with App. A's r_θ (eq. (6), Listing 1); model of Fig. 2",
    statement=("With the KL term computed as printed in App. A (symmetrised A), the symmetrized bound (5) exceeds "
               "log p(r) in the Fig. 2 model (r = u vᵀ + ε, r = 2), so it is not an evidence lower bound; with "
               "B = MᵀX/c it stays below log p(r)."),
    check=_check,
    kind="erratum",
    printed_form=r"\mathcal L(\tilde q) = E_{q^*}[\log p(x,z^*)] + H(q^*) + E_{q^*}[\mathrm{Tr}A - \log {}_0F_1(\tfrac k2;\tfrac14AA^T)],\ A=\tfrac1{2c}(M^TX+X^TM)",
    corrected_form=r"same with B = M^TX/c in place of A (Tr B = Tr A)",
))
