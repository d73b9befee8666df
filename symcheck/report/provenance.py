"""Provenance stamp of a report: versions, machine, git commit, seed, date."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata


def _git_commit() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                             check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def provenance(seed: int) -> dict:
    """Return the provenance stamp as an ordered dict of strings."""
    return {
        "generated (UTC)": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "git commit": _git_commit(),
        "seed": str(seed),
        "python": platform.python_version(),
        **{pkg: _version(pkg) for pkg in ("symcheck", "numpy", "scipy", "numba", "mpmath", "matplotlib")},
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {_cpu()}",
    }
