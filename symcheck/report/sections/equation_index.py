"""Report section: where each equation of each paper lives in the code, and which claims check it.

Derived, not written by hand:

* every claim names its paper (the id prefix, :func:`symcheck.report.papers.paper_of`) and its
  source ("Sec. 2.1, eqs. (8)–(10)"); the equation, theorem, figure, table and listing labels of
  the source are the claim's keys (ranges are expanded: eqs. (8)–(10) → (8), (9), (10));
* every function ``eqNN_*`` of a module ``symcheck/models/<paper>_*.py`` implements eq. (NN) of
  that paper as printed (``eqNN_*_corrected`` its corrected twin);
* functions that implement a labelled result under another name are declared in their module's
  ``EQUATIONS`` dict, ``{function name: (paper prefix, label)}``, e.g.
  ``{"elbo_symmetrized_eq5": ("moore", "eq. (5)")}``.

A reader looking for eq. (n) of a paper finds its row here: the code that implements it and the
claims that check it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import defaultdict

from symcheck import models as _models
from symcheck.claims import all_claims
from symcheck.report.papers import group_by_paper, paper_of, paper_title

ORDER = 90
TITLE = "Equation index: (paper, equation) → code and claims"

#: Modules outside ``symcheck.models`` whose ``EQUATIONS`` dicts are read.
CODE_MODULES = ("symcheck.symmetrize", "symcheck.kl", "symcheck.groups", "symcheck.mlp", "symcheck.orthogonal")

_DASH = r"\s*[–-]\s*"
_EQ = re.compile(r"\b[Ee]qs?\.\s*\((\d+)\)((?:(?:" + _DASH + r"|\s*,\s*|\s+and\s+)\(\d+\))*)")
_MORE = re.compile(r"(" + _DASH + r"|\s*,\s*|\s+and\s+)\((\d+)\)")
_NAMED = re.compile(r"\b(Thm|Cor|Def|Figs?|Table|Listing|Lemma|Prop|footnote)\.?\s+(\d+(?:\.\d+)*)")
_SEC = re.compile(r"\b(App|Sec)\.\s+([A-Z0-9](?:\.\d+)*)|§\s*(\d+(?:\.\d+)*)")
#: How each kind of label is written in the index.
_KIND = {"Figs": "Fig.", "Table": "Table", "Listing": "Listing", "footnote": "footnote"}
_MODEL_FN = re.compile(r"^eq(\d+)_")


def labels_of(source: str) -> list[str]:
    """The equation / theorem / figure labels a source string cites, e.g. ``["(8)", "(9)", "Thm. 4.1"]``.

    Equation ranges ``eqs. (a)–(b)`` expand to every number from a to b; lists ``(a), (b) and (c)``
    to each. A source citing none of these is keyed by its first section (``"Sec. 2.1"``) or
    ``"text"``.
    """
    out = []
    for m in _EQ.finditer(source):
        prev = int(m.group(1))
        out.append(f"({prev})")
        for sep, num in _MORE.findall(m.group(2)):
            num = int(num)
            span = range(prev + 1, num + 1) if sep.strip() in ("–", "-") else [num]
            out += [f"({n})" for n in span]
            prev = num
    for kind, num in _NAMED.findall(source):
        out.append(f"{_KIND.get(kind, kind + '.')} {num}")
    if not out:
        sec = _SEC.search(source)
        out.append("text" if sec is None else f"§{sec.group(3)}" if sec.group(3) else f"{sec.group(1)}. {sec.group(2)}")
    return list(dict.fromkeys(out))


def _qualname(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}".replace(".<locals>.<lambda>", "").replace(".<lambda>", "")


def _code_modules():
    mods = [importlib.import_module(f"{_models.__name__}.{info.name}") for info in pkgutil.iter_modules(_models.__path__)]
    return mods + [importlib.import_module(name) for name in CODE_MODULES]


def code_entries() -> list[dict]:
    """Functions implementing labelled results: ``eqNN_*`` of the models and declared ``EQUATIONS``."""
    rows = []
    for mod in _code_modules():
        short = mod.__name__.rsplit(".", 1)[-1]
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            m = _MODEL_FN.match(name)
            if m and fn.__module__ == mod.__name__ and mod.__name__.startswith(_models.__name__ + "."):
                rows.append({"paper": short.split("_", 1)[0], "label": f"({int(m.group(1))})",
                             "code": f"{mod.__name__}.{name}"})
        for name, (paper, label) in getattr(mod, "EQUATIONS", {}).items():
            getattr(mod, name)  # a declared name must exist
            for lab in labels_of(label):
                rows.append({"paper": paper, "label": lab, "code": f"{mod.__name__}.{name}"})
    return rows


def _label_key(label: str):
    num = re.findall(r"\d+", label)
    kind = 0 if label.startswith("(") else 1
    return (kind, label.split(" ")[0] if kind else "", [int(n) for n in num])


def equation_index(claims=None) -> dict[str, list[dict]]:
    """The index, by paper: rows ``{"label", "code": [...], "claims": [...], "checks": [...]}`` sorted by label.

    Parameters
    ----------
    claims : list of Claim, optional
        Default: the whole registry.
    """
    table: dict[tuple[str, str], dict] = defaultdict(lambda: {"code": [], "claims": [], "checks": []})
    for c in all_claims() if claims is None else claims:
        for lab in labels_of(c.source):
            row = table[(paper_of(c.id), lab)]
            row["claims"].append(c.id)
            row["checks"].append(_qualname(c.check))
    for e in code_entries():
        table[(e["paper"], e["label"])]["code"].append(e["code"])
    rows = [{"id": paper, "paper": paper, "label": lab, **{k: sorted(set(v)) for k, v in row.items()}}
            for (paper, lab), row in table.items()]
    return {p: sorted(rs, key=lambda r: _label_key(r["label"])) for p, rs in group_by_paper(rows).items()}


def render(ctx) -> str:
    index = equation_index()
    out = ["Where eq. (n) of a paper is implemented and which claims check it, derived from the claims "
           "registry (each claim's source) and the code: `eqNN_*` functions of `symcheck/models/<paper>_*.py` "
           "(printed form; `*_corrected` the corrected twin) and the `EQUATIONS` declarations of modules "
           "implementing a result under another name. Equation ranges cited by a claim are expanded.\n"]
    data = {}
    for paper, rows in index.items():
        out.append(f"### {paper_title(paper)}\n")
        out.append("| label | code | claims |")
        out.append("|---|---|---|")
        for r in rows:
            code = ", ".join(f"`{c}`" for c in r["code"]) or "—"
            claims = ", ".join(f"`{c}`" for c in r["claims"]) or "—"
            out.append(f"| {r['label']} | {code} | {claims} |")
        out.append("")
        data[paper] = [{k: r[k] for k in ("label", "code", "claims", "checks")} for r in rows]
    ctx.write_json("equation_index", data)
    return "\n".join(out)
