"""The kinds of implementation `symcheck verify` checks, and the options each checker takes.

A kind names a checker of `symcheck.testing` and says in one line what the user's function
must look like. The command line builds one sub-command per kind and offers exactly the
options (`OPTIONS`) that the checker's signature accepts, so a checker gains a command-line
option by gaining a keyword argument listed here.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Callable

__all__ = ["KINDS", "OPTIONS", "Kind", "checker_options"]


@dataclass(frozen=True)
class Kind:
    """One verifiable kind: its checker (module:function inside symcheck) and what it expects."""

    name: str
    checker_path: str
    expects: str

    @property
    def checker(self) -> Callable:
        module, function = self.checker_path.split(":")
        return getattr(importlib.import_module(module), function)


KINDS = {k.name: k for k in [
    Kind("log_hyp0f1", "symcheck.testing.hyp0f1:check_log_hyp0f1",
         "log 0F1(k/2; AA'/4): fn(sigma, k) with the singular values of A (or fn(A), --signature matrix)"),
    Kind("grad_log_hyp0f1", "symcheck.testing.hyp0f1:check_grad_log_hyp0f1",
         "the gradient of log 0F1(k/2; AA'/4) in the singular values: fn(sigma, k) -> (k,)"),
    Kind("haar_sampler", "symcheck.testing.haar:check_haar_sampler",
         "a sampler of Haar-distributed O(k) (or SO(k), --special) matrices"),
    Kind("kl_gaussian", "symcheck.testing.kl:check_kl_gaussian",
         "KL[N(m0, S0) || N(m1, S1)]: fn(m0, S0, m1, S1)"),
    Kind("symmetrized_kl", "symcheck.testing.symmetrized:check_symmetrized_kl",
         "KL[q* || q~] (or log q~, Moore's r): sign flip fn(mean, var); O(k) on N x k matrices fn(M, c) "
         "(--group orthogonal); hidden-unit permutations fn(mean, var, blocks) (--group permutation)"),
]}

#: Command-line options a checker may take: keyword → (argparse type or "flag", help).
OPTIONS: dict[str, tuple] = {
    "rtol": (float, "relative tolerance the subject claims"),
    "atol": (float, "absolute tolerance the subject claims"),
    "k": (int, "dimension k of O(k)"),
    "n": (int, "sample size"),
    "alpha": (float, "designed false-failure rate of the statistical battery"),
    "seed": (int, "seed of the checker's random inputs / test statistics"),
    "special": ("flag", "the sampler claims SO(k) (det = +1), not O(k)"),
    "batched": ("flag", "the subject takes a batch (rows) instead of one input at a time"),
    "signature": (str, "how the subject is called: 'sigma, k' (singular values) or 'matrix' (fn(A))"),
    "form": (str, "which form the subject implements (see the checker's documentation)"),
    "group": (str, "symmetry group: signflip (z -> -z), orthogonal (O(k) on the columns of N x k matrices, "
                   "isotropic base N(M, cI)) or permutation (all n! permutations of the hidden units of a "
                   "one-hidden-layer MLP; blocks[j] = the coordinates of unit j)"),
    "quantity": (str, "what the subject computes: kl, log_qtilde (fn(z, mean, var), fn(X, M, c) or "
                      "fn(z, mean, var, blocks), one value per point) or r (Moore's r_theta, orthogonal group)"),
    "estimator": (str, "exact (a number) or mc (estimate, standard error)"),
    "n_reference": (int, "draws of the Monte Carlo reference (O(k) KL, k >= 2; permutation KL)"),
    "max_k": (int, "largest k of the inputs used"),
    "max_sigma": (float, "largest singular value of the reference inputs used"),
    "regions": (str, "only the inputs in this region, e.g. 'k<=5, sigma<=100' or 'shape=equal'"),
}


def checker_options(kind: Kind) -> dict[str, inspect.Parameter]:
    """The keyword parameters of the kind's checker that the command line offers (see `OPTIONS`)."""
    params = inspect.signature(kind.checker).parameters
    return {name: p for name, p in params.items() if name in OPTIONS
            and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
