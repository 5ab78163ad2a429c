"""The restricted unpickler: only the globals TorchScript's pickler writes, the archive's
classes as objects, nothing from the file ever run; tensors as views of their storages,
with shared storages sharing memory and every view checked to lie inside its storage."""

from __future__ import annotations

import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest

from tsjit.formats.archive.layout import ArchiveError, ArchiveReader, ArchiveWriter
from tsjit.formats.archive.unpickler import EnumValue, LoadedObject, unpickle
from tsjit.runtime.values import Device


def archive(tmp_path: Path, pickle_bytes: bytes, storages: dict[str, bytes] | None = None) -> ArchiveReader:
    path = tmp_path / "model.pt"
    with ArchiveWriter(path, "model") as writer:
        for key, data in (storages or {}).items():
            writer.write(f"data/{key}", data)
        writer.write("data.pkl", pickle_bytes)
    return ArchiveReader(path)


def load(tmp_path: Path, pickle_bytes: bytes, storages: dict[str, bytes] | None = None) -> object:
    return unpickle(archive(tmp_path, pickle_bytes, storages), "data.pkl", "data", {})


class Runs:
    """Pickles as a call of `os.system`: what a malicious archive would hold."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_global_outside_the_allow_list_is_refused_and_nothing_runs(tmp_path: Path):
    marker = tmp_path / "ran"
    with pytest.raises(ArchiveError) as error:
        load(tmp_path, pickle.dumps(Runs(marker), protocol=2))
    assert "model/data.pkl: refusing the global" in str(error.value)
    assert "system" in str(error.value) and "nothing was run" in str(error.value)
    assert not marker.exists()


@pytest.mark.parametrize("protocol", [0, 2, 4])
def test_every_pickle_protocol_goes_through_the_allow_list(tmp_path: Path, protocol: int):
    with pytest.raises(ArchiveError, match=r"refusing the global '(__builtin__|builtins)\.eval'"):
        load(tmp_path, pickle.dumps(eval, protocol=protocol))


def test_what_tsjit_cannot_represent_is_named(tmp_path: Path):
    data = b"\x80\x02ctorch._utils\n_rebuild_qtensor\n)R."
    with pytest.raises(
        ArchiveError, match=r"quantized tensors are not supported \('torch._utils._rebuild_qtensor'\)"
    ):
        load(tmp_path, data)


def test_a_malformed_pickle_is_one_error(tmp_path: Path):
    with pytest.raises(ArchiveError, match="model/data.pkl: malformed pickle"):
        load(tmp_path, b"\x80\x02}q\x00(X")


def test_classes_become_objects_and_enums_values(tmp_path: Path):
    data = (
        b"\x80\x02c__torch__.m\nNet\n)\x81}(X\x01\x00\x00\x00aK\x03X\x01\x00\x00\x00b"
        b"c__torch__.m\nColor\nK\x02\x85Ru" + b"b."
    )
    root = load(tmp_path, data)
    assert isinstance(root, LoadedObject) and root.qualified_name == "__torch__.m.Net"
    assert root.attributes == {"a": 3, "b": EnumValue("__torch__.m.Color", 2)}


def test_devices_type_tags_and_complex_numbers(tmp_path: Path):
    data = (
        b"\x80\x02(ctorch\ndevice\nX\x03\x00\x00\x00cpu\x85R"
        b"ctorch.jit._pickle\nrestore_type_tag\n]K\x01a"
        b"X\t\x00\x00\x00List[int]\x86R"
        b"cbuiltins\ncomplex\nG?\xf0\x00\x00\x00\x00\x00\x00G@\x00\x00\x00\x00\x00\x00\x00\x86Rt."
    )
    assert load(tmp_path, data) == (Device("cpu"), [1], complex(1.0, 2.0))


def tensor_pickle(key: str, numel: int, offset: int, sizes: tuple[int, ...], strides: tuple[int, ...],
                  storage: str = "FloatStorage") -> bytes:  # fmt: skip
    """`_rebuild_tensor_v2` of a storage, as TorchScript's pickler writes it."""

    def ints(values: tuple[int, ...]) -> bytes:
        return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in values) + b"t"

    return (
        b"ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
        + f"ctorch\n{storage}\n".encode()
        + b"X" + struct.pack("<I", len(key)) + key.encode()
        + b"X\x03\x00\x00\x00cpu" + b"J" + struct.pack("<i", numel) + b"tQ"
        + b"J" + struct.pack("<i", offset) + ints(sizes) + ints(strides)
        + b"\x89ccollections\nOrderedDict\n)RtR"
    )  # fmt: skip


def test_tensors_sharing_a_storage_share_memory(tmp_path: Path):
    values = np.arange(12, dtype=np.float32)
    data = (
        b"\x80\x02("
        + tensor_pickle("0", 12, 0, (3, 4), (4, 1))
        + tensor_pickle("0", 12, 4, (4, 2), (1, 4))
        + b"t."
    )
    whole, transposed = load(tmp_path, data, {"0": values.tobytes()})
    np.testing.assert_array_equal(whole, values.reshape(3, 4))
    np.testing.assert_array_equal(transposed, values.reshape(3, 4)[1:, :].T)
    assert np.shares_memory(whole, transposed)
    whole[1, 0] = -1.0
    assert transposed[0, 0] == -1.0


@pytest.mark.parametrize(
    ("storage", "dtype"),
    [("DoubleStorage", np.float64), ("LongStorage", np.int64), ("BoolStorage", np.bool_),
     ("HalfStorage", np.float16), ("ByteStorage", np.uint8), ("IntStorage", np.int32)],
)  # fmt: skip
def test_storage_types_give_their_dtypes(tmp_path: Path, storage: str, dtype: type):
    values = np.array([1, 0, 1, 1], dtype=dtype)
    data = b"\x80\x02" + tensor_pickle("0", 4, 0, (4,), (1,), storage) + b"."
    loaded = load(tmp_path, data, {"0": values.tobytes()})
    assert loaded.dtype == values.dtype
    np.testing.assert_array_equal(loaded, values)


def test_a_view_past_its_storage_is_refused(tmp_path: Path):
    data = b"\x80\x02" + tensor_pickle("0", 4, 2, (2, 2), (2, 1)) + b"."
    with pytest.raises(ArchiveError, match="reads past the end of its storage of 4 elements"):
        load(tmp_path, data, {"0": bytes(16)})


def test_a_storage_smaller_than_its_pickle_says_is_refused(tmp_path: Path):
    data = b"\x80\x02" + tensor_pickle("0", 8, 0, (8,), (1,)) + b"."
    with pytest.raises(ArchiveError, match="model/data/0: holds 16 bytes, its tensors need 32"):
        load(tmp_path, data, {"0": bytes(16)})


def test_a_missing_storage_names_the_member(tmp_path: Path):
    data = b"\x80\x02" + tensor_pickle("7", 4, 0, (4,), (1,)) + b"."
    with pytest.raises(ArchiveError, match="model/data/7: missing from the archive"):
        load(tmp_path, data)


def test_bfloat16_is_refused(tmp_path: Path):
    data = b"\x80\x02" + tensor_pickle("0", 2, 0, (2,), (1,), "BFloat16Storage") + b"."
    with pytest.raises(ArchiveError, match="bfloat16 tensors are not supported"):
        load(tmp_path, data, {"0": bytes(4)})


def test_big_endian_storages_are_read_in_native_order(tmp_path: Path):
    values = np.array([1.5, -2.0], dtype=">f4")
    reader = archive(
        tmp_path, b"\x80\x02" + tensor_pickle("0", 2, 0, (2,), (1,)) + b".", {"0": values.tobytes()}
    )
    loaded = unpickle(reader, "data.pkl", "data", {}, byteorder="big")
    assert loaded.dtype == np.float32 and loaded.dtype.isnative
    np.testing.assert_array_equal(loaded, [1.5, -2.0])
