"""₀F₁(k/2; AAᵀ/4) of matrix argument: Laplace, zonal series, holonomic gradient method, large-σ
expansion, Haar Monte Carlo, closed forms.

The public entry points are re-exported from :mod:`symcheck.hyp0f1.api`.
"""

from symcheck.hyp0f1.api import (Hyp0f1AccuracyWarning, Hyp0f1Info, grad_log_hyp0f1, log_hyp0f1, log_hyp0f1_and_grad,
                                 log_hyp0f1_mc)
from symcheck.hyp0f1.reference import hyp0f1_reference

__all__ = ["Hyp0f1AccuracyWarning", "Hyp0f1Info", "grad_log_hyp0f1", "hyp0f1_reference", "log_hyp0f1", "log_hyp0f1_and_grad",
           "log_hyp0f1_mc"]
