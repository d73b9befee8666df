"""The ``symcheck`` command line: filters, JSON, errors naming the argument, exit status, installs."""

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import symcheck.claims
import symcheck.report
from symcheck.claims import Claim, Evidence, all_claims
from symcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _usage_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"symcheck {metadata.version('symcheck')}"


@pytest.mark.parametrize("argv, message", [
    (["claims", "--paper", "mooore"], "argument --paper: unknown paper 'mooore' (choose from gelberg, hyp0f1, "),
    (["claims", "--status", "ok"], "argument --status: invalid choice: 'ok'"),
    (["claims", "--seed", "1"], "argument --seed: only with --run"),
    (["claims", "--run", "--seed", "-1"], "argument --seed: must be a non-negative integer, got '-1'"),
    (["check", "moore.eq7.yhat", "--seed", "x"], "argument --seed: must be a non-negative integer, got 'x'"),
    (["check", "moore.eq7.yht"], "argument ID: unknown claim id 'moore.eq7.yht'; did you mean moore.eq7.yhat"),
    (["report", "--only", "estimatrs"], "argument --only: invalid choice: 'estimatrs'"),
    (["report", "--only"], "argument --only: expected at least one argument"),
])
def test_bad_arguments_are_named(capsys, argv, message):
    assert message in _usage_error(capsys, argv)


def test_errata_listing_matches_the_registry(capsys):
    out = _json(capsys, ["claims", "--errata", "--json"])
    assert [r["id"] for r in out["claims"]] == [c.id for c in all_claims() if c.kind == "erratum"]
    assert all(r["printed_form"] and r["corrected_form"] for r in out["claims"])


def test_recorded_status_filter_matches_the_committed_report(capsys):
    recorded = json.loads((ROOT / "reports" / "claims.json").read_text())
    out = _json(capsys, ["claims", "--status", "erratum", "--json"])
    assert out["results"] == "recorded"
    registry = {c.id for c in all_claims()}
    assert [r["id"] for r in out["claims"]] == [r["id"] for r in recorded
                                                if r["status"] == "erratum" and r["id"] in registry]


def test_run_one_paper_at_a_seed(capsys):
    out = _json(capsys, ["claims", "--run", "--paper", "louizos", "--seed", "3", "--json"])
    expected = [c for c in all_claims() if c.id.startswith("louizos.")]
    assert out["results"] == "run" and out["seed"] == 3
    assert [r["id"] for r in out["claims"]] == [c.id for c in expected]
    assert [r["independent"] for r in out["claims"]] == [c.run(3).to_json()["independent"] for c in expected]


def test_check_shows_the_evidence(capsys):
    claim = next(c for c in all_claims() if c.id.startswith("louizos."))
    r = _json(capsys, ["check", claim.id, "--json"])
    assert r["id"] == claim.id and r["status"] == "holds" and r["verdict"].startswith("agrees within tol")
    assert main(["check", claim.id]) == 0
    text = capsys.readouterr().out
    assert text.startswith(claim.id) and "verdict:" in text and claim.statement in text


def test_a_failing_claim_fails_the_run(capsys, monkeypatch):
    bad = Claim("moore.test.bad", "test", "Fails.",
                check=lambda rng: Evidence(printed=1.0, independent=0.0, tolerance=0.1, holds=False))
    monkeypatch.setattr(symcheck.claims, "all_claims", lambda: [bad])
    assert main(["claims", "--run", "--seed", "1"]) == 1
    captured = capsys.readouterr()
    assert "fails      moore.test.bad  FAILS: value misses by 1 (10× tol)" in captured.out
    assert "1 claims run at seed 1: 1 failing (moore.test.bad)" in captured.err
    assert main(["check", "moore.test.bad"]) == 1


def test_report_only_on_an_old_report_is_refused(capsys, tmp_path):
    (tmp_path / "README.md").write_text("old\n")
    err = _usage_error(capsys, ["report", "--out", str(tmp_path), "--only", "estimators"])
    assert "argument --only: " in err and "holds a report without report.json" in err


def test_report_arguments_reach_build_report(capsys, monkeypatch, tmp_path):
    seen = {}
    monkeypatch.setattr(symcheck.report, "build_report", lambda out, **kw: seen.update(kw, out=out) or Path(out))
    assert main(["report", "--out", str(tmp_path), "--seed", "5", "--quick", "--only", "estimators",
                 "--scheduler", "tcp://127.0.0.1:8786", "--workers", "3"]) == 0
    assert seen == {"out": str(tmp_path), "seed": 5, "quick": True, "only": ["estimators"],
                    "scheduler": "tcp://127.0.0.1:8786", "workers": 3, "cache": True}
    seen.clear()
    assert main(["report", "--out", str(tmp_path), "--no-cache"]) == 0
    assert seen["cache"] is False


def test_installed_without_repository_lists_recorded_errata(tmp_path):
    """``pip install`` of a copy of the source: the errata and their verdicts, no checkout needed."""
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")
    shutil.copytree(ROOT / "symcheck", src / "symcheck", symlinks=True, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "reports/claims.json", "reports/provenance.json"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, src / name)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(src)], check=True, capture_output=True)
    shutil.rmtree(src)  # nothing left to read but the installed package
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-c", "import symcheck, symcheck.cli as c; print(symcheck.__file__); "
                          "c.main(['claims', '--errata', '--json'])"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    where, listing = run.stdout.split("\n", 1)
    assert Path(where).is_relative_to(site)
    out = json.loads(listing)
    recorded = json.loads((ROOT / "reports" / "claims.json").read_text())
    assert out["provenance"] == json.loads((ROOT / "reports" / "provenance.json").read_text())
    errata = {c.id for c in all_claims() if c.kind == "erratum"}
    assert {r["id"]: r["status"] for r in out["claims"] if r["status"]} == \
        {r["id"]: r["status"] for r in recorded if r["id"] in errata}
    prov = subprocess.run([sys.executable, "-c", "from symcheck.provenance import git_commit; "
                           "print(git_commit())"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert prov.stdout.strip() == "not a symcheck checkout"


def _help(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


def _markup(text: str) -> list[str]:
    """reST or Markdown markup that a terminal would print literally."""
    from symcheck.report.math import REST_ROLE

    return [m for m in ("``", "`", "**", ".. ", "::\n") if m in text] + REST_ROLE.findall(text)


def test_markup_detector_catches_rest():
    assert _markup("run ``symcheck report``; see :func:`symcheck.cli.main`") == ["``", "`", ":func:"]
    assert _markup("run 'symcheck report' (default: reports)") == []


@pytest.mark.parametrize("command", [[], ["report"], ["claims"], ["check"]], ids=lambda c: c[0] if c else "symcheck")
def test_help_is_plain_text_with_examples_that_parse(capsys, command):
    from symcheck.cli import _parser

    text = _help(capsys, command)
    assert _markup(text) == [], f"markup in `symcheck {' '.join(command)} --help`"
    assert "usage: symcheck" in text and "examples:" in text
    examples = [re.split(r"\s{2,}", line.strip())[0] for line in text.splitlines() if line.startswith("  symcheck ")]
    assert examples, "the epilog gives examples"
    ids = {c.id for c in all_claims()}
    for example in examples:
        args = _parser().parse_args(example.split()[1:])  # every example is a valid command line
        assert getattr(args, "id", None) in (None, *ids), f"example names an unknown claim: {example}"
