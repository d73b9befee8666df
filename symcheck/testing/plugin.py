"""pytest plugin: symcheck's checkers and references as fixtures in a user's test suite.

Installed with symcheck, registered under the entry point pytest11 (name "symcheck"), so a test
can ask for the fixtures without any conftest boilerplate:

    def test_my_sampler_is_haar(haar_checker):
        haar_checker(my_sampler, k=4).raise_if_failed()

    def test_my_log_bessel(hyp0f1_references):
        for ref in hyp0f1_references:
            assert abs(my_log_bessel(ref["sigma"], ref["k"]) - ref["log_hyp0f1"]) <= 1e-10 * max(1, abs(ref["log_hyp0f1"]))

| fixture | scope | what |
|---|---|---|
| symcheck_seed | session | the session's seed: --symcheck-seed N, or a fresh one, shown in the report header |
| symcheck_rng | test | numpy Generator from the session seed and the test's node id (distinct per test, reproducible) |
| haar_checker | test | check_haar_sampler with its seed drawn from symcheck_rng |
| hyp0f1_references | session | symcheck's stored high-precision log ₀F₁ table as a list of dicts |

Rerun with the seed the header printed (pytest --symcheck-seed N) to reproduce a failure. Without
the entry point (symcheck not installed, or autoloading disabled) load it with
pytest -p symcheck.testing.plugin. symcheck itself is imported only when a fixture is used.
"""

from __future__ import annotations

import functools
import secrets

import pytest

__all__ = ["haar_checker", "hyp0f1_references", "symcheck_rng", "symcheck_seed"]

_SEED_KEY = pytest.StashKey[int]()


def pytest_addoption(parser):
    group = parser.getgroup("symcheck", "symcheck checkers and references")
    group.addoption("--symcheck-seed", type=int, default=None, metavar="N",
                    help="seed of the symcheck_rng and haar_checker fixtures (default: a fresh one, "
                         "shown in the report header)")


def pytest_configure(config):
    seed = config.getoption("symcheck_seed")
    if seed is None:
        seed = secrets.randbelow(2**32)
    elif seed < 0:
        raise pytest.UsageError(f"--symcheck-seed must be a non-negative integer, got {seed}")
    config.stash[_SEED_KEY] = seed


def pytest_report_header(config):
    seed = config.stash[_SEED_KEY]
    return f"symcheck: seed {seed} (rerun with --symcheck-seed {seed} to reproduce)"


@pytest.fixture(scope="session")
def symcheck_seed(pytestconfig) -> int:
    """The session's seed (--symcheck-seed, or the fresh one printed in the report header)."""
    return pytestconfig.stash[_SEED_KEY]


@pytest.fixture
def symcheck_rng(request, symcheck_seed):
    """A numpy.random.Generator seeded by the session seed and this test's node id."""
    from symcheck.evidence import claim_rng

    return claim_rng(request.node.nodeid, symcheck_seed)


@pytest.fixture
def haar_checker(symcheck_rng):
    """symcheck.testing.check_haar_sampler with seed drawn from symcheck_rng (any other argument as usual).

    Returns the CheckResult: assert it (bool) or call its raise_if_failed() for the table and a
    reproducer in the failure message.
    """
    from symcheck.testing.haar import check_haar_sampler

    return functools.partial(check_haar_sampler, seed=int(symcheck_rng.integers(2**63)))


@pytest.fixture(scope="session")
def hyp0f1_references() -> list[dict]:
    """symcheck's stored log ₀F₁(k/2; AAᵀ/4) references (k ≤ 12; at least 30 digits), one dict per input.

    Keys: k, shape ("rank one", "equal", "spread"), sigma (float64 array of the k singular values),
    log_hyp0f1 (the value rounded to float64), digits (d with |stored − true| ≤ 10^−d), route (the
    high-precision method that produced it). See symcheck.hyp0f1.reference_data.
    """
    import numpy as np

    from symcheck.hyp0f1.reference_data import load_reference_values

    return [{"k": e.k, "shape": e.shape, "sigma": np.array(e.sigma, dtype=float), "log_hyp0f1": e.value,
             "digits": e.digits, "route": e.route} for e in load_reference_values().entries]
