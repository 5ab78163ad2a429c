"""Kernels derived from functional siblings: `out=` overloads write the functional
result into `out`, in-place overloads into `self`, with PyTorch's casting rules."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.formats.torchscript_text import import_graph_text
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.interpreter import Program


def run(text: str, *args: object) -> object:
    return Program(import_graph_text(make_context(), text, "derived.txt")).function("forward")(*args)


def test_an_out_overload_writes_its_functional_result_into_out():
    text = """graph(%x : Tensor, %out : Tensor):
  %p : int = prim::Constant[value=2]()
  %n : NoneType = prim::Constant()
  %k : bool = prim::Constant[value=0]()
  %r : Tensor = aten::linalg_vector_norm(%x, %p, %n, %k, %n, %out)
  return (%r)
"""
    out = np.zeros((), dtype=np.float64)
    result = run(text, np.array([3.0, 4.0]), out)
    assert result is out and out == 5.0


def test_an_out_tensor_of_another_shape_is_an_error_not_a_resize():
    text = """graph(%x : Tensor, %y : Tensor, %out : Tensor):
  %r : Tensor = aten::heaviside(%x, %y, %out)
  return (%r)
"""
    with pytest.raises(TorchScriptError, match=r"out= tensor has shape \[3\] but the result has shape \[2\]"):
        run(text, np.array([1.0, -1.0]), np.array([0.5, 0.5]), np.zeros(3))


def test_an_in_place_overload_writes_into_self_with_pytorchs_casting_rule():
    from tsjit.runtime.kernels import lookup

    assert lookup("aten::xlogy_.Tensor") is None  # derived, not written
    text = """graph(%x : Tensor, %y : Tensor):
  %r : Tensor = aten::xlogy_(%x, %y)
  return (%r)
"""
    x = np.array([0.0, 2.0])
    assert run(text, x, np.array([3.0, 4.0])) is x
    np.testing.assert_allclose(x, [0.0, 2.0 * np.log(4.0)])
    with pytest.raises(TorchScriptError, match="result type Float can't be cast to the desired output type Long"):
        run(text, np.array([1, 2]), np.array([3, 4]))


def test_an_in_place_overload_never_changes_selfs_shape_silently():
    from tsjit.runtime.kernels import lookup

    assert lookup("aten::unsqueeze_") is None
    text = """graph(%x : Tensor):
  %d : int = prim::Constant[value=0]()
  %r : Tensor = aten::unsqueeze_(%x, %d)
  return (%r)
"""
    with pytest.raises(TorchScriptError, match=r"output with shape \[2, 3\] doesn't match the result shape \[1, 2, 3\]"):
        run(text, np.zeros((2, 3)))
