"""Activation functions and clamps: relu6, leaky_relu, elu, gelu, silu, softplus, clamp, ...

Formulas follow PyTorch's CPU kernels (e.g. `hardswish = x * min(max(x + 3, 0), 6) / 6`) so
that results agree to rounding. The float-only activations reject integer tensors like
PyTorch; clamp promotes with its bounds (`clamp(int_tensor, 0.5)` is float32).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, floating, wrap_dim
from tsjit.runtime.kernels.promotion import check_cast, result_type
from tsjit.runtime.kernels.sampling import rng
from tsjit.runtime.kernels.special import erf

ndarray = np.ndarray

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def with_inplace(name: str, names_inplace: tuple[str, ...] = ()) -> Callable:
    """Register an out-of-place kernel and its in-place forms (`name_`), which write into self."""

    def register(fn: Callable[..., ndarray]) -> Callable[..., ndarray]:
        register_kernel(name, fn)
        for inplace_name in names_inplace:
            register_kernel(inplace_name, lambda self, *args: assign(self, fn(self, *args)))
        return fn

    return register


# --------------------------------------------------------------------------------------
# Clamps
# --------------------------------------------------------------------------------------


def _clamp(x: ndarray, low: object, high: object) -> tuple[ndarray, np.dtype]:
    """PyTorch's clamp: min(max(x, low), high) by comparisons, so that NaN and the sign of
    a zero equal to a bound pass through; bounds are cast to the result dtype (an int
    bound out of an unsigned range wraps around, as in PyTorch)."""
    if low is None and high is None:
        raise TorchScriptError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dtype = result_type(x, low, high)
    result = x.astype(dtype, copy=False)
    if low is not None:
        bound = _bound(low, dtype)
        result = np.where(result < bound, bound, result)
    if high is not None:
        bound = _bound(high, dtype)
        result = np.where(result > bound, bound, result)
    return as_tensor(result), dtype


def _bound(value: object, dtype: np.dtype) -> ndarray:
    if type(value) is ndarray:
        return value.astype(dtype, copy=False)
    return np.asarray(value).astype(dtype)


@kernel("aten::clamp", "aten::clamp.Tensor", "aten::clip", "aten::clip.Tensor")
def clamp(self: ndarray, min: object = None, max: object = None) -> ndarray:
    return _clamp(self, min, max)[0]


@kernel("aten::clamp_", "aten::clamp_.Tensor", "aten::clip_", "aten::clip_.Tensor")
def clamp_(self: ndarray, min: object = None, max: object = None) -> ndarray:
    result, dtype = _clamp(self, min, max)
    check_cast(dtype, self.dtype)
    return assign(self, result)


@kernel("aten::clamp_min", "aten::clamp_min.Tensor")
def clamp_min(self: ndarray, min: object) -> ndarray:
    return _clamp(self, min, None)[0]


@kernel("aten::clamp_max", "aten::clamp_max.Tensor")
def clamp_max(self: ndarray, max: object) -> ndarray:
    return _clamp(self, None, max)[0]


@kernel("aten::clamp_min_", "aten::clamp_min_.Tensor")
def clamp_min_(self: ndarray, min: object) -> ndarray:
    return clamp_(self, min, None)


@kernel("aten::clamp_max_", "aten::clamp_max_.Tensor")
def clamp_max_(self: ndarray, max: object) -> ndarray:
    return clamp_(self, None, max)


@with_inplace("aten::hardtanh", ("aten::hardtanh_",))
def hardtanh(self: ndarray, min_val: object = -1, max_val: object = 1) -> ndarray:
    if self.dtype.kind == "b":
        raise TorchScriptError("Bool inputs not supported for hardtanh")
    low, high = self.dtype.type(min_val), self.dtype.type(max_val)
    return as_tensor(np.minimum(np.maximum(self, low), high))


@with_inplace("aten::relu6", ("aten::relu6_",))
def relu6(self: ndarray) -> ndarray:
    return hardtanh(self, 0, 6)


@with_inplace("aten::threshold", ("aten::threshold_",))
def threshold(self: ndarray, threshold: object, value: object) -> ndarray:
    return as_tensor(np.where(self <= threshold, self.dtype.type(value), self))


# --------------------------------------------------------------------------------------
# Smooth activations (float tensors only)
# --------------------------------------------------------------------------------------


@with_inplace("aten::leaky_relu", ("aten::leaky_relu_",))
def leaky_relu(self: ndarray, negative_slope: object = 0.01) -> ndarray:
    x = floating(self, "leaky_relu_cpu")
    return as_tensor(np.where(x > 0, x, x * x.dtype.type(negative_slope)))


def _rrelu(x: ndarray, lower: object, upper: object, training: bool) -> tuple[ndarray, ndarray]:
    """(output, slopes): in training each non-positive element gets its own slope drawn
    uniformly from [lower, upper]; in evaluation the slope is their mean."""
    x = floating(x, "rrelu_with_noise_cpu")
    t = x.dtype.type
    if not training:
        return leaky_relu(x, (lower + upper) / 2), np.ones_like(x)
    slopes = (rng().random(x.shape) * (upper - lower) + lower).astype(x.dtype)
    slopes = np.where(x <= 0, slopes, t(1))
    return as_tensor(x * slopes), slopes


@with_inplace("aten::rrelu", ("aten::rrelu_",))
def rrelu(
    self: ndarray,
    lower: object = 0.125,
    upper: object = 1 / 3,
    training: bool = False,
    generator: object = None,
) -> ndarray:
    return _rrelu(self, lower, upper, training)[0]


@with_inplace("aten::rrelu_with_noise", ("aten::rrelu_with_noise_",))
def rrelu_with_noise(
    self: ndarray,
    noise: ndarray,
    lower: object = 0.125,
    upper: object = 1 / 3,
    training: bool = False,
    generator: object = None,
) -> ndarray:
    """rrelu that records the slopes it drew into `noise` (training only)."""
    out, slopes = _rrelu(self, lower, upper, training)
    if training:
        assign(noise, slopes.reshape(noise.shape))
    return out


def _elu(x: ndarray, alpha: object, scale: object, input_scale: object) -> ndarray:
    t = x.dtype.type
    negative = np.expm1(x * t(input_scale)) * t(alpha * scale)
    return as_tensor(np.where(x > 0, x * t(scale), negative))


@with_inplace("aten::elu", ("aten::elu_",))
def elu(self: ndarray, alpha: object = 1, scale: object = 1, input_scale: object = 1) -> ndarray:
    return _elu(floating(self, "elu_cpu"), alpha, scale, input_scale)


@with_inplace("aten::selu", ("aten::selu_",))
def selu(self: ndarray) -> ndarray:
    return _elu(floating(self, "elu_cpu"), _SELU_ALPHA, _SELU_SCALE, 1)


@with_inplace("aten::celu", ("aten::celu_",))
def celu(self: ndarray, alpha: object = 1.0) -> ndarray:
    return _elu(floating(self, "elu_cpu"), alpha, 1, 1 / alpha)


@with_inplace("aten::gelu", ("aten::gelu_",))
def gelu(self: ndarray, approximate: str = "none") -> ndarray:
    x = floating(self, "GeluKernelImpl")
    if approximate == "none":
        x64 = x.astype(np.float64)
        return as_tensor((0.5 * x64 * (1.0 + erf(x64 * math.sqrt(0.5)))).astype(x.dtype))
    if approximate == "tanh":
        t = x.dtype.type
        inner = t(_SQRT_2_OVER_PI) * (x + t(0.044715) * x * x * x)
        return as_tensor(t(0.5) * x * (t(1) + np.tanh(inner)))
    raise TorchScriptError("approximate argument must be either none or tanh.")


@with_inplace("aten::silu", ("aten::silu_",))
def silu(self: ndarray) -> ndarray:
    x = floating(self, "silu_cpu")
    return as_tensor(x / (1 + np.exp(-x)))


def _softplus(x: ndarray, beta: object, threshold: object) -> ndarray:
    t = x.dtype.type
    scaled = x * t(beta)
    return np.where(scaled > threshold, x, np.log1p(np.exp(scaled)) / t(beta))


@kernel("aten::softplus")
def softplus(self: ndarray, beta: object = 1, threshold: object = 20) -> ndarray:
    return as_tensor(_softplus(floating(self, "softplus_cpu"), beta, threshold))


@with_inplace("aten::mish", ("aten::mish_",))
def mish(self: ndarray) -> ndarray:
    x = floating(self, "mish_cpu")
    return as_tensor(x * np.tanh(_softplus(x, 1, 20)))


@with_inplace("aten::hardsigmoid", ("aten::hardsigmoid_",))
def hardsigmoid(self: ndarray) -> ndarray:
    x = floating(self, "hardsigmoid_cpu")
    t = x.dtype.type
    return as_tensor(np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6))


@with_inplace("aten::hardswish", ("aten::hardswish_",))
def hardswish(self: ndarray) -> ndarray:
    x = floating(self, "hardswish_cpu")
    t = x.dtype.type
    return as_tensor(x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6))


@kernel("aten::log_sigmoid")
def log_sigmoid(self: ndarray) -> ndarray:
    x = floating(self, "log_sigmoid_cpu")
    return as_tensor(np.minimum(x, x.dtype.type(0)) - np.log1p(np.exp(-np.abs(x))))


@kernel("aten::softshrink")
def softshrink(self: ndarray, lambd: object = 0.5) -> ndarray:
    x = floating(self, "softshrink_cpu")
    t = x.dtype.type
    return as_tensor(np.where(x > lambd, x - t(lambd), np.where(x < -lambd, x + t(lambd), t(0))))


@kernel("aten::hardshrink")
def hardshrink(self: ndarray, lambd: object = 0.5) -> ndarray:
    x = floating(self, "hardshrink_cpu")
    return as_tensor(np.where((x >= -lambd) & (x <= lambd), x.dtype.type(0), x))


@kernel("aten::prelu")
def prelu(self: ndarray, weight: ndarray) -> ndarray:
    x = floating(self, "prelu_cpu")
    if weight.size != 1 and (x.ndim < 2 or weight.size != x.shape[1]):
        channels = x.shape[1] if x.ndim >= 2 else 1
        raise TorchScriptError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
            f"{weight.size} and channel size = {channels}."
        )
    w = weight.reshape((-1,) + (1,) * (x.ndim - 2)) if weight.size != 1 else weight.reshape(())
    return as_tensor(np.where(x > 0, x, w.astype(x.dtype) * x))


@kernel("aten::glu")
def glu(self: ndarray, dim: int = -1) -> ndarray:
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if size % 2:
        raise TorchScriptError(f"Halving dimension must be even, but dimension {d} is size {size}")
    a, b = np.split(floating(self, "glu_cpu"), 2, axis=d)
    return as_tensor(a / (1 + np.exp(-b)))
