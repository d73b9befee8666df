"""The HTML pages of the report: overview (errata first), one page per paper, one per section.

Pages are Jinja2 templates (``templates/``, autoescaped) with one stylesheet (``static/report.css``).
Formulas are MathML (:mod:`symcheck.report.math`), so the pages need no script and no network.
Section Markdown is CommonMark with tables and ``$…$`` math (:func:`symcheck.report.math.markdown_html`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from importlib import resources

from jinja2 import Environment, PackageLoader, select_autoescape

from symcheck.report.math import formula, inline_math, markdown_html
from symcheck.report.papers import group_by_paper, paper_of, paper_title
from symcheck.report.stamps import kept_note
from symcheck.report.verdict import fmt, verdict

__all__ = ["paper_page", "render_pages", "section_page"]

_ENV = Environment(loader=PackageLoader("symcheck.report", "templates"), autoescape=select_autoescape(["html"]),
                   trim_blocks=True, lstrip_blocks=True)


def paper_page(prefix: str) -> str:
    """File name of the page of paper ``prefix``."""
    return f"paper-{prefix}.html"


def section_page(name: str) -> str:
    """File name of the page of section ``name``."""
    return f"section-{name}.html"


def _claim_view(r: Mapping) -> dict:
    """What the templates show of one claim result."""
    return {
        "id": r["id"], "status": r["status"], "kind": r["kind"], "page": paper_page(paper_of(r["id"])),
        "source": inline_math(r["source"]), "statement": inline_math(r["statement"]),
        "detail": inline_math(r["detail"]), "verdict": verdict(r),
        "printed": fmt(r["printed"], 12), "corrected": fmt(r["corrected"], 12),
        "independent": fmt(r["independent"], 12), "tolerance": fmt(r["tolerance"], 3),
        "seconds": fmt(r["seconds"], 2),
        "params": json.dumps(r["params"], indent=1, ensure_ascii=False) if r["params"] else "",
        "printed_form": formula(r["printed_form"]), "corrected_form": formula(r["corrected_form"]),
    }


def _paper_view(prefix: str, claims: list[dict]) -> dict:
    counts = Counter(c["status"] for c in claims)
    return {"prefix": prefix, "title": paper_title(prefix), "page": paper_page(prefix), "n": len(claims),
            "erratum": counts["erratum"], "holds": counts["holds"], "fails": counts["fails"],
            "errata": [c for c in claims if c["status"] == "erratum"],
            "failing": [c for c in claims if c["status"] == "fails"],
            "verified": [c for c in claims if c["status"] == "holds"]}


def render_pages(claims: list[Mapping], sections: list[Mapping], prov: Mapping,
                 claims_stamp: Mapping | None) -> dict[str, str]:
    """Return every HTML page and the stylesheet of the report, by file name.

    Parameters
    ----------
    claims : list of mapping
        Claim results (``ClaimResult.to_json()``), empty if the claims were not run.
    sections : list of mapping
        Rendered sections: ``name``, ``title``, ``markdown``, ``provenance`` (as in ``report.json``).
    prov : mapping
        Provenance stamp of this run.
    claims_stamp : mapping or None
        Provenance of the claim results (an earlier run's when they were kept).
    """
    views = [_claim_view(r) for r in claims]
    papers = [_paper_view(p, cs) for p, cs in group_by_paper(views).items()]
    section_views = [{"name": s["name"], "title": s["title"], "page": section_page(s["name"]),
                      "note": kept_note(s.get("provenance"), prov, "This section")} for s in sections]
    common = {"papers": papers, "sections": section_views, "prov": prov,
              "claims_note": kept_note(claims_stamp, prov, "Claim results")}
    counts = Counter(c["status"] for c in views)
    pages = {"index.html": _ENV.get_template("index.html").render(
        page="index.html", claims=views, claims_run=claims_stamp is not None, counts=counts, **common,
        errata=[c for c in views if c["status"] == "erratum"], failing=[c for c in views if c["status"] == "fails"])}
    for p in papers:
        pages[p["page"]] = _ENV.get_template("paper.html").render(page=p["page"], paper=p, **common)
    for s, view in zip(sections, section_views):
        pages[view["page"]] = _ENV.get_template("section.html").render(
            page=view["page"], section=dict(view, body=markdown_html(s["markdown"])), **common)
    pages["report.css"] = resources.files("symcheck.report").joinpath("static/report.css").read_text()
    return pages
