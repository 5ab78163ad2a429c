"""`torch.nn.functional` as TorchScript source that tsjit ships.

These are the functions PyTorch writes in Python (scripting reaches them as
`prim::CallFunction`, an inliner then inlines them); the ones PyTorch binds straight to
an operator (`linear`, `conv2d`, `gelu`, ...) are in `ATEN_FUNCTIONS` and become one
`aten` op. Each body keeps the structure of PyTorch's so that scripted graphs match
after constant propagation. This file is compiled by tsjit's frontend and is also
importable Python (the shim's `torch.nn.functional`).
"""

from __future__ import annotations

import warnings

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim._builtins import BroadcastingList2, TorchBuiltin

ATEN_FUNCTIONS: dict[str, str] = {
    "linear": "aten::linear", "bilinear": "aten::bilinear", "conv1d": "aten::conv1d", "conv2d": "aten::conv2d",
    "conv3d": "aten::conv3d", "conv_transpose1d": "aten::conv_transpose1d",
    "conv_transpose2d": "aten::conv_transpose2d", "gelu": "aten::gelu", "softplus": "aten::softplus",
    "logsigmoid": "aten::log_sigmoid", "hardswish": "aten::hardswish", "avg_pool1d": "aten::avg_pool1d",
    "avg_pool2d": "aten::avg_pool2d", "avg_pool3d": "aten::avg_pool3d",
    "adaptive_avg_pool1d": "aten::adaptive_avg_pool1d", "adaptive_avg_pool2d": "aten::adaptive_avg_pool2d",
    "pixel_shuffle": "aten::pixel_shuffle", "one_hot": "aten::one_hot", "pdist": "aten::pdist",
    "cosine_similarity": "aten::cosine_similarity", "pairwise_distance": "aten::pairwise_distance",
    "softsign": "aten::softsign", "tanhshrink": "aten::tanhshrink", "hardshrink": "aten::hardshrink",
}  # fmt: skip
"""F.* functions that are operators in PyTorch (`F.linear is torch._C._nn.linear`)."""


def __getattr__(name: str) -> TorchBuiltin:
    if name in ATEN_FUNCTIONS:
        return TorchBuiltin(ATEN_FUNCTIONS[name], f"torch.nn.functional.{name}")
    raise AttributeError(f"module 'torch.nn.functional' has no attribute '{name}'")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.relu_(input)
    else:
        result = torch.relu(input)
    return result


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.hardtanh_(input, min_val, max_val)
    else:
        result = torch._C._nn.hardtanh(input, min_val, max_val)
    return result


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.leaky_relu_(input, negative_slope)
    else:
        result = torch._C._nn.leaky_relu(input, negative_slope)
    return result


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.elu_(input, alpha)
    else:
        result = torch._C._nn.elu(input, alpha)
    return result


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.silu_(input)
    return torch._C._nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.mish_(input)
    return torch._C._nn.mish(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.hardsigmoid_(input)
    return torch._C._nn.hardsigmoid(input)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    if ndim == 0 or ndim == 1 or ndim == 3:
        ret = 0
    else:
        ret = 1
    return ret


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: int | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        ret = input.softmax(dim)
    else:
        ret = input.softmax(dim, dtype=dtype)
    return ret


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: int | None = None
) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        ret = input.log_softmax(dim)
    else:
        ret = input.log_softmax(dim, dtype=dtype)
    return ret


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        result = torch.dropout_(input, p, training)
    else:
        result = torch.dropout(input, p, training)
    return result


def layer_norm(
    input: Tensor,
    normalized_shape: list[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    return torch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    return torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        input = input.contiguous()
        torch.embedding_renorm_(weight, input, max_norm, norm_type)
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def max_pool2d(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    stride: BroadcastingList2[int] | None = None,
    padding: BroadcastingList2[int] = 0,
    dilation: BroadcastingList2[int] = 1,
    ceil_mode: bool = False,
) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    else:
        denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
        return torch.div(input, denom, out=out)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return torch.flatten(input, start_dim, end_dim)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    if size_average is not None or reduce is not None:  # PyTorch's _Reduction.legacy_get_string
        if size_average is None:
            size_average = True
        if reduce is None:
            reduce = True
        if size_average and reduce:
            reduction = "mean"
        elif reduce:
            reduction = "sum"
        else:
            reduction = "none"
    diff = (input - target) * (input - target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        diff = diff * weight
        if reduction == "none":
            return diff
        elif reduction == "sum":
            return torch.sum(diff)
        elif reduction == "mean":
            return torch.sum(diff) / torch.sum(weight)
        else:
            raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    if reduction == "none":
        return diff
    if reduction == "sum":
        return diff.sum()
    return diff.mean()
