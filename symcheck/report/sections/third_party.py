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


def render(ctx) -> str:
    lines = [__doc__.split("\n\n", 1)[1].strip(), ""]
    haar = _haar_results(ctx.quick)
    summary = [{"subject": name, "kind": "haar_sampler", "k": k,
                "verdict": "not installed" if r is None else ("passes" if r.passed else "fails"),
                "failing": [] if r is None else [row.name for row in r.failures]} for name, k, r, _ in haar]
    ctx.write_json("third_party", {"seed": SEED, "summary": summary,
                                   "results": [r.to_json() for _, _, r, _ in haar if r is not None]})
    lines += ["| subject | kind | k | verdict | failing rows |", "|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {s['subject']} | {s['kind']} | {s['k']} | {s['verdict']} | "
                     f"{', '.join(s['failing']) or '—'} |")
    lines.append("")
    for name, k, r, fn in haar:
        if r is not None:
            lines += _block(f"{name}, k = {k}", r, fn)
    return "\n".join(lines)
