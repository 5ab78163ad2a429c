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
// LLVM-LABEL: define void @"axpy_sqrt"(ptr %".1", i64 %".2", ptr %".3", i64 %".4", float %".5")
// LLVM-NEXT: {
// LLVM-NEXT: .7:
// LLVM-NEXT:   br label %".8"
// LLVM-NEXT: .8:
// LLVM-NEXT:   %".11" = phi  i64 [0, %".7"], [%".24", %".9"]
// LLVM-NEXT:   %".13" = icmp slt i64 %".11", %".2"
// LLVM-NEXT:   br i1 %".13", label %".9", label %".10"
// LLVM-NEXT: .9:
// LLVM-NEXT:   %".15" = getelementptr inbounds float, ptr %".1", i64 %".11"
// LLVM-NEXT:   %".16" = load float, ptr %".15"
// LLVM-NEXT:   %".17" = getelementptr inbounds float, ptr %".3", i64 %".11"
// LLVM-NEXT:   %".18" = load float, ptr %".17"
// LLVM-NEXT:   %".19" = fmul float %".5", %".16"
// LLVM-NEXT:   %".20" = fadd float %".19", %".18"
// LLVM-NEXT:   %".21" = call float @"llvm.sqrt"(float %".20")
// LLVM-NEXT:   %".22" = getelementptr inbounds float, ptr %".3", i64 %".11"
// LLVM-NEXT:   store float %".21", ptr %".22"
// LLVM-NEXT:   %".24" = add i64 %".11", 1
// LLVM-NEXT:   br label %".8"
// LLVM-NEXT: .10:
// LLVM-NEXT:   ret void
// LLVM-NEXT: }
// LLVM-LABEL: define i64 @"sum_of_squares"(i64 %".1")
// LLVM-NEXT: {
// LLVM-NEXT: .3:
// LLVM-NEXT:   br label %".4"
// LLVM-NEXT: .4:
// LLVM-NEXT:   %".7" = phi  i64 [0, %".3"], [%".14", %".5"]
// LLVM-NEXT:   %".8" = phi  i64 [0, %".3"], [%".13", %".5"]
// LLVM-NEXT:   %".10" = icmp slt i64 %".7", %".1"
// LLVM-NEXT:   br i1 %".10", label %".5", label %".6"
// LLVM-NEXT: .5:
// LLVM-NEXT:   %".12" = mul i64 %".7", %".7"
// LLVM-NEXT:   %".13" = add i64 %".8", %".12"
// LLVM-NEXT:   %".14" = add i64 %".7", 1
// LLVM-NEXT:   br label %".4"
// LLVM-NEXT: .6:
// LLVM-NEXT:   ret i64 %".8"
// LLVM-NEXT: }
