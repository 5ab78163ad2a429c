// RUN: ts-opt %s -p fuse-pointwise,convert-aten-to-loops{variant=flat},convert-to-llvm -t llvm | filecheck %s
// RUN: ts-opt %s -p fuse-pointwise,convert-aten-to-loops,convert-to-llvm | filecheck %s --check-prefix=DIALECT

// From a TorchScript graph to LLVM IR: fuse, lower to loops, to the llvm dialect.
func.func @gelu(%x: !ts.tensor<f32, [?]>) -> !ts.tensor<f32, [?]> {
  %half = prim.Constant 0.5 : !ts.float
  %one = prim.Constant 1 : !ts.int
  %k = prim.Constant 0.79788456 : !ts.float
  %c = prim.Constant 0.044715 : !ts.float
  %three = prim.Constant 3 : !ts.int
  %0 = aten.mul %x, %half : (!ts.tensor<f32, [?]>, !ts.float) -> !ts.tensor<f32, [?]>
  %1 = aten.pow %x, %three : (!ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?]>
  %2 = aten.mul %1, %c : (!ts.tensor<f32, [?]>, !ts.float) -> !ts.tensor<f32, [?]>
  %3 = aten.add %x, %2, %one : (!ts.tensor<f32, [?]>, !ts.tensor<f32, [?]>, !ts.int) -> !ts.tensor<f32, [?]>
  %4 = aten.mul %3, %k : (!ts.tensor<f32, [?]>, !ts.float) -> !ts.tensor<f32, [?]>
  %5 = aten.tanh %4 : (!ts.tensor<f32, [?]>) -> !ts.tensor<f32, [?]>
  %6 = aten.add %5, %one, %one : (!ts.tensor<f32, [?]>, !ts.int, !ts.int) -> !ts.tensor<f32, [?]>
  %7 = aten.mul %0, %6 : (!ts.tensor<f32, [?]>, !ts.tensor<f32, [?]>) -> !ts.tensor<f32, [?]>
  func.return %7 : !ts.tensor<f32, [?]>
}

func.func @sum_of_squares(%n: !ts.int) -> !ts.int {
  %true = prim.Constant true : !ts.bool
  %zero = prim.Constant 0 : !ts.int
  %s = prim.Loop %n, %true iter(%i) carried(%acc = %zero : !ts.int) -> (!ts.int) {
    %sq = aten.mul %i, %i : (!ts.int, !ts.int) -> !ts.int
    %next = aten.add %acc, %sq : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %next : !ts.bool, !ts.int
  }
  func.return %s : !ts.int
}

// The fused GELU-tanh chain is one loop over (n, x pointer and size, result pointer
// and size): loads and stores through getelementptr, x³ as two multiplies, tanh inline
// (a clamped rational function), no call per element.
// Its memrefs are noalias: results are fresh arrays, inputs only read.
// CHECK-LABEL: define void @"gelu.fusion0"(i64 %".1", ptr noalias %".2", i64 %".3", ptr noalias %".4", i64 %".5")
// CHECK:         %[[X:".[0-9]+"]] = load float, ptr
// CHECK-NEXT:    fmul contract float %[[X]], 0x3fe0000000000000
// CHECK-NEXT:    %[[X2:".[0-9]+"]] = fmul contract float %[[X]], %[[X]]
// CHECK-NEXT:    fmul contract float %[[X]], %[[X2]]
// CHECK-NOT:     call float @{{.*}}tanh
// CHECK:         fdiv contract float
// CHECK:         store float %{{".[0-9]+"}}, ptr
// The whole-vectors loop asks LLVM to interleave four vector iterations (`loop_hints`);
// the masked last vector does not.
// CHECK:         br label %{{".[0-9]+"}}, !llvm.loop ![[LOOP:[0-9]+]]
// CHECK-NOT:     !llvm.loop
// CHECK:         ret void

// The scalar loop returns its raised flag and its result.
// CHECK-LABEL: define {i1, i64} @"sum_of_squares"(i64 %".1")
// CHECK:         mul i64
// CHECK:         add i64
// CHECK:         ret {i1, i64}

// DIALECT-LABEL: llvm.func @gelu.fusion0(%n0: i64, %x: !llvm.ptr {llvm.noalias}, %x.size0: i64, %x.stride0: i64, %out0: !llvm.ptr {llvm.noalias}, %out0.size0: i64, %out0.stride0: i64) {
// DIALECT:       llvm.br ^{{.*}} {tsjit.interleave = 4 : i64}
// DIALECT-NOT:   tsjit.interleave
// DIALECT-LABEL: llvm.func @sum_of_squares(%n: i64) -> !llvm.struct<(i1, i64)> {

// CHECK: ![[COUNT:[0-9]+]] = !{ !"llvm.loop.interleave.count", i32 4 }
// CHECK: ![[LOOP]] = !{ ![[LOOP]], ![[COUNT]] }
