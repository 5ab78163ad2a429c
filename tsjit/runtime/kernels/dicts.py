"""Dicts: lookup, insertion, deletion, views (keys/values/items as lists), copy and update.

Dicts are Python dicts (insertion order, shared by reference) keyed by str, int, float,
bool or complex; tensor-keyed dicts (hashed by identity in PyTorch) have no kernels.
Every operation exists once per key type in the schemas; one function serves them all.
"""

from __future__ import annotations

from collections.abc import Callable

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import register_kernel
from tsjit.runtime.kernels.strings import format_value

KEY_KINDS = ("str", "int", "bool", "float", "complex")
_MISSING = object()


def _key_error(key: object) -> TorchScriptError:
    return TorchScriptError(f"KeyError: {format_value(key)}")


def getitem(self: dict, key: object) -> object:
    try:
        return self[key]
    except KeyError:
        raise _key_error(key) from None


def set_item(self: dict, key: object, value: object) -> None:
    self[key] = value


def delete(self: dict, key: object) -> None:
    try:
        del self[key]
    except KeyError:
        raise _key_error(key) from None


def get(self: dict, key: object, default_value: object = None) -> object:
    return self.get(key, default_value)


def setdefault(self: dict, key: object, default_value: object) -> object:
    return self.setdefault(key, default_value)


def pop(self: dict, key: object, default_value: object = _MISSING) -> object:
    value = self.pop(key, default_value)
    if value is _MISSING:
        raise _key_error(key)
    return value


def popitem(self: dict) -> tuple[object, object]:
    if not self:
        raise TorchScriptError("popitem(): dictionary is empty")
    return self.popitem()


def keys(self: dict) -> list:
    return list(self)


def values(self: dict) -> list:
    return list(self.values())


def items(self: dict) -> list[tuple[object, object]]:
    return list(self.items())


def contains(dict: dict, key: object) -> bool:
    return key in dict


def length(self: dict) -> int:
    return len(self)


def clear(self: dict) -> None:
    self.clear()


def update(self: dict, to_add: dict) -> None:
    self.update(to_add)


def copy(self: dict) -> dict:
    return dict(self)


def from_pairs(inputs: list[tuple[object, object]]) -> dict:
    return dict(inputs)


_BY_KIND: dict[str, Callable] = {
    "__getitem__.Dict_{}": getitem,
    "_set_item.{}": set_item,
    "Delete.Dict_{}": delete,
    "get.{}": get,
    "get.default_{}": get,
    "setdefault.{}": setdefault,
    "pop.Dict_{}": pop,
    "pop.Dict_default_{}": pop,
    "popitem.{}": popitem,
    "keys.{}": keys,
    "values.{}": values,
    "items.{}": items,
    "__contains__.{}": contains,
    "len.Dict_{}": length,
    "clear.{}": clear,
    "update.{}": update,
    "copy.Dict_{}": copy,
    "dict.Dict_{}": copy,
    "dict.{}": from_pairs,
}

for _pattern, _fn in _BY_KIND.items():
    for _kind in KEY_KINDS:
        register_kernel("aten::" + _pattern.format(_kind), _fn)
register_kernel("aten::dict", dict)
