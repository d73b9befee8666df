"""₀F₁(k/2; AAᵀ/4) of matrix argument: Laplace, zonal series, Haar Monte Carlo, closed forms.

The public entry points are re-exported from :mod:`symcheck.hyp0f1.api`.
"""

from symcheck.hyp0f1.api import grad_log_hyp0f1, log_hyp0f1, log_hyp0f1_mc
from symcheck.hyp0f1.reference import hyp0f1_reference

__all__ = ["grad_log_hyp0f1", "hyp0f1_reference", "log_hyp0f1", "log_hyp0f1_mc"]
