// RUN: TS_ROUNDTRIP
// RUN: TS_GENERIC_ROUNDTRIP

// Subgraph nodes (their body arguments are the subgraph inputs) and ConstantChunk.

func.func @subgraphs(%cx : !ts.tensor<f32, [?, ?]>, %gates : !ts.tensor<f32, [?, ?]>, %n : !ts.int) -> !ts.tensor<f32, [?, ?]> {
  %hy, %cy = prim.FusionGroup(%c = %cx : !ts.tensor<f32, [?, ?]>, %g = %gates : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
    %i, %f = prim.ConstantChunk[chunks = 2, dim = 1] %g : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
    prim.Yield %i, %f : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
  }
  %d = prim.DifferentiableGraph(%a = %hy : !ts.tensor<f32, [?, ?]>, %k = %n : !ts.int) -> (!ts.tensor<f32, [?, ?]>) {
    prim.Yield %a : !ts.tensor<f32, [?, ?]>
  }
  prim.FusionGroup() {
    prim.Yield
  }
  %last = prim.ConstantChunk[chunks = 1, dim = -1] %d : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>
  func.return %last : !ts.tensor<f32, [?, ?]>
}

// CHECK-LABEL: func.func @subgraphs(%cx: !ts.tensor<f32, [?, ?]>, %gates: !ts.tensor<f32, [?, ?]>, %n: !ts.int) -> !ts.tensor<f32, [?, ?]> {
// CHECK-NEXT:    %hy, %cy = prim.FusionGroup(%c = %cx : !ts.tensor<f32, [?, ?]>, %g = %gates : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      %i, %f = prim.ConstantChunk[chunks = 2, dim = 1] %g : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:      prim.Yield %i, %f : !ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    }
// CHECK-NEXT:    %d = prim.DifferentiableGraph(%a = %hy : !ts.tensor<f32, [?, ?]>, %k = %n : !ts.int) -> (!ts.tensor<f32, [?, ?]>) {
// CHECK-NEXT:      prim.Yield %a : !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    }
// CHECK-NEXT:    prim.FusionGroup() {
// CHECK-NEXT:      prim.Yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %last = prim.ConstantChunk[chunks = 1, dim = -1] %d : !ts.tensor<f32, [?, ?]> -> !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:    func.return %last : !ts.tensor<f32, [?, ?]>
// CHECK-NEXT:  }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "subgraphs"
// CHECK-GENERIC:         %hy, %cy = "prim.FusionGroup"(%cx, %gates) ({
// CHECK-GENERIC-NEXT:    ^bb0(%c: !ts.tensor<f32, [?, ?]>, %g: !ts.tensor<f32, [?, ?]>):
// CHECK-GENERIC-NEXT:      %i, %f = "prim.ConstantChunk"(%g) <{chunks = 2 : i64, dim = 1 : i64}> : (!ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>)
// CHECK-GENERIC-NEXT:      "prim.Yield"(%i, %f) : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>)
// CHECK-GENERIC-NEXT:    %d = "prim.DifferentiableGraph"(%hy, %n) ({
// CHECK-GENERIC-NEXT:    ^bb0(%a: !ts.tensor<f32, [?, ?]>, %k: !ts.int):
// CHECK-GENERIC-NEXT:      "prim.Yield"(%a) : (!ts.tensor<f32, [?, ?]>) -> ()
// CHECK-GENERIC-NEXT:    }) : (!ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tensor<f32, [?, ?]>
// CHECK-GENERIC-NEXT:    "prim.FusionGroup"() ({
// CHECK-GENERIC-NEXT:      "prim.Yield"() : () -> ()
// CHECK-GENERIC-NEXT:    }) : () -> ()
// CHECK-GENERIC-NEXT:    %last = "prim.ConstantChunk"(%d) <{chunks = 1 : i64, dim = -1 : i64}> : (!ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>

// -----

// A subgraph may see its inputs with refined types, as in PyTorch's profiled graphs.
func.func @refined_inputs(%x : !ts.tensor) -> !ts.tensor {
  %r = prim.DifferentiableGraph(%a : !ts.tensor<f32, [2]> = %x : !ts.tensor) -> (!ts.tensor) {
    prim.Yield %a : !ts.tensor<f32, [2]>
  }
  func.return %r : !ts.tensor
}

// CHECK-LABEL: func.func @refined_inputs(%x: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %r = prim.DifferentiableGraph(%a : !ts.tensor<f32, [2]> = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      prim.Yield %a : !ts.tensor<f32, [2]>
// CHECK-NEXT:    }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "refined_inputs"
// CHECK-GENERIC:         ^bb0(%a: !ts.tensor<f32, [2]>):

// -----

// A differentiated DifferentiableGraph: the body yields the outputs and the values
// the backward captures; the backward region takes the output gradients, the captured
// inputs and the captured yields, and yields the inputs' gradients.
func.func @differentiated(%x : !ts.tensor) -> !ts.tensor {
  %y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
    %t = aten.tanh %a : (!ts.tensor) -> !ts.tensor
    prim.Yield %t, %t : !ts.tensor, !ts.tensor
  } backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [], captured_outputs = [1]] {
  ^bb0(%g : !ts.tensor, %s : !ts.tensor):
    %d = aten.tanh_backward %g, %s : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %d : !ts.tensor
  }
  func.return %y : !ts.tensor
}

// CHECK-LABEL: func.func @differentiated(%x: !ts.tensor) -> !ts.tensor {
// CHECK-NEXT:    %y = prim.DifferentiableGraph(%a = %x : !ts.tensor) -> (!ts.tensor) {
// CHECK-NEXT:      %t = aten.tanh %a : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %t, %t : !ts.tensor, !ts.tensor
// CHECK-NEXT:    } backward[grad_outputs = [0], grad_inputs = [0], captured_inputs = [], captured_outputs = [1]] {
// CHECK-NEXT:    ^bb0(%g: !ts.tensor, %s: !ts.tensor):
// CHECK-NEXT:      %d = aten.tanh_backward %g, %s : (!ts.tensor, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Yield %d : !ts.tensor
// CHECK-NEXT:    }

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "differentiated"
// CHECK-GENERIC:         %y = "prim.DifferentiableGraph"(%x) <{grad_outputs = array<i64: 0>, grad_inputs = array<i64: 0>, captured_inputs = array<i64>, captured_outputs = array<i64: 1>}> ({
// CHECK-GENERIC:         }, {
// CHECK-GENERIC-NEXT:    ^bb0(%g: !ts.tensor, %s: !ts.tensor):
