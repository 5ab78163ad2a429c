// RUN: not ts-translate --export-torchscript %s --entry ops 2>&1 | filecheck %s --check-prefix=OP
// RUN: not ts-translate --export-torchscript %s --entry types 2>&1 | filecheck %s --check-prefix=TYPE

// Only TorchScript's ops and types have a graph text spelling.
func.func @ops(%a : !ts.int) -> !ts.int {
  %b = "test.op"(%a) : (!ts.int) -> !ts.int
  func.return %b : !ts.int
}

func.func @types(%a : i64) -> i64 {
  func.return %a : i64
}

// OP: {{.*}}not_torchscript.mlir:6:3: error: 'test.op' is not a TorchScript operation and has no graph text
// TYPE: {{.*}}not_torchscript.mlir:10:1: error: i64 is not a TorchScript type and has no graph text
