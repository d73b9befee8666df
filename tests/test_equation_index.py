"""The report's (paper, equation) → code index (symcheck/report/sections/equation_index.py).

Expected values are read off the papers' numbering and the code's own names: eq. (48) of
Turner et al. is ``models.turner_fa.eq48_kl`` and claim ``turner.eq48.fa-kl``; a source citing
"eqs. (8)–(10)" covers (8), (9) and (10).
"""

from __future__ import annotations

import importlib
import json
from types import SimpleNamespace

import pytest

import symcheck.models.moore as moore_model
from symcheck.claims import all_claims
from symcheck.report.sections import equation_index as ei


@pytest.mark.parametrize("source, labels", [
    ("Turner, Berkes & Sahani, Sec. 2.1, eqs. (8)–(10)", ["(8)", "(9)", "(10)"]),
    ("Moore, Sec. 3, eqs. (4)–(5)", ["(4)", "(5)"]),
    ("Gelberg et al., Cor. 4.2, Eqs. (6)–(7)", ["(6)", "(7)", "Cor. 4.2"]),
    ("x, eq. (3), (5) and (7); Figs. 3–5", ["(3)", "(5)", "(7)", "Fig. 3"]),
    ("Muirhead (1982), Thm. 7.4.1 and §7.5", ["Thm. 7.4.1"]),
    ("Gelberg et al., Sec. 5 (tractable BNN), Table 2", ["Table 2"]),
    ("Moore (2016), App. A, eq. (7) vs Listing 1", ["(7)", "Listing 1"]),
    ("Moore (2016), App. A (q̃ as a Haar mixture)", ["App. A"]),
    ("Koev & Edelman (2006), Math. Comp. 75, §4", ["§4"]),
    ("symcheck derivation", ["text"]),
])
def test_labels_of_sources(source, labels):
    assert ei.labels_of(source) == labels


@pytest.fixture(scope="module")
def index():
    return ei.equation_index()


def _row(index, paper, label):
    return next(r for r in index[paper] if r["label"] == label)


def test_printed_equation_and_its_claims_share_a_row(index):
    row = _row(index, "turner", "(48)")
    assert {"symcheck.models.turner_fa.eq48_kl", "symcheck.models.turner_fa.eq48_kl_corrected"} <= set(row["code"])
    assert "turner.eq48.fa-kl" in row["claims"]
    assert "symcheck.claims.turner_fa._check_eq48" in row["checks"]
    assert "symcheck.models.moore.eq7_printed" in _row(index, "moore", "(7)")["code"]
    assert "symcheck.kl.kl_matrix_normal" in _row(index, "louizos", "(4)")["code"]
    assert [r["claims"] for r in index["turner"] if r["label"] == "(9)"] == [["turner.eq10.ar1-pair"]]


def test_every_claim_and_every_code_entry_is_indexed(index):
    claimed = {c for rows in index.values() for r in rows for c in r["claims"]}
    assert claimed == {c.id for c in all_claims()}
    for rows in index.values():
        for r in rows:
            for path in r["code"]:
                module, name = path.rsplit(".", 1)
                assert callable(getattr(importlib.import_module(module), name))


def test_a_declared_name_that_does_not_exist_is_refused(monkeypatch):
    monkeypatch.setattr(moore_model, "EQUATIONS", {"eq99_missing": ("moore", "eq. (99)")}, raising=False)
    with pytest.raises(AttributeError, match="eq99_missing"):
        ei.code_entries()


def test_render_writes_markdown_and_json(tmp_path, index):
    written = {}
    ctx = SimpleNamespace(write_json=lambda name, obj: written.setdefault(name, json.loads(json.dumps(obj))))
    md = ei.render(ctx)
    assert "| (48) | `symcheck.models.turner_fa.eq48_kl`" in md
    assert {r["label"] for r in written["equation_index"]["gelberg"]} >= {"(11)", "Thm. 4.3"}
