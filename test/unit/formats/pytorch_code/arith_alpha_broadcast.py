def forward(x: Tensor,
    y: Tensor,
    z: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
  a = torch.add(x, y, alpha=2)
  b = torch.sub(x, z, alpha=0.5)
  c = torch.add(x, y, alpha=-1.5)
  _0 = (a, b, c, torch.add(torch.mul(x, z), y))
  return _0
