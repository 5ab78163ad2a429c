"""Shape and view ops: aliasing of views, copies where PyTorch copies, conversions, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup
from tsjit.runtime.values import CPU, Device

f32, f64, i64 = np.float32, np.float64, np.int64


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def grid(rows=2, cols=3, dtype=f32):
    return np.arange(rows * cols, dtype=dtype).reshape(rows, cols)


@pytest.mark.parametrize(
    "name, args",
    [
        ("aten::view", ([3, 2],)),
        ("aten::view", ([-1],)),
        ("aten::reshape", ([6],)),
        ("aten::transpose.int", (0, 1)),
        ("aten::t", ()),
        ("aten::permute", ([1, 0],)),
        ("aten::unsqueeze", (1,)),
        ("aten::flatten.using_ints", (0, -1)),
        ("aten::select.int", (0, 1)),
        ("aten::slice.Tensor", (1, 1, None, 1)),
        ("aten::narrow", (1, 1, 2)),
        ("aten::detach", ()),
        ("aten::diagonal", (0, 0, 1)),
        ("aten::expand", ([2, 3],)),
        ("aten::movedim.int", (0, 1)),
    ],
)
def test_views_write_through_to_the_base(name, args):
    base = grid()
    view = op(name)(base, *args)
    view[...] = -1
    assert (base == -1).any()


def test_split_chunk_unbind_return_views():
    base = grid(4, 2)
    for pieces in (
        op("aten::chunk")(base, 2, 0),
        op("aten::split.Tensor")(base, 3, 0),
        op("aten::split.sizes")(base, [1, 3], 0),
        op("aten::unbind.int")(base, 1),
    ):
        pieces[0][...] = -7
        assert base[0, 0] == -7
        base[...] = 0


def test_copies_do_not_alias():
    base = grid()
    for name, args in (("aten::clone", (None,)), ("aten::flip", ([0],)), ("aten::repeat", ([1, 1],))):
        copy = op(name)(base, *args)
        copy[...] = -5
        assert base.min() == 0.0 and not np.shares_memory(copy, base)


def test_reshape_copies_only_when_it_must():
    base = grid()
    assert np.shares_memory(op("aten::reshape")(base, [3, 2]), base)
    assert not np.shares_memory(op("aten::reshape")(base.T, [6]), base)


def test_view_errors():
    with pytest.raises(
        TorchScriptError, match="view size is not compatible with input tensor's size and stride"
    ):
        op("aten::view")(grid().T, [-1])
    with pytest.raises(TorchScriptError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        op("aten::view")(grid(), [4, 2])
    with pytest.raises(TorchScriptError, match="only one dimension can be inferred"):
        op("aten::reshape")(grid(), [-1, -1])
    with pytest.raises(TorchScriptError, match=r"invalid shape dimension -2 at index 1 of shape \[-1, -2\]"):
        op("aten::view")(grid(), [-1, -2])


def test_transpose_permute_t():
    x = grid()
    assert op("aten::t")(x).shape == (3, 2) and op("aten::t")(np.arange(3)).shape == (3,)
    assert op("aten::permute")(np.zeros((2, 3, 4)), [2, 0, 1]).shape == (4, 2, 3)
    with pytest.raises(
        TorchScriptError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"
    ):
        op("aten::t")(np.zeros((1, 1, 1)))
    with pytest.raises(TorchScriptError, match="permute\\(\\): duplicate dims are not allowed."):
        op("aten::permute")(x, [0, 0])
    with pytest.raises(TorchScriptError, match="input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 1"):
        op("aten::permute")(x, [0])


def test_squeeze_unsqueeze():
    x = np.zeros((1, 3, 1))
    assert op("aten::squeeze")(x).shape == (3,)
    assert op("aten::squeeze.dim")(x, 1).shape == (1, 3, 1)  # not size 1: unchanged
    assert op("aten::squeeze.dim")(x, -1).shape == (1, 3)
    assert op("aten::squeeze.dims")(x, [0, 1, 2]).shape == (3,)
    assert op("aten::unsqueeze")(np.zeros(3), -1).shape == (3, 1)
    assert op("aten::unsqueeze")(np.array(1.0), 0).shape == (1,)
    with pytest.raises(TorchScriptError, match=r"expected to be in range of \[-4, 3\], but got 4"):
        op("aten::unsqueeze")(x, 4)


def test_expand():
    x = np.array([[1], [2]], f32)
    wide = op("aten::expand")(x, [2, 3], False)
    assert wide.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert op("aten::expand")(x, [4, -1, 3], False).shape == (4, 2, 3)
    assert op("aten::expand_as")(x, np.zeros((2, 1))).flags.writeable  # nothing actually broadcast
    with pytest.raises(
        TorchScriptError,
        match=r"The expanded size of the tensor \(4\) must match the existing size "
        r"\(2\) at non-singleton dimension 0.  Target sizes: \[4, 3\].  Tensor sizes: \[2, 1\]",
    ):
        op("aten::expand")(x, [4, 3], False)
    with pytest.raises(TorchScriptError, match="isn't allowed in a leading, non-existing dimension 0"):
        op("aten::expand")(x, [-1, 2, 1], False)


def test_flatten_unflatten_narrow():
    x = np.zeros((2, 3, 4))
    assert op("aten::flatten.using_ints")(x, 1, 2).shape == (2, 12)
    assert op("aten::flatten.using_ints")(np.array(5.0), 0, -1).shape == (1,)
    assert op("aten::unflatten.int")(np.zeros(6), 0, [2, -1]).shape == (2, 3)
    assert op("aten::narrow")(np.arange(5), 0, -2, 2).tolist() == [3, 4]
    with pytest.raises(TorchScriptError, match="start_dim cannot come after end_dim"):
        op("aten::flatten.using_ints")(x, 2, 1)
    with pytest.raises(TorchScriptError, match=r"start \(2\) \+ length \(2\) exceeds dimension size \(3\)."):
        op("aten::narrow")(np.arange(3), 0, 2, 2)


def test_chunk_and_split_sizes():
    shapes = lambda pieces: [p.shape[0] for p in pieces]  # noqa: E731
    assert shapes(op("aten::chunk")(np.zeros(5), 3, 0)) == [2, 2, 1]
    assert shapes(op("aten::chunk")(np.zeros(6), 4, 0)) == [2, 2, 2]
    assert shapes(op("aten::chunk")(np.zeros(0), 3, 0)) == [0, 0, 0]
    assert shapes(op("aten::split.Tensor")(np.zeros(7), 3, 0)) == [3, 3, 1]
    assert shapes(op("aten::split.Tensor")(np.zeros(0), 2, 0)) == [0]
    with pytest.raises(TorchScriptError, match="split_size can only be 0 if dimension size is 0"):
        op("aten::split.Tensor")(np.zeros(3), 0, 0)
    with pytest.raises(
        TorchScriptError, match=r"split_with_sizes expects split_sizes to sum exactly to 3 .*=\[1, 1\]"
    ):
        op("aten::split_with_sizes")(np.zeros(3), [1, 1], 0)
    with pytest.raises(TorchScriptError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        op("aten::chunk")(np.zeros(3), 0, 0)


def test_cat_and_stack():
    a, b = np.zeros((2, 2), np.int32), np.ones((1, 2), f64)
    joined = op("aten::cat")([a, b], 0)
    assert joined.shape == (3, 2) and joined.dtype == f64
    assert op("aten::cat")([np.zeros(0), np.ones((2, 2), f32)], 0).shape == (2, 2)  # legacy empty skipped
    assert op("aten::stack")([np.zeros(3), np.ones(3)], 1).shape == (3, 2)
    with pytest.raises(
        TorchScriptError,
        match="Sizes of tensors must match except in dimension 1. Expected size 2 "
        "but got size 3 for tensor number 1 in the list.",
    ):
        op("aten::cat")([np.zeros((2, 3)), np.zeros((3, 3))], 1)
    with pytest.raises(
        TorchScriptError, match="zero-dimensional tensor \\(at position 0\\) cannot be concatenated"
    ):
        op("aten::cat")([np.array(1.0), np.zeros(3)], 0)
    with pytest.raises(
        TorchScriptError,
        match=r"stack expects each tensor to be equal size, but got \[2, 3\] at "
        r"entry 0 and \[3, 3\] at entry 1",
    ):
        op("aten::stack")([np.zeros((2, 3)), np.zeros((3, 3))], 0)


def test_size_queries_return_python_ints():
    x = np.zeros((2, 3), f32)
    assert op("aten::size")(x) == [2, 3] and type(op("aten::size")(x)[0]) is int
    assert op("aten::size.int")(x, -1) == 3 and op("aten::dim")(x) == 2 and op("aten::numel")(x) == 6
    with pytest.raises(TorchScriptError, match="Dimension specified as 0 but tensor has no dimensions"):
        op("aten::size.int")(np.array(1.0), 0)


def test_to_returns_self_unless_something_changes():
    x = grid()
    assert op("aten::to.dtype")(x, 6, False, False, None) is x
    copied = op("aten::to.dtype")(x, 6, False, True, None)
    assert copied is not x and not np.shares_memory(copied, x)
    assert op("aten::to.dtype")(x, 4, False, False, None).dtype == i64
    assert op("aten::to.dtype")(np.array([1.7, -1.7], f32), 3, False, False, None).tolist() == [1, -1]
    assert op("aten::to.other")(x, np.zeros(1, f64), False, False, None).dtype == f64
    assert op("aten::to.prim_Device")(x, CPU, None, False, False) is x
    assert op("aten::to.dtype_layout")(x, 7, None, CPU, None, False, False, None).dtype == f64
    assert op("aten::type_as")(x, np.zeros(1, np.int8)).dtype == np.int8
    with pytest.raises(TorchScriptError, match="Torch not compiled with CUDA enabled"):
        op("aten::to.device")(x, Device("cuda", 0), 6, False, False, None)


def test_to_overloads_with_an_optional_dtype():
    x = grid()
    assert op("aten::to.prim_dtype")(x, None, False, False) is x
    assert op("aten::to.prim_dtype")(x, 4, False, False).dtype == i64
    assert op("aten::to.prim_Device")(x, CPU, 7, False, False).dtype == f64
    assert op("aten::to.prim_Device")(x, None, None, False, True) is not x
    assert op("aten::to.device")(x, CPU, 6, False, False, None) is x
    assert op("aten::to.prim_other")(x, False, True) is not x
    with pytest.raises(TorchScriptError, match="Torch not compiled with CUDA enabled"):
        op("aten::to.prim_Device")(x, Device("cuda"), None, False, False)


def test_contiguous_copies_only_strided_tensors():
    x = grid()
    assert op("aten::contiguous")(x, 0) is x
    transposed = op("aten::contiguous")(x.T, 0)
    assert transposed.flags.c_contiguous and transposed.tolist() == x.T.tolist()


def test_copy_fill_zero():
    x = np.zeros((2, 3), i64)
    assert op("aten::copy_")(x, np.array([1.9, 2.0, 3.0], f32), False) is x
    assert x.tolist() == [[1, 2, 3], [1, 2, 3]]  # broadcast and cast
    op("aten::fill_.Scalar")(x[0], 7)
    assert x.tolist() == [[7, 7, 7], [1, 2, 3]]
    op("aten::zero_")(x)
    assert not x.any()
    with pytest.raises(
        TorchScriptError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\)"
    ):
        op("aten::copy_")(np.zeros(2), np.zeros(3), False)
    with pytest.raises(TorchScriptError, match="fill_ only supports 0-dimension value tensor"):
        op("aten::fill_.Tensor")(x, np.zeros(2))


def test_functional_forms_of_inplace_ops_leave_self_alone():
    x = np.zeros((2, 2), i64)
    copied = op("aten::copy")(x, np.array([1.5, 2.5]), False)
    assert copied.tolist() == [[1, 2], [1, 2]] and copied.dtype == i64 and not x.any()
    assert op("aten::fill.Scalar")(x, 3).tolist() == [[3, 3], [3, 3]] and not x.any()
    assert op("aten::zero")(np.ones(2, f32)).tolist() == [0.0, 0.0]


def test_rearrangements():
    x = grid()
    assert op("aten::flip")(x, [1]).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert op("aten::roll")(np.arange(4), [1], []).tolist() == [3, 0, 1, 2]
    assert op("aten::repeat")(np.array([1, 2]), [2, 2]).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert op("aten::repeat_interleave.self_int")(np.array([1, 2]), 2, None, None).tolist() == [1, 1, 2, 2]
    windows = op("aten::unfold")(np.arange(5), 0, 2, 2)
    assert windows.tolist() == [[0, 1], [2, 3]]
    with pytest.raises(TorchScriptError, match="can not be smaller than number of dimensions of tensor"):
        op("aten::repeat")(x, [2])


@pytest.mark.parametrize(("size", "shape"), [(0, (0,)), (1, (1,))])
def test_unfold_of_a_0_dim_tensor_has_one_window_of_size_elements(size: int, shape: tuple[int, ...]):
    assert op("aten::unfold")(np.array(3.0, f32), 0, size, 1).shape == shape


@pytest.mark.parametrize(
    ("x", "size", "step", "message"),
    [
        (np.array(3.0, f32), 2, 1, "maximum size for tensor at dimension 0 is 1 but size is 2"),
        (np.arange(4.0), -1, 1, "size is -1 but must be >= 0"),
        (np.arange(4.0), 1, 0, "step is 0 but must be > 0"),
    ],
)
def test_unfold_rejects_what_pytorch_rejects(x: np.ndarray, size: int, step: int, message: str):
    with pytest.raises(TorchScriptError) as caught:
        op("aten::unfold")(x, 0, size, step)
    assert caught.value.message == message


def test_numpy_t_reverses_every_dimension_and_mt_swaps_the_last_two():
    x = np.arange(24, dtype=f32).reshape(2, 3, 4)
    transposed = op("aten::numpy_T")(x)
    assert transposed.shape == (4, 3, 2) and np.shares_memory(transposed, x)
    np.testing.assert_array_equal(op("aten::mT")(x), x.swapaxes(1, 2))
    with pytest.raises(TorchScriptError, match="tensor.mT is only supported on matrices or batches of matrices"):
        op("aten::mT")(np.zeros(3, f32))
