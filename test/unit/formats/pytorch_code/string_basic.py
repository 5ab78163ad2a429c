def forward(s: str,
    n: int) -> Tuple[str, bool, str, int, str, List[str]]:
  t = torch.add(torch.add(s, "_"), str(n))
  same = torch.eq(s, "abc")
  msg = torch.format("{}:{}", s, n)
  _0 = (t, same, msg, torch.len(t), torch.upper(s), torch.split(s, ","))
  return _0
