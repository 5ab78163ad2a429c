"""Identity, linear and bilinear layers (`torch.nn.modules.linear`)."""

from __future__ import annotations

import math

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter


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
        if bias:
            self.bias = Parameter(torch.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            init.uniform_(self.bias, -init.fan_in_bound(self.weight), init.fan_in_bound(self.weight))

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of `MultiheadAttention` (a `Linear` quantization leaves alone)."""


class Bilinear(Module):
    __constants__ = ("in1_features", "in2_features", "out_features")
    in1_features: int
    in2_features: int
    out_features: int
    weight: Tensor

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty(out_features, in1_features, in2_features, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)
