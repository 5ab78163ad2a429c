"""MLIR text in, with every op located in its input file, and verification that
reports the failing op's location.

xDSL's parser gives ops no location unless the text spells `loc(...)`, and its
verifier raises without saying which op failed. tsjit's tools promise
`file:line:col: error: ...`, so parsing records where each op starts and
verification walks the ops itself.
"""

from __future__ import annotations

import bisect
import re

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Block, Operation
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from tsjit.diagnostics import SourceLocation, TsjitError


STRING_LITERAL = re.compile(r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"')
"""The string literals xDSL's lexer reads, as a pattern that fails in linear time. The
lexer's own (xDSL 0.74) repeats a group whose first branch is itself a loop,
`"(?:[^"...]+|escape)*"`: on a string that never closes, the engine tries every way to
split its characters between the two loops, doubling the time with each character
(36 characters take minutes). Here the characters between escapes are one loop."""


MAX_INTEGER_BITS = 128


class _Lexer(MLIRLexer):
    _unescaped_characters_regex = STRING_LITERAL


class LocatingParser(Parser):
    """A Parser that gives each op without an explicit `loc(...)` its position, and
    reports verification errors raised while building an op at that op. Its lexer reads
    string literals with `STRING_LITERAL`."""

    _line_starts: list[int] | None = None
    _location_end: int = -1
    _open_regions: list[int] | None = None  # offsets of the `{` of the regions being read

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>"):
        super().__init__(ctx, "", name)  # xDSL's lexer would read the first token
        self._parser_state = ParserState(_Lexer(Input(text, name)))

    def parse_optional_region(self, arguments=None):  # noqa: ANN001, ANN201 - xDSL's signature
        if self._open_regions is None:
            self._open_regions = []
        self._open_regions.append(self._current_token.span.start)
        try:
            return super().parse_optional_region(arguments)
        finally:
            self._open_regions.pop()

    def _parse_block(self) -> Block:
        """A region's next block must start with its label: anything else means the
        region should have ended (xDSL only says "in block definition")."""
        if self._current_token.kind != MLIRTokenKind.CARET_IDENT and self._open_regions:
            opened, _ = self._line_col(self._open_regions[-1])
            message = f"expected '}}' to end the region begun at line {opened}"
            if self._current_token.kind == MLIRTokenKind.EOF:
                end = len(self.lexer.input.content.rstrip())  # just after the last token
                self.raise_error(message, Span(end, end + 1, self.lexer.input))
            self.raise_error(f"{message}, or a block label")
        return super()._parse_block()

    def parse_optional_location(self):  # noqa: ANN201 - xDSL's signature
        location = super().parse_optional_location()
        if location is not None:
            self._location_end = self._current_token.span.start
        return location

    def _parse_optional_integer_or_float_type(self):  # noqa: ANN202 - xDSL's signature
        """Integer types up to `MAX_INTEGER_BITS` (xDSL makes an `i2147483647` and
        then allocates for its values)."""
        match = self._builtin_integer_type_regex.match(self._current_token.text)
        if match is not None and int(match.group(1)) > MAX_INTEGER_BITS:
            self.raise_error(f"integer types are at most {MAX_INTEGER_BITS} bits wide, got '{match.group(0)}'")
        return super()._parse_optional_integer_or_float_type()

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as e:
            self.raise_error(_message(e), start)
        except (ValueError, OverflowError, NotImplementedError, MemoryError) as e:
            if isinstance(e, ParseError):
                raise
            # what xDSL raises while building attributes from extreme text (an integer
            # too large for its type or for Python, an i2147483647)
            self.raise_error(_message(e, f"the input is too large to build ({type(e).__name__})"), start)
        spelled = self._location_end == self._current_token.span.start  # `loc(...)` ends the op
        if isinstance(op.location, UnknownLoc) and not spelled:
            line, col = self._line_col(start.start)
            op.location = FileLineColLoc(StringAttr(self.lexer.input.name), IntAttr(line), IntAttr(col))
        return op

    def _line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column in O(log n); `Span.get_location` rescans the file."""
        if self._line_starts is None:
            text = self.lexer.input.content
            self._line_starts = [0]
            position = text.find("\n")
            while position != -1:
                self._line_starts.append(position + 1)
                position = text.find("\n", position + 1)
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1


def parse_mlir(ctx: Context, text: str, filename: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parses MLIR text; top-level ops outside a module are wrapped in one."""
    # Chunks of --split-input-file keep the line numbers of the whole file.
    parser = LocatingParser(ctx, "\n" * line_offset + text, name=filename)
    try:
        return parser.parse_module()
    except VerifyException as e:  # a type or attribute outside any op: `!t = !ts.tensor<f32, [-2]>`
        parser.raise_error(_message(e))


def verify(root: Operation) -> None:
    """Verifies `root` and everything in it; the error names the failing op's location."""
    for op in root.walk():  # before any verifier asks such a value for its owner
        for operand in op.operands:
            if isinstance(operand, ForwardDeclaredValue):  # used, never defined where it is visible
                raise TsjitError(f"'{op.name}' op uses a value that is never defined", SourceLocation.of_op(op))
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            message = _message(e)
            if not message.startswith("'"):
                message = f"'{op.name}' op {message}"
            raise TsjitError(message, SourceLocation.of_op(op)) from e


def _message(error: Exception, otherwise: str = "verification failed") -> str:
    """xDSL splits constraint errors over lines ("operand 'c' ... does not verify:" then
    the reason); a diagnostic is one line, so join them."""
    text = error.args[0] if error.args and isinstance(error.args[0], str) else str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " ".join(lines) if lines else otherwise
