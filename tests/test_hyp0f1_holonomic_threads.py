"""The holonomic method's independent rays run on Numba's threads: the same numbers, the same budget outcome.

With one thread (the report's workers, ``symcheck.sweep.one_thread``) the rays of a row run in order, each
allowed what the ones before left of the row's step budget; with t > 1 they run t at a time, each allowed
what the earlier groups left, and the in-order condition is checked after each group. These tests compare the two bit for bit
and at the edge of the budget: the least budget a row succeeds with in order must succeed at once too,
and one step less must fail both ways.
"""

import numba
import numpy as np
import pytest

from symcheck.hyp0f1 import holonomic

pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two Numba threads")

ROWS = [
    (np.array([10.0, 7.0, 4.0, 2.5, 1.5]), 5),  # spread: one checked ray (finer ∥ coarser run)
    (np.array([12.0, 12.0, 12.0, 4.0, 4.0, 4.0]), 6),  # exact ties: 2 × 5 Richardson rays
    (np.array([30.0, 29.99, 12.0, 3.0]), 6),  # a near tie: plus and minus rays per node
]


@pytest.fixture
def threads():
    """Run a block with n Numba threads, restoring the count afterwards."""
    before = numba.get_num_threads()

    def use(n):
        numba.set_num_threads(n)

    yield use
    numba.set_num_threads(before)


@pytest.mark.parametrize("sig, k", ROWS)
def test_one_and_two_threads_give_the_same_numbers(sig, k, threads):
    out = {}
    for n in (1, 2):
        threads(n)
        out[n] = holonomic._evaluate(sig[None], k, 1e-13, None, holonomic.STEP_WORK, want_grad=True)
    for a, b in zip(out[1], out[2]):
        assert np.array_equal(a, b)


def _least_budget(done):
    """The least step budget with which rays with these results succeed in order."""
    least, used = 0, 0
    for ray in done:
        least = max(least, used + ray[5])
        used += ray[2]
    return least


def _node_rays(sig):
    runs = holonomic._clusters(sig)
    c, g0, _ = holonomic._spread_direction(sig, runs)
    return [sig + n * g0 * c for n in range(1, holonomic.RICHARDSON + 1)]


@pytest.mark.parametrize("rays, k", [([ROWS[0][0]], 5), (_node_rays(ROWS[1][0]), 6)])
def test_budget_edge_is_the_same_in_order_and_at_once(rays, k, threads):
    threads(1)
    done, _ = holonomic._checked_rays(rays, k, 1e-13, 10**9)
    least = _least_budget(done)
    assert least > 0
    for n in (1, 2):
        threads(n)
        again, _ = holonomic._checked_rays(rays, k, 1e-13, least)
        assert all(np.array_equal(a[1], b[1]) and a[0] == b[0] for a, b in zip(done, again))
        with pytest.raises(holonomic.StepBudgetExceeded, match="max_steps"):
            holonomic._checked_rays(rays, k, 1e-13, least - 1)


def test_planted_budget_check_left_out_fails(threads, monkeypatch):
    """Without the check after a group of concurrent rays, one step less than the least budget succeeds at
    once (each of the two rays alone fits what the group was allowed) while it fails in order: the check is
    what keeps them equal."""
    rays = _node_rays(ROWS[1][0])[:2]  # one group of two on two threads
    threads(1)
    done, _ = holonomic._checked_rays(rays, 6, 1e-13, 10**9)
    least = _least_budget(done)
    threads(2)
    real = holonomic._concurrently
    monkeypatch.setattr(holonomic, "_concurrently",
                        lambda calls: [tuple(r[:5]) + (0,) for r in real(calls)])  # every ray reports it needs 0
    holonomic._checked_rays(rays, 6, 1e-13, least - 1)  # no RuntimeError: the outcome differs from in order
    monkeypatch.undo()
    with pytest.raises(holonomic.StepBudgetExceeded, match="max_steps"):
        holonomic._checked_rays(rays, 6, 1e-13, least - 1)
