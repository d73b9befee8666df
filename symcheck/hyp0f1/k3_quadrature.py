"""Compiled adaptive Gauss–Kronrod quadrature of the k = 3 integral of :mod:`symcheck.hyp0f1.closed_form`.

For one coset (λ or −λ, with α, a, β, b from λ as in the closed_form module docstring),
E[e^{Σλⱼqⱼ²}] = ∫₀¹ e^{rα+(1−r)β} I₀(ra) I₀((1−r)b) dr is evaluated in the scaled form and with the
substitutions of :func:`_coset` (t = sin²θ for a gentle envelope; a stretched variable and a cut tail
for a steep one); the gradient in λ integrates four more components, E[qⱼ² e^{Σλq²}]/E[e^{Σλq²}]
under the same integral sign (the pair shares r/2·(1 ± I₁/I₀) of the arcsine law).

The rule
    The n = 10 point Gauss–Legendre rule and its 21-point Kronrod extension (G10–K21, as
    QUADPACK's QAG key 2 and scipy's ``quad_vec`` default). :func:`gauss_kronrod` derives it in
    mpmath: the Kronrod nodes are the zeros of the Stieltjes polynomial E_{n+1}, the monic
    polynomial of degree n + 1 orthogonal to every polynomial of degree ≤ n with respect to the
    sign-changing weight P_n(x) on [−1, 1] (Kronrod 1965; Gautschi 2004, §3.1.2); each rule's
    weights solve its moment equations ∫x^m dx = Σ wᵢ xᵢ^m. The Kronrod rule then integrates
    polynomials of degree ≤ 3n + 1 exactly, the Gauss rule degree ≤ 2n − 1
    (``tests/test_hyp0f1_k3_quadrature.py`` checks both to rounding).
The adaptive scheme (global bisection)
    Each interval's error estimate is QUADPACK's ε = D·min(1, (200·|K − G| / D)^{3/2}) in the max
    norm over the components (Piessens et al. 1983, §2.2.2; D the Kronrod integral of the absolute
    deviation from the interval's mean, as ``quad_vec`` with ``norm="max"``). Starting from the two
    halves of the range, the interval with the largest estimate is bisected until the summed
    estimate is at most max(epsabs, epsrel·‖I‖_max), the tolerance the earlier ``quad_vec`` route
    was given (it stopped at a summed estimate below tol/8 or, as it mostly did at epsrel = 1e-14,
    below its rounding floor 50·eps·∫|f|; this one has no rounding floor, as QUADPACK's rescaled
    estimate of a converged panel is far below eps). The estimate is not a bound: :data:`symcheck.hyp0f1.closed_form.K3_ERROR` carries a
    safety factor measured against the mpmath quadrature. A range that has not met it after
    ``max_intervals`` intervals (or met a non-finite value) is reported as not converged.
Bessel functions
    I₀e and I₁e are scipy's compiled ``scipy.special.cython_special.i0e``/``i1e`` (the functions
    behind ``scipy.special.i0e``/``i1e``), bound by address (``numba.extending.
    get_cython_function_address``): compiled, as an external symbol registered with LLVM (a ctypes
    function pointer would be a dynamic global, which Numba refuses to cache); with
    ``NUMBA_DISABLE_JIT=1``, where the kernels run as Python, the same C functions through ctypes.
"""

from __future__ import annotations

import ctypes
import functools
import math

import mpmath
import numba
import numpy as np
from llvmlite import binding
from numba import njit, types
from numba.extending import get_cython_function_address

__all__ = ["GAUSS_POINTS", "MAX_INTERVALS", "coset_integrals", "gauss_kronrod"]

#: Points of the Gauss rule (the Kronrod extension has 2·GAUSS_POINTS + 1).
GAUSS_POINTS = 10
#: Intervals at most per range (the k = 3 integrands, analytic, needed 2–15 per range on 2 606 rows,
#: σ from 1e-3 to 5e307, values and gradients: measured); beyond, the range is reported as not converged.
MAX_INTERVALS = 1000
#: Decimal digits at which the rule is derived (the moment equations lose about 10 to conditioning).
_RULE_DPS = 50
#: The stretched k = 3 integral stops at y = t·h = 400 (the rest is below e^{−444}; see :func:`_coset`).
_CUT = 400.0
#: Substitutions of the integration variable z (see :func:`_integrand`).
_THETA, _STRETCH, _TAIL = 0, 1, 2


def _scipy_bessel(name: str):
    """scipy.special.cython_special's ``double name(double x, int skip_dispatch)``, callable from the
    kernels as ``f(x, 0)`` (module docstring: an external symbol when compiled, ctypes under
    NUMBA_DISABLE_JIT)."""
    address = get_cython_function_address("scipy.special.cython_special", name)
    if numba.config.DISABLE_JIT:
        return ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int)(address)
    symbol = f"symcheck_scipy_special_{name}"
    binding.add_symbol(symbol, address)
    return types.ExternalFunction(symbol, types.float64(types.float64, types.intc))


_I0E = _scipy_bessel("i0e")
_I1E = _scipy_bessel("i1e")


def _interpolatory_weights(nodes: list) -> list:
    """Weights wᵢ with Σ wᵢ xᵢ^m = ∫₋₁¹ x^m dx for m < len(nodes) (mpmath, at the working precision)."""
    size = len(nodes)
    vander = mpmath.matrix([[x ** m for x in nodes] for m in range(size)])
    moments = mpmath.matrix([mpmath.mpf(2) / (m + 1) if m % 2 == 0 else 0 for m in range(size)])
    return list(mpmath.lu_solve(vander, moments))


@functools.lru_cache(maxsize=None)
def gauss_kronrod(n: int = GAUSS_POINTS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The n-point Gauss–Legendre rule and its (2n+1)-point Kronrod extension on [−1, 1].

    Parameters
    ----------
    n : int
        Gauss points (≥ 1).

    Returns
    -------
    nodes : ndarray, shape (2n + 1,)
        Ascending; the Gauss nodes (zeros of P_n) and the Kronrod nodes (zeros of E_{n+1}).
    kronrod_weights : ndarray, shape (2n + 1,)
        Exact for polynomials of degree ≤ 3n + 1.
    gauss_weights : ndarray, shape (2n + 1,)
        Zero at the Kronrod-only nodes; exact for degree ≤ 2n − 1.

    References
    ----------
    A. S. Kronrod (1965), Nodes and Weights of Quadrature Formulas, Consultants Bureau;
    W. Gautschi (2004), Orthogonal Polynomials: Computation and Approximation, §3.1.2.
    """
    if not (isinstance(n, int) and n >= 1):
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    with mpmath.workdps(_RULE_DPS):
        # P_n by Bonnet's recurrence (j + 1) P_{j+1} = (2j + 1) x P_j − j P_{j−1}; coefficients lowest first
        prev, cur = [mpmath.mpf(1)], [mpmath.mpf(0), mpmath.mpf(1)]
        for j in range(1, n):
            nxt = [mpmath.mpf(0)] + [mpmath.mpf(2 * j + 1) / (j + 1) * c for c in cur]
            for i, c in enumerate(prev):
                nxt[i] -= mpmath.mpf(j) / (j + 1) * c
            prev, cur = cur, nxt
        legendre = cur

        def against_legendre(m):  # ∫₋₁¹ P_n(x) x^m dx
            return sum(c * mpmath.mpf(2) / (i + m + 1) for i, c in enumerate(legendre) if (i + m) % 2 == 0)

        # E_{n+1} = x^{n+1} + Σ_{j≤n} c_j x^j with ∫ P_n E_{n+1} x^k dx = 0 for k = 0..n (the matrix is
        # zero above its anti-diagonal, whose entries ∫ P_n x^n ≠ 0: non-singular)
        system = mpmath.matrix([[against_legendre(j + k) for j in range(n + 1)] for k in range(n + 1)])
        rhs = mpmath.matrix([-against_legendre(n + 1 + k) for k in range(n + 1)])
        stieltjes = list(mpmath.lu_solve(system, rhs)) + [mpmath.mpf(1)]
        gauss = sorted(mpmath.re(z) for z in mpmath.polyroots(legendre, maxsteps=500, extraprec=300, asc=True))
        extra = sorted(mpmath.re(z) for z in mpmath.polyroots(stieltjes, maxsteps=500, extraprec=300, asc=True))
        nodes = sorted(gauss + extra)
        kronrod = _interpolatory_weights(nodes)
        gauss_w = dict(zip(gauss, _interpolatory_weights(gauss)))
        return (np.array([float(x) for x in nodes]), np.array([float(w) for w in kronrod]),
                np.array([float(gauss_w.get(x, 0)) for x in nodes]))


@njit(cache=True)
def _integrand(z, mode, a, b, h, end_is_one, g1, g0, ncomp, out):
    """The scaled integrand of :func:`_coset` times the Jacobian of ``mode``, components into out[:ncomp].

    t is the distance from the envelope's peak end, tc = 1 − t (kept separately so neither end loses
    digits): ``_THETA`` t = sin²z (dt = sin 2z dz); ``_STRETCH`` t = z²/h (h dt = 2z dz);
    ``_TAIL`` t = z/h (h dt = dz).
    """
    if mode == _THETA:
        s, c = math.sin(z), math.cos(z)
        t, tc, jac = s * s, c * c, math.sin(2.0 * z)
    elif mode == _STRETCH:
        t = z * z / h
        tc, jac = 1.0 - t, 2.0 * z
    else:
        t = z / h
        tc, jac = 1.0 - t, 1.0
    r, rc = (tc, t) if end_is_one else (t, tc)
    x1, x0 = r * a, rc * b
    i1, i0 = _I0E(x1, 0), _I0E(x0, 0)
    e = math.exp(-t * h)  # squared below: e^{−2th}, where 2th itself may overflow
    g = e * e * (i1 / g1) * (i0 / g0) * jac
    out[0] = g
    if ncomp > 1:
        t1 = _I1E(x1, 0) / i1  # I₁ is odd: the ratio keeps the sign of x
        t0 = _I1E(x0, 0) / i0
        out[1] = g * (r / 2 * (1 + t1))
        out[2] = g * (r / 2 * (1 - t1))
        out[3] = g * (rc / 2 * (1 + t0))
        out[4] = g * (rc / 2 * (1 - t0))


@njit(cache=True)
def _gk_interval(lo, hi, mode, a, b, h, end_is_one, g1, g0, ncomp, nodes, wk, wg, f, total):
    """Kronrod integral over [lo, hi] into total[:ncomp]; returns QUADPACK's error estimate (max norm)."""
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    for i in range(nodes.size):
        _integrand(mid + half * nodes[i], mode, a, b, h, end_is_one, g1, g0, ncomp, f[i])
    err, dev = 0.0, 0.0
    for j in range(ncomp):
        sk, sg = 0.0, 0.0
        for i in range(nodes.size):
            sk += wk[i] * f[i, j]
            sg += wg[i] * f[i, j]
        mean = 0.5 * sk  # the Kronrod weights sum to 2
        sd = 0.0
        for i in range(nodes.size):
            sd += wk[i] * abs(f[i, j] - mean)
        total[j] = half * sk
        err = max(err, abs(half * (sk - sg)))
        dev = max(dev, half * sd)
    if err != 0.0 and dev != 0.0:
        err = dev * min(1.0, (200.0 * err / dev) ** 1.5)
    return err


@njit(cache=True)
def _adaptive(start, stop, mode, a, b, h, end_is_one, g1, g0, ncomp, epsrel, epsabs, nodes, wk, wg,
              f, lo, hi, vals, errs, result):
    """∫ over [start, stop] into result[:ncomp] by global bisection (module docstring); True if the
    summed estimate met max(epsabs, epsrel·‖result‖_max) within lo.size intervals."""
    mid = 0.5 * (start + stop)
    lo[0], hi[0], lo[1], hi[1] = start, mid, mid, stop
    for i in range(2):
        errs[i] = _gk_interval(lo[i], hi[i], mode, a, b, h, end_is_one, g1, g0, ncomp, nodes, wk, wg, f, vals[i])
    count = 2
    while True:
        norm = 0.0
        for j in range(ncomp):
            s = 0.0
            for i in range(count):
                s += vals[i, j]
            result[j] = s
            norm = max(norm, abs(s))
        err_sum = 0.0
        worst = 0
        for i in range(count):
            err_sum += errs[i]
            if errs[i] > errs[worst]:
                worst = i
        if err_sum <= max(epsabs, epsrel * norm):
            return True
        if count == lo.size or not math.isfinite(err_sum + norm):
            return False
        left, right = lo[worst], hi[worst]
        mid = 0.5 * (left + right)
        hi[worst], lo[count], hi[count] = mid, mid, right
        for i in (worst, count):
            errs[i] = _gk_interval(lo[i], hi[i], mode, a, b, h, end_is_one, g1, g0, ncomp, nodes, wk, wg, f,
                                   vals[i])
        count += 1


@njit(cache=True)
def _coset(lam0, lam1, lam2, lam3, ncomp, epsrel, nodes, wk, wg, f, lo, hi, vals, errs, part, result):
    """log E[exp(Σλⱼqⱼ²)] for q uniform on S³, the size of the logs it adds, and whether the
    quadrature converged; result[1:ncomp]/result[0] are then E[qⱼ² e^{Σλq²}]/E[e^{Σλq²}].

    The exponent r(α+|a|) + (1−r)(β+|b|) of the scaled integrand is linear in r with its
    maximum m at one end; with t the distance from that end it is m − t·slope, so the
    integrand is e^{−t·slope}·I₀e·I₀e (no cancellation of large terms), divided by its
    value g₀ at t = 0 (no underflow of the I₀e factors, each ≥ 1/√(2π·max σ)). With
    h = slope/2 (halved so it cannot overflow) and h ≤ 20, t = sin²θ on [0, π/2] makes the
    1/√t, 1/√(1−t) edges of the I₀e ratios smooth. With h > 20, the part t ≤ 20/h is integrated
    in the stretched variable y = t·h, y = u² on [0, √20], and the rest, below e^{−40} ≈ 4e-18
    of it, only to the absolute accuracy 1e-3·epsrel·‖near part‖, up to y = 400: beyond it
    e^{−2y} ≤ e^{−800} while the Bessel ratio I₀e(x)/I₀e(a) ≤ √(2πa) ≤ e^{356} for any float64 a,
    so the cut part is below e^{−444} of the integrand's value 1 at y = 0 (measured with the
    earlier scipy route: equal σ summing to 1.8e308 took 50 s with the whole tail integrated,
    0.05 s with the cut).
    """
    alpha, a = lam0 / 2 + lam1 / 2, lam0 / 2 - lam1 / 2  # halves first: no overflow
    beta, b = lam2 / 2 + lam3 / 2, lam2 / 2 - lam3 / 2
    top1, top0 = alpha + abs(a), beta + abs(b)
    m = max(top1, top0)
    h = abs(top1 / 2 - top0 / 2)
    end_is_one = top1 >= top0
    g1, g0 = (_I0E(a, 0), 1.0) if end_is_one else (1.0, _I0E(b, 0))
    log_scale = m + math.log(g1) + math.log(g0)
    size = abs(m) + abs(math.log(g1)) + abs(math.log(g0))
    if h <= 20.0:
        ok = _adaptive(0.0, 0.5 * math.pi, _THETA, a, b, h, end_is_one, g1, g0, ncomp, epsrel, 0.0,
                       nodes, wk, wg, f, lo, hi, vals, errs, result)
    else:  # ∫₀¹ f(t) dt = (1/h) ∫₀^h f(y/h) dy
        ok = _adaptive(0.0, math.sqrt(20.0), _STRETCH, a, b, h, end_is_one, g1, g0, ncomp, epsrel, 0.0,
                       nodes, wk, wg, f, lo, hi, vals, errs, result)
        top = min(h, _CUT)
        if top > 20.0:
            near = 0.0
            for j in range(ncomp):
                near = max(near, abs(result[j]))
            ok &= _adaptive(20.0, top, _TAIL, a, b, h, end_is_one, g1, g0, ncomp, epsrel, 1e-3 * epsrel * near,
                            nodes, wk, wg, f, lo, hi, vals, errs, part)
            for j in range(ncomp):
                result[j] += part[j]
        log_scale -= math.log(h)
        size += abs(math.log(h))
    return log_scale + math.log(result[0]), size + abs(math.log(result[0])), ok


@njit(cache=True)
def _cosets(lam, ncomp, epsrel, nodes, wk, wg, max_intervals):
    """:func:`_coset` at λ and −λ of every row of lam (n, 4): (log E, size, moments, converged), (n, 2[, 4])."""
    n = lam.shape[0]
    log_e = np.empty((n, 2))
    size = np.empty((n, 2))
    moments = np.zeros((n, 2, 4))
    converged = np.empty((n, 2), dtype=np.bool_)
    f = np.empty((nodes.size, ncomp))
    lo = np.empty(max_intervals)
    hi = np.empty(max_intervals)
    vals = np.empty((max_intervals, ncomp))
    errs = np.empty(max_intervals)
    part = np.empty(ncomp)
    result = np.empty(ncomp)
    for i in range(n):
        for c in range(2):
            sign = 1.0 if c == 0 else -1.0
            log_e[i, c], size[i, c], converged[i, c] = _coset(
                sign * lam[i, 0], sign * lam[i, 1], sign * lam[i, 2], sign * lam[i, 3], ncomp, epsrel,
                nodes, wk, wg, f, lo, hi, vals, errs, part, result)
            for j in range(1, ncomp):
                moments[i, c, j - 1] = result[j] / result[0]
    return log_e, size, moments, converged


def coset_integrals(lam: np.ndarray, want_grad: bool, epsrel: float, max_intervals: int | None = None):
    """The k = 3 integral on both cosets of every row of λ, in one compiled call.

    Parameters
    ----------
    lam : ndarray, shape (n, 4)
        λ = (σ₁+σ₂+σ₃, σ₁−σ₂−σ₃, −σ₁+σ₂−σ₃, −σ₁−σ₂+σ₃) per row (closed_form module docstring).
    want_grad : bool
        Also integrate the four moments E[qⱼ² e^{Σλq²}]/E[e^{Σλq²}].
    epsrel : float
        Relative accuracy asked of each range (module docstring: the summed estimate).
    max_intervals : int, optional
        Intervals at most per range (default :data:`MAX_INTERVALS`).

    Returns
    -------
    log_e : ndarray, shape (n, 2)
        log E[e^{Σλⱼqⱼ²}] at λ (column 0) and −λ (column 1).
    size : ndarray, shape (n, 2)
        The sum of the magnitudes of the logs added (the scale of the rounding error).
    moments : ndarray, shape (n, 2, 4)
        E[qⱼ² e^{Σλq²}]/E[e^{Σλq²}] (zero without ``want_grad``).
    converged : ndarray of bool, shape (n, 2)
        Whether every range met its tolerance.
    """
    nodes, wk, wg = gauss_kronrod()
    return _cosets(np.ascontiguousarray(lam, dtype=float), 5 if want_grad else 1, float(epsrel), nodes, wk, wg,
                   MAX_INTERVALS if max_intervals is None else int(max_intervals))
