"""Native kernels: modules of func/scf/arith/math/memref (or llvm) ops compiled by LLVM for
the host CPU through llvmlite's MCJIT, and called on numpy arrays through ctypes.

    engine = LLVMEngine()
    kernel = engine.compile(module)["gelu"]     # lowered, optimized at O3, cached
    kernel(x, y)                                # numpy arrays for memrefs, numbers for scalars
    run = kernel.bind(x, y); run()              # the same call with its arguments prepared once

Arguments follow `calling_convention`: a memref parameter takes a numpy array whose
dtype, rank and static sizes match the type and whose strides match the layout (C order for
the identity layout). Compiling: convert-to-llvm, then LLVM's O3 pipeline (loop and SLP
vectorization on) for the host CPU; a module with more than `large_module_ops` ops is
compiled with code generation level 0, as LLVM's code generator takes superlinear time
on very large functions. Compiled modules are cached by the SHA-256 of their text, which
includes every signature. Splitting a 1-D elementwise kernel over threads is opt-in
(`Kernel.split_call`) and pays off only on large arrays: ctypes releases the GIL while
the kernel runs.
"""

from __future__ import annotations

import ctypes
import hashlib
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

import llvmlite.binding as llvm_binding
import numpy as np
from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.ir import Attribute

from tsjit.transforms.lowering.calling_convention import KernelSignature, MemRefDescriptor, kernel_signature
from tsjit.transforms.lowering.convert_to_llvm import ConvertToLLVMPass
from tsjit.transforms.lowering.llvm_export import convert_module

ArgumentWriter = Callable[[Any, list[Any]], None]
"""Appends the native arguments for one parameter, checking the value passed."""


class LLVMEngine:
    """Owns the target machines, every compiled module and the kernel cache."""

    def __init__(
        self, *, opt_level: int = 3, threads: int = 1, split_threshold: int = 1 << 20, large_module_ops: int = 20_000
    ):
        self.opt_level = opt_level
        self.threads = threads
        self.split_threshold = split_threshold
        self.large_module_ops = large_module_ops
        self.hits = self.misses = 0
        self._cache: dict[str, CompiledModule] = {}
        self._pool: ThreadPoolExecutor | None = None

    def compile(self, module: ModuleOp) -> CompiledModule:
        """Compiles every function of `module` (not modified), or returns the cached
        result for a module with the same text."""
        key = hashlib.sha256(f"O{self.opt_level}\n{module}".encode()).hexdigest()
        if (compiled := self._cache.get(key)) is not None:
            self.hits += 1
            return compiled
        self.misses += 1
        lowered, signatures = lower(module)
        size = sum(1 for _ in lowered.walk())
        codegen_level = self.opt_level if size <= self.large_module_ops else 0
        machine = _target_machine(codegen_level)
        optimized = _optimize(_parse(str(convert_module(lowered)), machine), machine, self.opt_level)
        execution = llvm_binding.create_mcjit_compiler(optimized, machine)
        execution.finalize_object()
        compiled = CompiledModule(self, execution, optimized, signatures)
        self._cache[key] = compiled
        return compiled

    def pool(self, threads: int) -> ThreadPoolExecutor:
        if self._pool is None or self._pool._max_workers < threads:  # pyright: ignore[reportPrivateUsage]
            if self._pool is not None:
                self._pool.shutdown()
            self._pool = ThreadPoolExecutor(threads, thread_name_prefix="tsjit-kernel")
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


class CompiledModule:
    """The machine code of one module: its kernels by name, and the optimized IR."""

    def __init__(
        self,
        engine: LLVMEngine,
        execution: llvm_binding.ExecutionEngine,
        optimized: llvm_binding.ModuleRef,
        signatures: dict[str, KernelSignature],
    ):
        self.engine = engine
        self._execution = execution  # owns the code the kernels point into
        self._optimized = optimized
        self.kernels = {
            name: Kernel(self, signature, execution.get_function_address(name))
            for name, signature in signatures.items()
        }

    def __getitem__(self, name: str) -> Kernel:
        return self.kernels[name]

    @property
    def optimized_ir(self) -> str:
        return str(self._optimized)

    def is_vectorized(self, name: str) -> bool:
        """Whether LLVM turned any of the function's code into vector instructions."""
        return _VECTOR_TYPE.search(str(self._optimized.get_function(name))) is not None


_VECTOR_TYPE = re.compile(r"<\d+ x (?:float|double|half|bfloat|i\d+)>")


class Kernel:
    """One compiled function. `raw` is the ctypes function on native arguments (pointers
    as ints); calling the kernel itself converts numpy arrays and numbers first."""

    def __init__(self, module: CompiledModule, signature: KernelSignature, address: int):
        self.module = module
        self.signature = signature
        self.address = address
        restype, self._unpack = _result_conversion(signature.native_result)
        argtypes = [_ctype(t) for t in signature.native_parameters]
        self.raw = ctypes.CFUNCTYPE(restype, *argtypes)(address)
        self._writers = [_argument_writer(i, p.native_types[0], p.memref) for i, p in enumerate(signature.parameters)]

    def native_arguments(self, *args: Any) -> list[Any]:
        if len(args) != len(self._writers):
            raise TypeError(f"@{self.signature.name} takes {len(self._writers)} arguments, got {len(args)}")
        natives: list[Any] = []
        for write, arg in zip(self._writers, args):
            write(arg, natives)
        return natives

    def __call__(self, *args: Any) -> Any:
        return self._unpack(self.raw(*self.native_arguments(*args)))

    def bind(self, *args: Any) -> Callable[[], Any]:
        """The call on these arguments, prepared once: the arrays must stay alive and
        unmoved while the result is used."""
        call = partial(self.raw, *self.native_arguments(*args))
        return call if self._unpack is _identity else lambda: self._unpack(call())

    def split_call(self, *args: Any, threads: int | None = None) -> None:
        """Runs a 1-D elementwise kernel (every memref parameter of rank 1 and dynamic
        size, all of one length, element i depending only on elements i) on chunks of
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
        step = -(-length // threads // 64) * 64  # whole cache lines per chunk
        calls = []
        for low in range(0, length, step):
            chunk = list(natives)
            for p in plan:
                stride = natives[p.stride] if p.stride is not None else p.static_stride
                chunk[p.pointer] = natives[p.pointer] + low * stride * p.itemsize
                chunk[p.size] = min(step, length - low)
            calls.append(chunk)
        pool = self.module.engine.pool(threads)
        for future in [pool.submit(self.raw, *chunk) for chunk in calls]:
            future.result()


def lower(module: ModuleOp) -> tuple[ModuleOp, dict[str, KernelSignature]]:
    """A copy of `module` in the llvm dialect, and the signature of each function
    defined in it (taken before lowering, when memref parameters are still visible)."""
    signatures = {
        op.sym_name.data: kernel_signature(op)
        for op in module.ops
        if isinstance(op, func.FuncOp | llvm.FuncOp) and op.body.blocks
    }
    lowered = module.clone()
    if any(op.dialect_name() != "llvm" for op in lowered.walk() if op is not lowered):
        ConvertToLLVMPass().apply(Context(), lowered)
    return lowered, signatures


def llvm_ir(module: ModuleOp, optimized: bool = False, opt_level: int = 3) -> str:
    """The LLVM IR of `module`, as LLVM's O`opt_level` pipeline leaves it when
    `optimized` (for the host CPU), else straight from the llvm dialect."""
    text = str(convert_module(lower(module)[0]))
    if not optimized:
        return text
    machine = _target_machine(opt_level)
    return str(_optimize(_parse(text, machine), machine, opt_level))


@cache
def _target_machine(codegen_level: int) -> llvm_binding.TargetMachine:
    llvm_binding.initialize_native_target()
    llvm_binding.initialize_native_asmprinter()
    target = llvm_binding.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm_binding.get_host_cpu_name(),
        features=llvm_binding.get_host_cpu_features().flatten(),
        opt=codegen_level,
        jit=True,
    )


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


def _argument_writer(position: int, native: Attribute, memref: MemRefDescriptor | None) -> ArgumentWriter:
    if memref is None:
        if isinstance(native, IntegerType) and native.width.data == 1:
            return lambda value, out: out.append(bool(value))
        return lambda value, out: out.append(value)
    return _memref_writer(position, memref)


def _memref_writer(position: int, memref: MemRefDescriptor) -> ArgumentWriter:
    dtype = _numpy_dtype(memref.element_type)
    itemsize = dtype.itemsize
    rank = memref.rank
    static_sizes = [(d, s) for d, s in enumerate(memref.sizes) if s is not None]
    dynamic_sizes = memref.dynamic_sizes
    strided = memref.strides
    static_strides = [(d, s) for d, s in enumerate(strided or ()) if s is not None]
    dynamic_strides = memref.dynamic_strides
    offset = memref.offset
    data_offset = _data_offset()
    address_of = ctypes.c_size_t.from_address
    where = f"argument {position}"

    def write(array: Any, out: list[Any]) -> None:
        if not isinstance(array, np.ndarray):
            raise TypeError(f"{where}: expected a numpy array, got {type(array).__name__}")
        if array.dtype is not dtype and array.dtype != dtype:
            raise TypeError(f"{where}: expected a {dtype} array, got {array.dtype}")
        shape = array.shape
        if len(shape) != rank or any(shape[d] != s for d, s in static_sizes):
            raise ValueError(f"{where}: expected shape {_shape_text(memref)}, got {list(shape)}")
        if strided is None:
            if not array.flags.c_contiguous:
                raise ValueError(f"{where}: expected a C-contiguous array")
            strides: tuple[int, ...] = ()
        else:
            strides = tuple(s // itemsize for s in array.strides)
            if any(s % itemsize for s in array.strides) or any(
                strides[d] != s and shape[d] > 1 for d, s in static_strides
            ):
                raise ValueError(f"{where}: strides {array.strides} do not match the layout")
        pointer = address_of(id(array) + data_offset).value
        out.append(pointer - (offset or 0) * itemsize)
        out.extend(shape[d] for d in dynamic_sizes)
        out.extend(strides[d] for d in dynamic_strides)
        if offset is None:
            out.append(0)

    return write


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


_CTYPES: dict[str, type[Any]] = {
    "f64": ctypes.c_double,
    "f32": ctypes.c_float,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "i16": ctypes.c_int16,
    "i8": ctypes.c_int8,
    "i1": ctypes.c_bool,
    "!llvm.ptr": ctypes.c_void_p,
}


def _ctype(attr: Attribute) -> type[Any]:
    if isinstance(attr, llvm.LLVMStructType):
        fields = [(f"f{i}", _ctype(t)) for i, t in enumerate(attr.types.data)]
        return type("Result", (ctypes.Structure,), {"_fields_": fields})
    if str(attr) not in _CTYPES:
        raise TypeError(f"kernels cannot pass {attr} through ctypes")
    return _CTYPES[str(attr)]


def _result_conversion(result: Attribute | None) -> tuple[type[Any] | None, Callable[[Any], Any]]:
    if result is None:
        return None, _identity
    restype = _ctype(result)
    if isinstance(result, llvm.LLVMStructType):
        names = [name for name, _ in restype._fields_]
        return restype, lambda value: tuple(getattr(value, n) for n in names)
    return restype, _identity


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
