"""Shuffling channel groups (`torch.nn.modules.channelshuffle`)."""

from __future__ import annotations

from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn.module import Module


class ChannelShuffle(Module):
    __constants__ = ("groups",)
    groups: int

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)
