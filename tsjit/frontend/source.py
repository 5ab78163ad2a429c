"""Python source as the frontend reads it: parsed once with `ast`, with the file name
and line offset that make every op location and error point at the user's text.

Locations are 1-based lines and columns (`FileLineColLoc`, as `tsjit.diagnostics`);
PyTorch's graph comments print 0-based columns, one less.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

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
