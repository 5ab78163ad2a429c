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
from tsjit.dialects.traversal import is_terminator, nested_ops
from tsjit.transforms.analysis.alias_analysis import AliasDb, is_quiet
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update


class _Liveness:
    """The marking phase: live values, the memory they reach, and live ops.

    Values and ops are kept by `id`: xDSL hashes and compares IR objects in Python
    methods, which made set lookups most of the marking's cost; everything marked
    stays alive (in the graph) while the pass runs, so the ids stay unique."""

    def __init__(self, db: AliasDb | _ValuesOnly, ops: Sequence[Operation]):
        self.db = db
        self.tracks_memory = not isinstance(db, _ValuesOnly)
        """False for a graph of quiet ops: then no op writes memory and none is effectful."""
        self.live_values: set[int] = set()
        self.live_memory: set[int] = set()
        self.marked: set[int] = set()
        self.effectful = (
            {id(op) for op in ops if db.has_side_effects(op) or db.writes_to_wildcard(op)}
            if self.tracks_memory
            else set()
        )
        """Ops live whatever the values: side effects, or writes the caller can see."""

    def is_live(self, value: SSAValue) -> bool:
        return id(value) in self.live_values

    def is_marked(self, op: Operation) -> bool:
        return id(op) in self.marked

    def mark_block(self, block: Block) -> None:
        """Marks what is live in `block`, walking it backwards from its terminator."""
        if self.effectful:
            for op in block.ops:
                if id(op) in self.effectful:
                    self.mark(op)
        terminator = block.last_op
        if terminator is not None:
            self.mark_terminator(terminator)
        live = self.live_values
        tracks_memory = self.tracks_memory
        op = terminator
        while op is not None:  # the fields, not xDSL's properties and ABC checks: this visits every op
            if op.regions:
                if type(op) is LoopOp:
                    self.mark_loop(op)  # pyright: ignore[reportArgumentType]
                else:
                    for region in op.regions:
                        for inner in region.blocks:
                            self.mark_block(inner)
            for result in op.results:  # `mark_if_live`, inlined
                if id(result) in live:
                    self.mark(op)
                    break
            else:
                if tracks_memory:
                    written = self.db.writes(op)
                    if written and not written.isdisjoint(self.live_memory):
                        self.mark(op)
            op = op._prev_op  # pyright: ignore[reportPrivateUsage]

    def mark_loop(self, loop: LoopOp) -> None:
        """Marks the body again while a pass over it found what an earlier point of the
        next iteration sees: a carried value the body uses (its yielded value becomes
        live), the loop itself (its condition becomes live), or memory the body writes
        (a write late in the body feeds a read early in the next iteration). What such
        a finding makes live outside the body, or computes from outside, is marked at
        once, so most loops take one pass and nested ones do not multiply passes."""
        body = loop.body.block
        terminator = body.last_op
        assert terminator is not None
        arguments = body.args[1:]
        written = self.db.writes(loop)
        while True:
            was_marked = id(loop) in self.marked
            memory = len(self.live_memory)
            self.mark_block(body)
            again = False
            condition, *yielded = terminator._operands  # pyright: ignore[reportPrivateUsage]
            if not was_marked and id(loop) in self.marked:
                again |= not self.settle(loop, condition)
            for i, (argument, value) in enumerate(zip(arguments, yielded)):
                if id(argument) in self.live_values and id(value) not in self.live_values:
                    self.make_live(loop._operands[2 + i])  # pyright: ignore[reportPrivateUsage]  # loop.carried[i]
                    again |= not self.settle(loop, value)
            if len(self.live_memory) != memory and not written.isdisjoint(self.live_memory):
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
        parent = terminator.parent_op()
        self.marked.add(id(terminator))
        operands = terminator._operands  # pyright: ignore[reportPrivateUsage]
        if type(parent) is LoopOp:
            condition, *yielded = operands
            if id(parent) in self.marked or parent.is_ancestor(_definer(condition)):
                self.make_live(condition)  # a while loop stays: it may not terminate
            arguments = terminator.parent.args[1:]  # pyright: ignore[reportOptionalMemberAccess]
            carried = parent._operands[2:]  # pyright: ignore[reportPrivateUsage]  # not the accessor: this runs per loop and value
            for value, argument, result, initial in zip(yielded, arguments, parent.results, carried):
                if id(result) in self.live_values or id(argument) in self.live_values:
                    self.make_live(value)
                    self.make_live(initial)
        elif parent is None or type(parent) is FuncOp or len(parent.results) != len(operands):
            for value in operands:
                self.make_live(value)
        else:
            for value, result in zip(operands, parent.results):
                if id(result) in self.live_values:
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
            operands = operands[:2] + op.regions[0].block.last_op._operands[:1]  # pyright: ignore[reportOptionalMemberAccess, reportPrivateUsage]
        live = self.live_values
        for value in operands:
            if id(value) not in live:
                self.make_live(value)

    def make_live(self, value: SSAValue) -> None:
        key = id(value)
        if key not in self.live_values:
            self.live_values.add(key)
            if self.tracks_memory and (contents := self.db.contents_of(value)):
                self.live_memory |= contents


class _ValuesOnly:
    """The alias facts of a graph of quiet ops (`is_quiet`): nothing writes memory, so
    liveness follows values alone and no alias analysis is built."""

    @staticmethod
    def writes(op: Operation) -> frozenset[int]:
        return frozenset()

    @staticmethod
    def contents_of(value: SSAValue) -> frozenset[int]:
        return frozenset()


def eliminate_dead_code(graph: FuncOp) -> bool:
    """Removes the dead code of one graph; True when anything was removed."""
    ops = nested_ops(graph)
    if not any(map(_may_go, ops)):
        return False  # nothing the sweep could remove: no marking, no alias analysis
    quiet = all(is_quiet(op) for op in ops)
    liveness = _Liveness(_ValuesOnly() if quiet else AliasDb(graph), ops)
    liveness.mark_block(graph.body.block)
    return _Sweeper(liveness).sweep(graph.body.block)


def _may_go(op: Operation) -> bool:
    """Whether the sweep could remove `op` or a part of it. It removes only ops whose
    results are all unused (or that have none) and the unused outputs of Ifs and Loops:
    in a graph where every op but the terminators has results, all of them used, every
    op is live and nothing goes (a freshly scripted module's graphs often are so)."""
    results = op.results
    if not results:
        return not is_terminator(op)
    for result in results:
        if result.first_use is None:
            return True
    return False


class _Sweeper:
    def __init__(self, liveness: _Liveness):
        self.liveness = liveness
        self.changed = False

    def sweep(self, block: Block) -> bool:
        marked = self.liveness.marked
        op = block.last_op
        while op is not None:
            previous = op._prev_op  # pyright: ignore[reportPrivateUsage]
            if id(op) not in marked:
                for result in op.results:
                    if result.first_use is not None:
                        break
                else:  # unmarked and unused
                    if allow_rewrite():
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
                        for inner in region.blocks:
                            self.sweep(inner)
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
