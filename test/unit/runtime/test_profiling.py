"""What profile ops do at run time: observations and their merge, the recorder the
interpreter runs for `profile.profile`, and the generated checks of `profile.type_check`."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import f32, f64, i64

from tsjit.context import make_context
from tsjit.dialects.profile import ProfileOp
from tsjit.dialects.types import TensorType
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.interpreter import Program
from tsjit.runtime.autograd import Variable
from tsjit.runtime.profiling import matches, merge, observe, observed_type, profile_recorder, type_checker


def requiring_grad(x: np.ndarray) -> Variable:
    """A tensor that requires grad, as the runtime holds it where gradients are recorded."""
    return Variable(x, requires_grad=True)


def test_observe_reads_dtype_sizes_element_strides_device_and_requires_grad():
    x = np.zeros((2, 3), np.float32)
    assert observe(x) == (np.dtype(np.float32), (2, 3), (3, 1), "cpu", False)
    assert observe(x.T)[2] == (1, 3)
    assert observe(requiring_grad(np.zeros(4)))[4] is True
    assert observe(3.0) == (None, None, None, None, None)


def test_merge_forgets_what_differs():
    a = observe(np.zeros((2, 3), np.float32))
    assert merge(a, a) == a
    assert merge(a, observe(np.zeros((2, 4), np.float32))) == (np.dtype(np.float32), (2, None), None, "cpu", False)
    assert merge(a, observe(np.zeros(6, np.float32)))[1] is None  # ranks differ: the rank is unknown
    assert merge(a, observe(np.zeros((2, 3), np.float64)))[0] is None
    assert merge(a, observe(requiring_grad(np.zeros((2, 3), np.float32))))[4] is None


def test_observed_types_keep_strides_only_with_known_sizes():
    assert observed_type(observe(np.zeros((2, 3), np.float32))) == TensorType(f32, [2, 3], "cpu", False, [3, 1])
    merged = merge(observe(np.zeros((2, 3))), observe(np.zeros((5, 3))))
    assert observed_type(merged) == TensorType(f64, [None, 3], "cpu", False)


def test_the_recorder_writes_the_merged_type_into_the_op_when_it_changes():
    module = parse_mlir(
        make_context(),
        "%x = \"test.op\"() : () -> !ts.tensor\n%p = profile.profile %x : !ts.tensor",
        "t.mlir",
    )
    op = next(o for o in module.walk() if isinstance(o, ProfileOp))
    record = profile_recorder(op)
    x = np.zeros((2, 3), np.int64)
    assert record(x) is x
    assert op.seen_types is not None and op.seen_types.data == (TensorType(i64, [2, 3], "cpu", False, [3, 1]),)
    seen = op.seen_types
    record(np.ones((2, 3), np.int64))
    assert op.seen_types is seen  # nothing new: the property is not rewritten
    record(np.ones((4, 3), np.int64))
    assert op.seen_types.data == (TensorType(i64, [None, 3], "cpu", False),)


def test_a_seen_type_contradicting_the_declared_type_records_the_declared_one():
    module = parse_mlir(
        make_context(),
        "%x = \"test.op\"() : () -> !ts.tensor<f32>\n%p = profile.profile %x : !ts.tensor<f32>",
        "t.mlir",
    )
    op = next(o for o in module.walk() if isinstance(o, ProfileOp))
    profile_recorder(op)(np.zeros(2, np.float64))
    assert op.seen_types is not None and op.seen_types.data == (TensorType(f32),)


def test_profiling_a_graph_run_by_the_interpreter():
    text = """
    func.func @f(%x : !ts.tensor) -> !ts.tensor {
      %p = profile.profile %x : !ts.tensor
      %y = aten.neg %p : (!ts.tensor) -> !ts.tensor
      func.return %y : !ts.tensor
    }"""
    module = parse_mlir(make_context(), text, "t.mlir")
    run = Program(module).function("f")
    np.testing.assert_array_equal(run(np.ones(3, np.float32)), -np.ones(3, np.float32))
    op = next(o for o in module.walk() if isinstance(o, ProfileOp))
    assert op.seen_types is not None and op.seen_types.data[0] == TensorType(f32, [3], "cpu", False, [1])


@pytest.mark.parametrize(
    ("expected", "value", "matched"),
    [
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), np.zeros((2, 3), np.float32), True),
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), np.zeros((3, 2), np.float32).T, False),  # strides
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), np.zeros((2, 4), np.float32), False),  # size
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), np.zeros((2, 3), np.float64), False),  # dtype
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), np.zeros(6, np.float32), False),  # rank
        (TensorType(f32, [2, 3], "cpu", False, [3, 1]), 1.5, False),  # not a tensor
        (TensorType(f32, [None, 3]), np.zeros((7, 3), np.float32), True),
        (TensorType(f32, [None, 3]), np.zeros((7, 2), np.float32), False),
        (TensorType(f32, [None, None], "cpu", False), np.zeros((7, 2), np.float32).T, True),
        (TensorType(f32, [2], "cpu", False), requiring_grad(np.zeros(2, np.float32)), False),
        (TensorType(f32, [2], "cpu", True), requiring_grad(np.zeros(2, np.float32)), True),
        (TensorType(f32, [2], "cpu", True), np.zeros(2, np.float32), False),
        (TensorType(f32, [2], "cuda:0"), np.zeros(2, np.float32), False),
        (TensorType(), np.zeros(2, np.int8), True),
    ],
)
def test_type_checks(expected, value, matched):
    assert type_checker([expected])(value) == (value, matched)
    assert matches([expected])(value) is matched


def test_a_check_of_several_values_needs_them_all_and_equal_checks_share_one_function():
    types = [TensorType(f32, [2]), TensorType(i64, [])]
    check = type_checker(types)
    a, b = np.zeros(2, np.float32), np.array(3, np.int64)
    assert check(a, b) == (a, b, True)
    assert check(a, a)[-1] is False
    assert type_checker(list(types)) is check
