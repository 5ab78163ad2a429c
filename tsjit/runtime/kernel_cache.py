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

The same directory holds compiled programs (`programs/<key>.program`): what the llvm
backend's executor made of a graph for one ArgumentSpec (the optimized, fused graph in
the compact form of `tsjit.formats.compact_ir`), keyed by the graph, the ArgumentSpec,
the pipeline and policy, the target and a digest of tsjit's sources; each kernel of
such a program is also stored under a key derived from the program's (`known_key`),
with its calling signatures, so that a later process runs the program without
running the pipeline, building the kernels or printing any IR. And it holds the
compiled code of the Python source that tsjit generates (`code/<key>.code`, see
`tsjit.runtime.code_cache`).

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
from array import array
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CACHE_DIR_VARIABLE = "TSJIT_CACHE_DIR"
LOG_STEM = "kernel_cache"

_MAGIC = b"tsjit-kernels 1\n"
"""The first line of every entry: the format, changed whenever the layout changes."""
_SUFFIX = ".kernel"
_PROGRAM_MAGIC = b"tsjit-program 1\n"
_PROGRAM_SUFFIX = ".program"
_CODE_MAGIC = b"tsjit-code 1\n"
_CODE_SUFFIX = ".code"


@dataclass(frozen=True)
class CachedKernel:
    """What an entry holds: the object code, the code generation level it was made at,
    and the optimized module as LLVM bitcode."""

    object_code: bytes
    codegen_level: int
    bitcode: bytes
    signatures: bytes = b""
    """The kernels' calling signatures (pickled), in entries found by a known key:
    their IR is never built, so the signatures cannot be read from it."""


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
        self.programs = Path(directory) / "programs"
        self.code = Path(directory) / "code"
        self._prefixes = {folder: f"{folder}{os.sep}" for folder in (self.directory, self.programs, self.code)}
        """Each folder as text: a first cached call reads a few entries, and joining
        paths as strings costs a tenth of joining them as Paths."""
        self.writable = True
        self.hits = self.misses = self.stores = self.discarded = 0

    @staticmethod
    def default() -> KernelCache | None:
        """The cache of `default_directory()`: one per directory in a process, shared
        by the engines and the code cache (a failed write is not tried again); found by
        the variables that decide the directory, without making a Path each time (the
        code cache asks at every compile)."""
        environ = os.environ
        return _default_at(environ.get(CACHE_DIR_VARIABLE), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))

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

    def program_path(self, key: str) -> Path:
        return self.programs / (key + _PROGRAM_SUFFIX)

    def load(self, key: str) -> CachedKernel | None:
        """The entry of `key`, or None: absent, unreadable or corrupt (then removed)."""
        data = self._read(self._prefixes[self.directory] + key + _SUFFIX)
        entry = None if data is None else _decode(data)
        if data is not None and entry is None:
            self.discard(self.path(key), "corrupt or truncated")
        self._count(key, entry is not None)
        return entry

    def store(self, key: str, entry: CachedKernel) -> None:
        """Writes the entry of `key` atomically; on any failure the cache stops writing."""
        if self._write(self.directory, self.path(key), _encode(entry)):
            log_detail(f"stored {key[:16]} ({len(entry.object_code)} bytes of object code)")

    def load_program(self, key: str) -> bytes | None:
        """The compiled program stored under `key`, or None (a corrupt one is removed)."""
        return self._load_sealed(self.programs, _PROGRAM_SUFFIX, _PROGRAM_MAGIC, key)

    def store_program(self, key: str, program: bytes) -> None:
        if self._write(self.programs, self.program_path(key), _seal(_PROGRAM_MAGIC, program)):
            log_detail(f"stored program {key[:16]} ({len(program)} bytes)")

    def code_path(self, key: str) -> Path:
        return self.code / (key + _CODE_SUFFIX)

    def load_code(self, key: str) -> bytes | None:
        """The compiled generated Python stored under `key` (`tsjit.runtime.code_cache`),
        or None (a corrupt entry is removed)."""
        return self._load_sealed(self.code, _CODE_SUFFIX, _CODE_MAGIC, key)

    def store_code(self, key: str, code: bytes) -> None:
        if self._write(self.code, self.code_path(key), _seal(_CODE_MAGIC, code)):
            log_detail(f"stored code {key[:16]} ({len(code)} bytes)")

    def _load_sealed(self, folder: Path, suffix: str, magic: bytes, key: str) -> bytes | None:
        data = self._read(self._prefixes[folder] + key + suffix)
        body = None if data is None else _unseal(magic, data)
        if data is not None and body is None:
            self.discard(folder / (key + suffix), "corrupt or truncated")
        self._count(key, body is not None)
        return body

    @staticmethod
    def program_key(graph: bytes, *parts: object) -> str:
        """The key of the compiled program of `graph` (in compact form) made with
        `parts` (the ArgumentSpec, the pipeline, ...) by this tsjit, for this target."""
        digest = hashlib.sha256(graph)
        for part in (*target_identity(), sources_digest(), *map(repr, parts)):
            digest.update(b"\0")
            digest.update(part.encode())
        return digest.hexdigest()

    @staticmethod
    def known_key(program_key: str, *place: object) -> str:
        """The key of a kernel known by its place in a cached program (its function,
        its layout), which determine its IR: found without building that IR."""
        return hashlib.sha256("\0".join((program_key, *map(repr, place))).encode()).hexdigest()

    @staticmethod
    def _read(path: str) -> bytes | None:
        try:
            with open(path, "rb") as file:
                return file.read()
        except OSError:
            return None

    def _count(self, key: str, hit: bool) -> None:
        if hit:
            self.hits += 1
        else:
            self.misses += 1
        log_detail(f"{'hit' if hit else 'miss'} {key[:16]}")

    def _write(self, directory: Path, path: Path, data: bytes) -> bool:
        """Writes `data` to `path` atomically (a temporary file renamed into place);
        on any failure the cache stops writing. True when written."""
        if not self.writable:
            return False
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=directory)
            try:
                with os.fdopen(handle, "wb") as f:
                    f.write(data)
                os.replace(temporary, path)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError as e:
            self.writable = False
            log_detail(f"cannot write to {directory} ({e.strerror or e}): continuing without storing kernels")
            return False
        self.stores += 1
        return True

    def discard(self, path: Path, reason: str) -> None:
        """Removes a bad entry (another process may have done so already)."""
        self.discarded += 1
        _warn(f"discarding kernel cache entry {path.name}: {reason}; it will be rebuilt")
        with suppress(OSError):
            path.unlink()


@cache
def _shared_cache(directory: Path) -> KernelCache:
    return KernelCache(directory)


@cache
def _default_at(*environment: str | None) -> KernelCache | None:
    """`KernelCache.default()` under these values of its variables."""
    directory = default_directory()
    return None if directory is None else _shared_cache(directory)


# --------------------------------------------------------------------------------------
# The entry format: magic line, checksum line, header line (JSON), then the payloads
# --------------------------------------------------------------------------------------


def _seal(magic: bytes, body: bytes) -> bytes:
    return magic + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _unseal(magic: bytes, data: bytes) -> bytes | None:
    """The body of a sealed entry; None when its magic or checksum is wrong."""
    if not data.startswith(magic):
        return None
    checksum, newline, body = data[len(magic) :].partition(b"\n")
    if not newline or hashlib.sha256(body).hexdigest().encode() != checksum:
        return None
    return body


def _encode(entry: CachedKernel) -> bytes:
    sizes = {"codegen_level": entry.codegen_level, "object": len(entry.object_code), "bitcode": len(entry.bitcode)}
    if entry.signatures:
        sizes["signatures"] = len(entry.signatures)
    body = json.dumps(sizes).encode() + b"\n" + entry.object_code + entry.bitcode + entry.signatures
    return _seal(_MAGIC, body)


def _decode(data: bytes) -> CachedKernel | None:
    body = _unseal(_MAGIC, data)
    if body is None:
        return None
    header_text, newline, payload = body.partition(b"\n")
    try:
        header = json.loads(header_text)
        object_size, bitcode_size, level = header["object"], header["bitcode"], header["codegen_level"]
        signatures_size = header.get("signatures", 0)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if object_size + bitcode_size + signatures_size != len(payload) or not isinstance(level, int):
        return None
    bitcode_end = object_size + bitcode_size
    return CachedKernel(payload[:object_size], level, payload[object_size:bitcode_end], payload[bitcode_end:])


# --------------------------------------------------------------------------------------
# What object code depends on besides the IR
# --------------------------------------------------------------------------------------


@cache
def compiler_identity() -> tuple[str, ...]:
    """The target, the compilers' versions and the lowering, computed once per process."""
    return (*target_identity(), lowering_digest())


@cache
def target_identity() -> tuple[str, ...]:
    """The target (triple, CPU name and features) and the versions of llvmlite, LLVM
    and tsjit. The features as LLVM lists them: the same on every call on one host and
    LLVM (another order would only miss), and a process whose first call finds its
    program in the cache need not sort them (`host_cpu`)."""
    import llvmlite
    import llvmlite.binding as llvm

    from tsjit import __version__

    return (
        llvm.get_process_triple(),
        llvm.get_host_cpu_name(),
        _host_cpu_features(),
        f"llvmlite {llvmlite.__version__}",
        "LLVM " + ".".join(map(str, llvm.llvm_version_info)),
        f"tsjit {__version__}",
    )


@cache
def host_cpu() -> tuple[str, str]:
    """The host CPU's name and features as code generation takes them (what native
    code is made for): the features sorted by name, as llvmlite's
    `get_host_cpu_features().flatten()` gives them, without building its dictionary."""
    import llvmlite.binding as llvm

    features = filter(None, _host_cpu_features().split(","))
    return llvm.get_host_cpu_name(), ",".join(sorted(features, key=lambda feature: feature[1:]))


@cache
def _host_cpu_features() -> str:
    """LLVM's list of the host CPU's features (`+name` or `-name`, comma-separated), as
    it gives it: llvmlite's public `get_host_cpu_features` parses it into a dictionary
    first, which costs more than the rest of the target's identity."""
    import llvmlite.binding as llvm

    try:
        from llvmlite.binding import ffi

        with ffi.OutputString() as out:
            return str(out) if ffi.lib.LLVMPY_GetHostCPUFeatures(out) else ""
    except (ImportError, AttributeError):  # another llvmlite: its public (sorted) form
        return llvm.get_host_cpu_features().flatten()


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


@cache
def sources_digest() -> str:
    """A digest of every source file of tsjit (see `tree_digest`): a compiled program
    depends on every pass, so an edited tsjit misses every program stored before."""
    return tree_digest(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tree_digest(root: str) -> str:
    """A digest of the `.py` files under `root` by path, size, modification and change
    time: a stat each, no reading, which a process's first cached call pays. An edited,
    added, removed or renamed file changes it; so does a file copied in with its old
    modification time (the change time is the copy's). The directories are listed as
    they come (no sorting: another order only misses), each by descriptor, so that a
    file's stat walks one name rather than its whole path; the numbers are gathered and
    hashed once."""
    names: list[str] = []
    numbers: list[int] = []
    pending = [""]
    while pending:
        relative = pending.pop()
        directory = os.open(root + relative, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    if name.endswith(".py"):
                        stat = entry.stat()  # relative to `directory`
                        names.append(f"{relative}/{name}")
                        numbers += (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
                    elif name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                        pending.append(f"{relative}/{name}")
        finally:
            os.close(directory)
    digest = hashlib.sha256("\0".join(names).encode())
    digest.update(array("q", numbers).tobytes())
    return digest.hexdigest()


# --------------------------------------------------------------------------------------
# Logging (TSJIT_LOG_LEVEL=kernel_cache)
# --------------------------------------------------------------------------------------


def _level() -> int | None:
    from tsjit.transforms.pass_logging import LOG_LEVEL_VARIABLES, _setting

    return _level_in(_setting(LOG_LEVEL_VARIABLES)[1])


@cache
def _level_in(setting: str) -> int | None:
    """The cache's level in a `TSJIT_LOG_LEVEL` setting, parsed once per setting: every
    read of an entry asks."""
    from tsjit.transforms.pass_logging import parse_log_levels

    level = parse_log_levels(setting).get(LOG_STEM)
    return None if level is None else int(level)


def _warn(message: str) -> None:
    if _level() is not None:
        sys.stderr.write(f"[WARNING {LOG_STEM}] {message}\n")


def log_detail(message: str) -> None:
    level = _level()
    if level is not None and level >= 1:
        sys.stderr.write(f"[UPDATE {LOG_STEM}] {message}\n")
