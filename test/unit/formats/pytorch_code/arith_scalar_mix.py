def forward(x: Tensor,
    s: float,
    n: int) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
  a = torch.add(torch.mul(x, 2), 1.5)
  b = torch.add(torch.neg(x), 3.)
  _0 = torch.reciprocal(torch.add(torch.abs(x), 1))
  c = torch.mul(_0, 1.)
  d = torch.sub(torch.mul(x, s), n)
  e = torch.add(torch.mul(x, n), torch.div(s, 2))
  return (a, b, c, d, e)
