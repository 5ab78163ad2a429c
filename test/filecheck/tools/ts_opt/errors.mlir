// RUN: not ts-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not ts-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not ts-opt %S/Inputs/bad_type.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not ts-opt %S/Inputs/bad_return.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not ts-opt %S/Inputs/missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING

// PASS: ts-opt: error: Unrecognized passes: ['no-such-pass']
// PASS-NOT: Traceback
// SPEC: ts-opt: error: bad pass pipeline at column 5: Expected argument name here
// PARSE:      bad_type.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'ts.Dict' is not registered
// VERIFY:      bad_return.mlir:3:3: error: 'func.return' op Expected arguments to have the same types as the function output types: expected [!ts.int], got [!ts.float]
// VERIFY-NEXT: func.return %y : !ts.float
// VERIFY-NEXT: ^
// MISSING: ts-opt: error: {{.*}}No such file or directory
func.func @ok() {
  func.return
}
