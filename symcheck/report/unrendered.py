"""Find Markdown that the report would show as raw text instead of rendering it.

Two views of the same defects:

* :func:`markdown_problems` reads a section's Markdown as the HTML renderer parses it
  (:func:`symcheck.report.math.markdown_html`): a table whose header and delimiter rows have
  different cell counts (it is then printed as a paragraph of pipes), a table row with more
  cells than its header (CommonMark drops the extra cells silently: a ``|`` inside a cell must
  be written ``\\|``), reST markup (a role such as ``:func:`` before a code span, a literal in
  double backticks), and ``$…$`` that was not parsed as math;
* :func:`html_problems` reads a rendered page: a paragraph line that is a table row or a table's
  delimiter row, a reST role or double backticks in the text, ``$…$`` outside ``<math>``.

Text inside ``<code>``, ``<pre>`` and ``<math>`` (in HTML) or code spans and blocks (in
Markdown) is never a problem: it is shown as written on purpose.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from symcheck.report.math import INLINE_MATH, REST_ROLE, markdown_parser

__all__ = ["ReportMarkdownWarning", "html_problems", "markdown_problems"]


class ReportMarkdownWarning(UserWarning):
    """A section's Markdown would be shown raw in the HTML report (see :func:`markdown_problems`)."""

#: A table's delimiter row (``|---|:--:|``): printed as text only when its table failed to parse.
_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$")
#: A line laid out as a table row: starts and ends with a pipe and has at least one more inside.
_TABLE_ROW = re.compile(r"^\s*\|.*\|.*\|\s*$")
_CELL_SEP = re.compile(r"(?<!\\)\|")
_VERBATIM_TAGS = {"code", "pre", "math", "script", "style"}


def _cells(line: str) -> int:
    """Number of cells of a table line, split as CommonMark tables split them (``\\|`` is no separator)."""
    parts = _CELL_SEP.split(line.strip())
    if parts and parts[0] == "":
        parts.pop(0)
    if parts and parts[-1] == "":
        parts.pop()
    return len(parts)


def _text_problems(text: str, where: str) -> list[str]:
    """reST roles, double backticks and unparsed ``$…$`` in text shown as it is."""
    found = []
    if REST_ROLE.search(text):
        found.append(f"{where}: reST role {REST_ROLE.search(text).group()!r} (write Markdown: `name`)")
    if "``" in text:
        found.append(f"{where}: reST double backticks (write Markdown: `name`)")
    m = re.search(INLINE_MATH, text)
    if m:
        found.append(f"{where}: ${m.group(1)}$ left as text, not rendered as math")
    return found


def markdown_problems(markdown: str) -> list[str]:
    """Return the defects of ``markdown`` that the HTML report would show as raw Markdown.

    Parameters
    ----------
    markdown : str
        A section's Markdown (CommonMark with tables and ``$…$`` math).

    Returns
    -------
    list of str
        One message per defect, naming its line (1-based); empty if there is none.
    """
    lines = markdown.splitlines()
    found = []
    tokens = markdown_parser(convert_rest_roles=False).parse(markdown)
    for tok in tokens:
        start, end = tok.map if tok.map else (0, 0)
        if tok.type == "table_open":
            width = _cells(lines[start + 1])
            for i in range(start, end):
                if i != start + 1 and _cells(lines[i]) > width:
                    found.append(f"line {i + 1}: table row has {_cells(lines[i])} cells, its header {width}; "
                                 "extra cells are dropped (write a pipe inside a cell as \\|)")
        elif tok.type == "paragraph_open":
            for i in range(start, end):
                if _DELIMITER_ROW.match(lines[i]) or _TABLE_ROW.match(lines[i]):
                    found.append(f"line {i + 1}: table printed as a paragraph of pipes (the header row must have "
                                 "as many cells as the delimiter row; write a pipe inside a cell as \\|)")
                    break
        elif tok.type == "inline":
            for child in tok.children or []:
                if child.type == "text":
                    found += _text_problems(child.content, f"paragraph at line {start + 1}")
                elif child.type == "code_inline" and child.markup == "``" and "`" not in child.content:
                    found.append(f"paragraph at line {start + 1}: reST double backticks ``{child.content}`` "
                                 "(write Markdown: `name`)")
    return found


class _PageText(HTMLParser):
    """Collects the problems of the text of a page, outside verbatim elements."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.paragraph: list[str] | None = None
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in {"br", "img", "hr", "meta", "link", "input", "col", "wbr"}:
            self.open.append(tag)
        if tag == "p":
            self.paragraph = []

    def handle_endtag(self, tag):
        if tag in self.open:
            while self.open.pop() != tag:
                pass
        if tag == "p" and self.paragraph is not None:
            for line in "".join(self.paragraph).splitlines():
                if _DELIMITER_ROW.match(line) or _TABLE_ROW.match(line):
                    self.found.append(f"line {self.getpos()[0]}: paragraph laid out as a table row: {line.strip()[:80]!r}")
                    break
            self.paragraph = None

    def handle_data(self, data):
        if self.paragraph is not None:
            self.paragraph.append(data)
        if not _VERBATIM_TAGS.intersection(self.open):
            self.found += _text_problems(data, f"line {self.getpos()[0]}")


def html_problems(html: str) -> list[str]:
    """Return the raw Markdown and reST visible in a rendered HTML page.

    Parameters
    ----------
    html : str
        One page of the report.

    Returns
    -------
    list of str
        One message per defect, naming its line in the page; empty if there is none.
    """
    parser = _PageText()
    parser.feed(html)
    parser.close()
    return parser.found
