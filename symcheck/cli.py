"""Command line of symcheck: ``symcheck report``, ``symcheck claims``, ``symcheck check ID``, ``symcheck verify KIND``.

The texts of ``--help`` are plain terminal text (no reST or Markdown markup): the program
description, one description per command, and an epilog of examples and exit statuses.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import inspect
import json
import os
import pkgutil
import sys
from importlib import metadata

from symcheck.evidence import BASE_SEED

STATUSES = ("holds", "erratum", "fails")

DESCRIPTION = """\
Check the mathematics of symmetrized variational inference: every equation, bound and
estimator of the papers is a claim, tested against an independent route (closed form,
quadrature, enumeration, higher precision). Printed formulas that fail are errata, each
with its corrected form and the evidence."""

EXIT_STATUS = """\
exit status:
  0  every claim run holds (or reproduces its erratum); verify: the subject passes
  1  a claim fails (verify: the subject fails), or 'symcheck report' lacks the report extra
     (pip install 'symcheck[report]')
  2  bad arguments"""

EPILOG = f"""\
examples:
  symcheck claims --errata                  the errata with their recorded verdicts
  symcheck claims --paper moore --status holds --json
  symcheck claims --run --seed 7            run every claim at another seed
  symcheck check moore.eq7.yhat             run one claim and show its evidence
  symcheck report --quick --out /tmp/rep    a smoke report (the full one writes reports/)
  symcheck verify log_hyp0f1 mylib:log_bessel   check your own implementation

{EXIT_STATUS}

Run 'symcheck COMMAND --help' for the options of one command."""

REPORT_DESCRIPTION = """\
Run every claim and every report section (accuracy sweeps, experiments, figures) and write
the report: index.html (errata first, one page per paper and per section), README.md, and
JSON of every result. The report is written to a staging folder and moved into place only
when complete, so an interrupted run leaves the previous report as it was. Expensive sweeps
are cached in OUT/cache and reused while their code and parameters are unchanged."""

REPORT_EPILOG = """\
examples:
  symcheck report                           the full report into reports/
  symcheck report --quick --out /tmp/rep    small grids, a smoke run
  symcheck report --only estimators         re-render one section, keep the rest
  symcheck report --workers 2 --no-cache    recompute every sweep on 2 processes"""

CLAIMS_DESCRIPTION = """\
List the claims with the results recorded in the shipped report (status and a one-line
verdict), or run them with --run. Filters combine."""

CLAIMS_EPILOG = f"""\
examples:
  symcheck claims                           every claim with its recorded verdict
  symcheck claims --errata                  the errata: printed and corrected forms
  symcheck claims --paper gelberg --status holds
  symcheck claims --run --seed 7 --json     run every claim at seed 7, print JSON

{EXIT_STATUS}"""

CHECK_DESCRIPTION = """\
Run one claim and show its evidence: the printed (or fast) value, the corrected value, the
independent route, the tolerance, the evidence in words, and the seconds it took."""

CHECK_EPILOG = f"""\
examples:
  symcheck check moore.eq7.yhat
  symcheck check gelberg.eq11.radius --seed 3 --json

{EXIT_STATUS}"""


VERIFY_DESCRIPTION = """\
Check YOUR implementation against symcheck's references: a log 0F1 of matrix argument, its
gradient, a Haar sampler on O(k), a Gaussian KL or a symmetrized KL. The subject is given as
module:function; the module is imported from the current directory first, then from sys.path.
The command prints an evidence table by region (or by statistical test): errors against
high-precision references with the tolerance that decides, or statistics with their p-values
under a designed false-failure rate, and a reproducer for the worst failure."""

VERIFY_EPILOG = f"""\
examples:
  symcheck verify --list                              the kinds and what each expects
  symcheck verify log_hyp0f1 mylib.bessel:log_bessel --rtol 1e-8
  symcheck verify log_hyp0f1 mylib:log_0f1_of_matrix --signature matrix --json
  symcheck verify haar_sampler mylib.haar:sample --k 5
  symcheck verify kl_gaussian mylib.kl:kl --json
  symcheck verify KIND --help                         the options of one kind

exit status:
  0  the subject passes every row of the check
  1  a row fails (the table names it, with a reproducer)
  2  bad arguments, or a module:function that cannot be imported"""


def _seed(text: str) -> int:
    """argparse type of ``--seed``: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def _workers(text: str) -> int:
    """argparse type of ``--workers``: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _section_names() -> list[str]:
    from symcheck.report import sections

    return sorted(info.name for info in pkgutil.iter_modules(sections.__path__))


def _version() -> str:
    try:
        return metadata.version("symcheck")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog="symcheck", description=DESCRIPTION, epilog=EPILOG, formatter_class=raw)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(title="commands", dest="command", required=True, metavar="COMMAND")

    rep = sub.add_parser("report", help="run every claim and section; write the report (HTML, Markdown, JSON)",
                         description=REPORT_DESCRIPTION, epilog=REPORT_EPILOG, formatter_class=raw)
    rep.add_argument("--out", default="reports", help="output folder (default: reports)")
    rep.add_argument("--seed", type=_seed, default=BASE_SEED, help=f"base seed (default: {BASE_SEED})")
    rep.add_argument("--quick", action="store_true", help="small grids, for a smoke run")
    rep.add_argument("--only", nargs="+", metavar="SECTION", choices=_section_names(),
                     help="re-render only these sections, keeping the claims and other sections of the report "
                          f"in --out (sections: {', '.join(_section_names())})")
    rep.add_argument("--scheduler", metavar="ADDRESS",
                     help="run the sections' sweeps on this Dask distributed scheduler (e.g. tcp://host:8786; needs "
                          "the 'dask' extra) instead of a local process pool; results are the same bit for bit")
    rep.add_argument("--workers", type=_workers, metavar="N",
                     help="size of the local process pool of the sweeps (default: the number of CPUs; 1: serial)")
    rep.add_argument("--no-cache", action="store_true",
                     help="compute every fit anew and store none (default: reuse the results in OUT/cache whose "
                          "code and parameters are unchanged)")
    rep.set_defaults(func=_cmd_report, parser=rep)

    lst = sub.add_parser("claims", help="list the claims with their recorded results, or run them (--run)",
                         description=CLAIMS_DESCRIPTION, epilog=CLAIMS_EPILOG, formatter_class=raw)
    lst.add_argument("--run", action="store_true", help="run the selected claims instead of showing recorded results")
    lst.add_argument("--seed", type=_seed, help=f"base seed of --run (default: {BASE_SEED})")
    lst.add_argument("--errata", action="store_true", help="only the errata (printed formula wrong, corrected right)")
    lst.add_argument("--paper", help="only the claims of one paper: the id prefix (moore, gelberg, turner, ...)")
    lst.add_argument("--status", choices=STATUSES, help="only claims with this status")
    lst.add_argument("--json", action="store_true", help="print JSON")
    lst.set_defaults(func=_cmd_claims, parser=lst)

    chk = sub.add_parser("check", help="run one claim and show its evidence",
                         description=CHECK_DESCRIPTION, epilog=CHECK_EPILOG, formatter_class=raw)
    chk.add_argument("id", metavar="ID", help="claim id, e.g. moore.eq7.yhat")
    chk.add_argument("--seed", type=_seed, default=BASE_SEED, help=f"base seed (default: {BASE_SEED})")
    chk.add_argument("--json", action="store_true", help="print JSON")
    chk.set_defaults(func=_cmd_check, parser=chk)

    ver = sub.add_parser("verify", help="check your own implementation (log 0F1, Haar sampler, KL) against symcheck",
                         description=VERIFY_DESCRIPTION, epilog=VERIFY_EPILOG, formatter_class=raw)
    ver.add_argument("--list", action="store_true", help="list the kinds and what each expects")
    ver.set_defaults(func=_cmd_verify, parser=ver, kind=None)
    kinds = ver.add_subparsers(title="kinds", dest="kind", metavar="KIND")
    _add_verify_kinds(kinds, raw)
    return parser


def _add_verify_kinds(kinds, raw) -> None:
    """One sub-command per kind of :mod:`symcheck.testing.kinds`, with the options its checker takes."""
    from symcheck.testing.kinds import KINDS, OPTIONS, checker_options

    for kind in KINDS.values():
        p = kinds.add_parser(kind.name, help=kind.expects, description=f"Subject: {kind.expects}.",
                             formatter_class=raw)
        p.add_argument("subject", metavar="module:function", help="the function to check, e.g. mylib.bessel:f")
        for name, param in checker_options(kind).items():
            kind_of, text = OPTIONS[name]
            default = "" if param.default is inspect.Parameter.empty else f" (default: {param.default})"
            flag = "--" + name.replace("_", "-")
            if kind_of == "flag":
                p.add_argument(flag, dest=name, action="store_true", default=None, help=text)
            else:
                required = param.default is inspect.Parameter.empty
                p.add_argument(flag, dest=name, type=kind_of, default=None, required=required,
                               help=text + (" (required)" if required else default))
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.set_defaults(func=_cmd_verify, parser=p, kind_spec=kind)


def _cmd_report(args, parser) -> int:
    from symcheck.report import build_report, check_only, require_report_extra

    try:
        require_report_extra()
    except ImportError as err:
        print(f"symcheck report: {err}", file=sys.stderr)
        return 1
    try:
        check_only(args.out, args.only)
    except ValueError as err:
        parser.error(f"argument --{err}")
    out = build_report(args.out, seed=args.seed, quick=args.quick, only=args.only, scheduler=args.scheduler,
                       workers=args.workers, cache=not args.no_cache)
    print(f"report written to {out}/index.html (and README.md)")
    return 0


def _with_verdict(result: dict) -> dict:
    from symcheck.report.verdict import verdict

    return dict(result, verdict=verdict(result))


def _describe(claim) -> dict:
    """A claim without a result: what the registry says."""
    return {"id": claim.id, "source": claim.source, "statement": claim.statement, "kind": claim.kind,
            "status": None, "printed_form": claim.printed_form, "corrected_form": claim.corrected_form}


class _NoProgress:
    """Stand-in for tqdm's bar where tqdm (the ``report`` extra) is not installed: no bar, same calls."""

    def __init__(self, items, **kwargs):
        self.items = items

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        return iter(self.items)

    def set_postfix_str(self, text, refresh=True):
        pass

    @staticmethod
    def write(text, file=None):
        print(text, file=file)


def _run(claims, seed: int, show) -> dict[str, dict]:
    """Run ``claims`` with a progress bar (count, ETA), ``show(result, bar)`` after each.

    The bar is tqdm's (the ``report`` extra); without tqdm the claims run with no bar.
    """
    try:
        from tqdm.auto import tqdm
    except ImportError:
        tqdm = _NoProgress

    results = {}
    with tqdm(claims, desc="claims", unit="claim", leave=False, file=sys.stderr, disable=None) as bar:  # tty only
        for claim in bar:
            bar.set_postfix_str(claim.id, refresh=False)
            results[claim.id] = _with_verdict(claim.run(seed).to_json())
            show(results[claim.id], bar)
    return results


def _line(r: dict, width: int = 0) -> str:
    if r["status"] is None:
        return f"{'unrecorded':10s} {r['id']:{width}s}  [{r['source']}]  {r['statement']}"
    return f"{r['status']:10s} {r['id']:{width}s}  {r['verdict']}"


def _block(r: dict) -> str:
    lines = [f"{r['id']}  [{r['source']}]", f"  {r['statement']}"]
    if r["printed_form"]:
        lines += [f"  printed:   {r['printed_form']}", f"  corrected: {r['corrected_form']}"]
    lines.append(f"  {r['status'] or 'unrecorded'}: {r.get('verdict', 'no recorded result: add --run')}")
    return "\n".join(lines)


def _cmd_claims(args, parser) -> int:
    from symcheck.claims import all_claims
    from symcheck.report.papers import paper_of
    from symcheck.report.recorded import recorded_results

    if args.seed is not None and not args.run:
        parser.error("argument --seed: only with --run (recorded results have their own seed)")
    claims = all_claims()
    papers = sorted({paper_of(c.id) for c in claims})
    if args.paper is not None and args.paper not in papers:
        parser.error(f"argument --paper: unknown paper {args.paper!r} (choose from {', '.join(papers)})")
    claims = [c for c in claims if (not args.errata or c.kind == "erratum")
              and (args.paper is None or paper_of(c.id) == args.paper)]
    text = _block if args.errata else functools.partial(_line, width=max((len(c.id) for c in claims), default=0))

    if args.run:
        seed = BASE_SEED if args.seed is None else args.seed

        def show(r, bar):
            if not args.json and (args.status is None or r["status"] == args.status):
                bar.write(text(r), file=sys.stdout)

        results, origin = _run(claims, seed, show), {"results": "run", "seed": seed}
    else:
        recorded, prov = recorded_results()
        if args.status is not None and not recorded:
            parser.error("argument --status: this installation ships no recorded results; add --run")
        results = {c.id: _with_verdict(recorded[c.id]) for c in claims if c.id in recorded}
        origin = {"results": "recorded", "provenance": prov}
    rows = [results.get(c.id, _describe(c)) for c in claims]
    if args.status is not None:
        rows = [r for r in rows if r["status"] == args.status]
    if args.json:
        print(json.dumps(dict(origin, claims=rows), indent=1, ensure_ascii=False))
    elif not args.run:
        if origin["provenance"]:
            print(f"# recorded by the report of {origin['provenance']['generated (UTC)']} UTC at commit "
                  f"{origin['provenance']['git commit']}, seed {origin['provenance']['seed']}; "
                  "`symcheck claims --run` recomputes them")
        print(("\n\n" if args.errata else "\n").join(text(r) for r in rows))
    failed = [r["id"] for r in results.values() if r["status"] == "fails"]
    if args.run:
        print(f"{len(results)} claims run at seed {seed}: {len(failed)} failing"
              + (f" ({', '.join(failed)})" if failed else ""), file=sys.stderr)
    return 1 if args.run and failed else 0


def _cmd_check(args, parser) -> int:
    from symcheck.claims import all_claims

    claims = {c.id: c for c in all_claims()}
    if args.id not in claims:
        close = difflib.get_close_matches(args.id, claims, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `symcheck claims` lists them"
        parser.error(f"argument ID: unknown claim id {args.id!r}{hint}")
    r = _with_verdict(claims[args.id].run(args.seed).to_json())
    if args.json:
        print(json.dumps(r, indent=1, ensure_ascii=False))
    else:
        rows = [("status", r["status"]), ("verdict", r["verdict"]), ("source", r["source"]),
                ("statement", r["statement"])]
        if r["printed_form"]:
            rows += [("printed form", r["printed_form"]), ("corrected form", r["corrected_form"])]
        rows += [("printed / fast value" if r["kind"] == "erratum" else "value", r["printed"]),
                 ("corrected value", r["corrected"]), ("independent", r["independent"]),
                 ("tolerance", r["tolerance"]), ("evidence", r["detail"]),
                 ("run", f"seed {args.seed}, {r['seconds']:.2f} s")]
        print(r["id"])
        print("\n".join(f"  {k + ':':22s}{v}" for k, v in rows if v is not None))
    return 1 if r["status"] == "fails" else 0


def _cmd_verify(args, parser) -> int:
    from symcheck.testing.kinds import KINDS, checker_options
    from symcheck.testing.subject import load_subject

    if args.list or args.kind is None:
        if not args.list:
            parser.error("a KIND is needed (symcheck verify --list names them)")
        width = max(map(len, KINDS))
        for kind in KINDS.values():
            print(f"{kind.name.ljust(width)}  {kind.expects}")
        return 0
    try:
        subject = load_subject(args.subject)
    except ValueError as err:
        parser.error(f"argument module:function: {err}")
    options = {name: getattr(args, name) for name in checker_options(args.kind_spec)
               if getattr(args, name, None) is not None}
    try:
        result = args.kind_spec.checker(subject, **options)
    except ValueError as err:  # a checker refuses an option value, naming it
        parser.error(str(err))
    print(result.dumps() if args.json else result.table())
    return 0 if result.passed else 1


def main(argv=None) -> int:
    """Entry point of the ``symcheck`` console script; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args, args.parser)  # the subcommand's parser: its errors name the subcommand
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
