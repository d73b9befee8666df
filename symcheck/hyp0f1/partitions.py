"""Integer partitions, the index set of every zonal-polynomial sum in :mod:`symcheck.hyp0f1`.

One generator for the mpmath reference series (:mod:`reference`), the confluent system's orbit moments
(:mod:`confluent`), the tie expansion's multinomial terms (:mod:`tie_expansion`) and the asymptotic expansion's
cumulant patterns (:mod:`asymptotic`). (The float64 series enumerates its own, in a compiled loop.)
"""

from __future__ import annotations

__all__ = ["partitions"]


def partitions(n: int, maxparts: int | None = None, largest: int | None = None):
    """Partitions of ``n`` as non-increasing tuples of positive integers, in decreasing lexicographic order.

    Parameters
    ----------
    n : int
        The integer partitioned (0 gives the empty partition ``()``).
    maxparts : int, optional
        At most this many parts (default: no limit).
    largest : int, optional
        No part above this (default: n).

    Yields
    ------
    tuple of int
    """
    if n == 0:
        yield ()
        return
    if maxparts == 0:
        return
    rest_parts = None if maxparts is None else maxparts - 1
    for first in range(n if largest is None else min(n, largest), 0, -1):
        for rest in partitions(n - first, rest_parts, first):
            yield (first,) + rest
