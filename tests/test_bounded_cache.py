"""The size-bounded LRU cache of the ₀F₁ engines' tables (symcheck.hyp0f1.bounded_cache)."""

import pytest

from symcheck.hyp0f1 import reference, series
from symcheck.hyp0f1.bounded_cache import SizeBoundedCache


def _history(cache_cls=SizeBoundedCache):
    """Keys kept after a fixed sequence of gets (tables are lists; size = length), and the builds made."""
    built = []

    def make(key, n):
        def build(old):
            if old is None:
                built.append(key)
                return [0] * n
            return old

        return build

    cache = cache_cls(10, len)
    kept = []
    for key, n in (("a", 4), ("b", 4), ("a", 4), ("c", 4), ("d", 30), ("e", 2)):
        cache.get(key, make(key, n))
        kept.append(sorted(k for k in "abcde" if k in cache))
    return kept, built


def test_least_recently_used_dropped_beyond_the_budget_newest_kept():
    kept, built = _history()
    assert kept == [["a"], ["a", "b"], ["a", "b"], ["a", "c"], ["d"], ["e"]]
    # "a" reused (not rebuilt) on its second get; "b" (least recent) dropped when "c" came; "d" kept alone
    # although beyond the budget; "e" drops "d"
    assert built == ["a", "b", "c", "d", "e"]


class _DropsNewest(SizeBoundedCache):
    """Planted: evicts the most recently used table instead of the least."""

    def get(self, key, make):
        table = make(self._tables.pop(key, None))
        self._tables[key] = table
        while len(self._tables) > 1 and sum(map(self._size, self._tables.values())) > self.limit:
            del self._tables[next(reversed(self._tables))]
        return table


def test_planted_wrong_eviction_is_caught():
    assert _history(_DropsNewest)[0] != _history()[0]


def test_extension_sees_the_cached_table_and_clear_empties():
    cache = SizeBoundedCache(100, len)
    cache.get("k", lambda old: [1])
    assert cache.get("k", lambda old: old + [2]) == [1, 2]
    assert len(cache) == 1
    cache.clear()
    assert len(cache) == 0 and "k" not in cache


@pytest.mark.parametrize("engine", [series._TABLES, reference._CACHE])
def test_the_engines_use_it(engine):
    assert isinstance(engine, SizeBoundedCache)
