"""symcheck: checkable, fast mathematics of symmetrized variational inference.

Public API (see each function's docstring for the paper and equation it implements):

₀F₁ of matrix argument
    :func:`log_hyp0f1`, :func:`log_hyp0f1_mc`, :func:`grad_log_hyp0f1`, :func:`hyp0f1_reference`
Haar sampling
    :func:`haar_orthogonal`
Gaussian KL divergences (full, diagonal, matrix-variate) and the optimal factored Gaussian
    :func:`kl_gaussian`, :func:`kl_matrix_normal`, :func:`optimal_factored_gaussian`,
    :func:`fit_factored_gaussian_numerically`
"""

from symcheck.haar import haar_orthogonal
from symcheck.hyp0f1 import grad_log_hyp0f1, hyp0f1_reference, log_hyp0f1, log_hyp0f1_mc
from symcheck.kl import fit_factored_gaussian_numerically, kl_gaussian, kl_matrix_normal, optimal_factored_gaussian

__version__ = "0.1.0"

__all__ = [
    "fit_factored_gaussian_numerically",
    "grad_log_hyp0f1",
    "haar_orthogonal",
    "hyp0f1_reference",
    "kl_gaussian",
    "kl_matrix_normal",
    "log_hyp0f1",
    "log_hyp0f1_mc",
    "optimal_factored_gaussian",
]
