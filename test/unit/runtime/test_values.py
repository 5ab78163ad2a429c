"""Run-time values: dtype tables, the corpus JSON encoding, and comparison under its rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import (
    CPU,
    DEFAULT_DTYPE,
    Device,
    NamedTupleValue,
    ScriptObject,
    decode_value,
    dtype_name,
    encode_value,
    match_value,
    numpy_dtype,
    scalar_type,
)


def test_scalar_type_codes_follow_c10():
    assert numpy_dtype(6) == np.float32 and numpy_dtype(7) == np.float64 and numpy_dtype(4) == np.int64
    assert numpy_dtype(0) == np.uint8 and numpy_dtype(11) == np.bool_ and numpy_dtype(9) == np.complex64
    assert [scalar_type(np.dtype(t)) for t in ("int8", "int16", "int32", "float16")] == [1, 2, 3, 5]
    assert dtype_name(np.dtype("int64")) == "Long" and DEFAULT_DTYPE == np.float32


def test_unsupported_dtype_is_a_torchscript_error():
    with pytest.raises(TorchScriptError, match="BFloat16"):
        numpy_dtype(15)
    with pytest.raises(TorchScriptError, match="dtype 42"):
        numpy_dtype(42)


def test_device_parse_and_print():
    assert Device.parse("cuda:1") == Device("cuda", 1) and str(Device("cuda", 1)) == "cuda:1"
    assert Device.parse("cpu") == CPU and str(CPU) == "cpu"
    with pytest.raises(TorchScriptError, match="Invalid device string: 'cuda:x'"):
        Device.parse("cuda:x")


def test_named_tuple_is_a_tuple_with_fields():
    point = NamedTupleValue((1, 2.5), "__torch__.P", ("x", "y"))
    assert point == (1, 2.5) and point[1] == 2.5 and point.fields == ("x", "y")
    assert repr(point) == "__torch__.P(x=1, y=2.5)"


def test_decode_scalars_and_containers():
    assert decode_value({"int": 3}) == 3 and decode_value({"bool": True}) is True
    assert math.isnan(decode_value({"float": "nan"})) and decode_value({"float": "-inf"}) == -math.inf
    assert decode_value({"none": None}) is None and decode_value({"str": "x"}) == "x"
    value = decode_value({"dict": [[{"str": "b"}, {"list": [{"int": 1}]}], [{"str": "a"}, {"tuple": []}]]})
    assert value == {"b": [1], "a": ()} and list(value) == ["b", "a"]


def test_decode_tensor_rounds_through_float64():
    tensor = decode_value({"tensor": {"dtype": "float32", "shape": [2, 2], "data": [0.1, "inf", "nan", -2]}})
    assert tensor.dtype == np.float32 and tensor.shape == (2, 2)
    assert tensor[0, 0] == np.float32(0.1) and tensor[0, 1] == np.inf and np.isnan(tensor[1, 0])
    empty = decode_value({"tensor": {"dtype": "int64", "shape": [0, 3], "data": []}})
    assert empty.shape == (0, 3) and empty.dtype == np.int64
    scalar = decode_value({"tensor": {"dtype": "bool", "shape": [], "data": [True]}})
    assert scalar.shape == () and scalar.dtype == np.bool_ and bool(scalar)


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"int": 1, "float": 2.0}, "exactly one key"),
        ({"frob": 1}, "unknown value kind 'frob'"),
        ({"int": "3"}, "'int' expects a JSON int"),
        ({"tensor": {"dtype": "float33", "shape": [1], "data": [1]}}, "unsupported tensor dtype"),
        ({"tensor": {"dtype": "int64", "shape": [2], "data": [1]}}, "needs 2 elements"),
    ],
)
def test_decode_errors_name_the_place(obj, message):
    with pytest.raises(ValueError, match=message) as info:
        decode_value({"list": [{"int": 0}, obj]})
    assert str(info.value).startswith("value[1]: ")


def test_encode_float32_uses_shortest_float32_decimal():
    encoded = encode_value(np.array([0.1, 1 / 3, np.inf], dtype=np.float32))
    assert encoded == {"tensor": {"dtype": "float32", "shape": [3], "data": [0.1, 0.33333334, "inf"]}}


def test_encode_round_trips():
    value = (1, 2.5, True, "s", None, [np.arange(3)], {"k": -0.5}, CPU)
    encoded = encode_value(value)
    assert encoded["tuple"][2] == {"bool": True} and encoded["tuple"][7] == {"device": "cpu"}
    assert match_value(decode_value(encoded), value) is None


def test_encode_rejects_values_without_encoding():
    with pytest.raises(ValueError, match=r"value\[0\]: a ScriptObject value has no JSON encoding"):
        encode_value([ScriptObject("__torch__.M")])


def test_complex_values_encode_as_pairs():
    tensor = np.array([1 + 2j, complex(math.inf, -0.5)], dtype=np.complex64)
    encoded = encode_value((tensor, 3 - 1j))
    assert encoded["tuple"][0]["tensor"]["data"] == [[1.0, 2.0], ["inf", -0.5]]
    assert encoded["tuple"][1] == {"complex": [3.0, -1.0]}
    decoded = decode_value(encoded)
    assert decoded[0].dtype == np.complex64 and decoded[1] == 3 - 1j
    np.testing.assert_array_equal(decoded[0], tensor)


def test_match_float_tolerance_is_relative_to_expected():
    assert match_value(1.00001, 1.0, rtol=1e-5, atol=1e-6) is None  # 1e-5 <= 1e-6 + 1e-5
    assert match_value(1.0001, 1.0, rtol=1e-5, atol=1e-6) == "output: 1.0001 != 1.0 (rtol=1e-05, atol=1e-06)"
    assert match_value(math.nan, math.nan) is None
    assert match_value(math.inf, math.inf) is None and match_value(1e300, math.inf) is not None


def test_match_kinds_are_exact():
    assert match_value(1, 1.0) == "output: int != float"
    assert match_value(True, 1) == "output: bool != int"
    assert match_value([1], (1,)) == "output: list != tuple"
    assert match_value((1, [2, 3]), (1, [2, 4])) == "output[1][1]: 3 != 4"
    assert match_value({"a": 1, "b": 2}, {"b": 2, "a": 1}) == "output key 0: 'a' != 'b'"


def test_match_tensors():
    expected = np.array([[1.0, np.nan], [np.inf, 2.0]], dtype=np.float32)
    assert match_value(expected.copy(), expected) is None
    assert match_value(expected.astype(np.float64), expected, where="output[1]") == (
        "output[1]: dtype float64 != float32"
    )
    assert match_value(expected.reshape(4), expected) == "output: shape [4] != [2, 2]"
    off = expected.copy()
    off[1, 1] = 2.1
    assert match_value(off, expected).startswith("output: element [1, 1]: 2.1")
    assert match_value(np.array([1, 2]), np.array([1, 3])).startswith("output: element [1]: 2 != 3")
    flipped = expected.copy()
    flipped[1, 0] = -np.inf
    assert match_value(flipped, expected) is not None


@pytest.mark.parametrize(
    ("encoded", "message"),
    [
        ({"tensor": 3}, "'tensor' expects an object with dtype, shape and data, got 3"),
        ({"tensor": {"dtype": "float32"}}, "the tensor has no 'shape'"),
        ({"tensor": {"dtype": "float32", "shape": 3, "data": [1]}}, "a tensor's shape is a JSON array of non-negative ints, got 3"),
        ({"tensor": {"dtype": "float32", "shape": [1], "data": 1}}, "a tensor's data is a JSON array, got 1"),
        ({"tensor": {"dtype": "float32", "shape": [1], "data": ["x"]}}, 'element 0: a float is a JSON number or "nan", "inf", "-inf", got \'x\''),
        ({"tensor": {"dtype": "int64", "shape": [1], "data": [1.5]}}, "an int64 tensor's data are JSON integers in"),
        ({"tensor": {"dtype": "bool", "shape": [1], "data": [2]}}, "a bool tensor's data are JSON true and false"),
        ({"dict": [1]}, "dict entry 0 is not a [key, value] pair: 1"),
        ({"float": "x"}, 'a float is a JSON number or "nan", "inf", "-inf", got \'x\''),
        ({"device": 3}, "'device' expects a JSON string, got 3"),
        ({"none": 1}, "'none' expects null, got 1"),
    ],
)
def test_malformed_json_values_are_value_errors_naming_the_value(encoded, message):
    with pytest.raises(ValueError) as caught:
        decode_value(encoded, "input 0")
    assert str(caught.value).startswith("input 0")
    assert message in str(caught.value)
