"""Generated reference values of log ₀F₁(k/2; AAᵀ/4) at ≥ 30 digits, with a provenance banner.

The tests and the budget table (:mod:`symcheck.hyp0f1.budget`) compare the float64 methods with
these stored values instead of recomputing mpmath everywhere. Regenerate with

    python -m symcheck.hyp0f1.reference_data

(a few minutes), which rewrites ``symcheck/hyp0f1/data/reference_values.json``; a test recomputes a
random few entries live, so stale data fails.

Grid: k = 1..12, shapes ``"rank one"`` (σ_max, 0, …, 0), ``"equal"`` (σ_max, …, σ_max),
``"spread"`` (σᵢ = σ_max (k − i)/k, i = 0..k−1: distinct, gaps σ_max/k) and ``"near ties"`` (two clusters of
consecutive values NEAR_TIE_GAP·σ_max apart: σ_max(1 − NEAR_TIE_GAP·i), i < ⌈k/2⌉, then the same from σ_max/3;
a fitted spectrum is rarely exactly tied), σ_max in
:data:`SIGMA_MAX` (1e-3 … 1e4). An entry is stored where one of four high-precision routes
reaches it, each run at ``DPS`` = 40 decimal digits (or more where stated):

``closed_form_mp``
    k ≤ 2 or rank one: the mpmath Bessel/cosh closed forms
    (:func:`symcheck.hyp0f1.closed_form_mp.closed_form_mp`). Error: mpmath's working precision.
``hyp0f1_reference``
    The monomial-basis series from the PDE system (:func:`symcheck.hyp0f1.reference.hyp0f1_reference`,
    independent of the zonal-polynomial code), where its table has at most
    :data:`MAX_REFERENCE_PARTITIONS` partitions (seconds per value; beyond it minutes). Error:
    relative ≤ 10^(−DPS−2) (truncation) plus the guarded recursion's rounding.
``k3_quadrature_mp``
    k = 3 beyond the series: the one-dimensional integral of the quaternion parametrisation
    (derived in :mod:`symcheck.hyp0f1.closed_form`), ₀F₁ = ½(E(λ) + E(−λ)),
    E(λ) = ∫₀¹ e^{rα+(1−r)β} I₀(ra) I₀((1−r)b) dr, by mpmath's tanh-sinh quadrature at DPS digits on
    geometric sub-intervals towards the end where the envelope e^{r(α+|a|)+(1−r)(β+|b|)} peaks; the
    integral is cut where that envelope has fallen by e^{−c}, and the cut part (≤ e^{m−c}/h, h the
    envelope's slope) is bounded and added to the error; the smaller coset is dropped where its
    bound E(−λ) ≤ e^{max(−λ)} is below 10^(−DPS−5) of the larger. Error: mpmath's estimate plus
    those bounds.
``so4_series_mp``
    k = 4: the positive series of :mod:`symcheck.hyp0f1.so4_series` (SO(4) ≅ (S³ × S³)/±1),
    ₀F₁ = ½(I(λ₊) + I(λ₋)), I = Σₙ hₙ/(4ⁿ((n+1)!)²), with the coefficients hₙ of ∏ⱼ(1 − λⱼ²t)^{−1/2}
    by their four-term recurrence n hₙ = −Σᵢ eᵢ(n − i/2)h_{n−i} (eᵢ those of ∏ⱼ(1 − λⱼ²t); another
    algorithm than the float64 route's convolutions) at DPS + 20 digits (the recurrence's
    alternating eᵢ cancel a few digits), summed past the largest term until the rigorous tail
    bound of that module is below 10^(−DPS−5) of the sum.

``digits`` of an entry: the number d with |stored − true| ≤ 10^(−d) in log ₀F₁, capped at
DPS − 5 = 35 (the log is evaluated at DPS digits and |log ₀F₁| ≤ Σσ ≤ 1.2e5 on this grid).
"""

from __future__ import annotations

import datetime
import functools
import json
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import mpmath
import numpy as np

from symcheck._checks import as_sigma, check_choice, check_int
from symcheck.hyp0f1 import reference
from symcheck.hyp0f1.closed_form_mp import closed_form_mp

__all__ = [
    "DPS",
    "MAX_REFERENCE_PARTITIONS",
    "NEAR_TIE_GAP",
    "ROUTES",
    "SHAPES",
    "SIGMA_MAX",
    "ReferenceTable",
    "ReferenceValue",
    "compute_reference",
    "generate_reference_values",
    "k3_quadrature_mp",
    "load_reference_values",
    "so4_series_mp",
    "shape_sigma",
    "write_reference_values",
]

#: Working precision of every route, in decimal digits.
DPS = 40
#: Largest number of stored digits claimed for an entry (see module docstring).
MAX_DIGITS = DPS - 5
#: The largest singular value of each grid input.
SIGMA_MAX = (1e-3, 1e-2, 0.1, 0.3, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0, 100.0, 300.0, 1e3, 1e4)
SHAPES = ("rank one", "equal", "spread", "near ties")
#: Gap between consecutive values inside a cluster of the "near ties" shape, relative to the cluster's top.
NEAR_TIE_GAP = 1e-3
K_VALUES = tuple(range(1, 13))
ROUTES = ("closed_form_mp", "hyp0f1_reference", "k3_quadrature_mp", "so4_series_mp")
#: Largest coefficient table (partitions with ≤ k parts, size ≤ degree) the series route is run
#: with (measured at DPS = 40: 13 429 partitions, k = 3, Σσ = 30 take 5.5 s; 62 458 take 44 s).
MAX_REFERENCE_PARTITIONS = 20_000
#: File name of the stored table inside the package folder ``data``.
DATA_FILE = "reference_values.json"
#: Importable name of this module (also when run as ``python -m``, where ``__name__`` is "__main__").
_MODULE = __spec__.name if __spec__ is not None else __name__
#: Exponent c of the quadrature cut: the envelope is followed down to e^{m−c}.
_CUT = (DPS + 10) * 2.31  # ln 10 ≈ 2.303: ten digits below the working precision


def shape_sigma(shape: str, k: int, sigma_max: float) -> np.ndarray:
    """Singular values of a grid input: ``"rank one"``, ``"equal"``, ``"spread"`` or ``"near ties"`` (module
    docstring)."""
    check_choice(shape, "shape", SHAPES)
    k = check_int(k, "k", minimum=1)
    if shape == "rank one":
        return np.r_[sigma_max, np.zeros(k - 1)]
    if shape == "equal":
        return np.full(k, float(sigma_max))
    if shape == "near ties":
        top = (k + 1) // 2
        return np.r_[sigma_max * (1.0 - NEAR_TIE_GAP * np.arange(top)),
                     sigma_max / 3.0 * (1.0 - NEAR_TIE_GAP * np.arange(k - top))]
    return sigma_max * ((k - np.arange(k)) / k)  # σ_max itself exact


def _series_feasible(sig: np.ndarray, k: int) -> bool:
    degree = reference.reference_degree(float(np.sum(sig)), DPS)
    return reference._count_partitions(k, degree) <= MAX_REFERENCE_PARTITIONS


def _route(sig: np.ndarray, k: int) -> str | None:
    if k <= 2 or np.count_nonzero(sig) <= 1:
        return "closed_form_mp"
    if _series_feasible(sig, k):
        return "hyp0f1_reference"
    return {3: "k3_quadrature_mp", 4: "so4_series_mp"}.get(k)


def _coset_mp(lam: list) -> tuple:
    """E(λ) = E[exp(Σλⱼqⱼ²)], q uniform on S³, by quadrature (module docstring); (value, rel. error)."""
    alpha, a = (lam[0] + lam[1]) / 2, (lam[0] - lam[1]) / 2
    beta, b = (lam[2] + lam[3]) / 2, (lam[2] - lam[3]) / 2
    top1, top0 = alpha + abs(a), beta + abs(b)
    m, h = max(top1, top0), abs(top1 - top0)

    def f(t):  # t: distance from the envelope's peak end
        r = 1 - t if top1 >= top0 else t
        return mpmath.exp(r * alpha + (1 - r) * beta) * mpmath.besseli(0, r * a) * mpmath.besseli(0, (1 - r) * b)

    cut = mpmath.mpf(1) if h <= _CUT else _CUT / h
    scale = 1 + cut * max(abs(a), abs(b), h)  # the integrand varies on t-scales ≥ 1/scale
    n_halvings = int(mpmath.ceil(mpmath.log(scale, 2))) + 1
    points = [mpmath.mpf(0)] + [cut * mpmath.mpf(2) ** -j for j in range(n_halvings, -1, -1)]
    value, err = mpmath.quad(f, points, error=True)
    tail = mpmath.exp(m - _CUT) / h if cut < 1 else 0
    return value, (err + tail) / value


def k3_quadrature_mp(sigma) -> tuple:
    """log ₀F₁(3/2; AAᵀ/4) by mpmath quadrature of the k = 3 integral, and a bound on its error.

    Parameters
    ----------
    sigma : array_like, shape (3,)
        Singular values (finite, ≥ 0).

    Returns
    -------
    value : mpmath.mpf
        log ₀F₁ at the working precision ``DPS``.
    error : mpmath.mpf
        Absolute error of ``value``: mpmath's quadrature estimate, the cut tail bound and the
        dropped coset bound (module docstring), as a relative error of ₀F₁.

    References
    ----------
    Muirhead (1982), Thm. 7.4.1 (the Haar integral); the quaternion reduction is derived in
    :mod:`symcheck.hyp0f1.closed_form`.
    """
    sig, _ = as_sigma(sigma, 3)
    if sig.ndim != 1:
        raise ValueError(f"sigma must be one row of 3 singular values, got shape {sig.shape}")
    with mpmath.workdps(DPS):
        s = [mpmath.mpf(float(v)) for v in sig]
        lam = [s[0] + s[1] + s[2], s[0] - s[1] - s[2], -s[0] + s[1] - s[2], -s[0] - s[1] + s[2]]
        big, small = (lam, [-x for x in lam]) if max(lam) >= max(-x for x in lam) else ([-x for x in lam], lam)
        e_big, rel = _coset_mp(big)
        drop = mpmath.exp(max(small)) / e_big  # E(small) ≤ e^{max(small)}
        if drop <= mpmath.mpf(10) ** (-DPS - 5):
            return mpmath.log(e_big / 2), rel + drop
        e_small, rel_small = _coset_mp(small)
        total = e_big + e_small
        return mpmath.log(total / 2), (rel * e_big + rel_small * e_small) / total


def _so4_coset_mp(lam: list) -> mpmath.mpf:
    """I(λ) = Σₙ hₙ/(4ⁿ((n+1)!)²) at the working precision, to a relative tail below 10^(−DPS−5).

    Tail: hₙ ≤ (n+1)·a_maxⁿ (:mod:`symcheck.hyp0f1.so4_series`), so with Gₙ = (λ_max/2)^{2n}/((n+1)!)²,
    Σ_{m>n} Tₘ ≤ (n+2)G_{n+1}/(1 − ρ), ρ = (n+3)/(n+2)·((λ_max/2)/(n+3))², once ρ < 1.
    """
    e = [mpmath.mpf(1)]
    for lj in lam:
        e = [(e[i] if i < len(e) else 0) - (lj * lj * e[i - 1] if i else 0) for i in range(len(e) + 1)]
    half = max(abs(x) for x in lam) / 2
    h, scale, big_g, total, n = [mpmath.mpf(1)], mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(1), 0
    limit = mpmath.mpf(10) ** (-DPS - 5)
    while True:
        n += 1
        h.append(-mpmath.fsum(e[i] * (n - mpmath.mpf(i) / 2) * h[n - i] for i in range(1, 5) if n - i >= 0) / n)
        scale /= 4 * (n + 1) ** 2
        big_g *= (half / (n + 1)) ** 2
        total += h[n] * scale
        rho = (n + 3) / mpmath.mpf(n + 2) * (half / (n + 3)) ** 2
        if rho < 1 and (n + 2) * big_g * (half / (n + 2)) ** 2 / (1 - rho) <= limit * total:
            return total


def so4_series_mp(sigma) -> mpmath.mpf:
    """log ₀F₁(2; AAᵀ/4) for k = 4 by the positive series, with the coefficient recurrence (module docstring).

    Parameters
    ----------
    sigma : array_like, shape (4,)
        Singular values (finite, ≥ 0), converted exactly from float64 (mpmath numbers are kept as
        they are, so a caller may differentiate).

    Returns
    -------
    mpmath.mpf
        log ₀F₁ at the caller's working precision (run it at DPS + 20 digits for DPS correct ones).

    References
    ----------
    The derivation is in :mod:`symcheck.hyp0f1.so4_series`.
    """
    if len(sigma) != 4:
        raise ValueError(f"sigma must be one row of 4 singular values, got {len(sigma)}")
    s = [x if isinstance(x, mpmath.mpf) else mpmath.mpf(float(x)) for x in sigma]
    rows = ((1, 1, 1, 1), (1, 1, -1, -1), (1, -1, 1, -1), (1, -1, -1, 1))
    lam_plus = [sum(c * x for c, x in zip(r, s)) for r in rows]
    flipped = s[:3] + [-s[3]]
    lam_minus = [sum(c * x for c, x in zip(r, flipped)) for r in rows]
    return mpmath.log((_so4_coset_mp(lam_plus) + _so4_coset_mp(lam_minus)) / 2)


def compute_reference(sigma, k, route: str) -> tuple[str, int]:
    """log ₀F₁(k/2; AAᵀ/4) by one high-precision route, as a decimal string and its digits.

    Parameters
    ----------
    sigma : array_like, shape (k,)
    k : int
    route : {"closed_form_mp", "hyp0f1_reference", "k3_quadrature_mp", "so4_series_mp"}
        See the module docstring (ValueError where the route does not apply).

    Returns
    -------
    value : str
        log ₀F₁ with ``DPS`` significant digits.
    digits : int
        d with |value − log ₀F₁| ≤ 10^(−d), at most ``DPS − 5``.
    """
    check_choice(route, "route", ROUTES)
    sig, k = as_sigma(sigma, k)
    with mpmath.workdps(DPS):
        if route == "closed_form_mp":
            value, digits = mpmath.log(closed_form_mp(sig, k)), MAX_DIGITS
        elif route == "hyp0f1_reference":
            value, digits = mpmath.log(reference.hyp0f1_reference(sig, k, dps=DPS)), MAX_DIGITS
        elif route == "so4_series_mp":
            if k != 4:
                raise ValueError(f"route: 'so4_series_mp' needs k = 4, got k={k}")
            with mpmath.workdps(DPS + 20):
                value = so4_series_mp(sig)
            digits = MAX_DIGITS
        else:
            if k != 3:
                raise ValueError(f"route: 'k3_quadrature_mp' needs k = 3, got k={k}")
            value, err = k3_quadrature_mp(sig)
            digits = MAX_DIGITS if err == 0 else min(MAX_DIGITS, int(mpmath.floor(-mpmath.log10(err))))
        return mpmath.nstr(value, DPS, min_fixed=-mpmath.inf, max_fixed=mpmath.inf), digits


def _banner() -> dict:
    from symcheck import __version__
    from symcheck.provenance import git_commit

    return {
        "generator": f"{_MODULE}.generate_reference_values",
        "regenerate": f"python -m {_MODULE}",
        "symcheck": __version__,
        "git commit": git_commit(),
        "mpmath": mpmath.__version__,
        "numpy": np.__version__,
        "dps": DPS,
        "generated (UTC)": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "grid": {"k": list(K_VALUES), "shapes": list(SHAPES), "sigma_max": list(SIGMA_MAX)},
        "routes": {"closed_form_mp": "k <= 2 or rank one: mpmath Bessel closed forms",
                   "hyp0f1_reference": f"PDE-system monomial series at dps={DPS} "
                                       f"(<= {MAX_REFERENCE_PARTITIONS} partitions)",
                   "k3_quadrature_mp": f"k = 3: mpmath tanh-sinh quadrature of the quaternion integral at dps={DPS}",
                   "so4_series_mp": f"k = 4: the SO(4) positive series, coefficient recurrence at dps={DPS + 20}"},
        "digits": "d with |value - log 0F1| <= 10^-d (absolute, in log 0F1)",
    }


def generate_reference_values(progress=None) -> dict:
    """Compute the whole table (a few minutes): ``{"banner": …, "entries": […]}``.

    Parameters
    ----------
    progress : callable, optional
        Called with each finished entry (the command line prints them).

    Returns
    -------
    dict
        ``banner`` (provenance, see :func:`load_reference_values`) and ``entries``: dicts with
        ``k``, ``shape``, ``sigma`` (floats), ``log_hyp0f1`` (decimal string), ``route``,
        ``digits`` and ``seconds`` (generation time of the entry).
    """
    entries = []
    for k in K_VALUES:
        for shape in SHAPES[:1] if k == 1 else SHAPES:  # k = 1: the shapes coincide
            for smax in SIGMA_MAX:
                sig = shape_sigma(shape, k, smax)
                route = _route(sig, k)
                if route is None:
                    continue
                t0 = time.perf_counter()
                value, digits = compute_reference(sig, k, route)
                entry = {"k": k, "shape": shape, "sigma": sig.tolist(), "log_hyp0f1": value, "route": route,
                         "digits": digits, "seconds": round(time.perf_counter() - t0, 3)}
                entries.append(entry)
                if progress is not None:
                    progress(entry)
    return {"banner": _banner(), "entries": entries}


def write_reference_values(path=None) -> Path:
    """Generate the table and write it as JSON (default: the packaged ``data/reference_values.json``)."""
    path = Path(path) if path is not None else Path(__file__).resolve().parent / "data" / DATA_FILE
    table = generate_reference_values(lambda e: print(f"k={e['k']:2d} {e['shape']:8s} σ_max={max(e['sigma']):<8g} "
                                                      f"{e['route']:17s} {e['seconds']:6.2f} s", flush=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    rows = ",\n".join(" " + json.dumps(e, ensure_ascii=False) for e in table["entries"])  # one entry per line
    banner = json.dumps(table["banner"], indent=1, ensure_ascii=False)
    tmp.write_text(f'{{"banner": {banner},\n"entries": [\n{rows}\n]}}\n', encoding="utf-8")
    tmp.replace(path)
    return path


@dataclass(frozen=True)
class ReferenceValue:
    """One stored reference: log ₀F₁(k/2; AAᵀ/4) at singular values ``sigma``."""

    k: int
    shape: str
    sigma: tuple
    log_hyp0f1: str
    route: str
    digits: int
    seconds: float

    @property
    def value(self) -> float:
        """The stored value rounded to float64."""
        return float(mpmath.mpf(self.log_hyp0f1))

    @property
    def sigma_max(self) -> float:
        return max(self.sigma)


@dataclass(frozen=True)
class ReferenceTable:
    """The stored table: ``banner`` (provenance dict) and ``entries`` (tuple of :class:`ReferenceValue`)."""

    banner: dict
    entries: tuple


@functools.lru_cache(maxsize=1)
def load_reference_values() -> ReferenceTable:
    """The packaged reference table (read once per process).

    Returns
    -------
    ReferenceTable
        ``banner`` names the generator, the command to regenerate, symcheck/mpmath versions,
        the git commit, dps and date; ``entries`` holds one :class:`ReferenceValue` per grid input.
    """
    text = resources.files("symcheck.hyp0f1").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    raw = json.loads(text)
    entries = tuple(ReferenceValue(**{**e, "sigma": tuple(e["sigma"])}) for e in raw["entries"])
    return ReferenceTable(banner=raw["banner"], entries=entries)


if __name__ == "__main__":
    print(f"wrote {write_reference_values(sys.argv[1] if len(sys.argv) > 1 else None)}")
