# ruff: noqa - a TorchScript program in the style PyTorch users e (typing.List, Optional, ...)
import torch
from typing import List, Optional


class Block(torch.nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.lin = torch.nn.Linear(n, n)
        self.norm = torch.nn.LayerNorm(n)
        self.act = torch.nn.GELU()
        self.drop = torch.nn.Dropout(0.2)

    def forward(self, x):
        return self.norm(x + self.drop(self.act(self.lin(x))))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([Block(4), Block(4)])
        self.emb = torch.nn.Embedding(10, 4)
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
        self.register_buffer("scale", torch.ones(2) * 0.5)
        self.depth = len(self.blocks)

    def encode(self, ids: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        h = self.emb.weight[ids]
        for block in self.blocks:
            h = block(h)
        if mask is not None:
            h = h * mask.unsqueeze(-1)
        ret