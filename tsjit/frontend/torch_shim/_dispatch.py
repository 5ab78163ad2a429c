"""Eager operators: a call resolved against the schema table, run by the interpreter's kernel.

`torch.add(x, y, alpha=2)`, `x.view(3, 4)` and `x + 1` are calls of TorchScript
operators. A call is matched against the operator's overloads exactly as the script
frontend matches one (`schema_matching`: keyword arguments, defaults, implicit
conversions, varargs packed into lists), with each argument typed from its Python kind
(a Tensor is `Tensor`, a dtype an `int`, a tuple of ints a `Tuple[int, int]`, ...). The
match is planned once per operator and argument kinds: the plan — which kernel, and how
each of its inputs is built from the call's arguments — is compiled into a small Python
function, and later calls with the same kinds run it straight away (`Dispatcher.fast`:
one dict lookup keyed by the arguments' types). The first kinds an operator's function
is called with (and its first keyword form) are compiled into the function itself, their
positional arguments parameters of its own, so that the common call (`x.sum(1)`,
`x + y`) runs the kernel with no lookup, no packing of arguments and no second Python
frame: what the shim adds to the kernel is then a few type checks and the Tensor
wrapper. `bound_call` compiles a plan into another function so (`x[i]`).

A call on a tensor that requires grad (in grad mode) is recorded by the runtime's
autograd (`autograd.recording`). Whether or not anything requires grad, a write counts
the version of the tensor written and a view op's result remembers its base, as
PyTorch's do: a backward checks the first, a later write through the view needs the
second. Both are inline on the common path (a view of a tensor that is no view), and
a version counter is made only when a tensor is first written or saved.

While a trace is recorded (`_state.ACTIVE.tracer`), every call takes the planned path
and the tracer records the plan's inputs as graph values (`Entry.inputs`), so the
graph holds exactly the nodes the frontend would have emitted for the same call.
"""

from __future__ import annotations

import builtins
import collections
import functools
import itertools
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from tsjit.dialects.schema import FunctionSchema, resolve_overload, schemas_for
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ComplexScalarType,
    DeviceType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    unify,
)
from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.frontend.torch_shim._tensor import EnumValue, Generator, Size, Tensor, device, dtype, wrap
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import Device

# --------------------------------------------------------------------------------------
# Argument kinds: what a Python value is to schema matching
# --------------------------------------------------------------------------------------

Kind = Any
"""A Python type (for scalars and tensors) or `(list | tuple | Size, element kinds)`."""


@dataclass(frozen=True)
class ScalarKind:
    """How values of one Python type enter a kernel: their TorchScript type, the source
    converting one (`{}` is the value), and whether it is a tensor."""

    type: Attribute
    convert: str = "{}"
    is_tensor: bool = False


_TENSOR = ScalarKind(TensorType(), "{}.array", True)
SCALAR_KINDS: dict[type, ScalarKind] = {
    Tensor: _TENSOR,
    np.ndarray: ScalarKind(TensorType(), "{}", True),
    bool: ScalarKind(BoolType()),
    int: ScalarKind(IntType()),
    float: ScalarKind(FloatType()),
    complex: ScalarKind(ComplexScalarType()),
    str: ScalarKind(StrType()),
    type(None): ScalarKind(NoneType()),
    dtype: ScalarKind(IntType(), "{}.code"),
    EnumValue: ScalarKind(IntType(), "{}.code"),
    device: ScalarKind(DeviceType(), "_device({})"),
    Generator: ScalarKind(NoneType(), "None"),  # the runtime's kernels take no generator
    Device: ScalarKind(DeviceType()),
}
"""Kinds by exact Python type; subclasses are added on first sight (`scalar_kind`)."""


def scalar_kind(cls: type) -> ScalarKind | None:
    known = SCALAR_KINDS.get(cls)
    if known is not None:
        return known
    found: ScalarKind | None = None
    if issubclass(cls, Tensor):
        found = _TENSOR
    elif issubclass(cls, np.ndarray):
        found = SCALAR_KINDS[np.ndarray]
    elif issubclass(cls, (bool, np.bool_)):
        found = ScalarKind(BoolType(), "bool({})")
    elif issubclass(cls, (int, np.integer)):
        found = ScalarKind(IntType(), "int({})")
    elif issubclass(cls, (float, np.floating)):
        found = ScalarKind(FloatType(), "float({})")
    elif issubclass(cls, str):
        found = ScalarKind(StrType(), "str({})")
    elif cls.__name__ == "dtype" and cls.__module__ == "torch":  # a real torch dtype (interop)
        found = ScalarKind(IntType(), "_torch_dtype_code({})")
    if found is not None:
        SCALAR_KINDS[cls] = found
    return found


def kind_of(value: object) -> Kind:
    cls = type(value)
    if cls is list:
        return (list, tuple([kind_of(v) for v in value]))  # pyright: ignore[reportGeneralTypeIssues]
    if cls is tuple or cls is Size or (cls not in SCALAR_KINDS and isinstance(value, tuple)):
        return (Size if cls is Size else tuple, tuple([kind_of(v) for v in value]))  # pyright: ignore[reportGeneralTypeIssues]
    return cls


def kind_type(kind: Kind) -> Attribute:
    """The TorchScript type of a kind: containers of 0-dim int tensors in a Size (or
    mixed with ints in a list), as traced sizes are, are lists of ints."""
    if type(kind) is tuple:
        container, elements = kind
        types = [kind_type(e) for e in elements]
        if container is not list:
            if container is Size:
                types = [IntType() if isinstance(t, TensorType) else t for t in types]
            return TupleType(types)  # pyright: ignore[reportArgumentType]
        if not types:
            return ListType(TensorType())
        element = types[0]
        for t in types[1:]:
            joined = unify(element, t)
            if joined is None and {type(element), type(t)} <= {IntType, TensorType}:
                joined = IntType()  # sizes read while tracing, mixed with ints
            element = joined if joined is not None else AnyType()
        return ListType(element)  # pyright: ignore[reportArgumentType]
    found = scalar_kind(kind)
    if found is None:
        raise TypeError(f"a value of type '{kind.__name__}' cannot be an operator argument")
    return found.type


# --------------------------------------------------------------------------------------
# Plans: what each kernel input is made of (stand-ins for SSA values while matching)
# --------------------------------------------------------------------------------------


class Ref:
    """A kernel input as schema matching builds it; `type` as an SSA value's."""

    type: Attribute


@dataclass(eq=False)
class ArgRef(Ref):
    """Argument `root` of the call (positional ones, then keyword values), or an element
    of it (`path`)."""

    root: int
    kind: Kind
    type: Attribute
    path: tuple[int, ...] = ()

    def element(self, index: int) -> ArgRef:
        container_type = self.type
        element_type = (
            container_type.types.data[index]  # pyright: ignore[reportAttributeAccessIssue]
            if isinstance(container_type, TupleType)
            else container_type.element_type  # pyright: ignore[reportAttributeAccessIssue]
        )
        return ArgRef(self.root, self.kind[1][index], element_type, (*self.path, index))


@dataclass(eq=False)
class ConstRef(Ref):
    value: object
    type: Attribute


@dataclass(eq=False)
class CallRef(Ref):
    """An implicit conversion (`aten::IntImplicit` of a 0-dim tensor, `aten::Int`, ...)."""

    operator: str
    schema: FunctionSchema
    kernel: Callable[..., Any]
    operands: list[Ref]
    type: Attribute


@dataclass(eq=False)
class ListRef(Ref):
    elements: list[Ref]
    type: Attribute


@dataclass(eq=False)
class TupleRef(Ref):
    elements: list[Ref]
    type: Attribute


@dataclass(eq=False)
class ItemRef(Ref):
    of: Ref
    index: int
    type: Attribute


class Planner:
    """The `Builder` of schema matching, building Refs instead of IR."""

    tensor_elements_as_numbers = True
    """Python's argument parser takes a 0-dim tensor in an `int[]` (a traced size)."""

    def constant(self, value: object, type: Attribute | None = None, node: object = None) -> Ref:
        from tsjit.frontend.schema_matching import constant_type

        if isinstance(value, tuple) and isinstance(type, ListType):
            value = list(value)
        return ConstRef(value, type if type is not None else constant_type(value))

    def operator(self, name: str, operands: Sequence[Ref], node: object = None) -> Ref:
        schema = resolve_overload(name, [o.type for o in operands])
        if schema is None:
            raise TypeError(f"no overload of {name} converts ({', '.join(str(o.type) for o in operands)})")
        kernel = kernel_of(name, schema)
        return CallRef(name, schema, kernel, list(operands), schema.returns[0].type)

    def list_of(self, elements: Sequence[Ref], list_type: ListType, node: object = None) -> Ref:
        return ListRef(list(elements), list_type)

    def tuple_of(self, elements: Sequence[Ref], node: object = None, tuple_type: object = None) -> Ref:
        return TupleRef(list(elements), TupleType([e.type for e in elements]))  # pyright: ignore[reportArgumentType]

    def tuple_elements(self, value: Ref) -> list[Ref]:
        if isinstance(value, TupleRef):
            return list(value.elements)
        types = value.type.types.data  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(value, ArgRef):
            return [value.element(i) for i in range(len(types))]
        return [ItemRef(value, i, t) for i, t in enumerate(types)]

    def is_empty_list_literal(self, value: Ref) -> bool:
        return isinstance(value, ArgRef) and value.kind == (list, ())


# --------------------------------------------------------------------------------------
# Entries: one planned call, compiled
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class Entry:
    """A call planned for one operator and argument kinds: `run(*args, *kwarg_values)`
    runs the kernel; `inputs`, `returns` and `operator` are what the tracer records."""

    operator: str  # the node kind: "aten::add" (normalized, as the frontend emits it)
    schema: FunctionSchema
    inputs: list[Ref]
    returns: list[Attribute]
    run: Callable[..., Any] = field(repr=False, default=None)  # pyright: ignore[reportAssignmentType]
    kernel: Callable[..., Any] = field(repr=False, default=None)  # pyright: ignore[reportAssignmentType]
    self_returned: tuple[int | None, ...] = ()  # per result: the argument it is (in-place ops)


class MissingKernel(RuntimeError):
    """The schema table knows the overload, tsjit's runtime has no kernel for it."""

    def __init__(self, schema: FunctionSchema):
        super().__init__(f"tsjit's runtime has no kernel for {schema}")
        self.schema = schema


def kernel_of(operator: str, schema: FunctionSchema) -> Callable[..., Any]:
    from tsjit.frontend.builtins import NORMALIZED_OPERATORS

    from tsjit.runtime import kernels  # imported on the first call planned: importing the shim stays light

    name = NORMALIZED_OPERATORS.get(operator, operator)
    overload = f"{name}.{schema.overload_name}" if schema.overload_name else name
    kernel = kernels.lookup(overload)
    if kernel is None:
        return _missing(schema)
    return kernel


def _missing(schema: FunctionSchema) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        raise MissingKernel(schema)

    return fail


def plan(operator: str, python_name: str, kinds: Sequence[Kind], names: Sequence[str], method: bool,
         overload: str | None = None) -> Entry:  # fmt: skip
    """Matches a call with arguments of `kinds` (positional ones, then the keyword ones
    named `names`) against `operator`'s schemas (its `overload` only, when named); a
    TypeError naming the call when none accepts them."""
    try:
        return _plan(operator, python_name, kinds, names, method, overload, kind_type)
    except TypeError:
        if not any(_has_int(k) for k in kinds):
            raise
        try:  # Python accepts an int where a float is expected (`F.dropout(x, 0)`): a Scalar
            return _plan(operator, python_name, kinds, names, method, overload, _int_as_scalar)
        except TypeError:
            pass
        raise


def _has_int(kind: Kind) -> bool:
    if type(kind) is tuple:
        return any(_has_int(k) for k in kind[1])
    return kind is int


def _int_as_scalar(kind: Kind) -> Attribute:
    return NumberType() if kind is int else kind_type(kind)


def _plan(operator: str, python_name: str, kinds: Sequence[Kind], names: Sequence[str], method: bool,
          overload: str | None, typing: Callable[[Kind], Attribute]) -> Entry:  # fmt: skip
    from tsjit.frontend.builtins import NORMALIZED_OPERATORS
    from tsjit.frontend.schema_matching import (
        CallArg,
        Matcher,
        MatchFailure,
        describe_failure,
        match_signatures,
        operator_signature,
        operator_signatures,
    )

    refs = [ArgRef(i, kind, typing(kind)) for i, kind in enumerate(kinds)]
    positional = len(kinds) - len(names)
    call_args = [CallArg(r) for r in refs[:positional]]  # pyright: ignore[reportArgumentType]
    call_kwargs = [CallArg(r, None, n) for r, n in zip(refs[positional:], names)]  # pyright: ignore[reportArgumentType]
    self_arg = None
    if method:
        self_arg, call_args = call_args[0], call_args[1:]
    schema_of_signature = {id(operator_signature(s)): s for s in schemas_for(operator)}
    signatures = [
        s for s in operator_signatures(operator)
        if overload is None or schema_of_signature[id(s)].overload_name == overload
    ]  # fmt: skip
    if not signatures:
        raise TypeError(f"{python_name} is not an operator tsjit knows ({operator})")
    planner = Planner()
    try:
        index, matched = match_signatures(Matcher(planner, None), signatures, call_args, call_kwargs, self_arg)  # pyright: ignore[reportArgumentType]
    except MatchFailure as failure:
        message = describe_failure(python_name, failure, [r.type for r in refs])
        raise TypeError(message) from None
    schema = schema_of_signature[id(signatures[index])]
    inputs: list[Ref] = matched.inputs(planner)  # pyright: ignore[reportAssignmentType]
    entry = Entry(NORMALIZED_OPERATORS.get(operator, operator), schema, inputs, list(matched.return_types))
    entry.self_returned = _returned_arguments(schema, inputs)
    entry.kernel = kernel_of(operator, schema)
    entry.run = compile_entry(entry, entry.kernel, len(kinds))
    return entry


def _returned_arguments(schema: FunctionSchema, inputs: Sequence[Ref]) -> tuple[int | None, ...]:
    """For each result, the call argument an in-place op returns (`x.add_(y)` is `x`)."""
    returned: list[int | None] = []
    for result in schema.returns:
        info = result.alias_info
        found = None
        if info is not None and info.is_write:
            for i, argument in enumerate(schema.arguments):
                a = argument.alias_info
                if a is not None and a.is_write and a.before_sets == info.before_sets and i < len(inputs):
                    ref = inputs[i]
                    if isinstance(ref, ArgRef) and not ref.path:
                        found = ref.root
                    break
        returned.append(found)
    return tuple(returned)


# --------------------------------------------------------------------------------------
# Compiling a plan to Python
# --------------------------------------------------------------------------------------


_NAME_NUMBERS = itertools.count()
"""Numbers the names plans use, across plans: an operator's function inlines two plans."""


class _Source:
    """Python source for a plan's inputs; constants and callees become names. With
    `keep_tensors`, tensors stay Tensors (the inputs of a call that records gradients)."""

    def __init__(self, keep_tensors: bool = False) -> None:
        self.keep_tensors = keep_tensors
        self.names: dict[str, object] = {
            "_device": _runtime_device, "_torch_dtype_code": _torch_dtype_code, "_wrap": wrap, "_new": object.__new__,
            "_Tensor": Tensor,
        }  # fmt: skip
        self.counter = _NAME_NUMBERS

    def name(self, value: object, prefix: str) -> str:
        name = f"{prefix}{next(self.counter)}"
        self.names[name] = value
        return name

    def of(self, ref: Ref) -> str:
        if isinstance(ref, ArgRef):
            access = f"a{ref.root}" + "".join(f"[{i}]" for i in ref.path)
            return self.converted(access, ref.kind, ref.type)
        if isinstance(ref, ConstRef):
            if isinstance(ref.value, (bool, int, float, str, type(None))) and not isinstance(ref.value, float):
                return repr(ref.value)
            name = self.name(ref.value, "c")
            return f"list({name})" if isinstance(ref.value, list) else name
        if isinstance(ref, CallRef):  # a conversion's kernel takes arrays, as every kernel does
            callee = self.name(ref.kernel, "k")
            keep, self.keep_tensors = self.keep_tensors, False
            try:
                return f"{callee}({', '.join(self.of(o) for o in ref.operands)})"
            finally:
                self.keep_tensors = keep
        if isinstance(ref, ListRef):
            return "[" + ", ".join(self.of(e) for e in ref.elements) + "]"
        if isinstance(ref, TupleRef):
            return "(" + "".join(f"{self.of(e)}, " for e in ref.elements) + ")"
        assert isinstance(ref, ItemRef)
        return f"{self.of(ref.of)}[{ref.index}]"

    def converted(self, access: str, kind: Kind, target: Attribute) -> str:
        if type(kind) is tuple:
            container, elements = kind
            if isinstance(target, TupleType):
                targets = list(target.types.data)
            else:
                element = target.element_type if isinstance(target, ListType) else AnyType()
                targets = [element] * len(elements)
            parts = [self.converted(f"{access}[{i}]", k, t) for i, (k, t) in enumerate(zip(elements, targets))]
            if container is list or isinstance(target, ListType):
                return "[" + ", ".join(parts) + "]"
            return "(" + "".join(f"{p}, " for p in parts) + ")"
        found = scalar_kind(kind)
        assert found is not None
        if found.is_tensor and self.keep_tensors and not isinstance(target, (IntType, FloatType)):
            return access
        source = found.convert.format(access)
        if found.is_tensor and isinstance(target, (IntType, FloatType)):
            from tsjit.runtime import kernels

            implicit = "aten::IntImplicit" if isinstance(target, IntType) else "aten::FloatImplicit"
            kernel = kernels.lookup(implicit)
            return f"{self.name(kernel, 'k')}({source})"
        return source


def compile_entry(entry: Entry, kernel: Callable[..., Any], arity: int,
                  guard: tuple[tuple[Kind, ...], Callable[..., Any]] | None = None) -> Callable[..., Any]:  # fmt: skip
    """The plan as one Python function of the call's arguments. With a `guard` (the
    call's kinds, and what runs calls of other kinds), it first checks its containers'
    lengths and element types: a list argument is then dispatched by the function
    itself, without a switch on its elements in front."""
    source = _Source()
    callee = source.name(kernel, "kernel")
    call = f"{callee}({', '.join(source.of(r) for r in entry.inputs)})"
    params = ", ".join(f"a{i}" for i in range(arity))
    results = _result_expressions(entry, "r")
    if len(results) == 1 and results[0] == "_wrap(r)":  # the common case, with `wrap` inlined
        body = f"    t = _new(_Tensor)\n    t.array = {call}\n    return t\n"
    elif len(results) == 1:
        body = f"    r = {call}\n    return {results[0]}\n" if results[0] != "r" else f"    return {call}\n"
    elif not results:
        body = f"    {call}\n    return None\n"
    else:
        unpacked = ", ".join(f"r{i}" for i in range(len(results)))
        returned = ", ".join(_result_expressions(entry, "r", unpacked=True))
        names = tuple(r.name for r in entry.schema.returns)
        if all(names) and len(names) == len(results):  # `x.max(1).values`: torch.return_types.max
            body = f"    {unpacked}, = {call}\n    return {source.name(return_type(entry.schema.name, names), 'R')}({returned})\n"
        else:
            body = f"    {unpacked}, = {call}\n    return ({returned},)\n"
    tensors = _tensor_accesses(entry.inputs)
    view = bool(tensors) and _single_view(entry) and body.startswith("    t = _new(_Tensor)\n")
    if view:  # a view remembers its base even when nothing requires grad: a later write through it reaches the base
        # the arguments bound as defaults: a closure would make them cells on every call
        bound = "".join(f", a{i}=a{i}" for i in range(1, arity))
        replay = f"lambda array{bound}: {callee}(array, {', '.join(source.of(r) for r in entry.inputs[1:])})"
        mark = source.name(_view_marker(), "mark")
        # a view of a tensor that is no view, whose array the result's numpy base is, is
        # marked in place (`mark_view` of a root base, without the frame); the rest
        # (views of views, results that may be copies) by `mark_view_if_shared`
        body = (
            f"    r = {call}\n    t = _new(_Tensor)\n    t.array = r\n"
            f"    if a0._base is None and ((b := r.base) is (s := a0.array) or b is not None and b is s.base):\n"
            f"        t._base = a0\n        t._view_fn = {replay}\n"
            f"        if a0._version is not None:\n            t._view_version = a0._version[0]\n"
            f"    else:\n        {mark}(t, a0, {replay})\n    return t\n"
        )
    written = _written_arguments(entry)
    if tensors and written:  # an in-place write counts a version whether or not anything requires grad yet
        counter = source.name(_version_counter(), "counter")  # `views.bump_version` of a tensor, inline
        body = "".join(
            f"    v = a{root}._version\n    if v is None:\n        v = {counter}(a{root})\n    v[0] += 1\n"
            for root in written
        ) + body
    if tensors and not view and not written and _tracked(entry.schema):
        # a view of several results remembers its base, a write of what is not a plain
        # argument counts its version, whether or not anything requires grad yet
        body = f"    return {source.name(_recorder(entry, kernel, arity), 'record')}({params})\n"
    elif tensors:  # PyTorch's autograd: a call on a tensor that requires grad records it
        # as `autograd.requires_grad`: a view counts when its base has come to require grad
        # (written in place through another view by a value that requires grad)
        check = " or ".join(f"{t}.requires_grad or {t}._base is not None and {t}._base.requires_grad" for t in tensors)
        recorder = source.name(_recorder(entry, kernel, arity), "record")
        enabled = source.name(_grad_enabled(), "enabled")
        body = f"    if ({check}) and {enabled}():\n        return {recorder}({params})\n{body}"
    if guard is not None:
        kinds, fallback = guard
        checks = [c for i, kind in enumerate(kinds) for c in _element_checks(f"a{i}", kind, source)]
        body = f"    if not ({' and '.join(checks)}):\n        return {source.name(fallback, 'other')}({params})\n{body}"
    text = f"def run({params}):\n{body}"
    namespace = dict(source.names)
    exec(compile(text, f"<eager {entry.schema.qualified_name}>", "exec"), namespace)  # noqa: S102 - generated from the plan
    run = namespace["run"]
    run.source = text  # pyright: ignore[reportFunctionMemberAccess]
    run.body = body  # pyright: ignore[reportFunctionMemberAccess]
    run.names = source.names  # pyright: ignore[reportFunctionMemberAccess]
    return run


def _single_view(entry: Entry) -> bool:
    """Whether the call returns one tensor that may be a view of its first argument,
    a tensor passed as it is (`detach` shares memory but is no view autograd follows)."""
    from tsjit.frontend.symbolic_gradients import is_non_differentiable

    schema = entry.schema
    first = entry.inputs[0] if entry.inputs else None
    return (
        not schema.mutated_arguments() and len(schema.returns) == 1 and 0 in schema.aliased_arguments(0)
        and isinstance(first, ArgRef) and first.root == 0 and not first.path
        and isinstance(first.kind, type) and issubclass(first.kind, Tensor) and not is_non_differentiable(schema)
    )  # fmt: skip


def _written_arguments(entry: Entry) -> tuple[int, ...]:
    """The call's arguments (by position) the operator writes, when each is a tensor
    passed as it is; () when it writes none or another kind of value."""
    roots = []
    for i in entry.schema.mutated_arguments():
        ref = entry.inputs[i] if i < len(entry.inputs) else None
        if not (isinstance(ref, ArgRef) and not ref.path and isinstance(ref.kind, type) and issubclass(ref.kind, Tensor)):
            return ()
        roots.append(ref.root)
    return tuple(roots)


def _version_counter() -> Callable[[Any], list[int]]:
    from tsjit.runtime.autograd.variable import version_counter

    return version_counter


def _view_marker() -> Callable[..., None]:
    from tsjit.runtime.autograd.views import mark_view_if_shared

    return mark_view_if_shared


def _tracked(schema: FunctionSchema) -> bool:
    """Whether eager calls of the operator go through autograd's recording even when
    nothing requires grad: those that write an argument or return views of their first
    (`compile_entry` runs the common cases, a write of a tensor argument and a single
    view, directly)."""
    from tsjit.frontend.symbolic_gradients import is_non_differentiable

    if schema.mutated_arguments():
        return True
    if is_non_differentiable(schema):
        return False
    return bool(schema.arguments) and any(0 in schema.aliased_arguments(k) for k in range(len(schema.returns)))


def _element_checks(access: str, kind: Kind, source: _Source) -> list[str]:
    """Source checking that the container at `access` (the call's top-level argument,
    whose own type the caller has checked) has the length and element types of `kind`."""
    if type(kind) is not tuple:
        return []
    elements = kind[1]
    checks = [f"len({access}) == {len(elements)}"]
    for i, element in enumerate(elements):
        assert type(element) is not tuple, "nested containers are dispatched by a switch"
        checks.append(f"type({access}[{i}]) is {source.name(element, 'T')}")
    return checks


def _tensor_accesses(refs: Sequence[Ref]) -> list[str]:
    """`a0`, `a1[2]`: where the call's arguments hold the shim's Tensors."""
    found: list[str] = []
    for ref in refs:
        if isinstance(ref, ArgRef):
            found += _tensors_in(f"a{ref.root}" + "".join(f"[{i}]" for i in ref.path), ref.kind)
        elif isinstance(ref, (ListRef, TupleRef)):
            found += _tensor_accesses(ref.elements)
    return found


def _tensors_in(access: str, kind: Kind) -> list[str]:
    if type(kind) is tuple:
        return [t for i, k in enumerate(kind[1]) for t in _tensors_in(f"{access}[{i}]", k)]
    return [access] if isinstance(kind, type) and issubclass(kind, Tensor) else []


def _grad_enabled() -> Callable[[], bool]:
    from tsjit.runtime.autograd import is_grad_enabled

    return is_grad_enabled


def _recorder(entry: Entry, kernel: Callable[..., Any], arity: int) -> Callable[..., Any]:
    """The call when it records gradients: the runtime's recording of the operator
    (`autograd.recording`) on the inputs with tensors as themselves; its Variables come
    back as the shim's Tensors."""
    from tsjit.frontend.torch_shim._tensor import as_tensors
    from tsjit.runtime.autograd.recording import grad_callee

    source = _Source(keep_tensors=True)
    params = ", ".join(f"a{i}" for i in range(arity))
    text = f"def inputs({params}):\n    return ({''.join(f'{source.of(r)}, ' for r in entry.inputs)})\n"
    namespace = dict(source.names)
    exec(compile(text, f"<eager recording {entry.schema.qualified_name}>", "exec"), namespace)  # noqa: S102 - generated from the plan
    inputs = namespace["inputs"]
    overload = f"{entry.schema.name}.{entry.schema.overload_name}" if entry.schema.overload_name else entry.schema.name
    callee = grad_callee(None, entry.schema, overload, kernel)  # pyright: ignore[reportArgumentType]
    names = tuple(r.name for r in entry.schema.returns)
    named = return_type(entry.schema.name, names) if len(names) > 1 and all(names) else None

    def record(*args: Any) -> Any:
        result = as_tensors(callee(*inputs(*args)))
        return named(*result) if named is not None else result

    return record


@functools.cache
def return_type(operator: str, names: tuple[str, ...]) -> type:
    """PyTorch's `torch.return_types.<op>`: a named tuple of an operator's named results."""
    cls = collections.namedtuple(operator.partition("::")[2], names)  # noqa: PYI024 - made per operator
    cls.__module__ = "torch.return_types"
    return cls


def _result_expressions(entry: Entry, name: str, unpacked: bool = False) -> list[str]:
    expressions = []
    for i, t in enumerate(entry.returns):
        value = f"{name}{i}" if unpacked else name
        returned = entry.self_returned[i] if i < len(entry.self_returned) else None
        if returned is not None:
            expressions.append(f"a{returned}")
        else:
            expressions.append(_wrapped(value, t))
    return expressions


def _wrapped(value: str, t: Attribute) -> str:
    """Source wrapping a kernel result of type `t` as the shim's values."""
    if isinstance(t, TensorType):
        return f"_wrap({value})"
    if isinstance(t, OptionalType) and isinstance(t.element_type, TensorType):
        return f"(None if {value} is None else _wrap({value}))"
    if isinstance(t, ListType) and isinstance(t.element_type, (TensorType, OptionalType)):
        return f"[None if e is None else _wrap(e) for e in {value}]"
    if isinstance(t, TupleType) and any(isinstance(e, TensorType) for e in t.types):
        parts = [_wrapped(f"{value}[{i}]", e) for i, e in enumerate(t.types)]
        return "(" + "".join(f"{p}, " for p in parts) + ")"
    return value


def _runtime_device(value: device) -> Device:
    return Device(value.type, value.index)


def _torch_dtype_code(value: object) -> int:
    from tsjit.frontend.torch_shim._tensor import ALIASES, DTYPES_BY_NAME

    name = str(value).removeprefix("torch.")
    return DTYPES_BY_NAME[ALIASES.get(name, name)].code


# --------------------------------------------------------------------------------------
# Operators: the callables
# --------------------------------------------------------------------------------------


class Dispatcher:
    """One operator called as a function (`torch.add`) or as a method (`x.add`).

    `fast` maps a call's shallow key — its arguments' types, then the keyword names and
    their values' types (types are never str, so names cannot collide) — to what runs it: the compiled entry itself, or,
    when some argument is a list or tuple, a switch on the containers' element kinds.
    `entries` holds every plan by full kinds (the tracer records from them)."""

    def __init__(self, operator: str, python_name: str, method: bool = False, overload: str | None = None):
        self.operator = operator
        self.python_name = python_name
        self.method = method
        self.overload = overload
        self.fast: dict[tuple[object, ...], Callable[..., Any]] = {}
        self.entries: dict[tuple[object, ...], Entry] = {}
        self.inline: Callable[[tuple[type, ...], tuple[str, ...], Callable[..., Any]], bool] | None = None
        """Inlines a plan into the operator's function (`operator_function`), True once
        no other will be; None then, or when there is no such function."""

    def _takes(self, argument: str) -> bool:
        return any(schema.argument_index(argument) is not None for schema in schemas_for(self.operator))

    def entry(self, args: Sequence[object], kwargs: dict[str, object]) -> Entry:
        names = tuple(kwargs)
        return self.entry_of_kinds((*map(kind_of, args), *map(kind_of, kwargs.values())), names)

    def entry_of_kinds(self, kinds: tuple[Kind, ...], names: tuple[str, ...]) -> Entry:
        key = (*kinds, names)
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = plan(self.operator, self.python_name, kinds, names, self.method, self.overload)
            shallow = (*(k[0] if type(k) is tuple else k for k in kinds[: len(kinds) - len(names)]), *names,
                       *(k[0] if type(k) is tuple else k for k in kinds[len(kinds) - len(names):]))  # fmt: skip
            if shallow not in self.fast:
                positions = tuple(i for i, k in enumerate(kinds) if type(k) is tuple)
                run = self.fast[shallow] = self._guarded(found, kinds, names, positions) if positions else found.run
                if self.inline is not None and hasattr(run, "body") and self.inline(kinds, names, run):
                    self.inline = None
        return found

    def _guarded(self, entry: Entry, kinds: tuple[Kind, ...], names: tuple[str, ...],
                 positions: tuple[int, ...]) -> Callable[..., Any]:  # fmt: skip
        """What runs calls whose shallow key has containers (at `positions`): the first
        plan seen, guarded by its element types, in front of the switch on them (nested
        containers go to the switch straight away)."""
        switch = self._switch(names, positions)
        if any(type(e) is tuple for i in positions for e in kinds[i][1]):
            return switch
        return compile_entry(entry, entry.kernel, len(kinds), (kinds, switch))

    def _switch(self, names: tuple[str, ...], positions: tuple[int, ...]) -> Callable[..., Any]:
        """Runs calls whose shallow key has containers (at `positions` of the flattened
        arguments): keyed by their elements' types, or by full kinds when nested."""
        runs: dict[object, Callable[..., Any]] = {}

        def planned(flat: tuple[Any, ...], key: object, types: Sequence[tuple[type, ...]]) -> Any:
            run = self.entry_of_kinds(tuple(map(kind_of, flat)), names).run
            if not any(t in _NESTED for element_types in types for t in element_types):
                runs[key] = run
            return run(*flat)

        if len(positions) == 1:  # `torch.cat([x, y])`: one list, keyed by its element types alone
            (position,) = positions

            def switch_one(*flat: Any) -> Any:
                key = tuple(map(type, flat[position]))
                run = runs.get(key)
                return planned(flat, key, (key,)) if run is None else run(*flat)

            return switch_one

        def switch(*flat: Any) -> Any:
            key = tuple([tuple(map(type, flat[i])) for i in positions])
            run = runs.get(key)
            return planned(flat, key, key) if run is None else run(*flat)

        return switch

    def call(self, args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
        """The planned path: every call while tracing, and first calls. `requires_grad=`
        of torch's Python factories (`torch.zeros(2, requires_grad=True)`) is applied
        to the result when the operator has no such argument."""
        if "requires_grad" in kwargs and not self._takes("requires_grad"):
            kwargs = dict(kwargs)
            flag = kwargs.pop("requires_grad")
            result = self.call(args, kwargs)
            return result.requires_grad_(bool(flag)) if flag else result
        entry = self.entry(args, kwargs)
        tracer = ACTIVE.current()
        if tracer is not None:
            return tracer.record(entry, args, kwargs, self.python_name)
        try:
            return entry.run(*args, *kwargs.values())
        except TorchScriptError as error:
            raise eager_error(error) from None


_NESTED = frozenset({list, tuple, Size})
_ABSENT = object()
"""A keyword argument not given (its type is no argument kind)."""


def eager_error(error: TorchScriptError) -> Exception:
    """A kernel's TorchScript error as the Python exception PyTorch raises eagerly."""
    cls = getattr(builtins, error.eager_kind or error.kind, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = RuntimeError
    return cls(error.message)


_CALL_TEMPLATE = """
def call({receiver}{parameters}*args, **kwargs):
{inlined}{packed}    if active.tracer is None:
        if kwargs:
            if len(kwargs) == 1:  # `x.sum(dim=1)`, `x.sum(1, keepdim=True)`: the key by hand again
                [(name, value)] = kwargs.items()
                n = len(args)
                if n == 1:
                    run = fast.get((type(args[0]), name, type(value)))
                elif n == 2:
                    run = fast.get((type(args[0]), type(args[1]), name, type(value)))
                else:
                    run = fast.get((*map(type, args), name, type(value)))
                if run is not None:
                    try:
                        return run(*args, value)
                    except TorchScriptError as error:
                        raise eager_error(error) from None
            else:
                run = fast.get((*map(type, args), *kwargs, *map(type, kwargs.values())))
                if run is not None:
                    try:
                        return run(*args, *kwargs.values())
                    except TorchScriptError as error:
                        raise eager_error(error) from None
        else:
            n = len(args)  # the key by hand for few arguments: three times faster than map
            if n == 1:
                run = fast.get((type(args[0]),))
            elif n == 2:
                run = fast.get((type(args[0]), type(args[1])))
            elif n == 3:
                run = fast.get((type(args[0]), type(args[1]), type(args[2])))
            else:
                run = fast.get(tuple(map(type, args)))
            if run is not None:
                try:
                    return run(*args)
                except TorchScriptError as error:
                    raise eager_error(error) from None
    return planned(args, kwargs)
"""


def function(operator: str, python_name: str, method: bool = False, overload: str | None = None) -> Callable[..., Any]:
    """What `torch.X`, `Tensor.X` and `F.X` run for `operator`: PyTorch's Python
    function for it where PyTorch has one (`_functions`), else the operator itself
    (always for `torch.ops.*`, and limited to `overload` when one is named)."""
    from tsjit.frontend.torch_shim._functions import PYTHON_OPERATORS

    python = PYTHON_OPERATORS.get(operator)
    if python is None or overload is not None or python_name.startswith("torch.ops."):
        return operator_function(operator, python_name, method, overload)

    def bound(_receiver: object, *args: Any, **kwargs: Any) -> Any:
        return python(*args, **kwargs)

    python.runner = bound  # pyright: ignore[reportFunctionMemberAccess]
    return python


def operator_function(operator: str, python_name: str, method: bool = False,
                      overload: str | None = None) -> Callable[..., Any]:  # fmt: skip
    """A Python function running `operator` (only its `overload`, if named) eagerly:
    `torch.relu`, or (with `method`) `Tensor.relu`, whose first argument is the receiver.
    Its `runner` is the same function taking (and ignoring) an object first: the
    `__call__` of `torch.relu`."""
    dispatcher = Dispatcher(operator, python_name, method, overload)
    namespace = {"fast": dispatcher.fast, "planned": dispatcher.call, "active": ACTIVE,
                 "TorchScriptError": TorchScriptError, "eager_error": eager_error, "_absent": _ABSENT}  # fmt: skip
    call = _call_function(namespace, "")
    call.runner = _call_function(namespace, "_receiver, ")  # pyright: ignore[reportFunctionMemberAccess]
    call.__name__ = python_name.rpartition(".")[2]
    call.__qualname__ = python_name
    call.dispatcher = dispatcher  # pyright: ignore[reportFunctionMemberAccess]

    inlined: dict[bool, tuple[int, int, str]] = {}

    def inline(kinds: tuple[type, ...], names: tuple[str, ...], run: Callable[..., Any]) -> bool:
        """The operator's function (and its runner) recompiled with `run`, the plan for
        `kinds` (guarded by its containers' element types), in front of the lookup, if
        it is the first of positional arguments only or the first with keywords: a call
        with those argument types (and keywords) runs the kernel from the function
        itself. True once both are inlined."""
        if bool(names) in inlined:
            return False
        positional = len(kinds) - len(names)
        offset = len(inlined) * 100  # _K0.. are the first plan's kinds, _K100.. the second's
        variables = [f"a{i}" for i in range(len(kinds))]
        namespace.update({f"_K{offset + i}": kind[0] if type(kind) is tuple else kind for i, kind in enumerate(kinds)})
        unpack = "".join(f"        {v} = kwargs.get({n!r}, _absent)\n" for v, n in zip(variables[positional:], names))
        checks = " and ".join(f"type({v}) is _K{offset + i}" for i, v in enumerate(variables)) or "True"
        # keyword values not taken here leave the parameters they were bound to as they were
        reset = "".join(f"        {v} = _absent\n" for v in variables[positional:])
        inlined[bool(names)] = (positional, len(names), f"{unpack}        if {checks}:\n{_inline(run, namespace, '            ')}{reset}")
        for function, receiver in ((call, ""), (call.runner, "_receiver, ")):  # pyright: ignore[reportFunctionMemberAccess]
            compiled = _call_function(namespace, receiver, list(inlined.values()))
            function.__code__, function.__defaults__ = compiled.__code__, compiled.__defaults__
            function.source = compiled.source
        return len(inlined) == 2

    dispatcher.inline = inline
    return call


def bound_call(function: Callable[..., Any], kinds: tuple[type, ...], parameters: Sequence[str],
               arguments: Sequence[str], fallback: Callable[..., Any]) -> Callable[..., Any]:  # fmt: skip
    """A function of `parameters` running the plan of the operator `function` for
    `kinds` in place, its arguments the expressions `arguments` (parameters, or
    constants of their kind), when the parameters among them have their kinds and no
    trace runs; else `fallback` of the same parameters. `x[i]` is `x.select(0, i)` so.
    When the plan fails, `fallback` runs instead, to fail with its own words."""
    run = function.dispatcher.entry_of_kinds(kinds, ()).run  # pyright: ignore[reportAttributeAccessIssue]
    namespace: dict[str, Any] = {"active": ACTIVE, "TorchScriptError": TorchScriptError, "eager_error": eager_error,
                                 "fallback": fallback}  # fmt: skip
    checks = []
    for i, (argument, kind) in enumerate(zip(arguments, kinds, strict=True)):
        if argument in parameters:
            namespace[f"_K{i}"] = kind
            checks.append(f"type({argument}) is _K{i}")
    params = ", ".join(parameters)
    text = (
        f"def call({params}):\n    if {' and '.join(checks)} and active.tracer is None:\n"
        f"        {''.join(f'a{i}, ' for i in range(len(arguments)))}= {', '.join(arguments)}\n"
        f"{_inline(run, namespace, '        ', f'return fallback({params})')}    return fallback({params})\n"
    )
    exec(compile(text, "<eager call>", "exec"), namespace)  # noqa: S102 - a fixed template and a plan's body
    call = namespace.pop("call")
    call.source = text
    return call


def _inline(run: Callable[..., Any], namespace: dict[str, Any], indent: str,
            on_error: str = "raise eager_error(error) from None") -> str:  # fmt: skip
    """Source running a compiled plan (`compile_entry`) in place, its arguments bound to
    `a0`, `a1`, ...; the names it uses (numbered across plans) are added to `namespace`.
    A kernel's error runs the statement `on_error`."""
    namespace.update(run.names)  # pyright: ignore[reportFunctionMemberAccess]
    body = "".join(f"{indent}{line}\n" for line in run.body.splitlines())  # pyright: ignore[reportFunctionMemberAccess]
    return f"{indent}try:\n{body}{indent}except TorchScriptError as error:\n{indent}    {on_error}\n"


def _call_function(namespace: dict[str, Any], receiver: str, plans: Sequence[tuple[int, int, str]] = ()) -> Any:
    """The operator's function with the inlined `plans` (positional and keyword
    arguments taken, the source after the test for them). The positional arguments the
    plans take are parameters of their own (`a0`, `a1`, positional-only, `_absent` when
    not given), which spares packing them into `args` on the inlined path; the lookup
    after it repacks them."""
    count = max((positional for positional, _, _ in plans), default=0)
    parameters = "".join(f"a{i}=_absent, " for i in range(count)) + ("/, " if count else "")
    code = ""
    for positional, keywords, body in plans:
        given = f"len(kwargs) == {keywords}" if keywords else "not kwargs"
        fewer = f" and a{positional} is _absent" if positional < count else ""  # a0..a{positional-1}: typed below
        code += f"    if {given} and not args{fewer} and active.tracer is None:\n{body}"
    packed = ""
    if count:
        packed = f"    if a{count - 1} is not _absent:\n        args = ({''.join(f'a{i}, ' for i in range(count))}*args)\n"
        for given in range(count - 1, 0, -1):
            packed += f"    elif a{given - 1} is not _absent:\n        args = ({''.join(f'a{i}, ' for i in range(given))})\n"
    text = _CALL_TEMPLATE.format(receiver=receiver, parameters=parameters, inlined=code, packed=packed)
    exec(compile(text, "<eager call>", "exec"), namespace)  # noqa: S102 - a fixed template and a plan's body
    function = namespace.pop("call")
    function.source = text
    return function


_BINARY_TEMPLATE = """
def method(self, other):
    if active.tracer is None:
{inlined}        run = entries.get(type(other))
        if run is not None:
            try:
                return run({operands})
            except TorchScriptError as error:
                raise eager_error(error) from None
    return first(self, other)
"""


def binary_method(operator: str, python_name: str, reflected: bool = False) -> Callable[..., Any]:
    """`Tensor.__add__` (or, `reflected`, `__radd__`: the operator called as
    `op(other, self)`): keyed by the other operand's type alone, the first one's plan
    inlined (as `operator_function` inlines it)."""
    dispatcher = Dispatcher(operator, python_name, method=not reflected)
    entries: dict[type, Callable[..., Any]] = {}
    operands = "other, self" if reflected else "self, other"

    def first(self: Any, other: Any) -> Any:
        """A call while tracing (recorded), or the first with this type of `other`."""
        args = (other, self) if reflected else (self, other)
        if ACTIVE.tracer is not None:
            return dispatcher.call(args, {})  # records when this thread traces
        try:
            result = dispatcher.call(args, {})
        except TypeError:
            return NotImplemented
        compiled = dispatcher.fast.get(tuple(map(type, args)))
        if compiled is not None:  # every receiver is a tensor: the other operand decides
            if not entries and hasattr(compiled, "body"):  # a plan, not a switch on nested containers
                namespace["_K"] = type(other)
                inlined = f"        if type(other) is _K:\n            a0, a1 = {operands}\n"
                recompiled = compile_method(inlined + _inline(compiled, namespace, "            "))
                method.__code__, method.source = recompiled.__code__, recompiled.source  # pyright: ignore[reportFunctionMemberAccess]
            entries[type(other)] = compiled
        return result

    namespace = {"entries": entries, "first": first, "active": ACTIVE, "TorchScriptError": TorchScriptError,
                 "eager_error": eager_error}  # fmt: skip

    def compile_method(inlined: str) -> Any:
        text = _BINARY_TEMPLATE.format(inlined=inlined, operands=operands)
        exec(compile(text, "<eager call>", "exec"), namespace)  # noqa: S102 - a fixed template and a plan's body
        made = namespace.pop("method")
        made.source = text
        return made

    method = compile_method("")
    method.__name__ = python_name.rpartition(".")[2]
    method.__qualname__ = python_name
    method.dispatcher = dispatcher  # pyright: ignore[reportFunctionMemberAccess]
    return method


def user_frame(depth: int = 1, library: bool = True) -> Any:
    """The innermost frame outside the shim and the tracer — where code called an
    operator, as PyTorch's tracer records it; with `library=False`, outside all of
    tsjit: the user's own line, which errors name."""
    frame = sys._getframe(depth)  # noqa: SLF001 - the caller's location
    internal = _is_internal if library else _is_tsjit
    while frame is not None and internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def _is_internal(filename: str) -> bool:
    return filename.startswith("<eager") or any(part in filename for part in _INTERNAL_PARTS)


def _is_tsjit(filename: str) -> bool:
    return filename.startswith("<eager") or _TSJIT_PACKAGE in filename


_INTERNAL_PARTS = ("tsjit/frontend/torch_shim", "tsjit/frontend/tracer", "tsjit\\frontend\\torch_shim",
                   "tsjit\\frontend\\tracer")  # fmt: skip
_TSJIT_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The directory of the tsjit package (this file is tsjit/frontend/torch_shim/_dispatch.py)."""
