"""The driver that applies a tsjit pass's rewrite patterns: xDSL's worklist algorithm
(`PatternRewriteWalker` over a greedy applier), at a cost proportional to the ops that
some pattern can match rather than to every op of the graph.

    PatternDriver([FoldConstantIf(db), FoldConstantOp(db)]).rewrite_region(graph.body)

What it keeps of xDSL's walker, so that passes rewrite exactly as they did under it: the
processing order (every op of the region in walk order, then the ops the rewrites
touch, last pushed first), the events that push ops (an inserted or modified op, the
users of a replaced op's results, the single-use producers of an erased op's operands),
sweeps repeated until one changes nothing, the first pattern that acts on an op wins,
and a pattern's exception reported against the op. What it changes is the cost:

- patterns are offered only the ops they can match (their roots and kind filter,
  `can_match`): a table from op name to candidate patterns, and an op no pattern can match never enters
  the worklist, so it costs one dict lookup per sweep;
- an op whose operands' producers break the patterns' `ProducedBy` promises (constant
  folding: every operand a constant) is not offered them, though it keeps its place in
  the worklist; patterns of xDSL's `op_type_rewrite_pattern` are called past its type
  check, which the candidate table already made;
- the worklist is keyed by `id` (an xDSL op hashes in a Python method); it holds each
  op it indexes, so an id cannot be reused while it is listed;
- ops are listed by a flat walk instead of nested generators, only those with
  candidates;
- the rewriter's insertion point (before the op offered) is made when a pattern
  first asks for it: most offers rewrite nothing;
- the ops a change touches are marked up to the region rewritten, not beyond: the
  ops around it are never offered;
- the running pass's rewrite limit and update log (`pass_logging`) are checked here,
  once per rewrite, and cost nothing when neither is set;
- the sweep that would change nothing is skipped when it provably would: when every
  pattern offered an op is a `LocalPattern` that left ops alone for local reasons only,
  and no op was touched (inserted, modified, replaced, or a neighbour of such an op)
  after its last offer. Any other sweep runs as in xDSL's walker.

`insert_ops_before` and `replace_uses` are the rewriter's `insert` and
`replace_all_uses_with` done in place (as `forwarding` does `replace` and `erase`), for
patterns that rewrite thousands of small ops (constant folding): the same events in the
same order, the same IR, use lists in the same order included.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from xdsl.ir import Operation, Region, SSAValue, SSAValues
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint

from tsjit.dialects.op_building import insert_built_op
from tsjit.transforms.pass_logging import (
    LimitedPattern,
    LogLevel,
    PassLog,
    active_log,
    can_match,
    describe_op,
    pattern_roots,
)

Candidates = tuple[RewritePattern, ...]
Match = Callable[[Operation, PatternRewriter], None]


class LocalPattern:
    """A pattern whose decision on an op depends only on the op's neighbourhood: the op
    and the ops nested in it (their kinds, properties, operands, regions and result
    types, not the uses of their results), and the kinds and properties of the ops
    producing their operands (which a rewrite changes only by replacing the producer).
    The driver then knows that an op it offered, with nothing in that neighbourhood
    touched since, would be left alone again.

    A pattern that sometimes decides on more (say, on alias facts of the whole graph)
    overrides `left_alone_locally` to say so."""

    def left_alone_locally(self) -> bool:
        """Whether every op this pattern left alone since the last call was left alone
        for reasons of its neighbourhood only; starts counting anew."""
        return True


class MostlyLocalPattern(LocalPattern):
    """A `LocalPattern` whose few declines that reach beyond an op's neighbourhood are
    named where they happen (`declined_for_the_graph()`), so that the driver still skips
    its last, unchanging sweep when none of them happened.

        class FoldLenOfListLiteral(RewritePattern, MostlyLocalPattern):
            def match_and_rewrite(self, op, rewriter):
                ...
                if self.aliases.has_writers(value):
                    return self.declined_for_the_graph()  # alias facts of the whole graph

    A decline for the graph is one that a rewrite elsewhere can undo without touching
    the op: alias facts (writers, escapes), the uses of a value (a user needing the
    exact type, a second use of a list), the operands of an operand's producer.
    Everything else a pattern checks (the op's kind, operands, result types, its
    operands' producers' kinds and properties) is local, and a decline for it stays
    true until the driver offers the op again."""

    _declined_for_the_graph: bool = False

    def declined_for_the_graph(self) -> None:
        self._declined_for_the_graph = True

    def left_alone_locally(self) -> bool:
        local = not self._declined_for_the_graph
        self._declined_for_the_graph = False
        return local


@dataclass(frozen=True)
class ProducedBy:
    """A pattern's promise, as its `operands_produced_by` attribute: it leaves alone, for
    a local reason, every op where an operand at `positions` (every operand when None)
    is not a result of an op of exactly class `kind`. The driver then does not offer it
    such ops; the op keeps its place in the worklist, so the order of the offers that
    remain, and with it every rewrite, is that of xDSL's walker.

        class FoldConstantOp(RewritePattern, MostlyLocalPattern):
            operands_produced_by = ProducedBy(ConstantOp)  # every operand a constant
    """

    kind: type[Operation]
    positions: tuple[int, ...] | None = None

    def holds(self, op: Operation) -> bool:
        kind, operands = self.kind, op._operands  # pyright: ignore[reportPrivateUsage]
        if self.positions is None:
            return all(type(getattr(value, "op", None)) is kind for value in operands)
        return all(i < len(operands) and type(getattr(operands[i], "op", None)) is kind for i in self.positions)


Gate = Callable[[Operation], bool]


def _gate(patterns: Candidates) -> tuple[type[Operation] | None, Gate | None]:
    """What an op must pass to be offered to `patterns`, one of their `ProducedBy`
    promises: the class every operand's producer must be of, when that is the one
    promise, or a check; (None, None) when some pattern made no promise."""
    promises: list[ProducedBy] = []
    for pattern in patterns:
        promise = getattr(pattern, "operands_produced_by", None)
        if not isinstance(promise, ProducedBy):
            return None, None
        promises.append(promise)
    if not promises:
        return None, None
    if len(promises) == 1 and promises[0].positions is None:
        return promises[0].kind, None
    return None, lambda op: any(promise.holds(op) for promise in promises)


def _direct_match(pattern: RewritePattern, roots: tuple[frozenset[str], tuple[type[Operation], ...]] | None) -> Match:
    """`pattern.match_and_rewrite`, without the type check of xDSL's
    `op_type_rewrite_pattern` when the driver offers the pattern only ops of the types
    that check accepts (its roots are those types)."""
    bound = pattern.match_and_rewrite
    if roots is None or roots[0] or getattr(pattern, "roots", None) is not None or "match_and_rewrite" in vars(pattern):
        return bound
    inner = _checked_function(type(pattern).match_and_rewrite)
    return bound if inner is None else inner.__get__(pattern)


@cache
def _checked_function(method: Callable[..., object]) -> Callable[..., object] | None:
    """The function an `op_type_rewrite_pattern` method calls after its type check."""
    if method.__closure__ is None:  # pyright: ignore[reportFunctionMemberAccess]
        return None
    captured = inspect.getclosurevars(method).nonlocals
    inner = captured.get("func")
    return inner if callable(inner) and "expected_type" in captured else None


def _left_alone_locally(pattern: RewritePattern) -> bool:
    return isinstance(pattern, LocalPattern) and pattern.left_alone_locally()


class _DriverRewriter(PatternRewriter):
    """xDSL's rewriter whose insertion point, before the op being offered, is made
    when a pattern first asks for it: most offers rewrite nothing."""

    _point: InsertPoint | None = None

    @property
    def insertion_point(self) -> InsertPoint:  # pyright: ignore[reportIncompatibleVariableOverride]
        point = self._point
        if point is None:
            assert self._current_operation is not None
            point = self._point = InsertPoint.before(self._current_operation)
        return point

    @insertion_point.setter
    def insertion_point(self, point: InsertPoint) -> None:  # pyright: ignore[reportIncompatibleVariableOverride]
        self._point = point


class PatternDriver:
    """Applies `patterns` to the ops of a region until none applies (see the module
    doc); `walk_reverse` and `walk_regions_first` order the sweeps as xDSL's walker
    options do, `apply_recursively=False` makes one sweep without following rewrites."""

    def __init__(
        self,
        patterns: Sequence[RewritePattern],
        *,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
        walk_regions_first: bool = False,
    ):
        self.patterns = tuple(p.pattern if isinstance(p, LimitedPattern) else p for p in patterns)
        self.roots = tuple(pattern_roots(p) for p in self.patterns)
        self._matches = {id(p): _direct_match(p, roots) for p, roots in zip(self.patterns, self.roots)}
        self.apply_recursively = apply_recursively
        self.walk_reverse = walk_reverse
        self.walk_regions_first = walk_regions_first
        self.table: dict[str, Candidates] = {}
        """Op name -> the patterns that can match it, in order (one class per op name)."""
        self._offers: dict[str, tuple[Candidates, type[Operation] | None, Gate | None, tuple[Match, ...]]] = {}
        """Op name -> its candidates, what an op must pass to be offered to them
        (`_gate`) and their `match_and_rewrite` (`_direct_match`); filled in with `table`."""
        self._stack: list[Operation | None] = []
        self._index: dict[int, int] = {}
        """id(op) -> its place in `_stack`, for the ops listed."""
        self._track = False
        """Whether the sweep keeps what `_settled` needs (recursive runs, no log)."""
        self._dirty: dict[int, Operation] = {}
        """id(op) -> op, for the ops with candidates touched since their last offer."""
        self._offered: dict[int, Candidates] = {}
        """The candidate tuples offered an op in the current sweep, by id."""
        self._region: Region | None = None
        """The region being rewritten."""

    # ----------------------------------------------------------------------------------

    def rewrite_region(self, region: Region) -> bool:
        """Rewrites the ops nested in `region`; True when the IR changed."""
        log = active_log()
        if log is not None and log.limit is None and not log.enabled(LogLevel.UPDATE):
            log = None  # nothing to count or log: patterns are called directly
        if region.first_block is None:
            return False
        rewriter = _DriverRewriter(InsertPoint.at_start(region.first_block))
        self._track = self.apply_recursively and log is None
        self._region = region
        rewriter.extend_from_listener(self._listener())
        changed = self._sweep(region, rewriter, log)
        if not self.apply_recursively:
            return changed
        result = changed
        while changed and not self._settled():
            changed = self._sweep(region, rewriter, log)
        self._dirty.clear()
        self._offered.clear()
        self._region = None
        return result

    def candidates(self, op: Operation) -> Candidates:
        name = op.name
        found = self.table.get(name)
        if found is None:
            found = self.table[name] = tuple(
                pattern for pattern, roots in zip(self.patterns, self.roots) if can_match(pattern, roots, op)
            )
            self._offers[name] = (found, *_gate(found), tuple(self._matches[id(p)] for p in found))
        return found

    # ----------------------------------------------------------------------------------

    def _settled(self) -> bool:
        """Whether another sweep provably changes nothing: each op it would offer was
        offered since anything in its neighbourhood changed, to patterns that left it
        alone for local reasons (every pattern is asked, so that each starts anew)."""
        if not self._track:
            return False
        local = [_left_alone_locally(p) for patterns in self._offered.values() for p in patterns]
        return all(local) and not self._dirty

    def _sweep(self, region: Region, rewriter: PatternRewriter, log: PassLog | None) -> bool:
        if self._track:
            self._dirty.clear()  # every op with candidates is offered below
            self._offered.clear()
            for pattern in self.patterns:
                _left_alone_locally(pattern)
        ops: list[Operation] = []
        _walk(region, ops, self.walk_reverse, self.walk_regions_first, self.table, self.candidates)
        stack, index = self._stack, self._index
        for op in reversed(ops):  # a stack: the first op to process goes on top (`_push`, inlined)
            key = id(op)
            if key not in index:
                index[key] = len(stack)
                stack.append(op)
        return self._process(rewriter, log)

    def _process(self, rewriter: PatternRewriter, log: PassLog | None) -> bool:
        changed = False
        stack, index, offers = self._stack, self._index, self._offers
        track, dirty, offered = self._track, self._dirty, self._offered
        while stack:
            op = stack.pop()
            if op is None:
                continue
            key = id(op)
            del index[key]
            offer = offers.get(op.name)
            if offer is None:
                self.candidates(op)
                offer = offers[op.name]
            patterns, kind, gate, matches = offer
            if kind is not None:  # `ProducedBy(kind)`, inlined
                for value in op._operands:  # pyright: ignore[reportPrivateUsage]
                    if type(getattr(value, "op", None)) is not kind:
                        break
                else:
                    kind = None
            if kind is not None or (gate is not None and not gate(op)):  # left alone for a local reason
                if track:
                    dirty.pop(key, None)
                continue
            rewriter.has_done_action = False
            rewriter._current_operation = op  # pyright: ignore[reportPrivateUsage]
            rewriter._point = None  # pyright: ignore[reportPrivateUsage]  # before `op`, made when asked
            if rewriter._name_hint is not None:  # pyright: ignore[reportPrivateUsage]
                rewriter._name_hint = None  # pyright: ignore[reportPrivateUsage]
            try:
                if log is None:
                    for match in matches:
                        match(op, rewriter)
                        if rewriter.has_done_action:
                            break
                else:
                    self._apply_counted(op, patterns, rewriter, log)
            except Exception as err:  # as xDSL's walker reports it
                op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
            if track:
                offered[id(patterns)] = patterns
                if not rewriter.has_done_action:
                    dirty.pop(key, None)
                elif op.parent is not None:
                    self._touch(op)
            changed |= rewriter.has_done_action
        return changed

    @staticmethod
    def _apply_counted(op: Operation, patterns: Candidates, rewriter: PatternRewriter, log: PassLog) -> None:
        """The patterns under the pass's rewrite limit, each rewrite counted and logged."""
        for pattern in patterns:
            if log.limit_reached():
                return
            what = describe_op(op) if log.enabled(LogLevel.UPDATE) else ""
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                log.allow_rewrite()
                if what:
                    log.write(LogLevel.UPDATE, f"{what}: rewritten by {type(pattern).__name__}")
                return

    # ----------------------------------------------------------------------------------
    # The worklist
    # ----------------------------------------------------------------------------------

    def _push(self, op: Operation) -> None:
        patterns = self.table.get(op.name)
        if patterns is None:
            patterns = self.candidates(op)
        if patterns and id(op) not in self._index:
            self._index[id(op)] = len(self._stack)
            self._stack.append(op)

    def _remove(self, op: Operation) -> None:
        self._dirty.pop(id(op), None)
        place = self._index.pop(id(op), None)
        if place is not None:
            self._stack[place] = None

    def _touch(self, op: Operation) -> None:
        """Marks the ops whose neighbourhood (see `LocalPattern`) holds `op`: `op` and
        the ops enclosing it, up to the region rewritten (the ops around it are never
        offered)."""
        patterns = self.table.get(op.name)
        if patterns is None:
            patterns = self.candidates(op)
        if patterns:
            self._dirty[id(op)] = op
        self._touch_enclosing(op)

    def _touch_enclosing(self, op: Operation) -> None:
        """`_touch` of the ops enclosing `op`."""
        dirty, table, root = self._dirty, self.table, self._region
        current = op
        while True:
            block = current.parent
            if block is None:
                return
            region = block.parent
            if region is None or region is root:
                return
            current = region.parent
            if current is None:
                return
            patterns = table.get(current.name)
            if patterns is None:
                patterns = self.candidates(current)
            if patterns:
                dirty[id(current)] = current

    def _listener(self) -> PatternRewriterListener:
        """xDSL's walker's reactions to the rewriter's events."""
        recursive, track, touch = self.apply_recursively, self._track, self._touch
        table, candidates, stack, index, dirty = self.table, self.candidates, self._stack, self._index, self._dirty
        touch_enclosing = self._touch_enclosing

        def changed(op: Operation) -> None:
            """An op inserted or modified, or a user of a replaced op: touched and
            listed (`_touch` and `_push` with one look-up)."""
            patterns = table.get(op.name)
            if patterns is None:
                patterns = candidates(op)
            if patterns:
                key = id(op)
                if track:
                    dirty[key] = op
                if recursive and key not in index:
                    index[key] = len(stack)
                    stack.append(op)
            if track:
                touch_enclosing(op)

        def removed(op: Operation) -> None:
            if track:
                touch(op)
            if recursive:
                for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
                    first = operand.first_use
                    if first is not None and first._next_use is None:  # pyright: ignore[reportPrivateUsage]
                        owner = getattr(operand, "op", None)  # None for a block argument
                        if owner is not None and (table.get(owner.name) or candidates(owner)):
                            key = id(owner)  # `_push`, inlined
                            if key not in index:
                                index[key] = len(stack)
                                stack.append(owner)
            key = id(op)  # `_remove`, inlined
            dirty.pop(key, None)
            place = index.pop(key, None)
            if place is not None:
                stack[place] = None
            if op.regions:
                forget_nested(op)

        def forget_nested(op: Operation) -> None:
            """`_remove` of the ops nested in `op`, found along the block and op links."""
            for region in op.regions:
                block = region._first_block  # pyright: ignore[reportPrivateUsage]
                while block is not None:
                    inner = block._first_op  # pyright: ignore[reportPrivateUsage]
                    while inner is not None:
                        key = id(inner)
                        dirty.pop(key, None)
                        place = index.pop(key, None)
                        if place is not None:
                            stack[place] = None
                        if inner.regions:
                            forget_nested(inner)
                        inner = inner._next_op  # pyright: ignore[reportPrivateUsage]
                    block = block._next_block  # pyright: ignore[reportPrivateUsage]

        def replaced(op: Operation, new_results: Sequence[SSAValue | None]) -> None:
            for result in op.results:  # the users, whose operands' producer changes
                use = result.first_use
                while use is not None:
                    changed(use._operation)  # pyright: ignore[reportPrivateUsage]
                    use = use._next_use  # pyright: ignore[reportPrivateUsage]

        return PatternRewriterListener(
            operation_insertion_handler=[changed],
            operation_removal_handler=[removed],
            operation_modification_handler=[changed],
            operation_replacement_handler=[replaced],
        )


def _walk(
    region: Region,
    out: list[Operation],
    reverse: bool,
    regions_first: bool,
    table: dict[str, Candidates],
    candidates: Callable[[Operation], Candidates],
) -> None:
    """The ops of `region` that some pattern can match (by `table`, filled in by
    `candidates`), in the order in which xDSL's walker processes them: pre-order (an
    op, then its regions), forward; `reverse` runs blocks and ops backwards,
    `regions_first` puts an op after its regions."""
    append = out.append
    block = region._last_block if reverse else region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:  # along the links: xDSL's block iterators cost a few calls each
        op = block._last_op if reverse else block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            patterns = table.get(op.name)
            if patterns is None:
                patterns = candidates(op)
            if op.regions:
                if patterns and not regions_first:
                    append(op)
                for inner in reversed(op.regions) if reverse else op.regions:
                    _walk(inner, out, reverse, regions_first, table, candidates)
                if patterns and regions_first:
                    append(op)
            elif patterns:
                append(op)
            op = op._prev_op if reverse else op._next_op  # pyright: ignore[reportPrivateUsage]
        block = block._prev_block if reverse else block._next_block  # pyright: ignore[reportPrivateUsage]


# --------------------------------------------------------------------------------------
# Rewrites in place, with the rewriter's events
# --------------------------------------------------------------------------------------
# xDSL's `PatternRewriter.insert` checks ancestry on every insertion, and its
# `replace_all_uses_with` rebuilds an operand view per use: for constant folding, which
# replaces thousands of small ops, that costs more than deciding what to fold. These do
# the same rewrites on xDSL's fields, with the same events in the same order (the
# driver's worklist follows them), and leave the same IR, use lists in the same order
# included; `tsjit.transforms.forwarding` does the same for `replace` and `erase`.


def insert_ops_before(rewriter: PatternRewriter, ops: Sequence[Operation], before: Operation) -> None:
    """`rewriter.insert(ops, InsertPoint.before(before))` for new ops."""
    rewriter.has_done_action = True
    block = before.parent
    assert block is not None
    for op in ops:
        insert_built_op(op, block, before)
    hint = rewriter._name_hint  # pyright: ignore[reportPrivateUsage]
    for op in ops:
        if hint is not None:
            for result in op.results:
                if result.name_hint is None:
                    result._name = hint  # pyright: ignore[reportPrivateUsage]
        rewriter.handle_operation_insertion(op)


def replace_uses(
    rewriter: PatternRewriter, value: SSAValue, replacement: SSAValue, *, report_users: bool = True
) -> None:
    """`rewriter.replace_all_uses_with(value, replacement)`: each use moves to the front
    of `replacement`'s use list in turn, as xDSL's operand setter moves it, and each
    user is reported modified (unless `report_users` is False: a replacement event
    reported them already)."""
    if value is replacement:
        return
    users: list[Operation] = []
    head = replacement.first_use
    use = value.first_use
    while use is not None:
        following = use._next_use  # pyright: ignore[reportPrivateUsage]
        user = use._operation  # pyright: ignore[reportPrivateUsage]
        users.append(user)
        operands = list(user._operands)  # pyright: ignore[reportPrivateUsage]
        operands[use._index] = replacement  # pyright: ignore[reportPrivateUsage]
        user._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        use._prev_use = None  # pyright: ignore[reportPrivateUsage]
        use._next_use = head  # pyright: ignore[reportPrivateUsage]
        if head is not None:
            head._prev_use = use  # pyright: ignore[reportPrivateUsage]
        head = use
        use = following
    replacement.first_use = head
    value.first_use = None
    if replacement.name_hint is None:
        replacement.name_hint = value.name_hint
    if users:
        rewriter.has_done_action = True
        if report_users:
            for user in users:
                rewriter.handle_operation_modification(user)
