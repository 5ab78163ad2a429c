// RUN: not ts-opt %s 2>&1 | filecheck %s
// A function whose closing brace is missing: the error says what is expected, at the
// end of the last token, with the line and a caret (not xDSL's "in block definition").
// CHECK:      mlir_missing_brace.mlir:14:27: error: expected '}' to end the region begun at line 12
// CHECK-NEXT: {{^}}  func.return %y : !ts.int{{$}}
// CHECK-NEXT: {{^                          \^$}}
// CHECK-NOT:  Traceback
// CHECK-NOT:  block definition



func.func @f(%x : !ts.int) -> !ts.int {
  %y = aten.add %x, %x : (!ts.int, !ts.int) -> !ts.int
  func.return %y : !ts.int
