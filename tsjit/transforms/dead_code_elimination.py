"""dead-code-elimination: PyTorch's alias-aware dead code elimination.

    %t = aten.mul %x, %x : ...          // unused and only reads: removed
    %u = aten.add_ %tmp, %one, %one      // writes memory nothing reads later: removed
    %w = aten.add_ %x, %one, %one        // writes a graph input: kept
    %r, %dead = prim.If ...              // If outputs and loop-carried values nobody uses: removed

xDSL's `dce` removes unused ops whose effects are reads, which is right for TorchScript,
but it keeps every write (it cannot tell a write to a dead local tensor from a write to
a graph input) and cannot shrink If and Loop ops. This pass is an inverse mark and
sweep over the alias analysis instead (torch/csrc/jit/passes/dead_code_elimination.cpp):
starting from the graph's return, it marks live the ops that produce live values, ops
with side effects or writes to memory the graph does not own, and ops that write memory
a live value may observe; a loop body is marked again only while a pass over it finds
what the next iteration sees (a live carried value, memory the body writes), so the
marking stays linear in nested loops. A loop-carried value is live when its result is
used or a live op in the body uses it, so a carried value that only feeds itself dies
(PyTorch keeps those). Everything unmarked goes. A graph whose ops all only read
(`is_quiet`, known from their names) needs no alias analysis: liveness follows values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from tsjit.dialects.ir_surgery import drop_operands, drop_unused_results
from tsjit.dialects.op_building import erase_built_op
from tsjit.dialects.prim import IfOp, LoopOp
from tsjit.dialects.traversal import is_terminator, nested_ops, region_block
from tsjit.transforms.analysis.alias_analysis import AliasDb, is_quiet
from tsjit.transforms.pass_logging import LogLevel, TsjitPass, active_log, allow_rewrite, log_update


class _NeedsMemory(Exception):
    """Raised by the marking of values alone on meeting an op that is not quiet."""


class _Liveness:
    """The marking phase: live values, the memory they reach, and live ops.

    Values and ops are kept by `id`: xDSL hashes and compares IR objects in Python
    methods, which made set lookups most of the marking's cost; everything marked
    stays alive (in the graph) while the pass runs, so the ids stay unique.

    Without alias analysis (`db` None) it follows values alone and checks on the way
    that every op it visits is quiet (`is_quiet`), raising `_NeedsMemory` at the first
    that is not: most graphs are all quiet, and the marking visits every op anyway."""

    def __init__(self, db: AliasDb | None, ops: Sequence[Operation] = ()):
        self.db = db
        self.live_values: set[int] = set()
        self.live_memory: set[int] = set()
        self.marked: set[int] = set()
        self.effectful = {id(op) for op in ops if db.has_side_effects(op) or db.writes_to_wildcard(op)} if db else set()
        """Ops live whatever the values: side effects, or writes the caller can see."""
        self.mark_block = self.mark_block_with_memory if db is not None else self.mark_block_by_values

    def mark_block_by_values(self, block: Block) -> None:
        """Marks what is live in `block`, walking it backwards from its terminator: an
        op is live when one of its results is (no op writes memory or has effects)."""
        terminator = block._last_op  # pyright: ignore[reportPrivateUsage]
        if terminator is not None:
            self.mark_terminator(terminator)
        live = self.live_values
        marked = self.marked
        quiet = is_quiet
        any_marked = False
        op = terminator
        while op is not None:  # the fields, not xDSL's properties and ABC checks: this visits every op
            if not quiet(op):
                raise _NeedsMemory
            if op.regions:
                self.mark_regions(op)
                for result in op.results:
                    if id(result) in live:
                        self.mark(op)
                        break
            else:
                for result in op.results:
                    if id(result) in live:
                        key = id(op)
                        if key not in marked:  # `mark`, inlined; the parent is marked once, below
                            marked.add(key)
                            live.update(map(id, op._operands))  # pyright: ignore[reportPrivateUsage]
                            any_marked = True
                        break
            op = op._prev_op  # pyright: ignore[reportPrivateUsage]
        if any_marked:
            parent = block.parent.parent if block.parent is not None else None  # pyright: ignore[reportOptionalMemberAccess]
            if parent is not None and type(parent) is not FuncOp:
                self.mark(parent)

    def mark_block_with_memory(self, block: Block) -> None:
        """Marks what is live in `block`, walking it backwards from its terminator: an
        op is live when one of its results is, or it writes memory a live value may
        observe, or it has effects."""
        db = self.db
        assert db is not None
        if self.effectful:
            for op in block.ops:
                if id(op) in self.effectful:
                    self.mark(op)
        terminator = block._last_op  # pyright: ignore[reportPrivateUsage]
        if terminator is not None:
            self.mark_terminator(terminator)
        live = self.live_values
        op = terminator
        while op is not None:
            if op.regions:
                self.mark_regions(op)
            for result in op.results:  # `mark_if_live`, inlined
                if id(result) in live:
                    self.mark(op)
                    break
            else:
                written = db.writes(op)
                if written and not written.isdisjoint(self.live_memory):
                    self.mark(op)
            op = op._prev_op  # pyright: ignore[reportPrivateUsage]

    def mark_regions(self, op: Operation) -> None:
        if type(op) is LoopOp:
            self.mark_loop(op)  # pyright: ignore[reportArgumentType]
        else:
            for region in op.regions:
                block = region._first_block  # pyright: ignore[reportPrivateUsage]
                while block is not None:
                    self.mark_block(block)
                    block = block._next_block  # pyright: ignore[reportPrivateUsage]

    def mark_loop(self, loop: LoopOp) -> None:
        """Marks the body again while a pass over it found what an earlier point of the
        next iteration sees: a carried value the body uses (its yielded value becomes
        live), the loop itself (its condition becomes live), or memory the body writes
        (a write late in the body feeds a read early in the next iteration). What such
        a finding makes live outside the body, or computes from outside, is marked at
        once, so most loops take one pass and nested ones do not multiply passes."""
        body = region_block(loop, 0)
        terminator = body._last_op  # pyright: ignore[reportPrivateUsage]
        assert terminator is not None
        arguments = body._args[1:]  # pyright: ignore[reportPrivateUsage]
        written = self.db.writes(loop) if self.db is not None else frozenset()
        live = self.live_values
        while True:
            was_marked = id(loop) in self.marked
            memory = len(self.live_memory)
            self.mark_block(body)
            again = False
            condition, *yielded = terminator._operands  # pyright: ignore[reportPrivateUsage]
            if not was_marked and id(loop) in self.marked:
                again |= not self.settle(loop, condition)
            for i, (argument, value) in enumerate(zip(arguments, yielded)):
                if id(argument) in live and id(value) not in live:
                    self.make_live(loop._operands[2 + i])  # pyright: ignore[reportPrivateUsage]  # loop.carried[i]
                    again |= not self.settle(loop, value)
            if written and len(self.live_memory) != memory and not written.isdisjoint(self.live_memory):
                again = True
            if not again:
                return

    def settle(self, loop: LoopOp, value: SSAValue) -> bool:
        """Makes live a value the body yields; False when marking what computes it needs
        another pass over the body (it is computed there from values of the body)."""
        if id(value) in self.live_values:
            return True
        self.make_live(value)
        owner = value.owner
        if not isinstance(owner, Operation):
            return True  # a block argument: a carried one is checked after this pass
        if not loop.is_ancestor(owner):
            return True
        if owner.parent_op() is not loop or owner.regions:
            return False
        if any(loop.is_ancestor(_definer(operand)) for operand in owner._operands):  # pyright: ignore[reportPrivateUsage]
            return False
        self.mark(owner)
        return True

    def mark_terminator(self, terminator: Operation) -> None:
        """A block's yield uses only the values its parent's live results need."""
        block = terminator.parent
        region = block.parent if block is not None else None
        parent = region.parent if region is not None else None
        self.marked.add(id(terminator))
        operands = terminator._operands  # pyright: ignore[reportPrivateUsage]
        live = self.live_values
        if type(parent) is LoopOp:
            condition, *yielded = operands
            if id(parent) in self.marked or parent.is_ancestor(_definer(condition)):
                self.make_live(condition)  # a while loop stays: it may not terminate
            arguments = block._args[1:]  # pyright: ignore[reportPrivateUsage, reportOptionalMemberAccess]
            carried = parent._operands[2:]  # pyright: ignore[reportPrivateUsage]  # not the accessor: this runs per loop and value
            for value, argument, result, initial in zip(yielded, arguments, parent.results, carried):
                if id(result) in live or id(argument) in live:
                    self.make_live(value)
                    self.make_live(initial)
        elif parent is None or type(parent) is FuncOp or len(parent.results) != len(operands):
            for value in operands:
                self.make_live(value)
        else:
            for value, result in zip(operands, parent.results):
                if id(result) in live:
                    self.make_live(value)

    def mark(self, op: Operation) -> None:
        """Marks `op` and the ops enclosing it, and makes what they use live."""
        key = id(op)
        marked = self.marked
        if key in marked:
            return
        marked.add(key)
        block = op.parent
        region = block.parent if block is not None else None
        parent = region.parent if region is not None else None
        if parent is not None and id(parent) not in marked and type(parent) is not FuncOp:
            self.mark(parent)
        operands: Sequence[SSAValue] = op._operands  # pyright: ignore[reportPrivateUsage]
        if op.regions and type(op) is LoopOp:  # carried values become live with their results
            operands = operands[:2] + region_block(op, 0)._last_op._operands[:1]  # pyright: ignore[reportOptionalMemberAccess, reportPrivateUsage]
        if self.db is None:
            self.live_values.update(map(id, operands))
            return
        live = self.live_values
        for value in operands:
            if id(value) not in live:
                self.make_live(value)

    def make_live(self, value: SSAValue) -> None:
        key = id(value)
        if key not in self.live_values:
            self.live_values.add(key)
            if self.db is not None and (contents := self.db.contents_of(value)):
                self.live_memory |= contents


def eliminate_dead_code(graph: FuncOp) -> bool:
    """Removes the dead code of one graph; True when anything was removed."""
    block = graph.body.block
    if not _may_go_in(block):
        return False  # nothing the sweep could remove: no marking, no alias analysis
    liveness = _Liveness(None)
    try:
        liveness.mark_block(block)
    except _NeedsMemory:
        liveness = _Liveness(AliasDb(graph), nested_ops(graph))
        liveness.mark_block(block)
    return _Sweeper(liveness).sweep(block)


def _may_go_in(block: Block) -> bool:
    """Whether the sweep could remove an op of `block` (its regions included) or a part
    of one. It removes only ops whose results are all unused (or that have none) and the
    unused outputs of Ifs and Loops: in a graph where every op but the terminators has
    results, all of them used, every op is live and nothing goes (a freshly scripted
    module's graphs often are so)."""
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        results = op.results
        if results:
            for result in results:
                if result.first_use is None:
                    return True
        elif not is_terminator(op):
            return True
        if op.regions:
            for region in op.regions:
                inner = region._first_block  # pyright: ignore[reportPrivateUsage]
                while inner is not None:
                    if _may_go_in(inner):
                        return True
                    inner = inner._next_block  # pyright: ignore[reportPrivateUsage]
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return False


class _Sweeper:
    def __init__(self, liveness: _Liveness):
        self.liveness = liveness
        self.changed = False
        log = active_log()
        self.watched = log is not None and (log.limit is not None or log.enabled(LogLevel.UPDATE))
        """Whether removals are counted against a limit or logged: then each asks."""

    def sweep(self, block: Block) -> bool:
        marked = self.liveness.marked
        watched = self.watched
        op = block._last_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            previous = op._prev_op  # pyright: ignore[reportPrivateUsage]
            if id(op) not in marked:
                for result in op.results:
                    if result.first_use is not None:
                        break
                else:  # unmarked and unused
                    if not watched:
                        erase_built_op(op)
                        self.changed = True
                    elif allow_rewrite():
                        log_update("removed", op)
                        erase_built_op(op)
                        self.changed = True
                    op = previous
                    continue
            if op.regions:  # most ops have none: one test before the type tests
                if type(op) is LoopOp:
                    self.sweep_loop(op)  # pyright: ignore[reportArgumentType]
                else:
                    if type(op) is IfOp:
                        self.drop_dead_if_outputs(op)  # pyright: ignore[reportArgumentType]
                    for region in op.regions:
                        inner = region._first_block  # pyright: ignore[reportPrivateUsage]
                        while inner is not None:
                            self.sweep(inner)
                            inner = inner._next_block  # pyright: ignore[reportPrivateUsage]
            op = previous
        return self.changed

    def drop_dead_if_outputs(self, op: IfOp) -> None:
        dead = [i for i, result in enumerate(op.results) if result.first_use is None]
        if not dead or not allow_rewrite():
            return
        log_update(f"removed unused outputs {dead}", op)
        for region in op.regions:
            drop_operands(region.block.last_op, dead)  # pyright: ignore[reportArgumentType]
        drop_unused_results(op, dead)
        self.changed = True

    def sweep_loop(self, op: LoopOp) -> None:
        """Sweeps the body and drops the carried values that are dead: result unused
        and no live op in the body using them. Their yields pass the argument through
        first, so that what computed the next value dies with the sweep."""
        body = op.body.block
        terminator = body.last_op
        assert terminator is not None
        arguments = body.args[1:]
        live = self.liveness.live_values
        dead = [
            i
            for i, (result, argument) in enumerate(zip(op.results, arguments))
            if result.first_use is None and id(argument) not in live
        ]
        if dead and allow_rewrite():
            yielded = list(terminator.operands)
            for i in dead:
                yielded[i + 1] = arguments[i]
            terminator.operands = yielded
        else:
            dead = []
        self.sweep(body)
        dead = [i for i in dead if all(use.operation is terminator for use in arguments[i].uses)]
        if not dead:
            return
        log_update(f"removed dead loop-carried values {dead}", op)
        drop_operands(terminator, [i + 1 for i in dead])
        for i in reversed(dead):
            body.erase_arg(arguments[i])
        drop_operands(op, [i + 2 for i in dead])  # after the trip count and the condition
        drop_unused_results(op, dead)
        self.changed = True


def _definer(value: SSAValue) -> Operation:
    """The op defining `value`, or the op owning the block it is an argument of."""
    owner = value.owner
    if isinstance(owner, Operation):
        return owner
    parent = owner.parent_op()
    assert parent is not None
    return parent


@dataclass(frozen=True)
class DeadCodeEliminationPass(TsjitPass):
    """Alias-aware DCE over every graph of the module (see the module doc)."""

    name = "dead-code-elimination"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            eliminate_dead_code(graph)
