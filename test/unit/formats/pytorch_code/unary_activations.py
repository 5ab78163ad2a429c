def forward(x: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
  _0 = torch.tanh(x)
  _1 = torch.sigmoid(x)
  _2 = torch.relu(x)
  _3 = torch.relu(torch.sigmoid(torch.tanh(x)))
  return (_0, _1, _2, _3)
