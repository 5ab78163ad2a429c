def forward(x: float,
    y: float,
    n: int) -> Tuple[float, float, float, float, float, int, float, float, float, float]:
  a = torch.add(torch.mul(x, y), 1.5)
  b = torch.div(x, y)
  c = torch.floordiv(x, y)
  d = torch.remainder(x, y)
  _0 = torch.add(torch.sqrt(ops.prim.abs(x)), torch.exp(y))
  _1 = torch.log(torch.add(ops.prim.abs(y), 1.))
  e = torch.sub(_0, _1)
  f = torch.add(torch.floor(x), torch.ceil(y))
  g = torch.mul(3.1415926535897931, n)
  _2 = (a, b, c, d, e, f, g, torch.sin(x), torch.fabs(x), torch.div(float(n), 3))
  return _2
