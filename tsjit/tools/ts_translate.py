"""ts-translate: convert a program between tsjit IR and the formats around it.

    ts-translate --import-torchscript graph.txt            PyTorch graph text -> MLIR
    ts-translate --export-torchscript in.mlir              MLIR (or graph text) -> graph text
    ts-translate --export-python in.mlir --entry forward   -> TorchScript-syntax Python
    ts-translate --import-archive model.pt                 TorchScript archive -> MLIR
    ts-translate --export-archive model.py -o model.pt     -> TorchScript archive
    ts-translate --export-dot model.py -o graph.svg        -> a picture (Graphviz dot, or SVG)

Each mode is one row of `MODES`: how to read the input into a module and how to write
the module out. A new format plugs in as a row (`--script`, `--export-llvm`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tsjit.diagnostics import tool_main
from tsjit.frontend import read_script
from tsjit.tools import version_text


@dataclass(frozen=True)
class Options:
    """What readers and writers may look at besides the program."""

    entry: str | None  # None: `forward`, or the only function of the module
    print_debuginfo: bool


Reader = Callable[[Context, str, str, Options], ModuleOp]
Writer = Callable[[ModuleOp, Options], str]


@dataclass(frozen=True)
class Mode:
    """How a mode reads its input (`read` the text, or `read_file` the file, for
    binary formats) and writes the module out (`write` text, or `write_file`)."""

    help: str
    read: Reader | None = None
    write: Writer | None = None
    read_file: Callable[[Context, str, Options], ModuleOp] | None = None
    write_file: Callable[[str, str, Options], None] | None = None


def read_graph_text(ctx: Context, text: str, filename: str, options: Options) -> ModuleOp:
    from tsjit.formats.torchscript_text import import_graph_text

    return import_graph_text(ctx, text, filename, entry=options.entry or "forward")


def read_program(ctx: Context, text: str, filename: str, options: Options) -> ModuleOp:
    """Any input `ts-opt` reads (MLIR, graph text), verified; a graph is named by
    `--entry`."""
    from tsjit.formats import looks_like_graph_text
    from tsjit.formats import read_program as read
    from tsjit.formats.mlir import verify

    if looks_like_graph_text(text):
        return read_graph_text(ctx, text, filename, options)
    module = read(ctx, text, filename)
    verify(module)
    return module


def write_mlir(module: ModuleOp, options: Options) -> str:
    out = StringIO()
    Printer(stream=out, print_debuginfo=options.print_debuginfo).print_op(module)
    return out.getvalue() + "\n"


def write_graph_text(module: ModuleOp, options: Options) -> str:
    from tsjit.formats.torchscript_export import export_graph_text

    return export_graph_text(module, options.entry)


def write_python(module: ModuleOp, options: Options) -> str:
    from tsjit.formats.python_code import export_python

    return export_python(module, options.entry)


def write_dot(module: ModuleOp, options: Options) -> str:
    from tsjit.formats.graph_picture import export_dot

    return export_dot(module, options.entry)


def write_llvm(module: ModuleOp, options: Options) -> str:
    from tsjit.runtime.native import export_llvm

    return export_llvm(module)


def read_archive(ctx: Context, path: str, options: Options) -> ModuleOp:
    from tsjit.formats.archive import import_archive

    return import_archive(path)


def export_archive(path: str, output: str, options: Options) -> None:
    """Any program to a TorchScript archive: a `.pt` is re-saved, a `.py` file's module
    class (or function) scripted and saved, a function of MLIR or graph text saved as
    PyTorch saves a scripted function (a module whose forward it is)."""
    from tsjit.diagnostics import TsjitError
    from tsjit.formats.archive import is_archive, save

    if output == "-":
        raise TsjitError("--export-archive writes a binary file: give it with -o")
    if is_archive(path):
        from tsjit.formats.archive import load

        save(load(path), output)
        return
    if path.endswith(".py"):
        from tsjit.frontend.script import script_file_text

        with open(path, encoding="utf-8") as f:
            save(script_file_text(f.read(), path, options.entry), output)
        return
    from tsjit.context import make_context
    from tsjit.frontend.script import function_program

    with open(path, encoding="utf-8") as f:
        module = read_program(make_context(), f.read(), path, options)
    save(function_program(module, options.entry or "forward", path), output)


MODES: dict[str, Mode] = {
    "--import-torchscript": Mode("PyTorch graph text to MLIR", read_graph_text, write_mlir),
    "--export-torchscript": Mode("MLIR to PyTorch graph text", read_program, write_graph_text),
    "--export-python": Mode("MLIR to TorchScript-syntax Python code", read_program, write_python),
    "--export-llvm": Mode("MLIR to the LLVM IR of its native code (fused groups, scalar functions)", read_program, write_llvm),
    "--export-dot": Mode(
        "a picture of the graphs: Graphviz dot (SVG with -o FILE.svg), regions as clusters",
        read_program,
        write_dot,
    ),
    "--script": Mode("TorchScript-syntax Python source to MLIR (torch.jit.script)", read_script, write_mlir),
    "--import-archive": Mode("TorchScript archive (.pt) to MLIR: every method and function of its code/",
                             write=write_mlir, read_file=read_archive),  # fmt: skip
    "--export-archive": Mode("a .pt, .py module or function, or MLIR function to a TorchScript archive (-o)",
                             write_file=export_archive),  # fmt: skip
}


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ts-translate", description=__doc__.splitlines()[0])
    modes = parser.add_mutually_exclusive_group(required=True)
    for flag, mode in MODES.items():
        modes.add_argument(flag, dest="mode", action="store_const", const=flag, help=mode.help)
    parser.add_argument("file", nargs="?", default="-", help="input file, '-' for stdin")
    parser.add_argument("--entry", metavar="NAME", help="the function to import or export (default: forward)")
    parser.add_argument("-o", "--output", default="-", metavar="OUT", help="output file, '-' for stdout")
    parser.add_argument("--print-debuginfo", action="store_true", help="print op locations in MLIR output")
    parser.add_argument("--version", action="version", version=version_text("ts-translate"))
    parser.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    return parser


def translate(argv: Sequence[str] | None) -> None:
    from tsjit.context import make_context

    args = argument_parser().parse_args(argv)
    mode = MODES[args.mode]
    options = Options(entry=args.entry, print_debuginfo=args.print_debuginfo)
    if mode.write_file is not None:
        mode.write_file(args.file, args.output, options)
        return
    if mode.read_file is not None:
        module = mode.read_file(make_context(), args.file, options)
    else:
        if args.file == "-":
            text, filename = sys.stdin.read(), "<stdin>"
        else:
            from tsjit.formats import read_text

            text, filename = read_text(args.file), args.file
        assert mode.read is not None
        module = mode.read(make_context(), text, filename, options)
    if args.mode == "--export-dot" and args.output.lower().endswith(".svg"):
        from tsjit.formats.graph_picture import write_picture

        how = write_picture(module, args.output, args.entry)
        print(f"ts-translate: wrote {args.output} ({how})", file=sys.stderr)
        return
    assert mode.write is not None
    result = mode.write(module, options)
    if args.output == "-":
        sys.stdout.write(result)
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(result)


def main(argv: Sequence[str] | None = None) -> None:
    tool_main("ts-translate", translate, None if argv is None else list(argv))


if __name__ == "__main__":
    main()
