// RUN: ts-opt %s --split-input-file -p constant-propagation | filecheck %s --check-prefix=FOLD
// RUN: ts-opt %s --split-input-file -p constant-pooling,common-subexpression-elimination | filecheck %s --check-prefix=POOL
// RUN: ts-opt %s --split-input-file -p inline | filecheck %s --check-prefix=INLINE
// RUN: ts-opt %s --split-input-file -p 'inline{forks=true}' | filecheck %s --check-prefix=FORKS

// `prim.isinstance` of a constant, or of a container of constants, seen through the
// casts a call added, folds by its exact type; of anything else it stays.

func.func @isinstance(%u : !ts.union<!ts.int, !ts.str>) -> !ts.tuple<!ts.bool, !ts.bool, !ts.bool> {
  %one = prim.Constant 1 : !ts.int
  %list = prim.ListConstruct %one, %one : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %any = prim.unchecked_cast %list : !ts.list<!ts.int> -> !ts.any
  %a = prim.isinstance %any [!ts.list<!ts.int>] : !ts.any
  %b = prim.isinstance %any [!ts.str] : !ts.any
  %c = prim.isinstance %u [!ts.int] : !ts.union<!ts.int, !ts.str>
  %t = prim.TupleConstruct %a, %b, %c : (!ts.bool, !ts.bool, !ts.bool) -> !ts.tuple<!ts.bool, !ts.bool, !ts.bool>
  func.return %t : !ts.tuple<!ts.bool, !ts.bool, !ts.bool>
}

// FOLD-LABEL: func.func @isinstance
// FOLD-DAG:     %{{.*}} = prim.Constant true : !ts.bool
// FOLD-DAG:     %{{.*}} = prim.Constant false : !ts.bool
// FOLD:         %c = prim.isinstance %u [!ts.int] : !ts.union<!ts.int, !ts.str>

// -----

// Enum members are never merged (PyTorch's node hashing has no enum values).

func.func @enums() -> !ts.tuple<!ts.enum<"__torch__.m.Color">, !ts.enum<"__torch__.m.Color">> {
  %a = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">
  %b = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">
  %t = prim.TupleConstruct %a, %b : (!ts.enum<"__torch__.m.Color">, !ts.enum<"__torch__.m.Color">) -> !ts.tuple<!ts.enum<"__torch__.m.Color">, !ts.enum<"__torch__.m.Color">>
  func.return %t : !ts.tuple<!ts.enum<"__torch__.m.Color">, !ts.enum<"__torch__.m.Color">>
}

// POOL-LABEL: func.func @enums
// POOL-NEXT:    %a = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">
// POOL-NEXT:    %b = prim.Constant "__torch__.m.Color.RED" : !ts.enum<"__torch__.m.Color">

// -----

// Calls in a forked subgraph stay calls, as PyTorch's inliner leaves them, unless
// asked (a native backend inlines them to fuse the forked work).

func.func @helper(%x : !ts.tensor) -> !ts.tensor {
  %r = aten.relu %x : (!ts.tensor) -> !ts.tensor
  func.return %r : !ts.tensor
}
func.func @forward(%x : !ts.tensor) -> !ts.tensor {
  %direct = func.call @helper(%x) : (!ts.tensor) -> !ts.tensor
  %fut = prim.fork(%a = %x : !ts.tensor) -> (!ts.future<!ts.tensor>) {
    %r = func.call @helper(%a) : (!ts.tensor) -> !ts.tensor
    prim.Yield %r : !ts.tensor
  }
  %w = aten.wait %fut : (!ts.future<!ts.tensor>) -> !ts.tensor
  func.return %w : !ts.tensor
}

// INLINE-LABEL: func.func @forward
// INLINE-NEXT:    %{{.*}} = aten.relu %x : (!ts.tensor) -> !ts.tensor
// INLINE-NEXT:    %fut = prim.fork(%a = %x : !ts.tensor) -> (!ts.future<!ts.tensor>) {
// INLINE-NEXT:      %{{.*}} = func.call @helper(%a) : (!ts.tensor) -> !ts.tensor

// FORKS-LABEL: func.func @forward
// FORKS:         %fut = prim.fork(%a = %x : !ts.tensor) -> (!ts.future<!ts.tensor>) {
// FORKS-NEXT:      %{{.*}} = aten.relu %a : (!ts.tensor) -> !ts.tensor
// FORKS-NEXT:      prim.Yield
