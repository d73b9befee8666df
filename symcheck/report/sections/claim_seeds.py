"""Report section: every claim at 30 seeds, and the false-failure rate measured over them.

A claim is meant to hold at any seed: its tolerances are derived (truncation bounds, rounding
bounds, certified optima), and its Monte Carlo comparisons are made at a stated false-failure
rate per comparison. The claims table of this report runs each claim at one seed; this section
runs the registry at 30 seeds (`symcheck.report.claim_seeds`), so that a claim whose tolerance
holds only at the seed it was written at shows up here. The claims whose check draws no random
number (`claim_seeds.SEED_INDEPENDENT`, kept true by `tests/test_claim_seeds.py`) give the same
result at every seed, so they run once; every other claim runs at every seed (the first seed is the
report's own: its claims table's results are counted, not run again). A raised exception
counts as a failure. With no failure in n runs, the one-sided 95 % upper bound on a claim's
failure rate is 1 − 0.05^(1/n) (exact binomial; 9.5 % at n = 30), and over the whole registry
it is that bound for the pooled number of runs.
"""

from __future__ import annotations

from symcheck.report import claim_seeds

ORDER = 80
TITLE = "Every claim at 30 seeds: the measured false-failure rate"
#: Seconds of a typical sweep task (every claim at one seed: ~16 s): the report starts longer sweeps first.
TASK_SECONDS = 16.0
#: Its tasks start once the report's own claims are done: they run the same claims, and started together
#: both compiled the same Numba kernels (the first two tasks of a cold run took 34 s and 21 s against ~11 s).
AFTER_CLAIMS = True

#: Seeds per claim in the full report. Quick mode (smoke tests) runs 2 seeds of the first
#: `QUICK_CLAIMS` claims of each kind, and says so.
N_SEEDS = 30
QUICK_CLAIMS = 4


def upper_bound(failures: int, runs: int, level: float = 0.95) -> float:
    """One-sided exact (Clopper–Pearson) upper confidence bound on a binomial rate.

    Parameters
    ----------
    failures, runs : int
        Observed failures out of ``runs`` independent runs (0 ≤ failures ≤ runs, runs ≥ 1).
    level : float
        Confidence level.

    Returns
    -------
    float
        p such that P(Binomial(runs, p) ≤ failures) = 1 − level (1.0 when every run failed).
    """
    from scipy.stats import beta

    if runs < 1 or not 0 <= failures <= runs:
        raise ValueError(f"failures, runs: need 0 <= failures <= runs and runs >= 1, got {failures}, {runs}")
    if failures == runs:
        return 1.0
    return float(beta.ppf(level, failures + 1, runs - failures))


def _plan(ctx) -> tuple[list[int], list[str], list[str]]:
    """The seeds, the claims that draw random numbers and those that do not (a few of each in quick mode)."""
    seeds = list(range(ctx.seed, ctx.seed + (2 if ctx.quick else N_SEEDS)))
    dependent = claim_seeds.seed_dependent_claims()
    independent = sorted(claim_seeds.SEED_INDEPENDENT)
    if ctx.quick:
        dependent, independent = dependent[:QUICK_CLAIMS], independent[:QUICK_CLAIMS]
    return seeds, dependent, independent


def sweeps(ctx) -> list:
    """The section's cached sweep: one task per seed after the report's own, for the claims that draw (the report
    runs it in one pool with the other sections'). At the report's seed every claim has run already: `render`
    takes those results from the report's claim run."""
    seeds, dependent, _ = _plan(ctx)
    return [("claim_seeds", claim_seeds.run_seed, claim_seeds.seed_tasks(seeds[1:], dependent))]


def _at_report_seed(ctx, ids: list[str]) -> dict:
    """The claims ``ids`` at the report's seed, in `claim_seeds.run_seed`'s form: from the report's own claim run
    (ctx.results), and by a sweep for any it lacks (a re-render of this section alone over a report without
    claims)."""
    wanted = set(ids)
    own = {r.id: claim_seeds.record(r.to_json()) for r in ctx.results if r.id in wanted}
    lacking = [i for i in ids if i not in own]
    if lacking:
        job = ("claim_seeds", claim_seeds.run_seed, claim_seeds.seed_tasks([ctx.seed], lacking))
        own |= ctx.sweep(job)[0]["claims"]
    return {"seed": ctx.seed, "claims": own}


def render(ctx) -> str:
    seeds, dependent, independent = _plan(ctx)
    n_seeds = len(seeds)
    results = [_at_report_seed(ctx, dependent + independent)] + ctx.sweep(sweeps(ctx)[0])
    counts = claim_seeds.failure_counts(results)
    runs = sum(row["runs"] for row in counts.values())
    failures = sum(row["failures"] for row in counts.values())
    failing = {cid: row for cid, row in counts.items() if row["failures"]}
    seconds = sum(r["seconds"] for res in results for r in res["claims"].values() if r["seconds"] == r["seconds"])

    out = [__doc__.split("\n\n", 1)[1].strip(), ""]
    if ctx.quick:
        out.append(f"*Quick mode: {2 * QUICK_CLAIMS} claims only, not the registry.*\n")
    out.append(f"Seeds {seeds[0]}–{seeds[-1]} ({n_seeds}) for the {len(dependent)} claims that draw random numbers; "
               f"seed {ctx.seed} once for the {len(independent)} that do not. {runs} claim runs in all, "
               f"{seconds / 60:.1f} CPU minutes of checks.\n")
    out.append(ctx.cache.records["claim_seeds"].summary() + "\n")
    out.append("| | runs | failures | measured rate | 95 % upper bound |")
    out.append("|---|---|---|---|---|")
    out.append(f"| every claim, pooled | {runs} | {failures} | {failures / runs:.2%} | "
               f"{upper_bound(failures, runs):.2%} |")
    dep_runs = sum(counts[c]["runs"] for c in dependent if c in counts)
    dep_fail = sum(counts[c]["failures"] for c in dependent if c in counts)
    out.append(f"| a claim that draws, at {n_seeds} seeds (worst claim) | {n_seeds} | "
               f"{max((counts[c]['failures'] for c in dependent if c in counts), default=0)} | "
               f"{dep_fail / max(dep_runs, 1):.2%} (pooled) | {upper_bound(0, n_seeds):.2%} per claim with no failure |")
    out.append("")
    if not failing:
        out.append(f"**No claim failed at any seed.** Each claim that draws ran {n_seeds} times without a failure, "
                   f"so its false-failure rate is below {upper_bound(0, n_seeds):.1%} at 95 % confidence; "
                   f"pooled over the registry, below {upper_bound(0, runs):.2%}.")
    else:
        out.append("### Claims that failed at some seed\n")
        out.append("| claim | failures / runs | seeds | first verdict |")
        out.append("|---|---|---|---|")
        for cid, row in failing.items():
            first = next(iter(row["verdicts"].values())).replace("|", "\\|").replace("\n", " ")
            out.append(f"| `{cid}` | {row['failures']} / {row['runs']} | "
                       f"{', '.join(map(str, row['failed_seeds']))} | {first} |")
    return "\n".join(out) + "\n"
