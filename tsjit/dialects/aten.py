"""The aten dialect: one op class per operator of the schema table, made on first use.

Every operator PyTorch registers (`aten::add`, and also `prim::dtype`, `quantized::*`
and the table's other namespaces) is an op named after it, covering all its overloads,
since graph nodes do not record which overload they call:

    %r = aten.add %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %v, %i = aten.max %x, %dim, %keep : (!ts.tensor, !ts.int, !ts.bool) -> (!ts.tensor, !ts.tensor)
    aten.warn %msg, %level : (!ts.str, !ts.int) -> ()

`schema_of(op)` resolves the overload from the operand and result types. The verifier
asks that some overload accepts the operands, and the memory effect follows the resolved
overload's alias annotations (`schema/effects.py`). An `aten.*` name the table lacks is
still an op (open universe), with the same syntax and unknown effects; an unknown name in
another namespace is not (`op_class_for` returns None and the context reports it).
"""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Sequence
from operator import attrgetter
from typing import ClassVar

from xdsl.dialects.builtin import LocationAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def, var_operand_def, var_result_def
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from tsjit.dialects.op_building import build_op, ssa_values
from tsjit.dialects.schema import FunctionSchema, closest_overloads, resolve_overload, schemas_for
from tsjit.dialects.schema.effects import is_nondeterministic, schema_effect
from tsjit.dialects.schema.table import TABLE

OPEN_NAMESPACE = "aten"
"""The namespace where names outside the table are still operators."""


class SchemaMemoryEffect(MemoryEffect):
    """Effects of the overload an op resolves to: WRITE on the operands its schema
    writes (`Tensor(a!)`), WRITE on hidden state (the generator) for random ops, READ
    otherwise, and unknown when the overload is unknown or its schema cannot tell."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance] | None:
        schema = schema_of(op)
        if schema is None:
            return None
        effect, nondeterministic = _effect_of(schema)
        if effect is None:
            return None
        if effect is MemoryEffectKind.READ:
            return _READ
        written = frozenset(EffectInstance(MemoryEffectKind.WRITE, op.operands[i]) for i in schema.mutated_arguments())
        return written | _WRITE_HIDDEN_STATE if nondeterministic else written


def _effect_of(schema: FunctionSchema) -> tuple[MemoryEffectKind | None, bool]:
    """`schema_effect` and `is_nondeterministic` of an overload, worked out once per
    schema object (hashing a schema walks all its arguments; identity does not)."""
    known = _EFFECTS.get(id(schema))
    if known is None or known[0] is not schema:
        known = _EFFECTS[id(schema)] = (schema, schema_effect(schema), is_nondeterministic(schema))
    return known[1], known[2]


_EFFECTS: dict[int, tuple[FunctionSchema, MemoryEffectKind | None, bool]] = {}


_READ = frozenset((EffectInstance(MemoryEffectKind.READ),))
_WRITE_HIDDEN_STATE = frozenset((EffectInstance(MemoryEffectKind.WRITE),))


class OperatorOp(IRDLOperation):
    """A TorchScript operator call: operands in schema order (defaults and keyword-only
    arguments included), results as the node's outputs.

        %r = aten.my_custom_op %x : (!ts.tensor) -> !ts.tensor
        %p, %q = aten.my_pair_op : () -> (!ts.int, !ts.tensor)

    Subclasses are made per operator name; this base carries no effect trait, so an
    operator the table does not know has unknown effects.
    """

    OPERATOR: ClassVar[str]
    """The TorchScript operator name, `aten::add`."""

    args = var_operand_def()
    outs = var_result_def()

    assembly_format = "$args attr-dict `:` functional-type($args, $outs)"

    def __init__(
        self,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        location: LocationAttr | None = None,
    ):
        super().__init__(operands=[args], result_types=[result_types])
        if location is not None:
            self.location = location

    @property
    def schema(self) -> FunctionSchema | None:
        return schema_of(self)


class SchemaOp(OperatorOp):
    """An operator of the schema table; subclasses add accessors for the arguments
    every overload places alike (`op.self`, `op.other`)."""

    traits = traits_def(SchemaMemoryEffect())

    def verify_(self) -> None:
        operand_types = [v.type for v in self.args]
        if resolve_overload(self.OPERATOR, operand_types) is not None:
            return
        types = ", ".join(map(str, operand_types))
        raise VerifyException(
            f"'{self.name}' op operands ({types}) match no schema of {self.OPERATOR}; "
            f"candidates: {_candidates(self.OPERATOR, operand_types)}"
        )


type_of = attrgetter("_type")
"""An SSA value's type, read without the property (`map(type_of, op.results)`)."""


def schema_of(op: Operation) -> FunctionSchema | None:
    """The overload `op` calls, resolved from its operand and result types; None for
    ops outside the schema table and for operands no overload accepts.

    Every pass asks this, often many times per op, and hashing xDSL types is slow, so
    the answer is kept on the op together with the type objects it was computed from;
    it is reused while the op's types are those same objects. Types are mostly interned
    (one object per type), so a first question is answered by the identities of its
    types too: ops of one signature resolve their overload once."""
    kind = type(op)
    operator = getattr(kind, "OPERATOR", None)
    if operator is None:
        return None
    operands = op._operands  # pyright: ignore[reportPrivateUsage]  # no operand view
    types = (*map(type_of, operands), *map(type_of, op.results))
    cached = op.__dict__.get("_tsjit_schema")
    if cached is not None and cached[0] == types:  # identical types compare without __eq__
        return cached[1]
    count = len(operands)
    signature = (operator, count, *map(id, types))
    known = _BY_SIGNATURE.get(signature)
    if known is None or known[0] != types:
        if len(_BY_SIGNATURE) >= _SIGNATURES_KEPT:
            _BY_SIGNATURE.clear()
        schema = resolve_overload(operator, types[:count], types[count:])
        known = _BY_SIGNATURE[signature] = (types, schema)
    op.__dict__["_tsjit_schema"] = known
    return known[1]


_BY_SIGNATURE: dict[tuple[object, ...], tuple[tuple[Attribute, ...], FunctionSchema | None]] = {}
"""`schema_of` by operator, operand count and the identities of the types (which the
entry holds, so that they stay those objects)."""

_SIGNATURES_KEPT = 4096
"""Entries `_BY_SIGNATURE` keeps before starting over (types that are not interned
would otherwise grow it without end)."""


@functools.cache
def op_class_for(name: str) -> type[OperatorOp] | None:
    """The op class of `name` (`aten.add`, `prim.dtype`): one class per name and
    process, so `isinstance` holds across contexts. None when `name` is neither in the
    table nor in the open `aten` namespace."""
    namespace, _, operator = name.partition(".")
    qualified = f"{namespace}::{operator}"
    if TABLE.has_operator(qualified):
        return _make_class(name, qualified, SchemaOp, _argument_accessors(schemas_for(qualified)))
    if namespace == OPEN_NAMESPACE and _OPERATOR_NAME.fullmatch(operator):
        return _make_class(name, qualified, OperatorOp, {})
    return None


def custom_op_class(name: str) -> type[OperatorOp] | None:
    """An operator of a namespace PyTorch itself does not register (a user's custom ops,
    `torchvision.nms`): open like aten, with unknown effects. None for the namespaces
    of the table, whose operators are all known."""
    namespace, _, operator = name.partition(".")
    if namespace in TABLE.namespaces or not _OPERATOR_NAME.fullmatch(operator):
        return None
    return _make_class(name, f"{namespace}::{operator}", OperatorOp, {})


_OPERATOR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A node kind's name: no overload suffix (`aten.add.Tensor` is not an operator)."""


def create_op(
    name: str,
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    location: LocationAttr | None = None,
) -> Operation:
    """Builds the op `name` (`aten.add`, `prim.TupleUnpack`) over these operands, for
    importers and the frontend. A hand-written prim op wins over the table's operator of
    the same name, as in the context; ops that also need properties or regions
    (`prim.Constant`, `prim.If`) are built with their own constructors instead."""
    op = build_op(operator_class(name), ssa_values(operands), result_types)
    if location is not None:
        op.location = location
    return op


def operator_class(name: str) -> type[Operation]:
    """The op class `create_op` builds for `name`; a ValueError for an unknown one."""
    cls = _hand_written_ops().get(name) or op_class_for(name)
    if cls is None:
        raise ValueError(f"unknown operator '{name}'")
    return cls


@functools.cache
def _hand_written_ops() -> dict[str, type[Operation]]:
    from tsjit.dialects.prim import PRIM  # imported on first use: prim is large

    return {op.name: op for op in PRIM.operations}


def _make_class(
    name: str, qualified: str, base: type[OperatorOp], accessors: dict[str, property]
) -> type[OperatorOp]:
    namespace, _, operator = name.partition(".")
    body: dict[str, object] = {
        "name": name,
        "OPERATOR": qualified,
        "__annotations__": {"OPERATOR": ClassVar[str]},
        "__module__": __name__,
        "__doc__": f"The operator `{qualified}` (all its overloads).",
    }
    cls = irdl_op_definition(type(f"{namespace.title()}_{operator}", (base,), body))
    for attribute, accessor in accessors.items():
        setattr(cls, attribute, accessor)
    return cls


def _argument_accessors(schemas: Sequence[FunctionSchema]) -> dict[str, property]:
    """A property per argument name that sits at the same position in every overload
    that has it; one that some overloads lack checks the resolved overload first."""
    positions: dict[str, set[int]] = {}
    for schema in schemas:
        for i, argument in enumerate(schema.arguments):
            positions.setdefault(argument.name, set()).add(i)
    accessors: dict[str, property] = {}
    for argument_name, places in positions.items():
        if len(places) != 1:
            continue
        (index,) = places
        everywhere = all(s.argument_index(argument_name) == index for s in schemas)
        attribute = argument_name + "_" if _is_reserved(argument_name) else argument_name
        accessors[attribute] = _accessor(argument_name, index, everywhere)
    return accessors


def _accessor(argument_name: str, index: int, everywhere: bool) -> property:
    def get(op: OperatorOp) -> SSAValue:
        if not everywhere and ((schema := schema_of(op)) is None or schema.argument_index(argument_name) != index):
            raise AttributeError(f"{op.name}: the resolved overload has no argument '{argument_name}'")
        return op.args[index]

    return property(get, doc=f"The operand of argument `{argument_name}`.")


def _is_reserved(attribute: str) -> bool:
    """Names an accessor must not shadow: Operation's members (`name`, `parent`,
    `results`, `verify`, ...), the op's own (`args`, `schema`) and Python keywords."""
    return keyword.iskeyword(attribute) or hasattr(SchemaOp, attribute) or attribute in _OPERATION_FIELDS


_OPERATION_FIELDS = frozenset(Operation.__dataclass_fields__)


def _candidates(operator: str, operand_types: Sequence[Attribute], shown: int = 3) -> str:
    """The overloads nearest to the operands, for an error message."""
    total = len(schemas_for(operator))
    text = "; ".join(str(s) for s in closest_overloads(operator, operand_types, shown))
    return text + (f" (and {total - shown} more)" if total > shown else "")


ATEN = Dialect("aten", [], [])
"""Empty: op classes are made on demand (`op_class_for`) and loaded into the context
that asks for them (`tsjit.context.TSContext`)."""

__all__ = [
    "ATEN",
    "OperatorOp",
    "SchemaMemoryEffect",
    "SchemaOp",
    "create_op",
    "op_class_for",
    "schema_of",
]
