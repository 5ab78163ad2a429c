def forward(x: Tensor) -> Tuple[Tensor, Tensor, int, Tensor, Tensor, Tensor, Tensor]:
  a, b, c, = torch.chunk(x, 3, 1)
  parts = torch.split(x, 2)
  p, q, = torch.split(x, [1, 2], 1)
  _0 = (torch.add(a, c), b, torch.len(parts), parts[0], parts[-1], p, q)
  return _0
