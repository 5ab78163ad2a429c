// RUN: ts-opt %s --split-input-file -p lower-bailouts | filecheck %s
// RUN: ts-opt %s --split-input-file -p insert-guards,lower-bailouts | filecheck %s --check-prefix=GUARDED

// A bailout becomes the call of its graph's fallback function, declared when the
// module does not define it.
// CHECK-LABEL: func.func @forward(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %xs, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [4]>)
// CHECK-NEXT:    %r = prim.If %ok -> (!ts.tensor) {
// CHECK-NEXT:      %y = aten.neg %xs : (!ts.tensor<f32, [4]>) -> !ts.tensor<f32, [4]>
// CHECK-NEXT:      prim.Yield %y : !ts.tensor<f32, [4]>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %slow = func.call @forward.fallback0(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %slow : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    %again = func.call @forward.fallback3(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @forward.fallback0(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    func.return %x : !ts.tensor
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @forward.fallback3(!ts.tensor, !ts.int) -> !ts.tensor
func.func @forward(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %xs, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [4]>)
  %r = prim.If %ok -> (!ts.tensor) {
    %y = aten.neg %xs : (!ts.tensor<f32, [4]>) -> !ts.tensor<f32, [4]>
    prim.Yield %y : !ts.tensor<f32, [4]>
  } else {
    %slow = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %slow : !ts.tensor
  }
  %again = profile.bailout[index = 3] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
  func.return %r : !ts.tensor
}
func.func @forward.fallback0(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  func.return %x : !ts.tensor
}

// -----

// After insert-guards: the guarded graph calls its unprofiled copy.
// GUARDED-LABEL: func.func @g
// GUARDED:         } else {
// GUARDED-NEXT:      %[[SLOW:.*]] = func.call @g.fallback0(%x) : (!ts.tensor) -> !ts.tensor
// GUARDED-NEXT:      prim.Yield %[[SLOW]] : !ts.tensor
// GUARDED-NEXT:    }
// GUARDED-LABEL: func.func @g.fallback0(%x: !ts.tensor) -> !ts.tensor {
// GUARDED-NEXT:    %y = aten.neg %x : (!ts.tensor) -> !ts.tensor
func.func @g(%x : !ts.tensor) -> !ts.tensor {
  %p = profile.profile[seen_types = [!ts.tensor<f64, [1]>]] %x : !ts.tensor
  %y = aten.neg %p : (!ts.tensor) -> !ts.tensor
  func.return %y : !ts.tensor
}
