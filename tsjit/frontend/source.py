"""Python source as the frontend reads it: parsed once with `ast`, with the file name
and line offset that make every op location and error point at the user's text.

Locations are 1-based lines and columns (`FileLineColLoc`, as `tsjit.diagnostics`);
PyTorch's graph comments print 0-based columns, one less.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

from tsjit.collector import collector_paused
from tsjit.diagnostics import SourceLocation, TsjitError


@dataclass(eq=False)
class SourceFile:
    """Source text under a file name; `line_offset` places an excerpt (a function taken
    from a bigger file) at its real line, `indent` at its real column."""

    filename: str
    text: str
    line_offset: int = 0
    indent: int = 0
    _locations: dict[tuple[int, int], FileLineColLoc] = field(default_factory=dict, repr=False)
    _def_depths: dict[ast.AST, int] = field(default_factory=dict, repr=False)

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def tree(self) -> ast.Module:
        """The syntax tree; deep source is parsed on a deep stack, and source nested
        beyond `NESTING_LIMIT` is an error at its deepest point (`tsjit.nesting`)."""
        from tsjit.nesting import check_source_nesting, retry_deeply

        try:
            with collector_paused():  # the tree's nodes all stay alive: collections would rescan them
                tree = retry_deeply(functools.partial(ast.parse, type_comments=True), self.text, self.filename)
        except (MemoryError, RecursionError):  # Python's own parser gives up ("too complex")
            from tsjit.nesting import nesting_error

            raise nesting_error(SourceLocation(self.filename, self.line_offset + 1)) from None
        except SyntaxError as e:
            line = (e.lineno or 1) + self.line_offset
            raise TsjitError(f"syntax error: {e.msg}", SourceLocation(self.filename, line, (e.offset or 1) + self.indent),
                             e.text.rstrip("\n") if e.text else None) from None  # fmt: skip
        check_source_nesting(tree, self.filename, self.line_offset, self._def_depths)
        return tree

    @cached_property
    def function_defs(self) -> dict[tuple[str, int], ast.FunctionDef | ast.AsyncFunctionDef]:
        """Every def of the tree by (name, line), under the line of the `def` and of each
        decorator: how a Python function's code object (`co_firstlineno`) finds its def
        without walking the whole tree for each function."""
        found: dict[tuple[str, int], ast.FunctionDef | ast.AsyncFunctionDef] = {}
        pending: list[ast.AST] = [self.tree]
        while pending:  # defs are statements: only statement lists are walked, not expressions
            node = pending.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for line in (node.lineno, *(d.lineno for d in node.decorator_list)):
                    found.setdefault((node.name, line), node)
            for field in _STATEMENT_LISTS:
                children = getattr(node, field, None)
                if children:
                    pending.extend(children)
        return found

    def nesting_depth(self, definition: ast.AST) -> int:
        """`check_source_nesting` of a def: known from the tree's check for the defs
        of this file's tree."""
        from tsjit.nesting import check_source_nesting

        known = self._def_depths.get(definition)
        if known is not None:
            return known
        return check_source_nesting(definition, self.filename, self.line_offset)

    def source_location(self, node: ast.AST | None) -> SourceLocation | None:
        if node is None or not hasattr(node, "lineno"):
            return None
        return SourceLocation(
            self.filename, node.lineno + self.line_offset, node.col_offset + 1 + self.indent
        )  # pyright: ignore[reportAttributeAccessIssue]

    def location(self, node: ast.AST) -> FileLineColLoc | None:
        """The op location of `node` (shared attribute per position)."""
        if not hasattr(node, "lineno"):
            return None
        key = (node.lineno, node.col_offset)  # pyright: ignore[reportAttributeAccessIssue]
        loc = self._locations.get(key)
        if loc is None:
            loc = self._locations[key] = _file_line_col(
                self._filename_attr, key[0] + self.line_offset, key[1] + 1 + self.indent
            )
        return loc

    @cached_property
    def _filename_attr(self) -> StringAttr:
        return StringAttr(self.filename)

    def line_text(self, node: ast.AST | None) -> str | None:
        if node is None or not hasattr(node, "lineno"):
            return None
        index = node.lineno - 1  # pyright: ignore[reportAttributeAccessIssue]
        if 0 <= index < len(self.lines):
            return " " * self.indent + self.lines[index]
        return None

    def error(self, node: ast.AST | None, message: str, notes: Sequence[str] = ()) -> TsjitError:
        """The one-line error at `node`, with its source line for the caret, then notes."""
        return TsjitError(message, self.source_location(node), self.line_text(node), notes)


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields that hold statements (or the handlers and match cases that do)."""


def _file_line_col(filename: StringAttr, line: int, column: int) -> FileLineColLoc:
    """`FileLineColLoc(filename, IntAttr(line), IntAttr(column))` without the generic
    parameter verification, which cost more than the rest of an op: every node of the
    source gets one, and its parameters are well-typed by construction."""
    loc = FileLineColLoc.__new__(FileLineColLoc)
    loc.__dict__.update(filename=filename, line=_int_attr(line), column=_int_attr(column))  # it is frozen
    return loc


@functools.lru_cache(maxsize=4096)
def _int_attr(value: int) -> IntAttr:
    return IntAttr(value)


def source_of_file(path: str, filename: str) -> SourceFile:
    """The source of a file on disk, shown as `filename`: read, parsed and checked once
    per process while the file is unchanged (its modification time and size), since
    every compilation that calls into a module (the library's `functional.py` is
    thousands of lines) would otherwise parse all of it again."""
    status = os.stat(path)
    key = (path, filename, status.st_mtime_ns, status.st_size)
    found = _FILES.get(key)
    if found is None:
        with open(path, encoding="utf-8") as f:
            found = SourceFile(filename, f.read())
        if len(_FILES) >= _FILES_LIMIT:
            _FILES.clear()
        _FILES[key] = found
    return found


_FILES: dict[tuple[str, str, int, int], SourceFile] = {}
_FILES_LIMIT = 256
"""Distinct file versions kept; beyond it the table starts again."""
