"""Programs in: the script frontend (TorchScript-syntax Python to tsjit IR).

`tsjit.frontend.script.script(fn_or_module_or_source)` is the public entry
(`ScriptFunction` / `ScriptModule`). The doors below import the frontend on first use,
so that tools which do not script anything start fast:

    script_source(ctx, text, filename)          -> ModuleOp   (read_program's `.py` door)
    read_script(ctx, text, filename, options)   -> ModuleOp   (ts-translate --script)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp


def script_source(ctx: Context, text: str, filename: str = "<string>", entry: str | None = None) -> ModuleOp:
    """Python source text to a module of tsjit IR (entry `forward` or the module class)."""
    from tsjit.frontend.script import script_source as compile_source

    return compile_source(ctx, text, filename, entry)


def read_script(ctx: Context, text: str, filename: str, options: Any) -> ModuleOp:
    """The `ts-translate --script` reader (`options.entry` picks the entry)."""
    from tsjit.formats.mlir import verify

    module = script_source(ctx, text, filename, getattr(options, "entry", None))
    verify(module)
    return module
