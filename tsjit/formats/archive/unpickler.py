"""The restricted unpickler: an archive's pickles (data.pkl, constants.pkl) as run-time
values, with nothing from the file ever executed.

A pickle may only name the globals TorchScript's own pickler writes (`GLOBALS`: the
tensor rebuild function, storage types, `restore_type_tag`, `OrderedDict` for the unused
backward hooks, `torch.device`, `complex`, the legacy list builders) and the archive's
classes (`__torch__.*`), which become plain `ScriptObject`s or enum values; every other
global is refused with an error naming it. Storages come from `persistent_load` as
views of the archive's records (see `storage.py`); tensors are strided views of them.

    unpickle(reader, "data.pkl", "data") -> root object (a ScriptObject)
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tsjit.formats.archive.layout import ArchiveError, ArchiveReader
from tsjit.formats.archive.storage import STORAGE_DTYPES, UNSUPPORTED_STORAGES, StorageType, tensor_view
from tsjit.runtime.values import Device, ScriptObject


class LoadedObject(ScriptObject):
    """An object of an archive class; `state` is what `__getstate__` returned when the
    class defines its own (else the attributes are the pickled dict)."""

    __slots__ = ("state",)

    def __init__(self, qualified_name: str):
        super().__init__(qualified_name)
        self.state: Any = None

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, dict) and all(isinstance(k, str) for k in state):
            self.attributes = state
        else:
            self.state = state


@dataclass(frozen=True)
class EnumValue:
    """A value of an archive enum class, as the pickle names it (class and value)."""

    qualified_name: str
    value: Any


def _rebuild_tensor_v2(storage: Any, storage_offset: Any, size: Any, stride: Any, requires_grad: Any = False,
                       backward_hooks: Any = None, metadata: Any = None) -> np.ndarray:  # fmt: skip
    if not isinstance(storage, np.ndarray):
        raise TypeError("_rebuild_tensor_v2 expects a storage as its first argument")
    if not isinstance(size, tuple) or not isinstance(stride, tuple):
        raise TypeError("_rebuild_tensor_v2 expects tuples of sizes and strides")
    return tensor_view(storage, storage_offset, size, stride)


def _rebuild_from_type_v2(function: Any, new_type: Any, args: Any, state: Any) -> Any:
    """A tensor pickled with its Python class (a Parameter): rebuilt as a plain tensor."""
    if function is not _rebuild_tensor_v2 or new_type is not _TENSOR_CLASS or not isinstance(args, tuple):
        raise ValueError("_rebuild_from_type_v2 only rebuilds tensors")
    return _rebuild_tensor_v2(*args)


_TENSOR_CLASS = object()  # torch.Tensor / torch.nn.Parameter as arguments of _rebuild_from_type_v2


class _OrderedDict(dict):
    """`OrderedDict()`: a tensor's backward hooks, never used (a torch.save file's
    state dict is one too, with `_metadata` set by BUILD: reported as not an archive)."""

    def __setstate__(self, state: Any) -> None:
        pass


def _hooks(*args: Any) -> dict[Any, Any]:
    if args not in ((), ([],)):
        raise ValueError("OrderedDict is only pickled empty in TorchScript archives")
    return _OrderedDict()


def _restore_type_tag(value: Any, type_str: Any) -> Any:
    """A container's static type (`Dict[str, int]`): the value is the same in Python."""
    if not isinstance(type_str, str):
        raise TypeError("restore_type_tag expects a type string")
    return value


def _legacy_list(data: Any) -> Any:
    if not isinstance(data, list):
        raise TypeError("the build_*list functions take a list")
    return data


def _device(text: Any) -> Device:
    if not isinstance(text, str):
        raise TypeError("torch.device expects a string")
    return Device.parse(text)


def _complex(real: Any = 0.0, imag: Any = 0.0) -> complex:
    if not all(isinstance(v, (int, float)) for v in (real, imag)):
        raise ValueError("complex expects two numbers")
    return complex(real, imag)


GLOBALS: dict[tuple[str, str], Any] = {
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
    ("torch", "Tensor"): _TENSOR_CLASS,
    ("torch.nn.parameter", "Parameter"): _TENSOR_CLASS,
    ("collections", "OrderedDict"): _hooks,
    ("torch.jit._pickle", "restore_type_tag"): _restore_type_tag,
    ("torch.jit._pickle", "build_intlist"): _legacy_list,
    ("torch.jit._pickle", "build_doublelist"): _legacy_list,
    ("torch.jit._pickle", "build_boollist"): _legacy_list,
    ("torch.jit._pickle", "build_tensorlist"): _legacy_list,
    ("torch", "device"): _device,
    ("builtins", "complex"): _complex,
    **{("torch", name): StorageType(dtype) for name, dtype in STORAGE_DTYPES.items()},
}
"""Every global a TorchScript pickle may name (besides its `__torch__` classes)."""

REFUSED: dict[tuple[str, str], str] = {
    ("torch._utils", "_rebuild_qtensor"): "quantized tensors are not supported",
    ("torch._utils", "_rebuild_sparse_tensor"): "sparse tensors are not supported",
    (
        "torch.jit._pickle",
        "build_tensor_from_id",
    ): "tensor tables of archive versions before 3 are not supported",
    ("torch.distributed.rpc", "rref"): "remote references are not supported",
    ("torch._utils", "_rebuild_parameter"): "a torch.save file, not a TorchScript archive (torch.jit.save)",
    (
        "torch._utils",
        "_rebuild_parameter_with_state",
    ): "a torch.save file, not a TorchScript archive (torch.jit.save)",
    **{("torch", name): f"{kind} tensors are not supported" for name, kind in UNSUPPORTED_STORAGES.items()},
}
"""Globals of TorchScript pickles that name what tsjit cannot represent."""


class Refused(pickle.UnpicklingError):
    """A global outside the allow-list, or one naming what tsjit cannot represent."""


class Unpickler(pickle.Unpickler):
    """One pickle of one archive; `objects` lists the class objects it made."""

    def __init__(self, reader: ArchiveReader, data: bytes, directory: str, storages: dict[str, np.ndarray],
                 byteorder: str) -> None:  # fmt: skip
        super().__init__(io.BytesIO(data))
        self.reader = reader
        self.directory = directory
        self.storages = storages
        self.byteorder = byteorder
        self.objects: list[LoadedObject] = []
        self._classes: dict[str, type] = {}

    def find_class(self, module: str, name: str) -> Any:
        allowed = GLOBALS.get((module, name))
        if allowed is not None:
            return allowed
        if module == "__torch__" or module.startswith("__torch__."):
            return self.archive_class(f"{module}.{name}")
        reason = REFUSED.get((module, name))
        if reason is not None:
            raise Refused(f"{reason} ('{module}.{name}')")
        raise Refused(
            f"refusing the global '{module}.{name}': TorchScript archives do not use it (nothing was run)"
        )

    def archive_class(self, qualified_name: str) -> type:
        """A stand-in for `__torch__.X`: building it (NEWOBJ, then BUILD with the
        attributes) makes a LoadedObject; calling it with a value (an enum) an EnumValue."""
        cls = self._classes.get(qualified_name)
        if cls is None:
            objects = self.objects

            def new(_cls: type, *args: Any) -> Any:
                if args:
                    if len(args) != 1:
                        raise ValueError(
                            f"{qualified_name} is built with one value (an enum), got {len(args)}"
                        )
                    return EnumValue(qualified_name, args[0])
                made = LoadedObject(qualified_name)
                objects.append(made)
                return made

            cls = self._classes[qualified_name] = type(qualified_name, (), {"__new__": new})
        return cls

    def persistent_load(self, pid: Any) -> np.ndarray:
        """`('storage', StorageType, key, location, numel)`: the record `<dir>/<key>` as
        an array of numel elements (a view of the file when it can be)."""
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r:.80}")
        _, storage_type, key, _location, numel = pid
        if (
            not isinstance(storage_type, StorageType)
            or not isinstance(key, str)
            or type(numel) is not int
            or numel < 0
        ):
            raise pickle.UnpicklingError(f"malformed storage reference {pid!r:.80}")
        name = f"{self.directory}/{key}"
        if not self.reader.has(name) and self.reader.has(f".data/{key}"):
            name = f".data/{key}"  # storages shared between pickles (torch.package)
        known = self.storages.get(name)
        if known is not None:
            return known
        try:
            dtype = storage_type.numpy
        except ValueError as error:
            raise ArchiveError(self.reader.path, str(error), self.reader.member(name)) from None
        if numel == 0:
            storage = np.empty(0, dtype)
        else:
            storage = self.read_storage(name, dtype, numel)
        self.storages[name] = storage
        return storage

    def read_storage(self, name: str, dtype: np.dtype, numel: int) -> np.ndarray:
        data = self.reader.view(name, dtype.itemsize)
        needed = numel * dtype.itemsize
        if len(data) < needed:
            raise ArchiveError(self.reader.path, f"holds {len(data)} bytes, its tensors need {needed}",
                               self.reader.member(name))  # fmt: skip
        if self.byteorder == "big" and dtype.itemsize > 1:
            return np.frombuffer(data, dtype.newbyteorder(">"), numel).astype(dtype)
        return np.frombuffer(data, dtype, numel)


def unpickle(reader: ArchiveReader, name: str, directory: str, storages: dict[str, np.ndarray],
             byteorder: str = "little", on_objects: Callable[[list[LoadedObject]], None] | None = None) -> Any:  # fmt: skip
    """The value pickled in record `name`, its tensors' storages under `directory/`
    (shared through `storages`, record name -> array)."""
    unpickler = Unpickler(reader, reader.read(name), directory, storages, byteorder)
    try:
        value = unpickler.load()
    except ArchiveError:
        raise
    except RecursionError:
        raise ArchiveError(reader.path, "malformed pickle: nested too deeply", reader.member(name)) from None
    except Exception as error:  # noqa: BLE001 - any failure of a malformed pickle is reported as one
        message = str(error) or type(error).__name__
        prefix = "" if isinstance(error, Refused) else "malformed pickle: "
        raise ArchiveError(reader.path, prefix + message, reader.member(name)) from None
    if on_objects is not None:
        on_objects(unpickler.objects)
    return value
