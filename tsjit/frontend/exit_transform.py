"""The exit transform: `prim.LoopContinuation` and `prim.ReturnStmt` become structured
control flow (TorchScript's `TransformExits`).

After an exit (a break/continue reaching its loop, a return reaching the graph) nothing
else runs until the exit's target block. A block that *will* exit drops what follows
the exit; a node that *might* exit yields a `did_exit` flag and the values to exit with,
and the rest of its block is guarded by `prim.If(did_exit)`; a loop that might exit
carries the flag and folds it into its continue condition. A block that always raises
*throws*: its sibling decides the status, which keeps graphs simpler. Values that exist
only on paths that exit are `prim.Uninitialized` (one per type).

`with` statements are wrapped in `prim.With` during the transform: the body is one
block, the `prim.Exit` sits in the exit region after it, and values the body defines for
later code become the With's results. An exit inside the body is transformed like any
other node's: the rest of the body is guarded, the flag and the exit's values leave
through the With's results, and the exit region (`__exit__`) runs on every path before
the code after the With is guarded in turn. Nested `with`s, loops inside them and `with`s
inside loops compose, since each is just a node that might exit. The With is unwrapped
afterwards (its results become the body's yielded values). An exception leaving the body
is the runtime's to handle: the interpreter calls the `__exit__` of every entered context
while unwinding, as TorchScript's does. Afterwards, an If whose outputs only decide the
condition of the next If is merged with it (`if x: return 1` + `return 2` becomes one If).

The JIT overview's example, `while i < 5: if i == 3: i += 1; continue; i += 2`:

    %i = prim.Loop %max, %c0 iter(%n) carried(%i.1 = %0 : !ts.int) -> (!ts.int) {
      %did_exit, %cont, %i.2 = prim.If %eq -> (!ts.bool, !ts.bool, !ts.int) {
        ... prim.Yield %true, %lt, %i.6
      } else {
        prim.Yield %false, %uninit_bool, %i.1
      }
      %c, %i.3 = prim.If %did_exit -> (!ts.bool, !ts.int) {
        prim.Yield %cont, %i.2
      } else { ... prim.Yield %lt2, %i.13 }
      prim.Yield %c, %i.3
    }
"""

from __future__ import annotations

import enum
from collections.abc import Sequence, Set
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Attribute, Block, OpResult, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tsjit.dialects import prim
from tsjit.dialects.ir_surgery import replace_all_uses
from tsjit.dialects.op_building import (
    append_operands,
    erase_built_op,
    insert_at,
    move_ops_before,
    new_block,
    region_of,
    set_operand,
)
from tsjit.dialects.traversal import child_blocks, region_block
from tsjit.dialects.types import BoolType, UnionType, unify
from tsjit.frontend.rebuild import extend_if, extend_loop, extend_with, with_results


class Status(enum.Enum):
    WILL = "will"
    MIGHT = "might"
    WONT = "won't"
    THROWS = "throws"


@dataclass
class ExitPair:
    """Whether an exit happened (true, false, a flag, or "throws") and its values."""

    has_exited: SSAValue
    values: list[SSAValue]


def transform_exits(function: func.FuncOp, kinds: Set[type[Operation]] | None = None) -> None:
    """`kinds`, when given, holds the type of every op of the function (`ssa.op_kinds`):
    the steps for exits, `with`s and Ifs it does not hold are skipped (Ifs are made
    only for exits nested in control flow)."""
    has_with = (kinds is None or prim.EnterOp in kinds) and _enter_exit_to_with(function)
    if kinds is None or prim.LoopContinuationOp in kinds:
        _ExitTransformer(function, prim.LoopContinuationOp).run()
    if kinds is None or prim.ReturnStmtOp in kinds:
        _ExitTransformer(function, prim.ReturnStmtOp).run()
    if kinds is None or not kinds.isdisjoint((prim.IfOp, prim.LoopOp, prim.EnterOp)):
        _inline_consecutive_ifs(function.body.block)
    if has_with:
        _with_to_enter_exit(function)


def unify_or_union(a: Attribute, b: Attribute) -> Attribute:
    if a is b:  # types are interned: most outputs have one type on both sides
        return a
    unified = unify(a, b)
    return unified if unified is not None else UnionType([a, b])  # pyright: ignore[reportArgumentType]


class _ExitTransformer:
    def __init__(self, function: func.FuncOp, exit_kind: type[prim.LoopContinuationOp | prim.ReturnStmtOp]):
        self.graph = function.body.block
        self.exit_kind = exit_kind
        self.unit_values: dict[Attribute, SSAValue] = {}
        start = InsertPoint.at_start(self.graph)
        self.true_value = self._insert(prim.ConstantOp.from_value(True), start)
        self.false_value = self._insert(
            prim.ConstantOp.from_value(False), InsertPoint.after(self.true_value.owner)
        )  # pyright: ignore[reportArgumentType]
        self.throws_value = self.unit(BoolType())
        self.target: Block | None = None
        self.target_kind = prim.LoopOp if exit_kind is prim.LoopContinuationOp else func.FuncOp
        self.wont = ExitPair(self.false_value, [])  # shared: no pair changes after it is made

    def _insert(self, op: Operation, point: InsertPoint) -> SSAValue:
        insert_at(op, point)
        (result,) = op.results
        return result

    def run(self) -> None:
        self.transform_block(self.graph)

    def unit(self, type: Attribute) -> SSAValue:
        """The one `prim.Uninitialized` of `type` (at the graph's start)."""
        value = self.unit_values.get(type)
        if value is None:
            value = self.unit_values[type] = self._insert(
                prim.UninitializedOp(type), InsertPoint.at_start(self.graph)
            )
        return value

    def status(self, pair: ExitPair) -> Status:
        if pair.has_exited is self.true_value:
            return Status.WILL
        if pair.has_exited is self.false_value:
            return Status.WONT
        if pair.has_exited is self.throws_value:
            return Status.THROWS
        return Status.MIGHT

    # -- blocks ---------------------------------------------------------------------------
    def transform_block(self, block: Block) -> ExitPair:
        previous_target = self.target
        region = block.parent
        if region is not None and type(region.parent) is self.target_kind:  # the body the exits leave
            self.target = block
        pair = self.wont
        terminator = block._last_op  # pyright: ignore[reportPrivateUsage]
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None and op is not terminator:
            following = op._next_op  # pyright: ignore[reportPrivateUsage]
            kind = type(op)  # not isinstance: ops are ABCs, whose checks cost more than the rest
            if kind is prim.RaiseExceptionOp:
                pair = ExitPair(self.throws_value, [])
            elif kind is self.exit_kind:
                pair = ExitPair(self.true_value, list(op.operands))
                erase_built_op(op)
            elif kind is prim.IfOp:
                pair = self.transform_if(op)  # pyright: ignore[reportArgumentType]
            elif kind is prim.WithOp:
                pair = self.transform_with(op)  # pyright: ignore[reportArgumentType]
            elif kind is prim.LoopOp:
                pair = self.transform_loop(op)  # pyright: ignore[reportArgumentType]
            else:  # no exit: nothing changes
                op = following
                continue
            status = self.status(pair)
            if status in (Status.WILL, Status.THROWS):
                self.delete_after(block, following)
                break
            if status is Status.MIGHT:
                if following is not terminator:
                    assert following is not None
                    pair = self.guard_block_nodes(block, pair, following)
                break
            op = following
        if self.target is block:
            status = self.status(pair)
            terminator = block.last_op
            assert terminator is not None
            if status is Status.MIGHT:
                selector = self.new_if(pair.has_exited, InsertPoint.before(terminator))
                selector = self.add_if_outputs(selector, pair.values, list(terminator.operands))
                terminator.operands = list(selector.results)
            elif status is Status.WILL:
                terminator.operands = pair.values
            pair = self.wont
        self.target = previous_target
        return pair

    def new_if(self, cond: SSAValue, point: InsertPoint) -> prim.IfOp:
        op = prim.IfOp(
            cond, [], region_of(new_block([prim.YieldOp()])), region_of(new_block([prim.YieldOp()]))
        )
        insert_at(op, point)
        return op

    def add_if_outputs(
        self, op: prim.IfOp, then_values: Sequence[SSAValue], else_values: Sequence[SSAValue]
    ) -> prim.IfOp:
        then_yield, else_yield = region_block(op, 0)._last_op, region_block(op, 1)._last_op  # pyright: ignore[reportPrivateUsage]
        assert then_yield is not None and else_yield is not None
        append_operands(then_yield, then_values)
        append_operands(else_yield, else_values)
        types = [unify_or_union(a.type, b.type) for a, b in zip(then_values, else_values)]
        return extend_if(op, types)

    def delete_after(self, block: Block, start: Operation | None) -> None:
        """Nothing after an exit runs: drop it; values still used become uninitialized."""
        terminator = block.last_op
        doomed: list[Operation] = []
        op = start
        while op is not None and op is not terminator:
            doomed.append(op)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
        for op in reversed(doomed):
            for result in op.results:
                if result.uses:
                    replace_all_uses(result, self.unit(result.type))
            erase_built_op(op)

    # -- control flow ---------------------------------------------------------------------------
    def transform_if(self, op: prim.IfOp) -> ExitPair:
        then_pair = self.transform_block(region_block(op, 0))
        else_pair = self.transform_block(region_block(op, 1))
        then_status, else_status = self.status(then_pair), self.status(else_pair)
        status = _if_status(then_status, else_status)
        if status is Status.THROWS:
            return ExitPair(self.throws_value, [])
        if status is Status.WONT:
            return self.wont
        if then_status in (Status.WONT, Status.THROWS):
            then_pair = ExitPair(then_pair.has_exited, [self.unit(v.type) for v in else_pair.values])
        elif else_status in (Status.WONT, Status.THROWS):
            else_pair = ExitPair(else_pair.has_exited, [self.unit(v.type) for v in then_pair.values])
        then_values: list[SSAValue] = []
        else_values: list[SSAValue] = []
        if status is not Status.WILL:
            then_values.append(then_pair.has_exited)
            else_values.append(else_pair.has_exited)
        then_values += then_pair.values
        else_values += else_pair.values
        first = len(op.results)
        new = self.add_if_outputs(op, then_values, else_values)
        results = list(new.results[first:])
        has_exited = self.true_value if status is Status.WILL else results.pop(0)
        return ExitPair(has_exited, results)

    def transform_loop(self, op: prim.LoopOp) -> ExitPair:
        body = region_block(op, 0)
        pair = self.transform_block(body)
        if self.status(pair) in (Status.WONT, Status.THROWS):
            return self.wont  # the loop may not run at all
        terminator = body.last_op
        assert terminator is not None
        next_condition = terminator.operands[0]
        stop = self.new_if(pair.has_exited, InsertPoint.before(terminator))
        stop = self.add_if_outputs(stop, [self.false_value], [next_condition])
        terminator.operands = [stop.results[0], *terminator.operands[1:]]
        values = pair.values
        initial = [self.false_value, *(self.unit(v.type) for v in values)]
        first = len(op.results)
        new = extend_loop(op, initial, [BoolType(), *(v.type for v in values)])
        body = new.body.block
        for v in initial:
            body.insert_arg(v.type, len(body.args))
        terminator = body.last_op
        assert terminator is not None
        append_operands(terminator, [pair.has_exited, *values])
        results = list(new.results[first:])
        return ExitPair(results[0], results[1:])

    def transform_with(self, op: prim.WithOp) -> ExitPair:
        """Exits in the body leave through the With's results, after its exit region."""
        pair = self.transform_block(op.body.block)
        status = self.status(pair)
        if status in (Status.WONT, Status.THROWS):
            return pair
        outputs = pair.values if status is Status.WILL else [pair.has_exited, *pair.values]
        body_yield = op.body.block.last_op
        assert body_yield is not None
        append_operands(body_yield, outputs)
        first = len(op.results)
        new = extend_with(op, [v.type for v in outputs])
        results = list(new.results[first:])
        has_exited = self.true_value if status is Status.WILL else results.pop(0)
        return ExitPair(has_exited, results)

    def guard_block_nodes(self, block: Block, pair: ExitPair, start: Operation) -> ExitPair:
        """The rest of `block` runs only if no exit happened."""
        terminator = block.last_op
        assert terminator is not None
        guard_block = _split_off(block, start, terminator)
        guard_yield = prim.YieldOp()
        guard_block.add_op(guard_yield)
        guard = prim.IfOp(pair.has_exited, [], region_of(new_block([prim.YieldOp()])), region_of(guard_block))
        insert_at(guard, InsertPoint.before(terminator))
        exit_block = guard.then_region.block
        outputs = list(terminator.operands)
        exit_yield = exit_block.last_op
        assert exit_yield is not None
        exit_yield.operands = [self.unit(v.type) for v in outputs]
        guard_yield.operands = outputs
        guard = with_results(guard, [v.type for v in outputs])
        terminator.operands = list(guard.results)
        exit_block = guard.then_region.block
        if self.exit_kind is prim.LoopContinuationOp:
            exit_op: Operation = prim.LoopContinuationOp(pair.values[0], pair.values[1:])
        else:
            exit_op = prim.ReturnStmtOp(*pair.values)
        assert exit_block.last_op is not None
        exit_block.insert_op_before(exit_op, exit_block.last_op)
        return self.transform_if(guard)


def _split_off(block: Block, start: Operation, terminator: Operation) -> Block:
    """A new block of `block`'s ops from `start` up to its terminator, unlinked as a
    whole: moving them one at a time checks each op against every enclosing block,
    which the nested guards of many exits make quadratic."""
    rest = block.split_before(start)
    region = rest.parent
    assert region is not None
    rest.detach_op(terminator)
    block.add_op(terminator)
    region.detach_block(rest)
    return rest


def _if_status(then_status: Status, else_status: Status) -> Status:
    if then_status is Status.THROWS:
        return else_status
    if else_status is Status.THROWS:
        return then_status
    if then_status is Status.WONT and else_status is Status.WONT:
        return Status.WONT
    if then_status is Status.WILL and else_status is Status.WILL:
        return Status.WILL
    return Status.MIGHT


# -- merging consecutive Ifs ----------------------------------------------------------------------


def _inline_consecutive_ifs(block: Block) -> None:
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if op.regions:
            for nested in child_blocks(op):
                _inline_consecutive_ifs(nested)
            if type(op) is prim.IfOp and type(op._next_op) is prim.IfOp:  # pyright: ignore[reportPrivateUsage]
                merged = _merge_with_next(op)  # pyright: ignore[reportArgumentType]
                if merged is not None:
                    op = merged
                    continue
        op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _merge_with_next(first: prim.IfOp) -> prim.IfOp | None:
    """`first`, merged with the If after it when that If's condition is an output of
    `first` that is a different constant bool in each branch."""
    second = first._next_op  # pyright: ignore[reportPrivateUsage]
    assert type(second) is prim.IfOp
    cond = second._operands[0]  # pyright: ignore[reportPrivateUsage]
    if cond.owner is not first:
        return None
    index = first.results.index(cond)  # pyright: ignore[reportArgumentType]
    first_blocks = region_block(first, 0), region_block(first, 1)
    then_yield, else_yield = first_blocks[0]._last_op, first_blocks[1]._last_op  # pyright: ignore[reportPrivateUsage]
    assert then_yield is not None and else_yield is not None
    then_value = _bool_constant(then_yield._operands[index])  # pyright: ignore[reportPrivateUsage]
    else_value = _bool_constant(else_yield._operands[index])  # pyright: ignore[reportPrivateUsage]
    if then_value is None or else_value is None or then_value == else_value:
        return None
    for first_block, value in zip(first_blocks, (then_value, else_value)):
        # each branch of `second` moves into one branch of `first` (it is erased after)
        chosen = region_block(second, 0 if value else 1)
        first_yield, chosen_yield = first_block._last_op, chosen._last_op  # pyright: ignore[reportPrivateUsage]
        assert first_yield is not None and chosen_yield is not None
        yielded = tuple(first_yield._operands)  # what `first` yields, in this branch  # pyright: ignore[reportPrivateUsage]
        moved = chosen._first_op  # pyright: ignore[reportPrivateUsage]
        if moved is not chosen_yield:
            move_ops_before(moved, chosen_yield._prev_op, first_yield)  # pyright: ignore[reportArgumentType, reportPrivateUsage]
            _use_yielded(moved, first_yield, first, yielded)  # pyright: ignore[reportArgumentType]
        append_operands(first_yield, [_yielded_for(v, first, yielded) for v in chosen_yield._operands])  # pyright: ignore[reportPrivateUsage]
    count = len(first.results)
    merged = extend_if(first, [result.type for result in second.results])
    for old, new in zip(second.results, merged.results[count:]):
        replace_all_uses(old, new)
    erase_built_op(second)
    return merged


def _yielded_for(value: SSAValue, first: Operation, yielded: Sequence[SSAValue]) -> SSAValue:
    """`value`, or what a branch of `first` yields for it when it is a result of `first`."""
    if value.__class__ is OpResult and value.op is first:  # pyright: ignore[reportAttributeAccessIssue]
        return yielded[value.index]  # pyright: ignore[reportAttributeAccessIssue]
    return value


def _use_yielded(start: Operation, stop: Operation | None, first: Operation, yielded: Sequence[SSAValue]) -> None:
    """In the ops from `start` up to `stop` (and those nested in them), moved into a
    branch of `first`: each use of a result of `first` becomes what that branch yields."""
    op: Operation | None = start
    while op is not stop:
        assert op is not None
        for index, operand in enumerate(op._operands):  # pyright: ignore[reportPrivateUsage]
            if operand.__class__ is OpResult and operand.op is first:  # pyright: ignore[reportAttributeAccessIssue]
                set_operand(op, index, yielded[operand.index])  # pyright: ignore[reportAttributeAccessIssue]
        if op.regions:
            for nested in child_blocks(op):
                if nested._first_op is not None:  # pyright: ignore[reportPrivateUsage]
                    _use_yielded(nested._first_op, None, first, yielded)  # pyright: ignore[reportPrivateUsage]
        op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _bool_constant(value: SSAValue) -> bool | None:
    owner = value.owner
    if isinstance(owner, prim.ConstantOp):
        constant = owner.python_value
        if isinstance(constant, bool):
            return constant
    return None


# -- with statements --------------------------------------------------------------------------------


def _walk(block: Block, found: list[Operation] | None = None) -> list[Operation]:
    """The ops of `block` and of the blocks nested in it, in pre-order (a list: nested
    generators would pass every op up through each level)."""
    found = [] if found is None else found
    op = block.first_op
    while op is not None:
        found.append(op)
        for region in op.regions:
            for nested in region.blocks:
                _walk(nested, found)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return found


def _enter_exit_to_with(function: func.FuncOp) -> bool:
    """`Enter ... Exit` around a body becomes `prim.With { body } exit { Exit }`;
    whether there was any."""
    pairs: list[tuple[Operation, Operation]] = []
    stack: list[Operation] = []
    for op in _walk(function.body.block):
        kind = type(op)
        if kind is prim.EnterOp:
            stack.append(op)
        elif kind is prim.ExitOp:
            enter = stack.pop()
            assert enter.operands[0] is op.operands[0], "prim.Exit does not match the innermost prim.Enter"
            pairs.append((enter, op))
    assert not stack, "a prim.Enter has no prim.Exit"
    for enter, exit_op in pairs:
        body, exit_block = Block([prim.YieldOp()]), Block([prim.YieldOp()])
        current = enter.next_op
        while current is not exit_op:
            assert current is not None
            following = current.next_op
            current.detach()
            body.insert_op_before(current, body.last_op)  # pyright: ignore[reportArgumentType]
            current = following
        exit_op.detach()
        exit_block.insert_op_before(exit_op, exit_block.last_op)  # pyright: ignore[reportArgumentType]
        escaping = [
            result
            for op in body.ops
            for result in op.results
            if any(not _inside(use.operation, body) for use in result.uses)
        ]
        body_yield = body.last_op
        assert body_yield is not None
        body_yield.operands = escaping
        with_op = prim.WithOp(None, [v.type for v in escaping], Region(body), Region(exit_block))
        for inner, outer in zip(escaping, with_op.results):
            inner.replace_uses_with_if(outer, lambda use: not _inside(use.operation, body))
        parent = enter.parent_block()
        assert parent is not None
        parent.insert_op_after(with_op, enter)
    return bool(pairs)


def _inside(op: Operation, block: Block) -> bool:
    """Whether `op` is in `block` or nested in one of its ops."""
    current: Operation | None = op
    while current is not None:
        if current.parent_block() is block:
            return True
        current = current.parent_op()
    return False


def _with_to_enter_exit(function: func.FuncOp) -> None:
    """Undoes `_enter_exit_to_with`: body and exit ops back in place of the With."""
    for op in [op for op in _walk(function.body.block) if type(op) is prim.WithOp]:
        parent = op.parent_block()
        assert parent is not None
        body_yield = op.body.block.last_op
        assert body_yield is not None
        for result, value in zip(op.results, body_yield.operands):
            result.replace_all_uses_with(value)
        for region in (op.body, op.exit):
            inner = region.block
            terminator = inner.last_op
            for moved in list(inner.ops):
                if moved is terminator:
                    break
                moved.detach()
                parent.insert_op_before(moved, op)
        parent.erase_op(op)
