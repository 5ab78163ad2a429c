"""The program cache: a second executor (or process) of the llvm backend loads the
specialized graph and its kernels that the first stored, without running the pipeline,
building kernel IR or compiling; other graphs, ArgumentSpecs and pipelines miss; a
damaged entry is discarded with a warning and rebuilt; concurrent writers leave
complete entries; a directory that cannot be written means no cache."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.frontend import script_source
from tsjit.runtime import executor, kernel_cache, llvm_jit, native
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernel_cache import KernelCache
from tsjit.runtime.llvm_jit import LLVMEngine
from tsjit.runtime.native import LLVMExecutor

SOURCE = """
import torch


def f(x, y):
    return torch.sigmoid(x) * y + 1.0


def g(x, y):
    return torch.tanh(x) * y + 1.0
"""

X = np.linspace(-2.0, 2.0, 12, dtype=np.float32).reshape(3, 4)
Y = np.full((3, 4), 0.5, dtype=np.float32)


def expected(x: np.ndarray = X) -> np.ndarray:
    return (1 / (1 + np.exp(-x.astype(np.float64))) * 0.5 + 1.0).astype(x.dtype)


def call(directory: Path, name: str = "f", x: np.ndarray = X, **options: object) -> tuple[np.ndarray, KernelCache]:
    """Scripts `name`, runs it on a fresh engine over the cache in `directory`."""
    cache = KernelCache(directory)
    module = script_source(make_context(), SOURCE, "program.py", name)
    run = LLVMExecutor(module, name, engine=LLVMEngine(disk_cache=cache), **options)  # pyright: ignore[reportArgumentType]
    return run(x, Y.astype(x.dtype)), cache


def programs(directory: Path) -> list[Path]:
    return sorted((directory / "programs").glob("*.program"))


def no_specializing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes any pipeline run, kernel build or LLVM compile fail the test."""
    monkeypatch.setattr(executor, "PassPipeline", lambda *a: pytest.fail("ran the pipeline of a cached program"))
    monkeypatch.setattr(native, "fusion_kernel", lambda *a: pytest.fail("built the kernel of a cached program"))
    monkeypatch.setattr(llvm_jit, "_optimize", lambda *a: pytest.fail("compiled a cached kernel"))


def test_a_second_executor_loads_the_program_instead_of_specializing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, cache = call(tmp_path)
    np.testing.assert_allclose(first, expected(), rtol=1e-6)
    assert len(programs(tmp_path)) == 1 and cache.stores == 3  # the program, its kernel by IR and by place
    no_specializing(monkeypatch)
    second, cache = call(tmp_path)
    np.testing.assert_array_equal(second, first)
    assert (cache.hits, cache.misses, cache.stores) == (2, 0, 0)


def test_a_loaded_program_reads_its_fused_groups_bodies_only_when_it_needs_them(tmp_path: Path) -> None:
    """The kernel runs without the group's body; a call the kernel cannot take runs the
    body in the interpreter and raises what an uncached executor raises; `graph_for`
    shows the whole graph, as the executor that stored it does."""
    module = script_source(make_context(), SOURCE, "program.py", "f")
    first = LLVMExecutor(module, "f", engine=LLVMEngine(disk_cache=KernelCache(tmp_path)))
    first(X, Y)
    loaded = LLVMExecutor(module, "f", engine=LLVMEngine(disk_cache=KernelCache(tmp_path)))
    np.testing.assert_allclose(loaded(X, Y), expected(), rtol=1e-6)
    (program,) = loaded.programs
    assert program.is_declaration("f.fusion0") is False
    assert program._functions["f.fusion0"].is_declaration  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(TorchScriptError) as raised:
        loaded(X, np.ones((5, 4), np.float32))  # shapes that do not broadcast: the interpreter's error
    with pytest.raises(TorchScriptError) as uncached:
        LLVMExecutor(module, "f", engine=LLVMEngine(disk_cache=None))(X, np.ones((5, 4), np.float32))
    assert str(raised.value) == str(uncached.value)
    assert str(loaded.graph_for(X, Y)) == str(first.graph_for(X, Y))


@pytest.mark.parametrize("change", ["cpu", "llvmlite", "tsjit", "sources"])
def test_a_changed_target_compiler_or_tsjit_misses(
    tmp_path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a later process on another CPU, with other versions or an edited tsjit
    sees: every entry misses, except kernels by their IR for an edited tsjit (a
    kernel's IR and the lowering's own digest determine its code)."""
    call(tmp_path)
    if change == "sources":
        monkeypatch.setattr(kernel_cache, "sources_digest", lambda: "an edited tsjit")
    else:
        identity = list(kernel_cache.target_identity())  # triple, CPU, its features, llvmlite, LLVM, tsjit
        position = {"cpu": 1, "llvmlite": 3, "tsjit": 5}[change]
        identity[position] += " (changed)"
        monkeypatch.setattr(kernel_cache, "target_identity", lambda: tuple(identity))
        compiler = (*identity, kernel_cache.lowering_digest())
        monkeypatch.setattr(kernel_cache, "compiler_identity", lambda: compiler)
    result, cache = call(tmp_path)
    np.testing.assert_allclose(result, expected(), rtol=1e-6)
    assert len(programs(tmp_path)) == 2
    assert cache.hits == (1 if change == "sources" else 0)


def test_other_graphs_specs_and_pipelines_miss(tmp_path: Path) -> None:
    call(tmp_path)
    call(tmp_path, "g")
    wide, _ = call(tmp_path, x=X.astype(np.float64))
    np.testing.assert_allclose(wide, expected(X.astype(np.float64)), rtol=1e-12)
    call(tmp_path, pipeline="torchscript-cleanup")
    assert len(programs(tmp_path)) == 4
    _, cache = call(tmp_path, x=X.astype(np.float64))
    assert cache.stores == 0


@pytest.mark.parametrize("damage", ["flip", "truncate", "kernel"])
def test_a_damaged_entry_is_discarded_with_a_warning_and_rebuilt(
    tmp_path: Path, damage: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    call(tmp_path)
    (program,) = programs(tmp_path)
    kernels = sorted((tmp_path / "kernels").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    entry = kernels[-1] if damage == "kernel" else program  # the kernel stored by its place, last
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2] if damage == "truncate" else data[:-30] + bytes([data[-30] ^ 1]) + data[-29:])
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "kernel_cache")
    capfd.readouterr()
    result, cache = call(tmp_path)
    np.testing.assert_allclose(result, expected(), rtol=1e-6)
    warnings = [line for line in capfd.readouterr().err.splitlines() if "kernel_cache" in line]
    assert len(warnings) == 1 and warnings[0].startswith("[WARNING kernel_cache] discarding kernel cache entry")
    assert cache.discarded == 1 and cache.stores >= 1
    no_specializing(monkeypatch)
    _, cache = call(tmp_path)  # rebuilt whole
    assert cache.hits == 2


def test_concurrent_writers_leave_complete_entries(tmp_path: Path) -> None:
    """Executors specializing one program at once into one fresh cache: all compute
    the right result, one entry per key remains, no temporary file is left behind,
    and a later executor loads them."""
    start = threading.Barrier(3)
    results: list[np.ndarray] = []

    def write() -> None:
        start.wait()
        results.append(call(tmp_path)[0])

    writers = [threading.Thread(target=write) for _ in range(3)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    assert len(results) == 3
    for result in results:
        np.testing.assert_allclose(result, expected(), rtol=1e-6)
    files = [p.name for p in tmp_path.rglob("*") if p.is_file()]
    assert not [name for name in files if name.endswith(".tmp")]
    assert len(programs(tmp_path)) == 1
    _, cache = call(tmp_path)
    assert (cache.hits, cache.discarded) == (2, 0)


def test_a_directory_that_cannot_be_written_means_no_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result, cache = call(blocker / "cache")
    np.testing.assert_allclose(result, expected(), rtol=1e-6)
    assert not cache.writable and cache.stores == 0


def test_no_program_cache_where_the_key_would_not_describe_the_specialization(tmp_path: Path) -> None:
    from xdsl.passes import ModulePass

    class Plugin(ModulePass):
        name = "plugin"

        def apply(self, ctx: object, op: object) -> None:
            pass

    module = script_source(make_context(), SOURCE, "program.py", "f")
    engine = LLVMEngine(disk_cache=KernelCache(tmp_path))
    assert LLVMExecutor(module, "f", engine=engine)._programs is not None  # pyright: ignore[reportPrivateUsage]
    assert LLVMExecutor(module, "f", pipeline=[Plugin()], engine=engine)._programs is None  # pyright: ignore[reportPrivateUsage]
    assert LLVMExecutor(module, "f", engine=engine, autograd=True)._programs is None  # pyright: ignore[reportPrivateUsage]
    assert LLVMExecutor(module, "f", engine=LLVMEngine(disk_cache=None))._programs is None  # pyright: ignore[reportPrivateUsage]
