def forward(a: Tensor,
    b: Tensor,
    p: Tensor,
    q: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
  _0 = (torch.mm(a, b), torch.matmul(a, b), torch.bmm(p, q), torch.matmul(p, b))
  return _0
