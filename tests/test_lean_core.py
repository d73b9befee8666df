"""The core installs and runs without the report's packages.

`pip install symcheck` (no extras) pulls numpy, scipy, mpmath, gmpy2, numba, llvmlite and threadpoolctl only; `import symcheck`,
`log_hyp0f1` and the claim listing must then work. Checked in a subprocess where the packages of
the `report` extra are made unimportable by a `sys.meta_path` finder installed before symcheck
is imported (as if they were not installed), and by reading pyproject.toml.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Import names of the `report` extra (and the digits data set), none of which the core may need.
REPORT_ONLY = ("jinja2", "markdown_it", "mdit_py_plugins", "latex2mathml", "tqdm", "matplotlib", "sklearn")
CORE = {"numpy", "scipy", "mpmath", "gmpy2", "numba", "llvmlite", "threadpoolctl"}

BLOCKER = f"""
import sys

BLOCKED = {REPORT_ONLY!r}


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, Blocker())
"""


def _run_blocked(code: str, check: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", BLOCKER + code], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=check, timeout=600)


def test_the_blocker_blocks():
    run = _run_blocked("import tqdm", check=False)
    assert run.returncode != 0 and "blocked by the test" in run.stderr


def test_log_hyp0f1_runs_without_the_report_packages():
    run = _run_blocked("""
import mpmath
import numpy as np
import symcheck

sigma = np.array([3.0, 1.5, 0.2])
value, error = symcheck.log_hyp0f1(sigma, 3, return_error=True)
reference = float(mpmath.log(symcheck.hyp0f1_reference(sigma, 3, dps=30)))
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(BLOCKED))
print(repr(float(value)), repr(float(error)), repr(reference), loaded)
""")
    value, error, reference, loaded = run.stdout.split(" ", 3)
    assert loaded.strip() == "[]"
    # the error figure of the series is a proven bound; the mpmath route is independent of it
    assert abs(float(value) - float(reference)) <= float(error) + 1e-13 * abs(float(reference))


def test_claims_listing_and_a_claim_run_without_the_report_packages():
    run = _run_blocked("""
import symcheck.cli as cli
cli.main(["claims", "--errata", "--json"])
""")
    listing = json.loads(run.stdout)
    assert listing["claims"] and all(r["kind"] == "erratum" for r in listing["claims"])
    # --run takes the bar-less path without tqdm
    run = _run_blocked("""
import symcheck.cli as cli
sys.exit(cli.main(["claims", "--run", "--paper", "louizos"]))
""")
    assert re.search(r"\d+ claims run at seed \d+: 0 failing", run.stderr)


def test_report_without_the_extra_names_it():
    run = _run_blocked("""
import symcheck.cli as cli
sys.exit(cli.main(["report", "--quick", "--out", "/nonexistent/never-written"]))
""", check=False)
    assert run.returncode == 1
    assert "pip install 'symcheck[report]'" in run.stderr and "jinja2" in run.stderr


def test_core_dependencies_have_no_web_stack():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]}
    assert names == CORE
    report = {re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0].lower() for dep in project["optional-dependencies"]["report"]}
    assert {"jinja2", "markdown-it-py", "mdit-py-plugins", "latex2mathml", "tqdm", "matplotlib"} <= report


def test_mpmath_runs_on_gmp():
    """gmpy2 is a core dependency for speed alone: mpmath must actually pick it up (MPMATH_NOGMPY unset)."""
    run = subprocess.run([sys.executable, "-c", "import mpmath; print(mpmath.libmp.BACKEND)"], capture_output=True,
                         text=True, check=True, env={k: v for k, v in os.environ.items() if k != "MPMATH_NOGMPY"})
    assert run.stdout.strip() == "gmpy"
