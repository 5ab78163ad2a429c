"""The kernel calling convention: how each func.func parameter expands into native
llvm.func parameters, as the runtime builds its ctypes prototypes from it."""

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import f32, f64, i1, i64

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms.lowering.calling_convention import (
    MemRefDescriptor,
    kernel_signature,
    llvm_function_type,
)

PTR = llvm.LLVMPointerType()


def signature_of(text):
    (function,) = parse_mlir(make_context(), text, "kernel.mlir").ops
    return kernel_signature(function)


def test_memrefs_expand_to_pointer_and_dynamic_entries():
    signature = signature_of(
        "func.func private @k(memref<4x8xf32>, memref<?x?xf32>, memref<?x8xf64, strided<[?, 1]>>,"
        " memref<?xi64, strided<[?], offset: ?>>, index, f32)"
    )
    expansions = [p.native_types for p in signature.parameters]
    assert expansions == [(PTR,), (PTR, i64, i64), (PTR, i64, i64), (PTR, i64, i64, i64), (i64,), (f32,)]
    assert signature.native_parameters == tuple(t for e in expansions for t in e)
    memref = signature.parameters[3].memref
    assert memref == MemRefDescriptor(i64, (None,), (None,), None)
    assert memref.native_names("x") == ["x", "x.size0", "x.stride0", "x.offset"]
    assert signature.parameters[1].memref.value_type == llvm.LLVMStructType.from_type_list([PTR, i64, i64])
    assert signature.parameters[0].memref.value_type == PTR


def test_results_none_one_or_a_struct():
    assert signature_of("func.func private @v()").native_result is None
    assert signature_of("func.func private @one() -> index").native_result == i64
    several = signature_of("func.func private @two() -> (f64, i1)")
    assert several.results == (f64, i1)
    assert llvm_function_type(several) == llvm.LLVMFunctionType(
        [], llvm.LLVMStructType.from_type_list([f64, i1])
    )


def test_unsupported_types_are_errors_with_locations():
    with pytest.raises(TsjitError, match=r"^kernel.mlir:1:1: @r returns a memref"):
        signature_of("func.func private @r() -> memref<?xf32>")
    with pytest.raises(TsjitError, match=r"^kernel.mlir:1:1: @m: memref layout .* is not supported"):
        signature_of("func.func private @m(memref<4x4xf32, affine_map<(i, j) -> (j, i)>>)")
