"""asv: the entropy term of the SGM training step on the digits (Gelberg's Ĥ^K), beside a NumPy baseline.

``symcheck.experiments.gelberg_digits.entropy_hk`` evaluates Ĥ^K for S draws with K − 1 hidden-unit
permutations each in hidden-unit block form (Numba kernels, O(K·D) per draw) and the gradient of
its mean in the same pass. The baseline (same run) is a direct NumPy transcription of the value:
permute every draw's full parameter vector by ``MLPPermutation.source_index``, evaluate the
diagonal Gaussian log density, then ``scipy.special.logsumexp``. The network is the report's
(64 inputs, width hidden units, 10 classes); S = 1 draw per step as in training, and S = 16.
``track_*`` records, in the same run, the largest difference of the two values.
"""

import math

import numpy as np
from scipy.special import logsumexp

from symcheck.experiments.gelberg_digits import entropy_hk, unit_blocks
from symcheck.groups import MLPPermutation

SIZES_IN_OUT = (64, 10)


def _numpy_hk(mean, log_std, eps, perms, G):
    """Ĥ^K per draw by permuting full parameter vectors: −logsumexp_j log q(g_j·ω_s) + log K."""
    S, J, d = perms.shape
    sd = np.exp(log_std)
    omega = mean + sd * eps
    logq = lambda z: -0.5 * np.sum(((z - mean) / sd) ** 2, axis=-1) - log_std.sum() - 0.5 * mean.size * math.log(
        2 * math.pi)  # noqa: E731
    idx = G.source_index(perms.reshape(S * J, d)).reshape(S, J, -1)
    permuted = np.take_along_axis(omega[:, None, :], idx, axis=2)  # (S, J, D)
    terms = np.concatenate([logq(omega)[:, None], logq(permuted)], axis=1)
    return math.log(J + 1) - logsumexp(terms, axis=1)


class EntropyHK:
    params = [[5, 20], [10, 30], [1, 16]]
    param_names = ["K", "width", "S"]

    def setup(self, K, width, S):
        rng = np.random.default_rng(0)
        sizes = (SIZES_IN_OUT[0], width, SIZES_IN_OUT[1])
        self.G = MLPPermutation(sizes)
        self.blocks = unit_blocks(sizes)
        self.mean = 0.3 * rng.standard_normal(self.G.dim)
        self.log_std = np.log(rng.uniform(0.05, 0.5, self.G.dim))
        self.eps = rng.standard_normal((S, self.G.dim))
        self.perms = self.G.sample(rng, S * (K - 1)).reshape(S, K - 1, width)
        entropy_hk(self.mean, self.log_std, self.eps, self.perms, self.blocks)  # Numba compile (cache=True)

    def time_symcheck_value_and_gradient(self, K, width, S):
        entropy_hk(self.mean, self.log_std, self.eps, self.perms, self.blocks)

    def time_symcheck_value(self, K, width, S):
        entropy_hk(self.mean, self.log_std, self.eps, self.perms, self.blocks, grad=False)

    def time_numpy_value(self, K, width, S):
        _numpy_hk(self.mean, self.log_std, self.eps, self.perms, self.G)

    def track_max_abs_diff(self, K, width, S):
        got = entropy_hk(self.mean, self.log_std, self.eps, self.perms, self.blocks, grad=False)
        return float(np.max(np.abs(got - _numpy_hk(self.mean, self.log_std, self.eps, self.perms, self.G))))

    track_max_abs_diff.unit = "nats"
