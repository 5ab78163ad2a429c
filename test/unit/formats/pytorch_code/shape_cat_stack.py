def forward(x: Tensor,
    y: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
  a = torch.cat([x, y])
  b = torch.cat([x, y], 1)
  c = torch.stack([x, y])
  d = torch.stack([x, y, x], 1)
  return (a, b, c, d)
