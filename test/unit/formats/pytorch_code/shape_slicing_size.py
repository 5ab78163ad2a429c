def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, List[int], int, int, int]:
  a = torch.select(x, 0, 0)
  b = torch.slice(torch.slice(x), 1, 1, 3)
  c = torch.slice(x, 0, 1)
  d = torch.select(x, 0, -1)
  e = torch.slice(x, 0, None, None, 2)
  n = torch.size(x, 0)
  _0 = (a, b, c, d, e, torch.size(x), n, torch.dim(x), (torch.size(x))[1])
  return _0
