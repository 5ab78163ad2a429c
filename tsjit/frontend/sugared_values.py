"""Sugared values: what a name or expression denotes before it is an SSA value.

As in TorchScript's frontend, `torch.add` is a builtin function, `self.fc` a module,
`range(n)` an iterable, `x.shape` an operator call on `x`; each knows how to be called,
indexed, iterated or read as an attribute, and emits IR for it through the emitter.
Plain first-class values are `SimpleValue`s.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, SSAValue

from tsjit.dialects import prim
from tsjit.dialects.schema import has_operator, schemas_for
from tsjit.dialects.types import (
    ClassType,
    DeviceType,
    DictType,
    EnumType,
    InterfaceType,
    IntType,
    ListType,
    StrType,
    TensorType,
    TupleType,
    is_subtype_of,
)
from tsjit.frontend import builtins
from tsjit.frontend.annotations import type_str
from tsjit.frontend.schema_matching import (
    CallArg,
    MatchFailure,
    Signature,
    failure_report,
    match_signatures,
)
from tsjit.frontend.torch_shim._tensor import DTYPES_BY_NAME

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompiledFunction
    from tsjit.frontend.emitter import FunctionEmitter
    from tsjit.frontend.modules import ModuleInfo


class SugaredValue:
    """Base: every operation is an error until a subclass defines it."""

    kind = "value"

    def as_value(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        raise em.error(node, f"{self.kind} cannot be used as a value")

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        raise em.error(node, f"attribute lookup is not defined on {self.kind}")

    def set_attr(self, em: FunctionEmitter, node: ast.AST, name: str, value: SSAValue,
                 annotation: Attribute | None = None) -> None:  # fmt: skip
        """`obj.name = value` (`obj.name: annotation = value`)."""
        raise em.error(node, f"Tried to set an attribute: {name} on a non-class: {self.kind}")

    def has_attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> bool:
        raise em.error(node, f"hasattr's first argument must be an object, got {self.kind} instead")

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        raise em.error(node, f"cannot call a {self.kind}")

    def as_tuple(
        self, em: FunctionEmitter, node: ast.AST, size_hint: int | None = None
    ) -> list[SugaredValue]:
        raise em.error(node, f"{self.kind} cannot be used as a tuple")

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        raise em.error(node, f"'{self.kind}' object is not iterable")

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        raise em.error(node, f"'{self.kind}' object is not iterable")

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        raise em.error(node, f"'{self.kind}' object is not subscriptable")

    def static_len(self) -> int | None:
        """The length known at compile time (module lists, tuples): loops over such
        values are unrolled."""
        return None


class SimpleValue(SugaredValue):
    """A first-class SSA value."""

    def __init__(self, value: SSAValue):
        self.value = value

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return type_str(self.value.type)

    def as_value(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return self.value

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        t = self.value.type
        self_arg = CallArg(self.value, node, "self")
        if isinstance(t, TensorType):
            if name in builtins.TENSOR_CAST_METHODS:
                return TensorCastValue(DTYPES_BY_NAME[builtins.TENSOR_CAST_METHODS[name]].code, self_arg)
            if name in builtins.TENSOR_PROPERTIES:
                return SimpleValue(
                    em.builtin_call(builtins.TENSOR_PROPERTIES[name], node, [CallArg(self.value, node)])
                )
        if isinstance(t, DeviceType) and name in builtins.DEVICE_PROPERTIES:
            return SimpleValue(
                em.builtin_call(builtins.DEVICE_PROPERTIES[name], node, [CallArg(self.value, node)])
            )
        if isinstance(t, TupleType) and name in (names := [n.data for n in t.names]):
            index = names.index(name)
            return SimpleValue(em.tuple_index(self.value, index, node))
        if isinstance(t, (ClassType, InterfaceType)):
            return em.sugared_object(self.value, node).attr(em, node, name)
        if isinstance(t, EnumType):
            from tsjit.frontend.classes import enum_attribute

            return enum_attribute(em, node, self.value, name)
        operator = "aten::to" if name == "type" else f"aten::{name}"
        if (builtin := BuiltinFunction.try_create(operator, self_arg)) is not None:
            return builtin
        raise em.error(node, f"'{type_str(t)}' object has no attribute or method '{name}'")

    def as_tuple(
        self, em: FunctionEmitter, node: ast.AST, size_hint: int | None = None
    ) -> list[SugaredValue]:
        t = self.value.type
        if isinstance(t, TupleType):
            return [SimpleValue(v) for v in em.tuple_elements(self.value)]
        if isinstance(t, ListType):
            if size_hint is None:
                raise em.error(node, "cannot statically infer the expected size of a list in this context")
            unpack = em.insert(prim.ListUnpackOp(self.value, [t.element_type] * size_hint), node)
            return [SimpleValue(v) for v in unpack.results]
        raise em.error(node, f"{type_str(t)} cannot be used as a tuple")

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        t = self.value.type
        if isinstance(t, (ListType, StrType, TensorType)):
            return self
        if isinstance(t, (ClassType, InterfaceType)):
            return em.sugared_object(self.value, node).iter(em, node)
        if isinstance(t, DictType):
            return SimpleValue(em.builtin_call("aten::keys", node, [CallArg(self.value, node)]))
        if isinstance(t, TupleType):
            return SugaredTupleValue([SimpleValue(v) for v in em.tuple_elements(self.value)])
        raise em.error(node, f"'{type_str(t)}' object is not iterable")

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        if isinstance(self.value.type, (ListType, StrType, TensorType)):
            return em.builtin_call("aten::len", node, [CallArg(self.value, node)])
        if isinstance(self.value.type, (ClassType, InterfaceType)):
            return em.sugared_object(self.value, node).len(em, node)
        raise em.error(node, f"'{type_str(self.value.type)}' object is not iterable")

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        t = self.value.type
        if isinstance(t, (ClassType, InterfaceType)):
            return em.sugared_object(self.value, node).getitem(em, node, index, type_hint)
        if isinstance(t, (ListType, StrType, DictType)):
            return SimpleValue(
                em.builtin_call("aten::__getitem__", node, [CallArg(self.value, node), CallArg(index, node)])
            )
        if isinstance(t, TensorType):
            zero = CallArg(None, node, None, 0)
            return SimpleValue(
                em.builtin_call("aten::select", node, [CallArg(self.value, node), zero, CallArg(index, node)])
            )
        raise em.error(node, f"'{type_str(t)}' object is not subscriptable")

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if isinstance(self.value.type, (ClassType, InterfaceType)):
            return em.sugared_object(self.value, node).call(em, node, args, kwargs, n_binders)
        raise em.error(node, f"'{type_str(self.value.type)}' object is not callable")

    def set_attr(self, em: FunctionEmitter, node: ast.AST, name: str, value: SSAValue,
                 annotation: Attribute | None = None) -> None:  # fmt: skip
        if isinstance(self.value.type, ClassType):
            em.sugared_object(self.value, node).set_attr(em, node, name, value, annotation)
            return
        raise em.error(node, f"Tried to set an attribute: {name} on a non-class: {type_str(self.value.type)}")


class NoneValue(SugaredValue):
    """The result of a statement-like call (`print(...)`)."""

    kind = "None"


class BuiltinFunction(SugaredValue):
    """A schema operator (`aten::add`), possibly bound to a `self` (`x.add`). Reached
    through `torch.ops.aten.add` it is an operator packet, whose attributes name single
    overloads (`torch.ops.aten.add.Tensor`, `.default` for the unnamed one)."""

    def __init__(self, operator: str, self_arg: CallArg | None = None, overload: str | None = None,
                 packet: bool = False):  # fmt: skip
        self.operator = operator
        self.self_arg = self_arg
        self.overload = overload
        self.packet = packet

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        if self.overload:
            return f"builtin {self.operator}.{self.overload}"
        return f"builtin {self.operator}"

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        if not self.packet:
            return super().attr(em, node, name)
        overload = "" if name == "default" else name
        if not any(s.overload_name == overload for s in schemas_for(self.operator)):
            raise em.error(node, f"operator {self.operator} has no overload '{name}'")
        return BuiltinFunction(self.operator, overload=overload)

    @staticmethod
    def try_create(operator: str, self_arg: CallArg | None) -> BuiltinFunction | None:
        """A bound builtin when some overload's `self` accepts the value's type."""
        from tsjit.frontend.schema_matching import evaluate, match_type_variables

        for schema in schemas_for(operator):
            if self_arg is None:
                return BuiltinFunction(operator)
            index = schema.argument_index("self")
            if index is None:
                continue
            formal = schema.arguments[index].schema_type
            bindings: dict[str, Attribute] = {}
            if match_type_variables(formal, self_arg.type, bindings) is not None:
                continue
            concrete = evaluate(formal, bindings)
            if concrete is not None and is_subtype_of(self_arg.type, concrete):
                return BuiltinFunction(operator, self_arg)
        if self_arg is not None and operator in _builtin_function_names():
            return BuiltinFunction(operator, self_arg)
        return None

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        return SimpleValue(em.builtin_call(self.operator, node, args, kwargs, self.self_arg, self.overload))


def _builtin_function_names() -> frozenset[str]:
    from tsjit.frontend.library.builtin_functions import operator_names

    return operator_names()


class MagicMethod(SugaredValue):
    """A builtin like `len` that a class could override with a magic method."""

    def __init__(self, method: str, base: SugaredValue):
        self.method = method
        self.base = base

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return self.base.kind

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if args and args[0].value is not None and isinstance(args[0].value.type, ClassType):
            receiver = em.sugared_object(args[0].value, node)
            return receiver.attr(em, node, self.method).call(em, node, args[1:], kwargs, n_binders)
        return self.base.call(em, node, args, kwargs, n_binders)


class CastValue(SugaredValue):
    """`int(x)`, `float(x)`, `bool(x)`, `str(x)`: the value itself when it already has
    the type, else the conversion operator."""

    def __init__(self, type: Attribute, operator: str):
        self.type = type
        self.operator = operator

    kind = "cast"

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if len(args) == 1 and not kwargs:
            value = em.arg_value(args[0])
            if value.type == self.type:
                return SimpleValue(value)
        return SimpleValue(em.builtin_call(self.operator, node, args, kwargs))


class TensorCastValue(SugaredValue):
    """`x.float()` and friends: `aten::to(x, dtype=...)`."""

    kind = "tensor cast"

    def __init__(self, dtype_code: int, self_arg: CallArg):
        self.dtype_code = dtype_code
        self.self_arg = self_arg

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        dtype = CallArg(em.constant(self.dtype_code, IntType(), node), node, "dtype")
        return SimpleValue(em.builtin_call("aten::to", node, args, [self.self_arg, dtype, *kwargs]))


class SpecialForm(SugaredValue):
    """A builtin whose arguments are not plain values (`isinstance`, `range`, ...); the
    emitter handles each form where the call is."""

    def __init__(self, form: str):
        self.form = form

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return f"builtin '{self.form}'"


class PrintValue(SugaredValue):
    kind = "builtin 'print'"

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if kwargs:
            raise em.error(node, "print doesn't accept any keyword arguments")
        em.insert(prim.PrintOp(*(em.arg_value(a) for a in args)), node)
        return NoneValue()


class RangeValue(SugaredValue):
    """`range(...)`: iterated by a loop whose counter derives the element."""

    kind = "range"

    def __init__(
        self, em: FunctionEmitter, node: ast.AST, inputs: Sequence[SSAValue], static_len: int | None = None
    ):
        for i, value in enumerate(inputs):
            if not isinstance(value.type, IntType):
                raise em.error(
                    node, f"all inputs of range must be ints, found {type_str(value.type)} in argument {i}"
                )
        if not inputs:
            raise em.error(node, "range expected at least 1 arguments, got 0")
        if len(inputs) > 3:
            raise em.error(node, f"range expected at most 3 arguments, got {len(inputs)}")
        self.has_only_end = len(inputs) == 1
        if self.has_only_end:
            self.end = inputs[0]
            self.start = em.constant(0, IntType(), node)
            self.step = em.constant(1, IntType(), node)
        else:
            self.start, self.end = inputs[0], inputs[1]
            self.step = inputs[2] if len(inputs) == 3 else em.constant(1, IntType(), node)
        self._static_len = static_len

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        return self

    def static_len(self) -> int | None:
        return self._static_len

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        if self._static_len is not None:
            return em.constant(self._static_len, IntType(), node)
        if self.has_only_end:
            return self.end
        args = [CallArg(v, node) for v in (self.start, self.end, self.step)]
        return em.builtin_call("aten::__range_length", node, args)

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        if self.has_only_end:
            return SimpleValue(index)
        args = [CallArg(v, node) for v in (index, self.start, self.step)]
        return SimpleValue(em.builtin_call("aten::__derive_index", node, args))


class SugaredTupleValue(SugaredValue):
    """A tuple of sugared values (a tuple being iterated, a module list)."""

    kind = "tuple"

    def __init__(self, items: Sequence[SugaredValue]):
        self.items = list(items)

    def as_tuple(
        self, em: FunctionEmitter, node: ast.AST, size_hint: int | None = None
    ) -> list[SugaredValue]:
        return self.items

    def as_value(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.tuple_of([item.as_value(em, node) for item in self.items], node)

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        return self

    def static_len(self) -> int | None:
        return len(self.items)

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.constant(len(self.items), IntType(), node)

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        position = em.constant_value(index)
        if not isinstance(position, int) or isinstance(position, bool):
            raise em.error(node, "tuple index must be an integer constant here")
        if not -len(self.items) <= position < len(self.items):
            raise em.error(
                node, f"Tuple index out of range. Tuple is length {len(self.items)} and index is {position}"
            )
        return self.items[position]


class IterableTree(SugaredValue):
    """`zip(...)` and `enumerate(...)`: iterables iterated together, as long as the
    shortest."""

    kind = "iterable"

    def __init__(self) -> None:
        self.children: list[SugaredValue] = []
        self.unroll_length: int | None = None

    def add_child(self, em: FunctionEmitter, node: ast.AST, child: SugaredValue) -> None:
        child_len = child.static_len()
        if not self.children:
            self.unroll_length = child_len
        elif (self.unroll_length is None) != (child_len is None):
            raise em.error(node, "Can not iterate over a module list or tuple with a value that does not have a "
                                 "statically determinable length")  # fmt: skip
        elif self.unroll_length is not None and child_len is not None:
            self.unroll_length = min(self.unroll_length, child_len)
        self.children.append(child)

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        return self

    def static_len(self) -> int | None:
        return self.unroll_length

    def base_iterables(self) -> list[SugaredValue]:
        leaves: list[SugaredValue] = []
        for child in self.children:
            leaves.extend(child.base_iterables() if isinstance(child, IterableTree) else [child])
        return leaves

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        lengths = [leaf.len(em, node) for leaf in self.base_iterables()]
        listed = em.list_of(lengths, ListType(IntType()), node)
        return em.builtin_call("prim::min", node, [CallArg(listed, node)])

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        return SugaredTupleValue([child.getitem(em, node, index) for child in self.children])


class FunctionValue(SugaredValue):
    """A script function (the user's, or a library function such as
    `torch.nn.functional.softmax`): compiled on first call, called with `func.call`."""

    kind = "function"

    def __init__(self, python_function: object, name: str):
        self.python_function = python_function
        self.name = name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        callee = em.unit.compile_function(self.python_function, self.name, node, em)
        inputs = em.match_call(callee.signature, node, args, kwargs, f"{self.name}()")
        return SimpleValue(call_compiled(em, callee, node, inputs))


class BooleanDispatchValue(SugaredValue):
    """A function that is one of two depending on a constant bool argument
    (`boolean_dispatch`, as `F.max_pool2d`'s `return_indices`)."""

    kind = "function"

    def __init__(self, dispatch: dict[str, object], name: str):
        self.dispatch = dispatch
        self.name = name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        arg_name, index = self.dispatch["arg_name"], self.dispatch["index"]
        flag = self.dispatch["default"]
        found = next((a for a in kwargs if a.name == arg_name), None)
        if found is None and isinstance(index, int) and len(args) > index:
            found = args[index]
        if found is not None:
            flag = found.constant if found.value is None else em.constant_value(found.value)
        if not isinstance(flag, bool):
            raise em.error(node, f"value for {arg_name} must be a constant bool in a call to {self.name}()")
        target = self.dispatch["if_true" if flag else "if_false"]
        name = f"{self.name.rpartition('.')[0]}.{getattr(target, '__name__', self.name)}".lstrip(".")
        return FunctionValue(target, name).call(em, node, args, kwargs, n_binders)


class OverloadedFunctionValue(SugaredValue):
    """A function with `_overload` declarations: the call picks the declaration its
    arguments match, and the implementation is compiled once per declaration."""

    kind = "function"

    def __init__(self, declarations: Sequence[object], implementation: object, name: str):
        self.declarations = declarations
        self.implementation = implementation
        self.name = name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        signatures = [em.unit.overload_signature(d, node) for d in self.declarations]
        index, matched = match_or_fail(em, signatures, node, args, kwargs, None, f"{self.name}()")
        callee = em.unit.compile_overload(self.declarations[index], self.implementation, self.name, node, em)
        return SimpleValue(call_compiled(em, callee, node, matched.inputs(em)))


def call_compiled(
    em: FunctionEmitter, callee: CompiledFunction, node: ast.AST, inputs: Sequence[SSAValue]
) -> SSAValue:
    """`func.call`: arguments of a subtype (an int for an `Optional[int]`) are cast to
    the parameter type, since a call's operand types are the callee's exactly."""
    formal = callee.op.function_type.inputs.data
    operands = [v if v.type == t else em.unchecked_cast(v, t, node) for v, t in zip(inputs, formal)]
    call = em.insert(func.CallOp(SymbolRefAttr(callee.symbol), operands, [callee.return_type]), node)
    return call.results[0]


class ExceptionValue(SugaredValue):
    """An exception class (`ValueError`); calling it makes the message to raise."""

    kind = "exception"

    def __init__(self, name: str, qualified_name: str):
        self.name = name
        self.qualified_name = qualified_name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if kwargs:
            raise em.error(node, f"{self.name} does not take keyword arguments")
        if not args:
            message = em.constant("", StrType(), node)
        elif len(args) == 1:
            message = em.arg_value(args[0])
            if not isinstance(message.type, StrType):
                message = em.builtin_call("aten::str", node, [CallArg(message, node)])
        else:
            values = [em.arg_value(a) for a in args]
            message = em.builtin_call("aten::str", node, [CallArg(em.tuple_of(values, node), node)])
        if not self.qualified_name:  # AssertionError: TorchScript puts the class in the message
            prefix = f"{self.name}: "
            text = em.constant_value(message)
            if isinstance(text, str):
                message = em.constant(prefix + text, StrType(), node)
            else:
                prefix_value = em.constant(prefix, StrType(), node)
                message = em.builtin_call(
                    "aten::add", node, [CallArg(prefix_value, node), CallArg(message, node)]
                )
        return ExceptionMessageValue(message, self.qualified_name)


class ExceptionMessageValue(SugaredValue):
    """`ValueError("msg")`: what `raise` takes."""

    kind = "exception message"

    def __init__(self, message: SSAValue, qualified_name: str):
        self.message = message
        self.qualified_name = qualified_name


class NamedTupleConstructor(SugaredValue):
    """A NamedTuple class: calling it builds the tuple (fields matched like arguments)."""

    kind = "NamedTuple"

    def __init__(self, tuple_type: TupleType, signature: Signature):
        self.tuple_type = tuple_type
        self.signature = signature

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        inputs = em.match_call(self.signature, node, args, kwargs, f"{self.tuple_type.qualname.data}()")  # pyright: ignore[reportAttributeAccessIssue]
        return SimpleValue(em.insert(prim.TupleConstructOp(inputs, self.tuple_type), node).result)


class ContextManagerClass(SugaredValue):
    """A context manager class (`torch.no_grad`): calling it creates the object and
    runs its `__init__`, as TorchScript does."""

    kind = "class"

    def __init__(self, info: ModuleInfo):
        self.info = info

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if args or kwargs:
            raise em.error(node, f"{self.info.python_name}() takes no arguments")
        obj = em.insert(prim.CreateObjectOp(self.info.class_type), node).results[0]
        init = em.unit.compile_method(self.info, "__init__", node, em)
        em.insert(prim.CallMethodOp(obj, "__init__", [], [init.return_type]), node)
        return SimpleValue(obj)


class PythonModuleValue(SugaredValue):
    """A Python namespace (`torch`, `math`, `torch.nn.functional`, `warnings`): its
    attributes resolve to operators, constants, library functions or submodules."""

    def __init__(self, qualified_name: str, python_module: object = None):
        self.qualified_name = qualified_name
        self.python_module = python_module

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return f"module '{self.qualified_name}'"

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        return em.unit.resolver.module_attribute(em, node, self, name)


class ModuleValue(SugaredValue):
    """A module object (`self`, `self.fc`): parameters and attributes read through
    `prim.GetAttr`, constants inlined, methods called with `prim.CallMethod`,
    containers (`Sequential`, `ModuleList`) iterated by unrolling."""

    def __init__(self, value: SSAValue, info: ModuleInfo):
        self.value = value
        self.info = info

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return "module"

    def as_value(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return self.value

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        return self.info.attribute(em, node, self.value, name)

    def set_attr(self, em: FunctionEmitter, node: ast.AST, name: str, value: SSAValue,
                 annotation: Attribute | None = None) -> None:  # fmt: skip
        self.info.set_attribute(em, node, self.value, name, value, annotation)

    def has_attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> bool:
        return self.info.has_attribute(name)

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        return self.attr(em, node, "forward").call(em, node, args, kwargs, n_binders)

    def static_len(self) -> int | None:
        return len(self.info.children) if self.info.is_container else None

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        if not self.info.is_container:
            raise em.error(node, f"'{self.info.python_name}' object is not iterable")
        return SugaredTupleValue([self.attr(em, node, child) for child in self.info.children])

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        if not self.info.is_container:
            raise em.error(node, f"'{self.info.python_name}' object has no len()")
        return em.constant(len(self.info.children), IntType(), node)

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        if not self.info.is_container:
            raise em.error(node, f"'{self.info.python_name}' object is not subscriptable")
        return self.iter(em, node).getitem(em, node, index)


class MethodValue(SugaredValue):
    """A method of a module (`self.helper`, `self.fc.forward`)."""

    kind = "method"

    def __init__(self, receiver: SSAValue, info: ModuleInfo, name: str):
        self.receiver = receiver
        self.info = info
        self.name = name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        method = em.unit.compile_method(self.info, self.name, node, em)
        inputs = em.match_call(method.signature, node, args, kwargs, f"{self.info.python_name}.{self.name}()")
        if method.is_entry:
            return SimpleValue(call_compiled(em, method, node, [self.receiver, *inputs]))
        call = em.insert(prim.CallMethodOp(self.receiver, self.name, inputs, [method.return_type]), node)
        return SimpleValue(call.outs[0])


def builtin_operator_exists(name: str) -> bool:
    return has_operator(name) or name in _builtin_function_names()


def match_or_fail(em: FunctionEmitter, signatures: Sequence[Signature], node: ast.AST, args: list[CallArg],
                  kwargs: list[CallArg], self_arg: CallArg | None, what: str):  # fmt: skip
    """The chosen signature's index and match; a located error listing the candidates."""
    try:
        return match_signatures(
            em.matcher(node), signatures, args, kwargs, self_arg, em.unit.overload_choices
        )
    except MatchFailure as failure:
        types = [a.type for a in ([self_arg] if self_arg is not None else []) + list(args)]
        message, notes = failure_report(what, failure, types)
        raise em.error(node, message, notes) from None
