"""Native kernels: modules of func/scf/arith/math/memref (or llvm) ops compiled by LLVM for
the host CPU through llvmlite, loaded by `object_loader` (by MCJIT what it does not
handle), and called on numpy arrays through ctypes.

    engine = LLVMEngine()
    kernel = engine.compile(module)["gelu"]     # lowered, optimized at O3, cached
    kernel(x, y)                                # numpy arrays for memrefs, numbers for scalars
    run = kernel.bind(x, y); run()              # the same call with its arguments prepared once

Arguments follow `calling_convention`: a memref parameter takes a numpy array whose
dtype, rank and static sizes match the type and whose strides match the layout (C order
for the identity layout). Calls cost 1.7 µs with two arrays, 0.5 µs prepared by `bind`.

Compiling: convert-to-llvm, then LLVM's O3 pipeline (loop and SLP vectorization on) for
the host CPU. A module of more than `large_module_ops` ops gets code generation level 0,
as LLVM's code generator takes superlinear time on very large functions (a 20K-op
function: 0.64 s at level 3, 0.03 s at level 0; its lowering in xDSL, about 0.2 ms per
op, costs more than either). Compiled modules are cached by the SHA-256 of their text,
which includes every signature: in the engine for this process, and as object code in
the persistent `KernelCache` (`TSJIT_CACHE_DIR`, see `kernel_cache`) for the next ones,
which then only load the code.

Splitting a 1-D elementwise kernel over threads (`SplitCall`: `Kernel.split_call`, and
the native executors' `threads=`) pays off only on large arrays: ctypes releases the GIL
while the kernel runs.
"""

from __future__ import annotations

import ctypes
import hashlib
import pickle
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, replace
from functools import cache, cached_property, partial
from typing import Any

import llvmlite.binding as llvm_binding
import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
    i64,
)
from xdsl.ir import Attribute, Block, Region
from xdsl.traits import SymbolTable

from tsjit.runtime.kernel_cache import CachedKernel, KernelCache, host_cpu, log_detail
from tsjit.runtime.object_loader import LoadedObject, MalformedObject, ObjectLoadError, load_object
from tsjit.transforms.lowering.calling_convention import (
    POINTER,
    KernelSignature,
    MemRefDescriptor,
    kernel_signature,
)
from tsjit.transforms.lowering.convert_to_llvm import ConvertToLLVMPass
from tsjit.transforms.lowering.llvm_export import convert_module


class LLVMEngine:
    """Owns every compiled module (the kernel cache of this process, backed by the
    persistent `KernelCache` on disk) and the thread pool of `Kernel.split_call`."""

    def __init__(
        self,
        *,
        opt_level: int = 3,
        threads: int = 1,
        split_threshold: int = 1 << 20,
        large_module_ops: int = 10_000,
        disk_cache: KernelCache | None | bool = True,
        object_loader: bool = True,
    ):
        self.opt_level = opt_level
        self.threads = threads
        self.split_threshold = split_threshold
        self.large_module_ops = large_module_ops
        self.disk_cache = KernelCache.default() if disk_cache is True else disk_cache or None
        """Where object code persists across processes (`TSJIT_CACHE_DIR`); None: nowhere."""
        self.object_loader = object_loader
        """Whether object code is loaded by `object_loader` (MCJIT only for what it
        does not handle), or always by MCJIT."""
        self.hits = self.misses = 0
        self._cache: dict[str, CompiledModule] = {}
        self._known: dict[str, CompiledModule] = {}
        """By `KernelCache.known_key`: modules found without their IR (`compile_known`)."""
        self._pool: ThreadPoolExecutor | None = None
        self._pool_size = 0

    def compile(self, module: ModuleOp) -> CompiledModule:
        """Compiles every function of `module` (not modified), or returns the compiled
        module of the same text: this process's if it has one, else the disk cache's."""
        text = str(module)
        key = hashlib.sha256(f"O{self.opt_level}\n{text}".encode()).hexdigest()
        if (compiled := self._cache.get(key)) is not None:
            self.hits += 1
            return compiled
        self.misses += 1
        signatures = kernel_signatures(module)
        disk = self.disk_cache
        disk_key = disk.key(text, self.opt_level, self.large_module_ops) if disk is not None else None
        compiled = None
        if disk is not None and disk_key is not None and (cached := disk.load(disk_key)) is not None:
            compiled = self._load(cached, signatures)
            if compiled is None:
                disk.discard(disk.path(disk_key), "its object code could not be loaded")
        if compiled is None:
            compiled, entry = self._build(module, signatures)
            if disk is not None and disk_key is not None:
                disk.store(disk_key, entry)
        self._cache[key] = compiled
        return compiled

    def compile_known(
        self, program_key: str, place: tuple[object, ...], build: Callable[[], ModuleOp]
    ) -> CompiledModule:
        """The compiled module that `build` makes, known by its `place` in the cached
        program `program_key` (which, with the place, determines it): a process that
        compiled it before loads its code and signatures without building, printing or
        lowering any IR."""
        disk = self.disk_cache
        if disk is None:
            return self.compile(build())
        key = disk.known_key(program_key, *place, self.opt_level, self.large_module_ops)
        if (compiled := self._known.get(key)) is not None:
            self.hits += 1
            return compiled
        entry = disk.load(key)
        if entry is not None:
            compiled = self._load_known(entry)
            if compiled is None:
                disk.discard(disk.path(key), "its code or signatures could not be loaded")
            else:
                self.misses += 1
        if compiled is None:
            compiled = self.compile(build())
            with suppress(pickle.PicklingError, TypeError, AttributeError):  # unpicklable: not stored
                if compiled.entry is not None:
                    disk.store(key, replace(compiled.entry, signatures=pickle.dumps(compiled.signatures)))
        self._known[key] = compiled
        return compiled

    def _load_known(self, entry: CachedKernel) -> CompiledModule | None:
        try:
            signatures = pickle.loads(entry.signatures)  # noqa: S301 -- our own cache, beside the code it runs
        except Exception:  # noqa: BLE001 -- whatever a damaged pickle raises: the entry is rebuilt
            return None
        if not isinstance(signatures, dict):
            return None
        return self._load(entry, signatures)

    def _build(
        self, module: ModuleOp, signatures: dict[str, KernelSignature]
    ) -> tuple[CompiledModule, CachedKernel]:
        """Lowers, optimizes and compiles `module`: its compiled form and cache entry."""
        lowered = lower_to_llvm(module)
        _add_results_entries(lowered, signatures)
        size = sum(1 for _ in lowered.walk())
        codegen_level = self.opt_level if size <= self.large_module_ops else 0
        machine = _target_machine(codegen_level)
        optimized = _optimize(_parse(str(convert_module(lowered)), machine), machine, self.opt_level)
        entry = CachedKernel(machine.emit_object(optimized), codegen_level, optimized.as_bitcode())
        code = self._native_code(entry.object_code, from_llvm=True)
        assert code is not None  # what MCJIT refuses of LLVM's own code raises
        return CompiledModule(self, code, signatures, codegen_level, optimized, entry=entry), entry

    def _load(self, entry: CachedKernel, signatures: dict[str, KernelSignature]) -> CompiledModule | None:
        """The compiled module of a cache entry; None when its code cannot be loaded
        or lacks a function of `signatures`."""
        code = self._native_code(entry.object_code)
        if code is None:
            return None
        if isinstance(code, LoadedObject) and any(
            _entry_name(name, signature) not in code.symbols for name, signature in signatures.items()
        ):
            log_detail("object code not loaded: it lacks functions of its signatures")
            return None
        return CompiledModule(self, code, signatures, entry.codegen_level, bitcode=entry.bitcode, entry=entry)

    def _native_code(self, object_code: bytes, *, from_llvm: bool = False) -> NativeCode | None:
        """`object_code` in executable memory: loaded by `object_loader`, or by MCJIT
        when the loader does not handle it. Code from the disk cache that the loader
        finds malformed is not given to MCJIT, which trusts an object's structure and
        would crash on it: None (also when MCJIT refuses code from the disk cache)."""
        if self.object_loader:
            try:
                return load_object(object_code)
            except ObjectLoadError as e:
                if isinstance(e, MalformedObject) and not from_llvm:
                    log_detail(f"object code not loaded: {e}")
                    return None
                log_detail(f"object code loaded by MCJIT: {e}")
        try:
            return _execution_engine(object_code)
        except (RuntimeError, OSError, ValueError):
            if from_llvm:
                raise
            return None

    def pool(self, threads: int) -> ThreadPoolExecutor:
        if self._pool is None or self._pool_size < threads:
            if self._pool is not None:
                self._pool.shutdown()
            self._pool = ThreadPoolExecutor(threads, thread_name_prefix="tsjit-kernel")
            self._pool_size = threads
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


NativeCode = LoadedObject | llvm_binding.ExecutionEngine
"""Object code in executable memory, by `object_loader` or by MCJIT: it lives as long
as this object does, and gives its functions' addresses (`get_function_address`)."""


class CompiledModule:
    """The machine code of one module: its kernels by name, and the optimized IR (kept
    as a module, or as bitcode when the code came from the disk cache)."""

    def __init__(
        self,
        engine: LLVMEngine,
        code: NativeCode,
        signatures: dict[str, KernelSignature],
        codegen_level: int,
        optimized: llvm_binding.ModuleRef | None = None,
        bitcode: bytes = b"",
        entry: CachedKernel | None = None,
    ):
        self.engine = engine
        self.entry = entry
        """What the disk cache holds of this module (kept to store it under more keys)."""
        self.signatures = signatures
        self.codegen_level = codegen_level
        self.code = code
        """Owns the memory the kernels point into (the kernels keep this module alive)."""
        self._optimized = optimized
        self._bitcode = bitcode
        self._kernels: dict[str, Kernel] = {}

    def __getitem__(self, name: str) -> Kernel:
        """The kernel of function `name`, made on first use (a function whose types
        ctypes cannot pass, such as f16 scalars, can still be called from native code)."""
        if (kernel := self._kernels.get(name)) is None:
            signature = self.signatures[name]
            address = self.code.get_function_address(_entry_name(name, signature))
            kernel = self._kernels[name] = Kernel(self, signature, address)
        return kernel

    @property
    def optimized(self) -> llvm_binding.ModuleRef:
        """The module as LLVM's optimizer left it."""
        if self._optimized is None:
            self._optimized = llvm_binding.parse_bitcode(self._bitcode)
        return self._optimized

    @property
    def optimized_ir(self) -> str:
        return str(self.optimized)

    def is_vectorized(self, name: str) -> bool:
        """Whether LLVM turned any of the function's code into vector instructions."""
        return _VECTOR_TYPE.search(str(self.optimized.get_function(name))) is not None


_VECTOR_TYPE = re.compile(r"<\d+ x (?:float|double|half|bfloat|i\d+)>")


class Kernel:
    """One compiled function. `call(*args)` (also `kernel(*args)`) takes numpy arrays
    for memrefs and numbers for scalars; `raw` is the ctypes function on the native
    arguments (pointers as ints, and first a pointer to the result struct for several
    results); `bind(*args)` prepares a call once."""

    def __init__(self, module: CompiledModule, signature: KernelSignature, address: int):
        self.module = module
        self.signature = signature
        self.address = address
        argtypes = [_ctype(t) for t in signature.native_parameters]
        self._results, unpack_struct = _results_struct(signature.results)
        if self._results is not None:
            restype, self._unpack = None, unpack_struct
            argtypes.insert(0, ctypes.c_void_p)
        elif signature.results:
            restype, self._unpack = _ctype(signature.results[0]), _scalar_conversion(signature.results[0])
        else:
            restype, self._unpack = None, _identity
        self.raw = ctypes.CFUNCTYPE(restype, *argtypes)(address)

    @cached_property
    def native_arguments(self) -> Callable[..., list[Any]]:
        """The native arguments of a call on `args`, checked (see `_entry_points`)."""
        return self._entry_points[0]

    @cached_property
    def call(self) -> Callable[..., Any]:
        """The call on numpy arrays and numbers."""
        return self._entry_points[1]

    @cached_property
    def _entry_points(self) -> tuple[Callable[..., list[Any]], Callable[..., Any]]:
        """Generated on first use: fused groups call `raw` with the arguments they
        prepared, and generating the entry points of every kernel that a cached program
        loads would cost its first call more than the rest of loading the kernel."""
        return _entry_points(self.signature, self.raw, self._unpack, self._results)

    def __call__(self, *args: Any) -> Any:
        return self.call(*args)

    def bind(self, *args: Any) -> Callable[[], Any]:
        """The call on these arguments, prepared once: the arrays must stay alive and
        unmoved while the result is used."""
        natives = self.native_arguments(*args)
        if self._results is None:
            call = partial(self.raw, *natives)
            return call if self._unpack is _identity else lambda: self._unpack(call())
        results = self._results()
        fill = partial(self.raw, ctypes.addressof(results), *natives)
        return lambda: (fill(), self._unpack(results))[1]

    def split_call(self, *args: Any, threads: int | None = None) -> None:
        """Runs a 1-D elementwise kernel (every memref parameter of rank 1 and dynamic
        size, all of one length, element i depending only on elements i) on slices of
        the arrays in parallel; a plain call below the engine's `split_threshold`."""
        natives = self.native_arguments(*args)
        plan = _split_plan(self.signature)
        length = natives[plan[0].size]
        if any(natives[p.size] != length for p in plan):
            raise ValueError(f"@{self.signature.name}: split_call needs arrays of one length")
        engine = self.module.engine
        threads = threads or engine.threads
        if threads <= 1 or length < engine.split_threshold:
            self.raw(*natives)
            return
        pointers = [
            (p.pointer, (natives[p.stride] if p.stride is not None else p.static_stride) * p.itemsize)
            for p in plan
        ]
        SplitCall.of(engine.pool(threads), length, threads, [p.size for p in plan], pointers)(
            self.raw, natives
        )


SPLIT_ALIGNMENT = 64
"""Slices of a split call start on multiples of this many elements: whole cache lines
for any dtype, so that no two threads write one line."""


@dataclass(frozen=True)
class SplitCall:
    """A native call on arrays of one length as one call per slice, in parallel: the
    calling thread runs the first slice, `pool` the others (ctypes releases the GIL).
    `lengths` are the native argument positions holding the length, `pointers` those
    holding a pointer, with the bytes a pointer moves per element."""

    pool: ThreadPoolExecutor
    slices: tuple[tuple[int, int], ...]
    lengths: tuple[int, ...]
    pointers: tuple[tuple[int, int], ...]

    @staticmethod
    def of(
        pool: ThreadPoolExecutor,
        length: int,
        threads: int,
        lengths: Sequence[int],
        pointers: Sequence[tuple[int, int]],
    ) -> SplitCall:
        step = -(-length // threads // SPLIT_ALIGNMENT) * SPLIT_ALIGNMENT
        slices = tuple((low, min(step, length - low)) for low in range(0, length, step))
        return SplitCall(pool, slices, tuple(lengths), tuple(pointers))

    def __call__(self, raw: Callable[..., Any], natives: Sequence[Any]) -> None:
        calls = []
        for low, size in self.slices:
            chunk = list(natives)
            for position in self.lengths:
                chunk[position] = size
            for position, step in self.pointers:
                chunk[position] += low * step
            calls.append(chunk)
        futures = [self.pool.submit(raw, *chunk) for chunk in calls[1:]]
        raw(*calls[0])
        for future in futures:
            future.result()


def lower(module: ModuleOp) -> tuple[ModuleOp, dict[str, KernelSignature]]:
    """A copy of `module` in the llvm dialect, and the signature of each function
    defined in it (taken before lowering, when memref parameters are still visible)."""
    return lower_to_llvm(module), kernel_signatures(module)


def kernel_signatures(module: ModuleOp) -> dict[str, KernelSignature]:
    """The signature of each function `module` defines."""
    return {
        op.sym_name.data: kernel_signature(op)
        for op in module.ops
        if isinstance(op, func.FuncOp | llvm.FuncOp) and op.body.blocks
    }


def lower_to_llvm(module: ModuleOp) -> ModuleOp:
    """A copy of `module` in the llvm dialect."""
    lowered = module.clone()
    if any(op.dialect_name() != "llvm" for op in lowered.walk() if op is not lowered):
        ConvertToLLVMPass().apply(Context(), lowered)
    return lowered


def _add_results_entries(lowered: ModuleOp, signatures: dict[str, KernelSignature]) -> None:
    for name, signature in signatures.items():
        if len(signature.results) > 1:
            function = SymbolTable.lookup_symbol(lowered, name)
            assert isinstance(function, llvm.FuncOp)
            lowered.body.block.add_op(_results_entry(function))


def results_entry_name(name: str) -> str:
    return f"{name}.results"


def _entry_name(name: str, signature: KernelSignature) -> str:
    """The symbol that a kernel's ctypes function calls."""
    return name if len(signature.results) <= 1 else results_entry_name(name)


def _results_entry(function: llvm.FuncOp) -> llvm.FuncOp:
    """`void @f.results(ptr out, args...)`: calls `@f` and stores its struct result at
    `out`. LLVM returns a first-class struct in registers of its choosing, which is not
    the C ABI ctypes reads a returned struct with."""
    inputs = function.function_type.inputs.data
    struct = function.function_type.output
    assert isinstance(struct, llvm.LLVMStructType)
    block = Block(arg_types=[POINTER, *inputs])
    out, *args = block.args
    call = llvm.CallOp(function.sym_name.data, *args, return_type=struct)
    block.add_op(call)
    for i, field in enumerate(struct.types.data):
        value = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), call.results[0], field)
        address = llvm.GEPOp(out, [0, i], struct)
        block.add_ops([value, address, llvm.StoreOp(value, address)])
    block.add_op(llvm.ReturnOp())
    entry_type = llvm.LLVMFunctionType([POINTER, *inputs])
    name = results_entry_name(function.sym_name.data)
    return llvm.FuncOp(name, entry_type, linkage=llvm.LinkageAttr("external"), body=Region(block))


def llvm_ir(module: ModuleOp, optimized: bool = False, opt_level: int = 3) -> str:
    """The LLVM IR of `module`, as LLVM's O`opt_level` pipeline leaves it when
    `optimized` (for the host CPU), else straight from the llvm dialect."""
    text = str(convert_module(lower(module)[0]))
    if not optimized:
        return text
    machine = _target_machine(opt_level)
    return str(_optimize(_parse(text, machine), machine, opt_level))


def _target_machine(codegen_level: int) -> llvm_binding.TargetMachine:
    """A new machine for the host CPU each time: an MCJIT engine takes ownership of its
    machine and destroys it with itself."""
    target, cpu, features = _host_target()
    return target.create_target_machine(cpu=cpu, features=features, opt=codegen_level, jit=True)


@cache
def _host_target() -> tuple[llvm_binding.Target, str, str]:
    """The host's target, CPU name and features, asked of LLVM once per process."""
    _initialize_llvm()
    cpu, features = host_cpu()
    return llvm_binding.Target.from_default_triple(), cpu, features


def _execution_engine(object_code: bytes) -> llvm_binding.ExecutionEngine:
    """An MCJIT engine running `object_code` (made for the host CPU). An engine is made
    with a module, which it would compile when it loads the code: an empty one, taken
    out again first, so that loading generates no code (half of its cost, before), and
    its machine (which the engine owns) is the target's generic one: the host CPU's
    costs ten times as much to make, 0.5 ms, and only code generation would use it."""
    machine = _host_target()[0].create_target_machine(opt=0, jit=True)
    empty = llvm_binding.parse_assembly("")
    execution = llvm_binding.create_mcjit_compiler(empty, machine)
    execution.remove_module(empty)
    execution.add_object_file(llvm_binding.ObjectFileRef.from_data(object_code))
    execution.finalize_object()
    return execution


@cache
def _initialize_llvm() -> None:
    llvm_binding.initialize_native_target()
    llvm_binding.initialize_native_asmprinter()


def _parse(text: str, machine: llvm_binding.TargetMachine) -> llvm_binding.ModuleRef:
    module = llvm_binding.parse_assembly(text)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    module.verify()
    return module


def _optimize(
    module: llvm_binding.ModuleRef, machine: llvm_binding.TargetMachine, level: int
) -> llvm_binding.ModuleRef:
    tuning = llvm_binding.PipelineTuningOptions(speed_level=level)
    tuning.loop_vectorization = tuning.slp_vectorization = level >= 2
    builder = llvm_binding.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return module


# numpy → native arguments


@cache
def _data_offset() -> int:
    """Where the data pointer sits in a numpy array object (after the object header):
    reading it there costs 0.15 µs, `arr.ctypes.data` 1.2 µs."""
    probe = np.arange(4.0)[1:]
    for offset in range(8, 64, 8):
        if ctypes.c_size_t.from_address(id(probe) + offset).value == probe.ctypes.data:
            return offset
    raise RuntimeError("cannot locate the data pointer of numpy arrays")


def array_address(array: np.ndarray) -> int:
    """The address of `array`'s first element."""
    return ctypes.c_size_t.from_address(id(array) + _data_offset()).value


def _entry_points(
    signature: KernelSignature,
    raw: Callable[..., Any],
    unpack: Callable[[Any], Any],
    results: type[ctypes.Structure] | None,
) -> tuple[Callable[..., list[Any]], Callable[..., Any]]:
    """`native_arguments(*args)` and `call(*args)` for one signature, generated as
    straight-line Python: a generic loop over per-parameter converters costs twice as
    much per call (2.7 µs against 1.5 µs for two arrays). Each memref argument gets one
    cheap test of type, dtype, rank, static sizes and strides; when it fails,
    `_check_array` explains why (or accepts an ndarray subclass or an equal dtype)."""
    names = [f"a{i}" for i in range(len(signature.parameters))]
    namespace: dict[str, Any] = {
        "ndarray": np.ndarray,
        "address_of": ctypes.c_size_t.from_address,
        "check": _check_array,
        "raw": raw,
        "unpack": unpack,
        "Results": results,
        "addressof": ctypes.addressof,
    }
    checks: list[str] = []
    natives: list[str] = []
    for i, (name, parameter) in enumerate(zip(names, signature.parameters, strict=True)):
        memref = parameter.memref
        if memref is None:
            natives.append(name)
            continue
        namespace[f"m{i}"] = memref
        namespace[f"d{i}"] = dtype = _numpy_dtype(memref.element_type)
        itemsize = dtype.itemsize
        tests = [f"type({name}) is ndarray", f"{name}.dtype is d{i}", f"{name}.ndim == {memref.rank}"]
        tests += [f"{name}.shape[{d}] == {s}" for d, s in enumerate(memref.sizes) if s is not None]
        if memref.strides is None:
            tests.append(f"{name}.flags.c_contiguous")
        else:
            for d, stride in enumerate(memref.strides):
                if stride is None:
                    tests.append(f"{name}.strides[{d}] % {itemsize} == 0")
                else:
                    tests.append(f"({name}.strides[{d}] == {stride * itemsize} or {name}.shape[{d}] <= 1)")
        checks.append(f"    if not ({' and '.join(tests)}):\n        check({i}, m{i}, {name})")
        offset = (memref.offset or 0) * itemsize
        natives.append(
            f"address_of(id({name}) + {_data_offset()}).value" + (f" - {offset}" if offset else "")
        )
        natives += [f"{name}.shape[{d}]" for d in memref.dynamic_sizes]
        natives += [f"{name}.strides[{d}] // {itemsize}" for d in memref.dynamic_strides]
        natives += ["0"] if memref.offset is None else []
    params, body, arguments = ", ".join(names), "\n".join(checks), ", ".join(natives)
    if results is None:
        call = f"    return unpack(raw({arguments}))"
    else:
        filled = ", ".join(["addressof(results)", *natives])
        call = f"    results = Results()\n    raw({filled})\n    return unpack(results)"
    source = (
        f"def native_arguments({params}):\n{body}\n    return [{arguments}]\n"
        f"def call({params}):\n{body}\n{call}\n"
    )
    exec(compile(source, f"<kernel @{signature.name}>", "exec"), namespace)
    for function in (namespace["native_arguments"], namespace["call"]):
        function.__qualname__ = f"@{signature.name}"
    return namespace["native_arguments"], namespace["call"]


def _check_array(position: int, memref: MemRefDescriptor, array: Any) -> None:
    """Raises the error that explains why `array` cannot stand for `memref`, or returns
    when it can after all (an ndarray subclass, an equal but distinct dtype object)."""
    where = f"argument {position}"
    dtype = _numpy_dtype(memref.element_type)
    if not isinstance(array, np.ndarray):
        raise TypeError(f"{where}: expected a numpy array, got {type(array).__name__}")
    if array.dtype != dtype:
        raise TypeError(f"{where}: expected a {dtype} array, got {array.dtype}")
    shape = array.shape
    if len(shape) != memref.rank or any(s is not None and shape[d] != s for d, s in enumerate(memref.sizes)):
        raise ValueError(f"{where}: expected shape {_shape_text(memref)}, got {list(shape)}")
    if memref.strides is None:
        if not array.flags.c_contiguous:
            raise ValueError(f"{where}: expected a C-contiguous array")
        return
    for d, stride in enumerate(memref.strides):
        actual = array.strides[d]
        if actual % dtype.itemsize or (
            stride is not None and actual != stride * dtype.itemsize and shape[d] > 1
        ):
            raise ValueError(f"{where}: strides {array.strides} do not match the layout")


def _shape_text(memref: MemRefDescriptor) -> str:
    return "[" + ", ".join("?" if s is None else str(s) for s in memref.sizes) + "]"


def _numpy_dtype(element: Attribute) -> np.dtype[Any]:
    if isinstance(element, Float32Type | Float64Type | Float16Type):
        return np.dtype(f"float{element.bitwidth}")
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return np.dtype(np.bool_)
        unsigned = element.signedness.data == Signedness.UNSIGNED
        return np.dtype(f"{'u' if unsigned else ''}int{width}")
    raise TypeError(f"no numpy dtype for memref element type {element}")


_CTYPES: dict[Attribute, type[Any]] = {
    Float64Type(): ctypes.c_double,
    Float32Type(): ctypes.c_float,
    i64: ctypes.c_int64,
    IntegerType(32): ctypes.c_int32,
    IntegerType(16): ctypes.c_int16,
    IntegerType(8): ctypes.c_int8,
    IntegerType(1): ctypes.c_uint8,
    POINTER: ctypes.c_void_p,
}
"""By type, not by its text: printing the types of a kernel's parameters cost more than
the rest of making its ctypes function."""


def _ctype(attr: Attribute) -> type[Any]:
    ctype = _CTYPES.get(attr)
    if ctype is None:
        raise TypeError(f"kernels cannot pass {attr} through ctypes")
    return ctype


def _results_struct(
    results: tuple[Attribute, ...],
) -> tuple[type[ctypes.Structure] | None, Callable[[Any], tuple[Any, ...]]]:
    """The C struct that the entry of a function with several results fills, and how
    to read it back."""
    if len(results) <= 1:
        return None, tuple
    fields = [(f"r{i}", _ctype(t)) for i, t in enumerate(results)]
    readers = [(name, _scalar_conversion(t)) for (name, _), t in zip(fields, results, strict=True)]

    def unpack(struct: Any) -> tuple[Any, ...]:
        return tuple(convert(getattr(struct, name)) for name, convert in readers)

    return type("Results", (ctypes.Structure,), {"_fields_": fields}), unpack


def _scalar_conversion(result: Attribute) -> Callable[[Any], Any]:
    """An `i1` comes back in a byte whose upper bits LLVM leaves undefined."""
    if isinstance(result, IntegerType) and result.width.data == 1:
        return lambda value: bool(value & 1)
    return _identity


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class _SplitSlot:
    """Where one rank-1 memref parameter's pointer, size and (dynamic) stride sit in
    the native arguments."""

    pointer: int
    size: int
    stride: int | None
    static_stride: int
    itemsize: int


@cache
def _split_plan(signature: KernelSignature) -> tuple[_SplitSlot, ...]:
    if signature.results:
        raise ValueError(f"@{signature.name}: split_call needs a kernel without results")
    plan, position = [], 0
    for parameter in signature.parameters:
        memref = parameter.memref
        if memref is not None:
            if memref.rank != 1 or memref.sizes[0] is not None:
                raise ValueError(f"@{signature.name}: split_call needs rank-1 memrefs of dynamic size")
            static_stride = 1 if memref.strides is None else memref.strides[0]
            stride = position + 2 if static_stride is None else None
            itemsize = _numpy_dtype(memref.element_type).itemsize
            plan.append(_SplitSlot(position, position + 1, stride, static_stride or 0, itemsize))
        position += len(parameter.native_types)
    if not plan:
        raise ValueError(f"@{signature.name}: split_call needs memref parameters")
    return tuple(plan)
