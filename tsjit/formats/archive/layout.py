"""The zip container of a TorchScript archive, read and written as PyTorch's
`PyTorchStreamReader` / `PyTorchStreamWriter` do.

    model/version              archive format version (or model/.data/version)
    model/byteorder            "little" or "big" (storages' byte order; little when absent)
    model/data.pkl             the module object tree
    model/constants.pkl        tensor constants of code/ (`CONSTANTS.c0`)
    model/code/__torch__/...   TorchScript source of the classes and functions
    model/data/<key>           raw storage bytes of data.pkl's tensors
    model/constants/<key>      ... and of constants.pkl's
    model/extra/<name>         user files (`_extra_files`)
    model/.data/serialization_id

Every record sits under one top-level directory (its name is free). Storage records are
stored uncompressed at 64-byte aligned offsets, so the reader maps the file once and
hands out each storage as a view of the mapping: no copy, pages read when first used.
The mapping is copy-on-write (writes to loaded tensors never reach the file).
"""

from __future__ import annotations

import mmap
import os
import struct
import zipfile
import zlib
from dataclasses import dataclass

from tsjit.diagnostics import SourceLocation, TsjitError

ALIGNMENT = 64
"""Storage records start at multiples of this offset (PyTorch's kFieldAlignment)."""

_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_PAD_FIELD_ID = 0x4246  # "FB": the extra field PyTorch pads local headers with


class ArchiveError(TsjitError):
    """Bad archive input: reported as `model.pt: error: <member>: message`."""

    def __init__(self, path: str, message: str, member: str | None = None):
        super().__init__(f"{member}: {message}" if member else message, SourceLocation(str(path), 0))
        self.member = member


@dataclass(frozen=True)
class Record:
    """One member: where its bytes are in the file and how they are stored."""

    name: str  # full member name, with the top-level directory
    data_offset: int
    stored_size: int
    size: int
    compressed: bool
    crc: int


class ArchiveReader:
    """The records of an archive file, their bytes read from one copy-on-write mapping."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        try:
            with open(self.path, "rb") as file:
                self.size = os.fstat(file.fileno()).st_size
                if self.size == 0:
                    raise ArchiveError(self.path, "empty file, not a TorchScript archive")
                self.buffer = _map(file)
                try:
                    infos = zipfile.ZipFile(file).infolist()
                except (zipfile.BadZipFile, OSError, ValueError, EOFError):
                    raise ArchiveError(
                        self.path, "not a zip archive (truncated, or not a TorchScript archive)"
                    ) from None
        except OSError as error:
            raise ArchiveError(self.path, f"cannot read the file: {error.strerror or error}") from None
        if not infos:
            raise ArchiveError(self.path, "the zip archive is empty, not a TorchScript archive")
        self.prefix = infos[0].filename.split("/", 1)[0] + "/"
        self.infos = {}
        for info in infos:
            if not info.filename.startswith(self.prefix):
                raise ArchiveError(self.path, f"'{info.filename}' lies outside the archive's directory "
                                              f"'{self.prefix}': not a TorchScript archive")  # fmt: skip
            self.infos[info.filename[len(self.prefix) :]] = info
        self._records: dict[str, Record] = {}

    # -- records ---------------------------------------------------------------------------

    def has(self, name: str) -> bool:
        return name in self.infos

    def names(self, under: str = "") -> list[str]:
        """Record names (without the top-level directory) starting with `under`."""
        return [n for n in self.infos if n.startswith(under) and not n.endswith("/")]

    def member(self, name: str) -> str:
        """The full member name of record `name`, as errors show it."""
        return self.prefix + name

    def record(self, name: str) -> Record:
        known = self._records.get(name)
        if known is not None:
            return known
        info = self.infos.get(name)
        if info is None:
            raise ArchiveError(self.path, "missing from the archive", self.member(name))
        start = info.header_offset
        header = self.buffer[start : start + _LOCAL_HEADER.size]
        if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise ArchiveError(self.path, "corrupt zip entry (bad local header)", info.filename)
        *_, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        data_offset = start + _LOCAL_HEADER.size + name_length + extra_length
        if data_offset + info.compress_size > self.size:
            raise ArchiveError(self.path, "truncated: the file ends inside this record", info.filename)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ArchiveError(
                self.path, f"unsupported zip compression method {info.compress_type}", info.filename
            )
        record = Record(info.filename, data_offset, info.compress_size, info.file_size,
                        info.compress_type == zipfile.ZIP_DEFLATED, info.CRC)  # fmt: skip
        self._records[name] = record
        return record

    def read(self, name: str) -> bytes:
        """A record's bytes, checked against its CRC (for pickles, code and text)."""
        record = self.record(name)
        data = self._bytes(record)
        if zlib.crc32(data) != record.crc:
            raise ArchiveError(self.path, "corrupt: the data does not match its CRC", record.name)
        return data

    def read_text(self, name: str) -> str:
        try:
            return self.read(name).decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError(self.path, "not UTF-8 text", self.member(name)) from None

    def view(self, name: str, alignment: int) -> memoryview | bytes:
        """A record's bytes without a copy when it is stored uncompressed at an offset
        that is a multiple of `alignment`; a copy otherwise. Not CRC-checked: storages
        are read when used, not at load."""
        record = self.record(name)
        if not record.compressed and record.data_offset % alignment == 0:
            return memoryview(self.buffer)[record.data_offset : record.data_offset + record.size]
        return self._bytes(record)

    def _bytes(self, record: Record) -> bytes:
        stored = self.buffer[record.data_offset : record.data_offset + record.stored_size]
        if not record.compressed:
            return bytes(stored)
        try:
            data = zlib.decompress(stored, -15)
        except zlib.error as error:
            raise ArchiveError(self.path, f"corrupt compressed data ({error})", record.name) from None
        if len(data) != record.size:
            raise ArchiveError(
                self.path, "corrupt: decompressed size differs from the directory's", record.name
            )
        return data


def _map(file) -> mmap.mmap | bytes:
    """The whole file, mapped copy-on-write; read into memory where mapping fails."""
    try:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):
        file.seek(0)
        return file.read()


# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


class ArchiveWriter:
    """Writes records uncompressed, each one's data at a 64-byte aligned offset; every
    record under `<name>/`. Deterministic: fixed timestamps, records in write order."""

    def __init__(self, path: str | os.PathLike[str], name: str):
        self.path = os.fspath(path)
        self.prefix = name + "/"
        self.zip = zipfile.ZipFile(self.path, "w", zipfile.ZIP_STORED, allowZip64=True)
        self.written: set[str] = set()

    def write(self, name: str, data: bytes | memoryview) -> None:
        if name in self.written:
            raise ValueError(f"record {name} written twice")
        self.written.add(name)
        info = zipfile.ZipInfo(self.prefix + name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        info.create_system = 0
        size = len(data) if isinstance(data, bytes) else data.nbytes
        zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # zipfile adds its zip64 field then
        position = self.zip.fp.tell()  # pyright: ignore[reportOptionalMemberAccess]
        header_end = position + _LOCAL_HEADER.size + len(info.filename.encode("utf-8"))
        header_end += 20 if zip64 else 0
        padding = (-(header_end + 4)) % ALIGNMENT
        info.extra = struct.pack("<HH", _PAD_FIELD_ID, padding) + b"Z" * padding
        with self.zip.open(info, "w", force_zip64=zip64) as out:
            out.write(data)

    def close(self) -> None:
        self.zip.close()

    def __enter__(self) -> ArchiveWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
