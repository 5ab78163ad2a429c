// RUN: ts-opt %s -p convert-func-to-llvm | filecheck %s

// Scalars pass as they are; index as i64.
func.func @scalars(%a: i64, %n: index, %x: f32) -> f32 {
  func.return %x : f32
}
// CHECK-LABEL: llvm.func @scalars(%a: i64, %n: i64, %x: f32) -> f32 {
// CHECK-NEXT:   llvm.return %x : f32
// CHECK-NEXT: }

// A static memref is a bare pointer.
func.func @static(%m: memref<4x8xf32>) {
  func.return
}
// CHECK-LABEL: llvm.func @static(%m: !llvm.ptr) {
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }

// A dynamic memref is its pointer followed by its dynamic sizes, strides and offset;
// the body sees the descriptor as a struct.
func.func @dynamic(%x: memref<?x8xf32>, %y: memref<?xf64, strided<[?], offset: ?>>) {
  "test.op"(%x, %y) : (memref<?x8xf32>, memref<?xf64, strided<[?], offset: ?>>) -> ()
  func.return
}
// CHECK-LABEL: llvm.func @dynamic(%x_1: !llvm.ptr, %x.size0: i64, %y: !llvm.ptr, %y.size0: i64, %y.stride0: i64, %y.offset: i64) {
// CHECK-NEXT:   %0 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, i64)>
// CHECK-NEXT:   %1 = llvm.insertvalue %x_1, %0[0] : !llvm.struct<(!llvm.ptr, i64)>
// CHECK-NEXT:   %2 = llvm.insertvalue %x.size0, %1[1] : !llvm.struct<(!llvm.ptr, i64)>
// CHECK-NEXT:   %x_2 = builtin.unrealized_conversion_cast %2 : !llvm.struct<(!llvm.ptr, i64)> to memref<?x8xf32>
// CHECK-NEXT:   %3 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, i64, i64, i64)>
// CHECK-NEXT:   %4 = llvm.insertvalue %y, %3[0] : !llvm.struct<(!llvm.ptr, i64, i64, i64)>
// CHECK-NEXT:   %5 = llvm.insertvalue %y.size0, %4[1] : !llvm.struct<(!llvm.ptr, i64, i64, i64)>
// CHECK-NEXT:   %6 = llvm.insertvalue %y.stride0, %5[2] : !llvm.struct<(!llvm.ptr, i64, i64, i64)>
// CHECK-NEXT:   %7 = llvm.insertvalue %y.offset, %6[3] : !llvm.struct<(!llvm.ptr, i64, i64, i64)>
// CHECK-NEXT:   %y_1 = builtin.unrealized_conversion_cast %7 : !llvm.struct<(!llvm.ptr, i64, i64, i64)> to memref<?xf64, strided<[?], offset: ?>>
// CHECK-NEXT:   "test.op"(%x_2, %y_1) : (memref<?x8xf32>, memref<?xf64, strided<[?], offset: ?>>) -> ()
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }

// Several results come back in a struct.
func.func @pair(%a: i64, %b: index) -> (i64, index) {
  func.return %a, %b : i64, index
}
// CHECK-LABEL: llvm.func @pair(%a_1: i64, %b: i64) -> !llvm.struct<(i64, i64)> {
// CHECK-NEXT:   %8 = llvm.mlir.undef : !llvm.struct<(i64, i64)>
// CHECK-NEXT:   %9 = llvm.insertvalue %a_1, %8[0] : !llvm.struct<(i64, i64)>
// CHECK-NEXT:   %10 = llvm.insertvalue %b, %9[1] : !llvm.struct<(i64, i64)>
// CHECK-NEXT:   llvm.return %10 : !llvm.struct<(i64, i64)>
// CHECK-NEXT: }

func.func @caller(%a: i64, %m: memref<?x8xf32>) -> i64 {
  %c = arith.constant 2 : index
  %p:2 = func.call @pair(%a, %c) : (i64, index) -> (i64, index)
  func.call @dynamic_arg(%m) : (memref<?x8xf32>) -> ()
  func.return %p#0 : i64
}
// CHECK-LABEL: llvm.func @caller(%a_2: i64, %m_1: !llvm.ptr, %m.size0: i64) -> i64 {
// CHECK-NEXT:   %c = arith.constant 2 : index
// CHECK-NEXT:   %c_1 = builtin.unrealized_conversion_cast %c : index to i64
// CHECK-NEXT:   %11 = llvm.call @pair(%a_2, %c_1) : (i64, i64) -> !llvm.struct<(i64, i64)>
// CHECK-NEXT:   %p = llvm.extractvalue %11[0] : !llvm.struct<(i64, i64)>
// CHECK-NEXT:   llvm.call @dynamic_arg(%m_1, %m.size0) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT:   llvm.return %p : i64
// CHECK-NEXT: }

func.func private @dynamic_arg(memref<?x8xf32>)
// CHECK: llvm.func @dynamic_arg(!llvm.ptr, i64)
