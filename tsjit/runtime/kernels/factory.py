"""Tensor factories: zeros/ones/full/empty, arange, linspace/logspace, eye, the `*_like` and
`new_*` families, `tensor` from (nested) lists and scalars, scalar_tensor.

`dtype=None` means what PyTorch infers: the default dtype (float32) for most factories,
int64 for `arange` over ints, the fill value's kind for `full`, self's dtype for `*_like`
and `new_*`. Layout and pin_memory are accepted and ignored; devices other than cpu fail.

Factories that differ only in how they fill memory are one table: each row names the overload
and builds its kernel with the maker of its schema's shape (`sized_factory`, `like_factory`,
...) over a constructor `(shape, dtype) -> ndarray`, numpy's own or a random draw (`sampling`).
The makers run at import time; the kernels they return call the constructor directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import check_device, shape_str
from tsjit.runtime.kernels.promotion import scalar_dtype
from tsjit.runtime.values import DEFAULT_DTYPE, Device, numpy_dtype

ndarray = np.ndarray
Construct = Callable[[tuple[int, ...], np.dtype], ndarray]
"""A factory's memory of (shape, dtype): `np.zeros`, `np.empty`, a random draw, ..."""


def dtype_or(code: int | None, default: np.dtype) -> np.dtype:
    return default if code is None else numpy_dtype(code)


def checked_size(size: Sequence[int]) -> tuple[int, ...]:
    for s in size:
        if s < 0:
            raise TorchScriptError(f"Trying to create tensor with negative dimension {s}: {shape_str(size)}")
    return tuple(size)


def _zeros_size(size: Sequence[int]) -> tuple[int, ...]:
    if any(s < 0 for s in size):  # zeros checks before the allocator, with its own words
        raise TorchScriptError("zeros: Dimension size must be non-negative.")
    return tuple(size)


# --------------------------------------------------------------------------------------
# Makers, one per schema shape, and the table of factories built with them
# --------------------------------------------------------------------------------------


def sized_factory(
    construct: Construct, check_size: Callable[[Sequence[int]], tuple[int, ...]] = checked_size
) -> Kernel:
    """`zeros(size, dtype, layout, device, pin_memory[, memory_format])`: float32 by default."""

    def factory(
        size: Sequence[int],
        dtype: int | None = None,
        layout: int | None = None,
        device: Device | None = None,
        pin_memory: bool | None = None,
        memory_format: int | None = None,
    ) -> ndarray:
        check_device(device)
        return construct(check_size(size), DEFAULT_DTYPE if dtype is None else numpy_dtype(dtype))

    return factory


def sized_factory_ignoring(construct: Construct) -> Kernel:
    """`rand.generator(size, generator, dtype, ...)`: a sized factory with one more argument
    after `size` that the numpy runtime ignores (a generator, empty_strided's strides)."""
    sized = sized_factory(construct)

    def factory(
        size: Sequence[int],
        ignored: object,
        dtype: int | None = None,
        layout: int | None = None,
        device: Device | None = None,
        pin_memory: bool | None = None,
    ) -> ndarray:
        return sized(size, dtype, layout, device, pin_memory)

    return factory


def like_factory(construct: Construct) -> Kernel:
    """`zeros_like(self, dtype, layout, device, pin_memory, memory_format)`: self's shape and dtype."""

    def factory(
        self: ndarray,
        dtype: int | None = None,
        layout: int | None = None,
        device: Device | None = None,
        pin_memory: bool | None = None,
        memory_format: int | None = None,
    ) -> ndarray:
        check_device(device)
        return construct(self.shape, self.dtype if dtype is None else numpy_dtype(dtype))

    return factory


def new_factory(construct: Construct) -> Kernel:
    """`new_zeros(self, size, dtype, layout, device, pin_memory)`: a new size, self's dtype."""

    def factory(
        self: ndarray,
        size: Sequence[int],
        dtype: int | None = None,
        layout: int | None = None,
        device: Device | None = None,
        pin_memory: bool | None = None,
    ) -> ndarray:
        check_device(device)
        return construct(checked_size(size), self.dtype if dtype is None else numpy_dtype(dtype))

    return factory


def like_filled_factory(construct: Callable[[tuple[int, ...], object, np.dtype], ndarray]) -> Kernel:
    """`full_like(self, value, dtype, layout, device, pin_memory, memory_format)`: self's shape
    and dtype, and one value for the constructor `(shape, value, dtype)`."""

    def factory(
        self: ndarray,
        value: object,
        dtype: int | None = None,
        layout: int | None = None,
        device: Device | None = None,
        pin_memory: bool | None = None,
        memory_format: int | None = None,
    ) -> ndarray:
        check_device(device)
        return construct(self.shape, value, self.dtype if dtype is None else numpy_dtype(dtype))

    return factory


for _name, _factory in (
    ("aten::zeros", sized_factory(np.zeros, check_size=_zeros_size)),
    ("aten::ones", sized_factory(np.ones)),
    ("aten::empty.memory_format", sized_factory(np.empty)),
    ("aten::empty_strided", sized_factory_ignoring(np.empty)),
    ("aten::zeros_like", like_factory(np.zeros)),
    ("aten::ones_like", like_factory(np.ones)),
    ("aten::empty_like", like_factory(np.empty)),
    ("aten::full_like", like_filled_factory(np.full)),
    ("aten::new_zeros", new_factory(np.zeros)),
    ("aten::new_ones", new_factory(np.ones)),
    ("aten::new_empty", new_factory(np.empty)),
):
    register_kernel(_name, _factory)


@kernel("aten::full")
def full(
    size: Sequence[int],
    fill_value: object,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return np.full(checked_size(size), fill_value, dtype_or(dtype, scalar_dtype(fill_value)))


@kernel("aten::new_full")
def new_full(
    self: ndarray,
    size: Sequence[int],
    fill_value: object,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return np.full(checked_size(size), fill_value, dtype_or(dtype, self.dtype))


# --------------------------------------------------------------------------------------
# Ranges
# --------------------------------------------------------------------------------------


def _arange(start: object, end: object, step: object, dtype: int | None, device: Device | None) -> ndarray:
    check_device(device)
    if step == 0:
        raise TorchScriptError("step must be nonzero")
    if (end - start) * step < 0:
        raise TorchScriptError("upper bound and lower bound inconsistent with step sign")
    inferred = DEFAULT_DTYPE if any(type(v) is float for v in (start, end, step)) else np.dtype(np.int64)
    result_dtype = dtype_or(dtype, inferred)
    count = math.ceil((end - start) / step)
    if all(type(v) is int for v in (start, end, step)):
        return (start + step * np.arange(count, dtype=np.int64)).astype(result_dtype, copy=False)
    # PyTorch computes `start + i * step` in double, then rounds once to the result dtype.
    return (start + step * np.arange(count, dtype=np.float64)).astype(result_dtype)


@kernel("aten::arange")
def arange(
    end: object,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    return _arange(0, end, 1, dtype, device)


@kernel("aten::arange.start")
def arange_start(
    start: object,
    end: object,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    return _arange(start, end, 1, dtype, device)


@kernel("aten::arange.start_step")
def arange_start_step(
    start: object,
    end: object,
    step: object = 1,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    return _arange(start, end, step, dtype, device)


def _scalar(x: object) -> object:
    if type(x) is ndarray:
        if x.ndim:
            raise TorchScriptError(
                f"linspace only supports 0-dimensional start and end tensors, but got tensor "
                f"with {x.ndim} dimension(s)."
            )
        return x.item()
    return x


def _linspace(start: object, end: object, steps: int, dtype: np.dtype) -> ndarray:
    """PyTorch's symmetric formula: the first half counts up from start, the second down from end."""
    if steps < 0:
        raise TorchScriptError("number of steps must be non-negative")
    compute = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    if steps == 1:
        return np.full((1,), start, dtype=dtype)
    start_c, end_c = compute.type(start), compute.type(end)
    step = (end_c - start_c) / compute.type(max(steps - 1, 1))
    index = np.arange(steps, dtype=compute)
    halfway = steps // 2
    values = np.where(index < halfway, start_c + step * index, end_c - step * (steps - 1 - index))
    return values.astype(dtype)


@kernel(
    "aten::linspace",
    "aten::linspace.Tensor_Tensor",
    "aten::linspace.Tensor_Scalar",
    "aten::linspace.Scalar_Tensor",
)
def linspace(
    start: object,
    end: object,
    steps: int,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return _linspace(_scalar(start), _scalar(end), steps, dtype_or(dtype, DEFAULT_DTYPE))


@kernel(
    "aten::logspace",
    "aten::logspace.Tensor_Tensor",
    "aten::logspace.Tensor_Scalar",
    "aten::logspace.Scalar_Tensor",
)
def logspace(
    start: object,
    end: object,
    steps: int,
    base: float = 10.0,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    result_dtype = dtype_or(dtype, DEFAULT_DTYPE)
    exponents = _linspace(_scalar(start), _scalar(end), steps, np.dtype(np.float64))
    return np.power(base, exponents).astype(result_dtype)


@kernel("aten::eye")
def eye(
    n: int,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    return eye_m(n, n, dtype, layout, device, pin_memory)


@kernel("aten::eye.m")
def eye_m(
    n: int,
    m: int,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    if n < 0 or m < 0:
        raise TorchScriptError(
            f"{'n' if n < 0 else 'm'} must be greater or equal to 0, got {n if n < 0 else m}"
        )
    return np.eye(n, m, dtype=dtype_or(dtype, DEFAULT_DTYPE))


# --------------------------------------------------------------------------------------
# Tensors from Python data
# --------------------------------------------------------------------------------------


def _check_rectangular(data: Sequence[object], depth: int = 0) -> None:
    """PyTorch's message for ragged nested lists."""
    if not data or not isinstance(data[0], list):
        return
    length = len(data[0])
    for item in data:
        if not isinstance(item, list) or len(item) != length:
            got = len(item) if isinstance(item, list) else type(item).__name__
            raise TorchScriptError(f"expected sequence of length {length} at dim {depth + 1} (got {got})")
    for item in data:
        _check_rectangular(item, depth + 1)


def _first_leaf(data: object) -> object:
    while isinstance(data, list):
        if not data:
            return None
        data = data[0]
    return data


def from_data(data: object, dtype: int | None, device: Device | None) -> ndarray:
    """`torch.tensor(data)`: nested lists or a scalar; floats default to float32."""
    check_device(device)
    if isinstance(data, list):
        _check_rectangular(data)
        leaf = _first_leaf(data)
        inferred = (
            DEFAULT_DTYPE if leaf is None else scalar_dtype(leaf) if type(leaf) is not ndarray else leaf.dtype
        )
    else:
        inferred = scalar_dtype(data)
    return np.array(data, dtype=dtype_or(dtype, inferred))


@kernel("aten::tensor", "aten::tensor.float", "aten::tensor.int", "aten::tensor.bool", "aten::tensor.complex")
def tensor(
    data: object, dtype: int | None = None, device: Device | None = None, requires_grad: bool = False
) -> ndarray:
    return from_data(data, dtype, device)


@kernel(
    "aten::as_tensor.list",
    "aten::as_tensor.float",
    "aten::as_tensor.int",
    "aten::as_tensor.bool",
    "aten::as_tensor.complex",
)
def as_tensor_data(data: object, dtype: int | None = None, device: Device | None = None) -> ndarray:
    return from_data(data, dtype, device)


@kernel("aten::as_tensor")
def as_tensor(data: ndarray, dtype: int | None = None, device: Device | None = None) -> ndarray:
    check_device(device)
    return data if dtype is None or numpy_dtype(dtype) == data.dtype else data.astype(numpy_dtype(dtype))


@kernel("aten::scalar_tensor")
def scalar_tensor(
    s: object,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return np.array(s, dtype=dtype_or(dtype, DEFAULT_DTYPE))


def _triangle_indices(row: int, col: int, offset: int, dtype: int | None, device: Device | None, upper: bool) -> ndarray:
    check_device(device)
    if row < 0 or col < 0:
        raise TorchScriptError(f"row must be non-negative, got{row}" if row < 0 else f"col must be non-negative, got{col}")
    rows, cols = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return np.stack([rows, cols]).astype(numpy_dtype(4 if dtype is None else dtype)).reshape(2, -1)


@kernel("aten::tril_indices")
def tril_indices(row: int, col: int, offset: int = 0, dtype: int | None = 4, layout: int | None = None,
                 device: Device | None = None, pin_memory: bool | None = None) -> ndarray:  # fmt: skip
    return _triangle_indices(row, col, offset, dtype, device, upper=False)


@kernel("aten::triu_indices")
def triu_indices(row: int, col: int, offset: int = 0, dtype: int | None = 4, layout: int | None = None,
                 device: Device | None = None, pin_memory: bool | None = None) -> ndarray:  # fmt: skip
    return _triangle_indices(row, col, offset, dtype, device, upper=True)
