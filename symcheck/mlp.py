"""The multilayer perceptron of Gelberg et al. (Sec. 2) as a function of a flat parameter vector.

f^ω(x) with ω = (W₁, …, W_L, b₁, …, b_L) flattened in that order; its hidden-unit
permutations are the group :class:`symcheck.groups.MLPPermutation` (Def. 2.1), which leaves
:func:`mlp_forward` unchanged.
"""

from __future__ import annotations

import numpy as np

from symcheck._checks import as_finite_array, check_callable, check_finite_result, check_int

__all__ = ["check_layer_sizes", "mlp_forward", "unpack_mlp"]

#: Functions implementing a paper's result under another name (read by the report's equation index).
EQUATIONS = {"mlp_forward": ("gelberg", "Sec. 2 (the network f^ω)")}


def check_layer_sizes(layer_sizes):
    """``layer_sizes`` as a list of positive ints ``(d_0, d_1, ..., d_L)``, at least one hidden layer."""
    try:
        sizes = [check_int(d, "layer_sizes entry", minimum=1) for d in layer_sizes]
    except TypeError:
        raise ValueError(f"layer_sizes must be a sequence of positive integers, got {layer_sizes!r}") from None
    if len(sizes) < 3:
        raise ValueError(f"layer_sizes must be (d_0, d_1, ..., d_L) with at least one hidden layer, got {sizes}")
    return sizes


def unpack_mlp(omega, layer_sizes):
    """Split a flat parameter vector into ``(Ws, bs)`` (views), Gelberg's order (W₁..W_L, b₁..b_L).

    ``omega`` has shape ``(*batch, D)``, D = Σ_l d_l d_{l−1} + Σ_l d_l; ``Ws[l]`` has shape
    ``(*batch, d_{l+1}, d_l)`` and ``bs[l]`` shape ``(*batch, d_{l+1})``.
    """
    sizes = check_layer_sizes(layer_sizes)
    omega = np.asarray(omega, dtype=np.float64)
    D = sum(a * b for a, b in zip(sizes[1:], sizes[:-1])) + sum(sizes[1:])
    if omega.shape[-1:] != (D,):
        raise ValueError(f"omega must have last axis of length {D} for layer_sizes {sizes}, got shape {omega.shape}")
    batch = omega.shape[:-1]
    Ws, bs, pos = [], [], 0
    for din, dout in zip(sizes[:-1], sizes[1:]):
        Ws.append(omega[..., pos: pos + dout * din].reshape(batch + (dout, din)))
        pos += dout * din
    for dout in sizes[1:]:
        bs.append(omega[..., pos: pos + dout])
        pos += dout
    return Ws, bs


def mlp_forward(omega, x, layer_sizes, activation=np.tanh):
    """The MLP f^ω(x) of Gelberg Sec. 2: x_{l+1} = σ(W_{l+1} x_l + b_{l+1}), linear last layer.

    Parameters
    ----------
    omega : array_like, shape ``(*batch, D)``
        Flat parameters in the order of :func:`unpack_mlp`.
    x : array_like, shape ``(n, d_0)``
        Inputs.
    layer_sizes : sequence of int
        ``(d_0, d_1, ..., d_L)``.
    activation : callable
        Point-wise non-linearity σ of the hidden layers (default tanh). The paper applies
        σ on the output layer too; any point-wise σ there leaves the permutation
        invariance unchanged, so the output layer is kept linear here.

    Returns
    -------
    ndarray, shape ``(*batch, n, d_L)``
    """
    sizes = check_layer_sizes(layer_sizes)
    Ws, bs = unpack_mlp(as_finite_array(omega, "omega", ndim_min=1), sizes)
    h = as_finite_array(x, "x")
    if h.ndim != 2 or h.shape[1] != sizes[0]:
        raise ValueError(f"x must have shape (n, {sizes[0]}), got {h.shape}")
    check_callable(activation, "activation")
    L = len(Ws)
    with np.errstate(over="ignore", invalid="ignore"):
        for l, (W, b) in enumerate(zip(Ws, bs)):
            h = np.einsum("...ij,...nj->...ni", W, h) + b[..., None, :]
            if l < L - 1:
                act = np.asarray(activation(h))
                if act.dtype.kind not in "iuf" or act.shape != h.shape:
                    raise ValueError(f"activation must map a real array to a real array of the same shape, "
                                     f"got {act.dtype} {act.shape} from shape {h.shape}")
                h = act.astype(np.float64)
    return check_finite_result(h, "omega, x, activation", "the network output")
