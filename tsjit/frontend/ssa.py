"""SSA conversion: variables as `prim.Store`/`prim.Load` become SSA values.

As TorchScript's `ConvertToSSA`, in three steps:

1. control-flow loads and stores: a variable assigned in both branches of an If (or in
   one, when the other can see it) becomes an If output; a variable of the enclosing
   scope assigned in a loop body becomes a loop-carried value (a Load before the loop as
   its initial value, a body argument stored at the start of the body, a Load before
   the body's yield, the loop result stored after the loop);
2. loop continuations: every `prim.LoopContinuation` (break or continue) takes the
   current values of the loop-carried variables, as the body's yield does;
3. every Load is replaced by the value last stored under its name in the enclosing
   scopes, and Stores and Loads are erased.

    x = 1                          %x.1 = prim.Constant 1
    if c:                          %x = prim.If %c -> (!ts.int) {
        x = 2                        prim.Yield %two
    return x                       } else { prim.Yield %x.1 }
"""

from __future__ import annotations

import functools
from collections.abc import Set

from xdsl.dialects import func
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.rewriter import InsertPoint

from tsjit.dialects import prim
from tsjit.dialects.ir_surgery import replace_all_uses
from tsjit.dialects.op_building import append_operands, erase_built_op, insert_at, insert_built_op
from tsjit.dialects.traversal import child_blocks, region_block
from tsjit.dialects.types import unify
from tsjit.dialects.value_names import name_hint
from tsjit.frontend.environment import display_name, meaningful_name
from tsjit.frontend.rebuild import extend_if, extend_loop


class _Frame:
    """Variables (to types or values) stored in one block; lookups go outwards."""

    def __init__(self, parent: _Frame | None):
        self.parent = parent
        self.entries: dict[str, object] = {}

    def find(self, name: str) -> object:
        frame: _Frame | None = self
        while frame is not None:
            if name in frame.entries:
                return frame.entries[name]
            frame = frame.parent
        return None


def convert_to_ssa(function: func.FuncOp, kinds: Set[type[Operation]] | None = None) -> None:
    """`kinds`, when given, holds the type of every op of the function (`op_kinds`):
    the steps that rewrite only control flow, loop continuations or variables are
    skipped when there are none."""
    block = function.body.block
    control_flow = kinds is None or any(_has_regions(kind) for kind in kinds)
    if control_flow:
        _ControlFlowLoadStores().block(block, None)
    if kinds is None or prim.LoopContinuationOp in kinds:
        _assign_loop_continuations(block, None)
    if control_flow or prim.StoreOp in kinds or prim.LoadOp in kinds:  # pyright: ignore[reportOperatorIssue]
        _erase_load_stores(block, None)


def op_kinds(block: Block, kinds: set[type[Operation]] | None = None) -> set[type[Operation]]:
    """The types of the ops in `block` and in the blocks nested in it."""
    kinds = set() if kinds is None else kinds
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        kinds.add(type(op))
        if op.regions:
            for nested in child_blocks(op):
                op_kinds(nested, kinds)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return kinds


@functools.cache
def _has_regions(kind: type[Operation]) -> bool:
    return not issubclass(kind, IRDLOperation) or bool(kind.get_irdl_definition().regions)


def _hint(value: SSAValue, name: str) -> None:
    if value._name is None and meaningful_name(name):  # pyright: ignore[reportPrivateUsage]
        value.name_hint = name_hint(display_name(name))


class _ControlFlowLoadStores:
    """Step 1: outputs of If and Loop for the variables they assign."""

    def block(self, block: Block, parent: _Frame | None) -> _Frame:
        frame = _Frame(parent)
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            kind = type(op)  # not isinstance: ops are ABCs, whose checks are slow
            if kind is prim.IfOp:
                op = self.if_op(op, frame)  # pyright: ignore[reportArgumentType]
            elif kind is prim.LoopOp:
                op = self.loop_op(op, frame)  # pyright: ignore[reportArgumentType]
            elif kind is prim.StoreOp:
                (stored,) = op._operands  # unpacked: indexing SSAValues is a Python call  # pyright: ignore[reportPrivateUsage]
                frame.entries[_variable(op)] = stored.type
            elif op.regions:  # a fork's closure: its variables stay inside
                for nested in child_blocks(op):
                    self.block(nested, frame)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
        return frame

    def load_before(self, anchor: Operation, name: str, type: Attribute) -> SSAValue:
        load = prim.LoadOp(name, type)
        insert_built_op(load, anchor.parent, anchor)  # pyright: ignore[reportArgumentType]
        (result,) = load.results
        return result

    def add_yield_value(self, block: Block, name: str, type: Attribute) -> None:
        terminator = block._last_op  # pyright: ignore[reportPrivateUsage]
        assert terminator is not None
        value = self.load_before(terminator, name, type)
        append_operands(terminator, [value])

    def store_results(self, op: Operation, names: list[str], first: int) -> None:
        anchor = op
        for name, result in zip(names, op.results[first:]):
            _hint(result, name)
            store = prim.StoreOp(name, result)
            insert_built_op(store, anchor.parent, anchor._next_op)  # pyright: ignore[reportArgumentType, reportPrivateUsage]
            anchor = store

    def if_op(self, op: prim.IfOp, frame: _Frame) -> Operation:
        then_block, else_block = region_block(op, 0), region_block(op, 1)
        true_vars = self.block(then_block, frame)
        false_vars = self.block(else_block, frame)
        mutated = {v for v in true_vars.entries if false_vars.find(v) is not None}
        mutated |= {v for v in false_vars.entries if true_vars.find(v) is not None}
        names: list[str] = []
        types: list[Attribute] = []
        for name in sorted(mutated):
            true_type, false_type = true_vars.find(name), false_vars.find(name)
            assert isinstance(true_type, Attribute) and isinstance(false_type, Attribute)
            unified = unify(true_type, false_type)
            if unified is None:
                continue  # the emitter reports a use of such a variable
            self.add_yield_value(then_block, name, true_type)
            self.add_yield_value(else_block, name, false_type)
            names.append(name)
            types.append(unified)
        if not names:
            return op
        first = len(op.results)
        new = extend_if(op, types)
        self.store_results(new, names, first)
        return new

    def loop_op(self, op: prim.LoopOp, frame: _Frame) -> Operation:
        body = region_block(op, 0)
        loop_vars = self.block(body, frame)
        carried: list[tuple[str, Attribute, Attribute, Attribute]] = []
        for name, block_type in loop_vars.entries.items():
            parent_type = frame.find(name)
            if parent_type is None:
                continue  # local to the loop body
            assert isinstance(parent_type, Attribute) and isinstance(block_type, Attribute)
            unified = unify(parent_type, block_type)
            assert unified is not None, (
                f"loop-carried '{name}' changes type from {parent_type} to {block_type}"
            )
            carried.append((name, parent_type, block_type, unified))
        if not carried:
            return op
        initial = [self.load_before(op, name, parent_type) for name, parent_type, _, _ in carried]
        first = len(op.results)
        new = extend_loop(op, initial, [unified for *_, unified in carried])
        body = new.body.block
        anchor: Operation | None = None
        for name, _, block_type, unified in carried:
            argument = body.insert_arg(unified, len(body.args))
            _hint(argument, name)
            store = prim.StoreOp(name, argument)
            point = InsertPoint.at_start(body) if anchor is None else InsertPoint.after(anchor)
            insert_at(store, point)
            anchor = store
            self.add_yield_value(body, name, block_type)
        self.store_results(new, [name for name, *_ in carried], first)
        return new


def _assign_loop_continuations(block: Block, loop: prim.LoopOp | None) -> None:
    """Step 2: breaks and continues carry the loop's current variables."""
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        following = op._next_op  # pyright: ignore[reportPrivateUsage]  # Loads go in before `op`
        kind = type(op)
        if kind is prim.IfOp:
            _assign_loop_continuations(region_block(op, 0), loop)
            _assign_loop_continuations(region_block(op, 1), loop)
        elif kind is prim.LoopOp:
            _assign_loop_continuations(region_block(op, 0), op)  # pyright: ignore[reportArgumentType]
        elif kind is prim.LoopContinuationOp:
            assert loop is not None
            terminator = region_block(loop, 0)._last_op  # pyright: ignore[reportPrivateUsage]
            assert terminator is not None
            loads = []
            for carried in terminator._operands[1:]:  # pyright: ignore[reportPrivateUsage]
                load = carried.owner
                assert type(load) is prim.LoadOp
                clone = prim.LoadOp(_variable(load), carried.type)
                insert_built_op(clone, block, op)
                loads.extend(clone.results)
            op.operands = [op._operands[0], *loads]  # pyright: ignore[reportPrivateUsage]
        op = following


def _erase_load_stores(block: Block, parent: _Frame | None) -> None:
    """Step 3: each Load is the value last stored under its name."""
    frame = _Frame(parent)
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        following = op._next_op  # pyright: ignore[reportPrivateUsage]  # `op` may be erased
        kind = type(op)
        if kind is prim.StoreOp:
            (frame.entries[_variable(op)],) = op._operands  # pyright: ignore[reportPrivateUsage]
            erase_built_op(op)
        elif kind is prim.LoadOp:
            value = frame.find(_variable(op))
            assert value is not None, f"variable '{_variable(op)}' is loaded before it is stored"
            (result,) = op.results
            if value._name is None and result._name is not None:  # the getter's field  # pyright: ignore[reportAttributeAccessIssue, reportPrivateUsage]
                value.name_hint = result.name_hint  # pyright: ignore[reportAttributeAccessIssue]
            replace_all_uses(result, value)  # pyright: ignore[reportArgumentType]
            erase_built_op(op)
        elif op.regions:
            for nested in child_blocks(op):
                _erase_load_stores(nested, frame)
        op = following


def _variable(op: Operation) -> str:
    """The variable of a Load or Store (its property read directly: IRDL's accessors
    cost more than the rest of a step)."""
    return op.properties["name"].data  # pyright: ignore[reportAttributeAccessIssue]


_SCAFFOLDING = frozenset(
    {
        prim.ConstantOp,
        prim.UninitializedOp,
        prim.UncheckedCastOp,
        prim.TupleConstructOp,
        prim.TupleUnpackOp,
    }
)


def erase_dead_scaffolding(function: func.FuncOp) -> None:
    """Removes unused values the frontend made along the way (placeholders,
    constants, casts and tuples it no longer needs); user computations stay."""
    for block in reversed(_blocks(function.body.block, [])):
        op = block._last_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            preceding = op._prev_op  # pyright: ignore[reportPrivateUsage]  # `op` may be erased
            kind = type(op)
            if kind in _SCAFFOLDING or (kind is prim.ListConstructOp and not op._operands):  # pyright: ignore[reportPrivateUsage]
                for result in op.results:
                    if result.first_use is not None:
                        break
                else:
                    erase_built_op(op)
            op = preceding


def _blocks(block: Block, found: list[Block]) -> list[Block]:
    """`block` and the blocks nested in it, in pre-order (appended to `found`)."""
    found.append(block)
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if op.regions:
            for nested in child_blocks(op):
                _blocks(nested, found)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return found
