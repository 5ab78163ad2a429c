// RUN: ts-opt %s -p decompose-ops --print-debuginfo | filecheck %s
// RUN: ts-opt %s -p executor-default | filecheck %s --check-prefix=PIPELINE

// An operator without a numpy kernel becomes its library decomposition, inlined at the
// call with the call's location; operators with kernels stay.

// CHECK-LABEL: func.func @heaviside
// CHECK-NEXT:    %0 = prim.Constant 0 : !ts.int loc("user.py":3:8)
// CHECK-NEXT:    %1 = prim.Constant false : !ts.bool loc("user.py":3:8)
// CHECK-NEXT:    %2 = prim.Constant : !ts.none loc("user.py":3:8)
// CHECK-NEXT:    %3 = aten.gt %x, %0 : (!ts.tensor<f32, [3]>, !ts.int) -> !ts.tensor loc("user.py":3:8)
// CHECK-NEXT:    %4 = prim.dtype %x : (!ts.tensor<f32, [3]>) -> !ts.int loc("user.py":3:8)
// CHECK-NEXT:    %positive = aten.to %3, %4, %1, %1, %2 : {{.*}} loc("user.py":3:8)
// CHECK-NEXT:    %5 = aten.eq %x, %0 : {{.*}} loc("user.py":3:8)
// CHECK-NEXT:    %6 = aten.to %v, %4, %1, %1, %2 : {{.*}} loc("user.py":3:8)
// CHECK-NEXT:    %7 = aten.where %5, %6, %positive : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor loc("user.py":3:8)
// The decomposition returns a plain Tensor: a cast keeps the op's result type.
// CHECK-NEXT:    %h = prim.unchecked_cast %7 : !ts.tensor -> !ts.tensor<f32, [3]> loc("user.py":3:8)
// CHECK-NEXT:    %n = aten.neg %h : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":4:8)
// CHECK-NEXT:    func.return %n : !ts.tensor<f32, [3]>
func.func @heaviside(%x : !ts.tensor<f32, [3]>, %v : !ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> {
  %h = aten.heaviside %x, %v : (!ts.tensor<f32, [3]>, !ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":3:8)
  %n = aten.neg %h : (!ts.tensor<f32, [3]>) -> !ts.tensor<f32, [3]> loc("user.py":4:8)
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
