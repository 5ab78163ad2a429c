func.func @f(%x : !ts.int) {
  %y = "test.op"() : () -> !ts.Dict
  func.return
}
