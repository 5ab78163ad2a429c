"""Programs in and out: MLIR, PyTorch's graph text, Python source, archives.

`read_program` is the one door every tool reads input through; it picks the reader
from the file name and the text itself.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


def read_text(path: str) -> str:
    """A program file's text; a file that is not text is a located error rather than a
    UnicodeDecodeError (a missing one raises OSError, which tools report as such)."""
    with open(path, "rb") as f:
        return decode_text(f.read(), path)


def decode_text(data: bytes, name: str, line_offset: int = 0) -> str:
    """UTF-8 text, else an error at the first byte that is not."""
    from tsjit.diagnostics import SourceLocation, TsjitError

    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1 + line_offset
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        message = (
            f"not a text file: byte 0x{data[error.start]:02x} is not UTF-8 "
            "(tsjit reads MLIR, PyTorch graph text and Python source)"
        )
        raise TsjitError(message, SourceLocation(name, line, col), source_line="") from None


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
    Errors about it show its lines; names relative to it (graph text's source comments)
    are looked up beside it. Text nested deeper than `tsjit.nesting.NESTING_LIMIT` is a
    located error; deeply nested text is read on a deep stack."""
    from tsjit.diagnostics import add_source_directory, remember_source
    from tsjit.nesting import check_text_nesting, deeply, needs_deep_stack

    if line_offset or not os.path.isfile(filename):  # a chunk of a file, standard input
        remember_source(filename, "\n" * line_offset + text)
    else:
        add_source_directory(filename)
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
