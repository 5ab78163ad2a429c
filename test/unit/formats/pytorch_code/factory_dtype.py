def forward(x: Tensor,
    n: int) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
  a = torch.zeros([2, 3])
  b = torch.ones([n], dtype=4)
  c = torch.arange(n)
  d = torch.full([2, 2], 7.)
  e = torch.zeros_like(x)
  f = torch.add(torch.to(x, 6), 0.5)
  g = torch.to(x, 4)
  h = torch.to(x, 7)
  i = torch.to(torch.gt(x, 0), 3)
  return (a, b, c, d, e, f, g, h, i)
