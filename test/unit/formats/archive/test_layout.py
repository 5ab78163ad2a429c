"""The zip container: records read by name under the archive's directory, storages as
views of the mapped file when stored aligned, copies otherwise; written records are
uncompressed and 64-byte aligned; damaged files are one-line errors naming the member."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from tsjit.formats.archive.layout import ALIGNMENT, ArchiveError, ArchiveReader, ArchiveWriter

from .conftest import rewrite


def test_records_are_named_without_the_archive_directory(linear_relu: Path):
    reader = ArchiveReader(linear_relu)
    assert reader.prefix == "module_linear_relu/"
    assert {"data.pkl", "constants.pkl", "version", "data/0", "data/1"} <= set(reader.names())
    assert reader.read_text("version").strip().isdigit()
    assert reader.member("data.pkl") == "module_linear_relu/data.pkl"


def test_pytorch_stores_storages_aligned_and_they_are_read_without_a_copy(linear_relu: Path):
    reader = ArchiveReader(linear_relu)
    record = reader.record("data/0")
    assert record.data_offset % ALIGNMENT == 0 and not record.compressed
    view = reader.view("data/0", 4)
    assert isinstance(view, memoryview)
    array = np.frombuffer(view, np.float32)
    mapped = np.frombuffer(reader.buffer, np.uint8)
    assert np.shares_memory(array, mapped)
    assert array.flags.writeable  # copy-on-write: the file is never written


def test_compressed_records_are_decompressed(linear_relu: Path, tmp_path: Path):
    copy = rewrite(linear_relu, tmp_path / "deflated.pt", lambda name, data: data, zipfile.ZIP_DEFLATED)
    reader, original = ArchiveReader(copy), ArchiveReader(linear_relu)
    assert reader.record("data/0").compressed
    assert bytes(reader.view("data/0", 4)) == bytes(original.view("data/0", 4))
    assert reader.read("data.pkl") == original.read("data.pkl")


def test_written_records_are_aligned_and_uncompressed(tmp_path: Path):
    path = tmp_path / "out.pt"
    with ArchiveWriter(path, "out") as writer:
        for i, size in enumerate((1, 63, 64, 100, 1000)):
            writer.write(f"data/{i}", bytes(range(256))[: size % 256] * (size // 256 + 1))
        writer.write("version", b"3\n")
    reader = ArchiveReader(path)
    for name in reader.names("data/"):
        record = reader.record(name)
        assert record.data_offset % ALIGNMENT == 0 and not record.compressed
        assert reader.read(name) == bytes(reader.view(name, 1))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file, not a TorchScript archive"),
        (
            b"graph(%x : Tensor):\n  return (%x)\n",
            "not a zip archive (truncated, or not a TorchScript archive)",
        ),
    ],
)
def test_files_that_are_not_archives_are_refused(tmp_path: Path, content: bytes, message: str):
    path = tmp_path / "model.pt"
    path.write_bytes(content)
    with pytest.raises(ArchiveError) as error:
        ArchiveReader(path)
    assert error.value.format() == f"{path}: error: {message}"


def test_a_truncated_archive_is_refused(linear_relu: Path, tmp_path: Path):
    path = tmp_path / "model.pt"
    path.write_bytes(linear_relu.read_bytes()[:600])
    with pytest.raises(ArchiveError, match="not a zip archive"):
        ArchiveReader(path)


def test_a_record_cut_short_names_the_member(linear_relu: Path):
    reader = ArchiveReader(linear_relu)
    reader.infos["data/0"].compress_size = reader.size  # the directory claims more than the file holds
    with pytest.raises(
        ArchiveError, match="module_linear_relu/data/0: truncated: the file ends inside this record"
    ):
        reader.record("data/0")


def test_corrupt_pickles_fail_their_crc(linear_relu: Path, tmp_path: Path):
    reader = ArchiveReader(linear_relu)
    record = reader.record("data.pkl")
    data = bytearray(linear_relu.read_bytes())
    data[record.data_offset + 5] ^= 0xFF
    path = tmp_path / "model.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(
        ArchiveError, match="module_linear_relu/data.pkl: corrupt: the data does not match its CRC"
    ):
        ArchiveReader(path).read("data.pkl")


def test_members_outside_the_archive_directory_are_refused(tmp_path: Path):
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("model/version", "3")
        z.writestr("elsewhere/data.pkl", b"")
    with pytest.raises(ArchiveError, match="'elsewhere/data.pkl' lies outside the archive's directory"):
        ArchiveReader(path)
