// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

"profile.profile"() : () -> ()
// CHECK: error: 'profile.profile' op must profile at least one value

// -----

%x = "test.op"() : () -> !ts.tensor
%p = "profile.profile"(%x) : (!ts.tensor) -> !ts.tensor<f32>
// CHECK: error: 'profile.profile' op result 0 has type !ts.tensor<f32> but the profiled value has type !ts.tensor

// -----

%x = "test.op"() : () -> !ts.tensor
%p, %q = "profile.profile"(%x) : (!ts.tensor) -> (!ts.tensor, !ts.tensor)
// CHECK: error: 'profile.profile' op has 2 results but profiles 1 value

// -----

%x = "test.op"() : () -> !ts.tensor
%p = profile.profile[seen_types = [!ts.tensor<f32>, !ts.tensor<f32>]] %x : !ts.tensor
// CHECK: error: 'profile.profile' op records 2 seen types for 1 value

// -----

%x = "test.op"() : () -> !ts.tensor<f32>
%p = profile.profile[seen_types = [!ts.tensor<f64>]] %x : !ts.tensor<f32>
// CHECK: error: 'profile.profile' op seen type !ts.tensor<f64> of value 0 is not a subtype of its type !ts.tensor<f32>

// -----

%ok = "profile.type_check"() <{expected_types = []}> : () -> !ts.bool
// CHECK: error: 'profile.type_check' op must check at least one tensor

// -----

%x = "test.op"() : () -> !ts.tensor
%a, %ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor<f32>, !ts.tensor<f32>]}> : (!ts.tensor) -> (!ts.tensor<f32>, !ts.bool)
// CHECK: error: 'profile.type_check' op has 2 expected types for 1 input

// -----

%x = "test.op"() : () -> !ts.tensor
%ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor<f32>]}> : (!ts.tensor) -> !ts.bool
// CHECK: error: 'profile.type_check' op has 0 refined results for 1 input

// -----

%x = "test.op"() : () -> !ts.tensor
%a, %ok = "profile.type_check"(%x) <{expected_types = [!ts.int]}> : (!ts.tensor) -> (!ts.int, !ts.bool)
// CHECK: error: 'profile.type_check' op expected type 0 is !ts.int, not a tensor type

// -----

%x = "test.op"() : () -> !ts.tensor<f64>
%a, %ok = profile.type_check %x : (!ts.tensor<f64>) -> (!ts.tensor<f32>)
// CHECK: error: 'profile.type_check' op expected type !ts.tensor<f32> does not refine input 0 of type !ts.tensor<f64>

// -----

%x = "test.op"() : () -> !ts.tensor
%a, %ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor<f32>]}> : (!ts.tensor) -> (!ts.tensor<f64>, !ts.bool)
// CHECK: error: 'profile.type_check' op result 0 has type !ts.tensor<f64> but the expected type is !ts.tensor<f32>

// -----

%x = "test.op"() : () -> !ts.tensor
%a, %ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor<f32>]}> : (!ts.tensor) -> (!ts.tensor<f32>, !ts.int)
// CHECK: error: 'profile.type_check' op result 'matched' at position 1 does not verify:

// -----

%x = "test.op"() : () -> !ts.int
%a, %ok = "profile.type_check"(%x) <{expected_types = [!ts.tensor]}> : (!ts.int) -> (!ts.tensor, !ts.bool)
// CHECK: error: 'profile.type_check' op operand 'checked' at position 0 does not verify:

// -----

%x = "test.op"() : () -> !ts.tensor<i64>
%g = profile.guard %x : !ts.tensor<i64> -> !ts.tensor<f32>
// CHECK: error: 'profile.guard' op expected type !ts.tensor<f32> does not refine the input of type !ts.tensor<i64>

// -----

%x = "test.op"() : () -> !ts.tensor
%g = "profile.guard"(%x) <{expected_type = !ts.tensor<f32>}> : (!ts.tensor) -> !ts.tensor<f64>
// CHECK: error: 'profile.guard' op result has type !ts.tensor<f64> but the expected type is !ts.tensor<f32>

// -----

"profile.bailout"() <{index = -1 : i64}> : () -> ()
// CHECK: error: 'profile.bailout' op index must be non-negative, got -1
