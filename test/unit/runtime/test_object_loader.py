"""The object loader (`tsjit.runtime.object_loader`): kernels of every kind compute the
same bits loaded by it as by MCJIT, and every pointer it relocates points at what
MCJIT's points at; PC-relative code (stubs, GOT slots) from LLVM's small code model;
what it does not handle goes to MCJIT, with a line saying why; malformed objects are
refused, never loaded or handed to MCJIT; its memory is never writable and executable
at once and lives as long as the module that owns it."""

from __future__ import annotations

import ctypes
import gc
import shutil
import struct
from pathlib import Path
from typing import Any

import llvmlite.binding as llvm_binding
import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.frontend import script_source
from tsjit.runtime import llvm_jit
from tsjit.runtime import native as native_module
from tsjit.runtime import object_loader
from tsjit.runtime.kernel_cache import CachedKernel, KernelCache
from tsjit.runtime.llvm_jit import LLVMEngine
from tsjit.runtime.native import LLVMExecutor
from tsjit.runtime.object_loader import (
    LoadedObject,
    MalformedObject,
    ObjectLoadError,
    UnsupportedObject,
    load_object,
)

pytestmark = pytest.mark.skipif(not object_loader.host_supported(), reason="the loader is for Linux x86-64")

RNG = np.random.default_rng(11)

SCALAR_AND_MEMREF = """
func.func @digit_sum(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  %r:2 = scf.while (%x = %n, %sum = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %x, %c0 : i64
    scf.condition(%more) %x, %sum : i64, i64
  } do {
  ^bb0(%x: i64, %sum: i64):
    %digit = arith.remsi %x, %c10 : i64
    %rest = arith.divsi %x, %c10 : i64
    %next = arith.addi %sum, %digit : i64
    scf.yield %rest, %next : i64, i64
  }
  func.return %r#1 : i64
}

func.func @harmonic_and_roots(%n: index) -> (f64, f64, i1) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %stop = arith.addi %n, %c1 : index
  %h, %r = scf.for %i = %c1 to %stop step %c1 iter_args(%harmonic = %zero, %roots = %zero) -> (f64, f64) {
    %k = arith.index_cast %i : index to i64
    %f = arith.sitofp %k : i64 to f64
    %inverse = arith.divf %one, %f : f64
    %root = math.sqrt %f : f64
    %next_h = arith.addf %harmonic, %inverse : f64
    %next_r = arith.addf %roots, %root : f64
    scf.yield %next_h, %next_r : f64, f64
  }
  %past = arith.cmpf ogt, %h, %two : f64
  func.return %h, %r, %past : f64, f64, i1
}

func.func @angle(%y: f32, %x: f32) -> f32 {
  %a = math.atan2 %y, %x : f32
  %p = math.powf %a, %x : f32
  func.return %p : f32
}

func.func @exp_tanh(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %e = math.exp %v : f32
    %t = math.tanh %e : f32
    %m = arith.mulf %t, %a : f32
    memref.store %m, %y[%i] : memref<?xf32>
  }
  func.return
}
"""

LSTM = (Path(__file__).parents[3] / "examples" / "lstm_cell.py").read_text()
"""The LSTM demo's cell, `LSTMCellS`: one fused kernel reading the gates as chunks."""

TRANSCENDENTAL = """
import torch
def forward(x, y):
    a = torch.atan2(x, y) * torch.erf(x) + torch.log1p(torch.abs(y))
    return torch.pow(torch.abs(a) + 0.5, y) - torch.sinh(x) * torch.fmod(y, 0.7)
"""

SCALAR = """
import math
def forward(a: int, b: int, x: float):
    while b != 0:
        a, b = b, a % b
    y = x
    for i in range(a):
        y = y * 0.5 + math.sqrt(abs(y)) - math.atan(i / 3)
    return a, y, a > 3, math.floor(y)
"""


def floats(*shape: int) -> np.ndarray:
    return RNG.uniform(-2, 2, size=shape).astype(np.float32)


def lstm_inputs(batch: int, hidden: int, features: int) -> list[np.ndarray]:
    gates = 4 * hidden
    shapes = [(batch, features), (batch, hidden), (batch, hidden), (gates, features), (gates, hidden)]
    return [floats(*s) for s in shapes] + [floats(gates), floats(gates)]


EXECUTOR_CASES: dict[str, tuple[str, str, list[list[Any]], bool]] = {
    "lstm_chunked": (LSTM, "LSTMCellS", [lstm_inputs(3, 5, 4)], False),
    "lstm_staged": (LSTM, "LSTMCellS", [lstm_inputs(3, 5, 4)], True),
    "transcendental": (TRANSCENDENTAL, "forward", [[floats(37), floats(37)], [floats(4, 9), floats(9)]], False),
    "scalar_loops": (SCALAR, "forward", [[48, 18, 2.5], [-12, 8, -1.0], [7, 0, 0.25]], False),
}
"""By case: source, entry, the runs' arguments, and whether chunked inputs are staged."""


def same_bits(a: Any, b: Any) -> bool:
    if isinstance(a, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_bits, a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return type(a) is type(b) and struct.pack("<d", float(a)) == struct.pack("<d", float(b))


def mcjit_forbidden(*_: Any) -> None:
    raise AssertionError("MCJIT loaded code the object loader should have")


def loader_forbidden(*_: Any) -> None:
    raise AssertionError("the object loader ran with object_loader=False")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kernels")


@pytest.mark.parametrize("case", EXECUTOR_CASES)
def test_executor_kernels_compute_the_same_bits_as_under_mcjit(case: str, cache_dir: Path) -> None:
    """The first executor compiles its kernels and loads them with the loader; the second
    finds them in the disk cache and loads them with MCJIT."""
    source, entry, runs, staged = EXECUTOR_CASES[case]
    module = script_source(make_context(), source, f"{case}.py", entry)
    with pytest.MonkeyPatch.context() as patch:
        if staged:
            patch.setattr(native_module, "STAGE_FROM_BYTES", 0)
        patch.setattr(llvm_jit, "_execution_engine", mcjit_forbidden)
        loaded = LLVMExecutor(module, entry, engine=LLVMEngine(disk_cache=KernelCache(cache_dir / case)))
        ours = [loaded(*args) for args in runs]
        patch.setattr(llvm_jit, "_execution_engine", TRUE_EXECUTION_ENGINE)
        patch.setattr(llvm_jit, "load_object", loader_forbidden)
        engine = LLVMEngine(disk_cache=KernelCache(cache_dir / case), object_loader=False)
        theirs = [LLVMExecutor(module, entry, engine=engine)(*args) for args in runs]
    assert all(map(same_bits, ours, theirs)), (ours, theirs)
    statistics = loaded.statistics()
    assert statistics["fallbacks"] == 0
    assert statistics["kernel_calls"] + statistics["scalar_calls"] == len(runs)
    assert engine.disk_cache is not None and engine.disk_cache.hits >= 1


TRUE_EXECUTION_ENGINE = llvm_jit._execution_engine


@pytest.fixture(scope="module")
def compiled(cache_dir: Path) -> llvm_jit.CompiledModule:
    module = parse_mlir(make_context(), SCALAR_AND_MEMREF, "kernels.mlir")
    return LLVMEngine(disk_cache=KernelCache(cache_dir / "engine")).compile(module)


def test_engine_kernels_compute_the_same_bits_as_under_mcjit(compiled: llvm_jit.CompiledModule) -> None:
    assert isinstance(compiled.code, LoadedObject)
    assert compiled.entry is not None
    signatures = compiled.signatures
    theirs = LLVMEngine(disk_cache=None, object_loader=False)._load(compiled.entry, signatures)
    assert theirs is not None and isinstance(theirs.code, llvm_binding.ExecutionEngine)
    for n in (0, 7, 837799, 2**62):
        assert compiled["digit_sum"](n) == theirs["digit_sum"](n) == sum(map(int, str(n)))
    for n in (0, 1, 1000):
        assert same_bits(compiled["harmonic_and_roots"](n), theirs["harmonic_and_roots"](n))
    assert compiled["harmonic_and_roots"](4) == (1 + 1 / 2 + 1 / 3 + 1 / 4, 1 + 2**0.5 + 3**0.5 + 2.0, True)
    for size in (0, 5, 1001):
        x = floats(size)
        ours, theirs_y = np.empty_like(x), np.empty_like(x)
        compiled["exp_tanh"](x, ours, 1.5)
        theirs["exp_tanh"](x, theirs_y, 1.5)
        assert same_bits(ours, theirs_y)
        np.testing.assert_allclose(ours, np.tanh(np.exp(x.astype(np.float64))) * 1.5, rtol=1e-5, atol=1e-6)


def test_every_relocated_pointer_points_where_mcjits_does(compiled: llvm_jit.CompiledModule) -> None:
    """Section by section, the loaded code equals MCJIT's byte for byte, except at the
    relocated fields, whose pointers reach the same external symbol or equal bytes."""
    assert compiled.entry is not None
    code = compiled.entry.object_code
    ours = load_object(code)
    theirs = llvm_jit._execution_engine(code)
    loader = object_loader._Loader(code)
    relocations = loader._relocations()
    assert relocations, "the kernels' code refers to constants and libm"
    functions = {s.section: s for s in loader.symbols if s.bind == 1 and s.type == 2}
    checked = 0
    for index, symbol in functions.items():
        section = loader.sections[index]
        ours_at = ours.get_function_address(symbol.name) - symbol.value
        theirs_at = theirs.get_function_address(symbol.name) - symbol.value
        mine = bytearray(ctypes.string_at(ours_at, section.size))
        other = bytearray(ctypes.string_at(theirs_at, section.size))
        for target, offset, sym, how, addend in relocations:
            if target is not section:
                continue
            assert how.name == "R_X86_64_64"
            pointer, their_pointer = (struct.unpack_from("<Q", memory, offset)[0] for memory in (mine, other))
            referenced = loader.symbols[sym]
            if referenced.section == 0:
                assert pointer == their_pointer == object_loader.process_symbol(referenced.name)
            else:
                left = loader.sections[referenced.section].size - referenced.value - addend
                assert 0 < left and pointer != their_pointer
                assert ctypes.string_at(pointer, left) == ctypes.string_at(their_pointer, left), offset
            mine[offset : offset + 8] = other[offset : offset + 8] = bytes(8)
            checked += 1
        assert mine == other
    assert checked == len(relocations)


SMALL_MODEL_IR = """
@table = internal constant [4 x float] [float 1.5, float -2.0, float 0.25, float 8.0]
@environ = external global ptr
declare float @expf(float)

define float @pick(i64 %i, float %x) {
  %p = getelementptr [4 x float], ptr @table, i64 0, i64 %i
  %v = load float, ptr %p
  %e = call float @expf(float %x)
  %r = fmul float %v, %e
  ret float %r
}

define ptr @environment() {
  %e = load ptr, ptr @environ
  ret ptr %e
}

define ptr @exp_address() {
  ret ptr @expf
}
"""


def test_small_code_model_through_stubs_and_got_slots() -> None:
    """Position-independent code of the small model: the call to `expf` goes through a
    stub (PLT32), `environ` and `expf`'s address through GOT slots, the table PC32."""
    llvm_jit._initialize_llvm()
    machine = llvm_binding.Target.from_default_triple().create_target_machine(
        opt=2, reloc="pic", codemodel="small", jit=False
    )
    module = llvm_binding.parse_assembly(SMALL_MODEL_IR)
    module.triple = machine.triple
    object_code = machine.emit_object(module)
    kinds = {how.name for _, _, _, how, _ in object_loader._Loader(object_code)._relocations()}
    assert {"R_X86_64_PLT32", "R_X86_64_PC32", "R_X86_64_REX_GOTPCRELX"} <= kinds
    ours, theirs = load_object(object_code), llvm_jit._execution_engine(object_code)
    process = ctypes.CDLL(None)
    address_getter = ctypes.CFUNCTYPE(ctypes.c_void_p)
    expf_address = ctypes.cast(process.expf, ctypes.c_void_p).value
    assert address_getter(ours.get_function_address("exp_address"))() == expf_address
    environ = ctypes.c_void_p.in_dll(process, "environ").value
    assert address_getter(ours.get_function_address("environment"))() == environ
    pick = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64, ctypes.c_float)
    ours_pick, theirs_pick = (pick(code.get_function_address("pick")) for code in (ours, theirs))
    expf = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)(expf_address)
    table = np.float32([1.5, -2.0, 0.25, 8.0])
    for i, x in [(0, 0.0), (1, 1.0), (2, -3.5), (3, 0.125)]:
        assert ours_pick(i, x) == theirs_pick(i, x) == table[i] * np.float32(expf(x))


def test_what_the_loader_does_not_handle_falls_back_to_mcjit(
    compiled: llvm_jit.CompiledModule, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    assert compiled.entry is not None
    monkeypatch.delitem(object_loader.RELOCATIONS, 1)
    monkeypatch.setenv("TSJIT_LOG_LEVEL", ">kernel_cache")
    capfd.readouterr()
    fallback = LLVMEngine(disk_cache=None)._load(compiled.entry, compiled.signatures)
    assert fallback is not None and isinstance(fallback.code, llvm_binding.ExecutionEngine)
    assert fallback["digit_sum"](837799) == 43
    lines = capfd.readouterr().err.splitlines()
    assert lines == ["[UPDATE kernel_cache] object code loaded by MCJIT: relocation type 1 in .rela.ltext"]


def test_unknown_relocations_hosts_and_symbols_are_unsupported(
    compiled: llvm_jit.CompiledModule, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compiled.entry is not None
    code = compiled.entry.object_code
    loader = object_loader._Loader(code)
    rela = next(s for s in loader.sections if s.name == ".rela.ltext")
    unknown = bytearray(code)
    unknown[rela.offset + 8] = 99  # the first relocation's type
    with pytest.raises(UnsupportedObject, match="relocation type 99 in .rela.ltext"):
        load_object(bytes(unknown))
    external = next(s.name for s in loader.symbols if s.section == 0 and s.name)
    names = next(s for s in loader.sections if s.name == ".strtab")
    renamed = bytearray(code)
    at = code.find(b"\0" + external.encode() + b"\0", names.offset) + 1
    renamed[at : at + len(external)] = b"Q" * len(external)
    with pytest.raises(UnsupportedObject, match="the process has no symbol 'QQQ"):
        load_object(bytes(renamed))
    monkeypatch.setattr(object_loader, "host_supported", lambda: False)
    with pytest.raises(UnsupportedObject, match="not Linux x86-64"):
        load_object(code)


def test_malformed_objects_are_refused(compiled: llvm_jit.CompiledModule) -> None:
    """Every truncation is refused as malformed; garbled headers, section headers,
    symbols and relocations are refused or loaded, never anything else."""
    assert compiled.entry is not None
    code = compiled.entry.object_code
    for length in range(0, len(code), 13):
        with pytest.raises(MalformedObject):
            load_object(code[:length])
    loader = object_loader._Loader(code)
    structure = [range(64)] + [
        range(s.offset, s.offset + s.size) for s in loader.sections if s.type in (2, 3, 4)
    ]
    shoff = struct.unpack_from("<Q", code, 40)[0]
    structure.append(range(shoff, len(code)))
    positions = [p for r in structure for p in r]
    garbled = np.random.default_rng(3)
    outcomes = set()
    for _ in range(400):
        damaged = bytearray(code)
        for p in garbled.choice(positions, size=3):
            damaged[p] = int(garbled.integers(256))
        try:
            load_object(bytes(damaged))
            outcomes.add("loaded")
        except ObjectLoadError as e:
            outcomes.add(type(e).__name__)
    assert {"MalformedObject", "UnsupportedObject"} <= outcomes


def test_a_malformed_cache_entry_is_rebuilt_not_given_to_mcjit(
    compiled: llvm_jit.CompiledModule,
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The entry's checksum holds (what it stores is truncated), so only the loader
    can tell: MCJIT would crash on it."""
    entry = compiled.entry
    assert entry is not None
    shutil.copytree(cache_dir / "engine", tmp_path, dirs_exist_ok=True)
    cache = KernelCache(tmp_path)
    (path,) = cache.directory.iterdir()
    key = path.name.removesuffix(".kernel")
    cache.store(key, CachedKernel(entry.object_code[:-40], entry.codegen_level, entry.bitcode))
    module = parse_mlir(make_context(), SCALAR_AND_MEMREF, "kernels.mlir")
    monkeypatch.setattr(llvm_jit, "_execution_engine", mcjit_forbidden)
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "kernel_cache")
    capfd.readouterr()
    rebuilt = LLVMEngine(disk_cache=KernelCache(tmp_path)).compile(module)
    assert rebuilt["digit_sum"](837799) == 43
    warning = f"discarding kernel cache entry {path.name}: its object code could not be loaded"
    assert warning in capfd.readouterr().err
    assert KernelCache(tmp_path).load(key) == entry


def permissions(address: int) -> str | None:
    """The permissions of the mapping of this process holding `address`."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        span, perms = line.split()[:2]
        low, high = (int(part, 16) for part in span.split("-"))
        if low <= address < high:
            return perms
    return None


def test_memory_is_never_writable_and_executable_and_lives_with_its_module(
    compiled: llvm_jit.CompiledModule,
) -> None:
    assert compiled.entry is not None
    loader = object_loader._Loader(compiled.entry.object_code)
    compiled = LLVMEngine(disk_cache=None)._load(compiled.entry, compiled.signatures)
    assert compiled is not None and isinstance(compiled.code, LoadedObject)
    (function,) = (s for s in loader.symbols if s.name == "digit_sum")
    kernel = compiled["digit_sum"]
    start = kernel.address - function.value
    constants = [
        struct.unpack_from("<Q", ctypes.string_at(start + offset, 8))[0]
        for target, offset, sym, _, _ in loader._relocations()
        if target.index == function.section and loader.symbols[sym].section != 0
    ]
    assert constants and {permissions(pointer) for pointer in constants} == {"r--p"}
    assert permissions(kernel.address) == "r-xp"
    del compiled
    gc.collect()
    assert permissions(kernel.address) == "r-xp" and kernel(837799) == 43  # the kernel keeps its module alive
    address = kernel.address
    del kernel
    gc.collect()
    assert permissions(address) is None
