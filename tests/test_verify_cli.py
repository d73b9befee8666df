"""`symcheck verify` end to end, as a user runs it: the installed console script, in a folder holding the
user's module, with good and planted-bad subjects and malformed `module:function` strings."""

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from symcheck.testing.kinds import KINDS
from symcheck.testing.subject import load_subject

SCRIPT = shutil.which("symcheck")

USER_MODULE = textwrap.dedent('''
    import numpy as np

    NOT_CALLABLE = 3

    def haar_ok(rng, n, k):
        q, r = np.linalg.qr(rng.standard_normal((n, k, k)))
        return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]

    def haar_no_sign_fix(rng, n, k):
        q, _ = np.linalg.qr(rng.standard_normal((n, k, k)))
        return q

    def log_0f1_series(sigma, k):
        import symcheck
        return symcheck.log_hyp0f1(np.asarray(sigma, float), k, method="series", rtol=1e-15, max_degree=400)

    def log_0f1_printed_eq7(sigma, k):
        import symcheck
        return symcheck.log_hyp0f1(np.asarray(sigma, float), k, method="laplace", variant="printed")

    def kl_ok(m0, S0, m1, S1):
        import symcheck
        return symcheck.kl_gaussian(m0, S0, m1, S1)

    def kl_swapped(m0, S0, m1, S1):
        import symcheck
        return symcheck.kl_gaussian(m1, S1, m0, S0)
''')

BROKEN_MODULE = "import not_a_module_anywhere_xyz\n"


def _run(tmp_path, *args):
    (tmp_path / "usermod.py").write_text(USER_MODULE)
    (tmp_path / "brokenmod.py").write_text(BROKEN_MODULE)
    cmd = [SCRIPT] if SCRIPT else [sys.executable, "-m", "symcheck.cli"]
    return subprocess.run([*cmd, "verify", *args], cwd=tmp_path, capture_output=True, text=True, timeout=600)


def test_list_names_every_kind(tmp_path):
    done = _run(tmp_path, "--list")
    assert done.returncode == 0, done.stderr
    for name, kind in KINDS.items():
        assert name in done.stdout and kind.expects in done.stdout


def test_help_reads_as_plain_text_with_examples_and_exit_statuses(tmp_path):
    done = _run(tmp_path, "--help")
    assert done.returncode == 0
    for needle in ("module:function", "examples:", "exit status:", "symcheck verify --list", "kinds:"):
        assert needle in done.stdout
    assert "``" not in done.stdout and ":func:" not in done.stdout


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_has_its_own_help(tmp_path, kind):
    done = _run(tmp_path, kind, "--help")
    assert done.returncode == 0, done.stderr
    assert "module:function" in done.stdout and "--json" in done.stdout


def test_a_correct_sampler_passes_and_a_planted_bug_fails(tmp_path):
    ok = _run(tmp_path, "haar_sampler", "usermod:haar_ok", "--k", "4", "--seed", "3", "--alpha", "1e-6")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS" in ok.stdout
    bad = _run(tmp_path, "haar_sampler", "usermod:haar_no_sign_fix", "--k", "4", "--seed", "3")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "FAIL" in bad.stdout and "reproducer" in bad.stdout


def test_json_output_parses_and_carries_the_verdict(tmp_path):
    done = _run(tmp_path, "haar_sampler", "usermod:haar_no_sign_fix", "--k", "3", "--seed", "1", "--json")
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["passed"] is False and result["kind"] == "haar_sampler"
    assert any(not row["passed"] for row in result["rows"])


def test_log_hyp0f1_kind_end_to_end(tmp_path):
    ok = _run(tmp_path, "log_hyp0f1", "usermod:log_0f1_series", "--rtol", "1e-8", "--max-k", "4",
              "--max-sigma", "1")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _run(tmp_path, "log_hyp0f1", "usermod:log_0f1_printed_eq7", "--rtol", "1e-8", "--max-k", "4",
               "--max-sigma", "1")
    assert bad.returncode == 1, bad.stdout + bad.stderr


def test_kl_gaussian_kind_end_to_end(tmp_path):
    assert _run(tmp_path, "kl_gaussian", "usermod:kl_ok").returncode == 0
    assert _run(tmp_path, "kl_gaussian", "usermod:kl_swapped").returncode == 1


@pytest.mark.parametrize("spec, message", [
    ("usermod", "expected 'module:function'"),
    ("usermod:haar_ok:extra", "expected 'module:function'"),
    (":haar_ok", "both the module and the function name"),
    ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ("brokenmod:f", "cannot import module 'brokenmod' (ModuleNotFoundError"),
    ("usermod:missing", "has no attribute 'missing'"),
    ("usermod:NOT_CALLABLE", "int is not callable"),
])
def test_bad_subject_strings_exit_2_naming_the_problem(tmp_path, spec, message):
    done = _run(tmp_path, "haar_sampler", spec, "--k", "3")
    assert done.returncode == 2
    assert message in done.stderr, done.stderr


def test_a_missing_required_option_is_a_usage_error(tmp_path):
    done = _run(tmp_path, "haar_sampler", "usermod:haar_ok")
    assert done.returncode == 2 and "--k" in done.stderr


def test_load_subject_resolves_dotted_attributes():
    fn = load_subject("symcheck.testing.result:CheckResult.raise_if_failed")
    assert callable(fn) and fn.__name__ == "raise_if_failed"
