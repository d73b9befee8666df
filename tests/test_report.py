"""The report machinery: files, errata first, verdicts, --only, atomic writes, provenance.

Claims and sections here are small stand-ins with known evidence, so every expected verdict
and page content follows from numbers the test itself chose.
"""

import json
import re
import shutil
import subprocess
import types
from pathlib import Path

import pytest

from symcheck.claims import Claim, Evidence
from symcheck.report import build_report, load_sections, section_name
from symcheck.report.math import formula, inline_math, is_latex, markdown_html
from symcheck.report.papers import group_by_paper
from symcheck.provenance import git_commit
from symcheck.report.verdict import verdict

PRINTED = r"\hat y = \frac{2\sigma}{k+1}"
CORRECTED = r"\hat y = \frac{2\sigma}{k(1+1)}"


def _claims():
    return [
        Claim("moore.eq9.test-erratum", "Moore (2016), eq. (9)", "The test erratum.", kind="erratum",
              printed_form=PRINTED, corrected_form=CORRECTED,
              check=lambda rng: Evidence(printed=1.5, corrected=1.0005, independent=1.0, tolerance=0.01, holds=True,
                                         detail="printed 1.5, corrected 1.0005, independent 1.0")),
        Claim("moore.eq8.test-verify", "Moore (2016), eq. (8)", "A verified claim.",
              check=lambda rng: Evidence(printed=2.0, independent=2.0 + 1e-12, tolerance=1e-10, holds=True,
                                         detail="agrees")),
        Claim("louizos.eq1.test-verify", "Louizos & Welling, eq. (1)", "Another paper.",
              check=lambda rng: Evidence(printed=0.0, independent=0.0, tolerance=1e-15, holds=True, detail="exact")),
    ]


def _section(name, order, text, png=None, fail=False):
    """A section module: writes ``<name>.json`` (and a plot if ``png``), returns ``text``."""

    def render(ctx):
        ctx.write_json(name, {"text": text})
        if fail:
            raise RuntimeError("interrupted")
        lines = [text]
        if png:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1])
            lines.append(f"![plot]({ctx.save_figure(fig, png)})")
        return "\n\n".join(lines)

    mod = types.ModuleType(f"symcheck.report.sections.{name}")
    mod.ORDER, mod.TITLE, mod.render = order, f"Title of {name}", render
    return mod


def _snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture
def report(tmp_path):
    out = tmp_path / "rep"
    build_report(out, claims=_claims(), sections=[_section("alpha", 1, "alpha v1 $x^2$", png="alpha_plot"),
                                                  _section("beta", 2, "beta v1")], progress=False)
    return out


def test_report_files(report):
    names = set(p.name for p in report.iterdir())
    assert {"index.html", "README.md", "claims.json", "provenance.json", "report.json", "report.css",
            "paper-moore.html", "paper-louizos.html", "section-alpha.html", "section-beta.html",
            "alpha.json", "beta.json", "alpha_plot.png"} == names
    manifest = json.loads((report / "report.json").read_text())
    assert sorted(manifest["files"]) == sorted(names)
    assert [s["files"] for s in manifest["sections"]] == [["alpha.json", "alpha_plot.png"], ["beta.json"]]
    assert [r["id"] for r in json.loads((report / "claims.json").read_text())] == [c.id for c in _claims()]


def test_markdown_errata_first_with_math_and_short_verdict(report):
    md = (report / "README.md").read_text()
    headings = re.findall(r"^## (.+)$", md, flags=re.M)
    assert headings[:3] == ["Errata", "Failing claims", "Claims by paper"]
    row = next(line for line in md.splitlines() if line.startswith("| moore.eq9.test-erratum"))
    assert f"${PRINTED}$" in row and f"${CORRECTED}$" in row
    assert "printed misses by 0.5 (50× tol); corrected within tol (0.05× tol)" in row
    assert "- `moore.eq9.test-erratum`: printed 1.5, corrected 1.0005, independent 1.0" in md
    assert "alpha v1 $x^2$" in md and md.index("## Title of alpha") < md.index("## Title of beta")


def test_html_pages(report):
    index = (report / "index.html").read_text()
    assert index.index('id="errata"') < index.index('id="papers"') < index.index('id="sections"')
    assert "<math" in index and "\\frac" not in index
    assert '<details class="evidence">' in index and "printed misses by 0.5 (50× tol)" in index
    moore = (report / "paper-moore.html").read_text()
    assert 'id="moore.eq9.test-erratum"' in moore and 'id="moore.eq8.test-verify"' in moore
    assert "louizos.eq1" not in moore
    alpha = (report / "section-alpha.html").read_text()
    assert re.search(r'<img src="alpha_plot.png" alt="plot"', alpha) and "<msup>" in alpha


def test_unknown_section_is_refused_and_nothing_written(report):
    before = _snapshot(report)
    with pytest.raises(ValueError, match=r"only: unknown section\(s\) alpah; known sections: alpha, beta"):
        build_report(report, only=["alpah"], sections=[_section("alpha", 1, "x"), _section("beta", 2, "y")],
                     progress=False)
    with pytest.raises(ValueError, match="only: give at least one section name"):
        build_report(report, only=[], sections=[_section("alpha", 1, "x")], progress=False)
    assert _snapshot(report) == before


def test_only_refuses_to_overwrite_a_report_it_cannot_keep(tmp_path):
    (tmp_path / "README.md").write_text("# a report from an older symcheck\n")
    with pytest.raises(ValueError, match="only: .* holds a report without report.json"):
        build_report(tmp_path, only=["alpha"], sections=[_section("alpha", 1, "x")], progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["README.md"]


def test_interrupted_run_leaves_previous_report(report):
    (report / "notes.txt").write_text("not the report's")
    before = _snapshot(report)
    with pytest.raises(RuntimeError, match="interrupted"):
        build_report(report, claims=_claims()[:1], sections=[_section("alpha", 1, "alpha v2"),
                                                             _section("beta", 2, "beta v2", fail=True)],
                     progress=False)
    assert _snapshot(report) == before
    assert not [p for p in report.iterdir() if p.name.startswith(".staging-")]


def test_only_rerenders_named_sections_and_keeps_the_rest(report):
    claims_before = (report / "claims.json").read_bytes()
    plot_before = (report / "alpha_plot.png").read_bytes()
    build_report(report, only=["beta"], claims=[], sections=[_section("alpha", 1, "alpha v2"),
                                                             _section("beta", 2, "beta v2")], progress=False)
    md = (report / "README.md").read_text()
    assert "alpha v1" in md and "alpha v2" not in md and "beta v2" in md
    assert (report / "claims.json").read_bytes() == claims_before
    assert (report / "alpha_plot.png").read_bytes() == plot_before
    assert json.loads((report / "beta.json").read_text()) == {"text": "beta v2"}
    assert "moore.eq9.test-erratum" in (report / "index.html").read_text()


def test_files_of_the_previous_report_are_dropped_others_kept(report):
    (report / "notes.txt").write_text("not the report's")
    build_report(report, claims=_claims(), sections=[_section("alpha", 1, "alpha v2")], progress=False)
    names = {p.name for p in report.iterdir()}
    assert "alpha_plot.png" not in names and "beta.json" not in names and "section-beta.html" not in names
    assert (report / "notes.txt").read_text() == "not the report's"


def test_failing_claim_is_listed_and_flagged(tmp_path):
    bad = Claim("turner.eq1.test-bad", "Turner, eq. (1)", "Fails.",
                check=lambda rng: Evidence(printed=3.0, independent=1.0, tolerance=0.5, holds=False, detail="off"))
    out = build_report(tmp_path / "r", claims=[bad], sections=[], progress=False)
    md = (out / "README.md").read_text()
    assert "1 claims: 0 errata, 0 verified, 1 failing" in md
    assert "| turner.eq1.test-bad | Turner, eq. (1) | Fails. | FAILS: value misses by 2 (4× tol) |" in md


def test_negative_seed_is_refused(tmp_path):
    with pytest.raises(ValueError, match="seed: must be a non-negative integer, got -3"):
        build_report(tmp_path, seed=-3, claims=[], sections=[], progress=False)


@pytest.mark.parametrize("evidence, status, kind, expected", [
    (dict(printed=2.0, corrected=1.0, independent=1.0, tolerance=0.1), "erratum", "erratum",
     "printed misses by 1 (10× tol); corrected within tol (0× tol)"),
    (dict(printed="-inf", corrected=1.0, independent=1.0, tolerance=0.1), "erratum", "erratum",
     "printed form gives -inf; corrected within tol (0× tol)"),
    (dict(printed=7.9, corrected=16.5, independent=8.9, tolerance=1e-14), "erratum", "erratum",
     "printed fails, corrected holds; not |diff| ≤ tol at the reported case (printed 7.9, corrected 16.5, "
     "independent 8.9): see evidence"),
    (dict(printed=1.0, corrected=None, independent=1.05, tolerance=0.1), "holds", "verify",
     "agrees within tol (|diff| = 0.05, 0.5× tol)"),
    (dict(printed=1.0, corrected=None, independent=2.0, tolerance=0.25), "fails", "verify",
     "FAILS: value misses by 1 (4× tol)"),
    (dict(printed=1.0, corrected=3.0, independent=1.0, tolerance=0.25), "fails", "erratum",
     "FAILS: printed form agrees (printed misses by 0 (0× tol); corrected 8× tol)"),
    # one-sided (bound_from_rows: params side/strict) and compound (all_of: params parts) checks
    (dict(printed=0.5, independent=1.0, tolerance=0.1, params={"side": "upper", "strict": False}), "holds", "verify",
     "value 0.5 ≤ bound 1 (margin 0.5, 5× tol)"),
    (dict(printed=1.05, independent=1.0, tolerance=0.1, params={"side": "upper", "strict": False}), "holds",
     "verify", "value 1.05 ≤ bound 1 within tol (over by 0.05, 0.5× tol)"),
    (dict(printed=2.0, independent=1.0, tolerance=0.1, params={"side": "lower", "strict": True}), "holds", "verify",
     "value 2 > bound 1 by 1 (10× tol)"),
    (dict(printed=2.0, independent=1.0, tolerance=0.1, params={"side": "upper", "strict": False}), "fails", "verify",
     "FAILS: value 2 beyond bound 1 by 1 (10× tol)"),
    (dict(printed=0.95, independent=1.0, tolerance=0.0, params={"side": "lower", "strict": True}), "fails", "verify",
     "FAILS: value 0.95 not > bound 1 (0.05 on the wrong side)"),
    (dict(printed=1.05, independent=1.0, tolerance=0.1, params={"side": "lower", "strict": True}), "fails", "verify",
     "FAILS: value 1.05 not > bound 1 by more than tol (margin 0.05, 0.5× tol)"),
    (dict(printed=1.5, corrected=0.5, independent=1.0, tolerance=0.1,
          params={"parts": [{"side": "lower", "strict": True}, {"side": "upper", "strict": False}]}), "erratum",
     "erratum", "printed 1.5 > bound 1 by 0.5 (5× tol); corrected 0.5; 2 conditions in all (each holds: see evidence)"),
    # an erratum of a printed statement: the compound check's first condition is an equality that holds
    (dict(printed=0.25, corrected=0.25, independent=0.2501, tolerance=1e-3,
          params={"parts": [{"cases": ["a", "b"]}, {"side": "lower", "strict": True}]}), "erratum", "erratum",
     "the printed statement is contradicted by 2 conditions that hold; the first agrees within tol "
     "(|diff| = 0.0001, 0.1× tol; each holds: see evidence)"),
])
def test_verdict_is_derived_from_the_numbers(evidence, status, kind, expected):
    assert verdict(dict(evidence, status=status, kind=kind)) == expected


def test_math_rendering():
    assert is_latex(r"\frac{a}{b}") and not is_latex("prose about a figure") and not is_latex(r"see $\alpha$")
    assert str(formula(r"\frac{a}{b}")).startswith("<math") and "<mfrac>" in str(formula(r"\frac{a}{b}"))
    mixed = str(formula(r"x < 1 & $\alpha$"))
    assert mixed.startswith("x &lt; 1 &amp; <math") and "\\alpha" not in mixed
    assert str(inline_math("<b>")) == "&lt;b&gt;"
    assert str(inline_math("costs $5 and $6, or \\$x$")) == "costs $5 and $6, or \\$x$"  # dollars, not math
    # a starred symbol is not emphasis (CommonMark, as GitHub renders README.md); emphasis still is
    starred = str(markdown_html("KL[q*‖q̃] (terms log q*(z*) − log q̃(z*)) and H(q*)"))
    assert "<em>" not in starred and starred.count("*") == 5
    assert "<em>Control variate</em>" in str(markdown_html("*Control variate* (CV)"))


def test_papers_grouped_in_paper_order_unknown_last():
    rs = [{"id": "zeta.x"}, {"id": "louizos.a"}, {"id": "moore.b"}, {"id": "moore.a"}]
    assert list(group_by_paper(rs)) == ["moore", "louizos", "zeta"]


def test_sections_are_named_and_ordered():
    mods = load_sections()
    assert [m.ORDER for m in mods] == sorted(m.ORDER for m in mods)
    assert {"hyp0f1_accuracy", "moore_orthogonal_kl", "estimators"} <= {section_name(m) for m in mods}


def _git(cwd, *args) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_provenance_ignores_an_unrelated_enclosing_repository(tmp_path):
    src = Path(__file__).resolve().parents[1] / "symcheck" / "provenance.py"
    # an installed copy inside some other project's repository, which does not track it
    other = tmp_path / "other"
    site = other / ".venv" / "site-packages" / "symcheck"
    site.mkdir(parents=True)
    shutil.copy(src, site / "provenance.py")
    (other / "app.py").write_text("")
    _git(other, "init", "-q")
    _git(other, "add", "app.py")
    _git(other, "commit", "-q", "-m", "x")
    assert git_commit(site) == "not a symcheck checkout"
    # a checkout that does track it: its commit is recorded
    repo = tmp_path / "repo"
    (repo / "symcheck").mkdir(parents=True)
    shutil.copy(src, repo / "symcheck" / "provenance.py")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    sha = _git(repo, "rev-parse", "HEAD")
    assert git_commit(repo / "symcheck") == sha
    (repo / "symcheck" / "provenance.py").write_text("# changed\n")
    assert git_commit(repo / "symcheck") == sha + "-dirty"
    # not in any repository
    alone = tmp_path / "alone"
    alone.mkdir()
    assert git_commit(alone) == "not a symcheck checkout"


def _thread_probe(record, name, timed=False):
    """A section that records the BLAS and Numba thread counts it renders with."""

    def render(ctx):
        import numba
        from threadpoolctl import threadpool_info

        record[name] = [max(info["num_threads"] for info in threadpool_info()), numba.get_num_threads()]
        return name

    mod = types.ModuleType(f"symcheck.report.sections.{name}")
    mod.ORDER, mod.TITLE, mod.render, mod.TIMED = 1, name, render, timed
    return mod


def _threads_seen(tmp_path):
    import numpy as np

    record = {}

    def check(rng):
        _thread_probe(record, "claim").render(None)
        return Evidence(printed=1.0, independent=1.0, tolerance=0.1, holds=True, detail="probe")

    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS loaded before the report starts
    claims = [Claim("moore.eq8.thread-probe", "Moore (2016), eq. (8)", "Probe.", check=check)]
    build_report(tmp_path / "rep", claims=claims, sections=[_thread_probe(record, "plain"),
                                                            _thread_probe(record, "timed", timed=True)],
                 progress=False)
    return record


def test_claims_and_plain_sections_run_on_one_thread_timed_ones_on_all(tmp_path, monkeypatch):
    """Beside the sweeps' pool, the claims and plain sections use one BLAS and one Numba thread; a timed
    section measures with the defaults. Planted: without the limit, the claims see the defaults (on a
    machine with two or more CPUs)."""
    import contextlib
    import os

    import symcheck.report as report_pkg

    seen = _threads_seen(tmp_path)
    assert seen["claim"] == [1, 1] and seen["plain"] == [1, 1]
    if (os.cpu_count() or 1) >= 2:
        assert seen["timed"] != [1, 1]
        monkeypatch.setattr(report_pkg, "one_thread", contextlib.nullcontext)
        assert _threads_seen(tmp_path / "planted")["claim"] != [1, 1]


def _cpu_recorded(tmp_path, monkeypatch, planted=False):
    """A report whose one section runs a child process that spins for 0.5 s of CPU; the CPU seconds it records."""
    import sys
    import time

    import symcheck.report as report_pkg

    def render(ctx):
        subprocess.run([sys.executable, "-c", "import time\nt = time.process_time()\n"
                        "while time.process_time() - t < 0.5: pass"], check=True)
        return "spun"

    mod = types.ModuleType("symcheck.report.sections.spin")
    mod.ORDER, mod.TITLE, mod.render = 1, "spin", render
    if planted:  # this process's CPU only: the child's is missed
        monkeypatch.setattr(report_pkg, "_cpu_seconds", time.process_time)
    build_report(tmp_path / "rep", claims=[], sections=[mod], progress=False)
    return float(json.loads((tmp_path / "rep" / "report.json").read_text())["provenance"]["CPU seconds"])


def test_provenance_counts_the_cpu_of_child_processes(tmp_path, monkeypatch):
    """The provenance's CPU seconds include a child's 0.5 s of spinning (the pool's workers are children);
    planted: counting this process alone misses it."""
    counted = _cpu_recorded(tmp_path, monkeypatch)
    assert counted >= 0.5
    assert _cpu_recorded(tmp_path / "planted", monkeypatch, planted=True) <= counted - 0.4


def _start_time(args, rng):
    """A sweep task returning the wall-clock time it started."""
    import time

    return time.time()


def _sweep_starts(tmp_path):
    """A report whose one claim takes 0.5 s, beside two sweeping sections, one marked AFTER_CLAIMS; when each
    section's task started and when the claim ended."""
    import time

    from symcheck.sweep import seeded_tasks

    record = {}

    def check(rng):
        time.sleep(0.5)
        record["claims end"] = time.time()
        return Evidence(printed=1.0, independent=1.0, tolerance=0.1, holds=True, detail="probe")

    def section(name, after):
        mod = types.ModuleType(f"symcheck.report.sections.{name}")
        mod.ORDER, mod.TITLE, mod.AFTER_CLAIMS = 1, name, after
        mod.sweeps = lambda ctx: [(name, _start_time, seeded_tasks([0], 1))]

        def render(ctx):
            record[name] = ctx.sweep(mod.sweeps(ctx)[0])[0]
            return name

        mod.render = render
        return mod

    claims = [Claim("moore.eq8.order-probe", "Moore (2016), eq. (8)", "Probe.", check=check)]
    build_report(tmp_path / "rep", claims=claims, sections=[section("held", True), section("free", False)],
                 progress=False, workers=1, cache=False)
    return record


def test_after_claims_sweeps_start_once_the_claims_are_done(tmp_path, monkeypatch):
    """A section marked AFTER_CLAIMS (the claims at other seeds, which compile the claims' kernels) starts its tasks
    after the report's claims end; another section's start during them. Planted: the hold dropped."""
    from symcheck.report.cache import ResultCache

    seen = _sweep_starts(tmp_path)
    assert seen["held"] >= seen["claims end"] > seen["free"]
    compute = ResultCache.compute
    monkeypatch.setattr(ResultCache, "compute", lambda self, todo, hold=None, **kw: compute(self, todo, **kw))
    seen = _sweep_starts(tmp_path / "planted")
    assert seen["held"] < seen["claims end"]
