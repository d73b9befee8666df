"""One test per registered claim: the same claim objects the report reads.

A "verify" claim passes when its statement holds; an "erratum" claim passes when the
printed form fails and the corrected form holds. Either way the check compares two
independent routes with a derived tolerance, so it can fail.
"""

import pytest

from symcheck.claims import all_claims

CLAIMS = all_claims()


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim(claim):
    result = claim.run()
    expected = "holds" if claim.kind == "verify" else "erratum"
    assert result.status == expected, (
        f"{claim.id} [{claim.source}]: {claim.statement}\n"
        f"printed/fast={result.printed!r} independent={result.independent!r} "
        f"corrected={result.corrected!r} tol={result.tolerance!r}\n{result.detail}"
    )


def test_registry_is_not_empty():
    assert len(CLAIMS) > 0
