"""Convolution (direct and transposed) over any number of spatial dimensions, and its
building blocks im2col (`F.unfold`) and col2im (`F.fold`).

A convolution is im2col + one matrix product per group: sliding-window views of the padded
input give the patches without Python loops, and numpy's matmul hands the products to BLAS.
A transposed convolution is the adjoint: one matrix product gives every kernel tap's
contribution, and col2im adds them into the output, one strided slice per kernel offset.
Inputs are `(N, C, *spatial)` or unbatched `(C, *spatial)`, as in PyTorch; every schema
spelling (`conv2d`, `conv2d.padding`, `convolution`, `_convolution`, `conv_transpose2d.input`,
...) is a thin adapter over the two kernels `convolve` and `convolve_transposed`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
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


def batched(x: ndarray, n: int, op: str) -> tuple[ndarray, bool]:
    """(x with a batch dimension, whether one was added) for an op over n spatial dimensions."""
    if x.ndim == n + 2:
        return x, False
    if x.ndim == n + 1:
        return x[None], True
    raise TorchScriptError(
        f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, but got input of size: "
        f"{shape_str(x.shape)}"
    )


def windows(
    x: ndarray, kernel_size: Sequence[int], stride: Sequence[int], dilation: Sequence[int]
) -> ndarray:
    """(N, C, *out, *kernel) view of x's spatial windows (no padding)."""
    n = len(kernel_size)
    spans = [(k - 1) * d + 1 for k, d in zip(kernel_size, dilation)]
    view = window_view(x, spans, axis=tuple(range(2, 2 + n)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
    index += tuple(slice(None, None, d) for d in dilation)
    return view[index]


def add_windows(out: ndarray, columns: ndarray, stride: Sequence[int], dilation: Sequence[int]) -> ndarray:
    """col2im's core: adds `columns` (N, C, *kernel, *positions) into `out` (N, C, *spatial),
    tap by tap: position p of kernel offset k lands at `p * stride + k * dilation`."""
    n = len(stride)
    kernel_size, positions = columns.shape[2 : 2 + n], columns.shape[2 + n :]
    for offsets in itertools.product(*(range(k) for k in kernel_size)):
        index = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (count - 1) * s + 1, s)
            for o, d, count, s in zip(offsets, dilation, positions, stride)
        )
        out[index] += columns[(slice(None), slice(None)) + offsets]
    return out


def _check_dtypes(x: ndarray, weight: ndarray, bias: ndarray | None) -> None:
    if x.dtype != weight.dtype:
        raise TorchScriptError(
            f"Input type ({dtype_name(x.dtype)}) and weight type ({dtype_name(weight.dtype)}) should be the same"
        )
    if x.dtype.kind == "b":
        raise TorchScriptError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
    if bias is not None and bias.dtype != x.dtype:
        raise TorchScriptError(
            f"Input type ({dtype_name(x.dtype)}) and bias type ({dtype_name(bias.dtype)}) should be the same"
        )


def _padding_pairs(
    padding: Sequence[int] | str,
    n: int,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
) -> list[tuple[int, int]]:
    """(before, after) padding per dimension; 'same' puts an odd total's extra on the right."""
    if type(padding) is not str:
        return [(p, p) for p in expand_param(padding, n, "padding")]
    if padding == "valid":
        return [(0, 0)] * n
    if padding == "same":
        if any(s != 1 for s in stride):
            raise TorchScriptError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for d, k in zip(dilation, kernel_size)]
        return [(t // 2, t - t // 2) for t in totals]
    raise TorchScriptError(f"Invalid padding string: '{padding}'")


def convolve(
    input: ndarray,
    weight: ndarray,
    bias: ndarray | None,
    stride: Sequence[int] | int,
    padding: Sequence[int] | int | str,
    dilation: Sequence[int] | int,
    groups: int,
) -> ndarray:
    """A convolution of any spatial rank (weight `(O, C/G, *k)`): im2col and one GEMM per group."""
    n = weight.ndim - 2
    if n < 1:
        raise TorchScriptError(f"weight should have at least three dimensions, got {weight.ndim}")
    x, unbatched = batched(input, n, f"conv{n}d")
    if weight.ndim != x.ndim:
        raise TorchScriptError(
            f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
            f"{shape_str(weight.shape)}, but got {input.ndim}-dimensional input of size "
            f"{shape_str(input.shape)} instead"
        )
    _check_dtypes(x, weight, bias)
    out_channels, group_channels, *kernel_size = weight.shape
    if groups <= 0:
        raise TorchScriptError("non-positive groups is not supported")
    if x.shape[1] != group_channels * groups or out_channels % groups:
        raise TorchScriptError(
            f"Given groups={groups}, weight of size {shape_str(weight.shape)}, expected input{shape_str(x.shape)} "
            f"to have {group_channels * groups} channels, but got {x.shape[1]} channels instead"
        )
    stride, dilation = expand_param(stride, n, "stride"), expand_param(dilation, n, "dilation")
    pads = _padding_pairs(padding, n, kernel_size, stride, dilation)
    padded_sizes = [size + lo + hi for size, (lo, hi) in zip(x.shape[2:], pads)]
    spans = [(k - 1) * d + 1 for k, d in zip(kernel_size, dilation)]
    if any(span > size for span, size in zip(spans, padded_sizes)):
        raise TorchScriptError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded_sizes))}). "
            f"Kernel size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than actual input size"
        )
    if any(lo or hi for lo, hi in pads):
        x = np.pad(x, [(0, 0), (0, 0)] + pads)
    patches = windows(x, kernel_size, stride, dilation)  # (N, C, *out, *k)
    batch, out_shape = x.shape[0], patches.shape[2 : 2 + n]
    positions = math.prod(out_shape)
    if groups == 1 and batch == 1:
        # (O, C * prod(k)) @ (C * prod(k), positions): the common case, one BLAS call.
        columns = patches[0].transpose((0, *range(1 + n, 1 + 2 * n), *range(1, 1 + n))).reshape(-1, positions)
        out = np.matmul(weight.reshape(out_channels, -1), columns).reshape(
            (1, out_channels) + tuple(out_shape)
        )
    else:
        # im2col as (G, C/G * prod(k), N * positions): the copy walks the input along its rows,
        # and (G, O/G, C/G * prod(k)) @ columns is one BLAS call per group.
        split = patches.reshape((batch, groups, group_channels) + tuple(out_shape) + tuple(kernel_size))
        order = (1, 2) + tuple(range(3 + n, 3 + 2 * n)) + (0,) + tuple(range(3, 3 + n))
        columns = split.transpose(order).reshape(groups, -1, batch * positions)
        product = np.matmul(weight.reshape(groups, out_channels // groups, -1), columns)
        out = (
            product.reshape(groups, out_channels // groups, batch, positions)
            .transpose(2, 0, 1, 3)
            .reshape((batch, out_channels) + tuple(out_shape))
        )
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * n)
    out = np.ascontiguousarray(out)
    return out[0] if unbatched else out


def convolve_transposed(
    input: ndarray,
    weight: ndarray,
    bias: ndarray | None,
    stride: Sequence[int] | int,
    padding: Sequence[int] | int,
    output_padding: Sequence[int] | int,
    groups: int,
    dilation: Sequence[int] | int,
) -> ndarray:
    """A transposed convolution (weight `(C, O/G, *k)`): one GEMM per group gives every tap's
    contribution `(O, *k, N, *in)`, col2im adds them at `in * stride + k * dilation - padding`."""
    n = weight.ndim - 2
    if n < 1:
        raise TorchScriptError(f"weight should have at least three dimensions, got {weight.ndim}")
    x, unbatched = batched(input, n, f"conv_transpose{n}d")
    _check_dtypes(x, weight, bias)
    in_channels, group_out, *kernel_size = weight.shape
    if groups <= 0:
        raise TorchScriptError("non-positive groups is not supported")
    if x.shape[1] != in_channels or in_channels % groups:
        raise TorchScriptError(
            f"Given transposed=1, weight of size {shape_str(weight.shape)}, expected input{shape_str(x.shape)} "
            f"to have {in_channels} channels, but got {x.shape[1]} channels instead"
        )
    stride, dilation = expand_param(stride, n, "stride"), expand_param(dilation, n, "dilation")
    padding = expand_param(padding, n, "padding")
    output_padding = expand_param(output_padding, n, "output_padding")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise TorchScriptError(
                f"output padding must be smaller than either stride or dilation, but got output_padding: {op}, "
                f"stride: {s}, dilation: {d}"
            )
    batch, in_shape = x.shape[0], x.shape[2:]
    out_shape = [
        (size - 1) * s - 2 * p + d * (k - 1) + op + 1
        for size, s, p, d, k, op in zip(in_shape, stride, padding, dilation, kernel_size, output_padding)
    ]
    if any(size <= 0 for size in out_shape):
        raise TorchScriptError(f"Given input size per channel: ({' x '.join(map(str, in_shape))}). "
                               f"Calculated output size per channel: ({' x '.join(map(str, out_shape))}). "
                               "Output size is too small")  # fmt: skip
    out_channels = group_out * groups
    group_in = in_channels // groups
    positions = math.prod(in_shape)
    rows = x.reshape(batch, groups, group_in, positions).transpose(1, 2, 0, 3).reshape(groups, group_in, -1)
    taps = weight.reshape(groups, group_in, group_out * math.prod(kernel_size)).transpose(0, 2, 1)
    columns = np.matmul(taps, rows)  # (G, O/G * prod(k), N * positions)
    columns = columns.reshape((out_channels, *kernel_size, batch, *in_shape))
    columns = columns.transpose((1 + n, 0, *range(1, 1 + n), *range(2 + n, 2 + 2 * n)))  # (N, O, *k, *in)
    full = [p + size for p, size in zip(padding, out_shape)]
    reach = [
        (size - 1) * s + (k - 1) * d + 1 for size, s, k, d in zip(in_shape, stride, kernel_size, dilation)
    ]
    out = np.zeros((batch, out_channels, *(max(f, r) for f, r in zip(full, reach))), dtype=columns.dtype)
    add_windows(out, columns, stride, dilation)
    out = out[(slice(None), slice(None)) + tuple(slice(p, p + size) for p, size in zip(padding, out_shape))]
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * n)
    out = np.ascontiguousarray(out)
    return out[0] if unbatched else out


# --------------------------------------------------------------------------------------
# The schemas' spellings
# --------------------------------------------------------------------------------------


def _conv_of_rank(n: int) -> Kernel:
    """`conv{n}d(input, weight, bias, stride, padding, dilation, groups)`, padding an int list
    or 'same' / 'valid'."""

    def conv(
        input: ndarray,
        weight: ndarray,
        bias: ndarray | None = None,
        stride: Sequence[int] = (1,),
        padding: Sequence[int] | str = (0,),
        dilation: Sequence[int] = (1,),
        groups: int = 1,
    ) -> ndarray:
        if weight.ndim != n + 2:
            raise TorchScriptError(
                f"Expected {n + 2}-dimensional weight for conv{n}d, but got {weight.ndim}-dimensional weight of "
                f"size {shape_str(weight.shape)} instead"
            )
        return convolve(input, weight, bias, stride, padding, dilation, groups)

    return conv


def _conv_transpose_of_rank(n: int) -> Kernel:
    """`conv_transpose{n}d(input, weight, bias, stride, padding, output_padding, groups, dilation)`."""

    def conv_transpose(
        input: ndarray,
        weight: ndarray,
        bias: ndarray | None = None,
        stride: Sequence[int] = (1,),
        padding: Sequence[int] = (0,),
        output_padding: Sequence[int] = (0,),
        groups: int = 1,
        dilation: Sequence[int] = (1,),
    ) -> ndarray:
        if weight.ndim != n + 2:
            raise TorchScriptError(
                f"Expected {n + 2}-dimensional weight for conv_transpose{n}d, but got {weight.ndim}-dimensional "
                f"weight of size {shape_str(weight.shape)} instead"
            )
        return convolve_transposed(input, weight, bias, stride, padding, output_padding, groups, dilation)

    return conv_transpose


for _rank, _suffix in ((1, ""), (2, ".input"), (3, ".input")):
    kernel(f"aten::conv{_rank}d", f"aten::conv{_rank}d.padding")(_conv_of_rank(_rank))
    register_kernel(f"aten::conv_transpose{_rank}d{_suffix}", _conv_transpose_of_rank(_rank))


@kernel("aten::convolution", "aten::convolution_overrideable")
def convolution(
    input: ndarray,
    weight: ndarray,
    bias: ndarray | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> ndarray:
    if transposed:
        return convolve_transposed(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return convolve(input, weight, bias, stride, padding, dilation, groups)


@kernel("aten::_convolution", "aten::_convolution.deprecated")
def convolution_internal(
    input: ndarray,
    weight: ndarray,
    bias: ndarray | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    benchmark: bool = False,
    deterministic: bool = False,
    cudnn_enabled: bool = False,
    allow_tf32: bool = False,
) -> ndarray:
    return convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


@kernel("aten::_convolution_mode")
def convolution_mode(
    input: ndarray,
    weight: ndarray,
    bias: ndarray | None,
    stride: Sequence[int],
    padding: str,
    dilation: Sequence[int],
    groups: int,
) -> ndarray:
    return convolve(input, weight, bias, stride, padding, dilation, groups)


@kernel("aten::conv_tbc")
def conv_tbc(self: ndarray, weight: ndarray, bias: ndarray, pad: int = 0) -> ndarray:
    """Time-batch-channel 1-d convolution: self (T, B, C), weight (k, C, O), bias (O)."""
    if self.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise TorchScriptError("Input must have 3 dims: time, batch, in_channel")
    out = convolve(self.transpose(1, 2, 0), weight.transpose(2, 1, 0), bias, [1], [pad], [1], 1)
    return np.ascontiguousarray(out.transpose(2, 0, 1))


# --------------------------------------------------------------------------------------
# im2col and col2im (F.unfold and F.fold)
# --------------------------------------------------------------------------------------


@kernel("aten::im2col")
def im2col(
    self: ndarray,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> ndarray:
    """(N, C, H, W) -> (N, C * kh * kw, L): every sliding block as a column."""
    x, unbatched = batched(self, 2, "im2col")
    kernel_size, dilation = expand_param(kernel_size, 2, "kernel_size"), expand_param(dilation, 2, "dilation")
    padding, stride = expand_param(padding, 2, "padding"), expand_param(stride, 2, "stride")
    if any(p for p in padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    spans = [(k - 1) * d + 1 for k, d in zip(kernel_size, dilation)]
    if any(span > size for span, size in zip(spans, x.shape[2:])):
        raise TorchScriptError(
            f"Given input with spatial size ({', '.join(map(str, self.shape[-2:]))}), "
            f"kernel_size=({', '.join(map(str, kernel_size))}), dilation=({', '.join(map(str, dilation))}), "
            f"padding=({', '.join(map(str, padding))}), calculated shape of the array of sliding blocks as "
            f"({', '.join(str((s - sp) // st + 1) for s, sp, st in zip(x.shape[2:], spans, stride))}), "
            "but its components must be at least one."
        )
    patches = windows(x, kernel_size, stride, dilation)  # (N, C, oh, ow, kh, kw)
    batch, channels = x.shape[:2]
    columns = channels * math.prod(kernel_size)
    out = np.ascontiguousarray(patches.transpose(0, 1, 4, 5, 2, 3)).reshape(
        batch, columns, math.prod(patches.shape[2:4])
    )
    return out[0] if unbatched else out


@kernel("aten::col2im")
def col2im(
    self: ndarray,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> ndarray:
    """(N, C * kh * kw, L) -> (N, C, *output_size): columns summed back into their blocks."""
    if self.ndim not in (2, 3):
        raise TorchScriptError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {shape_str(self.shape)}"
        )
    unbatched = self.ndim == 2
    cols = self[None] if unbatched else self
    output_size = expand_param(output_size, 2, "output_size")
    kernel_size, dilation = expand_param(kernel_size, 2, "kernel_size"), expand_param(dilation, 2, "dilation")
    padding, stride = expand_param(padding, 2, "padding"), expand_param(stride, 2, "stride")
    taps = math.prod(kernel_size)
    blocks = [
        (size + 2 * p - (k - 1) * d - 1) // s + 1
        for size, p, k, d, s in zip(output_size, padding, kernel_size, dilation, stride)
    ]
    if cols.shape[1] % taps:
        raise TorchScriptError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={cols.shape[1]} and kernel_size=({', '.join(map(str, kernel_size))})"
        )
    if cols.shape[2] != math.prod(blocks):
        raise TorchScriptError(
            f"Given output_size=({', '.join(map(str, output_size))}), kernel_size=({', '.join(map(str, kernel_size))}), "
            f"dilation=({', '.join(map(str, dilation))}), padding=({', '.join(map(str, padding))}), "
            f"stride=({', '.join(map(str, stride))}), expected size of input's dimension 2 to match the calculated "
            f"number of sliding blocks {' * '.join(map(str, blocks))} = {math.prod(blocks)}, but got "
            f"input.size(2)={cols.shape[2]}."
        )
    batch, channels = cols.shape[0], cols.shape[1] // taps
    columns = cols.reshape(batch, channels, *kernel_size, *blocks)
    out = np.zeros(
        (batch, channels, *(size + 2 * p for size, p in zip(output_size, padding))), dtype=cols.dtype
    )
    add_windows(out, columns, stride, dilation)
    out = np.ascontiguousarray(
        out[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, output_size))]
    )
    return out[0] if unbatched else out
