def forward(x: Tensor,
    n: int) -> Tuple[Tensor, int]:
  if torch.gt(n, 0):
    if torch.gt(n, 10):
      y0 = torch.mul(x, 3)
    else:
      y0 = torch.mul(x, 2)
    y = y0
  else:
    if torch.eq(n, 0):
      y1 = x
    else:
      y1 = torch.neg(x)
    y = y1
  return (y, n)
