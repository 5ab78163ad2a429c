"""Sliding blocks to columns and back (`torch.nn.modules.fold`)."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class Fold(Module):
    __constants__ = ("output_size", "kernel_size", "dilation", "padding", "stride")
    output_size: list[int]
    kernel_size: list[int]
    dilation: list[int]
    padding: list[int]
    stride: list[int]

    def __init__(self, output_size, kernel_size, dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Unfold(Module):
    __constants__ = ("kernel_size", "dilation", "padding", "stride")
    kernel_size: list[int]
    dilation: list[int]
    padding: list[int]
    stride: list[int]

    def __init__(self, kernel_size, dilation=(1, 1), padding=(0, 0), stride=(1, 1)):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)
