def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
  _0 = (torch.exp(x), torch.log(x), torch.sqrt(x), torch.log(torch.exp(x)), torch.rsqrt(x))
  return _0
