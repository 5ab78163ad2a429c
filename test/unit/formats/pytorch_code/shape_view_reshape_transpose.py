def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
  a = torch.view(x, [3, 4])
  b = torch.reshape(x, [-1])
  c = torch.t(a)
  d = torch.transpose(x, 0, 2)
  e = torch.contiguous(torch.permute(x, [2, 0, 1]))
  f = torch.reshape(c, [2, -1])
  return (a, b, c, d, e, f)
