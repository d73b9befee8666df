"""Check other people's implementations against symcheck's references (issue #16).

Every checker takes the user's function (the *subject*) and returns a
`symcheck.testing.result.CheckResult`: a verdict, an evidence table by region or test,
the criterion (a derived tolerance or a designed false-failure rate) and, on failure, a
reproducer. The `assert_*` forms raise AssertionError for use inside a pytest test.

Beside the checkers: `symcheck.testing.strategies` (Hypothesis strategies for valid inputs; needs
`hypothesis`, so it is not imported here) and `symcheck.testing.plugin` (the pytest plugin, entry
point `pytest11`: fixtures `haar_checker`, `hyp0f1_references`, `symcheck_rng`).
"""

from symcheck.testing.haar import check_haar_sampler
from symcheck.testing.hyp0f1 import (assert_grad_log_hyp0f1, assert_log_hyp0f1, check_grad_log_hyp0f1,
                                     check_log_hyp0f1)
from symcheck.testing.kl import assert_kl_gaussian, check_kl_gaussian
from symcheck.testing.result import CheckResult, CheckRow
from symcheck.testing.symmetrized import assert_symmetrized_kl, check_symmetrized_kl

__all__ = ["CheckResult", "CheckRow", "assert_grad_log_hyp0f1", "assert_kl_gaussian", "assert_log_hyp0f1",
           "assert_symmetrized_kl", "check_grad_log_hyp0f1", "check_haar_sampler", "check_kl_gaussian",
           "check_log_hyp0f1", "check_symmetrized_kl"]
