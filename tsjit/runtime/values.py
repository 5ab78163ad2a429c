"""Run-time values of TorchScript programs and their JSON encoding.

Values are plain Python and numpy objects, so kernels stay minimal and fast:

    Tensor                       numpy.ndarray (views share memory; a 0-dim tensor is a 0-d array)
    int, float, bool, str, None  themselves
    List[T], Tuple[...], Dict    list (mutable, shared), tuple, dict (insertion order)
    NamedTuple                   NamedTupleValue, a tuple that knows its class and field names
    Device                       Device
    ScalarType, Layout, MemoryFormat  int, as TorchScript passes them
    class and module instances   ScriptObject

The JSON encoding is the conformance corpus's (`{"int": 3}`, `{"tensor": {...}}`, ...),
extended to complex numbers, which the corpus does not use: `{"complex": [re, im]}`, and
complex tensors whose `data` holds `[re, im]` pairs;
`match_value` compares with its rules: float tolerance `|a - e| <= atol + rtol * |e|` on float
tensors and float scalars, NaN matches NaN, everything else exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from xdsl.ir import Attribute

from tsjit.dialects import types as ts
from tsjit.dialects.constant_values import EnumMember
from tsjit.dialects.types import DTYPE_BY_CODE, DTYPE_BY_TORCH_NAME, DTYPES, DType
from tsjit.runtime.errors import TorchScriptError

Value = Any
"""Any run-time value (see the module docstring); kept as a name for signatures."""

# --------------------------------------------------------------------------------------
# dtypes: TorchScript ScalarType <-> numpy
# --------------------------------------------------------------------------------------


def _numpy_of(dtype: DType) -> np.dtype | None:
    try:
        return np.dtype(dtype.torch_name)
    except TypeError:  # bfloat16: numpy has no such type
        return None


NUMPY_DTYPE_BY_CODE: tuple[np.dtype | None, ...] = tuple(
    _numpy_of(DTYPE_BY_CODE[code]) if code in DTYPE_BY_CODE else None
    for code in range(max(DTYPE_BY_CODE) + 1)
)
"""numpy dtype per ScalarType code (a tuple, indexed by code: the kernels' hot path)."""

DTYPE_BY_NUMPY: dict[np.dtype, DType] = {
    np_dtype: d for d in DTYPES if (np_dtype := _numpy_of(d)) is not None
}
"""The TorchScript dtype record (name, code, torch name) of each supported numpy dtype."""

DEFAULT_DTYPE = np.dtype(np.float32)
"""torch.get_default_dtype(): the dtype of float factories and of int/float promotion."""


def numpy_dtype(code: int) -> np.dtype:
    """The numpy dtype of a ScalarType code, or a TorchScript error for unsupported ones."""
    try:
        dtype = NUMPY_DTYPE_BY_CODE[code]
    except (IndexError, TypeError):
        dtype = None
    if dtype is None:
        name = DTYPE_BY_CODE[code].name if code in DTYPE_BY_CODE else str(code)
        raise TorchScriptError(f"dtype {name} is not supported by the numpy runtime")
    return dtype


def scalar_type(dtype: np.dtype) -> int:
    """The ScalarType code of a numpy dtype (what `prim::dtype` returns)."""
    return DTYPE_BY_NUMPY[dtype].code


def dtype_name(dtype: np.dtype) -> str:
    """TorchScript's name of a dtype, as in error messages: "Float", "Long"."""
    return DTYPE_BY_NUMPY[dtype].name


# --------------------------------------------------------------------------------------
# Value types numpy and Python do not provide
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Device:
    """A torch.device; tensors always live on the CPU, but programs pass devices around."""

    type: str = "cpu"
    index: int | None = None

    @staticmethod
    def parse(text: str) -> Device:
        kind, _, index = text.partition(":")
        if not kind or (index and not index.isdigit()):
            raise TorchScriptError(f"Invalid device string: '{text}'")
        return Device(kind, int(index) if index else None)

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"


CPU = Device("cpu")


class NamedTupleValue(tuple):
    """An instance of a NamedTuple class: tuple semantics plus the class and field names."""

    qualified_name: str
    fields: tuple[str, ...]

    def __new__(cls, values, qualified_name: str, fields: tuple[str, ...]) -> NamedTupleValue:
        instance = super().__new__(cls, values)
        instance.qualified_name = qualified_name
        instance.fields = tuple(fields)
        return instance

    def __repr__(self) -> str:
        items = ", ".join(f"{f}={v!r}" for f, v in zip(self.fields, self))
        return f"{self.qualified_name}({items})"


class ScriptObject:
    """An instance of a TorchScript class or module: reference semantics, named attributes."""

    __slots__ = ("qualified_name", "attributes")

    def __init__(self, qualified_name: str, attributes: dict[str, Value] | None = None):
        self.qualified_name = qualified_name
        self.attributes = {} if attributes is None else attributes

    def __repr__(self) -> str:
        return f"<{self.qualified_name} object with {sorted(self.attributes)}>"


def is_instance(value: Value, t: Attribute) -> bool:
    """Whether a run-time value is of TorchScript type `t` (`prim::isinstance`). A list
    or dict does not carry its element types, so its elements are checked; an empty
    one is an instance of every list (dict) type."""
    if isinstance(t, ts.AnyType):
        return True
    if isinstance(t, ts.OptionalType):
        return value is None or is_instance(value, t.element_type)
    if isinstance(t, ts.UnionType):
        return any(is_instance(value, m) for m in t.types)
    check = _SCALAR_CHECKS.get(type(t))
    if check is not None:
        return check(value)
    if isinstance(t, ts.TensorType):
        return isinstance(value, np.ndarray) and (t.dtype_info is None or DTYPE_BY_NUMPY.get(value.dtype) == t.dtype_info)
    if isinstance(t, ts.ListType):
        return isinstance(value, list) and all(is_instance(v, t.element_type) for v in value)
    if isinstance(t, ts.TupleType):
        return (
            isinstance(value, tuple)
            and len(value) == len(t.types)
            and all(is_instance(v, e) for v, e in zip(value, t.types))
        )
    if isinstance(t, ts.DictType):
        return isinstance(value, dict) and all(
            is_instance(k, t.key_type) and is_instance(v, t.value_type) for k, v in value.items()
        )
    if isinstance(t, ts.ClassType):
        return isinstance(value, ScriptObject) and value.qualified_name == t.qualname.data
    if isinstance(t, ts.EnumType):
        return isinstance(value, EnumMember) and value.class_name == t.qualname.data
    if isinstance(t, ts.OpaqueType):
        kind = {"AnyList": list, "AnyTuple": tuple, "AnyClass": ScriptObject, "AnyClassType": ScriptObject}
        return isinstance(value, kind.get(t.qualname.data, ()))
    return False


def _is_int(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_SCALAR_CHECKS: dict[type, Any] = {}


def _scalar_checks() -> None:
    _SCALAR_CHECKS.update({
        ts.IntType: _is_int,
        ts.FloatType: lambda v: isinstance(v, float),
        ts.BoolType: lambda v: isinstance(v, bool),
        ts.StrType: lambda v: isinstance(v, str),
        ts.NoneType: lambda v: v is None,
        ts.DeviceType: lambda v: isinstance(v, Device),
        ts.NumberType: lambda v: isinstance(v, (int, float, complex)) and not isinstance(v, bool),
        ts.ComplexScalarType: lambda v: isinstance(v, complex),
    })  # fmt: skip


_scalar_checks()


def value_type(value: Value) -> Attribute:
    """The TorchScript type of a run-time value, as far as the value shows it (`Any`
    for the elements of a container that mixes types)."""
    if value is None:
        return ts.NoneType()
    if isinstance(value, bool):
        return ts.BoolType()
    if isinstance(value, int):
        return ts.IntType()
    if isinstance(value, float):
        return ts.FloatType()
    if isinstance(value, str):
        return ts.StrType()
    if isinstance(value, np.ndarray):
        return ts.TensorType()
    if isinstance(value, Device):
        return ts.DeviceType()
    if isinstance(value, ScriptObject):
        return ts.ClassType(value.qualified_name)
    if isinstance(value, EnumMember):
        return ts.EnumType(value.class_name)
    if isinstance(value, NamedTupleValue):
        return ts.TupleType([value_type(v) for v in value], list(value.fields), value.qualified_name)  # pyright: ignore[reportArgumentType]
    if isinstance(value, tuple):
        return ts.TupleType([value_type(v) for v in value])  # pyright: ignore[reportArgumentType]
    if isinstance(value, list):
        return ts.ListType(_common([value_type(v) for v in value]))
    if isinstance(value, dict):
        return ts.DictType(_common([value_type(k) for k in value]), _common([value_type(v) for v in value.values()]))
    return ts.AnyType()


def _common(types: list[Attribute]) -> Attribute:
    if not types:
        return ts.AnyType()
    first = types[0]
    return first if all(t == first for t in types) else ts.AnyType()


# --------------------------------------------------------------------------------------
# JSON encoding
# --------------------------------------------------------------------------------------

_NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def decode_value(obj: Mapping[str, Any], where: str = "value") -> Value:
    """The run-time value of one JSON-encoded value (`{"int": 3}`); a ValueError naming
    `where` for anything the encoding does not allow."""
    if not isinstance(obj, Mapping) or len(obj) != 1:
        raise ValueError(f"{where}: an encoded value is an object with exactly one key, got {_short(obj)}")
    ((kind, payload),) = obj.items()
    if kind == "tensor":
        return _decode_tensor(payload, where)
    if kind in ("list", "tuple"):
        if not isinstance(payload, list):
            raise ValueError(f"{where}: '{kind}' expects a JSON array, got {_short(payload)}")
        items = [decode_value(v, f"{where}[{i}]") for i, v in enumerate(payload)]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return _decode_dict(payload, where)
    if kind == "float":
        return _float_element(payload, where)
    if kind == "complex":
        if not isinstance(payload, list) or len(payload) != 2:
            raise ValueError(f"{where}: 'complex' expects [re, im], got {_short(payload)}")
        return complex(*(_float_element(x, where) for x in payload))
    if kind == "none":
        if payload is not None:
            raise ValueError(f"{where}: 'none' expects null, got {_short(payload)}")
        return None
    if kind == "device":
        if not isinstance(payload, str):
            raise ValueError(f"{where}: 'device' expects a JSON string, got {_short(payload)}")
        try:
            return Device.parse(payload)
        except TorchScriptError as error:
            raise ValueError(f"{where}: {error.message}") from None
    expected = {"int": int, "bool": bool, "str": str}.get(kind)
    if expected is None:
        raise ValueError(f"{where}: unknown value kind '{kind}'")
    if type(payload) is not expected:
        raise ValueError(f"{where}: '{kind}' expects a JSON {expected.__name__}, got {_short(payload)}")
    return payload


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _decode_dict(payload: object, where: str) -> dict[Any, Any]:
    if not isinstance(payload, list):
        raise ValueError(f"{where}: 'dict' expects a JSON array of [key, value] pairs, got {_short(payload)}")
    result: dict[Any, Any] = {}
    for i, pair in enumerate(payload):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{where}: dict entry {i} is not a [key, value] pair: {_short(pair)}")
        key = decode_value(pair[0], f"{where} key {i}")
        if not isinstance(key, str | int | float | bool):
            raise ValueError(f"{where}: dict key {i} is a {type(key).__name__}; keys are str, int, float or bool")
        result[key] = decode_value(pair[1], f"{where}[{i}]")
    return result


def _float_element(value: object, where: str) -> float:
    if type(value) is float or type(value) is int:
        return float(value)
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    raise ValueError(f"{where}: a float is a JSON number or \"nan\", \"inf\", \"-inf\", got {_short(value)}")


def _decode_tensor(payload: object, where: str) -> np.ndarray:
    if not isinstance(payload, Mapping):
        raise ValueError(f"{where}: 'tensor' expects an object with dtype, shape and data, got {_short(payload)}")
    missing = [key for key in ("dtype", "shape", "data") if key not in payload]
    if missing:
        raise ValueError(f"{where}: the tensor has no '{missing[0]}'")
    name = payload["dtype"]
    record = DTYPE_BY_TORCH_NAME.get(name) if isinstance(name, str) else None
    np_dtype = _numpy_of(record) if record else None
    if record is None or np_dtype is None:
        raise ValueError(f"{where}: unsupported tensor dtype {_short(name)}")
    shape = payload["shape"]
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"{where}: a tensor's shape is a JSON array of non-negative ints, got {_short(shape)}")
    data = payload["data"]
    if not isinstance(data, list):
        raise ValueError(f"{where}: a tensor's data is a JSON array, got {_short(data)}")
    if len(data) != math.prod(shape):
        raise ValueError(f"{where}: tensor of shape {shape} needs {math.prod(shape)} elements, got {len(data)}")
    if record.is_floating:
        flat = [x if type(x) is float else _float_element(x, f"{where} element {i}") for i, x in enumerate(data)]
        return np.array(flat, dtype=np.float64).astype(np_dtype).reshape(shape)
    if record.is_complex:
        if not all(isinstance(x, list) and len(x) == 2 for x in data):
            raise ValueError(f"{where}: a complex tensor's data holds [re, im] pairs")
        pairs = [complex(_float_element(re, where), _float_element(im, where)) for re, im in data]
        return np.array(pairs, dtype=np.complex128).astype(np_dtype).reshape(shape)
    if np_dtype == np.bool_:
        if not all(type(x) is bool for x in data):
            raise ValueError(f"{where}: a bool tensor's data are JSON true and false")
        return np.array(data, dtype=np_dtype).reshape(shape)
    limits = np.iinfo(np_dtype)
    if not all(type(x) is int and limits.min <= x <= limits.max for x in data):
        raise ValueError(f"{where}: an {name} tensor's data are JSON integers in [{limits.min}, {limits.max}]")
    return np.array(data, dtype=np_dtype).reshape(shape)


def encode_value(value: Value, where: str = "value") -> dict[str, Any]:
    """The JSON encoding of a run-time value; `Device` encodes as `{"device": "cpu"}`."""
    kind = type(value)
    if kind is bool:
        return {"bool": value}
    if kind is int:
        return {"int": value}
    if kind is float:
        return {"float": _encode_float(value)}
    if kind is complex:
        return {"complex": [_encode_float(value.real), _encode_float(value.imag)]}
    if kind is str:
        return {"str": value}
    if value is None:
        return {"none": None}
    if kind is np.ndarray:
        return {"tensor": _encode_tensor(value, where)}
    if kind is list:
        return {"list": [encode_value(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, tuple):
        return {"tuple": [encode_value(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if kind is dict:
        return {
            "dict": [
                [encode_value(k, f"{where} key {i}"), encode_value(v, f"{where}[{k!r}]")]
                for i, (k, v) in enumerate(value.items())
            ]
        }
    if kind is Device:
        return {"device": str(value)}
    raise ValueError(f"{where}: a {kind.__name__} value has no JSON encoding")


def _encode_float(x: float) -> float | str:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _encode_tensor(array: np.ndarray, where: str) -> dict[str, Any]:
    dtype = DTYPE_BY_NUMPY.get(array.dtype)
    if dtype is None:
        raise ValueError(f"{where}: a {array.dtype} tensor has no JSON encoding")
    flat = array.ravel()
    if dtype.is_complex:
        data = [[_encode_float(float(str(x.real))), _encode_float(float(str(x.imag)))] for x in flat]
    elif dtype.is_floating:
        # str() of a numpy float is its shortest round-trip decimal in its own precision.
        data = [_encode_float(float(str(x))) for x in flat]
    else:
        data = flat.tolist()
    return {"dtype": dtype.torch_name, "shape": list(array.shape), "data": data}


# --------------------------------------------------------------------------------------
# Comparison under the corpus rules
# --------------------------------------------------------------------------------------


def _kind(value: Value) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return "tuple"
    if type(value) is np.ndarray:
        return "tensor"
    return type(value).__name__


def match_value(
    actual: Value, expected: Value, rtol: float = 1e-5, atol: float = 1e-6, where: str = "output"
) -> str | None:
    """None when `actual` matches `expected`, else one line naming the first mismatch
    (a tensor that records gradients compares as its data)."""
    actual, expected = _data(actual), _data(expected)
    kind = _kind(actual)
    if kind != _kind(expected):
        return f"{where}: {kind} != {_kind(expected)}"
    if kind == "tensor":
        return _match_tensor(actual, expected, rtol, atol, where)
    if kind == "float":
        if _close(actual, expected, rtol, atol):
            return None
        return f"{where}: {actual!r} != {expected!r} (rtol={rtol}, atol={atol})"
    if kind in ("list", "tuple"):
        if len(actual) != len(expected):
            return f"{where}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            if (mismatch := match_value(a, e, rtol, atol, f"{where}[{i}]")) is not None:
                return mismatch
        return None
    if kind == "dict":
        if len(actual) != len(expected):
            return f"{where}: {len(actual)} keys != {len(expected)}"
        for i, ((ka, va), (ke, ve)) in enumerate(zip(actual.items(), expected.items())):
            mismatch = match_value(ka, ke, rtol, atol, f"{where} key {i}") or match_value(
                va, ve, rtol, atol, f"{where}[{ke!r}]"
            )
            if mismatch is not None:
                return mismatch
        return None
    if kind == "ScriptObject":
        return None if actual is expected else f"{where}: a different {actual.qualified_name} object"
    return None if actual == expected else f"{where}: {actual!r} != {expected!r}"


def _data(value: Value) -> Value:
    from tsjit.runtime.autograd.variable import Variable

    return value.array if isinstance(value, Variable) else value


def _close(a: float, e: float, rtol: float, atol: float) -> bool:
    if math.isnan(e) or math.isinf(e):
        return a == e or (math.isnan(a) and math.isnan(e))
    return abs(a - e) <= atol + rtol * abs(e)


def _match_tensor(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, where: str) -> str | None:
    if a.dtype != e.dtype:
        return f"{where}: dtype {a.dtype} != {e.dtype}"
    if a.shape != e.shape:
        return f"{where}: shape {list(a.shape)} != {list(e.shape)}"
    if a.dtype.kind in "fc":
        a64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        e64 = e.astype(a64.dtype)
        with np.errstate(invalid="ignore"):
            ok = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
            ok |= np.isfinite(e64) & (np.abs(a64 - e64) <= atol + rtol * np.abs(e64))
    else:
        ok = a == e
    if ok.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    return f"{where}: element {list(index)}: {str(a[index])} != {str(e[index])} (rtol={rtol}, atol={atol})"
