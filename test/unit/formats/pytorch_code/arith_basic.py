def forward(x: Tensor,
    y: Tensor) -> Tensor:
  a = torch.add(x, y)
  b = torch.sub(x, y)
  c = torch.mul(x, y)
  d = torch.div(x, torch.add(torch.mul(y, y), 1.))
  _0 = torch.sub(torch.add(torch.mul(a, b), c), d)
  return _0
