// The examples of docs/plugins.md: the one-file plugin loaded with --load-pass-plugin,
// the same module found through the `xdsl.universe` entry point of an installed
// package (a dist-info directory on the path stands for `pip install`), and the
// subgraph rules file.
// RUN: ts-opt %s --load-pass-plugin %S/../../../docs/examples/double_negation.py -p remove-double-negation | filecheck %s
// RUN: env PYTHONPATH=%S/../../../docs/examples:%S/../../../docs/examples/plugin_site ts-opt %s -p remove-double-negation | filecheck %s
// RUN: env TSJIT_LOG_LEVEL='>remove-double-negation' ts-opt %s --load-pass-plugin %S/../../../docs/examples/double_negation.py -p remove-double-negation 2>&1 >/dev/null | filecheck %s --check-prefix=LOG
// RUN: ts-opt %s -p 'rewrite-subgraphs{rules="%S/../../../docs/examples/mul_add.rules"}' | filecheck %s --check-prefix=RULES

// Only the int negations go (the dead `%j` is dead-code-elimination's).
// CHECK-LABEL: func.func @forward
// CHECK-NEXT:    %j = aten.neg %k : (!ts.int) -> !ts.int
// CHECK-NEXT:    %m = aten.neg %x : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %p = aten.neg %m : (!ts.tensor) -> !ts.tensor
// CHECK:         func.return %t, %k : !ts.tensor, !ts.int

// LOG: [UPDATE {{.*}}double_negation] aten.neg at {{.*}}plugin_example.mlir:{{[0-9]+}}:{{[0-9]+}}: rewritten by RemoveDoubleIntNegation

// RULES-LABEL: func.func @forward
// RULES:         %t = aten.addcmul %x, %p, %y, %{{.*}} : (!ts.tensor, !ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
func.func @forward(%x : !ts.tensor, %y : !ts.tensor, %k : !ts.int) -> (!ts.tensor, !ts.int) {
  %j = aten.neg %k : (!ts.int) -> !ts.int
  %n = aten.neg %j : (!ts.int) -> !ts.int
  %m = aten.neg %x : (!ts.tensor) -> !ts.tensor
  %p = aten.neg %m : (!ts.tensor) -> !ts.tensor
  %one = prim.Constant 1 : !ts.int
  %s = aten.mul %p, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %t = aten.add %s, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  func.return %t, %n : !ts.tensor, !ts.int
}
