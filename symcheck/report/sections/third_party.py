"""Report section: other people's implementations, verified with `symcheck.testing`.

Each subject below is real code a user of these methods would otherwise trust: SciPy's Haar
samplers, the textbook QR sampler that forgets the sign fix, JAX's `jax.random.orthogonal` (when
JAX is installed), Moore's Listing 1 `log_bessel` (its NumPy transcription in
`symcheck.models.moore`), the Laplace variants of eq. (7), and `pyhypergeomatrix` (GPL; only when
installed, never imported by the package). Each is run through the same checker a user runs with
`symcheck verify` (README, *Verify your own implementation*); the verdict is the checker's, with
the evidence table by region or by statistical test and, for a subject that fails, the
reproducer a maintainer could paste into their issue tracker. A subject that is not installed
is listed as such, not judged.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import warnings

import numpy as np

ORDER = 15
TITLE = "Third-party implementations, verified"

#: Seed of every statistical check here (recorded in each criterion and reproducer).
SEED = 20261125


# ----- subjects: each a callable in the signature its checker documents -----------------------------

def scipy_ortho_group(rng, n, k):
    """`scipy.stats.ortho_group.rvs` (Haar O(k), Stewart's / Mezzadri's construction)."""
    from scipy.stats import ortho_group

    return ortho_group.rvs(dim=k, size=n, random_state=rng).reshape(n, k, k)


def scipy_special_ortho_group(rng, n, k):
    """`scipy.stats.special_ortho_group.rvs` (Haar SO(k))."""
    from scipy.stats import special_ortho_group

    return special_ortho_group.rvs(dim=k, size=n, random_state=rng).reshape(n, k, k)


def numpy_qr_without_sign_fix(rng, n, k):
    """Q of the QR factorisation of a Gaussian matrix, as `numpy.linalg.qr` returns it: the classic
    mistake (Mezzadri 2007): without Q·diag(sign Rᵢᵢ) the law of Q is not Haar."""
    q, _ = np.linalg.qr(rng.standard_normal((n, k, k)))
    return q


def jax_random_orthogonal(rng, n, k):
    """`jax.random.orthogonal` (Haar O(k) per its documentation), keyed from the checker's rng."""
    import jax

    key = jax.random.PRNGKey(int(rng.integers(2**31)))
    return np.asarray(jax.random.orthogonal(key, k, shape=(n,)))


def moore_listing1(sigma, k):
    """Moore (2016) Listing 1 `log_bessel(svcs, n)`, the NumPy transcription in `symcheck.models.moore`."""
    from symcheck.models.moore import listing1_log_bessel

    return listing1_log_bessel(np.asarray(sigma, float)[None], k)[0]


def moore_eq7_printed(sigma, k):
    """Moore (2016) eq. (7) exactly as printed (ŷ with "+1" outside the root)."""
    from symcheck.models.moore import eq7_printed

    return eq7_printed(np.asarray(sigma, float)[None], k)[0]


def laplace_pairs_once(sigma, k):
    """The Laplace approximation with the pair product over i ≤ j counted once (the corrected eq. (7))."""
    import symcheck

    return symcheck.log_hyp0f1(np.asarray(sigma, float), k, method="laplace", variant="pairs-once")


def pyhypergeomatrix_degree12(sigma, k):
    """`pyhypergeomatrix.hypergeomPQ(12, [], [k/2], σ²/4)`: Koev–Edelman's series to degree 12 (GPL peer).

    Degree 12, not more: the package is pure Python, and its cost grows fast with the degree and k
    (measured: degree 20 takes 1.9 s per value at k = 3 and 5.3 s at k = 4; degree 30, 23 s at k = 3).
    """
    from pyhypergeomatrix.hypergeomat import hypergeomPQ

    return math.log(hypergeomPQ(12, [], [k / 2], list(np.asarray(sigma, float) ** 2 / 4)))


#: (name, log ₀F₁ subject, the accuracy claimed for it (rtol of max(1, |log F|)), module it needs,
#: the stored references it is run on). The Laplace forms are approximations: they are held to two
#: digits of F (rtol 1e-2), and the table shows where even that fails; a series is held to 1e-10,
#: pyhypergeomatrix on k ≤ 4 and σ ≤ 30 only (its cost; the table shows where degree 12 truncates).
HYP0F1_SUBJECTS = [
    ("Moore Listing 1 `log_bessel` (NumPy)", moore_listing1, 1e-2, None, {}),
    ("Moore eq. (7) as printed", moore_eq7_printed, 1e-2, None, {}),
    ("Laplace, pair product once (corrected eq. (7))", laplace_pairs_once, 1e-2, None, {}),
    ("pyhypergeomatrix, degree 12", pyhypergeomatrix_degree12, 1e-10, "pyhypergeomatrix",
     {"max_k": 4, "max_sigma": 30.0}),
]


def numpy_inv_det_kl(m0, S0, m1, S1):
    """The KL as commonly transcribed: inverse and determinants, ½(tr(S1⁻¹S0) + δᵀS1⁻¹δ − d + log(|S1|/|S0|))."""
    iS1 = np.linalg.inv(S1)
    d = m1 - m0
    return 0.5 * (np.trace(iS1 @ S0) + d @ iS1 @ d - len(m0) + np.log(np.linalg.det(S1) / np.linalg.det(S0)))


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


#: (name, sampler, checker options, the module it needs or None).
HAAR_SUBJECTS = [
    ("scipy.stats.ortho_group", scipy_ortho_group, {"special": False}, "scipy"),
    ("scipy.stats.special_ortho_group", scipy_special_ortho_group, {"special": True}, "scipy"),
    ("NumPy QR without the sign fix", numpy_qr_without_sign_fix, {"special": False}, None),
    ("jax.random.orthogonal", jax_random_orthogonal, {"special": False}, "jax"),
]
HAAR_K = (3, 10)


def _block(title: str, result, subject) -> list[str]:
    """One subject's verdict, evidence table and, when it fails, its source and the reproducer."""
    lines = [f"#### {title}: {'passes' if result.passed else 'FAILS'}", "", f"Criterion: {result.criterion}", ""]
    lines += [result.markdown()]
    if result.reproducer:
        lines += ["", "The subject, as checked:", "", "```python", inspect.getsource(subject).rstrip(), "```",
                  "", "Reproducer:", "", "```python", result.reproducer.rstrip(), "```"]
    return lines + [""]


def _haar_results(quick: bool) -> list[tuple]:
    from symcheck.testing.haar import check_haar_sampler

    out = []
    for name, fn, opts, needs in HAAR_SUBJECTS:
        for k in HAAR_K[:1] if quick else HAAR_K:
            if needs is not None and not _installed(needs):
                out.append((name, k, None, fn))
                continue
            out.append((name, k, check_haar_sampler(fn, k, seed=SEED, subject=name, **opts), fn))
    return out


def _other_results(quick: bool) -> list[tuple]:
    """(name, kind, claim, result or None, subject) of the log ₀F₁ and KL subjects."""
    from symcheck.testing import check_kl_gaussian, check_log_hyp0f1

    limits = {"max_k": 4, "max_sigma": 30.0} if quick else {}
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the subjects' own overflow/log(0) warnings
        for name, fn, rtol, needs, own_limits in HYP0F1_SUBJECTS:
            result = None if needs and not _installed(needs) else check_log_hyp0f1(
                fn, rtol=rtol, subject=name, **{**own_limits, **limits})
            out.append((name, "log_hyp0f1", f"rtol {rtol:g}", result, fn))
        out.append(("NumPy inv/det KL", "kl_gaussian", "float64 floor", check_kl_gaussian(
            numpy_inv_det_kl, seed=SEED % 2**31, subject="NumPy inv/det KL"), numpy_inv_det_kl))
    return out


def render(ctx) -> str:
    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    entries = [(name, "haar_sampler", f"k = {k}", r, fn) for name, k, r, fn in _haar_results(ctx.quick)]
    entries += _other_results(ctx.quick)
    summary = [{"subject": name, "kind": kind, "checked": claim,
                "verdict": "not installed" if r is None else ("passes" if r.passed else "fails"),
                "failing": [] if r is None else [row.name for row in r.failures]}
               for name, kind, claim, r, _ in entries]
    ctx.write_json("third_party", {"seed": SEED, "summary": summary,
                                   "results": [r.to_json() for *_, r, _ in entries if r is not None]})
    lines += ["| subject | kind | checked | verdict | failing rows |", "|---|---|---|---|---|"]
    for s in summary:
        failing = s["failing"]
        shown = "; ".join(failing[:4]) + (f"; and {len(failing) - 4} more" if len(failing) > 4 else "")
        lines.append(f"| {s['subject']} | {s['kind']} | {s['checked']} | {s['verdict']} | {shown or '—'} |")
    lines.append("")
    for name, kind, claim, r, fn in entries:
        if r is not None:
            lines += _block(f"{name} ({kind}, {claim})", r, fn)
    return "\n".join(lines)
