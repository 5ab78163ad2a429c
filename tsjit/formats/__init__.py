"""Programs in and out: MLIR, PyTorch's graph text, Python source, archives.

`read_program` is the one door every tool reads text input through; it picks the reader
from the file name and the text itself. `read_program_file` reads a file by its path,
TorchScript archives (binary) included.
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


def read_program_file(ctx: Context, path: str) -> ModuleOp:
    """A program file as a module: a TorchScript archive's every class and function
    (compiled from its code/), else what `read_program` makes of the file's text."""
    from tsjit.formats.archive import import_archive, is_archive

    if is_archive(path):
        return import_archive(path)
    from tsjit.diagnostics import TsjitError

    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as error:
        raise TsjitError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from error
    return read_program(ctx, text, path)
