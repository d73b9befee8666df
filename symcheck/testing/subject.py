"""Find a user's function from a `module:function` string, as `symcheck verify` is given it.

The module is imported the way `python -m` and pytest find a user's code: the current directory
is searched first, then `sys.path`. `function` may be dotted (`module:Class.method`). Every
way the string can be wrong gets a `ValueError` that says which part and why.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Callable

__all__ = ["load_subject"]


def load_subject(spec: str) -> Callable:
    """Return the callable named by `spec` = `"module:function"` (or `"package.module:obj.attr"`).

    Parameters
    ----------
    spec : str
        Module path and attribute path separated by one colon, e.g. `"mylib.bessel:log_bessel"`.

    Returns
    -------
    callable

    Raises
    ------
    ValueError
        When `spec` is not of the form `module:function`, the module cannot be imported (the
        import error is included), the attribute does not exist, or it is not callable.
    """
    if not isinstance(spec, str) or spec.count(":") != 1:
        raise ValueError(f"subject {spec!r}: expected 'module:function', e.g. 'mylib.bessel:log_bessel'")
    module_name, attr_path = (part.strip() for part in spec.split(":"))
    if not module_name or not attr_path:
        raise ValueError(f"subject {spec!r}: both the module and the function name are needed ('module:function')")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(module_name)
    except Exception as err:  # the user's module may fail to import for any reason: say which and why
        raise ValueError(f"subject {spec!r}: cannot import module {module_name!r} "
                         f"({type(err).__name__}: {err})") from err
    for i, name in enumerate(attr_path.split(".")):
        if not hasattr(obj, name):
            where = module_name + (":" + ".".join(attr_path.split(".")[:i]) if i else "")
            raise ValueError(f"subject {spec!r}: {where} has no attribute {name!r}")
        obj = getattr(obj, name)
    if not callable(obj):
        raise ValueError(f"subject {spec!r}: {type(obj).__name__} is not callable")
    return obj
