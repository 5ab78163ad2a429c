def forward(x: Tensor,
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor) -> Tensor:
  h = torch.relu(torch.add(torch.matmul(x, w1), b1))
  return torch.add(torch.matmul(h, w2), b2)
