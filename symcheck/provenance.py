"""Provenance stamp: versions, machine, git commit, seed, date.

Neutral: kernels stamping generated data (`symcheck.hyp0f1.reference_data`) and the report
(`symcheck.report`, whose per-part stamps are in `symcheck/report/stamps.py`) both read it;
it imports nothing of symcheck.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

#: This file's path inside a symcheck checkout; a repository that does not track it is not symcheck's.
_SELF_IN_REPO = "symcheck/provenance.py"


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          timeout=10).stdout.strip()


def git_commit(here: Path | None = None) -> str:
    """Commit of the symcheck checkout this code runs from, or why there is none.

    The commit is recorded only when ``here`` (default: this module's folder) lies in a git
    work tree that *tracks this very file* as ``symcheck/provenance.py`` (possibly below a
    folder of a larger repository that vendors symcheck). An installed
    copy inside some other repository (a virtualenv under another project, say) is not
    tracked by it, and gets ``"not a symcheck checkout"`` instead of that repository's commit.

    Parameters
    ----------
    here : path, optional
        Folder of the ``provenance.py`` to look up (tests pass a copy's folder).

    Returns
    -------
    str
        ``"<sha>"`` or ``"<sha>-dirty"`` (tracked files modified), ``"not a symcheck checkout"``,
        or ``"unknown (git unavailable)"``.
    """
    here = Path(here) if here is not None else Path(__file__).resolve().parent
    try:
        tracked = subprocess.run(["git", "ls-files", "--full-name", "--error-unmatch", "provenance.py"],
                                 cwd=here, capture_output=True, text=True, timeout=10)
        path = tracked.stdout.strip()
        if tracked.returncode != 0 or not (path == _SELF_IN_REPO or path.endswith("/" + _SELF_IN_REPO)):
            return "not a symcheck checkout"
        sha = _git("rev-parse", "HEAD", cwd=here)
        dirty = _git("status", "--porcelain", "--untracked-files=no", cwd=here)
        return sha + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown (git unavailable)"


#: The libraries whose versions the stamp records: those every computation uses, and those that the
#: report's cached sweeps key on (mpmath, scikit-learn: `symcheck.report.codekey`).
LIBRARIES = ("numpy", "scipy", "numba", "mpmath", "scikit-learn", "matplotlib")


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
        "git commit": git_commit(),
        "seed": str(seed),
        "python": platform.python_version(),
        **{pkg: _version(pkg) for pkg in ("symcheck",) + LIBRARIES},
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {_cpu()}",
    }
