"""ts-opt: read a program (MLIR, PyTorch graph text, Python source), run tsjit passes,
print MLIR.

    ts-opt in.mlir -p inline,cse
    ts-opt in.mlir --pass-pipeline='builtin.module(inline,func.func(cse))'
    ts-opt graph.txt --print-ir-after-all -p dead-code-elimination
    ts-opt in.mlir --load-pass-plugin my_pass.py -p my-pass
    ts-opt --list-passes                  tsjit's passes (and plugins'), with their options
    ts-opt model.py -p fuse-pointwise --view-graph fused.svg

Built on xDSL's `xDSLOptMain` for its input handling, targets and printing; tsjit adds
the open operator universe, MLIR's pipeline spelling, located diagnostics, pass
plugins, a pass listing and pictures of graphs. xDSL's own flags and its ~150 passes
stay available (`--list-passes --all`) without crowding `--help`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from io import StringIO
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tsjit.diagnostics import TsjitError, describe, tool_main
from tsjit.tools import version_text
from tsjit.transforms.pipeline_spec import strip_pipeline_anchors  # noqa: F401 - its former home

SHOWN: dict[str, tuple[str, str | None]] = {
    # dest: (group, help; None keeps xDSL's)
    "input_file": ("", "MLIR, PyTorch graph text (starts with `graph(`) or Python source (.py); '-' or none: stdin"),
    "output_file": ("input and output", "write the output to OUT instead of stdout"),
    "target": ("input and output", "output format: mlir (default) or llvm (the LLVM IR of the lowered module)"),
    "print_op_generic": ("input and output", "print ops in MLIR's generic form"),
    "print_debuginfo": ("input and output", "print op locations, loc(...)"),
    "split_input_file": ("input and output", "treat `// -----` separated chunks as separate inputs"),
    "passes": ("passes", "the passes to run: a comma-separated list, as --list-passes names them"),
    "disable_verify": ("passes", "do not verify the IR after reading it and after each pass"),
    "verify_diagnostics": ("diagnostics", "print parse and verifier errors to stdout and exit 0 (for lit tests)"),
}
"""xDSL's flags --help shows, by destination; its others are accepted but not shown."""


class TsOptMain(xDSLOptMain):
    @property
    def version_format(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return version_text("ts-opt")

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description=__doc__.split("\n\n")[0], args=args)

    def register_all_dialects(self) -> None:
        from xdsl.universe import Universe

        from tsjit.context import dialect_factories, make_context

        self.ctx = make_context()
        ours = dialect_factories()
        for name, factory in Universe.get_multiverse().all_dialects.items():
            if name not in ours:
                self.ctx.register_dialect(name, factory)

    def get_input_stream(self):  # noqa: ANN201 - xDSL's signature
        if self.args.input_file == "-":
            self.args.input_file = None  # MLIR's spelling of standard input
        return super().get_input_stream()

    def register_all_frontends(self) -> None:
        for extension in ("mlir", "txt", "graph", "ts", "py"):
            self.available_frontends[extension] = self._read

    def _read(self, chunk: object) -> ModuleOp:  # kept for xDSL's extension check
        raise AssertionError("ts-opt parses in parse_chunk")

    def register_all_targets(self) -> None:
        super().register_all_targets()

        def llvm_target():  # noqa: ANN202 - a target factory
            from tsjit.transforms.lowering.llvm_export import LLVMTarget

            return LLVMTarget

        self.available_targets["llvm"] = llvm_target  # knows tsjit's extra llvm ops

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """xDSL's flags, those tsjit users need shown in groups, then tsjit's own."""
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = (
            "examples:\n" + "\n".join(line for line in __doc__.splitlines()[3:10] if line.strip())
        )
        groups = {
            name: arg_parser.add_argument_group(name)
            for name in ("input and output", "passes", "pictures", "diagnostics")
        }
        xdsl_flags = argparse.ArgumentParser(add_help=False)
        super().register_all_arguments(xdsl_flags)
        for action in xdsl_flags._actions:  # noqa: SLF001 - re-homing xDSL's own flags
            if action.dest == "version":
                action.help = "print ts-opt's, tsjit's and xDSL's versions"
                groups["diagnostics"]._add_action(action)  # noqa: SLF001
                continue
            group, text = SHOWN.get(action.dest, ("", argparse.SUPPRESS))
            if text is not None:
                action.help = text
            if action.dest == "passes":
                action.metavar = "PIPELINE"
            if action.dest == "output_file":
                action.metavar = "OUT"
            (groups[group] if group else arg_parser)._add_action(action)  # noqa: SLF001
        passes = groups["passes"]
        passes.add_argument(
            "--pass-pipeline",
            dest="passes",
            default=argparse.SUPPRESS,
            metavar="PIPELINE",
            help="MLIR's spelling of -p: 'builtin.module(p1,func.func(p2),p3{opt=v})'",
        )
        passes.add_argument(
            "--list-passes",
            action="store_true",
            help="list tsjit's passes and those of loaded plugins, with what each does and its options",
        )
        passes.add_argument("--all", action="store_true", help="with --list-passes: xDSL's passes too")
        passes.add_argument(
            "--load-pass-plugin",
            action="append",
            default=[],
            metavar="FILE.py",
            help="load the passes and dialects a Python file defines",
        )
        groups["pictures"].add_argument(
            "--view-graph",
            nargs="?",
            const="",
            metavar="FILE",
            help="after the passes, draw the module's graphs to FILE (.svg, else Graphviz .dot; "
            "default: <input>.svg), regions as clusters",
        )
        diagnostics = groups["diagnostics"]
        diagnostics.add_argument(
            "--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr"
        )
        diagnostics.add_argument(
            "--debug", action="store_true", help="show the Python traceback of an error (for reporting bugs)"
        )

    def setup_pipeline(self) -> None:
        from tsjit.plugins import load_plugin_file
        from tsjit.transforms.pipeline_spec import parse_pipeline

        self.plugin_passes: dict[str, Callable[[], type[ModulePass]]] = {}
        for path in self.args.load_pass_plugin:
            passes, dialects = load_plugin_file(path)
            for name, cls in passes.items():
                self.plugin_passes[name] = lambda cls=cls: cls
                self.register_pass(name, self.plugin_passes[name])
            for dialect in dialects:
                self.ctx.load_dialect(dialect)
        self.pipeline = PassPipeline(parse_pipeline(self.args.passes, self.available_passes), self._after_pass)

    def _after_pass(self, previous: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
        from tsjit.formats.mlir import verify
        from tsjit.transforms.pass_logging import dump_after

        if previous is None:
            return  # the input was verified when it was read
        dump_after(previous, module)  # TSJIT_LOG_LEVEL dumps for xDSL's own passes too
        if not self.args.disable_verify:
            verify(module)
        if self.args.print_ir_after_all:
            self._print_after(previous, module)

    def _print_after(self, step: ModulePass, module: ModuleOp) -> None:
        out = StringIO()
        Printer(stream=out, print_generic_format=self.args.print_op_generic).print_op(module)
        print(f"// -----// IR Dump After {step.name} //----- //\n{out.getvalue()}\n", file=sys.stderr)

    def apply_passes(self, prog: ModuleOp) -> None:
        from tsjit.transforms.pass_logging import observe_passes

        if not self.args.print_ir_after_all:
            return super().apply_passes(prog)
        with observe_passes(self._print_after):  # the steps of named pipelines, too
            super().apply_passes(prog)

    def run(self) -> None:
        if self.args.list_passes:
            self.list_passes()
            return
        from tsjit.formats import decode_text, read_program
        from tsjit.formats.archive import is_archive
        from tsjit.formats.mlir import verify

        if self.args.input_file not in (None, "-") and is_archive(self.args.input_file):
            self.run_archive(self.args.input_file)
            return
        chunks, _ = self.prepare_input()
        name = self.get_input_name()
        output = self.prepare_output()
        try:
            for i, (chunk, offset) in enumerate(chunks):
                if i > 0:
                    output.write("// -----\n")
                try:
                    text = decode_text(chunk.read(), name, offset)
                    module = read_program(self.ctx, text, name, line_offset=offset)
                    if not self.args.disable_verify:
                        verify(module)
                    self.apply_passes(module)
                    output.write(self.output_resulting_program(module))
                    if self.args.view_graph is not None:
                        self.view_graph(module, i)
                except (TsjitError, ParseError, DiagnosticException) as e:
                    if not self.args.verify_diagnostics:
                        raise
                    output.write(describe(e, "ts-opt") + "\n")
                finally:
                    chunk.close()
                output.flush()
        finally:
            if output is not sys.stdout:
                output.close()

    def list_passes(self) -> None:
        from tsjit.transforms.pass_catalog import format_catalog, pass_sources

        sys.stdout.write(format_catalog(pass_sources(self.plugin_passes), include_xdsl=self.args.all))

    def view_graph(self, module: ModuleOp, chunk: int) -> None:
        """Writes the picture `--view-graph` asks for and says where it is."""
        from tsjit.formats.graph_picture import write_picture

        path = self.args.view_graph or f"{Path(self.args.input_file or 'stdin').stem}.svg"
        if chunk > 0:
            target = Path(path)
            path = str(target.with_name(f"{target.stem}.{chunk}{target.suffix}"))
        how = write_picture(module, path)
        print(f"ts-opt: wrote {path} ({how})", file=sys.stderr)

    def run_archive(self, path: str) -> None:
        """A TorchScript archive: its classes' methods and its functions, optimized."""
        from tsjit.formats.archive import import_archive

        module = import_archive(path)
        self.apply_passes(module)
        output = self.prepare_output()
        try:
            output.write(self.output_resulting_program(module))
            if self.args.view_graph is not None:
                self.view_graph(module, 0)
        finally:
            if output is not sys.stdout:
                output.close()


def main(argv: Sequence[str] | None = None) -> None:
    run: Callable[[list[str] | None], None] = lambda args: TsOptMain(args=args).run()
    tool_main("ts-opt", run, None if argv is None else list(argv))


if __name__ == "__main__":
    main()
