"""Every real report section renders in quick mode: Markdown, and every file it links is written.

The full report takes minutes and runs outside the tests, so without this a section that
raises (a helper renamed or deleted, a key missing from a cached result) is first seen by
``symcheck report``. Quick mode runs the same code paths on smaller grids (about a minute for
all sections on 2 cores). The Markdown each section writes is also read as the HTML renderer
reads it: a table that would print as pipes, a reST role or a `$…$` left as text fails here,
in the code that writes it, before any report is generated (``tests/test_report_html.py``).
"""

import re
import warnings

import pytest

from symcheck.report import ReportContext, load_sections, section_name
from symcheck.report.math import markdown_html
from symcheck.report.unrendered import html_problems, markdown_problems

SECTIONS = load_sections()
LINK = re.compile(r"\]\(([^)\s#]+)\)")


@pytest.mark.parametrize("mod", SECTIONS, ids=section_name)
def test_section_renders_in_quick_mode(mod, tmp_path):
    ctx = ReportContext(out_dir=tmp_path, seed=20261122, quick=True, workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sections measure inaccurate methods on purpose
        markdown = mod.render(ctx)
    assert isinstance(markdown, str) and markdown.strip(), "a section must say something"
    local = [t for t in LINK.findall(markdown) if "://" not in t and not t.endswith(".html")]
    missing = [t for t in local if not (tmp_path / t).is_file()]
    assert not missing, f"{section_name(mod)} links files it did not write: {missing}"
    assert markdown_problems(markdown) == [], f"{section_name(mod)} writes Markdown the HTML page shows raw"
    assert html_problems(markdown_html(markdown)) == []
