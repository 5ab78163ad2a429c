"""Programs in and out: MLIR, PyTorch's graph text, Python source, archives.

`read_program` is the one door every tool reads input through; it picks the reader
from the file name and the text itself.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


def looks_like_graph_text(text: str) -> bool:
    """PyTorch's graph text starts with `graph(` (after blank and comment lines)."""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        return stripped.startswith("graph(")
    return False


def read_program(ctx: Context, text: str, filename: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Reads MLIR, PyTorch graph text or Python source (`.py`, scripted) into a module."""
    if filename.endswith(".py"):
        from tsjit.frontend import script_source

        return script_source(ctx, text, filename)
    if looks_like_graph_text(text):
        from tsjit.formats.torchscript_text import import_graph_text

        return import_graph_text(ctx, text, filename, line_offset=line_offset)
    from tsjit.formats.mlir import parse_mlir

    return parse_mlir(ctx, text, filename, line_offset)
