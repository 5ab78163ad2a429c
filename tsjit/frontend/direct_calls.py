"""Builtin calls whose overload the argument types alone decide, built without matching.

A program calls the same few operators on the same types over and over (`x * 2 + y`
a thousand times). The first call of a *shape* (operator, the arguments' types and
keyword names) goes through overload resolution (`schema_matching`); when the overload
it selects is a schema operator that takes every argument as it is (no implicit
conversion, at most parameter defaults added), the outcome is kept as a `DirectCall`,
and each later call of that shape builds the op from its arguments with one dictionary
lookup, instead of the ~20 calls of matching, replaying and generic op construction.

Calls with an argument that is a Python constant not yet materialized (a default
passed along) or the literal `[]` (whose type depends on the parameter it meets) have
no shape: they always go through matching.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue

from tsjit.dialects.constant_values import constant_attr
from tsjit.dialects.op_building import build_op
from tsjit.dialects.prim import ConstantOp
from tsjit.dialects.types import ListType
from tsjit.frontend.schema_matching import CallArg, Matched, input_sources

if TYPE_CHECKING:
    from tsjit.frontend.emitter import FunctionEmitter

Shape = tuple[object, ...]

_SELF = -1
_DEFAULT = -2


@dataclass(frozen=True, slots=True)
class DirectCall:
    """How to build a call of one shape: `inputs` holds, per input of the op, the index
    of the positional argument it is, or `_SELF`, or `_DEFAULT` with the default's
    constant (its value attribute, made once) and type, or `(name, kwarg index)`."""

    op_class: type[Operation]
    inputs: tuple[tuple[object, object, Attribute | None], ...]
    result_types: tuple[Attribute, ...]
    return_names: tuple[str, ...] | None
    positional: bool
    """Whether the inputs are the positional arguments, in order (most calls)."""


def call_shape(operator: str, overload: str | None, args: Sequence[CallArg], kwargs: Sequence[CallArg],
               self_arg: CallArg | None, empty_literals: set[SSAValue]) -> Shape | None:  # fmt: skip
    """What the overload choice of a call depends on; None for calls that always match."""
    shape: list[object] = [operator, overload]
    append = shape.append
    for group in ((self_arg,) if self_arg is not None else (), args, kwargs):
        for arg in group:
            value = arg.value
            if value is None or (empty_literals and value in empty_literals):
                return None
            append(arg.name)
            append(value.type)
        append(None)
    return tuple(shape)


def direct_call(op_class: type[Operation], matched: Matched, args: Sequence[CallArg], kwargs: Sequence[CallArg],
                self_arg: CallArg | None) -> DirectCall | None:  # fmt: skip
    """The `DirectCall` replaying a match, or None when the match converts an argument."""
    sources = input_sources(matched, args, kwargs, self_arg)
    if sources is None:
        return None
    inputs: list[tuple[object, object, Attribute | None]] = []
    for kind, where, type in sources:
        if kind == "arg":
            inputs.append((where, None, None))
        elif kind == "self":
            inputs.append((_SELF, None, None))
        elif kind == "kwarg":
            inputs.append(("kwarg", where, None))
        elif type is None:
            return None
        else:  # the attribute `FunctionEmitter.constant` makes of the default
            value = list(where) if isinstance(where, tuple) and isinstance(type, ListType) else where
            inputs.append((_DEFAULT, constant_attr(value, type), type))
    positional = len(inputs) == len(args) and all(where == index for index, (where, _, _) in enumerate(inputs))
    return DirectCall(op_class, tuple(inputs), tuple(matched.return_types), matched.signature.return_names,
                      positional)  # fmt: skip


def emit_direct_call(em: FunctionEmitter, call: DirectCall, node: object, args: Sequence[CallArg],
                     kwargs: Sequence[CallArg], self_arg: CallArg | None) -> SSAValue:  # fmt: skip
    """The call's op, its defaults' constants first (as matching emits them)."""
    if call.positional:
        inputs: list[SSAValue] = [arg.value for arg in args]  # pyright: ignore[reportAssignmentType]
    else:
        inputs = []
        for where, value, type in call.inputs:
            if where.__class__ is int:
                if where >= 0:
                    inputs.append(args[where].value)  # pyright: ignore[reportArgumentType, reportIndexIssue]
                elif where == _SELF:
                    inputs.append(self_arg.value)  # pyright: ignore[reportOptionalMemberAccess, reportArgumentType]
                else:
                    inputs.append(em.insert(ConstantOp(value, type)).results[0])  # pyright: ignore[reportArgumentType]
            else:
                inputs.append(kwargs[value].value)  # pyright: ignore[reportArgumentType, reportCallIssue, reportIndexIssue]
    op = em.insert(build_op(call.op_class, inputs, call.result_types), node)  # pyright: ignore[reportArgumentType]
    results = op.results
    if len(results) == 1:
        (result,) = results
        return result
    return em.pack_outputs(list(results), call.return_names)
