"""The committed report was made by the committed code: every cached sweep's entries carry the code key
that the code computes now.

`reports/` is generated, never edited, and must be regenerated whenever a kernel or a claim changes (the
project's rule). An edit that a sweep can reach changes that sweep's code key
(`symcheck.report.codekey`, tests/test_cache_keys.py), so a commit that changed such code without
regenerating the report leaves entries under an old key: this test fails then, naming the sweep, and
`symcheck report` reruns exactly those sweeps. It also backs the README's "about 5 minutes with a
cache that matches the code".
"""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from pathlib import Path

import pytest

CACHE = Path(__file__).resolve().parents[1] / "reports" / "cache"


def _committed_keys() -> dict[str, set[str]]:
    keys = defaultdict(set)
    for path in sorted(CACHE.glob("*/*.json")):
        entry = json.loads(path.read_text())
        keys[entry["function"]].add(entry["code"])
    return keys


def _function(qualified: str):
    module, name = qualified.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_the_report_has_cached_sweeps():
    assert len(_committed_keys()) >= 5, "reports/cache lost its sweeps"


def _other_libraries() -> list[str]:
    """Libraries installed here in another version than the committed report was made with."""
    import platform
    from importlib import metadata

    from symcheck.provenance import LIBRARIES

    def version(pkg):
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "not installed"

    made = json.loads((CACHE.parent / "provenance.json").read_text())
    here = {"python": platform.python_version(), **{pkg: version(pkg) for pkg in LIBRARIES}}
    return [f"{pkg} {made.get(pkg)} -> {v}" for pkg, v in here.items() if made.get(pkg, v) != v]


@pytest.mark.parametrize("function", sorted(_committed_keys()))
def test_every_cached_sweep_matches_the_code(function):
    from symcheck.claims import all_claims
    from symcheck.report.codekey import code_key

    other = _other_libraries()
    if other:  # the keys name library versions: the cache misses by design, and so would this comparison
        pytest.skip(f"the report was made with other library versions ({', '.join(other)}); `symcheck report` "
                    "reruns its sweeps here")

    all_claims()  # the report has loaded every claim module when it keys the claims-at-seeds sweep
    key = code_key(_function(function))
    assert _committed_keys()[function] == {key}, (
        f"reports/cache holds {function} under another code key than the code's ({key[:12]}): code it reaches "
        "changed after the report was made; run `symcheck report` and commit reports/")


def test_a_sweep_under_an_old_key_is_caught():
    """Planted: one entry left under another key (a sweep not rerun after an edit) fails the comparison."""
    keys = _committed_keys()
    function = sorted(keys)[0]
    planted = keys[function] | {"0" * 64}
    assert planted != {next(iter(keys[function]))}
