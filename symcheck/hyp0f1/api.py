"""Public entry points for log ₀F₁(k/2; AAᵀ/4): one dispatcher over the registered methods.

₀F₁(k/2; AAᵀ/4) = ∫_{O(k)} etr(A Tᵀ) dT over the Haar probability measure on the
full orthogonal group O(k) (Muirhead 1982, Thm. 7.4.1; Moore 2016, App. A). It depends
on the k×k matrix A only through its singular values σ, so every function here takes
``sigma`` of shape ``(..., k)`` and is batched over the leading axes. The methods and
everything about them (options, domain, error figure, place in "auto") are declared in
:mod:`symcheck.hyp0f1.methods`.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from dataclasses import dataclass

import numpy as np

from symcheck._checks import as_sigma, check_bool, check_choice, check_int, check_rng
from symcheck.hyp0f1 import methods, montecarlo
from symcheck.hyp0f1.methods import AUTO_RTOL, AUTO_SERIES_MAX_DEGREE, AUTO_SERIES_RTOL

__all__ = ["AUTO_RTOL", "AUTO_SERIES_MAX_DEGREE", "AUTO_SERIES_RTOL", "WARN_RTOL", "Hyp0f1AccuracyWarning",
           "Hyp0f1Info", "grad_log_hyp0f1", "log_hyp0f1", "log_hyp0f1_and_grad", "log_hyp0f1_mc", "method_names"]

#: Above this relative error figure "auto" warns (:class:`Hyp0f1AccuracyWarning`).
WARN_RTOL = 1e-6
#: "auto" may zero the σⱼ ≤ DEFLATE·max(1, σ_max) of a row its steps leave above AUTO_RTOL (`_deflate`):
#: the proven cost, at most k·DEFLATE·max(1, σ_max), stays a thousandth of AUTO_RTOL for k ≤ 1000.
DEFLATE = 1e-16
#: It may also zero the smallest σⱼ as long as ½Σ(zeroed σⱼ)² stays at most this (the quadratic cost of
#: `_deflate`; a thousandth of the goal's absolute floor AUTO_RTOL·1): σⱼ up to ~1e-7 at k = 20.
DEFLATE_SQUARES = 1e-3 * AUTO_RTOL
#: Rows still above AUTO_RTOL after that may give up the smallest σⱼ whose quadratic cost ½Σσⱼ² is at most this
#: share of their figure (capped by Σσ, the width of the interval every answer lies in): where the lower rank
#: opens a route (rank one: the Bessel closed form), the figure falls at least 2/DEFLATE_WIDE_SHARE-fold. That answer
#: is kept only where its figure is then below DEFLATE_WIDE_USEFUL (`_auto`).
DEFLATE_WIDE_SHARE = 0.1
#: One nat (₀F₁ within a factor e). Measured: k = 16, 20, σ = 100·geomspace(1, 0.1): wide figures 5.0 and 6.0, values
#: 2.1–2.7 nats from the importance-sampling reference where the first answer (asymptotic, outside its regime,
#: figure inf) was within 0.005; rank two plus noise (k = 6…20, σ = (30, 12, ε…), ε = 0.01, 0.1): wide figures
#: 5e-5 – 0.05, where the first answer was 12–25 nats off.
DEFLATE_WIDE_USEFUL = 1.0


class Hyp0f1AccuracyWarning(UserWarning):
    """No method available to ``method="auto"`` reached 1e-6 relative accuracy for some input rows."""


@dataclass(frozen=True)
class Hyp0f1Info:
    """Per-row provenance of a log ₀F₁ value (or gradient).

    Attributes
    ----------
    method : ndarray of str
        The method that produced the row (for ``"auto"``: the one it chose).
    error : ndarray of float
        Bound or estimate of the absolute error of log ₀F₁ (≈ the relative error of ₀F₁), or of
        the largest component of the gradient; ``inf`` where the method has none (the Laplace
        approximation) or the input is outside the method's regime.
    rigorous : ndarray of bool
        True where ``error`` is a proven bound (the series: truncation bound plus float64
        rounding), False where it is an estimate.
    """

    method: np.ndarray
    error: np.ndarray
    rigorous: np.ndarray


def method_names() -> tuple:
    """The accepted ``method`` values: "auto" and every registered method."""
    return ("auto",) + methods.names()


def _prepare(method: str, options: dict, flat: np.ndarray, k: int, gradient: bool):
    """The registered method object and its validated options; ValueError where it cannot run."""
    check_choice(method, "method", method_names())
    if method == "auto":
        if options:
            raise ValueError(f"unknown option(s) {sorted(options)} for method 'auto'; allowed: none")
        return None, {}
    m = methods.REGISTRY[method]
    if gradient and m.gradient is None:
        raise ValueError(f"method: {method!r} has no gradient; choose one of {('auto',) + methods.names(True)}")
    opts = methods.resolve_options(m, options)
    reasons = m.domain(flat, k, opts)
    bad = np.flatnonzero(reasons != "")
    if bad.size:
        raise ValueError(f"sigma: {reasons[bad[0]]} (row {bad[0]}; method {method!r}); use method='auto'")
    return m, opts


def _finish(out: np.ndarray, error: np.ndarray, names: np.ndarray, shape: tuple, want_error: bool,
            want_info: bool):
    """``out`` alone, or with the per-row error (shape ``shape``) and/or a :class:`Hyp0f1Info`."""
    if not (want_error or want_info):
        return out
    error = np.asarray(error, float).reshape(shape)
    result = [out] + ([error] if want_error else [])
    if want_info:
        rigorous = np.array([methods.REGISTRY[n].rigorous if n in methods.REGISTRY else False
                             for n in names.reshape(-1)], dtype=bool).reshape(shape)
        result.append(Hyp0f1Info(method=names.reshape(shape), error=error, rigorous=rigorous))
    return tuple(result)


def log_hyp0f1(sigma, k, method: str = "auto", *, return_error: bool = False, return_info: bool = False,
               **options):
    """Return log ₀F₁(k/2; AAᵀ/4) for singular values ``sigma`` of A.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
        Singular values of A (non-negative, finite; zeros allowed). Batched over leading axes.
    k : int
        Dimension of the orthogonal group O(k) (>= 1).
    method : str
        ``"auto"`` or a registered method (:func:`method_names`; each is declared with its
        options, domain and error figure in :mod:`symcheck.hyp0f1.methods`):

        ``"exact"``
            Closed forms: k = 1 (cosh), k = 2 (Bessel I₀), k = 3 (a one-dimensional integral over
            the quaternion parametrisation, ~10 ms per value), rank one (Bessel I_{k/2−1}), and all
            k singular values equal (Weyl's integration formula, any k; :mod:`~symcheck.hyp0f1.weyl`).
            ValueError for other inputs. Error: estimate (rounding allowance measured against mpmath).
        ``"near-equal"``
            The equal-spectrum closed form at the mean σ̄ and the middle of the proven band
            [L, L + ½‖σ − σ̄‖₁²] around it (convexity of log ₀F₁ and Popoviciu's bound on its curvature;
            :mod:`~symcheck.hyp0f1.near_equal`): any σ with mean ≤ 1e7, useful where the σ are nearly
            equal. Error: the band's half-width (proven) plus the closed form's estimate.
        ``"series"``
            Exact zonal-polynomial series (Koev & Edelman 2006), float64, truncated where a
            rigorous bound on the tail is below ``rtol`` (default 1e-14) relative to the sum; a row
            with m non-zero σ is summed in m variables (so rank-deficient rows reach larger σ).
            Options ``rtol``, ``max_degree`` (ValueError if not reached). Error: rigorous.
        ``"holonomic"``
            Holonomic gradient method: Muirhead's PDE system as a Pfaffian system of rank 2^m
            (m non-zero σ) integrated along the ray sσ from the series at a small s. Options
            ``rtol`` (ODE tolerance, default 1e-13), ``max_steps`` (per row, shared by its rays)
            and ``work`` (the budget in work units when ``max_steps`` is not given: default
            ~10 s per row). Error: estimate.
        ``"asymptotic"``
            Laplace's method on the group O(k) around both saddle cosets with ``order``
            (0 … 3, or ``"best"``; default 1) correction terms. Error: estimate, inf outside the
            asymptotic regime (every pair sum σᵢ + σⱼ large).
        ``"laplace"``
            Butler & Wood (2003) Laplace approximation as in Moore (2016) eq. (7). Option
            ``variant``: ``"listing"`` (default; ŷᵢ as coded in Moore's Listing 1), ``"printed"``
            or ``"pairs-once"``. Exact at σ = 0; no error bound (``inf``; the report measures it).
        ``"mc"``
            Haar Monte Carlo over O(k). Options ``n_samples`` (default 10⁴), ``rng`` (required)
            and ``proposal`` (``"haar"`` or ``"saddle"``). Error: one standard error, an estimate.
        ``"auto"``
            Per input row, the registered methods' auto steps in order (closed forms, the near-equal
            band where it is narrow, the series
            up to degree 60 — for rows with m < k non-zero σ, up to the degree its m-variable tables
            allow: 388 for m = 2, 88 for m = 3 —, the k = 3 integral, the asymptotic expansion at its best order, the
            holonomic method where it runs in seconds) until the error figure is within
            AUTO_RTOL = 1e-10 relative to max(1, |log ₀F₁|); where none gets there, the answer
            with the smallest error figure, and a :class:`Hyp0f1AccuracyWarning` where that
            exceeds 1e-6 relative.
    return_error : bool
        Also return the error figure of every value: absolute, in log ₀F₁.
    return_info : bool
        Also return a :class:`Hyp0f1Info` (method, error, rigorous flag per row).

    Returns
    -------
    value : ndarray, shape sigma.shape[:-1]
        log ₀F₁ (float64).
    error : ndarray, shape sigma.shape[:-1]
        Only with ``return_error``.
    info : Hyp0f1Info
        Only with ``return_info`` (after ``error`` if both are asked for).

    References
    ----------
    Moore, D. A. (2016). Symmetrized Variational Inference, App. A, eq. (7), Listing 1.
    Butler, R. W. & Wood, A. T. A. (2003). Laplace approximations for Bessel functions of
    matrix argument. J. Comput. Appl. Math. 155, 359–382.
    Koev, P. & Edelman, A. (2006). The efficient evaluation of the hypergeometric function
    of a matrix argument. Math. Comp. 75, 833–846.
    Nakayama, H. et al. (2011). Holonomic gradient descent and its application to the
    Fisher–Bingham integral. Adv. Appl. Math. 47, 639–658.
    """
    want_error = check_bool(return_error, "return_error")
    want_info = check_bool(return_info, "return_info")
    sig, k = as_sigma(sigma, k)
    flat = sig.reshape(-1, k)
    m, opts = _prepare(method, options, flat, k, gradient=False)
    if m is None:  # "auto" warns at stacklevel 3: called from here
        value, error, names, *_ = _auto(flat, k)
    else:
        value, error, names = _values(m, opts, flat, k, method, want_error or want_info)
    shape = sig.shape[:-1]
    return _finish(np.asarray(value, float).reshape(shape), error, names, shape, want_error, want_info)


def _values(m, opts: dict, flat: np.ndarray, k: int, method: str, figure: bool):
    """(value, error figure, method name) per row of validated ``flat`` by the registered method ``m``
    with prepared options; without ``figure`` its cheaper ``value_only`` where it has one (figure inf)."""
    names = np.full(flat.shape[0], method, dtype=object)
    if m.value_only is not None and not figure:  # no figure asked for
        return m.value_only(flat, k, **opts), np.full(flat.shape[0], np.inf), names
    value, error = m.evaluate(flat, k, **opts)
    return value, error, names


def _good(value: np.ndarray, error: np.ndarray, rtol: float) -> np.ndarray:
    return np.isfinite(value) & (error <= rtol * np.maximum(1.0, np.abs(value)))


#: Where `auto_attempts` collects what auto's steps returned (None: not collecting).
_ATTEMPTS: contextvars.ContextVar = contextvars.ContextVar("symcheck_hyp0f1_auto_attempts", default=None)


@contextlib.contextmanager
def auto_attempts():
    """Collect what each step of ``method="auto"`` returned on each row, while the block runs.

    Yields a dict ``{(step index, row): outcome}`` filled by every ``auto`` call in the block, for the
    rows as given (not the retry with negligible σⱼ zeroed): outcome ``("value", v, e)`` or
    ``("raised", message)``, step index into :func:`symcheck.hyp0f1.methods.auto_steps`. A caller that
    asks about the routes auto tried (the report's goal table: its second routes and "why not") reads
    them here instead of running them again, which for the holonomic method costs seconds.
    """
    log: dict = {}
    token = _ATTEMPTS.set(log)
    try:
        yield log
    finally:
        _ATTEMPTS.reset(token)


def _auto_pass(flat: np.ndarray, k: int, log: dict | None = None, with_gradient: bool = False):
    """One pass of the auto steps over the rows: (value, error, method name, index of the auto step);
    each evaluation's outcome per row goes to ``log`` (`auto_attempts`) if given. With ``with_gradient``, only
    the steps of methods that have a gradient."""
    n = flat.shape[0]
    value = np.full(n, np.nan)
    error = np.full(n, np.inf)
    names = np.full(n, "", dtype=object)
    chosen = np.full(n, -1)
    for i, (m, step) in enumerate(methods.auto_steps()):
        if with_gradient and m.gradient is None:
            continue
        todo = ~_good(value, error, AUTO_RTOL) & (~np.isfinite(value) if step.fallback else True)
        idx = np.flatnonzero(todo)
        if idx.size:
            idx = idx[np.asarray(step.applies(flat[idx], k), dtype=bool)]
        if idx.size:
            opts = methods.resolve_options(m, step.options)
            idx = idx[m.domain(flat[idx], k, opts) == ""]
        if not idx.size:
            continue
        batches = [idx[j:j + 1] for j in range(idx.size)] if step.row_by_row else [idx]
        for rows in batches:
            try:
                v, e = m.evaluate(flat[rows], k, **opts)
            except (ValueError, RuntimeError) as exc:
                if not step.row_by_row:
                    raise
                if log is not None:
                    log[(i, int(rows[0]))] = ("raised", str(exc))
                continue  # an expensive route that ran out of its budget on this row
            v, e = np.asarray(v, float), np.asarray(e, float)
            if log is not None:
                log.update({(i, int(r)): ("value", float(a), float(b)) for r, a, b in zip(rows, v, e)})
            take = np.isfinite(v) & ((e < error[rows]) | ~np.isfinite(value[rows]))
            rows = rows[take]
            value[rows], error[rows], names[rows], chosen[rows] = v[take], e[take], m.name, i
    return value, error, names, chosen


def _deflate(flat: np.ndarray, squares=DEFLATE_SQUARES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows with their negligible σⱼ set to 0, and per row the proven cost of that for the value and for the
    gradient: (deflated rows, c, Σ zeroed σⱼ) with c = min(Σ zeroed σⱼ, ½Σ (zeroed σⱼ)²).

    Zeroed are every σⱼ ≤ `DEFLATE` · max(1, σ_max), and the smallest σⱼ, in increasing order, while
    ½Σσⱼ² over them stays ≤ ``squares`` (a number, or one per row; `DEFLATE_SQUARES` by default). A numerically rank-deficient A (an SVD's 1e-13, 1e-31,
    0 beside 1e4; or noise of 1e-8 on unused directions) makes the spread and clustered routes fail
    although the rank-deficient routes answer at once. Zeroing σⱼ is safe with a proven cost: log ₀F₁ is
    the log moment generating function of (T₁₁, …, T_kk) under Haar measure, so ∂ log ₀F₁/∂σⱼ ∈ [0, 1],
    = 0 where σⱼ = 0 (₀F₁ is even in each σⱼ), and every entry of its Hessian (a covariance of the
    |Tⱼⱼ| ≤ 1 under the tilted measure) lies in [−1, 1]. Setting the σⱼ to 0 one at a time, log ₀F₁ falls
    by at most σⱼ (slope ≤ 1) and at most σⱼ²/2 (slope 0 at 0, curvature ≤ 1) each, and never rises
    (convex with slope 0 at 0): log ₀F₁(σ) lies in [L, L + c] with L its value at the deflated row. Each
    gradient component moves by at most Σ zeroed σⱼ (a zeroed one's true value lies in [0, σⱼ]).
    """
    tau = DEFLATE * np.maximum(1.0, flat.max(axis=1, initial=0.0))
    small = flat <= tau[:, None]
    order = np.argsort(flat, axis=1, kind="stable")
    with np.errstate(over="ignore"):  # σ beyond 1e154 square to inf: never within the budget
        ordered_squares = np.take_along_axis(flat, order, axis=1) ** 2
        prefix = 0.5 * np.cumsum(ordered_squares, axis=1) <= np.reshape(squares, (-1, 1))
        np.put_along_axis(small, order, np.take_along_axis(small, order, axis=1) | prefix, axis=1)
        zeroed = np.where(small, flat, 0.0)
        linear = zeroed.sum(axis=1)
        return np.where(small, 0.0, flat), np.minimum(linear, 0.5 * (zeroed ** 2).sum(axis=1)), linear


def _wide_budget(flat: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Per row, the cost ½Σσⱼ² of zeroing its smallest non-zero σⱼ up to the largest ratio gap between
    consecutive distinct sorted σ among the cuts that cost at most ``allowed``; ``-1`` where no cut zeroes a
    non-zero σ within it. At the widest gap the zeroed σ are smallest against those kept, so the lower rank
    costs least for what it opens (σ = (100, 3, 10⁻³ × 18): the cut below 3, not below 100)."""
    if flat.shape[1] < 2:
        return np.full(flat.shape[0], -1.0)
    s = np.sort(flat, axis=1)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        prefix = 0.5 * np.cumsum(s ** 2, axis=1)[:, :-1]
        cut = (s[:, :-1] > 0) & (s[:, 1:] > s[:, :-1]) & (prefix <= allowed[:, None])  # no cut inside a tie
        gap = np.where(cut, s[:, 1:] / s[:, :-1], -np.inf)
    best = np.argmax(gap, axis=1)[:, None]
    found = np.take_along_axis(gap, best, axis=1)[:, 0] > -np.inf
    return np.where(found, np.take_along_axis(prefix, best, axis=1)[:, 0], -1.0)


def _auto(flat: np.ndarray, k: int):
    """(value, error, method name, index of the auto step, rows evaluated, error added) per row.

    The auto steps run on the rows as given; rows they leave above `AUTO_RTOL` run again with their
    negligible σⱼ zeroed (`_deflate`: the value moves up to the middle of its proven interval [L, L + c]
    and c/2 is added to the figure; the gradient's figure gets Σ zeroed σⱼ, the "error added" returned),
    and the better figure is kept. Rows still above it run once more with the smallest σⱼ zeroed whose cost
    ½Σσⱼ² is at most `DEFLATE_WIDE_SHARE` times their figure (or Σσ), the same way: a lower rank can open a
    route (k = 20, σ = (100, 10⁻³, …): the rank-one closed form within 4.8e-6, where no route answered).
    That answer is kept only where its figure is below `DEFLATE_WIDE_USEFUL` (one nat): at k = 16,
    σ = 100·geomspace(1, 0.1), zeroing σ = 10 (cost up to 10) gave figure 5.8 for a value 2.7 from the importance-sampling reference,
    where the asymptotic expansion, outside its regime (figure inf), was within 0.0013 of it. Rows whose half cost
    alone reaches one nat are therefore not run again (k = 8, σ = (27.6, 24.2, 4.23, 3.05, 2.79, 2.78, 2.29, 1.99):
    cost 2, 1.6 s of rays for an answer that could not be kept).
    Last, the value is clipped into [0, Σσ], where log ₀F₁ lies (Jensen below,
    |Tⱼⱼ| ≤ 1 above), and no figure exceeds the distance to that interval's far end; a row no method
    answered gets the midpoint.
    """
    value, error, names, chosen = _auto_pass(flat, k, _ATTEMPTS.get())
    used, added = flat.copy(), np.zeros(flat.shape[0])
    top = flat.sum(axis=1)
    before = flat
    for wide in (False, True):
        budget = _wide_budget(flat, DEFLATE_WIDE_SHARE * np.minimum(error, top)) if wide else DEFLATE_SQUARES
        deflated, cost, grad_cost = _deflate(flat, budget)
        more = np.count_nonzero(deflated == 0, axis=1) > np.count_nonzero(before == 0, axis=1)
        # a wide answer's figure holds half its cost: rows whose cost rules out DEFLATE_WIDE_USEFUL are not run
        useful = 0.5 * cost < DEFLATE_WIDE_USEFUL if wide else True
        retry = np.flatnonzero(~_good(value, error, AUTO_RTOL) & more & useful)
        before = deflated
        if not retry.size:
            continue
        v, e, nm, ch = _auto_pass(deflated[retry], k)
        v, e = v + 0.5 * cost[retry], e + 0.5 * cost[retry]
        better = np.isfinite(v) & ((e < error[retry]) | ~np.isfinite(value[retry]))
        if wide:  # only where that makes the answer usable: a cost of nats would trade a value for a figure
            better &= e < DEFLATE_WIDE_USEFUL
        rows = retry[better]
        value[rows], error[rows], names[rows], chosen[rows] = v[better], e[better], nm[better], ch[better]
        used[rows], added[rows] = deflated[rows], grad_cost[rows]
    value = np.clip(np.nan_to_num(value, nan=0.5 * top, posinf=top, neginf=0.0), 0.0, top)
    error = np.minimum(error, np.maximum(value, top - value))
    bad = ~_good(value, error, WARN_RTOL)
    if bad.any():
        worst = np.flatnonzero(bad)[np.argmax(error[bad])]
        warnings.warn(f"log_hyp0f1(method='auto'): {np.count_nonzero(bad)} of {flat.shape[0]} rows have no method reaching "
                      f"{WARN_RTOL:g} relative accuracy (worst error figure {error[worst]:.3g}, method "
                      f"{names[worst]}); see return_info=True", Hyp0f1AccuracyWarning, stacklevel=3)
    return value, error, names, chosen, used, added




def log_hyp0f1_mc(sigma, k, n_samples: int, rng, proposal: str = "haar", return_khat: bool = False) -> tuple:
    """Haar Monte Carlo estimate of log ₀F₁(k/2; AAᵀ/4) and its standard error.

    See :func:`symcheck.hyp0f1.montecarlo.log_hyp0f1_mc` for the estimator.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
    k : int
    n_samples : int
        Number of Haar draws per input row (>= 2).
    rng : numpy.random.Generator or int
    proposal : {"haar", "saddle"}
        ``"haar"``: Haar draws (small to moderate σ). ``"saddle"``: importance sampling
        around the maximum of each coset of O(k) (large σ; ``n_samples`` per coset).
    return_khat : bool
        Also return the Pareto tail index k̂ of each row's weights: above 0.5
        (``symcheck._mc.KHAT_RELIABLE``) the standard error is not to be trusted.

    Returns
    -------
    estimate, standard_error : ndarray, shape sigma.shape[:-1]
        log of the sample mean, and its delta-method standard error (SE of the mean
        divided by the mean).
    khat : ndarray, shape sigma.shape[:-1]
        Only if ``return_khat``.
    """
    sig, k = as_sigma(sigma, k)
    n = check_int(n_samples, "n_samples", minimum=2)
    gen = check_rng(rng)
    check_choice(proposal, "proposal", ("haar", "saddle"))
    want_khat = check_bool(return_khat, "return_khat")
    return montecarlo.log_hyp0f1_mc(sig, k, n, gen, proposal=proposal, return_khat=want_khat)


def grad_log_hyp0f1(sigma, k, method: str = "auto", *, return_error: bool = False, return_info: bool = False,
                    **options):
    """Gradient of log ₀F₁(k/2; AAᵀ/4) with respect to the singular values σ.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
    k : int
    method : str
        ``"auto"`` or a registered method with a gradient (``methods.names(with_gradient=True)``):
        ``"exact"`` (derivatives of the closed forms), ``"series"`` (exact derivative of the
        truncated series), ``"holonomic"`` (the ray's final state holds ∂F/∂σᵢ), ``"asymptotic"``
        (central differences of the expansion), ``"laplace"`` (analytic derivative of eq. (7)).
        ``"auto"``: per row, the gradient of the route ``log_hyp0f1(method="auto")`` takes.
    return_error : bool
        Also return an error figure per row: of the largest absolute error of the components
        (estimate, or bound for the series). It never exceeds the proven bound below.
    return_info : bool
        Also return a :class:`Hyp0f1Info` (method, error, rigorous per row).

    Returns
    -------
    grad : ndarray, shape sigma.shape
        Each component lies in [0, 1]: ∂ log ₀F₁/∂σᵢ = E[Tᵢᵢ] under the Haar measure tilted by
        exp(Σⱼ σⱼ Tⱼⱼ), |Tᵢᵢ| ≤ 1, and flipping the sign of row i of T (a Haar-preserving map that
        changes only Tᵢᵢ among the diagonal entries) shows E[Tᵢᵢ] ≥ 0 for σᵢ ≥ 0. A method's
        component outside [0, 1] (or not finite, where its expansion overflows) is clipped to it,
        and the row's error figure is capped at max over components of max(g, 1 − g), which that
        bound proves.
    error : ndarray, shape sigma.shape[:-1]
        Only with ``return_error``.
    info : Hyp0f1Info
        Only with ``return_info``.

    Warns
    -----
    Hyp0f1AccuracyWarning
        With ``method="auto"``, for rows whose gradient error figure exceeds 1e-6 relative.
    """
    want_error = check_bool(return_error, "return_error")
    want_info = check_bool(return_info, "return_info")
    sig, k = as_sigma(sigma, k)
    flat = sig.reshape(-1, k)
    m, opts = _prepare(method, options, flat, k, gradient=True)
    if m is None:  # "auto" warns at stacklevel 3: called from here
        grad, error, names = _auto_grad(flat, k)
    else:
        grad, error, names = _gradients(m, opts, flat, k, method, want_error or want_info)
    return _finish(np.asarray(grad, float).reshape(sig.shape), error, names, sig.shape[:-1], want_error, want_info)


def _gradients(m, opts: dict, flat: np.ndarray, k: int, method: str, figure: bool):
    """(gradient, error figure, method name) per row of validated ``flat`` by the registered method ``m``
    with prepared options, kept in [0, 1]; without ``figure`` its cheaper ``gradient_only``."""
    names = np.full(flat.shape[0], method, dtype=object)
    if m.gradient_only is not None and not figure:  # no figure asked for
        grad, error = _within_unit_interval(m.gradient_only(flat, k, **opts), np.full(flat.shape[0], np.inf))
    else:
        grad, error = _within_unit_interval(*m.gradient(flat, k, **opts))
    return grad, error, names


def log_hyp0f1_and_grad(sigma, k, method: str = "auto", **options) -> tuple[np.ndarray, np.ndarray]:
    """log ₀F₁(k/2; AAᵀ/4) and its gradient in σ in one call (an optimiser's inner loop).

    The same numbers as ``(log_hyp0f1(sigma, k, method, **options), grad_log_hyp0f1(sigma, k,
    method, **options))``, bit for bit, with ``sigma`` validated and the method prepared once, and,
    for a method that declares ``value_and_gradient_only`` (:mod:`symcheck.hyp0f1.methods`: the
    asymptotic expansion at orders 0 and 1, the Laplace approximation), the work that the value and
    the gradient share done once. No error figures: ask :func:`log_hyp0f1` and
    :func:`grad_log_hyp0f1` for those.

    Parameters
    ----------
    sigma : array_like, shape (..., k)
    k : int
    method : str
        ``"auto"`` or a registered method with a gradient (see :func:`grad_log_hyp0f1`).
    **options
        The method's options (see :func:`log_hyp0f1`).

    Returns
    -------
    value : ndarray, shape sigma.shape[:-1]
    grad : ndarray, shape sigma.shape
        Each component in [0, 1], as :func:`grad_log_hyp0f1` returns it.
    """
    sig, k = as_sigma(sigma, k)
    flat = sig.reshape(-1, k)
    m, opts = _prepare(method, options, flat, k, gradient=True)
    if m is None:  # "auto" warns at stacklevel 3: called from here
        routes = _auto(flat, k)
        value, grad = routes[0], _auto_grad(flat, k, routes)[0]
    elif m.value_and_gradient_only is not None:
        value, grad = m.value_and_gradient_only(flat, k, **opts)
        grad = _within_unit_interval(grad, np.full(flat.shape[0], np.inf))[0]
    else:
        value = _values(m, opts, flat, k, method, False)[0]
        grad = _gradients(m, opts, flat, k, method, False)[0]
    return np.asarray(value, float).reshape(sig.shape[:-1]), np.asarray(grad, float).reshape(sig.shape)


def _within_unit_interval(grad, error):
    """Clip gradient rows (n, k) into [0, 1] and cap their error figures (n,) by that bound.

    ∂ log ₀F₁/∂σᵢ ∈ [0, 1] (:func:`grad_log_hyp0f1`): a non-finite component (an overflowed
    expansion) becomes ½, and no component in [0, 1] is further than max(g, 1 − g) from the truth.
    """
    grad = np.clip(np.nan_to_num(np.asarray(grad, float), nan=0.5, posinf=1.0, neginf=0.0), 0.0, 1.0)
    bound = np.max(np.maximum(grad, 1.0 - grad), axis=1) if grad.shape[1] else np.zeros(grad.shape[0])
    return grad, np.minimum(np.asarray(error, float), bound)


def _auto_grad(flat: np.ndarray, k: int, routes: tuple | None = None):
    """Per row, the gradient (and its error figure) of the route "auto" takes for the value; ``routes``: what
    :func:`_auto` returned on these rows, if the caller has it (else it runs here)."""
    if routes is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Hyp0f1AccuracyWarning)  # the gradient warns for itself below
            routes = _auto(flat, k)
    _, _, names, chosen, used, added = routes
    names, chosen = names.copy(), chosen.copy()
    steps = methods.auto_steps()
    grad = np.empty_like(flat)
    error = np.full(flat.shape[0], np.inf)
    bare = np.flatnonzero([steps[i][0].gradient is None for i in chosen])
    if bare.size:  # a route without a gradient (contiguous): the best route of those with one, as auto ranks them
        _, _, names[bare], chosen[bare] = _auto_pass(used[bare], k, with_gradient=True)
    for i in np.unique(chosen):
        rows = np.flatnonzero(chosen == i)
        m, step = steps[i]
        if i < 0 or m.gradient is None:  # no route with a gradient answered: the Laplace gradient, error unknown
            m, step = methods.REGISTRY["laplace"], methods.REGISTRY["laplace"].auto[0]
            names[rows] = "laplace"
        opts = methods.resolve_options(m, step.options)
        g, e = m.gradient(used[rows], k, **opts)
        grad[rows], error[rows] = _within_unit_interval(g, np.asarray(e, float) + added[rows])
    scale = np.maximum(1.0, np.abs(grad).max(axis=1)) if flat.size else np.ones(flat.shape[0])
    rough = ~(error <= WARN_RTOL * scale)
    if rough.any():
        warnings.warn(f"grad_log_hyp0f1(method='auto'): {np.count_nonzero(rough)} of {flat.shape[0]} rows have a "
                      f"gradient error figure above {WARN_RTOL:g} relative (methods "
                      f"{', '.join(sorted(set(names[rough])))}); see return_error=True", Hyp0f1AccuracyWarning,
                      stacklevel=3)
    return grad, error, names
