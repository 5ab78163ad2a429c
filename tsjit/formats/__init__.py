"""Programs in and out: MLIR, PyTorch's graph text, Python source, archives.

`read_program` is the one door every tool reads input through; it picks the reader
from the file name and the text itself.
"""

from __future__ import annotations

import functools
from typing import Any

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
    """Reads MLIR, PyTorch graph text or Python source (`.py`, scripted) into a module.
    Text nested deeper than `tsjit.nesting.NESTING_LIMIT` is a located error; deeply
    nested text is read on a deep stack."""
    from tsjit.nesting import check_text_nesting, deeply, needs_deep_stack

    if filename.endswith(".py"):
        from tsjit.frontend import script_source

        return script_source(ctx, text, filename)
    if looks_like_graph_text(text):
        from tsjit.formats.torchscript_text import import_graph_text

        reader: Any = functools.partial(import_graph_text, line_offset=line_offset)
    else:
        from tsjit.formats.mlir import parse_mlir

        reader = functools.partial(parse_mlir, line_offset=line_offset)
    if needs_deep_stack(check_text_nesting(text, filename, line_offset)):
        return deeply(reader, ctx, text, filename)
    return reader(ctx, text, filename)
