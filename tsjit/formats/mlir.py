"""MLIR text in, with every op located in its input file, and verification that
reports the failing op's location.

xDSL's parser gives ops no location unless the text spells `loc(...)`, and its
verifier raises without saying which op failed. tsjit's tools promise
`file:line:col: error: ...`, so parsing records where each op starts and
verification walks the ops itself.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from tsjit.diagnostics import SourceLocation, TsjitError


class LocatingParser(Parser):
    """A Parser that gives each op without an explicit `loc(...)` its position."""

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            where = start.get_location()
            op.location = FileLineColLoc(StringAttr(self.lexer.input.name), IntAttr(where.line), IntAttr(where.col))
        return op


def parse_mlir(ctx: Context, text: str, filename: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parses MLIR text; top-level ops outside a module are wrapped in one."""
    # Chunks of --split-input-file keep the line numbers of the whole file.
    parser = LocatingParser(ctx, "\n" * line_offset + text, name=filename)
    return parser.parse_module()


def verify(root: Operation) -> None:
    """Verifies `root` and everything in it; the error names the failing op's location."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            message = str(e).strip().splitlines()[0] if str(e).strip() else "verification failed"
            if not message.startswith("'"):
                message = f"'{op.name}' op {message}"
            raise TsjitError(message, SourceLocation.of_op(op)) from e
