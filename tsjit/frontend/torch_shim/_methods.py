"""Tensor methods and Python operators, bound to schema operators.

`x.relu()` is `aten::relu`, `x + y` is `aten::add`, `2 - x` is `aten::rsub` and
`x.float()` is `aten::to` with `torch.float32`, as PyTorch's `Tensor` defines them (so
a trace records the same nodes `torch.jit.trace` does). Operators named after a method
are bound on first use (`install_method`); the Python operators and the methods PyTorch
writes in Python are bound here, from tables.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from tsjit.frontend.torch_shim._dispatch import binary_method, function
from tsjit.frontend.torch_shim._tensor import DTYPES_BY_NAME, Tensor

BINARY_OPERATORS: dict[str, tuple[str, bool]] = {
    "__add__": ("aten::add", False), "__radd__": ("aten::add", False), "__iadd__": ("aten::add_", False),
    "__sub__": ("aten::sub", False), "__rsub__": ("aten::rsub", False), "__isub__": ("aten::sub_", False),
    "__mul__": ("aten::mul", False), "__rmul__": ("aten::mul", False), "__imul__": ("aten::mul_", False),
    "__truediv__": ("aten::div", False), "__itruediv__": ("aten::div_", False),
    "__floordiv__": ("aten::floor_divide", False), "__rfloordiv__": ("aten::floor_divide", True),
    "__ifloordiv__": ("aten::floor_divide_", False),
    "__mod__": ("aten::remainder", False), "__rmod__": ("aten::remainder", True),
    "__imod__": ("aten::remainder_", False),
    "__pow__": ("aten::pow", False), "__rpow__": ("aten::pow", True), "__ipow__": ("aten::pow_", False),
    "__matmul__": ("aten::matmul", False), "__rmatmul__": ("aten::matmul", True),
    "__and__": ("aten::__and__", False), "__rand__": ("aten::__and__", False), "__iand__": ("aten::__iand__", False),
    "__or__": ("aten::__or__", False), "__ror__": ("aten::__or__", False), "__ior__": ("aten::__ior__", False),
    "__xor__": ("aten::__xor__", False), "__rxor__": ("aten::__xor__", False), "__ixor__": ("aten::__ixor__", False),
    "__lshift__": ("aten::__lshift__", False), "__ilshift__": ("aten::__ilshift__", False),
    "__rshift__": ("aten::__rshift__", False), "__irshift__": ("aten::__irshift__", False),
    "__eq__": ("aten::eq", False), "__ne__": ("aten::ne", False), "__lt__": ("aten::lt", False),
    "__le__": ("aten::le", False), "__gt__": ("aten::gt", False), "__ge__": ("aten::ge", False),
}  # fmt: skip
"""Python's binary operators: (operator, reflected): `__rpow__(x, 2)` is `pow(2, x)`,
while `__radd__(x, 2)` is `add(x, 2)`, as PyTorch records them."""

UNARY_OPERATORS: dict[str, str] = {
    "__neg__": "aten::neg", "__pos__": "aten::positive", "__abs__": "aten::abs", "__invert__": "aten::bitwise_not",
}  # fmt: skip

CAST_METHODS: dict[str, str] = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
    "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool", "cfloat": "complex64",
    "cdouble": "complex128",
}  # fmt: skip
"""`x.float()` is `x.to(torch.float32)` (`aten::to.dtype`), as in PyTorch."""

PROPERTY_OPERATORS: dict[str, str] = {"T": "aten::numpy_T", "mT": "aten::mT"}


def install_method(name: str) -> Callable[..., Any] | None:
    """Binds `Tensor.<name>` to the operator `aten::<name>` when one of its overloads
    takes a tensor `self`; None when there is none."""
    if name.startswith("__") or not name.isidentifier():
        return None
    operator = f"aten::{name}"
    if not _takes_tensor_self(operator):
        return None
    method = function(operator, f"Tensor.{name}", method=True)
    setattr(Tensor, name, method)
    return method


def _takes_tensor_self(operator: str) -> bool:
    from tsjit.dialects.schema import has_operator, schemas_for
    from tsjit.dialects.types import TensorType

    if not has_operator(operator):
        return False
    for schema in schemas_for(operator):
        arguments = schema.arguments
        if arguments and arguments[0].name == "self" and isinstance(arguments[0].type, TensorType):
            return True
    return False


def _reciprocal_times(self: Tensor, other: object) -> Any:
    """`2 / x`: PyTorch's `__rtruediv__` is `x.reciprocal() * 2`."""
    return self.reciprocal() * other  # pyright: ignore[reportAttributeAccessIssue]


def _cast(torch_name: str) -> Callable[..., Any]:
    to = function("aten::to", "Tensor.to", method=True)
    target = DTYPES_BY_NAME[torch_name]

    def cast(self: Tensor, memory_format: object = None) -> Any:
        return to(self, target) if memory_format is None else to(self, target, memory_format=memory_format)

    cast.__name__ = cast.__qualname__ = torch_name
    return cast


def _property(operator: str, name: str) -> property:
    method = function(operator, f"Tensor.{name}", method=True)
    return property(method)


def _install() -> None:
    for dunder, (operator, reflected) in BINARY_OPERATORS.items():
        setattr(Tensor, dunder, binary_method(operator, f"Tensor.{dunder}", reflected))
    Tensor.__rtruediv__ = _reciprocal_times  # pyright: ignore[reportAttributeAccessIssue]
    Tensor.__hash__ = object.__hash__  # `__eq__` is an operator: tensors hash by identity, as in PyTorch
    for dunder, operator in UNARY_OPERATORS.items():
        setattr(Tensor, dunder, function(operator, f"Tensor.{dunder}", method=True))
    for name, torch_name in CAST_METHODS.items():
        setattr(Tensor, name, _cast(torch_name))
    for name, operator in PROPERTY_OPERATORS.items():
        setattr(Tensor, name, _property(operator, name))
    from tsjit.frontend.torch_shim import _indexing

    Tensor.__getitem__ = _indexing.getitem  # pyright: ignore[reportAttributeAccessIssue]
    Tensor.__setitem__ = _indexing.setitem  # pyright: ignore[reportAttributeAccessIssue]
    Tensor.__contains__ = _contains  # pyright: ignore[reportAttributeAccessIssue]
    Tensor.type = _type  # pyright: ignore[reportAttributeAccessIssue]
    Tensor.new_tensor = _new_tensor  # pyright: ignore[reportAttributeAccessIssue]


def _contains(self: Tensor, element: object) -> bool:
    return builtins.bool((self == element).any())  # pyright: ignore[reportAttributeAccessIssue]


def _type(self: Tensor, dtype: object = None, non_blocking: bool = False) -> Any:
    """`x.type()` names the tensor type (`torch.FloatTensor`); `x.type(torch.float64)` casts."""
    if dtype is None:
        names = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                 "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}  # fmt: skip
        return f"torch.{names.get(self.dtype.torch_name, self.dtype.torch_name)}Tensor"
    return self.to(dtype)  # pyright: ignore[reportAttributeAccessIssue]


def _new_tensor(self: Tensor, data: object, dtype: object = None, device: object = None,
                requires_grad: bool = False) -> Tensor:  # fmt: skip
    from tsjit.frontend.torch_shim import tensor

    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)  # pyright: ignore[reportArgumentType]


_install()
