// RUN: ts-opt %s -p convert-func-to-llvm,convert-memref-to-llvm,reconcile-unrealized-casts | filecheck %s

// Row-major: element [i, j] of memref<?x?xf32> is at i * size1 + j, one GEP on the base.
func.func @copy(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %i: index, %j: index) {
  %v = memref.load %x[%i, %j] : memref<?x?xf32>
  memref.store %v, %y[%i, %j] : memref<?x?xf32>
  func.return
}
// CHECK-LABEL: llvm.func @copy(%x: !llvm.ptr, %x.size0: i64, %x.size1: i64, %y: !llvm.ptr, %y.size0: i64, %y.size1: i64, %i: i64, %j: i64) {
// CHECK-NEXT:   %0 = llvm.mul %i, %x.size1 overflow<nsw> : i64
// CHECK-NEXT:   %1 = llvm.add %0, %j overflow<nsw> : i64
// CHECK-NEXT:   %2 = llvm.getelementptr inbounds %x[%1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %v = llvm.load %2 : !llvm.ptr -> f32
// CHECK-NEXT:   %3 = llvm.mul %i, %y.size1 overflow<nsw> : i64
// CHECK-NEXT:   %4 = llvm.add %3, %j overflow<nsw> : i64
// CHECK-NEXT:   %5 = llvm.getelementptr inbounds %y[%4] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   llvm.store %v, %5 : f32, !llvm.ptr
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }

// Strides and offset from the layout: static ones fold into constants.
func.func @strided(%x: memref<?x4xf64, strided<[?, 2], offset: 3>>, %i: index, %j: index) -> f64 {
  %v = memref.load %x[%i, %j] : memref<?x4xf64, strided<[?, 2], offset: 3>>
  func.return %v : f64
}
// CHECK-LABEL: llvm.func @strided(%x_1: !llvm.ptr, %x.size0_1: i64, %x.stride0: i64, %i_1: i64, %j_1: i64) -> f64 {
// CHECK-NEXT:   %6 = llvm.mul %i_1, %x.stride0 overflow<nsw> : i64
// CHECK-NEXT:   %7 = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %8 = llvm.add %7, %6 overflow<nsw> : i64
// CHECK-NEXT:   %9 = llvm.mlir.constant(2) : i64
// CHECK-NEXT:   %10 = llvm.mul %j_1, %9 overflow<nsw> : i64
// CHECK-NEXT:   %11 = llvm.add %8, %10 overflow<nsw> : i64
// CHECK-NEXT:   %12 = llvm.getelementptr inbounds %x_1[%11] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK-NEXT:   %v_1 = llvm.load %12 : !llvm.ptr -> f64
// CHECK-NEXT:   llvm.return %v_1 : f64
// CHECK-NEXT: }

func.func @dims(%x: memref<?x8xi32>, %d: index) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = memref.dim %x, %c0 : memref<?x8xi32>
  %1 = memref.dim %x, %c1 : memref<?x8xi32>
  %2 = memref.dim %x, %d : memref<?x8xi32>
  func.return %0, %1, %2 : index, index, index
}
// CHECK-LABEL: llvm.func @dims(%x_2: !llvm.ptr, %x.size0_2: i64, %d: i64) -> !llvm.struct<(i64, i64, i64)> {
// CHECK-NEXT:   %13 = llvm.mlir.constant(8) : i64
// CHECK-NEXT:   %14 = llvm.mlir.constant(8) : i64
// CHECK-NEXT:   %15 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %16 = llvm.icmp "eq" %d, %15 : i64
// CHECK-NEXT:   %17 = llvm.select %16, %x.size0_2, %14 : i1, i64
// CHECK-NEXT:   %18 = llvm.mlir.undef : !llvm.struct<(i64, i64, i64)>
// CHECK-NEXT:   %19 = llvm.insertvalue %x.size0_2, %18[0] : !llvm.struct<(i64, i64, i64)>
// CHECK-NEXT:   %20 = llvm.insertvalue %13, %19[1] : !llvm.struct<(i64, i64, i64)>
// CHECK-NEXT:   %21 = llvm.insertvalue %17, %20[2] : !llvm.struct<(i64, i64, i64)>
// CHECK-NEXT:   llvm.return %21 : !llvm.struct<(i64, i64, i64)>
// CHECK-NEXT: }

// A static scratch buffer is allocated once, in the entry block; a dynamic one where it is.
func.func @scratch(%n: index, %i: index, %x: f32) -> f32 {
  cf.br ^next
^next:
  %buffer = memref.alloca() : memref<16xf32>
  memref.store %x, %buffer[%i] : memref<16xf32>
  %t = memref.alloca(%n) : memref<?xf32>
  %v = memref.load %t[%i] : memref<?xf32>
  func.return %v : f32
}
// CHECK-LABEL: llvm.func @scratch(%n: i64, %i_2: i64, %x_3: f32) -> f32 {
// CHECK-NEXT:   %22 = llvm.mlir.constant(16) : i64
// CHECK-NEXT:   %23 = llvm.alloca %22 x f32 {alignment = 32 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   cf.br ^next
// CHECK-NEXT: ^next:
// CHECK-NEXT:   %24 = llvm.getelementptr inbounds %23[%i_2] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   llvm.store %x_3, %24 : f32, !llvm.ptr
// CHECK-NEXT:   %25 = llvm.alloca %n x f32 {alignment = 32 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   %26 = llvm.getelementptr inbounds %25[%i_2] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %v_2 = llvm.load %26 : !llvm.ptr -> f32
// CHECK-NEXT:   llvm.return %v_2 : f32
// CHECK-NEXT: }

// A prefetch addresses its element like a load and becomes the llvm.prefetch intrinsic
// (read = 0, locality 3, data cache = 1); its custom syntax is MLIR's.
func.func @prefetch(%m: memref<?x?xf32, strided<[?, 1]>>, %i: index, %j: index) {
  memref.prefetch %m[%i, %j], read, locality<3>, data : memref<?x?xf32, strided<[?, 1]>>
  memref.prefetch %m[%i, %j], write, locality<0>, instr : memref<?x?xf32, strided<[?, 1]>>
  func.return
}
// CHECK-LABEL: llvm.func @prefetch(%m: !llvm.ptr, %m.size0: i64, %m.size1: i64, %m.stride0: i64, %i_3: i64, %j_2: i64) {
// CHECK:        %[[A:.*]] = llvm.getelementptr inbounds %m[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %[[R:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   %[[L:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:   %[[D:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   llvm.call_intrinsic "llvm.prefetch.p0"(%[[A]], %[[R]], %[[L]], %[[D]]) : (!llvm.ptr, i32, i32, i32) -> ()
// CHECK:        %[[B:.*]] = llvm.getelementptr inbounds %m[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %[[W:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:   llvm.call_intrinsic "llvm.prefetch.p0"(%[[B]], %[[W]], %[[Z]], %[[Z]]) : (!llvm.ptr, i32, i32, i32) -> ()
