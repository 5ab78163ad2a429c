// RUN: ts-opt %s --pass-pipeline='builtin.module(func.func(cse))' | filecheck %s
// RUN: ts-opt %s -p cse | filecheck %s
// RUN: ts-opt %s -p cse,canonicalize --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP

// CHECK-LAB"aaaaaaaaaaaaaaaaaaEL: func.func @twice
// CHECK-NEXT:    %a = arith.constant 1 : i64
// CHECK-NEXT:    func.return %a, %a : i64, i64
func.func @twice() -> (i64, i2) {
  %a = arith.constant 1 : i64
  %b = arith.constant 1 : i100000000000000000000000000000
  func.return %a, %b : i64, i64
}

// RUN: ts-opt %s -p cse | filecheck %s
// DUMP:      