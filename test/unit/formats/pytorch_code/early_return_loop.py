def forward(xs: List[int],
    target: int) -> int:
  _0 = uninitialized(int)
  _1 = torch.len(xs)
  _2 = False
  _3 = _0
  _4 = 0
  _5 = torch.gt(_1, 0)
  while _5:
    if torch.eq(xs[_4], target):
      _6, _7, _8 = False, True, _4
    else:
      _6, _7, _8 = True, False, _0
    _9 = torch.add(_4, 1)
    _5, _2, _3, _4 = torch.__and__(torch.lt(_9, _1), _6), _7, _8, _9
  if _2:
    _10 = _3
  else:
    _10 = -1
  return _10
