def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
  m = torch.max(x)
  v, i = torch.max(x, 1)
  a = torch.argmax(x, 1)
  b = torch.argmax(x, 0, True)
  c = torch.argmax(x)
  return (m, v, i, a, b, c)
