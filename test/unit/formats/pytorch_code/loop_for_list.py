def forward(xs: List[int],
    ws: List[float]) -> Tuple[int, float]:
  s = 0
  for _0 in range(torch.len(xs)):
    v = xs[_0]
    s = torch.add(s, v)
  t = 0.
  for _1 in range(torch.len(ws)):
    w = ws[_1]
    t = torch.add(torch.mul(t, 0.5), w)
  return (s, t)
