"""The calling convention of tsjit's native kernels: what an `llvm.func` made from a
`func.func` takes and returns. The lowering passes and the runtime both follow it.

Parameters. Each `func.func` parameter becomes one or more `llvm.func` parameters, in
order:

- `iN`, `fN` stay as they are, and `index` becomes `i64`.
- A memref becomes a **bare pointer** (`!llvm.ptr`) to its aligned base, followed by one
  `i64` for each dynamic entry of its type: the `?` sizes (outermost first), then the `?`
  strides of a `strided<[...]>` layout (counted in elements, outermost first), then a
  `?` offset. Element `[i, j]` lives at `ptr + offset + i * stride0 + j * stride1`.
  Static entries are constants in the code, so
  `memref<4x8xf32>` → `(ptr)`,
  `memref<?x?xf32>` → `(ptr, size0, size1)` (identity layout: row-major strides, computed
  from the sizes),
  `memref<?x?xf32, strided<[?, ?]>>` → `(ptr, size0, size1, stride0, stride1)`, and
  `memref<?xf32, strided<[?], offset: ?>>` → `(ptr, size0, stride0, offset)`.

Results. None gives `void`; one scalar is returned as is; several are returned by value
as `!llvm.struct<(...)>`. Memrefs cannot be results: kernels write into memref
parameters.

Why this convention: a ctypes call with integer arguments costs about half a
microsecond, and each extra argument little, whereas building a descriptor struct per
call costs more. Passing exactly the dynamic parts of the type keeps whatever the type
states as a constant in the code: with a static unit inner stride (identity or
`strided<[?, 1]>` layouts) LLVM vectorizes the inner loop without run-time stride checks.
A caller with non-contiguous arrays uses a layout with `?` strides. A numpy array stands
for the memref it views: `ptr` is its data pointer (less a static offset), a dynamic
offset is 0, and the strides are `arr.strides // arr.itemsize`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, NoneAttr, StridedLayoutAttr, i64
from xdsl.ir import Attribute

from tsjit.diagnostics import SourceLocation, TsjitError

POINTER = llvm.LLVMPointerType()


@dataclass(frozen=True)
class MemRefDescriptor:
    """The parts of a memref a kernel receives: `None` marks a dynamic entry, passed as
    an `i64` argument. `strides` is `None` for the identity layout, whose strides follow
    from the sizes."""

    element_type: Attribute
    sizes: tuple[int | None, ...]
    strides: tuple[int | None, ...] | None
    offset: int | None

    @staticmethod
    def of(memref_type: MemRefType) -> MemRefDescriptor:
        sizes = tuple(None if d == DYNAMIC_INDEX else d for d in memref_type.get_shape())
        layout = memref_type.layout
        if isinstance(layout, NoneAttr):
            return MemRefDescriptor(memref_type.element_type, sizes, None, 0)
        if not isinstance(layout, StridedLayoutAttr):
            raise ValueError(f"memref layout {layout} is not supported: use an identity or strided layout")
        return MemRefDescriptor(
            memref_type.element_type, sizes, tuple(layout.get_strides()), layout.get_offset()
        )

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def dynamic_sizes(self) -> tuple[int, ...]:
        return tuple(d for d, s in enumerate(self.sizes) if s is None)

    @property
    def dynamic_strides(self) -> tuple[int, ...]:
        return () if self.strides is None else tuple(d for d, s in enumerate(self.strides) if s is None)

    @property
    def native_types(self) -> tuple[Attribute, ...]:
        """The `llvm.func` parameter types this memref expands to."""
        count = len(self.dynamic_sizes) + len(self.dynamic_strides) + (self.offset is None)
        return (POINTER, *(i64,) * count)

    @property
    def value_type(self) -> Attribute:
        """How a function body holds this memref: the bare pointer when every other
        entry is static, else a struct of the `native_types`."""
        types = self.native_types
        return POINTER if len(types) == 1 else llvm.LLVMStructType.from_type_list(types)

    def native_names(self, name: str) -> list[str]:
        """Names of the native parameters: `x`, `x.size0`, `x.stride0`, `x.offset`."""
        return [
            name,
            *(f"{name}.size{d}" for d in self.dynamic_sizes),
            *(f"{name}.stride{d}" for d in self.dynamic_strides),
            *([f"{name}.offset"] if self.offset is None else []),
        ]


@dataclass(frozen=True)
class Parameter:
    """One parameter of the original function and the native parameters it became."""

    type: Attribute
    native_types: tuple[Attribute, ...]
    memref: MemRefDescriptor | None = None


@dataclass(frozen=True)
class KernelSignature:
    """What the runtime needs to call a kernel: its parameters, each with its native
    expansion, and its (lowered) result types."""

    name: str
    parameters: tuple[Parameter, ...]
    results: tuple[Attribute, ...]

    @property
    def native_parameters(self) -> tuple[Attribute, ...]:
        return tuple(t for p in self.parameters for t in p.native_types)

    @property
    def native_result(self) -> Attribute | None:
        """`None` for void, the type for one result, a struct for several."""
        return result_type(self.results)


def native_types(type: Attribute) -> tuple[Attribute, ...]:
    """The `llvm.func` parameters that stand for one parameter of `type`."""
    if isinstance(type, MemRefType):
        return MemRefDescriptor.of(type).native_types
    return (native_type(type),)


def native_type(type: Attribute) -> Attribute:
    """The llvm-dialect type of a value of `type` inside a function: `index` is `i64`, a
    memref its `MemRefDescriptor.value_type`."""
    if isinstance(type, IndexType):
        return i64
    if isinstance(type, MemRefType):
        return MemRefDescriptor.of(type).value_type
    return type


def result_type(results: tuple[Attribute, ...]) -> Attribute | None:
    if not results:
        return None
    if len(results) == 1:
        return results[0]
    return llvm.LLVMStructType.from_type_list(results)


def kernel_signature(function: func.FuncOp | llvm.FuncOp) -> KernelSignature:
    """The signature of a `func.func` under this convention; an `llvm.func` (already
    lowered) is described parameter by parameter."""
    name = function.sym_name.data
    if isinstance(function, llvm.FuncOp):
        fty = function.function_type
        params = tuple(Parameter(t, (t,)) for t in fty.inputs.data)
        output = fty.output
        results = () if isinstance(output, llvm.LLVMVoidType) else (output,)
        return KernelSignature(name, params, results)
    params = []
    for t in function.function_type.inputs.data:
        try:
            memref = MemRefDescriptor.of(t) if isinstance(t, MemRefType) else None
        except ValueError as e:
            raise TsjitError(f"@{name}: {e}", SourceLocation.of_op(function)) from None
        params.append(Parameter(t, native_types(t), memref))
    results = []
    for t in function.function_type.outputs.data:
        if isinstance(t, MemRefType):
            raise TsjitError(
                f"@{name} returns a memref: kernels write into memref parameters instead",
                SourceLocation.of_op(function),
            )
        results.extend(native_types(t))
    return KernelSignature(name, tuple(params), tuple(results))


def llvm_function_type(signature: KernelSignature) -> llvm.LLVMFunctionType:
    return llvm.LLVMFunctionType(signature.native_parameters, signature.native_result)
