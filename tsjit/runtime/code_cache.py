"""Python source that tsjit generates, compiled once: the runtime generates straight-line
code (interpreter steps, call plans of fused groups and their keys), and `compile`
costs 60–300 µs a function, more than running it ever does. Each source compiles once
per process; its code object is also stored in the kernel cache's directory
(`code/<key>.code`, marshalled), so that a later process generating the same source
reads it back instead (the LSTM cell's first call compiles five).

    code = compile_generated(source, "<fused group call>")
    exec(code, namespace)

The key is the source, its file name and the Python that compiled it (implementation
and bytecode magic number); the entries share the kernel cache's safety (atomic writes,
checksums, a directory that cannot be written means no storing, `TSJIT_CACHE_DIR=`
turns the disk off).
"""

from __future__ import annotations

import hashlib
import importlib.util
import marshal
import sys
from functools import lru_cache
from types import CodeType

from tsjit.runtime.kernel_cache import KernelCache

_PYTHON = f"{sys.implementation.name} {importlib.util.MAGIC_NUMBER.hex()}"
"""Which bytecode a marshalled code object holds."""


@lru_cache(maxsize=4096)
def compile_generated(source: str, filename: str) -> CodeType:
    """`compile(source, filename, "exec")`, from this process's earlier compile of the
    same source or from the disk cache when there is one."""
    disk = _disk()
    if disk is None:
        return compile(source, filename, "exec")
    key = code_key(source, filename)
    data = disk.load_code(key)
    if data is not None:
        try:
            code = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            code = None
        if isinstance(code, CodeType) and code.co_filename == filename:
            return code
        disk.discard(disk.code_path(key), "not a code object")
    code = compile(source, filename, "exec")
    disk.store_code(key, marshal.dumps(code))
    return code


def code_key(source: str, filename: str) -> str:
    return hashlib.sha256(f"{_PYTHON}\0{filename}\0{source}".encode()).hexdigest()


def _disk() -> KernelCache | None:
    return KernelCache.default()
