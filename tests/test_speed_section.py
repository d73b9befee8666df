"""The speed section records how much of the machine other processes used while it measured."""

import subprocess
import sys
import time

import pytest

from symcheck.report.sections import speed


def test_other_processes_cpu_share_is_seen():
    start, t0 = speed._cpu_counters(), time.perf_counter()
    if start[0] is None:
        pytest.skip("no /proc/stat on this platform")
    # another process spinning one CPU for 1 s: at least a quarter of a 2-CPU machine (half, less measurement
    # slack and the spinner's start-up); this process sleeps, so its own CPU time is not counted as others'
    spinner = subprocess.Popen([sys.executable, "-c", "import time\nt = time.perf_counter()\n"
                                "while time.perf_counter() - t < 1.0:\n    pass"])
    spinner.wait(timeout=60)
    share = speed._other_cpu_share(start, speed._cpu_counters(), time.perf_counter() - t0)
    cpus = speed.os.cpu_count() or 1
    assert 0.5 / cpus <= share <= 1.0
    # this process's own work is not counted as others': spinning here instead leaves a small share
    start, t0 = speed._cpu_counters(), time.perf_counter()
    while time.perf_counter() - t0 < 1.0:
        pass
    own = speed._other_cpu_share(start, speed._cpu_counters(), time.perf_counter() - t0)
    assert own < share
