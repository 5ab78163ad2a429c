// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Profiling, type checks, guards and bailouts.

func.func @profiled(%x : !ts.tensor, %y : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %p = profile.profile %x : !ts.tensor
  %px, %pn = profile.profile[seen_types = [!ts.tensor<f32, [2, 3], device = "cpu">, !ts.int]] %x, %n : !ts.tensor, !ts.int
  %a, %b, %ok = profile.type_check %x, %y : (!ts.tensor, !ts.tensor) -> (!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [?]>)
  %g = profile.guard %x : !ts.tensor -> !ts.tensor<f32, [2, 3]>
  %r = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
  profile.bailout[index = 7] : () -> ()
  func.return %r : !ts.tensor
}

// CHECK-LABEL: func.func @profiled(%x: !ts.tensor, %y: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %p = profile.profile %x : !ts.tensor
// CHECK-NEXT:    %px, %pn = profile.profile[seen_types = [!ts.tensor<f32, [2, 3], device = "cpu">, !ts.int]] %x, %n : !ts.tensor, !ts.int
// CHECK-NEXT:    %a, %b, %ok = profile.type_check %x, %y : (!ts.tensor, !ts.tensor) -> (!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [?]>)
// CHECK-NEXT:    %g = profile.guard %x : !ts.tensor -> !ts.tensor<f32, [2, 3]>
// CHECK-NEXT:    %r = profile.bailout[index = 0] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    profile.bailout[index = 7] : () -> ()
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "profiled"
// CHECK-GENERIC:         %p = "profile.profile"(%x) : (!ts.tensor) -> !ts.tensor
// CHECK-GENERIC-NEXT:    %px, %pn = "profile.profile"(%x, %n) <{seen_types = [!ts.tensor<f32, [2, 3], device = "cpu">, !ts.int]}> : (!ts.tensor, !ts.int) -> (!ts.tensor, !ts.int)
// CHECK-GENERIC-NEXT:    %a, %b, %ok = "profile.type_check"(%x, %y) <{expected_types = [!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [?]>]}> : (!ts.tensor, !ts.tensor) -> (!ts.tensor<f32, [2, 3]>, !ts.tensor<f32, [?]>, !ts.bool)
// CHECK-GENERIC-NEXT:    %g = "profile.guard"(%x) <{expected_type = !ts.tensor<f32, [2, 3]>}> : (!ts.tensor) -> !ts.tensor<f32, [2, 3]>
// CHECK-GENERIC-NEXT:    %r = "profile.bailout"(%x, %n) <{index = 0 : i64}> : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-GENERIC-NEXT:    "profile.bailout"() <{index = 7 : i64}> : () -> ()

// -----

// The shape of a guarded fast path: check the inputs, run the specialized graph when
// they match, bail out to the unoptimized continuation when they do not.

func.func @guarded(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %xs, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [4]>)
  %r = prim.If %ok -> (!ts.tensor) {
    %fast = prim.FusionGroup(%a = %xs : !ts.tensor<f32, [4]>) -> (!ts.tensor<f32, [4]>) {
      prim.Yield %a : !ts.tensor<f32, [4]>
    }
    prim.Yield %fast : !ts.tensor<f32, [4]>
  } else {
    %slow = profile.bailout[index = 1] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %slow : !ts.tensor
  }
  func.return %r : !ts.tensor
}

// CHECK-LABEL: func.func @guarded(%x: !ts.tensor, %n: !ts.int) -> !ts.tensor {
// CHECK-NEXT:    %xs, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [4]>)
// CHECK-NEXT:    %r = prim.If %ok -> (!ts.tensor) {
// CHECK-NEXT:      %fast = prim.FusionGroup(%a = %xs : !ts.tensor<f32, [4]>) -> (!ts.tensor<f32, [4]>) {
// CHECK-NEXT:        prim.Yield %a : !ts.tensor<f32, [4]>
// CHECK-NEXT:      }
// CHECK-NEXT:      prim.Yield %fast : !ts.tensor<f32, [4]>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %slow = profile.bailout[index = 1] %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %slow : !ts.tensor
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %r : !ts.tensor
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "guarded"
// CHECK-GENERIC:         %xs, %ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor<f32, [4]>]}> : (!ts.tensor) -> (!ts.tensor<f32, [4]>, !ts.bool)
