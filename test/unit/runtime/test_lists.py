"""List kernels: shared mutation, TorchScript's error messages, searching, sorting, slicing."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_indexing_and_assignment():
    xs = [10, 20, 30]
    assert op("aten::__getitem__.t")(xs, -1) == 30
    assert op("aten::_set_item.t")(xs, 0, 5) is xs and xs == [5, 20, 30]
    for name, args in (
        ("aten::__getitem__.t", (xs, 3)),
        ("aten::_set_item.t", (xs, -4, 0)),
        ("aten::pop.t", (xs, 5)),
    ):
        with pytest.raises(TorchScriptError, match="list index out of range"):
            op(name)(*args)


def test_mutation_is_shared():
    xs = [1]
    alias = xs
    assert op("aten::append.t")(xs, 2) is xs
    op("aten::extend.t")(xs, [3])
    op("aten::insert.t")(xs, -10, 0)
    op("aten::insert.t")(xs, 100, 9)
    assert alias == [0, 1, 2, 3, 9]
    assert op("aten::pop.t")(xs, -1) == 9 and op("aten::pop.t")(xs, 0) == 0
    op("aten::reverse.t")(xs)
    assert alias == [3, 2, 1]
    op("aten::clear.t")(xs)
    assert alias == []
    with pytest.raises(TorchScriptError, match="pop from empty list"):
        op("aten::pop.t")(xs, -1)


def test_search():
    xs = [1.0, 2.5, 2.5]
    assert op("aten::index.list_float")(xs, 2.5) == 1 and op("aten::count.float")(xs, 2.5) == 2
    assert op("aten::__contains__.float_list")(xs, 1.0) is True
    with pytest.raises(TorchScriptError, match="'3.5' is not in list"):
        op("aten::index.list_float")(xs, 3.5)
    op("aten::remove.float")(xs, 2.5)
    assert xs == [1.0, 2.5]
    with pytest.raises(TorchScriptError, match="list.remove\\(x\\): x not in list"):
        op("aten::remove.float")(xs, 9.0)
    tensors = [np.array([1, 2]), np.array([3])]
    assert op("aten::index.list_Tensor")(tensors, np.array([3])) == 1  # tensors compare by value


def test_sorting():
    xs = [3, 1, 2]
    assert op("aten::sorted.int")(xs) == [1, 2, 3] and xs == [3, 1, 2]
    op("aten::sort.int")(xs, True)
    assert xs == [3, 2, 1]
    tensors = [np.array(2.0), np.array(1.0)]
    op("aten::sort.Tensor")(tensors, False)
    assert [float(t) for t in tensors] == [1.0, 2.0]


def test_concatenation_repetition_slicing():
    assert op("aten::add.t")([1], [2]) == [1, 2]
    xs = [1, 2]
    assert op("aten::add_.t")(xs, [3]) is xs and xs == [1, 2, 3]
    assert op("aten::mul.left_t")([0], 3) == [0, 0, 0] and op("aten::mul.right_")(2, [1]) == [1, 1]
    with pytest.raises(TorchScriptError, match="vector::reserve"):
        op("aten::mul.left_t")([1], -1)
    assert op("aten::slice.t")([1, 2, 3, 4], 1, 10, 2) == [2, 4]
    assert op("aten::slice.t")([1, 2, 3], None, None, -1) == [3, 2, 1]
    with pytest.raises(TorchScriptError, match="List slice should have non-zero step"):
        op("aten::slice.t")([1], None, None, 0)
    copy = op("aten::copy.t")(xs)
    assert copy == xs and copy is not xs


def test_reductions_and_comparisons():
    assert op("prim::max.self_int")([3, 1, 2]) == 3 and op("prim::min.self_float")([0.5, -1.0]) == -1.0
    with pytest.raises(TorchScriptError, match="max\\(\\) arg is an empty sequence"):
        op("prim::max.self_int")([])
    assert op("aten::sum.int")([1, 2, 3]) == 6 and op("aten::sum.bool")([True, True]) == 2
    assert op("aten::sum.float")([0.5, 1.0]) == 1.5
    assert op("aten::any.bool")([False, True]) is True and op("aten::all.int")([1, 0]) is False
    assert op("aten::eq.int_list")([1, 2], [1, 2]) is True and op("aten::ne.str_list")(["a"], ["b"]) is True
    assert op("aten::eq.Tensor_list")([np.array([1])], [np.array([1])]) is True
    assert op("aten::len.t")([1, 2]) == 2 and op("aten::len.Tensor")(np.zeros((3, 2))) == 3
    with pytest.raises(TorchScriptError, match="len\\(\\) of a 0-d tensor"):
        op("aten::len.Tensor")(np.array(1.0))
