def forward(a: int,
    b: int,
    flag: bool) -> Tuple[bool, bool, bool, bool, bool, bool]:
  if torch.lt(a, b):
    c1 = flag
  else:
    c1 = False
  if torch.eq(a, b):
    c2 = True
  else:
    c2 = torch.__not__(flag)
  c3 = torch.__not__(torch.ge(a, b))
  if torch.ne(a, b):
    if torch.gt(b, 0):
      _0 = True
    else:
      _0 = torch.gt(a, 0)
    c4 = _0
  else:
    c4 = False
  c5 = torch.ne(flag, c1)
  if torch.le(0, a):
    c6 = torch.lt(a, 4)
  else:
    c6 = False
  return (c1, c2, c3, c4, c5, c6)
