// RUN: ts-opt %s --split-input-file --verify-diagnostics -p convert-aten-to-loops | filecheck %s
// RUN: not ts-opt %s -p convert-aten-to-loops{variant=diagonal} 2>&1 | filecheck %s --check-prefix=VARIANT

// A group written by hand may hold what no kernel computes.
func.func @matmul_in_group(%x: !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]> {
  %r = prim.FusionGroup(%p = %x : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>) {
    %m = aten.mm %p, %p : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    prim.Yield %m : !ts.tensor<f32, [?, ?]>
  }
  func.return %r : !ts.tensor<f32, [?, ?]>
}
// CHECK: convert-aten-to-loops-errors.mlir:7:5: error: fusion group: 'aten.mm' cannot run in a fused kernel
// VARIANT: error: convert-aten-to-loops: unknown variant 'diagonal' (variants: flat, contiguous, staged, strided)

// -----

// Kernels read tensors of known dtype and rank.
func.func @unknown_dtype(%x: !ts.tensor<*, [?]>) -> !ts.tensor<*, [?]> {
  %r = prim.FusionGroup(%p = %x : !ts.tensor<*, [?]>) -> (!ts.tensor<*, [?]>) {
    %e = aten.exp %p : (!ts.tensor<*, [?]>) -> !ts.tensor<*, [?]>
    prim.Yield %e : !ts.tensor<*, [?]>
  }
  func.return %r : !ts.tensor<*, [?]>
}
// CHECK: convert-aten-to-loops-errors.mlir:19:3: error: fusion group: input 0 has type !ts.tensor<*, [?]>, which kernels cannot read

// -----

// A chunk inside a group reads a group input.
func.func @chunk_of_inner_value(%x: !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]> {
  %r = prim.FusionGroup(%p = %x : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>) {
    %e = aten.exp %p : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    %a, %b = prim.ConstantChunk[chunks = 2, dim = 0] %e : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    %c = aten.mul %a, %b : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    prim.Yield %c : !ts.tensor<f32, [?, ?]>
  }
  func.return %r : !ts.tensor<f32, [?, ?]>
}
// CHECK: convert-aten-to-loops-errors.mlir:33:5: error: fusion group: a chunk must read group inputs, alone or broadcast together
