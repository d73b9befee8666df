"""symcheck: checkable, fast mathematics of symmetrized variational inference.

Public API (see each function's docstring for the paper and equation it implements):

₀F₁ of matrix argument
    :func:`log_hyp0f1`, :func:`log_hyp0f1_mc`, :func:`grad_log_hyp0f1`, :func:`hyp0f1_reference`
Haar sampling
    :func:`haar_orthogonal`
"""

from symcheck.haar import haar_orthogonal
from symcheck.hyp0f1 import grad_log_hyp0f1, hyp0f1_reference, log_hyp0f1, log_hyp0f1_mc

__version__ = "0.1.0"

__all__ = [
    "grad_log_hyp0f1",
    "haar_orthogonal",
    "hyp0f1_reference",
    "log_hyp0f1",
    "log_hyp0f1_mc",
]
