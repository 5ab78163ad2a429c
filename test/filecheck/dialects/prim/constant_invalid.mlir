// RUN: ts-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier (generic syntax goes straight to it).

%x = "prim.Constant"() <{value = 1 : i32}> : () -> !ts.int
// CHECK: error: 'prim.Constant' op value 1 : i32 is not a constant of type !ts.int

// -----

%x = "prim.Constant"() : () -> !ts.float
// CHECK: error: 'prim.Constant' op a constant of type !ts.float needs a value

// -----

%x = "prim.Constant"() <{value = 1 : i64}> : () -> !ts.none
// CHECK: error: 'prim.Constant' op value 1 : i64 is not a constant of type !ts.none

// -----

%x = "prim.Constant"() <{value = 1 : i64}> : () -> !ts.bool
// CHECK: error: 'prim.Constant' op value 1 : i64 is not a constant of type !ts.bool

// -----

%x = "prim.Constant"() <{value = dense<1> : tensor<2xi32>}> : () -> !ts.tensor<i64>
// CHECK: error: 'prim.Constant' op value dense<1> : tensor<2xi32> is not a constant of type !ts.tensor<i64>

// -----

%x = "prim.Constant"() <{value = dense<1> : tensor<2xi64>}> : () -> !ts.tensor<i64, [3]>
// CHECK: error: 'prim.Constant' op value dense<1> : tensor<2xi64> is not a constant of type !ts.tensor<i64, [3]>

// -----

%x = "prim.Constant"() <{value = dense<1.0> : vector<2xf32>}> : () -> !ts.tensor
// CHECK: error: 'prim.Constant' op value dense<1.000000e+00> : vector<2xf32> is not a constant of type !ts.tensor

// -----

%x = "prim.Constant"() <{value = [1 : i64, 2.0 : f64]}> : () -> !ts.list<!ts.int>
// CHECK: error: 'prim.Constant' op value [1 : i64, 2.000000e+00 : f64] is not a constant of type !ts.list<!ts.int>

// -----

%x = "prim.Constant"() <{value = [1 : i64]}> : () -> !ts.tuple<!ts.int, !ts.int>
// CHECK: error: 'prim.Constant' op value [1 : i64] is not a constant of type !ts.tuple<!ts.int, !ts.int>

// -----

%x = "prim.Constant"() <{value = "a"}> : () -> !ts.dict<!ts.str, !ts.str>
// CHECK: error: 'prim.Constant' op value "a" is not a constant of type !ts.dict<!ts.str, !ts.str>

// -----

// The custom syntax checks the literal against the type while parsing.

%x = prim.Constant 1.5 : !ts.int
// CHECK: error: 1.5 is not a constant of type !ts.int

// -----

%x = prim.Constant : !ts.int
// CHECK: error: a constant of type !ts.int needs a value

// -----

%x = prim.Constant 1 : !ts.bool
// CHECK: error: 1 is not a constant of type !ts.bool

// -----

%x = prim.Constant true : !ts.int
// CHECK: error: true is not a constant of type !ts.int

// -----

%x = prim.Constant 1 : !ts.none
// CHECK: error: 1 is not a constant of type !ts.none

// -----

%x = prim.Constant -x : !ts.int
// CHECK: error: expected a number after '-'

// -----

%x = prim.Constant [1, 2.5] : !ts.list<!ts.int>
// CHECK: error: 2.5 is not a constant of type !ts.int

// -----

%x = prim.Constant [1] : !ts.tuple<!ts.int, !ts.int>
// CHECK: error: [1] is not a constant of type !ts.tuple<!ts.int, !ts.int>

// -----

%x = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor<f32, [3]>
// CHECK: error: dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> is not a constant of type !ts.tensor<f32, [3]>

// -----

%x = prim.Constant 2 : !ts.tensor
// CHECK: error: 2 is not a constant of type !ts.tensor

// -----

// Dense tensor literals.

%x = prim.Constant dense<[1, 2]> : tensor<3xi64> : !ts.tensor
// CHECK: error: [1, 2] does not have the tensor's shape [3]

// -----

%x = prim.Constant dense<[[1], 2]> : tensor<2x1xi64> : !ts.tensor
// CHECK: error: {{\[}}[1], 2] does not have the tensor's shape [2, 1]

// -----

%x = prim.Constant dense<> : tensor<2xi32> : !ts.tensor
// CHECK: error: dense<> does not have the tensor's shape [2]

// -----

%x = prim.Constant dense<[true, 2]> : tensor<2xi1> : !ts.tensor
// CHECK: error: 2 is not a valid i1 element

// -----

%x = prim.Constant dense<300> : tensor<2xi8> : !ts.tensor
// CHECK: error: 300 is not a valid i8 element

// -----

%x = prim.Constant dense<[1.5]> : tensor<1xi32> : !ts.tensor
// CHECK: error: 1.5 is not a valid i32 element

// -----

%x = prim.Constant dense<1> : vector<2xi64> : !ts.tensor
// CHECK: error: a dense literal needs a ranked tensor type, got vector<2xi64>

// -----

%x = prim.Constant dense<1> : tensor<2xindex> : !ts.tensor
// CHECK: error: index is not a TorchScript tensor element type

// -----

%x = prim.Constant foo : !ts.int
// CHECK: error: expected a constant value
