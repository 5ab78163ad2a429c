def forward(x: Tensor,
    bias: Optional[Tensor],
    scale: Optional[float]) -> Tensor:
  if torch.__isnot__(bias, None):
    bias0 = unchecked_cast(Tensor, bias)
    y = torch.add(x, bias0)
  else:
    y = x
  if torch.__is__(scale, None):
    _0 = y
  else:
    scale0 = unchecked_cast(float, scale)
    _0 = torch.mul(y, scale0)
  return _0
