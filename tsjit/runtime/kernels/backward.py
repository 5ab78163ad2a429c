"""The `*_backward` operators the gradient formulas call (the forward operators that also
return what a backward needs, `max_pool2d_with_indices`, `native_batch_norm`,
`nll_loss_forward`, are the nn families' kernels).

Each follows PyTorch's derivative (`derivatives.yaml`, `FunctionsManual.cpp`) on numpy
arrays, vectorized: scatters are `np.add.at` or strided slices per kernel offset, never
Python loops over elements. A gradient comes back in the dtype of the gradient it was
computed from; masked-off outputs (`output_mask`) are None.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, wrap_dim
from tsjit.runtime.kernels.special import erf

ndarray = np.ndarray
MEAN, SUM = 1, 2
"""PyTorch's `reduction` codes (0 is none)."""


def sum_to_shape(value: ndarray, shape: Sequence[int]) -> ndarray | None:
    """`value` summed over the dimensions broadcasting added or expanded to reach its
    shape from `shape`; None when `shape` does not broadcast to `value.shape`."""
    shape = tuple(shape)
    lead = value.ndim - len(shape)
    if lead < 0:
        return None
    axes = list(range(lead))
    for i, size in enumerate(shape):
        have = value.shape[lead + i]
        if size == have:
            continue
        if size != 1:
            return None
        axes.append(lead + i)
    if not axes:
        return value
    return as_tensor(np.sum(value, axis=tuple(axes)).reshape(shape))


@kernel("aten::_grad_sum_to_size")
def grad_sum_to_size(self: ndarray, size: Sequence[int] | None) -> ndarray:
    if size is None or tuple(size) == self.shape:
        return self
    summed = sum_to_shape(self, size)
    if summed is None:
        raise TorchScriptError(f"size {list(size)} is not expandable to size {list(self.shape)}")
    return summed


@kernel("aten::sum_to_size")
def sum_to_size(self: ndarray, size: Sequence[int]) -> ndarray:
    """As torch.sum: integral and bool tensors sum as Long."""
    if self.dtype.kind in "biu":
        return grad_sum_to_size(self.astype(np.int64), size)
    return grad_sum_to_size(self, size)


# --------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------


@kernel("aten::tanh_backward")
def tanh_backward(grad_output: ndarray, output: ndarray) -> ndarray:
    return as_tensor(grad_output * (1 - output * output))


@kernel("aten::sigmoid_backward")
def sigmoid_backward(grad_output: ndarray, output: ndarray) -> ndarray:
    return as_tensor(grad_output * output * (1 - output))


@kernel("aten::threshold_backward")
def threshold_backward(grad_output: ndarray, self: ndarray, threshold: float) -> ndarray:
    return as_tensor(np.where(self <= threshold, grad_output.dtype.type(0), grad_output))


@kernel("aten::hardtanh_backward")
def hardtanh_backward(grad_output: ndarray, self: ndarray, min_val: float, max_val: float) -> ndarray:
    outside = (self <= min_val) | (self >= max_val)
    return as_tensor(np.where(outside, grad_output.dtype.type(0), grad_output))


@kernel("aten::leaky_relu_backward")
def leaky_relu_backward(grad_output: ndarray, self: ndarray, negative_slope: float, self_is_result: bool) -> ndarray:
    return as_tensor(np.where(self > 0, grad_output, grad_output * grad_output.dtype.type(negative_slope)))


@kernel("aten::elu_backward")
def elu_backward(grad_output: ndarray, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: ndarray) -> ndarray:  # fmt: skip
    x = self_or_result
    if is_result:
        negative = grad_output * input_scale * (x + alpha * scale)
    else:
        negative = grad_output * input_scale * scale * alpha * np.exp(x * input_scale)
    return as_tensor(np.where(x > 0, grad_output * scale, negative).astype(grad_output.dtype, copy=False))


_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


@kernel("aten::gelu_backward")
def gelu_backward(grad_output: ndarray, self: ndarray, approximate: str = "none") -> ndarray:
    x = self
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        t = np.tanh(inner)
        derivative = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
    elif approximate == "none":
        cdf = 0.5 * (1 + erf(x * _INV_SQRT_2))
        derivative = cdf + x * _INV_SQRT_2PI * np.exp(-0.5 * x * x)
    else:
        raise TorchScriptError("approximate argument must be either none or tanh.")
    return as_tensor((grad_output * derivative).astype(grad_output.dtype, copy=False))


def _sigmoid(x: ndarray) -> ndarray:
    return 1 / (1 + np.exp(-x))


@kernel("aten::silu_backward")
def silu_backward(grad_output: ndarray, self: ndarray) -> ndarray:
    s = _sigmoid(self)
    return as_tensor(grad_output * s * (1 + self * (1 - s)))


@kernel("aten::mish_backward")
def mish_backward(grad_output: ndarray, self: ndarray) -> ndarray:
    t = np.tanh(np.logaddexp(0, self))
    return as_tensor((grad_output * (t + self * _sigmoid(self) * (1 - t * t))).astype(grad_output.dtype, copy=False))


@kernel("aten::softplus_backward")
def softplus_backward(grad_output: ndarray, self: ndarray, beta: float, threshold: float) -> ndarray:
    scaled = self * beta
    z = np.exp(np.minimum(scaled, threshold))
    return as_tensor(np.where(scaled > threshold, grad_output, grad_output * z / (z + 1)).astype(grad_output.dtype, copy=False))


@kernel("aten::hardswish_backward")
def hardswish_backward(grad_output: ndarray, self: ndarray) -> ndarray:
    middle = grad_output * (self / 3 + 0.5)
    result = np.where(self <= -3, 0, np.where(self < 3, middle, grad_output))
    return as_tensor(result.astype(grad_output.dtype, copy=False))


@kernel("aten::hardsigmoid_backward")
def hardsigmoid_backward(grad_output: ndarray, self: ndarray) -> ndarray:
    inside = (self > -3) & (self < 3)
    # ATen's CPU kernel multiplies by the float 1/6 in every dtype
    return as_tensor(np.where(inside, grad_output * float(np.float32(1 / 6)), 0).astype(grad_output.dtype, copy=False))


@kernel("aten::glu_backward")
def glu_backward(grad_output: ndarray, self: ndarray, dim: int) -> ndarray:
    axis = wrap_dim(dim, self.ndim)
    a, b = np.split(self, 2, axis=axis)
    s = _sigmoid(b)
    return as_tensor(np.concatenate([grad_output * s, grad_output * a * s * (1 - s)], axis=axis))


@kernel("aten::_prelu_kernel_backward")
def prelu_backward(grad_output: ndarray, self: ndarray, weight: ndarray) -> tuple[ndarray, ndarray]:
    """The gradients of `prelu(self, weight)`; `weight` has one slope, or one per channel
    (dimension 1 of `self`, or 0 of a vector)."""
    shape = [1] * self.ndim
    if weight.size > 1:
        shape[1 if self.ndim > 1 else 0] = weight.size
    slope = weight.reshape(shape)
    positive = self > 0
    grad_self = np.where(positive, grad_output, slope * grad_output)
    grad_slope = np.where(positive, 0, self * grad_output)
    reduced = sum_to_shape(grad_slope, shape)
    assert reduced is not None
    return as_tensor(grad_self.astype(grad_output.dtype, copy=False)), as_tensor(reduced.reshape(weight.shape))


@kernel("aten::_softmax_backward_data")
def softmax_backward_data(grad_output: ndarray, output: ndarray, dim: int, input_dtype: int) -> ndarray:
    axis = wrap_dim(dim, output.ndim)
    product = grad_output * output
    return _as_dtype(product - output * np.sum(product, axis=axis, keepdims=True), input_dtype)


@kernel("aten::_log_softmax_backward_data")
def log_softmax_backward_data(grad_output: ndarray, output: ndarray, dim: int, input_dtype: int) -> ndarray:
    axis = wrap_dim(dim, output.ndim)
    return _as_dtype(grad_output - np.exp(output) * np.sum(grad_output, axis=axis, keepdims=True), input_dtype)


def _as_dtype(value: ndarray, code: int) -> ndarray:
    from tsjit.runtime.values import numpy_dtype

    return as_tensor(np.asarray(value).astype(numpy_dtype(code), copy=False))


@kernel("aten::native_dropout_backward")
def native_dropout_backward(grad_output: ndarray, mask: ndarray, scale: float) -> ndarray:
    from tsjit.runtime.kernels.promotion import result_type

    dtype = result_type(grad_output, scale)
    return as_tensor((grad_output * mask).astype(dtype, copy=False) * dtype.type(scale))


# --------------------------------------------------------------------------------------
# Views, indexing and reductions
# --------------------------------------------------------------------------------------


@kernel("aten::select_backward")
def select_backward(grad_output: ndarray, input_sizes: Sequence[int], dim: int, index: int) -> ndarray:
    result = np.zeros(tuple(input_sizes), grad_output.dtype)
    axis = wrap_dim(dim, len(input_sizes))
    position = [slice(None)] * len(input_sizes)
    position[axis] = index
    result[tuple(position)] = grad_output
    return result


@kernel("aten::slice_backward")
def slice_backward(grad_output: ndarray, input_sizes: Sequence[int], dim: int, start: int, end: int,
                   step: int) -> ndarray:  # fmt: skip
    result = np.zeros(tuple(input_sizes), grad_output.dtype)
    axis = wrap_dim(dim, len(input_sizes))
    position = [slice(None)] * len(input_sizes)
    position[axis] = slice(start, end, step)
    result[tuple(position)] = grad_output
    return result


@kernel("aten::diagonal_backward")
def diagonal_backward(grad_output: ndarray, input_sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> ndarray:
    result = np.zeros(tuple(input_sizes), grad_output.dtype)
    planes = np.moveaxis(result, (wrap_dim(dim1, result.ndim), wrap_dim(dim2, result.ndim)), (-2, -1))
    length = grad_output.shape[-1]
    rows = np.arange(length) + max(-offset, 0)
    columns = np.arange(length) + max(offset, 0)
    planes[..., rows, columns] = grad_output  # a view of `result`: the diagonal is written there
    return result


@kernel("aten::unfold_backward")
def unfold_backward(grad_in: ndarray, input_sizes: Sequence[int], dim: int, size: int, step: int) -> ndarray:
    """`unfold` took windows of `size` every `step` along `dim` (a new last dimension):
    each window's elements go back where they came from, summed where windows overlap."""
    if len(input_sizes) == 0:
        return grad_in.reshape(())
    result = np.zeros(tuple(input_sizes), grad_in.dtype)
    axis = wrap_dim(dim, len(input_sizes))
    target = np.moveaxis(result, axis, 0)
    windows = np.moveaxis(grad_in, axis, 0)
    count = windows.shape[0]
    for k in range(size):  # one strided slice per offset in the window
        target[k : k + step * (count - 1) + 1 : step] += windows[..., k]
    return result


@kernel("aten::index_select_backward")
def index_select_backward(grad: ndarray, self_sizes: Sequence[int], dim: int, index: ndarray) -> ndarray:
    result = np.zeros(tuple(self_sizes), grad.dtype)
    if not self_sizes:  # a 0-dim tensor: index_select took its one element
        return result + grad.reshape(())
    axis = wrap_dim(dim, len(self_sizes))
    np.add.at(np.moveaxis(result, axis, 0), index.reshape(-1), np.moveaxis(grad, axis, 0))
    return result


@kernel("aten::value_selecting_reduction_backward")
def value_selecting_reduction_backward(grad: ndarray, dim: int, indices: ndarray, sizes: Sequence[int],
                                       keepdim: bool) -> ndarray:  # fmt: skip
    """The gradient of `max.dim`/`min.dim` and friends: each value's gradient goes back to
    where it was selected from."""
    result = np.zeros(tuple(sizes), grad.dtype)
    if not sizes:
        result[...] = grad
        return result
    axis = wrap_dim(dim, len(sizes))
    if not keepdim:
        grad = np.expand_dims(grad, axis)
        indices = np.expand_dims(indices, axis)
    np.put_along_axis(result, indices, grad, axis=axis)
    return result


@kernel("aten::embedding_backward")
def embedding_backward(grad: ndarray, indices: ndarray, num_weights: int, padding_idx: int,
                       scale_grad_by_freq: bool, sparse: bool) -> ndarray:  # fmt: skip
    if sparse:
        raise TorchScriptError("tsjit has no sparse tensors: embedding(sparse=True) cannot be differentiated")
    return embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq)


@kernel("aten::embedding_dense_backward")
def embedding_dense_backward(grad_output: ndarray, indices: ndarray, num_weights: int, padding_idx: int,
                             scale_grad_by_freq: bool) -> ndarray:  # fmt: skip
    flat = indices.reshape(-1)
    rows = grad_output.reshape(flat.size, -1)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num_weights)
        rows = rows / counts[flat][:, None].astype(rows.dtype)
    result = np.zeros((num_weights, rows.shape[1]), grad_output.dtype)
    np.add.at(result, flat, rows)
    if padding_idx >= 0:
        result[padding_idx] = 0
    return result


# --------------------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------------------


@kernel("aten::native_layer_norm_backward")
def native_layer_norm_backward(
    grad_out: ndarray,
    input: ndarray,
    normalized_shape: Sequence[int],
    mean: ndarray,
    rstd: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    output_mask: Sequence[bool],
) -> tuple[ndarray | None, ndarray | None, ndarray | None]:
    n = len(normalized_shape)
    axes = tuple(range(input.ndim - n, input.ndim))
    lead = tuple(range(input.ndim - n))
    normalized = (input - mean) * rstd
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        g = grad_out if weight is None else grad_out * weight
        count = math.prod(normalized_shape)
        g_mean = np.sum(g, axis=axes, keepdims=True) / count
        gx_mean = np.sum(g * normalized, axis=axes, keepdims=True) / count
        grad_input = as_tensor((rstd * (g - g_mean - normalized * gx_mean)).astype(input.dtype, copy=False))
    if output_mask[1] and weight is not None:
        grad_weight = as_tensor(np.sum(grad_out * normalized, axis=lead).astype(weight.dtype, copy=False))
    if output_mask[2] and bias is not None:
        grad_bias = as_tensor(np.sum(grad_out, axis=lead).astype(bias.dtype, copy=False))
    return grad_input, grad_weight, grad_bias


def _channels(x: ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes batch norm reduces over and the shape its per-channel values take."""
    return (0, *range(2, x.ndim)), (1, x.shape[1]) + (1,) * (x.ndim - 2)


@kernel("aten::native_batch_norm_backward")
def native_batch_norm_backward(
    grad_out: ndarray,
    input: ndarray,
    weight: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    save_mean: ndarray | None,
    save_invstd: ndarray | None,
    train: bool,
    eps: float,
    output_mask: Sequence[bool],
) -> tuple[ndarray | None, ndarray | None, ndarray | None]:
    axes, shape = _channels(input)
    if train:
        assert save_mean is not None and save_invstd is not None
        mean, invstd = save_mean, save_invstd
    else:
        assert running_mean is not None and running_var is not None
        mean, invstd = running_mean, 1 / np.sqrt(running_var + eps)
    mean, invstd = mean.reshape(shape), invstd.reshape(shape)
    normalized = (input - mean) * invstd
    scale = np.ones(shape, input.dtype) if weight is None else weight.reshape(shape)
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if train:
            count = input.size // input.shape[1]
            g_mean = np.sum(grad_out, axis=axes, keepdims=True) / count
            gx_mean = np.sum(grad_out * normalized, axis=axes, keepdims=True) / count
            grad_input = scale * invstd * (grad_out - g_mean - normalized * gx_mean)
        else:
            grad_input = grad_out * scale * invstd
        grad_input = as_tensor(grad_input.astype(input.dtype, copy=False))
    if output_mask[1] and weight is not None:
        grad_weight = as_tensor(np.sum(grad_out * normalized, axis=axes).astype(weight.dtype, copy=False))
    if output_mask[2]:
        grad_bias = as_tensor(np.sum(grad_out, axis=axes).astype(input.dtype, copy=False))
    return grad_input, grad_weight, grad_bias


# --------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------


def _offsets(kernel_size: Sequence[int], dilation: Sequence[int], stride: Sequence[int],
             out_shape: Sequence[int]) -> list[tuple[tuple[int, ...], tuple[slice, ...]]]:  # fmt: skip
    """Per kernel offset, the strided slice of the (padded) input its outputs read."""
    result = []
    for offsets in itertools.product(*(range(k) for k in kernel_size)):
        index = tuple(
            slice(o * d, o * d + (count - 1) * s + 1, s) for o, d, count, s in zip(offsets, dilation, out_shape, stride)
        )
        result.append((offsets, index))
    return result


@kernel("aten::convolution_backward")
def convolution_backward(
    grad_output: ndarray,
    input: ndarray,
    weight: ndarray,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[ndarray | None, ndarray | None, ndarray | None]:
    """The gradients of a convolution of any number of spatial dimensions with groups,
    stride, padding and dilation: im2col products for the weight, col2im (one strided
    slice per kernel offset) for the input."""
    from tsjit.runtime.kernels.convolution import expand_param

    if transposed:
        raise TorchScriptError("tsjit cannot differentiate transposed convolutions yet")
    n = weight.ndim - 2
    unbatched = input.ndim == n + 1
    x = input[None] if unbatched else input
    g = grad_output[None] if unbatched else grad_output
    stride, padding = expand_param(stride, n, "stride"), expand_param(padding, n, "padding")
    dilation = expand_param(dilation, n, "dilation")
    batch, channels = x.shape[:2]
    out_channels, group_channels, *kernel_size = weight.shape
    out_shape = g.shape[2:]
    positions = math.prod(out_shape)
    padded = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding]) if any(padding) else x
    offsets = _offsets(kernel_size, dilation, stride, out_shape)
    # (G, O/G, N * positions): the output gradient per group
    grads = g.reshape(batch, groups, out_channels // groups, positions).transpose(1, 2, 0, 3)
    grads = grads.reshape(groups, out_channels // groups, batch * positions)
    grad_input = grad_weight = grad_bias = None
    if output_mask[1]:
        # im2col of the input: (G, C/G * prod(k), N * positions), rows ordered (c, offset)
        pieces = [padded[(slice(None), slice(None)) + index] for _, index in offsets]
        columns = np.stack(pieces, axis=2)  # (N, C, K, *out)
        columns = columns.reshape(batch, groups, group_channels * len(offsets), positions)
        columns = columns.transpose(1, 2, 0, 3).reshape(groups, group_channels * len(offsets), batch * positions)
        product = np.matmul(grads, columns.transpose(0, 2, 1))  # (G, O/G, C/G * K)
        grad_weight = as_tensor(product.reshape(weight.shape).astype(weight.dtype, copy=False))
    if output_mask[0]:
        kernels = weight.reshape(groups, out_channels // groups, group_channels * len(offsets))
        columns = np.matmul(kernels.transpose(0, 2, 1), grads)  # (G, C/G * K, N * positions)
        columns = columns.reshape(groups, group_channels, len(offsets), batch, *out_shape)
        columns = np.moveaxis(columns, 3, 0).reshape(batch, channels, len(offsets), *out_shape)
        result = np.zeros(padded.shape, grad_output.dtype)
        for k, (_, index) in enumerate(offsets):
            result[(slice(None), slice(None)) + index] += columns[:, :, k]
        if any(padding):
            result = result[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, x.shape[2:]))]
        grad_input = as_tensor(np.ascontiguousarray(result[0] if unbatched else result).astype(input.dtype, copy=False))
    if output_mask[2]:
        grad_bias = as_tensor(np.sum(g, axis=(0, *range(2, g.ndim))).astype(grad_output.dtype, copy=False))
    return grad_input, grad_weight, grad_bias


@kernel("aten::max_pool2d_with_indices_backward")
def max_pool2d_with_indices_backward(grad_output: ndarray, self: ndarray, kernel_size: Sequence[int],
                                     stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                                     ceil_mode: bool, indices: ndarray) -> ndarray:  # fmt: skip
    plane = self.shape[-2] * self.shape[-1]
    lead = self.shape[:-2]
    result = np.zeros((math.prod(lead), plane), grad_output.dtype)
    flat_index = indices.reshape(math.prod(lead), -1)
    np.add.at(result, (np.arange(result.shape[0])[:, None], flat_index), grad_output.reshape(flat_index.shape))
    return result.reshape(self.shape)


@kernel("aten::avg_pool2d_backward")
def avg_pool2d_backward(grad_output: ndarray, self: ndarray, kernel_size: Sequence[int], stride: Sequence[int],
                        padding: Sequence[int], ceil_mode: bool, count_include_pad: bool,
                        divisor_override: int | None) -> ndarray:  # fmt: skip
    from tsjit.runtime.kernels.convolution import batched
    from tsjit.runtime.kernels.pooling import _pool_geometry, _pool_params

    x, unbatched = batched(self, 2, "avg_pool2d_backward")
    g = grad_output[None] if unbatched else grad_output
    kernel_size, stride, padding, ones = _pool_params(kernel_size, stride, padding, 1, 2)
    out_shape = _pool_geometry(x.shape[2:], kernel_size, stride, padding, ones, ceil_mode)
    if divisor_override:
        divisor = np.full(out_shape, float(divisor_override))
    else:
        divisor = np.ones((), dtype=np.float64)
        for size, k, s, p, out in zip(x.shape[2:], kernel_size, stride, padding, out_shape):
            start = np.arange(out) * s - p
            end = np.minimum(start + k, size + p)
            if not count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            divisor = np.multiply.outer(divisor, end - start)
    share = (g / divisor).astype(g.dtype, copy=False)
    pads = [  # every window inside the padded input (ceil_mode's last one may reach past it)
        (p, max((out - 1) * s + k - size - p, p))
        for size, k, s, p, out in zip(x.shape[2:], kernel_size, stride, padding, out_shape)
    ]
    padded_shape = x.shape[:2] + tuple(size + lo + hi for size, (lo, hi) in zip(x.shape[2:], pads))
    result = np.zeros(padded_shape, g.dtype)
    for _, index in _offsets(kernel_size, ones, stride, out_shape):
        result[(slice(None), slice(None)) + index] += share
    result = result[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for (lo, _), s in zip(pads, x.shape[2:]))]
    result = np.ascontiguousarray(result)
    return result[0] if unbatched else result


@kernel("aten::_adaptive_avg_pool2d_backward")
def adaptive_avg_pool2d_backward(grad_output: ndarray, self: ndarray) -> ndarray:
    """Each output's gradient shared by its bin [floor(i*L/out), ceil((i+1)*L/out)):
    per axis, a (L, out) matrix of shares."""
    result = grad_output
    for axis in (-2, -1):
        size, out = self.shape[axis], grad_output.shape[axis]
        i = np.arange(out)
        start, end = (i * size) // out, -((-(i + 1) * size) // out)
        position = np.arange(size)[:, None]
        shares = ((position >= start) & (position < end)) / (end - start)
        result = np.moveaxis(np.tensordot(np.moveaxis(result, axis, -1), shares.T, axes=1), -1, axis)
    return as_tensor(result.astype(grad_output.dtype, copy=False))


# --------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------


def _reduced_grad(grad_output: ndarray, pointwise: ndarray, reduction: int) -> ndarray:
    """The gradient of `reduce(pointwise loss)` given the pointwise derivative."""
    if reduction == MEAN:
        return as_tensor((pointwise * (grad_output / pointwise.size)).astype(grad_output.dtype, copy=False))
    return as_tensor((pointwise * grad_output).astype(grad_output.dtype, copy=False))


@kernel("aten::mse_loss_backward")
def mse_loss_backward(grad_output: ndarray, self: ndarray, target: ndarray, reduction: int) -> ndarray:
    return _reduced_grad(grad_output, 2 * (self - target), reduction)


@kernel("aten::smooth_l1_loss_backward")
def smooth_l1_loss_backward(grad_output: ndarray, self: ndarray, target: ndarray, reduction: int,
                            beta: float) -> ndarray:  # fmt: skip
    diff = self - target
    if beta == 0:
        pointwise = np.sign(diff)
    else:
        pointwise = np.where(np.abs(diff) < beta, diff / beta, np.sign(diff))
    return _reduced_grad(grad_output, pointwise, reduction)


@kernel("aten::huber_loss_backward")
def huber_loss_backward(grad_output: ndarray, self: ndarray, target: ndarray, reduction: int,
                        delta: float) -> ndarray:  # fmt: skip
    diff = self - target
    pointwise = np.where(np.abs(diff) < delta, diff, delta * np.sign(diff))
    return _reduced_grad(grad_output, pointwise, reduction)


@kernel("aten::binary_cross_entropy_backward")
def binary_cross_entropy_backward(grad_output: ndarray, self: ndarray, target: ndarray,
                                  weight: ndarray | None = None, reduction: int = MEAN) -> ndarray:  # fmt: skip
    eps = 1e-12
    pointwise = (self - target) / np.maximum((1 - self) * self, eps)
    if weight is not None:
        pointwise = pointwise * weight
    return _reduced_grad(grad_output, pointwise, reduction)


@kernel("aten::nll_loss_backward")
def nll_loss_backward(grad_output: ndarray, self: ndarray, target: ndarray, weight: ndarray | None,
                      reduction: int, ignore_index: int, total_weight: ndarray) -> ndarray:  # fmt: skip
    class_axis = 1 if self.ndim > 1 else 0
    classes = self.shape[class_axis]
    ignored = target == ignore_index
    safe = np.where(ignored, 0, target)
    w = np.ones(classes, self.dtype) if weight is None else weight.astype(self.dtype, copy=False)
    picked = np.where(ignored, 0, w[safe]).astype(self.dtype)
    scale = grad_output / total_weight if reduction == MEAN else grad_output  # none: one per target
    values = -picked * scale
    result = np.zeros(self.shape, self.dtype)
    np.put_along_axis(result, np.expand_dims(safe, class_axis), np.expand_dims(values.astype(self.dtype), class_axis),
                      axis=class_axis)  # fmt: skip
    return result
