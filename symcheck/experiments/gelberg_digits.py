"""Gelberg et al.'s Table 1 on a small data set: MFVI vs symmetric Gaussian mixture VI for one-hidden-layer MLPs.

The paper (Sec. 5, "MNIST classifiers", Table 1) trains single-hidden-layer Bayesian MLPs on
MNIST with a mean-field Gaussian q (MFVI) and with its symmetrization q^G over the hidden-unit
permutations (SGM, eq. (4)), whose entropy is replaced by the InfoNCE estimate Ĥ^K (Thm. 4.3),
and states that "the improvement in accuracy achieved by the symmetrization increases with
model width". Here the same two objectives are trained on scikit-learn's 8×8 digits (1797
images; :func:`load_data`) — a stand-in small enough for the report.

Model: f^ω = W₂ tanh(W₁x + b₁) + b₂ (:func:`symcheck.mlp.mlp_forward`'s layout and
network), softmax likelihood, prior N(0, prior_var·I), q = N(μ, diag σ²) with σ = exp(ψ).
Objectives (Sec. 4, "Optimizing the symmetrized ELBO"), per mini-batch B of M of the N
training points and S reparameterised draws ω_s = μ + σ⊙ε_s:

* MFVI: L̂ = (N/M)(1/S) Σ_s log p(Y_B | X_B, ω_s) + E_q[log p(ω)] + H(q), the last two in
  closed form (together −KL(q‖p), as the paper);
* SGM: the same with H(q) replaced by Ĥ^K (:func:`entropy_hk`). E_{q^G}[log p(Y|X, ω) + log p(ω)]
  = E_q[…] because likelihood and prior are permutation invariant (Prop. 2.2), so only the
  entropy changes (Thm. 4.1).

Gradients are written out by hand (:func:`log_likelihood`, :func:`entropy_hk`,
:func:`objective`; Ĥ^K and its gradient by Numba kernels over the hidden units' parameter blocks,
:func:`unit_blocks`, O(K·D) per draw) and checked against finite differences in ``tests/test_gelberg_digits.py``;
the optimiser is Adam (Kingma & Ba; :class:`Adam`) with the paper's learning rate 1e-3 and
batch 100. A training step (:func:`_step`) is two Numba calls around NumPy's vectorised tanh:
:func:`_forward` (mini-batch, draws, pre-activations) and :func:`_train_step` (likelihood
back-propagation, the reparameterised gradient with the prior, Ĥ^K, Adam), since at batch 100 and
width ≤ 30 Python's per-call overhead would dominate; the matrix products stay with BLAS, and
:func:`objective` composes the same kernels in Python as the step's reference route.
:func:`run` is the report's cached task (``symcheck/report/sections/gelberg_digits.py``).
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np
from numba import njit
from scipy.special import softmax

from symcheck._checks import check_choice, check_int, check_positive_float, check_rng
from symcheck.groups import MLPPermutation
from symcheck.mlp import unpack_mlp

__all__ = ["Adam", "DEFAULTS", "converged", "entropy_hk", "fit", "load_data", "log_likelihood", "objective", "predict",
           "run", "unit_blocks"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)

#: Task arguments of :func:`run` and their defaults (``width`` and ``method`` have none).
DEFAULTS = {
    "K": 1,                  # H^K mixture terms (SGM only; ignored by MFVI)
    "epochs": 100,
    "batch_size": 100,       # the paper's
    "lr": 1e-3,              # the paper's
    "n_draws": 1,            # S, reparameterised draws per step
    "prior_var": 1.0,
    "init_log_std": math.log(0.05),
    "n_predict": 1000,       # posterior samples averaged for the test predictions (the paper's 1000)
    "n_eval": 100,           # draws for the final ELBO estimates
    "K_eval": 20,            # K of the final symmetrized-ELBO estimate L^K (both methods)
    "data": "digits",
    "replicate": 0,          # fixes the train/test split and the initial means (shared by paired runs)
}

#: Test fraction of the fixed train/test split.
TEST_FRACTION = 0.25

#: One-sided z of the convergence criterion (:func:`converged`).
CONVERGENCE_Z = 2.0


# ----- data -------------------------------------------------------------------------------


def load_data(name: str, replicate: int) -> dict:
    """Standardised train/test split of a classification data set, fixed by ``replicate``.

    Parameters
    ----------
    name : {"digits", "synthetic"}
        ``"digits"``: :func:`sklearn.datasets.load_digits` (1797 8×8 images, 10 classes; needs
        scikit-learn, the ``report`` extra). ``"synthetic"``: 160 points of 3 Gaussian classes in
        6 dimensions (class means N(0, 1.5²I), unit noise), for tests without scikit-learn.
    replicate : int
        Seed of the split (and of the synthetic data).

    Returns
    -------
    dict
        ``x_train, y_train, x_test, y_test, n_classes``; features standardised by the training
        mean and sd (constant features, e.g. the digits' blank corner pixels, are only centred).
    """
    name = check_choice(name, "data", ("digits", "synthetic"))
    rng = np.random.default_rng([check_int(replicate, "replicate", minimum=0), 0])
    if name == "digits":
        from sklearn.datasets import load_digits

        x, y = load_digits(return_X_y=True)
    else:
        means = 1.5 * rng.standard_normal((3, 6))
        y = rng.integers(0, 3, 160)
        x = means[y] + rng.standard_normal((160, 6))
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.intp)
    order = rng.permutation(y.size)
    n_test = round(TEST_FRACTION * y.size)
    test, train = order[:n_test], order[n_test:]
    centre, scale = x[train].mean(axis=0), x[train].std(axis=0)
    scale[scale == 0] = 1.0
    x = (x - centre) / scale
    return {"x_train": x[train], "y_train": y[train], "x_test": x[test], "y_test": y[test],
            "n_classes": int(y.max()) + 1}


# ----- model ------------------------------------------------------------------------------


@njit(cache=True, error_model="numpy")
def _preactivations(x, omega, d1):
    """Hidden pre-activations A = X W₁ᵀ + b₁ of every draw ``omega`` (S, D), shape ``(n, S, d_1)``.

    W₁ and b₁ in :func:`symcheck.mlp.unpack_mlp` order (D = d₁d₀ + d₂d₁ + d₁ + d₂); one BLAS
    product per draw.
    """
    n, d0 = x.shape
    S, D = omega.shape
    d2 = (D - d1 * d0 - d1) // (d1 + 1)
    o_b1 = d1 * d0 + d2 * d1
    A = np.empty((n, S, d1))
    for s in range(S):
        As = x @ omega[s, :d1 * d0].copy().reshape((d1, d0)).T
        for m in range(n):
            for j in range(d1):
                A[m, s, j] = As[m, j] + omega[s, o_b1 + j]
    return A


@njit(cache=True, error_model="numpy")
def _forward(mean, sd, eps, x, y, batch, d1):
    """The training step's inputs in one call: rows ``batch`` of ``x`` and ``y``, ω_s = μ + σ⊙ε_s, and :func:`_preactivations`."""
    n = batch.size
    xb, yb = np.empty((n, x.shape[1])), np.empty(n, dtype=np.intp)
    for m in range(n):
        xb[m] = x[batch[m]]
        yb[m] = y[batch[m]]
    omega = np.empty(eps.shape)
    for s in range(eps.shape[0]):
        for i in range(eps.shape[1]):
            omega[s, i] = mean[i] + sd[i] * eps[s, i]
    return xb, yb, omega, _preactivations(xb, omega, d1)


def _hidden_units(x, omega, layer_sizes):
    """Hidden activations tanh(W₁x + b₁) for S weight draws ``omega`` (S, D), shape ``(n, S, d_1)``.

    :func:`_preactivations`, then NumPy's vectorised tanh (SIMD; a scalar tanh per element in a
    Numba loop took ten times as long at width 30).
    """
    A = _preactivations(np.ascontiguousarray(x, dtype=np.float64), np.ascontiguousarray(omega, dtype=np.float64),
                        layer_sizes[1])
    return np.tanh(A, out=A)


@njit(cache=True, error_model="numpy")
def _likelihood_kernel(omega, x, y, H, ll, g):
    """Fill ``ll`` (S,) with Σ_n log p(y_n | x_n, ω_s) and, unless ``g`` has no rows, ``g`` (S, D) with its gradient.

    ``H`` (n, S, d_1) holds the hidden activations tanh(X W₁ᵀ + b₁) of every draw (computed by
    :func:`log_likelihood` with NumPy's vectorised tanh). Per draw: logits F = H W₂ᵀ + b₂,
    log-softmax by loops, then ∂/∂F = onehot(y) − softmax(F), ∂/∂W₂ = (∂/∂F)ᵀ H,
    ∂/∂A = (∂/∂F W₂)(1 − H²), ∂/∂W₁ = (∂/∂A)ᵀ X and the biases' column sums.
    """
    n, d0 = x.shape
    d1 = H.shape[2]
    d2 = (omega.shape[1] - d1 * d0 - d1) // (d1 + 1)  # D = d₁d₀ + d₂d₁ + d₁ + d₂
    o_w2, o_b1 = d1 * d0, d1 * d0 + d2 * d1
    o_b2 = o_b1 + d1
    for s in range(omega.shape[0]):
        w = omega[s]
        W2 = w[o_w2:o_b1].copy().reshape((d2, d1))
        Hs = H[:, s, :].copy()
        F = Hs @ W2.T
        total = 0.0
        for m in range(n):
            top = -math.inf
            for c in range(d2):
                F[m, c] += w[o_b2 + c]
                top = max(top, F[m, c])
            total += F[m, y[m]] - top
            z = 0.0
            for c in range(d2):  # F's row m becomes exp(F − max), then ∂/∂F
                F[m, c] = math.exp(F[m, c] - top)
                z += F[m, c]
            total -= math.log(z)
            for c in range(d2):
                F[m, c] = (1.0 if c == y[m] else 0.0) - F[m, c] / z
        ll[s] = total
        if g.shape[0] == 0:
            continue
        dA = F @ W2
        for m in range(n):
            for c in range(d2):
                g[s, o_b2 + c] += F[m, c]
            for j in range(d1):
                dA[m, j] *= 1.0 - Hs[m, j] ** 2
                g[s, o_b1 + j] += dA[m, j]
        g[s, o_w2:o_b1] = (F.T @ Hs).ravel()
        g[s, :o_w2] = (dA.T @ x).ravel()


def log_likelihood(omega, x, y, layer_sizes, grad: bool = True):
    """Softmax log likelihood Σ_n log p(y_n | x_n, ω) of the one-hidden-layer tanh MLP, and its gradient.

    Parameters
    ----------
    omega : ndarray, shape ``(S, D)``
        Parameters in :func:`symcheck.mlp.unpack_mlp` order (W₁, W₂, b₁, b₂).
    x : ndarray, shape ``(n, d_0)``
    y : ndarray of int, shape ``(n,)``
    layer_sizes : (d_0, d_1, d_2)
    grad : bool
        Also return the gradient.

    Returns
    -------
    ll : ndarray, shape ``(S,)``
    g : ndarray, shape ``(S, D)`` (only with ``grad``)
        ∂ll/∂ω by back-propagation: ∂/∂F = onehot(y) − softmax(F) for the logits F = H W₂ᵀ + b₂,
        H = tanh(A), A = X W₁ᵀ + b₁, ∂/∂A = (∂/∂F W₂)(1 − H²) (:func:`_likelihood_kernel`).
    """
    omega, x = np.ascontiguousarray(omega, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64)
    ll = np.empty(omega.shape[0])
    g = np.zeros(omega.shape if grad else (0, omega.shape[1]))
    _likelihood_kernel(omega, x, np.asarray(y, dtype=np.intp), _hidden_units(x, omega, layer_sizes), ll, g)
    return (ll, g) if grad else ll


@functools.lru_cache(maxsize=None)
def unit_blocks(layer_sizes: tuple):
    """Coordinates of each hidden unit's parameters, shape ``(d_1, d_0 + 1 + d_2)`` (read-only).

    Row j: row j of W₁, b₁[j] and column j of W₂ in :func:`symcheck.mlp.unpack_mlp`
    order — the parameters a hidden-unit permutation moves together (Def. 2.1).
    """
    d0, d1, d2 = layer_sizes
    (W1, W2), (b1, _) = unpack_mlp(np.arange(d1 * d0 + d2 * d1 + d1 + d2, dtype=np.float64), layer_sizes)
    out = np.concatenate([W1, b1[:, None], W2.T], axis=1).astype(np.intp)
    out.flags.writeable = False
    return out


@njit(cache=True)
def _log_q_identity(log_std, eps):
    """log q(ω_s) at ω_s = μ + σ⊙ε_s: Σ_c (−½ log 2π − ψ_c − ε_{sc}²/2), shape ``(S,)``."""
    S, D = eps.shape
    out = np.empty(S)
    for s in range(S):
        sq = 0.0
        for c in range(D):
            sq += eps[s, c] ** 2
        out[s] = -D * _HALF_LOG_2PI - log_std.sum() - 0.5 * sq
    return out


@njit(cache=True)
def _with_identity(a0, a_perm):
    """The K log mixture terms (S, K): log q(ω_s) first — the identity is always one of the K (Thm. 4.3)."""
    S, J = a_perm.shape
    out = np.empty((S, J + 1))
    for s in range(S):
        out[s, 0] = a0[s]
        out[s, 1:] = a_perm[s]
    return out


@njit(cache=True, error_model="numpy")
def _unit_form(mean, sd, eps, blocks):
    """μ, 1/σ (shape ``(d, p)``), ω_s = μ + σ⊙ε_s, σ⊙ε_s and ε_s (shape ``(S, d, p)``) on the coordinates ``blocks``.

    ``blocks``: :func:`unit_blocks`, the hidden units' parameters.
    """
    d, p = blocks.shape
    S = eps.shape[0]
    mu, inv_sd = np.empty((d, p)), np.empty((d, p))
    omega, sd_eps, eps_u = np.empty((S, d, p)), np.empty((S, d, p)), np.empty((S, d, p))
    for i in range(d):
        for c in range(p):
            b = blocks[i, c]
            mu[i, c], inv_sd[i, c] = mean[b], 1.0 / sd[b]
    for s in range(S):
        for i in range(d):
            for c in range(p):
                b = blocks[i, c]
                eps_u[s, i, c] = eps[s, b]
                sd_eps[s, i, c] = sd[b] * eps[s, b]
                omega[s, i, c] = mean[b] + sd_eps[s, i, c]
    return mu, inv_sd, omega, sd_eps, eps_u


@njit(cache=True)
def _permuted_logq(a0, mu, inv_sd, omega, eps, perms):
    """log q(g_{sj}·ω_s) for every draw s and element j, shape ``(S, K − 1)``, from ``a0`` = log q(ω_s).

    Unit form (:func:`_unit_form`): ``mu``, ``inv_sd`` = 1/σ of shape ``(d, p)``, ``omega`` and
    ``eps`` of shape ``(S, d, p)``. g moves hidden unit i to position τ(i) = ``perms[s, j, i]``,
    so unit τ(i) of g·ω is unit i of ω; the output bias is unchanged by g and cancels:
    log q(g·ω_s) = log q(ω_s) − ½ Σ_{unit coords} [(z − μ)²/σ² − ε²].
    """
    S, J, d = perms.shape
    p = mu.shape[1]
    out = np.empty((S, J))
    acc = np.empty(p)  # one partial sum per unit coordinate: no serial chain through one accumulator
    for s in range(S):
        base = 0.0
        for i in range(d):
            for c in range(p):
                base += eps[s, i, c] ** 2
        for j in range(J):
            acc[:] = 0.0
            for i in range(d):
                om, m_t, is_t = omega[s, i], mu[perms[s, j, i]], inv_sd[perms[s, j, i]]
                for c in range(p):
                    acc[c] += ((om[c] - m_t[c]) * is_t[c]) ** 2
            out[s, j] = a0[s] - 0.5 * (acc.sum() - base)
    return out


@njit(cache=True, error_model="numpy")
def _mixture_weights(a, perms):
    """Per draw: Ĥ^K term log K − logsumexp_j a_{sj}, softmax weights w_{sj} (S, K), and the weight of the moved copies.

    ``a`` (S, K) holds the K log mixture terms, column 0 the identity; ``perms`` (S, K − 1, d_1)
    the other elements. The last output is Σ_{j: g_sj ≠ e} w_sj (a drawn identity does not count).
    """
    S, K = a.shape
    terms, w, overlap = np.empty(S), np.empty((S, K)), np.zeros(S)
    for s in range(S):
        top = a[s].max()
        total = 0.0
        for j in range(K):
            w[s, j] = math.exp(a[s, j] - top)
            total += w[s, j]
        terms[s] = math.log(K) - (top + math.log(total))
        for j in range(K):
            w[s, j] /= total
        for j in range(K - 1):
            for i in range(perms.shape[2]):
                if perms[s, j, i] != i:
                    overlap[s] += w[s, j + 1]
                    break
    return terms, w, overlap


@njit(cache=True, error_model="numpy")
def _permuted_grad(w, blocks, dim, mu, inv_sd, omega, sd_eps, perms):
    """−(1/S) Σ_s Σ_{j≥1} w_{sj} (∂a_{sj}/∂μ, ∂a_{sj}/∂ψ + 1), shape ``(2, D)`` (``dim`` = D), zero off ``blocks``.

    a_{sj} = log q(g_{sj}·ω_s), ω_s = μ + σ⊙ε_s (``sd_eps`` = σ⊙ε_s), the other arguments in
    unit form (:func:`_unit_form`). Unit τ(i) of z = g·ω holds unit i of ω; with r = (z − μ)/σ²
    there: ∂a/∂μ[τ(i)] = r (direct), ∂a/∂ω[i] = −r, and dω/dμ = 1, dω/dψ = σ⊙ε; so ∂a/∂μ = r at
    τ(i) and −r at i, ∂a/∂ψ = −1 + r(z − μ) at τ(i) and −r σε at i. The output bias enters a as
    ε² only (∂/∂μ = 0, ∂/∂ψ = −1). The −1's are left out (the caller adds them: Σ_j w_{sj} = 1).
    The sum is accumulated in unit form, then scattered to the coordinates ``blocks``.

    Elements with w_{sj} = 0 (in training every permuted copy's weight underflows to 0: the
    report's ``overlap_max``) are skipped: their terms r = 0·(…) are signed zeros, and adding a
    signed zero to these accumulators (which start at +0 and so are never −0) changes no bit.
    """
    S, J, d = perms.shape
    p = mu.shape[1]
    inv_var = inv_sd**2
    at_t, at_i = np.zeros((2, d, p)), np.zeros((2, d, p))  # the terms at τ(i) and at i
    r_sum = np.empty((d, p))  # Σ_j r at unit i of draw s; the σε factor is common to the j
    for s in range(S):
        r_sum[:] = 0.0
        moved = False
        for j in range(J):
            wj = w[s, j + 1]
            if wj == 0.0:
                continue
            moved = True
            for i in range(d):
                t = perms[s, j, i]
                om, m_t, iv_t, mu_t, ps_t, r_i = omega[s, i], mu[t], inv_var[t], at_t[0, t], at_t[1, t], r_sum[i]
                for c in range(p):
                    dev = om[c] - m_t[c]
                    r = wj * dev * iv_t[c]
                    mu_t[c] += r
                    ps_t[c] += r * dev
                    r_i[c] += r
        if not moved:
            continue
        for i in range(d):
            for c in range(p):
                at_i[0, i, c] += r_sum[i, c]
                at_i[1, i, c] += r_sum[i, c] * sd_eps[s, i, c]
    out = np.zeros((2, dim))
    for k in range(2):
        for i in range(d):
            for c in range(p):
                out[k, blocks[i, c]] = -(at_t[k, i, c] - at_i[k, i, c]) / S
    return out


@njit(cache=True, error_model="numpy")
def _hk_gradient(w, blocks, dim, mu, inv_sd, omega, sd_eps, perms):
    """Gradient of mean_s t_s, t_s = log K − logsumexp_j a_{sj}, in (μ, ψ), shape ``(2, D)``.

    ``w`` (S, K): the softmax weights of the a_{sj} (column 0 the identity, whose a_{s0}
    = Σ(−½ log 2π − ψ − ε²/2) has ∂/∂μ = 0, ∂/∂ψ = −1); the other arguments as
    :func:`_permuted_grad`. Hence ∇ mean_s t_s = (0, 1) − (1/S) Σ_s Σ_{j≥1} w_{sj} (∂a_{sj}/∂μ,
    ∂a_{sj}/∂ψ + 1), the sum living on the units' coordinates ``blocks``.
    """
    g = _permuted_grad(w, blocks, dim, mu, inv_sd, omega, sd_eps, perms)
    g[1] += 1.0
    return g


def entropy_hk(mean, log_std, eps, perms, blocks, grad: bool = True):
    """Gelberg's Ĥ^K (Thm. 4.3) per draw, with the gradient of its mean, at fixed noise.

    t_s = −log((1/K)[q(ω_s) + Σ_{j=1}^{K−1} q(g_{sj}·ω_s)]), ω_s = μ + σ⊙ε_s, q = N(μ, diag σ²),
    σ = exp(ψ). The paper writes q(g_j⁻¹·ω); g ↦ g⁻¹ preserves the uniform distribution, so the
    two have the same law. Each draw has its own K−1 elements (the paper shares them within a
    mini-batch): the t_s are then i.i.d. and their mean has an honest standard error, as in
    :func:`symcheck.symmetrize.entropy_infonce`, which this equals given the same draws.

    Parameters
    ----------
    mean, log_std : ndarray, shape ``(D,)``
    eps : ndarray, shape ``(S, D)``
        Standard normal draws.
    perms : ndarray of int, shape ``(S, K − 1, d_1)``
        Hidden-unit permutations τ (g moves unit i to position τ(i), as
        :class:`symcheck.groups.MLPPermutation` and its ``sample``); the identity is always
        the K-th term and is not listed.
    blocks : ndarray of int, shape ``(d_1, p)``
        :func:`unit_blocks` of the network.
    grad : bool
        Also return the gradient of mean_s t_s in (``mean``, ``log_std``), through ω_s too
        (the reparameterisation trick).

    Returns
    -------
    terms : ndarray, shape ``(S,)``
    grad : ndarray, shape ``(2, D)`` (only with ``grad``)
    overlap : ndarray, shape ``(S,)`` (only with ``grad``)
        Σ_{j: g_sj ≠ e} w_sj, the softmax weight of the permuted copies other than the identity in
        each draw's log-sum-exp. The gradient differs from MFVI's entropy gradient (0, 1) only
        through these weights (a drawn identity gives a_sj = a_s0 and the same gradient as it).
    """
    mu, inv_sd, omega, sd_eps, eps_u = _unit_form(mean, np.exp(log_std), eps, blocks)
    a0 = _log_q_identity(log_std, eps)
    terms, w, overlap = _mixture_weights(_with_identity(a0, _permuted_logq(a0, mu, inv_sd, omega, eps_u, perms)), perms)
    if not grad:
        return terms
    return terms, _hk_gradient(w, blocks, mean.size, mu, inv_sd, omega, sd_eps, perms), overlap


@njit(cache=True, error_model="numpy")
def _hk_terms(mean, sd, log_std, eps, perms, blocks):
    """:func:`entropy_hk`'s kernels composed inside Numba for :func:`_train_step` (``sd`` = exp(``log_std``)).

    Returns the t_s, the softmax weights and overlaps of :func:`_mixture_weights`, and the unit
    form (μ, 1/σ, ω_s, σ⊙ε_s) that :func:`_hk_gradient` takes. :func:`entropy_hk` composes the same
    kernels in Python, the reference route of the training-step test.
    """
    mu, inv_sd, omega, sd_eps, eps_u = _unit_form(mean, sd, eps, blocks)
    a0 = _log_q_identity(log_std, eps)
    terms, w, overlap = _mixture_weights(_with_identity(a0, _permuted_logq(a0, mu, inv_sd, omega, eps_u, perms)), perms)
    return terms, w, overlap, (mu, inv_sd, omega, sd_eps)


@njit(cache=True)
def _gaussian_entropy(log_std):
    """H(q) = D(½ log 2π + ½) + Σψ of q = N(μ, diag exp(2ψ))."""
    return log_std.size * (_HALF_LOG_2PI + 0.5) + log_std.sum()


@njit(cache=True)
def _expected_log_prior(mean, sd, prior_var):
    """E_q[log N(ω; 0, v I)] = −(D/2) log 2πv − Σ(μ² + σ²)/(2v)."""
    total = 0.0
    for i in range(mean.size):
        total += mean[i] ** 2 + sd[i] ** 2
    return -mean.size * (_HALF_LOG_2PI + 0.5 * math.log(prior_var)) - total / (2 * prior_var)


@njit(cache=True, error_model="numpy")
def _data_and_prior(mean, sd, eps, ll, g, scale, prior_var):
    """(scale/S) Σ_s ll_s + E_q[log p(ω)] and its gradient in (μ, ψ), shape ``(2, D)``.

    Reparameterisation: ω_s = μ + σ⊙ε_s, so ∂/∂μ = ∂/∂ω and ∂/∂ψ = σ⊙ε_s⊙∂/∂ω (``g`` holds
    ∂ll_s/∂ω_s); the prior term (:func:`_expected_log_prior`) adds −μ/v and −σ²/v.
    """
    S, D = g.shape
    out = np.zeros((2, D))
    for s in range(S):
        for i in range(D):
            out[0, i] += g[s, i]
            out[1, i] += g[s, i] * sd[i] * eps[s, i]
    for i in range(D):
        out[0, i] = scale * (out[0, i] / S) - mean[i] / prior_var
        out[1, i] = scale * (out[1, i] / S) - sd[i] ** 2 / prior_var
    return scale * (ll.sum() / S) + _expected_log_prior(mean, sd, prior_var), out


def objective(params, x, y, n_total, layer_sizes, method, eps, perms=None, prior_var=1.0):
    """One Monte Carlo estimate of the training objective (MFVI ELBO or SGM L̂^K) and its gradient.

    Parameters
    ----------
    params : ndarray, shape ``(2, D)``
        (μ, ψ), σ = exp(ψ).
    x, y : ndarray
        The mini-batch (M points).
    n_total : int
        N, the training-set size (the likelihood is scaled by N/M).
    layer_sizes : (d_0, d_1, d_2)
    method : {"mfvi", "sgm"}
    eps : ndarray, shape ``(S, D)``
        Standard normal draws, ω_s = μ + σ⊙ε_s.
    perms : ndarray of int, shape ``(S, K − 1, d_1)``, optional
        The hidden-unit permutations of :func:`entropy_hk` (``"sgm"`` only).
    prior_var : float

    Returns
    -------
    value : float
        (N/M)(1/S) Σ_s log p(Y_B|X_B, ω_s) + E_q[log p(ω)] + (H(q) for MFVI, mean_s Ĥ^K_s for SGM).
    grad : ndarray, shape ``(2, D)``
    overlap : float
        SGM: the largest ``overlap`` of :func:`entropy_hk` over the draws; MFVI: 0.
    """
    mean, log_std = params
    sd = np.exp(log_std)
    scale = n_total / y.size
    ll, g = log_likelihood(mean + sd * eps, x, y, layer_sizes)
    value, grad = _data_and_prior(mean, sd, eps, ll, g, scale, prior_var)
    if method == "mfvi":
        ent, overlap = _gaussian_entropy(log_std), 0.0
        grad[1] += 1.0
    else:
        terms, g_ent, overlaps = entropy_hk(mean, log_std, eps, perms, unit_blocks(tuple(layer_sizes)))
        ent, overlap = terms.mean(), float(overlaps.max())
        grad += g_ent
    return float(value + ent), grad, overlap


@njit(cache=True, error_model="numpy")
def _train_step(params, sd, eps, omega, x, y, hidden, perms, blocks, sgm, scale, prior_var,
                m, v, lr, beta1, beta2, adam_eps, corr1, corr2):
    """One training step in one call: :func:`objective`'s value and gradient, then :func:`_adam_kernel` on ``params``.

    The same kernels as :func:`objective` (which stays the reference route, composed in Python):
    ``sd`` = exp(ψ), ``omega`` = μ + σ⊙ε_s and ``hidden`` = :func:`_hidden_units` of the mini-batch
    ``x`` are computed by the caller (NumPy's vectorised exp and tanh); ``scale`` = N/M; ``sgm``
    selects Ĥ^K (with ``perms``, ``blocks``) over H(q). ``params`` (2, D) is overwritten by the Adam
    ascent step with moments ``m``, ``v`` (updated in place) and bias corrections ``corr1``, ``corr2``.
    Returns the value and overlap of :func:`objective`.
    """
    mean, log_std = params[0], params[1]
    ll, g = np.empty(omega.shape[0]), np.zeros(omega.shape)
    _likelihood_kernel(omega, x, y, hidden, ll, g)
    value, grad = _data_and_prior(mean, sd, eps, ll, g, scale, prior_var)
    if sgm:
        terms, w, overlaps, (mu, inv_sd, om_u, sd_eps) = _hk_terms(mean, sd, log_std, eps, perms, blocks)
        grad += _hk_gradient(w, blocks, mean.size, mu, inv_sd, om_u, sd_eps, perms)
        ent, overlap = terms.mean(), overlaps.max()
    else:
        grad[1] += 1.0
        ent, overlap = _gaussian_entropy(log_std), 0.0
    params[:] = _adam_kernel(params, grad, m, v, lr, beta1, beta2, adam_eps, corr1, corr2)
    return value + ent, overlap


# ----- optimiser and training -------------------------------------------------------------


class Adam:
    """Adam (Kingma & Ba 2014, Alg. 1) for gradient *ascent*, with its default β₁, β₂, ε."""

    def __init__(self, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.m = self.v = None
        self.t = 0

    def step(self, params, grad):
        """Return the parameters after one ascent step along ``grad`` (:func:`_adam_kernel`)."""
        params, grad = np.ascontiguousarray(params, dtype=np.float64), np.ascontiguousarray(grad, dtype=np.float64)
        corrections = self.advance(grad.shape)  # before reading the moments: the first step creates them
        return _adam_kernel(params, grad, self.m, self.v, self.lr, self.beta1, self.beta2, self.eps, *corrections)

    def advance(self, shape):
        """Count one step (moments started at zero of ``shape`` on the first); return the bias corrections 1 − β₁ᵗ, 1 − β₂ᵗ."""
        if self.m is None:
            self.m, self.v = np.zeros(shape), np.zeros(shape)
        self.t += 1
        return 1 - self.beta1**self.t, 1 - self.beta2**self.t


@njit(cache=True, error_model="numpy")
def _adam_kernel(params, grad, m, v, lr, beta1, beta2, eps, corr1, corr2):
    """One Adam ascent step (Kingma & Ba, Alg. 1): moments ``m``, ``v`` updated in place, new parameters returned.

    m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², θ ← θ + lr·m̂/(√v̂ + ε) with m̂ = m/``corr1``,
    v̂ = v/``corr2`` (``corr`` = 1 − β^t, the bias corrections).
    """
    out = np.empty_like(params)
    p, g, m1, v1, o = params.reshape(-1), grad.reshape(-1), m.reshape(-1), v.reshape(-1), out.reshape(-1)
    for i in range(p.size):
        m1[i] = beta1 * m1[i] + (1 - beta1) * g[i]
        v1[i] = beta2 * v1[i] + (1 - beta2) * g[i] ** 2
        o[i] = p[i] + lr * (m1[i] / corr1) / (math.sqrt(v1[i] / corr2) + eps)
    return out


def _draw_perms(group, rng, S, K):
    """S(K − 1) uniform hidden-unit permutations, shape ``(S, K − 1, d_1)``.

    The draws of ``group.sample(rng, S(K − 1))`` for the one hidden layer (the same generator
    calls, so the same stream: ``tests/test_gelberg_digits.py`` checks it), without its argument
    checks, which cost more than the draw itself once per training step.
    """
    d = group.hidden[0]
    if K == 1:
        return np.zeros((S, 0, d), dtype=np.intp)
    out = np.empty((S, K - 1, d), dtype=np.intp)
    rng.permuted(_identity_rows(S * (K - 1), d), axis=1, out=out.reshape(-1, d))
    return out


@functools.lru_cache(maxsize=16)
def _identity_rows(rows: int, d: int) -> np.ndarray:
    """``rows`` copies of 0..d−1 (a read-only broadcast view, made once: building it cost a third of a draw)."""
    return np.broadcast_to(np.arange(d, dtype=np.intp), (rows, d))


def _step(params, adam, x, y, batch, eps, perms, blocks, sgm, prior_var):
    """One training step of :func:`fit` on the rows ``batch`` of the training set ``x``, ``y``: ``params`` updated in place.

    :func:`_forward`, NumPy's tanh, then :func:`_train_step` with the moments of ``adam``;
    ``perms`` has shape ``(S, K − 1, d_1)`` (K = 1 for MFVI). Equals :func:`objective` on
    ``x[batch]``, ``y[batch]`` followed by ``adam.step`` (``tests/test_gelberg_digits.py``).
    Returns (objective value, overlap).
    """
    sd, corrections = np.exp(params[1]), adam.advance(params.shape)
    xb, yb, omega, hidden = _forward(params[0], sd, eps, x, y, batch, perms.shape[2])
    value, overlap = _train_step(params, sd, eps, omega, xb, yb, np.tanh(hidden, out=hidden), perms, blocks, sgm,
                               y.size / batch.size, prior_var, adam.m, adam.v, adam.lr, adam.beta1, adam.beta2,
                               adam.eps, *corrections)
    return value, overlap


def converged(epoch_means, window: int):
    """The convergence criterion: no detectable rise of the epoch-mean objective at the end.

    Δ = (mean of the last ``window`` epochs) − (mean of the ``window`` before); its standard
    error from the two windows' sample variances (epoch means treated as independent).
    Converged when Δ ≤ :data:`CONVERGENCE_Z`·SE, i.e. the objective no longer rises by more than
    its Monte Carlo scatter. Returns ``(converged, Δ, SE)``; False if there are fewer than
    2·``window`` epochs.
    """
    e = np.asarray(epoch_means, dtype=np.float64)
    if e.size < 2 * window:
        return False, math.nan, math.nan
    last, before = e[-window:], e[-2 * window: -window]
    delta = float(last.mean() - before.mean())
    se = float(math.sqrt((last.var(ddof=1) + before.var(ddof=1)) / window))
    return bool(delta <= CONVERGENCE_Z * se), delta, se


def fit(data, width, method, K, rng, epochs, batch_size=100, lr=1e-3, n_draws=1, prior_var=1.0,
        init_log_std=math.log(0.05), replicate=0):
    """Train q = N(μ, diag exp(2ψ)) by Adam on the MFVI or SGM objective (:func:`objective`).

    The initial means are N(0, 1/fan-in) (fixed by ``replicate``, so paired MFVI/SGM runs start
    at the same point), ψ = ``init_log_std``; each epoch visits the shuffled training set in
    mini-batches. Returns ``(params, epoch_means, iterations, overlap)``: the final (μ, ψ), the
    mean objective estimate of every epoch, the number of Adam steps and the largest ``overlap``
    of :func:`objective` over the steps.
    """
    x, y = data["x_train"], data["y_train"]
    sizes = (x.shape[1], width, data["n_classes"])
    group = MLPPermutation(sizes)
    init = np.random.default_rng([replicate, 1])
    mean = np.empty(group.dim)
    (W1, W2), (b1, b2) = unpack_mlp(mean, sizes)
    W1[...] = init.standard_normal(W1.shape) / math.sqrt(sizes[0])
    W2[...] = init.standard_normal(W2.shape) / math.sqrt(width)
    b1[...], b2[...] = 0.0, 0.0
    params = np.stack([mean, np.full(group.dim, init_log_std)])
    adam = Adam(lr)
    sgm, blocks = method == "sgm", unit_blocks(sizes)
    no_perms = np.zeros((n_draws, 0, width), dtype=np.intp)
    epoch_means, overlap = [], 0.0
    for _ in range(epochs):
        order = rng.permutation(y.size)
        values = []
        for start in range(0, y.size, batch_size):
            batch = order[start: start + batch_size]
            eps = rng.standard_normal((n_draws, group.dim))
            perms = _draw_perms(group, rng, n_draws, K) if sgm else no_perms
            value, step_overlap = _step(params, adam, x, y, batch, eps, perms, blocks, sgm, prior_var)
            values.append(value)
            overlap = max(overlap, step_overlap)
        epoch_means.append(float(np.mean(values)))
    return params, epoch_means, adam.t, overlap


def predict(params, x, layer_sizes, rng, n_samples, chunk: int = 100):
    """Class probabilities averaged over ``n_samples`` draws ω ~ q (Sec. 5: f̂ = (1/S) Σ_s f^{ω_s}).

    Sampling q^G instead (ω ~ q, then a uniform permutation g) gives the same predictions in
    law: f^{g·ω} ≡ f^ω (Def. 2.1), so q is sampled directly (Sec. 4; App. C).
    """
    mean, log_std = params
    total = np.zeros((x.shape[0], layer_sizes[-1]))
    for start in range(0, n_samples, chunk):
        s = min(chunk, n_samples - start)
        omega = mean + np.exp(log_std) * rng.standard_normal((s, mean.size))
        (_, W2), (_, b2) = unpack_mlp(omega, layer_sizes)
        H = _hidden_units(x, omega, layer_sizes).transpose(1, 0, 2)
        total += softmax(H @ W2.swapaxes(1, 2) + b2[:, None, :], axis=-1).sum(axis=0)
    return total / n_samples


def _elbo_estimates(params, data, sizes, rng, n_eval, K_eval, prior_var):
    """Final plain ELBO, L^K (K = ``K_eval``) and Î^K = L^K − L on the full training set, each (estimate, SE).

    Î^K = Ĥ^K − H(q) is taken per draw as t_s + log q(ω_s) (the control variate of
    :func:`symcheck.symmetrize.entropy_infonce`: same expectation, E log q(ω) = −H(q)), i.e.
    log K − log Σ_j q(g_{sj}·ω_s)/q(ω_s) ∈ (−∞, log K]: the InfoNCE bound on I(g; ω) (Thm. 4.1),
    which cannot exceed log K.
    """
    mean, log_std = params
    sd = np.exp(log_std)
    eps = rng.standard_normal((n_eval, mean.size))
    ll = np.concatenate([log_likelihood(mean + sd * e, data["x_train"], data["y_train"], sizes, grad=False)
                         for e in np.array_split(eps, max(1, n_eval // 10))])
    lp = _expected_log_prior(mean, sd, prior_var)
    h = _gaussian_entropy(log_std)
    hk = entropy_hk(mean, log_std, eps, _draw_perms(MLPPermutation(sizes), rng, n_eval, K_eval), unit_blocks(sizes), grad=False)
    mi = hk + _log_q_identity(log_std, eps)
    out = {}
    for key, terms in (("elbo", ll + lp + h), ("elbo_sym", ll + lp + h + mi), ("mi_k", mi)):
        out[key] = float(terms.mean())
        out[f"{key}_se"] = float(terms.std(ddof=1) / math.sqrt(terms.size))
    return out


def _parse_args(args):
    if not isinstance(args, dict):
        raise ValueError(f"args must be a dict of task arguments, got {type(args).__name__}")
    unknown = set(args) - set(DEFAULTS) - {"width", "method"}
    if unknown:
        raise ValueError(f"args: unknown task arguments {sorted(unknown)}; expected width, method and {sorted(DEFAULTS)}")
    for key in ("width", "method"):
        if key not in args:
            raise ValueError(f"args: {key} is required")
    a = {**DEFAULTS, **args}
    a["width"] = check_int(a["width"], "width", minimum=1)
    a["method"] = check_choice(a["method"], "method", ("mfvi", "sgm"))
    for key in ("K", "epochs", "batch_size", "n_draws", "K_eval"):
        a[key] = check_int(a[key], key, minimum=1)
    for key in ("n_predict", "n_eval"):
        a[key] = check_int(a[key], key, minimum=2)
    a["replicate"] = check_int(a["replicate"], "replicate", minimum=0)
    a["lr"] = check_positive_float(a["lr"], "lr")
    a["prior_var"] = check_positive_float(a["prior_var"], "prior_var")
    value = a["init_log_std"]
    if isinstance(value, (bool, str)) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"init_log_std must be a finite real number, got {value!r}")
    a["init_log_std"] = float(value)
    a["data"] = check_choice(a["data"], "data", ("digits", "synthetic"))
    return a


def run(args, rng) -> dict:
    """Train one model and evaluate it: the report's cached task (JSON in, JSON out).

    Parameters
    ----------
    args : dict
        ``width`` (hidden units), ``method`` (``"mfvi"`` or ``"sgm"``) and any of :data:`DEFAULTS`
        (``K`` for SGM, ``epochs``, ``replicate`` fixing the data split and initial means, …).
    rng : numpy Generator or int
        Mini-batches, draws ε, permutations, predictions and the final estimates.

    Returns
    -------
    dict
        ``test_accuracy``, ``test_loglik`` (mean log predictive probability of the test labels,
        from ``n_predict`` posterior samples), ``elbo`` / ``elbo_se`` (plain ELBO L_VI on the
        training set), ``elbo_sym`` / ``elbo_sym_se`` (L^K_VI with K = ``K_eval``: the paper's
        estimate of the symmetrized ELBO L^G, for both methods), ``mi_k`` / ``mi_k_se`` (L^K − L,
        the InfoNCE bound on I(g; ω), ≤ log ``K_eval``), ``objective`` (mean training
        objective over the last window of epochs), ``iterations``, ``overlap_max`` (the largest weight of
        non-identity permuted copies in Ĥ^K over the training steps, :func:`entropy_hk`), ``converged`` with ``delta``,
        ``delta_se`` and ``window`` (:func:`converged`), ``n_train``, ``n_test`` and ``seconds``.
        Everything but ``seconds`` is a deterministic function of ``args`` and the seed.

    Raises
    ------
    ValueError
        Naming the argument: non-dict ``args``, unknown keys, width < 1, K < 1, unknown method, …
    """
    a = _parse_args(args)
    rng = check_rng(rng)
    t0 = time.perf_counter()
    data = load_data(a["data"], a["replicate"])
    sizes = (data["x_train"].shape[1], a["width"], data["n_classes"])
    params, epoch_means, iterations, overlap = fit(data, a["width"], a["method"], a["K"], rng, a["epochs"], a["batch_size"],
                                          a["lr"], a["n_draws"], a["prior_var"], a["init_log_std"], a["replicate"])
    window = max(5, a["epochs"] // 10)
    ok, delta, delta_se = converged(epoch_means, window)
    probs = predict(params, data["x_test"], sizes, rng, a["n_predict"])
    y = data["y_test"]
    out = {
        "test_accuracy": float(np.mean(np.argmax(probs, axis=1) == y)),
        "test_loglik": float(np.mean(np.log(np.maximum(probs[np.arange(y.size), y], np.finfo(float).tiny)))),
        **_elbo_estimates(params, data, sizes, rng, a["n_eval"], a["K_eval"], a["prior_var"]),
        "objective": float(np.mean(epoch_means[-window:])),
        "iterations": int(iterations),
        "overlap_max": overlap,
        "converged": ok, "delta": delta, "delta_se": delta_se, "window": window,
        "n_train": int(data["y_train"].size), "n_test": int(y.size),
    }
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out
