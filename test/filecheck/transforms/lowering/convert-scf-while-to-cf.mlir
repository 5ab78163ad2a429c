// RUN: ts-opt %s -p convert-scf-while-to-cf | filecheck %s

// Euclid's algorithm: the condition region tests, the body region steps.
func.func @gcd(%a: i64, %b: i64) -> i64 {
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %c0 = arith.constant 0 : i64
    %more = arith.cmpi ne, %y, %c0 : i64
    scf.condition(%more) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %m = arith.remsi %x, %y : i64
    scf.yield %y, %m : i64, i64
  }
  func.return %r#0 : i64
}
// CHECK-LABEL: func.func @gcd(%a: i64, %b: i64) -> i64 {
// CHECK-NEXT:   cf.br ^bb1(%a, %b : i64, i64)
// CHECK-NEXT: ^bb1(%x: i64, %y: i64):
// CHECK-NEXT:   %c0 = arith.constant 0 : i64
// CHECK-NEXT:   %more = arith.cmpi ne, %y, %c0 : i64
// CHECK-NEXT:   cf.cond_br %more, ^bb2(%x, %y : i64, i64), ^bb3(%x, %y : i64, i64)
// CHECK-NEXT: ^bb2(%x_1: i64, %y_1: i64):
// CHECK-NEXT:   %m = arith.remsi %x_1, %y_1 : i64
// CHECK-NEXT:   cf.br ^bb1(%y_1, %m : i64, i64)
// CHECK-NEXT: ^bb3(%r: i64, %r_1: i64):
// CHECK-NEXT:   func.return %r : i64
// CHECK-NEXT: }
