// RUN: ts-translate --export-torchscript %s | filecheck %s
// RUN: ts-translate --export-torchscript %s | ts-translate --import-torchscript | filecheck %s --check-prefix=REIMPORT

// tsjit IR written by hand, printed as PyTorch's graph text: constants in PyTorch's
// spelling, func.call as a Function constant and prim::CallFunction, a subgraph op as
// `prim::FusionGroup_0` and its `with` definition, locations as `# file:line:col`
// (MLIR counts columns from 1, PyTorch's graph text from 0).
// Values keep their names, made unique (`%x`, `%x_1`); others are numbered.

func.func @forward(%x : !ts.tensor<f32, [2]>, %n : !ts.int) -> !ts.tuple<!ts.tensor, !ts.float, !ts.str> {
  %one = prim.Constant 1 : !ts.int loc("model.py":3:4)
  %half = prim.Constant 0.5 : !ts.float
  %big = prim.Constant 1.0e+20 : !ts.float
  %text = prim.Constant "tab\there \"q\"" : !ts.str
  %t = prim.Constant dense<[1.5, -2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
  %s = prim.Constant dense<3> : tensor<i64> : !ts.tensor<i64>
  %true = prim.Constant true : !ts.bool
  %x.1 = aten.add %x, %t, %one : (!ts.tensor<f32, [2]>, !ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor loc("model.py":4:8)
  %y = func.call @helper(%x.1, %half) : (!ts.tensor, !ts.float) -> !ts.tensor
  %f = prim.FusionGroup(%a = %y : !ts.tensor, %b = %s : !ts.tensor<i64>) -> (!ts.tensor) {
    %c = aten.mul %a, %b : (!ts.tensor, !ts.tensor<i64>) -> !ts.tensor
    prim.Yield %c : !ts.tensor
  }
  %l = prim.Loop %n, %true iter(%i) carried(%acc = %f : !ts.tensor) -> (!ts.tensor) {
    %x.2 = aten.add %acc, %i, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Yield %true, %x.2 : !ts.bool, !ts.tensor
  }
  %r = prim.TupleConstruct %l, %big, %text : (!ts.tensor, !ts.float, !ts.str) -> !ts.tuple<!ts.tensor, !ts.float, !ts.str>
  func.return %r : !ts.tuple<!ts.tensor, !ts.float, !ts.str>
}
func.func private @helper(!ts.tensor, !ts.float) -> !ts.tensor

// CHECK:      graph(%x : Float(2),
// CHECK-NEXT:       %n : int):
// CHECK-NEXT:   %one : int = prim::Constant[value=1]() # model.py:3:3
// CHECK-NEXT:   %half : float = prim::Constant[value=0.5]()
// CHECK-NEXT:   %big : float = prim::Constant[value=1e+20]()
// CHECK-NEXT:   %text : str = prim::Constant[value="tab\there \"q\""]()
// CHECK-NEXT:   %t : Float(2) = prim::Constant[value= 1.5  -2 [ CPUFloatType{2} ]]()
// CHECK-NEXT:   %s : Long = prim::Constant[value={3}]()
// CHECK-NEXT:   %true : bool = prim::Constant[value=1]()
// CHECK-NEXT:   %x.1 : Tensor = aten::add(%x, %t, %one) # model.py:4:7
// CHECK-NEXT:   %0 : Function = prim::Constant[name="helper"]()
// CHECK-NEXT:   %y : Tensor = prim::CallFunction(%0, %x.1, %half)
// CHECK-NEXT:   %f : Tensor = prim::FusionGroup_0(%y, %s)
// CHECK-NEXT:   %l : Tensor = prim::Loop(%n, %true, %f)
// CHECK-NEXT:     block0(%i : int, %acc : Tensor):
// CHECK-NEXT:       %x.2 : Tensor = aten::add(%acc, %i, %one)
// CHECK-NEXT:       -> (%true, %x.2)
// CHECK-NEXT:   %r : (Tensor, float, str) = prim::TupleConstruct(%l, %big, %text)
// CHECK-NEXT:   return (%r)
// CHECK-NEXT: with prim::FusionGroup_0 = graph(%a : Tensor,
// CHECK-NEXT:       %b : Long):
// CHECK-NEXT:   %c : Tensor = aten::mul(%a, %b)
// CHECK-NEXT:   return (%c)

// REIMPORT:        func.func @forward(%x: !ts.tensor<f32, [2]>, %n: !ts.int) -> !ts.tuple<!ts.tensor, !ts.float, !ts.str> {
// REIMPORT-NEXT:     %one = prim.Constant 1 : !ts.int
// REIMPORT-NEXT:     %half = prim.Constant 0.5 : !ts.float
// REIMPORT-NEXT:     %big = prim.Constant 1.0e+20 : !ts.float
// REIMPORT-NEXT:     %text = prim.Constant "tab\there \"q\"" : !ts.str
// REIMPORT-NEXT:     %t = prim.Constant dense<[1.5, -2.0]> : tensor<2xf32> : !ts.tensor<f32, [2]>
// REIMPORT-NEXT:     %s = prim.Constant dense<3> : tensor<i64> : !ts.tensor<i64>
// REIMPORT-NEXT:     %true = prim.Constant true : !ts.bool
// REIMPORT-NEXT:     %x.1 = aten.add %x, %t, %one : (!ts.tensor<f32, [2]>, !ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor
// REIMPORT-NEXT:     %y = func.call @helper(%x.1, %half) : (!ts.tensor, !ts.float) -> !ts.tensor
// REIMPORT-NEXT:     %f = prim.FusionGroup(%a = %y : !ts.tensor, %b = %s : !ts.tensor<i64>) -> (!ts.tensor) {
// REIMPORT-NEXT:       %c = aten.mul %a, %b : (!ts.tensor, !ts.tensor<i64>) -> !ts.tensor
// REIMPORT-NEXT:       prim.Yield %c : !ts.tensor
// REIMPORT-NEXT:     }
// REIMPORT-NEXT:     %l = prim.Loop %n, %true iter(%i) carried(%acc = %f : !ts.tensor) -> (!ts.tensor) {
// REIMPORT-NEXT:       %x.2 = aten.add %acc, %i, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
// REIMPORT-NEXT:       prim.Yield %true, %x.2 : !ts.bool, !ts.tensor
// REIMPORT-NEXT:     }
// REIMPORT-NEXT:     %r = prim.TupleConstruct %l, %big, %text : (!ts.tensor, !ts.float, !ts.str) -> !ts.tuple<!ts.tensor, !ts.float, !ts.str>
// REIMPORT-NEXT:     func.return %r : !ts.tuple<!ts.tensor, !ts.float, !ts.str>
// REIMPORT-NEXT:   }
// REIMPORT-NEXT:   func.func private @helper(!ts.tensor, !ts.float) -> !ts.tensor
