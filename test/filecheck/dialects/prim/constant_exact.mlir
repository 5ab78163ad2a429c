// RUN: ts-opt %s | ts-opt | filecheck %s

// Constants that the custom syntax carries exactly but xDSL 0.74's generic syntax does
// not: it prints non-finite tensor elements as hex bit patterns that its parser reads
// back as integers, and non-ASCII strings as escaped bytes that parse back as a
// BytesAttr. Hence this file round-trips through the custom syntax only.

func.func @exact() {
  %mask = prim.Constant dense<[[0.0, -inf], [nan, inf]]> : tensor<2x2xf32> : !ts.tensor<f32, [2, 2]>
  %shortest = prim.Constant dense<[0.1, -0.0, 3.4028234663852886e+38]> : tensor<3xf32> : !ts.tensor<f32, [3]>
  %half = prim.Constant dense<[0.1, 65504.0]> : tensor<2xf16> : !ts.tensor<f16, [2]>
  %bf16 = prim.Constant dense<[1.1, 2]> : tensor<2xbf16> : !ts.tensor<bf16, [2]>
  %complex = prim.Constant dense<[(inf, -1.5), (0.0, nan)]> : tensor<2xcomplex<f32>> : !ts.tensor<complex<f32>, [2]>
  %greeting = prim.Constant "héllo wörld, ∀x. x\n" : !ts.str
  %names = prim.Constant ["π", "τ"] : !ts.list<!ts.str>
  func.return
}

// CHECK-LABEL: func.func @exact() {
// CHECK-NEXT:    %mask = prim.Constant dense<{{\[}}[0.0, -inf], [nan, inf]]> : tensor<2x2xf32> : !ts.tensor<f32, [2, 2]>
// CHECK-NEXT:    %shortest = prim.Constant dense<[0.1, -0.0, 3.4028235e+38]> : tensor<3xf32> : !ts.tensor<f32, [3]>
// CHECK-NEXT:    %half = prim.Constant dense<[0.1, 6.55e+04]> : tensor<2xf16> : !ts.tensor<f16, [2]>
// CHECK-NEXT:    %bf16 = prim.Constant dense<[1.1015625, 2.0]> : tensor<2xbf16> : !ts.tensor<bf16, [2]>
// CHECK-NEXT:    %complex = prim.Constant dense<[(inf, -1.5), (0.0, nan)]> : tensor<2xcomplex<f32>> : !ts.tensor<complex<f32>, [2]>
// CHECK-NEXT:    %greeting = prim.Constant "héllo wörld, ∀x. x\n" : !ts.str
// CHECK-NEXT:    %names = prim.Constant ["π", "τ"] : !ts.list<!ts.str>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
