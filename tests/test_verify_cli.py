"""`symcheck verify` end to end, as a user runs it: the installed console script, in a folder holding the
user's module. Five subprocess runs cover what only a real run can show (--help, --list, a passing
subject exit 0, a failing subject exit 1 with --json, a module that cannot be imported exit 2 with
its message); the per-kind help, usage errors and every malformed `module:function` string are
checked in-process, through the same parser (`symcheck.cli.main`) and `load_subject`."""

import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from symcheck.cli import main
from symcheck.testing.kinds import KINDS
from symcheck.testing.subject import load_subject

SCRIPT = shutil.which("symcheck")

USER_MODULE = textwrap.dedent('''
    import itertools
    import math

    import numpy as np
    from scipy.special import logsumexp

    NOT_CALLABLE = 3

    def logq_ok(X, M, c):
        from symcheck.orthogonal import orthogonal_logpdf
        return orthogonal_logpdf(X, M, c)

    def logq_printed(X, M, c):  # Moore App. A as printed: the symmetrised A instead of B = M'X/c
        from symcheck.gaussian import gaussian_logpdf
        from symcheck.orthogonal import moore_r
        return gaussian_logpdf(X, M, np.full(M.shape, c)) - moore_r(X, M, c, form="printed")

    def _unit_logs(z, mean, var, blocks):  # log q*(tau.z) for every permutation tau of the units
        logs = []
        for tau in itertools.permutations(range(len(blocks))):
            src = np.arange(mean.size)
            src[blocks] = blocks[list(tau)]
            logs.append(-0.5 * np.sum((z[:, src] - mean) ** 2 / var + np.log(2 * np.pi * var), axis=1))
        return np.stack(logs, axis=1)

    def perm_logq(z, mean, var, blocks):
        return logsumexp(_unit_logs(z, mean, var, blocks), axis=1) - math.lgamma(len(blocks) + 1)

    def perm_logq_over_n(z, mean, var, blocks):  # the mixture divided by n, not n!
        return logsumexp(_unit_logs(z, mean, var, blocks), axis=1) - math.log(len(blocks))
''')


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("user")
    (folder / "usermod.py").write_text(USER_MODULE)
    (folder / "brokenmod.py").write_text("import not_a_module_anywhere_xyz\n")
    return folder


def _run(folder, *args):
    cmd = [SCRIPT] if SCRIPT else [sys.executable, "-m", "symcheck.cli"]
    return subprocess.run([*cmd, "verify", *args], cwd=folder, capture_output=True, text=True, timeout=600)


# ----- the installed console script -----------------------------------------------------------------

def test_help_reads_as_plain_text_with_examples_and_exit_statuses(user_dir):
    done = _run(user_dir, "--help")
    assert done.returncode == 0, done.stderr
    for needle in ("module:function", "examples:", "exit status:", "symcheck verify --list", "kinds:"):
        assert needle in done.stdout
    assert "``" not in done.stdout and ":func:" not in done.stdout


def test_list_names_every_kind(user_dir):
    done = _run(user_dir, "--list")
    assert done.returncode == 0, done.stderr
    for name, kind in KINDS.items():
        assert name in done.stdout and kind.expects in done.stdout


def test_a_correct_subject_passes(user_dir):
    done = _run(user_dir, "symmetrized_kl", "usermod:logq_ok", "--group", "orthogonal", "--quantity", "log_qtilde",
                "--max-k", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "k=2" in done.stdout and "k=3" not in done.stdout


def test_a_planted_bug_fails_with_exit_1_and_json(user_dir):
    done = _run(user_dir, "symmetrized_kl", "usermod:logq_printed", "--group", "orthogonal", "--quantity",
                "log_qtilde", "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result["passed"] is False and result["kind"].startswith("symmetrized_log_qtilde")
    assert any(not row["passed"] for row in result["rows"]) and "usermod import logq_printed" in result["reproducer"]


def test_a_module_that_cannot_be_imported_exits_2_naming_why(user_dir):
    done = _run(user_dir, "symmetrized_kl", "brokenmod:f")
    assert done.returncode == 2
    assert "cannot import module 'brokenmod' (ModuleNotFoundError" in done.stderr, done.stderr


# ----- in-process: the same parser ------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_has_its_own_help(kind, capsys):
    with pytest.raises(SystemExit) as done:
        main(["verify", kind, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert "module:function" in out and "--json" in out and "``" not in out


def test_the_group_option_offers_the_orthogonal_group(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "symmetrized_kl", "--help"])
    out = capsys.readouterr().out
    assert all(flag in out for flag in ("--group", "--quantity", "--estimator", "--max-k", "--n-reference"))
    assert "orthogonal" in out and "permutation" in out


def test_the_permutation_group_from_the_command_line(user_dir, monkeypatch, capsys):
    """In-process, as `symcheck verify symmetrized_kl usermod:perm_logq --group permutation --quantity log_qtilde`."""
    monkeypatch.chdir(user_dir)
    monkeypatch.syspath_prepend(str(user_dir))
    options = ["--group", "permutation", "--quantity", "log_qtilde", "--rtol", "1e-12"]
    assert main(["verify", "symmetrized_kl", "usermod:perm_logq", *options]) == 0
    assert "PASS" in capsys.readouterr().out
    assert main(["verify", "symmetrized_kl", "usermod:perm_logq_over_n", *options]) == 1  # n = n! only for n = 2
    out = capsys.readouterr().out
    assert "FAIL" in out and "print(fn(z, mean, var, blocks))" in out


def test_a_missing_required_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main(["verify", "haar_sampler", "symcheck.haar:haar_orthogonal"])
    assert done.value.code == 2 and "--k" in capsys.readouterr().err


def test_a_bad_option_value_is_a_usage_error_naming_it(capsys):
    with pytest.raises(SystemExit) as done:
        main(["verify", "symmetrized_kl", "symcheck.signflip_exact:signflip_gap_1d", "--group", "cyclic"])
    assert done.value.code == 2 and "group" in capsys.readouterr().err


@pytest.mark.parametrize("spec, message", [
    ("usermod", "expected 'module:function'"),
    ("usermod:logq_ok:extra", "expected 'module:function'"),
    (":logq_ok", "both the module and the function name"),
    ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
    ("usermod:missing", "has no attribute 'missing'"),
    ("usermod:NOT_CALLABLE", "int is not callable"),
])
def test_bad_subject_strings_name_the_problem(user_dir, monkeypatch, spec, message):
    monkeypatch.chdir(user_dir)
    monkeypatch.syspath_prepend(str(user_dir))
    with pytest.raises(ValueError, match="subject") as err:
        load_subject(spec)
    assert message in str(err.value)


def test_load_subject_resolves_dotted_attributes():
    fn = load_subject("symcheck.testing.result:CheckResult.raise_if_failed")
    assert callable(fn) and fn.__name__ == "raise_if_failed"
