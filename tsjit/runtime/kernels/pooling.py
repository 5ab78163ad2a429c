"""Pooling over any number of spatial dimensions: max (with indices), average, adaptive
average and max, fractional max, and max-unpooling.

Fixed windows combine one strided slice per kernel offset (a few whole-array operations,
not a reduction over a window view's tiny inner axes); windows that vary (adaptive,
fractional) gather their elements with index arrays and reduce the last axis. Indices are
flat positions in each input plane, and ties go to the first element in scan order while
a NaN wins, as in PyTorch's CPU kernels. Each op is one maker over the number of spatial
dimensions; one table registers them all.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, register_kernel
from tsjit.runtime.kernels.common import shape_str
from tsjit.runtime.kernels.convolution import batched, expand_param
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray


def _check_dtype(x: ndarray, op: str, integers: bool = True) -> None:
    if x.dtype.kind == "b" or (not integers and x.dtype.kind in "iu"):
        raise TorchScriptError(f"\"{op}\" not implemented for '{dtype_name(x.dtype)}'")


def _pool_geometry(
    sizes: Sequence[int],
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> list[int]:
    """The output size per spatial dimension, with PyTorch's ceil_mode rule (the last window
    must start inside the input or its left padding)."""
    out_sizes = []
    for size, k, s, p, d in zip(sizes, kernel_size, stride, padding, dilation):
        if s <= 0:
            raise TorchScriptError("stride should be greater than zero")
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
                f"Given input size: ({'x'.join(map(str, sizes))}). Calculated output size: "
                f"({'x'.join(str(max(o, 0)) for o in [out])}). Output size is too small"
            )
        out_sizes.append(out)
    return out_sizes


def _pool_params(kernel_size, stride, padding, dilation, n):
    kernel_size = expand_param(kernel_size, n, "kernel_size")
    stride = kernel_size if not stride else expand_param(stride, n, "stride")
    return kernel_size, stride, expand_param(padding, n, "padding"), expand_param(dilation, n, "dilation")


def _padded(x: ndarray, padding, out_sizes, kernel_size, stride, dilation, fill) -> ndarray:
    """x padded with `fill` so that every window of the output lies inside."""
    pads = []
    for size, p, out, k, s, d in zip(x.shape[2:], padding, out_sizes, kernel_size, stride, dilation):
        pads.append((p, max((out - 1) * s + (k - 1) * d + 1 - size - p, 0)))
    if any(lo or hi for lo, hi in pads):
        x = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=fill)
    return x


def _tap(offsets, dilation, out_sizes, stride) -> tuple:
    """The strided slice of the padded input that kernel offset `offsets` reads."""
    return (slice(None), slice(None)) + tuple(
        slice(o * d, o * d + (count - 1) * s + 1, s)
        for o, d, count, s in zip(offsets, dilation, out_sizes, stride)
    )


def _lowest(dtype: np.dtype) -> object:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool_values(x, kernel_size, stride, padding, dilation, ceil_mode) -> ndarray:
    """Batched max pooling without indices: NaN propagates through np.maximum."""
    out_sizes = _pool_geometry(x.shape[2:], kernel_size, stride, padding, dilation, ceil_mode)
    x = _padded(x, padding, out_sizes, kernel_size, stride, dilation, _lowest(x.dtype))
    result = None
    for offsets in itertools.product(*(range(k) for k in kernel_size)):
        piece = x[_tap(offsets, dilation, out_sizes, stride)]
        result = piece.copy() if result is None else np.maximum(result, piece, out=result)
    return result


def max_pool_indices(x, kernel_size, stride, padding, dilation, ceil_mode) -> tuple[ndarray, ndarray]:
    """Batched max pooling with the flat in-plane index of each maximum."""
    sizes = x.shape[2:]
    out_sizes = _pool_geometry(sizes, kernel_size, stride, padding, dilation, ceil_mode)
    padded = _padded(x, padding, out_sizes, kernel_size, stride, dilation, _lowest(x.dtype))
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    base = np.zeros((), np.int64)
    for axis, (out, s, p, mult) in enumerate(zip(out_sizes, stride, padding, strides)):
        shape = [1] * len(sizes)
        shape[axis] = out
        base = base + ((np.arange(out, dtype=np.int64) * s - p) * mult).reshape(shape)
    best = indices = None
    for offsets in itertools.product(*(range(k) for k in kernel_size)):
        piece = padded[_tap(offsets, dilation, out_sizes, stride)]
        shift = sum(o * d * mult for o, d, mult in zip(offsets, dilation, strides))
        if best is None:
            best = piece.copy()
            indices = np.broadcast_to(base + shift, piece.shape).copy()
            continue
        better = piece > best
        if x.dtype.kind == "f":
            better |= np.isnan(piece)
        np.copyto(best, piece, where=better)
        np.copyto(indices, base + shift, where=better)
    return best, indices


def max_pooling(n: int, with_indices: bool) -> Kernel:
    """The kernel of `max_pool{n}d[_with_indices](self, kernel_size, stride, padding, dilation, ceil_mode)`."""
    op = f"max_pool{n}d"

    def max_pool(
        self: ndarray,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Sequence[int] = (0,),
        dilation: Sequence[int] = (1,),
        ceil_mode: bool = False,
    ):
        _check_dtype(self, op if n != 2 else "max_pool2d")
        x, unbatched = batched(self, n, op)
        params = _pool_params(kernel_size, stride, padding, dilation, n)
        if any(d <= 0 for d in params[3]):
            raise TorchScriptError("dilation should be greater than zero")
        if not with_indices:
            out = max_pool_values(x, *params, ceil_mode)
            return out[0] if unbatched else out
        values, indices = max_pool_indices(x, *params, ceil_mode)
        return (values[0], indices[0]) if unbatched else (values, indices)

    return max_pool


def avg_pooling(n: int) -> Kernel:
    """The kernel of `avg_pool{n}d(self, kernel_size, stride, padding, ceil_mode,
    count_include_pad[, divisor_override])`; avg_pool1d's schema has no divisor_override.
    Integer tensors divide with truncation, as PyTorch's integer kernels do."""
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
        _check_dtype(self, op)
        x, unbatched = batched(self, n, op)
        kernel_size, stride, padding, ones = _pool_params(kernel_size, stride, padding, 1, n)
        if divisor_override is not None and divisor_override == 0:
            raise TorchScriptError("divisor must be not zero")
        out_sizes = _pool_geometry(x.shape[2:], kernel_size, stride, padding, ones, ceil_mode)
        x = _padded(x, padding, out_sizes, kernel_size, stride, ones, 0)
        sums = None
        for offsets in itertools.product(*(range(k) for k in kernel_size)):
            piece = x[_tap(offsets, ones, out_sizes, stride)]
            sums = piece.copy() if sums is None else np.add(sums, piece, out=sums)
        if divisor_override:
            divisor = np.asarray(divisor_override, dtype=np.int64)
        else:
            # Per dimension: how many elements each window covers (padding counted or not);
            # a window's part past the right padding (ceil_mode) never counts.
            divisor = np.ones((), dtype=np.int64)
            for size, k, s, p, out in zip(self.shape[-n:], kernel_size, stride, padding, out_sizes):
                start = np.arange(out) * s - p
                end = np.minimum(start + k, size + p)
                if not count_include_pad:
                    start, end = np.maximum(start, 0), np.minimum(end, size)
                divisor = np.multiply.outer(divisor, end - start)
        if sums.dtype.kind == "f":
            out = (sums / divisor).astype(sums.dtype)
        else:
            out = np.fix(sums / divisor).astype(sums.dtype)
        return out[0] if unbatched else out

    return avg_pool


# --------------------------------------------------------------------------------------
# Windows that vary: adaptive and fractional pooling
# --------------------------------------------------------------------------------------


def _adaptive_bins(size: int, out: int) -> tuple[ndarray, ndarray]:
    """PyTorch's adaptive bins [floor(i*L/out), ceil((i+1)*L/out))."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_avg(x: ndarray, axis: int, out: int) -> ndarray:
    """Averages over the adaptive bins along one axis, by differences of a prefix sum."""
    start, end = _adaptive_bins(x.shape[axis], out)
    prefix = np.concatenate([np.zeros_like(np.take(x, [0], axis=axis)), np.cumsum(x, axis=axis)], axis=axis)
    sums = np.take(prefix, end, axis=axis) - np.take(prefix, start, axis=axis)
    shape = [1] * x.ndim
    shape[axis] = out
    return sums / (end - start).reshape(shape).astype(x.dtype)


def _check_output_size(x: ndarray, sizes: Sequence[int], op: str) -> None:
    if any(s < 0 for s in sizes):
        raise TorchScriptError(f"{op}: elements of output_size must be greater than or equal to 0 but received "
                               f"{{{', '.join(map(str, sizes))}}}")  # fmt: skip
    for axis in range(1, x.ndim):
        if x.shape[axis] == 0:
            raise TorchScriptError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{shape_str(x.shape)} with dimension {axis} being empty"
            )


def adaptive_avg_pooling(n: int) -> Kernel:
    """The kernel of `adaptive_avg_pool{n}d(self, output_size)`."""
    op = f"adaptive_avg_pool{n}d"

    def adaptive_avg_pool(self: ndarray, output_size: Sequence[int]) -> ndarray:
        _check_dtype(self, op, integers=False)
        x, unbatched = batched(self, n, op)
        sizes = expand_param(output_size, n, "output_size")
        _check_output_size(x, sizes, op)
        for i, out in enumerate(sizes):
            x = _adaptive_avg(x, 2 + i, out)
        x = x.astype(self.dtype, copy=False)
        return x[0] if unbatched else x

    return adaptive_avg_pool


def _window_max(
    gathered: ndarray, coords: Sequence[ndarray], plane: Sequence[int]
) -> tuple[ndarray, ndarray]:
    """Max and flat in-plane index over the window axis of `gathered` (..., K), where
    `coords[j]` (broadcastable to it) is the input coordinate along spatial dimension j of each
    element. First maximum wins, a NaN over anything (the last NaN), as in PyTorch."""
    choice = np.argmax(gathered, axis=-1)[..., None]
    if gathered.dtype.kind == "f":
        nan = np.isnan(gathered)
        has_nan = nan.any(axis=-1, keepdims=True)
        if has_nan.any():
            last_nan = gathered.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)[..., None]
            choice = np.where(has_nan, last_nan, choice)
    values = np.take_along_axis(gathered, choice, axis=-1)[..., 0]
    flat = np.zeros((), np.int64)
    for coord, size in zip(coords, plane):
        flat = (
            flat * size + np.take_along_axis(np.broadcast_to(coord, gathered.shape), choice, axis=-1)[..., 0]
        )
    return values, np.ascontiguousarray(np.broadcast_to(flat, values.shape)).astype(np.int64)


def _gather_windows(x: ndarray, starts: Sequence[ndarray], lengths: Sequence[ndarray | int]):
    """(windows (N, C, *out, K), coordinates per dimension) of boxes that start at `starts[j]`
    (shape (N, C, out_j) or (out_j,)) and span `lengths[j]` elements; shorter windows repeat
    their last element (harmless for a maximum)."""
    n = len(starts)
    widths = [int(np.max(length)) for length in lengths]
    coords = []
    for j, (start, length, width) in enumerate(zip(starts, lengths, widths)):
        offsets = np.minimum(np.arange(width), np.asarray(length)[..., None] - 1)
        coord = np.asarray(start)[..., None] + offsets  # (..., out_j, width_j)
        lead = coord.shape[:-2]
        shape = list(lead) + [1] * n + [1] * n
        shape[len(lead) + j] = coord.shape[-2]
        shape[len(lead) + n + j] = width
        coords.append(coord.reshape(shape))
    batch_index = (np.arange(x.shape[0]).reshape((-1,) + (1,) * (1 + 2 * n)),
                   np.arange(x.shape[1]).reshape((1, -1) + (1,) * (2 * n)))  # fmt: skip
    coords = [c if c.ndim == 2 + 2 * n else c.reshape((1, 1) + c.shape) for c in coords]
    gathered = x[batch_index + tuple(coords)]  # (N, C, *out, *width)
    lead = gathered.shape[: 2 + n]
    return gathered.reshape(lead + (-1,)), [
        np.broadcast_to(c, gathered.shape).reshape(lead + (-1,)) for c in coords
    ]


def adaptive_max_pooling(n: int) -> Kernel:
    """The kernel of `adaptive_max_pool{n}d(self, output_size) -> (values, indices)`."""
    op = f"adaptive_max_pool{n}d"

    def adaptive_max_pool(self: ndarray, output_size: Sequence[int]) -> tuple[ndarray, ndarray]:
        _check_dtype(self, op, integers=False)
        x, unbatched = batched(self, n, op)
        sizes = expand_param(output_size, n, "output_size")
        _check_output_size(x, sizes, op)
        bins = [_adaptive_bins(size, out) for size, out in zip(x.shape[2:], sizes)]
        gathered, coords = _gather_windows(
            x, [start for start, _ in bins], [end - start for start, end in bins]
        )
        values, indices = _window_max(gathered, coords, x.shape[2:])
        return (values[0], indices[0]) if unbatched else (values, indices)

    return adaptive_max_pool


def _fractional_starts(samples: ndarray, size: int, out: int, pool: int) -> ndarray:
    """PyTorch's pseudo-random window starts (`generate_intervals`), in the samples' dtype."""
    t = samples.dtype.type
    starts = np.empty(samples.shape + (out,), np.int64)
    if out > 1:
        alpha = t(size - pool) / t(out - 1)
        i = np.arange(out - 1, dtype=samples.dtype)
        scaled = ((i + samples[..., None]) * alpha).astype(np.int64)
        starts[..., :-1] = scaled - (samples * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def fractional_max_pooling(n: int) -> Kernel:
    """The kernel of `fractional_max_pool{n}d(self, kernel_size, output_size, random_samples)`:
    `random_samples` (N, C, n) holds each plane's sample per dimension, the last dimension first
    for 2-d pooling (PyTorch's order: w, h; and t, h, w for 3-d)."""
    op = f"fractional_max_pool{n}d"

    def fractional_max_pool(
        self: ndarray, kernel_size: Sequence[int], output_size: Sequence[int], random_samples: ndarray
    ) -> tuple[ndarray, ndarray]:
        _check_dtype(self, op, integers=False)
        x, unbatched = batched(self, n, op)
        kernel_size = expand_param(kernel_size, n, "kernel_size")
        output_size = expand_param(output_size, n, "output_size")
        samples = random_samples[: x.shape[0]] if random_samples.ndim == 3 else random_samples
        if samples.shape != (x.shape[0], x.shape[1], n):
            raise TorchScriptError(f"{op}: expected random_samples of shape {shape_str([x.shape[0], x.shape[1], n])}, "
                                   f"got {shape_str(random_samples.shape)}")  # fmt: skip
        for size, k, out in zip(x.shape[2:], kernel_size, output_size):
            if out + k - 1 > size:
                raise TorchScriptError(
                    f"{op}(): pool size {k} too large relative to input size {size} for output size {out}"
                )
        order = (1, 0) if n == 2 else tuple(range(n))
        starts = [_fractional_starts(samples[..., order[j]], size, out, k)
                  for j, (size, out, k) in enumerate(zip(x.shape[2:], output_size, kernel_size))]  # fmt: skip
        gathered, coords = _gather_windows(x, starts, list(kernel_size))
        values, indices = _window_max(gathered, coords, x.shape[2:])
        return (values[0], indices[0]) if unbatched else (values, indices)

    return fractional_max_pool


# --------------------------------------------------------------------------------------
# Max-unpooling
# --------------------------------------------------------------------------------------


def _unpool(self: ndarray, indices: ndarray, output_size: Sequence[int], n: int) -> ndarray:
    op = f"max_unpooling{n}d"
    if indices.dtype != np.int64:
        raise TorchScriptError(
            f"elements in indices should be type int64 but got: {dtype_name(indices.dtype)}"
        )
    if self.shape != indices.shape:
        raise TorchScriptError(f"Expected shape of indices to be same as that of the input tensor "
                               f"({shape_str(self.shape)}) but got indices tensor with shape: "
                               f"{shape_str(indices.shape)}")  # fmt: skip
    output_size = expand_param(output_size, n, "output_size")
    x, unbatched = batched(self, n, op)
    idx = indices[None] if unbatched else indices
    plane = math.prod(output_size)
    flat_idx = idx.reshape(x.shape[0], x.shape[1], -1)
    if flat_idx.size and (flat_idx.min() < 0 or flat_idx.max() >= plane):
        bad = int(flat_idx[(flat_idx < 0) | (flat_idx >= plane)].flat[0])
        raise TorchScriptError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, output_size))}")  # fmt: skip
    out = np.zeros((x.shape[0], x.shape[1], plane), dtype=x.dtype)
    np.put_along_axis(out, flat_idx, x.reshape(x.shape[0], x.shape[1], -1), axis=2)
    out = out.reshape((x.shape[0], x.shape[1]) + tuple(output_size))
    return out[0] if unbatched else out


def max_unpool2d(self: ndarray, indices: ndarray, output_size: Sequence[int]) -> ndarray:
    return _unpool(self, indices, output_size, 2)


def max_unpool3d(
    self: ndarray, indices: ndarray, output_size: Sequence[int], stride: Sequence[int], padding: Sequence[int]
) -> ndarray:
    return _unpool(self, indices, output_size, 3)


for _n in (1, 2, 3):
    register_kernel(f"aten::max_pool{_n}d", max_pooling(_n, with_indices=False))
    register_kernel(f"aten::max_pool{_n}d_with_indices", max_pooling(_n, with_indices=True))
    register_kernel(f"aten::avg_pool{_n}d", avg_pooling(_n))
    register_kernel(f"aten::adaptive_avg_pool{_n}d", adaptive_avg_pooling(_n))
    register_kernel(f"aten::adaptive_max_pool{_n}d", adaptive_max_pooling(_n))
for _n in (2, 3):
    register_kernel(f"aten::fractional_max_pool{_n}d", fractional_max_pooling(_n))
register_kernel("aten::max_unpool2d", max_unpool2d)
register_kernel("aten::max_unpool3d", max_unpool3d)
