"""The claim results of the committed report, shipped with the package.

``symcheck/report/shipped/`` links to the committed ``reports/claims.json`` and
``reports/provenance.json``; building a wheel copies their contents, so an installed
``symcheck`` (``pip install .``, no repository) can list the errata and their evidence
without running anything (``symcheck claims --errata``).
"""

from __future__ import annotations

import json
from importlib import resources

__all__ = ["recorded_results"]


def recorded_results() -> tuple[dict[str, dict], dict]:
    """Return the recorded claim results by id and the provenance of the run that recorded them.

    Returns
    -------
    results : dict
        ``ClaimResult.to_json()`` of each claim, by claim id (empty if nothing is shipped).
    provenance : dict
        The provenance stamp of that report run (empty if nothing is shipped).
    """
    shipped = resources.files("symcheck.report").joinpath("shipped")
    try:
        claims = json.loads(shipped.joinpath("claims.json").read_text())
        prov = json.loads(shipped.joinpath("provenance.json").read_text())
    except FileNotFoundError:
        return {}, {}
    return {r["id"]: r for r in claims}, prov
