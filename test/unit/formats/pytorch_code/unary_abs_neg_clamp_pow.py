def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
  a = torch.add(torch.abs(x), torch.neg(x))
  b = torch.clamp(x, -0.5, 0.5)
  c = torch.clamp(x, 0.)
  d = torch.clamp(x, None, 0.25)
  e = torch.add(torch.pow(x, 2), torch.pow(x, 3))
  f = torch.pow(torch.abs(x), 0.5)
  g = torch.pow(2, x)
  return (a, b, c, d, e, f, g)
