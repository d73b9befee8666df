"""The pytest plugin symcheck.testing.plugin, run on a user's test file as pytest runs it.

The in-process runs load the plugin by module name and block the entry-point name, so they test
the same code before and after the package is reinstalled with its pytest11 entry point; one
subprocess run loads it through pyproject's entry point, from a dist-info as pip would write it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

LOAD = ("-p", "no:symcheck", "-p", "symcheck.testing.plugin", "-p", "no:cacheprovider")

USER_TESTS = '''
import numpy as np


def correct(rng, n, k):
    q, r = np.linalg.qr(rng.standard_normal((n, k, k)))
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]


def test_rng_is_a_generator(symcheck_rng, symcheck_seed):
    assert isinstance(symcheck_rng, np.random.Generator)
    print("SEED", symcheck_seed, "DRAW", symcheck_rng.integers(2**62))


def test_haar(haar_checker):
    haar_checker(correct, 3, alpha=1e-5).raise_if_failed()


def test_references(hyp0f1_references):
    assert len(hyp0f1_references) > 100
    ref = hyp0f1_references[0]
    assert set(ref) == {"k", "shape", "sigma", "log_hyp0f1", "digits", "route"}
    assert ref["sigma"].shape == (ref["k"],) and ref["digits"] >= 10
'''


def _draws(result) -> list[str]:
    return [line.split("DRAW", 1)[1].strip() for line in result.outlines if "DRAW" in line]


def test_a_user_suite_gets_the_fixtures_and_the_seed_header(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest(*LOAD, "--symcheck-seed", "123", "-s")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["symcheck: seed 123 (rerun with --symcheck-seed 123 to reproduce)"])
    again = pytester.runpytest(*LOAD, "--symcheck-seed", "123", "-s")
    assert _draws(again) == _draws(result) and len(_draws(result)) == 1
    other = pytester.runpytest(*LOAD, "--symcheck-seed", "124", "-s")
    assert _draws(other) != _draws(result)


def test_the_printed_fresh_seed_reproduces_the_run(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    first = pytester.runpytest(*LOAD, "-s", "-k", "rng")
    header = [line for line in first.outlines if line.startswith("symcheck: seed ")]
    assert len(header) == 1
    seed = header[0].split()[2]
    again = pytester.runpytest(*LOAD, "-s", "-k", "rng", "--symcheck-seed", seed)
    assert _draws(again) == _draws(first)


def test_a_failing_sampler_shows_the_table_and_a_reproducer(pytester):
    pytester.makepyfile(test_bad="""
import numpy as np


def test_no_sign_fix(haar_checker):
    haar_checker(lambda rng, n, k: np.linalg.qr(rng.standard_normal((n, k, k)))[0], 4).raise_if_failed()
""")
    result = pytester.runpytest(*LOAD)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*haar_sampler of *fails*", "*determinant*", "*reproducer:*",
                                 "*check_haar_sampler(sample, k=4, n=2000*"])


def test_a_negative_seed_is_a_usage_error(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest(*LOAD, "--symcheck-seed", "-3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--symcheck-seed must be a non-negative integer*"])


def _declared_entry_points() -> dict:
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return data["project"]["entry-points"]["pytest11"]


def test_the_entry_point_is_declared():
    assert _declared_entry_points() == {"symcheck": "symcheck.testing.plugin"}


def test_the_declared_entry_point_loads_the_plugin_without_any_option(tmp_path):
    """As after pip install: a dist-info carrying pyproject's pytest11 entry point, a user's file, plain pytest."""
    info = tmp_path / "site" / "symcheck_entry_point_probe-0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: symcheck-entry-point-probe\nVersion: 0.0\n")
    (info / "entry_points.txt").write_text(
        "[pytest11]\n" + "".join(f"{k} = {v}\n" for k, v in _declared_entry_points().items()))
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), str(ROOT)]))
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--symcheck-seed", "5",
                          "test_user.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "symcheck: seed 5 (rerun with --symcheck-seed 5 to reproduce)" in run.stdout
    assert "3 passed" in run.stdout


def test_the_plugin_does_not_import_symcheck_until_a_fixture_is_used():
    """Loading the plugin (in every pytest session once installed) must stay cheap."""
    source = (ROOT / "symcheck" / "testing" / "plugin.py").read_text(encoding="utf-8")
    top_level = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert all("symcheck" not in line and "numpy" not in line for line in top_level), top_level
