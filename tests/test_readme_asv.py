"""The README's asv command works as copied on a fresh machine (issue 17: it failed with "No information
stored about machine"). Runs the README line verbatim in a shell, with a HOME that has no asv machine file,
restricted to one fast benchmark and without saving results (the appended `--quick --dry-run --bench`).

Needs asv (the `bench` extra): skipped without it; `.ci/run` runs this file again after installing it.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _readme_asv_line() -> str:
    text = (ROOT / "README.md").read_text()
    lines = [ln for ln in text.splitlines() if ln.startswith("pip install -e \".[bench]\"") and "asv run" in ln]
    assert len(lines) == 1, "the README's Benchmarks section has one asv set-up line"
    return lines[0]


def test_readme_asv_line_records_the_machine_before_running():
    # a static check that runs without asv: the line must create the machine file before `asv run`
    line = _readme_asv_line()
    assert re.search(r"asv machine --yes\s*&&.*asv run", line)


@pytest.mark.skipif(shutil.which("asv") is None, reason="asv not installed (the bench extra)")
def test_readme_asv_line_runs_on_a_fresh_machine(tmp_path):
    line = _readme_asv_line()
    # the install step is already done in this environment; run the rest as written
    command = line.split("&&", 1)[1].strip() + " --quick --dry-run --bench 'GaussianKL.time_symcheck_kl_gaussian'"
    env = dict(os.environ, HOME=str(tmp_path))  # no ~/.asv-machine.json: a fresh machine
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "run `asv machine --yes`" not in out  # what asv says when it refuses to run
    assert "GaussianKL.time_symcheck_kl_gaussian" in out
