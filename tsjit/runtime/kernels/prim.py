"""prim:: operators that have schemas, plus the identity and container-building builtins.

Tensor properties (`prim::dtype`, `prim::device`, `prim::is_cuda`, ...) describe numpy
arrays: always on the CPU, strided, never requiring grad. `prim::NumToTensor` makes the
0-dim tensor TorchScript makes (float -> float64, int -> int64). `prim::RaiseException`
raises with the Python class TorchScript reports (`builtins.ValueError` -> "ValueError";
no class, as for failed asserts -> "RuntimeError"). The structural container ops
(ListConstruct, TupleConstruct, ...) have no schema but the same calling convention.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tsjit.dialects.constant_values import EnumMember
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.values import CPU, Device, scalar_type

ndarray = np.ndarray

STRIDED = 0  # torch.strided, the only layout


@kernel("prim::dtype")
def dtype(a: ndarray) -> int:
    return scalar_type(a.dtype)


def constant_property(value: object) -> Kernel:
    """The kernel of a tensor property with one answer for every numpy array."""

    def property_of(a: ndarray) -> object:
        return value

    return property_of


for _name, _value in (
    ("prim::device", CPU),
    ("prim::layout", STRIDED),
    ("prim::requires_grad", False),
    ("prim::grad", None),
    ("prim::name", None),
    ("prim::is_cpu", True),
    ("prim::is_cuda", False),
    ("prim::is_xpu", False),
    ("prim::is_xla", False),
    ("prim::is_mps", False),
    ("prim::is_ipu", False),
    ("prim::is_maia", False),
    ("prim::is_mtia", False),
    ("prim::is_meta", False),
    ("prim::is_vulkan", False),
    ("prim::is_mkldnn", False),
    ("prim::is_sparse", False),
    ("prim::is_sparse_csr", False),
    ("prim::is_quantized", False),
    ("prim::is_nested", False),
):
    register_kernel(_name, constant_property(_value))


@kernel("prim::data")
def data(a: ndarray) -> ndarray:
    return a.view()


@kernel("prim::itemsize", "aten::element_size")
def itemsize(a: ndarray) -> int:
    return a.itemsize


@kernel("prim::nbytes")
def nbytes(a: ndarray) -> int:
    return a.nbytes


@kernel("prim::index")
def device_index(self: Device) -> int | None:
    return self.index


@kernel("prim::type")
def device_type(self: Device) -> str:
    return self.type


@kernel("aten::device")
def make_device(a: str) -> Device:
    return Device.parse(a)


@kernel("aten::device.with_index")
def make_device_with_index(type: str, index: int) -> Device:
    return Device(type, index)


@kernel("aten::eq.device")
def device_eq(a: Device, b: Device) -> bool:
    return a == b


@kernel("prim::tolist")
def tolist(*args: object) -> object:
    tensor, dim, _elem_type = args
    if tensor.ndim != dim:
        raise TorchScriptError(
            f"Output annotation list dimension and runtime tensor dimension must match for tolist(), "
            f"got {dim} and {tensor.ndim}"
        )
    return tensor.tolist()


# --------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------


@kernel("prim::NumToTensor.Scalar", "prim::NumToTensor.bool")
def num_to_tensor(a: object) -> ndarray:
    return np.array(a, dtype=np.float64 if type(a) is float else None)


@kernel("prim::abs.int", "prim::abs.float", "prim::abs.Scalar", "prim::abs.complex")
def abs_(a: object) -> object:
    return abs(a)


def _extremum(pick: Callable[[object, object], object]) -> Callable[[object, object], object]:
    """min/max of numbers: an int and a float give a float in TorchScript, whichever wins."""

    def run(a: object, b: object) -> object:
        result = pick(a, b)
        return float(result) if type(a) is not type(b) else result

    return run


for _name, _pick in (("min", min), ("max", max)):
    register_kernel(f"prim::{_name}.int", _pick)
    register_kernel(f"prim::{_name}.float", _pick)
    for _suffix in (".int_float", ".float_int", ""):
        register_kernel(f"prim::{_name}{_suffix}", _extremum(_pick))


# --------------------------------------------------------------------------------------
# Identity, optionals, exceptions
# --------------------------------------------------------------------------------------

_VALUE_TYPES = (int, float, bool, complex)


@kernel("aten::__is__")
def is_(self: object, obj: object) -> bool:
    """IValue::is: identity for objects and tensors, equality (of the same type) for numbers."""
    if type(self) in _VALUE_TYPES:
        return type(self) is type(obj) and self == obj
    return self is obj


@kernel("aten::__isnot__")
def is_not(self: object, obj: object) -> bool:
    return not is_(self, obj)


@kernel("prim::unchecked_cast", "prim::unchecked_unwrap_optional")
def unchecked_cast(x: object) -> object:
    return x


@kernel("prim::Uninitialized")
def uninitialized() -> None:
    return None


@kernel("prim::id")
def id_(x: object) -> int:
    return 0 if x is None else id(x)


@kernel("prim::RaiseException")
def raise_exception(msg: str, cls: str | None = None) -> None:
    raise TorchScriptError(msg, cls.rpartition(".")[2] if cls else "RuntimeError")


# --------------------------------------------------------------------------------------
# Building and taking apart containers
# --------------------------------------------------------------------------------------


@kernel("prim::ListConstruct")
def list_construct(*items: object) -> list:
    return list(items)


@kernel("prim::TupleConstruct")
def tuple_construct(*items: object) -> tuple:
    return items


@kernel("prim::DictConstruct")
def dict_construct(*keys_and_values: object) -> dict:
    return dict(zip(keys_and_values[::2], keys_and_values[1::2]))


@kernel("prim::TupleUnpack", "prim::ListUnpack")
def unpack(container: tuple | list) -> tuple:
    return tuple(container)


@kernel("prim::TupleIndex")
def tuple_index(tup: tuple, i: int) -> object:
    try:
        return tup[i]
    except IndexError:
        raise TorchScriptError(f"Tuple index out of range: index {i}, tuple size {len(tup)}") from None


# --------------------------------------------------------------------------------------
# Enum values: members with their declared values (`tsjit.dialects.constant_values.EnumMember`)
# --------------------------------------------------------------------------------------


@kernel("prim::EnumName")
def enum_name(member: EnumMember) -> str:
    return member.name


@kernel("prim::EnumValue.int", "prim::EnumValue.float", "prim::EnumValue.str")
def enum_value(member: EnumMember) -> object:
    return member.value


@kernel("aten::eq.enum")
def enum_eq(a: EnumMember, b: EnumMember) -> bool:
    return a == b


@kernel("aten::ne.enum")
def enum_ne(a: EnumMember, b: EnumMember) -> bool:
    return a != b
