"""The arrows between symcheck's parts point one way: kernels and models do not know that the
claim registry or the report exist.

Every module's imports are read with `ast` (top-level and lazy ones inside functions, relative
imports resolved), without importing anything, and checked against three rules:

1. Only `symcheck.claims`, `symcheck.report` and `symcheck.cli` may import `symcheck.claims` or
   `symcheck.report`: the ₀F₁ kernels, models, groups, KL, Haar, symmetrization, orthogonal and
   experiment modules (and every other helper module) may not.
2. The kernels below `symcheck.models` (everything except `claims`, `report`, `experiments`,
   `cli` and `models` itself) may not import `symcheck.models`, so no folder cycle forms (as
   `groups` → `models/mlp` → … → `models/gelberg_bnn` → `groups` once did).
3. Report sections read the registry (`symcheck.claims`), never a claim module's internals
   (`symcheck.claims.<module>`): what a section shares with a claim lives in `symcheck.models`.
4. The claims import neither the report, nor the checkers of other people's code
   (`symcheck.testing`), nor the command line: `symcheck.report.claim_seeds.claims_code_version`
   leaves those out of the digest that keys the 30-seed sweep, so a claim reaching them would go stale.

Planted bugs: synthetic sources with each kind of forbidden import are caught. The same file
checks that the 64·eps rounding allowance is written as `symcheck.evidence.ROUNDING`, not inline.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "symcheck"

#: Modules (and packages, with everything below them) allowed to import the registry and the report.
UPPER = ("symcheck.claims", "symcheck.report", "symcheck.cli")
#: Modules allowed to import symcheck.models (besides the models themselves).
MODEL_READERS = UPPER + ("symcheck.experiments", "symcheck.models")


def _within(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def module_name(path: Path) -> str:
    """Dotted name of a file under symcheck/ (a package's __init__ is the package)."""
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, name: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the module ``name``) imports, anywhere in the file.

    ``from a.b import c`` counts as importing both ``a.b`` and ``a.b.c`` (c may be a submodule);
    relative imports are resolved against ``name``.
    """
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
    return found


def violations(source: str, name: str, is_package: bool = False) -> list[str]:
    """The forbidden imports of module ``name`` (rules 1–3 of the module docstring)."""
    out, reported = [], []
    for target in sorted(imported_modules(source, name, is_package)):
        if _within(target, reported):  # ``from a.b import c``: a.b is already named
            continue
        before = len(out)
        if _within(target, ("symcheck.claims", "symcheck.report")) and not _within(name, UPPER):
            out.append(f"{name} imports {target}: kernels and models may not know the registry or the report")
        if _within(target, ("symcheck.models",)) and not _within(name, MODEL_READERS):
            out.append(f"{name} imports {target}: a kernel below symcheck.models may not import a model")
        if (_within(name, ("symcheck.report.sections",)) and _within(target, ("symcheck.claims",))
                and target.count(".") >= 2 and target.split(".")[2] in _claim_modules()):
            out.append(f"{name} imports {target}: report sections read the registry, not a claim module")
        if (_within(name, ("symcheck.claims",))
                and _within(target, ("symcheck.report", "symcheck.testing", "symcheck.cli"))):
            out.append(f"{name} imports {target}: a claim may not import the report, symcheck.testing or the CLI")
        if len(out) > before:
            reported.append(target)
    return out


def _claim_modules() -> set[str]:
    return {p.stem for p in (ROOT / "claims").glob("*.py") if p.stem != "__init__"}


def _modules():
    return sorted(ROOT.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_forbidden_import(path):
    name = module_name(path)
    assert violations(path.read_text(encoding="utf-8"), name, path.name == "__init__.py") == []


def test_every_part_of_the_issue_is_scanned():
    names = {module_name(p) for p in _modules()}
    for must in ("symcheck.hyp0f1.api", "symcheck.hyp0f1.reference_data", "symcheck.models.turner_fa",
                 "symcheck.models.gelberg_experiments", "symcheck.groups", "symcheck.kl", "symcheck.haar",
                 "symcheck.haar_quadrature", "symcheck.symmetrize", "symcheck.orthogonal",
                 "symcheck.report.sections.turner_figures"):
        assert must in names


# ----- planted bugs: each kind of forbidden import is caught ------------------------------------

@pytest.mark.parametrize("name, source", [
    ("symcheck.models.turner_fa", "from symcheck.claims import minimiser_radius\n"),
    ("symcheck.hyp0f1.reference_data", "def f():\n    from symcheck.report.provenance import git_commit\n"),
    ("symcheck.hyp0f1.reference_data", "from ..report import provenance\n"),
    ("symcheck.groups", "from symcheck import claims\n"),
    ("symcheck.orthogonal", "import symcheck.report.cache as c\n"),
    ("symcheck.groups", "from symcheck.models.mlp import unpack_mlp\n"),
    ("symcheck.hyp0f1", "from ..models import moore_mf\n"),
    ("symcheck.report.sections.turner_figures", "from symcheck.claims.turner_lds import FIG2\n"),
    ("symcheck.report.sections.turner_figures", "from symcheck.claims import turner_lds\n"),
    ("symcheck.claims.moore_experiments", "from symcheck.report.verdict import verdict\n"),
    ("symcheck.claims.hyp0f1_series", "def f():\n    from symcheck.testing import check_log_hyp0f1\n"),
    ("symcheck.claims", "from symcheck import cli\n"),
])
def test_a_planted_forbidden_import_is_caught(name, source):
    assert violations(source, name, is_package=name == "symcheck.hyp0f1")


@pytest.mark.parametrize("name, source", [
    ("symcheck.models.turner_fa", "from symcheck.certify import brent_argmax_tolerance\nfrom ..kl import kl_gaussian\n"),
    ("symcheck.claims.turner_fa", "from symcheck.models.turner_fa import W_BOUNDS\nfrom symcheck.claims import Claim\n"),
    ("symcheck.report.sections.equation_index", "from symcheck.claims import all_claims\n"),
    ("symcheck.cli", "def f():\n    from symcheck.report import build_report\n"),
])
def test_allowed_imports_pass(name, source):
    assert violations(source, name) == []


def test_relative_imports_resolve():
    assert "symcheck.report.provenance" in imported_modules("from ..report import provenance\n", "symcheck.hyp0f1.x")
    assert "symcheck.kl" in imported_modules("from . import kl\n", "symcheck", is_package=True)
    assert "symcheck.hyp0f1.series" in imported_modules("from .series import x\n", "symcheck.hyp0f1.holonomic")


# ----- the rounding allowance is named once ------------------------------------------------------

#: ``64 * EPS``-style allowances written inline instead of ``symcheck.evidence.ROUNDING``.
INLINE_ROUNDING = re.compile(r"\b64 \*(?: [\w.*]+ \*)? (?:EPS|eps|np\.finfo\(float\)\.eps|float\(np\.finfo\(float\)\.eps\))")
#: Where it may stand: its definition only.
ROUNDING_DEFINED_IN = {"symcheck/evidence.py"}


def inline_rounding(source: str) -> list[str]:
    """Code lines (comments and strings aside) writing the 64·eps allowance inline."""
    out = []
    for line in source.splitlines():
        code = line.split("#", 1)[0]
        if INLINE_ROUNDING.search(code):
            out.append(line.strip())
    return out


def test_the_rounding_allowance_is_named_not_inlined():
    root = ROOT.parent
    found = {str(p.relative_to(root)): inline_rounding(p.read_text(encoding="utf-8"))
             for d in ("symcheck", "tests", "benchmarks") for p in sorted((root / d).rglob("*.py"))}
    here = str(Path(__file__).resolve().relative_to(root))  # this file plants inline allowances on purpose
    assert {k: v for k, v in found.items() if v and k not in ROUNDING_DEFINED_IN | {here}} == {}


@pytest.mark.parametrize("line", ["tol = 64 * EPS * size", "x = 64 * n * EPS", "e = 64 * np.finfo(float).eps"])
def test_a_planted_inline_allowance_is_caught(line):
    assert inline_rounding(line) == [line]
    assert inline_rounding("# 64 * EPS in a comment") == []
