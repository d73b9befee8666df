"""Seeded sweeps on one machine or a cluster, with results independent of where they ran.

A sweep is a function ``fn(args, rng)`` and a list of tasks (:func:`seeded_tasks`): each task
carries its own arguments and its own :class:`numpy.random.SeedSequence`, spawned from a base
seed and the task's index (``SeedSequence(base_seed, spawn_key=(i,))``). A task's random stream
therefore depends on nothing but the base seed and its position in the list, so
:func:`run_sweep` returns bit-identical results run serially, on a local process pool of any
size, or on a Dask distributed cluster, always in task order.

A local pool gives each worker an equal share of the CPUs for its BLAS/OpenMP and Numba threads
(one each for two workers on two cores): left at their defaults, every worker's libraries start
one thread per CPU, and two workers fitting Moore's Fig. 4 at k = 20 on two cores then each ran
3.4× slower than with one thread apiece (measured: 16.3 s against 4.8 s per matrix, most of it
in batched 20×20 SVDs). :func:`one_thread` does the same for a block of the calling process that
runs beside a pool (the report's claims: 12 % less CPU with one BLAS thread than with two, measured,
as OpenBLAS's idle threads spin).
"""

from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, Callable, Collection, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from symcheck._checks import check_callable, check_int

__all__ = ["Task", "one_thread", "run_sweep", "seeded_tasks"]

#: Seconds between looks at a hold's event while a worker waits for it (:func:`run_sweep`).
_HOLD_POLL = 0.1


@dataclass(frozen=True)
class Task:
    """One unit of a sweep: the arguments of the sweep function and the task's own seed.

    Attributes
    ----------
    args : object
        Passed to the sweep function as its first argument (must be picklable).
    seed : numpy.random.SeedSequence
        The task's seed; the function gets ``numpy.random.default_rng(seed)``.
    """

    args: Any
    seed: np.random.SeedSequence


def seeded_tasks(args: Sequence, base_seed: int) -> list[Task]:
    """Tasks for ``args`` with seeds spawned from ``base_seed`` (child ``i`` for ``args[i]``).

    Parameters
    ----------
    args : sequence
        The arguments of each task, in order.
    base_seed : int
        Non-negative base seed of the sweep.

    Returns
    -------
    list of Task
    """
    base_seed = check_int(base_seed, "base_seed", minimum=0)
    children = np.random.SeedSequence(base_seed).spawn(len(args))
    return [Task(a, s) for a, s in zip(args, children)]


#: Thread-count variables read by OpenBLAS, OpenMP, MKL and BLIS builds when they load.
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def _share_cpus(threads: int) -> None:
    """Pool-worker initializer: at most ``threads`` BLAS/OpenMP and Numba threads in this worker.

    The libraries loaded already (NumPy's BLAS, Numba's OpenMP) are limited now; those a task loads
    later (SciPy's own BLAS) read the environment when they load.
    """
    import numba

    for var in _THREAD_VARIABLES:
        os.environ[var] = str(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # loads Numba's OpenMP layer
    threadpool_limits(limits=threads)


@contextlib.contextmanager
def one_thread():
    """While the block runs: one BLAS/OpenMP thread in this process and one Numba thread in this thread.

    For work that runs beside a pool of workers that share the CPUs (the report's claims and plain
    sections beside its sweeps); the previous limits are restored afterwards. Its results then do not
    depend on the machine's core count either (a BLAS product's summation order can depend on its
    thread count).
    """
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        numba.set_num_threads(before)


def _run_task(fn: Callable, task: Task):
    """Run one task with a fresh generator from its own seed (the same in every executor)."""
    return fn(task.args, np.random.default_rng(task.seed))


def run_sweep(fn: Callable, tasks: Sequence[Task], *, scheduler: str | None = None,
              processes: int | None = None, hold: tuple[threading.Event, Collection[int]] | None = None) -> list:
    """Run ``fn(task.args, rng)`` for every task; return the results in task order.

    Parameters
    ----------
    fn : callable
        A module-level (picklable) function ``fn(args, rng)``.
    tasks : sequence of Task
        From :func:`seeded_tasks`.
    scheduler : str, optional
        Address of a Dask distributed scheduler (``"tcp://host:8786"``): run the tasks on its
        workers (needs the ``dask`` extra). Default: a local process pool.
    processes : int, optional
        Size of the local process pool (default: the number of CPUs, at most one per task);
        ``1`` runs the tasks serially in this process. Ignored with ``scheduler``.
    hold : (threading.Event, collection of int), optional
        The tasks at these indices start only once the event is set (by another thread of this
        process); the others start at once. Tasks start in list order among those allowed to. For work
        that should not run while this process does the same (the report's claims at other seeds wait
        for its own claims, so Numba compiles their kernels once and the workers load them).

    Returns
    -------
    list
        ``[fn(t.args, default_rng(t.seed)) for t in tasks]``, bit for bit, wherever it ran.

    Raises
    ------
    ValueError
        If ``fn`` is not callable, a task is not a :class:`Task`, ``processes`` is not a positive
        integer, ``scheduler`` is not a non-empty string, or ``hold`` is not an event and task indices.
    """
    check_callable(fn, "fn")
    tasks = list(tasks)
    if not all(isinstance(t, Task) for t in tasks):
        raise ValueError("tasks: every task must be a symcheck.sweep.Task (see seeded_tasks)")
    gate = _check_hold(hold, len(tasks))
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler:
            raise ValueError(f"scheduler: must be a scheduler address such as 'tcp://host:8786', got {scheduler!r}")
        return _run_dask(fn, tasks, scheduler, gate)
    if processes is None:
        workers = os.cpu_count() or 1
    else:
        workers = check_int(processes, "processes", minimum=1)
    workers = min(workers, len(tasks))
    results = [None] * len(tasks)
    pending = list(range(len(tasks)))
    if workers <= 1:
        while pending:
            i = _next_task(pending, gate)
            if i is None:  # only held tasks are left
                gate[0].wait()
                continue
            pending.remove(i)
            results[i] = _run_task(fn, tasks[i])
        return results
    # spawn: workers start clean (no forked copy of this process's threads or JIT state)
    threads = max(1, (os.cpu_count() or 1) // workers)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_share_cpus,
                             initargs=(threads,)) as pool:
        if gate is None:
            return list(pool.map(_run_task, [fn] * len(tasks), tasks))
        running: dict = {}
        while pending or running:
            i = _next_task(pending, gate) if len(running) < workers else None
            if i is not None:
                pending.remove(i)
                running[pool.submit(_run_task, fn, tasks[i])] = i
            elif not running:  # only held tasks are left and no worker is busy
                gate[0].wait()
            else:  # a busy pool, or a free worker and only held tasks: poll the event while waiting
                done, _ = wait(running, timeout=None if gate[0].is_set() else _HOLD_POLL, return_when=FIRST_COMPLETED)
                for future in done:
                    results[running.pop(future)] = future.result()
        return results


def _check_hold(hold, n: int):
    """``hold`` validated: None, or (event, frozenset of indices in [0, n))."""
    if hold is None:
        return None
    try:
        event, indices = hold
        held = frozenset(int(i) for i in indices)
    except (TypeError, ValueError):
        raise ValueError("hold: must be a pair (threading.Event, collection of task indices)") from None
    if not isinstance(event, threading.Event):
        raise ValueError(f"hold: its first entry must be a threading.Event, got {type(event).__name__}")
    if any(not 0 <= i < n for i in held):
        raise ValueError(f"hold: task indices must lie in [0, {n}), got {sorted(held)}")
    return event, held


def _next_task(pending: list[int], gate) -> int | None:
    """The first of ``pending`` allowed to start now (all once ``gate``'s event is set, else those it does
    not hold); None when only held tasks are left."""
    free = gate is None or gate[0].is_set()
    return next((i for i in pending if free or i not in gate[1]), None)


def _run_dask(fn: Callable, tasks: list[Task], address: str, gate) -> list:
    """Submit every task to the Dask scheduler at ``address`` (the held ones of ``gate`` once its event
    is set); gather in task order."""
    try:
        from distributed import Client
    except ImportError:  # optional extra
        raise ValueError("scheduler: running on a Dask cluster needs the 'dask' extra "
                         "(pip install 'symcheck[dask]')") from None
    held = frozenset() if gate is None else gate[1]
    with Client(address, set_as_default=False) as client:
        futures = {i: client.submit(_run_task, fn, t, pure=False) for i, t in enumerate(tasks) if i not in held}
        if held:
            gate[0].wait()
            futures.update({i: client.submit(_run_task, fn, tasks[i], pure=False) for i in sorted(held)})
        return client.gather([futures[i] for i in range(len(tasks))])
