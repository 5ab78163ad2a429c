"""The persistent kernel cache: a second engine (or process) loads the object code the
first one stored instead of compiling; entries are keyed by IR and settings; corrupt
and truncated entries are discarded with a warning and rebuilt; concurrent writers
leave one complete entry; a directory that cannot be written degrades to no cache;
the target and the sources key what depends on them."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime import llvm_jit
from tsjit.runtime.kernel_cache import (
    CachedKernel,
    KernelCache,
    default_directory,
    host_cpu,
    target_identity,
    tree_digest,
)
from tsjit.runtime.llvm_jit import LLVMEngine

SOURCE = """
func.func @affine(%x: memref<?xf64>, %y: memref<?xf64>, %a: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %m = arith.mulf %v, %a : f64
    memref.store %m, %y[%i] : memref<?xf64>
    %next = arith.addf %acc, %m : f64
    scf.yield %next : f64
  }
  func.return %s : f64
}
"""


def module(source: str = SOURCE):
    return parse_mlir(make_context(), source, "<test>")


def run(engine: LLVMEngine) -> None:
    """Compiles and calls the kernel; it must compute the right thing whichever way
    its code was obtained."""
    x = np.arange(5.0)
    y = np.zeros(5)
    total = engine.compile(module())["affine"](x, y, 3.0)
    np.testing.assert_array_equal(y, 3.0 * x)
    assert total == 30.0


def entries(directory: Path) -> list[Path]:
    return sorted((directory / "kernels").iterdir())


def test_a_second_engine_loads_instead_of_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = LLVMEngine(disk_cache=KernelCache(tmp_path))
    run(first)
    assert (first.disk_cache.misses, first.disk_cache.stores) == (1, 1)
    assert len(entries(tmp_path)) == 1
    monkeypatch.setattr(llvm_jit, "lower_to_llvm", lambda m: pytest.fail("compiled a cached kernel"))
    monkeypatch.setattr(llvm_jit, "_optimize", lambda *a: pytest.fail("compiled a cached kernel"))
    second = LLVMEngine(disk_cache=KernelCache(tmp_path))
    run(second)
    assert (second.disk_cache.hits, second.disk_cache.stores) == (1, 0)
    compiled = second.compile(module())
    assert compiled.is_vectorized("affine") in (True, False)  # the optimized IR comes from the entry
    assert "define" in compiled.optimized_ir and "@affine" in compiled.optimized_ir


CHILD_PRELUDE = (
    "import numpy as np\n"
    "from tsjit.context import make_context\n"
    "from tsjit.formats.mlir import parse_mlir\n"
    "from tsjit.runtime.llvm_jit import LLVMEngine\n"
    f"m = parse_mlir(make_context(), {SOURCE!r}, 't')\n"
)
"""What a child process runs before compiling SOURCE (as `m`)."""

def test_a_second_process_loads_instead_of_compiling(tmp_path: Path) -> None:
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))
    script = (
        CHILD_PRELUDE +
        "y = np.zeros(3)\n"
        "print(LLVMEngine().compile(m)['affine'](np.ones(3), y, 2.0), y.tolist())\n"
    )
    env = dict(os.environ, TSJIT_CACHE_DIR=str(tmp_path), TSJIT_LOG_LEVEL=">kernel_cache")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["6.0", "[2.0,", "2.0,", "2.0]"]
    assert "[UPDATE kernel_cache] hit " in result.stderr
    assert "stored" not in result.stderr


def test_keys_separate_ir_and_settings(tmp_path: Path) -> None:
    cache = KernelCache(tmp_path)
    text = str(module())
    keys = {cache.key(text, 3, 10_000), cache.key(text, 2, 10_000), cache.key(text, 3, 10), cache.key(text + " ", 3, 10_000)}
    assert len(keys) == 4
    assert cache.key(text, 3, 10_000) == KernelCache(tmp_path / "other").key(text, 3, 10_000)
    run(LLVMEngine(opt_level=3, disk_cache=cache))
    run(LLVMEngine(opt_level=2, disk_cache=cache))
    assert cache.misses == 2 and len(entries(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "foreign"])
def test_a_damaged_entry_is_discarded_with_a_warning_and_rebuilt(
    tmp_path: Path, damage: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))
    (entry,) = entries(tmp_path)
    data = entry.read_bytes()
    damaged = {
        "flip": data[:-40] + bytes([data[-40] ^ 0x10]) + data[-39:],
        "truncate": data[: len(data) // 2],
        "empty": b"",
        "foreign": b"\x7fELF" + data[4:],
    }[damage]
    entry.write_bytes(damaged)
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "kernel_cache")
    capfd.readouterr()
    cache = KernelCache(tmp_path)
    engine = LLVMEngine(disk_cache=cache)
    run(engine)
    warnings = [line for line in capfd.readouterr().err.splitlines() if "kernel_cache" in line]
    assert len(warnings) == 1 and warnings[0].startswith("[WARNING kernel_cache] discarding kernel cache entry")
    assert (cache.discarded, cache.stores) == (1, 1)
    assert entry.read_bytes() == data  # rebuilt: the same code as before
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))


def test_the_warning_needs_the_log_level(tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TSJIT_LOG_LEVEL", raising=False)
    monkeypatch.delenv("PYTORCH_JIT_LOG_LEVEL", raising=False)
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))
    (entry,) = entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:100])
    capfd.readouterr()
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))
    assert capfd.readouterr().err == ""


def test_concurrent_writers_leave_one_complete_entry(tmp_path: Path) -> None:
    """Processes compiling one kernel at once into one fresh cache: all succeed, one
    entry remains, no temporary file is left behind, and the entry loads."""
    script = (
        CHILD_PRELUDE +
        "y = np.zeros(4)\n"
        "assert LLVMEngine().compile(m)['affine'](np.ones(4), y, 1.5) == 6.0\n"
    )
    env = dict(os.environ, TSJIT_CACHE_DIR=str(tmp_path))
    writers = [subprocess.Popen([sys.executable, "-c", script], env=env) for _ in range(2)]
    assert [w.wait() for w in writers] == [0, 0]
    assert [p.suffix for p in entries(tmp_path)] == [".kernel"]
    cache = KernelCache(tmp_path)
    run(LLVMEngine(disk_cache=cache))
    assert cache.hits == 1


def test_readers_never_see_a_partial_entry(tmp_path: Path) -> None:
    """Threads storing entries of different sizes under one key while others read:
    every read is absent or complete, never damaged."""
    cache = KernelCache(tmp_path)
    key = cache.key("module", 3)
    payloads = [CachedKernel(bytes([n]) * (n * 50_000 + 1), n % 4, b"bc" * n) for n in range(1, 6)]
    damaged: list[CachedKernel | None] = []
    done = threading.Event()

    def write(entry: CachedKernel) -> None:
        for _ in range(20):
            cache.store(key, entry)

    def read() -> None:
        while not done.is_set():
            entry = cache.load(key)
            if entry is not None and entry not in payloads:
                damaged.append(entry)

    readers = [threading.Thread(target=read) for _ in range(2)]
    writers = [threading.Thread(target=write, args=(p,)) for p in payloads]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    done.set()
    for t in readers:
        t.join()
    assert damaged == [] and cache.discarded == 0
    assert cache.load(key) in payloads
    assert [p.name for p in entries(tmp_path)] == [key + ".kernel"]


def test_a_directory_that_cannot_be_written_means_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = KernelCache(blocker / "cache")
    engine = LLVMEngine(disk_cache=cache)
    run(engine)
    run(engine)  # the engine's own cache still serves this process
    assert not cache.writable and cache.stores == 0 and engine.hits == 1


def test_a_read_only_directory_is_read_but_not_written(
    tmp_path: Path, read_only: Callable[[Path], AbstractContextManager[None]]
) -> None:
    run(LLVMEngine(disk_cache=KernelCache(tmp_path)))
    with read_only(tmp_path / "kernels"):
        cache = KernelCache(tmp_path)
        run(LLVMEngine(disk_cache=cache))
        assert cache.hits == 1
        cache.store(cache.key("other", 3), CachedKernel(b"x", 3, b""))
        assert not cache.writable


def test_where_the_cache_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path / "mine"))
    assert default_directory() == tmp_path / "mine"
    monkeypatch.setenv("TSJIT_CACHE_DIR", "")
    assert default_directory() is None and LLVMEngine().disk_cache is None
    monkeypatch.delenv("TSJIT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "tsjit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_directory() == tmp_path / "home" / ".cache" / "tsjit"


def test_the_host_cpu_is_what_llvmlite_reports() -> None:
    """The features code generation gets are llvmlite's flattened (sorted) form, though
    made without its dictionary; the identity keys them as LLVM lists them."""
    import llvmlite.binding as llvm

    assert host_cpu() == (llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    triple, cpu, features, *versions = target_identity()
    assert (triple, cpu) == (llvm.get_process_triple(), llvm.get_host_cpu_name())
    assert sorted(features.split(",")) == sorted(host_cpu()[1].split(","))
    assert [v.split()[0] for v in versions] == ["llvmlite", "LLVM", "tsjit"]


def test_the_sources_digest_changes_with_every_edited_added_removed_or_renamed_source(tmp_path: Path) -> None:
    root = tmp_path / "package"
    (root / "inner" / "__pycache__").mkdir(parents=True)
    source = root / "inner" / "module.py"
    source.write_text("x = 1\n")
    (root / "top.py").write_text("y = 2\n")
    digests = [tree_digest(str(root))]
    assert tree_digest(str(root)) == digests[0]
    (root / "notes.txt").write_text("not a source")
    (root / "inner" / "__pycache__" / "module.cpython.py").write_text("not a source either")
    assert tree_digest(str(root)) == digests[0]

    def changed() -> bool:
        digests.append(tree_digest(str(root)))
        return digests[-1] not in digests[:-1]

    time.sleep(0.02)  # past the clock tick of the files' times
    before = source.stat()
    source.write_text("x = 3\n")  # the same size ...
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))  # ... and modification time
    assert changed()
    (root / "inner" / "other.py").write_text("")
    assert changed()
    source.rename(root / "inner" / "renamed.py")
    assert changed()
    (root / "top.py").unlink()
    assert changed()
