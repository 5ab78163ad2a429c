"""`torch.nn.functional` as TorchScript source that tsjit ships.

These are the functions PyTorch writes in Python (scripting reaches them as
`prim::CallFunction`, an inliner then inlines them); the ones PyTorch binds straight to
an operator (`linear`, `conv2d`, `gelu`, ...) are in `ATEN_FUNCTIONS` and become one
`aten` op. Each body follows PyTorch's `torch/nn/functional.py` (signatures, defaults,
checks and messages) so that scripted graphs and errors match; what only eager PyTorch
needs (`__torch_function__` overrides, CUDA and tracing paths) is left out. Functions
with a `return_indices` flag are `boolean_dispatch`es, `interpolate` and friends are
`_overload`ed, as in PyTorch. This file is compiled by tsjit's frontend and is also
importable Python (the shim's `torch.nn.functional`).
"""

from __future__ import annotations

import math
import warnings
from typing import Callable  # noqa: UP035 - the annotation scripted code reads

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library.utils import _list_with_default, _pair, _single, _triple
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim._builtins import (
    BroadcastingList1,
    BroadcastingList2,
    BroadcastingList3,
    TorchBuiltin,
    boolean_dispatch,
)
from tsjit.frontend.torch_shim._builtins import overload as _overload

ATEN_FUNCTIONS: dict[str, str] = {
    "linear": "aten::linear", "bilinear": "aten::bilinear", "conv1d": "aten::conv1d", "conv2d": "aten::conv2d",
    "conv3d": "aten::conv3d", "conv_tbc": "aten::conv_tbc", "conv_transpose1d": "aten::conv_transpose1d",
    "conv_transpose2d": "aten::conv_transpose2d", "conv_transpose3d": "aten::conv_transpose3d",
    "avg_pool1d": "aten::avg_pool1d", "avg_pool2d": "aten::avg_pool2d", "avg_pool3d": "aten::avg_pool3d",
    "adaptive_avg_pool1d": "aten::adaptive_avg_pool1d", "gelu": "aten::gelu", "softplus": "aten::softplus",
    "softshrink": "aten::softshrink", "hardshrink": "aten::hardshrink", "logsigmoid": "aten::log_sigmoid",
    "prelu": "aten::prelu", "relu_": "aten::relu_", "elu_": "aten::elu_", "selu_": "aten::selu_",
    "celu_": "aten::celu_", "leaky_relu_": "aten::leaky_relu_", "hardtanh_": "aten::hardtanh_",
    "rrelu_": "aten::rrelu_", "threshold_": "aten::threshold_", "pixel_shuffle": "aten::pixel_shuffle",
    "pixel_unshuffle": "aten::pixel_unshuffle", "channel_shuffle": "aten::channel_shuffle",
    "native_channel_shuffle": "aten::native_channel_shuffle", "one_hot": "aten::one_hot", "pdist": "aten::pdist",
    "cosine_similarity": "aten::cosine_similarity", "pairwise_distance": "aten::pairwise_distance",
    "scaled_dot_product_attention": "aten::scaled_dot_product_attention",
}  # fmt: skip
"""F.* functions that are operators in PyTorch (`F.linear is torch._C._nn.linear`)."""


def __getattr__(name: str) -> TorchBuiltin:
    if name in ATEN_FUNCTIONS:
        return TorchBuiltin(ATEN_FUNCTIONS[name], f"torch.nn.functional.{name}")
    raise AttributeError(f"module 'torch.nn.functional' has no attribute '{name}'")


# --------------------------------------------------------------------------------------
# Reductions (torch.nn._reduction)
# --------------------------------------------------------------------------------------


def _reduction_enum(reduction: str) -> int:
    """`_Reduction.get_enum`: the loss kernels' reduction code."""
    if reduction == "none":
        ret = 0
    elif reduction == "mean":
        ret = 1
    elif reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.")
        ret = 1
    elif reduction == "sum":
        ret = 2
    else:
        ret = -1
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return ret


def _legacy_reduction(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> str:
    """`_Reduction.legacy_get_string`: the reduction the deprecated flags stand for."""
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret))
    return ret


def _legacy_reduction_enum(size_average: bool | None, reduce: bool | None, emit_warning: bool = True) -> int:
    return _reduction_enum(_legacy_reduction(size_average, reduce, emit_warning))


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    output_size: BroadcastingList2[int] | None = None,
    output_ratio: BroadcastingList2[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool2d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        assert output_ratio is not None
        if len(output_ratio) > 2:
            raise ValueError(
                "fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints."
            )
        _output_ratio = _pair(output_ratio)
        output_size = [int(input.size(-2) * _output_ratio[0]), int(input.size(-1) * _output_ratio[1])]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 3 else input.size(0)
        _random_samples = torch.rand(n_batch, input.size(-3), 2, dtype=input.dtype, device=input.device)
    return torch._C._nn.fractional_max_pool2d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool2d(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    output_size: BroadcastingList2[int] | None = None,
    output_ratio: BroadcastingList2[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Tensor:
    return fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


fractional_max_pool2d = boolean_dispatch(
    arg_name="return_indices", arg_index=4, default=False, if_true=fractional_max_pool2d_with_indices,
    if_false=_fractional_max_pool2d, module_name=__name__, func_name="fractional_max_pool2d",
)  # fmt: skip


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: BroadcastingList3[int],
    output_size: BroadcastingList3[int] | None = None,
    output_ratio: BroadcastingList3[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    if output_size is None and output_ratio is None:
        raise ValueError("fractional_max_pool3d requires specifying either an output_size or an output_ratio")
    if output_size is None:
        assert output_ratio is not None
        _output_ratio = _triple(output_ratio)
        output_size = [
            int(input.size(-3) * _output_ratio[0]),
            int(input.size(-2) * _output_ratio[1]),
            int(input.size(-1) * _output_ratio[2]),
        ]
    if _random_samples is None:
        n_batch = 1 if input.dim() == 4 else input.size(0)
        _random_samples = torch.rand(n_batch, input.size(-4), 3, dtype=input.dtype, device=input.device)
    return torch._C._nn.fractional_max_pool3d(input, kernel_size, output_size, _random_samples)


def _fractional_max_pool3d(
    input: Tensor,
    kernel_size: BroadcastingList3[int],
    output_size: BroadcastingList3[int] | None = None,
    output_ratio: BroadcastingList3[float] | None = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Tensor:
    return fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )[0]


fractional_max_pool3d = boolean_dispatch(
    arg_name="return_indices", arg_index=4, default=False, if_true=fractional_max_pool3d_with_indices,
    if_false=_fractional_max_pool3d, module_name=__name__, func_name="fractional_max_pool3d",
)  # fmt: skip


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: BroadcastingList1[int],
    stride: BroadcastingList1[int] | None = None,
    padding: BroadcastingList1[int] = 0,
    dilation: BroadcastingList1[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool1d(
    input: Tensor,
    kernel_size: BroadcastingList1[int],
    stride: BroadcastingList1[int] | None = None,
    padding: BroadcastingList1[int] = 0,
    dilation: BroadcastingList1[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool1d = boolean_dispatch(
    arg_name="return_indices", arg_index=6, default=False, if_true=max_pool1d_with_indices, if_false=_max_pool1d,
    module_name=__name__, func_name="max_pool1d",
)  # fmt: skip


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    stride: BroadcastingList2[int] | None = None,
    padding: BroadcastingList2[int] = 0,
    dilation: BroadcastingList2[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch._C._nn.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool2d(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    stride: BroadcastingList2[int] | None = None,
    padding: BroadcastingList2[int] = 0,
    dilation: BroadcastingList2[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool2d = boolean_dispatch(
    arg_name="return_indices", arg_index=6, default=False, if_true=max_pool2d_with_indices, if_false=_max_pool2d,
    module_name=__name__, func_name="max_pool2d",
)  # fmt: skip


def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: BroadcastingList3[int],
    stride: BroadcastingList3[int] | None = None,
    padding: BroadcastingList3[int] = 0,
    dilation: BroadcastingList3[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> tuple[Tensor, Tensor]:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch._C._nn.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_pool3d(
    input: Tensor,
    kernel_size: BroadcastingList3[int],
    stride: BroadcastingList3[int] | None = None,
    padding: BroadcastingList3[int] = 0,
    dilation: BroadcastingList3[int] = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    if stride is None:
        stride = torch.jit.annotate(list[int], [])
    return torch.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


max_pool3d = boolean_dispatch(
    arg_name="return_indices", arg_index=6, default=False, if_true=max_pool3d_with_indices, if_false=_max_pool3d,
    module_name=__name__, func_name="max_pool3d",
)  # fmt: skip


def _unpool_output_size(
    input: Tensor,
    kernel_size: list[int],
    stride: list[int],
    padding: list[int],
    output_size: list[int] | None,
) -> list[int]:
    input_size = input.size()
    default_size = torch.jit.annotate(list[int], [])
    for d in range(len(kernel_size)):
        default_size.append(
            (input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        )
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(
                "output_size should be a sequence containing "
                f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length of '{len(output_size)}'"
            )
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] and output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {min_size} and {max_size})'
                )
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial "
                f"dimensions, but got output_size[{d}]={ret[d]}"
            )
    return ret


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: BroadcastingList1[int],
    stride: BroadcastingList1[int] | None = None,
    padding: BroadcastingList1[int] = 0,
    output_size: BroadcastingList1[int] | None = None,
) -> Tensor:
    kernel_size = _single(kernel_size)
    if stride is not None:
        _stride = _single(stride)
    else:
        _stride = kernel_size
    padding = _single(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    output_size = output_size + [1]
    return torch._C._nn.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: BroadcastingList2[int],
    stride: BroadcastingList2[int] | None = None,
    padding: BroadcastingList2[int] = 0,
    output_size: BroadcastingList2[int] | None = None,
) -> Tensor:
    kernel_size = _pair(kernel_size)
    if stride is not None:
        _stride = _pair(stride)
    else:
        _stride = kernel_size
    padding = _pair(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch._C._nn.max_unpool2d(input, indices, output_size)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: BroadcastingList3[int],
    stride: BroadcastingList3[int] | None = None,
    padding: BroadcastingList3[int] = 0,
    output_size: BroadcastingList3[int] | None = None,
) -> Tensor:
    kernel_size = _triple(kernel_size)
    if stride is not None:
        _stride = _triple(stride)
    else:
        _stride = kernel_size
    padding = _triple(padding)
    output_size = _unpool_output_size(input, kernel_size, _stride, padding, output_size)
    return torch._C._nn.max_unpool3d(input, indices, output_size, _stride, padding)


def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: BroadcastingList3[int],
    stride: BroadcastingList3[int] | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    kd, kw, kh = _triple(kernel_size)
    if norm_type == float("inf"):
        return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = torch._C._nn.avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch._C._nn.avg_pool3d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * relu(torch.abs(out))).mul(kd * kw * kh).pow(1.0 / norm_type)


def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: BroadcastingList2[int],
    stride: BroadcastingList2[int] | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    kw, kh = _pair(kernel_size)
    if norm_type == float("inf"):
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = torch._C._nn.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch._C._nn.avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * relu(torch.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: int,
    stride: BroadcastingList1[int] | None = None,
    ceil_mode: bool = False,
) -> Tensor:
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = torch.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = torch.avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (torch.sign(out) * relu(torch.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: BroadcastingList1[int], return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    return torch.adaptive_max_pool1d(input, output_size)


def _adaptive_max_pool1d(
    input: Tensor, output_size: BroadcastingList1[int], return_indices: bool = False
) -> Tensor:
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


adaptive_max_pool1d = boolean_dispatch(
    arg_name="return_indices", arg_index=2, default=False, if_true=adaptive_max_pool1d_with_indices,
    if_false=_adaptive_max_pool1d, module_name=__name__, func_name="adaptive_max_pool1d",
)  # fmt: skip


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: BroadcastingList2[int], return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    output_size = _list_with_default(output_size, input.size())
    return torch._C._nn.adaptive_max_pool2d(input, output_size)


def _adaptive_max_pool2d(
    input: Tensor, output_size: BroadcastingList2[int], return_indices: bool = False
) -> Tensor:
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


adaptive_max_pool2d = boolean_dispatch(
    arg_name="return_indices", arg_index=2, default=False, if_true=adaptive_max_pool2d_with_indices,
    if_false=_adaptive_max_pool2d, module_name=__name__, func_name="adaptive_max_pool2d",
)  # fmt: skip


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: BroadcastingList3[int], return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    output_size = _list_with_default(output_size, input.size())
    return torch._C._nn.adaptive_max_pool3d(input, output_size)


def _adaptive_max_pool3d(
    input: Tensor, output_size: BroadcastingList3[int], return_indices: bool = False
) -> Tensor:
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


adaptive_max_pool3d = boolean_dispatch(
    arg_name="return_indices", arg_index=2, default=False, if_true=adaptive_max_pool3d_with_indices,
    if_false=_adaptive_max_pool3d, module_name=__name__, func_name="adaptive_max_pool3d",
)  # fmt: skip


def adaptive_avg_pool2d(input: Tensor, output_size: BroadcastingList2[int]) -> Tensor:
    _output_size = _list_with_default(output_size, input.size())
    return torch._C._nn.adaptive_avg_pool2d(input, _output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: BroadcastingList3[int]) -> Tensor:
    _output_size = _list_with_default(output_size, input.size())
    return torch._C._nn.adaptive_avg_pool3d(input, _output_size)


# --------------------------------------------------------------------------------------
# Dropout
# --------------------------------------------------------------------------------------


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return torch.dropout_(input, p, training) if inplace else torch.dropout(input, p, training)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return torch.alpha_dropout_(input, p, training) if inplace else torch.alpha_dropout(input, p, training)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = (
        torch.feature_dropout_(input, p, training) if inplace else torch.feature_dropout(input, p, training)
    )
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warn_msg = (
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."
        )
        warnings.warn(warn_msg)
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead."
        )
    result = (
        torch.feature_dropout_(input, p, training) if inplace else torch.feature_dropout(input, p, training)
    )
    return result


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warn_msg = (
            f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs)."
        )
        warnings.warn(warn_msg)
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = (
        torch.feature_dropout_(input, p, training) if inplace else torch.feature_dropout(input, p, training)
    )
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        return torch.feature_alpha_dropout_(input, p, training)
    return torch.feature_alpha_dropout(input, p, training)


# --------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.threshold_(input, threshold, value)
    else:
        result = torch.threshold(input, threshold, value)
    return result


threshold = _threshold


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.relu_(input)
    else:
        result = torch.relu(input)
    return result


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return torch._C._nn.glu(input, dim)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        result = torch._C._nn.hardtanh_(input, min_val, max_val)
    else:
        result = torch._C._nn.hardtanh(input, min_val, max_val)
    return result


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.relu6_(input)
    else:
        result = torch._C._nn.relu6(input)
    return result


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.elu_(input, alpha)
    else:
        result = torch._C._nn.elu(input, alpha)
    return result


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.selu_(input)
    else:
        result = torch.selu(input)
    return result


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch.celu_(input, alpha)
    else:
        result = torch.celu(input, alpha)
    return result


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    if inplace:
        result = torch._C._nn.leaky_relu_(input, negative_slope)
    else:
        result = torch._C._nn.leaky_relu(input, negative_slope)
    return result


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    if inplace:
        result = torch.rrelu_(input, lower, upper, training)
    else:
        result = torch.rrelu(input, lower, upper, training)
    return result


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.hardsigmoid_(input)
    return torch._C._nn.hardsigmoid(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.silu_(input)
    return torch._C._nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.mish_(input)
    return torch._C._nn.mish(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    if inplace:
        return torch._C._nn.hardswish_(input)
    return torch._C._nn.hardswish(input)


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


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: int | None = None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        ret = (-input).softmax(dim)
    else:
        ret = (-input).softmax(dim, dtype=dtype)
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


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -torch.empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = torch.zeros_like(logits).scatter_(dim, index, 1.0)
        ret = y_hard - y_soft.detach() + y_soft
    else:
        ret = y_soft
    return ret


# --------------------------------------------------------------------------------------
# Embeddings
# --------------------------------------------------------------------------------------


def _no_grad_embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> Tensor:
    return torch.embedding_renorm_(weight.detach(), input, max_norm, norm_type)


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
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    if weight.dtype == torch.long and input.is_floating_point():
        warnings.warn(
            "Argument order of nn.functional.embedding_bag was changed. "
            "Usage `embedding_bag(weight, input, ...)` is deprecated, "
            "and should now be `embedding_bag(input, weight, ...)`."
        )
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if not weight.dim() == 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None"
                ", as input is treated is a mini-batch of"
                " fixed length sequences. However, found "
                "offsets of type <unknown>"
            )
        offsets = torch.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "sum":
        mode_enum = 0
    elif mode == "mean":
        mode_enum = 1
    elif mode == "max":
        mode_enum = 2
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    else:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. "
            "per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    ret, _, _, _ = torch.embedding_bag(
        weight, input, offsets, scale_grad_by_freq, mode_enum, sparse, per_sample_weights, include_last_offset,
        padding_idx,
    )  # fmt: skip
    return ret


# --------------------------------------------------------------------------------------
# Normalization
# --------------------------------------------------------------------------------------


def _verify_batch_size(size: list[int]) -> None:
    size_prods = size[0]
    for i in range(len(size) - 2):
        size_prods *= size[i + 2]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


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
    if training:
        _verify_batch_size(input.size())
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def _verify_spatial_size(size: list[int]) -> None:
    size_prods = 1
    for i in range(2, len(size)):
        size_prods *= size[i]
    if size_prods == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    if use_input_stats:
        _verify_spatial_size(input.size())
    return torch.instance_norm(
        input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False
    )


def layer_norm(
    input: Tensor,
    normalized_shape: list[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    return torch.layer_norm(input, normalized_shape, weight, bias, eps, False)


def rms_norm(
    input: Tensor, normalized_shape: list[int], weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    return torch.rms_norm(input, normalized_shape, weight, eps)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return torch.group_norm(input, num_groups, weight, bias, eps, False)


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    dim = input.dim()
    if dim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)"
        )
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = torch._C._nn.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = torch._C._nn.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    else:
        denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
        return torch.div(input, denom, out=out)


# --------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor,
    target_lengths: Tensor,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    return torch.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction_enum(reduction), zero_infinity
    )


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return torch._C._nn.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        ret = input
        raise ValueError(reduction + " is not a valid value for reduction")
    ret = torch.poisson_nll_loss(input, target, log_input, full, eps, _reduction_enum(reduction))
    return ret


def gaussian_nll_loss(
    input: Tensor, target: Tensor, var: Tensor, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
) -> Tensor:
    """PyTorch's F.gaussian_nll_loss (whose check of `var`'s shape TorchScript cannot
    compile there: a comprehension with a condition), with `var` a tensor."""
    if bool(torch.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = torch.unsqueeze(var, -1)
        else:
            differing = 0
            if input.dim() == var.dim():
                for i in range(input.dim()):
                    if input.size(i) != var.size(i):
                        differing += var.size(i)
            if differing != 1:
                raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with torch.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    elif reduction == "sum":
        return loss.sum()
    else:
        return loss


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release."
            )
        if reduction == "batchmean":
            reduction_enum = _reduction_enum("sum")
        else:
            reduction_enum = _reduction_enum(reduction)
    reduced = torch.kl_div(input, target, reduction_enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return torch._C._nn.cross_entropy_loss(
        input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing
    )


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    if target.size() != input.size():
        raise ValueError(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}) is "
            "deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        new_size = torch.broadcast_shapes(target.size(), weight.size())
        weight = weight.expand(new_size)
    return torch._C._nn.binary_cross_entropy(input, target, weight, reduction_enum)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    if not (target.size() == input.size()):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return torch.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction_enum)


def _size_warning(input: Tensor, target: Tensor) -> None:
    if target.size() != input.size():
        warnings.warn(
            f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size."
        )


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if beta == 0.0:
        return torch._C._nn.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))
    else:
        return torch._C._nn.smooth_l1_loss(expanded_input, expanded_target, _reduction_enum(reduction), beta)


def _weighted_reduction(loss: Tensor, reduction: str, total: Tensor | None) -> Tensor:
    """none / sum / mean of a weighted loss; the mean divides by `total` when given."""
    if reduction == "none":
        return loss
    elif reduction == "sum":
        return torch.sum(loss)
    elif reduction == "mean":
        if total is None:
            return loss.mean()
        return torch.sum(loss) / total
    else:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None
) -> Tensor:
    _size_warning(input, target)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is None:
        return torch._C._nn.huber_loss(expanded_input, expanded_target, _reduction_enum(reduction), delta)
    else:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        unweighted_loss = torch._C._nn.huber_loss(
            expanded_input, expanded_target, _reduction_enum("none"), delta
        )
        return _weighted_reduction(unweighted_loss * weight, reduction, None)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        absolute_errors = torch.abs(expanded_input - expanded_target)
        return _weighted_reduction(absolute_errors * weight, reduction, torch.sum(weight))
    else:
        return torch._C._nn.l1_loss(expanded_input, expanded_target, _reduction_enum(reduction))


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    _size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    expanded_input, expanded_target = torch.broadcast_tensors(input, target)
    if weight is not None:
        if weight.size() != input.size():
            raise ValueError("Weights and input must have the same size.")
        squared_errors = torch.pow(expanded_input - expanded_target, 2)
        return _weighted_reduction(squared_errors * weight, reduction, torch.sum(weight))
    else:
        return torch._C._nn.mse_loss(expanded_input, expanded_target, _reduction_enum(reduction))


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return torch.margin_ranking_loss(input1, input2, target, margin, reduction_enum)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    return torch.hinge_embedding_loss(input, target, margin, reduction_enum)


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    return torch._C._nn.multilabel_margin_loss(input, target, reduction_enum)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    return torch._C._nn.soft_margin_loss(input, target, reduction_enum)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * torch._C._nn.log_sigmoid(input) + (1 - target) * torch._C._nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        ret = loss
    elif reduction == "mean":
        ret = loss.mean()
    elif reduction == "sum":
        ret = loss.sum()
    else:
        ret = input
        raise ValueError(reduction + " is not valid")
    return ret


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    return torch.cosine_embedding_loss(input1, input2, target, margin, reduction_enum)


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
    return torch._C._nn.multi_margin_loss(input, target, p, margin, weight, reduction_enum)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction_enum(size_average, reduce)
    else:
        reduction_enum = _reduction_enum(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return torch.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction_enum)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """Eager only: TorchScript cannot take the callable, as in PyTorch."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim and positive.ndim == negative.ndim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    if distance_function is None:
        distance_function = torch.pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = torch.minimum(dist_neg, distance_function(positive, negative))
    loss = torch.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return torch.sum(loss)
    elif reduction == "mean":
        return torch.mean(loss)
    return loss


# --------------------------------------------------------------------------------------
# Resampling
# --------------------------------------------------------------------------------------


@_overload
def upsample(
    input: Tensor,
    size: int | None = None,
    scale_factor: float | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    pass


@_overload
def upsample(  # noqa: F811
    input: Tensor,
    size: list[int] | None = None,
    scale_factor: float | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    pass


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: F811
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


@_overload
def interpolate(
    input: Tensor,
    size: int | None = None,
    scale_factor: list[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    pass


@_overload
def interpolate(  # noqa: F811
    input: Tensor,
    size: list[int] | None = None,
    scale_factor: list[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    pass


@_overload
def interpolate(  # noqa: F811
    input: Tensor,
    size: int | None = None,
    scale_factor: float | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    pass


@_overload
def interpolate(  # noqa: F811
    input: Tensor,
    size: list[int] | None = None,
    scale_factor: float | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    pass


def interpolate(  # noqa: F811
    input: Tensor,
    size: int | None = None,
    scale_factor: list[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    else:
        if align_corners is None:
            align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        assert scale_factor is None
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        assert size is None
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. Please "
                    "provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor is not None and recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor is not None and recompute_scale_factor:
        assert scale_factors is not None
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D tensor as input"
        )
    if input.dim() == 3 and mode == "nearest":
        return torch._C._nn.upsample_nearest1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest":
        return torch._C._nn.upsample_nearest2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest":
        return torch._C._nn.upsample_nearest3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "nearest-exact":
        return torch._C._nn._upsample_nearest_exact1d(input, output_size, scale_factors)
    if input.dim() == 4 and mode == "nearest-exact":
        return torch._C._nn._upsample_nearest_exact2d(input, output_size, scale_factors)
    if input.dim() == 5 and mode == "nearest-exact":
        return torch._C._nn._upsample_nearest_exact3d(input, output_size, scale_factors)
    if input.dim() == 3 and mode == "area":
        assert output_size is not None
        return torch.adaptive_avg_pool1d(input, output_size)
    if input.dim() == 4 and mode == "area":
        assert output_size is not None
        return adaptive_avg_pool2d(input, output_size)
    if input.dim() == 5 and mode == "area":
        assert output_size is not None
        return adaptive_avg_pool3d(input, output_size)
    if input.dim() == 3 and mode == "linear":
        assert align_corners is not None
        return torch._C._nn.upsample_linear1d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "bilinear":
        assert align_corners is not None
        if antialias:
            return torch._C._nn._upsample_bilinear2d_aa(input, output_size, align_corners, scale_factors)
        return torch._C._nn.upsample_bilinear2d(input, output_size, align_corners, scale_factors)
    if input.dim() == 5 and mode == "trilinear":
        assert align_corners is not None
        return torch._C._nn.upsample_trilinear3d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "bicubic":
        assert align_corners is not None
        if antialias:
            return torch._C._nn._upsample_bicubic2d_aa(input, output_size, align_corners, scale_factors)
        return torch._C._nn.upsample_bicubic2d(input, output_size, align_corners, scale_factors)
    if input.dim() == 4 and mode == "lanczos":
        assert align_corners is not None
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        return torch._C._nn._upsample_lanczos2d_aa(input, output_size, align_corners, scale_factors)
    if input.dim() == 3 and mode == "bilinear":
        raise NotImplementedError("Got 3D input, but bilinear mode needs 4D input")
    if input.dim() == 3 and mode == "trilinear":
        raise NotImplementedError("Got 3D input, but trilinear mode needs 5D input")
    if input.dim() == 4 and mode == "linear":
        raise NotImplementedError("Got 4D input, but linear mode needs 3D input")
    if input.dim() == 4 and mode == "trilinear":
        raise NotImplementedError("Got 4D input, but trilinear mode needs 5D input")
    if input.dim() == 5 and mode == "linear":
        raise NotImplementedError("Got 5D input, but linear mode needs 3D input")
    if input.dim() == 5 and mode == "bilinear":
        raise NotImplementedError("Got 5D input, but bilinear mode needs 4D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area "
        f"| nearest-exact (got {mode})"
    )


@_overload
def upsample_nearest(input: Tensor, size: int | None = None, scale_factor: float | None = None) -> Tensor:
    pass


@_overload
def upsample_nearest(  # noqa: F811
    input: Tensor, size: list[int] | None = None, scale_factor: float | None = None
) -> Tensor:
    pass


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: F811
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


@_overload
def upsample_bilinear(input: Tensor, size: int | None = None, scale_factor: float | None = None) -> Tensor:
    pass


@_overload
def upsample_bilinear(  # noqa: F811
    input: Tensor, size: list[int] | None = None, scale_factor: float | None = None
) -> Tensor:
    pass


@_overload
def upsample_bilinear(  # noqa: F811
    input: Tensor, size: int | None = None, scale_factor: list[float] | None = None
) -> Tensor:
    pass


@_overload
def upsample_bilinear(  # noqa: F811
    input: Tensor, size: list[int] | None = None, scale_factor: list[float] | None = None
) -> Tensor:
    pass


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: F811
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    if mode != "bilinear" and mode != "nearest" and mode != "bicubic":
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode != "zeros" and padding_mode != "border" and padding_mode != "reflection":
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode "
            "to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    if mode == "bilinear":
        mode_enum = 0
    elif mode == "nearest":
        mode_enum = 1
    else:
        mode_enum = 2
    if padding_mode == "zeros":
        padding_mode_enum = 0
    elif padding_mode == "border":
        padding_mode_enum = 1
    else:
        padding_mode_enum = 2
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed "
            "to align_corners=False since 1.3.0. Please specify "
            "align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details."
        )
        align_corners = False
    return torch.grid_sampler(input, grid, mode_enum, padding_mode_enum, align_corners)


def affine_grid(theta: Tensor, size: list[int], align_corners: bool | None = None) -> Tensor:
    if align_corners is None:
        warnings.warn(
            "Default grid_sample and affine_grid behavior has changed "
            "to align_corners=False since 1.3.0. Please specify "
            "align_corners=True if the old behavior is desired. "
            "See the documentation of grid_sample for details."
        )
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}."
            )
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if align_corners and min(spatial_size) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed "
            "for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. "
            "See the documentation of affine_grid for details."
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return torch.affine_grid_generator(theta, size, align_corners)


# --------------------------------------------------------------------------------------
# Padding, folding
# --------------------------------------------------------------------------------------


def pad(input: Tensor, pad: list[int], mode: str = "constant", value: float | None = None) -> Tensor:
    return torch._C._nn.pad(input, pad, mode, value)


def assert_int_or_pair(arg: list[int], arg_name: str, message: str) -> None:
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def unfold(
    input: Tensor,
    kernel_size: BroadcastingList2[int],
    dilation: BroadcastingList2[int] = 1,
    padding: BroadcastingList2[int] = 0,
    stride: BroadcastingList2[int] = 1,
) -> Tensor:
    return torch._C._nn.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(
    input: Tensor,
    output_size: BroadcastingList2[int],
    kernel_size: BroadcastingList2[int],
    dilation: BroadcastingList2[int] = 1,
    padding: BroadcastingList2[int] = 0,
    stride: BroadcastingList2[int] = 1,
) -> Tensor:
    return torch._C._nn.col2im(
        input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    )


# --------------------------------------------------------------------------------------
# Multi-head attention
# --------------------------------------------------------------------------------------


def _in_projection_packed(
    q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None
) -> list[Tensor]:
    E = q.size(-1)
    if k is v:
        if q is k:
            # self-attention
            proj = torch._C._nn.linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return [proj[0], proj[1], proj[2]]
        else:
            # encoder-decoder attention
            w_q, w_kv = w.split([E, E * 2])
            if b is None:
                b_q = b_kv = None
            else:
                b_q, b_kv = b.split([E, E * 2])
            q_proj = torch._C._nn.linear(q, w_q, b_q)
            kv_proj = torch._C._nn.linear(k, w_kv, b_kv)
            kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return [q_proj, kv_proj[0], kv_proj[1]]
    else:
        w_q, w_k, w_v = w.chunk(3)
        if b is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = b.chunk(3)
        return [
            torch._C._nn.linear(q, w_q, b_q),
            torch._C._nn.linear(k, w_k, b_k),
            torch._C._nn.linear(v, w_v, b_v),
        ]


def _in_projection(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    w_q: Tensor,
    w_k: Tensor,
    w_v: Tensor,
    b_q: Tensor | None = None,
    b_k: Tensor | None = None,
    b_v: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    assert w_q.shape == [Eq, Eq], f"expecting query weights shape of {(Eq, Eq)}, but got {w_q.shape}"
    assert w_k.shape == [Eq, Ek], f"expecting key weights shape of {(Eq, Ek)}, but got {w_k.shape}"
    assert w_v.shape == [Eq, Ev], f"expecting value weights shape of {(Eq, Ev)}, but got {w_v.shape}"
    assert b_q is None or b_q.shape == [Eq], f"expecting query bias shape of {(Eq,)}"
    assert b_k is None or b_k.shape == [Eq], f"expecting key bias shape of {(Eq,)}"
    assert b_v is None or b_v.shape == [Eq], f"expecting value bias shape of {(Eq,)}"
    return (
        torch._C._nn.linear(q, w_q, b_q),
        torch._C._nn.linear(k, w_k, b_k),
        torch._C._nn.linear(v, w_v, b_v),
    )


def _mha_shape_check(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    if query.dim() == 3:
        is_batched = True
        assert key.dim() == 3 and value.dim() == 3, (
            "For batched (3-D) `query`, expected `key` and `value` to be 3-D"
            f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
        )
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 2, (
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), (
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
    elif query.dim() == 2:
        is_batched = False
        assert key.dim() == 2 and value.dim() == 2, (
            "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
            f" but found {key.dim()}-D and {value.dim()}-D tensors respectively"
        )
        if key_padding_mask is not None:
            assert key_padding_mask.dim() == 1, (
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                f" but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            assert attn_mask.dim() in (2, 3), (
                "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead"
            )
            if attn_mask.dim() == 3:
                expected_shape = [num_heads, query.shape[0], key.shape[0]]
                assert attn_mask.shape == expected_shape, (
                    f"Expected `attn_mask` shape to be {expected_shape} but got {attn_mask.shape}"
                )
    else:
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor"
        )
    return is_batched


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: int | None,
    other_name: str,
    target_type: int,
    check_other: bool = True,
) -> Tensor | None:
    if mask is not None:
        _mask_dtype = mask.dtype
        _mask_is_float = torch.is_floating_point(mask)
        if _mask_dtype != torch.bool and not _mask_is_float:
            raise AssertionError(f"only bool and floating types of {mask_name} are supported")
        if check_other and other_type is not None:
            if _mask_dtype != other_type:
                warnings.warn(
                    f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both instead."
                )
        if not _mask_is_float:
            mask = torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input: Tensor | None) -> int | None:
    if input is None:
        return None
    return input.dtype


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    # For unbatched input, we unsqueeze at the expected batch-dim to pretend that the input is batched, run the
    # computation and before returning squeeze the batch dimension so that the output doesn't carry this temporary
    # batch dimension.
    if not is_batched:
        query = query.unsqueeze(1)
        key = key.unsqueeze(1)
        value = value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len, _, _ = key.shape
    key_padding_mask = _canonical_mask(
        mask=key_padding_mask,
        mask_name="key_padding_mask",
        other_type=_none_or_dtype(attn_mask),
        other_name="attn_mask",
        target_type=query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. "
            "You may use the Transformer module method "
            "`generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # when we have a kpm or need weights, we need attn_mask; otherwise, we use the is_causal hint go as is_causal
        # indicator to SDPA.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(
            mask=attn_mask,
            mask_name="attn_mask",
            other_type=None,
            other_name="",
            target_type=query.dtype,
            check_other=False,
        )
        if key_padding_mask is not None:
            # We have the attn_mask, and use that to merge kpm into it. Turn off use of is_causal hint, as the merged
            # mask is no longer causal.
            is_causal = False
    assert embed_dim == embed_dim_to_check, (
        f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
    )
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
    if use_separate_proj_weight:
        # allow MHA to have different embedding dimensions when separate projection weights are used
        assert key.shape[:2] == value.shape[:2], (
            f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}"
        )
    else:
        assert key.shape == value.shape, f"key shape {key.shape} does not match value shape {value.shape}"
    # compute in-projection
    if not use_separate_proj_weight:
        assert in_proj_weight is not None, "use_separate_proj_weight is False but in_proj_weight is None"
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        assert q_proj_weight is not None, "use_separate_proj_weight is True but q_proj_weight is None"
        assert k_proj_weight is not None, "use_separate_proj_weight is True but k_proj_weight is None"
        assert v_proj_weight is not None, "use_separate_proj_weight is True but v_proj_weight is None"
        if in_proj_bias is None:
            b_q = b_k = b_v = None
        else:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v
        )
    # prep attention mask
    if attn_mask is not None:
        # ensure attn_mask's dim is 3
        if attn_mask.dim() == 2:
            correct_2d_size = [tgt_len, src_len]
            if attn_mask.shape != correct_2d_size:
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {correct_2d_size}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            correct_3d_size = [bsz * num_heads, tgt_len, src_len]
            if attn_mask.shape != correct_3d_size:
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {correct_3d_size}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    # add bias along batch dimension (currently second)
    if bias_k is not None and bias_v is not None:
        assert static_k is None, "bias cannot be added to static key."
        assert static_v is None, "bias cannot be added to static value."
        k = torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = torch.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    else:
        assert bias_k is None
        assert bias_v is None
    # reshape q, k, v for multihead attention and make them batch first
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_k.size(0) == bsz * num_heads, (
            f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}"
        )
        assert static_k.size(2) == head_dim, (
            f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}"
        )
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        assert static_v.size(0) == bsz * num_heads, (
            f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}"
        )
        assert static_v.size(2) == head_dim, (
            f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}"
        )
        v = static_v
    # add zero attention along batch dimension (now first)
    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = torch.cat([k, torch.zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = torch.cat([v, torch.zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    # update source sequence length after adjustments
    src_len = k.size(1)
    # merge key padding and attention masks
    if key_padding_mask is not None:
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        if attn_mask is None:
            attn_mask = key_padding_mask
        else:
            attn_mask = attn_mask + key_padding_mask
    # adjust dropout probability
    if not training:
        dropout_p = 0.0
    # (deep breath) calculate attention and out projection
    if need_weights:
        _B, _Nt, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        assert not (is_causal and attn_mask is None), "FIXME: is_causal not implemented for need_weights"
        if attn_mask is not None:
            attn_output_weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = softmax(attn_output_weights, dim=-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = torch.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = torch._C._nn.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        # optionally average attention weights over heads
        attn_output_weights = attn_output_weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            # squeeze the output if input was unbatched
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights
    else:
        # attn_mask can be either (L,S) or (N*num_heads, L, S); if attn_mask's shape is (1, L, S) we need to unsqueeze
        # to do broadcasting so that attn_mask can be either (L,S) or (N,num_heads,L,S)
        if attn_mask is not None:
            if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
                attn_mask = attn_mask.unsqueeze(0)
            else:
                attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
        q = q.view(bsz, num_heads, tgt_len, head_dim)
        k = k.view(bsz, num_heads, src_len, head_dim)
        v = v.view(bsz, num_heads, src_len, head_dim)
        attn_output = torch._C._nn.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
        attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
        attn_output = torch._C._nn.linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.view(tgt_len, bsz, attn_output.size(1))
        if not is_batched:
            # squeeze the output if input was unbatched
            attn_output = attn_output.squeeze(1)
        return attn_output, None
