"""The persistent kernel cache: native object code on disk, so that a process compiling
a kernel that an earlier process compiled pays no LLVM compile.

    TSJIT_CACHE_DIR=/path/to/dir      # default: $XDG_CACHE_HOME/tsjit, else ~/.cache/tsjit
    TSJIT_CACHE_DIR=                  # empty: no disk cache
    TSJIT_LOG_LEVEL=kernel_cache      # one line per discarded entry; `>kernel_cache`:
                                      # also every hit, miss and store

An entry is the object code LLVM made of one module, keyed by the SHA-256 of the
module's IR together with everything else the code depends on: the optimization and
code generation levels, the target (triple, CPU name and features), the versions of
llvmlite, LLVM and tsjit, and a digest of tsjit's lowering sources (so that a changed
lowering never meets code it did not make). It also holds the optimized LLVM module as
bitcode, read only when someone asks for the optimized IR.

Entries are written to a temporary file in the cache directory and renamed into place,
so concurrent writers of one key each leave a complete entry and readers never see a
partial one. Every entry carries a checksum: a corrupt or truncated one is discarded
(with a warning) and rebuilt. A directory that cannot be created or written degrades to
no cache (entries already there are still read); a failure of the cache is never the
caller's failure.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CACHE_DIR_VARIABLE = "TSJIT_CACHE_DIR"
LOG_STEM = "kernel_cache"

_MAGIC = b"tsjit-kernels 1\n"
"""The first line of every entry: the format, changed whenever the layout changes."""
_SUFFIX = ".kernel"


@dataclass(frozen=True)
class CachedKernel:
    """What an entry holds: the object code, the code generation level it was made at,
    and the optimized module as LLVM bitcode."""

    object_code: bytes
    codegen_level: int
    bitcode: bytes


def default_directory() -> Path | None:
    """Where the cache lives for this process's environment; None when disabled."""
    value = os.environ.get(CACHE_DIR_VARIABLE)
    if value is not None:
        return Path(value).expanduser() if value.strip() else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tsjit"


class KernelCache:
    """A directory of entries (`kernels/<key>.kernel`). `hits`, `misses` and `stores`
    count this instance's traffic; `writable` turns False after the first failed write."""

    def __init__(self, directory: Path | str):
        self.directory = Path(directory) / "kernels"
        self.writable = True
        self.hits = self.misses = self.stores = self.discarded = 0

    @staticmethod
    def default() -> KernelCache | None:
        directory = default_directory()
        return None if directory is None else KernelCache(directory)

    def key(self, text: str, *settings: object) -> str:
        """The key of a module's IR `text` compiled with `settings` (levels, options),
        for this target and these versions of the compilers."""
        digest = hashlib.sha256()
        for part in (*compiler_identity(), *map(repr, settings), text):
            digest.update(part.encode())
            digest.update(b"\0")
        return digest.hexdigest()

    def path(self, key: str) -> Path:
        return self.directory / (key + _SUFFIX)

    def load(self, key: str) -> CachedKernel | None:
        """The entry of `key`, or None: absent, unreadable or corrupt (then removed)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            self.misses += 1
            _log_detail(f"miss {key[:16]}")
            return None
        entry = _decode(data)
        if entry is None:
            self.discard(path, "corrupt or truncated")
            self.misses += 1
            return None
        self.hits += 1
        _log_detail(f"hit {key[:16]}")
        return entry

    def store(self, key: str, entry: CachedKernel) -> None:
        """Writes the entry of `key` atomically; on any failure the cache stops writing."""
        if not self.writable:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(handle, "wb") as f:
                    f.write(_encode(entry))
                os.replace(temporary, self.path(key))
            except BaseException:
                with suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as e:
            self.writable = False
            _log_detail(f"cannot write to {self.directory} ({e.strerror or e}): continuing without storing kernels")
            return
        self.stores += 1
        _log_detail(f"stored {key[:16]} ({len(entry.object_code)} bytes of object code)")

    def discard(self, path: Path, reason: str) -> None:
        """Removes a bad entry (another process may have done so already)."""
        self.discarded += 1
        _warn(f"discarding kernel cache entry {path.name}: {reason}; it will be rebuilt")
        with suppress(OSError):
            path.unlink()


# --------------------------------------------------------------------------------------
# The entry format: magic line, checksum line, header line (JSON), then the payloads
# --------------------------------------------------------------------------------------


def _encode(entry: CachedKernel) -> bytes:
    header = json.dumps(
        {"codegen_level": entry.codegen_level, "object": len(entry.object_code), "bitcode": len(entry.bitcode)}
    ).encode()
    body = header + b"\n" + entry.object_code + entry.bitcode
    return _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _decode(data: bytes) -> CachedKernel | None:
    if not data.startswith(_MAGIC):
        return None
    checksum, newline, body = data[len(_MAGIC) :].partition(b"\n")
    if not newline or hashlib.sha256(body).hexdigest().encode() != checksum:
        return None
    header_text, newline, payload = body.partition(b"\n")
    try:
        header = json.loads(header_text)
        object_size, bitcode_size, level = header["object"], header["bitcode"], header["codegen_level"]
    except (ValueError, KeyError, TypeError):
        return None
    if object_size + bitcode_size != len(payload) or not isinstance(level, int):
        return None
    return CachedKernel(payload[:object_size], level, payload[object_size:])


# --------------------------------------------------------------------------------------
# What object code depends on besides the IR
# --------------------------------------------------------------------------------------


@cache
def compiler_identity() -> tuple[str, ...]:
    """The target and the compilers' versions, computed once per process."""
    import llvmlite
    import llvmlite.binding as llvm

    from tsjit import __version__

    return (
        llvm.get_process_triple(),
        llvm.get_host_cpu_name(),
        llvm.get_host_cpu_features().flatten(),
        f"llvmlite {llvmlite.__version__}",
        "LLVM " + ".".join(map(str, llvm.llvm_version_info)),
        f"tsjit {__version__}",
        lowering_digest(),
    )


@cache
def lowering_digest() -> str:
    """A digest of the sources that turn a module into object code (the lowering passes
    and the engine): an edited lowering misses every entry made before."""
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "transforms" / "lowering").glob("*.py"))
    files.append(root / "runtime" / "llvm_jit.py")
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------
# Logging (TSJIT_LOG_LEVEL=kernel_cache)
# --------------------------------------------------------------------------------------


def _level() -> int | None:
    from tsjit.transforms.pass_logging import LOG_LEVEL_VARIABLES, _setting, parse_log_levels

    level = parse_log_levels(_setting(LOG_LEVEL_VARIABLES)[1]).get(LOG_STEM)
    return None if level is None else int(level)


def _warn(message: str) -> None:
    if _level() is not None:
        sys.stderr.write(f"[WARNING {LOG_STEM}] {message}\n")


def _log_detail(message: str) -> None:
    level = _level()
    if level is not None and level >= 1:
        sys.stderr.write(f"[UPDATE {LOG_STEM}] {message}\n")
