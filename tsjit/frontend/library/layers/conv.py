"""Convolution layers (`torch.nn.modules.conv`): direct and transposed, 1-3 spatial
dimensions; non-zero padding modes pad with `F.pad` first, as PyTorch does."""

from __future__ import annotations

import math

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.library.utils import _pair, _reverse_repeat_tuple, _single, _triple
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    __constants__ = ("stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size")  # fmt: skip
    in_channels: int
    _reversed_padding_repeated_twice: list[int]
    out_channels: int
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]
    transposed: bool
    output_padding: list[int]
    groups: int
    padding_mode: str
    weight: Tensor
    bias: Tensor | None

    def __init__(self, in_channels: int, out_channels: int, kernel_size: tuple, stride: tuple, padding, dilation: tuple,
                 transposed: bool, output_padding: tuple, groups: int, bias: bool, padding_mode: str, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = list(_reverse_repeat_tuple(self.padding, 2))
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        self.weight = Parameter(torch.empty(*shape, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = init.fan_in_bound(self.weight)
            init.uniform_(self.bias, -bound, bound)


class Conv1d(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1,), padding=(0,), dilation=(1,),
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):  # fmt: skip
        padding_ = padding if isinstance(padding, str) else _single(padding)
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), padding_,
                         _single(dilation), False, _single(0), groups, bias, padding_mode, device, dtype)  # fmt: skip

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, _single(0), self.dilation, self.groups)  # fmt: skip
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):  # fmt: skip
        padding_ = padding if isinstance(padding, str) else _pair(padding)
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), padding_, _pair(dilation),
                         False, _pair(0), groups, bias, padding_mode, device, dtype)  # fmt: skip

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, _pair(0), self.dilation, self.groups)  # fmt: skip
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv3d(_ConvNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1),
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):  # fmt: skip
        padding_ = padding if isinstance(padding, str) else _triple(padding)
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), padding_,
                         _triple(dilation), False, _triple(0), groups, bias, padding_mode, device, dtype)  # fmt: skip

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, _triple(0), self.dilation, self.groups)  # fmt: skip
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):  # fmt: skip
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
                         output_padding, groups, bias, padding_mode, device, dtype)  # fmt: skip

    def _output_padding(
        self,
        input: Tensor,
        output_size: list[int] | None,
        stride: list[int],
        padding: list[int],
        kernel_size: list[int],
        num_spatial_dims: int,
        dilation: list[int] | None = None,
    ) -> list[int]:
        if output_size is None:
            ret = _single(self.output_padding)  # converting to list if was not already
        else:
            has_batch_dim = input.dim() == num_spatial_dims + 2
            num_non_spatial_dims = 2 if has_batch_dim else 1
            if len(output_size) == num_non_spatial_dims + num_spatial_dims:
                output_size = output_size[num_non_spatial_dims:]
            if len(output_size) != num_spatial_dims:
                raise ValueError(
                    f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                    f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                    f"(got {len(output_size)})"
                )
            min_sizes = torch.jit.annotate(list[int], [])
            max_sizes = torch.jit.annotate(list[int], [])
            for d in range(num_spatial_dims):
                dim_size = (
                    (input.size(d + num_non_spatial_dims) - 1) * stride[d]
                    - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                    + 1
                )
                min_sizes.append(dim_size)
                max_sizes.append(min_sizes[d] + stride[d] - 1)
            for i in range(len(output_size)):
                size = output_size[i]
                min_size = min_sizes[i]
                max_size = max_sizes[i]
                if size < min_size or size > max_size:
                    raise ValueError(
                        f"requested an output size of {output_size}, but valid sizes range "
                        f"from {min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                    )
            res = torch.jit.annotate(list[int], [])
            for d in range(num_spatial_dims):
                res.append(output_size[d] - min_sizes[d])
            ret = res
        return ret


class ConvTranspose1d(_ConvTransposeNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1,), padding=(0,),
                 output_padding=(0,), groups: int = 1, bias: bool = True, dilation=(1,), padding_mode: str = "zeros", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), True, _single(output_padding), groups, bias, padding_mode, device,
                         dtype)  # fmt: skip

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose1d")
        num_spatial_dims = 1
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              num_spatial_dims, self.dilation)  # fmt: skip
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)  # fmt: skip


class ConvTranspose2d(_ConvTransposeNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), groups: int = 1, bias: bool = True, dilation=(1, 1), padding_mode: str = "zeros", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride), _pair(padding), _pair(dilation),
                         True, _pair(output_padding), groups, bias, padding_mode, device, dtype)  # fmt: skip

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose2d")
        num_spatial_dims = 2
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              num_spatial_dims, self.dilation)  # fmt: skip
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)  # fmt: skip


class ConvTranspose3d(_ConvTransposeNd):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), groups: int = 1, bias: bool = True, dilation=(1, 1, 1), padding_mode: str = "zeros", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(in_channels, out_channels, _triple(kernel_size), _triple(stride), _triple(padding),
                         _triple(dilation), True, _triple(output_padding), groups, bias, padding_mode, device,
                         dtype)  # fmt: skip

    def forward(self, input: Tensor, output_size: list[int] | None = None) -> Tensor:
        if self.padding_mode != "zeros":
            raise ValueError("Only `zeros` padding mode is supported for ConvTranspose3d")
        num_spatial_dims = 3
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              num_spatial_dims, self.dilation)  # fmt: skip
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                  self.groups, self.dilation)  # fmt: skip
