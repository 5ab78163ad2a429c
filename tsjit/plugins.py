"""Pass and dialect plugins loaded from a Python file (`ts-opt --load-pass-plugin`).

A plugin file is ordinary Python: every `ModulePass` subclass with a `name` it
defines becomes a pass, every `Dialect` object a dialect. Packages register through
the `xdsl.universe` entry point instead (see docs/plugins.md).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from types import ModuleType

from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from tsjit.diagnostics import SourceLocation, TsjitError


def load_plugin_file(path: str) -> tuple[dict[str, type[ModulePass]], list[Dialect]]:
    """Executes the file and returns the passes (by name) and dialects it defines."""
    if not os.path.isfile(path):
        raise TsjitError(f"pass plugin '{path}' does not exist")
    module_name = "tsjit_plugin_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise TsjitError(f"in pass plugin: {e.msg}", SourceLocation(path, e.lineno or 0, e.offset or 0)) from e
    return _passes_of(module), [v for v in vars(module).values() if isinstance(v, Dialect)]


def _passes_of(module: ModuleType) -> dict[str, type[ModulePass]]:
    passes: dict[str, type[ModulePass]] = {}
    for value in vars(module).values():
        if (
            inspect.isclass(value)
            and issubclass(value, ModulePass)
            and value.__module__ == module.__name__
            and isinstance(getattr(value, "name", None), str)
        ):
            passes[value.name] = value
    if not passes:
        raise TsjitError(f"pass plugin '{module.__file__}' defines no ModulePass with a name")
    return passes
