"""Neural-network ops that are neither convolution, pooling, padding, resampling nor
losses: softmax, normalizations, dropout, embedding (bags), pixel and channel shuffles,
recurrent cells, distances and the bilinear forms.

Formulas follow PyTorch's CPU implementations (layer norm multiplies by the reciprocal
standard deviation, GRU returns `(h - n) * z + n`, ...) so results agree to rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import IndexCheckError, TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, broadcast_error, floating, shape_str, wrap_dim
from tsjit.runtime.kernels.linalg import linear
from tsjit.runtime.kernels.reduction import mean_of
from tsjit.runtime.kernels.sampling import bernoulli_mask
from tsjit.runtime.values import numpy_dtype

ndarray = np.ndarray


# --------------------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------------------


def _shifted(x: ndarray, dim: int, dtype: int | None, op: str) -> tuple[ndarray, int | None]:
    """(x minus its maximum along dim, in a new buffer; the axis), after PyTorch's dtype checks.
    An empty x comes back copied: a maximum over no elements does not exist."""
    if dtype is not None:
        x = x.astype(numpy_dtype(dtype), copy=False)
    if x.dtype.kind not in "fc":
        floating(x, op)  # raises PyTorch's error
    ndim = x.ndim
    if -ndim <= dim < ndim:  # numpy takes negative axes: no wrapping on the common path
        axis: int | None = dim
    else:
        axis = wrap_dim(dim, ndim) if ndim else None
    if x.size == 0:
        return x.copy(), axis
    # ufuncs' arguments by position: numpy parses them faster than keywords
    return np.subtract(x, np.maximum.reduce(x, axis, None, None, True), out=...), axis


@kernel("aten::softmax.int")
def softmax(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    shifted, axis = _shifted(self, dim, dtype, "softmax_lastdim_kernel_impl")
    if shifted.size:
        np.exp(shifted, shifted)
        np.divide(shifted, np.add.reduce(shifted, axis, None, None, True), shifted)
    return shifted


@kernel("aten::log_softmax.int")
def log_softmax(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    shifted, axis = _shifted(self, dim, dtype, "log_softmax_lastdim_kernel_impl")
    if shifted.size:
        total = np.add.reduce(np.exp(shifted), axis=axis, keepdims=True)
        np.subtract(shifted, np.log(total), out=shifted)
    return shifted


@kernel("aten::_softmax")
def softmax_internal(self: ndarray, dim: int, half_to_float: bool) -> ndarray:
    return softmax(self.astype(np.float32) if half_to_float else self, dim)


@kernel("aten::_log_softmax")
def log_softmax_internal(self: ndarray, dim: int, half_to_float: bool) -> ndarray:
    return log_softmax(self.astype(np.float32) if half_to_float else self, dim)


# --------------------------------------------------------------------------------------
# Normalizations
# --------------------------------------------------------------------------------------


def _affine(
    x: ndarray, weight: ndarray | None, bias: ndarray | None, channel_shape: tuple[int, ...]
) -> ndarray:
    if weight is not None:
        x = x * weight.reshape(channel_shape).astype(x.dtype, copy=False)
    if bias is not None:
        x = x + bias.reshape(channel_shape).astype(x.dtype, copy=False)
    return x


def _normalized(x: ndarray, axes: tuple[int, ...], eps: float) -> tuple[ndarray, ndarray, ndarray]:
    """(x - mean) * rstd over `axes`, with the biased variance; also returns mean and rstd."""
    mean = mean_of(x, axes, True)
    centered = x - mean
    rstd = 1 / np.sqrt(mean_of(centered * centered, axes, True) + x.dtype.type(eps))
    return centered * rstd, mean, rstd


def _check_normalized_shape(x: ndarray, normalized_shape: Sequence[int]) -> tuple[int, ...]:
    n = len(normalized_shape)
    if n == 0 or x.ndim < n or tuple(x.shape[x.ndim - n :]) != tuple(normalized_shape):
        raise TorchScriptError(
            f"Given normalized_shape={shape_str(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size{shape_str(x.shape)}"
        )
    return tuple(range(x.ndim - n, x.ndim))


@kernel("aten::layer_norm")
def layer_norm(
    input: ndarray,
    normalized_shape: Sequence[int],
    weight: ndarray | None = None,
    bias: ndarray | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> ndarray:
    axes = _check_normalized_shape(floating(input, "LayerNormKernelImpl"), normalized_shape)
    normalized, _, _ = _normalized(input, axes, eps)
    return as_tensor(_affine(normalized, weight, bias, tuple(normalized_shape)))


@kernel("aten::native_layer_norm")
def native_layer_norm(
    input: ndarray, normalized_shape: Sequence[int], weight: ndarray | None, bias: ndarray | None, eps: float
) -> tuple[ndarray, ndarray, ndarray]:
    axes = _check_normalized_shape(floating(input, "LayerNormKernelImpl"), normalized_shape)
    normalized, mean, rstd = _normalized(input, axes, eps)
    return as_tensor(_affine(normalized, weight, bias, tuple(normalized_shape))), mean, rstd


@kernel("aten::rms_norm")
def rms_norm(
    input: ndarray, normalized_shape: Sequence[int], weight: ndarray | None = None, eps: float | None = None
) -> ndarray:
    axes = _check_normalized_shape(floating(input, "rms_norm"), normalized_shape)
    epsilon = np.finfo(input.dtype).eps if eps is None else eps
    scale = 1 / np.sqrt(mean_of(input * input, axes, True) + input.dtype.type(epsilon))
    return as_tensor(_affine(input * scale, weight, None, tuple(normalized_shape)))


def _channel_shape(x: ndarray) -> tuple[int, ...]:
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


@kernel("aten::batch_norm")
def batch_norm(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> ndarray:
    x = floating(input, "batch_norm")
    if x.ndim < 2:
        raise TorchScriptError(f"batch_norm: expected 2D or more input (got {x.ndim}D input)")
    shape = _channel_shape(x)
    if training:
        axes = (0,) + tuple(range(2, x.ndim))
        count = x.size // x.shape[1]
        if count <= 1:
            raise TorchScriptError(
                f"Expected more than 1 value per channel when training, got input size {shape_str(x.shape)}"
            )
        normalized, mean, rstd = _normalized(x, axes, eps)
        if running_mean is not None:
            assign(running_mean, (1 - momentum) * running_mean + momentum * mean.reshape(-1))
        if running_var is not None:
            unbiased = np.var(x, axis=axes, ddof=1)
            assign(running_var, (1 - momentum) * running_var + momentum * unbiased)
    else:
        if running_mean is None or running_var is None:
            raise TorchScriptError("running_mean and running_var must be defined in evaluation mode")
        mean = running_mean.reshape(shape).astype(x.dtype, copy=False)
        rstd = 1 / np.sqrt(running_var.reshape(shape).astype(x.dtype, copy=False) + x.dtype.type(eps))
        normalized = (x - mean) * rstd
    return as_tensor(_affine(normalized, weight, bias, shape))


def _batch_norm_full(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray]:
    """(output, saved mean, saved inverse std): the batch statistics when training (and
    the running ones updated in place), empty tensors otherwise, as ATen's CPU kernel."""
    out = batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)
    if not training:
        empty = np.zeros(0, dtype=input.dtype)
        return out, empty, empty.copy()
    axes = (0,) + tuple(range(2, input.ndim))
    mean = mean_of(input, axes, False)
    centered = input - mean.reshape(_channel_shape(input))
    variance = mean_of(centered * centered, axes, False)
    return out, as_tensor(mean), as_tensor(1 / np.sqrt(variance + input.dtype.type(eps)))


@kernel("aten::native_batch_norm", "aten::_native_batch_norm_legit")
def native_batch_norm(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray]:
    return _batch_norm_full(input, weight, bias, running_mean, running_var, training, momentum, eps)


@kernel("aten::_native_batch_norm_legit.no_stats")
def native_batch_norm_no_stats(
    input: ndarray, weight: ndarray | None, bias: ndarray | None, training: bool, momentum: float, eps: float
) -> tuple[ndarray, ndarray, ndarray]:
    return _batch_norm_full(input, weight, bias, None, None, training, momentum, eps)


@kernel("aten::_native_batch_norm_legit_no_training")
def native_batch_norm_no_training(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray,
    running_var: ndarray,
    momentum: float,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray]:
    return _batch_norm_full(input, weight, bias, running_mean, running_var, False, momentum, eps)


@kernel("aten::_batch_norm_impl_index")
def batch_norm_impl_index(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> tuple[ndarray, ndarray, ndarray, ndarray, int]:
    """As `native_batch_norm`, plus an empty reserve and the backend index 0 (native)."""
    out = _batch_norm_full(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return (*out, np.zeros(0, dtype=np.uint8), 0)


@kernel("aten::_batch_norm_with_update")
def batch_norm_with_update(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray,
    running_var: ndarray,
    momentum: float,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray, ndarray]:
    out = _batch_norm_full(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return (*out, np.zeros(0, dtype=np.uint8))


@kernel("aten::_batch_norm_no_update")
def batch_norm_no_update(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    momentum: float,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray, ndarray]:
    training = running_mean is None and running_var is None
    out = _batch_norm_full(input, weight, bias, running_mean, running_var, training, momentum, eps)
    return (*out, np.zeros(0, dtype=np.uint8))


@kernel("aten::instance_norm")
def instance_norm(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    running_mean: ndarray | None,
    running_var: ndarray | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> ndarray:
    x = floating(input, "instance_norm")
    if not use_input_stats:
        return batch_norm(x, weight, bias, running_mean, running_var, False, momentum, eps, cudnn_enabled)
    normalized, _, _ = _normalized(x, tuple(range(2, x.ndim)), eps)
    return as_tensor(_affine(normalized, weight, bias, _channel_shape(x)))


def _group_norm(
    x: ndarray, num_groups: int, weight: ndarray | None, bias: ndarray | None, eps: float
) -> tuple[ndarray, ndarray, ndarray]:
    """(output, mean, rstd), the statistics per (sample, group)."""
    floating(x, "group_norm")
    if x.ndim < 2:
        raise TorchScriptError(f"Expected at least 2 dimensions for input tensor but received {x.ndim}")
    channels = x.shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise TorchScriptError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{shape_str(x.shape)} and num_groups={num_groups}"
        )
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and value.size != channels:
            raise TorchScriptError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got "
                f"{name} of shape {shape_str(value.shape)} and input of shape {shape_str(x.shape)}"
            )
    grouped = x.reshape(x.shape[0], num_groups, -1)
    normalized, mean, rstd = _normalized(grouped, (2,), eps)
    out = as_tensor(_affine(normalized.reshape(x.shape), weight, bias, _channel_shape(x)))
    return out, mean.reshape(x.shape[0], num_groups), rstd.reshape(x.shape[0], num_groups)


@kernel("aten::group_norm")
def group_norm(
    input: ndarray,
    num_groups: int,
    weight: ndarray | None = None,
    bias: ndarray | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> ndarray:
    return _group_norm(input, num_groups, weight, bias, eps)[0]


@kernel("aten::native_group_norm")
def native_group_norm(
    input: ndarray,
    weight: ndarray | None,
    bias: ndarray | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple[ndarray, ndarray, ndarray]:
    if input.size != N * C * HxW:
        raise TorchScriptError(f"Expected input to have {N * C * HxW} elements, but got {input.size}")
    return _group_norm(input, group, weight, bias, eps)


# --------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------


def _check_p(p: float) -> None:
    if not 0 <= p <= 1:
        raise TorchScriptError(f"dropout probability has to be between 0 and 1, but got {p}")


def _dropout(x: ndarray, p: float, train: bool, mask_shape: tuple[int, ...]) -> ndarray:
    _check_p(p)
    if not train or p == 0 or x.size == 0:
        return x
    if p == 1:
        return np.zeros_like(x)
    keep = bernoulli_mask(mask_shape, 1 - p)
    return as_tensor(x * (keep / (1 - p)).astype(x.dtype))


def _feature_shape(x: ndarray) -> tuple[int, ...]:
    return x.shape[:2] + (1,) * (x.ndim - 2)


@kernel("aten::dropout")
def dropout(input: ndarray, p: float, train: bool) -> ndarray:
    return _dropout(input, p, train, input.shape)


@kernel("aten::feature_dropout")
def feature_dropout(input: ndarray, p: float, train: bool) -> ndarray:
    return _dropout(input, p, train, _feature_shape(input))


def _alpha_dropout(x: ndarray, p: float, train: bool, mask_shape: tuple[int, ...]) -> ndarray:
    """Dropout that keeps SELU's mean and variance: dropped elements become the negative
    saturation value, then an affine map restores the statistics (ATen's `_dropout_impl`)."""
    _check_p(p)
    if not train or p == 0 or x.size == 0:
        return x
    if p == 1:
        return x * x.dtype.type(0)
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    keep = bernoulli_mask(mask_shape, 1 - p)
    return as_tensor((a * np.where(keep, x, -alpha) + a * alpha * p).astype(x.dtype))


@kernel("aten::alpha_dropout")
def alpha_dropout(input: ndarray, p: float, train: bool) -> ndarray:
    return _alpha_dropout(input, p, train, input.shape)


@kernel("aten::feature_alpha_dropout")
def feature_alpha_dropout(input: ndarray, p: float, train: bool) -> ndarray:
    return _alpha_dropout(input, p, train, _feature_shape(input))


@kernel("aten::feature_alpha_dropout_")
def feature_alpha_dropout_(self: ndarray, p: float, train: bool) -> ndarray:
    return assign(self, feature_alpha_dropout(self, p, train))


@kernel("aten::dropout_")
def dropout_(self: ndarray, p: float, train: bool) -> ndarray:
    return assign(self, dropout(self, p, train))


@kernel("aten::feature_dropout_")
def feature_dropout_(self: ndarray, p: float, train: bool) -> ndarray:
    return assign(self, feature_dropout(self, p, train))


@kernel("aten::alpha_dropout_")
def alpha_dropout_(self: ndarray, p: float, train: bool) -> ndarray:
    return assign(self, alpha_dropout(self, p, train))


@kernel("aten::native_dropout")
def native_dropout(input: ndarray, p: float, train: bool | None) -> tuple[ndarray, ndarray]:
    _check_p(p)
    if not train:
        return input.copy(), np.ones(input.shape, dtype=bool)
    keep = bernoulli_mask(input.shape, 1 - p)
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return as_tensor((input * keep * scale).astype(input.dtype)), keep


# --------------------------------------------------------------------------------------
# Embedding and one-hot
# --------------------------------------------------------------------------------------


@kernel("aten::embedding")
def embedding(
    weight: ndarray,
    indices: ndarray,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> ndarray:
    if indices.dtype.kind not in "iu":
        raise TorchScriptError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
            f"but got torch.{indices.dtype.name} instead (while checking arguments for embedding)"
        )
    if indices.size and (indices.min() < 0 or indices.max() >= weight.shape[0]):
        raise IndexCheckError("index out of range in self")
    return weight[indices]


@kernel("aten::embedding_renorm_")
def embedding_renorm_(self: ndarray, indices: ndarray, max_norm: float, norm_type: float) -> ndarray:
    """Rescales, in place, the rows `indices` picks whose p-norm exceeds `max_norm`
    (PyTorch's `embedding_renorm_`, with its 1e-7 guard)."""
    rows = np.unique(indices.reshape(-1))
    if rows.size and (rows[0] < 0 or rows[-1] >= self.shape[0]):
        raise TorchScriptError("index out of range in self")
    picked = self[rows]
    norms = np.linalg.norm(picked.astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    self[rows] = (picked * scale[:, None]).astype(self.dtype)
    return self


@kernel("aten::_no_grad_embedding_renorm_")
def no_grad_embedding_renorm_(weight: ndarray, input: ndarray, max_norm: float, norm_type: float) -> ndarray:
    """The operator TorchScript registers for `F.embedding`'s `max_norm` (the runtime
    records no gradients of kernels it calls)."""
    return embedding_renorm_(weight, input, max_norm, norm_type)


@kernel("aten::one_hot")
def one_hot(self: ndarray, num_classes: int = -1) -> ndarray:
    if self.dtype != np.int64:
        raise TorchScriptError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.size and self.min() < 0:
        raise TorchScriptError("Class values must be non-negative.")
    classes = (int(self.max()) + 1 if self.size else 0) if num_classes == -1 else num_classes
    if self.size and self.max() >= classes:
        raise TorchScriptError("Class values must be smaller than num_classes.")
    return (self[..., None] == np.arange(classes)).astype(np.int64)


def _bags(offsets: ndarray, count: int, include_last_offset: bool) -> tuple[ndarray, ndarray]:
    """(bag of each index, number of bags): bag b holds indices [offsets[b], offsets[b + 1]),
    the last one up to the end (or to the last offset, which then closes the bags)."""
    if offsets.ndim != 1:
        raise TorchScriptError(f"offsets has to be a 1D Tensor, but got Tensor of dimension {offsets.ndim}")
    if offsets.size and offsets[0] != 0:
        raise TorchScriptError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {int(offsets[0])}")  # fmt: skip
    if offsets.size and offsets[-1] > count:
        raise TorchScriptError(f"offsets[-1] can not be greater than input's length ({count}), but got offsets[-1] of "
                               f"{int(offsets[-1])}")  # fmt: skip
    starts = offsets[:-1] if include_last_offset else offsets
    bag = np.searchsorted(starts, np.arange(count), side="right") - 1
    if include_last_offset and offsets.size:
        bag = np.where(np.arange(count) < offsets[-1], bag, -1)
    return bag, starts.size


@kernel("aten::embedding_bag.padding_idx", "aten::_embedding_bag", "aten::_embedding_bag_forward_only")
def embedding_bag(
    weight: ndarray,
    indices: ndarray,
    offsets: ndarray,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: ndarray | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = -1,
) -> tuple[ndarray, ndarray, ndarray, ndarray]:
    """Sums (mode 0), means (1) or maxima (2) of the embeddings of each bag of `indices`
    (1-D, split by `offsets`): (output, bag of each index, bag sizes, argmax rows for mode 2).
    Entries equal to `padding_idx` are left out; an empty bag gives zeros."""
    if indices.dtype.kind not in "iu" or offsets.dtype.kind not in "iu":
        raise TorchScriptError("embedding_bag: expected indices and offsets to be integer tensors")
    if indices.ndim != 1:
        raise TorchScriptError(
            f"input has to be a 1D or 2D Tensor, but got Tensor of dimension {indices.ndim}"
        )
    if mode not in (0, 1, 2):
        raise TorchScriptError(f"embedding_bag: unknown mode {mode}")
    if per_sample_weights is not None:
        if mode != 0:
            raise TorchScriptError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                   "supported for mode='sum' (got mode='mean' or 'max'). Please open a feature request "
                                   "on GitHub.")  # fmt: skip
        if per_sample_weights.shape != indices.shape:
            raise TorchScriptError("embedding_bag: per_sample_weights should have the same shape as indices")
    rows = weight.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        bad = int(indices[(indices < 0) | (indices >= rows)][0])
        raise TorchScriptError(f"Expected idx >= 0 && idx < num_embeddings but found idx to be {bad}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = padding_idx + rows if padding_idx >= -rows else None
    bag, bags = _bags(offsets, indices.size, include_last_offset)
    used = bag >= 0
    if padding_idx is not None:
        used &= indices != padding_idx
    sizes = np.bincount(bag[used], minlength=bags).astype(np.int64)
    dim = weight.shape[1]
    vectors = weight[indices[used]]
    if mode == 2:
        out = np.full(
            (bags, dim), -np.inf if weight.dtype.kind == "f" else np.iinfo(weight.dtype).min, weight.dtype
        )
        np.maximum.at(out, bag[used], vectors)
        out[sizes == 0] = 0
        # the first row reaching each maximum
        hits = vectors == out[bag[used]]
        first = np.full((bags, dim), indices.size, np.int64)
        positions = np.broadcast_to(np.flatnonzero(used)[:, None], hits.shape)
        np.minimum.at(first, bag[used], np.where(hits, positions, indices.size))
        argmax = np.where(
            first < indices.size, indices[np.minimum(first, indices.size - 1)] if indices.size else 0, 0
        )
        return out, bag.astype(np.int64), sizes, argmax.astype(np.int64)
    if per_sample_weights is not None:
        vectors = vectors * per_sample_weights[used][:, None].astype(weight.dtype)
    out = np.zeros((bags, dim), weight.dtype)
    np.add.at(out, bag[used], vectors)
    if mode == 1:
        out = (out / np.maximum(sizes, 1)[:, None].astype(weight.dtype)).astype(weight.dtype)
    return out, bag.astype(np.int64), sizes, sizes.copy()


@kernel("aten::embedding_bag")
def embedding_bag_no_padding(
    weight: ndarray,
    indices: ndarray,
    offsets: ndarray,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: ndarray | None = None,
    include_last_offset: bool = False,
) -> tuple[ndarray, ndarray, ndarray, ndarray]:
    return embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                         include_last_offset, None)  # fmt: skip


@kernel("aten::pixel_shuffle")
def pixel_shuffle(self: ndarray, upscale_factor: int) -> ndarray:
    r = upscale_factor
    *batch, c, h, w = self.shape
    if c % (r * r):
        raise TorchScriptError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
            f"upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    x = self.reshape(*batch, c // (r * r), r, r, h, w)
    n = len(batch)
    x = x.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


@kernel("aten::pixel_unshuffle")
def pixel_unshuffle(self: ndarray, downscale_factor: int) -> ndarray:
    r = downscale_factor
    if self.ndim < 3:
        raise TorchScriptError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                               f"{self.ndim} dimension(s)")  # fmt: skip
    if r <= 0:
        raise TorchScriptError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = self.shape
    if h % r or w % r:
        raise TorchScriptError(
            f"pixel_unshuffle expects {'height' if h % r else 'width'} to be divisible by downscale_factor, but "
            f"input.size({-2 if h % r else -1})={h if h % r else w} is not divisible by {r}"
        )
    x = self.reshape(*batch, c, h // r, r, w // r, r)
    n = len(batch)
    x = x.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


@kernel("aten::channel_shuffle", "aten::native_channel_shuffle")
def channel_shuffle(self: ndarray, groups: int) -> ndarray:
    if groups <= 0:
        raise TorchScriptError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if self.ndim < 3:
        raise TorchScriptError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                               f"{self.ndim} dimension(s)")  # fmt: skip
    n, c = self.shape[:2]
    if c % groups:
        raise TorchScriptError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    x = self.reshape(n, groups, c // groups, *self.shape[2:]).swapaxes(1, 2)
    return np.ascontiguousarray(x).reshape(self.shape)


# --------------------------------------------------------------------------------------
# Recurrent cells
# --------------------------------------------------------------------------------------


def _sigmoid(x: ndarray) -> ndarray:
    return 1 / (1 + np.exp(-x))


@kernel("aten::lstm_cell")
def lstm_cell(
    input: ndarray,
    hx: Sequence[ndarray],
    w_ih: ndarray,
    w_hh: ndarray,
    b_ih: ndarray | None = None,
    b_hh: ndarray | None = None,
) -> tuple[ndarray, ndarray]:
    h, c = hx
    i, f, g, o = np.split(linear(input, w_ih, b_ih) + linear(h, w_hh, b_hh), 4, axis=-1)
    cy = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return as_tensor(_sigmoid(o) * np.tanh(cy)), as_tensor(cy)


def recurrent_cell(update: Callable[[ndarray, ndarray, ndarray], ndarray]) -> Kernel:
    """The kernel of a one-state cell `(input, hx, w_ih, w_hh, b_ih, b_hh)` whose new state is
    `update(input gates, hidden gates, hx)`."""

    def cell(
        input: ndarray,
        hx: ndarray,
        w_ih: ndarray,
        w_hh: ndarray,
        b_ih: ndarray | None = None,
        b_hh: ndarray | None = None,
    ) -> ndarray:
        return as_tensor(update(linear(input, w_ih, b_ih), linear(hx, w_hh, b_hh), hx))

    return cell


def _gru_update(gi: ndarray, gh: ndarray, hx: ndarray) -> ndarray:
    i_r, i_z, i_n = np.split(gi, 3, axis=-1)
    h_r, h_z, h_n = np.split(gh, 3, axis=-1)
    reset, update = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
    new = np.tanh(i_n + h_n * reset)
    return (hx - new) * update + new


def _tanh_update(gi: ndarray, gh: ndarray, hx: ndarray) -> ndarray:
    return np.tanh(gi + gh)


def _relu_update(gi: ndarray, gh: ndarray, hx: ndarray) -> ndarray:
    total = gi + gh
    return np.maximum(total, total.dtype.type(0))


_RECURRENT_UPDATES = {"gru": _gru_update, "rnn_tanh": _tanh_update, "rnn_relu": _relu_update}
"""The new state of the one-state cells from (input gates, hidden gates, state)."""

for _mode, _update in _RECURRENT_UPDATES.items():
    register_kernel(f"aten::{_mode}_cell", recurrent_cell(_update))


# --------------------------------------------------------------------------------------
# Recurrent layers
# --------------------------------------------------------------------------------------


def _lstm_direction(
    gi: ndarray,
    h: ndarray,
    c: ndarray,
    w_hh: ndarray,
    b_hh: ndarray | None,
    w_hr: ndarray | None,
    reverse: bool,
) -> tuple[ndarray, ndarray, ndarray]:
    """One LSTM direction over all steps: (outputs (T, B, H'), final h, final c). `gi` holds
    each step's input gates (bias included). sigmoid(x) = tanh(x / 2) / 2 + 1 / 2, so one
    tanh over the whole gate buffer serves all four gates: the sigmoid gates' weights and
    inputs are halved beforehand (exactly: a power of two), and rescaled after."""
    hidden = c.shape[-1]
    t = gi.dtype.type
    halve = np.full(4 * hidden, t(0.5), dtype=gi.dtype)
    halve[2 * hidden : 3 * hidden] = 1
    offset = np.where(halve == 1, t(0), t(0.5)).astype(gi.dtype)
    gi = gi + b_hh if b_hh is not None else gi.copy()
    gi *= halve
    w = np.ascontiguousarray(w_hh.T) * halve
    out = np.empty((gi.shape[0], gi.shape[1], h.shape[-1]), dtype=gi.dtype)
    for step in range(gi.shape[0] - 1, -1, -1) if reverse else range(gi.shape[0]):
        gates = np.matmul(h, w)
        gates += gi[step]
        np.tanh(gates, out=gates)
        gates *= halve
        gates += offset
        i, f, g, o = (
            gates[:, :hidden],
            gates[:, hidden : 2 * hidden],
            gates[:, 2 * hidden : 3 * hidden],
            gates[:, 3 * hidden :],
        )
        c = f * c
        c += i * g
        if w_hr is None:
            h = np.multiply(o, np.tanh(c), out=out[step])
        else:
            h = linear(o * np.tanh(c), w_hr)
            out[step] = h
    return out, h, c


def _one_state_step(update: Callable[[ndarray, ndarray, ndarray], ndarray]):
    def step(gi: ndarray, h: ndarray, c: None, w_hh_t: ndarray, b_hh: ndarray | None, w_hr: None):
        gh = np.matmul(h, w_hh_t)
        if b_hh is not None:
            gh += b_hh
        return update(gi, gh, h), None

    return step


def _recurrent_layers(
    mode: str,
    input: ndarray,
    h0: ndarray,
    c0: ndarray | None,
    params: Sequence[ndarray],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[ndarray, ndarray, ndarray | None]:
    """A multi-layer (bidirectional) recurrent network over a padded batch, as ATen's
    `_rnn_impl`: each layer's input projections for every time step are one matrix product,
    then the recurrence runs step by step. Returns (output, final h, final c)."""
    floating(input, f"{mode.lower()}")
    if input.ndim != 3:
        raise TorchScriptError(f"input must have 3 dimensions, got {input.ndim}")
    x = input.transpose(1, 0, 2) if batch_first else input  # (T, B, F)
    directions = 2 if bidirectional else 1
    projected = mode == "lstm" and len(params) == num_layers * directions * (5 if has_biases else 3)
    per_direction = (4 if has_biases else 2) + (1 if projected else 0)
    if len(params) != num_layers * directions * per_direction:
        raise TorchScriptError(
            f"{mode}: expected {num_layers * directions * per_direction} weights for {num_layers} layer(s), got "
            f"{len(params)}"
        )
    step = _one_state_step(_RECURRENT_UPDATES[mode]) if mode != "lstm" else None
    final_h, final_c = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            w_ih, w_hh, *rest = params[index * per_direction : (index + 1) * per_direction]
            b_ih, b_hh = (rest[0], rest[1]) if has_biases else (None, None)
            w_hr = rest[-1] if projected else None
            gi = linear(x, w_ih, b_ih)  # (T, B, G): every step's input projection in one product
            h, c = h0[index], (c0[index] if c0 is not None else None)
            if mode == "lstm":
                out, h, c = _lstm_direction(gi, h, c, w_hh, b_hh, w_hr, direction == 1)
            else:
                w_hh_t = np.ascontiguousarray(w_hh.T)
                steps = range(x.shape[0] - 1, -1, -1) if direction == 1 else range(x.shape[0])
                out = np.empty((x.shape[0], x.shape[1], h.shape[-1]), dtype=x.dtype)
                for t in steps:
                    h, c = step(gi[t], h, c, w_hh_t, b_hh, w_hr)
                    out[t] = h
            outputs.append(out)
            final_h.append(h)
            final_c.append(c)
        x = outputs[0] if directions == 1 else np.concatenate(outputs, axis=-1)
        if dropout and train and layer < num_layers - 1:
            x = _dropout(x, dropout, True, x.shape)
    output = np.ascontiguousarray(x.transpose(1, 0, 2) if batch_first else x)
    h_n = np.stack(final_h).astype(input.dtype, copy=False)
    c_n = np.stack(final_c).astype(input.dtype, copy=False) if c0 is not None else None
    return output, h_n, c_n


@kernel("aten::lstm.input")
def lstm(
    input: ndarray,
    hx: Sequence[ndarray],
    params: Sequence[ndarray],
    has_biases: bool,
    num_layers: int,
    dropout: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[ndarray, ndarray, ndarray]:
    h0, c0 = hx
    return _recurrent_layers("lstm", input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional,
                             batch_first)  # pyright: ignore[reportReturnType] # fmt: skip


def _one_state_layers(mode: str) -> Kernel:
    def run(
        input: ndarray,
        hx: ndarray,
        params: Sequence[ndarray],
        has_biases: bool,
        num_layers: int,
        dropout: float,
        train: bool,
        bidirectional: bool,
        batch_first: bool,
    ) -> tuple[ndarray, ndarray]:
        output, h_n, _ = _recurrent_layers(mode, input, hx, None, params, has_biases, num_layers, dropout, train,
                                           bidirectional, batch_first)  # fmt: skip
        return output, h_n

    return run


# --------------------------------------------------------------------------------------
# Distances
# --------------------------------------------------------------------------------------


@kernel("aten::cosine_similarity")
def cosine_similarity(x1: ndarray, x2: ndarray, dim: int = 1, eps: float = 1e-8) -> ndarray:
    try:
        a, b = np.broadcast_arrays(x1, x2)
    except ValueError:
        raise broadcast_error(x1, x2) from None
    d = wrap_dim(dim, a.ndim)
    norm_a = np.maximum(np.sqrt(np.sum(a * a, axis=d, keepdims=True)), a.dtype.type(eps))
    norm_b = np.maximum(np.sqrt(np.sum(b * b, axis=d, keepdims=True)), b.dtype.type(eps))
    return as_tensor(np.sum((a / norm_a) * (b / norm_b), axis=d))


def _norm_last(diff: ndarray, p: float, keepdim: bool) -> ndarray:
    """The p-norm over the last dimension (p = 0 counts non-zeros, +-inf is max / min)."""
    axis = -1 if diff.ndim else None
    t = diff.dtype.type
    if p == math.inf:
        return np.max(diff, axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return np.min(diff, axis=axis, keepdims=keepdim)
    if p == 0:
        return np.sum(diff != 0, axis=axis, keepdims=keepdim).astype(diff.dtype)
    if p == 1:
        return np.sum(diff, axis=axis, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(diff * diff, axis=axis, keepdims=keepdim))
    return np.sum(diff ** t(p), axis=axis, keepdims=keepdim) ** t(1 / p)


@kernel("aten::pairwise_distance")
def pairwise_distance(
    x1: ndarray, x2: ndarray, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> ndarray:
    """norm(x1 - x2 + eps) over the last dimension; integer inputs give float32 (the eps promotes)."""
    difference = x1 - x2
    if difference.dtype.kind != "f":
        difference = difference.astype(np.float32)
    return as_tensor(_norm_last(np.abs(difference + difference.dtype.type(eps)), p, keepdim))


@kernel("aten::pdist", "aten::_pdist_forward")
def pdist(self: ndarray, p: float = 2.0) -> ndarray:
    """The p-norm distances between the rows of an (N, M) matrix, for i < j in row-major order."""
    if self.ndim != 2:
        raise TorchScriptError(f"pdist only supports 2D tensors, got: {self.ndim}D")
    floating(self, "pdist")
    if p < 0:
        raise TorchScriptError("pdist only supports non-negative p values")
    i, j = np.triu_indices(self.shape[0], 1)
    return as_tensor(_norm_last(np.abs(self[i] - self[j]), p, False)).reshape(-1)


@kernel("aten::bilinear")
def bilinear(input1: ndarray, input2: ndarray, weight: ndarray, bias: ndarray | None = None) -> ndarray:
    """y[..., o] = x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]."""
    if input1.ndim != input2.ndim or input1.shape[:-1] != input2.shape[:-1]:
        raise TorchScriptError(
            f"bilinear(): input batch dimensions do not match: got {shape_str(input1.shape[:-1])} and "
            f"{shape_str(input2.shape[:-1])}"
        )
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise TorchScriptError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the weight of size "
            f"{shape_str(weight.shape)}"
        )
    left = np.matmul(
        input1.reshape(-1, input1.shape[-1]), weight.transpose(1, 0, 2).reshape(weight.shape[1], -1)
    )
    left = left.reshape(-1, weight.shape[0], weight.shape[2])
    out = np.einsum("noj,nj->no", left, input2.reshape(-1, input2.shape[-1]))
    if bias is not None:
        out = out + bias
    return as_tensor(
        out.reshape(input1.shape[:-1] + (weight.shape[0],)).astype(np.result_type(input1, weight))
    )


@kernel("aten::_trilinear")
def trilinear(
    i1: ndarray,
    i2: ndarray,
    i3: ndarray,
    expand1: Sequence[int],
    expand2: Sequence[int],
    expand3: Sequence[int],
    sumdim: Sequence[int],
    unroll_dim: int = 1,
) -> ndarray:
    """sum over `sumdim` of the product of the three inputs, each unsqueezed at its `expand`
    dimensions (so broadcast along them): one einsum over the dimensions each input has."""
    total = i1.ndim + len(expand1)
    letters = "abcdefghijklmnopqrstuvwxyz"[:total]
    specs = []
    for x, expand in ((i1, expand1), (i2, expand2), (i3, expand3)):
        if x.ndim + len(expand) != total:
            raise TorchScriptError(
                "_trilinear: the inputs and their expanded dimensions do not agree in rank"
            )
        specs.append("".join(letters[d] for d in range(total) if d not in set(expand)))
    kept = [d for d in range(total) if d not in set(sumdim)]
    present = set("".join(specs))
    out_spec = "".join(letters[d] for d in kept if letters[d] in present)
    out = np.einsum(f"{specs[0]},{specs[1]},{specs[2]}->{out_spec}", i1, i2, i3, optimize=True)
    shape = [1] * len(kept)
    sizes = iter(out.shape)
    for k, d in enumerate(kept):
        if letters[d] in present:
            shape[k] = next(sizes)
    return as_tensor(out.reshape(shape))


for _mode in _RECURRENT_UPDATES:
    register_kernel(f"aten::{_mode}.input", _one_state_layers(_mode))
