"""The library's `torch.nn.functional` refuses what PyTorch's refuses, with PyTorch's
exception class and words: `F.interpolate` with a mode meant for another rank, which
PyTorch reports as not implemented for that rank."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tsjit
from tsjit.frontend import torch_shim as torch
from tsjit.runtime.errors import TorchScriptError

F = torch.nn.functional


def upsample(x: torch.Tensor, mode: str) -> torch.Tensor:
    return F.interpolate(x, scale_factor=2.0, mode=mode)


@pytest.fixture(scope="module")
def scripted():
    return tsjit.script(upsample)


@pytest.mark.parametrize(
    ("rank", "mode", "message"),
    [
        (3, "bilinear", "Got 3D input, but bilinear mode needs 4D input"),
        (3, "trilinear", "Got 3D input, but trilinear mode needs 5D input"),
        (4, "linear", "Got 4D input, but linear mode needs 3D input"),
        (4, "trilinear", "Got 4D input, but trilinear mode needs 5D input"),
        (5, "linear", "Got 5D input, but linear mode needs 3D input"),
        (5, "bilinear", "Got 5D input, but bilinear mode needs 4D input"),
        (2, "nearest", "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D)"),
    ],
)
def test_interpolate_mode_of_another_rank(scripted, rank: int, mode: str, message: str):
    x = np.ones((1, 2, 3, 3, 3)[:rank], np.float32)
    with pytest.raises(TorchScriptError, match="NotImplementedError: " + re.escape(message)):
        scripted(x, mode)


def test_interpolate_mode_of_its_rank(scripted):
    assert scripted(np.ones((1, 2, 3), np.float32), "linear").shape == (1, 2, 6)
    assert scripted(np.ones((1, 2, 3, 3), np.float32), "bilinear").shape == (1, 2, 6, 6)
