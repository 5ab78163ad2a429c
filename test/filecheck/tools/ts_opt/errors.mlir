// RUN: not ts-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not ts-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SPEC
// RUN: not ts-opt %S/Inputs/bad_type.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// RUN: not ts-opt %S/Inputs/bad_return.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not ts-opt %S/Inputs/missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING

// PASS:      pass-pipeline:1:1: error: unknown pass 'no-such-pass' (ts-opt --list-passes lists them)
// PASS-NEXT: no-such-pass
// PASS-NEXT: ^
// PASS-NOT: Traceback
// SPEC:      pass-pipeline:1:5: error: expected argument name here
// SPEC-NEXT: cse{
// SPEC-NEXT: {{^    \^$}}
// PARSE:      bad_type.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'ts.Dict' is not registered
// VERIFY:      bad_return.mlir:3:3: error: 'func.return' op Expected arguments to have the same types as the function output types: expected [!ts.int], got [!ts.float]
// VERIFY-NEXT: func.return %y : !ts.float
// VERIFY-NEXT: ^
// MISSING: ts-opt: error: cannot read '{{.*}}missing.mlir': no such file or directory
func.func @ok() {
  func.return
}
