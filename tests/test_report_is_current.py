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


def _committed_keys(folder: Path = CACHE) -> dict[str, set[str]]:
    keys = defaultdict(set)
    for path in sorted(folder.glob("*/*.json")):
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


def test_a_sweep_under_an_old_key_is_caught(tmp_path):
    """Planted: a copy of one sweep's entries plus one left under another key (a sweep not rerun after an edit):
    the comparison of the test above fails on it, and holds on the untouched copy."""
    from symcheck.claims import all_claims
    from symcheck.report.codekey import code_key

    all_claims()
    folder = next(p for p in sorted(CACHE.iterdir()) if p.is_dir() and any(p.glob("*.json")))
    copy = tmp_path / folder.name
    copy.mkdir()
    entries = sorted(folder.glob("*.json"))[:2]
    for path in entries:
        (copy / path.name).write_text(path.read_text())
    function = json.loads(entries[0].read_text())["function"]
    key = code_key(_function(function))
    if _other_libraries():
        pytest.skip("the report was made with other library versions")
    assert _committed_keys(tmp_path)[function] == {key}
    stale = json.loads(entries[1].read_text()) | {"code": "0" * 64}
    (copy / entries[1].name).write_text(json.dumps(stale))
    assert _committed_keys(tmp_path)[function] != {key}


def _claims_codes(folder: Path = CACHE) -> set[str]:
    """The claims-code digests the claims-at-seeds entries were computed under (their `args["code"]`)."""
    return {json.loads(path.read_text())["args"]["code"] for path in sorted((folder / "claim_seeds").glob("*.json"))}


def test_claims_at_seeds_carry_the_claims_code():
    """The claims-at-seeds entries key on a digest of every module a claim can reach (in their arguments, as
    the registry finds its claim modules at run time): it must be the digest of the code as it is now."""
    from symcheck.report.claim_seeds import claims_code_version

    if _other_libraries():
        pytest.skip("the report was made with other library versions")
    assert _claims_codes() == {claims_code_version()}, (
        "reports/cache/claim_seeds was computed with other claims code (a module under symcheck/ outside "
        "report/, testing/ and cli.py changed); run `symcheck report` and commit reports/")


def test_claims_code_changes_with_any_module_a_claim_can_reach(tmp_path):
    """Planted: a copy of the package with one comment added to symcheck/sweep.py no longer matches the
    committed entries' digest (the comparison above would fail), while the untouched copy does."""
    import shutil

    import symcheck
    from symcheck.report.claim_seeds import claims_code_version

    if _other_libraries():
        pytest.skip("the report was made with other library versions")
    root = tmp_path / "symcheck"
    shutil.copytree(Path(symcheck.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    assert _claims_codes() == {claims_code_version(root)}
    with open(root / "sweep.py", "a", encoding="utf-8") as fh:
        fh.write("# planted edit\n")
    assert _claims_codes() != {claims_code_version(root)}
