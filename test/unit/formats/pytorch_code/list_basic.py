def forward(xs: List[int],
    k: int) -> Tuple[List[int], int, int, List[int], List[int], int]:
  ys = annotate(List[int], [])
  for _0 in range(torch.len(xs)):
    v = xs[_0]
    _1 = torch.append(ys, torch.mul(v, k))
  _2 = torch.append(ys, torch.len(xs))
  first = ys[0]
  last = ys[-1]
  sl = torch.slice(ys, 1, 3)
  sq = annotate(List[int], [])
  for _3 in range(torch.len(xs)):
    v0 = xs[_3]
    _4 = torch.append(sq, torch.mul(v0, v0))
  _5 = torch._set_item(ys, 0, 100)
  _6 = (ys, first, last, sl, sq, torch.len(ys))
  return _6
