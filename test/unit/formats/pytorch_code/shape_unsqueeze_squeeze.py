def forward(x: Tensor) -> Tuple[List[int], List[int], Tensor, Tensor, Tensor]:
  a = torch.unsqueeze(x, 0)
  b = torch.unsqueeze(x, -1)
  c = torch.squeeze(a)
  d = torch.squeeze(b, -1)
  e = torch.squeeze(torch.unsqueeze(x, 1), 0)
  _0 = (torch.size(a), torch.size(b), c, d, e)
  return _0
