"""The code key of a cached sweep: the source of every function, class and constant its task can reach.

`symcheck.report.cache.ResultCache` reuses a stored result only while the code that made it is
unchanged. Hashing whole modules would make any edit of a module that `symcheck/__init__.py`
imports rerun every sweep; `code_key` follows instead what the sweep function can actually call, so
that editing the holonomic ₀F₁ method reruns Moore's Fig. 4 fits (which call ₀F₁) and not the
digits MLPs (which never do). `reached` lists what a key covers (`tests/test_cache_keys.py` proves
both directions on a planted package and on the real sweeps).

What is tracked
---------------
"Our" code is every module of the `symcheck` package and of the top-level package (or module)
that defines the sweep function (a test's module, say). From each of our functions the walk
follows its code object and every code object nested in it (lambdas, comprehensions, inner
functions) and resolves

* every name the code uses (global names and attribute names alike: the byte code keeps both in
  `co_names`) against the function's module globals;
* the same names as attributes of every module of ours that the code names, chains of
  sub-modules included (`hyp0f1.api.x`), and of the modules it imports in its body
  (`from symcheck.hyp0f1 import holonomic` inside a function);
* every string constant of the code that is an identifier, the same way (`getattr(obj, "name")`,
  string-keyed look-ups);
* every attribute of the modules of ours that code using `getattr`, `globals`, `vars`, `eval`,
  `exec`, `__import__`, `import_module` or `__dict__` names (a name computed at run time could be
  any of them).

Each object found is followed in turn:

* functions: their source (decorators included, so a Numba option counts), default values and
  closure cells; Numba dispatchers through `py_func` (a jitted kernel's callees resolve through its
  globals like any function's); `functools.partial`, `functools.wraps` and `lru_cache` wrappers
  through what they wrap; code without a source file (made by `exec`, as dataclasses' methods) by
  its byte code;
* classes: their source (every method and class attribute), every attribute followed, base
  classes of ours too; instances of our classes and dataclass instances: their class and field
  values;
* module-level values a function reads: the source of the assignment that makes them, plus their
  value where it cannot change at run time: numbers, strings, tuples, frozensets, NumPy arrays
  (dtype, shape, bytes), paths (the bytes of the file, or of every file under the folder). Lists,
  dicts and sets count by their assignment and by the code they hold only (a registry such as
  `symcheck.hyp0f1.methods.REGISTRY` is followed through its entries' classes and functions, their
  data being keyed by the statement that registered them; a memo table filling up at run time, even
  with objects of ours such as `symcheck.hyp0f1.series._TABLES`, does not change the key); an
  instance of another library's class counts
  by its type and its assignment, whose names are followed (`_T = build()` follows `build`);
* the module-level statements of every module that defines something reached (below), followed
  like a function's code (so `register(Method(evaluate=f))` follows `f`);
* files: every non-Python file under the package folder of a module whose reached code may open
  files (it uses `open`, `load`, `loadtxt`, `genfromtxt`, `read_text`, `read_bytes`, `files` or
  `__file__`), but not links out of it (the shipped copy of the report's claims), by content and by
  path relative to the folder holding the package (so a checkout elsewhere gets the same key);
* the versions of the other libraries whose functions, classes or modules the walk meets (NumPy,
  SciPy, Numba and Python are in every entry already: `symcheck.report.cache`).

Every key also holds, for every module of ours in the import closure of the sweep function's
module (importing runs them), the module-level statements other than function and class
definitions, imports, the docstring and assignments to plain names: registrations, settings
(`mp.dps = 30`), assignments to attributes and items, `if`/`try` blocks (compared as syntax
trees: comments and blank lines do not count). Editing one of those reruns every sweep whose module
imports it. An assignment to a plain name (`_TINY = float(np.finfo(float).tiny)`) is left out of
this part: its value reaches a sweep only through code that reads the name, and then the walk
counts the assignment (above); so a computed constant of the ₀F₁ kernels does not rerun the digits
MLPs, which import but never read it. Calls of a registration function (`REGISTRATIONS`: it only adds
an entry to its module's registry) are left out likewise for a module the walk does not reach; where
it does reach the module (a sweep that dispatches through the registry), they count.

What is not tracked
-------------------
* a method reached only through an instance whose class no reached code names (an object handed
  in by another library), an attribute read through a name computed at run time on a module the
  code does not name;
* contents that a list, dict or set receives at run time (only its definition and the code it
  holds count), and the run-time state of other libraries' objects;
* a side effect of a call on the right-hand side of a module-level assignment to a plain name
  (`_old = np.seterr(all="ignore")` in a module no sweep reads from): such a call is written as a
  statement of its own in this package;
* files read from paths built at run time outside the package folder of the reading module,
  environment variables, the machine and the BLAS build;
* code of other libraries beyond their version number.

Keys are computed from the source files on disk when `code_key` is called.
"""

from __future__ import annotations

import ast
import dataclasses
import dis
import enum
import functools
import hashlib
import importlib
import importlib.util
import inspect
import sys
import types
from importlib import metadata
from pathlib import Path, PurePath

import numpy as np

__all__ = ["code_key", "reached"]

#: Names whose use in a code object makes the walk follow every attribute of the modules it reaches.
_DYNAMIC = frozenset({"getattr", "globals", "vars", "eval", "exec", "__import__", "import_module", "__dict__"})
#: Names whose use in a code object may read a data file of its package.
_FILE_READERS = frozenset({"open", "load", "loadtxt", "genfromtxt", "read_text", "read_bytes", "files", "__file__"})
#: Libraries whose versions every cache entry records already (symcheck.report.cache).
_IN_EVERY_KEY = frozenset({"numpy", "scipy", "numba"})
#: Registration functions by module: a module-level call of one of them only adds an entry to a registry of
#: that module (`symcheck.hyp0f1.methods.register` stores a `Method` in `REGISTRY` and does nothing else:
#: `tests/test_cache_keys.py` checks it), so it can change a result only through code that reads the registry;
#: the walk then reaches the module, whose statements count in full. Modules the walk does not reach leave
#: these calls out of the import-closure statements (editing auto's holonomic step does not rerun the digits MLPs).
REGISTRATIONS = {"symcheck.hyp0f1.methods": frozenset({"register"})}
#: Deepest nesting of data followed (deeper values count as "deep", a recursion guard).
_DATA_DEPTH = 32
#: The folder holding the ``symcheck`` package: paths inside it are keyed relative to it, so a key does not
#: depend on where the checkout lives (a clean clone elsewhere reuses the committed cache).
_ROOT = Path(__file__).resolve().parents[2]


def _sha(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _portable(path: str | PurePath) -> str:
    """``path`` relative to `_ROOT` (POSIX separators) where it lies inside it, else unchanged."""
    try:
        return Path(path).resolve().relative_to(_ROOT).as_posix()
    except (ValueError, OSError):
        return str(path)


def _top(module: str | None) -> str:
    return (module or "").partition(".")[0]


def _path_token(path: PurePath) -> str:
    p = Path(path)
    if p.is_file():
        return f"file:{_portable(p)}:{_sha(p.read_bytes())}"
    if p.is_dir():
        return f"dir:{_portable(p)}:" + ",".join(f"{f.relative_to(p).as_posix()}={_sha(f.read_bytes())}"
                                                 for f in sorted(p.rglob("*")) if f.is_file())
    return f"path:{_portable(p)}:missing"


def _code_token(code: types.CodeType) -> str:
    """The byte code of ``code`` and of the code nested in it, without line numbers."""
    consts = [_code_token(c) if isinstance(c, types.CodeType)
              else repr(sorted(map(repr, c))) if isinstance(c, frozenset) else repr(c) for c in code.co_consts]
    return _sha(repr((code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                      code.co_argcount, code.co_kwonlyargcount, code.co_flags)))


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def _imports(code: types.CodeType, package: str | None) -> set[str]:
    """Absolute names of the modules that ``code`` imports in its body (``import``/``from`` inside a function)."""
    out = set()
    level, name = 0, ""
    for ins in dis.get_instructions(code):
        if ins.opname == "LOAD_CONST" and isinstance(ins.argval, int):
            level = ins.argval
        elif ins.opname == "IMPORT_NAME":
            try:
                name = importlib.util.resolve_name("." * level + ins.argval, package) if level else ins.argval
            except (ImportError, ValueError):
                name = ""
                continue
            parts = name.split(".")
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif ins.opname == "IMPORT_FROM" and name:
            out.add(f"{name}.{ins.argval}")  # `from package import submodule` (not yet imported, maybe)
    return out


def _module_statements(path: Path, registrations: frozenset = frozenset()) -> list[ast.stmt]:
    """The module-level statements of the file at ``path`` that every key holds (module docstring), without the
    calls of the functions named in ``registrations`` (`REGISTRATIONS`, for a module the walk did not reach)."""
    tree = ast.parse(path.read_bytes())
    kept = []
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            continue
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id in registrations):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) for t in targets):
                continue  # a value reaches a sweep only through code that reads its name, which the walk follows
        kept.append(node)
    return kept


class _Walk:
    """One walk from a sweep function (see the module docstring)."""

    def __init__(self, fn):
        module = getattr(fn, "__module__", None) or ""
        self.roots = {"symcheck", _top(module)} - {""}
        self.parts: dict[str, str] = {}
        self.external: set[str] = set()
        self.file_modules: set[str] = set()
        self._seen: dict[int, object] = {}  # id -> object (kept alive so ids stay unique)
        self._module_names: dict[str, set[str]] = {}  # module of ours -> names already resolved on it
        self._full_modules: set[str] = set()
        self._trees: dict[str, ast.Module | None] = {}
        self.touched: set[str] = set()  # modules of ours that define something reached
        self.visit(fn)
        self.root_module = module
        done: set[str] = set()
        while self.touched - done:  # what the module-level statements of those modules use
            name = min(self.touched - done)
            done.add(name)
            file = getattr(sys.modules.get(name), "__file__", None)
            if file and file.endswith(".py"):
                statements = ast.Module(body=_module_statements(Path(file)), type_ignores=[])
                self._code(compile(statements, file, "exec"), vars(sys.modules[name]))

    # ----- what is ours -------------------------------------------------------------------

    def ours(self, module: str | None) -> bool:
        return bool(module) and any(module == r or module.startswith(r + ".") for r in self.roots)

    def _note_external(self, module: str | None) -> None:
        top = _top(module)
        if top and top not in _IN_EVERY_KEY and top not in sys.stdlib_module_names and not top.startswith("_"):
            self.external.add(top)

    # ----- objects ------------------------------------------------------------------------

    def visit(self, obj) -> str:
        """Follow ``obj``; return a token that identifies it in the key of whatever refers to it."""
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic)):
            return self._data(obj)
        if isinstance(obj, types.ModuleType):
            if self.ours(obj.__name__):
                self._module_names.setdefault(obj.__name__, set())
            else:
                self._note_external(obj.__name__)
            return f"module:{obj.__name__}"
        if id(obj) in self._seen:
            return self._ref(obj)
        self._seen[id(obj)] = obj
        if isinstance(obj, (staticmethod, classmethod)):
            return self.visit(obj.__func__)
        if isinstance(obj, property):
            return repr([self.visit(f) for f in (obj.fget, obj.fset, obj.fdel)])
        if isinstance(obj, functools.partial):
            return repr((self.visit(obj.func), self._data(obj.args), self._data(obj.keywords)))
        if isinstance(obj, types.MethodType):
            return repr((self.visit(obj.__func__), self.visit(obj.__self__)))
        py_func = getattr(obj, "py_func", None)
        if isinstance(py_func, types.FunctionType) and _top(type(obj).__module__) == "numba":
            return self.visit(py_func)  # a Numba dispatcher: its decorator is in py_func's source
        wrapped = getattr(obj, "__wrapped__", None)
        if wrapped is not None and not isinstance(obj, types.FunctionType):
            return self.visit(wrapped)  # lru_cache and other wrapper objects
        if isinstance(obj, types.FunctionType):
            return self._function(obj)
        if isinstance(obj, type):
            return self._class(obj)
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, np.ufunc)):
            self._note_external(getattr(obj, "__module__", None) or "numpy")
            return f"builtin:{getattr(obj, '__module__', '')}.{getattr(obj, '__name__', '')}"
        return self._data(obj)

    def _ref(self, obj) -> str:
        name = getattr(obj, "__qualname__", None)
        return f"ref:{getattr(obj, '__module__', '')}.{name}" if name else f"ref:{type(obj).__qualname__}"

    def _source(self, obj, qualname: str) -> str:
        try:
            return _sha(inspect.getsource(obj))
        except (OSError, TypeError):
            code = getattr(obj, "__code__", None)
            if code is not None:
                return "bytecode:" + _code_token(code)
            return "module:" + self._module_file_token(obj.__module__)

    def _module_file_token(self, module: str) -> str:
        file = getattr(sys.modules.get(module), "__file__", None)
        return _sha(Path(file).read_bytes()) if file else f"unknown module {module}"

    def _function(self, fn: types.FunctionType) -> str:
        qualname = f"{fn.__module__}.{fn.__qualname__}"
        if not self.ours(fn.__module__):
            self._note_external(fn.__module__)
            return f"function:{qualname}"
        self.parts[qualname] = "pending"
        self.touched.add(fn.__module__)
        extra = [self._data(fn.__defaults__), self._data(fn.__kwdefaults__)]
        for cell in fn.__closure__ or ():
            try:
                extra.append(self.visit(cell.cell_contents))
            except ValueError:  # an empty cell
                extra.append("empty cell")
        if getattr(fn, "__wrapped__", None) is not None:
            extra.append(self.visit(fn.__wrapped__))
        self.parts[qualname] = _sha(self._source(fn, qualname) + repr(extra))
        self._code(fn.__code__, fn.__globals__)
        return f"function:{qualname}"

    def _class(self, cls: type) -> str:
        qualname = f"{cls.__module__}.{cls.__qualname__}"
        if not self.ours(cls.__module__):
            self._note_external(cls.__module__)
            return f"class:{qualname}"
        self.parts[qualname] = "pending"
        self.touched.add(cls.__module__)
        extra = [self.visit(base) for base in cls.__mro__[1:]]
        for name, value in sorted(vars(cls).items()):
            if name in {"__dict__", "__weakref__", "__doc__", "__module__", "__qualname__"}:
                continue
            extra.append(f"{name}={self.visit(value)}")
        self.parts[qualname] = _sha(self._source(cls, qualname) + repr(extra))
        return f"class:{qualname}"

    def _data(self, obj, depth: int = 0) -> str:
        """A stable token of a data value, following the functions and classes it holds.

        Immutable values count by value. Lists, dicts and sets count only by the code they hold
        (their contents can change at run time, a memo table say; their definition is keyed by
        the source of the assignment or module-level statement that makes them).
        """
        if depth > _DATA_DEPTH:
            return "deep"
        if isinstance(obj, str) and obj.startswith(str(_ROOT)):  # a module's __file__, say
            return repr(_portable(obj))
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, np.generic)):
            return repr(obj)
        if isinstance(obj, tuple):
            return "tuple[" + ",".join(self._item(x, depth) for x in obj) + "]"
        if isinstance(obj, frozenset):
            return "frozenset{" + ",".join(sorted(self._item(x, depth) for x in obj)) + "}"
        if isinstance(obj, (list, set, dict, bytearray)):
            code = sorted(set(self._code_in(obj, depth)))
            return f"{type(obj).__name__}(code: " + ",".join(code) + ")"
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject:
                return f"array{obj.shape}[" + ",".join(self._item(x, depth) for x in obj.ravel()) + "]"
            return f"array:{obj.dtype.str}:{obj.shape}:{_sha(np.ascontiguousarray(obj).tobytes())}"
        if isinstance(obj, PurePath):
            return _path_token(obj)
        if isinstance(obj, enum.Enum):
            return f"{self.visit(type(obj))}.{obj.name}"
        cls = type(obj)
        if self.ours(cls.__module__) or dataclasses.is_dataclass(obj):
            state = (tuple((f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj))
                     if dataclasses.is_dataclass(obj) else tuple(sorted(getattr(obj, "__dict__", {}).items())))
            return f"{self.visit(cls)}({self._data(state, depth + 1)})"
        self._note_external(cls.__module__)
        return f"opaque:{cls.__module__}.{cls.__qualname__}"

    def _item(self, obj, depth: int) -> str:
        if callable(obj) or isinstance(obj, (types.ModuleType, staticmethod, classmethod)):
            return self.visit(obj)
        return self._data(obj, depth + 1)

    def _code_in(self, obj, depth: int):
        """Tokens of the functions and classes inside a mutable container's item (for an instance of ours or a
        dataclass: the code in its fields, never its class or data)."""
        if depth > _DATA_DEPTH:
            return
        if isinstance(obj, (tuple, list, set, frozenset)):
            for x in obj:
                yield from self._code_in(x, depth + 1)
        elif isinstance(obj, dict):
            for x in obj.items():
                yield from self._code_in(x, depth + 1)
        elif callable(obj) or isinstance(obj, (types.ModuleType, staticmethod, classmethod)):
            yield self.visit(obj)
        elif self.ours(type(obj).__module__) or dataclasses.is_dataclass(obj):
            # the code in its fields only: a memo table of our objects (partition tables, say) fills up at run
            # time, and a registry entry's class and data are keyed by the statement that made it
            state = ([getattr(obj, f.name) for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj)
                     else list(getattr(obj, "__dict__", {}).values()))
            yield from self._code_in(state, depth + 1)

    # ----- code ---------------------------------------------------------------------------

    def _code(self, code: types.CodeType, globs: dict) -> None:
        names: set[str] = set()
        imported: set[str] = set()
        package = globs.get("__package__") or globs.get("__name__", "").rpartition(".")[0]
        for c in _codes(code):
            names.update(c.co_names)
            names.update(x for x in c.co_consts if isinstance(x, str) and x.isidentifier())
            imported |= _imports(c, package)
        module = globs.get("__name__", "")
        for name in sorted(names):
            if name in globs and (name == "__file__" or not (name.startswith("__") and name.endswith("__"))):
                self._global(module, name, globs[name])
        modules = {globs[n].__name__ for n in names if isinstance(globs.get(n), types.ModuleType)}
        for name in imported:
            if self.ours(name):
                try:
                    modules.add(importlib.import_module(name).__name__)
                except ImportError:  # not a module (`from module import function`), or fails at run time too
                    continue
            else:
                self._note_external(name)
        if names & _FILE_READERS and self.ours(module):
            self.file_modules.add(module)
        full = bool(names & _DYNAMIC)
        for mod in sorted(modules):
            if self.ours(mod):
                self._resolve(mod, names, full)
            else:
                self._note_external(mod)
        if full and self.ours(module):
            self._resolve(module, names, True)

    def _global(self, module: str, name: str, value) -> None:
        """Follow the global ``name`` of ``module``; data values become parts of their own."""
        if isinstance(value, (types.ModuleType, types.FunctionType, type, types.BuiltinFunctionType, np.ufunc)):
            self.visit(value)
            return
        qualname = f"{module}.{name}"
        if qualname in self.parts:
            return
        self.parts[qualname] = "pending"
        self.touched.add(module)  # data, and callable objects (partials, jitted kernels, instances with __call__)
        token = self.visit(value)
        own = self.parts[qualname]  # a jitted kernel's or a wrapper's function has this name too: keep its source
        self.parts[qualname] = _sha(("" if own == "pending" else own) + token
                                    + repr(sorted(self._assignment_names(module, name))))

    def _assignment_names(self, module: str, name: str) -> set[str]:
        if module not in self._trees:
            file = getattr(sys.modules.get(module), "__file__", None)
            self._trees[module] = ast.parse(Path(file).read_bytes()) if file else None
        tree, out = self._trees[module], set()
        if tree is None:
            return {"<no source>"}
        globs = vars(sys.modules[module])
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
                out.add(ast.dump(node, annotate_fields=False))
                for n in ast.walk(node.value):
                    if isinstance(n, ast.Name) and n.id in globs and n.id != name:
                        self._global(module, n.id, globs[n.id])
        return out

    def _resolve(self, module: str, names: set[str], full: bool) -> None:
        """Follow ``names`` (all attributes if ``full``) as attributes of the module of ours ``module``."""
        mod = sys.modules.get(module)
        if mod is None:
            return
        done = self._module_names.setdefault(module, set())
        if full and module not in self._full_modules:
            self._full_modules.add(module)
            names = set(names) | set(vars(mod))
        todo = sorted(n for n in names - done if n in vars(mod) and not (n.startswith("__") and n.endswith("__")))
        done.update(names)
        for name in todo:
            value = vars(mod)[name]
            if isinstance(value, types.ModuleType):
                if self.ours(value.__name__):
                    self._resolve(value.__name__, names, False)
                else:
                    self._note_external(value.__name__)
            else:
                self._global(module, name, value)


def _import_closure(module: str, roots: set[str]) -> dict[str, Path]:
    """Files of ``module`` and of every module of ours it imports, transitively, parent packages included."""
    files: dict[str, Path] = {}
    stack = [module]
    while stack:
        name = stack.pop()
        if name in files:
            continue
        file = getattr(sys.modules.get(name), "__file__", None)
        if file is None:
            spec = importlib.util.find_spec(name) if name else None
            file = getattr(spec, "origin", None)
        if not file or not file.endswith(".py"):
            continue
        path = files[name] = Path(file)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        parts = name.split(".")
        found = {".".join(parts[:i]) for i in range(1, len(parts))}
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                try:
                    mod = importlib.util.resolve_name("." * node.level + (node.module or ""), package) \
                        if node.level else node.module or ""
                except (ImportError, ValueError):
                    continue
                found.add(mod)
                found.update(f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in sys.modules)
        for mod in found:
            if any(mod == r or mod.startswith(r + ".") for r in roots):
                p = mod.split(".")
                stack.extend(".".join(p[:i]) for i in range(1, len(p) + 1))
    return files


def reached(fn) -> dict[str, str]:
    """What the code key of ``fn`` covers: qualified name → SHA-256 of its source (or value).

    Parameters
    ----------
    fn : callable
        A sweep function (module docstring).

    Returns
    -------
    dict
        Qualified names (``module.function``, ``module.Class``, ``module.CONSTANT``) of every
        function, class and data value the walk reached, with the digest each contributes;
        ``<files of package>``, ``<module statements>`` and ``<library versions>`` entries hold
        the package data files, the module-level statements and the other libraries' versions.
    """
    walk = _Walk(fn)
    parts = dict(walk.parts)
    for module in sorted(walk.file_modules):
        file = getattr(sys.modules.get(module), "__file__", None)
        if file:
            folder = Path(file).parent
            # files only: not a link out of the package (symcheck/report/shipped/ links to the report's own
            # claims.json, which every report rewrites: keyed, it made a reading sweep's entry stale at once)
            data = [p for p in sorted(folder.rglob("*"))
                    if p.is_file() and p.suffix not in {".py", ".pyc", ".nbi", ".nbc"} and "__pycache__" not in p.parts
                    and p.resolve().is_relative_to(folder.resolve())]
            parts[f"<files of package> {module}"] = _sha("".join(_path_token(p) for p in data))
    statements = []
    for name, path in sorted(_import_closure(walk.root_module, walk.roots).items()):
        skipped = frozenset() if name in walk.touched else REGISTRATIONS.get(name, frozenset())
        dumps = (ast.dump(n, annotate_fields=False) for n in _module_statements(path, skipped))
        statements.append(f"{name}:{_sha(chr(10).join(dumps))}")
    parts["<module statements>"] = _sha("\n".join(statements))
    versions = []
    for top in sorted(walk.external):
        version = getattr(sys.modules.get(top), "__version__", None)
        if not isinstance(version, str):
            dists = metadata.packages_distributions().get(top, [top])
            try:
                version = ",".join(metadata.version(d) for d in dists)
            except metadata.PackageNotFoundError:
                version = "unknown"
        versions.append(f"{top}={version}")
    parts["<library versions>"] = ",".join(versions)
    return parts


def code_key(fn) -> str:
    """SHA-256 over `reached` ``(fn)``: changes whenever code the sweep function can reach changes.

    Parameters
    ----------
    fn : callable
        A sweep function ``fn(args, rng)`` (module docstring).

    Returns
    -------
    str
        Hex digest over the sorted (qualified name, digest) pairs.
    """
    digest = hashlib.sha256()
    for name, value in sorted(reached(fn).items()):
        digest.update(name.encode() + b"\0" + value.encode() + b"\n")
    return digest.hexdigest()
