"""Neural-network ops other than convolution and pooling: softmax, normalizations, dropout,
embedding, recurrent cells and losses.

Formulas follow PyTorch's CPU implementations (layer norm multiplies by the reciprocal
standard deviation, GRU returns `(h - n) * z + n`, ...) so results agree to rounding.
Losses take `reduction` as PyTorch's enum: 0 none, 1 mean, 2 sum.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, floating, shape_str, wrap_dim
from tsjit.runtime.kernels.linalg import linear
from tsjit.runtime.kernels.reduction import mean_of
from tsjit.runtime.kernels.sampling import bernoulli_mask
from tsjit.runtime.values import dtype_name, numpy_dtype

ndarray = np.ndarray

NONE, MEAN, SUM = 0, 1, 2


# --------------------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------------------


def _shifted(x: ndarray, dim: int, dtype: int | None, op: str) -> tuple[ndarray, int | None]:
    """(x minus its maximum along dim, in a new buffer; the axis), after PyTorch's dtype checks.
    An empty x comes back copied: a maximum over no elements does not exist."""
    if dtype is not None:
        x = x.astype(numpy_dtype(dtype), copy=False)
    floating(x, op)
    axis = wrap_dim(dim, x.ndim) if x.ndim else None
    if x.size == 0:
        return x.copy(), axis
    return np.subtract(x, np.maximum.reduce(x, axis=axis, keepdims=True), out=...), axis


@kernel("aten::softmax.int")
def softmax(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    shifted, axis = _shifted(self, dim, dtype, "softmax_lastdim_kernel_impl")
    if shifted.size:
        np.exp(shifted, out=shifted)
        np.divide(shifted, np.add.reduce(shifted, axis=axis, keepdims=True), out=shifted)
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


@kernel("aten::group_norm")
def group_norm(
    input: ndarray,
    num_groups: int,
    weight: ndarray | None = None,
    bias: ndarray | None = None,
    eps: float = 1e-5,
    cudnn_enabled: bool = True,
) -> ndarray:
    x = floating(input, "group_norm")
    channels = x.shape[1]
    if channels % num_groups:
        raise TorchScriptError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{shape_str(x.shape)} and num_groups={num_groups}"
        )
    grouped = x.reshape(x.shape[0], num_groups, -1)
    normalized, _, _ = _normalized(grouped, (2,), eps)
    return as_tensor(_affine(normalized.reshape(x.shape), weight, bias, _channel_shape(x)))


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


@kernel("aten::alpha_dropout")
def alpha_dropout(input: ndarray, p: float, train: bool) -> ndarray:
    _check_p(p)
    if not train or p == 0 or input.size == 0:
        return input
    alpha = -1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    keep = bernoulli_mask(input.shape, 1 - p)
    return as_tensor((a * np.where(keep, input, alpha) - a * alpha * p).astype(input.dtype))


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
        raise TorchScriptError("index out of range in self")
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


for _name, _update in (
    ("aten::gru_cell", _gru_update),
    ("aten::rnn_tanh_cell", _tanh_update),
    ("aten::rnn_relu_cell", _relu_update),
):
    register_kernel(_name, recurrent_cell(_update))


# --------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------


def _reduce(loss: ndarray, reduction: int) -> ndarray:
    if reduction == NONE:
        return as_tensor(loss)
    if reduction == SUM:
        return as_tensor(np.sum(loss))
    if reduction == MEAN:
        return as_tensor(np.mean(loss))
    raise TorchScriptError(f"{reduction} is not a valid value for reduction")


def _same_shape(a: ndarray, b: ndarray) -> tuple[ndarray, ndarray]:
    try:
        return np.broadcast_arrays(a, b)
    except ValueError:
        raise TorchScriptError(
            f"The size of tensor a ({a.shape[-1] if a.ndim else 1}) must match the size of tensor b "
            f"({b.shape[-1] if b.ndim else 1})"
        ) from None


@kernel("aten::mse_loss")
def mse_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    x, t = _same_shape(self, target)
    diff = x - t
    return _reduce(diff * diff, reduction)


@kernel("aten::l1_loss")
def l1_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    x, t = _same_shape(self, target)
    return _reduce(np.abs(x - t), reduction)


@kernel("aten::smooth_l1_loss")
def smooth_l1_loss(self: ndarray, target: ndarray, reduction: int = MEAN, beta: float = 1.0) -> ndarray:
    x, t = _same_shape(self, target)
    z = np.abs(x - t)
    if beta == 0:
        return _reduce(z, reduction)
    return _reduce(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(z.dtype), reduction)


@kernel("aten::huber_loss")
def huber_loss(self: ndarray, target: ndarray, reduction: int = MEAN, delta: float = 1.0) -> ndarray:
    x, t = _same_shape(self, target)
    z = np.abs(x - t)
    return _reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype), reduction)


def _class_weights(weight: ndarray | None, classes: int, dtype: np.dtype) -> ndarray:
    return np.ones(classes, dtype) if weight is None else weight.astype(dtype, copy=False)


def _nll(
    log_probs: ndarray, target: ndarray, weight: ndarray | None, ignore_index: int
) -> tuple[ndarray, ndarray]:
    """Per-element losses and weights of `-log_probs[target]` (class dimension 1, or 0 for 1-D input)."""
    class_axis = 1 if log_probs.ndim > 1 else 0
    classes = log_probs.shape[class_axis]
    if target.dtype.kind not in "iu":
        raise TorchScriptError(f"expected scalar type Long but found {dtype_name(target.dtype)}")
    ignored = target == ignore_index
    safe = np.where(ignored, 0, target)
    if safe.size and (safe.min() < 0 or safe.max() >= classes):
        bad = int(safe[(safe < 0) | (safe >= classes)].flat[0])
        raise TorchScriptError(f"Target {bad} is out of bounds.")
    picked = np.take_along_axis(log_probs, np.expand_dims(safe, class_axis), axis=class_axis).squeeze(
        class_axis
    )
    w = np.where(ignored, 0, _class_weights(weight, classes, log_probs.dtype)[safe]).astype(log_probs.dtype)
    return -picked * w, w


def _weighted_mean(losses: ndarray, weights: ndarray, reduction: int) -> ndarray:
    if reduction == MEAN:
        return as_tensor(np.sum(losses) / np.sum(weights))
    return _reduce(losses, reduction)


@kernel("aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d")
def nll_loss(
    self: ndarray,
    target: ndarray,
    weight: ndarray | None = None,
    reduction: int = MEAN,
    ignore_index: int = -100,
) -> ndarray:
    losses, weights = _nll(self, target, weight, ignore_index)
    return _weighted_mean(losses, weights, reduction)


@kernel("aten::cross_entropy_loss")
def cross_entropy_loss(
    self: ndarray,
    target: ndarray,
    weight: ndarray | None = None,
    reduction: int = MEAN,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> ndarray:
    class_axis = 1 if self.ndim > 1 else 0
    log_probs = log_softmax(self, class_axis)
    classes = self.shape[class_axis]
    w = _class_weights(weight, classes, log_probs.dtype).reshape(
        (classes,) + (1,) * (self.ndim - class_axis - 1)
    )
    if target.dtype.kind == "f":  # class probabilities
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        losses = -np.sum(log_probs * target * w, axis=class_axis)
        if reduction == MEAN:
            return as_tensor(np.sum(losses) / (self.size // classes))
        return _reduce(losses, reduction)
    losses, weights = _nll(log_probs, target, weight, ignore_index)
    nll = _weighted_mean(losses, weights, reduction)
    if not label_smoothing:
        return nll
    smooth = -np.sum(log_probs * w, axis=class_axis) * (target != ignore_index)
    if reduction == MEAN:
        smooth_total = np.sum(smooth) / (
            np.sum(weights) if weight is not None else np.sum(target != ignore_index)
        )
    else:
        smooth_total = _reduce(smooth, reduction)
    return as_tensor((1 - label_smoothing) * nll + (label_smoothing / classes) * smooth_total)


@kernel("aten::binary_cross_entropy")
def binary_cross_entropy(
    self: ndarray, target: ndarray, weight: ndarray | None = None, reduction: int = MEAN
) -> ndarray:
    if self.size and (self.min() < 0 or self.max() > 1):
        raise TorchScriptError("all elements of input should be between 0 and 1")
    log_x = np.maximum(np.log(self), -100)
    log_1mx = np.maximum(np.log1p(-self), -100)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.astype(self.dtype, copy=False), reduction)


@kernel("aten::binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    self: ndarray,
    target: ndarray,
    weight: ndarray | None = None,
    pos_weight: ndarray | None = None,
    reduction: int = MEAN,
) -> ndarray:
    softplus_neg = np.log1p(np.exp(-np.abs(self))) + np.maximum(-self, 0)
    log_weight = 1 if pos_weight is None else (pos_weight - 1) * target + 1
    loss = (1 - target) * self + log_weight * softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.astype(self.dtype, copy=False), reduction)


@kernel("aten::kl_div")
def kl_div(self: ndarray, target: ndarray, reduction: int = MEAN, log_target: bool = False) -> ndarray:
    if log_target:
        loss = np.exp(target) * (target - self)
    else:
        safe = np.where(target > 0, target, 1)
        loss = np.where(target > 0, target * (np.log(safe) - self), 0).astype(self.dtype)
    return _reduce(loss, reduction)


@kernel("aten::cosine_similarity")
def cosine_similarity(x1: ndarray, x2: ndarray, dim: int = 1, eps: float = 1e-8) -> ndarray:
    a, b = _same_shape(x1, x2)
    d = wrap_dim(dim, a.ndim)
    norm_a = np.maximum(np.sqrt(np.sum(a * a, axis=d, keepdims=True)), a.dtype.type(eps))
    norm_b = np.maximum(np.sqrt(np.sum(b * b, axis=d, keepdims=True)), b.dtype.type(eps))
    return as_tensor(np.sum((a / norm_a) * (b / norm_b), axis=d))


@kernel("aten::pairwise_distance")
def pairwise_distance(
    x1: ndarray, x2: ndarray, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> ndarray:
    diff = np.abs(x1 - x2 + x1.dtype.type(eps))
    axis = -1 if diff.ndim else None
    if p == math.inf:
        return as_tensor(np.max(diff, axis=axis, keepdims=keepdim))
    return as_tensor(
        np.sum(diff ** diff.dtype.type(p), axis=axis, keepdims=keepdim) ** diff.dtype.type(1 / p)
    )
