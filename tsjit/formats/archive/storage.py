"""Storages and tensors of an archive: a storage is one record of raw elements
(`data/<key>`), a tensor a strided view of one (`_rebuild_tensor_v2(storage, offset,
sizes, strides, ...)`). Loading makes each storage one numpy array over the archive's
mapping and each tensor a view of it, so tensors that share a storage share memory;
saving finds the storage behind each array again (`StorageTable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tsjit.dialects.types import DTYPES, DType

STORAGE_DTYPES: dict[str, DType] = {f"{d.name}Storage": d for d in DTYPES}
"""`torch.FloatStorage` and friends, the storage types pickles name, by class name."""

UNSUPPORTED_STORAGES = {
    "QInt8Storage": "quantized", "QUInt8Storage": "quantized", "QInt32Storage": "quantized",
    "QUInt4x2Storage": "quantized", "QUInt2x4Storage": "quantized", "ComplexHalfStorage": "complex32",
}  # fmt: skip
"""Storage types PyTorch writes that tsjit's runtime has no numpy type for."""


@dataclass(frozen=True)
class StorageType:
    """What the pickle's `torch.FloatStorage` global stands for: the element dtype."""

    dtype: DType

    @property
    def numpy(self) -> np.dtype:
        return numpy_dtype(self.dtype)


def numpy_dtype(dtype: DType) -> np.dtype:
    if dtype.torch_name == "bfloat16":
        raise ValueError("bfloat16 tensors are not supported (numpy has no bfloat16)")
    return np.dtype(dtype.torch_name)


def storage_name(dtype: np.dtype) -> str:
    """The pickled storage class of a numpy dtype (`FloatStorage`)."""
    for name, d in STORAGE_DTYPES.items():
        if d.torch_name == dtype.name:
            return name
    raise ValueError(f"numpy dtype {dtype} has no TorchScript storage type")


def tensor_view(storage: np.ndarray, offset: int, sizes: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """The tensor `(offset, sizes, strides)` (in elements) as a view of a 1-D storage;
    ValueError when it does not lie inside the storage."""
    for name, values in (("size", sizes), ("stride", strides)):
        if not all(type(v) is int and v >= 0 for v in values):
            raise ValueError(f"tensor {name}s must be non-negative integers, got {list(values)}")
    if type(offset) is not int or offset < 0:
        raise ValueError(f"bad storage offset {offset!r}")
    if len(sizes) != len(strides):
        raise ValueError(f"a tensor of {len(sizes)} dimensions has {len(strides)} strides")
    count = 1
    for size in sizes:
        count *= size
    if count == 0:
        return np.empty(tuple(sizes), storage.dtype)
    last = offset + sum((size - 1) * stride for size, stride in zip(sizes, strides))
    if last >= storage.shape[0]:
        raise ValueError(f"tensor at offset {offset} with sizes {list(sizes)} and strides {list(strides)} "
                         f"reads past the end of its storage of {storage.shape[0]} elements")  # fmt: skip
    if tuple(strides) == contiguous_strides(sizes):
        return storage[offset : offset + count].reshape(tuple(sizes))
    itemsize = storage.dtype.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], tuple(sizes), tuple(s * itemsize for s in strides)
    )


def contiguous_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    strides = []
    step = 1
    for size in reversed(sizes):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


# --------------------------------------------------------------------------------------
# Saving: the storage behind each array
# --------------------------------------------------------------------------------------


@dataclass
class StoredTensor:
    """A tensor as the pickle writes it: storage key, dtype, element count, offset,
    sizes and strides in elements."""

    key: str
    dtype: np.dtype
    numel: int
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]


class StorageTable:
    """Storages of the arrays being saved: arrays over the same memory (views of one
    loaded storage, slices of one array) get one storage, written once."""

    def __init__(self) -> None:
        self.storages: dict[str, np.ndarray] = {}  # key -> 1-D array of the storage's elements
        self._by_memory: dict[tuple[int, int, str], str] = {}
        self._keep: list[object] = []  # the bases keyed by address stay alive

    def add(self, array: np.ndarray) -> StoredTensor:
        base = _owner(array)
        flat = _as_storage(base, array.dtype)
        if flat is None or not _inside(array, flat):
            flat = np.ascontiguousarray(array).reshape(-1)
            array = flat.reshape(array.shape)
        address = flat.__array_interface__["data"][0]
        memory = (address, flat.shape[0], flat.dtype.str)
        key = self._by_memory.get(memory)
        if key is None:
            key = self._by_memory[memory] = str(len(self.storages))
            self.storages[key] = flat
            self._keep.append(flat)
        itemsize = array.dtype.itemsize
        offset_bytes = array.__array_interface__["data"][0] - address
        strides = (
            tuple(s // itemsize for s in array.strides) if array.size else contiguous_strides(array.shape)
        )
        return StoredTensor(
            key, array.dtype, flat.shape[0], offset_bytes // itemsize, tuple(array.shape), strides
        )


def _owner(array: np.ndarray) -> np.ndarray:
    """The outermost array `array` views (the loaded storage, or the array that owns
    the memory)."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)  # as_strided's views hold their array one step away
            if not isinstance(base, np.ndarray):
                return array
        array = base


def _as_storage(base: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """`base`'s memory as a 1-D array of `dtype` elements, when it is one block."""
    if base.dtype != dtype:
        return None
    if base.flags.c_contiguous:
        return base.reshape(-1)
    if base.flags.f_contiguous:
        return base.T.reshape(-1)
    return None


def _inside(array: np.ndarray, flat: np.ndarray) -> bool:
    """Whether `array` is a strided view inside `flat` with element-aligned strides."""
    itemsize = array.dtype.itemsize
    start = flat.__array_interface__["data"][0]
    offset = array.__array_interface__["data"][0] - start
    if offset < 0 or offset % itemsize or any(s < 0 or s % itemsize for s in array.strides):
        return False
    if array.size == 0:
        return True
    last = offset // itemsize + sum((n - 1) * (s // itemsize) for n, s in zip(array.shape, array.strides))
    return last < flat.shape[0]
