def forward(x: Tensor,
    y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
  m = torch.gt(x, y)
  a = torch.where(m, x, y)
  b = torch.__and__(torch.ge(x, 0), torch.lt(y, 1))
  c = torch.eq(x, y)
  d = torch.masked_fill(x, torch.lt(x, 0), 0.)
  e = torch.mul(x, torch.to(torch.gt(x, 0), 6))
  f = torch.where(torch.ne(x, 0), x, torch.ones_like(x))
  return (m, a, b, c, d, e, f)
