def forward(n: int,
    m: int) -> int:
  s = 0
  for i in range(n):
    s0 = s
    for j in range(m):
      s1 = torch.add(s0, torch.add(torch.mul(i, j), 1))
      s0 = s1
    s = s0
  return s
