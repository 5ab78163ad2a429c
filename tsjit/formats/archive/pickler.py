"""TorchScript's pickle dialect, written: what PyTorch's C++ `Pickler` writes for
data.pkl and constants.pkl, so that `torch.jit.load` (and tsjit's restricted unpickler)
reads it back.

    object   GLOBAL '__torch__.a B'  EMPTY_TUPLE NEWOBJ  EMPTY_DICT MARK k v ... SETITEMS  BUILD
    tensor   GLOBAL 'torch._utils _rebuild_tensor_v2'  (BINPERSID ('storage', GLOBAL 'torch
             FloatStorage', key, 'cpu', numel), offset, sizes, strides, requires_grad,
             OrderedDict()) REDUCE
    list     GLOBAL 'torch.jit._pickle restore_type_tag'  (EMPTY_LIST ... APPENDS, "List[int]") REDUCE
    dict     the same with EMPTY_DICT ... SETITEMS and "Dict[str, int]"
    enum     GLOBAL '__torch__.a Color'  (value,) REDUCE

Protocol 2. Objects, lists and dicts are memoized by identity (shared ones stay shared),
strings by value. Tensor storages go to a `StorageTable`; the caller writes them.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from tsjit.dialects import types as ts
from tsjit.formats.archive.storage import StorageTable, storage_name
from tsjit.formats.python_code import python_type
from tsjit.runtime.values import Device, ScriptObject
from tsjit.runtime.values import value_type as type_of_value

TypeOf = Callable[[ScriptObject], dict[str, Attribute]]
"""The declared attribute types of an object's class (for the type tags of containers)."""


class Pickler:
    """One pickle: `dump(value)` returns its bytes; tensors' storages land in `storages`."""

    def __init__(
        self,
        storages: StorageTable,
        attribute_types: TypeOf,
        requires_grad: Callable[[ScriptObject, str], bool],
    ):
        self.storages = storages
        self.attribute_types = attribute_types
        self.requires_grad = requires_grad
        self.out = bytearray()
        self.memo: dict[Any, int] = {}
        self._keep: list[object] = []  # memoized by id: alive while pickling

    def dump(self, value: Any, value_type: Attribute | None = None) -> bytes:
        self.out += b"\x80\x02"
        self.value(value, value_type)
        self.out += b"."
        return bytes(self.out)

    # -- values ------------------------------------------------------------------------------

    def value(self, value: Any, value_type: Attribute | None = None, grad: bool = False) -> None:
        if value is None:
            self.out += b"N"
        elif value is True or value is False:
            self.out += b"\x88" if value else b"\x89"
        elif isinstance(value, int):
            self.int(value)
        elif isinstance(value, float):
            self.out += b"G" + struct.pack(">d", value)
        elif isinstance(value, str):
            self.string(value)
        elif isinstance(value, np.ndarray):
            self.tensor(value, grad)
        elif isinstance(value, np.generic):
            self.value(value.item(), value_type)
        elif isinstance(value, ScriptObject):
            self.object(value)
        elif isinstance(value, tuple):
            self.tuple(value, value_type)
        elif isinstance(value, list):
            self.list(value, value_type)
        elif isinstance(value, dict):
            self.dict(value, value_type)
        elif isinstance(value, Device):
            self.global_("torch", "device")
            self.string(str(value))
            self.out += b"\x85R"  # TUPLE1 REDUCE
        elif isinstance(value, complex):
            self.global_("builtins", "complex")
            self.value(value.real)
            self.value(value.imag)
            self.out += b"\x86R"  # TUPLE2 REDUCE
        elif hasattr(value, "qualified_name") and hasattr(value, "value"):  # an enum value
            module, _, name = value.qualified_name.rpartition(".")
            self.global_(module, name)
            self.value(value.value)
            self.out += b"\x85R"
        else:
            raise TypeError(f"cannot save a value of type {type(value).__name__} in a TorchScript archive")

    def int(self, value: int) -> None:
        if 0 <= value < 0x100:
            self.out += b"K" + bytes([value])
        elif 0 <= value < 0x10000:
            self.out += b"M" + struct.pack("<H", value)
        elif -(2**31) <= value < 2**31:
            self.out += b"J" + struct.pack("<i", value)
        else:
            data = value.to_bytes(8, "little", signed=True)
            self.out += b"\x8a\x08" + data  # LONG1

    def string(self, value: str) -> None:
        key = ("str", value)
        if self.get(key):
            return
        data = value.encode("utf-8")
        self.out += b"X" + struct.pack("<I", len(data)) + data
        self.put(key)

    def global_(self, module: str, name: str) -> None:
        key = ("global", module, name)
        if self.get(key):
            return
        self.out += b"c" + module.encode() + b"\n" + name.encode() + b"\n"
        self.put(key)

    def tuple(self, value: tuple[Any, ...], value_type: Attribute | None) -> None:
        types = list(value_type.types) if isinstance(value_type, ts.TupleType) else []
        if not value:
            self.out += b")"
            return
        self.out += b"(" if len(value) > 3 else b""
        for i, item in enumerate(value):
            self.value(item, types[i] if i < len(types) else None)
        self.out += {1: b"\x85", 2: b"\x86", 3: b"\x87"}.get(len(value), b"t")

    def list(self, value: list[Any], value_type: Attribute | None) -> None:
        if self.get(("id", id(value))):
            return
        element = value_type.element_type if isinstance(value_type, ts.ListType) else None
        self.global_("torch.jit._pickle", "restore_type_tag")
        self.out += b"]"
        self.put(("id", id(value)), value)
        if value:
            self.out += b"("
            for item in value:
                self.value(item, element)
            self.out += b"e"
        self.string(self.type_tag(value, value_type))
        self.out += b"\x86R"

    def dict(self, value: dict[Any, Any], value_type: Attribute | None) -> None:
        if self.get(("id", id(value))):
            return
        key_type = value_type.key_type if isinstance(value_type, ts.DictType) else None
        item_type = value_type.value_type if isinstance(value_type, ts.DictType) else None
        self.global_("torch.jit._pickle", "restore_type_tag")
        self.out += b"}"
        self.put(("id", id(value)), value)
        if value:
            self.out += b"("
            for k, v in value.items():
                self.value(k, key_type)
                self.value(v, item_type)
            self.out += b"u"
        self.string(self.type_tag(value, value_type))
        self.out += b"\x86R"

    def object(self, obj: ScriptObject) -> None:
        if self.get(("id", id(obj))):
            return
        module, _, name = obj.qualified_name.rpartition(".")
        self.global_(module, name)
        self.out += b")\x81"  # EMPTY_TUPLE NEWOBJ
        self.put(("id", id(obj)), obj)
        types = self.attribute_types(obj)
        self.out += b"}"
        if obj.attributes:
            self.out += b"("
            for name, value in obj.attributes.items():
                self.string(name)
                self.value(
                    value, types.get(name), isinstance(value, np.ndarray) and self.requires_grad(obj, name)
                )
            self.out += b"u"
        self.out += b"b"  # BUILD

    def tensor(self, array: np.ndarray, requires_grad: bool) -> None:
        stored = self.storages.add(array)
        self.global_("torch._utils", "_rebuild_tensor_v2")
        self.out += b"(("
        self.string("storage")
        self.global_("torch", storage_name(stored.dtype))
        self.string(stored.key)
        self.string("cpu")
        self.int(stored.numel)
        self.out += b"tQ"  # TUPLE BINPERSID
        self.int(stored.offset)
        self.tuple(stored.sizes, None)
        self.tuple(stored.strides, None)
        self.value(requires_grad)
        self.global_("collections", "OrderedDict")
        self.out += b")R"  # EMPTY_TUPLE REDUCE
        self.out += b"tR"  # TUPLE REDUCE

    # -- memo ----------------------------------------------------------------------------------

    def get(self, key: Any) -> bool:
        index = self.memo.get(key)
        if index is None:
            return False
        self.out += b"h" + bytes([index]) if index < 0x100 else b"j" + struct.pack("<I", index)
        return True

    def put(self, key: Any, keep: object = None) -> None:
        index = self.memo[key] = len(self.memo)
        if keep is not None:
            self._keep.append(keep)
        self.out += b"q" + bytes([index]) if index < 0x100 else b"r" + struct.pack("<I", index)

    # -- type tags -------------------------------------------------------------------------------

    def type_tag(self, value: Any, value_type: Attribute | None) -> str:
        """`List[int]`, `Dict[str, Tensor]`: the static type when known, else read off the
        value (`Any` for what cannot be)."""
        if isinstance(value_type, (ts.ListType, ts.DictType)):
            return python_type(value_type)
        return python_type(type_of_value(value))
