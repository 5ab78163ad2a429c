"""Deeply nested programs: a documented nesting limit instead of Python's stack.

PyTorch's C++ readers and frontend take programs nested far deeper than Python's default
recursion limit (1000 frames) lets tsjit's recursive readers, emitter, printers and
passes go: `return x + x + ...` with 250 terms, 900 unary minus signs, types and
constants nested hundreds or thousands of levels. tsjit accepts up to `NESTING_LIMIT`
levels (brackets and type suffixes in MLIR and graph text, expression depth in Python
source) and rejects deeper input with a located error before it recurses
(`check_text_nesting`, `check_source_nesting`). Work that needs more stack than the
calling thread has runs on a thread of its own whose stack and recursion limit fit the
limit (`deeply`); `retry_deeply` does so only when the plain call runs out of stack,
for work that is safe to repeat (it builds new IR and changes nothing else).

    depth = check_text_nesting(text, "prog.mlir")   # a TsjitError past NESTING_LIMIT
    module = deeply(parse, text) if needs_deep_stack(depth) else parse(text)
"""

from __future__ import annotations

import ast
import contextvars
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from tsjit.diagnostics import SourceLocation, TsjitError

NESTING_LIMIT = 5000
"""The deepest nesting tsjit reads: levels of brackets or type suffixes in text, of
expressions and blocks in Python source."""

FRAMES_PER_LEVEL = 40
"""Python frames one level of nesting may take, over the readers, the emitter, the
verifier, the printers and the passes (measured: about 12 at most)."""

DEEP_RECURSION_LIMIT = NESTING_LIMIT * FRAMES_PER_LEVEL
DEEP_STACK_BYTES = 1 << 30
"""The stack of a deep thread: virtual memory, committed only as far as it is used;
room for `DEEP_RECURSION_LIMIT` frames even where every frame re-enters C."""

_HEADROOM = 200
"""Frames kept free for the callers of deep work and for reporting its errors."""

T = TypeVar("T")


def nesting_error(location: SourceLocation | None) -> TsjitError:
    return TsjitError(f"the program is nested more than {NESTING_LIMIT} levels deep, tsjit's limit", location)


# --------------------------------------------------------------------------------------
# Measuring nesting without recursion
# --------------------------------------------------------------------------------------

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|#[^\n]*|->|\[\s*\]|[\[\](){}<>?]')
_CLOSERS = {"]": "[", ")": "(", "}": "{", ">": "<"}


def check_text_nesting(text: str, filename: str, line_offset: int = 0) -> int:
    """The nesting depth of MLIR or graph text: open brackets, plus chains of the type
    suffixes (`int[][]`, `Tensor?[]`) that nest a type without brackets. Raises a
    located error at the first point deeper than `NESTING_LIMIT`."""
    stack: list[str] = []
    chain = 0  # suffixes in a row, each right after the last
    chain_end = -1
    deepest = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "?" or token[0] == "[" and token[-1] == "]":
            chain = chain + 1 if match.start() == chain_end else 1
            chain_end = match.end()
        else:
            chain = 0
            if token in _CLOSERS:
                if stack and stack[-1] == _CLOSERS[token]:
                    stack.pop()
            elif token in "[({<":
                stack.append(token)
        depth = len(stack) + chain
        if depth > deepest:
            deepest = depth
            if deepest > NESTING_LIMIT:
                raise nesting_error(_location(text, match.start(), filename, line_offset))
    return deepest


def _location(text: str, offset: int, filename: str, line_offset: int) -> SourceLocation:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return SourceLocation(filename, line + line_offset, column)


def check_source_nesting(
    tree: ast.AST, filename: str, line_offset: int = 0, def_depths: dict[ast.AST, int] | None = None
) -> int:
    """The depth of a Python syntax tree; a located error at the first node deeper than
    `NESTING_LIMIT`. `def_depths`, when given, receives the depth of every function
    definition in the tree (what this check of the def alone would return).

    The tree is measured level by level (this check runs on every source read, and
    most source is shallow); only a tree too deep is walked again, depth first, to
    find the node to report."""
    found: dict[ast.AST, int] | None = {} if def_depths is not None else None
    deepest = _height(tree, found)
    if deepest > NESTING_LIMIT:
        return _first_too_deep(tree, filename, line_offset)
    if def_depths is not None and found is not None:
        def_depths.update(found)
    return deepest


def _height(root: ast.AST, def_heights: dict[ast.AST, int] | None) -> int:
    """The levels below `root`, or a number past `NESTING_LIMIT` once that is certain;
    with `def_heights`, the height of every def in the tree is recorded there (each
    def is measured on its own; defs nest only as deep as Python's indentation)."""
    node_type, def_type = ast.AST, ast.FunctionDef
    level: list[ast.AST] = [root]
    height = -1
    deepest = 0
    while level:
        height += 1
        if height > NESTING_LIMIT:
            return height
        below: list[ast.AST] = []
        push = below.append
        for node in level:
            if def_heights is not None and node is not root and type(node) is def_type:
                inner = _height(node, def_heights)
                if height + inner > deepest:
                    deepest = height + inner
                continue
            for name in node._fields:
                child = getattr(node, name, None)
                if isinstance(child, node_type):
                    push(child)
                elif isinstance(child, list):
                    for item in child:
                        if isinstance(item, node_type):
                            push(item)
        level = below
    deepest = max(deepest, height)
    if def_heights is not None and type(root) is def_type:
        def_heights[root] = deepest
    return deepest


def _first_too_deep(tree: ast.AST, filename: str, line_offset: int) -> int:
    """Raises the nesting error at the first node deeper than `NESTING_LIMIT`, in the
    order of a depth-first walk."""
    pending: list[tuple[ast.AST, int]] = [(tree, 0)]
    pop, push, node_type = pending.pop, pending.append, ast.AST
    while pending:
        node, depth = pop()
        if depth > NESTING_LIMIT:
            line = getattr(node, "lineno", 0)
            col = getattr(node, "col_offset", -1) + 1
            raise nesting_error(SourceLocation(filename, line + line_offset if line else 0, col))
        depth += 1
        for name in node._fields:
            child = getattr(node, name, None)
            if isinstance(child, node_type):
                push((child, depth))
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, node_type):
                        push((item, depth))
    raise AssertionError("a tree deeper than the limit has a node past it")


# --------------------------------------------------------------------------------------
# Running deep work
# --------------------------------------------------------------------------------------


def needs_deep_stack(depth: int) -> bool:
    """Whether work over `depth` levels may not fit in the current thread's stack."""
    return _frames_in_use() + depth * FRAMES_PER_LEVEL + _HEADROOM > sys.getrecursionlimit()


def _frames_in_use() -> int:
    count = 0
    frame = sys._getframe()  # noqa: SLF001 -- the one way to measure the stack cheaply
    while frame is not None:
        count += 1
        frame = frame.f_back
    return count


def deeply(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` on a thread with a deep stack (see the module docstring), in the
    caller's context; its result, or its exception re-raised. Running out of even that
    stack is the nesting error. (Python's recursion limit is one per interpreter: it
    stays raised while deep threads run.)"""
    if getattr(_deep, "active", False):
        return _unless_too_deep(work, *args)  # already on a deep thread
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def run() -> None:
        _deep.active = True
        try:
            outcome["result"] = context.run(_unless_too_deep, work, *args)
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    _raise_recursion_limit()
    try:
        with _lock:
            previous = threading.stack_size(DEEP_STACK_BYTES)
            try:
                thread = threading.Thread(target=run, name="tsjit-deep", daemon=True)
                thread.start()
            finally:
                threading.stack_size(previous)
        thread.join()
    finally:
        _restore_recursion_limit()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def retry_deeply(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)`, run again on a deep thread if it runs out of stack; only for work
    that can be repeated (it builds new objects and changes nothing it was given)."""
    try:
        return work(*args)
    except RecursionError:
        return deeply(work, *args)


_deep = threading.local()
_lock = threading.Lock()
_limits: list[int] = []  # the limit before the first deep thread, while any runs


def _raise_recursion_limit() -> None:
    with _lock:
        _limits.append(sys.getrecursionlimit())
        if len(_limits) == 1:
            sys.setrecursionlimit(max(_limits[0], DEEP_RECURSION_LIMIT))


def _restore_recursion_limit() -> None:
    with _lock:
        first = _limits.pop()
        if not _limits:
            sys.setrecursionlimit(first)


def _unless_too_deep(work: Callable[..., T], *args: Any) -> T:
    try:
        return work(*args)
    except RecursionError:
        raise nesting_error(None) from None
