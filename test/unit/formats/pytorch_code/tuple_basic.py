def forward(x: Tensor,
    n: int) -> Tuple[Tensor, Tuple[Tensor, int], Tuple[int, float]]:
  _0 = torch.mul(x, n)
  _1 = torch.add(n, 1)
  u = (_0, _1)
  return (torch.add(x, x), u, (_1, 2.5))
