"""Views by explicit sizes and strides (`as_strided`), and the factories that take a
memory layout (`new_empty_strided`, `empty_permuted`) or change a tensor's size in place
(`resize_`).

A tensor is a numpy array; its *storage* is the contiguous buffer of the array that owns
its memory, and its storage offset its distance from that buffer's start, in elements,
as in PyTorch. `as_strided` views that buffer; a tensor whose memory no contiguous owner
holds (itself made by stride tricks) has no storage the runtime can address, which is an
error rather than a guess. Empty factories return contiguous tensors: their strides
shape no value a program can read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import shape_str
from tsjit.runtime.kernels.factory import new_factory, sized_factory
from tsjit.runtime.values import Device

ndarray = np.ndarray


def storage(x: ndarray) -> tuple[ndarray, int]:
    """The 1-d storage `x` views (in x's dtype) and x's offset into it, in elements."""
    owner = x
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if not owner.flags.c_contiguous or owner.nbytes % x.itemsize:
        raise TorchScriptError("as_strided: the tensor's storage is not addressable by the numpy runtime")
    flat = owner.reshape(-1).view(np.uint8).view(x.dtype)
    if not flat.flags.writeable and x.flags.writeable:
        raise TorchScriptError("as_strided: the tensor's storage is not addressable by the numpy runtime")
    distance = x.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    if distance % x.itemsize or not 0 <= distance <= flat.nbytes:
        raise TorchScriptError("as_strided: the tensor's storage is not addressable by the numpy runtime")
    return flat, distance // x.itemsize


@kernel("aten::as_strided")
def as_strided(self: ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> ndarray:
    if len(size) != len(stride):
        raise TorchScriptError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise TorchScriptError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                               f"{shape_str(stride)}")  # fmt: skip
    if any(n < 0 for n in size):
        raise TorchScriptError(f"Trying to create tensor with negative dimension {min(size)}: {shape_str(size)}")
    flat, own_offset = storage(self)
    offset = own_offset if storage_offset is None else storage_offset
    if offset < 0:
        raise TorchScriptError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > flat.size:
        raise TorchScriptError(
            f"setStorage: sizes {shape_str(size)}, strides {shape_str(stride)}, storage offset {offset}, and itemsize "
            f"{self.itemsize} requiring a storage size of {needed * self.itemsize} are out of bounds for storage of "
            f"size {flat.nbytes}"
        )
    start = flat[min(offset, flat.size) :]
    return np.lib.stride_tricks.as_strided(
        start, tuple(size), tuple(s * self.itemsize for s in stride), writeable=self.flags.writeable
    )


@kernel("aten::new_empty_strided")
def new_empty_strided(
    self: ndarray,
    size: Sequence[int],
    stride: Sequence[int],
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    if len(size) != len(stride):
        raise TorchScriptError("mismatch in length of strides and shape")
    return _new_empty(self, size, dtype, layout, device, pin_memory)


_new_empty = new_factory(np.empty)
_empty = sized_factory(np.empty)


@kernel("aten::empty_permuted")
def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    if len(physical_layout) != len(size):
        raise TorchScriptError("Number of dimensions in size does not match the length of the physical_layout")
    if sorted(physical_layout) != list(range(len(size))):
        raise TorchScriptError(f"Dimension {shape_str(physical_layout)} is not a permutation of the dimensions")
    return _empty(size, dtype, layout, device, pin_memory)


def _resize(self: ndarray, size: Sequence[int]) -> ndarray:
    """PyTorch resizes the storage a tensor owns; a numpy array cannot change its own
    size, so only a resize that keeps the number of elements (a reshape in place) runs."""
    if any(n < 0 for n in size):
        raise TorchScriptError(f"Trying to create tensor with negative dimension {min(size)}: {shape_str(size)}")
    if int(np.prod(size)) != self.size or not self.flags.c_contiguous:
        raise TorchScriptError(
            f"resize_: the numpy runtime resizes a tensor in place only to as many elements as it holds "
            f"({shape_str(self.shape)} to {shape_str(size)})"
        )
    self.shape = tuple(size)
    return self


def resize_(self: ndarray, size: Sequence[int], memory_format: int | None = None) -> ndarray:
    return _resize(self, size)


def resize_as_(self: ndarray, the_template: ndarray, memory_format: int | None = None) -> ndarray:
    return _resize(self, the_template.shape)


register_kernel("aten::resize_", resize_)
register_kernel("aten::resize_as_", resize_as_)
