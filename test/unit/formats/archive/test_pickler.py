"""TorchScript's pickle dialect, written: what the pickler writes the restricted
unpickler (and PyTorch's, see the interop tests) reads back as the same values, with
shared objects, containers and storages still shared."""

from __future__ import annotations

import pickletools
from pathlib import Path

import numpy as np

from tsjit.dialects import types as ts
from tsjit.formats.archive.layout import ArchiveReader, ArchiveWriter
from tsjit.formats.archive.pickler import Pickler
from tsjit.formats.archive.storage import StorageTable
from tsjit.formats.archive.unpickler import unpickle
from tsjit.runtime.values import Device, ScriptObject, value_type


def round_trip(
    tmp_path: Path, value: object, types: dict[str, ts.Attribute] | None = None
) -> tuple[object, bytes]:
    storages = StorageTable()
    data = Pickler(storages, lambda obj: types or {}, lambda obj, name: name == "weight").dump(value)
    path = tmp_path / "m.pt"
    with ArchiveWriter(path, "m") as writer:
        for key, storage in storages.storages.items():
            writer.write(f"data/{key}", memoryview(np.ascontiguousarray(storage)).cast("B"))
        writer.write("data.pkl", data)
    return unpickle(ArchiveReader(path), "data.pkl", "data", {}), data


def test_scalars_strings_and_containers(tmp_path: Path):
    value = (None, True, False, 0, 255, 65535, -1, 2**31, -(2**40), 1.5, float("inf"), "a", "a", "é",
             [1, 2], {"k": [3.0]}, (), (1,), (1, 2, 3, 4), Device("cpu"), complex(1, -2))  # fmt: skip
    back, data = round_trip(tmp_path, value)
    assert back == value
    assert data.count(b"X\x01\x00\x00\x00a") == 1  # strings are memoized


def test_lists_and_dicts_carry_their_types(tmp_path: Path):
    value = ScriptObject("__torch__.M", {"sizes": [1, 2], "table": {"a": 0.5}, "empty": []})
    types = {"sizes": ts.ListType(ts.IntType()), "table": ts.DictType(ts.StrType(), ts.FloatType()),
             "empty": ts.ListType(ts.TensorType())}  # fmt: skip
    _, data = round_trip(tmp_path, value, types)
    strings = [arg for op, arg, _ in pickletools.genops(data) if op.name == "BINUNICODE"]
    assert {"List[int]", "Dict[str, float]", "List[Tensor]"} <= set(strings)


def test_shared_objects_stay_shared(tmp_path: Path):
    shared_list = [1]
    child = ScriptObject("__torch__.C", {"items": shared_list})
    root = ScriptObject("__torch__.M", {"a": child, "b": child, "c": shared_list})
    back, _ = round_trip(tmp_path, root)
    assert back.attributes["a"] is back.attributes["b"]
    assert back.attributes["c"] is back.attributes["a"].attributes["items"]


def test_tensors_keep_values_views_and_shared_storage(tmp_path: Path):
    table = np.arange(24, dtype=np.float32).reshape(4, 6)
    root = ScriptObject("__torch__.M", {
        "weight": table, "row": table[1], "columns": table[:, 1:4].T, "flags": np.array([True, False]),
        "scalar": np.array(3, dtype=np.int64), "empty": np.zeros((0, 3), np.float64),
    })  # fmt: skip
    back, data = round_trip(tmp_path, root)
    for name, value in root.attributes.items():
        np.testing.assert_array_equal(back.attributes[name], value)
        assert back.attributes[name].dtype == value.dtype
    loaded = back.attributes
    assert np.shares_memory(loaded["weight"], loaded["row"]) and np.shares_memory(
        loaded["weight"], loaded["columns"]
    )
    persistent = [arg for op, arg, _ in pickletools.genops(data) if op.name == "BINUNICODE" and arg.isdigit()]
    assert sorted(set(persistent)) == ["0", "1", "2", "3"]  # table's storage once, then the others


def test_parameters_are_pickled_as_requiring_grad(tmp_path: Path):
    root = ScriptObject("__torch__.M", {"weight": np.ones(2, np.float32), "bias": np.ones(2, np.float32)})
    _, data = round_trip(tmp_path, root)
    flags = [op.name for op, _, _ in pickletools.genops(data) if op.name in ("NEWTRUE", "NEWFALSE")]
    assert flags == ["NEWTRUE", "NEWFALSE"]


def test_values_show_their_types():
    assert value_type([1, 2]) == ts.ListType(ts.IntType())
    assert value_type({"a": np.zeros(1)}) == ts.DictType(ts.StrType(), ts.TensorType())
    assert value_type([1, "a"]) == ts.ListType(ts.AnyType())
