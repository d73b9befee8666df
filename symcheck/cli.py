"""Command line: ``symcheck report`` regenerates the report under ``reports/``."""

from __future__ import annotations

import argparse
import sys

from symcheck.claims import BASE_SEED


def main(argv=None) -> int:
    """Entry point of the ``symcheck`` console script."""
    parser = argparse.ArgumentParser(prog="symcheck", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="run every claim and accuracy sweep; write reports/")
    rep.add_argument("--out", default="reports", help="output folder (default: reports)")
    rep.add_argument("--seed", type=int, default=BASE_SEED, help=f"base seed (default: {BASE_SEED})")
    rep.add_argument("--quick", action="store_true", help="small grids, for a smoke run")
    rep.add_argument("--only", nargs="*", help="render only these section modules (skips claims)")
    lst = sub.add_parser("claims", help="list the registered claims")
    lst.add_argument("--run", action="store_true", help="run them and print the status")
    args = parser.parse_args(argv)

    if args.command == "report":
        from symcheck.report import build_report

        out = build_report(args.out, seed=args.seed, quick=args.quick, claims=not args.only, only=args.only,
                           log=lambda msg: print(msg, file=sys.stderr, flush=True))
        print(f"report written to {out}/README.md")
        return 0
    from symcheck.claims import all_claims

    bad = 0
    for claim in all_claims():
        if args.run:
            r = claim.run(BASE_SEED)
            bad += r.status == "fails"
            print(f"{r.status:8s} {claim.id}  ({r.seconds:.2f}s)  {r.detail}")
        else:
            print(f"{claim.id}  [{claim.source}]  {claim.statement}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
