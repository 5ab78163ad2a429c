def forward(x: Tensor,
    n: int) -> Tuple[Tensor, int]:
  y = x
  i = 0
  _0 = torch.lt(0, n)
  while _0:
    y0 = torch.add(y, i)
    i0 = torch.add(i, 2)
    _0, y, i = torch.lt(i0, n), y0, i0
  return (y, i)
