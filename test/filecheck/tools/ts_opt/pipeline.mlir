// RUN: ts-opt %s --pass-pipeline='builtin.module(func.func(cse))' | filecheck %s
// RUN: ts-opt %s -p cse | filecheck %s
// RUN: ts-opt %s -p cse,canonicalize --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP

// CHECK-LABEL: func.func @twice
// CHECK-NEXT:    %a = arith.constant 1 : i64
// CHECK-NEXT:    func.return %a, %a : i64, i64
func.func @twice() -> (i64, i64) {
  %a = arith.constant 1 : i64
  %b = arith.constant 1 : i64
  func.return %a, %b : i64, i64
}

// DUMP:      // -----// IR Dump After cse //----- //
// DUMP:      func.func @twice
// DUMP:      // -----// IR Dump After canonicalize //----- //
