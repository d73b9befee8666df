"""Every claim at many seeds: the measured false-failure rate of the claim registry.

A claim is meant to hold at any seed (its tolerances are derived, Monte Carlo ones at a stated
false-failure rate α per comparison). This module runs the whole registry at a list of base
seeds, one task per seed, and counts per claim the seeds where it fails (or raises), so the
report can state the measured rate beside the one the tolerances promise.

One task (`run_seed`) is one `symcheck claims --run --seed N`: about 90 s alone on
one core of the report machine. Tasks go through `symcheck.sweep.run_sweep` (a process
pool, or a Dask cluster) or the report's result cache (`symcheck.report.cache.ResultCache.sweep`
with `seed_tasks`, whose arguments carry `claims_code_version`: the registry finds
its claim modules at run time, so the cache's code walk alone would not see them).
"""

from __future__ import annotations

import hashlib
import traceback
from pathlib import Path
from typing import Iterable, Sequence

import symcheck.claims as registry
from symcheck._checks import check_int
from symcheck.report.verdict import verdict
from symcheck.sweep import Task, run_sweep, seeded_tasks

__all__ = ["SEED_INDEPENDENT", "claims_code_version", "failure_counts", "record", "run_claims_at_seeds", "run_seed",
           "seed_dependent_claims", "seed_tasks"]

#: Claims whose check never draws from its generator (measured: the generator's state and spawn count are
#: unchanged after the check; `tests/test_claim_seeds.py` keeps this true): their result is the same at every
#: seed, so one run tells their failure rate. A new claim counts as seed-dependent unless it is added here.
SEED_INDEPENDENT = frozenset([
    "gelberg.eq11.radius", "gelberg.eq17.mi-definition", "gelberg.fig3.interpolation-inflates-variance",
    "gelberg.fig3.stuck-above-threshold", "gelberg.fig4.mfvi-interpolates", "gelberg.sec3.mode-seeking-threshold",
    "gelberg.sec5.grid-ground-truth", "gelberg.table2.sgm-test-mse", "gelberg.table3.symmetrized-elbo",
    "gelberg.thm43.bias-law", "gelberg.thm43.monotone-in-K", "gelberg.thm43.upper-bound",
    "hyp0f1.asymptotic.error-rate", "hyp0f1.asymptotic.exact-agreement", "hyp0f1.asymptotic.hankel-k2",
    "hyp0f1.exact.rank-one-quadrature", "hyp0f1.series.reference-o3-quadrature", "hyp0f1.series.trace-moments", "moore.eq5.bound",
    "moore.eq7.exact-at-zero", "moore.eq7.pair-product", "moore.eq7.yhat", "moore.fig2.ring",
    "moore.fig3.predictive-mean", "moore.fn1.symmetry-counting", "turner.eq10.ar1-pair", "turner.eq15.binary-joint",
    "turner.eq17.fixed-point", "turner.eq18.symmetry-breaking", "turner.eq4.two-axis-covariance",
    "turner.eq48.limit-large-w2", "turner.eq48.limit-small-noise", "turner.eq53.ica-unit-variance",
    "turner.eq55.ica-kurtosis", "turner.eq7.ar1-stationary-variance", "turner.eq71.ica-dgamma",
    "turner.fig2.lds-free-energy-biases", "turner.fig3.theta2-bias-towards-orthogonal",
    "turner.fig3.zero-temperature-theta2", "turner.fig4.theta2-bias-vs-angle",
    "turner.fig5.zero-temperature-bias-map", "turner.fig6.w2-bias-towards-zero",
    "turner.fig6.zero-temperature-w2-diverges", "turner.fig7.w2-bias-vs-noise-and-angle",
    "turner.fig9.ica-free-energy-peaks-at-zero-sparseness", "turner.sec2.1.ar1-as-two-axis",
    "turner.sec2.2.breaking-threshold", "turner.sec32.kl-grows-as-noise-shrinks",
    "turner.sec32.theta2-bias-vs-noise",
])
#: Top-level parts of the package no claim imports (`claims_code_version` leaves them out).
OUTSIDE_CLAIMS = frozenset({"report", "testing", "cli.py"})
#: Statuses that pass; a claim can also end "fails" or, in `run_seed`, "error" (its check raised).
OK = ("holds", "erratum")


def seed_dependent_claims() -> list[str]:
    """Ids of the registered claims that draw random numbers (all but `SEED_INDEPENDENT`), sorted."""
    return [c.id for c in registry.all_claims() if c.id not in SEED_INDEPENDENT]


def claims_code_version(root: Path | None = None) -> str:
    """SHA-256 over the source of every module the claims can reach: the `symcheck` package without
    `OUTSIDE_CLAIMS` (path and bytes, in path order).

    The registry imports its claim modules by name at run time, so the cache's code walk from
    `run_seed` does not reach them, and walking from each of the 140 checks costs minutes
    (`symcheck.report.codekey.code_key` is not shared between calls). The claims between them reach
    nearly every kernel, so a task carrying this digest is rerun by any change to a module a claim
    could import: conservative, never stale (`tests/test_architecture.py` keeps the claims from
    importing the report, the checkers of `symcheck.testing` and the command line; the cache's own
    key of `run_seed` covers this module and `verdict`). `root` (default: the installed package's
    folder) is the folder hashed.
    """
    root = Path(registry.__file__).resolve().parents[1] if root is None else Path(root)
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in OUTSIDE_CLAIMS:
            continue
        digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\n")
    return digest.hexdigest()


def record(result: dict) -> dict:
    """What the sweep keeps of one claim result (its ``ClaimResult.to_json()``): status, seconds, verdict."""
    return {"status": result["status"], "seconds": result["seconds"], "verdict": verdict(result)}


def run_seed(args: dict, rng=None) -> dict:
    """Run every claim (or `args["ids"]`) at base seed `args["seed"]`; JSON-ready results.

    Parameters
    ----------
    args : dict
        `{"seed": int, "ids": list of claim ids or None, "code": str}` (`code` is only part of
        the cache key; see `seed_tasks`).
    rng : ignored
        Present for the sweep signature `fn(args, rng)`: each claim draws from its own generator,
        `claim_rng(claim id, seed)`.

    Returns
    -------
    dict
        `{"seed": seed, "claims": {id: {"status", "seconds", "verdict"}}}`; `status` is
        `"error"` with the exception as verdict when a check raised.
    """
    seed = check_int(args["seed"], "seed", minimum=0)
    ids = args.get("ids")
    claims = registry.all_claims() if ids is None else [registry.get_claim(i) for i in ids]
    out = {}
    for claim in claims:
        try:
            out[claim.id] = record(claim.run(seed).to_json())
        except Exception as err:  # noqa: BLE001 — a raising check is a failure at this seed, recorded
            last = traceback.extract_tb(err.__traceback__)[-1]
            out[claim.id] = {"status": "error", "seconds": float("nan"),
                             "verdict": f"{type(err).__name__}: {err} ({last.filename}:{last.lineno})"}
    return {"seed": seed, "claims": out}


def seed_tasks(seeds: Iterable[int], ids: Sequence[str] | None = None) -> list[Task]:
    """Sweep tasks for `run_seed`, one per seed, keyed by `claims_code_version`."""
    code = claims_code_version()
    args = [{"seed": check_int(s, "seeds", minimum=0), "ids": None if ids is None else list(ids), "code": code}
            for s in seeds]
    return seeded_tasks(args, 0)


def failure_counts(results: Sequence[dict]) -> dict:
    """Per claim: the seeds run and the seeds where it failed or raised.

    Parameters
    ----------
    results : sequence of dict
        Outputs of `run_seed`.

    Returns
    -------
    dict
        `{id: {"runs": int, "failures": int, "failed_seeds": [...], "verdicts": {seed: verdict}}}`,
        ids sorted.
    """
    table: dict = {}
    for res in results:
        for cid, r in res["claims"].items():
            row = table.setdefault(cid, {"runs": 0, "failures": 0, "failed_seeds": [], "verdicts": {}})
            row["runs"] += 1
            if r["status"] not in OK:
                row["failures"] += 1
                row["failed_seeds"].append(res["seed"])
                row["verdicts"][str(res["seed"])] = f"{r['status']}: {r['verdict']}"
    return dict(sorted(table.items()))


def run_claims_at_seeds(seeds: Iterable[int], ids: Sequence[str] | None = None, *,
                        processes: int | None = None, scheduler: str | None = None) -> dict:
    """Run the claims at every seed in `seeds` and count failures per claim (`failure_counts`).

    `processes` / `scheduler` as in `symcheck.sweep.run_sweep` (one task per seed).
    """
    results = run_sweep(run_seed, seed_tasks(seeds, ids), processes=processes, scheduler=scheduler)
    return failure_counts(results)
