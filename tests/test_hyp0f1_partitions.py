"""symcheck.hyp0f1.partitions against brute force and the partition numbers p(n) (OEIS A000041)."""

from __future__ import annotations

import pytest

from symcheck.hyp0f1.partitions import partitions

#: p(0) … p(12), OEIS A000041.
PARTITION_NUMBERS = [1, 1, 2, 3, 5, 7, 11, 15, 22, 30, 42, 56, 77]


def _compositions(n: int):
    """Every tuple of positive integers summing to n (2^(n−1) of them; () for n = 0)."""
    if n == 0:
        return [()]
    return [(first,) + rest for first in range(1, n + 1) for rest in _compositions(n - first)]


def _brute(n: int, maxparts: int | None, largest: int | None) -> list:
    """The non-increasing compositions of n with ≤ ``maxparts`` parts, each ≤ ``largest``, in decreasing order."""
    out = [t for t in _compositions(n) if list(t) == sorted(t, reverse=True)
           and (maxparts is None or len(t) <= maxparts) and (largest is None or max(t, default=0) <= largest)]
    return sorted(out, reverse=True)


def test_counts_are_the_partition_numbers():
    assert [sum(1 for _ in partitions(n)) for n in range(13)] == PARTITION_NUMBERS


@pytest.mark.parametrize("n", range(9))
def test_bounded_partitions_against_brute_force(n):
    """Decreasing lexicographic order, each at most once, for every bound on the number and the size of the parts."""
    for maxparts in (None, 0, 1, 2, 3, n):
        for largest in (None, 1, 2, n):
            assert list(partitions(n, maxparts, largest)) == _brute(n, maxparts, largest), (n, maxparts, largest)
