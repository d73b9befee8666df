"""A least-recently-used cache bounded by the total size of its values, for the ₀F₁ engines' tables.

The float64 series keeps partition tables (:mod:`symcheck.hyp0f1.series`, sized in bytes) and the mpmath
reference keeps coefficient tables that later calls extend (:mod:`symcheck.hyp0f1.reference`, sized in
coefficients). Both keep what a process running many seeds reuses and drop the least recently used
tables beyond a budget; the newest table is always kept, however large.
"""

from __future__ import annotations

from typing import Callable, Hashable

__all__ = ["SizeBoundedCache"]


class SizeBoundedCache:
    """Tables by key, least recently used dropped while the sizes sum to more than ``limit``.

    Parameters
    ----------
    limit : float
        Budget for the sum of ``size(table)`` over the kept tables (the newest is kept even beyond it).
    size : callable
        ``size(table)``: a table's share of the budget (bytes, coefficients, …).
    """

    def __init__(self, limit: float, size: Callable[[object], float]):
        self.limit, self._size = limit, size
        self._tables: dict = {}

    def get(self, key: Hashable, make: Callable[[object], object]):
        """The table of ``key`` after ``make(old)``, ``old`` the cached table or None; now the most recently used.

        ``make`` may return ``old`` itself (a table reused as it is) or a new or extended one.
        """
        table = make(self._tables.pop(key, None))
        self._tables[key] = table
        sizes = {k: self._size(t) for k, t in self._tables.items()}
        total = sum(sizes.values())
        while len(self._tables) > 1 and total > self.limit:
            oldest = next(iter(self._tables))
            total -= sizes.pop(oldest)
            del self._tables[oldest]
        return table

    def clear(self) -> None:
        """Drop every table."""
        self._tables.clear()

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, key) -> bool:
        return key in self._tables
