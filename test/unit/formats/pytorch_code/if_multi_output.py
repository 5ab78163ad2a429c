def forward(x: Tensor,
    y: Tensor,
    flag: bool) -> Tuple[Tensor, Tensor]:
  if flag:
    a, b = torch.add(x, 1), torch.mul(y, 2)
  else:
    a, b = torch.sub(x, 1), torch.div(y, 2)
  return (a, b)
