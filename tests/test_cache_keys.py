"""The report cache's code keys: an edit reruns exactly the sweeps whose functions can reach it.

A planted package (written to a temporary folder and imported afresh for every version) has a
sweep function that calls a helper, reads constants, instantiates a class, calls a Numba kernel
that calls another one, dispatches through a registry and imports a module inside its body; each
edit of one of those must change the key (else a stale result would be reused), and each edit of
code it cannot reach must not (else the edit would rerun it for nothing).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap

import pytest

from symcheck.report.codekey import code_key, reached

PACKAGE = "ckplant"

BASE = {
    "__init__.py": "from ckplant import core, other, unrelated\n",
    "core.py": '''
        """A sweep and what it reaches."""
        from dataclasses import dataclass

        import numpy as np
        from numba import njit

        from ckplant import other

        SCALE = 2.0
        TABLE = np.array([1.0, 2.0])
        UNUSED_CONST = 5


        @dataclass(frozen=True)
        class Route:
            name: str
            weight: float
            fn: object


        def helper_a(x):
            return SCALE * x + 1.0


        def route_one(x):
            return x + 10.0


        def route_two(x):
            return x + 20.0


        REGISTRY = {}
        REGISTRY["one"] = Route("one", 1.0, route_one)
        REGISTRY["two"] = Route("two", 1.0, route_two)
        ROUTE = Route("const", 0.5, route_one)


        class Scaled:
            def __init__(self, factor):
                self.factor = factor

            def __call__(self, x):
                return self.factor * x


        TRIPLE = Scaled(3.0)


        def not_reached(x):
            return x - 1.0


        @njit
        def jitted_inner(x):
            return x * 3.0


        @njit
        def jitted(x):
            return jitted_inner(x) + 1.0


        class Model:
            def __init__(self, w):
                self.w = w

            def predict(self, x):
                return self.w * x


        def local_import(x):
            from ckplant import extra
            return extra.f(x)


        def sweep(args, rng):
            m = Model(args["w"])
            r = REGISTRY[args["route"]]
            y = helper_a(m.predict(args["x"])) + jitted(1.0) + other.used(2.0) + TABLE.sum()
            return {"y": y + r.weight * r.fn(1.0) + ROUTE.weight + local_import(1.0) + TRIPLE(1.0)}
        ''',
    "other.py": '''
        def used(x):
            return x


        def unused(x):
            return -x
        ''',
    "extra.py": '''
        def f(x):
            return 2 * x
        ''',
    "unrelated.py": '''
        """Imported by the package, used by nothing that the sweep reaches."""
        import types

        LIMIT = 3
        STAMP = float(abs(-3))
        SETTINGS = types.SimpleNamespace(dps=15)
        SETTINGS.dps = 30


        def g(x):
            return x * LIMIT
        ''',
}

#: Edits (file, old text, new text) that the sweep can see: each must change the key.
REACHED = {
    "helper body": ("core.py", "return SCALE * x + 1.0", "return SCALE * x + 1.5"),
    "constant it reads": ("core.py", "SCALE = 2.0", "SCALE = 2.5"),
    "array it reads": ("core.py", "TABLE = np.array([1.0, 2.0])", "TABLE = np.array([1.0, 2.5])"),
    "method of a class it instantiates": ("core.py", "return self.w * x", "return self.w * x * x"),
    "jitted callee of a jitted callee": ("core.py", "return x * 3.0", "return x * 3.5"),
    "jit options": ("core.py", "@njit\ndef jitted_inner", "@njit(fastmath=True)\ndef jitted_inner"),
    "function of another module": ("other.py", "return x\n", "return x + 1\n"),
    "registry entry's function": ("core.py", "return x + 20.0", "return x + 21.0"),
    "registry entry's data": ("core.py", 'Route("two", 1.0, route_two)', 'Route("two", 2.0, route_two)'),
    "callable instance's state": ("core.py", "TRIPLE = Scaled(3.0)", "TRIPLE = Scaled(3.5)"),
    "dataclass constant": ("core.py", 'Route("const", 0.5, route_one)', 'Route("const", 0.25, route_one)'),
    "module imported in the body": ("extra.py", "return 2 * x", "return 3 * x"),
    "module-level statement of a module the package imports": ("unrelated.py", "LIMIT = 3\n",
                                                               "LIMIT = 3\nprint(LIMIT)\n"),
    "a setting of a module the package imports": ("unrelated.py", "SETTINGS.dps = 30", "SETTINGS.dps = 40"),
}

#: Edits of code the sweep cannot reach: each must leave the key as it was.
UNREACHED = {
    "function of the same module": ("core.py", "return x - 1.0", "return x - 2.0"),
    "constant of the same module": ("core.py", "UNUSED_CONST = 5", "UNUSED_CONST = 6"),
    "function of an imported module": ("other.py", "return -x", "return -2 * x"),
    "function of a module the package imports": ("unrelated.py", "return x * LIMIT", "return x + LIMIT"),
    "comments and docstrings elsewhere": ("core.py", '"""A sweep and what it reaches."""', "# a comment"),
    "a computed constant of a module the package imports": ("unrelated.py", "STAMP = float(abs(-3))",
                                                            "STAMP = float(abs(-4))"),
    "a new function": ("core.py", "def not_reached(x):", "def brand_new(x):\n    return x\n\n\ndef not_reached(x):"),
}


def _sources(edit=None) -> dict[str, str]:
    files = {name: textwrap.dedent(text).lstrip("\n") for name, text in BASE.items()}
    if edit is not None:
        file, old, new = edit
        assert files[file].count(old) == 1, (file, old)
        files[file] = files[file].replace(old, new)
    return files


def _import(folder, files):
    """Write the package to ``folder`` and import it afresh; returns its ``core.sweep``."""
    pkg = folder / PACKAGE
    pkg.mkdir(parents=True)
    for name, text in files.items():
        (pkg / name).write_text(text)
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    sys.path.insert(0, str(folder))
    try:
        importlib.invalidate_caches()
        return importlib.import_module(f"{PACKAGE}.core").sweep
    finally:
        sys.path.remove(str(folder))


@pytest.fixture(autouse=True)
def _forget_the_plant():
    yield
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


@pytest.fixture
def key_of(tmp_path):
    """key_of(edit): the code key of the planted sweep with ``edit`` applied (None: the base)."""
    count = iter(range(1000))
    return lambda edit=None: code_key(_import(tmp_path / f"v{next(count)}", _sources(edit)))


def test_the_key_is_reproducible(key_of):
    assert key_of() == key_of()


@pytest.mark.parametrize("what", sorted(REACHED))
def test_an_edit_the_sweep_can_reach_changes_the_key(key_of, what):
    assert key_of(REACHED[what]) != key_of()


@pytest.mark.parametrize("what", sorted(UNREACHED))
def test_an_edit_the_sweep_cannot_reach_keeps_the_key(key_of, what):
    assert key_of(UNREACHED[what]) == key_of()


def test_reached_names_the_planted_objects(tmp_path):
    sweep = _import(tmp_path, _sources())
    names = set(reached(sweep))
    core = f"{PACKAGE}.core"
    for obj in ("sweep", "helper_a", "Model", "jitted", "jitted_inner", "route_one", "route_two", "Route",
                "SCALE", "TABLE", "REGISTRY", "local_import"):
        assert f"{core}.{obj}" in names
    assert {f"{PACKAGE}.other.used", f"{PACKAGE}.extra.f"} <= names
    assert not {f"{core}.not_reached", f"{core}.UNUSED_CONST", f"{PACKAGE}.other.unused",
                f"{PACKAGE}.unrelated.g"} & names


def test_running_the_code_does_not_change_its_key():
    """Memo tables and lru caches fill as the kernels run; the key must not follow them."""
    import numpy as np

    import symcheck
    from symcheck.experiments import moore_fig4
    from symcheck.hyp0f1 import series

    series._TABLES.clear()  # the partition tables (objects of ours in a dict) are built below, in this test
    before = reached(moore_fig4.fit_matrix)
    for method in symcheck.hyp0f1.methods.names():  # a row in each method's domain (the confluent route's has a tie)
        rows = [np.array([3.0, 1.5, 0.2]), np.array([3.0, 1.5, 1.5])]
        row = next(r for r in rows if not symcheck.hyp0f1.methods.get(method).domain(r[None], 3)[0])
        symcheck.log_hyp0f1(row, 3, method=method, **({"rng": 0} if method == "mc" else {}))
    assert series._TABLES, "the planted memo table stayed empty: this test checks nothing"
    assert reached(moore_fig4.fit_matrix) == before


# ----- the real sweeps --------------------------------------------------------------------


def test_the_digits_mlps_reach_no_hyp0f1_code():
    from symcheck.experiments import gelberg_digits

    names = set(reached(gelberg_digits.run))
    assert not {n for n in names if n.startswith("symcheck.hyp0f1")}
    # and it does reach its own kernels, through Numba dispatchers and the permutation group
    assert {"symcheck.experiments.gelberg_digits.entropy_hk", "symcheck.experiments.gelberg_digits.fit",
            "symcheck.groups.MLPPermutation", "symcheck.mlp.unpack_mlp"} <= names


def test_moore_fig4_reaches_every_0f1_route_it_can_call():
    from symcheck.experiments import moore_fig4
    from symcheck.hyp0f1 import methods

    names = set(reached(moore_fig4.fit_matrix))
    for method in methods.REGISTRY.values():
        for fn in (method.evaluate, method.gradient):
            if fn is not None:
                fn = getattr(fn, "py_func", fn)
                assert f"{fn.__module__}.{fn.__qualname__}" in names, method.name
    assert {"symcheck.hyp0f1.holonomic.log_hyp0f1_holonomic", "symcheck.hyp0f1.series.log_hyp0f1_series",
            "symcheck.hyp0f1.api.log_hyp0f1", "symcheck.models.moore_mf.fit_symvi"} <= names


def test_real_keys_do_not_depend_on_string_hashing():
    """Sets are walked in sorted order: a worker or a later run with another hash seed gets the same key."""
    script = ("from symcheck.report.codekey import code_key; from symcheck.experiments import gelberg_digits as g; "
              "print(code_key(g.run))")
    keys = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        keys.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                check=True).stdout.strip())
    from symcheck.experiments import gelberg_digits

    assert keys == {code_key(gelberg_digits.run)}


def _keys_from_copy(tmp_path, targets, planted: str = "", claims: str | None = None, edit=None) -> list[str]:
    """The code keys of the sweep functions ``targets`` ("module:function"), computed by a fresh interpreter from a
    copy of the package in ``tmp_path``; ``claims``: the shipped claims link then points to a file outside the
    package with this text; ``edit``: (file under symcheck/, old text, new text) applied to the copy; ``planted``:
    a line run first (a defect of the key)."""
    import shutil
    from pathlib import Path

    import symcheck

    copy = tmp_path / "copy"
    if not copy.exists():
        shutil.copytree(Path(symcheck.__file__).parent, copy / "symcheck", symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    if claims is not None:
        (tmp_path / "claims.json").write_text(claims)
        link = copy / "symcheck" / "report" / "shipped" / "claims.json"
        link.unlink(missing_ok=True)
        link.symlink_to(tmp_path / "claims.json")
    if edit is not None:
        file, old, new = edit
        path = copy / "symcheck" / file
        text = path.read_text()
        assert text.count(old) == 1, (file, old)
        path.write_text(text.replace(old, new))
    script = "import importlib\nimport symcheck.report.codekey as ck\n" + planted + "".join(
        f"print(ck.code_key(getattr(importlib.import_module({m!r}), {f!r})))\n"
        for m, f in (target.split(":") for target in targets))
    env = {**os.environ, "PYTHONPATH": str(copy)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, cwd=copy)
    return out.stdout.split()


def _budget_key_from_copy(tmp_path, planted: str = "", claims: str | None = None) -> str:
    """The budget section's sweep function's key from a copy of the package (`_keys_from_copy`)."""
    return _keys_from_copy(tmp_path, ["symcheck.report.sections.hyp0f1_budget:budget_part"], planted, claims)[0]


def test_keys_do_not_depend_on_where_the_checkout_lives(tmp_path):
    """A sweep that reads package data (the budget tables: the stored reference values) gets the same key from a copy
    of the package elsewhere (its links to the report dangle there), so a clean clone reuses the committed cache.
    Planted: absolute paths in the key."""
    from symcheck.report.sections.hyp0f1_budget import budget_part

    here = code_key(budget_part)
    assert _budget_key_from_copy(tmp_path / "a") == here
    assert _budget_key_from_copy(tmp_path / "b", planted="ck._portable = str\n") != here


def test_the_reports_own_output_is_not_keyed(tmp_path):
    """The shipped claims (a link out of the package to the report's claims.json, rewritten by every report) do not
    enter a key, else every report would leave its own cache stale. Planted: links out of the package followed."""
    first = _budget_key_from_copy(tmp_path, claims="[1]")
    assert _budget_key_from_copy(tmp_path, claims="[2]") == first
    follow = "import pathlib\npathlib.Path.is_relative_to = lambda self, other: True\n"
    assert _budget_key_from_copy(tmp_path, planted=follow, claims="[1]") != _budget_key_from_copy(
        tmp_path, planted=follow, claims="[2]")


def test_the_cache_reruns_a_sweep_only_after_an_edit_it_can_reach(tmp_path):
    from symcheck.report.cache import ResultCache
    from symcheck.sweep import seeded_tasks

    tasks = seeded_tasks([{"w": 2.0, "x": 1.0, "route": "two"}], 3)
    hits = {}
    for version, edit in (("base", None), ("unreached", UNREACHED["function of the same module"]),
                          ("reached", REACHED["jitted callee of a jitted callee"])):
        cache = ResultCache(tmp_path / "cache")
        cache.sweep("plant", _import(tmp_path / version, _sources(edit)), tasks, processes=1)
        hits[version] = cache.records["plant"].hits
    assert hits == {"base": 0, "unreached": 1, "reached": 0}


def test_a_registration_reruns_only_the_sweeps_that_reach_the_registry(tmp_path):
    """Editing how the holonomic method is registered (here its summary; in practice auto's step options) changes
    the key of Moore's Fig. 4 fits, which dispatch through the registry, and not that of the digits MLPs, which only
    import it. Planted: no registration functions declared (every importing sweep keyed by them)."""
    targets = ["symcheck.experiments.gelberg_digits:run", "symcheck.experiments.moore_fig4:fit_matrix"]
    edit = ("hyp0f1/methods.py", 'summary="holonomic gradient method:', 'summary="the holonomic gradient method:')
    digits, fig4 = _keys_from_copy(tmp_path / "a", targets)
    edited = _keys_from_copy(tmp_path / "b", targets, edit=edit)
    assert edited[0] == digits and edited[1] != fig4
    none = "ck.REGISTRATIONS = {}\n"
    assert _keys_from_copy(tmp_path / "c", targets[:1], planted=none, edit=edit) != _keys_from_copy(
        tmp_path / "d", targets[:1], planted=none)


def test_methods_register_only_adds_to_its_registry():
    """What `REGISTRATIONS` declares of `symcheck.hyp0f1.methods.register`: it changes no name of its module and no
    value but `REGISTRY`, where it adds one entry."""
    import numpy as np

    from symcheck.hyp0f1 import methods
    from symcheck.report.codekey import REGISTRATIONS

    assert REGISTRATIONS["symcheck.hyp0f1.methods"] == {"register"}
    before = dict(vars(methods))
    entries = dict(methods.REGISTRY)
    toy = methods.Method(name="toy-registration", summary="", evaluate=lambda flat, k: (np.zeros(len(flat)),) * 2,
                         rigorous=False, error_kind="", domain=lambda flat, k, options=None: np.array([""] * len(flat)))
    methods.register(toy)
    try:
        assert dict(vars(methods)).keys() == before.keys()
        assert all(vars(methods)[name] is value for name, value in before.items())
        assert methods.REGISTRY == {**entries, "toy-registration": toy}
    finally:
        methods.unregister("toy-registration")
