"""Rearranging channels into space and back (`torch.nn.modules.pixelshuffle`)."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class PixelShuffle(Module):
    __constants__ = ("upscale_factor",)
    upscale_factor: int

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Module):
    __constants__ = ("downscale_factor",)
    downscale_factor: int

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)
