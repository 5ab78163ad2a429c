"""Alias analysis of a TorchScript graph: which values may share memory, what each op
writes and reads, and which reorderings keep the program's meaning.

PyTorch's `AliasDb` (torch/csrc/jit/ir/alias_analysis.cpp) is the model. Tensors, lists,
dicts and objects are mutable and shared by reference, so every value of such a type has
an element in a `MemoryDAG`:

- an aten op aliases its outputs to its inputs as its schema's annotations say
  (`view(Tensor(a) self) -> Tensor(a)`), writes what `(a!)` marks, sends `(a -> *)`
  arguments to the wildcard set and gives unannotated outputs fresh memory;
- prim ops follow `ALIAS_RULES` (a table: ListConstruct makes a fresh container holding
  its inputs, TupleUnpack and GetAttr extract wildcards, If outputs alias both branch
  values, loop-carried values alias their initial and their yielded values, ...);
- graph inputs may alias each other: they are wildcards, one set per type, as is every
  value stored into a container and read back;
- ops nothing describes (calls, generic or conservative aten ops, `aten::wait`) write
  everything they can reach, i.e. their inputs and every wildcard, and stay in order.

Built once per pass run in O(n α(n)); queries are set intersections over cached
location sets. Passes that rewrite keep it current with `replace_value`/`forget_op`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from tsjit.dialects.aten import OperatorOp, schema_of, type_of
from tsjit.dialects.prim import ConstantOp, UninitializedOp
from tsjit.dialects.schema import FunctionSchema, schemas_for
from tsjit.dialects.schema.effects import is_nondeterministic, schema_effect
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ClassType,
    DeviceType,
    DictType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
    unshaped,
)
from tsjit.transforms.analysis.memory_dag import Element, MemoryDAG
from tsjit.transforms.pass_logging import LogLevel, log_debug, logging_at

# --------------------------------------------------------------------------------------
# The rules, as data
# --------------------------------------------------------------------------------------


class AliasRule(enum.Enum):
    """How an op relates the memory of its outputs to that of its inputs."""

    FRESH = "outputs are new memory"
    CONTAINER = "the output is a new container holding the inputs"
    EXTRACT = "outputs come out of a container: wildcards"
    FORWARD = "every output aliases the first input"
    FORWARD_EACH = "output i aliases input i"
    SET_ATTR = "writes the object; the stored value escapes to the wildcard set"
    READ = "reads its inputs, outputs are new memory, and must stay where it is"
    CONSERVATIVE = "may write anything it can reach; outputs are wildcards"
    IF = "outputs alias the values either branch yields"
    LOOP = "carried values alias their initial and yielded values"
    WITH = "outputs alias what the body yields"
    SUBGRAPH = "body arguments alias the inputs, outputs what the body yields"
    RETURN = "the operands leave the graph"
    TERMINATOR = "yields to the parent op, which relates the values"
    SCHEMA = "the operator's schema annotations"


ALIAS_RULES: dict[str, AliasRule] = {
    "prim.Constant": AliasRule.FRESH,
    "prim.Uninitialized": AliasRule.FRESH,
    "prim.CreateObject": AliasRule.FRESH,
    "prim.ListConstruct": AliasRule.CONTAINER,
    "prim.DictConstruct": AliasRule.CONTAINER,
    "prim.TupleConstruct": AliasRule.CONTAINER,
    "prim.TupleUnpack": AliasRule.EXTRACT,
    "prim.TupleIndex": AliasRule.EXTRACT,
    "prim.TupleSlice": AliasRule.EXTRACT,
    "prim.ListUnpack": AliasRule.EXTRACT,
    "prim.GetAttr": AliasRule.EXTRACT,
    "prim.unchecked_cast": AliasRule.FORWARD,
    "prim.ConstantChunk": AliasRule.FORWARD,
    "profile.guard": AliasRule.FORWARD,
    "profile.profile": AliasRule.FORWARD_EACH,
    "profile.type_check": AliasRule.FORWARD_EACH,
    "prim.SetAttr": AliasRule.SET_ATTR,
    "prim.Print": AliasRule.READ,
    "prim.RaiseException": AliasRule.READ,
    "prim.LoopContinuation": AliasRule.READ,
    "prim.ReturnStmt": AliasRule.READ,
    "prim.CallFunction": AliasRule.CONSERVATIVE,
    "prim.CallMethod": AliasRule.CONSERVATIVE,
    "prim.Enter": AliasRule.CONSERVATIVE,
    "prim.Exit": AliasRule.CONSERVATIVE,
    "prim.Store": AliasRule.CONSERVATIVE,
    "prim.Load": AliasRule.CONSERVATIVE,
    "profile.bailout": AliasRule.CONSERVATIVE,
    "func.call": AliasRule.CONSERVATIVE,
    "aten.wait": AliasRule.CONSERVATIVE,
    "prim.fork": AliasRule.CONSERVATIVE,  # the forked code may write what it captures until the wait
    "prim.If": AliasRule.IF,
    "prim.Loop": AliasRule.LOOP,
    "prim.With": AliasRule.WITH,
    "prim.FusionGroup": AliasRule.SUBGRAPH,
    "prim.DifferentiableGraph": AliasRule.SUBGRAPH,
    "func.return": AliasRule.RETURN,
    "prim.Yield": AliasRule.TERMINATOR,
}
"""Ops outside the schema table (and prim ops PyTorch special-cases). Other ops follow
their schema, or their xDSL memory effects when they have no schema."""

SIDE_EFFECTING_RULES = frozenset({AliasRule.READ, AliasRule.CONSERVATIVE})
"""Rules whose ops are never removed, merged or moved across (PyTorch's
`hasSideEffects`), besides `profile.profile`, which records while profiling."""

SIDE_EFFECTING_OPS = frozenset({"profile.profile"})

PRECISE_CONTAINER_USES: dict[str, frozenset[str]] = {
    "prim.ListConstruct": frozenset({
        "aten.cat", "aten.stack", "aten.broadcast_tensors", "aten.vstack", "aten.hstack", "aten.dstack",
    }),
    "prim.TupleConstruct": frozenset({"func.return"}),
}  # fmt: skip
"""A container whose only uses are these ops holds its inputs without making them
wildcards: the op reads it and keeps no reference, or hands it to the caller, which the
analysis accounts for as a graph output (PyTorch's `functionalNonEscapingListUse` and
`functionalNonEscapingTupleUse`)."""

RUNNING_STATS_WRITERS: dict[str, str] = {
    "aten::batch_norm": "training",
    "aten::native_batch_norm": "training",
    "aten::instance_norm": "use_input_stats",
}
"""Operators that update `running_mean`/`running_var` unless the named flag is a
constant False; their schemas do not say so."""


# --------------------------------------------------------------------------------------
# Mutable types
# --------------------------------------------------------------------------------------


def alias_keys(t: Attribute) -> tuple[Attribute, ...]:
    """The types whose wildcard sets a value of type `t` may belong to (PyTorch's
    `mapTypeToAliasTypeSet`); empty for immutable types. Shapes do not matter: every
    tensor is `Tensor`, an `Optional[T]` is a `T`."""
    if isinstance(t, TensorType):
        return _TENSOR_KEYS  # the common case, without hashing the type
    if isinstance(t, _IMMUTABLE_SCALARS):
        return ()
    return _alias_keys(t)


_TENSOR_KEYS = (TensorType(),)
_IMMUTABLE_SCALARS = (IntType, FloatType, BoolType, StrType, NoneType, DeviceType, NumberType)


@functools.cache
def _alias_keys(t: Attribute) -> tuple[Attribute, ...]:
    if isinstance(t, (TensorType, ListType, DictType)):
        return (unshaped(t),)
    if isinstance(t, (ClassType, AnyType)):
        return (t,)
    if isinstance(t, OptionalType):
        return alias_keys(t.element_type)
    if isinstance(t, UnionType):
        return tuple(dict.fromkeys(k for member in t.types for k in alias_keys(member)))
    if isinstance(t, FutureType):
        return (FutureType(unshaped(t.element_type)),) if alias_keys(t.element_type) else ()  # pyright: ignore[reportArgumentType]
    if isinstance(t, TupleType):
        mutable = [unshaped(e) for e in t.types if alias_keys(e)]
        return (TupleType(mutable),) if mutable else ()  # pyright: ignore[reportArgumentType]
    return ()


@functools.cache
def _contained_types(key: Attribute) -> tuple[Attribute, ...]:
    if isinstance(key, (ListType, FutureType)):
        return (key.element_type,)
    if isinstance(key, DictType):
        return (key.key_type, key.value_type)
    if isinstance(key, TupleType):
        return tuple(key.types)
    return ()


@dataclass(frozen=True)
class _SchemaTraits:
    """What the analysis asks of an overload beyond its annotations, worked out once."""

    side_effecting: bool
    nondeterministic: bool
    running_stats_flag: str | None
    unannotated: bool
    """No argument or return carries an alias annotation: outputs are fresh memory and
    nothing is written (beyond running stats)."""
    facts: OpFacts
    """The facts of its ops, shared when they do not depend on the op (not random)."""


_TRAITS: dict[int, tuple[FunctionSchema, _SchemaTraits]] = {}
"""By schema identity: schemas come from the table, one object each, and hashing one
walks all its arguments."""


def _traits_of(schema: FunctionSchema) -> _SchemaTraits:
    known = _TRAITS.get(id(schema))
    if known is None or known[0] is not schema:
        side_effecting = schema_effect(schema) is None
        running_stats_flag = RUNNING_STATS_WRITERS.get(schema.name)
        unannotated = all(a.alias_info is None for a in schema.arguments) and all(
            r.alias_info is None for r in schema.returns
        )
        writes_nothing = (
            running_stats_flag is None
            and not any(a.alias_info is not None and a.alias_info.writes for a in schema.arguments)
            and not any(r.alias_info is not None and r.alias_info.writes for r in schema.returns)
        )
        traits = _SchemaTraits(
            side_effecting=side_effecting,
            nondeterministic=is_nondeterministic(schema),
            running_stats_flag=running_stats_flag,
            unannotated=unannotated,
            facts=OpFacts(
                AliasRule.SCHEMA, schema, side_effecting, nondeterministic=False,
                writes_nothing=writes_nothing, fresh_outputs=unannotated,
            ),
        )  # fmt: skip
        known = _TRAITS[id(schema)] = (schema, traits)
    return known[1]


WRITING_RULES = frozenset({AliasRule.SET_ATTR, AliasRule.CONSERVATIVE})
"""Rules whose ops the analysis records writes for."""

FRESH_OUTPUT_RULES = frozenset({AliasRule.FRESH, AliasRule.READ})
"""Rules whose outputs are new memory and whose operands flow nowhere."""

QUIET_RULES = frozenset({
    AliasRule.FRESH, AliasRule.CONTAINER, AliasRule.EXTRACT, AliasRule.FORWARD, AliasRule.FORWARD_EACH,
    AliasRule.IF, AliasRule.LOOP, AliasRule.WITH, AliasRule.SUBGRAPH, AliasRule.RETURN, AliasRule.TERMINATOR,
})  # fmt: skip
"""Rules whose ops write nothing and have no side effects of their own."""


def is_quiet(op: Operation) -> bool:
    """Whether `op` (not counting the ops in its regions) certainly writes no memory and
    has no side effects, as the analysis's facts say (`op_facts`). A graph of quiet ops
    needs no alias analysis for dead code elimination, which then only follows values.

    Decided from the op's name and operand count (`quiet_by_kind`), without resolving
    the overload, except that an operator must also resolve to one: the analysis
    treats an op no overload accepts as writing everything."""
    return quiet_by_kind(op) and overload_known(op)


def quiet_by_kind(op: Operation) -> bool:
    """`is_quiet` of an op whose overload, if it is an operator analyzed by its schema,
    resolves: decided by its class, name and operand count (every overload it may call
    only reads), kept per class in `QUIET_BY_CLASS` for the ops whose effects do not
    depend on the op."""
    known = QUIET_BY_CLASS.get(type(op))
    if known is True or known is False:
        return known
    count = len(op._operands)  # pyright: ignore[reportPrivateUsage]  # no operand view
    if known is not None:
        quiet = known.get(count)
        if quiet is not None:
            return quiet
    name = op.name
    rule = ALIAS_RULES.get(name)
    if rule is not None:
        quiet = rule in QUIET_RULES and name not in SIDE_EFFECTING_OPS
        if getattr(type(op), "name", None) == name:  # a class of one op name
            QUIET_BY_CLASS[type(op)] = quiet
        return quiet
    if isinstance(op, OperatorOp):
        operator = getattr(type(op), "OPERATOR", None)
        quiet = operator is not None and _quiet_operator(operator, count)
        QUIET_BY_CLASS.setdefault(type(op), {})[count] = quiet  # pyright: ignore[reportIndexIssue]
        return quiet
    effects = get_effects(op)  # effects from traits may depend on the op itself: not kept
    return effects is not None and not any(e.kind is MemoryEffectKind.WRITE for e in effects)


def overload_known(op: Operation) -> bool:
    """False for an operator analyzed by its schema whose overload does not resolve
    (no overload accepts its operands): the analysis's facts then say that it writes
    everything, whatever its kind."""
    return not isinstance(op, OperatorOp) or op.name in ALIAS_RULES or schema_of(op) is not None


QUIET_BY_CLASS: dict[type[Operation], bool | dict[int, bool]] = {}
"""`quiet_by_kind` per op class: a bool for the classes of one op name that `ALIAS_RULES`
lists, by operand count for operators (their overloads differ); classes whose ops are
decided one by one (by their effect traits) are not kept. Walks over every op (dead
code elimination's scan) read it directly."""


@functools.cache
def _quiet_operator(operator: str, operands: int) -> bool:
    """Whether every overload of `operator` that takes `operands` operands only reads:
    resolving which one an op calls costs more than asking all of them."""
    candidates = [
        s for s in schemas_for(operator)
        if len(s.arguments) == operands or (s.is_vararg and len(s.arguments) <= operands)
    ]  # fmt: skip
    return bool(candidates) and all(
        schema_effect(s) is MemoryEffectKind.READ
        and s.name not in RUNNING_STATS_WRITERS
        and not any(r.alias_info is not None and r.alias_info.writes for r in s.returns)
        for s in candidates
    )


@dataclass(frozen=True, eq=False)
class OpFacts:
    """What the analysis knows of an op from the op alone (its kind, its schema, its
    constant flags), without the memory DAG. One object serves every op of a name or
    overload, so facts hash and compare by identity."""

    rule: AliasRule
    schema: FunctionSchema | None
    """The overload, for ops analyzed by their schema annotations."""
    side_effecting: bool
    nondeterministic: bool
    writes_nothing: bool
    """The analysis records no write for the op: no `(a!)`, no running stats, no
    setattr, not conservative (a random op still writes the generator's state)."""
    fresh_outputs: bool
    """Its outputs are new memory holding nothing and its operands flow nowhere: using
    a value relates that value to nothing (most operators, constants, prints)."""


_NO_FACTS = OpFacts(
    AliasRule.FRESH, None, side_effecting=False, nondeterministic=False, writes_nothing=True,
    fresh_outputs=True,
)  # fmt: skip
"""The facts of an op a rewrite removed."""

_FACTS_BY_NAME: dict[str, OpFacts] = {}
"""The facts of the ops `ALIAS_RULES` lists, which follow from their name."""

_BY_CLASS: dict[type[Operation], OpFacts | None] = {}
"""The facts of the ops of a class when the class decides them (ops `ALIAS_RULES` lists
by a name their class fixes); None for classes analyzed by their operator's schema
(operators `ALIAS_RULES` does not list: an operator class has one name)."""

_FACTS_BY_SIGNATURE: dict[tuple[object, ...], tuple[tuple[Attribute, ...], OpFacts]] = {}
"""The facts of operators by class and the identities of their operand and result
types (which decide the overload), unless random (whose facts may depend on a `train`
flag). Types are mostly interned, and hashing them costs more than hashing their ids;
each entry holds its types, so that no other object takes their ids."""

_SIGNATURES_KEPT = 4096
"""Entries `_FACTS_BY_SIGNATURE` keeps before starting over (types that are not
interned would otherwise grow it without end)."""

def op_facts(op: Operation) -> OpFacts:
    """What the analysis knows of `op` from the op alone (`AliasDb.facts_of` without
    the database's memo)."""
    kind = type(op)
    known = _BY_CLASS.get(kind, _UNKNOWN)
    if known is None:
        operands = op._operands  # pyright: ignore[reportPrivateUsage]  # no operand view
        signature = (kind, *map(id, map(type_of, operands)), None, *map(id, map(type_of, op.results)))
        by_signature = _FACTS_BY_SIGNATURE.get(signature)
        if by_signature is not None:
            return by_signature[1]
        schema = schema_of(op)
        if schema is None or schema.is_vararg or schema.is_varret:
            facts = _CONSERVATIVE_FACTS
        else:
            traits = _traits_of(schema)
            if traits.nondeterministic:  # unless `train=False` here: the op's own facts
                if _deterministic_here(op, schema):
                    return traits.facts
                return dataclasses.replace(traits.facts, nondeterministic=True)
            facts = traits.facts
        if len(_FACTS_BY_SIGNATURE) >= _SIGNATURES_KEPT:
            _FACTS_BY_SIGNATURE.clear()
        _FACTS_BY_SIGNATURE[signature] = ((*map(type_of, operands), *map(type_of, op.results)), facts)
        return facts
    if known is not _UNKNOWN:
        return known  # pyright: ignore[reportReturnType]
    name = op.name
    if isinstance(op, OperatorOp) and name not in ALIAS_RULES:
        _BY_CLASS[kind] = None
        return op_facts(op)
    facts = _FACTS_BY_NAME.get(name)
    if facts is None:
        rule = ALIAS_RULES.get(name)
        if rule is None:
            effects = get_effects(op)  # may depend on the op itself: not kept
            if effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects):
                return _CONSERVATIVE_FACTS
            return _FRESH_FACTS
        facts = _FACTS_BY_NAME[name] = OpFacts(
            rule,
            None,
            rule in SIDE_EFFECTING_RULES or name in SIDE_EFFECTING_OPS,
            nondeterministic=False,
            writes_nothing=rule not in WRITING_RULES,
            fresh_outputs=rule in FRESH_OUTPUT_RULES,
        )
    if getattr(kind, "name", None) == name:  # a name the class fixes
        _BY_CLASS[kind] = facts
    return facts


_UNKNOWN = object()
"""A class `_BY_CLASS` does not hold yet."""


_CONSERVATIVE_FACTS = OpFacts(
    AliasRule.CONSERVATIVE, None, side_effecting=True, nondeterministic=False, writes_nothing=False,
    fresh_outputs=False,
)  # fmt: skip
_FRESH_FACTS = OpFacts(
    AliasRule.FRESH, None, side_effecting=False, nondeterministic=False, writes_nothing=True,
    fresh_outputs=True,
)  # fmt: skip


def _deterministic_here(op: Operation, schema: FunctionSchema) -> bool:
    """`dropout(x, p, train=False)` draws nothing: PyTorch's isNondeterministic."""
    index = schema.argument_index("train")
    return index is not None and index < len(op.operands) and _constant_false(op.operands[index])


def is_mutable_type(t: Attribute) -> bool:
    return bool(alias_keys(t))


def _never_aliases(value: SSAValue) -> bool:
    """None and Uninitialized flow into Optional values but are no memory."""
    return isinstance(value.type, NoneType) or isinstance(value.owner, UninitializedOp)


def _constant_false(value: SSAValue) -> bool:
    return isinstance(value.owner, ConstantOp) and value.owner.python_value is False


# --------------------------------------------------------------------------------------
# The database
# --------------------------------------------------------------------------------------


class AliasDb:
    """Aliasing, writes and reads of one graph (a `func.func`).

    With `lazy`, the memory DAG is built on the first question that needs it: questions
    about immutable values (no memory, no writers) and about an op's side effects and
    randomness (facts of the op itself) never do, so a pass that asks only those, as
    constant propagation of int arithmetic does, pays no analysis."""

    def __init__(self, graph: FuncOp, *, lazy: bool = False):
        self.graph = graph
        self._facts: dict[int, tuple[Operation, OpFacts]] = {}
        """id(op) -> (op, its facts); holding the op keeps its id from being reused (ids
        hash faster than ops)."""
        self._effects: dict[Operation, bool] = {}
        self._built = False
        if not lazy:
            self._build()

    def _build(self) -> None:
        self._built = True
        self._dag = MemoryDAG()
        self._elements: dict[SSAValue, Element] = {}
        self._wildcards: dict[Attribute, Element] = {}
        self._generator = self._dag.fresh()
        """The random generator's state, which random ops read and write."""
        self._direct_writes: dict[Operation, list[tuple[Element, bool]]] = {}
        self._writes_everything: set[Operation] = set()
        self._nondeterministic: set[Operation] = set()
        self._returned: list[SSAValue] = []
        self._finished = False

        graph = self.graph
        for argument in graph.body.block.args:
            self._set_wildcard(argument)
        self._analyze_block(graph.body.block)
        self._finish()
        if logging_at(LogLevel.DEBUG):
            log_debug(f"alias analysis of @{graph.sym_name.data}:\n{self.describe()}")

    # ----------------------------------------------------------------------------------
    # Queries: memory
    # ----------------------------------------------------------------------------------

    def is_mutable(self, value: SSAValue) -> bool:
        return is_mutable_type(value.type)

    def memory_of(self, value: SSAValue) -> frozenset[int]:
        """The locations `value` may refer to (empty for immutable values)."""
        if not is_mutable_type(value.type):
            return frozenset()
        if not self._built:
            self._build()
        return self._dag.locations(self._element_of(value))

    def contents_of(self, value: SSAValue) -> frozenset[int]:
        """The locations of `value` and of everything stored inside it."""
        t = value.type
        if type(t) is not TensorType and not is_mutable_type(t):  # tensors, the common case, are mutable
            return frozenset()
        if not self._built:
            self._build()
        element = self._elements.get(value)  # `_element_of`, inlined: asked of every live value
        if element is None:
            element = self._set_wildcard(value)
        return self._dag.contents(element)

    def may_alias(self, a: SSAValue, b: SSAValue) -> bool:
        return not self.memory_of(a).isdisjoint(self.memory_of(b))

    def may_contain_alias(self, a: Iterable[SSAValue], b: Iterable[SSAValue]) -> bool:
        """Whether anything reachable from `a` may share memory with anything
        reachable from `b`."""
        reachable = self._contents_of_all(a)
        return bool(reachable) and not reachable.isdisjoint(self._contents_of_all(b))

    def has_writers(self, value: SSAValue) -> bool:
        """Whether any op of the graph may write the memory of `value`."""
        return any(self._written[location] for location in self.memory_of(value))

    def escapes_scope(self, values: Iterable[SSAValue]) -> bool:
        """Whether memory reachable from `values` is visible outside the graph: it may
        alias a graph input or output or a wildcard."""
        reachable = self._contents_of_all(values)
        return bool(reachable) and not reachable.isdisjoint(self._escaping)

    def aliases_graph_output(self, values: Iterable[SSAValue]) -> bool:
        reachable = self._contents_of_all(values)
        return bool(reachable) and not reachable.isdisjoint(self._returned_contents)

    # ----------------------------------------------------------------------------------
    # Queries: ops
    # ----------------------------------------------------------------------------------

    def writes(self, op: Operation) -> frozenset[int]:
        """The locations `op` may write, ops in its regions included."""
        if not self._built:
            self._build()
        if not op.regions:
            return self._own_writes.get(op, frozenset())
        cached = self._nested_writes.get(op)
        if cached is None:
            found = set(self._own_writes.get(op, ()))
            for inner in _nested_ops(op):
                found |= self.writes(inner)
            cached = self._nested_writes[op] = frozenset(found)
        return cached

    def reads(self, op: Operation) -> frozenset[int]:
        """The locations `op` may read: everything reachable from its inputs (ops in its
        regions included); every wildcard for ops that may write anything."""
        cached = self._reads.get(op)
        if cached is None:
            found = set(self._contents_of_all(op.operands))
            if op in self._writes_everything:
                found |= self._wildcard_locations
            if op in self._nondeterministic:
                found.add(self._dag.find(self._generator))
            for inner in _nested_ops(op):
                found |= self.reads(inner)
            cached = self._reads[op] = frozenset(found)
        return cached

    def writes_to_alias(self, op: Operation, values: Iterable[SSAValue]) -> bool:
        """Whether `op` (or an op in its regions) may write memory of `values`."""
        written = self.writes(op)
        return bool(written) and any(not written.isdisjoint(self.memory_of(v)) for v in values)

    def writes_to_wildcard(self, op: Operation) -> bool:
        """Whether `op` may write memory the graph does not own (inputs, wildcards)."""
        return not self.writes(op).isdisjoint(self._wildcard_locations)

    def has_side_effects(self, op: Operation) -> bool:
        """Whether `op` or an op in its regions has effects beyond memory (I/O, calls,
        exceptions, control transfer): it is never removed or reordered."""
        if not op.regions:
            known = self._facts.get(id(op))  # `facts_of`, inlined: asked of every op folded
            return (known[1] if known is not None else self.facts_of(op)).side_effecting
        cached = self._effects.get(op)
        if cached is None:
            cached = self.facts_of(op).side_effecting or any(self.has_side_effects(i) for i in _nested_ops(op))
            self._effects[op] = cached
        return cached

    def effectful_ops(self, root: Operation) -> set[int]:
        """The ids of the ops inside `root`'s regions that have side effects or write
        memory the graph does not own (`has_side_effects(op) or writes_to_wildcard(op)`):
        dead-code elimination keeps them whatever their results. One walk, each op's
        own facts and writes looked up once: an op with regions is effectful when it is
        itself or any op inside it is, which is what both questions recurse into."""
        if not self._built:
            self._build()
        found: set[int] = set()
        self._effectful_in(root, found)
        return found

    def _effectful_in(self, root: Operation, found: set[int]) -> bool:
        facts = self._facts
        own_writes = self._own_writes
        wildcards = self._wildcard_locations
        any_found = False
        for region in root.regions:
            for block in region.blocks:
                op = block._first_op  # pyright: ignore[reportPrivateUsage]
                while op is not None:
                    known = facts.get(id(op))
                    effectful = (known[1] if known is not None else self.facts_of(op)).side_effecting
                    if not effectful:
                        written = own_writes.get(op)
                        effectful = bool(written) and not written.isdisjoint(wildcards)  # pyright: ignore[reportOptionalMemberAccess]
                    if op.regions and self._effectful_in(op, found):
                        effectful = True
                    if effectful:
                        found.add(id(op))
                        any_found = True
                    op = op._next_op  # pyright: ignore[reportPrivateUsage]
        return any_found

    def is_nondeterministic(self, op: Operation) -> bool:
        """Random ops: equal inputs may give different outputs."""
        known = self._facts.get(id(op))
        return (known[1] if known is not None else self.facts_of(op)).nondeterministic

    def describe(self) -> str:
        """The analysis as text, for GRAPH_DEBUG logs: the locations of each mutable
        value (wildcards by type) and the locations each op writes."""
        if not self._built:
            self._build()
        names = {self._dag.find(w): f"*{key}" for key, w in self._wildcards.items()}

        def spell(locations: frozenset[int]) -> str:
            return "{" + ", ".join(sorted(names.get(loc, f"m{loc}") for loc in locations)) + "}"

        lines = ["memory:"]
        for value, element in self._elements.items():
            if value.name_hint is not None:
                lines.append(f"  %{value.name_hint}: {spell(self._dag.locations(element))}")
        lines.append("writes:")
        for op, written in self._own_writes.items():
            if written:
                lines.append(
                    f"  {op.name}{''.join(' %' + r.name_hint for r in op.results if r.name_hint)}: {spell(written)}"
                )
        return "\n".join(lines)

    # ----------------------------------------------------------------------------------
    # Moving ops
    # ----------------------------------------------------------------------------------

    def move_after_topologically_valid(
        self, op: Operation, point: Operation, *, dry_run: bool = False
    ) -> bool:
        """Moves `op` right after `point` (same block), together with whatever must
        move with it; False, and nothing moved, when data dependencies or read/write
        hazards on aliasing memory forbid it."""
        return self._try_move(op, point, after=True, dry_run=dry_run)

    def move_before_topologically_valid(
        self, op: Operation, point: Operation, *, dry_run: bool = False
    ) -> bool:
        """Moves `op` right before `point`; see `move_after_topologically_valid`."""
        return self._try_move(op, point, after=False, dry_run=dry_run)

    # ----------------------------------------------------------------------------------
    # Keeping the database current while rewriting
    # ----------------------------------------------------------------------------------

    def replace_value(self, old: SSAValue, new: SSAValue) -> None:
        """`new` takes over the memory of `old` (which the rewrite replaced by `new`
        from some point on); `old` keeps fresh memory of its own."""
        if not self._built or not is_mutable_type(old.type):
            return  # a DAG built later sees the rewritten graph
        self._elements[new] = self._element_of(old)
        self._elements[old] = self._fresh_element(old.type)

    def forget_op(self, op: Operation) -> None:
        """Drops the writes and effects of an op the rewrite is about to erase (call it
        while the op is still in place, so that its enclosing ops are found)."""
        self._facts[id(op)] = (op, _NO_FACTS)
        current: Operation | None = op
        if not self._built:  # a DAG built later will not see the op
            if not self._effects:
                return  # no answer about an enclosing op to drop
            while current is not None:
                self._effects.pop(current, None)
                current = current.parent_op()
            return
        for location in self._own_writes.pop(op, ()):
            self._written[location] -= 1
        self._writes_everything.discard(op)
        self._nondeterministic.discard(op)
        while current is not None:
            self._nested_writes.pop(current, None)
            self._reads.pop(current, None)
            self._effects.pop(current, None)
            current = current.parent_op()

    # ----------------------------------------------------------------------------------
    # Building
    # ----------------------------------------------------------------------------------

    def _analyze_block(self, block: Block) -> None:
        for op in block.ops:
            self._analyze(op)

    def _analyze(self, op: Operation) -> None:
        facts = self.facts_of(op)
        if facts.nondeterministic:
            self._nondeterministic.add(op)
        if facts.schema is not None:
            self._analyze_schema(op, facts.schema)
        else:
            _HANDLERS[facts.rule](self, op)

    def facts_of(self, op: Operation) -> OpFacts:
        """What the analysis knows of `op` from the op alone, without the memory DAG
        (kept per op: resolving its overload is the costly part)."""
        known = self._facts.get(id(op))
        if known is None:
            known = self._facts[id(op)] = (op, op_facts(op))
        return known[1]

    def _analyze_schema(self, op: Operation, schema: FunctionSchema) -> None:
        """PyTorch's `analyzeImpl` for FROM_SCHEMA operators."""
        traits = _traits_of(schema)
        if traits.unannotated:  # most operators: fresh outputs, nothing bound or written
            if traits.running_stats_flag is not None:
                self._record_running_stats_writes(op, schema, traits.running_stats_flag)
            for result in op.results:
                self._give_fresh(result)
            return
        bound: dict[str, SSAValue] = {}
        for argument, value in zip(schema.arguments, op.operands):
            info = argument.alias_info
            if info is None or not is_mutable_type(value.type):
                continue
            if any(inner.writes for inner in info.contained):
                self._record_write(op, value, with_contents=True)
            if not info.before_sets:
                continue
            for alias_set in info.before_sets:
                bound.setdefault(alias_set, value)
            if info.is_write:
                self._record_write(op, value)
            if info.is_wildcard_after:
                self._set_wildcard(value)
        if traits.running_stats_flag is not None:
            self._record_running_stats_writes(op, schema, traits.running_stats_flag)
        for i, result in enumerate(op.results):
            if not is_mutable_type(result.type):
                continue
            info = schema.returns[i].alias_info if i < len(schema.returns) else None
            if info is None or not info.all_sets():
                self._give_fresh(result)
                continue
            if info.is_wildcard_before:
                self._set_wildcard(result)
                continue
            sources = [bound[s] for s in info.before_sets if s in bound]
            if sources:
                self._alias(result, sources)
            else:
                self._give_fresh(result)
            for inner in info.contained:
                for alias_set in inner.before_sets:
                    if alias_set in bound and is_mutable_type(bound[alias_set].type):
                        self._dag.add_contained(self._elements[result], self._element_of(bound[alias_set]))
            if info.is_write:
                self._record_write(op, result)

    def _record_running_stats_writes(self, op: Operation, schema: FunctionSchema, flag: str) -> None:
        index = schema.argument_index(flag)
        if index is not None and index < len(op.operands) and _constant_false(op.operands[index]):
            return
        for name in ("running_mean", "running_var"):
            if (i := schema.argument_index(name)) is not None and i < len(op.operands):
                self._record_write(op, op.operands[i])

    def _analyze_fresh(self, op: Operation) -> None:
        for result in op.results:
            self._give_fresh(result)

    def _analyze_container(self, op: Operation) -> None:
        (container,) = op.results
        if not is_mutable_type(container.type):
            return  # a tuple of immutable values
        if _only_used_precisely(op.name, container):
            element = self._elements[container] = self._dag.fresh()
            for value in op.operands:
                if is_mutable_type(value.type):
                    self._dag.add_contained(element, self._element_of(value))
            return
        element = self._give_fresh(container)
        for value in op.operands:
            for key in alias_keys(value.type):
                self._dag.add_contained(element, self._wildcard(key))
            self._set_wildcard(value)

    def _analyze_extract(self, op: Operation) -> None:
        for result in op.results:
            self._set_wildcard(result)

    def _analyze_forward(self, op: Operation) -> None:
        for result in op.results:
            self._alias(result, op.operands[:1])

    def _analyze_forward_each(self, op: Operation) -> None:
        for result, value in zip(op.results, op.operands):
            self._alias(result, (value,))
        for result in op.results[len(op.operands) :]:
            self._give_fresh(result)

    def _analyze_set_attr(self, op: Operation) -> None:
        obj, value = op.operands
        self._record_write(op, obj)
        self._set_wildcard(value)

    def _analyze_read(self, op: Operation) -> None:
        self._analyze_fresh(op)

    def _analyze_conservative(self, op: Operation) -> None:
        """PyTorch's `analyzeConservative`, plus writes to every wildcard (the callee may
        reach anything the graph shares)."""
        for value in op.operands:
            if is_mutable_type(value.type):
                self._record_write(op, value, with_contents=True)
                self._set_wildcard(value)
        self._writes_everything.add(op)
        self._direct_writes.setdefault(op, [])
        for result in op.results:
            self._set_wildcard(result)
        for region in op.regions:
            for block in region.blocks:
                for argument in block.args:
                    self._set_wildcard(argument)
                self._analyze_block(block)

    def _analyze_if(self, op: Operation) -> None:
        for region in op.regions:
            self._analyze_block(region.block)
        then_values = op.regions[0].block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        else_values = op.regions[1].block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        for result, then_value, else_value in zip(op.results, then_values, else_values):
            self._alias(result, (then_value, else_value))

    def _analyze_loop(self, op: Operation) -> None:
        """A body argument is its initial value or, from the second iteration on,
        what the body yielded: the join of the initial value and a placeholder
        location that becomes one with the yielded value once the body is analyzed.
        The results are the arguments (zero iterations give the initial values)."""
        block = op.regions[0].block
        arguments = block.args[1:]
        placeholders: list[Element | None] = []
        for argument, initial in zip(arguments, op.operands[2:]):
            placeholder = self._dag.fresh() if is_mutable_type(argument.type) else None
            placeholders.append(placeholder)
            self._alias(argument, (initial,))
            if placeholder is not None:
                self._elements[argument] = self._dag.join((self._elements[argument], placeholder))
        self._analyze_block(block)
        yielded = block.last_op.operands[1:]  # pyright: ignore[reportOptionalMemberAccess]
        for placeholder, value, argument, result in zip(placeholders, yielded, arguments, op.results):
            if placeholder is not None and is_mutable_type(value.type) and not _never_aliases(value):
                self._dag.merge(placeholder, self._element_of(value))
            self._alias(result, (argument,))

    def _analyze_with(self, op: Operation) -> None:
        for region in op.regions:
            self._analyze_block(region.block)
        yielded = op.regions[0].block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        for result, value in zip(op.results, yielded):
            self._alias(result, (value,))

    def _analyze_subgraph(self, op: Operation) -> None:
        block = op.regions[0].block
        for argument, value in zip(block.args, op.operands):
            self._alias(argument, (value,))
        self._analyze_block(block)
        yielded = block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        for result, value in zip(op.results, yielded):
            self._alias(result, (value,))
        for region in op.regions[1:]:  # a differentiated DifferentiableGraph's backward
            for backward in region.blocks:
                for argument in backward.args:
                    self._element_of(argument)  # gradients and saved values: taken as wildcards
                self._analyze_block(backward)

    def _analyze_return(self, op: Operation) -> None:
        self._returned.extend(op.operands)

    def _analyze_terminator(self, op: Operation) -> None:
        pass

    # ----------------------------------------------------------------------------------

    def _element_of(self, value: SSAValue) -> Element:
        """The element of a mutable value; a value the analysis never saw (made after
        it ran) is taken to be a wildcard."""
        element = self._elements.get(value)
        if element is None:
            element = self._set_wildcard(value)
        return element

    def _fresh_element(self, t: Attribute) -> Element:
        """A new location holding the wildcards of the types it contains."""
        element = self._dag.fresh()
        for key in alias_keys(t):
            for inner in _contained_types(key):
                for inner_key in alias_keys(inner):
                    self._dag.add_contained(element, self._wildcard(inner_key))
        return element

    def _give_fresh(self, value: SSAValue) -> Element:
        t = value.type
        if isinstance(t, TensorType):  # the common case: a tensor holds nothing mutable
            element = self._elements[value] = self._dag.fresh()
            return element
        if not is_mutable_type(t):
            return -1
        element = self._elements[value] = self._fresh_element(t)
        return element

    def _alias(self, value: SSAValue, sources: Sequence[SSAValue]) -> None:
        """`value` may be any of `sources` (immutable ones, None and Uninitialized
        excepted); with none left, it is fresh memory."""
        if not is_mutable_type(value.type):
            return
        elements = [self._element_of(s) for s in sources if is_mutable_type(s.type) and not _never_aliases(s)]
        if elements:
            self._elements[value] = self._dag.join(elements)
        else:
            self._give_fresh(value)

    def _wildcard(self, key: Attribute) -> Element:
        element = self._wildcards.get(key)
        if element is None:
            element = self._wildcards[key] = self._fresh_element(key)
            if self._finished:
                self._wildcard_locations = self._wildcard_locations | {self._dag.find(element)}
                self._escaping = self._escaping | {self._dag.find(element)}
        return element

    def _set_wildcard(self, value: SSAValue) -> Element:
        """`value` may be anything of its type the graph shares."""
        keys = alias_keys(value.type)
        if not keys:
            return -1
        element = self._elements.get(value)
        if element is None and len(keys) == 1:
            element = self._elements[value] = self._wildcard(keys[0])
            return element
        if element is None:
            element = self._elements[value] = self._dag.fresh()
        for key in keys:
            self._dag.merge(element, self._wildcard(key))
        return element

    def _record_write(self, op: Operation, value: SSAValue, *, with_contents: bool = False) -> None:
        if is_mutable_type(value.type):
            self._direct_writes.setdefault(op, []).append((self._element_of(value), with_contents))

    def _contents_of_all(self, values: Iterable[SSAValue]) -> frozenset[int]:
        found: set[int] = set()
        for value in values:
            found |= self.contents_of(value)
        return frozenset(found)

    def _finish(self) -> None:
        """Resolves the write registry into location sets, now that no more merges
        happen (PyTorch's write index)."""
        self._finished = True
        dag = self._dag
        self._wildcard_locations = frozenset(dag.find(w) for w in self._wildcards.values())
        self._own_writes: dict[Operation, frozenset[int]] = {}
        for op, entries in self._direct_writes.items():
            locations: set[int] = set()
            for element, with_contents in entries:
                locations |= dag.contents(element) if with_contents else dag.locations(element)
            self._own_writes[op] = frozenset(locations)
        for op in self._writes_everything:
            self._own_writes[op] = self._own_writes[op] | self._wildcard_locations
        generator = frozenset((dag.find(self._generator),))
        for op in self._nondeterministic:
            self._own_writes[op] = self._own_writes.get(op, frozenset()) | generator
        self._written: Counter[int] = Counter()
        for locations in self._own_writes.values():
            self._written.update(locations)
        self._returned_contents = self._contents_of_all(self._returned)
        self._escaping = self._wildcard_locations | self._returned_contents
        self._nested_writes: dict[Operation, frozenset[int]] = {}
        self._reads: dict[Operation, frozenset[int]] = {}
        self._effects: dict[Operation, bool] = {}

    # ----------------------------------------------------------------------------------
    # Moves (PyTorch's tryMove with a working set)
    # ----------------------------------------------------------------------------------

    def _try_move(self, op: Operation, point: Operation, *, after: bool, dry_run: bool) -> bool:
        block = op.parent_block()
        if block is None or block is not point.parent_block():
            return False
        if op is point:
            return True
        forward = _comes_before(op, point)
        step: Callable[[Operation], Operation | None] = (
            (lambda o: o.next_op) if forward else (lambda o: o.prev_op)
        )
        # Moving toward `point` from this side leaves what depends on `op` behind.
        splits = forward != after
        current = step(op)
        if splits and current is point:
            return True
        if self.has_side_effects(op) or (not splits and self.has_side_effects(point)):
            return False
        working = _WorkingSet(self, op, block)
        while current is not point:
            assert current is not None
            if self.has_side_effects(current):
                return False
            if working.depends_on(current, later=forward):
                working.add(current)
            current = step(current)
        if splits:
            working.drop_mover()
        if working.depends_on(point, later=forward):
            return False
        if dry_run:
            return True
        if splits:
            _place(op, point, after)
            anchor = point
            for dependent in working.nodes:
                _place(dependent, anchor, not after)
                anchor = dependent
        else:
            _place(op, point, after)
            anchor = op
            for dependent in working.nodes:
                _place(dependent, anchor, after)
                anchor = dependent
        return True


_HANDLERS: dict[AliasRule, Callable[[AliasDb, Operation], None]] = {
    AliasRule.FRESH: AliasDb._analyze_fresh,  # pyright: ignore[reportPrivateUsage]
    AliasRule.CONTAINER: AliasDb._analyze_container,  # pyright: ignore[reportPrivateUsage]
    AliasRule.EXTRACT: AliasDb._analyze_extract,  # pyright: ignore[reportPrivateUsage]
    AliasRule.FORWARD: AliasDb._analyze_forward,  # pyright: ignore[reportPrivateUsage]
    AliasRule.FORWARD_EACH: AliasDb._analyze_forward_each,  # pyright: ignore[reportPrivateUsage]
    AliasRule.SET_ATTR: AliasDb._analyze_set_attr,  # pyright: ignore[reportPrivateUsage]
    AliasRule.READ: AliasDb._analyze_read,  # pyright: ignore[reportPrivateUsage]
    AliasRule.CONSERVATIVE: AliasDb._analyze_conservative,  # pyright: ignore[reportPrivateUsage]
    AliasRule.IF: AliasDb._analyze_if,  # pyright: ignore[reportPrivateUsage]
    AliasRule.LOOP: AliasDb._analyze_loop,  # pyright: ignore[reportPrivateUsage]
    AliasRule.WITH: AliasDb._analyze_with,  # pyright: ignore[reportPrivateUsage]
    AliasRule.SUBGRAPH: AliasDb._analyze_subgraph,  # pyright: ignore[reportPrivateUsage]
    AliasRule.RETURN: AliasDb._analyze_return,  # pyright: ignore[reportPrivateUsage]
    AliasRule.TERMINATOR: AliasDb._analyze_terminator,  # pyright: ignore[reportPrivateUsage]
}


def _nested_ops(op: Operation) -> Iterable[Operation]:
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops


def _only_used_precisely(kind: str, container: SSAValue) -> bool:
    users = PRECISE_CONTAINER_USES.get(kind)
    return (
        users is not None
        and container.first_use is not None
        and all(u.operation.name in users for u in container.uses)
    )


def _comes_before(a: Operation, b: Operation) -> bool:
    """Whether `a` precedes `b` in their block: walks outward from `a` both ways, so
    it costs the distance between them."""
    ahead, behind = a.next_op, a.prev_op
    while ahead is not None or behind is not None:
        if ahead is b:
            return True
        if behind is b:
            return False
        ahead = ahead.next_op if ahead is not None else None
        behind = behind.prev_op if behind is not None else None
    raise ValueError("ops are not in the same block")


def _place(op: Operation, anchor: Operation, after: bool) -> None:
    block = anchor.parent_block()
    assert block is not None
    op.detach()
    if after:
        block.insert_op_after(op, anchor)
    else:
        block.insert_op_before(op, anchor)


class _WorkingSet:
    """The ops that must move together with the mover (PyTorch's `WorkingSet`), and
    what they use, read and write."""

    def __init__(self, db: AliasDb, mover: Operation, block: Block):
        self.db = db
        self.block = block
        self.mover: Operation | None = mover
        self.mover_users = self._users_in_block(mover)
        self.mover_reads = db.reads(mover)
        self.mover_writes = db.writes(mover)
        self.nodes: list[Operation] = []
        self.node_set: set[Operation] = set()
        self.users: set[Operation] = set()
        self.reads: set[int] = set()
        self.writes: set[int] = set()

    def add(self, op: Operation) -> None:
        self.nodes.append(op)
        self.node_set.add(op)
        self.users |= self._users_in_block(op)
        self.reads |= self.db.reads(op)
        self.writes |= self.db.writes(op)

    def drop_mover(self) -> None:
        self.mover = None
        self.mover_users = set()
        self.mover_reads = self.mover_writes = frozenset()

    def depends_on(self, op: Operation, *, later: bool) -> bool:
        """Whether the set cannot be moved past `op`: a value flows between them, or
        one writes memory the other reads or writes (RAW, WAR, WAW)."""
        if self.mover is None and not self.nodes:
            return False
        if later:
            if op in self.mover_users or op in self.users:
                return True
        elif any(user is self.mover or user in self.node_set for user in self._users_in_block(op)):
            return True
        op_writes, op_reads = self.db.writes(op), self.db.reads(op)
        if op_writes and not (op_writes.isdisjoint(self.reads) and op_writes.isdisjoint(self.mover_reads)):
            return True
        if op_writes and not (op_writes.isdisjoint(self.writes) and op_writes.isdisjoint(self.mover_writes)):
            return True
        return bool(op_reads) and not (
            op_reads.isdisjoint(self.writes) and op_reads.isdisjoint(self.mover_writes)
        )

    def _users_in_block(self, op: Operation) -> set[Operation]:
        """Users of `op`'s results, as the ops of this block that contain them."""
        users: set[Operation] = set()
        for result in op.results:
            for use in result.uses:
                if (user := self.block.find_ancestor_op_in_block(use.operation)) is not None:
                    users.add(user)
        return users
