"""Groups acting on variational parameters, and exact symmetrized Gaussian log densities.

The protocol every group implements is :class:`Group`; the dispatchers of
:mod:`symcheck.symmetrize` (``symmetrized_logpdf``, ``symmetrization_gap``,
``entropy_infonce``, the symmetrized ELBOs) are written against it only, so a new
group (e.g. ``symcheck.orthogonal.Orthogonal``) plugs in by subclassing it.

Conventions
-----------
* A *point* z of the parameter space has the group's *event shape* ``E`` (a vector of
  length n, or a d×k matrix, ...). A batch of points has shape ``(*batch, *E)``.
* The base variational posterior is a Gaussian q* = N(mean, diag var) with ``mean`` and
  ``var`` of shape ``E``; where the group allows it, ``var`` may instead be a full
  covariance of shape ``(n, n)``, n = prod(E), of the row-major flattened point.
* The symmetrized density (Moore eq. (3); Gelberg et al. eq. (4)) is
  q̃(z) = (1/|G|) Σ_g q*(g⁻¹·z) = E_{g ~ uniform(G)} q*(g·z) for orthonormal actions
  (|det g| = 1, Gelberg Sec. 2), so the sum can run over g or g⁻¹ alike.

Groups here
-----------
:class:`SignFlip`
    Z₂ acting by z → −z on the whole point (Moore Sec. 3.1), or Z₂^B acting by
    independent sign flips of B coordinate blocks (matrix columns, single coordinates).
:class:`IndexPermutationGroup`
    A finite group given by an explicit list of coordinate permutations of a vector
    (e.g. the swap (w₁, w₂) → (w₂, w₁) of Gelberg's two-weight ReLU network, Sec. 5).
:class:`MLPPermutation`
    S_{d₁} × … × S_{d_{L−1}} permuting the hidden units of an MLP (Gelberg Def. 2.1),
    acting on the flat parameter vector; :func:`symcheck.mlp.mlp_forward` is the network
    it leaves unchanged.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod

import numpy as np
from numba import njit
from scipy.special import gammaln, logsumexp

from symcheck._checks import (
    as_finite_array,
    check_alloc,
    check_finite_result,
    check_int,
    check_rng,
)
from symcheck import signflip_exact
from symcheck.gaussian import LOG_2PI, gaussian_logpdf, validate_gaussian
from symcheck.mlp import check_layer_sizes, unpack_mlp

__all__ = [
    "Group",
    "IndexPermutationGroup",
    "MLPPermutation",
    "SignFlip",
]

#: Functions implementing a paper's result under another name (read by the report's equation index).
EQUATIONS = {"MLPPermutation": ("gelberg", "Def. 2.1")}

#: Largest group that :meth:`Group.elements` enumerates by default.
MAX_ENUMERATE = 200_000


class Group(ABC):
    """A group acting linearly and orthonormally on points of a fixed event shape.

    Subclasses implement :meth:`validate`, :meth:`log_order`, :meth:`sample`,
    :meth:`act` and :meth:`symmetrized_logpdf`; finite groups that can list their
    elements also implement :meth:`elements` (then :meth:`enumerated_logpdf` works).

    Attributes
    ----------
    name : str
        Short human-readable name, e.g. ``"SignFlip(columns of 3x2)"``.
    event_ndim : int
        Number of trailing axes of a point (1 for vectors, 2 for matrices).
    """

    name: str = "Group"
    event_ndim: int = 1

    @abstractmethod
    def validate(self, mean, var):
        """Return ``(mean, var)`` as float64 arrays; ValueError on a shape mismatch or var <= 0."""

    @abstractmethod
    def log_order(self) -> float:
        """log |G| (``math.inf`` for a continuous group)."""

    @abstractmethod
    def sample(self, rng, size):
        """Return ``size`` i.i.d. uniformly random group elements (an object :meth:`act` accepts)."""

    @abstractmethod
    def act(self, g, z):
        """Return g·z for a batch of m elements ``g`` and points ``z``.

        ``z`` has shape ``(*batch, *E)``; ``batch`` broadcasts against ``(m,)`` (the element
        axis is the *last* batch axis), so a single point (``batch = ()``) gives the m
        images ``(m, *E)`` and ``(n, m, *E)`` pairs point (i, j) with element j.
        """

    @abstractmethod
    def symmetrized_logpdf(self, z, mean, var):
        """Exact log q̃(z) = log (1/|G|) Σ_g q*(g·z) for q* = N(mean, var), batched over ``z``'s leading axes."""

    # ----- defaults shared by the finite groups -------------------------------------

    def elements(self, max_elements: int = MAX_ENUMERATE):
        """All group elements (finite groups only); ValueError if |G| > ``max_elements``."""
        raise ValueError(f"{self.name} cannot enumerate its elements")

    def base_logpdf(self, z, mean, var):
        """log q*(z) for the Gaussian base; see :func:`gaussian_logpdf`."""
        mean, var = self.validate(mean, var)
        z = self._check_points(z, mean)
        return check_finite_result(gaussian_logpdf(z, mean, var), "z, mean, var", "log q*(z)")

    def enumerated_logpdf(self, z, mean, var, max_elements: int = MAX_ENUMERATE):
        """log q̃(z) by log-sum-exp over every element: (1/|G|) Σ_g q*(g·z) (Gelberg eq. (4)).

        The brute-force route, O(|G|) base evaluations per point; ``max_elements``
        bounds |G| (ValueError naming it otherwise).
        """
        mean, var = self.validate(mean, var)
        z = self._check_points(z, mean)
        els = self.elements(max_elements)
        batch = z.shape[: z.ndim - self.event_ndim]
        zz = z.reshape((-1, 1) + mean.shape)  # (N, 1, *E): each point against every element
        check_alloc(zz.shape[0] * els.shape[0] * mean.size, "z, max_elements")
        logs = gaussian_logpdf(self.act(els, zz), mean, var)  # (N, |G|)
        out = (logsumexp(logs, axis=-1) - self.log_order()).reshape(batch)
        return check_finite_result(out, "z, mean, var", "log q̃(z)")

    def _check_points(self, z, mean):
        z = as_finite_array(z, "z")
        ev = mean.ndim
        if z.ndim < ev or z.shape[z.ndim - ev:] != mean.shape:
            raise ValueError(f"z must have trailing shape {mean.shape} (the shape of mean), got shape {z.shape}")
        return z

    def __repr__(self) -> str:
        return self.name


def _act_batch(z_batch: tuple, m: int) -> tuple:
    """Batch shape of g·z: ``z_batch`` broadcast against the m elements (see :meth:`Group.act`)."""
    try:
        return np.broadcast_shapes(z_batch, (m,))
    except ValueError:
        raise ValueError(f"z and g: the batch shape {z_batch} of z does not broadcast against the "
                         f"{m} elements of g") from None


# =====================================================================================
# Sign flips
# =====================================================================================


class SignFlip(Group):
    """Sign flips z → s·z, s ∈ {±1}, of the whole point or of separate coordinate blocks.

    Parameters
    ----------
    event_shape : tuple of int, optional
        Shape of a point. Default: a vector of any length (``event_ndim = 1``), inferred
        from ``mean``.
    blocks : None, "columns", "coordinates" or array_like of int
        ``None`` (default): the group Z₂ = {1, −1} flipping the whole point, as in
        Moore Sec. 3.1 (log q̃(z) = log ½(q*(z) + q*(−z))). ``"columns"``: one
        independent flip per column of a d×k matrix point (Z₂^k; needs a 2-D
        ``event_shape``). ``"coordinates"``: one flip per coordinate (Z₂^n; needs
        ``event_shape``). An integer array of the event shape assigns each coordinate a
        block label 0..B−1 (every label used): Z₂^B.

    Notes
    -----
    Elements are arrays of shape ``(m, B)`` with entries ±1 (float64).
    For a diagonal base the blocks are independent under q*, so
    q̃(z) = Π_b ½[q*_b(z_b) + q*_b(−z_b)] exactly and log q̃ costs O(n) for any B.
    A full covariance couples the blocks: log q̃ is then the log-sum-exp over all 2^B
    elements (ValueError when 2^B > ``MAX_ENUMERATE``).
    """

    def __init__(self, event_shape=None, blocks=None):
        if event_shape is None:
            if blocks is not None:
                raise ValueError("event_shape is required when blocks is given")
            self.event_shape = None
            self.event_ndim = 1
            self._labels = None
            self.n_blocks = 1
            self.name = "SignFlip(whole point)"
            return
        try:
            shape = tuple(check_int(s, "event_shape entry", minimum=1) for s in event_shape)
        except TypeError:
            raise ValueError(f"event_shape must be a tuple of positive integers, got {event_shape!r}") from None
        if len(shape) == 0:
            raise ValueError("event_shape must have at least one axis")
        self.event_shape = shape
        self.event_ndim = len(shape)
        n = math.prod(shape)
        check_alloc(n, "event_shape")
        if blocks is None:
            labels = np.zeros(shape, dtype=np.intp)
            self.name = f"SignFlip(whole {'x'.join(map(str, shape))})"
        elif isinstance(blocks, str) and blocks == "columns":
            if len(shape) != 2:
                raise ValueError(f"blocks='columns' needs a 2-D event_shape (d, k), got {shape}")
            labels = np.broadcast_to(np.arange(shape[1]), shape).copy()
            self.name = f"SignFlip(columns of {shape[0]}x{shape[1]})"
        elif isinstance(blocks, str) and blocks == "coordinates":
            labels = np.arange(n).reshape(shape)
            self.name = f"SignFlip(coordinates of {'x'.join(map(str, shape))})"
        elif isinstance(blocks, str):
            raise ValueError(f"unknown blocks {blocks!r}; expected None, 'columns', 'coordinates' or an integer array")
        else:
            labels = np.asarray(blocks)
            if labels.shape != shape or not np.issubdtype(labels.dtype, np.integer):
                raise ValueError(f"blocks must be an integer array of shape {shape}, got {labels.dtype} {labels.shape}")
            nb = int(labels.max()) + 1 if labels.size else 0
            if labels.min() < 0 or np.unique(labels).size != nb:
                raise ValueError("blocks must use every label 0..B-1 exactly (no gaps, no negatives)")
            labels = labels.astype(np.intp)
            self.name = f"SignFlip({nb} blocks of {'x'.join(map(str, shape))})"
        self._labels = labels
        self.n_blocks = int(labels.max()) + 1
        self._flat_labels = labels.reshape(-1)

    # protocol -------------------------------------------------------------------------

    def validate(self, mean, var):
        """Validate the base; a full covariance is accepted (the action is linear)."""
        return validate_gaussian(mean, var, self.event_shape, allow_full=True)

    def log_order(self) -> float:
        """log 2^B."""
        return self.n_blocks * math.log(2.0)

    def sample(self, rng, size):
        """``size`` uniform elements: i.i.d. fair signs, shape ``(size, B)``."""
        rng = check_rng(rng)
        size = check_int(size, "size", minimum=1)
        check_alloc(size * self.n_blocks, "size")
        return rng.choice(np.array([-1.0, 1.0]), size=(size, self.n_blocks))

    def elements(self, max_elements: int = MAX_ENUMERATE):
        """All 2^B sign patterns, identity first; ValueError when 2^B > ``max_elements``."""
        max_elements = check_int(max_elements, "max_elements", minimum=1)
        if self.n_blocks > 62 or 2**self.n_blocks > max_elements:
            raise ValueError(
                f"{self.name} has 2^{self.n_blocks} elements, more than max_elements={max_elements}; cannot enumerate"
            )
        check_alloc(2**self.n_blocks * self.n_blocks, "max_elements")
        codes = np.arange(2**self.n_blocks)[:, None] >> np.arange(self.n_blocks)[None, :]
        return np.where(codes & 1, -1.0, 1.0)

    def _block_s(self, mean, var):
        """s_b = Σ_{c∈b} μ_c²/v_c per block (diagonal base), or μᵀΣ⁻¹μ (whole flip, full).

        s_b = inf where it overflows float64: the 1-D integrals of ``signflip_exact`` take that
        limit exactly (the two mirror components are then separated beyond float64 resolution).
        """
        with np.errstate(over="ignore"):
            if var.shape != mean.shape:
                return np.array([float(mean.reshape(-1) @ np.linalg.solve(var, mean.reshape(-1)))])
            if self._labels is None:
                return np.array([float(np.sum(mean**2 / var))])
            return np.bincount(self._flat_labels, weights=(mean**2 / var).reshape(-1), minlength=self.n_blocks)

    def exact_gap(self, mean, var):
        """KL[q*‖q̃] by 1-D quadrature per block (None for several blocks with a full covariance).

        Whole-point flip: log q*(−z) − log q*(z) = −2t, t = μᵀΣ⁻¹z ~ N(s, s), s = μᵀΣ⁻¹μ, so
        KL = log 2 + E log σ(2t). Independent blocks (diagonal base) add their KLs.
        """
        mean, var = self.validate(mean, var)
        if var.shape != mean.shape and self.n_blocks > 1:
            return None
        return float(sum(signflip_exact.signflip_gap_1d(float(s)) for s in self._block_s(mean, var)))

    def exact_chi2(self, mean, var):
        """χ²(q*‖q̃) by 1-D quadrature: Π_b (1 + χ²_b) − 1 with χ²_b = E[2σ(2t_b)] − 1."""
        mean, var = self.validate(mean, var)
        if var.shape != mean.shape and self.n_blocks > 1:
            return None
        log1p_chi2 = sum(math.log1p(signflip_exact.signflip_chi2_1d(float(s))) for s in self._block_s(mean, var))
        return float(check_finite_result(np.expm1(log1p_chi2), "mean, var", "chi2(q*||q̃)"))

    # near-identity neighbourhood (single block flips), for importance sampling
    def log_n_neighbours(self) -> float:
        """log B: the neighbours of the identity are the B single-block flips."""
        return math.log(self.n_blocks)

    def sample_neighbours(self, rng, size):
        """``size`` uniform single-block flips."""
        rng = check_rng(rng)
        size = check_int(size, "size", minimum=1)
        check_alloc(size * self.n_blocks, "size")
        g = np.ones((size, self.n_blocks))
        g[np.arange(size), rng.integers(0, self.n_blocks, size)] = -1.0
        return g

    def is_neighbour(self, g):
        """True where exactly one block is flipped."""
        return np.sum(self._check_signs(g) < 0, axis=1) == 1

    def _check_signs(self, g):
        """Elements ``g`` as a float array (m, B) of ±1; ValueError naming g otherwise."""
        g = as_finite_array(g, "g")
        if g.ndim != 2 or g.shape[1] != self.n_blocks:
            raise ValueError(f"g must have shape (m, {self.n_blocks}) (sign patterns), got {g.shape}")
        if not np.all(np.abs(g) == 1.0):
            raise ValueError("g must hold sign patterns with entries +1 or -1")
        return g

    def _signs(self, g, event_shape):
        """Per-coordinate signs of elements ``g``: shape ``(m, *event_shape)``."""
        g = self._check_signs(g)
        if self._labels is None:
            return g.reshape((g.shape[0],) + (1,) * len(event_shape))
        return g[:, self._labels]

    def act(self, g, z):
        """Flip signs: (g·z)[..., c] = s_{block(c)} z[..., c]. Broadcasting as in :meth:`Group.act`."""
        z = as_finite_array(z, "z", ndim_min=self.event_ndim)
        ev = self.event_ndim
        event_shape = z.shape[z.ndim - ev:] if self.event_shape is None else self.event_shape
        if self.event_shape is not None and z.shape[z.ndim - ev:] != self.event_shape:
            raise ValueError(f"z must have trailing shape {self.event_shape}, got {z.shape}")
        signs = self._signs(g, event_shape)
        _act_batch(z.shape[: z.ndim - ev], signs.shape[0])
        return z * signs

    def symmetrized_logpdf(self, z, mean, var):
        """Exact log q̃(z) (Moore Sec. 3.1 and its block-product generalisation).

        Whole-point flip: logaddexp(log q*(z), log q*(−z)) − log 2, for a diagonal or full
        covariance. Blocks with a diagonal base: Σ_b [logaddexp(ℓ_b⁺, ℓ_b⁻) − log 2], with
        ℓ_b^± = Σ_{c ∈ b} log N(±z_c; μ_c, v_c). Blocks with a full covariance: log-sum-exp
        over all 2^B elements. Never overflows: only log densities are added.
        """
        mean, var = self.validate(mean, var)
        z = self._check_points(z, mean)
        if self.n_blocks == 1:
            lp = gaussian_logpdf(z, mean, var)
            lm = gaussian_logpdf(-z, mean, var)
            return check_finite_result(np.logaddexp(lp, lm) - math.log(2.0), "z, mean, var", "log q̃(z)")
        if var.shape != mean.shape:
            return self.enumerated_logpdf(z, mean, var)
        # Per-coordinate log densities at +z and −z, summed within each block. A density below the
        # float64 range has log −inf (its squared distance overflows); the block sums keep it −inf
        # (no product with 0, which would be NaN), so a block whose mirror image is finite stays finite.
        with np.errstate(over="ignore"):
            lp = -0.5 * ((z - mean) ** 2 / var + np.log(var) + LOG_2PI)
            lm = -0.5 * ((z + mean) ** 2 / var + np.log(var) + LOG_2PI)
        batch = z.shape[: z.ndim - self.event_ndim]
        order = np.argsort(self._flat_labels, kind="stable")
        starts = np.searchsorted(self._flat_labels[order], np.arange(self.n_blocks))  # every block is non-empty
        bp = np.add.reduceat(lp.reshape(batch + (-1,))[..., order], starts, axis=-1)
        bm = np.add.reduceat(lm.reshape(batch + (-1,))[..., order], starts, axis=-1)
        out = np.sum(np.logaddexp(bp, bm), axis=-1) - self.log_order()
        return check_finite_result(out, "z, mean, var", "log q̃(z)")


class IndexPermutationGroup(Group):
    """A finite group of coordinate permutations of a vector, listed explicitly.

    Parameters
    ----------
    perms : array_like of int, shape ``(|G|, n)``
        Every element as an index array: (g·z)[c] = z[perms[g, c]]. Must contain the
        identity and be closed under composition (checked, O(|G|² n)).

    Notes
    -----
    log q̃ is the log-sum-exp over all listed elements (diagonal or full covariance).
    """

    def __init__(self, perms):
        p = np.asarray(perms)
        if p.ndim != 2 or not np.issubdtype(p.dtype, np.integer) or p.shape[0] < 1:
            raise ValueError(f"perms must be a non-empty integer array of shape (|G|, n), got {p.dtype} {p.shape}")
        n = p.shape[1]
        if np.any(np.sort(p, axis=1) != np.arange(n)):
            raise ValueError("perms must list permutations of 0..n-1 (each row)")
        keys = {tuple(r) for r in p}
        if len(keys) != p.shape[0]:
            raise ValueError("perms must not repeat an element")
        if tuple(range(n)) not in keys:
            raise ValueError("perms must contain the identity")
        for a in p:
            for b in p:
                if tuple(a[b]) not in keys:
                    raise ValueError("perms must be closed under composition (not a group)")
        self.perms = p.astype(np.intp)
        self.dim = n
        self.event_ndim = 1
        self.name = f"IndexPermutationGroup(|G|={p.shape[0]}, n={n})"

    def validate(self, mean, var):
        """Validate a base over the n coordinates; diagonal or full covariance."""
        return validate_gaussian(mean, var, (self.dim,), allow_full=True)

    def log_order(self) -> float:
        """log |G|."""
        return math.log(self.perms.shape[0])

    def sample(self, rng, size):
        """``size`` uniform elements, as rows of index arrays ``(size, n)``."""
        rng = check_rng(rng)
        size = check_int(size, "size", minimum=1)
        return self.perms[rng.integers(0, self.perms.shape[0], size)]

    def elements(self, max_elements: int = MAX_ENUMERATE):
        """The listed elements."""
        if self.perms.shape[0] > check_int(max_elements, "max_elements", minimum=1):
            raise ValueError(f"{self.name} has more than max_elements={max_elements} elements")
        return self.perms

    def act(self, g, z):
        """(g·z)[..., c] = z[..., g[c]]. Broadcasting as in :meth:`Group.act`."""
        z = np.asarray(z, dtype=np.float64)
        g = np.asarray(g)
        if g.ndim != 2 or g.shape[1] != self.dim:
            raise ValueError(f"g must have shape (m, {self.dim}), got {g.shape}")
        if z.shape[-1:] != (self.dim,):
            raise ValueError(f"z must have last axis of length {self.dim}, got shape {z.shape}")
        shape = np.broadcast_shapes(z.shape[:-1], (g.shape[0],))
        return np.take_along_axis(np.broadcast_to(z, shape + (self.dim,)), np.broadcast_to(g, shape + (self.dim,)), -1)

    def symmetrized_logpdf(self, z, mean, var):
        """Exact log q̃(z) by log-sum-exp over the listed elements."""
        return self.enumerated_logpdf(z, mean, var)


# =====================================================================================
# MLP hidden-unit permutations
# =====================================================================================


@njit(cache=True)
def _log_permanent_dp(logA):
    """log perm(A) for a d×d matrix given log A, by the subset recursion in log space.

    dp[S] = log Σ over bijections {0..|S|−1} → S of Π A[i, σ(i)]; dp[S] = logsumexp_{j∈S}
    (dp[S∖j] + logA[|S|−1, j]). Only sums of positive terms: no cancellation (unlike
    Ryser's formula), so the result is accurate to O(d·eps) relative. O(2^d d) time.
    −inf entries (zero densities) are skipped, so they never produce NaN.
    """
    d = logA.shape[0]
    nmask = 1 << d
    dp = np.full(nmask, -np.inf)
    dp[0] = 0.0
    pop = np.zeros(nmask, dtype=np.int64)
    for s in range(1, nmask):
        pop[s] = pop[s >> 1] + (s & 1)
    for s in range(1, nmask):
        i = pop[s] - 1
        m = -np.inf
        for j in range(d):
            if (s >> j) & 1:
                v = dp[s ^ (1 << j)] + logA[i, j]
                if v > m:
                    m = v
        if m == -np.inf:
            continue
        acc = 0.0
        for j in range(d):
            if (s >> j) & 1:
                v = dp[s ^ (1 << j)] + logA[i, j]
                if v > -np.inf:
                    acc += np.exp(v - m)
        dp[s] = m + np.log(acc)
    return dp[nmask - 1]


@njit(cache=True)
def _mlp_gather(z2, per_row, g, offsets, rows_l, rows_u, cols_l, cols_u, base, strides, out):
    """out[i, c] = z2[i or 0, src(g_i, c)]: the image g_i·z of :meth:`MLPPermutation.act`, one pass.

    ``src`` maps coordinate c to the source index through the inverse permutations τ⁻¹
    (row unit and column unit of the weight or bias it belongs to); see ``_build_index_template``.
    """
    m, D = out.shape
    inv = np.empty(g.shape[1], dtype=np.int64)
    n_hidden = offsets.shape[0] - 1
    for i in range(m):
        for l in range(n_hidden):
            o = offsets[l]
            for j in range(offsets[l + 1] - o):
                inv[o + g[i, o + j]] = j
        zi = z2[i] if per_row else z2[0]
        for c in range(D):
            rl = rows_l[c]
            r = rows_u[c] if rl <= 0 else inv[offsets[rl - 1] + rows_u[c]]
            cl = cols_l[c]
            cc = cols_u[c] if cl <= 0 else inv[offsets[cl - 1] + cols_u[c]]
            out[i, c] = zi[base[c] + r * strides[c] + cc]


class MLPPermutation(Group):
    """Hidden-unit permutations S_{d₁} × … × S_{d_{L−1}} of an MLP (Gelberg et al., Def. 2.1).

    Parameters
    ----------
    layer_sizes : sequence of int
        ``(d_0, d_1, ..., d_L)``: input, hidden and output widths (at least one hidden layer).

    Notes
    -----
    Points are flat parameter vectors ω of length D (:func:`unpack_mlp` order). An element
    g = (τ₁, …, τ_{L−1}) is stored as one row of the ``(m, Σ d_l)`` integer array of the
    concatenated permutations. Its action moves hidden unit j of layer l to position
    τ_l(j): W'_l = P_l W_l P_{l−1}ᵀ, b'_l = P_l b_l with (P_l)_{τ_l(j), j} = 1 — Def. 2.1 with
    P_{τ} there = P_lᵀ here (P₀ = P_L = I). This is a left action ((gh)·ω = g·(h·ω) with
    τ composed as τ_g ∘ τ_h), linear, a coordinate permutation of ω (so orthonormal), and
    leaves f^ω unchanged for any point-wise σ.

    Exact log q̃: for one hidden layer and a diagonal base, q̃(ω) = q_{b_L}(b_L) · perm(A)/d₁!
    with A[i, j] = density of unit j's parameters (row j of W₁, b₁[j], column j of W₂)
    under unit i's factor of q*; the permanent is computed in log space by the O(2^d d)
    subset recursion (d₁ ≤ 22). Otherwise log-sum-exp over all |G| = Π d_l! elements
    (ValueError when |G| > ``MAX_ENUMERATE``).
    """

    MAX_PERMANENT_WIDTH = 22

    def __init__(self, layer_sizes):
        self.layer_sizes = check_layer_sizes(layer_sizes)
        self.hidden = self.layer_sizes[1:-1]
        self.event_ndim = 1
        s = self.layer_sizes
        self.dim = sum(a * b for a, b in zip(s[1:], s[:-1])) + sum(s[1:])
        check_alloc(6 * self.dim, "layer_sizes")
        self.name = f"MLPPermutation({'-'.join(map(str, s))})"
        self._offsets = np.concatenate([[0], np.cumsum(self.hidden)])
        self._index_template = self._build_index_template()

    def _build_index_template(self):
        """For each coordinate of ω: (row layer, row unit, column layer, column unit) or -1.

        Coordinate c of the image is taken from the source coordinate obtained by mapping
        its hidden-unit indices through τ⁻¹; this table lists which indices those are.
        """
        s = self.layer_sizes
        L = len(s) - 1
        rows_l, rows_u, cols_l, cols_u, base, strides = [], [], [], [], [], []
        pos = 0
        for l in range(L):  # W_{l+1}: shape (s[l+1], s[l]); rows are units of layer l+1, columns of layer l
            dout, din = s[l + 1], s[l]
            r, c = np.meshgrid(np.arange(dout), np.arange(din), indexing="ij")
            rows_l.append(np.full(dout * din, l + 1 if l + 1 < L else -1))
            rows_u.append(r.ravel())
            cols_l.append(np.full(dout * din, l if l > 0 else -1))
            cols_u.append(c.ravel())
            base.append(np.full(dout * din, pos))
            strides.append(np.full(dout * din, din))
            pos += dout * din
        for l in range(L):
            dout = s[l + 1]
            rows_l.append(np.full(dout, l + 1 if l + 1 < L else -1))
            rows_u.append(np.arange(dout))
            cols_l.append(np.full(dout, -1))
            cols_u.append(np.zeros(dout, dtype=int))
            base.append(np.full(dout, pos))
            strides.append(np.full(dout, 1))
            pos += dout
        cat = lambda a: np.concatenate(a).astype(np.intp)  # noqa: E731
        return cat(rows_l), cat(rows_u), cat(cols_l), cat(cols_u), cat(base), cat(strides)

    # protocol -------------------------------------------------------------------------

    def validate(self, mean, var):
        """Validate a base over the D parameters; diagonal or full covariance."""
        return validate_gaussian(mean, var, (self.dim,), allow_full=True)

    def log_order(self) -> float:
        """log Π_l d_l! (Gelberg Sec. 2)."""
        return float(sum(gammaln(d + 1.0) for d in self.hidden))

    def sample(self, rng, size):
        """``size`` uniform elements: independent uniform permutations per hidden layer."""
        rng = check_rng(rng)
        size = check_int(size, "size", minimum=1)
        check_alloc(size * int(self._offsets[-1]), "size")
        parts = [rng.permuted(np.broadcast_to(np.arange(d), (size, d)), axis=1) for d in self.hidden]
        return np.concatenate(parts, axis=1).astype(np.intp)

    def elements(self, max_elements: int = MAX_ENUMERATE):
        """All Π d_l! elements (identity first); ValueError when there are more than ``max_elements``."""
        max_elements = check_int(max_elements, "max_elements", minimum=1)
        if self.log_order() > math.log(max_elements) + 1e-9:
            raise ValueError(
                f"{self.name} has {math.exp(self.log_order()):.3g} elements, more than "
                f"max_elements={max_elements}; cannot enumerate"
            )
        check_alloc(round(math.exp(self.log_order())) * int(self._offsets[-1]), "max_elements")
        per_layer = [list(itertools.permutations(range(d))) for d in self.hidden]
        return np.array([np.concatenate(c) for c in itertools.product(*per_layer)], dtype=np.intp)

    def _check_elements(self, g):
        """Elements ``g``: an integer array (m, Σ d_l) whose layer segments are permutations of 0..d_l−1."""
        try:
            g = np.asarray(g)
        except ValueError:
            raise ValueError("g must be an integer array of concatenated permutations (got a ragged object)") from None
        H = int(self._offsets[-1])
        if g.ndim != 2 or g.shape[1] != H or not np.issubdtype(g.dtype, np.integer):
            raise ValueError(f"g must be an integer array of shape (m, {H}) (concatenated permutations), "
                             f"got {g.dtype} {g.shape}")
        for l, d in enumerate(self.hidden):
            o = self._offsets[l]
            if np.any(np.sort(g[:, o: o + d], axis=1) != np.arange(d)):
                raise ValueError(f"g must hold, for hidden layer {l + 1}, permutations of 0..{d - 1}")
        return g

    def source_index(self, g):
        """Index arrays ``idx`` of shape ``(m, D)`` with (g·ω)[c] = ω[idx[c]]."""
        g = self._check_elements(g)
        m = g.shape[0]
        rows_l, rows_u, cols_l, cols_u, base, strides = self._index_template
        # inverse permutations: inv[:, off_l + τ_l(j)] = j
        inv = np.empty_like(g)
        for l, d in enumerate(self.hidden):
            o = self._offsets[l]
            np.put_along_axis(inv[:, o: o + d], g[:, o: o + d], np.broadcast_to(np.arange(d), (m, d)), axis=1)
        off = np.concatenate([self._offsets, [0]])  # layer index -1 -> unused
        r = np.where(rows_l > 0, inv[:, np.where(rows_l > 0, off[rows_l - 1] + rows_u, 0)], rows_u)
        c = np.where(cols_l > 0, inv[:, np.where(cols_l > 0, off[cols_l - 1] + cols_u, 0)], cols_u)
        return base + r * strides + c

    def act(self, g, z):
        """Permute hidden units (Def. 2.1). Broadcasting as in :meth:`Group.act`."""
        z = as_finite_array(z, "z")
        if z.shape[-1:] != (self.dim,):
            raise ValueError(f"z must have last axis of length D={self.dim}, got shape {z.shape}")
        g = self._check_elements(g)
        m = g.shape[0]
        check_alloc(math.prod(_act_batch(z.shape[:-1], m)) * self.dim, "z, g")
        if z.ndim == 1 or (z.ndim == 2 and z.shape[0] in (1, m)):
            # common cases (one point, or one point per element): a single-pass Numba gather
            z2 = np.ascontiguousarray(z.reshape(-1, self.dim))
            out = np.empty((m, self.dim))
            _mlp_gather(z2, z2.shape[0] == m and m > 1, np.ascontiguousarray(g, dtype=np.int64),
                        self._offsets.astype(np.int64), *self._index_template, out)
            return out
        idx = self.source_index(g)  # (m, D)
        shape = _act_batch(z.shape[:-1], idx.shape[0])
        zb = np.broadcast_to(z, shape + (self.dim,))
        return np.take_along_axis(zb, np.broadcast_to(idx, shape + (self.dim,)), axis=-1)

    def symmetrized_logpdf(self, z, mean, var):
        """Exact log q̃(z): permanent route (one hidden layer, diagonal) or enumeration."""
        mean, var = self.validate(mean, var)
        z = self._check_points(z, mean)
        if len(self.hidden) == 1 and var.shape == mean.shape and self.hidden[0] <= self.MAX_PERMANENT_WIDTH:
            return self._permanent_logpdf(z, mean, var)
        return self.enumerated_logpdf(z, mean, var)

    # near-identity neighbourhood (one transposition in one layer), for importance sampling
    def log_n_neighbours(self) -> float:
        """log Σ_l C(d_l, 2): the neighbours of the identity are the single transpositions."""
        n = sum(d * (d - 1) // 2 for d in self.hidden)
        if n == 0:
            raise ValueError(f"{self.name} has no transpositions (all hidden widths are 1)")
        return math.log(n)

    def sample_neighbours(self, rng, size):
        """``size`` uniform single transpositions (one layer, two units swapped)."""
        rng = check_rng(rng)
        size = check_int(size, "size", minimum=1)
        check_alloc(size * int(self._offsets[-1]), "size")
        pairs = [(l, i, j) for l, d in enumerate(self.hidden) for i in range(d) for j in range(i + 1, d)]
        if not pairs:
            raise ValueError(f"{self.name} has no transpositions (all hidden widths are 1)")
        pick = rng.integers(0, len(pairs), size)
        g = np.broadcast_to(np.concatenate([np.arange(d) for d in self.hidden]), (size, int(self._offsets[-1]))).copy()
        for r, p in enumerate(pick):
            l, i, j = pairs[p]
            o = self._offsets[l]
            g[r, o + i], g[r, o + j] = j, i
        return g.astype(np.intp)

    def is_neighbour(self, g):
        """True where g is a single transposition (exactly two hidden units moved, in one layer)."""
        ident = np.concatenate([np.arange(d) for d in self.hidden])
        return np.sum(self._check_elements(g) != ident, axis=1) == 2

    def _unit_blocks(self, x):
        """One hidden layer: (per-unit parameter blocks (..., d, d_0 + 1 + d_2), output bias)."""
        (W1, W2), (b1, b2) = unpack_mlp(x, self.layer_sizes)
        units = np.concatenate([W1, b1[..., None], np.swapaxes(W2, -1, -2)], axis=-1)
        return units, b2

    def _permanent_logpdf(self, z, mean, var):
        zu, zb = self._unit_blocks(z)  # (*batch, d, p), (*batch, d_o)
        mu, mb = self._unit_blocks(mean)
        vu, vb = self._unit_blocks(var)
        # logA[..., i, j] = Σ_c log N(zu[j, c]; mu[i, c], vu[i, c])
        # a density below the float64 range has log −inf (its squared distance overflows); the
        # log-space permanent takes −inf entries as zeros
        with np.errstate(over="ignore"):
            diff = zu[..., None, :, :] - mu[:, None, :]
            logA = -0.5 * np.sum(diff * diff / vu[:, None, :] + np.log(vu)[:, None, :] + LOG_2PI, axis=-1)
            lb = -0.5 * np.sum((zb - mb) ** 2 / vb + np.log(vb) + LOG_2PI, axis=-1)
        batch = z.shape[:-1]
        flat = logA.reshape((-1,) + logA.shape[-2:])
        perms = np.array([_log_permanent_dp(np.ascontiguousarray(a)) for a in flat]).reshape(batch)
        return check_finite_result(lb + perms - self.log_order(), "z, mean, var", "log q̃(z)")
