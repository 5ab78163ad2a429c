// RUN: ts-opt %s -p convert-cf-to-llvm | filecheck %s

// Block arguments of type index become i64; casts join the unconverted arith ops.
func.func @count(%n: index) -> index {
  %c0 = arith.constant 0 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %c1 = arith.constant 1 : index
  %next = arith.addi %i, %c1 : index
  %done = arith.cmpi sge, %next, %n : index
  cf.cond_br %done, ^exit(%next : index), ^loop(%next : index)
^exit(%r: index):
  func.return %r : index
}
// CHECK-LABEL: func.func @count(%n: index) -> index {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %c0_1 = builtin.unrealized_conversion_cast %c0 : index to i64
// CHECK-NEXT:   llvm.br ^loop(%c0_1 : i64)
// CHECK-NEXT: ^loop(%i: i64):
// CHECK-NEXT:   %i_1 = builtin.unrealized_conversion_cast %i : i64 to index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %next = arith.addi %i_1, %c1 : index
// CHECK-NEXT:   %done = arith.cmpi sge, %next, %n : index
// CHECK-NEXT:   %next_1 = builtin.unrealized_conversion_cast %next : index to i64
// CHECK-NEXT:   llvm.cond_br %done, ^exit(%next_1 : i64), ^loop(%next_1 : i64)
// CHECK-NEXT: ^exit(%r: i64):
// CHECK-NEXT:   %r_1 = builtin.unrealized_conversion_cast %r : i64 to index
// CHECK-NEXT:   func.return %r_1 : index
// CHECK-NEXT: }

func.func @pick(%x: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %x : i32, [
    default: ^other(%b : f32),
    1: ^one,
    5: ^other(%a : f32)
  ]
^one:
  func.return %a : f32
^other(%v: f32):
  func.return %v : f32
}
// CHECK-LABEL: func.func @pick(%x: i32, %a: f32, %b: f32) -> f32 {
// CHECK-NEXT:   %0 = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:   %1 = llvm.icmp "eq" %x, %0 : i32
// CHECK-NEXT:   llvm.cond_br %1, ^one, ^bb1
// CHECK-NEXT: ^bb1:
// CHECK-NEXT:   %2 = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT:   %3 = llvm.icmp "eq" %x, %2 : i32
// CHECK-NEXT:   llvm.cond_br %3, ^other(%a : f32), ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   llvm.br ^other(%b : f32)
// CHECK-NEXT: ^one:
// CHECK-NEXT:   func.return %a : f32
// CHECK-NEXT: ^other(%v: f32):
// CHECK-NEXT:   func.return %v : f32
// CHECK-NEXT: }
