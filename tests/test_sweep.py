"""symcheck.sweep: the same seeds give bit-identical results serially, on a process pool and on Dask.

The expected values are the serial results (each task's generator built here, by hand, from
``SeedSequence(base_seed).spawn``), compared with ``==`` on the raw float64 bytes: any executor
that reused a stream, reordered tasks or drew seeds from its worker would differ.
"""

from __future__ import annotations

import numpy as np
import pytest

from symcheck.sweep import Task, run_sweep, seeded_tasks


def _draw(args, rng):
    """A sweep function whose result depends on its arguments and every bit of its stream."""
    n, scale = args
    x = scale * rng.standard_normal(n)
    return x.tobytes(), float(np.sum(np.exp(x)))


ARGS = [(5 + i, 0.5 + 0.1 * i) for i in range(7)]


def _by_hand(args, base_seed):
    children = np.random.SeedSequence(base_seed).spawn(len(args))
    return [_draw(a, np.random.default_rng(s)) for a, s in zip(args, children)]


def test_serial_matches_hand_spawned_seeds():
    assert run_sweep(_draw, seeded_tasks(ARGS, 11), processes=1) == _by_hand(ARGS, 11)


def test_seeds_depend_on_base_seed_and_index_only():
    a = seeded_tasks(ARGS, 3)
    b = seeded_tasks(ARGS[:3], 3)
    assert run_sweep(_draw, b, processes=1) == run_sweep(_draw, a[:3], processes=1)
    assert run_sweep(_draw, seeded_tasks(ARGS, 4), processes=1) != run_sweep(_draw, a, processes=1)


@pytest.fixture(scope="module")
def serial_and_pool():
    tasks = seeded_tasks(ARGS, 2026)
    return tasks, run_sweep(_draw, tasks, processes=1), run_sweep(_draw, tasks, processes=2)


def test_process_pool_bit_identical_to_serial(serial_and_pool):
    _, serial, pool = serial_and_pool
    assert pool == serial


def test_dask_cluster_bit_identical_to_pool_and_serial(serial_and_pool, tmp_path):
    distributed = pytest.importorskip("distributed")
    tasks, serial, pool = serial_and_pool
    # a real scheduler and two worker processes (one thread each) on this machine
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_port=0) as cluster:
        on_dask = run_sweep(_draw, tasks, scheduler=cluster.scheduler_address)
        held, released, plain = _held_run(tmp_path / "held", scheduler=cluster.scheduler_address)
    assert on_dask == serial
    assert on_dask == pool
    assert [x[1] for x in held] == [x[1] for x in plain] and min(held[0][0], held[3][0]) >= released


@pytest.mark.parametrize("kwargs, name", [
    ({"processes": 0}, "processes"),
    ({"processes": True}, "processes"),
    ({"scheduler": ""}, "scheduler"),
    ({"scheduler": 8786}, "scheduler"),
])
def test_bad_arguments_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        run_sweep(_draw, seeded_tasks(ARGS, 1), **kwargs)


def test_bad_tasks_and_fn():
    with pytest.raises(ValueError, match="tasks"):
        run_sweep(_draw, [(1, 1.0)])
    with pytest.raises(ValueError, match="fn"):
        run_sweep(None, seeded_tasks(ARGS, 1))
    with pytest.raises(ValueError, match="base_seed"):
        seeded_tasks(ARGS, -1)
    assert isinstance(seeded_tasks(ARGS, 0)[0], Task)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_cli_refuses_bad_workers(value, capsys):
    from symcheck.cli import _parser

    with pytest.raises(SystemExit):
        _parser().parse_args(["report", "--workers", value])
    assert "--workers" in capsys.readouterr().err


def _threads(args, rng):
    import numba
    from threadpoolctl import threadpool_info

    return [max(info["num_threads"] for info in threadpool_info()), numba.get_num_threads()]


def _no_limits(threads):
    """The planted initializer: leaves every library at its default thread count."""


def test_pool_workers_share_the_cpus(monkeypatch):
    """Each of two workers gets half the CPUs for BLAS and Numba threads (the planted pool without
    the initializer starts one thread per CPU in each, caught where the machine has two or more)."""
    import os

    import symcheck.sweep as sweep

    share = max(1, (os.cpu_count() or 1) // 2)
    tasks = seeded_tasks([None, None], 1)
    assert run_sweep(_threads, tasks, processes=2) == [[share, share]] * 2
    if (os.cpu_count() or 1) >= 2:
        monkeypatch.setattr(sweep, "_share_cpus", _no_limits)
        assert run_sweep(_threads, tasks, processes=2) != [[share, share]] * 2


def test_one_thread_limits_and_restores():
    """Inside the block: one BLAS thread (every loaded library) and one Numba thread; after it, the limits
    from before (the report's test plants a missing limit: tests/test_report.py)."""
    from symcheck.sweep import one_thread

    before = _threads(None, None)
    with one_thread():
        assert _threads(None, None) == [1, 1]
    assert _threads(None, None) == before


def _started(args, rng):
    """A sweep task that notes when it started (wall clock) and leaves a file named after itself in ``folder``."""
    import pathlib
    import time

    folder, name = args
    start = time.time()
    (pathlib.Path(folder) / name).touch()
    return start, float(rng.standard_normal())


def _held_run(tmp_path, processes=None, scheduler=None):
    """Six tasks (a pool of ``processes`` or a Dask ``scheduler``), 0 and 3 held by an event that another thread sets once the four others have started (or after
    60 s). Returns the results, when the event was set, and the serial results without a hold."""
    import threading
    import time

    tmp_path.mkdir()
    names = [f"t{i}" for i in range(6)]
    tasks = seeded_tasks([(str(tmp_path), n) for n in names], 5)
    event, stamp = threading.Event(), {}

    def release():
        deadline = time.time() + 60
        while time.time() < deadline and not all((tmp_path / names[i]).exists() for i in (1, 2, 4, 5)):
            time.sleep(0.01)
        stamp["set"] = time.time()
        event.set()

    timer = threading.Thread(target=release)
    timer.start()
    out = run_sweep(_started, tasks, processes=processes, scheduler=scheduler, hold=(event, [0, 3]))
    timer.join()
    return out, stamp["set"], run_sweep(_started, tasks, processes=1)


@pytest.mark.parametrize("processes", [1, 2])
def test_held_tasks_start_after_the_event_and_give_the_same_results(processes, tmp_path, monkeypatch):
    """Held tasks start only once the event is set, the others without waiting for it (the event here waits
    for them); the results equal a run without a hold. Planted: a scheduler that ignores the hold starts held
    task 0 first, before the event."""
    import symcheck.sweep as sweep

    out, released, plain = _held_run(tmp_path / "held", processes)
    assert [x[1] for x in out] == [x[1] for x in plain]  # same draws, in task order
    assert out[0][0] >= released and out[3][0] >= released
    monkeypatch.setattr(sweep, "_next_task", lambda pending, gate: pending[0] if pending else None)
    out, released, _ = _held_run(tmp_path / "planted", processes)
    assert out[0][0] < released


def test_bad_hold_is_refused():
    import threading

    tasks = seeded_tasks(ARGS, 1)
    for hold in (threading.Event(), (None, [0]), (threading.Event(), [len(ARGS)]), (threading.Event(), ["x"])):
        with pytest.raises(ValueError, match="hold"):
            run_sweep(_draw, tasks, processes=1, hold=hold)
