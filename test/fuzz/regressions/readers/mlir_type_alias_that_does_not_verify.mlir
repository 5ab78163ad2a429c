!t = !ts.tensor<f32, [-2, 3]>
func.func @f(%x: !t) -> !t {
  func.return %x : !t
}
