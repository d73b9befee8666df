"""LaTeX → MathML for the HTML report (rendered by the browser itself: no script, no network).

Conversion is done by :mod:`latex2mathml`. Plain text (claim statements, evidence) may carry
inline math between single dollar signs (``$\\frac{a}{b}$``); :func:`inline_math` converts
those spans and escapes the rest. :func:`markdown_html` renders a section's Markdown
(CommonMark with tables, as GitHub reads ``README.md``) with ``$…$`` and ``$$…$$`` as MathML, and
drops a reST role left before a code span (":func:`name`" is shown as the code `name`), so a docstring
written for Sphinx does not leak its markup into a page; :mod:`symcheck.report.unrendered` finds such
leaks in the sources, so that they are fixed there too.
"""

from __future__ import annotations

import re

from latex2mathml.converter import convert
from markdown_it import MarkdownIt
from markupsafe import Markup, escape
from mdit_py_plugins.dollarmath import dollarmath_plugin

__all__ = ["REST_ROLE", "formula", "inline_math", "is_latex", "latex_to_mathml", "markdown_html", "markdown_parser"]

#: ``$…$`` on one line, as in pandoc and :func:`markdown_html`: no space just inside the dollars, no
#: digit just after the closing one, and ``\$`` is a literal dollar ("$5 and $6" stays text).
INLINE_MATH = r"(?<![\\$])\$(?=[^\s$])([^$\n]*?[^\s$\\])\$(?!\d)"
#: A reST/Sphinx role such as ``:func:`` or ``:py:class:``, as it leaks from a docstring.
REST_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|data|meth|attr|obj|exc|ref|doc|const|term|math):(?=`|\s|$)")


def latex_to_mathml(latex: str, display: str = "inline") -> Markup:
    """Return the MathML of a LaTeX formula; unparsable LaTeX is shown as code, never dropped.

    Parameters
    ----------
    latex : str
        The formula, without dollar signs.
    display : {"inline", "block"}
        MathML display mode.
    """
    try:
        return Markup(convert(latex, display=display))
    except Exception:  # noqa: BLE001 - latex2mathml raises many types; show the source instead
        return Markup('<code class="latex-unrendered">') + escape(latex) + Markup("</code>")


def inline_math(text: str) -> Markup:
    """Escape ``text`` for HTML, rendering its ``$…$`` spans as MathML."""
    out, pos = Markup(""), 0
    for m in re.finditer(INLINE_MATH, text):
        out += escape(text[pos:m.start()]) + latex_to_mathml(m.group(1))
        pos = m.end()
    return out + escape(text[pos:])


def is_latex(text: str) -> bool:
    """Whether a formula field is LaTeX as a whole: it has a control sequence and no ``$`` spans.

    Claims write printed and corrected forms as LaTeX (``\\frac{a}{b}``), as prose with
    ``$…$`` math, or as plain prose (a claim about a figure, say).
    """
    return "$" not in text and re.search(r"\\[A-Za-z|{},;:! ]", text) is not None


def formula(text: str) -> Markup:
    """HTML of a printed or corrected form: LaTeX as MathML, prose with its ``$…$`` spans rendered."""
    return latex_to_mathml(text) if is_latex(text) else inline_math(text)


def _drop_rest_roles(state) -> None:
    """Core rule: remove a reST role written just before a code span (":mod:`x`" → `x`)."""
    for tok in state.tokens:
        children = tok.children or []
        for text, code in zip(children, children[1:]):
            if text.type == "text" and code.type == "code_inline":
                m = re.search(REST_ROLE.pattern + "$", text.content)
                if m:
                    text.content = text.content[:m.start()]
                    code.content = code.content.removeprefix("~")


def markdown_parser(convert_rest_roles: bool = True) -> MarkdownIt:
    """The report's Markdown parser: CommonMark, tables, ``$…$`` / ``$$…$$`` math rendered as MathML.

    Parameters
    ----------
    convert_rest_roles : bool
        Drop a reST role written before a code span (the renderer's guard); ``False`` keeps the
        tokens as written, to find such roles (:func:`symcheck.report.unrendered.markdown_problems`).
    """
    # dollars as in pandoc: no space inside the delimiters, no digit after the closing one ("$5 and $6" is text)
    md = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, allow_space=False, allow_digits=False)
    md.add_render_rule("math_inline", lambda self, tokens, idx, options, env: str(latex_to_mathml(tokens[idx].content)))
    md.add_render_rule("math_block", lambda self, tokens, idx, options, env:
                       str(latex_to_mathml(tokens[idx].content, display="block")) + "\n")
    if convert_rest_roles:
        md.core.ruler.push("drop_rest_roles", _drop_rest_roles)
    return md


_MARKDOWN = markdown_parser()


def markdown_html(text: str) -> Markup:
    """HTML of a section's Markdown: CommonMark and tables, ``$…$`` / ``$$…$$`` as MathML."""
    return Markup(_MARKDOWN.render(text))
