"""The formal series' rows (the spread rows of a tie and their rounding probe) run on Numba's threads: the same
numbers bit for bit as in order (formal._in_threads; one thread in the report's workers)."""

import numba
import numpy as np
import pytest

from symcheck.hyp0f1 import formal

pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two Numba threads")

ROWS = [
    (np.array([100.0] * 4 + [30.0] * 4), 8),  # exact ties: three spread rows and a probe
    (np.array([100.0, 99.99, 99.98, 99.97, 30.0, 29.997, 29.994, 29.991, 0.0, 0.0]), 10),  # near ties: six rows, a probe
    (np.array([[300.0, 200.0, 120.0, 80.0, 50.0, 0.0], [90.0, 70.0, 60.0, 45.0, 30.0, 20.0]]), 6),  # distinct
]


@pytest.fixture
def threads():
    before = numba.get_num_threads()
    yield numba.set_num_threads
    numba.set_num_threads(before)


def _both(sig, k, threads):
    out = {}
    for n in (1, 2):
        threads(n)
        out[n] = formal.log_hyp0f1_formal(np.atleast_2d(sig), k, want_grad=True)
    return out


@pytest.mark.parametrize("sig, k", ROWS)
def test_one_and_two_threads_give_the_same_numbers(sig, k, threads):
    out = _both(sig, k, threads)
    for a, b in zip(out[1], out[2]):
        assert np.array_equal(a, b)


def test_planted_rows_returned_out_of_order_are_caught(threads, monkeypatch):
    """Planted: with more than one thread, the results handed back in reverse order (a row's answer given to
    another row)."""
    real = formal._concurrently
    monkeypatch.setattr(formal, "_concurrently",
                        lambda calls: real(calls)[::-1] if numba.get_num_threads() > 1 else real(calls))
    sig, k = ROWS[0]
    out = _both(sig, k, threads)
    assert not all(np.array_equal(a, b) for a, b in zip(out[1], out[2]))
