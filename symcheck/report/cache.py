"""Results of expensive report sweeps kept on disk, keyed by code version and parameters.

A section that fits many models (Moore's Fig. 4, the digits MLPs) runs its tasks through
:meth:`ResultCache.sweep` instead of :func:`symcheck.sweep.run_sweep`. Each task's result is
stored as one JSON file and reused only when nothing that could change it has changed:

* the sweep's name, the task's arguments (JSON) and its seed (entropy and spawn key);
* the **code key** (`symcheck.report.codekey.code_key`): a SHA-256 of the source of every
  function, class and module-level value the sweep function can reach (by the names its code
  uses, registries and Numba kernels included), of the module-level statements of the modules
  its module imports, and of the versions of the other libraries it calls. Editing a function
  a sweep can call reruns that sweep; editing one it cannot call (the holonomic ₀F₁ method for
  the digits MLPs, a report section's prose) does not. `symcheck/report/codekey.py` says
  exactly what is and is not tracked;
* the versions of Python, NumPy, SciPy and Numba.

Results must be JSON values (dicts, lists, str, float, int, bool, None); a freshly computed
result is passed through JSON too, so a cached and a fresh result are equal bit for bit
(Python's float ``repr`` round-trips exactly) on the same platform. The key does not hold the
CPU or the BLAS build: on another machine a fresh result can differ at rounding level, and an
optimiser's path with it (measured: re-running the 172 Moore Fig. 4 tasks on a second machine of
the same kind changed L-BFGS iteration counts by a few and reconstruction errors in the fourth
decimal; the conclusions drawn from them did not change). Each worker writes its entry as soon as its task
ends (atomically), so an interrupted cold run keeps what it finished.

The committed report keeps its cache in ``reports/cache/``: a clean checkout of the same code
reproduces the report from it in minutes, and any change to the code behind a sweep makes that
sweep run again. Every entry records the commit, time and seconds of the run that computed it;
sections report how many of their results came from the cache.

The report first collects every section's sweeps, keys their tasks (:meth:`ResultCache.missing`, in the
main thread) and computes the missing ones in one pool in a background thread
(:meth:`ResultCache.compute`) while it runs its claims and the sections without sweeps; the sections
that sweep render afterwards and find their results in memory.
"""

from __future__ import annotations

import datetime
import hashlib
import inspect
import json
import os
import platform
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable, Collection, Sequence

from symcheck._checks import check_callable
from symcheck.report.codekey import code_key
from symcheck.sweep import Task, run_sweep

__all__ = ["ResultCache", "SweepRecord"]

#: Bump to invalidate every entry when the entry format changes.
FORMAT = 1


def _versions() -> dict:
    out = {"python": platform.python_version()}
    for pkg in ("numpy", "scipy", "numba"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _json_roundtrip(value):
    try:
        return json.loads(json.dumps(value, allow_nan=True))
    except TypeError as err:
        raise ValueError(f"a cached sweep must return JSON values (dict, list, str, float, int, bool, None): {err}") \
            from None


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


@dataclass(frozen=True)
class _Entry:
    """What a worker needs to compute one task and store it (picklable)."""

    fn: Callable
    path: Path | None
    header: dict
    commit: str


def _compute_and_store(entry: _Entry, rng):
    """Run one task (in a worker) and write its entry as soon as it is done."""
    t0 = time.perf_counter()
    result = _json_roundtrip(entry.fn(entry.header["args"], rng))
    seconds = time.perf_counter() - t0
    if entry.path is not None:
        computed = {"commit": entry.commit, "seconds": round(seconds, 3),
                    "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")}
        _write_atomic(entry.path, json.dumps({**entry.header, "computed": computed, "result": result}, indent=1))
    return result, seconds


@dataclass
class SweepRecord:
    """How one cached sweep was served: tasks, hits, seconds computed now and saved by the cache."""

    name: str
    tasks: int = 0
    hits: int = 0
    seconds_computed: float = 0.0
    seconds_cached: float = 0.0
    commits: set = field(default_factory=set)

    def summary(self) -> str:
        """One sentence for a report section."""
        if not self.tasks:
            return f"{self.name}: no tasks."
        text = (f"{self.tasks} results: {self.tasks - self.hits} computed in this run ({self.seconds_computed:.0f} s of "
                f"compute), {self.hits} from the result cache")
        if self.hits:
            text += (f" (they took {self.seconds_cached:.0f} s of compute when made, at commit"
                     f"{'s' if len(self.commits) > 1 else ''} {', '.join(sorted(c[:12] for c in self.commits))}; "
                     "keyed by the source of every function they can call, see `symcheck/report/codekey.py`)")
        return text + "."


class ResultCache:
    """A folder of cached sweep results (``folder=None``: nothing is read or stored on disk).

    Results computed in this run are also kept in memory for the run, so the tasks that
    :meth:`compute` ran in one pool are found by each section's :meth:`sweep` with or without a folder.

    Parameters
    ----------
    folder : path or None
        Where entries live (``<folder>/<name>/<key>.json``).
    commit : str
        Recorded in new entries (the report's git commit).
    """

    def __init__(self, folder: str | os.PathLike | None, commit: str = "unknown"):
        self.folder = None if folder is None else Path(folder)
        self.commit = commit
        self.records: dict[str, SweepRecord] = {}
        self._used: dict[str, set[str]] = {}
        self._codes: dict[Callable, str] = {}
        #: Results computed in this run (by `compute`, also for `sweep`): key → (result, seconds).
        self._computed: dict[str, tuple] = {}

    def _key(self, header: dict) -> str:
        return hashlib.sha256(json.dumps(header, sort_keys=True).encode()).hexdigest()[:32]

    def _plan(self, name: str, fn: Callable, tasks: Sequence[Task]) -> list[tuple]:
        """Validate a sweep and key its tasks: ``(task, header, key, path)`` per task."""
        if not name or not all(ch.isalnum() or ch in "_-" for ch in name):
            raise ValueError(f"name: must be a non-empty folder name of letters, digits, '_' and '-', got {name!r}")
        check_callable(fn, "fn")
        if fn not in self._codes:
            try:
                inspect.getsource(fn)
            except (OSError, TypeError):
                raise ValueError(f"fn: {fn!r} has no source file to key the cache by") from None
            self._codes[fn] = code_key(fn)
        plan, versions = [], _versions()
        for task in tasks:
            header = {"format": FORMAT, "name": name, "function": f"{fn.__module__}.{fn.__qualname__}",
                      "code": self._codes[fn], "versions": versions, "args": _json_roundtrip(task.args),
                      "seed": {"entropy": str(task.seed.entropy), "spawn_key": list(task.seed.spawn_key)}}
            key = self._key(header)
            plan.append((task, header, key, None if self.folder is None else self.folder / name / f"{key}.json"))
        return plan

    def missing(self, jobs: Sequence[tuple[str, Callable, Sequence[Task]]]) -> list[tuple[str, Task]]:
        """The tasks of several sweeps that neither this run nor the folder holds, keyed, in order.

        Parameters
        ----------
        jobs : sequence of (name, fn, tasks)
            As the arguments of :meth:`sweep`, in the order their tasks should start (longest first
            keeps a pool busy to the end).

        Returns
        -------
        list of (key, task)
            For :meth:`compute`: the first missing task of each sweep, then the others in order. A pool
            then starts each sweep on one worker while the others take other sweeps, so Numba compiles a
            sweep's kernels once and the other workers load them from its cache (two workers starting the
            digits fits together both compiled them: 12 s each, measured). Call this in the thread that
            imports modules: a code key walks the modules (`symcheck.report.codekey`), and a module
            half-imported by another thread would give another key.
        """
        firsts, rest, seen = [], [], set()
        for name, fn, tasks in jobs:
            mine = []
            for task, header, key, path in self._plan(name, fn, tasks):
                if key in seen or key in self._computed or self._load(path, header) is not None:
                    continue
                seen.add(key)
                mine.append((key, Task(_Entry(fn, path, header, self.commit), task.seed)))
            firsts += mine[:1]
            rest += mine[1:]
        return firsts + rest

    def compute(self, todo: list[tuple[str, Task]], *, scheduler: str | None = None,
                processes: int | None = None, hold: tuple[threading.Event, Collection[str]] | None = None) -> None:
        """Compute the ``(key, task)`` pairs of :meth:`missing` in one sweep (one process pool for every sweep)
        and keep each result and its seconds by key, where each section's :meth:`sweep` finds them. Safe to
        run in a background thread. ``scheduler``, ``processes`` as in :func:`symcheck.sweep.run_sweep`;
        ``hold`` = (event, sweep names): the tasks of those sweeps start once the event is set (``hold`` of
        :func:`symcheck.sweep.run_sweep`).
        """
        if not todo:
            return
        if hold is not None:
            event, names = hold
            hold = (event, [i for i, (_, task) in enumerate(todo) if task.args.header["name"] in names])
        outs = run_sweep(_compute_and_store, [task for _, task in todo], scheduler=scheduler, processes=processes,
                         hold=hold)
        for (key, _), out in zip(todo, outs):
            self._computed[key] = out

    def sweep(self, name: str, fn: Callable, tasks: Sequence[Task], *, scheduler: str | None = None,
              processes: int | None = None) -> list:
        """Results of ``fn(task.args, rng)`` for every task, from the cache where valid, else computed.

        Parameters
        ----------
        name : str
            Sweep name: the entries' sub-folder (letters, digits, ``_`` and ``-``).
        fn : callable
            Module-level function ``fn(args, rng)`` returning JSON values; ``args`` must be JSON
            values too. Its code key (`symcheck.report.codekey.code_key`) is part of every key.
        tasks : sequence of Task
            From :func:`symcheck.sweep.seeded_tasks`.
        scheduler, processes
            As in :func:`symcheck.sweep.run_sweep` (for the tasks not in the cache).

        Returns
        -------
        list
            The results in task order; :attr:`records` ``[name]`` says how many were cached (a
            result of :meth:`compute` counts as computed in this run).

        Raises
        ------
        ValueError
            If ``name`` is not a plain folder name, ``fn`` is not callable, or arguments or
            results are not JSON values.
        """
        plan = self._plan(name, fn, tasks)
        record = self.records.setdefault(name, SweepRecord(name))
        used = self._used.setdefault(name, set())
        results: list = [None] * len(plan)
        todo, where = [], []
        for i, (task, header, key, path) in enumerate(plan):
            used.add(key)
            record.tasks += 1
            if key in self._computed:  # computed by `compute` (the report's one pool)
                results[i], seconds = self._computed[key]
                record.seconds_computed += seconds
                continue
            cached = self._load(path, header)
            if cached is not None:
                results[i] = cached["result"]
                record.hits += 1
                record.seconds_cached += cached["computed"]["seconds"]
                record.commits.add(cached["computed"]["commit"])
                continue
            todo.append((key, Task(_Entry(fn, path, header, self.commit), task.seed)))
            where.append(i)
        self.compute(todo, scheduler=scheduler, processes=processes)
        for i, (key, _) in zip(where, todo):
            results[i], seconds = self._computed[key]
            record.seconds_computed += seconds
        return results

    @staticmethod
    def _load(path: Path | None, header: dict) -> dict | None:
        """The stored entry at ``path`` if it exists, parses and matches ``header``; else None."""
        if path is None or not path.is_file():
            return None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(stored, dict) or any(stored.get(k) != v for k, v in header.items()) \
                or "result" not in stored or not isinstance(stored.get("computed"), dict):
            return None
        return stored

    def prune(self) -> list[Path]:
        """Delete the entries of the sweeps run through this cache that no task of this run used.

        Sweeps not run through this cache object are left alone. Returns the deleted paths.
        """
        removed = []
        if self.folder is None:
            return removed
        for name, keys in self._used.items():
            for path in sorted((self.folder / name).glob("*.json")):
                if path.stem not in keys:
                    path.unlink()
                    removed.append(path)
        return removed
