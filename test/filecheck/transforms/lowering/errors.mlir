// RUN: ts-opt %s --split-input-file --verify-diagnostics -p convert-to-llvm | filecheck %s

// Kernels write into memref parameters; they cannot return memrefs.
func.func @returns_memref(%m: memref<?xf32>) -> memref<?xf32> {
  func.return %m : memref<?xf32>
}
// CHECK: errors.mlir:4:1: error: @returns_memref returns a memref: kernels write into memref parameters instead

// -----

// An op no pass lowers is named, with its location.
func.func @extended(%a: i32, %b: i32) -> i32 {
  %sum, %overflow = arith.addui_extended %a, %b : i32, i1
  func.return %sum : i32
}
// CHECK: errors.mlir:13:3: error: 'arith.addui_extended' has no lowering to the llvm dialect

// -----

// The C library's erf cannot be called when the module defines its own @erf.
func.func @erf(%x: f64) -> f64 {
  %y = math.erf %x : f64
  func.return %y : f64
}
// CHECK: errors.mlir:22:3: error: 'math.erf' calls the C library's erf, but the module defines another @erf
