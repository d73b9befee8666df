"""The speed section records how much of the machine other processes used while it measured.

Every assertion here holds under any background load: other processes can only add busy time, so the
checks are lower bounds on what the counters must see, and the arithmetic is checked on given counters.
"""

import math
import os
import resource
import subprocess
import sys
import time

import pytest

from symcheck.report.sections import speed

#: Two clock ticks of /proc/stat, the resolution of the machine's busy-time counter (seconds).
TICKS = 2.0 / os.sysconf("SC_CLK_TCK")


def test_other_processes_cpu_share_counts_another_process():
    start, t0 = speed._cpu_counters(), time.perf_counter()
    if start[0] is None:
        pytest.skip("no /proc/stat on this platform")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # another process spinning one CPU for 1 s; this process sleeps, so its own CPU time is not others'
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nt = time.perf_counter()\n"
                                "while time.perf_counter() - t < 1.0:\n    pass"])
    spinner.wait(timeout=60)
    end, wall = speed._cpu_counters(), time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spun = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    share = speed._other_cpu_share(start, end, wall)
    cpus = os.cpu_count() or 1
    assert spun > 0.5  # the spinner did run
    # the machine's other busy time includes at least the spinner's CPU time (background load only adds)
    assert share * wall * cpus >= spun - TICKS
    assert share <= 1.0


def test_own_cpu_time_is_counted_as_machine_busy_time():
    start = speed._cpu_counters()
    if start[0] is None:
        pytest.skip("no /proc/stat on this platform")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 0.5:
        pass
    end = speed._cpu_counters()
    own = end[1] - start[1]
    assert own > 0.0
    assert end[0] - start[0] >= own - TICKS  # the machine's busy time includes this process's


@pytest.mark.parametrize(("start", "end", "wall", "expected"), [
    ((10.0, 1.0), (13.0, 2.5), 1.0, 1.5),   # 3 busy CPU-seconds, 1.5 of them this process's
    ((10.0, 1.0), (10.5, 2.0), 2.0, 0.0),   # counters of different resolution: never negative
    ((10.0, 1.0), (14.0, 1.0), 0.5, 4.0),   # this process idle: all busy time is others'
])
def test_other_cpu_share_subtracts_own_time(monkeypatch, start, end, wall, expected):
    monkeypatch.setattr(speed.os, "cpu_count", lambda: 4)
    assert speed._other_cpu_share(start, end, wall) == pytest.approx(expected / (wall * 4))


def test_other_cpu_share_is_nan_without_counters():
    assert math.isnan(speed._other_cpu_share((None, 0.0), (None, 1.0), 1.0))
    assert math.isnan(speed._other_cpu_share((1.0, 0.0), (2.0, 1.0), 0.0))
