"""Padding layers (`torch.nn.modules.padding`): constant, zero, reflection, replication
and circular padding of 1-3 spatial dimensions."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.library.utils import _ntuple, _pair, _quadruple
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module

_sextuple = _ntuple(6, "_sextuple")


class _CircularPadNd(Module):
    __constants__ = ("padding",)
    padding: list[int]

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class CircularPad2d(_CircularPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 3 and input.dim() != 4:
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class CircularPad3d(_CircularPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4 and input.dim() != 5:
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class _ConstantPadNd(Module):
    __constants__ = ("padding", "value")
    value: float
    padding: list[int]

    def __init__(self, value: float):
        super().__init__()
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value: float):
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value: float):
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value: float):
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ReflectionPadNd(Module):
    __constants__ = ("padding",)
    padding: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "reflect")


class ReflectionPad1d(_ReflectionPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReflectionPad2d(_ReflectionPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReflectionPad3d(_ReflectionPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class _ReplicationPadNd(Module):
    __constants__ = ("padding",)
    padding: list[int]

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "replicate")


class ReplicationPad1d(_ReplicationPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _pair(padding)


class ReplicationPad2d(_ReplicationPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _quadruple(padding)


class ReplicationPad3d(_ReplicationPadNd):
    def __init__(self, padding):
        super().__init__()
        self.padding = _sextuple(padding)


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)
