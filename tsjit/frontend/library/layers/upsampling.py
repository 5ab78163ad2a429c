"""Upsampling layers (`torch.nn.modules.upsampling`): `F.interpolate` with fixed settings."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class Upsample(Module):
    __constants__ = ("size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor")
    name: str
    size: list[int] | None
    scale_factor: list[float] | None
    mode: str
    align_corners: bool | None
    recompute_scale_factor: bool | None

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None):  # fmt: skip
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)  # fmt: skip


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
