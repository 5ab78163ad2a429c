"""Overload resolution: the schema a TorchScript node's operand types select.

Graph nodes do not record their overload (`aten::add` is `add.Tensor`, `add.Scalar`,
`add.int`, ... by its inputs), and pass every argument positionally, keyword-only ones
included. An overload matches when the operand count fits and each operand is accepted
by its argument's type under TorchScript's rules: subtyping, `Scalar` taking every
number, `T?` taking None, type variables (`t`, `tVal`) bound consistently across the
arguments. Tensor refinements (`Float(2, *)`) never decide an overload and are ignored.

Operands typed by gradual typing (`Any`, an `Optional`/`Union` the schema does not
take, a `number` given to an `int`) match loosely: valid graphs use them, so the
verifier accepts them, but an exact match wins. Among equal matches, those whose
returns fit the given result types are kept, then the most specific overload wins
(`add.int(int, int)` over `add(Scalar, Scalar)`), then table order (PyTorch's default
overload first). Results are cached per operator and types: the runtime asks per op.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from xdsl.ir import Attribute

from tsjit.dialects.schema.model import FunctionSchema, SchemaType, TypeKind
from tsjit.dialects.schema.table import schemas_for
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ClassType,
    ComplexScalarType,
    DictType,
    EnumType,
    FloatType,
    FutureType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OpaqueType,
    OptionalType,
    TupleType,
    UnionType,
    is_subtype_of,
    unify,
    unshaped,
)


class Match(enum.IntEnum):
    """How well an operand fits an argument type; a schema matches as its worst operand."""

    NONE = 0
    LOOSE = 1  # accepted through gradual typing (Any, Optional, Union, number)
    EXACT = 2


def resolve_overload(
    name: str, operand_types: Sequence[Attribute], result_types: Sequence[Attribute] | None = None
) -> FunctionSchema | None:
    """The overload of operator `name` ("aten::add") a node with these operand (and,
    if given, result) types calls, or None when no overload accepts the operands."""
    key = (name, tuple(operand_types), None if result_types is None else tuple(result_types))
    if key not in _resolved:
        _resolved[key] = _resolve(name, key[1], key[2])
    return _resolved[key]


_resolved: dict[tuple[str, tuple[Attribute, ...], tuple[Attribute, ...] | None], FunctionSchema | None] = {}


def closest_overloads(name: str, operand_types: Sequence[Attribute], count: int = 3) -> tuple[FunctionSchema, ...]:
    """The `count` overloads nearest to accepting these operands (for error messages):
    those taking as many operands first, then those accepting the most of them."""
    operands = [unshaped(t) for t in operand_types]

    def nearness(schema: FunctionSchema) -> tuple[bool, int]:
        arity = len(schema.arguments) == len(operands) or (schema.is_vararg and len(schema.arguments) <= len(operands))
        accepted = sum(_match(a.schema_type, t, {}) is not Match.NONE for a, t in zip(schema.arguments, operands))
        return arity, accepted

    return tuple(sorted(schemas_for(name), key=nearness, reverse=True)[:count])


def _resolve(
    name: str, operand_types: tuple[Attribute, ...], result_types: tuple[Attribute, ...] | None
) -> FunctionSchema | None:
    operands = [unshaped(t) for t in operand_types]
    best = Match.NONE
    candidates: list[tuple[FunctionSchema, dict[str, Attribute]]] = []
    for schema in schemas_for(name):
        level, bindings = _match_schema(schema, operands)
        if level > best:
            best, candidates = level, []
        if level == best and level is not Match.NONE:
            candidates.append((schema, bindings))
    if result_types is not None and len(candidates) > 1:
        fitting = [(s, b) for s, b in candidates if _returns_fit(s, result_types, b)]
        candidates = fitting or candidates
    schemas = [s for s, _ in candidates]
    for schema in schemas:
        if not any(other is not schema and _dominates(other, schema) for other in schemas):
            return schema
    return schemas[0] if schemas else None


def _match_schema(schema: FunctionSchema, operands: Sequence[Attribute]) -> tuple[Match, dict[str, Attribute]]:
    arguments = schema.arguments
    count_fits = len(operands) >= len(arguments) if schema.is_vararg else len(operands) == len(arguments)
    bindings: dict[str, Attribute] = {}
    if not count_fits:
        return Match.NONE, bindings
    level = Match.EXACT
    exact_generic: list[int] = []
    for i, argument in enumerate(arguments):
        fit = _match(argument.schema_type, operands[i], bindings)
        if fit is Match.NONE:
            return Match.NONE, bindings
        if fit is Match.EXACT and argument.schema_type.has_variables:
            exact_generic.append(i)
        level = min(level, fit)
    # Bindings widen as arguments are read (`t` = int, then None makes it `int?`):
    # check again with the final ones, as PyTorch does after matchTypeVariables.
    for i in exact_generic:
        if not is_subtype_of(operands[i], arguments[i].schema_type.substitute(bindings)):
            return Match.NONE, bindings
    return level, bindings


def _match(formal: SchemaType, actual: Attribute, bindings: dict[str, Attribute]) -> Match:
    trial = dict(bindings)  # a failed attempt must not leave bindings behind
    fit = _match_direct(formal, actual, trial)
    if fit is not Match.NONE:
        bindings.update(trial)
        return fit
    if isinstance(actual, AnyType):
        return Match.LOOSE
    if isinstance(actual, OptionalType):
        return min(_match(formal, actual.element_type, bindings), Match.LOOSE)
    if isinstance(actual, UnionType):  # exact when every member fits
        fits = [_match(formal, member, bindings) for member in actual.types]
        return min(fits) if all(fits) else min(max(fits), Match.LOOSE)
    return Match.NONE


def _match_direct(formal: SchemaType, actual: Attribute, bindings: dict[str, Attribute]) -> Match:
    match formal.kind:
        case TypeKind.VARIABLE:
            return _bind(formal.name, actual, bindings)
        case TypeKind.NAMED:
            return _accepts(formal.torch_type, actual)
        case TypeKind.OPTIONAL:
            if isinstance(actual, NoneType):
                return Match.EXACT
            if isinstance(actual, OptionalType):
                return _match(formal.element, actual.element_type, bindings)
            return _match(formal.element, actual, bindings)
        case TypeKind.LIST if isinstance(actual, ListType):
            return _match_invariant(formal.element, actual.element_type, bindings)
        case TypeKind.TUPLE if isinstance(actual, TupleType) and len(actual.types) == len(formal.elements):
            return min((_match(f, a, bindings) for f, a in zip(formal.elements, actual.types)), default=Match.EXACT)
        case TypeKind.GENERIC if formal.name == "Dict" and isinstance(actual, DictType):
            return min(
                _match_invariant(formal.elements[0], actual.key_type, bindings),
                _match_invariant(formal.elements[1], actual.value_type, bindings),
            )
        case TypeKind.GENERIC if formal.name == "Future" and isinstance(actual, FutureType):
            return _match(formal.element, actual.element_type, bindings)
        case TypeKind.GENERIC if formal.name == "Union":
            return max(_match(member, actual, bindings) for member in formal.elements)
        case TypeKind.GENERIC:
            return _accepts(formal.torch_type, actual)
        case _:
            return Match.NONE


def _match_invariant(formal: SchemaType, actual: Attribute, bindings: dict[str, Attribute]) -> Match:
    """Element types of lists and dicts: mutable containers are invariant, so `int[]`
    is not a `Scalar[]`; the subtype is still accepted loosely."""
    if formal.has_variables:
        return _match(formal, actual, bindings)
    if actual == formal.torch_type:
        return Match.EXACT
    return Match.LOOSE if _match(formal, actual, bindings) is not Match.NONE else Match.NONE


def _bind(variable: str, actual: Attribute, bindings: dict[str, Attribute]) -> Match:
    bound = bindings.get(variable)
    if bound is not None:
        actual = unify(bound, actual)
        if actual is None:
            return Match.NONE
    bindings[variable] = actual
    return Match.EXACT


_NUMBERS = (IntType, FloatType, ComplexScalarType, BoolType)
# Schema types naming a whole family of user types, and the family.
_TYPE_FAMILIES = {"AnyEnumType": EnumType, "AnyClassType": ClassType}


def _accepts(formal: Attribute, actual: Attribute) -> Match:
    if is_subtype_of(actual, formal):
        return Match.EXACT
    if isinstance(formal, NumberType) and isinstance(actual, BoolType):
        return Match.EXACT  # Scalar takes bools too
    if isinstance(formal, OpaqueType) and isinstance(actual, _TYPE_FAMILIES.get(formal.qualname.data, ())):
        return Match.EXACT
    if isinstance(actual, NumberType) and isinstance(formal, _NUMBERS):
        return Match.LOOSE
    return Match.NONE


def _returns_fit(schema: FunctionSchema, result_types: Sequence[Attribute], bindings: dict[str, Attribute]) -> bool:
    if len(result_types) < len(schema.returns) or (len(result_types) > len(schema.returns) and not schema.is_varret):
        return False
    return all(
        _match(r.schema_type, unshaped(t), dict(bindings)) is not Match.NONE
        for r, t in zip(schema.returns, result_types)
    )


def _dominates(a: FunctionSchema, b: FunctionSchema) -> bool:
    """Whether `a` is strictly more specific than `b`: b accepts whatever a accepts."""
    pairs = list(zip(a.arguments, b.arguments))
    return all(_at_least_as_specific(x.schema_type, y.schema_type) for x, y in pairs) and not all(
        _at_least_as_specific(y.schema_type, x.schema_type) for x, y in pairs
    )


def _at_least_as_specific(x: SchemaType, y: SchemaType) -> bool:
    if y.kind is TypeKind.VARIABLE:
        return True
    if x.kind is TypeKind.VARIABLE:
        return False
    if x.kind is y.kind and x.name == y.name and x.kind is not TypeKind.NAMED and len(x.elements) == len(y.elements):
        return all(_at_least_as_specific(a, b) for a, b in zip(x.elements, y.elements))
    if y.kind is TypeKind.OPTIONAL:
        return _at_least_as_specific(x, y.element)
    if x.has_variables or y.has_variables:
        return False
    return _accepts(y.torch_type, x.torch_type) is Match.EXACT
