"""Stamps of the parts of a report (claims, each section) and the note shown when a part is kept
from an earlier run; the run's own provenance stamp is `symcheck.provenance.provenance`."""

from __future__ import annotations


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
