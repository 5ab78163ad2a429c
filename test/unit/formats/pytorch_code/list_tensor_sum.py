def forward(xs: List[Tensor]) -> Tuple[Tensor, Tensor, int]:
  total = torch.zeros_like(xs[0])
  total0 = total
  for _0 in range(torch.len(xs)):
    t = xs[_0]
    total0 = torch.add(total0, t)
  stacked = torch.sum(torch.stack(xs), [0])
  return (total0, stacked, torch.len(xs))
