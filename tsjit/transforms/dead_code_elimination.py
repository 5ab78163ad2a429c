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

Most graphs need less. One scan finds the ops the sweep could touch (an unused result,
no result at all) and whether the graph is quiet: with none, nothing can go. In a quiet
graph an unused op without regions is never marked, so it and what it alone uses go at
once, from the use lists; only an If or Loop left with unused results then needs the
marking. A graph with a write keeps the full analysis: there even an unused op can
decide what is live (one that makes memory a wildcard keeps the writes to it).
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
from tsjit.dialects.traversal import is_terminator, region_block
from tsjit.transforms.analysis.alias_analysis import QUIET_BY_CLASS, AliasDb, overload_known, quiet_by_kind
from tsjit.transforms.pass_logging import LogLevel, TsjitPass, active_log, allow_rewrite, log_update


class _Liveness:
    """The marking phase: live values, the memory they reach, and live ops.

    Values and ops are kept by `id`: xDSL hashes and compares IR objects in Python
    methods, which made set lookups most of the marking's cost; everything marked
    stays alive (in the graph) while the pass runs, so the ids stay unique.

    This class follows values alone, for a graph of quiet ops (`is_quiet`: no op writes
    memory or has effects): an op is live when one of its results is."""

    db: AliasDb | None = None
    live_memory: set[int] = frozenset()  # pyright: ignore[reportAssignmentType]

    def __init__(self) -> None:
        self.live_values: set[int] = set()
        self.marked: set[int] = set()

    def mark_block(self, block: Block) -> None:
        """Marks what is live in `block`, walking it backwards from its terminator."""
        terminator = block._last_op  # pyright: ignore[reportPrivateUsage]
        if terminator is None:
            return
        self.mark_terminator(terminator)
        live = self.live_values
        marked = self.marked
        any_marked = False
        op = terminator
        while op is not None:  # the fields, not xDSL's properties and ABC checks: this visits every op
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
                else:
                    if not overload_known(op):  # writes everything, as far as the analysis knows
                        self.mark(op)
            op = op._prev_op  # pyright: ignore[reportPrivateUsage]
        if any_marked:
            parent = block.parent.parent  # pyright: ignore[reportOptionalMemberAccess]
            if parent is not None and type(parent) is not FuncOp:
                self.mark(parent)

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
        written = self.db.writes(loop) if self.db is not None else None
        live = self.live_values
        marked = self.marked
        while True:
            was_marked = id(loop) in marked
            memory = len(self.live_memory)
            self.mark_block(body)
            again = False
            condition, *yielded = terminator._operands  # pyright: ignore[reportPrivateUsage]
            if not was_marked and id(loop) in marked:
                again = not self.settle(loop, condition)
            settled = False
            while not settled:  # a yielded value may be a carried argument checked before it became live
                settled = True
                for i, (argument, value) in enumerate(zip(arguments, yielded)):
                    if id(argument) in live:
                        initial = loop._operands[2 + i]  # pyright: ignore[reportPrivateUsage]  # loop.carried[i]
                        if id(initial) not in live:  # also when the yielded value was live already
                            self.make_live(initial)
                        if id(value) not in live:
                            again |= not self.settle(loop, value)
                            settled = False
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
        parent = block.parent.parent  # pyright: ignore[reportOptionalMemberAccess]
        self.marked.add(id(terminator))
        operands = terminator._operands  # pyright: ignore[reportPrivateUsage]
        live = self.live_values
        kind = type(parent)
        if kind is LoopOp:
            condition, *yielded = operands
            if id(parent) in self.marked or parent.is_ancestor(_definer(condition)):  # pyright: ignore[reportOptionalMemberAccess]
                self.make_live(condition)  # a while loop stays: it may not terminate
            arguments = block._args[1:]  # pyright: ignore[reportPrivateUsage, reportOptionalMemberAccess]
            carried = parent._operands[2:]  # pyright: ignore[reportPrivateUsage, reportOptionalMemberAccess]  # not the accessor: this runs per loop and value
            for value, argument, result, initial in zip(yielded, arguments, parent.results, carried):  # pyright: ignore[reportOptionalMemberAccess]
                if id(result) in live or id(argument) in live:
                    self.make_live(value)
                    self.make_live(initial)
        elif kind is FuncOp or parent is None or len(parent.results) != len(operands):
            self.make_all_live(operands)
        else:
            self.make_all_live([value for value, result in zip(operands, parent.results) if id(result) in live])

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
        self.make_all_live(operands)

    def make_live(self, value: SSAValue) -> None:
        self.live_values.add(id(value))

    def make_all_live(self, values: Sequence[SSAValue]) -> None:
        self.live_values.update(map(id, values))


class _MemoryLiveness(_Liveness):
    """The marking with alias analysis, for graphs with ops that are not quiet: an op
    is also live when it has effects, writes memory the caller can see, or writes
    memory a live value may observe; a value makes live the memory it reaches."""

    def __init__(self, db: AliasDb, root: Operation):
        super().__init__()
        self.db = db
        self.live_memory = set()
        self.effectful = db.effectful_ops(root)
        """Ops live whatever the values: side effects, or writes the caller can see."""

    def mark_block(self, block: Block) -> None:
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

    def make_live(self, value: SSAValue) -> None:
        key = id(value)
        if key not in self.live_values:
            self.live_values.add(key)
            if contents := self.db.contents_of(value):  # pyright: ignore[reportOptionalMemberAccess]
                self.live_memory |= contents

    def make_all_live(self, values: Sequence[SSAValue]) -> None:
        live = self.live_values
        for value in values:
            if id(value) not in live:
                self.make_live(value)


def eliminate_dead_code(graph: FuncOp) -> bool:
    """Removes the dead code of one graph; True when anything was removed."""
    block = graph.body.block
    candidates: list[Operation] = []
    quiet = _scan(block, candidates, True)
    if not candidates:
        return False  # nothing the sweep could remove: no marking, no alias analysis
    watched = _removals_watched()
    erased = False
    if quiet and not watched:
        erased, remains = _erase_trivially_dead(candidates)
        if not remains:
            return erased
    liveness = _Liveness() if quiet else _MemoryLiveness(AliasDb(graph), graph)
    liveness.mark_block(block)
    return _Sweeper(liveness, watched).sweep(block) or erased


def _removals_watched() -> bool:
    """Whether the running pass counts its removals against a limit or logs them: then
    each asks (`allow_rewrite`, `log_update`), in the sweep's order."""
    log = active_log()
    return log is not None and (log.limit is not None or log.enabled(LogLevel.UPDATE))


def _scan(block: Block, candidates: list[Operation], quiet: bool) -> bool:
    """Collects the ops of `block` (its regions included) that the sweep could remove or
    shrink, and returns whether they and all ops before them are quiet (given `quiet`
    for the ops before the block).

    The sweep removes only ops whose results are all unused (or that have none) and the
    unused outputs of Ifs and Loops: in a graph where every op but the terminators has
    results, all of them used, it removes nothing (nor does what it removes make
    anything else unused), whatever the marking found; a freshly scripted module's
    graphs often are so."""
    kinds = QUIET_BY_CLASS
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if quiet:
            known = kinds.get(type(op))
            if known is not True and (type(known) is not dict or known.get(len(op._operands)) is not True):  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]
                quiet = quiet_by_kind(op)
        results = op.results
        if results:
            for result in results:
                if result.first_use is None:
                    candidates.append(op)
                    break
        elif not is_terminator(op):
            candidates.append(op)
        if op.regions:
            for region in op.regions:
                inner = region._first_block  # pyright: ignore[reportPrivateUsage]
                while inner is not None:
                    quiet = _scan(inner, candidates, quiet)
                    inner = inner._next_block  # pyright: ignore[reportPrivateUsage]
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return quiet


def _erase_trivially_dead(candidates: list[Operation]) -> tuple[bool, bool]:
    """In a graph of quiet ops, erases the `candidates` without regions whose results are
    all unused, and then the ops that leaves unused, as the sweep would: such an op
    makes nothing live, so the marking never marks it. Returns whether it erased any,
    and whether a candidate remains that needs the marking (an If or Loop with unused
    results, or a region op nobody uses); if none does, nothing more can go (`_scan`)."""
    erased = remains = False
    while candidates:
        op = candidates.pop()
        if op.parent is None:
            continue  # erased already: it was a candidate for each operand it freed
        if op.regions:
            remains = True
            continue
        for result in op.results:
            if result.first_use is not None:
                break
        else:
            if not overload_known(op):
                continue  # writes everything, as far as the analysis knows: stays, with its operands
            operands = op._operands  # pyright: ignore[reportPrivateUsage]
            erase_built_op(op)
            erased = True
            for value in operands:
                if value.first_use is None:
                    owner = value.owner
                    if type(owner) is not Block:
                        candidates.append(owner)  # pyright: ignore[reportArgumentType]
    return erased, remains


class _Sweeper:
    """Removes what the marking left unmarked and unused, walking blocks backwards so
    that an op's users go before it."""

    def __init__(self, liveness: _Liveness, watched: bool):
        self.liveness = liveness
        self.watched = watched
        self.changed = False

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
