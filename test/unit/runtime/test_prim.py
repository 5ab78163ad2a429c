"""prim:: kernels: tensor properties, NumToTensor, identity, exceptions and containers."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup
from tsjit.runtime.kernels.promotion import result_type
from tsjit.runtime.values import CPU, Device


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_tensor_properties():
    x = np.zeros((2, 3), np.float64)
    assert op("prim::dtype")(x) == 7 and op("prim::device")(x) == CPU and op("prim::layout")(x) == 0
    assert op("prim::is_cuda")(x) is False and op("prim::is_cpu")(x) is True
    assert (
        op("prim::requires_grad")(x) is False and op("prim::nbytes")(x) == 48 and op("prim::itemsize")(x) == 8
    )
    assert op("prim::type")(Device("cuda", 1)) == "cuda" and op("prim::index")(Device("cuda", 1)) == 1
    assert op("aten::device")("cpu") == CPU and op("aten::eq.device")(CPU, Device("cpu")) is True
    assert op("prim::tolist")(np.array([[1.5, 2.0]], np.float32), 2, 1) == [[1.5, 2.0]]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("prim::device", CPU),
        ("prim::layout", 0),
        ("prim::requires_grad", False),
        ("prim::grad", None),
        ("prim::name", None),
        ("prim::is_cpu", True),
        *(
            (f"prim::is_{kind}", False)
            for kind in (
                "cuda",
                "xpu",
                "xla",
                "mps",
                "ipu",
                "maia",
                "mtia",
                "meta",
                "vulkan",
                "mkldnn",
                "sparse",
                "sparse_csr",
                "quantized",
                "nested",
            )
        ),
    ],
)
def test_properties_every_array_shares(name, value):
    for x in (np.zeros((2, 3), np.float64), np.array(1, np.int8)):
        result = op(name)(x)
        assert result == value and type(result) is type(value)


def test_num_to_tensor_is_a_zero_dim_tensor():
    as_float = op("prim::NumToTensor.Scalar")(1.5)
    assert as_float.shape == () and as_float.dtype == np.float64
    assert (
        op("prim::NumToTensor.Scalar")(3).dtype == np.int64
        and op("prim::NumToTensor.bool")(True).dtype == np.bool_
    )
    # A zero-dim tensor does not change a dimensioned float32 tensor's dtype.
    assert result_type(np.zeros(2, np.float32), as_float) == np.float32


def test_identity():
    x = np.zeros(1)
    assert op("aten::__is__")(x, x) is True and op("aten::__is__")(x, x.view()) is False
    assert op("aten::__is__")(None, None) is True and op("aten::__isnot__")(1, None) is True
    assert op("aten::__is__")(2**70, 2**70) is True and op("aten::__is__")(1, 1.0) is False
    assert op("prim::unchecked_cast")(x) is x and op("prim::Uninitialized")() is None


def test_raise_exception_reports_the_python_class():
    with pytest.raises(TorchScriptError) as info:
        op("prim::RaiseException")("n must be non-negative", "builtins.ValueError")
    assert info.value.kind == "ValueError" and info.value.message == "n must be non-negative"
    with pytest.raises(TorchScriptError) as info:
        op("prim::RaiseException")("AssertionError: expected a vector", None)
    assert (
        info.value.kind == "RuntimeError"
        and str(info.value) == "RuntimeError: AssertionError: expected a vector"
    )


def test_containers():
    assert op("prim::ListConstruct")(1, 2) == [1, 2] and op("prim::TupleConstruct")(1, "a") == (1, "a")
    assert op("prim::DictConstruct")("a", 1, "b", 2) == {"a": 1, "b": 2}
    assert op("prim::TupleUnpack")((1, 2)) == (1, 2) and op("prim::TupleIndex")((1, 2, 3), -1) == 3
    with pytest.raises(TorchScriptError, match="Tuple index out of range"):
        op("prim::TupleIndex")((1,), 4)
    assert op("prim::abs.int")(-3) == 3 and op("prim::abs.float")(-0.5) == 0.5
