def forward(keys: List[str],
    vals: List[int]) -> Tuple[Dict[str, int], int, bool, int, List[int], str, int]:
  d = annotate(Dict[str, int], {})
  for i in range(torch.len(keys)):
    _0 = vals[i]
    torch._set_item(d, keys[i], _0)
  a = torch.get(d, "a", -1)
  has_b = torch.__contains__(d, "b")
  torch._set_item(d, "z", 26)
  _1 = torch.keys(d)
  total = 0
  for _2 in range(torch.len(_1)):
    k = _1[_2]
    total = torch.add(total, d[k])
  vs = annotate(List[int], [])
  _3 = torch.values(d)
  for _4 in range(torch.len(_3)):
    v = _3[_4]
    _5 = torch.append(vs, v)
  _6 = torch.items(d)
  s = ""
  for _7 in range(torch.len(_6)):
    k0, v0, = _6[_7]
    s0 = torch.add(torch.add(s, k0), str(v0))
    s = s0
  _8 = (d, a, has_b, total, vs, s, torch.len(d))
  return _8
