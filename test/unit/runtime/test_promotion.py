"""PyTorch's type promotion: categories, priorities of dimensioned / zero-dim / scalar operands."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels.promotion import binary_dtype, check_cast, promote_types, result_type


def t(dtype: str, shape: tuple[int, ...] = (2,)) -> np.ndarray:
    return np.zeros(shape, dtype=dtype)


# Expected results as torch.result_type reports them (PyTorch 2.13).
@pytest.mark.parametrize(
    "a, b, expected",
    [
        (t("int64"), 1.5, "float32"),
        (t("int32"), 7, "int32"),
        (t("bool"), 1, "int64"),
        (t("bool"), True, "bool"),
        (t("uint8"), 1, "uint8"),
        (t("uint8"), t("int8"), "int16"),
        (t("float16"), t("float64", ()), "float16"),
        (t("int64"), t("float64", ()), "float64"),
        (t("float32"), t("float64"), "float64"),
        (t("int32"), t("int64", ()), "int32"),
        (t("bool"), t("int32", ()), "int32"),
        (t("float16"), t("int64"), "float16"),
        (t("complex64"), t("float64"), "complex128"),
        (t("float64"), 1j, "complex128"),
        (t("int64"), 1j, "complex64"),
        (t("float64", ()), 2, "float64"),
        (t("int64", ()), 2.5, "float32"),
    ],
)
def test_result_type_matches_pytorch(a, b, expected):
    assert result_type(a, b) == np.dtype(expected)
    assert binary_dtype(a, b) == np.dtype(expected)
    assert result_type(b, a) == np.dtype(expected)


def test_promote_types_is_categorical():
    assert promote_types(np.dtype("int64"), np.dtype("float16")) == np.float16  # numpy says float64
    assert promote_types(np.dtype("bool"), np.dtype("uint8")) == np.uint8
    assert promote_types(None, np.dtype("int8")) == np.int8


def test_result_type_of_python_scalars_alone():
    assert (
        result_type(1, 2.5) == np.float32 and result_type(1, 2) == np.int64 and result_type(True) == np.bool_
    )


def test_check_cast_refuses_lower_category():
    check_cast(np.dtype("int64"), np.dtype("float16"))
    check_cast(np.dtype("float64"), np.dtype("float32"))
    with pytest.raises(
        TorchScriptError, match="result type Float can't be cast to the desired output type Long"
    ):
        check_cast(np.dtype("float32"), np.dtype("int64"))
    with pytest.raises(
        TorchScriptError, match="result type Long can't be cast to the desired output type Bool"
    ):
        check_cast(np.dtype("int64"), np.dtype("bool"))
