def forward(xs: List[int],
    limit: int) -> Tuple[int, int]:
  _0 = uninitialized(int)
  _1 = uninitialized(bool)
  _2 = torch.len(xs)
  s = 0
  count = 0
  _3 = 0
  _4 = torch.gt(_2, 0)
  while _4:
    v = xs[_3]
    if torch.lt(v, 0):
      _5, _6, _7, _8, _9, _10, _11 = True, True, s, count, _1, _0, _0
    else:
      if torch.gt(torch.add(s, v), limit):
        _12, _13, _14, _15, _16, _17, _18 = True, False, s, count, _1, _0, _0
      else:
        _12, _13, _14, _15, _16, _17, _18 = False, _1, _0, _0, True, torch.add(s, v), torch.add(count, 1)
      _5, _6, _7, _8, _9, _10, _11 = _12, _13, _14, _15, _16, _17, _18
    if _5:
      _19, _20, _21 = _6, _7, _8
    else:
      _19, _20, _21 = _9, _10, _11
    _22 = torch.add(_3, 1)
    _23 = torch.__and__(torch.lt(_22, _2), _19)
    _4, s, count, _3 = _23, _20, _21, _22
  return (s, count)
