"""The report's result cache: reuse only what nothing changed, and say so."""

from __future__ import annotations

import json

import numpy as np
import pytest

from symcheck.report import cache as cache_mod
from symcheck.report.cache import ResultCache
from symcheck.sweep import run_sweep, seeded_tasks

CALLS = []


def draw(args, rng):
    """A sweep function: a few draws scaled by the task's argument (JSON values only)."""
    CALLS.append(args)
    return {"scale": args["scale"], "x": (args["scale"] * rng.standard_normal(3)).tolist()}


def _tasks(scales, seed=5):
    return seeded_tasks([{"scale": s} for s in scales], seed)


def test_cached_results_equal_fresh_ones_bit_for_bit(tmp_path):
    CALLS.clear()
    tasks = _tasks([1.0, 2.0, 3.0])
    fresh = run_sweep(draw, tasks, processes=1)
    first = ResultCache(tmp_path, commit="abc").sweep("demo", draw, tasks, processes=1)
    again_cache = ResultCache(tmp_path, commit="def")
    again = again_cache.sweep("demo", draw, tasks, processes=1)
    assert first == fresh and again == fresh
    assert len(CALLS) == 3 + 3  # the plain sweep and the first cached one; the second computed nothing
    rec = again_cache.records["demo"]
    assert (rec.tasks, rec.hits, rec.commits) == (3, 3, {"abc"})
    assert "3 from the result cache" in rec.summary() and "abc" in rec.summary()


def test_new_tasks_compute_only_what_is_missing(tmp_path):
    CALLS.clear()
    ResultCache(tmp_path).sweep("demo", draw, _tasks([1.0, 2.0]), processes=1)
    CALLS.clear()
    more = _tasks([1.0, 2.0, 4.0])  # spawned seeds: the first two tasks are the same tasks
    out = ResultCache(tmp_path).sweep("demo", draw, more, processes=1)
    assert CALLS == [{"scale": 4.0}]
    assert out == run_sweep(draw, more, processes=1)


@pytest.mark.parametrize("change", ["seed", "args", "code", "versions", "name"])
def test_any_change_of_an_input_recomputes(tmp_path, monkeypatch, change):
    ResultCache(tmp_path).sweep("demo", draw, _tasks([1.0]), processes=1)
    tasks, name = _tasks([1.0]), "demo"
    if change == "seed":
        tasks = _tasks([1.0], seed=6)
    elif change == "args":
        tasks = _tasks([1.5])
    elif change == "code":
        monkeypatch.setattr(cache_mod, "code_key", lambda fn: "edited")
    elif change == "versions":
        monkeypatch.setattr(cache_mod, "_versions", lambda: {"numpy": "0.0"})
    else:
        name = "other"
    cache = ResultCache(tmp_path)
    cache.sweep(name, draw, tasks, processes=1)
    assert cache.records[name].hits == 0


def test_corrupt_or_tampered_entries_are_recomputed(tmp_path):
    tasks = _tasks([1.0, 2.0])
    ResultCache(tmp_path).sweep("demo", draw, tasks, processes=1)
    a, b = sorted((tmp_path / "demo").glob("*.json"))
    a.write_text("{not json")
    entry = json.loads(b.read_text())
    entry["code"] = "something else"  # an entry whose header no longer matches its key
    b.write_text(json.dumps(entry))
    cache = ResultCache(tmp_path)
    assert cache.sweep("demo", draw, tasks, processes=1) == run_sweep(draw, tasks, processes=1)
    assert cache.records["demo"].hits == 0


def test_prune_deletes_only_unused_entries_of_swept_names(tmp_path):
    ResultCache(tmp_path).sweep("demo", draw, _tasks([1.0, 2.0]), processes=1)
    ResultCache(tmp_path).sweep("kept", draw, _tasks([1.0]), processes=1)
    cache = ResultCache(tmp_path)
    cache.sweep("demo", draw, _tasks([1.0]), processes=1)
    removed = cache.prune()
    assert len(removed) == 1 and len(list((tmp_path / "demo").glob("*.json"))) == 1
    assert len(list((tmp_path / "kept").glob("*.json"))) == 1


def test_disabled_cache_computes_and_stores_nothing(tmp_path):
    """Without a folder nothing is stored: a new run computes again (within one run a result is kept in memory)."""
    CALLS.clear()
    for _ in range(2):
        cache = ResultCache(None)
        cache.sweep("demo", draw, _tasks([1.0]), processes=1)
        cache.sweep("demo", draw, _tasks([1.0]), processes=1)
    assert len(CALLS) == 2 and cache.prune() == []


def test_compute_runs_several_sweeps_in_one_pool_and_sweep_finds_them(tmp_path):
    """`missing` + `compute` compute the missing tasks of several sweeps (stored on disk, counted as computed in this run);
    each `sweep` then returns them without computing, bit-identical to a sweep run alone; a task already on disk
    is not recomputed. Planted: a cache that forgot what `compute` computed would call `draw` again."""
    CALLS.clear()
    alone = ResultCache(None).sweep("demo", draw, _tasks([1.0, 2.0]), processes=1)
    ResultCache(tmp_path).sweep("other", draw, _tasks([5.0]), processes=1)
    CALLS.clear()
    cache = ResultCache(tmp_path)
    jobs = [("demo", draw, _tasks([1.0, 2.0])), ("other", draw, _tasks([5.0]))]
    todo = cache.missing(jobs)
    assert len(todo) == 2
    fresh = ResultCache(None)
    a, b = (fresh.missing([job]) for job in (("demo", draw, _tasks([1.0, 2.0])), ("third", draw, _tasks([3.0, 4.0]))))
    both = fresh.missing([("demo", draw, _tasks([1.0, 2.0])), ("third", draw, _tasks([3.0, 4.0]))])
    assert [key for key, _ in both] == [a[0][0], b[0][0], a[1][0], b[1][0]]  # each sweep's first task first
    cache.compute(todo, processes=2)
    assert CALLS == []  # the pool's workers called draw, not this process
    assert cache.sweep("demo", draw, _tasks([1.0, 2.0]), processes=1) == alone
    cache.sweep("other", draw, _tasks([5.0]), processes=1)
    assert CALLS == []
    assert (cache.records["demo"].tasks, cache.records["demo"].hits) == (2, 0)
    assert (cache.records["other"].tasks, cache.records["other"].hits) == (1, 1)
    assert len(list((tmp_path / "demo").glob("*.json"))) == 2
    cache._computed.clear()
    cache.sweep("demo", draw, _tasks([1.0, 2.0]), processes=1)  # found on disk now
    assert CALLS == []
    blind = ResultCache(None)  # planted: without a folder, a cache that forgets what compute computed
    blind.compute(blind.missing(jobs[:1]), processes=2)
    blind._computed.clear()
    assert blind.sweep("demo", draw, _tasks([1.0, 2.0]), processes=1) == alone and len(CALLS) == 2


def test_bad_input_is_refused(tmp_path):
    cache = ResultCache(tmp_path)
    with pytest.raises(ValueError, match="name"):
        cache.sweep("../up", draw, _tasks([1.0]), processes=1)
    with pytest.raises(ValueError, match="fn"):
        cache.sweep("demo", 3, _tasks([1.0]), processes=1)
    with pytest.raises(ValueError, match="JSON"):
        cache.sweep("demo", draw, seeded_tasks([{"scale": np.float64(1.0), "a": np.zeros(2)}], 1), processes=1)


def test_workers_store_their_entries(tmp_path):
    tasks = _tasks([1.0, 2.0, 3.0])
    out = ResultCache(tmp_path, commit="c").sweep("demo", draw, tasks, processes=2)
    assert out == run_sweep(draw, tasks, processes=1)
    stored = [json.loads(p.read_text()) for p in (tmp_path / "demo").glob("*.json")]
    assert sorted(e["args"]["scale"] for e in stored) == [1.0, 2.0, 3.0]
    assert all(e["computed"]["commit"] == "c" and e["computed"]["seconds"] >= 0 for e in stored)
