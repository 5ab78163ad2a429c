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
may reach the graph's outputs as they are after the merges before (the caller could see
them become one; PyTorch asks the graph's outputs at each merge), or when the op
has side effects, is random, or makes a new mutable object (lists, dicts, objects,
tensor factories) whose identity is part of the program's meaning: two lists that are
only read by `cat` and `stack` merge, as nothing can tell them apart.

xDSL's `cse` merges only reads that sit in the same block with no write in between,
knows nothing of aliasing (a write to a view of `x` does not stop it), and copies its
table per region and rescans blocks for writes, which is quadratic on large graphs; this
pass keeps one scoped table and write clocks instead, so it stays linear.

The alias analysis is lazy and most graphs never build its memory DAG: every merge is
decided on the graph as it was (merges are made at the end), so the analysis, built at
any point, describes that graph. A graph in which no op writes needs no write clocks and
no writers (the first walk assumes so and starts over, with clocks, at the first write),
and whether a new tensor that only operators read reaches an output is seen from its
uses: only other results need the DAG.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import (
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
from tsjit.dialects.aten import OperatorOp, schema_of, type_of
from tsjit.dialects.ir_surgery import replace_all_uses
from tsjit.dialects.op_building import erase_built_op
from tsjit.dialects.prim import AllocatesResult, ConstantOp, LoopOp
from tsjit.dialects.schema import FunctionSchema
from tsjit.dialects.traversal import is_isolated_from_above, is_terminator, nested_ops
from tsjit.dialects.types import (
    BoolType,
    DeviceType,
    EnumType,
    FloatType,
    IntType,
    NoneType,
    NumberType,
    StrType,
    TensorType,
)
from tsjit.transforms.analysis.alias_analysis import (
    ALIAS_RULES,
    PRECISE_CONTAINER_USES,
    AliasDb,
    OpFacts,
    is_mutable_type,
    op_facts,
)
from tsjit.transforms.pass_logging import (
    LogLevel,
    TsjitPass,
    active_log,
    allow_rewrite,
    log_debug,
    log_update,
    logging_at,
)


def eliminate_common_subexpressions(graph: FuncOp) -> bool:
    """CSE over one graph; True when any op was replaced."""
    db = AliasDb(graph, lazy=True)
    log = active_log()
    if log is not None and (log.limit is not None or log.enabled(LogLevel.UPDATE)):
        # Merges are counted against the limit and logged as they are decided: no walk
        # may be started over, so whether the graph writes is found first.
        eliminator = _Eliminator(graph, db, quiet=_writes_nothing(graph))
        eliminator.run(graph.body.block)
        return eliminator.apply()
    try:
        eliminator = _Eliminator(graph, db, quiet=True)
        eliminator.run(graph.body.block)
    except _WritesMemory:
        eliminator = _Eliminator(graph, db, quiet=False)
        eliminator.run(graph.body.block)
    return eliminator.apply()


def _writes_nothing(graph: FuncOp) -> bool:
    """Whether no op of `graph` writes memory, as the alias analysis sees it."""
    return all(op_facts(op).writes_nothing for op in nested_ops(graph))


class _WritesMemory(Exception):
    """A walk that assumed that no op writes memory met one that does."""


class _Eliminator:
    """Decides every merge on the graph as it was (the alias analysis describes that
    graph, and stays lazy: most graphs never need its memory DAG), then makes them all.

    The first walk assumes that no op writes memory, which most graphs bear out: it
    then needs no write clocks and no writers, and a merge asks the analysis only
    whether both ops' results may reach the graph's outputs, answered from the uses for
    the common results (new tensors that only operators read) and from the memory DAG,
    built on the first need, otherwise. An op that writes ends that walk (nothing has
    changed yet) and a second one keeps write clocks."""

    def __init__(self, graph: FuncOp, db: AliasDb, *, quiet: bool):
        self.db = db
        self.quiet = quiet
        """No op writes memory (a random op's generator state aside, which only random
        ops read, and they are never merged): no clocks, no writers to ask about."""
        self.table: dict[Hashable, Operation] = {}
        """Op key -> the op that computes it in scope."""
        self.ran_at: dict[int, int] = {}
        """id of an op in the table -> the clock when it ran (kept only when clocks run;
        the graph keeps the op alive)."""
        self.undo: list[tuple[Hashable, Operation | None]] | None = None
        """What to restore when the nested block being walked ends (None in the graph's
        own block, whose table ends with the walk)."""
        self.clock = 0
        self.last_write: dict[int, int] = {}
        """Memory location -> clock of the latest write seen on the way here."""
        self.merges: list[tuple[Operation, Operation]] = []
        """(op, the earlier equal op that replaces it), in the order decided."""
        self.replaced: dict[int, SSAValue] = {}
        """id of a merged op's result -> the result that replaces it (ops are kept, and
        their results alive, until `apply`)."""
        self.replaced_ids: dict[int, int] = {}
        """`replaced` by ids, for keys."""
        self.replacing: set[int] = set()
        """ids of the results that replace others."""
        self.types: dict[Attribute, Attribute] = {}
        """The first of each set of equal result types seen (the graph keeps the others
        alive, so their ids stay theirs)."""
        self.type_ids: dict[int, int] = {}
        """id of a result type -> id of the first type equal to it."""
        self.log_update, self.log_debug = logging_at(LogLevel.UPDATE), logging_at(LogLevel.DEBUG)
        terminator = graph.body.block.last_op
        self.graph_return = terminator if isinstance(terminator, ReturnOp) else None
        self.returned = {id(v) for v in terminator.operands} if self.graph_return is not None else set()
        """ids of the values the graph returns once the merges decided so far are made."""

    def run(self, block: Block) -> None:
        visit = self.visit
        op = block.first_op
        while op is not None:
            if op.regions:
                self.enter(op)
            else:
                visit(op)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]  # no getter

    def enter(self, op: Operation) -> None:
        if self.quiet and not op_facts(op).writes_nothing:
            raise _WritesMemory
        if not self.quiet and isinstance(op, LoopOp):
            self.record_writes(op)  # iteration n+1 runs after the whole body of n
        saved_table, saved_undo = self.table, self.undo
        if is_isolated_from_above(op):
            self.table = {}
        for region in op.regions:
            block = region._first_block  # pyright: ignore[reportPrivateUsage]
            while block is not None:
                undo = self.undo = []
                self.run(block)
                if undo:
                    self.rollback()
                block = block._next_block  # pyright: ignore[reportPrivateUsage]
        self.table, self.undo = saved_table, saved_undo
        if not self.quiet:
            self.record_writes(op)

    def visit(self, op: Operation) -> None:
        known = _CLASS_KINDS.get(type(op))
        if known is not None:
            writes_nothing, kind = known
        else:
            facts = op_facts(op)
            kind = _SCHEMA_KINDS.get(facts)
            if kind is not None:
                writes_nothing = facts.writes_nothing
            else:
                writes_nothing, kind = _writes_nothing_and_kind(op, facts)
        quiet = self.quiet
        if not writes_nothing:
            if quiet:
                raise _WritesMemory
            self.record_writes(op)
            return  # an op that writes is no candidate
        if not quiet and self.record_writes(op):  # a random op's generator state
            return
        if kind is _Kind.NEVER or not op.results:
            return
        if (kind is not _Kind.ALWAYS or not quiet) and not self.is_candidate(op, kind):
            return
        first = next(iter(op._operands), None)  # pyright: ignore[reportPrivateUsage]  # (SSAValues indexes in Python)
        if first is not None:  # `unique`, inlined: most ops are
            use = first.first_use
            if use is not None and use._next_use is None and self.unique(first):  # pyright: ignore[reportPrivateUsage]
                return
        key = self.key(op)
        existing = self.table.setdefault(key, op)
        if existing is op:
            if self.undo is not None:
                self.undo.append((key, None))
            if not quiet:
                self.ran_at[id(op)] = self.clock
            return
        if not quiet and not self.unchanged_since(op, self.ran_at[id(existing)]):
            if self.log_debug:
                log_debug(f"kept: memory it reads was written since the equal op at {_where(existing)}", op)
        elif self.may_merge(existing, op) and allow_rewrite():
            if self.log_update:
                log_update(f"replaced by the equal op at {_where(existing)}", op)
            self.merge(op, existing)
            return
        if self.undo is not None:
            self.undo.append((key, existing))
        self.table[key] = op
        if not self.quiet:
            self.ran_at[id(op)] = self.clock

    def is_candidate(self, op: Operation, kind: _Kind) -> bool:
        """Whether `op`, which writes nothing, has results, and is of a kind that may
        be merged, may be merged with an equal op."""
        if kind is _Kind.CONSTANT and _enum_constant(op):
            return False
        if kind is _Kind.NEW_OBJECT or (kind is _Kind.PER_OP and makes_new_object(op)):
            if identity_observable(op):
                return False
        return self.quiet or not any(self.db.has_writers(result) for result in op.results)

    def unique(self, first: SSAValue) -> bool:
        """Whether no other op can equal an op whose first operand `first` is used by
        that op alone: one that did would use `first` too (unless a merge made `first`
        stand for another value, or another stand for it)."""
        replaced_ids = self.replaced_ids
        return not replaced_ids or (id(first) not in replaced_ids and id(first) not in self.replacing)

    def key(self, op: Operation) -> Hashable:
        """What equal ops share: name, operands (after the merges decided so far),
        result types, properties and attributes (constants thus compare by value).
        Operands compare by identity, so their ids stand for them: the graph keeps them
        alive and in place until every merge is decided. Equal types stand as the id of
        the first of them seen (hashing an xDSL type costs a call; an id does not)."""
        replaced_ids = self.replaced_ids
        operands = map(id, op._operands)  # pyright: ignore[reportPrivateUsage]  # no operand view
        type_ids = self.type_ids
        results = op.results
        if len(results) == 1:  # most ops
            t = results[0]._type  # pyright: ignore[reportPrivateUsage]
            result_types: tuple[int, ...] | list[int] = (type_ids.get(id(t)) or self.type_id(t),)
        else:
            result_types = [type_ids.get(id(t)) or self.type_id(t) for t in map(type_of, results)]
        key = (
            op.name,
            *([replaced_ids.get(i, i) for i in operands] if replaced_ids else operands),
            None,  # neither an id nor a type
            *result_types,
        )  # one flat tuple: keys are made for every op
        properties, attributes = op.properties, op.attributes
        if properties or attributes:
            key += (tuple(sorted(properties.items())), tuple(sorted(attributes.items())))
        return key

    def type_id(self, t: Attribute) -> int:
        """The id standing for `t` and the types equal to it in keys."""
        first = self.types.setdefault(t, t)
        self.type_ids[id(t)] = id(first)
        return id(first)

    def merge(self, op: Operation, existing: Operation) -> None:
        returned, replaced = self.returned, self.replaced
        for old, new in zip(op.results, existing.results):
            replaced[id(old)] = new
            self.replaced_ids[id(old)] = id(new)
            self.replacing.add(id(new))
            if id(old) in returned:
                returned.add(id(new))
        self.merges.append((op, existing))

    def apply(self) -> bool:
        """Makes the merges decided: each op's uses move to the op it equals (never
        itself merged: only ops kept go into the table), and the op goes. Ops go in
        the order of the walk, so an op's operands no merged op defines by then."""
        for op, existing in self.merges:
            for old, new in zip(op.results, existing.results):
                replace_all_uses(old, new)
                if new.name_hint is None:  # as xDSL's replace_all_uses_with, also for an unused value
                    new.name_hint = old.name_hint
            erase_built_op(op)
        return bool(self.merges)

    def rollback(self) -> None:
        undo, table = self.undo, self.table
        assert undo is not None
        while undo:
            key, previous = undo.pop()
            if previous is None:
                del table[key]
            else:
                table[key] = previous

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

    def may_merge(self, existing: Operation, op: Operation) -> bool:
        """Two results that both leave the graph must stay two objects."""
        op_out = self.reaches_output(op)
        if op_out is False:
            return True
        existing_out = self.reaches_output(existing)
        if existing_out is False:
            return True
        if op_out is None or existing_out is None:
            outputs = self.outputs()
            if op_out is None:
                op_out = self.db.may_contain_alias(op.results, outputs)
            if op_out and existing_out is None:
                existing_out = self.db.may_contain_alias(existing.results, outputs)
        return not (op_out and existing_out)

    def reaches_output(self, op: Operation) -> bool | None:
        """Whether memory reachable from `op`'s results may be that of a graph output
        (PyTorch's `mayContainAlias` with the graph's outputs as they are now); None
        when only the memory DAG can tell. Immutable results reach nothing. A new
        tensor that only ops with new outputs use (an operator reading it, a print) is
        related to no other value: it reaches an output only by being one."""
        fresh: bool | None = None
        graph_return = self.graph_return
        for result in op.results:
            t = result._type  # pyright: ignore[reportPrivateUsage]
            if type(t) is not TensorType and not isinstance(t, TensorType):
                if type(t) not in _IMMUTABLE_SCALARS and is_mutable_type(t):
                    return None
                continue
            if fresh is None:
                fresh = op_facts(op).fresh_outputs
            if not fresh:
                return None
            if id(result) in self.returned:
                return True
            use = result.first_use
            while use is not None:
                user = use.operation
                if user is not graph_return and not op_facts(user).fresh_outputs:
                    return None
                use = use._next_use  # pyright: ignore[reportPrivateUsage]
        return False

    def outputs(self) -> list[SSAValue]:
        """The values the graph returns once the merges decided so far are made."""
        if self.graph_return is None:
            return []
        replaced = self.replaced
        return [replaced.get(id(v), v) for v in self.graph_return.operands]


_IMMUTABLE_SCALARS = frozenset({IntType, FloatType, BoolType, StrType, NoneType, DeviceType, NumberType})
"""Classes of the types of values that are no memory (`is_mutable_type` is False), asked
without `isinstance`."""


class _Kind(enum.Enum):
    """What the kind of an op (its class and the analysis's facts) says of merging it."""

    NEVER = "a terminator, or side effects, or random"
    ALWAYS = "a candidate"
    CONSTANT = "a candidate unless an enum member"
    NEW_OBJECT = "a candidate unless a use could tell two of its results apart"
    PER_OP = "effects that depend on the op: ask `makes_new_object`"


_KINDS: dict[tuple[type[Operation], OpFacts], _Kind] = {}
"""`_kind_of` by op class and facts (one facts object per name or overload)."""

_CLASS_KINDS: dict[type[Operation], tuple[bool, _Kind]] = {}
"""(writes nothing, `_kind_of`) of the op classes whose facts follow from the class:
ops `ALIAS_RULES` lists by a name the class fixes (prim ops), of a kind decided without
the op (not `PER_OP`)."""


_SCHEMA_KINDS: dict[OpFacts, _Kind] = {}
"""`_kind_of` of operators by their facts, which are those of one overload (facts hash
by identity)."""


def _writes_nothing_and_kind(op: Operation, facts: OpFacts) -> tuple[bool, _Kind]:
    """Whether `op` writes nothing, and its `_Kind`; kept per class when the class
    decides both, per facts for the operators whose overload does."""
    kind = type(op)
    cse_kind = _KINDS.get((kind, facts)) or _kind_of(op, facts)
    if facts.schema is not None and not facts.nondeterministic and (kind, facts) in _KINDS:
        _SCHEMA_KINDS[facts] = cse_kind
    elif (
        cse_kind is not _Kind.PER_OP
        and facts.schema is None
        and getattr(kind, "name", None) == op.name
        and op.name in ALIAS_RULES
    ):
        _CLASS_KINDS[kind] = (facts.writes_nothing, cse_kind)
    return facts.writes_nothing, cse_kind


def _kind_of(op: Operation, facts: OpFacts) -> _Kind:
    if is_terminator(op) or facts.side_effecting or facts.nondeterministic:
        kind = _Kind.NEVER
    elif isinstance(op, OperatorOp):  # effects from the schema: reads and writes, no allocation
        factory = facts.schema is not None and is_tensor_factory(facts.schema)
        kind = _Kind.NEW_OBJECT if factory else _Kind.ALWAYS
    elif not _static_effects(op):
        return _Kind.PER_OP
    elif makes_new_object(op):
        kind = _Kind.NEW_OBJECT
    else:
        kind = _Kind.CONSTANT if type(op) is ConstantOp else _Kind.ALWAYS
    if not facts.nondeterministic:  # random facts are the op's own
        _KINDS[(type(op), facts)] = kind
    return kind


def _enum_constant(op: Operation) -> bool:
    """Enum members are never merged, as in PyTorch (whose node hashing has no enum
    values): constant pooling leaves them too."""
    return type(op) is ConstantOp and isinstance(op.results[0].type, EnumType)


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
        if _static_effects(op):
            _ALLOCATING_KINDS[kind] = known
    return known


def _static_effects(op: Operation) -> bool:
    return all(type(trait) in _STATIC_EFFECTS for trait in op.get_traits_of_type(MemoryEffect))


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
