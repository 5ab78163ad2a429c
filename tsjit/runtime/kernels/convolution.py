"""Convolution, pooling and padding over any number of spatial dimensions.

Convolution is im2col + one matrix product per group: sliding-window views of the padded
input give the patches without Python loops, and numpy's matmul hands the products to BLAS.
Pooling combines one strided slice per kernel offset. Inputs are `(N, C, *spatial)` or
unbatched `(C, *spatial)`, as in PyTorch. Each op is one maker over the number of spatial
dimensions (`convolution(2)` is conv2d's kernel); one table registers them all.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel
from tsjit.runtime.kernels.common import shape_str
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray
window_view = np.lib.stride_tricks.sliding_window_view


def expand_param(value: Sequence[int] | int, n: int, name: str) -> tuple[int, ...]:
    """An `int[n]` argument: one value repeats for every spatial dimension."""
    values = (value,) if type(value) is int else tuple(value)
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise TorchScriptError(f"expected {name} to be a single integer value or a list of {n} values")
    return values


def _batched(x: ndarray, n: int, op: str) -> tuple[ndarray, bool]:
    if x.ndim == n + 2:
        return x, False
    if x.ndim == n + 1:
        return x[None], True
    raise TorchScriptError(
        f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input of size: "
        f"{shape_str(x.shape)}"
    )


def _windows(
    x: ndarray, kernel_size: Sequence[int], stride: Sequence[int], dilation: Sequence[int]
) -> ndarray:
    """(N, C, *out, *kernel) view of x's spatial windows."""
    n = len(kernel_size)
    spans = [(k - 1) * d + 1 for k, d in zip(kernel_size, dilation)]
    view = window_view(x, spans, axis=tuple(range(2, 2 + n)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
    index += tuple(slice(None, None, d) for d in dilation)
    return view[index]


def convolution(n: int) -> Kernel:
    """The kernel of `conv{n}d(input, weight, bias, stride, padding, dilation, groups)`."""
    op = f"conv{n}d"

    def conv(
        input: ndarray,
        weight: ndarray,
        bias: ndarray | None = None,
        stride: Sequence[int] = (1,) * n,
        padding: Sequence[int] | str = (0,) * n,
        dilation: Sequence[int] = (1,) * n,
        groups: int = 1,
    ) -> ndarray:
        x, unbatched = _batched(input, n, op)
        if weight.ndim != n + 2:
            raise TorchScriptError(
                f"Expected {n + 2}-dimensional weight for {n + 2}-dimensional input {shape_str(x.shape)}, "
                f"but got "
                f"{weight.ndim}-dimensional weight of size {shape_str(weight.shape)} instead"
            )
        if x.dtype != weight.dtype:
            raise TorchScriptError(
                f"Input type ({dtype_name(x.dtype)}) and weight type ({dtype_name(weight.dtype)}) should be "
                f"the same"
            )
        out_channels, group_channels, *kernel_size = weight.shape
        if x.shape[1] != group_channels * groups or out_channels % groups:
            raise TorchScriptError(
                f"Given groups={groups}, weight of size {shape_str(weight.shape)}, expected "
                f"input{shape_str(x.shape)} "
                f"to have {group_channels * groups} channels, but got {x.shape[1]} channels instead"
            )
        stride, dilation = expand_param(stride, n, "stride"), expand_param(dilation, n, "dilation")
        if type(padding) is str:
            if padding == "valid":
                pads = [(0, 0)] * n
            elif padding == "same":
                if any(s != 1 for s in stride):
                    raise TorchScriptError("padding='same' is not supported for strided convolutions")
                totals = [d * (k - 1) for d, k in zip(dilation, kernel_size)]
                pads = [(t // 2, t - t // 2) for t in totals]
            else:
                raise TorchScriptError(f"Invalid padding string: '{padding}'")
        else:
            pads = [(p, p) for p in expand_param(padding, n, "padding")]
        padded_sizes = [size + lo + hi for size, (lo, hi) in zip(x.shape[2:], pads)]
        spans = [(k - 1) * d + 1 for k, d in zip(kernel_size, dilation)]
        if any(span > size for span, size in zip(spans, padded_sizes)):
            raise TorchScriptError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded_sizes))}). "
                f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than actual "
                f"input size"
            )
        if any(lo or hi for lo, hi in pads):
            x = np.pad(x, [(0, 0), (0, 0)] + pads)
        windows = _windows(x, kernel_size, stride, dilation)  # (N, C, *out, *k)
        batch, out_shape = x.shape[0], windows.shape[2 : 2 + n]
        positions = math.prod(out_shape)
        # im2col as (G, C/G * prod(k), N * positions): the copy then walks the input along its
        # rows, and (G, O/G, C/G * prod(k)) @ columns is one BLAS call per group. Splitting C into
        # (G, C/G) and permuting are views; the reshape to columns is the one copy.
        split = windows.reshape((batch, groups, group_channels) + tuple(out_shape) + tuple(kernel_size))
        order = (1, 2) + tuple(range(3 + n, 3 + 2 * n)) + (0,) + tuple(range(3, 3 + n))
        columns = split.transpose(order).reshape(groups, -1, batch * positions)
        kernels = weight.reshape(groups, out_channels // groups, -1)
        product = np.matmul(kernels, columns)  # (G, O/G, N * positions)
        out = (
            product.reshape(groups, out_channels // groups, batch, positions)
            .transpose(2, 0, 1, 3)
            .reshape((batch, out_channels) + tuple(out_shape))
        )
        if bias is not None:
            out = out + bias.reshape((1, -1) + (1,) * n).astype(out.dtype, copy=False)
        out = np.ascontiguousarray(out)
        return out[0] if unbatched else out

    return conv


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------


def _pool_geometry(
    sizes: Sequence[int],
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> list[tuple[int, int]]:
    """(output size, extra right padding) per spatial dimension, with PyTorch's ceil_mode rule."""
    geometry = []
    for size, k, s, p, d in zip(sizes, kernel_size, stride, padding, dilation):
        if p * 2 > k:
            raise TorchScriptError(
                f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and "
                f"dilation={d}"
            )
        span = (k - 1) * d + 1
        numerator = size + 2 * p - span
        out = (-(-numerator // s) if ceil_mode else numerator // s) + 1
        if ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        if out <= 0:
            raise TorchScriptError(
                f"Given input size: ({'x'.join(map(str, sizes))}). Calculated output size is too small"
            )
        geometry.append((out, max((out - 1) * s + span - (size + 2 * p), 0)))
    return geometry


def _pool_params(kernel_size, stride, padding, dilation, n):
    kernel_size = expand_param(kernel_size, n, "kernel_size")
    stride = kernel_size if not stride else expand_param(stride, n, "stride")
    return kernel_size, stride, expand_param(padding, n, "padding"), expand_param(dilation, n, "dilation")


def _reduce_windows(x: ndarray, kernel_size, stride, dilation, ufunc: np.ufunc) -> ndarray:
    """Reduce each pooling window with `ufunc`, one strided slice per kernel offset: a few
    whole-array operations instead of a reduction over a window view's tiny inner axes."""
    out_shape = [
        (size - (k - 1) * d - 1) // s + 1 for size, k, s, d in zip(x.shape[2:], kernel_size, stride, dilation)
    ]
    result = None
    for offsets in itertools.product(*(range(k) for k in kernel_size)):
        index = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (count - 1) * s + 1, s)
            for o, d, count, s in zip(offsets, dilation, out_shape, stride)
        )
        piece = x[index]
        result = piece.copy() if result is None else ufunc(result, piece, out=result)
    return result


def max_pooling(n: int) -> Kernel:
    """The kernel of `max_pool{n}d(self, kernel_size, stride, padding, dilation, ceil_mode)`."""
    op = f"max_pool{n}d"

    def max_pool(
        self: ndarray,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Sequence[int] = (0,),
        dilation: Sequence[int] = (1,),
        ceil_mode: bool = False,
    ) -> ndarray:
        x, unbatched = _batched(self, n, op)
        kernel_size, stride, padding, dilation = _pool_params(kernel_size, stride, padding, dilation, n)
        geometry = _pool_geometry(x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode)
        pads = [(p, p + extra) for p, (_, extra) in zip(padding, geometry)]
        if any(lo or hi for lo, hi in pads):
            fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
            x = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=fill)
        out = _reduce_windows(x, kernel_size, stride, dilation, np.maximum)
        return out[0] if unbatched else out

    return max_pool


def avg_pooling(n: int) -> Kernel:
    """The kernel of `avg_pool{n}d(self, kernel_size, stride, padding, ceil_mode,
    count_include_pad[, divisor_override])`; avg_pool1d's schema has no divisor_override."""
    op = f"avg_pool{n}d"

    def avg_pool(
        self: ndarray,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Sequence[int] = (0,),
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> ndarray:
        x, unbatched = _batched(self, n, op)
        kernel_size, stride, padding, ones = _pool_params(kernel_size, stride, padding, 1, n)
        geometry = _pool_geometry(x.shape[2:], kernel_size, stride, padding, ones, ceil_mode)
        pads = [(p, p + extra) for p, (_, extra) in zip(padding, geometry)]
        if any(lo or hi for lo, hi in pads):
            x = np.pad(x, [(0, 0), (0, 0)] + pads)
        sums = _reduce_windows(x, kernel_size, stride, ones, np.add)
        if divisor_override:
            return (
                (sums / sums.dtype.type(divisor_override))[0]
                if unbatched
                else sums / sums.dtype.type(divisor_override)
            )
        # Per dimension: how many elements each window covers (padding counted or not).
        divisor = np.ones((), dtype=np.float64)
        for size, k, s, p, (out, _) in zip(self.shape[-n:], kernel_size, stride, padding, geometry):
            start = np.arange(out) * s - p
            end = np.minimum(start + k, size + p)
            if not count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            divisor = np.multiply.outer(divisor, end - start)
        out = (sums / divisor).astype(x.dtype)
        return out[0] if unbatched else out

    return avg_pool


def _adaptive_avg(x: ndarray, axis: int, out: int) -> ndarray:
    """Average over PyTorch's adaptive bins [floor(i*L/out), ceil((i+1)*L/out)) along one axis."""
    size = x.shape[axis]
    i = np.arange(out)
    start, end = (i * size) // out, -((-(i + 1) * size) // out)
    prefix = np.concatenate([np.zeros_like(np.take(x, [0], axis=axis)), np.cumsum(x, axis=axis)], axis=axis)
    sums = np.take(prefix, end, axis=axis) - np.take(prefix, start, axis=axis)
    shape = [1] * x.ndim
    shape[axis] = out
    return sums / (end - start).reshape(shape).astype(x.dtype)


def adaptive_avg_pooling(n: int) -> Kernel:
    """The kernel of `adaptive_avg_pool{n}d(self, output_size)`."""
    op = f"adaptive_avg_pool{n}d"

    def adaptive_avg_pool(self: ndarray, output_size: Sequence[int]) -> ndarray:
        x, unbatched = _batched(self, n, op)
        sizes = expand_param(output_size, n, "output_size")
        for i, out in enumerate(sizes):
            x = _adaptive_avg(x, 2 + i, out)
        x = x.astype(self.dtype, copy=False)
        return x[0] if unbatched else x

    return adaptive_avg_pool


for _names, _kernel in (
    (("aten::conv1d", "aten::conv1d.padding"), convolution(1)),
    (("aten::conv2d", "aten::conv2d.padding"), convolution(2)),
    (("aten::conv3d", "aten::conv3d.padding"), convolution(3)),
    (("aten::max_pool1d",), max_pooling(1)),
    (("aten::max_pool2d",), max_pooling(2)),
    (("aten::avg_pool1d",), avg_pooling(1)),
    (("aten::avg_pool2d",), avg_pooling(2)),
    (("aten::adaptive_avg_pool1d",), adaptive_avg_pooling(1)),
    (("aten::adaptive_avg_pool2d",), adaptive_avg_pooling(2)),
):
    kernel(*_names)(_kernel)


# --------------------------------------------------------------------------------------
# Padding
# --------------------------------------------------------------------------------------


def _pad_widths(x: ndarray, pad: Sequence[int]) -> list[tuple[int, int]]:
    """numpy pad widths of PyTorch's `pad` list (pairs starting from the last dimension)."""
    if len(pad) % 2:
        raise TorchScriptError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > x.ndim:
        raise TorchScriptError(
            f"Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)} while the input has {x.ndim} dimensions."
        )
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


def _crop_negative(x: ndarray, widths: list[tuple[int, int]]) -> tuple[ndarray, list[tuple[int, int]]]:
    index = tuple(slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in widths)
    return x[index], [(max(lo, 0), max(hi, 0)) for lo, hi in widths]


@kernel("aten::constant_pad_nd")
def constant_pad_nd(self: ndarray, pad: Sequence[int], value: object = 0) -> ndarray:
    cropped, widths = _crop_negative(self, _pad_widths(self, pad))
    return np.pad(cropped, widths, constant_values=value)


_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@kernel("aten::pad")
def pad(self: ndarray, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> ndarray:
    if mode == "constant":
        return constant_pad_nd(self, pad, 0 if value is None else value)
    numpy_mode = _PAD_MODES.get(mode)
    if numpy_mode is None:
        raise TorchScriptError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise TorchScriptError(f'Padding mode "{mode}" doesn\'t take in value argument')
    widths = _pad_widths(self, pad)
    if mode == "reflect":
        for (lo, hi), size in zip(widths, self.shape):
            if lo >= size or hi >= size:
                raise TorchScriptError(
                    f"Argument #4: Padding size should be less than the corresponding input dimension, "
                    f"but got: "
                    f"padding ({lo}, {hi}) at dimension {widths.index((lo, hi))} of input "
                    f"{shape_str(self.shape)}"
                )
    return np.pad(self, widths, mode=numpy_mode)
