"""constant-pooling: one `prim.Constant` per distinct constant, all at the top of the
graph (PyTorch's `ConstantPooling`).

    %a = prim.Constant 1 : !ts.int                  %a = prim.Constant 1 : !ts.int
    %x = aten.add %p, %q, %a ...              →     %x = aten.add %p, %q, %a ...
    %r = prim.If %c -> ... {                        %r = prim.If %c -> ... {
      %b = prim.Constant 1 : !ts.int                  %y = aten.mul %x, %a ...
      %y = aten.mul %x, %b ...

Constants are equal when their types and values are (floats by bit pattern: `0.0` and
`-0.0` differ). Constants from nested blocks are hoisted too, in the order the graph
first uses them, so every later pass finds them dominating. Constants of mutable types
(tensors, lists) merge only when alias analysis shows that nothing writes either: two
uses must not start sharing memory one of them writes.

xDSL's `cse` merges equal constants but leaves them where they are and knows nothing of
TorchScript's mutable constants, hence this pass.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation

from tsjit.dialects.ir_surgery import replace_all_uses
from tsjit.dialects.op_building import insert_built_op
from tsjit.dialects.prim import ConstantOp
from tsjit.dialects.traversal import child_blocks, is_isolated_from_above
from tsjit.dialects.types import EnumType
from tsjit.transforms.analysis.alias_analysis import AliasDb, is_mutable_type
from tsjit.transforms.pass_logging import LogLevel, TsjitPass, allow_rewrite, log_update, logging_at


def constant_key(op: ConstantOp) -> Hashable:
    """What makes two constants interchangeable: their type and exact value (an enum
    member is never pooled, as in PyTorch, whose enum values do not hash)."""
    result_type = op.results[0].type  # not `op.result`, `op.value`: xDSL's accessors cost more than the key
    if type(result_type) is EnumType:  # exact types: `isinstance` on xDSL's ABCs costs more than the key
        return op
    value = op.properties.get("value")
    if value is None:
        return (result_type, None)
    return (result_type, value if type(value) in _PLAIN_VALUES else _value_key(value))


_PLAIN_VALUES = frozenset({IntegerAttr, StringAttr})
"""Values that are their own key (the common constants)."""


def _value_key(value: Attribute) -> Hashable:
    if isinstance(value, FloatAttr):
        return ("float", struct.pack("<d", value.value.data))
    if isinstance(value, ArrayAttr):
        return ("array", tuple(_value_key(v) for v in value))
    if isinstance(value, DenseIntOrFPElementsAttr):
        return ("dense", value.type, value.data.data)
    return value


def pool_constants(graph: func.FuncOp) -> int:
    """Deduplicates and hoists the constants of `graph`; returns how many it merged.
    A subgraph isolated from the graph (`prim.fork`, `prim.FusionGroup`) keeps its own
    constants, pooled at the top of its body."""
    aliases: list[AliasDb | None] = []

    def analysis() -> AliasDb | None:
        if not aliases:
            aliases.append(AliasDb(graph))
        return aliases[0]

    merged = 0
    for scope, constants in _scopes(graph):
        if constants:
            merged += _pool(scope.regions[0].block, constants, analysis)
    return merged


def _scopes(graph: func.FuncOp) -> list[tuple[Operation, list[ConstantOp]]]:
    """The graph and each subgraph isolated from above, with their own constants, in
    the order the graph's text shows them."""
    scopes: list[tuple[Operation, list[ConstantOp]]] = []

    def visit(scope: Operation) -> None:
        constants: list[ConstantOp] = []
        scopes.append((scope, constants))
        collect(scope, constants)

    def collect(parent: Operation, constants: list[ConstantOp]) -> None:
        for block in child_blocks(parent):
            op = block._first_op  # pyright: ignore[reportPrivateUsage]
            while op is not None:
                if type(op) is ConstantOp:
                    constants.append(op)
                elif op.regions:
                    if is_isolated_from_above(op):
                        visit(op)
                    else:
                        collect(op, constants)
                op = op._next_op  # pyright: ignore[reportPrivateUsage]

    visit(graph)
    return scopes


def _pool(entry: Block, constants: list[ConstantOp], analysis: Callable[[], AliasDb | None]) -> int:
    aliases = analysis() if any(_mutable(c) for c in constants) else None
    kept: dict[Hashable, ConstantOp] = {}
    last: Operation | None = None
    merged = 0
    logging = logging_at(LogLevel.UPDATE)
    for constant in constants:
        key = constant_key(constant)
        existing = kept.get(key)
        if existing is not None and _may_share(existing, constant, aliases):
            if not allow_rewrite():
                break
            if logging:
                log_update("merged into an equal constant", constant)
            _merge(constant, existing)
            merged += 1
            continue
        if existing is None:
            kept[key] = constant
        in_place = constant.parent is entry and constant._prev_op is last  # pyright: ignore[reportPrivateUsage]
        if not in_place:
            if not allow_rewrite():
                break
            constant.detach()
            insert_built_op(constant, entry, entry.first_op if last is None else last._next_op)  # pyright: ignore[reportPrivateUsage]
        last = constant
    return merged


def _merge(constant: ConstantOp, into: ConstantOp) -> None:
    """`Rewriter.replace_op` without its generality: a constant has no operands, so once
    its uses are gone, detaching it is all erasing would do (and a third of the cost)."""
    replace_all_uses(constant.results[0], into.results[0])
    block = constant.parent
    assert block is not None
    block.detach_op(constant)


def _mutable(op: ConstantOp) -> bool:
    return is_mutable_type(op.results[0].type)


def _may_share(a: ConstantOp, b: ConstantOp, aliases: AliasDb | None) -> bool:
    """Two equal constants may become one unless one is mutable and written."""
    if aliases is None or not _mutable(a):
        return True
    return not aliases.has_writers(a.result) and not aliases.has_writers(b.result)


@dataclass(frozen=True)
class ConstantPoolingPass(TsjitPass):
    """Deduplicates equal constants and hoists them to the top of each graph."""

    name = "constant-pooling"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            pool_constants(graph)
