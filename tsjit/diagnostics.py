"""Errors that point at the user's source, and the one way tools report them.

Every tsjit tool reports bad input as `file:line:col: error: message`, followed by the
source line and a caret when the source is at hand, and exits with status 1. A Python
traceback is shown only with `--debug`. Library code raises `TsjitError` (or a subclass)
with a `SourceLocation`; `report_errors` turns those and xDSL's own parse, verify and
pipeline errors into that format.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Attribute, Operation


@dataclass(frozen=True)
class SourceLocation:
    """1-based line and column in a named source (column 0 = unknown)."""

    file: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}" if self.col else f"{self.file}:{self.line}"

    @staticmethod
    def of_attr(loc: Attribute | None) -> SourceLocation | None:
        if isinstance(loc, FileLineColLoc):
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        return None

    @staticmethod
    def of_op(op: Operation) -> SourceLocation | None:
        """The op's own location, else the nearest enclosing op's."""
        current: Operation | None = op
        while current is not None:
            if (loc := SourceLocation.of_attr(current.location)) is not None:
                return loc
            current = current.parent_op()
        return None


class TsjitError(Exception):
    """An error in the user's program or input, with where it happened."""

    def __init__(self, message: str, location: SourceLocation | None = None, source_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location
        self.source_line = source_line

    def format(self, tool: str | None = None) -> str:
        """The full report: `where: error: message`, the source line and a caret; `where`
        is the tool's name when the error has no location."""
        where = self.location if self.location is not None else tool
        text = f"{where}: error: {self.message}" if where else f"error: {self.message}"
        line = self.source_line
        if line is None and self.location is not None:
            line = _read_line(self.location)
        if line is not None:
            text += "\n" + line.rstrip("\n")
            if self.location is not None and self.location.col > 0:
                text += "\n" + " " * (self.location.col - 1) + "^"
        return text

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.message}"


def _read_line(loc: SourceLocation) -> str | None:
    if loc.line <= 0 or not os.path.isfile(loc.file):
        return None
    try:
        with open(loc.file, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                if i == loc.line:
                    return line
    except OSError:
        return None
    return None


def from_xdsl_error(error: BaseException, filename: str = "<input>") -> TsjitError | None:
    """Converts xDSL's parse errors (which carry a span) into a TsjitError."""
    from xdsl.utils.exceptions import ParseError

    if isinstance(error, ParseError):
        loc = error.span.get_location()
        line = error.span.input.content
        if isinstance(line, bytes):
            line = line.decode(errors="replace")
        lines = line.splitlines()
        src = lines[loc.line - 1 - error.span.line_offset] if 0 < loc.line - error.span.line_offset <= len(lines) else None
        name = loc.file if loc.file and loc.file != "<unknown>" else filename
        message = error.msg.strip().replace("\r", "\\r").replace("\n", "\\n")  # one line, even quoting input
        return TsjitError(message, SourceLocation(name, loc.line, int(loc.col)), src)
    return None


@contextmanager
def report_errors(tool: str, debug: bool = False) -> Iterator[None]:
    """Runs a tool body; reports any error in the one-line format and exits 1."""
    try:
        yield
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except BaseException as e:  # ArgSpecParseError is a BaseException
        if debug:
            traceback.print_exc()
        print(describe(e, tool), file=sys.stderr)
        sys.exit(1)


def describe(error: BaseException, tool: str) -> str:
    """The user-facing text of any error a tool can meet."""
    if isinstance(error, TsjitError):
        return error.format(tool)
    if (converted := from_xdsl_error(error)) is not None:
        return converted.format(tool)
    message = str(error).strip() or type(error).__name__
    first, *rest = message.splitlines()
    if type(error).__name__ == "ArgSpecParseError" and rest:
        where = rest[0].strip().rsplit(":", 1)[-1]
        return f"{tool}: error: bad pass pipeline at column {where}: {rest[-1].strip()}"
    return f"{tool}: error: {first}"


def tool_main(tool: str, body: Callable[[list[str] | None], None], argv: list[str] | None = None) -> None:
    """Entry point wrapper: `--debug` anywhere in argv enables tracebacks. The body runs
    with the stack deeply nested programs need (`tsjit.nesting`)."""
    from tsjit.nesting import deeply

    args = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in args
    if debug:
        args.remove("--debug")
    with report_errors(tool, debug):
        deeply(body, args)
