"""`torch.functional` as TorchScript source that tsjit ships: the `torch.*` functions
PyTorch writes in Python, which scripting compiles from their source (the graph shows
`torch/functional.py` locations), rather than binding them to one operator.

Each body keeps the structure of PyTorch's so that scripted graphs match after constant
propagation. This file is compiled by tsjit's frontend and is also importable Python
(the shim's `torch`).
"""

from __future__ import annotations

from typing import Optional

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor


def stft(input: Tensor, n_fft: int, hop_length: Optional[int] = None, win_length: Optional[int] = None,
         window: Optional[Tensor] = None, center: bool = True, pad_mode: str = "reflect", normalized: bool = False,
         onesided: Optional[bool] = None, return_complex: Optional[bool] = None,
         align_to_window: Optional[bool] = None) -> Tensor:  # fmt: skip
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.dim()
        extended_shape = [1] * (3 - signal_dim) + list(input.size())
        pad = int(n_fft // 2)
        input = F.pad(input.view(extended_shape), [pad, pad], pad_mode)
        input = input.view(input.shape[-signal_dim:])
    return torch._VF.stft(input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                          align_to_window)  # fmt: skip


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if compute_mode == "use_mm_for_euclid_dist_if_necessary":
        return torch._VF.cdist(x1, x2, p, None)
    elif compute_mode == "use_mm_for_euclid_dist":
        return torch._VF.cdist(x1, x2, p, 1)
    elif compute_mode == "donot_use_mm_for_euclid_dist":
        return torch._VF.cdist(x1, x2, p, 2)
    else:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
