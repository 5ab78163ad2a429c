"""What every tsjit pass shares: PyTorch's JIT logging and optimization limits, applied
around each pass by the `TsjitPass` base class, so no pass carries code for them.

    TSJIT_LOG_LEVEL=dead_code_elimination:>peephole:>>common-subexpression-elimination
    TSJIT_OPT_LIMIT=peephole=2:dead-code-elimination=0

Both follow PyTorch's grammar (`PYTORCH_JIT_LOG_LEVEL`, `PYTORCH_JIT_OPT_LIMIT`, read
when the `TSJIT_` variable is unset). Entries are separated by `:` and name a pass by
its module stem (`dead_code_elimination`, an extension is ignored) or its pass name
(`dead-code-elimination`). A log entry without prefix dumps the module to stderr after
the pass (GRAPH_DUMP); `>` adds one line per rewrite (GRAPH_UPDATE); `>>` adds the
passes' debug messages (GRAPH_DEBUG). Every line carries a prefix such as
`[UPDATE dead_code_elimination] `. A limit `pass=N` lets that pass rewrite N times in
the whole process (as PyTorch counts), which bisects a miscompiling rewrite.

Rewrites are counted where they happen: `TsjitPass.rewrite`'s driver counts the
rewrites of patterns (as `limited` does for patterns run by xDSL's drivers),
analysis-driven passes ask `allow_rewrite` before each change. xDSL's own passes run
by a tsjit pipeline get the dump through `run_pass`.
"""

from __future__ import annotations

import enum
import inspect
import os
import sys
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from io import StringIO
from types import UnionType
from typing import Union, get_args, get_origin

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)
from xdsl.printer import Printer

from tsjit.collector import collector_paused
from tsjit.diagnostics import SourceLocation, TsjitError

LOG_LEVEL_VARIABLES = ("TSJIT_LOG_LEVEL", "PYTORCH_JIT_LOG_LEVEL")
OPT_LIMIT_VARIABLES = ("TSJIT_OPT_LIMIT", "PYTORCH_JIT_OPT_LIMIT")


class LogLevel(enum.IntEnum):
    """PyTorch's JitLoggingLevels; an entry with n `>` enables levels up to n."""

    DUMP = 0
    UPDATE = 1
    DEBUG = 2


# --------------------------------------------------------------------------------------
# Configuration from the environment
# --------------------------------------------------------------------------------------


def _setting(variables: Sequence[str]) -> tuple[str, str]:
    """The first variable that is set, and its value."""
    for variable in variables:
        if (value := os.environ.get(variable)) is not None:
            return variable, value
    return variables[0], ""


def _key(name: str) -> str:
    """Pass names and module stems compare alike: `dead-code-elimination` and
    `dead_code_elimination.py` are both `dead_code_elimination`."""
    stem = name.rpartition(".")[0] if "." in name else name
    return stem.replace("-", "_")


@cache
def parse_log_levels(text: str) -> dict[str, LogLevel]:
    """`a:>b:>>c` → {a: DUMP, b: UPDATE, c: DEBUG}, keys normalized by `_key`."""
    levels: dict[str, LogLevel] = {}
    for entry in text.split(":"):
        name = entry.lstrip(">")
        if name:
            levels[_key(name)] = LogLevel(min(len(entry) - len(name), LogLevel.DEBUG))
    return levels


@cache
def parse_opt_limits(variable: str, text: str) -> dict[str, int]:
    """`a=2:b=0` → {a: 2, b: 0}, keys normalized by `_key`."""
    limits: dict[str, int] = {}
    for entry in text.split(":"):
        if not entry:
            continue
        name, equals, count = entry.partition("=")
        if not equals or not name or not count.isdigit():
            raise TsjitError(f"entry '{entry}' is not of the form pass=N", SourceLocation(variable, 0))
        limits[_key(name)] = int(count)
    return limits


_rewrites_done: dict[tuple[str, str], int] = {}
"""Rewrites per (limit setting, pass key): process-wide, as PyTorch counts them; a new
setting starts from zero."""


# --------------------------------------------------------------------------------------
# The active pass
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PassLog:
    """Logging and limit state of the pass that is running."""

    stem: str
    """The pass module's file stem, the prefix of every line it logs."""
    keys: tuple[str, ...]
    level: LogLevel | None
    limit: tuple[tuple[str, str], int] | None = None
    """The counter key in `_rewrites_done` and the number of rewrites allowed."""

    def enabled(self, level: LogLevel) -> bool:
        return self.level is not None and level <= self.level

    def write(self, level: LogLevel, text: str) -> None:
        prefix = f"[{level.name} {self.stem}] "
        sys.stderr.write("".join(prefix + line + "\n" for line in text.splitlines()))

    def allow_rewrite(self) -> bool:
        if self.limit is None:
            return True
        counter, allowed = self.limit
        done = _rewrites_done.get(counter, 0)
        if done >= allowed:
            return False
        _rewrites_done[counter] = done + 1
        return True

    def limit_reached(self) -> bool:
        return self.limit is not None and _rewrites_done.get(self.limit[0], 0) >= self.limit[1]


_ACTIVE: ContextVar[PassLog | None] = ContextVar("tsjit_active_pass", default=None)


def pass_stem(pass_: ModulePass) -> str:
    return type(pass_).__module__.rpartition(".")[2]


@contextmanager
def pass_scope(pass_: ModulePass) -> Iterator[PassLog]:
    """Runs the body as `pass_`: its rewrites are counted against its limit and its
    messages logged at its level. The cyclic garbage collector pauses meanwhile: its
    full collections rescan the whole IR, which made large graphs quadratic."""
    log = _pass_log(type(pass_).__module__, pass_.name, _setting(LOG_LEVEL_VARIABLES)[1], _setting(OPT_LIMIT_VARIABLES))
    token = _ACTIVE.set(log)
    try:
        with collector_paused():  # passes allocate much and free little: collections would rescan the IR
            yield log
    finally:
        _ACTIVE.reset(token)


@cache
def _pass_log(module: str, name: str, levels_text: str, limit_setting: tuple[str, str]) -> PassLog:
    """The log of a pass (by its module and name) under these settings, made once: a
    pipeline scopes a pass per step, and on small graphs working out the level and
    limit cost as much as the pass. A PassLog is never changed (the rewrite counts
    live in `_rewrites_done`), so one serves every run."""
    stem = module.rpartition(".")[2]
    keys = (_key(stem), _key(name))
    levels = parse_log_levels(levels_text)
    level = max((levels[k] for k in keys if k in levels), default=None)
    limit_variable, limits_text = limit_setting
    limits = parse_opt_limits(limit_variable, limits_text)
    allowed = min((limits[k] for k in keys if k in limits), default=None)
    limit = None if allowed is None else ((limits_text, keys[0]), allowed)
    return PassLog(stem, keys, level, limit)


def dump_module(log: PassLog, pass_name: str, module: ModuleOp) -> None:
    if log.enabled(LogLevel.DUMP):
        log.write(LogLevel.DUMP, f"After {pass_name}:\n{module_text(module)}")


def module_text(module: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def describe_op(op: Operation) -> str:
    """An op as update lines name it: its name and source location."""
    location = SourceLocation.of_op(op)
    return f"{op.name} at {location}" if location is not None else op.name


def logging_at(level: LogLevel) -> bool:
    """Whether the running pass logs at `level`: check before building costly messages."""
    log = _ACTIVE.get()
    return log is not None and log.enabled(level)


def log_update(message: str, op: Operation | None = None) -> None:
    """A GRAPH_UPDATE line for the running pass, naming `op` and its location."""
    _log(LogLevel.UPDATE, message, op)


def log_debug(message: str, op: Operation | None = None) -> None:
    """A GRAPH_DEBUG line for the running pass."""
    _log(LogLevel.DEBUG, message, op)


def _log(level: LogLevel, message: str, op: Operation | None) -> None:
    log = _ACTIVE.get()
    if log is not None and log.enabled(level):
        log.write(level, f"{describe_op(op)}: {message}" if op is not None else message)


def active_log() -> PassLog | None:
    """The logging and limit state of the running pass; None outside a pass."""
    return _ACTIVE.get()


def allow_rewrite() -> bool:
    """Counts one rewrite of the running pass; False once its limit is spent (then the
    pass must leave the IR as it is). Outside a pass every rewrite is allowed."""
    log = _ACTIVE.get()
    return log is None or log.allow_rewrite()


# --------------------------------------------------------------------------------------
# Patterns, passes and pipelines
# --------------------------------------------------------------------------------------


@dataclass
class LimitedPattern(RewritePattern):
    """Runs `pattern` while the pass's limit allows and logs each rewrite it makes."""

    pattern: RewritePattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        log = _ACTIVE.get()
        if log is None:
            self.pattern.match_and_rewrite(op, rewriter)
            return
        if log.limit_reached():
            return
        acted_before = rewriter.has_done_action
        what = describe_op(op) if log.enabled(LogLevel.UPDATE) else ""
        self.pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action and not acted_before:
            log.allow_rewrite()
            if what:
                log.write(LogLevel.UPDATE, f"{what}: rewritten by {type(self.pattern).__name__}")


def limited(pattern: RewritePattern) -> RewritePattern:
    """`pattern` with the running pass's rewrite counter and update log."""
    return pattern if isinstance(pattern, LimitedPattern) else LimitedPattern(pattern)


def pattern_roots(pattern: RewritePattern) -> tuple[frozenset[str], tuple[type[Operation], ...]] | None:
    """The op names and op types `pattern` can match (its `roots` attribute, or the op
    types its `op_type_rewrite_pattern` method takes), or None for any op."""
    inner = pattern.pattern if isinstance(pattern, LimitedPattern) else pattern
    names: frozenset[str] | None = getattr(inner, "roots", None)
    if names is not None:
        return frozenset(names), ()
    return _method_roots(type(inner).match_and_rewrite)


@cache
def _method_roots(method: Callable[..., object]) -> tuple[frozenset[str], tuple[type[Operation], ...]] | None:
    """The op types an `op_type_rewrite_pattern` method takes (once per method: every
    pattern driver asks, and reading a closure costs more than a small graph's rewrite)."""
    if method.__closure__ is None:  # pyright: ignore[reportFunctionMemberAccess]
        return None
    captured = inspect.getclosurevars(method).nonlocals
    expected = captured.get("expected_type")  # what xDSL's `op_type_rewrite_pattern` checks
    if expected is None or "func" not in captured:
        return None
    types = get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)
    if not all(isinstance(t, type) and issubclass(t, Operation) for t in types):
        return None
    return frozenset(), tuple(types)


def can_match(
    pattern: RewritePattern, roots: tuple[frozenset[str], tuple[type[Operation], ...]] | None, op: Operation
) -> bool:
    """Whether `pattern` (with its `pattern_roots`) can match ops of `op`'s kind: asked
    once per op name. Beyond its roots, a pattern may define `matches_kind(op)` for what
    a set of names cannot say (constant folding: operators that have a kernel)."""
    if roots is not None and not (op.name in roots[0] or isinstance(op, roots[1])):
        return False
    inner = pattern.pattern if isinstance(pattern, LimitedPattern) else pattern
    matches_kind: Callable[[Operation], bool] | None = getattr(inner, "matches_kind", None)
    return matches_kind is None or matches_kind(op)


def operator_roots(overloads: Iterable[str]) -> frozenset[str]:
    """The op names of operator overloads (`aten::size.int` → `aten.size`): a
    pattern's `roots` when it matches the overloads of a table."""
    return frozenset(o.partition(".")[0].replace("::", ".") for o in overloads)


class TsjitPass(ModulePass):
    """Base of tsjit's passes: `apply` runs `run` inside the pass's logging and limit
    scope and dumps the module afterwards when TSJIT_LOG_LEVEL names the pass."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with pass_scope(self) as log:
            self.run(ctx, op)
            dump_module(log, self.name, op)

    @abstractmethod
    def run(self, ctx: Context, op: ModuleOp) -> None: ...

    @staticmethod
    def rewrite(
        root: ModuleOp | FuncOp,
        patterns: Sequence[RewritePattern],
        *,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
        walk_regions_first: bool = False,
    ) -> bool:
        """Applies `patterns` (the first that matches an op wins, each offered only the
        ops it can match) with the worklist driver of `pattern_driver`, every rewrite
        counted and logged; True when the IR changed."""
        from tsjit.transforms.pattern_driver import PatternDriver

        driver = PatternDriver(
            patterns,
            apply_recursively=apply_recursively,
            walk_reverse=walk_reverse,
            walk_regions_first=walk_regions_first,
        )
        return driver.rewrite_region(root.body)

    @staticmethod
    def graphs(module: ModuleOp) -> Iterator[FuncOp]:
        """The graphs of a module (functions with a body), nested modules included."""
        for op in module.ops:
            if isinstance(op, FuncOp) and op.body.blocks:
                yield op
            elif isinstance(op, ModuleOp):
                yield from TsjitPass.graphs(op)


PassObserver = Callable[[ModulePass, ModuleOp], None]
_OBSERVERS: ContextVar[tuple[PassObserver, ...]] = ContextVar("tsjit_pass_observers", default=())


@contextmanager
def observe_passes(observer: PassObserver) -> Iterator[None]:
    """Calls `observer(pass, module)` after every pass a pipeline runs through
    `run_pass` (ts-opt's --print-ir-after-all for the steps of a named pipeline)."""
    token = _OBSERVERS.set((*_OBSERVERS.get(), observer))
    try:
        yield
    finally:
        _OBSERVERS.reset(token)


def run_pass(pass_: ModulePass, ctx: Context, module: ModuleOp) -> None:
    """Applies any pass as a step of a pipeline: tsjit passes log themselves, xDSL's
    get the same dump; observers see the module after the step."""
    if isinstance(pass_, TsjitPass):
        pass_.apply(ctx, module)
    else:
        with pass_scope(pass_) as log:
            pass_.apply(ctx, module)
            dump_module(log, pass_.name, module)
    for observer in _OBSERVERS.get():
        observer(pass_, module)


def dump_after(pass_: ModulePass, module: ModuleOp) -> None:
    """The dump `run_pass` makes, for drivers that apply a pass of xDSL's themselves
    (a tsjit pass has dumped already)."""
    if not isinstance(pass_, TsjitPass):
        with pass_scope(pass_) as log:
            dump_module(log, pass_.name, module)
