"""asv benchmarks: Moore's matrix factorisation fits (Sec. 2, Fig. 4).

* elementwise MFVI by coordinate ascent finished by Newton's method to a certified maximum
  (`symcheck.models.moore_mfvi.fit_mfvi`) against Nakajima et al.'s (2013) closed form (one SVD);
  ``track_*`` records their Frobenius distance at the stopping rule;
* one evaluation of the SymVI KL term with its gradient (16 draws, N = 80 rows) for the Laplace
  ₀F₁ (Moore's eq. (7)) and the asymptotic expansion, k = 10 and 20.
"""

import math

import numpy as np

from symcheck.models.moore_mf import nakajima_vb, sample_problem, symvi_kl
from symcheck.models.moore_mfvi import fit_mfvi


def _problem(n, k, seed=0):
    return sample_problem(n, n, k, 2.0, np.random.default_rng(seed))[0]


class MFVI:
    params = [(20, 40), (4, 20)]
    param_names = ["n", "k"]

    def setup(self, n, k):
        if k > n:
            raise NotImplementedError
        self.problem = _problem(n, k)

    def time_coordinate_ascent(self, n, k):
        fit_mfvi(self.problem, 1, tol=1e-8)

    def time_nakajima_closed_form(self, n, k):
        nakajima_vb(self.problem)

    def track_distance_to_closed_form(self, n, k):
        return float(np.linalg.norm(fit_mfvi(self.problem, 1, tol=1e-8).mean - nakajima_vb(self.problem)[0]))


class SymVIKL:
    params = [(10, 20), ("laplace", "asymptotic")]
    param_names = ["k", "method"]

    def setup(self, k, method):
        rng = np.random.default_rng(0)
        # a full-rank mean with well separated columns: the asymptotic expansion is valid there
        self.M = rng.standard_normal((80, k)) * np.linspace(2.0, 1.0, k)
        self.E = rng.standard_normal((16, 80, k))
        self.log_c = math.log(0.3)

    def time_value_and_gradient(self, k, method):
        symvi_kl(self.M, self.log_c, self.E, "corrected", method)
