def forward(x: Tensor,
    y: Tensor) -> Tensor:
  _0 = __torch__.torch.autograd.grad_mode.no_grad.__new__(__torch__.torch.autograd.grad_mode.no_grad)
  _1 = (_0).__init__()
  with _0:
    z = torch.add(torch.mul(x, 2), y)
  return torch.add(z, 1)
