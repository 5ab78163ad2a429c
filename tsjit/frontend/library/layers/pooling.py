"""Pooling layers (`torch.nn.modules.pooling`): max, average, LP, adaptive and fractional
pooling and max-unpooling over 1-3 spatial dimensions."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.library.utils import _pair, _single, _triple
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class _MaxPoolNd(Module):
    __constants__ = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
    return_indices: bool
    ceil_mode: bool

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode


class MaxPool1d(_MaxPoolNd):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0,), dilation=(1,), return_indices: bool = False,
                 ceil_mode: bool = False):  # fmt: skip
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)

    def forward(self, input: Tensor):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class MaxPool2d(_MaxPoolNd):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0, 0), dilation=(1, 1), return_indices: bool = False,
                 ceil_mode: bool = False):  # fmt: skip
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)

    def forward(self, input: Tensor):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class MaxPool3d(_MaxPoolNd):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0, 0, 0), dilation=(1, 1, 1), return_indices: bool = False,
                 ceil_mode: bool = False):  # fmt: skip
        super().__init__(kernel_size, stride, padding, dilation, return_indices, ceil_mode)

    def forward(self, input: Tensor):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)  # fmt: skip


class MaxUnpool1d(Module):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0,)):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: list[int] | None = None) -> Tensor:
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(Module):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0, 0)):
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: list[int] | None = None) -> Tensor:
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(Module):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]

    def __init__(self, kernel_size, stride=None, padding=(0, 0, 0)):
        super().__init__()
        self.kernel_size = _triple(kernel_size)
        self.stride = _triple(stride if stride is not None else kernel_size)
        self.padding = _triple(padding)

    def forward(self, input: Tensor, indices: Tensor, output_size: list[int] | None = None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class _AvgPoolNd(Module):
    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")


class AvgPool1d(_AvgPoolNd):
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    ceil_mode: bool
    count_include_pad: bool

    def __init__(self, kernel_size, stride=None, padding=(0,), ceil_mode: bool = False,
                 count_include_pad: bool = True):  # fmt: skip
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)  # fmt: skip


class AvgPool2d(_AvgPoolNd):
    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None

    def __init__(self, kernel_size, stride=None, padding=(0, 0), ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip


class AvgPool3d(_AvgPoolNd):
    __constants__ = ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override")
    kernel_size: list[int]
    stride: list[int]
    padding: list[int]
    ceil_mode: bool
    count_include_pad: bool
    divisor_override: int | None

    def __init__(self, kernel_size, stride=None, padding=(0, 0, 0), ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None):  # fmt: skip
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)  # fmt: skip


class FractionalMaxPool2d(Module):
    __constants__ = ("kernel_size", "return_indices", "output_size", "output_ratio")
    kernel_size: list[int]
    return_indices: bool
    output_size: list[int] | None
    output_ratio: list[float] | None
    _random_samples: Tensor | None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):  # fmt: skip
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _pair(output_size) if output_size is not None else None
        self.output_ratio = _pair(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)  # fmt: skip


class FractionalMaxPool3d(Module):
    __constants__ = ("kernel_size", "return_indices", "output_size", "output_ratio")
    kernel_size: list[int]
    return_indices: bool
    output_size: list[int] | None
    output_ratio: list[float] | None
    _random_samples: Tensor | None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):  # fmt: skip
        super().__init__()
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
            isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)
        ):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = _triple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _triple(output_size) if output_size is not None else None
        self.output_ratio = _triple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not (
                0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1 and 0 < self.output_ratio[2] < 1
            ):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size, self.output_ratio,
                                       self.return_indices, _random_samples=self._random_samples)  # fmt: skip


class _LPPoolNd(Module):
    __constants__ = ("norm_type", "kernel_size", "stride", "ceil_mode")
    norm_type: float
    ceil_mode: bool

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode


class LPPool1d(_LPPoolNd):
    kernel_size: int
    stride: list[int] | None

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    kernel_size: list[int]
    stride: list[int] | None

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPoolNd):
    kernel_size: list[int]
    stride: list[int] | None

    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ("output_size", "return_indices")
    return_indices: bool

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ("output_size",)

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    output_size: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)
