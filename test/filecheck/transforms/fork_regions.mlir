// RUN: ts-opt %s -p constant-pooling | filecheck %s --check-prefix=POOL
// RUN: ts-opt %s -p common-subexpression-elimination | filecheck %s --check-prefix=CSE
// RUN: ts-opt %s -p dead-code-elimination | filecheck %s --check-prefix=DCE
// RUN: ts-opt %s -p shape-propagation | filecheck %s --check-prefix=SHAPES

// Passes treat a fork's subgraph as a graph of its own: constants are pooled inside it,
// nothing is merged across its boundary, and the fork itself (which may write what it
// captures until the wait) is never removed, even when its future is unused.

func.func @forward(%x : !ts.tensor<f32, [4]>) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.add %x, %x, %one : (!ts.tensor<f32, [4]>, !ts.tensor<f32, [4]>, !ts.int) -> !ts.tensor
  %fut = prim.fork(%y : !ts.tensor = %x : !ts.tensor<f32, [4]>) -> (!ts.future<!ts.tensor>) {
    %one_inner = prim.Constant 1 : !ts.int
    %b = aten.add %y, %y, %one_inner : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %two = prim.Constant 1 : !ts.int
    %c = aten.add %b, %b, %two : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Yield %c : !ts.tensor
  }
  %unused = prim.fork(%z : !ts.tensor = %x : !ts.tensor<f32, [4]>) -> (!ts.future<!ts.tensor>) {
    %d = aten.relu_ %z : (!ts.tensor) -> !ts.tensor
    prim.Yield %d : !ts.tensor
  }
  %w = aten.wait %fut : (!ts.future<!ts.tensor>) -> !ts.tensor
  func.return %w : !ts.tensor
}

// POOL-LABEL: func.func @forward
// POOL-NEXT:    %one = prim.Constant 1 : !ts.int
// POOL-NEXT:    %a = aten.add %x, %x, %one
// POOL-NEXT:    %fut = prim.fork(%y : !ts.tensor = %x : !ts.tensor<f32, [4]>) -> (!ts.future<!ts.tensor>) {
// POOL-NEXT:      %one_inner = prim.Constant 1 : !ts.int
// POOL-NEXT:      %b = aten.add %y, %y, %one_inner
// POOL-NEXT:      %c = aten.add %b, %b, %one_inner
// POOL-NEXT:      prim.Yield %c : !ts.tensor
// POOL-NEXT:    }

// CSE-LABEL: func.func @forward
// CSE:         %a = aten.add %x, %x, %one
// CSE:         %fut = prim.fork
// CSE-NEXT:      %one_inner = prim.Constant 1 : !ts.int
// CSE-NEXT:      %b = aten.add %y, %y, %one_inner

// DCE-LABEL: func.func @forward
// DCE:         %fut = prim.fork
// DCE:         %unused = prim.fork(%z : !ts.tensor = %x : !ts.tensor<f32, [4]>) -> (!ts.future<!ts.tensor>) {
// DCE-NEXT:      %d = aten.relu_ %z : (!ts.tensor) -> !ts.tensor

// SHAPES-LABEL: func.func @forward
// SHAPES:         %fut = prim.fork(%y = %x : !ts.tensor<f32, [4]>) -> (!ts.future<!ts.tensor<f32, [4]>>) {
// SHAPES:           %c = aten.add %b, %b, %two : (!ts.tensor<f32, [4]>, !ts.tensor<f32, [4]>, !ts.int) -> !ts.tensor<f32, [4]>
// SHAPES:         %w = aten.wait %fut : (!ts.future<!ts.tensor<f32, [4]>>) -> !ts.tensor<f32, [4]>
