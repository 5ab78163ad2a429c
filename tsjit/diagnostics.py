"""Errors that point at the user's source, and the one way every tool reports them.

Every tsjit tool reports bad input as `file:line:col: error: message`, followed by the
source line and a caret when the source is at hand, then any notes (the candidates of a
failed overload match, one per line), and exits with status 1. An error raised while a
program runs adds PyTorch's "The following operation failed in the TorchScript
interpreter" traceback: one frame per call (inlined calls included) with its source
range underlined. A Python traceback is shown only with `--debug`.

Library code raises `TsjitError` (or a subclass) with a `SourceLocation`; `describe` is
the formatter: it turns those, running programs' `TorchScriptError`s and the errors of
xDSL (parse, verify, pass pipeline) and of the operating system (a missing file) into
that format. Nothing else in tsjit formats an error for a user.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation

if TYPE_CHECKING:
    from tsjit.runtime.errors import TorchScriptError


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
    def parse(text: str | None) -> SourceLocation | None:
        """The location `str` printed (`file:line[:col]`), or None."""
        if text is None:
            return None
        if (m := re.fullmatch(r"(.+?):(\d+)(?::(\d+))?", text)) is None:
            return SourceLocation(text, 0)
        return SourceLocation(m.group(1), int(m.group(2)), int(m.group(3) or 0))

    @staticmethod
    def of_attr(loc: Attribute | None) -> SourceLocation | None:
        """The innermost position a location attribute names: an inlined op's own (the
        callee of a `callsite`), a named or fused location's first."""
        stack = SourceLocation.stack_of_attr(loc)
        return stack[-1] if stack else None

    @staticmethod
    def stack_of_attr(loc: Attribute | None) -> list[SourceLocation]:
        """The call stack a location attribute records, outermost call first: one
        position for an op of its own function, one more per inlined call."""
        if isinstance(loc, FileLineColLoc):
            return [SourceLocation(loc.filename.data, loc.line.data, loc.column.data)]
        if isinstance(loc, CallSiteLoc):
            return SourceLocation.stack_of_attr(loc.caller) + SourceLocation.stack_of_attr(loc.callee)
        if isinstance(loc, NameLoc):
            return SourceLocation.stack_of_attr(loc.location)
        if isinstance(loc, FusedLoc):
            for inner in loc.locations.data:
                if stack := SourceLocation.stack_of_attr(inner):
                    return stack
        return []

    @staticmethod
    def of_op(op: Operation) -> SourceLocation | None:
        """The op's own location, else the nearest enclosing op's."""
        stack = SourceLocation.stack_of_op(op)
        return stack[-1] if stack else None

    @staticmethod
    def stack_of_op(op: Operation) -> list[SourceLocation]:
        """The op's call stack (see `stack_of_attr`), else the nearest enclosing op's."""
        current: Operation | None = op
        while current is not None:
            if stack := SourceLocation.stack_of_attr(current.location):
                return stack
            current = current.parent_op()
        return []


class TsjitError(Exception):
    """An error in the user's program or input, with where it happened. `notes` are
    lines printed after the source line (as the candidates of a failed call)."""

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        source_line: str | None = None,
        notes: Sequence[str] = (),
    ):
        super().__init__(message)
        self.message = message
        self.location = location
        self.source_line = source_line
        self.notes = tuple(notes)

    def format(self, tool: str | None = None) -> str:
        """The full report: `where: error: message`, the source line and a caret, the
        notes; `where` is the tool's name when the error has no location."""
        return format_diagnostic(self.message, self.location, tool, self.source_line, self.notes)

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.message}" + "".join(f"\n{note}" for note in self.notes)


# --------------------------------------------------------------------------------------
# Sources: where the text of a location comes from
# --------------------------------------------------------------------------------------

_SOURCES: dict[str, str] = {}
"""Texts that are not files on disk (`tsjit.script("...")`, a chunk of standard input)."""

_DIRECTORIES: list[str] = []
"""Directories relative source names are also looked up in: graph text names its Python
source relative to itself (`# source.py:10:26`)."""


def remember_source(name: str, text: str) -> None:
    """Makes `text` the source of locations in `name` (for names that are no file)."""
    _SOURCES[name] = text
    source_lines.cache_clear()


def add_source_directory(path: str) -> None:
    """Relative source names in what `path` (a file read) holds are looked up beside it."""
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in _DIRECTORIES:
        _DIRECTORIES.append(directory)
        source_lines.cache_clear()


@functools.lru_cache(maxsize=64)
def source_lines(name: str) -> tuple[str, ...] | None:
    """The lines of the source `name`, or None when it cannot be found."""
    if name in _SOURCES:
        return tuple(_SOURCES[name].splitlines())
    candidates = [name]
    if not os.path.isabs(name):
        candidates += [os.path.join(d, name) for d in _DIRECTORIES]
    for path in candidates:
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    return tuple(f.read().splitlines())
            except OSError:
                return None
    cached = linecache.getlines(name)  # an interactive session's cells
    return tuple(line.rstrip("\n") for line in cached) if cached else None


def _line(loc: SourceLocation) -> str | None:
    lines = source_lines(loc.file)
    if lines is None or not 0 < loc.line <= len(lines):
        return None
    return lines[loc.line - 1]


# --------------------------------------------------------------------------------------
# The formatter
# --------------------------------------------------------------------------------------


def format_diagnostic(
    message: str,
    location: SourceLocation | None,
    tool: str | None = None,
    source_line: str | None = None,
    notes: Sequence[str] = (),
) -> str:
    """`where: error: message`, the source line and a caret under the column, notes."""
    where = location if location is not None else tool
    lines = [f"{where}: error: {message}" if where else f"error: {message}"]
    if source_line is None and location is not None:
        source_line = _line(location)
    if source_line:  # "": the source has no line to show
        lines.append(source_line.rstrip("\n"))
        if location is not None and location.col > 0:
            lines.append(" " * (location.col - 1) + "^")
    lines += notes
    return "\n".join(lines)


def describe(error: BaseException, tool: str) -> str:
    """The user-facing text of any error a tool can meet."""
    from tsjit.runtime.errors import TorchScriptError

    if isinstance(error, TsjitError):
        return error.format(tool)
    if isinstance(error, TorchScriptError):
        return describe_run_error(error, tool)
    if (converted := from_xdsl_error(error)) is not None:
        return converted.format(tool)
    if isinstance(error, UnicodeDecodeError):
        return format_diagnostic(f"the input is not UTF-8 text ({error.reason} at byte {error.start})", None, tool)
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or type(error).__name__
        return format_diagnostic(f"cannot read '{error.filename}': {reason[:1].lower()}{reason[1:]}", None, tool)
    message = str(error).strip() or type(error).__name__
    return format_diagnostic(message.splitlines()[0], None, tool)


def from_xdsl_error(error: BaseException, filename: str = "<input>") -> TsjitError | None:
    """Converts xDSL's parse errors (which carry a span) into a TsjitError."""
    from xdsl.utils.exceptions import ParseError

    if not isinstance(error, ParseError):
        return None
    loc = error.span.get_location()
    content = error.span.input.content
    if isinstance(content, bytes):
        content = content.decode(errors="replace")
    lines = content.splitlines()
    index = loc.line - 1 - error.span.line_offset
    src = lines[index] if 0 <= index < len(lines) else None
    name = loc.file if loc.file and loc.file != "<unknown>" else filename
    message = error.msg.strip().replace("\r", "\\r").replace("\n", "\\n")  # one line, even quoting input
    return TsjitError(message, SourceLocation(name, loc.line, int(loc.col)), src)


# --------------------------------------------------------------------------------------
# Errors of running programs: PyTorch's traceback of TorchScript
# --------------------------------------------------------------------------------------

INTERPRETER_FAILED = "The following operation failed in the TorchScript interpreter."
CONTEXT_LINES = 2
"""Lines shown around a frame's range, as PyTorch shows them."""


def describe_run_error(error: TorchScriptError, tool: str | None = None) -> str:
    """A program's exception: located at the operation that failed (its source line and
    caret), then the TorchScript traceback of every frame, as PyTorch prints it."""
    frames = list(error.frames)
    if not frames and (where := SourceLocation.parse(error.location)) is not None:
        frames = [where]
    headline = f"{error.kind}: {error.message}"
    text = format_diagnostic(headline, frames[-1] if frames else None, tool)
    if frames:
        text += "\n" + torchscript_traceback(error)
    return text


def torchscript_traceback(error: TorchScriptError) -> str:
    """`The following operation failed ...`, one frame per call, the exception last."""
    frames = list(error.frames) or [f for f in [SourceLocation.parse(error.location)] if f is not None]
    lines = [INTERPRETER_FAILED, "Traceback of TorchScript (most recent call last):"]
    lines += [format_frame(frame) for frame in frames]
    lines.append(f"{error.kind}: {error.message}")
    return "\n".join(lines)


def format_frame(frame: SourceLocation) -> str:
    """`  File "f.py", line 7, in forward`, the lines around it with the range of the
    failing expression underlined `~~~~ <--- HERE`."""
    lines = source_lines(frame.file)
    span = _source_span(frame)
    header = f'  File "{frame.file}", line {frame.line}' + (f", in {span.function}" if span.function else "")
    if lines is None or not 0 < frame.line <= len(lines):
        return header
    first = max(span.first_line, frame.line - CONTEXT_LINES)
    last = min(span.last_line, frame.line + CONTEXT_LINES, len(lines))
    out = [header]
    for number in range(first, last + 1):
        out.append(lines[number - 1])
        if number == frame.line:
            start = max(frame.col - 1, 0)
            end = max(span.end_col, start + 1)
            out.append(" " * start + "~" * (end - start) + " <--- HERE")
    return "\n".join(out)


@dataclass(frozen=True)
class _Span:
    end_col: int  # 0-based, exclusive, on the frame's line
    function: str | None  # the enclosing Python function
    first_line: int  # the lines the context may show (the function's, decorators included)
    last_line: int


def _source_span(frame: SourceLocation) -> _Span:
    line = _line(frame) or ""
    start = max(frame.col - 1, 0)
    word = re.match(r"[\w:.%]+", line[start:])
    fallback = _Span(start + (len(word.group(0)) if word else 1), None, 1, sys.maxsize)
    tree = _python_tree(frame.file) if frame.file.endswith(".py") or frame.file.startswith("<") else None
    if tree is None:
        return fallback
    function: ast.AST | None = None
    node_end: int | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if first <= frame.line <= (node.end_lineno or node.lineno):
                if function is None or first >= _first_line(function):
                    function = node
        if getattr(node, "lineno", None) == frame.line and getattr(node, "col_offset", None) == start:
            target = node.func if isinstance(node, ast.Call) else node
            if target.end_lineno == frame.line and target.end_col_offset is not None:
                node_end = max(node_end or 0, target.end_col_offset)
    if function is None:
        return _Span(node_end or fallback.end_col, None, 1, sys.maxsize)
    return _Span(
        node_end or fallback.end_col,
        function.name,  # pyright: ignore[reportAttributeAccessIssue]
        _first_line(function),
        function.end_lineno or frame.line,
    )


def _first_line(function: ast.AST) -> int:
    return min([function.lineno, *(d.lineno for d in function.decorator_list)])  # pyright: ignore


@functools.lru_cache(maxsize=16)
def _python_tree(name: str) -> ast.Module | None:
    lines = source_lines(name)
    if lines is None:
        return None
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


# --------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------


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
