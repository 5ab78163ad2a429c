// RUN: ts-opt %s -p torchscript-cleanup | filecheck %s
// RUN: ts-opt %s -p executor-default | filecheck %s
// RUN: env TSJIT_LOG_LEVEL=inline:dead_code_elimination:constant_propagation:common_subexpression_elimination:constant_pooling:peephole:lower_tuples:pipelines ts-opt %s -p torchscript-cleanup 2>&1 >/dev/null | filecheck %s --check-prefix=STEPS
// RUN: ts-opt %conformance/inplace_ops/graph.txt -p torchscript-cleanup | filecheck %s --check-prefix=TORCH

// PyTorch's cleanup: the call is inlined into the branch the constant condition takes,
// the duplicate exp merges, `n * 1` and the tuple round trip fold, dead code goes.
// The executor's pipeline does the cleanup first and finds nothing more here.

// CHECK-LABEL: func.func @forward
// CHECK-NEXT:    %p = aten.mul %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %e1 = aten.exp %p : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %s = aten.add %e1, %e1, %n : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    func.return %s : !ts.tensor
func.func @forward(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %true = prim.Constant true : !ts.bool
  %r = prim.If %true -> (!ts.tensor) {
    %a = func.call @scale(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %a : !ts.tensor
  } else {
    %b = aten.neg %x : (!ts.tensor) -> !ts.tensor
    prim.Yield %b : !ts.tensor
  }
  %one = prim.Constant 1 : !ts.int
  %m = aten.mul %n, %one : (!ts.int, !ts.int) -> !ts.int
  %t = prim.TupleConstruct %r, %m : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  %r2, %m2 = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor, !ts.int
  %e1 = aten.exp %r2 : (!ts.tensor) -> !ts.tensor
  %e2 = aten.exp %r2 : (!ts.tensor) -> !ts.tensor
  %dead = aten.sin %x : (!ts.tensor) -> !ts.tensor
  %s = aten.add %e1, %e2, %m2 : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %s : !ts.tensor
}

func.func private @scale(%y : !ts.tensor, %k : !ts.int) -> !ts.tensor {
  %p = aten.mul %y, %k : (!ts.tensor, !ts.int) -> !ts.tensor
  func.return %p : !ts.tensor
}

// Every step dumps under its own name, in PyTorch's order, then the pipeline itself.

// STEPS:      [DUMP inline] After inline:
// STEPS:      [DUMP dead_code_elimination] After dead-code-elimination:
// STEPS:      [DUMP constant_propagation] After constant-propagation:
// STEPS:      [DUMP dead_code_elimination] After dead-code-elimination:
// STEPS:      [DUMP common_subexpression_elimination] After common-subexpression-elimination:
// STEPS:      [DUMP constant_pooling] After constant-pooling:
// STEPS:      [DUMP peephole] After peephole:
// STEPS:      [DUMP dead_code_elimination] After dead-code-elimination:
// STEPS:      [DUMP lower_tuples] After lower-tuples:
// STEPS:      [DUMP pipelines] After torchscript-cleanup:

// The in-place ops of PyTorch's graph stay: they write a tensor the graph returns.

// TORCH:      %z.1 = aten.clone %x.1, %{{.*}} : (!ts.tensor, !ts.none) -> !ts.tensor
// TORCH-NEXT: %{{.*}} = aten.add_ %z.1, %{{.*}}, %{{.*}} : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
// TORCH-NEXT: %{{.*}} = aten.mul_ %z.1, %y.1 : (!ts.tensor, !ts.tensor) -> !ts.tensor
// TORCH-NEXT: %{{.*}} = aten.relu_ %z.1 : (!ts.tensor) -> !ts.tensor
// TORCH:      aten.copy_
// TORCH:      aten.sub_
// TORCH:      func.return
