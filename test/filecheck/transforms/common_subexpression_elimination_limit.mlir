// RUN: env TSJIT_OPT_LIMIT=common_subexpression_elimination=1 ts-opt %s -p common-subexpression-elimination | filecheck %s
// RUN: env TSJIT_OPT_LIMIT=common_subexpression_elimination=1 TSJIT_LOG_LEVEL='>common_subexpression_elimination' ts-opt %s -p common-subexpression-elimination 2>&1 >/dev/null | filecheck %s --check-prefix=LOG

// Under a rewrite limit each merge is counted once, as it is decided, also in a graph
// whose first write comes after the equal ops: one merge, one update line.

// CHECK:      %a = aten.mul %x, %x
// CHECK-NEXT: %c = aten.mul %x, %x
// CHECK-NEXT: %s = aten.add %a, %a, %one
// CHECK-NEXT: %s2 = aten.add %s, %c, %one
// LOG:        [UPDATE common_subexpression_elimination] aten.mul at {{.*}}:16:3: replaced by the equal op at {{.*}}:15:3
// LOG-NOT:    [UPDATE
func.func @limited(%x : !ts.tensor) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %c = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %s = aten.add %a, %b, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %s2 = aten.add %s, %c, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %w = aten.add_ %x, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %s2 : !ts.tensor
}
