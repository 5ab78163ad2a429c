"""Padding: constant, reflect, replicate and circular, over the last one to three dimensions.

PyTorch's `pad` list holds (before, after) pairs starting from the last dimension; a
negative width crops. Reflect and replicate map each output position to an input position (which
handles negative widths too); circular crops first and wraps what remains, as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import shape_str

ndarray = np.ndarray

_MODES = ("reflect", "replicate", "circular")
_MODE_BY_ENUM = {0: "constant", 1: "reflect", 2: "replicate", 3: "circular"}
"""`at::padding_mode`, the enum `_pad_enum` takes."""


def _pad_widths(x: ndarray, pad: Sequence[int]) -> list[tuple[int, int]]:
    """numpy pad widths of PyTorch's `pad` list (pairs starting from the last dimension)."""
    if len(pad) % 2:
        raise TorchScriptError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > x.ndim:
        raise TorchScriptError(
            f"Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pad)} while the input has {x.ndim} dimensions."
        )
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


def _crop_negative(x: ndarray, widths: list[tuple[int, int]]) -> tuple[ndarray, list[tuple[int, int]]]:
    index = tuple(slice(-lo if lo < 0 else None, hi if hi < 0 else None) for lo, hi in widths)
    return x[index], [(max(lo, 0), max(hi, 0)) for lo, hi in widths]


@kernel("aten::constant_pad_nd")
def constant_pad_nd(self: ndarray, pad: Sequence[int], value: object = 0) -> ndarray:
    widths = _pad_widths(self, pad)
    for (lo, hi), size in zip(widths, self.shape):
        if size + lo + hi < 0:
            raise TorchScriptError(
                f"The input size {size}, plus negative padding {lo} and {hi} resulted in a negative output size, "
                f"which is invalid. Check dimension {widths.index((lo, hi))} of your input."
            )
    cropped, widths = _crop_negative(self, widths)
    return np.pad(cropped, widths, constant_values=value)


def pad_non_constant(self: ndarray, pad: Sequence[int], mode: str) -> ndarray:
    """reflect / replicate / circular over the last len(pad) / 2 dimensions of a tensor with
    one or two more (PyTorch's supported combinations)."""
    dims = len(pad) // 2
    if len(pad) % 2 or dims not in (1, 2, 3) or self.ndim not in (dims + 1, dims + 2):
        raise TorchScriptError(
            f"Padding size {len(pad)} is not supported for {self.ndim}D input tensor. Supported combinations for "
            "non-constant padding: 2D or 3D input: padding size = 2 (pads last dimension); 3D or 4D input: padding "
            "size = 4 (pads last 2 dimensions); 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    widths = _pad_widths(self, pad)
    for axis in range(self.ndim - dims, self.ndim):
        lo, hi = widths[axis]
        size = self.shape[axis]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise TorchScriptError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({lo}, {hi}) at dimension {axis} of input {shape_str(self.shape)}"
            )
        if mode == "circular" and (lo > size or hi > size):
            raise TorchScriptError("Padding value causes wrapping around more than once.")
        if size + lo + hi <= 0 or (size == 0 and (lo or hi)):
            raise TorchScriptError(
                f"input tensor must have non-zero size in padded dimensions, but got input of size "
                f"{shape_str(self.shape)} and padding ({lo}, {hi}) at dimension {axis}"
            )
    if mode == "circular":  # wraps what remains after cropping, as PyTorch's _pad_circular
        cropped, widths = _crop_negative(self, widths)
        return np.pad(cropped, widths, mode="wrap")
    result = self
    for axis in range(self.ndim - dims, self.ndim):
        lo, hi = widths[axis]
        size = self.shape[axis]
        source = np.arange(-lo, size + hi)  # output position i reads input position i - lo
        if mode == "replicate":
            source = np.clip(source, 0, size - 1)
        elif size > 1:
            period = 2 * (size - 1)
            source = np.abs(source) % period
            source = np.where(source > size - 1, period - source, source)
        else:
            source = np.zeros_like(source)
        result = np.take(result, source, axis=axis)
    return result


@kernel("aten::pad")
def pad(self: ndarray, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> ndarray:
    if mode == "constant":
        return constant_pad_nd(self, pad, 0 if value is None else value)
    if mode not in _MODES:
        raise TorchScriptError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise TorchScriptError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return pad_non_constant(self, pad, mode)


@kernel("aten::_pad_enum")
def pad_enum(self: ndarray, pad_: Sequence[int], mode: int, value: float | None = None) -> ndarray:
    if mode not in _MODE_BY_ENUM:
        raise TorchScriptError(f"Unrecognised padding mode {mode}")
    return pad(self, pad_, _MODE_BY_ENUM[mode], value)


@kernel("aten::_pad_circular")
def pad_circular(self: ndarray, pad_: Sequence[int]) -> ndarray:
    return pad_non_constant(self, pad_, "circular")


def _mode_pad(mode: str, dims: int):
    """`reflection_pad{dims}d(self, padding)` and `replication_pad{dims}d`."""

    def mode_pad(self: ndarray, padding: Sequence[int]) -> ndarray:
        if len(padding) != 2 * dims:
            raise TorchScriptError(f"padding size is expected to be {2 * dims}, but got: {len(padding)}")
        return pad_non_constant(self, padding, mode)

    return mode_pad


for _dims in (1, 2, 3):
    register_kernel(f"aten::reflection_pad{_dims}d", _mode_pad("reflect", _dims))
    register_kernel(f"aten::replication_pad{_dims}d", _mode_pad("replicate", _dims))
