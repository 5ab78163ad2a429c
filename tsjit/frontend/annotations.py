"""Type annotations (PEP 484 expressions and `# type:` comments) as TorchScript types.

An annotation is read from its AST: names are looked up as Python objects in the
function's scope (so `List`, `torch.Tensor`, `Optional`, a NamedTuple class or an alias
resolve as Python would), subscripts are taken apart structurally.
"""

from __future__ import annotations

import ast
import builtins
import numbers
import typing
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Attribute

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
    to_torchscript_str,
    union_of,
)

MISSING = object()
"""What a lookup returns for a name that is not defined."""


@dataclass(frozen=True)
class Annotation:
    """A parsed annotation: the type, and for `BroadcastingListN[T]` the length N a
    single T broadcasts to (TorchScript's `int[2]`)."""

    type: Attribute
    broadcast: int | None = None


class TypeParser:
    """Reads annotation expressions; `lookup` maps a name or attribute chain to the
    Python object it denotes in the annotated code's scope (or MISSING), `fail` raises
    the located error for a node."""

    def __init__(self, lookup: Callable[[ast.expr], object], fail: Callable[[ast.AST, str], Exception],
                 named_tuple_type: Callable[[type], Attribute],
                 class_type: Callable[[object], Attribute | None] = lambda obj: None,
                 qualified_type: Callable[[str], Attribute | None] = lambda name: None):  # fmt: skip
        self.lookup = lookup
        self.fail = fail
        self.named_tuple_type = named_tuple_type
        self.class_type = class_type  # user classes, enums, interfaces
        self.qualified_type = qualified_type  # `__torch__.m.C` of serialized code

    def parse(self, expr: ast.expr) -> Attribute:
        return self.parse_annotation(expr).type

    def parse_annotation(self, expr: ast.expr) -> Annotation:
        if isinstance(expr, ast.Constant):
            if expr.value is None:
                return Annotation(NoneType())
            if isinstance(expr.value, str):
                return self.parse_annotation(self._string(expr))
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            left, right = self.parse_annotation(expr.left), self.parse_annotation(expr.right)
            return Annotation(_union([left.type, right.type]), left.broadcast or right.broadcast)
        if isinstance(expr, ast.Subscript):
            return self._generic(expr)
        return Annotation(self._named(expr))

    def _string(self, expr: ast.Constant) -> ast.expr:
        try:
            parsed = ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            raise self.fail(expr, f"invalid type annotation '{expr.value}'") from None
        return ast.copy_location(parsed, expr)  # report at the string

    def _named(self, expr: ast.expr) -> Attribute:
        obj = self.lookup(expr)
        if obj is MISSING:
            text = ast.unparse(expr)
            if text.startswith("__torch__.") and (t := self.qualified_type(text)) is not None:
                return t
            raise self.fail(expr, f"unknown type annotation '{text}'")
        if isinstance(obj, Attribute):  # a scope that names TorchScript types directly
            return obj
        if (t := python_type(obj)) is not None:
            return t
        if isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields"):
            return self.named_tuple_type(obj)
        if (t := self.class_type(obj)) is not None:
            return t
        if obj in (typing.List, list):  # noqa: UP006 - the typing objects are compared here
            return ListType(TensorType())
        if obj in (typing.Dict, dict):  # noqa: UP006
            return DictType(StrType(), TensorType())
        raise self.fail(expr, f"unknown type annotation '{ast.unparse(expr)}'")

    def _generic(self, expr: ast.Subscript) -> Annotation:
        origin = self.lookup(expr.value)
        items = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        size = getattr(origin, "size", None) if type(origin).__name__ == "BroadcastingList" else None
        if size is not None or _is_broadcasting_list_name(expr.value):
            size = size or int(ast.unparse(expr.value)[-1])
            return Annotation(ListType(self._one(expr, items)), size)
        if origin in (typing.List, list):  # noqa: UP006 - the typing objects are compared here
            return Annotation(ListType(self._one(expr, items)))
        if origin is typing.Optional:  # Optional[BroadcastingList2[int]] keeps its broadcast
            if len(items) != 1:
                raise self.fail(expr, f"Optional takes 1 type argument, got {len(items)}")
            inner = self.parse_annotation(items[0])
            return Annotation(union_of([inner.type, NoneType()]), inner.broadcast)
        if origin in (typing.Dict, dict):  # noqa: UP006
            if len(items) != 2:
                raise self.fail(expr, f"Dict takes 2 type arguments, got {len(items)}")
            return Annotation(DictType(self.parse(items[0]), self.parse(items[1])))
        if origin in (typing.Tuple, tuple):  # noqa: UP006
            if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                return Annotation(TupleType([]))
            return Annotation(TupleType([self.parse(i) for i in items]))
        if origin is typing.Union:
            return Annotation(_union([self.parse(i) for i in items]))
        if origin is getattr(typing, "Final", None) or _named_like(origin, "Final"):
            return self.parse_annotation(items[0])
        if _named_like(origin, "Future"):
            return Annotation(FutureType(self._one(expr, items)))
        raise self.fail(expr, f"unknown type annotation '{ast.unparse(expr)}'")

    def _one(self, expr: ast.Subscript, items: list[ast.expr]) -> Attribute:
        if len(items) != 1:
            raise self.fail(expr, f"{ast.unparse(expr.value)} takes 1 type argument, got {len(items)}")
        return self.parse(items[0])


def type_str(t: Attribute) -> str:
    """A type as TorchScript spells it in messages (`List[int]` is `int[]`)."""
    try:
        return to_torchscript_str(t)
    except ValueError:
        return str(t)


NUMBER = typing.Union[int, float, bool]  # noqa: UP007 -- the typing object itself
"""`torch.types.Number`: a name for it means TorchScript's `Scalar` (NumberType), as
`torch/jit/annotations.py` maps it; spelled out as a Union it stays a Union."""


def python_type(obj: object) -> Attribute | None:
    """The TorchScript type a Python class or typing object denotes, if it is a leaf
    (`int`, `torch.Tensor`, `Any`, `None`, `torch.device`)."""
    if obj is None or obj is type(None):
        return NoneType()
    if obj is typing.Any:
        return AnyType()
    if obj is numbers.Number or obj == NUMBER:
        return NumberType()
    if isinstance(obj, type):
        if obj in _BUILTIN_TYPES:
            return _BUILTIN_TYPES[obj]()
        name = f"{obj.__module__}.{obj.__qualname__}"
        if name in _TORCH_CLASSES:
            return _TORCH_CLASSES[name]()
    return None


_BUILTIN_TYPES: dict[type, Callable[[], Attribute]] = {
    builtins.int: IntType, builtins.float: FloatType, builtins.bool: BoolType, builtins.str: StrType,
    builtins.complex: ComplexScalarType,
}  # fmt: skip
_TORCH_CLASSES: dict[str, Callable[[], Attribute]] = {
    "torch.Tensor": TensorType, "torch._tensor.Tensor": TensorType, "torch.nn.parameter.Parameter": TensorType,
    "tsjit.frontend.torch_shim._tensor.Tensor": TensorType,
    "tsjit.frontend.torch_shim.nn.module.Parameter": TensorType,
    "torch.device": DeviceType, "tsjit.frontend.torch_shim._tensor.device": DeviceType,
    "torch.dtype": IntType, "tsjit.frontend.torch_shim._tensor.dtype": IntType,
}  # fmt: skip


def _named_like(obj: object, name: str) -> bool:
    return getattr(obj, "__name__", None) == name or getattr(obj, "_name", None) == name


def _is_broadcasting_list_name(expr: ast.expr) -> bool:
    text = ast.unparse(expr)
    return text.rsplit(".", 1)[-1] in ("BroadcastingList1", "BroadcastingList2", "BroadcastingList3")


def _union(types: list[Attribute]) -> Attribute:
    return union_of(types)
