func.func @f(%x : !ts.int) -> !ts.int {
  %y = "test.op"(%x) : (!ts.int) -> !ts.float
  func.return %y : !ts.float
}
