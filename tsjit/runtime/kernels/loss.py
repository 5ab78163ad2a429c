"""Loss functions: regression (mse, l1, smooth l1, huber), classification (nll, cross
entropy, binary cross entropy, kl divergence, poisson nll) and margin losses (soft margin,
margin ranking, hinge and cosine embedding, multi-margin, multilabel margin, triplet).

`reduction` is PyTorch's enum: 0 none, 1 mean, 2 sum. Formulas follow ATen's `Loss.cpp`
(`cosine_embedding_loss` adds 1e-12 to the squared magnitudes, ...) so results agree to
rounding.
"""

from __future__ import annotations

import math

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, floating, shape_str
from tsjit.runtime.kernels.nn import log_softmax, pairwise_distance
from tsjit.runtime.kernels.promotion import float_dtype, result_type
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray

NONE, MEAN, SUM = 0, 1, 2


def reduce(loss: ndarray, reduction: int) -> ndarray:
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


def _where(condition: ndarray, value: ndarray, dtype: np.dtype) -> ndarray:
    return np.where(condition, value, dtype.type(0)).astype(dtype, copy=False)


# --------------------------------------------------------------------------------------
# Regression
# --------------------------------------------------------------------------------------


@kernel("aten::mse_loss")
def mse_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    x, t = _same_shape(self, target)
    diff = x - t
    return reduce(diff * diff, reduction)


@kernel("aten::l1_loss")
def l1_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    x, t = _same_shape(self, target)
    return reduce(np.abs(x - t), reduction)


@kernel("aten::smooth_l1_loss")
def smooth_l1_loss(self: ndarray, target: ndarray, reduction: int = MEAN, beta: float = 1.0) -> ndarray:
    x, t = _same_shape(self, target)
    z = np.abs(x - t)
    if beta == 0:
        return reduce(z, reduction)
    return reduce(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta).astype(z.dtype), reduction)


@kernel("aten::huber_loss")
def huber_loss(self: ndarray, target: ndarray, reduction: int = MEAN, delta: float = 1.0) -> ndarray:
    x, t = _same_shape(self, target)
    z = np.abs(x - t)
    return reduce(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)).astype(z.dtype), reduction)


# --------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------


def _class_weights(weight: ndarray | None, classes: int, dtype: np.dtype) -> ndarray:
    if weight is not None and weight.size != classes:
        raise TorchScriptError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {shape_str(weight.shape)}"
        )
    return np.ones(classes, dtype) if weight is None else weight.astype(dtype, copy=False)


def _nll(
    log_probs: ndarray, target: ndarray, weight: ndarray | None, ignore_index: int
) -> tuple[ndarray, ndarray]:
    """Per-element losses and weights of `-log_probs[target]` (class dimension 1, or 0 for 1-D input)."""
    class_axis = 1 if log_probs.ndim > 1 else 0
    classes = log_probs.shape[class_axis]
    if target.dtype.kind not in "iu":
        raise TorchScriptError(f"expected scalar type Long but found {dtype_name(target.dtype)}")
    expected = log_probs.shape[:class_axis] + log_probs.shape[class_axis + 1 :]
    if target.shape != expected:
        raise TorchScriptError(
            f"Expected input batch_size ({log_probs.shape[0] if log_probs.ndim > 1 else 1}) to match target "
            f"batch_size ({target.shape[0] if target.ndim else 1})."
        )
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
    return reduce(losses, reduction)


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


@kernel("aten::nll_loss_forward", "aten::nll_loss2d_forward")
def nll_loss_forward(
    self: ndarray, target: ndarray, weight: ndarray | None, reduction: int, ignore_index: int
) -> tuple[ndarray, ndarray]:
    """(loss, total weight): the weight is 0 for reduction none, as ATen leaves it."""
    losses, weights = _nll(self, target, weight, ignore_index)
    total = np.sum(weights) if reduction != NONE else self.dtype.type(0)
    return _weighted_mean(losses, weights, reduction), as_tensor(np.asarray(total, dtype=self.dtype))


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
        if target.shape != self.shape:
            raise TorchScriptError(
                f"Expected target size {shape_str(self.shape)}, got {shape_str(target.shape)}"
            )
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        losses = -np.sum(log_probs * target * w, axis=class_axis)
        if reduction == MEAN:
            return as_tensor(np.sum(losses) / (self.size // classes) if self.size else np.sum(losses) / 0)
        return reduce(losses, reduction)
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
        smooth_total = reduce(smooth, reduction)
    return as_tensor(
        ((1 - label_smoothing) * nll + (label_smoothing / classes) * smooth_total).astype(self.dtype)
    )


@kernel("aten::binary_cross_entropy")
def binary_cross_entropy(
    self: ndarray, target: ndarray, weight: ndarray | None = None, reduction: int = MEAN
) -> ndarray:
    floating(self, "binary_cross_entropy")
    if self.shape != target.shape:
        raise TorchScriptError(
            f"Using a target size ({shape_str(target.shape)}) that is different to the input size "
            f"({shape_str(self.shape)}) is deprecated. Please ensure they have the same size."
        )
    if self.size and (self.min() < 0 or self.max() > 1):
        raise TorchScriptError("all elements of input should be between 0 and 1")
    log_x = np.maximum(np.log(self), -100)
    log_1mx = np.maximum(np.log1p(-self), -100)
    loss = (target - 1) * log_1mx - target * log_x
    if weight is not None:
        loss = loss * weight
    return reduce(loss.astype(self.dtype, copy=False), reduction)


@kernel("aten::binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(
    self: ndarray,
    target: ndarray,
    weight: ndarray | None = None,
    pos_weight: ndarray | None = None,
    reduction: int = MEAN,
) -> ndarray:
    floating(self, "binary_cross_entropy_with_logits")
    softplus_neg = np.log1p(np.exp(-np.abs(self))) + np.maximum(-self, 0)
    log_weight = 1 if pos_weight is None else (pos_weight - 1) * target + 1
    loss = (1 - target) * self + log_weight * softplus_neg
    if weight is not None:
        loss = loss * weight
    return reduce(loss.astype(self.dtype, copy=False), reduction)


@kernel("aten::kl_div")
def kl_div(self: ndarray, target: ndarray, reduction: int = MEAN, log_target: bool = False) -> ndarray:
    if log_target:
        loss = np.exp(target) * (target - self)
    else:  # xlogy(target, target) - target * input: 0 where the target is 0, NaN where it is negative
        with np.errstate(all="ignore"):
            entropy = np.where(target == 0, 0, target * np.log(target))
        loss = (entropy - target * self).astype(np.result_type(self, target))
    return reduce(loss, reduction)


@kernel("aten::poisson_nll_loss")
def poisson_nll_loss(
    input: ndarray, target: ndarray, log_input: bool, full: bool, eps: float, reduction: int
) -> ndarray:
    dtype = float_dtype(result_type(input, target))
    input, target = input.astype(dtype, copy=False), target.astype(dtype, copy=False)
    t = dtype.type
    if log_input:
        loss = np.exp(input) - target * input
    else:
        loss = input - target * np.log(input + t(eps))
    if full:
        with np.errstate(all="ignore"):
            stirling = target * np.log(target) - target + t(0.5) * np.log(t(2 * math.pi) * target)
        loss = loss + np.where(target <= 1, t(0), stirling)
    return reduce(loss.astype(dtype, copy=False), reduction)


# --------------------------------------------------------------------------------------
# Margin losses
# --------------------------------------------------------------------------------------


@kernel("aten::soft_margin_loss")
def soft_margin_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    x, y = _same_shape(self, target)
    return reduce(np.log1p(np.exp(-y * x)), reduction)


@kernel("aten::margin_ranking_loss")
def margin_ranking_loss(
    input1: ndarray, input2: ndarray, target: ndarray, margin: float = 0.0, reduction: int = MEAN
) -> ndarray:
    dtype = result_type(input1, input2, target, margin)
    value = (-target * (input1 - input2)).astype(dtype, copy=False) + dtype.type(margin)
    return reduce(np.maximum(value, dtype.type(0)), reduction)


@kernel("aten::hinge_embedding_loss")
def hinge_embedding_loss(
    self: ndarray, target: ndarray, margin: float = 1.0, reduction: int = MEAN
) -> ndarray:
    dtype = np.result_type(self, target)
    clamped = np.maximum(margin - self, 0)
    loss = _where(target != 1, clamped, dtype) + _where(target != -1, self, dtype)
    return reduce(loss, reduction)


@kernel("aten::cosine_embedding_loss")
def cosine_embedding_loss(
    input1: ndarray, input2: ndarray, target: ndarray, margin: float = 0.0, reduction: int = MEAN
) -> ndarray:
    if input1.shape != input2.shape:
        raise TorchScriptError(
            f"cosine_embedding_loss: input1 and input2 must have the same shape, got {shape_str(input1.shape)} "
            f"and {shape_str(input2.shape)}"
        )
    if input1.ndim not in (1, 2) or target.ndim != input1.ndim - 1:
        raise TorchScriptError(
            f"{input1.ndim}D target tensor expects {input1.ndim - 1}D input tensors, but found inputs with sizes "
            f"{shape_str(input1.shape)} and {shape_str(input2.shape)}."
        )
    dtype = float_dtype(result_type(input1, input2))
    input1, input2 = input1.astype(dtype, copy=False), input2.astype(dtype, copy=False)
    axis = input1.ndim - 1
    epsilon = dtype.type(1e-12)
    dot = np.sum(input1 * input2, axis=axis)
    denominator = np.sqrt(
        (np.sum(input1 * input1, axis=axis) + epsilon) * (np.sum(input2 * input2, axis=axis) + epsilon)
    )
    cos = (dot / denominator).astype(dot.dtype)
    dtype = cos.dtype
    loss = _where(target == 1, 1 - cos, dtype) + _where(target == -1, np.maximum(cos - margin, 0), dtype)
    return reduce(loss, reduction)


def _classes_and_batch(self: ndarray, target: ndarray, op: str) -> ndarray:
    """(N, C) view of a 1-D or 2-D input whose target holds one class per row."""
    if self.ndim > 2 or (self.ndim and self.shape[-1] == 0):
        raise TorchScriptError(f"{op}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                               f"{shape_str(self.shape)}")  # fmt: skip
    return self.reshape(-1, self.shape[-1] if self.ndim else 1)


@kernel("aten::multi_margin_loss")
def multi_margin_loss(
    self: ndarray,
    target: ndarray,
    p: object = 1,
    margin: object = 1,
    weight: ndarray | None = None,
    reduction: int = MEAN,
) -> ndarray:
    """sum over i != y of max(0, margin - x[y] + x[i])^p * weight[y], over the classes."""
    if p not in (1, 2):
        raise TorchScriptError("only p == 1 and p == 2 supported")
    x = _classes_and_batch(floating(self, "multi_margin_loss_cpu"), target, "multi_margin_loss")
    batch, classes = x.shape
    y = target.reshape(-1)
    if y.size != batch:
        raise TorchScriptError(
            f"inconsistent target size, expected {batch} but got {shape_str(target.shape)}"
        )
    if y.size and (y.min() < 0 or y.max() >= classes):
        raise TorchScriptError("target out of range")
    t = x.dtype.type
    picked = np.take_along_axis(x, y[:, None], axis=1)
    z = np.maximum(t(margin) - picked + x, t(0))
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.astype(x.dtype)[y][:, None]
    z[np.arange(batch), y] = 0
    loss = (np.sum(z, axis=1) / t(classes)).astype(x.dtype)
    if self.ndim < 2 and reduction == NONE:
        return as_tensor(loss.reshape(()))
    return reduce(loss, reduction)


@kernel("aten::multilabel_margin_loss")
def multilabel_margin_loss(self: ndarray, target: ndarray, reduction: int = MEAN) -> ndarray:
    """Each row's targets are its leading non-negative entries: sum over target entries j
    (a repeated class counts again) and non-target classes i of max(0, 1 - (x[j] - x[i])),
    over the classes."""
    x = _classes_and_batch(
        floating(self, "multilabel_margin_loss_forward_out_frame"), target, "multilabel_margin_loss"
    )
    batch, classes = x.shape
    if target.shape != self.shape:
        raise TorchScriptError(f"inconsistent target size: {shape_str(target.shape)} for input of size: "
                               f"{shape_str(self.shape)}")  # fmt: skip
    y = target.reshape(batch, classes)
    valid = np.cumprod(y >= 0, axis=1).astype(bool)  # entries before the first -1
    if np.any(valid & (y >= classes)):
        raise TorchScriptError("target out of range")
    is_target = np.zeros((batch, classes), dtype=bool)
    rows = np.broadcast_to(np.arange(batch)[:, None], y.shape)
    is_target[rows[valid], y[valid]] = True
    t = x.dtype.type
    # hinge[n, k, i] = max(0, 1 - x[n, y[n, k]] + x[n, i]) for target entry k (repeats count) and
    # non-target class i
    picked = np.take_along_axis(x, np.where(valid, y, 0), axis=1)
    hinge = np.maximum(t(1) - picked[:, :, None] + x[:, None, :], t(0))
    pairs = valid[:, :, None] & ~is_target[:, None, :]
    loss = (np.sum(np.where(pairs, hinge, t(0)), axis=(1, 2)) / t(classes)).astype(x.dtype)
    if self.ndim < 2 and reduction == NONE:
        return as_tensor(loss.reshape(()))
    return reduce(loss, reduction)


@kernel("aten::triplet_margin_loss")
def triplet_margin_loss(
    anchor: ndarray,
    positive: ndarray,
    negative: ndarray,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = MEAN,
) -> ndarray:
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise TorchScriptError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    positive_distance = pairwise_distance(anchor, positive, p, eps)
    negative_distance = pairwise_distance(anchor, negative, p, eps)
    if swap:
        negative_distance = np.minimum(negative_distance, pairwise_distance(positive, negative, p, eps))
    value = (positive_distance.dtype.type(margin) + positive_distance) - negative_distance
    return reduce(np.maximum(value, value.dtype.type(0)), reduction)


# --------------------------------------------------------------------------------------
# Connectionist temporal classification
# --------------------------------------------------------------------------------------


def _ctc_negative_log_likelihood(
    log_probs: ndarray, targets: ndarray, input_lengths: ndarray, target_lengths: ndarray, blank: int
) -> ndarray:
    """-log p(target | input) per batch element by the forward (alpha) recursion over the
    blank-extended targets, in log space: the batch and the states are vectorized, time
    steps run in order. log_probs (T, N, C); targets (N, S) padded."""
    steps, batch, _ = log_probs.shape
    longest = int(target_lengths.max()) if batch else 0
    states = 2 * longest + 1
    extended = np.full((batch, states), blank, dtype=np.int64)
    extended[:, 1::2] = targets[:, :longest]
    valid = np.arange(states)[None, :] < (2 * target_lengths[:, None] + 1)
    # a state may skip the blank before it when its label differs from the one two back
    skip = np.zeros((batch, states), dtype=bool)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    neg_inf = log_probs.dtype.type(-np.inf)
    emit = np.take_along_axis(
        log_probs, np.broadcast_to(extended[None], (steps, batch, states)), axis=2
    )  # (T, N, S')
    alpha = np.full((batch, states), neg_inf, dtype=log_probs.dtype)
    alpha[:, 0] = emit[0, :, 0]
    if states > 1:
        alpha[:, 1] = np.where(target_lengths > 0, emit[0, :, 1], neg_inf)
    alpha = np.where(valid, alpha, neg_inf)
    for t in range(1, steps):
        stay = alpha
        step = np.concatenate([np.full((batch, 1), neg_inf, alpha.dtype), alpha[:, :-1]], axis=1)
        jump = np.concatenate([np.full((batch, 2), neg_inf, alpha.dtype), alpha[:, :-2]], axis=1)
        jump = np.where(skip, jump, neg_inf)
        top = np.maximum(np.maximum(stay, step), jump)
        safe_top = np.where(np.isneginf(top), 0, top)
        with np.errstate(divide="ignore"):
            total = (
                np.log(np.exp(stay - safe_top) + np.exp(step - safe_top) + np.exp(jump - safe_top)) + safe_top
            )
        updated = np.where(valid, total + emit[t], neg_inf)
        alpha = np.where((t < input_lengths)[:, None], updated, alpha)
    last = 2 * target_lengths
    end_blank = alpha[np.arange(batch), last]
    end_label = np.where(target_lengths > 0, alpha[np.arange(batch), np.maximum(last - 1, 0)], neg_inf)
    top = np.maximum(end_blank, end_label)
    safe_top = np.where(np.isneginf(top), 0, top)
    with np.errstate(divide="ignore"):
        likelihood = np.log(np.exp(end_blank - safe_top) + np.exp(end_label - safe_top)) + safe_top
    return -likelihood


def _lengths(lengths: object, batch: int, name: str) -> ndarray:
    values = np.asarray(lengths, dtype=np.int64).reshape(-1)
    if values.size != batch:
        raise TorchScriptError(f"{name} must be of size batch_size")
    return values


@kernel("aten::ctc_loss.IntList", "aten::ctc_loss.Tensor")
def ctc_loss(
    log_probs: ndarray,
    targets: ndarray,
    input_lengths: object,
    target_lengths: object,
    blank: int = 0,
    reduction: int = MEAN,
    zero_infinity: bool = False,
) -> ndarray:
    floating(log_probs, "ctc_loss_cpu")
    unbatched = log_probs.ndim == 2
    probs = log_probs[:, None] if unbatched else log_probs
    if probs.ndim != 3:
        raise TorchScriptError(f"ctc_loss: expected log_probs of 2 or 3 dimensions, got {log_probs.ndim}")
    steps, batch, classes = probs.shape
    if not 0 <= blank < classes:
        raise TorchScriptError("blank must be in label range")
    input_lengths = _lengths(input_lengths, batch, "input_lengths")
    target_lengths = _lengths(target_lengths, batch, "target_lengths")
    if np.any(input_lengths > steps):
        raise TorchScriptError(f"Expected input_lengths to have value at most {steps}, but got value "
                               f"{int(input_lengths.max())}")  # fmt: skip
    if unbatched:
        padded = targets.reshape(1, -1)
    elif targets.ndim == 1:  # the targets of all elements, concatenated
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        width = int(target_lengths.max()) if batch else 0
        index = starts[:, None] + np.arange(width)[None, :]
        padded = (
            targets[np.minimum(index, max(targets.size - 1, 0))]
            if targets.size
            else np.zeros((batch, width), np.int64)
        )
    else:
        padded = targets
    losses = _ctc_negative_log_likelihood(
        probs, padded.astype(np.int64), input_lengths, target_lengths, blank
    )
    if zero_infinity:
        losses = np.where(np.isinf(losses), 0, losses)
    losses = losses.astype(log_probs.dtype)
    if reduction == MEAN:
        return as_tensor(
            np.mean(losses / np.maximum(target_lengths, 1).astype(losses.dtype)).astype(losses.dtype)
        )
    if unbatched and reduction == NONE:
        return as_tensor(losses.reshape(()))
    return reduce(losses, reduction)
