// RUN: ts-opt %s --load-pass-plugin %S/Inputs/swap_plugin.py -p constant-to-rhs | filecheck %s
// RUN: not ts-opt %s --load-pass-plugin %S/Inputs/broken_plugin.py 2>&1 | filecheck %s --check-prefix=BROKEN
// RUN: not ts-opt %s --load-pass-plugin %S/Inputs/none.py 2>&1 | filecheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %c = arith.constant 1 : i64
// CHECK-NEXT:    %s = arith.addi %x, %c : i64
func.func @f(%x : i64) -> i64 {
  %c = arith.constant 1 : i64
  %s = arith.addi %c, %x : i64
  func.return %s : i64
}

// BROKEN: broken_plugin.py:1:{{[0-9]+}}: error: in pass plugin: '(' was never closed
// NONE: error: pass plugin '{{.*}}none.py' does not exist
