"""ts-opt: read a program (MLIR, PyTorch graph text), run a pass pipeline, print MLIR.

    ts-opt in.mlir -p inline,cse
    ts-opt in.mlir --pass-pipeline='builtin.module(func.func(cse),canonicalize)'
    ts-opt graph.txt --print-ir-after-all -p dead-code-elimination
    ts-opt in.mlir --load-pass-plugin my_pass.py -p my-pass

Built on xDSL's `xDSLOptMain` for its flags and targets; tsjit adds the open operator
universe, MLIR's pipeline spelling, located diagnostics and pass plugins.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tsjit.diagnostics import TsjitError, describe, tool_main
from tsjit.transforms.pipelines import strip_pipeline_anchors


class TsOptMain(xDSLOptMain):
    version_format = "ts-opt (tsjit, xdsl {xdsl_version})"

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
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pass-pipeline",
            dest="passes",
            default=argparse.SUPPRESS,
            help="MLIR spelling of -p: 'builtin.module(p1,p2{opt=v})'",
        )
        arg_parser.add_argument(
            "--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr"
        )
        arg_parser.add_argument(
            "--load-pass-plugin",
            action="append",
            default=[],
            metavar="FILE.py",
            help="load the passes and dialects a Python file defines",
        )

    def setup_pipeline(self) -> None:
        from tsjit.plugins import load_plugin_file

        for path in self.args.load_pass_plugin:
            passes, dialects = load_plugin_file(path)
            for name, cls in passes.items():
                self.register_pass(name, lambda cls=cls: cls)
            for dialect in dialects:
                self.ctx.load_dialect(dialect)
        self.args.passes = strip_pipeline_anchors(self.args.passes)
        self.pipeline = PassPipeline.parse_spec(self.available_passes, self.args.passes, self._after_pass)

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
        from tsjit.formats import read_program
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
                    module = read_program(self.ctx, chunk.read().decode(), name, line_offset=offset)
                    if not self.args.disable_verify:
                        verify(module)
                    self.apply_passes(module)
                    output.write(self.output_resulting_program(module))
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

    def run_archive(self, path: str) -> None:
        """A TorchScript archive: its classes' methods and its functions, optimized."""
        from tsjit.formats.archive import import_archive

        module = import_archive(path)
        self.apply_passes(module)
        output = self.prepare_output()
        try:
            output.write(self.output_resulting_program(module))
        finally:
            if output is not sys.stdout:
                output.close()


def main(argv: Sequence[str] | None = None) -> None:
    run: Callable[[list[str] | None], None] = lambda args: TsOptMain(args=args).run()
    tool_main("ts-opt", run, None if argv is None else list(argv))


if __name__ == "__main__":
    main()
