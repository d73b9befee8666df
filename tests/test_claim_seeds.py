"""Claims run at the seeds where they used to fail (before their tolerances or draws were derived).

A claim must hold at any seed; these seeds broke it once: ``turner.eq47`` assumed a gradient of
1e-10 from a BFGS run at gtol 1e-9 (11 of seeds 0..199 failed), and the ₀F₁ closed-form
claims drew σ that the series or the reference cannot evaluate (ValueError at about a quarter of
the seeds). ``test_claims.py`` runs every claim at the default seed.
"""

import pytest

from symcheck.claims import get_claim

CASES = [("turner.eq47.fa-factor-variances", s) for s in (7, 28, 31, 34)] + [
    ("hyp0f1.series.closed-forms", 1),
    ("hyp0f1.series.closed-forms", 3),
    ("hyp0f1.series.reference-closed-forms", 1),
    ("hyp0f1.series.reference-closed-forms", 2),
]


@pytest.mark.parametrize("claim_id, seed", CASES, ids=[f"{c}@{s}" for c, s in CASES])
def test_claim_at_former_failing_seed(claim_id, seed):
    claim = get_claim(claim_id)
    result = claim.run(seed)
    expected = "holds" if claim.kind == "verify" else "erratum"
    assert result.status == expected, f"{claim_id} at seed {seed}: {result.status}\n{result.detail}"
