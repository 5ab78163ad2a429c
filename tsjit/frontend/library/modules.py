"""The common `torch.nn` layers, written for TorchScript: `__init__` is plain Python
that builds parameters (run by the shim, or replaced by a real torch module's state),
`forward` is TorchScript source that tsjit compiles. `TORCH_QUALNAMES` gives each layer
the class name PyTorch's graphs use (`__torch__.torch.nn.modules.linear.Linear`).

Names listed in a class's `__constants__` are compile-time constants of the scripted
module, as in PyTorch. The class annotations are PyTorch's (tuples written as lists):
they type the attributes when a layer's methods are compiled for its class rather than
for an instance (`tsjit.frontend.library_methods`), where constants are read from the
object and the object may lack them; the defaults of `__init__` stand in for missing
constants, which is why sizes default to normalized tuples such as `stride=(1, 1)`.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

TORCH_QUALNAMES: dict[str, str] = {
    "Identity": "torch.nn.modules.linear.Identity", "Linear": "torch.nn.modules.linear.Linear",
    "ReLU": "torch.nn.modules.activation.ReLU", "LeakyReLU": "torch.nn.modules.activation.LeakyReLU",
    "ELU": "torch.nn.modules.activation.ELU", "GELU": "torch.nn.modules.activation.GELU",
    "SiLU": "torch.nn.modules.activation.SiLU", "Sigmoid": "torch.nn.modules.activation.Sigmoid",
    "Tanh": "torch.nn.modules.activation.Tanh", "Softmax": "torch.nn.modules.activation.Softmax",
    "LogSoftmax": "torch.nn.modules.activation.LogSoftmax", "Dropout": "torch.nn.modules.dropout.Dropout",
    "LayerNorm": "torch.nn.modules.normalization.LayerNorm", "Embedding": "torch.nn.modules.sparse.Embedding",
    "Conv1d": "torch.nn.modules.conv.Conv1d", "Conv2d": "torch.nn.modules.conv.Conv2d",
    "MaxPool2d": "torch.nn.modules.pooling.MaxPool2d", "AvgPool2d": "torch.nn.modules.pooling.AvgPool2d",
    "AdaptiveAvgPool2d": "torch.nn.modules.pooling.AdaptiveAvgPool2d",
    "BatchNorm1d": "torch.nn.modules.batchnorm.BatchNorm1d", "BatchNorm2d": "torch.nn.modules.batchnorm.BatchNorm2d",
    "Flatten": "torch.nn.modules.flatten.Flatten", "Sequential": "torch.nn.modules.container.Sequential",
    "ModuleList": "torch.nn.modules.container.ModuleList",
}  # fmt: skip


def _pair(value: object) -> tuple[int, int]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)  # pyright: ignore[reportReturnType]


def _single(value: object) -> tuple[int]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)  # pyright: ignore[reportReturnType]


class Identity(Module):
    def __init__(self, *args: object, **kwargs: object):
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    __constants__ = ("in_features", "out_features")
    in_features: int
    out_features: int
    weight: Tensor

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty(out_features, in_features, dtype=dtype))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if bias:
            self.bias = Parameter(torch.empty(out_features, dtype=dtype))
            bound = init.fan_in_bound(self.weight)
            init.uniform_(self.bias, -bound, bound)
        else:
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)


class ReLU(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class LeakyReLU(Module):
    __constants__ = ("inplace", "negative_slope")
    inplace: bool
    negative_slope: float

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class ELU(Module):
    __constants__ = ("alpha", "inplace")
    alpha: float
    inplace: bool

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class GELU(Module):
    __constants__ = ("approximate",)
    approximate: str

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)


class SiLU(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return torch.sigmoid(input)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return torch.tanh(input)


class Softmax(Module):
    __constants__ = ("dim",)
    dim: int | None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(Module):
    __constants__ = ("dim",)
    dim: int | None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Dropout(Module):
    __constants__ = ("p", "inplace")
    p: float
    inplace: bool

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)


class LayerNorm(Module):
    __constants__ = ("normalized_shape", "eps", "elementwise_affine")
    normalized_shape: list[int]
    eps: float
    elementwise_affine: bool

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.normalized_shape = tuple(_single(normalized_shape))
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(torch.ones(*self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.zeros(*self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class Embedding(Module):
    __constants__ = ("num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse")  # fmt: skip
    num_embeddings: int
    embedding_dim: int
    padding_idx: int | None
    max_norm: float | None
    norm_type: float
    scale_grad_by_freq: bool
    weight: Tensor
    sparse: bool

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight=None, _freeze: bool = False, device=None, dtype=None):  # fmt: skip
        super().__init__()
        if padding_idx is not None and padding_idx < 0:
            padding_idx = num_embeddings + padding_idx
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(torch.empty(num_embeddings, embedding_dim, dtype=dtype))
            init.normal_(self.weight)
            if padding_idx is not None:
                self.weight.array[padding_idx] = 0
        else:
            self.weight = Parameter(_weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)  # fmt: skip


class _ConvNd(Module):
    __constants__ = ("stride", "padding", "dilation", "groups", "padding_mode", "in_channels", "out_channels",
                     "kernel_size")  # fmt: skip
    in_channels: int
    out_channels: int
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]
    groups: int
    padding_mode: str
    weight: Tensor
    bias: Tensor | None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple, padding,
                 dilation: tuple, groups: int, bias: bool, padding_mode: str, dtype=None):  # fmt: skip
        super().__init__()
        if in_channels % groups != 0 or out_channels % groups != 0:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise ValueError(f"padding_mode '{padding_mode}' is not supported by tsjit (only 'zeros')")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.groups = groups
        self.padding_mode = padding_mode
        self.weight = Parameter(torch.empty(out_channels, in_channels // groups, *kernel_size, dtype=dtype))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, dtype=dtype))
            bound = init.fan_in_bound(self.weight)
            init.uniform_(self.bias, -bound, bound)
        else:
            self.register_parameter("bias", None)


class Conv1d(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1,), padding=(0,), dilation=(1,),
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):  # fmt: skip
        padding = padding if isinstance(padding, str) else _single(padding)
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), padding,
                         _single(dilation), groups, bias, padding_mode, dtype)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None,
                 dtype=None):  # fmt: skip
        padding = padding if isinstance(padding, str) else _pair(padding)
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), padding, _pair(dilation),
                         groups, bias, padding_mode, dtype)  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class MaxPool2d(Module):
    __constants__ = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]
    ceil_mode: bool

    def __init__(self, kernel_size, stride=None, padding=(0, 0), dilation=(1, 1), return_indices: bool = False,
                 ceil_mode: bool = False):  # fmt: skip
        super().__init__()
        if return_indices:
            raise ValueError("MaxPool2d(return_indices=True) is not supported by tsjit")
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class AvgPool2d(Module):
    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None

    def __init__(self, kernel_size, stride=None, padding=(0, 0), ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None):  # fmt: skip
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip


class AdaptiveAvgPool2d(Module):
    __constants__ = ("output_size",)
    output_size: list[int]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _pair(output_size)

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class _BatchNorm(Module):
    __constants__ = ("track_running_stats", "momentum", "eps", "num_features", "affine")
    num_features: int
    eps: float
    momentum: float
    affine: bool
    track_running_stats: bool

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(torch.ones(num_features, dtype=dtype))
            self.bias = Parameter(torch.zeros(num_features, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input: Tensor) -> Tensor:
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, bn_training,
                            self.momentum, self.eps)  # fmt: skip


class BatchNorm1d(_BatchNorm):
    pass


class BatchNorm2d(_BatchNorm):
    pass


class Flatten(Module):
    __constants__ = ("start_dim", "end_dim")
    start_dim: int
    end_dim: int

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)


class Sequential(Module):
    """Runs its submodules in order; scripting unrolls the loop over them."""

    def __init__(self, *args: Module):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules; scripting unrolls loops over it."""

    def __init__(self, modules: list[Module] | None = None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index: int) -> Module:
        return list(self._modules.values())[index]

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        for module in modules:
            self.append(module)
        return self


LAYERS: tuple[type[Module], ...] = (
    Identity, Linear, ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softmax, LogSoftmax, Dropout, LayerNorm,
    Embedding, Conv1d, Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, BatchNorm1d, BatchNorm2d, Flatten,
    Sequential, ModuleList,
)  # fmt: skip
