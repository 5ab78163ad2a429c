// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// prim.Constant for every kind of TorchScript constant value.

func.func @scalars() {
  %int = prim.Constant 1 : !ts.int
  %negative = prim.Constant -9223372036854775808 : !ts.int
  %float = prim.Constant -2.5 : !ts.float
  %from_int = prim.Constant 3 : !ts.float
  %tiny = prim.Constant 1.0e-05 : !ts.float
  %third = prim.Constant 0.3333333333333333 : !ts.float
  %inf = prim.Constant inf : !ts.float
  %neg_inf = prim.Constant -inf : !ts.float
  %nan = prim.Constant nan : !ts.float
  %true = prim.Constant true : !ts.bool
  %false = prim.Constant false : !ts.bool
  %str = prim.Constant "a\"b\\c\n\t\01" : !ts.str
  %empty = prim.Constant "" : !ts.str
  %none = prim.Constant : !ts.none
  %device = prim.Constant "cuda:0" : !ts.device
  %dtype = prim.Constant 6 : !ts.int
  %maybe = prim.Constant : !ts.optional<!ts.int>
  %some = prim.Constant 4 : !ts.optional<!ts.int>
  func.return
}

// CHECK-LABEL: func.func @scalars() {
// CHECK-NEXT:    %int = prim.Constant 1 : !ts.int
// CHECK-NEXT:    %negative = prim.Constant -9223372036854775808 : !ts.int
// CHECK-NEXT:    %float = prim.Constant -2.5 : !ts.float
// CHECK-NEXT:    %from_int = prim.Constant 3.0 : !ts.float
// CHECK-NEXT:    %tiny = prim.Constant 1.0e-05 : !ts.float
// CHECK-NEXT:    %third = prim.Constant 0.3333333333333333 : !ts.float
// CHECK-NEXT:    %inf = prim.Constant inf : !ts.float
// CHECK-NEXT:    %neg_inf = prim.Constant -inf : !ts.float
// CHECK-NEXT:    %nan = prim.Constant nan : !ts.float
// CHECK-NEXT:    %true = prim.Constant true : !ts.bool
// CHECK-NEXT:    %false = prim.Constant false : !ts.bool
// CHECK-NEXT:    %str = prim.Constant "a\"b\\c\n\t\01" : !ts.str
// CHECK-NEXT:    %empty = prim.Constant "" : !ts.str
// CHECK-NEXT:    %none = prim.Constant : !ts.none
// CHECK-NEXT:    %device = prim.Constant "cuda:0" : !ts.device
// CHECK-NEXT:    %dtype = prim.Constant 6 : !ts.int
// CHECK-NEXT:    %maybe = prim.Constant : !ts.optional<!ts.int>
// CHECK-NEXT:    %some = prim.Constant 4 : !ts.optional<!ts.int>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "scalars", function_type = () -> ()}> ({
// CHECK-GENERIC-NEXT:    %int = "prim.Constant"() <{value = 1 : i64}> : () -> !ts.int
// CHECK-GENERIC-NEXT:    %negative = "prim.Constant"() <{value = -9223372036854775808 : i64}> : () -> !ts.int
// CHECK-GENERIC-NEXT:    %float = "prim.Constant"() <{value = -2.500000e+00 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %from_int = "prim.Constant"() <{value = 3.000000e+00 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %tiny = "prim.Constant"() <{value = 1.000000e-05 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %third = "prim.Constant"() <{value = 0.33333333333333331 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %inf = "prim.Constant"() <{value = 0x7ff0000000000000 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %neg_inf = "prim.Constant"() <{value = 0xfff0000000000000 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %nan = "prim.Constant"() <{value = 0x7ff8000000000000 : f64}> : () -> !ts.float
// CHECK-GENERIC-NEXT:    %true = "prim.Constant"() <{value = true}> : () -> !ts.bool
// CHECK-GENERIC-NEXT:    %false = "prim.Constant"() <{value = false}> : () -> !ts.bool
// CHECK-GENERIC-NEXT:    %str = "prim.Constant"() <{value = "a\22b\\c\0A\09\01"}> : () -> !ts.str
// CHECK-GENERIC-NEXT:    %empty = "prim.Constant"() <{value = ""}> : () -> !ts.str
// CHECK-GENERIC-NEXT:    %none = "prim.Constant"() : () -> !ts.none
// CHECK-GENERIC-NEXT:    %device = "prim.Constant"() <{value = "cuda:0"}> : () -> !ts.device
// CHECK-GENERIC-NEXT:    %dtype = "prim.Constant"() <{value = 6 : i64}> : () -> !ts.int
// CHECK-GENERIC-NEXT:    %maybe = "prim.Constant"() : () -> !ts.optional<!ts.int>
// CHECK-GENERIC-NEXT:    %some = "prim.Constant"() <{value = 4 : i64}> : () -> !ts.optional<!ts.int>
// CHECK-GENERIC-NEXT:    "func.return"() : () -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @tensors() {
  %vector = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
  %scalar = prim.Constant dense<3> : tensor<i64> : !ts.tensor<i64, []>
  %matrix = prim.Constant dense<[[true, false], [false, true]]> : tensor<2x2xi1> : !ts.tensor<i1, [2, 2]>
  %bytes = prim.Constant dense<[0, 255]> : tensor<2xui8> : !ts.tensor<ui8, [2]>
  %half = prim.Constant dense<0.5> : tensor<1xf16> : !ts.tensor<f16, [1]>
  %complex = prim.Constant dense<(1.0,2.0)> : tensor<complex<f64>> : !ts.tensor<complex<f64>, []>
  %empty = prim.Constant dense<> : tensor<0xf64> : !ts.tensor<f64, [0]>
  %unknown = prim.Constant dense<[1, 2, 3]> : tensor<3xi32> : !ts.tensor
  %partial = prim.Constant dense<1.0> : tensor<2x3xf32> : !ts.tensor<f32, [2, ?], device = "cpu", requires_grad = false>
  func.return
}

// CHECK-LABEL: func.func @tensors() {
// CHECK-NEXT:    %vector = prim.Constant dense<[1.0, 2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
// CHECK-NEXT:    %scalar = prim.Constant dense<3> : tensor<i64> : !ts.tensor<i64, []>
// CHECK-NEXT:    %matrix = prim.Constant dense<{{\[}}[true, false], [false, true]]> : tensor<2x2xi1> : !ts.tensor<i1, [2, 2]>
// CHECK-NEXT:    %bytes = prim.Constant dense<[0, 255]> : tensor<2xui8> : !ts.tensor<ui8, [2]>
// CHECK-NEXT:    %half = prim.Constant dense<[0.5]> : tensor<1xf16> : !ts.tensor<f16, [1]>
// CHECK-NEXT:    %complex = prim.Constant dense<(1.0, 2.0)> : tensor<complex<f64>> : !ts.tensor<complex<f64>, []>
// CHECK-NEXT:    %empty = prim.Constant dense<> : tensor<0xf64> : !ts.tensor<f64, [0]>
// CHECK-NEXT:    %unknown = prim.Constant dense<[1, 2, 3]> : tensor<3xi32> : !ts.tensor
// CHECK-NEXT:    %partial = prim.Constant dense<1.0> : tensor<2x3xf32> : !ts.tensor<f32, [2, ?], device = "cpu", requires_grad = false>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "tensors", function_type = () -> ()}> ({
// CHECK-GENERIC-NEXT:    %vector = "prim.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> !ts.tensor<f32, [2]>
// CHECK-GENERIC-NEXT:    %scalar = "prim.Constant"() <{value = dense<3> : tensor<i64>}> : () -> !ts.tensor<i64, []>
// CHECK-GENERIC-NEXT:    %matrix = "prim.Constant"() <{value = dense<{{\[}}[true, false], [false, true]]> : tensor<2x2xi1>}> : () -> !ts.tensor<i1, [2, 2]>
// CHECK-GENERIC-NEXT:    %bytes = "prim.Constant"() <{value = dense<[0, 255]> : tensor<2xui8>}> : () -> !ts.tensor<ui8, [2]>
// CHECK-GENERIC-NEXT:    %half = "prim.Constant"() <{value = dense<5.000000e-01> : tensor<1xf16>}> : () -> !ts.tensor<f16, [1]>
// CHECK-GENERIC-NEXT:    %complex = "prim.Constant"() <{value = dense<(1.000000e+00,2.000000e+00)> : tensor<complex<f64>>}> : () -> !ts.tensor<complex<f64>, []>
// CHECK-GENERIC-NEXT:    %empty = "prim.Constant"() <{value = dense<> : tensor<0xf64>}> : () -> !ts.tensor<f64, [0]>
// CHECK-GENERIC-NEXT:    %unknown = "prim.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi32>}> : () -> !ts.tensor
// CHECK-GENERIC-NEXT:    %partial = "prim.Constant"() <{value = dense<1.000000e+00> : tensor<2x3xf32>}> : () -> !ts.tensor<f32, [2, ?], device = "cpu", requires_grad = false>
// CHECK-GENERIC-NEXT:    "func.return"() : () -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

func.func @containers() {
  %ints = prim.Constant [1, -2, 3] : !ts.list<!ts.int>
  %floats = prim.Constant [1.0, 1.0e+20, -inf] : !ts.list<!ts.float>
  %bools = prim.Constant [true, false] : !ts.list<!ts.bool>
  %strs = prim.Constant ["a", "b c"] : !ts.list<!ts.str>
  %tensors = prim.Constant [dense<1.0> : tensor<f32>, dense<[true]> : tensor<1xi1>] : !ts.list<!ts.tensor>
  %empty = prim.Constant [] : !ts.list<!ts.int>
  %nested = prim.Constant [[1], [2, 3]] : !ts.list<!ts.list<!ts.int>>
  %tuple = prim.Constant [1, "x", [2.5]] : !ts.tuple<!ts.int, !ts.str, !ts.list<!ts.float>>
  func.return
}

// CHECK-LABEL: func.func @containers() {
// CHECK-NEXT:    %ints = prim.Constant [1, -2, 3] : !ts.list<!ts.int>
// CHECK-NEXT:    %floats = prim.Constant [1.0, 1.0e+20, -inf] : !ts.list<!ts.float>
// CHECK-NEXT:    %bools = prim.Constant [true, false] : !ts.list<!ts.bool>
// CHECK-NEXT:    %strs = prim.Constant ["a", "b c"] : !ts.list<!ts.str>
// CHECK-NEXT:    %tensors = prim.Constant [dense<1.0> : tensor<f32>, dense<[true]> : tensor<1xi1>] : !ts.list<!ts.tensor>
// CHECK-NEXT:    %empty = prim.Constant [] : !ts.list<!ts.int>
// CHECK-NEXT:    %nested = prim.Constant {{\[}}[1], [2, 3]] : !ts.list<!ts.list<!ts.int>>
// CHECK-NEXT:    %tuple = prim.Constant [1, "x", [2.5]] : !ts.tuple<!ts.int, !ts.str, !ts.list<!ts.float>>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "containers", function_type = () -> ()}> ({
// CHECK-GENERIC-NEXT:    %ints = "prim.Constant"() <{value = [1 : i64, -2 : i64, 3 : i64]}> : () -> !ts.list<!ts.int>
// CHECK-GENERIC-NEXT:    %floats = "prim.Constant"() <{value = [1.000000e+00 : f64, 1.000000e+20 : f64, 0xfff0000000000000 : f64]}> : () -> !ts.list<!ts.float>
// CHECK-GENERIC-NEXT:    %bools = "prim.Constant"() <{value = [true, false]}> : () -> !ts.list<!ts.bool>
// CHECK-GENERIC-NEXT:    %strs = "prim.Constant"() <{value = ["a", "b c"]}> : () -> !ts.list<!ts.str>
// CHECK-GENERIC-NEXT:    %tensors = "prim.Constant"() <{value = [dense<1.000000e+00> : tensor<f32>, dense<true> : tensor<1xi1>]}> : () -> !ts.list<!ts.tensor>
// CHECK-GENERIC-NEXT:    %empty = "prim.Constant"() <{value = []}> : () -> !ts.list<!ts.int>
// CHECK-GENERIC-NEXT:    %nested = "prim.Constant"() <{value = {{\[}}[1 : i64], [2 : i64, 3 : i64]]}> : () -> !ts.list<!ts.list<!ts.int>>
// CHECK-GENERIC-NEXT:    %tuple = "prim.Constant"() <{value = [1 : i64, "x", [2.500000e+00 : f64]]}> : () -> !ts.tuple<!ts.int, !ts.str, !ts.list<!ts.float>>
// CHECK-GENERIC-NEXT:    "func.return"() : () -> ()
// CHECK-GENERIC-NEXT:  }) : () -> ()

// -----

// Extra attributes survive; name hints with dots (TorchScript's %x.1) are kept.

%a.1 = prim.Constant 2 {note = "pooled"} : !ts.int
%b.1 = prim.Constant {note = "none"} : !ts.none

// CHECK:      %a.1 = prim.Constant 2 {note = "pooled"} : !ts.int
// CHECK-NEXT: %b.1 = prim.Constant {note = "none"} : !ts.none

// CHECK-GENERIC:      %a.1 = "prim.Constant"() <{value = 2 : i64}> {note = "pooled"} : () -> !ts.int
// CHECK-GENERIC-NEXT: %b.1 = "prim.Constant"() {note = "none"} : () -> !ts.none

// -----

// Dict constants (PyTorch prints `{"a": 1.}`) keep their insertion order; an empty one
// is `dict{}`. The value is an array of [key, value] pairs.

func.func @dicts() {
  %floats = prim.Constant dict{"b": 2.0, "a": 1.0} : !ts.dict<!ts.str, !ts.float>
  %empty = prim.Constant dict{} : !ts.dict<!ts.str, !ts.tensor>
  %nested = prim.Constant dict{1: [1, 2], 3: []} : !ts.dict<!ts.int, !ts.list<!ts.int>>
  %keys = prim.Constant dict{true: "x"} : !ts.dict<!ts.bool, !ts.str>
  func.return
}

// CHECK-LABEL: func.func @dicts() {
// CHECK-NEXT:    %floats = prim.Constant dict{"b": 2.0, "a": 1.0} : !ts.dict<!ts.str, !ts.float>
// CHECK-NEXT:    %empty = prim.Constant dict{} : !ts.dict<!ts.str, !ts.tensor>
// CHECK-NEXT:    %nested = prim.Constant dict{1: [1, 2], 3: []} : !ts.dict<!ts.int, !ts.list<!ts.int>>
// CHECK-NEXT:    %keys = prim.Constant dict{true: "x"} : !ts.dict<!ts.bool, !ts.str>

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "dicts", function_type = () -> ()}> ({
// CHECK-GENERIC-NEXT:    %floats = "prim.Constant"() <{value = {{\[\[}}"b", 2.000000e+00 : f64], ["a", 1.000000e+00 : f64]]}> : () -> !ts.dict<!ts.str, !ts.float>
// CHECK-GENERIC-NEXT:    %empty = "prim.Constant"() <{value = []}> : () -> !ts.dict<!ts.str, !ts.tensor>
