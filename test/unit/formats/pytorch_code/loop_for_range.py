def forward(x: Tensor,
    n: int) -> Tuple[Tensor, int]:
  acc = x
  total = 0
  for i in range(n):
    acc, total = torch.add(torch.mul(acc, 0.5), i), torch.add(total, i)
  return (acc, total)
