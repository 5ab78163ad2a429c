def forward(a: int,
    b: int) -> Tuple[int, int, int, int, int, float, int, float]:
  _0 = (torch.add(a, b), torch.sub(a, b), torch.mul(a, b), torch.floordiv(a, b), torch.remainder(a, b), torch.div(a, b), torch.neg(a), torch.pow(a, 2))
  return _0
