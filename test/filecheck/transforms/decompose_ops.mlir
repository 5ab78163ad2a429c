// RUN: ts-opt %s -p decompose-ops --print-debuginfo | filecheck %s
// RUN: ts-opt %s -p executor-default | filecheck %s --check-prefix=PIPELINE

// An operator without a numpy kernel becomes its library decomposition, inlined at the
// call with the call's location; operators with kernels stay.

// CHECK-LABEL: func.func @expit
// CHECK-NEXT:    %0 = aten.sigmoid %x : (!ts.tensor<f32, [3]>) -> !ts.tensor loc("user.py":3:8)
// The decomposition returns a plain Tensor: a cast keeps the op's result type.
// CHECK-NEXT:    %e = prim.unchecked_cast %0 : !ts.tensor -> !ts.tensor<f32, [3]> loc("user.py":3:8)
// CHECK-NEXT:    %n = aten.neg %e : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":4:8)
// CHECK-NEXT:    func.return %n : !ts.tensor<f32, [3]>
func.func @expit(%x : !ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> {
  %e = aten.special_expit %x : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":3:8)
  %n = aten.neg %e : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":4:8)
  func.return %n : !ts.tensor<f32, [3]>
}

// Control flow of the decomposition comes along: fliplr checks the rank. In the
// executor's pipeline the check folds away once the rank is known.
// CHECK-LABEL: func.func @fliplr
// CHECK:         %[[DIM:.*]] = aten.dim %x
// CHECK-NEXT:    %[[LT:.*]] = aten.lt %[[DIM]], %{{.*}} : (!ts.int, !ts.int) -> !ts.bool
// CHECK-NEXT:    prim.If %[[LT]] {
// CHECK-NEXT:      prim.RaiseException
// CHECK:         %f = aten.flip %x, %{{.*}} : (!ts.tensor<f32, [2, 3]>, !ts.list<!ts.int>) -> !ts.tensor
// PIPELINE-LABEL: func.func @fliplr
// PIPELINE-NEXT:    %0 = prim.Constant [1] : !ts.list<!ts.int>
// PIPELINE-NEXT:    %f = aten.flip %x, %0 : (!ts.tensor<f32, [2, 3]>, !ts.list<!ts.int>) -> !ts.tensor<f32, [2, 3]>
// PIPELINE-NEXT:    func.return %f
func.func @fliplr(%x : !ts.tensor<f32, [2, 3]>) -> !ts.tensor {
  %f = aten.fliplr %x : (!ts.tensor<f32, [2, 3]>) -> !ts.tensor loc("user.py":9:8)
  func.return %f : !ts.tensor
}
