"""common-subexpression-elimination: PyTorch's alias-aware CSE, across nested blocks.

    %a = aten.mul %x, %y : ...
    %w = aten.add_ %x, %one, %one : ...     // writes %x
    %b = aten.mul %x, %y : ...              // not %a: %x changed in between
    %c = aten.mul %x, %y : ...              // %b
    %r = prim.If %cond -> (...) {
      %d = aten.mul %x, %y : ...            // %b, computed in the enclosing block
      ...

An op is replaced by an earlier equal one (same name, operands, result types,
properties and attributes; constants thus compare by value) that dominates it: in the
same block or an enclosing one. It is not replaced when memory it reads may have been
written in between (a write inside a loop counts from the loop's start, since the next
iteration runs after it), when its results may be written anywhere, when both results
would leave the graph as outputs (the caller could see them become one), or when the op
has side effects, is random, or makes a new mutable object (lists, dicts, objects,
tensor factories) whose identity is part of the program's meaning: two lists that are
only read by `cat` and `stack` merge, as nothing can tell them apart.

xDSL's `cse` merges only reads that sit in the same block with no write in between,
knows nothing of aliasing (a write to a view of `x` does not stop it), and copies its
table per region and rescans blocks for writes, which is quadratic on large graphs; this
pass keeps one scoped table and write clocks instead, so it stays linear.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import Rewriter
from xdsl.traits import (
    IsolatedFromAbove,
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    Pure,
    get_effects,
)

from tsjit.diagnostics import SourceLocation
from tsjit.dialects.aten import OperatorOp, schema_of
from tsjit.dialects.prim import AllocatesResult, ConstantOp, LoopOp
from tsjit.dialects.schema import FunctionSchema
from tsjit.dialects.traversal import is_terminator
from tsjit.dialects.types import EnumType, TensorType
from tsjit.transforms.analysis.alias_analysis import PRECISE_CONTAINER_USES, AliasDb
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_debug, log_update


def eliminate_common_subexpressions(graph: FuncOp) -> bool:
    """CSE over one graph; True when any op was replaced."""
    return _Eliminator(AliasDb(graph)).run(graph.body.block)


class _Eliminator:
    def __init__(self, db: AliasDb):
        self.db = db
        self.table: dict[Hashable, tuple[Operation, int]] = {}
        """Op key -> the op that computes it in scope, and the clock when it ran."""
        self.undo: list[tuple[Hashable, tuple[Operation, int] | None]] = []
        self.clock = 0
        self.last_write: dict[int, int] = {}
        """Memory location -> clock of the latest write seen on the way here."""
        self.changed = False

    def run(self, block: Block) -> bool:
        for op in list(block.ops):
            if op.regions:
                self.enter(op)
            elif op.parent is not None:
                self.visit(op)
        return self.changed

    def enter(self, op: Operation) -> None:
        if isinstance(op, LoopOp):
            self.record_writes(op)  # iteration n+1 runs after the whole body of n
        saved_table, saved_undo = self.table, self.undo
        if op.has_trait(IsolatedFromAbove):
            self.table, self.undo = {}, []
        for region in op.regions:
            for block in region.blocks:
                mark = len(self.undo)
                self.run(block)
                self.rollback(mark)
        self.table, self.undo = saved_table, saved_undo
        self.record_writes(op)

    def visit(self, op: Operation) -> None:
        if self.record_writes(op) or not self.is_candidate(op):  # an op that writes is no candidate
            return
        key = _key(op)
        known = self.table.get(key)
        if known is not None:
            existing, when = known
            if not self.unchanged_since(op, when):
                log_debug(f"kept: memory it reads was written since the equal op at {_where(existing)}", op)
            elif self.may_merge(existing, op) and allow_rewrite():
                log_update(f"replaced by the equal op at {_where(existing)}", op)
                for old, new in zip(op.results, existing.results):
                    old.replace_all_uses_with(new)
                Rewriter.erase_op(op)
                self.changed = True
                return
        self.undo.append((key, known))
        self.table[key] = (op, self.clock)

    def rollback(self, mark: int) -> None:
        while len(self.undo) > mark:
            key, previous = self.undo.pop()
            if previous is None:
                del self.table[key]
            else:
                self.table[key] = previous

    def record_writes(self, op: Operation) -> bool:
        """Advances the clock past what `op` writes; whether it writes anything."""
        written = self.db.writes(op)
        if not written:
            return False
        self.clock += 1
        for location in written:
            self.last_write[location] = self.clock
        return True

    def unchanged_since(self, op: Operation, when: int) -> bool:
        """Whether nothing `op` reads was written after clock `when`."""
        last_write = self.last_write
        return all(last_write.get(location, 0) <= when for location in self.db.reads(op))

    def is_candidate(self, op: Operation) -> bool:
        """Whether `op`, which writes nothing, may be merged with an equal op."""
        db = self.db
        return (
            bool(op.results)
            and not _enum_constant(op)
            and not is_terminator(op)
            and not db.has_side_effects(op)
            and not db.is_nondeterministic(op)
            and not (makes_new_object(op) and identity_observable(op))
            and not any(db.has_writers(result) for result in op.results)
        )

    def may_merge(self, existing: Operation, op: Operation) -> bool:
        """Two results that both leave the graph must stay two objects."""
        db = self.db
        return not (db.aliases_graph_output(existing.results) and db.aliases_graph_output(op.results))


def _enum_constant(op: Operation) -> bool:
    """Enum members are never merged, as in PyTorch (whose node hashing has no enum
    values): constant pooling leaves them too."""
    return type(op) is ConstantOp and isinstance(op.results[0].type, EnumType)


def _key(op: Operation) -> Hashable:
    """What equal ops share. Operands are compared by identity (SSA values are equal
    only to themselves), so their ids stand for them: the op in the table keeps them
    alive and in place, as ops are only ever replaced by earlier ones."""
    properties, attributes = op.properties, op.attributes
    return (
        op.name,
        tuple(map(id, op.operands)),
        tuple([r.type for r in op.results]),
        tuple(sorted(properties.items())) if properties else (),
        tuple(sorted(attributes.items())) if attributes else (),
    )


def _where(op: Operation) -> str:
    location = SourceLocation.of_op(op)
    return str(location) if location is not None else op.name


def makes_new_object(op: Operation) -> bool:
    """Ops whose result is a new mutable object each time they run: two of them are
    two objects even when nobody writes either (`l1 is l2` is False)."""
    if isinstance(op, OperatorOp):  # effects from the schema: reads and writes, no allocation
        schema = schema_of(op)
        return schema is not None and is_tensor_factory(schema)
    if not op.results or op.regions:
        return _allocates(op)
    kind = type(op)
    known = _ALLOCATING_KINDS.get(kind)
    if known is None:
        known = _allocates(op)
        if all(type(trait) in _STATIC_EFFECTS for trait in op.get_traits_of_type(MemoryEffect)):
            _ALLOCATING_KINDS[kind] = known
    return known


def _allocates(op: Operation) -> bool:
    effects = get_effects(op)
    return effects is not None and any(e.kind is MemoryEffectKind.ALLOC for e in effects)


_STATIC_EFFECTS = frozenset({
    NoMemoryEffect, Pure, MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect, MemoryFreeEffect, AllocatesResult,
})  # fmt: skip
"""Effect traits whose effects on an op with results and no regions follow from its
class alone."""

_ALLOCATING_KINDS: dict[type[Operation], bool] = {}
"""`makes_new_object` of op classes whose effect traits are all `_STATIC_EFFECTS`."""


def identity_observable(op: Operation) -> bool:
    """Whether a use could tell two new objects apart: any use other than an op that
    only reads the object and keeps no reference (`aten.cat` of a list)."""
    readers = PRECISE_CONTAINER_USES.get(op.name)
    return readers is None or any(use.operation.name not in readers for r in op.results for use in r.uses)


def is_tensor_factory(schema: FunctionSchema) -> bool:
    """PyTorch's factory signature: `dtype` and `device` arguments and a fresh tensor
    result (`zeros`, `full`, `tensor`, `rand_like`, ...)."""
    known = _FACTORIES.get(id(schema))
    if known is None or known[0] is not schema:
        names = {argument.name for argument in schema.arguments}
        factory = (
            {"dtype", "device"} <= names
            and len(schema.returns) == 1
            and schema.returns[0].alias_info is None
            and isinstance(schema.returns[0].type, TensorType)
        )
        known = _FACTORIES[id(schema)] = (schema, factory)
    return known[1]


_FACTORIES: dict[int, tuple[FunctionSchema, bool]] = {}
"""`is_tensor_factory` by schema identity (a schema hashes all its arguments)."""


@dataclass(frozen=True)
class CommonSubexpressionEliminationPass(TsjitPass):
    """Alias-aware CSE over every graph of the module (see the module doc)."""

    name = "common-subexpression-elimination"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            eliminate_common_subexpressions(graph)
