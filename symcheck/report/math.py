"""LaTeX → MathML for the HTML report (rendered by the browser itself: no script, no network).

Conversion is done by :mod:`latex2mathml`. Text may carry inline math between single dollar
signs (``$\\frac{a}{b}$``); :func:`inline_math` converts those spans and escapes the rest, and
:class:`MathExtension` does the same inside Markdown.
"""

from __future__ import annotations

import re

from latex2mathml.converter import convert
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markupsafe import Markup, escape

__all__ = ["MathExtension", "formula", "inline_math", "is_latex", "latex_to_mathml"]

#: ``$…$`` on one line, not preceded by a backslash (``\$`` is a literal dollar).
INLINE_MATH = r"(?<!\\)\$([^$\n]+?)\$"


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


class _MathInline(InlineProcessor):
    def handleMatch(self, m, data):  # noqa: N802 - Markdown's API name
        return self.md.htmlStash.store(str(latex_to_mathml(m.group(1)))), m.start(0), m.end(0)


class MathExtension(Extension):
    """Python-Markdown extension: ``$…$`` becomes MathML (before escapes and emphasis are read)."""

    def extendMarkdown(self, md):  # noqa: N802 - Markdown's API name
        md.inlinePatterns.register(_MathInline(INLINE_MATH, md), "symcheck-math", 185)
