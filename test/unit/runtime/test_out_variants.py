"""`out=` overloads without kernels of their own run their functional overload's kernel
and write into `out` as PyTorch does (resizing, casting within a kind)."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup, out_variant


def test_div_out_writes_the_functional_result_into_out():
    out = np.zeros(3, np.float64)
    result = lookup("aten::div.out")(np.ones(3, np.float32), np.full(3, 2.0, np.float32), out)
    assert result is out
    np.testing.assert_array_equal(out, [0.5, 0.5, 0.5])


def test_out_is_resized_to_the_result():
    out = np.zeros(2, np.float32)
    lookup("aten::div.out")(np.ones(3, np.float32), np.ones(3, np.float32), out)
    assert out.shape == (3,)


def test_a_float_result_cannot_go_into_an_int_out():
    with pytest.raises(TorchScriptError) as caught:
        lookup("aten::div.out")(np.ones(3, np.float32), np.ones(3, np.float32), np.zeros(3, np.int64))
    assert caught.value.message == "result type Float can't be cast to the desired output type Long"


def test_only_out_overloads_with_a_functional_twin_get_one():
    assert out_variant("aten::div.Tensor") is None  # not an out= overload
    assert out_variant("aten::no_such_op.out") is None
