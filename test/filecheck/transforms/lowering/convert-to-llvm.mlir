// RUN: ts-opt %s -p convert-to-llvm | filecheck %s
// RUN: ts-opt %s -p convert-to-llvm -t llvm | filecheck %s --check-prefix=LLVM

// An elementwise kernel over a dynamic 1-D memref: one loop, GEP addressing.
func.func @axpy_sqrt(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xi = memref.load %x[%i] : memref<?xf32>
    %yi = memref.load %y[%i] : memref<?xf32>
    %ax = arith.mulf %a, %xi : f32
    %s = arith.addf %ax, %yi : f32
    %r = math.sqrt %s : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  func.return
}
// CHECK-LABEL: llvm.func @axpy_sqrt(%x: !llvm.ptr, %x.size0: i64, %y: !llvm.ptr, %y.size0: i64, %a: f32) {
// CHECK-NEXT:   %c0 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %c1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   llvm.br ^bb1(%c0 : i64)
// CHECK-NEXT: ^bb1(%i: i64):
// CHECK-NEXT:   %0 = llvm.icmp "slt" %i, %x.size0 : i64
// CHECK-NEXT:   llvm.cond_br %0, ^bb2, ^bb3
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %1 = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %xi = llvm.load %1 : !llvm.ptr -> f32
// CHECK-NEXT:   %2 = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %yi = llvm.load %2 : !llvm.ptr -> f32
// CHECK-NEXT:   %ax = llvm.fmul %a, %xi : f32
// CHECK-NEXT:   %s = llvm.fadd %ax, %yi : f32
// CHECK-NEXT:   %r = llvm.intr.sqrt(%s) : (f32) -> f32
// CHECK-NEXT:   %3 = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   llvm.store %r, %3 : f32, !llvm.ptr
// CHECK-NEXT:   %4 = llvm.add %i, %c1 : i64
// CHECK-NEXT:   llvm.br ^bb1(%4 : i64)
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }

// A scalar loop with a carried value: sum of i * i for i < n.
func.func @sum_of_squares(%n: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %bound = arith.index_cast %n : i64 to index
  %sum = scf.for %i = %c0 to %bound step %c1 iter_args(%acc = %zero) -> (i64) {
    %v = arith.index_cast %i : index to i64
    %sq = arith.muli %v, %v : i64
    %next = arith.addi %acc, %sq : i64
    scf.yield %next : i64
  }
  func.return %sum : i64
}
// CHECK-LABEL: llvm.func @sum_of_squares(%n: i64) -> i64 {
// CHECK-NEXT:   %c0_1 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %c1_1 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %zero = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   llvm.br ^bb1(%c0_1, %zero : i64, i64)
// CHECK-NEXT: ^bb1(%i_1: i64, %acc: i64):
// CHECK-NEXT:   %5 = llvm.icmp "slt" %i_1, %n : i64
// CHECK-NEXT:   llvm.cond_br %5, ^bb2, ^bb3
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   %sq = llvm.mul %i_1, %i_1 : i64
// CHECK-NEXT:   %next = llvm.add %acc, %sq : i64
// CHECK-NEXT:   %6 = llvm.add %i_1, %c1_1 : i64
// CHECK-NEXT:   llvm.br ^bb1(%6, %next : i64, i64)
// CHECK-NEXT: ^bb3:
// CHECK-NEXT:   llvm.return %acc : i64
// CHECK-NEXT: }


// The LLVM IR that xDSL's translator makes of it: block arguments became phis.
// LLVM-LABEL: define void @"axpy_sqrt"(
// LLVM-SAME: ptr %"[[V1:\.[0-9]+]]", i64 %"[[V2:\.[0-9]+]]", ptr %"[[V3:\.[0-9]+]]", i64 %"[[V4:\.[0-9]+]]", float %"[[V5:\.[0-9]+]]")
// LLVM-NEXT: {
// LLVM-NEXT: [[V7:\.[0-9]+]]:
// LLVM-NEXT:   br label %"[[V8:\.[0-9]+]]"
// LLVM-NEXT: [[V8]]:
// LLVM-NEXT:   %"[[V11:\.[0-9]+]]" = phi  i64 [0, %"[[V7]]"], [%"[[V24:\.[0-9]+]]", %"[[V9:\.[0-9]+]]"]
// LLVM-NEXT:   %"[[V13:\.[0-9]+]]" = icmp slt i64 %"[[V11]]", %"[[V2]]"
// LLVM-NEXT:   br i1 %"[[V13]]", label %"[[V9]]", label %"[[V10:\.[0-9]+]]"
// LLVM-NEXT: [[V9]]:
// LLVM-NEXT:   %"[[V15:\.[0-9]+]]" = getelementptr inbounds float, ptr %"[[V1]]", i64 %"[[V11]]"
// LLVM-NEXT:   %"[[V16:\.[0-9]+]]" = load float, ptr %"[[V15]]"
// LLVM-NEXT:   %"[[V17:\.[0-9]+]]" = getelementptr inbounds float, ptr %"[[V3]]", i64 %"[[V11]]"
// LLVM-NEXT:   %"[[V18:\.[0-9]+]]" = load float, ptr %"[[V17]]"
// LLVM-NEXT:   %"[[V19:\.[0-9]+]]" = fmul float %"[[V5]]", %"[[V16]]"
// LLVM-NEXT:   %"[[V20:\.[0-9]+]]" = fadd float %"[[V19]]", %"[[V18]]"
// LLVM-NEXT:   %"[[V21:\.[0-9]+]]" = call float @"llvm.sqrt"(float %"[[V20]]")
// LLVM-NEXT:   %"[[V22:\.[0-9]+]]" = getelementptr inbounds float, ptr %"[[V3]]", i64 %"[[V11]]"
// LLVM-NEXT:   store float %"[[V21]]", ptr %"[[V22]]"
// LLVM-NEXT:   %"[[V24]]" = add i64 %"[[V11]]", 1
// LLVM-NEXT:   br label %"[[V8]]"
// LLVM-NEXT: [[V10]]:
// LLVM-NEXT:   ret void
// LLVM-NEXT: }
// LLVM-LABEL: define i64 @"sum_of_squares"(
// LLVM-SAME: i64 %"[[V1:\.[0-9]+]]")
// LLVM-NEXT: {
// LLVM-NEXT: [[V3:\.[0-9]+]]:
// LLVM-NEXT:   br label %"[[V4:\.[0-9]+]]"
// LLVM-NEXT: [[V4]]:
// LLVM-NEXT:   %"[[V7:\.[0-9]+]]" = phi  i64 [0, %"[[V3]]"], [%"[[V14:\.[0-9]+]]", %"[[V5:\.[0-9]+]]"]
// LLVM-NEXT:   %"[[V8:\.[0-9]+]]" = phi  i64 [0, %"[[V3]]"], [%"[[V13:\.[0-9]+]]", %"[[V5]]"]
// LLVM-NEXT:   %"[[V10:\.[0-9]+]]" = icmp slt i64 %"[[V7]]", %"[[V1]]"
// LLVM-NEXT:   br i1 %"[[V10]]", label %"[[V5]]", label %"[[V6:\.[0-9]+]]"
// LLVM-NEXT: [[V5]]:
// LLVM-NEXT:   %"[[V12:\.[0-9]+]]" = mul i64 %"[[V7]]", %"[[V7]]"
// LLVM-NEXT:   %"[[V13]]" = add i64 %"[[V8]]", %"[[V12]]"
// LLVM-NEXT:   %"[[V14]]" = add i64 %"[[V7]]", 1
// LLVM-NEXT:   br label %"[[V4]]"
// LLVM-NEXT: [[V6]]:
// LLVM-NEXT:   ret i64 %"[[V8]]"
// LLVM-NEXT: }
