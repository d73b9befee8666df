"""Which paper a claim belongs to: the prefix of its id (``moore.eq7.yhat`` → ``moore``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["PAPERS", "group_by_paper", "paper_of", "paper_title"]

#: Titles of the papers (``shared/papers/README.md``) and of the ₀F₁ part, by claim-id prefix.
PAPERS = {
    "moore": "Moore (2016), Symmetrized Variational Inference (workshop paper, poster, App. A, Listing 1)",
    "gelberg": "Gelberg, van der Ouderaa, van der Wilk & Gal, Variational Inference Failures Under Model "
               "Symmetries: Permutation Invariant Posteriors for Bayesian Neural Networks",
    "turner": "Turner, Berkes & Sahani, Technical Report for Biases in Variational Learning",
    "louizos": "Louizos & Welling, Structured and Efficient Variational Deep Learning with Matrix Gaussian "
               "Posteriors (supplement: KL between matrix-variate Gaussians)",
    "hyp0f1": "₀F₁(k/2; AAᵀ/4) of matrix argument: Muirhead (1982), Koev & Edelman (2006) and symcheck's "
              "own derivations",
}


def paper_of(claim_id: str) -> str:
    """Return the paper prefix of a claim id (the part before the first dot)."""
    return claim_id.split(".", 1)[0]


def paper_title(prefix: str) -> str:
    """Return the title of paper ``prefix``; a prefix not listed in :data:`PAPERS` is its own title."""
    return PAPERS.get(prefix, prefix)


def group_by_paper(results: Iterable[Mapping]) -> dict[str, list[Mapping]]:
    """Group claim results (dicts with an ``id``) by paper, papers in :data:`PAPERS` order first.

    Prefixes that :data:`PAPERS` does not list (claims added later) follow in alphabetical order.
    """
    groups: dict[str, list[Mapping]] = {}
    for r in results:
        groups.setdefault(paper_of(r["id"]), []).append(r)
    order = [p for p in PAPERS if p in groups] + sorted(set(groups) - set(PAPERS))
    return {p: groups[p] for p in order}
