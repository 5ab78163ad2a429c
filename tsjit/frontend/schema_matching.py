"""Matching a call's arguments against signatures, as TorchScript's schema matching.

A call (`torch.add(x, 2, alpha=3)`, `x.view(3, 4)`, `scale_add(a, b, 0.5)`) is matched
against each candidate signature: positional and keyword arguments are bound to
parameters, defaults fill the rest (every argument becomes an input of the node), type
variables (`t`, `tVal`) are bound, and the implicit conversions of TorchScript apply:
Optional unwrapping, a tuple or an empty `[]` literal given to a list, a single int given
to `int[N]`; and only on the second pass (`allow_conversions`) trailing positional
arguments packed into a list (`zeros(2, 3)`), a tensor or `number` passed as an int or
float (`aten::IntImplicit`, `aten::Float`, ...) and a str given as a Device.

TorchScript takes the first overload in registration order; tsjit's table is sorted, so
among the overloads a pass accepts it takes the most specific one: exact types beat
refinements, which beat Optional, `Scalar` and then type variables or `Any` (`add.int`
before `add(Scalar, Scalar)`, `to.dtype` before `to.prim_dtype`). Matching plans every
conversion first and builds IR only for the chosen overload, so failed attempts leave no
dead nodes.
"""

from __future__ import annotations

import ast
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from xdsl.ir import Attribute, SSAValue

from tsjit.dialects import prim
from tsjit.dialects.schema import FunctionSchema, SchemaType, TypeKind, schemas_for
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ComplexScalarType,
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
    is_subtype_of,
    unify,
    unshaped,
)
from tsjit.frontend.annotations import type_str

NO_DEFAULT = object()

Formal = SchemaType | Attribute
"""A parameter or return type: schema types may hold type variables; the types of
script functions are plain tsjit types."""


@dataclass(frozen=True)
class Param:
    name: str
    type: Formal
    default: object = NO_DEFAULT
    kwarg_only: bool = False
    broadcast: int | None = None  # N of `int[N]`: a single int is repeated N times


@dataclass(frozen=True)
class Signature:
    """What a call is matched against: an operator overload or a script function."""

    name: str  # "aten::add" or "scale_add", for messages
    params: tuple[Param, ...]
    returns: tuple[Formal, ...]
    return_names: tuple[str, ...] | None = None
    is_vararg: bool = False
    text: str = ""  # the schema as written, for messages
    is_aten: bool = False  # `input=` may name `self`, as PyTorch allows for aten ops
    writes_out: bool = False  # an `out=` overload: listed last among candidates

    def __str__(self) -> str:
        if self.text:
            return self.text
        params = ", ".join(f"{_formal_str(p.type)} {p.name}" for p in self.params)
        returns = ", ".join(_formal_str(r) for r in self.returns)
        if not self.returns:  # a builtin written in TorchScript: its return type is inferred
            return f"{self.name}({params})"
        return f"{self.name}({params}) -> " + (returns if len(self.returns) == 1 else f"({returns})")

    def may_take(self, positional: int, keywords: tuple[str, ...], has_self: bool) -> bool:
        """Whether a call with this many positional arguments, these keywords and
        maybe a receiver can bind every parameter without a default (a quick test
        before matching: conversions never change how many arguments there are, but
        trailing positional arguments may pack into a list)."""
        required, names, packs = self._arity
        if self.is_vararg or packs:
            return True
        provided = positional + len(keywords) + has_self
        if provided < required or positional > len(self.params):
            return False
        return all(k in names or (self.is_aten and k == "input") for k in keywords)

    @functools.cached_property
    def _arity(self) -> tuple[int, frozenset[str], bool]:
        """Parameters without default, parameter names, and whether the last
        positional parameter is a list that trailing arguments may fill."""
        required = sum(1 for p in self.params if p.default is NO_DEFAULT)
        positional = [p for p in self.params if not p.kwarg_only]
        packs = bool(positional) and _varargs_can_be_used_as_list(self, len(positional) - 1, positional[-1])
        return required, frozenset(p.name for p in self.params), packs


def _formal_str(formal: Formal) -> str:
    return type_str(formal) if isinstance(formal, Attribute) else str(formal)


@functools.cache
def operator_signature(schema: FunctionSchema) -> Signature:
    params = tuple(
        Param(a.name, a.schema_type, a.default if a.has_default else NO_DEFAULT, a.kwarg_only, a.fixed_size)
        for a in schema.arguments
    )
    names = tuple(r.name for r in schema.returns)
    return Signature(
        schema.name,
        params,
        tuple(r.schema_type for r in schema.returns),
        names if names and all(names) else None,
        schema.is_vararg,
        str(schema),
        schema.namespace == "aten",
        any(a.name == "out" and a.kwarg_only for a in schema.arguments),
    )


_BLOCKED_OVERLOADS = frozenset({"aten::view.dtype"})
"""`x.view(1)` must not mean `x.view(torch.int8)`: ScalarType is an int to TorchScript."""


@functools.cache
def operator_signatures(name: str, overload: str | None = None) -> tuple[Signature, ...]:
    """The overloads of `name` a call may select (only `overload` when it is given)."""
    if overload is not None:
        return tuple(operator_signature(s) for s in schemas_for(name) if s.overload_name == overload)
    return tuple(
        operator_signature(s) for s in schemas_for(name) if s.qualified_name not in _BLOCKED_OVERLOADS
    )


# --------------------------------------------------------------------------------------
# Call arguments and conversion plans
# --------------------------------------------------------------------------------------


@dataclass
class CallArg:
    """One argument of a call: an SSA value, or a Python constant materialized only if
    used (as defaults are); `node` locates it."""

    value: SSAValue | None
    node: ast.AST | None = None
    name: str | None = None
    constant: object = None

    @property
    def type(self) -> Attribute:
        if self.value is not None:
            return self.value.type
        return constant_type(self.constant)


def constant_type(value: object) -> Attribute:
    return prim.infer_constant_type(list(value) if isinstance(value, tuple) else value)


class Builder(Protocol):
    """What plans need to emit IR; the emitter implements it."""

    def constant(self, value: object, type: Attribute | None = None) -> SSAValue: ...
    def operator(self, name: str, operands: Sequence[SSAValue], node: ast.AST | None = None) -> SSAValue: ...
    def list_of(self, elements: Sequence[SSAValue], list_type: ListType) -> SSAValue: ...
    def tuple_of(self, elements: Sequence[SSAValue]) -> SSAValue: ...
    def tuple_elements(self, value: SSAValue) -> list[SSAValue]: ...
    def is_empty_list_literal(self, value: SSAValue) -> bool: ...


@dataclass
class Plan(ABC):
    """How an argument becomes an input: `type` is the input's type, `cost` how far
    it is from the formal (for choosing the most specific overload)."""

    type: Attribute
    cost: int = 0

    @abstractmethod
    def emit(self, b: Builder) -> SSAValue:
        """Builds the input (conversions included) at the builder's insertion point."""


@dataclass
class UseArg(Plan):
    arg: CallArg = field(default=None)  # pyright: ignore[reportAssignmentType]

    def emit(self, b: Builder) -> SSAValue:
        if self.arg.value is not None:
            return self.arg.value
        return b.constant(self.arg.constant, self.type)


@dataclass
class UseValue(Plan):
    value: SSAValue = field(default=None)  # pyright: ignore[reportAssignmentType]

    def emit(self, b: Builder) -> SSAValue:
        return self.value


@dataclass
class Repeat(Plan):
    """A single int or float given to `int[N]`."""

    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]
    count: int = 1

    def emit(self, b: Builder) -> SSAValue:
        value = self.inner.emit(b)
        return b.list_of([value] * self.count, self.type)  # pyright: ignore[reportArgumentType]


@dataclass
class ListOf(Plan):
    """Trailing positional arguments packed into a list (`zeros(2, 3)`)."""

    elements: list[Plan] = field(default_factory=list)

    def emit(self, b: Builder) -> SSAValue:
        return b.list_of([e.emit(b) for e in self.elements], self.type)  # pyright: ignore[reportArgumentType]


@dataclass
class EmptyListAs(Plan):
    """An unannotated `[]` literal given to a list of another element type."""

    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]

    def emit(self, b: Builder) -> SSAValue:
        return b.list_of([], self.type)  # pyright: ignore[reportArgumentType]


@dataclass
class TupleToList(Plan):
    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]

    def emit(self, b: Builder) -> SSAValue:
        return b.list_of(b.tuple_elements(self.inner.emit(b)), self.type)  # pyright: ignore[reportArgumentType]


@dataclass
class TupleElementsToList(Plan):
    """A tuple made a list element by element, each converted (eager calls only)."""

    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]
    converters: list[Callable[[SSAValue], Plan]] = field(default_factory=list)

    def emit(self, b: Builder) -> SSAValue:
        elements = b.tuple_elements(self.inner.emit(b))
        return b.list_of([convert(e).emit(b) for convert, e in zip(self.converters, elements)], self.type)  # pyright: ignore[reportArgumentType]


@dataclass
class TupleConvert(Plan):
    """A tuple whose elements are converted one by one."""

    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]
    converters: list[Callable[[SSAValue], Plan]] = field(default_factory=list)

    def emit(self, b: Builder) -> SSAValue:
        elements = b.tuple_elements(self.inner.emit(b))
        return b.tuple_of([convert(e).emit(b) for convert, e in zip(self.converters, elements)])


@dataclass
class Implicit(Plan):
    """An implicit conversion operator (`aten::IntImplicit`, `aten::Float`, ...)."""

    inner: Plan = field(default=None)  # pyright: ignore[reportAssignmentType]
    operator: str = ""
    node: ast.AST | None = None

    def emit(self, b: Builder) -> SSAValue:
        return b.operator(self.operator, [self.inner.emit(b)], self.node)


# --------------------------------------------------------------------------------------
# Type variables
# --------------------------------------------------------------------------------------


def match_type_variables(formal: Formal, actual: Attribute, bindings: dict[str, Attribute]) -> str | None:
    """Binds the type variables of `formal` from `actual`; the reason it cannot, or None."""
    if not isinstance(formal, SchemaType) or not formal.has_variables:
        return None
    kind = formal.kind
    if kind is TypeKind.VARIABLE:
        bound = bindings.get(formal.name)
        if bound is None:
            bindings[formal.name] = actual
            return None
        unified = unify(bound, actual)
        if unified is None:
            return f"type variable '{formal.name}' previously matched to type {type_str(bound)} is matched to type {type_str(actual)}"
        bindings[formal.name] = unified
        return None
    if kind is TypeKind.LIST:
        if isinstance(actual, ListType):
            return match_type_variables(formal.element, actual.element_type, bindings)
        if isinstance(actual, TupleType) and actual.types.data:
            element = actual.types.data[0]
            for t in actual.types.data[1:]:
                element = unify(element, t)
                if element is None:
                    return "cannot match a tuple of different element types to a list"
            return match_type_variables(formal.element, element, bindings)
        return f"cannot match {type_str(actual)} to a list"
    if kind is TypeKind.OPTIONAL:
        if isinstance(actual, OptionalType):
            return match_type_variables(formal.element, actual.element_type, bindings)
        if isinstance(actual, NoneType):
            return None
        return match_type_variables(formal.element, actual, bindings)
    if kind is TypeKind.TUPLE:
        if not isinstance(actual, TupleType) or len(actual.types) != len(formal.elements):
            return f"cannot match {type_str(actual)} to a tuple of {len(formal.elements)} elements"
        for f, a in zip(formal.elements, actual.types):
            if (reason := match_type_variables(f, a, bindings)) is not None:
                return reason
        return None
    if kind is TypeKind.GENERIC:
        if formal.name == "Dict" and isinstance(actual, DictType):
            return match_type_variables(
                formal.elements[0], actual.key_type, bindings
            ) or match_type_variables(formal.elements[1], actual.value_type, bindings)
        if formal.name == "Future" and isinstance(actual, FutureType):
            return match_type_variables(formal.element, actual.element_type, bindings)
        return f"cannot match {type_str(actual)} to {formal}"
    return None


def evaluate(formal: Formal, bindings: dict[str, Attribute]) -> Attribute | None:
    """The concrete type of `formal` under `bindings`; None if a variable is unbound."""
    if not isinstance(formal, SchemaType):
        return formal
    if any(v not in bindings for v in formal.variables()):
        return None
    return formal.substitute(bindings)


def formal_str(formal: Formal) -> str:
    return str(formal) if isinstance(formal, SchemaType) else type_str(formal)


# --------------------------------------------------------------------------------------
# One argument
# --------------------------------------------------------------------------------------


def _unwrap_optional(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, OptionalType) else t


def convertible_to_list(t: Attribute, list_type: Attribute) -> bool:
    if not isinstance(list_type, ListType):
        return False
    if is_subtype_of(t, list_type):
        return True
    return isinstance(t, TupleType) and all(is_subtype_of(e, list_type.element_type) for e in t.types)


def specificity_cost(actual: Attribute, concrete: Attribute) -> int:
    """How loosely `concrete` fits `actual` (0: exactly its type)."""
    actual, concrete = unshaped(actual), unshaped(concrete)
    if actual == concrete:
        return 0
    if isinstance(concrete, OptionalType) and not isinstance(actual, (OptionalType, NoneType)):
        return 2 + specificity_cost(actual, concrete.element_type)
    if isinstance(concrete, NumberType):
        return 3
    if isinstance(concrete, AnyType):
        return 5
    return 1


class Matcher:
    """Matches one call site; `builder` emits the chosen overload's conversions."""

    def __init__(self, builder: Builder, node: ast.AST | None):
        self.builder = builder
        self.node = node

    def convert(self, concrete: Attribute, plan: Plan, allow_conversions: bool) -> Plan:
        """TorchScript's `tryConvertToType`, as a plan."""
        if isinstance(concrete, OptionalType) and not isinstance(plan.type, (OptionalType, NoneType)):
            return self.convert(concrete.element_type, plan, allow_conversions)
        if isinstance(concrete, ListType) and self._is_empty_list_literal(plan):
            return EmptyListAs(concrete, 0, plan)
        value_type = plan.type
        if isinstance(value_type, TupleType):
            target = _unwrap_optional(concrete)
            if convertible_to_list(value_type, target) and not is_subtype_of(value_type, target):
                plan = TupleToList(target, plan.cost, plan)
            elif allow_conversions and self._takes_tensor_elements(value_type, target):
                assert isinstance(target, ListType)
                converters = [
                    functools.partial(self._convert_value, target.element_type, True)
                    for _ in value_type.types
                ]
                plan = TupleElementsToList(target, plan.cost + 1, plan, converters)
            elif (
                isinstance(concrete, TupleType)
                and not is_subtype_of(value_type, concrete)
                and len(concrete.types) == len(value_type.types)
            ):
                converters = [
                    functools.partial(self._convert_value, c, allow_conversions) for c in concrete.types
                ]
                element_types = [
                    self.convert(c, UseValue(e), allow_conversions).type
                    for c, e in zip(concrete.types, value_type.types)
                ]
                plan = TupleConvert(TupleType(element_types), plan.cost, plan, converters)  # pyright: ignore[reportArgumentType]
        if allow_conversions:
            plan = self._implicit(concrete, plan)
        return plan

    def _takes_tensor_elements(self, value_type: TupleType, target: Attribute) -> bool:
        """Python's argument parser (not TorchScript's compiler) takes 0-dim tensors as
        the ints of an `int[]` (`x.view((2, t.size(0)))` while tracing): builders of eager
        calls say so with `tensor_elements_as_numbers`."""
        return (
            getattr(self.builder, "tensor_elements_as_numbers", False)
            and isinstance(target, ListType)
            and isinstance(target.element_type, (IntType, FloatType))
            and all(
                is_subtype_of(e, target.element_type) or isinstance(e, TensorType) for e in value_type.types
            )
        )

    def _convert_value(self, concrete: Attribute, allow_conversions: bool, value: SSAValue) -> Plan:
        return self.convert(concrete, UseValue(value.type, 0, value), allow_conversions)

    def _is_empty_list_literal(self, plan: Plan) -> bool:
        return (
            isinstance(plan, UseArg)
            and plan.arg.value is not None
            and self.builder.is_empty_list_literal(plan.arg.value)
        )

    def _implicit(self, concrete: Attribute, plan: Plan) -> Plan:
        t = plan.type
        operator = None
        if isinstance(t, TensorType):
            operator = {
                FloatType: "aten::FloatImplicit", ComplexScalarType: "aten::ComplexImplicit",
                IntType: "aten::IntImplicit", NumberType: "aten::ScalarImplicit",
            }.get(type(concrete))  # fmt: skip
        elif isinstance(t, NumberType):
            operator = {
                FloatType: "aten::Float",
                ComplexScalarType: "aten::Complex",
                IntType: "aten::Int",
            }.get(type(concrete))
        elif isinstance(t, BoolType) and isinstance(concrete, NumberType):
            operator = "aten::Int"  # as TorchScript: `torch.full([2], True)` fills with the int 1
        elif isinstance(t, StrType) and isinstance(concrete, DeviceType):
            operator = "aten::device"
        if operator is None:
            return plan
        return Implicit(concrete, plan.cost + 10, plan, operator, self.node)

    def match_argument(
        self,
        param: Param,
        plan: Plan,
        allow_conversions: bool,
        bindings: dict[str, Attribute],
        errors: list[str],
    ) -> Plan | None:
        """TorchScript's `tryMatchArgument`."""
        t = plan.type
        if param.broadcast is not None and isinstance(t, (IntType, FloatType)):
            listed = _unwrap_optional(evaluate(param.type, {}) or AnyType())
            if isinstance(listed, ListType) and listed.element_type == t:
                plan = Repeat(ListType(t), plan.cost, plan, param.broadcast)  # pyright: ignore[reportArgumentType]
        if (reason := match_type_variables(param.type, plan.type, bindings)) is not None:
            errors.append(
                f"could not match type {type_str(plan.type)} to {formal_str(param.type)} in argument '{param.name}': {reason}"
            )
            return None
        concrete = evaluate(param.type, bindings)
        if concrete is None:
            errors.append(
                f"type variables in type {formal_str(param.type)} could not be inferred from actual type {type_str(plan.type)}"
            )
            return None
        converted = self.convert(concrete, plan, allow_conversions)
        if not is_subtype_of(converted.type, concrete):
            errors.append(
                f"expected a value of type '{type_str(concrete)}' for argument '{param.name}' but instead found type "
                f"'{type_str(converted.type)}'"
            )
            return None
        converted.cost += specificity_cost(plan.type, concrete)
        return converted

    def default_plan(self, param: Param, bindings: dict[str, Attribute]) -> Plan:
        """A parameter's default as a constant input (lists typed by the formal)."""
        value = param.default
        concrete = evaluate(param.type, bindings)
        target = _unwrap_optional(concrete) if concrete is not None else None
        if isinstance(value, (tuple, list)) and isinstance(target, ListType):
            value = list(value)
            if param.broadcast and len(value) == 1:
                value = value * param.broadcast
            t = target
        elif value is not None and isinstance(target, ListType) and param.broadcast:
            value, t = [value] * param.broadcast, target
        else:
            t = constant_type(value)
        return UseArg(t, 0, CallArg(None, self.node, param.name, value))


@dataclass
class Matched:
    signature: Signature
    plans: list[Plan]
    return_types: list[Attribute]
    cost: int

    def inputs(self, b: Builder) -> list[SSAValue]:
        return [p.emit(b) for p in self.plans]


class MatchFailure(Exception):
    """No candidate accepted the call; `reasons` per candidate."""

    def __init__(self, reasons: list[tuple[Signature, list[str]]]):
        super().__init__("no match")
        self.reasons = reasons


def _varargs_can_be_used_as_list(signature: Signature, index: int, param: Param) -> bool:
    is_last = index + 1 == len(signature.params) or signature.params[index + 1].kwarg_only
    formal = param.type  # a list, not an optional one (PyTorch's `varargsCanBeUsedAsList`)
    if isinstance(formal, SchemaType):
        is_list = formal.kind is TypeKind.LIST
        typevar_list = is_list and formal.element.kind is TypeKind.VARIABLE
    else:
        is_list, typevar_list = isinstance(formal, ListType), False
    return is_last and is_list and param.broadcast is None and not typevar_list


def _list_element(formal: Formal) -> Formal:
    if isinstance(formal, SchemaType):
        inner = formal.element if formal.kind is TypeKind.OPTIONAL else formal
        return inner.element
    inner_type = _unwrap_optional(formal)
    assert isinstance(inner_type, ListType)
    return inner_type.element_type


def try_match(
    matcher: Matcher,
    signature: Signature,
    args: Sequence[CallArg],
    kwargs: Sequence[CallArg],
    self_arg: CallArg | None,
    allow_conversions: bool,
    errors: list[str],
) -> Matched | None:
    """TorchScript's `tryMatchSchema`: a plan per parameter, or None (reasons in `errors`)."""
    bindings: dict[str, Attribute] = {}
    plans: list[Plan] = []
    used_kwarg = [False] * len(kwargs)
    used_args = 0
    pending_self = self_arg
    for index, param in enumerate(signature.params):
        actual: Plan
        if param.name == "self" and pending_self is not None:
            actual, pending_self = UseArg(pending_self.type, 0, pending_self), None
        elif not param.kwarg_only and used_args < len(args):
            if allow_conversions and _varargs_can_be_used_as_list(signature, index, param):
                first = args[used_args].type
                list_formal = evaluate(param.type, bindings)
                listed = _unwrap_optional(list_formal) if list_formal is not None else None
                if not isinstance(first, ListType) and not (
                    listed is not None
                    and (
                        convertible_to_list(first, listed)
                        or (isinstance(first, TupleType) and matcher._takes_tensor_elements(first, listed))
                    )
                ):
                    element = _list_element(param.type)
                    element_param = Param("<varargs>", element)
                    elements = []
                    for arg in args[used_args:]:
                        matched = matcher.match_argument(
                            element_param, UseArg(arg.type, 0, arg), True, bindings, errors
                        )
                        if matched is None:
                            return None
                        elements.append(matched)
                    element_type = evaluate(element, bindings)
                    assert element_type is not None
                    used_args = len(args)
                    plans.append(ListOf(ListType(element_type), sum(e.cost for e in elements) + 10, elements))  # pyright: ignore[reportArgumentType]
                    continue
            actual = UseArg(args[used_args].type, 0, args[used_args])
            used_args += 1
        elif (found := _find_kwarg(param.name, kwargs, signature.is_aten)) is not None:
            if used_kwarg[found]:
                errors.append(f"argument {param.name} specified twice")
                return None
            used_kwarg[found] = True
            actual = UseArg(kwargs[found].type, 0, kwargs[found])
        elif param.default is not NO_DEFAULT:
            plans.append(matcher.default_plan(param, bindings))
            continue
        else:
            errors.append(f"argument {param.name} not provided")
            return None
        matched = matcher.match_argument(param, actual, allow_conversions, bindings, errors)
        if matched is None:
            return None
        plans.append(matched)
    if pending_self is not None:
        # `x.cosh(2)` is not `cosh(2)`: a method's receiver binds to `self` or nothing.
        errors.append(f"provided self value not used in {signature.name}")
        return None
    if signature.is_vararg:
        plans.extend(UseArg(a.type, 0, a) for a in args[used_args:])
        used_args = len(args)
    if used_args < len(args):
        errors.append(f"expected at most {used_args} arguments but found {len(args)} positional arguments")
        return None
    for i, kwarg in enumerate(kwargs):
        if not used_kwarg[i]:
            known = any(p.name == kwarg.name for p in signature.params)
            errors.append(f"keyword argument {kwarg.name} {'specified twice' if known else 'unknown'}")
            return None
    return_types = []
    for r in signature.returns:
        t = evaluate(r, bindings)
        if t is None:
            errors.append(f"return type {formal_str(r)} has unbound type variables")
            return None
        return_types.append(t)
    return Matched(signature, plans, return_types, sum(p.cost for p in plans))


def _find_kwarg(name: str, kwargs: Sequence[CallArg], is_aten: bool) -> int | None:
    for i, kwarg in enumerate(kwargs):
        if kwarg.name == name or (is_aten and name == "self" and kwarg.name == "input"):
            return i
    return None


def match_signatures(
    matcher: Matcher,
    signatures: Sequence[Signature],
    args: Sequence[CallArg],
    kwargs: Sequence[CallArg],
    self_arg: CallArg | None = None,
    choices: dict[tuple[object, ...], Choice] | None = None,
) -> tuple[int, Matched]:
    """The index and match of the signature a call selects: without implicit conversions
    first, then with them (one candidate: with them straight away), the most specific
    among those that match in a pass. Raises MatchFailure.

    Only signatures whose parameters the call's arity can fill are tried (a failing
    call tries them all, for the message). The choice depends only on the arguments'
    types (and which are unannotated `[]` literals); with a `choices` memo (kept as long
    as the signatures live) a call like one seen before replays the choice: the chosen
    signature's inputs straight from the arguments and defaults, or, when it converts
    arguments, its matching alone."""
    key = _choice_key(signatures, args, kwargs, self_arg, matcher.builder)
    known = choices.get(key) if choices is not None else None
    if known is not None:
        return known.index, known.replay(matcher, signatures[known.index], args, kwargs, self_arg)
    arity = (len(args), tuple(k.name for k in kwargs), self_arg is not None)
    candidates = [i for i, s in enumerate(signatures) if s.may_take(*arity)] if len(signatures) > 1 else [0]
    try:
        index, matched, allow_conversions = _match_first_pass(matcher, signatures, candidates, args, kwargs, self_arg)
    except MatchFailure:
        if len(candidates) == len(signatures):
            raise
        _match_first_pass(matcher, signatures, range(len(signatures)), args, kwargs, self_arg)  # raises, with every reason
        raise AssertionError("a signature the arity excluded matched") from None
    if choices is not None:
        choices[key] = Choice.of(index, allow_conversions, matched, args, kwargs, self_arg)
    return index, matched


def _match_first_pass(
    matcher: Matcher,
    signatures: Sequence[Signature],
    candidates: Sequence[int],
    args: Sequence[CallArg],
    kwargs: Sequence[CallArg],
    self_arg: CallArg | None,
) -> tuple[int, Matched, bool]:
    passes = (True,) if len(signatures) == 1 else (False, True)
    reasons: list[tuple[Signature, list[str]]] = []
    for allow_conversions in passes:
        reasons = []
        best: tuple[int, Matched] | None = None
        for index in candidates:
            signature = signatures[index]
            errors: list[str] = []
            matched = try_match(matcher, signature, args, kwargs, self_arg, allow_conversions, errors)
            if matched is None:
                reasons.append((signature, errors))
            elif best is None or matched.cost < best[1].cost:
                best = (index, matched)
        if best is not None:
            return best[0], best[1], allow_conversions
    raise MatchFailure(reasons)


@dataclass(frozen=True)
class Choice:
    """A remembered overload choice. `inputs` says where each input of the chosen
    signature comes from when no argument is converted: ("arg", i), ("kwarg", i),
    ("self", 0) or ("default", value), each with the input's type; None when
    conversions make the inputs, which are then matched again."""

    index: int
    allow_conversions: bool
    inputs: tuple[tuple[str, object, Attribute], ...] | None
    return_types: tuple[Attribute, ...]

    @staticmethod
    def of(index: int, allow_conversions: bool, matched: Matched, args: Sequence[CallArg],
           kwargs: Sequence[CallArg], self_arg: CallArg | None) -> Choice:  # fmt: skip
        sources = input_sources(matched, args, kwargs, self_arg)
        return Choice(index, allow_conversions, sources, tuple(matched.return_types))

    def replay(self, matcher: Matcher, signature: Signature, args: Sequence[CallArg], kwargs: Sequence[CallArg],
               self_arg: CallArg | None) -> Matched:  # fmt: skip
        if self.inputs is None:
            matched = try_match(matcher, signature, args, kwargs, self_arg, self.allow_conversions, [])
            assert matched is not None, "a remembered overload choice no longer matches"
            return matched
        plans: list[Plan] = []
        for kind, where, t in self.inputs:
            if kind == "default":
                plans.append(UseArg(t, 0, CallArg(None, matcher.node, None, where)))
            else:
                arg = args[where] if kind == "arg" else kwargs[where] if kind == "kwarg" else self_arg  # pyright: ignore[reportArgumentType, reportCallIssue]
                plans.append(UseArg(t, 0, arg))  # pyright: ignore[reportArgumentType]
        return Matched(signature, plans, list(self.return_types), 0)


def input_sources(matched: Matched, args: Sequence[CallArg], kwargs: Sequence[CallArg],
                  self_arg: CallArg | None) -> tuple[tuple[str, object, Attribute], ...] | None:  # fmt: skip
    """Where each input of a match comes from, with its type (see `Choice`); None when
    an input is a conversion."""
    sources: list[tuple[str, object, Attribute]] = []
    for plan in matched.plans:
        source = _source_of(plan, args, kwargs, self_arg)
        if source is None:
            return None
        sources.append((*source, plan.type))
    return tuple(sources)


def _source_of(plan: Plan, args: Sequence[CallArg], kwargs: Sequence[CallArg],
               self_arg: CallArg | None) -> tuple[str, object] | None:  # fmt: skip
    """Where an unconverted input comes from (see `Choice`); None for a conversion."""
    if type(plan) is not UseArg:
        return None
    arg = plan.arg
    if arg is self_arg:
        return ("self", 0)
    for kind, group in (("arg", args), ("kwarg", kwargs)):
        for i, candidate in enumerate(group):
            if candidate is arg:
                return (kind, i)
    if arg.value is None:  # a parameter's default
        return ("default", arg.constant)
    return None


def _choice_key(
    signatures: Sequence[Signature],
    args: Sequence[CallArg],
    kwargs: Sequence[CallArg],
    self_arg: CallArg | None,
    builder: Builder,
) -> tuple[object, ...]:
    def describe(arg: CallArg) -> tuple[object, ...]:
        empty_literal = arg.value is not None and builder.is_empty_list_literal(arg.value)
        return (arg.name, arg.type, empty_literal)

    return (
        tuple(map(id, signatures)),  # signatures are made once per overload and kept
        tuple(describe(a) for a in args),
        tuple(describe(a) for a in kwargs),
        None if self_arg is None else describe(self_arg),
    )


def failure_report(what: str, failure: MatchFailure, arg_types: Sequence[Attribute]) -> tuple[str, list[str]]:
    """A diagnostic's message and notes: with several candidates, the call's argument
    types, then every candidate with why it refused them, one per line as PyTorch's
    "The following variants are available" lists them (`out=` overloads last)."""
    if len(failure.reasons) == 1:
        return describe_failure(what, failure, arg_types), []
    types = ", ".join(type_str(t) for t in arg_types)
    notes = ["The following variants are available:"]
    for signature, errors in sorted(failure.reasons, key=lambda r: r[0].writes_out):
        notes += [f"  {signature}:", f"    {errors[-1] if errors else 'does not match'}"]
    return f"arguments for call to {what} are not valid: ({types}) match no overload", notes


def describe_failure(what: str, failure: MatchFailure, arg_types: Sequence[Attribute], limit: int = 4) -> str:
    """One line: the call's argument types and why each candidate refused them."""
    types = ", ".join(type_str(t) for t in arg_types)
    if len(failure.reasons) == 1:
        signature, errors = failure.reasons[0]
        reason = errors[-1] if errors else "arguments do not match"
        return f"{what}: {reason} (schema: {signature})"
    reasons = sorted(failure.reasons, key=lambda r: r[0].writes_out)
    shown = [f"{s} ({e[-1] if e else 'does not match'})" for s, e in reasons[:limit]]
    more = len(reasons) - limit
    suffix = f"; and {more} more" if more > 0 else ""
    return (
        f"arguments for call to {what} are not valid: ({types}) match no overload; candidates: "
        + "; ".join(shown)
        + suffix
    )
