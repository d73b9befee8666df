"""Provenance stamp of a report: versions, machine, git commit, seed, date."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

#: This file's path inside a symcheck checkout; a repository that does not track it is not symcheck's.
_SELF_IN_REPO = "symcheck/report/provenance.py"


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          timeout=10).stdout.strip()


def git_commit(here: Path | None = None) -> str:
    """Commit of the symcheck checkout this code runs from, or why there is none.

    The commit is recorded only when ``here`` (default: this module's folder) lies in a git
    work tree that *tracks this very file* as ``symcheck/report/provenance.py`` (possibly below a
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
        **{pkg: _version(pkg) for pkg in ("symcheck", "numpy", "scipy", "numba", "mpmath", "matplotlib")},
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {_cpu()}",
    }


def part_stamp(prov: dict, quick: bool) -> dict:
    """The part of a provenance stamp kept with each part of a report (claims, each section)."""
    return {"generated (UTC)": prov["generated (UTC)"], "git commit": prov["git commit"], "seed": prov["seed"],
            "quick": quick}


def kept_note(stamp: dict | None, prov: dict, what: str) -> str:
    """A note for a part of the report whose stamp is not this run's, or that used quick grids.

    Parameters
    ----------
    stamp : dict or None
        The part's :func:`part_stamp` (``None``: the part is absent; no note).
    prov : dict
        Provenance of this run.
    what : str
        What the part is, e.g. ``"Claim results"``.

    Returns
    -------
    str
        The note, or ``""`` when the part was made by this run with the full grids.
    """
    if not stamp:
        return ""
    quick = ", quick grids (a smoke run)" if stamp["quick"] else ""
    if (stamp["git commit"], stamp["generated (UTC)"]) != (prov["git commit"], prov["generated (UTC)"]):
        return (f"{what} kept from an earlier run: {stamp['generated (UTC)']} UTC, commit {stamp['git commit']}, "
                f"seed {stamp['seed']}{quick}.")
    return f"{what}: {quick[2:]}." if quick else ""
