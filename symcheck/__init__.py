"""symcheck: checkable, fast mathematics of symmetrized variational inference.

Public API (see each function's docstring for the paper and equation it implements):

₀F₁ of matrix argument
    :func:`log_hyp0f1` (with ``return_error``/``return_info``: :class:`Hyp0f1Info`,
    :class:`Hyp0f1AccuracyWarning`), :func:`log_hyp0f1_mc`, :func:`grad_log_hyp0f1`, :func:`hyp0f1_reference`
Haar sampling
    :func:`haar_orthogonal`
Gaussian KL divergences (full, diagonal, matrix-variate) and the optimal factored Gaussian
    :func:`kl_gaussian`, :func:`kl_matrix_normal`, :func:`optimal_factored_gaussian`,
    :func:`fit_factored_gaussian_numerically`
Groups and symmetrized posteriors (sign flips, MLP permutations), KL gap, InfoNCE entropy, ELBOs
    :class:`Group`, :class:`SignFlip`, :class:`MLPPermutation`, :func:`mlp_forward`,
    :func:`symmetrized_logpdf`, :func:`symmetrization_gap`, :func:`entropy_infonce`,
    :func:`entropy_gaussian`, :func:`entropy_symmetrized`, :func:`elbo`,
    :func:`elbo_symmetrized_eq4`, :func:`elbo_symmetrized_eq5`, :func:`elbo_infonce`
Orthogonal symmetry O(k) on matrix columns (Moore App. A): exact / Monte Carlo log q̃, r_θ, KL
    :class:`Orthogonal`, :func:`orthogonal_logpdf`, :func:`orthogonal_logpdf_mc`, :func:`moore_r`,
    :func:`moore_kl`
"""

from symcheck.haar import haar_orthogonal
from symcheck.hyp0f1 import (
    Hyp0f1AccuracyWarning,
    Hyp0f1Info,
    grad_log_hyp0f1,
    hyp0f1_reference,
    log_hyp0f1,
    log_hyp0f1_mc,
)
from symcheck.kl import fit_factored_gaussian_numerically, kl_gaussian, kl_matrix_normal, optimal_factored_gaussian
from symcheck.gaussian import entropy_gaussian
from symcheck.groups import Group, MLPPermutation, SignFlip
from symcheck.mlp import mlp_forward
from symcheck.orthogonal import Orthogonal, moore_kl, moore_r, orthogonal_logpdf, orthogonal_logpdf_mc
from symcheck.symmetrize import (
    elbo,
    elbo_infonce,
    elbo_symmetrized_eq4,
    elbo_symmetrized_eq5,
    entropy_infonce,
    entropy_symmetrized,
    symmetrization_gap,
    symmetrized_logpdf,
)

__version__ = "0.1.0"

__all__ = [
    "Group",
    "MLPPermutation",
    "SignFlip",
    "elbo",
    "elbo_infonce",
    "elbo_symmetrized_eq4",
    "elbo_symmetrized_eq5",
    "entropy_gaussian",
    "entropy_infonce",
    "entropy_symmetrized",
    "mlp_forward",
    "symmetrization_gap",
    "symmetrized_logpdf",
    "fit_factored_gaussian_numerically",
    "grad_log_hyp0f1",
    "haar_orthogonal",
    "Hyp0f1AccuracyWarning",
    "Hyp0f1Info",
    "hyp0f1_reference",
    "kl_gaussian",
    "kl_matrix_normal",
    "log_hyp0f1",
    "log_hyp0f1_mc",
    "optimal_factored_gaussian",
    "Orthogonal",
    "moore_kl",
    "moore_r",
    "orthogonal_logpdf",
    "orthogonal_logpdf_mc",
]
